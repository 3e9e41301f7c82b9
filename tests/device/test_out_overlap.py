"""out= that shares memory with an argument is refused, naming both (a reversing slice or a
permuting gather would read what it has overwritten); scatter's data tensor is the exception:
out= it updates in place."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


def test_a_reversing_slice_into_its_own_input_is_refused():
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    k = dmlc.compile(dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(64, 64)),
                                     offsets=(0, 0), sizes=(64, 64), strides=(1, -1)))
    t = dmlc.to_device(x)
    with pytest.raises(dmlc.ValidationError, match="out: expected a tensor that shares no "
                                                   "memory with InputTensor"):
        k(t, out=t)
    assert_bits_equal(t.numpy(), x)  # untouched
    assert_bits_equal(k(t).numpy(), x[:, ::-1])


def test_a_gather_elements_into_its_indices_or_input_is_refused():
    n = 64
    x = np.arange(n * n, dtype=np.int32).reshape(n, n)
    perm = np.argsort(np.random.default_rng(0).random((n, n)), axis=1).astype(np.int32)
    t = dmlc.TensorDesc(data_type="INT32", sizes=(n, n))
    k = dmlc.compile(dmlc.GatherElementsDesc(input=t, indices=t, axis=1))
    xs, idx = dmlc.to_device(x), dmlc.to_device(perm)
    for out, field in ((xs, "InputTensor"), (idx, "IndicesTensor")):
        with pytest.raises(dmlc.ValidationError, match=field):
            k(xs, idx, out=out)
    assert_bits_equal(k(xs, idx).numpy(), np.take_along_axis(x, perm, axis=1))


def test_scatter_into_its_data_tensor_updates_it_in_place():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    t = dmlc.TensorDesc(data_type="FLOAT32", sizes=(4, 3))
    i = dmlc.TensorDesc(data_type="INT32", sizes=(1, 3))
    u = dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 3))
    k = dmlc.compile(dmlc.ScatterDesc(input=t, indices=i, updates=u, axis=0))
    data = dmlc.to_device(x)
    idx, upd = np.array([[3, 0, 2]], np.int32), np.array([[-1, -2, -3]], np.float32)
    assert k(data, idx, upd, out=data) is data
    expected = x.copy()
    expected[[3, 0, 2], [0, 1, 2]] = [-1, -2, -3]
    assert_bits_equal(data.numpy(), expected)
    full = dmlc.compile(dmlc.ScatterDesc(input=t, indices=dmlc.TensorDesc(data_type="INT32",
                                                                          sizes=(4, 3)),
                                         updates=t, axis=0))
    updates = dmlc.to_device(np.ones((4, 3), np.float32))
    with pytest.raises(dmlc.ValidationError, match="UpdatesTensor"):
        full(data, np.zeros((4, 3), np.int32), updates, out=updates)

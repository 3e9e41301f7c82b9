"""out= that shares memory with an argument gives numpy's result: the kernel writes a temporary
that is then copied where out's elements lie (a reversing slice or a permuting gather into its
own input would otherwise read what it has overwritten); scatter's data tensor as out= is
updated in place instead."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
import reference as ref
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


def test_a_reversing_slice_into_its_own_input():
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    k = dmlc.compile(dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(64, 64)),
                                     offsets=(0, 0), sizes=(64, 64), strides=(1, -1)))
    t = dmlc.to_device(x)
    assert k(t, out=t) is t
    assert_bits_equal(t.numpy(), x[:, ::-1])
    assert_bits_equal(dmlc.slice(t, [0, 0], [64, 64], [-1, 1], out=t).numpy(), x[::-1, ::-1])


def test_a_gather_elements_into_its_indices_or_input():
    n = 64
    x = np.arange(n * n, dtype=np.int32).reshape(n, n)
    perm = np.argsort(np.random.default_rng(0).random((n, n)), axis=1).astype(np.int32)
    t = dmlc.TensorDesc(data_type="INT32", sizes=(n, n))
    k = dmlc.compile(dmlc.GatherElementsDesc(input=t, indices=t, axis=1))
    for into in ("input", "indices"):
        xs, idx = dmlc.to_device(x), dmlc.to_device(perm)
        out = xs if into == "input" else idx
        assert k(xs, idx, out=out) is out
        assert_bits_equal(out.numpy(), np.take_along_axis(x, perm, axis=1))


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
    ones = np.arange(12, dtype=np.float32).reshape(4, 3) + 100
    updates = dmlc.to_device(ones)
    idx = np.zeros((4, 3), np.int32)
    assert full(data, idx, updates, out=updates) is updates  # into its own updates
    assert_bits_equal(updates.numpy(), ref.scatter(expected, idx, ones, 0))

"""Device-tensor views as numpy's: basic indexing, .T, transpose() and reshape() share the
buffer (no copy), fold into the next kernel, and numpy() of a view gives numpy's values."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from reference import assert_bits_equal
from strategies import DATA_TYPES, budget, random_bits

pytestmark = pytest.mark.vulkan


@st.composite
def basic_keys(draw, shape):
    keys = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "all"]))
        if kind == "int":
            keys.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            keys.append(slice(draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                              draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                              draw(st.sampled_from([None, 1, 2, -1, -2, 3]))))
        else:
            keys.append(slice(None))
    if draw(st.booleans()):
        keys.insert(draw(st.integers(0, len(keys))), None)
    return tuple(keys)


@settings(max_examples=budget(40))
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data())
def test_views_match_numpy(shape, data):
    dtype = data.draw(st.sampled_from(DATA_TYPES))
    x = random_bits(data.draw(st.integers(0, 2**32 - 1)), tuple(shape), dtype)
    t = dmlc.to_device(x)
    key = data.draw(basic_keys(shape))
    view, want = t[key], x[key]
    assert view.kp_tensor is t.kp_tensor and view.shape == want.shape  # no copy
    if data.draw(st.booleans()):
        view, want = view.T, want.T
    assert_bits_equal(view.numpy(), want)
    if want.size and 1 <= want.ndim <= 8:  # a view folds into a kernel's TensorDesc
        assert_bits_equal(dmlc.slice(view, [0] * want.ndim, list(want.shape),
                                     [1] * want.ndim).numpy(), want)
        flat = view.reshape(-1)
        assert_bits_equal(flat.numpy(), want.reshape(-1))


def test_reshape_is_a_view_where_numpy_s_is():
    x = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    t = dmlc.to_device(x)
    r = t.reshape(6, 4)
    assert r.is_contiguous and r.kp_tensor is t.kp_tensor
    assert_bits_equal(r.numpy(), x.reshape(6, 4))
    assert_bits_equal(t.transpose(2, 0, 1).reshape(4, -1).numpy(),
                      x.transpose(2, 0, 1).reshape(4, -1))
    assert_bits_equal(t[:, 1:].reshape((2, 8)).numpy(), x[:, 1:].reshape(2, 8))


def test_a_compiled_kernel_takes_a_view_as_numpy_takes_a_strided_array():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    kernel = dmlc.compile(dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="FLOAT32",
                                                                sizes=(5, 4)),
                                          indices=dmlc.TensorDesc(data_type="INT32",
                                                                  sizes=(1, 2)),
                                          axis=0, index_dimensions=1))
    idx = np.array([[4, 1]], np.int32)
    assert_bits_equal(kernel(dmlc.to_device(x).T, idx).numpy(), x.T[[4, 1]])
    out = dmlc.empty((4, 2), np.float32)  # out= a transposed view: written where it lies
    assert kernel(x.T.copy(), idx, out=out.T).shape == (2, 4)
    assert_bits_equal(out.numpy(), x.T[[4, 1]].T)


def test_view_errors():
    t = dmlc.to_device(np.zeros((3, 4), np.float32))
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"index\[1\] = 4"):
        t[0, 4]
    with pytest.raises(dmlc.ValidationError, match="basic indexing"):
        t[[0, 1]]
    with pytest.raises(dmlc.ValidationError, match="at most 2 indices"):
        t[0, 0, 0]
    with pytest.raises(dmlc.ValidationError, match="a shape of 12 elements"):
        t.reshape(5, -1)
    with pytest.raises(dmlc.ValidationError, match="a permutation"):
        t.transpose(0, 0)
    with pytest.raises(dmlc.ValidationError, match=r"DeviceTensor\[\.\.\.\]: index: expected "
                                                   "integers, slices"):
        t[np.array([0, 1])]  # was numpy's "truth value ... is ambiguous"
    t[:, ::2].upload(np.ones((3, 2), np.float32))  # an upload into a view lands in its elements
    assert_bits_equal(t.numpy(), np.tile(np.float32([1, 0]), (3, 2)))

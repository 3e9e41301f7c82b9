"""Fuzzer finds in the one-shot functions (issue 23, item 2), each against numpy bit for bit:
out= of the shape a function returns, a float padding constant rounded once, and checked
mode naming the position in the caller's indices (not in the kernel's reshaped ones)."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

X23 = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("indices, want", [(np.array([1]), X23[1]),
                                           (np.array([1, 2]), X23[1, 2].reshape(1)),
                                           (np.array([[0], [1], [0]]), X23[[0, 1, 0]])])
def test_gather_nd_out_of_the_shape_it_returns(indices, want):
    assert dmlc.gather_nd(X23, indices).shape == want.shape
    out = np.full(want.shape, -1.0)
    assert dmlc.gather_nd(X23, indices, out=out) is out
    assert_bits_equal(out, want)
    strided = np.full(want.shape + (2,), -1.0)[..., 0]
    assert dmlc.gather_nd(X23, indices, out=strided) is strided
    assert_bits_equal(strided, want)
    device = dmlc.empty(want.shape, np.float64)
    assert dmlc.gather_nd(dmlc.to_device(X23), indices, out=device) is device
    assert_bits_equal(device.numpy(), want)


def test_gather_nd_out_of_another_shape_names_the_one_it_returns():
    with pytest.raises(dmlc.ValidationError, match=r"out shape: expected \{3\}, got \{4\}"):
        dmlc.gather_nd(X23, np.array([1]), out=np.empty(4))
    padded = np.empty((1, 3))  # the kernel's own shape is still taken
    assert_bits_equal(dmlc.gather_nd(X23, np.array([1]), out=padded), X23[1:])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("value", [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**24 + 1, 65519,
                                   np.int64(2**53 + 1), np.int32(2**24 + 3)])
def test_pad_rounds_an_integer_constant_once(dtype, value):
    x = np.zeros(1, dtype)
    with np.errstate(over="ignore"):
        beyond = np.isinf(np.array(int(value)).astype(dtype))
    if beyond:  # numpy's inf is dmlc's error
        with pytest.raises(dmlc.ValidationError, match="FLOAT16's range"):
            dmlc.pad(x, 1, 0, value=value)
        return
    assert_bits_equal(dmlc.pad(x, 1, 0, value=value), np.pad(x, (1, 0), constant_values=value))


def test_pad_keeps_an_int64_constant_exact():
    x = np.zeros(1, np.int64)
    for value in [2**63 - 1, np.int64(-(2**63)), np.uint64(2**63 - 1), 2**53 + 1]:
        assert_bits_equal(dmlc.pad(x, 1, 1, value=value), np.pad(x, 1, constant_values=value))

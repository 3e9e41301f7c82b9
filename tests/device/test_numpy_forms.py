"""numpy's own call forms where a numpy user will try them: take(..., out=) as numpy.take has
it. Checked against numpy bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

TAKES = [((X, [1]), {}), ((X, [[2, -1]], 2), {}), ((X, 5, None), {}), ((X, 1, 1), {}),
         ((X, np.array([[0], [1]]), 0), {}), ((X, [7, -9, 30]), {"mode": "clip"}),
         ((X, [7, -9, 30], 1), {"mode": "wrap"}), ((X, np.zeros(0, np.int64), 1), {})]


@pytest.mark.parametrize("args, kwargs", TAKES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int8])
def test_take_out_as_numpy(args, kwargs, dtype):
    """numpy's rule: `a`'s dtype casts safely from out's (float32 -> float16 does not), and
    the result is cast into out as numpy casts it."""
    shape = np.shape(np.take(*args, **kwargs))
    want = np.full(shape, 3, dtype)
    out = np.full(shape, 3, dtype)
    try:
        np.take(*args, out=want, **kwargs)
    except TypeError:
        with pytest.raises(dmlc.ValidationError, match="take: out.dtype"):
            dmlc.take(*args, out=out, **kwargs)
        return
    with np.errstate(invalid="ignore"):
        assert dmlc.take(*args, out=out, **kwargs) is out
    assert_bits_equal(out, want)
    positional = np.full(shape, 3, dtype)  # numpy's order: take(a, indices, axis, out, mode)
    a, indices, *axis = args
    dmlc.take(a, indices, axis[0] if axis else None, positional, kwargs.get("mode", "raise"))
    assert_bits_equal(positional, want)


@pytest.mark.parametrize("args, kwargs", TAKES)
def test_take_out_a_device_tensor(args, kwargs):
    want = np.take(*args, **kwargs)
    out = dmlc.empty(want.shape, want.dtype)
    assert dmlc.take(*args, out=out, **kwargs) is out
    assert_bits_equal(out.numpy(), want)
    out = dmlc.empty(want.shape, want.dtype)
    assert dmlc.take(dmlc.to_device(args[0]), *args[1:], out=out, **kwargs) is out
    assert_bits_equal(out.numpy(), want)


def test_take_out_errors_and_an_unchanged_out():
    out = np.full(2, -1.0, np.float32)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"take: indices\[1\] = 99"):
        dmlc.take(X, [0, 99], out=out)
    assert_bits_equal(out, np.full(2, -1.0, np.float32))  # numpy buffers: out as it was
    with pytest.raises(dmlc.ValidationError, match=r"take: out.shape: expected \(2,\), got \(3,"):
        dmlc.take(X, [0, 1], out=np.empty(3, np.float32))
    with pytest.raises(dmlc.ValidationError, match="take: out: expected a numpy array"):
        dmlc.take(X, [0, 1], out=[0.0, 0.0])
    read_only = np.empty(2, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(dmlc.ValidationError, match="take: out: expected a writeable array"):
        dmlc.take(X, [0, 1], out=read_only)
    with pytest.raises(dmlc.ValidationError, match="take: out: expected a contiguous"):
        dmlc.take(X, [0, 1], out=dmlc.empty((2,), np.float64))

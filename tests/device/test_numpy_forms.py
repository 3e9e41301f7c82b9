"""numpy's own call forms where a numpy user will try them: take(..., out=) as numpy.take has
it, and pad(x, pad_width, mode, constant_values=) as numpy.pad has it (beside dmlc's
start/end form), with DirectML's padding mode names too. Checked against numpy bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

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
    with pytest.raises(dmlc.ValidationError, match="take: out: expected a DeviceTensor"):
        dmlc.take(X, [0, 1], out=dmlc.empty((2,), np.float64))
    device = dmlc.to_device(np.full(2, -1.0, np.float32))
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"take: indices\[1\] = 99"):
        dmlc.take(X, [0, 99], out=device)
    assert_bits_equal(device.numpy(), np.full(2, -1.0, np.float32))


def test_take_out_a_view_of_a_device_tensor():
    """Written where the view's elements lie; the rest of its buffer as it was."""
    big = np.full((4, 6), -1.0, np.float32)
    device = dmlc.to_device(big)
    view = device[1:3, ::-2]  # shape (2, 3), strided and reversed, at an offset
    want = np.take(X, [[0, 1, 2], [5, 6, 7]])
    assert dmlc.take(X, [[0, 1, 2], [5, 6, 7]], out=view) is view
    big[1:3, ::-2] = want
    assert_bits_equal(device.numpy(), big)


# pad: numpy's pad_width forms, against numpy.pad

@st.composite
def pad_widths(draw, rank: int):
    w = st.integers(0, 2)
    form = draw(st.sampled_from(["int", "1", "pair", "pair in a list", "per axis", "column",
                                 "array"]))
    if form == "int":
        return draw(w)
    if form == "1":
        return (draw(w),)
    if form == "pair":
        return (draw(w), draw(w))
    if form == "pair in a list":
        return [(draw(w), draw(w))]
    if form == "column":  # shape (rank, 1): the same before and after, per axis
        return [[draw(w)] for _ in range(rank)]
    pairs = [(draw(w), draw(w)) for _ in range(rank)]
    return np.array(pairs, draw(st.sampled_from([np.int64, np.uint8]))) if form == "array" \
        else pairs


@settings(max_examples=budget(40), deadline=None)
@given(shape=st.lists(st.integers(3, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_pad_takes_numpys_pad_width(shape, data):
    x = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    widths = data.draw(pad_widths(len(shape)))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
    want = np.pad(x, np.asarray(widths).astype(np.int64), mode)  # numpy refuses unsigned
    assert_bits_equal(dmlc.pad(x, widths, mode), want)
    assert_bits_equal(dmlc.pad(x, widths, mode=mode), want)
    if mode == "constant":
        for values in [-5, (-5, -5), [[-5, -5]] * len(shape), np.int16(-5)]:
            assert_bits_equal(dmlc.pad(x, widths, constant_values=values),
                              np.pad(x, np.asarray(widths).astype(np.int64),
                                     constant_values=values))


DIRECTML_MODES = {"constant": "constant", "edge": "edge", "reflection": "reflect",
                  "symmetric": "symmetric", "wrap": "wrap"}


@pytest.mark.parametrize("name", DIRECTML_MODES)
def test_pad_takes_directmls_mode_names(name):
    x = np.arange(12, dtype=np.float16).reshape(3, 4)
    want = np.pad(x, ((1, 2), (2, 0)), DIRECTML_MODES[name])
    for mode in [name, f"DML_PADDING_MODE_{name.upper()}"]:
        assert_bits_equal(dmlc.pad(x, [1, 2], [2, 0], mode=mode), want)
        assert_bits_equal(dmlc.pad(x, ((1, 2), (2, 0)), mode), want)


PAD_ERRORS = [
    (lambda: dmlc.pad(X, 1.5), "pad_width: expected integers"),
    (lambda: dmlc.pad(X, True), "pad_width: expected integers"),
    (lambda: dmlc.pad(X, [[1, 2], [3]]), "pad_width: expected integers"),
    (lambda: dmlc.pad(X, -1), "pad_width: expected widths >= 0"),
    (lambda: dmlc.pad(X, [(1, 2), (3, 4)]), "pad_width: expected a shape that broadcasts"),
    (lambda: dmlc.pad(X, 1, mode="mean"), "numpy's linear_ramp, maximum, mean"),
    (lambda: dmlc.pad(X, 1, mode="Reflection"), "mode: expected 'constant'"),
    (lambda: dmlc.pad(X, 1, mode="DML_PADDING_MODE_MIRROR"), "mode: expected 'constant'"),
    (lambda: dmlc.pad(X, 1, "edge", mode="wrap"), "mode: expected one mode"),
    (lambda: dmlc.pad(X, 1, constant_values=(1, 2)), "constant_values: expected one value"),
    (lambda: dmlc.pad(X, 1, value=3, constant_values=3), "constant_values: expected value="),
    (lambda: dmlc.pad(X, 3, mode="reflect"), "at most the dimension's size - 1"),
    (lambda: dmlc.pad(X, 1, mode=np.array(["edge", "wrap"])), "mode: expected 'constant'"),
    (lambda: dmlc.pad(X, 1, "edge", mode=np.array(["a", "b"])), "mode: expected one mode"),
    (lambda: dmlc.pad(X, 1, constant_values=[np.array([1, 2]), 3]),
     "constant_values: expected one value"),
]


@pytest.mark.parametrize("call, message", PAD_ERRORS)
def test_pad_errors_name_the_argument(call, message):
    with pytest.raises(dmlc.ValidationError) as info:
        call()
    assert message in str(info.value), str(info.value)
    assert str(info.value).startswith("DML_PADDING1: ")


def test_numpys_own_check_large_integers():
    """numpy/lib/tests/test_arraypad.py's test_check_large_integers, with dmlc.pad: a numpy
    integer scalar (arr.min()) as the constant, exact at the types' extremes."""
    uint64_max = 2**64 - 1
    arr = np.full(5, uint64_max, dtype=np.uint64)
    test = dmlc.pad(arr, 1, mode="constant", constant_values=arr.min())
    assert_bits_equal(test, np.full(7, uint64_max, dtype=np.uint64))
    int64_max = 2**63 - 1
    arr = np.full(5, int64_max, dtype=np.int64)
    test = dmlc.pad(arr, 1, mode="constant", constant_values=arr.min())
    assert_bits_equal(test, np.full(7, int64_max, dtype=np.int64))

"""The one-shot functions' outputs, padding constants and error positions, each against numpy
bit for bit (cases the API fuzzer found): out= of the shape a function returns, a float padding
constant rounded once (its sign and NaN payload kept), and checked mode naming the position in
the caller's indices (not in the kernel's reshaped ones)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

X23 = np.arange(6.0).reshape(2, 3)


# indices [1, 2] name one whole tuple: the result is 0-d (numpy's X23[1, 2], ONNX GatherND)
@pytest.mark.parametrize("indices, want", [(np.array([1]), X23[1]),
                                           (np.array([1, 2]), np.asarray(X23[1, 2])),
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


# Checked mode: the first bad index in C order of the caller's indices, at its position there
# (one_hot inserts a 1 at the axis; gather_nd and scatter_nd pad with leading 1s;
# reverse_subsequences broadcasts its lengths).

def first_bad(indices: np.ndarray, bad: np.ndarray) -> tuple[int, ...]:
    return tuple(int(p) for p in np.unravel_index(int(np.argmax(bad.reshape(-1))), bad.shape))


def shapes(min_rank: int = 1, max_rank: int = 3):
    return st.lists(st.integers(1, 3), min_size=min_rank, max_size=max_rank).map(tuple)


def plant(data, rng, valid: np.ndarray, wild: int) -> tuple[np.ndarray, np.ndarray]:
    """valid indices with one or two replaced by `wild`; the mask of the replaced."""
    bad = np.zeros(valid.shape, bool)
    for _ in range(data.draw(st.integers(1, 2))):
        bad[tuple(rng.integers(0, n) for n in valid.shape)] = True
    return np.where(bad, wild, valid), bad


def expect_position(call, indices: np.ndarray, bad: np.ndarray) -> None:
    with pytest.raises(dmlc.IndexOutOfRangeError) as info:
        call()
    pos = first_bad(indices, bad)
    assert info.value.position == pos, (info.value, pos)
    assert info.value.value == indices[pos]


@settings(max_examples=budget(15), deadline=None)
@given(shape=shapes(1, 3), depth=st.integers(1, 4), data=st.data())
def test_one_hot_names_the_callers_position(shape, depth, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    labels, bad = plant(data, rng, rng.integers(-depth, depth, shape),
                        data.draw(st.sampled_from([depth, depth + 7, -depth - 1])))
    values = np.array([0, 1], np.float32)
    expect_position(lambda: dmlc.one_hot(labels, values, depth, axis=axis, check_indices=True),
                    labels, bad)


@settings(max_examples=budget(15), deadline=None)
@given(x_shape=shapes(1, 3), lead=shapes(0, 2), data=st.data())
def test_gather_nd_and_scatter_nd_name_the_callers_position(x_shape, lead, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    k = data.draw(st.integers(1, len(x_shape)))
    valid = np.stack([rng.integers(0, n, lead) for n in x_shape[:k]], axis=-1)
    wild = valid + np.array(x_shape[:k]) * data.draw(st.sampled_from([1, 3]))
    bad = np.zeros(valid.shape, bool)
    bad[tuple(rng.integers(0, n) for n in valid.shape)] = True
    indices = np.where(bad, wild, valid)
    x = np.zeros(x_shape, np.float32)
    expect_position(lambda: dmlc.gather_nd(x, indices, check_indices=True), indices, bad)
    updates = np.ones(lead + x_shape[k:], np.float32)
    if updates.ndim == 0:  # one index tuple of every coordinate: dmlc has no 0-d tensors
        return
    expect_position(lambda: dmlc.scatter_nd(x, indices, updates, check_indices=True),
                    indices, bad)


@settings(max_examples=budget(15), deadline=None)
@given(x_shape=shapes(1, 3), data=st.data())
def test_reverse_subsequences_names_the_callers_position(x_shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    axis = data.draw(st.integers(0, len(x_shape) - 1))
    n = x_shape[axis]
    full = tuple(1 if d == axis else s for d, s in enumerate(x_shape))
    # the caller's lengths: that shape, or fewer dimensions and 1s that broadcast to it
    drop = data.draw(st.integers(0, axis))
    given_shape = tuple(s if data.draw(st.booleans()) else 1 for s in full[drop:])
    lengths, bad = plant(data, rng, rng.integers(0, n + 1, given_shape),
                         data.draw(st.sampled_from([n + 1, n + 5, -n - 2])))
    x = np.zeros(x_shape, np.float32)
    expect_position(lambda: dmlc.reverse_subsequences(x, lengths, axis=axis,
                                                      check_indices=True), lengths, bad)


def test_one_hot_names_a_label_past_the_depth_by_its_position():
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"IndicesTensor\[0, 1\] = 5"):
        dmlc.one_hot(np.array([[0, 5]]), np.array([0, 1.0]), 3, axis=1, check_indices=True)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_negative_and_positive_zero_padding_are_two_kernels(dtype):
    """-0.0 == 0.0 in Python: the cache (keyed by the validated descriptor, which holds the
    value as its bits) must not hand the first's kernel to the second, in either order, on
    the host path and on device tensors."""
    x = np.ones(2, dtype)
    for order in ((0.0, -0.0, 0.0), (-0.0, 0.0, -0.0)):
        dmlc.clear_cache()
        for v in order:
            want = np.signbit(np.pad(x, 1, constant_values=dtype(v)))
            assert (np.signbit(dmlc.pad(x, 1, value=v)) == want).all(), (order, v)
            assert (np.signbit(dmlc.pad(dmlc.to_device(x), 1, value=v).numpy()) == want).all()


def test_a_nan_padding_value_keeps_its_payload():
    """dmlc.pad with a numpy float NaN: its bits fill the border (PaddingValue as raw bits:
    ElementBits), a signaling one too; the same value twice is one compile."""
    from dmlc.compiled import KERNELS
    x = np.zeros((2, 2), np.float32)
    for bits in (0x7FA00001, 0xFFC01234):
        v = np.array([bits], np.uint32).view(np.float32)[0]
        want = np.pad(x.view(np.uint32), ((1, 0), (0, 1)), constant_values=bits)
        assert (dmlc.pad(x, [1, 0], [0, 1], value=v).view(np.uint32) == want).all()
        misses = KERNELS.info()["misses"]
        dmlc.pad(x, [1, 0], [0, 1], value=v)
        assert KERNELS.info()["misses"] == misses

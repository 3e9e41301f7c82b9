"""numpy's take, take_along_axis and put_along_axis (dmlc.numpy_api) against numpy itself,
bit for bit: every DirectML dtype with random raw bits (NaN payloads, -0.0), ranks 1-6,
negative axes and indices, broadcasting, collisions; device tensors; and every argument error
as a dmlc error naming the function and the field."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from dmlc.numpy_api.functions import put_along_axis, take, take_along_axis
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, budget, random_bits, shapes

pytestmark = pytest.mark.vulkan

SIGNED = [np.dtype(np.int32), np.dtype(np.int64)]


def indices_in_range(data, shape, dtype, n: int) -> np.ndarray:
    """Valid indices for an axis of n: negative ones too when the type is signed."""
    lo = -n if np.dtype(dtype).kind == "i" else 0
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="index seed"))
    return rng.integers(lo, n, size=shape).astype(dtype)


def maybe_strided(data, x: np.ndarray) -> np.ndarray:
    """x, or the same values in a transposed layout (a non-contiguous view)."""
    if x.ndim < 2 or not data.draw(st.booleans(), label="strided"):
        return x
    return np.ascontiguousarray(x.swapaxes(0, -1)).swapaxes(0, -1)


def bits(x) -> np.ndarray:
    return np.asarray(x)


@settings(max_examples=budget(40), deadline=None)
@given(shape=shapes(1, 6, 64), dtype=st.sampled_from(DATA_TYPES),
       index_shape=shapes(0, 3, 8), index_dtype=st.sampled_from(INDEX_TYPES), data=st.data())
def test_take_matches_numpy(shape, dtype, index_shape, index_dtype, data):
    a = maybe_strided(data, random_bits(data.draw(st.integers(0, 2**32 - 1)), shape, dtype))
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    n = a.size if axis is None else shape[axis]
    i = indices_in_range(data, index_shape, index_dtype, n)
    # numpy's take refuses uint64 indices (no safe cast to intp); dmlc takes them as they are
    expected = np.take(a, i.astype(np.int64) if i.dtype == np.uint64 else i, axis)
    assert_bits_equal(bits(take(a, i, axis)), bits(expected))


@settings(max_examples=budget(20), deadline=None)
@given(shape=shapes(1, 4, 48), index_shape=shapes(0, 2, 6), index_dtype=st.sampled_from(SIGNED),
       mode=st.sampled_from(["wrap", "clip"]), data=st.data())
def test_take_wrap_and_clip_match_numpy(shape, index_shape, index_dtype, mode, data):
    a = random_bits(data.draw(st.integers(0, 2**32 - 1)), shape, np.float32)
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    n = a.size if axis is None else shape[axis]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    i = rng.integers(-3 * n - 2, 3 * n + 2, size=index_shape).astype(index_dtype)
    assert_bits_equal(bits(take(a, i, axis, mode=mode)), bits(np.take(a, i, axis, mode=mode)))


def test_take_wrap_and_clip_with_unsigned_64_bit_indices():
    a = np.arange(24, dtype=np.uint8)
    i = np.array([2**63 + 5, 3, 2**64 - 1], np.uint64)  # numpy's take refuses uint64
    assert_bits_equal(take(a, i, mode="wrap"), a[[(2**63 + 5) % 24, 3, (2**64 - 1) % 24]])
    assert_bits_equal(take(a, i, mode="clip"), a[[23, 3, 23]])


def test_take_0d_indices_give_numpys_reduced_shape_and_a_scalar():
    a = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    assert_bits_equal(take(a, np.int64(-1), axis=1), np.take(a, np.int64(-1), axis=1))
    assert take(a, 5).dtype == np.int16 and take(a, 5) == np.take(a, 5)
    assert_bits_equal(take(a, [], axis=2), np.take(a, [], axis=2))


def test_take_beyond_8_dimensions_collapses_the_kernel():
    a = np.arange(2**6, dtype=np.float64).reshape((2,) * 6).swapaxes(0, 5)  # strided, rank 6
    i = np.arange(8).reshape((1, 2, 1, 2, 1, 2)) % 2  # result rank 11
    assert_bits_equal(take(a, i, axis=2), np.take(a, i, axis=2))


def along_axis_case(data, shape, axis):
    """Shapes for take/put_along_axis: per dimension but the axis, indices equal to arr, or 1
    on one side (broadcast either way); any size of the indices along the axis."""
    arr, ind = list(shape), list(shape)
    for d in range(len(shape)):
        if d == axis:
            ind[d] = data.draw(st.integers(1, 4), label="indices' axis size")
            continue
        side = data.draw(st.sampled_from(["same", "same", "indices 1", "arr 1"]))
        if side == "indices 1":
            ind[d] = 1
        elif side == "arr 1":
            arr[d] = 1
    return tuple(arr), tuple(ind)


def draw_along_axis(data, shape):
    """An axis (None: flattened), the shapes of arr and indices, and the axis's length."""
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    if axis is None:
        return axis, shape, (data.draw(st.integers(1, 6)),), math.prod(shape)
    arr_shape, ind_shape = along_axis_case(data, shape, axis % len(shape))
    return axis, arr_shape, ind_shape, arr_shape[axis]


@settings(max_examples=budget(40), deadline=None)
@given(shape=shapes(1, 6, 64), dtype=st.sampled_from(DATA_TYPES),
       index_dtype=st.sampled_from(INDEX_TYPES), data=st.data())
def test_take_along_axis_matches_numpy(shape, dtype, index_dtype, data):
    axis, arr_shape, ind_shape, n = draw_along_axis(data, shape)
    arr = maybe_strided(data, random_bits(data.draw(st.integers(0, 2**32 - 1)), arr_shape,
                                          dtype))
    i = indices_in_range(data, ind_shape, index_dtype, n)
    assert_bits_equal(take_along_axis(arr, i, axis), np.take_along_axis(arr, i, axis))


@settings(max_examples=budget(40), deadline=None)
@given(shape=shapes(1, 6, 64), dtype=st.sampled_from(DATA_TYPES),
       index_dtype=st.sampled_from(INDEX_TYPES), data=st.data())
def test_put_along_axis_matches_numpy(shape, dtype, index_dtype, data):
    """Small axes make collisions common: numpy's last-in-C-order must win."""
    axis, arr_shape, ind_shape, n = draw_along_axis(data, shape)
    seed = data.draw(st.integers(0, 2**32 - 1))
    arr = random_bits(seed, arr_shape, dtype)
    i = indices_in_range(data, ind_shape, index_dtype, n)
    ax = None if axis is None else axis % len(shape)
    result_shape = tuple(m if d == ax else max(s, m)  # numpy's shape of the indexed elements
                         for d, (s, m) in enumerate(zip(arr.shape, i.shape))) if ax is not None \
        else i.shape
    values_shape = data.draw(st.sampled_from([result_shape, (1,) * len(result_shape), ()]))
    values = random_bits(seed + 1, values_shape, dtype)
    expected = arr.copy()
    np.put_along_axis(expected, i, values, axis)
    assert put_along_axis(arr, i, values, axis) is None
    assert_bits_equal(arr, expected)


def test_put_along_axis_collisions_keep_the_last_in_c_order():
    arr = np.zeros((1, 3), np.float32)  # arr's 1 meets the indices' 3: rows join the axis
    i = np.array([[0, 2], [1, 1], [2, 0]])
    values = np.arange(1, 7, dtype=np.float32).reshape(3, 2)
    expected = arr.copy()
    np.put_along_axis(expected, i, values, axis=1)
    put_along_axis(arr, i, values, axis=1)
    assert_bits_equal(arr, expected)
    assert arr.tolist() == [[6, 4, 5]]


def test_along_axis_beyond_8_dimensions():
    rng = np.random.default_rng(7)
    arr = rng.standard_normal((2,) * 10)
    i = rng.integers(-2, 2, (2,) * 4 + (1,) + (2,) * 4 + (3,))
    assert_bits_equal(take_along_axis(arr, i, -1), np.take_along_axis(arr, i, -1))
    expected, values = arr.copy(), rng.standard_normal(i.shape)
    np.put_along_axis(expected, i, values, -1)
    put_along_axis(arr, i, values, -1)
    assert_bits_equal(arr, expected)


def test_empty_results_match_numpy():
    arr = np.zeros((3, 0), np.float32)
    assert_bits_equal(take(arr, [1, 2], axis=0), np.take(arr, [1, 2], axis=0))
    i = np.zeros((3, 0), np.int64)
    assert_bits_equal(take_along_axis(arr, i, 1), np.take_along_axis(arr, i, 1))
    assert put_along_axis(arr, i, 1.0, 1) is None


# Device tensors: inputs stay on the device, the result is a DeviceTensor.

def test_take_on_device_tensors():
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    i = np.array([3, -1, 0], np.int64)
    out = take(dmlc.to_device(a), i, axis=-2)
    assert_bits_equal(out.numpy(), np.take(a, i, axis=-2))
    out = take(dmlc.to_device(a[0, 0]), dmlc.to_device(i), axis=0)
    assert_bits_equal(out.numpy(), np.take(a[0, 0], i, axis=0))


def test_take_along_axis_on_device_tensors():
    rng = np.random.default_rng(1)
    arr = random_bits(3, (3, 4, 5), np.float16)
    i = rng.integers(-4, 4, (3, 2, 5))
    for args in [(dmlc.to_device(arr), i), (arr, dmlc.to_device(i)),
                 (dmlc.to_device(arr), dmlc.to_device(i))]:
        assert_bits_equal(take_along_axis(*args, axis=1).numpy(), np.take_along_axis(arr, i, 1))
    narrow = i[:, :, :1]  # numpy indices still broadcast against a device arr
    assert_bits_equal(take_along_axis(dmlc.to_device(arr), narrow, 1).numpy(),
                      np.take_along_axis(arr, narrow, 1))


def test_put_along_axis_writes_a_device_tensor_in_place():
    rng = np.random.default_rng(2)
    arr = random_bits(4, (3, 4, 5), np.int64)
    i = rng.integers(-4, 4, (3, 2, 5))
    values = random_bits(5, (3, 2, 5), np.int64)
    expected = arr.copy()
    np.put_along_axis(expected, i, values, axis=1)
    d = dmlc.to_device(arr)
    assert put_along_axis(d, i, values, axis=1) is None
    assert_bits_equal(d.numpy(), expected)
    d = dmlc.to_device(arr)
    put_along_axis(d, dmlc.to_device(i), dmlc.to_device(values), axis=1)
    assert_bits_equal(d.numpy(), expected)
    host = arr.copy()  # device indices and values into a numpy arr
    put_along_axis(host, dmlc.to_device(i), dmlc.to_device(values), axis=1)
    assert_bits_equal(host, expected)


# Errors: dmlc's classes (ValueError / IndexError subclasses), naming function and field.

F32 = np.zeros((2, 3), np.float32)
I2 = np.zeros((2, 3), np.int64)

ERRORS = [
    (lambda: take(F32, [3], axis=1), dmlc.IndexOutOfRangeError, "take: indices[0] = 3"),
    (lambda: take(F32, [[0, -4]], axis=1), dmlc.IndexOutOfRangeError, "take: indices[0, 1]"),
    (lambda: take(F32, [0], axis=2), dmlc.ValidationError, "take: axis"),
    (lambda: take(F32, [0], axis=-3), dmlc.ValidationError, "take: axis"),
    (lambda: take(F32, [0], axis=1.0), dmlc.ValidationError, "take: axis"),
    (lambda: take(F32, [0.5], axis=1), dmlc.ValidationError, "take: indices.dtype"),
    (lambda: take_along_axis(F32, I2 > 0, 1), dmlc.ValidationError,
     "take_along_axis: indices.dtype"),
    (lambda: take(F32, [0], axis=1, mode="nearest"), dmlc.ValidationError, "take: mode"),
    (lambda: take(F32.astype(complex), [0]), dmlc.ValidationError, "take: a.dtype"),
    (lambda: take(np.zeros((2, 0)), [0], axis=1), dmlc.IndexOutOfRangeError, "take: indices"),
    (lambda: take_along_axis(F32, I2 + 3, 1), dmlc.IndexOutOfRangeError,
     "take_along_axis: indices[0, 0] = 3"),
    (lambda: take_along_axis(F32, I2[0], 1), dmlc.ValidationError, "take_along_axis: indices.ndim"),
    (lambda: take_along_axis(F32, np.zeros((3, 3), np.int64), 1), dmlc.ValidationError,
     "take_along_axis: indices.shape"),
    (lambda: take_along_axis(F32, I2, 2), dmlc.ValidationError, "take_along_axis: axis"),
    (lambda: take_along_axis(F32, I2, None), dmlc.ValidationError,
     "take_along_axis: indices.ndim"),
    (lambda: take_along_axis(F32, I2.astype(np.float32), 1), dmlc.ValidationError,
     "take_along_axis: indices.dtype"),
    (lambda: take_along_axis(F32.astype(np.complex64), I2, 1), dmlc.ValidationError,
     "take_along_axis: arr.dtype"),
    (lambda: put_along_axis(F32.copy(), I2 - 4, 0.0, 1), dmlc.IndexOutOfRangeError,
     "put_along_axis: indices[0, 0] = -4"),
    (lambda: put_along_axis(np.broadcast_to(F32, (2, 3)), I2, 0.0, 1), dmlc.ValidationError,
     "put_along_axis: arr"),
    (lambda: put_along_axis([[0.0]], [[0]], 0.0, 1), dmlc.ValidationError,
     "put_along_axis: arr"),
    (lambda: put_along_axis(F32.copy(), I2, np.zeros(2), 1), dmlc.ValidationError,
     "put_along_axis: values.shape"),
    (lambda: put_along_axis(F32.copy(), I2, "x", 1), dmlc.ValidationError,
     "put_along_axis: values"),
    (lambda: put_along_axis(F32.copy(), I2, 0.0, -3), dmlc.ValidationError,
     "put_along_axis: axis"),
    (lambda: put_along_axis(F32.copy(), I2.astype(np.uint8) > 0, 0.0, 1), dmlc.ValidationError,
     "put_along_axis: indices.dtype"),
    (lambda: put_along_axis(F32.astype(np.complex64), I2, 0, 1), dmlc.ValidationError,
     "put_along_axis: arr.dtype"),
]


@pytest.mark.parametrize("call, cls, message", ERRORS)
def test_errors_name_the_function_and_field(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)
    assert isinstance(info.value, ValueError if cls is dmlc.ValidationError else IndexError)


def test_device_tensors_are_reshaped_as_views_but_not_broadcast():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = dmlc.to_device(x)
    idx = np.array([[3, 0], [1, 1]], np.int64)
    assert_bits_equal(take(d, idx, axis=1).numpy(), np.take(x, idx, axis=1))  # leading 1s
    assert_bits_equal(take(d, 1, axis=1).numpy(), np.take(x, 1, axis=1))  # the axis dropped
    assert_bits_equal(take(d.T, idx, axis=None).numpy(), np.take(x.T, idx))
    with pytest.raises(dmlc.ValidationError, match=r"^take: mode"):
        take(d, dmlc.to_device(np.zeros(2, np.int64)), axis=0, mode="wrap")
    with pytest.raises(dmlc.ValidationError, match=r"^take_along_axis: indices\.shape"):
        take_along_axis(d, dmlc.to_device(np.zeros((1, 4), np.int64)), axis=1)
    with pytest.raises(dmlc.ValidationError, match=r"^put_along_axis: values\.dtype"):
        put_along_axis(d, np.zeros((3, 1), np.int64), dmlc.to_device(np.zeros((3, 1))), 1)


def test_a_failed_put_along_axis_leaves_a_numpy_arr_unchanged():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(dmlc.IndexOutOfRangeError):
        put_along_axis(arr, np.array([[0], [3]]), -1.0, axis=1)
    assert arr.tolist() == [[0, 1, 2], [3, 4, 5]]

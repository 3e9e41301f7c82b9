"""Every number a one-shot function takes (axis, block size, window offsets, sizes and strides,
repeats, depth, pads, split sizes, batch_dims, dimension counts) also comes as a numpy integer
scalar, and every list of them as a tuple of those or an integer ndarray, with the same result
bit for bit; a bool, Python's or numpy's, alone or in a list, is refused with a ValidationError
(numpy takes True as 1 in some places; dmlc says what it expected instead)."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
X4 = np.arange(64, dtype=np.float32).reshape(1, 4, 4, 4)
ROWS = np.array([[[2, 0]]], np.int32)
ELEMENTS = np.array([[[2, 0, 1, 1]], [[0, 0, 2, 1]]], np.int64)
ELEMENT_UPDATES = np.full((2, 1, 4), -1, np.float32)
TUPLES = np.array([[[1, 3], [0, 0]], [[2, 1], [1, 2]]], np.int64)
LENGTHS = np.array([[[3], [0], [2]], [[1], [4], [3]]], np.int64)
LABELS = np.array([[0, 2], [1, -1]], np.int32)
ON_OFF = np.array([0, 1], np.float32)

# name: (call with the argument, its plain value)
SCALARS = {
    "gather axis": (lambda v: dmlc.gather(X, ROWS, axis=v), 1),
    "gather negative axis": (lambda v: dmlc.gather(X, ROWS, axis=v), -2),
    "gather index_dimensions": (lambda v: dmlc.gather(X, ROWS, axis=1, index_dimensions=v), 1),
    "gather_elements axis": (lambda v: dmlc.gather_elements(X, ELEMENTS, axis=v), 1),
    "scatter axis": (lambda v: dmlc.scatter(X, ELEMENTS, ELEMENT_UPDATES, axis=v), 1),
    "join axis": (lambda v: dmlc.join([X, X], axis=v), 2),
    "split axis": (lambda v: dmlc.split(X, 2, axis=v)[1], 2),
    "split count": (lambda v: dmlc.split(X, v, axis=2)[1], 2),
    "tile repeats": (lambda v: dmlc.tile(X, v), 2),
    "pad start": (lambda v: dmlc.pad(X, v, 0), 1),
    "pad end": (lambda v: dmlc.pad(X, 0, v, mode="reflect"), 1),
    "pad value": (lambda v: dmlc.pad(X, 1, 1, value=v), 7),
    "pad int64 value": (lambda v: dmlc.pad(X.astype(np.int64), 1, 1, value=v), -7),
    "space_to_depth block": (lambda v: dmlc.space_to_depth(X4, v), 2),
    "depth_to_space block": (lambda v: dmlc.depth_to_space(X4, v), 2),
    "gather_nd batch_dims": (lambda v: dmlc.gather_nd(X, TUPLES, v), 1),
    "one_hot depth": (lambda v: dmlc.one_hot(LABELS, ON_OFF, v), 3),
    "one_hot axis": (lambda v: dmlc.one_hot(LABELS, ON_OFF, 3, axis=v), 1),
    "reverse_subsequences axis": (lambda v: dmlc.reverse_subsequences(X, LENGTHS, axis=v), 2),
    "scatter_nd input_dimension_count": (lambda v: dmlc.scatter_nd(
        X, TUPLES[0], np.ones((2, 4), np.float32), input_dimension_count=v), 3),
    "scatter_nd indices_dimension_count": (lambda v: dmlc.scatter_nd(
        X, TUPLES[0], np.ones((2, 4), np.float32), indices_dimension_count=v), 2),
    "take axis": (lambda v: dmlc.take(X, [1, 0], axis=v), 1),
    "take_along_axis axis": (lambda v: dmlc.take_along_axis(X, ELEMENTS, axis=v), 1),
}

LISTS = {
    "slice offsets": (lambda v: dmlc.slice(X, v, [1, 2, 4], [1, 1, -2]), [1, 1, 0]),
    "slice sizes": (lambda v: dmlc.slice(X, [0, 0, 0], v, [1, 1, -2]), [2, 3, 3]),
    "slice strides": (lambda v: dmlc.slice(X, [0, 0, 0], [2, 3, 4], v), [1, 2, -3]),
    "slice output_sizes": (lambda v: dmlc.slice(X, [0, 0, 0], [2, 3, 4], [1, 1, 1],
                                                output_sizes=v), [1, 2, 3]),
    "split sizes": (lambda v: dmlc.split(X, v, axis=2)[1], [1, 3]),
    "tile repeats": (lambda v: dmlc.tile(X, v), [1, 2, 1]),
    "tile fewer repeats": (lambda v: dmlc.tile(X, v), [2, 1]),
    "tile more repeats": (lambda v: dmlc.tile(X, v), [2, 1, 1, 2]),
    "pad start": (lambda v: dmlc.pad(X, v, 0), [0, 1, 2]),
    "pad end": (lambda v: dmlc.pad(X, 0, v, mode="wrap"), [1, 0, 3]),
    "slice_grad input_shape": (lambda v: dmlc.slice_grad(X, v, [0, 0, 1], [2, 3, 4],
                                                         [1, 1, 1]), [2, 3, 5]),
    "slice_grad offsets": (lambda v: dmlc.slice_grad(X, [3, 3, 4], v, [2, 3, 4], [1, 1, 1]),
                           [1, 0, 0]),
    "slice_grad sizes": (lambda v: dmlc.slice_grad(X, [3, 3, 8], [0, 0, 0], v, [1, 1, 2]),
                         [2, 3, 8]),
    "slice_grad strides": (lambda v: dmlc.slice_grad(X, [2, 3, 8], [0, 0, 0], [2, 3, 8], v),
                           [1, 1, -2]),
}

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def numpy_scalars(v: int) -> list:
    return [t(v) for t in INT_TYPES if v >= 0 or np.dtype(t).kind == "i"]


@pytest.mark.parametrize("name", SCALARS)
def test_numpy_integer_scalars_are_taken(name):
    call, value = SCALARS[name]
    want = call(value)
    for v in numpy_scalars(value):
        assert_bits_equal(call(v), want)


@pytest.mark.parametrize("name", LISTS)
def test_integer_arrays_and_numpy_scalars_in_lists_are_taken(name):
    call, value = LISTS[name]
    want = call(value)
    signed = [np.int32, np.int64] + ([np.uint8, np.uint64] if min(value) >= 0 else [])
    for v in [tuple(value), np.array(value), *(np.array(value, t) for t in signed),
              [np.int64(e) for e in value], tuple(np.int16(e) for e in value)]:
        assert_bits_equal(call(v), want)


@pytest.mark.parametrize("name", [n for n in SCALARS if "value" not in n])
def test_bools_are_refused_where_a_number_belongs(name):
    call, value = SCALARS[name]
    for v in [True, False, np.bool_(True), np.bool_(False)]:
        with pytest.raises(dmlc.ValidationError):
            call(v)


@pytest.mark.parametrize("name", LISTS)
def test_bools_are_refused_in_lists(name):
    call, value = LISTS[name]
    for v in [[True] * len(value), [*value[:-1], True], np.ones(len(value), bool),
              [np.bool_(True)] * len(value)]:
        with pytest.raises(dmlc.ValidationError):
            call(v)


@pytest.mark.parametrize("v", [True, np.bool_(False)])
def test_a_bool_padding_value_is_refused(v):
    with pytest.raises(dmlc.ValidationError, match="PaddingValue"):
        dmlc.pad(X, 1, 1, value=v)

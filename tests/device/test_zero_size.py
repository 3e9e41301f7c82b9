"""Zero-size tensors, as numpy has them: an empty input (or no indices, an empty window, a
repeat of 0) gives numpy's result, of its shape and dtype, and runs no kernel; a DeviceTensor
argument gives a DeviceTensor (dmlc.empty); every other rule still raises its error."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

import dmlc
from dmlc.compiled import tracing
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

Z = np.zeros((2, 0), np.float32)
E3 = np.zeros((0, 3), np.int64)
X = np.arange(6, dtype=np.float64).reshape(2, 3)
NO_IDS = np.zeros((2, 0), np.int64)


def host(a):
    return a


def device(a):
    return dmlc.to_device(a)


# name: (the call, given how to pass arrays; numpy's result; whether a kernel may run)
CASES = {
    "tile": (lambda w: dmlc.tile(w(Z), 2), np.tile(Z, 2), False),
    "tile repeats 0": (lambda w: dmlc.tile(w(X), [0, 2]), np.tile(X, [0, 2]), False),
    "tile more repeats": (lambda w: dmlc.tile(w(E3), [2, 1, 1]), np.tile(E3, [2, 1, 1]), False),
    "pad constant": (lambda w: dmlc.pad(w(Z), 1, 2, value=-3),
                     np.pad(Z, ((1, 2), (1, 2)), constant_values=-3), False),
    "pad int64 constant": (lambda w: dmlc.pad(w(E3), [1, 0], [0, 1], value=2**62 + 1),
                           np.pad(E3, ((1, 0), (0, 1)), constant_values=2**62 + 1), False),
    "pad edge along the others": (lambda w: dmlc.pad(w(Z), [1, 0], [2, 0], mode="edge"),
                                  np.pad(Z, ((1, 2), (0, 0)), mode="edge"), False),
    "pad reflect along the others": (lambda w: dmlc.pad(w(E3), [0, 2], [0, 1], mode="reflect"),
                                     np.pad(E3, ((0, 0), (2, 1)), mode="reflect"), False),
    "split equal": (lambda w: dmlc.split(w(E3), 3, axis=0)[1], np.split(E3, 3, axis=0)[1],
                    False),
    "split sizes": (lambda w: dmlc.split(w(Z), [1, 1], axis=0)[0], np.split(Z, [1], axis=0)[0],
                    False),
    "split a piece of 0": (lambda w: dmlc.split(w(X), [1, 0, 2], axis=1)[1],
                           np.split(X, [1, 1], axis=1)[1], True),
    "split beside a piece of 0": (lambda w: dmlc.split(w(X), [1, 0, 2], axis=1)[2],
                                  np.split(X, [1, 1], axis=1)[2], True),
    "join empties": (lambda w: dmlc.join([w(Z), w(Z)], axis=0), np.concatenate([Z, Z]), False),
    "join beside empties": (lambda w: dmlc.join([w(E3.astype(np.float64)), w(X), w(X[:0])]),
                            np.concatenate([E3, X, X[:0]]), True),
    "copy": (lambda w: dmlc.copy(w(Z)), Z.copy(), False),
    "gather no ids": (lambda w: dmlc.gather(w(X), w(NO_IDS[:1]), axis=1),
                      np.take(X, NO_IDS[0], axis=1), False),
    "gather from an empty input": (lambda w: dmlc.gather(w(E3), w(np.array([[2, 0]])), axis=1),
                                   np.take(E3, [2, 0], axis=1), False),
    "gather_elements": (lambda w: dmlc.gather_elements(w(X), w(NO_IDS), axis=1),
                        np.take_along_axis(X, NO_IDS, axis=1), False),
    "scatter no updates": (lambda w: dmlc.scatter(w(X), w(NO_IDS), w(NO_IDS * 1.0), axis=1),
                           X, True),
    "scatter into an empty input": (lambda w: dmlc.scatter(
        w(Z), w(np.zeros((2, 1), np.int64)), w(np.ones((2, 1), np.float32)), axis=1), Z, False),
    "slice of an empty input": (lambda w: dmlc.slice(w(Z), [1, 0], [1, 0], [1, 1]), Z[1:], False),
    "slice of an empty window": (lambda w: dmlc.slice(w(X), [0, 2], [2, 0], [1, -2]),
                                 X[:, 2:2], False),
    "slice_grad of an empty window": (lambda w: dmlc.slice_grad(w(X[:, :0]), [2, 3], [0, 1],
                                                                [2, 0], [1, 1]),
                                      np.zeros((2, 3)), False),
    "one_hot": (lambda w: dmlc.one_hot(w(E3), w(np.array([0, 1], np.int16)), 4, axis=1),
                np.zeros((0, 4, 3), np.int16), False),
    "gather_nd no tuples": (lambda w: dmlc.gather_nd(w(X), w(np.zeros((0, 1), np.int64))),
                            X[np.zeros(0, np.int64)], False),
    "gather_nd into an empty tail": (lambda w: dmlc.gather_nd(w(Z), w(np.array([[1], [0]]))),
                                     Z[[1, 0]], False),
    "reverse_subsequences": (lambda w: dmlc.reverse_subsequences(
        w(E3), w(np.zeros((1, 3), np.int64)), axis=0), E3, False),
    "space_to_depth": (lambda w: dmlc.space_to_depth(w(np.zeros((0, 2, 4, 4), np.uint8)), 2),
                       np.zeros((0, 8, 2, 2), np.uint8), False),
    "depth_to_space": (lambda w: dmlc.depth_to_space(w(np.zeros((1, 4, 0, 3), np.int8)), 2),
                       np.zeros((1, 1, 0, 6), np.int8), False),
    "take": (lambda w: dmlc.take(w(X), w(np.zeros(0, np.int64)), axis=1), X[:, :0], False),
    "take_along_axis": (lambda w: dmlc.take_along_axis(w(X), w(NO_IDS), axis=1), X[:, :0],
                        False),
}


@pytest.mark.parametrize("where", [host, device], ids=["numpy", "device"])
@pytest.mark.parametrize("name", CASES)
def test_empty_in_numpys_result_out(name, where):
    call, want, runs = CASES[name]
    with tracing() as kernels:
        got = call(where)
    assert runs or kernels == [], kernels
    if where is device:
        assert isinstance(got, type(dmlc.empty((1,), np.float32))), type(got)
        got = got.numpy()
    assert isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype == want.dtype
    assert_bits_equal(got, want)


def test_out_of_an_empty_result():
    out = np.empty((2, 0), np.float32)
    assert dmlc.tile(Z, 2, out=out) is out
    target = dmlc.empty((4, 2), np.float32)
    assert dmlc.pad(Z, 1, 1, value=5, out=target) is target
    assert_bits_equal(target.numpy(), np.full((4, 2), 5, np.float32))
    with pytest.raises(dmlc.ValidationError, match=r"out shape: expected \{2, 0\}, got \{2, 1\}"):
        dmlc.copy(Z, out=np.empty((2, 1), np.float32))
    with pytest.raises(dmlc.ValidationError, match="out dtype"):
        dmlc.copy(dmlc.to_device(Z), out=dmlc.empty((2, 0), np.int32))
    whole = dmlc.to_device(np.zeros((8, 4), np.float32))  # constant padding into a view
    dmlc.pad(Z, 1, 1, value=5, out=whole[::2, 1:3])
    want = np.zeros((8, 4), np.float32)
    want[::2, 1:3] = 5
    assert_bits_equal(whole.numpy(), want)
    data = dmlc.to_device(X)  # a scatter with no updates, in place: the data as it was
    assert dmlc.scatter(data, NO_IDS, NO_IDS * 1.0, axis=1, out=data) is data
    assert_bits_equal(data.numpy(), X)


ERRORS = [
    # numpy: "can't extend empty axis 1 using modes other than 'constant' or 'empty'"
    (lambda: dmlc.pad(Z, 1, 1, mode="edge"), dmlc.ValidationError, "StartPadding[1]: expected 0"),
    (lambda: dmlc.tile(Z, -1), dmlc.ValidationError, "Repeats[1]"),
    (lambda: dmlc.join([Z, np.zeros((2, 0), np.float64)]), dmlc.ValidationError, "DataType"),
    (lambda: dmlc.join([np.zeros((0, 3)), X[:, :2]]), dmlc.ValidationError, "Sizes[1]"),
    (lambda: dmlc.split(E3, [1], axis=0), dmlc.ValidationError, "Sizes[0]"),
    (lambda: dmlc.split(X, [1, -1, 3], axis=1), dmlc.ValidationError, "sizes"),
    (lambda: dmlc.slice(X, [0, 3], [2, 1], [1, 1]), dmlc.ValidationError, "InputWindowSizes[1]"),
    # looking for a 0 in a list field compares no array element-wise
    (lambda: dmlc.slice(X, [0, 0], np.ones((2, 2), int), [1, 1]), dmlc.ValidationError,
     "InputWindowSizes: expected a list of integers"),
    (lambda: dmlc.slice_grad(X, [2, 3], [0, 0], np.ones((2, 2), int), [1, 1]),
     dmlc.ValidationError, "InputWindowSizes: expected a list of integers"),
    (lambda: dmlc.slice(X, [0, 0], [2, 3], [1, 1], output_sizes=np.ones((2, 2), int)),
     dmlc.ValidationError, "OutputTensor.Sizes: expected a list of integers"),
    (lambda: dmlc.gather_elements(X, np.zeros((3, 0), np.int64), axis=1), dmlc.ValidationError,
     "IndicesTensor.Sizes[0]"),
    (lambda: dmlc.space_to_depth(np.zeros((0, 1, 3, 4)), 2), dmlc.ValidationError, "Sizes[2]"),
    # nothing to clamp to: numpy's "cannot do a non-empty take from an empty axes"
    (lambda: dmlc.gather(Z, np.array([[0]]), axis=1), dmlc.IndexOutOfRangeError,
     "DML_GATHER: IndicesTensor[0, 0] = 0"),
    (lambda: dmlc.gather_elements(Z, np.array([[0], [-1]]), axis=1), dmlc.IndexOutOfRangeError,
     "DML_GATHER_ELEMENTS: IndicesTensor[0, 0] = 0"),
    (lambda: dmlc.gather_nd(E3, np.array([[1, 2]])), dmlc.IndexOutOfRangeError,
     "DML_GATHER_ND1: IndicesTensor[0, 0] = 1"),
    # checked mode checks where no kernel runs
    (lambda: dmlc.gather(E3, np.array([[1, 5]]), axis=1, check_indices=True),
     dmlc.IndexOutOfRangeError, "DML_GATHER: IndicesTensor[0, 1] = 5"),
    (lambda: dmlc.scatter(Z, np.zeros((2, 1), np.int64), np.ones((2, 1), np.float32), axis=1,
                          check_indices=True), dmlc.IndexOutOfRangeError, "DML_SCATTER"),
    (lambda: dmlc.reverse_subsequences(E3, np.array([[0, -1, 2]]), axis=0, check_indices=True),
     dmlc.IndexOutOfRangeError, "DML_REVERSE_SUBSEQUENCES: SequenceLengthsTensor[0, 2] = 2"),
]


@pytest.mark.parametrize("call, cls, message", ERRORS)
def test_empty_tensors_still_break_the_other_rules(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert message in str(info.value), str(info.value)


SHAPES = st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple)


@settings(max_examples=budget(30), deadline=None)
@given(shape=SHAPES, data=st.data())
def test_tile_pad_join_split_copy_match_numpy_on_any_shape(shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.integers(-9, 9, shape).astype(np.float32)
    reps = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=4))
    assert_bits_equal(dmlc.tile(x, reps), np.tile(x, reps))
    widths = [data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))) for _ in shape]
    assert_bits_equal(dmlc.pad(x, [w[0] for w in widths], [w[1] for w in widths], value=-1),
                      np.pad(x, widths, constant_values=-1))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    cut = data.draw(st.integers(0, shape[axis]))
    parts = np.split(x, [cut], axis=axis)
    for got, want in zip(dmlc.split(x, [cut, shape[axis] - cut], axis=axis), parts):
        assert_bits_equal(got, want)
    assert_bits_equal(dmlc.join(parts, axis=axis), x)
    assert_bits_equal(dmlc.copy(x), x)


def test_an_empty_list_of_ids_is_an_empty_index_array():
    """numpy makes [] float64; as numpy.take, the functions with indices take it as none."""
    v = np.arange(3.0)
    assert_bits_equal(dmlc.gather(v, [], axis=0), np.take(v, []))
    assert_bits_equal(dmlc.gather(X, [[]], axis=1), np.take(X, [], axis=1))
    assert_bits_equal(dmlc.gather_elements(X, [[], []], axis=1), X[:, :0])
    assert_bits_equal(dmlc.scatter(X, [[], []], np.zeros((2, 0)), axis=1), X)
    assert dmlc.one_hot([], np.array([0, 1], np.float32), 3).shape == (0, 3)
    with pytest.raises(dmlc.ValidationError, match="IndicesTensor.DataType"):
        dmlc.gather(v, np.array([]), axis=0)  # an array says its dtype: it is not an index


def test_an_empty_axis_splits_into_at_most_split_s_outputs():
    """numpy splits an empty axis into any number of empty pieces; DML_SPLIT's outputs are
    bounded, so 2**63 of them is a ValidationError naming the bound, not an OverflowError."""
    assert len(dmlc.split(np.zeros(0, np.float32), 5)) == 5
    with pytest.raises(dmlc.ValidationError, match=r"sizes: expected a number of equal pieces "
                                                   r"\(1 to 256\)"):
        dmlc.split(np.zeros(0, np.float32), 2**63)

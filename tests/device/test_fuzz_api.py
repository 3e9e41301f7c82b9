"""Invalid-input fuzzing of the one-shot API: wrong ndim, non-integer indices, unsupported
dtypes (complex, bool, object, str, datetime), zero-size dimensions, non-array inputs, mismatched
shapes and garbage scalars. Every call either returns numpy's answer, bit for bit (the oracles
of tests/fuzz_oracles.py, on the references of tests/reference*.py), or raises a dmlc error
where numpy's rules refuse it too: never another exception, a crash or a hang, never a dmlc
error for a call numpy accepts, never a result for one it refuses."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tests.strategies import budget

import dmlc
import fuzz_oracles as fo
from fuzz_oracles import Refused
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

EXAMPLES = 150  # per operator

DTYPES = ["float32", "float16", "float64", "int8", "uint16", "int32", "uint32", "int64",
          "uint64", "complex64", "bool", "object", "<U2", "datetime64[s]", "int16", "uint8"]


@st.composite
def arrays(draw):
    rank = draw(st.sampled_from([0, 1, 2, 2, 3, 9]))
    shape = tuple(draw(st.integers(0 if draw(st.booleans()) else 1, 3)) for _ in range(rank))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    if dtype.kind == "O":
        return np.empty(shape, dtype)
    values = np.arange(int(np.prod(shape, dtype=np.int64))) - 1
    return values.astype(dtype).reshape(shape)


NOT_ARRAYS = st.sampled_from([None, "abc", {}, [[1.0], [2.0, 3.0]], 3.5, [1, 2, 3], (), b"xy",
                              object(), [[1, 2], [3, 4]], range(4)])
ARGS = st.one_of(arrays(), arrays(), arrays(), NOT_ARRAYS)
SCALARS = st.one_of(st.integers(-3, 4), st.sampled_from([None, 1.0, "0", True, 2**63, -(2**64),
                                                         np.int64(1), np.float32(0), [0]]))
LISTS = st.one_of(st.lists(st.integers(-3, 4), max_size=4), st.sampled_from(
    [None, 1, "12", [1.5], [None], [2**40], np.array([1, 2]), (0, 0, 0, 0, 0, 0, 0, 0, 0),
     np.ones((2, 2), int), [0, 0], np.array([0, 3], np.uint64)]))


def _host(value):
    return value.numpy() if hasattr(value, "numpy") and hasattr(value, "is_whole") else value


def _agree(numpys, ours) -> None:
    """`ours` (the dmlc call) returns what `numpys` (its oracle) does, bit for bit, or both
    refuse: the oracle with Refused, dmlc with a DmlcError."""
    try:
        want = numpys()
    except Refused as e:
        want = e
    try:
        got = ours()
    except dmlc.DmlcError as e:
        assert isinstance(want, Refused), f"numpy accepts this call, dmlc refused it: {e}"
        return
    assert not isinstance(want, Refused), f"dmlc accepted a call numpy refuses ({want})"
    if isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_bits_equal(np.asarray(_host(g)), w)
    else:
        assert_bits_equal(np.asarray(_host(got)), want)


def either(valid, garbage):
    """The valid argument or garbage: most cases then break one or two arguments at a time."""
    return st.one_of(st.just(valid), garbage)


X = np.arange(12, dtype=np.float32).reshape(3, 4)
I_ROWS = np.array([[2, -1]], np.int64)            # gather along axis 1 of X
I_ELEMENTS = np.array([[0, 3, -4, 1]], np.int32)  # gather_elements / scatter along axis 0
U = np.full((1, 4), 7, np.float32)


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(I_ROWS, ARGS), either(1, SCALARS), either(1, SCALARS),
       either(False, SCALARS))
def test_fuzz_gather(x, i, axis, k, check):
    _agree(lambda: fo.gather(x, i, axis, k, check),
           lambda: dmlc.gather(x, i, axis=axis, index_dimensions=k, check_indices=check))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(I_ELEMENTS, ARGS), either(0, SCALARS), either(True, SCALARS))
def test_fuzz_gather_elements(x, i, axis, check):
    _agree(lambda: fo.gather_elements(x, i, axis, check),
           lambda: dmlc.gather_elements(x, i, axis=axis, check_indices=check))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(I_ELEMENTS, ARGS), either(U, ARGS), either(0, SCALARS),
       either(False, SCALARS))
def test_fuzz_scatter(x, i, u, axis, check):
    _agree(lambda: fo.scatter(x, i, u, axis, check),
           lambda: dmlc.scatter(x, i, u, axis=axis, check_indices=check))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either([0, 1], LISTS), either([3, 3], LISTS), either([1, -2], LISTS),
       st.one_of(st.none(), LISTS))
def test_fuzz_slice(x, offsets, sizes, strides, output_sizes):
    _agree(lambda: fo.slice1(x, offsets, sizes, strides, output_sizes),
           lambda: dmlc.slice(x, offsets, sizes, strides, output_sizes=output_sizes))


@pytest.fixture(scope="module")
def kernel():
    return dmlc.compile(dmlc.GatherElementsDesc(
        input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(3, 4)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 4)), axis=0))


@settings(max_examples=budget(EXAMPLES))
@given(x=either(X, ARGS), i=either(I_ELEMENTS, ARGS),
       out=st.sampled_from([None, "out", "wrong shape", "wrong dtype", "array"]))
def test_fuzz_compiled_kernel_arguments(kernel, x, i, out):
    """A compiled kernel called with anything but the arrays it was compiled for."""
    target = {None: None, "out": dmlc.empty((1, 4), np.float32),
              "wrong shape": dmlc.empty((4, 1), np.float32),
              "wrong dtype": dmlc.empty((1, 4), np.int32), "array": np.zeros((1, 4), np.float32)}
    _agree(lambda: fo.compiled_gather_elements(x, i, target[out]),
           lambda: kernel(x, i, out=target[out]))


X4 = np.arange(2 * 8 * 2 * 2, dtype=np.float32).reshape(2, 8, 2, 2)
I_TUPLES = np.array([[1, -1], [0, 2]], np.int64)  # gather_nd / scatter_nd rows of X
U_ND = np.ones((2,), np.float32)
REDUCTIONS = st.sampled_from(["none", "add", "mul", "max", "min", "sum", None, 1])
MODES = st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap", "mirror", None, 0])


@settings(max_examples=budget(EXAMPLES))
@given(st.one_of(st.lists(either(X, ARGS), max_size=4), ARGS), either(0, SCALARS))
def test_fuzz_join(xs, axis):
    _agree(lambda: fo.join(xs, axis), lambda: dmlc.join(xs, axis=axis))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), st.one_of(SCALARS, LISTS), either(0, SCALARS))
@example(X, [1, 2], 0)  # one valid call whose every piece holds elements, whatever is drawn
def test_fuzz_split(x, sizes, axis):
    _agree(lambda: fo.split(x, sizes, axis), lambda: dmlc.split(x, sizes, axis=axis))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), st.one_of(SCALARS, LISTS))
def test_fuzz_tile(x, repeats):
    _agree(lambda: fo.tile(x, repeats), lambda: dmlc.tile(x, repeats))


def test_tile_of_nothing_past_numpys_largest_size_is_a_dmlc_error():
    """Found by test_fuzz_tile: no element to move, but numpy cannot make the shape either."""
    x = np.zeros((0, 1), np.float32)
    with pytest.raises(ValueError):
        np.tile(x, 2**63)
    with pytest.raises(dmlc.ValidationError, match=f"DML_TILE: output sizes: .*{2**63}"):
        dmlc.tile(x, 2**63)


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), st.one_of(SCALARS, LISTS), st.one_of(SCALARS, LISTS), MODES,
       st.one_of(SCALARS, st.floats()))
def test_fuzz_pad(x, start, end, mode, value):
    _agree(lambda: fo.pad(x, start, end, mode, value),
           lambda: dmlc.pad(x, start, end, mode=mode, value=value))


@settings(max_examples=budget(EXAMPLES))
@given(either(X4, ARGS), either(2, SCALARS), st.sampled_from(["DCR", "CRD", "dcr", None]),
       st.booleans())
def test_fuzz_depth_space(x, block, order, to_depth):
    _agree(lambda: fo.depth_space(x, block, order, to_depth),
           lambda: (dmlc.space_to_depth if to_depth else dmlc.depth_to_space)(x, block,
                                                                            order=order))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(I_TUPLES, ARGS), either(0, SCALARS), either(False, SCALARS))
def test_fuzz_gather_nd(x, i, batch, check):
    _agree(lambda: fo.gather_nd(x, i, batch, check),
           lambda: dmlc.gather_nd(x, i, batch, check_indices=check))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(I_TUPLES, ARGS), either(U_ND, ARGS), REDUCTIONS,
       either(False, SCALARS))
def test_fuzz_scatter_nd(x, i, u, reduction, check):
    _agree(lambda: fo.scatter_nd(x, i, u, reduction, check),
           lambda: dmlc.scatter_nd(x, i, u, reduction=reduction, check_indices=check))


@settings(max_examples=budget(EXAMPLES))
@given(either(I_ELEMENTS, ARGS), either(np.array([0, 1], np.float32), ARGS), either(4, SCALARS),
       either(-1, SCALARS))
def test_fuzz_one_hot(i, values, depth, axis):
    _agree(lambda: fo.one_hot(i, values, depth, axis),
           lambda: dmlc.one_hot(i, values, depth, axis=axis))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(np.array([[3, 1, 0, 2]], np.int64), ARGS), either(0, SCALARS))
def test_fuzz_reverse_subsequences(x, lengths, axis):
    _agree(lambda: fo.reverse_subsequences(x, lengths, axis),
           lambda: dmlc.reverse_subsequences(x, lengths, axis=axis))


@settings(max_examples=budget(EXAMPLES))
@given(either(X.T, ARGS))
def test_fuzz_copy(x):
    _agree(lambda: fo.copy(x), lambda: dmlc.copy(x))


@settings(max_examples=budget(EXAMPLES))
@given(either(np.ones((2, 2), np.float32), ARGS), st.one_of(LISTS, st.just([3, 4])),
       st.one_of(LISTS, st.just([0, 0])), st.one_of(LISTS, st.just([3, 4])),
       st.one_of(LISTS, st.just([2, 2])))
def test_fuzz_slice_grad(dy, shape, offsets, sizes, strides):
    _agree(lambda: fo.slice_grad(dy, shape, offsets, sizes, strides),
           lambda: dmlc.slice_grad(dy, shape, offsets, sizes, strides))


PAD_WIDTHS = st.one_of(SCALARS, LISTS, st.sampled_from(
    [((1, 2), (0, 1)), [[1], [2]], ((1, 2),), np.array([[1, 0], [2, 2]], np.uint8), 1.5,
     [(1, 2), (3,)], np.zeros((2, 2, 2), np.int64), "edge"]))
CONSTANTS = st.one_of(SCALARS, st.sampled_from([(1, 1), (1, 2), ((3, 3), (3, 3)), [[1], [2, 3]],
                                                [np.array([1, 2]), 3], np.array([4, 4]), ()]))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), PAD_WIDTHS, st.one_of(MODES, st.sampled_from(
    ["reflection", "DML_PADDING_MODE_WRAP", "mean", np.array(["edge", "wrap"]), ["edge"]])),
    st.one_of(st.none(), CONSTANTS))
def test_fuzz_pad_numpy_form(x, pad_width, mode, constant_values):
    _agree(lambda: fo.pad_numpy_form(x, pad_width, mode, constant_values),
           lambda: dmlc.pad(x, pad_width, mode=mode, constant_values=constant_values))


@settings(max_examples=budget(EXAMPLES))
@given(either(X, ARGS), either(np.array([2, -1]), ARGS), either(1, SCALARS),
       st.sampled_from([None, "array", "device", "wrong shape", "wrong dtype", "scalar", "list",
                        "read-only"]), st.sampled_from(["raise", "wrap", "clip", "nearest"]))
def test_fuzz_take_out(a, indices, axis, out, mode):
    target = {None: None, "array": np.empty((3, 2), np.float32),
              "device": dmlc.empty((3, 2), np.float32), "wrong shape": np.empty(2, np.float32),
              "wrong dtype": np.empty((3, 2), np.int8), "scalar": np.empty((), np.float64),
              "list": [0.0, 0.0], "read-only": np.broadcast_to(np.float32(0), (3, 2))}[out]
    _agree(lambda: fo.take(a, indices, axis, target, mode),
           lambda: dmlc.take(a, indices, axis, target, mode))


def test_gather_nd_of_one_tuple_is_0_d():
    x = np.array([[5.0, 6.0]], np.float32)
    got = dmlc.gather_nd(x, np.array([0, 1], np.int32))
    assert got.shape == () and got.tobytes() == x[0, 1].tobytes()


def test_compiled_kernel_out_error_says_what_it_takes(kernel):
    with pytest.raises(dmlc.ValidationError) as e:
        kernel(X, I_ELEMENTS, out=np.zeros((1, 4), np.float32))
    assert "or a numpy array" not in str(e.value) and "DeviceTensor" in str(e.value)


@pytest.mark.parametrize("reduction, want", [("none", [3, 4]), ("add", [14, 26])])
def test_scatter_nd_of_empty_tuples_writes_the_input(reduction, want):
    x = np.array([10, 20], np.int32)
    updates = np.array([[1, 2], [3, 4]], np.int32)
    got = dmlc.scatter_nd(x, np.zeros((2, 0), np.int64), updates, reduction=reduction)
    assert_bits_equal(np.asarray(got), np.array(want, np.int32))


def test_take_of_a_0_d_array_along_axis_0():
    a = np.array(5.0, np.float32)
    got = dmlc.take(a, np.array([0, -1]), 0, None, "wrap")
    assert_bits_equal(np.asarray(got), np.take(a, [0, -1], axis=0, mode="wrap"))


def test_gather_nd_checks_its_flag_with_no_index():
    with pytest.raises(dmlc.ValidationError, match="check_indices"):
        dmlc.gather_nd(X, np.zeros((0, 1), np.int32), 0, check_indices=0)


@pytest.mark.parametrize("function", ["scatter_nd", "scatter"])
def test_scatter_add_of_bools_is_numpys(function):
    x = np.array([[True, False]])
    if function == "scatter_nd":
        got = dmlc.scatter_nd(x, np.array([[0, 0], [0, 1]]), np.array([True, True]),
                              reduction="add")
    else:
        got = dmlc.scatter(x, np.array([[0, 0]]), np.array([[True, True]]), axis=0,
                           reduction="add")
    assert_bits_equal(np.asarray(got), np.array([[True, True]]))

"""The one-shot functions take numpy's conventions where DirectML's differ: negative axes count
from the end, and gather's index_dimensions defaults to the indices' dimensions past their
leading 1s.
Checked against numpy itself, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

import dmlc
import reference as ref
from dmlc.oneshot import tensor_of
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


@settings(max_examples=budget(25), deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data())
def test_negative_axes_match_numpy(shape, data):
    rank = len(shape)
    axis = data.draw(st.integers(-rank, -1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.standard_normal(shape).astype(np.float32)
    n = shape[axis]
    idx = rng.integers(0, n, shape).astype(np.int32)
    assert_bits_equal(dmlc.gather_elements(x, idx, axis=axis),
                      np.take_along_axis(x, idx, axis=axis))
    perm = np.argsort(rng.random(shape), axis=axis).astype(np.int32)  # unique targets
    upd = rng.standard_normal(shape).astype(np.float32)
    expected = x.copy()
    np.put_along_axis(expected, perm, upd, axis=axis)
    assert_bits_equal(dmlc.scatter(x, perm, upd, axis=axis), expected)
    rows = rng.integers(0, n, (1,) * (rank - 1) + (3,)).astype(np.int32)
    assert_bits_equal(dmlc.gather(x, rows, axis=axis, index_dimensions=1),
                      np.take(x, rows.reshape(-1), axis=axis))


def test_gather_index_dimensions_defaults_to_the_indices_past_their_leading_1s():
    x = np.arange(24, dtype=np.float32).reshape(1, 6, 4)
    rows = np.array([[[5, 0, 2]]], np.int32)  # shape (1, 1, 3): three rows
    assert_bits_equal(dmlc.gather(x, rows, axis=1), np.take(x, [5, 0, 2], axis=1))
    grid = np.array([[[2, 0], [1, 1]]], np.int32)  # shape (1, 2, 2): a 2 x 2 grid of rows
    assert_bits_equal(dmlc.gather(x, grid, axis=1), np.take(x[0], grid[0], axis=0))


def test_an_axis_past_minus_rank_is_still_refused():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(dmlc.ValidationError, match="Axis"):
        dmlc.gather_elements(x, np.zeros((2, 3), np.int32), axis=-3)


def test_indices_of_another_rank_say_how_to_pad_them():
    with pytest.raises(dmlc.ValidationError, match="leading 1s.*index_dimensions"):
        dmlc.gather(np.zeros((2, 3), np.float32), np.zeros(4, np.int32), axis=0)


def test_a_sparse_view_is_compacted_not_uploaded_whole():
    """big[::1000] of a 156 MiB array spans more than kp's 128 MiB buffers: it is compacted
    on the host (it spans far more than twice its bytes); a dense view still folds."""
    big = np.arange(41_000_000, dtype=np.float32)
    view = big[::1000]
    assert_bits_equal(dmlc.slice(view, [0], [view.size], [-1]), view[::-1])
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    assert tensor_of(x.T).strides == (1, 8) and tensor_of(x[::3]).strides is None
    assert_bits_equal(dmlc.gather(x.T, np.array([[1]], np.int32), axis=0), x.T[[1]])


def test_a_strided_kernel_takes_a_flat_device_tensor_as_it_takes_a_flat_array():
    flat = np.arange(288, dtype=np.float32)
    kernel = dmlc.compile(dmlc.Slice1Desc(
        input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(9, 2, 16), strides=(32, 16, 1)),
        offsets=(0, 0, 0), sizes=(9, 2, 16), strides=(1, 1, -1)))
    want = flat.reshape(9, 2, 16)[:, :, ::-1]
    assert_bits_equal(kernel(flat), want)
    assert_bits_equal(kernel(dmlc.to_device(flat)).numpy(), want)
    with pytest.raises(dmlc.ValidationError, match=r"InputTensor buffer: expected >= 288"):
        kernel(dmlc.to_device(flat[:100]))


def test_out_of_a_strided_scatter_input_is_its_buffer_overwritten():
    """A kernel reading its data tensor transposed (strides (1, 4)) with out= that buffer: not
    in place (the data would be read and written at different places), so the result is
    computed into a temporary and then written over the buffer, as numpy's out= would."""
    t = dmlc.TensorDesc(data_type="FLOAT32", sizes=(4, 4), strides=(1, 4))
    kernel = dmlc.compile(dmlc.ScatterDesc(
        input=t, indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 4)),
        updates=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4)), axis=0))
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    data = dmlc.to_device(x)
    idx, upd = np.zeros((1, 4), np.int32), np.ones((1, 4), np.float32)
    assert kernel(data, idx, upd, out=data) is data
    assert_bits_equal(data.numpy(), ref.scatter(x.T, idx, upd, 0))


def test_take_takes_bool_indices_as_numpy_does():
    """numpy.take (1.26 and 2.x) casts bools to 0 and 1; take_along_axis and put_along_axis
    refuse them ('`indices` must be an integer array'): dmlc does the same."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for indices, axis in [([True, False, True], 1), (np.array([[False], [True]]), 0),
                          (True, None), (np.bool_(False), 1)]:
        assert_bits_equal(np.asarray(dmlc.take(x, indices, axis=axis)),
                          np.asarray(np.take(x, indices, axis=axis)))
    flags = np.ones((3, 1), bool)
    with pytest.raises(dmlc.ValidationError, match="must be an integer array"):
        dmlc.take_along_axis(x, flags, axis=1)
    with pytest.raises(dmlc.ValidationError, match="must be an integer array"):
        dmlc.put_along_axis(x.copy(), flags, 0.0, axis=1)


def test_join_takes_an_array_as_the_sequence_of_its_rows():
    a, b = np.arange(3.0), np.arange(3.0) + 5
    stacked = np.stack([a, b])
    assert_bits_equal(dmlc.join(stacked, axis=0), np.concatenate(stacked, axis=0))
    cube = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    for axis in (0, 1, -1):
        assert_bits_equal(dmlc.join(cube, axis=axis), np.concatenate(cube, axis=axis))
        assert_bits_equal(dmlc.join(dmlc.to_device(cube), axis=axis).numpy(),
                          np.concatenate(cube, axis=axis))
    with pytest.raises(dmlc.ValidationError, match="InputTensors"):
        dmlc.join(a)  # rows of 0 dimensions: numpy refuses them too


X23 = np.zeros((2, 3), np.float32)
AXES = {
    "gather": lambda ax: dmlc.gather(X23, np.zeros((1, 1), np.int32), axis=ax),
    "gather_elements": lambda ax: dmlc.gather_elements(X23, np.zeros((2, 3), np.int32), axis=ax),
    "scatter": lambda ax: dmlc.scatter(X23, np.zeros((2, 3), np.int32), X23, axis=ax),
    "join": lambda ax: dmlc.join([X23, X23], axis=ax),
    "split": lambda ax: dmlc.split(X23, 1, axis=ax),
    "one_hot": lambda ax: dmlc.one_hot(np.zeros(2, np.int32), np.zeros(2, np.float32), 3,
                                       axis=ax),
    "reverse_subsequences": lambda ax: dmlc.reverse_subsequences(
        X23, np.zeros((1, 3), np.int32), axis=ax),
}


@pytest.mark.parametrize("name", AXES)
@pytest.mark.parametrize("axis", [2, -3, 7, 1.0, None, True])
def test_an_axis_error_states_the_range_with_the_negative_axes(name, axis):
    with pytest.raises(dmlc.ValidationError, match=r"Axis: expected an integer in \[-2, 2\)"):
        AXES[name](axis)
    AXES[name](-2)  # the negative axes the message promises do work

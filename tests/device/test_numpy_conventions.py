"""The one-shot functions take numpy's conventions where DirectML's differ: negative axes count
from the end, and gather's index_dimensions defaults to the indices' dimensions past their
leading 1s.
Checked against numpy itself, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


@settings(max_examples=25, deadline=None)
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

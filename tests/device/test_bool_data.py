"""bool data (numpy's masks) moves through every function that moves data: a bool is a byte,
moved as uint8 and returned as bool. For random masks, shapes and arguments each function gives
numpy's result (its numpy equivalent, or the independent oracle of tests/reference*.py run on
the bool array), of dtype bool, from numpy arrays and from device tensors alike."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
import reference as ref
import reference_layout as ref_layout
import reference_nd as ref_nd
import reference_scatternd as ref_scatternd
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


def _mask(draw: Any, min_dims: int = 1, max_dims: int = 3, low: int = 1) -> np.ndarray:
    shape = tuple(draw(st.lists(st.integers(low, 4), min_size=min_dims, max_size=max_dims)))
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).integers(0, 2, shape).astype(bool)


def _ids(draw: Any, shape: tuple[int, ...], n: int) -> np.ndarray:
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).integers(-n, n, shape).astype(np.int64)


# name: draw(x, draw) -> (dmlc's call given how to pass arrays, numpy's result)
Case = Callable[[np.ndarray, Any], tuple[Callable[[Callable[[Any], Any]], Any], Any]]


def _take(x, draw):
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    i = _ids(draw, tuple(draw(st.lists(st.integers(0, 3), max_size=2))), x.shape[axis])
    return (lambda w: dmlc.take(w(x), i, axis=axis)), np.take(x, i, axis=axis)


def _take_along_axis(x, draw):
    axis = draw(st.integers(0, x.ndim - 1))
    shape = tuple(draw(st.integers(1, 3)) if d == axis else n for d, n in enumerate(x.shape))
    i = _ids(draw, shape, x.shape[axis])
    return (lambda w: dmlc.take_along_axis(w(x), w(i), axis=axis),
            np.take_along_axis(x, i, axis=axis))


def _put_along_axis(x, draw):
    axis = draw(st.integers(0, x.ndim - 1))
    shape = tuple(draw(st.integers(1, 3)) if d == axis else n for d, n in enumerate(x.shape))
    i = _ids(draw, shape, x.shape[axis])
    values = draw(st.sampled_from([True, 0, 2, "mask"]))
    if values == "mask":
        values = ~np.take_along_axis(x, i, axis=axis)
    want = x.copy()
    np.put_along_axis(want, i, values, axis=axis)

    def run(w):
        target = w(x.copy())
        dmlc.put_along_axis(target, w(i), values, axis=axis)
        return target
    return run, want


def _gather(x, draw):
    axis = draw(st.integers(0, x.ndim - 1))
    shape = (1,) * (x.ndim - 1) + (draw(st.integers(1, 4)),)
    i = _ids(draw, shape, x.shape[axis]).astype(np.int32)
    return (lambda w: dmlc.gather(w(x), w(i), axis=axis, index_dimensions=1),
            ref.gather(x, i, axis, 1))


def _gather_elements(x, draw):
    axis = draw(st.integers(0, x.ndim - 1))
    shape = tuple(draw(st.integers(1, 3)) if d == axis else n for d, n in enumerate(x.shape))
    i = _ids(draw, shape, x.shape[axis])
    return (lambda w: dmlc.gather_elements(w(x), w(i), axis=axis),
            ref.gather_elements(x, i, axis))


def _scatter(x, draw):
    axis = draw(st.integers(0, x.ndim - 1))
    shape = tuple(draw(st.integers(1, 3)) if d == axis else n for d, n in enumerate(x.shape))
    i = _ids(draw, shape, x.shape[axis])
    u = np.random.default_rng(draw(st.integers(0, 99))).integers(0, 2, shape).astype(bool)
    return (lambda w: dmlc.scatter(w(x), w(i), w(u), axis=axis), ref.scatter(x, i, u, axis))


def _scatter_nd(x, draw):
    k = draw(st.integers(1, x.ndim))
    i = _ids(draw, (draw(st.integers(1, 3)), k), min(x.shape[:k]))
    u = np.random.default_rng(draw(st.integers(0, 99))).integers(
        0, 2, i.shape[:1] + x.shape[k:]).astype(bool)
    return (lambda w: dmlc.scatter_nd(w(x), w(i), w(u)), ref_scatternd.scatter_nd(x, i, u))


def _gather_nd(x, draw):
    k = draw(st.integers(1, x.ndim))
    i = _ids(draw, (draw(st.integers(1, 3)), k), min(x.shape[:k]))
    want = ref_nd.gather_nd(x, i)
    return (lambda w: dmlc.gather_nd(w(x), w(i))), want.reshape(want.shape or (1,))


def _join_split(x, draw):
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    other = ~x
    if draw(st.booleans()):
        return ((lambda w: dmlc.join([w(x), w(other)], axis=axis)),
                np.concatenate([x, other], axis=axis))
    n = x.shape[axis]
    cut = draw(st.integers(0, n))
    return ((lambda w: dmlc.split(w(x), [cut, n - cut], axis=axis)),
            np.split(x, [cut], axis=axis))


def _pad(x, draw):
    mode = draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
    limit = {"reflect": 1}.get(mode, 0)
    widths = [(draw(st.integers(0, n - limit)), draw(st.integers(0, n - limit)))
              for n in x.shape]
    if mode == "constant":
        value = draw(st.sampled_from([0, 1, True, 3, 0.5]))
        return ((lambda w: dmlc.pad(w(x), widths, constant_values=value)),
                np.pad(x, widths, constant_values=value))
    return (lambda w: dmlc.pad(w(x), widths, mode=mode)), np.pad(x, widths, mode=mode)


def _tile_copy_slice(x, draw):
    which = draw(st.sampled_from(["tile", "copy", "slice", "transposed copy"]))
    if which == "tile":
        reps = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
        return (lambda w: dmlc.tile(w(x), reps)), np.tile(x, reps)
    if which == "copy":
        return (lambda w: dmlc.copy(w(x))), x.copy()
    if which == "transposed copy":
        return (lambda w: dmlc.copy(w(x).T)), x.T.copy()
    offsets = [draw(st.integers(0, n - 1)) for n in x.shape]
    sizes = [draw(st.integers(1, n - o)) for o, n in zip(offsets, x.shape)]
    strides = [draw(st.sampled_from([1, 2, -1, -2])) for _ in x.shape]
    return ((lambda w: dmlc.slice(w(x), offsets, sizes, strides)),
            ref.slice1(x, offsets, sizes, strides))


def _one_hot_reverse(x, draw):
    if draw(st.booleans()):
        labels = _ids(draw, x.shape, 3)
        values = np.array([False, True])
        return ((lambda w: dmlc.one_hot(w(labels), w(values), 3)),
                ref_nd.one_hot(labels, values, 3, -1))
    axis = draw(st.integers(0, x.ndim - 1))
    lengths = np.abs(_ids(draw, tuple(1 if d == axis else n for d, n in enumerate(x.shape)),
                          x.shape[axis] + 1))
    return ((lambda w: dmlc.reverse_subsequences(w(x), w(lengths), axis=axis)),
            ref_nd.reverse_subsequences(x, lengths, axis))


def _space_depth(x, draw):
    b = draw(st.integers(1, 2))
    y = np.random.default_rng(draw(st.integers(0, 99))).integers(
        0, 2, (1, 2 * b * b, 2, 3)).astype(bool)
    if draw(st.booleans()):
        return (lambda w: dmlc.depth_to_space(w(y), b)), ref_layout.depth_to_space(y, b, True)
    z = ref_layout.depth_to_space(y, b, True)
    return (lambda w: dmlc.space_to_depth(w(z), b)), ref_layout.space_to_depth(z, b, True)


CASES: dict[str, Case] = {
    "take": _take, "take_along_axis": _take_along_axis, "put_along_axis": _put_along_axis,
    "gather": _gather, "gather_elements": _gather_elements, "scatter": _scatter,
    "scatter_nd": _scatter_nd, "gather_nd": _gather_nd, "join/split": _join_split,
    "pad": _pad, "tile/copy/slice": _tile_copy_slice, "one_hot/reverse": _one_hot_reverse,
    "space/depth": _space_depth,
}


def _numpy(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_numpy(v) for v in value]
    return value.numpy() if hasattr(value, "numpy") and not isinstance(value, np.generic) \
        else value


@pytest.mark.parametrize("name", CASES)
@settings(deadline=None)
@given(data=st.data())
def test_bool_data_gives_numpys_result_of_dtype_bool(name, data):
    x = _mask(data.draw)
    run, want = CASES[name](x, data.draw)
    on_device = data.draw(st.booleans())
    got = run(dmlc.to_device if on_device else (lambda a: a))
    if on_device:
        pieces = got if isinstance(got, tuple) else (got,)
        assert all(type(p).__name__ == "DeviceTensor" and p.dtype == bool for p in pieces)
    got = _numpy(got)
    for g, w in zip(got, want) if isinstance(want, list) else [(got, want)]:
        assert np.asarray(g).dtype == bool
        assert_bits_equal(np.asarray(g), np.asarray(w))


def test_the_reported_mask():
    mask = np.array([[True, False, True], [False, True, True]])
    idx = np.array([[1, 0, 1]])
    got = dmlc.take_along_axis(mask, idx, axis=0)
    assert got.dtype == bool and (got == np.take_along_axis(mask, idx, axis=0)).all()
    assert dmlc.take(mask, 4).dtype == np.bool_ and dmlc.take(mask, 4) == mask.flat[4]


def test_bool_device_tensors_and_their_views():
    mask = np.array([[True, False, True], [False, False, True]])
    t = dmlc.to_device(mask)
    assert t.dtype == bool and (t.numpy() == mask).all() and (t.T.numpy() == mask.T).all()
    assert (t.view(np.uint8).numpy() == mask.view(np.uint8)).all()
    t[0, 1:] = 7  # numpy's cast: True
    t[1] = dmlc.to_device(np.array([True, True, False]))
    assert (t.numpy() == [[True, True, True], [True, True, False]]).all()
    assert dmlc.empty((2, 2), bool).numpy().dtype == bool
    out = dmlc.empty((2, 3), bool)
    assert dmlc.copy(t, out=out) is out and (out.numpy() == t.numpy()).all()
    # the in-place scatter writes through the bool tensor itself
    dmlc.scatter(t, np.array([[0, 0, 0]]), np.array([[False, False, False]]), axis=0, out=t)
    assert (t.numpy()[0] == [False, False, False]).all()


def test_data_operands_that_are_not_all_bool_are_refused():
    mask = np.zeros((2, 3), bool)
    with pytest.raises(dmlc.ValidationError, match=r"DML_SCATTER: updates.dtype: expected "
                                                   r"bool.* got uint8"):
        dmlc.scatter(mask, np.zeros((1, 3), np.int32), np.ones((1, 3), np.uint8), axis=0)
    with pytest.raises(dmlc.ValidationError, match=r"DML_JOIN: tensors\[1\].dtype"):
        dmlc.join([mask, mask.astype(np.uint8)])
    with pytest.raises(dmlc.ValidationError, match="view.*dtype"):
        dmlc.to_device(mask).view(np.int16)


def test_join_takes_a_bool_array_as_the_sequence_of_its_rows():
    """As numpy.concatenate (found by test_fuzz_api: the array was joined as one tensor)."""
    for rows in (np.array([[True]]), np.array([[True, False], [False, True], [True, True]])):
        for w in (lambda a: a, dmlc.to_device):
            got = np.asarray(_numpy(dmlc.join(w(rows), axis=0)))
            assert got.dtype == bool
            assert_bits_equal(got, np.concatenate(rows, axis=0))
    with pytest.raises(dmlc.ValidationError, match="at least 2 dimensions"):
        dmlc.join(np.array([True]))  # rows of 0 dimensions, as numpy refuses

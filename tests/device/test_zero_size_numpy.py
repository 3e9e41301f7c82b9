"""Zero-size tensors take the same rules as every other size: for random shapes with a 0
somewhere (random axes, index shapes and dtypes too), dmlc and numpy agree on the result's
shape, dtype and elements, or both refuse (numpy raising any error, dmlc raising a DmlcError;
any other exception from dmlc fails the test). The DirectML-named functions are checked
against numpy under their operator's shape rules (scatter against put_along_axis where the
indices have the input's sizes but along the axis; scatter_nd and gather_nd against ONNX's
definitions in numpy)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

DTYPES = [np.float32, np.int8, np.uint16, np.float64, np.int64]
INDEX_DTYPES = [np.int32, np.int64, np.int8, np.uint32, np.float64]
REFUSED = "refused"


def _shape(draw: Any, min_dims: int = 1, max_dims: int = 4) -> tuple[int, ...]:
    """A shape with a 0 somewhere."""
    shape = draw(st.lists(st.integers(0, 3), min_size=min_dims, max_size=max_dims))
    shape[draw(st.integers(0, len(shape) - 1))] = 0
    return tuple(shape)


def _any_shape(draw: Any, ndim: int) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))


def _array(draw: Any, shape: tuple[int, ...], dtype: Any = None) -> np.ndarray:
    dtype = np.dtype(dtype or draw(st.sampled_from(DTYPES)))
    seed = draw(st.integers(0, 2**32 - 1))
    values = np.random.default_rng(seed).integers(-9, 9, shape)
    return values.astype(dtype) if dtype.kind != "u" else np.abs(values).astype(dtype)


def _indices(draw: Any, shape: tuple[int, ...], n: int, dtypes: list[Any] = INDEX_DTYPES
             ) -> np.ndarray:
    """Indices into an axis of n elements, now and then one out of range."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    seed = draw(st.integers(0, 2**32 - 1))
    lo, hi = (-n, n) if dtype.kind in "if" else (0, n)
    if draw(st.integers(0, 5)) == 0:
        lo, hi = lo - 1, hi + 1
    values = np.random.default_rng(seed).integers(lo, max(hi, lo + 1), shape)
    return values.astype(dtype)


def _outcome(call: Callable[[], Any], errors: tuple[type[BaseException], ...]) -> Any:
    try:
        value = call()
    except errors:
        return REFUSED
    if isinstance(value, (list, tuple)):
        return [v.numpy() if hasattr(v, "numpy") else np.asarray(v) for v in value]
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _agree(ours: Callable[[], Any], numpys: Callable[[], Any]) -> None:
    want = _outcome(numpys, (Exception,))
    got = _outcome(ours, (dmlc.DmlcError,))
    if isinstance(want, str) or isinstance(got, str):
        assert isinstance(want, str) and isinstance(got, str), (got, want)
        return
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert (g.shape, g.dtype) == (w.shape, w.dtype)
            assert_bits_equal(g, w)
        return
    assert (got.shape, got.dtype) == (want.shape, want.dtype), (got, want)
    assert_bits_equal(got, want)


def _axis(draw: Any, ndim: int) -> int:
    """An axis, now and then one out of range."""
    return draw(st.integers(-ndim - 1, ndim))


def _device(draw: Any) -> Callable[[Any], Any]:
    """How dmlc gets its arrays: as numpy arrays, or uploaded (device tensors)."""
    return dmlc.to_device if draw(st.integers(0, 3)) == 0 else (lambda a: a)


EXAMPLES = settings(deadline=None)  # the profile's count (conftest.py)


@EXAMPLES
@given(data=st.data())
def test_take(data):
    x = _array(data.draw, _shape(data.draw))
    axis = data.draw(st.one_of(st.none(), st.just(0), st.integers(-x.ndim - 1, x.ndim)))
    n = x.size if axis is None else (x.shape[axis] if -x.ndim <= axis < x.ndim else 1)
    i = _indices(data.draw, _any_shape(data.draw, data.draw(st.integers(0, 2))), n)
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))

    def numpys() -> Any:
        if mode == "wrap" and 0 in (x.size if axis is None else x.shape[axis],):
            # numpy 1.26 loops forever wrapping into an empty axis where the result is empty
            # (np.take(np.zeros((0, 0)), np.int32(0), axis=0, mode="wrap")); else it refuses
            shape = np.take(x, i, axis=axis, mode="clip").shape
            if np.prod(shape):
                raise IndexError("cannot do a non-empty take from an empty axes.")
            return np.empty(shape, x.dtype)
        return np.take(x, i, axis=axis, mode=mode)
    _agree(lambda: dmlc.take(x, i, axis=axis, mode=mode), numpys)


@EXAMPLES
@given(data=st.data())
def test_take_along_axis_and_put_along_axis(data):
    x = _array(data.draw, _shape(data.draw))
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim - 1, x.ndim)))
    ndim = 1 if axis is None else x.ndim + data.draw(st.sampled_from([0, 0, 0, 1]))
    shape = tuple(data.draw(st.sampled_from([n, 1, 0, 2])) for n in (
        x.shape if ndim == x.ndim else (1,) * ndim))
    n = x.size if axis is None else (x.shape[axis] if -x.ndim <= axis < x.ndim else 1)
    i = _indices(data.draw, shape, n, [np.int32, np.int64, np.int16, np.float64])
    w = _device(data.draw)
    on_device = w is dmlc.to_device
    spread = _broadcast(x, i, axis)  # what a DeviceTensor refuses (not broadcast), any size
    if on_device and i.dtype == np.int16:  # device indices are not widened: an index type
        spread["indices"] = True

    def take() -> Any:
        got = np.take_along_axis(x, i, axis=axis)
        if on_device and (spread["arr"] or spread["indices"]):
            raise ValueError("a DeviceTensor is neither broadcast nor widened")
        return got
    _agree(lambda: dmlc.take_along_axis(w(x), w(i), axis=axis), take)
    values = _array(data.draw, data.draw(st.sampled_from([(), shape, (1,) * len(shape)])),
                    x.dtype)
    ours, theirs = w(x.copy()), x.copy()

    def put(target: Any, fn: Callable[..., Any], idx: Any) -> Any:
        fn(target, idx, values, axis=axis)
        return target

    def put_numpy() -> Any:
        put(theirs, np.put_along_axis, i)
        if on_device and spread["indices"]:
            raise ValueError("a DeviceTensor is neither broadcast nor widened")
        return theirs
    _agree(lambda: put(ours, dmlc.put_along_axis, w(i)), put_numpy)


def _broadcast(x: np.ndarray, i: np.ndarray, axis: int | None) -> dict[str, bool]:
    """Whether take_along_axis broadcasts arr, and the indices (numpy's rule)."""
    shape = (x.size,) if axis is None else x.shape
    if len(shape) != i.ndim or not (axis is None or -x.ndim <= axis < x.ndim):
        return {"arr": False, "indices": False}  # refused anyway
    ax = 0 if axis is None else axis % x.ndim
    b = tuple(m if d == ax or n == 1 else n for d, (n, m) in enumerate(zip(shape, i.shape)))
    return {"arr": any(shape[d] != b[d] for d in range(len(b)) if d != ax),
            "indices": i.shape != b}


def _put_along(x: np.ndarray, i: np.ndarray, u: np.ndarray, axis: int) -> np.ndarray:
    """DML_SCATTER's rules, then numpy's put_along_axis (which raises for a bad index)."""
    if not (x.ndim == i.ndim == u.ndim) or u.shape != i.shape or u.dtype != x.dtype:
        raise ValueError("DML_SCATTER's shapes")
    if any(a != b for d, (a, b) in enumerate(zip(i.shape, x.shape)) if d != axis % x.ndim):
        raise ValueError("DML_SCATTER: the indices' sizes but along the axis are the input's")
    out = x.copy()
    np.put_along_axis(out, i, u, axis=axis)
    return out


@EXAMPLES
@given(data=st.data())
def test_scatter_and_gather_elements(data):
    x = _array(data.draw, _shape(data.draw))
    axis = _axis(data.draw, x.ndim)
    shape = tuple(data.draw(st.sampled_from([n, n, 0, 1])) for n in x.shape)
    n = x.shape[axis] if -x.ndim <= axis < x.ndim else 1
    i = _indices(data.draw, shape, n, [np.int32, np.int64, np.float64])
    u = _array(data.draw, data.draw(st.sampled_from([shape, shape, shape[1:]])),
               data.draw(st.sampled_from([x.dtype, x.dtype, np.float16])))
    w = _device(data.draw)
    _agree(lambda: dmlc.scatter(w(x), w(i), w(u), axis=axis, check_indices=True),
           lambda: _put_along(x, i, u, axis))
    _agree(lambda: dmlc.gather_elements(w(x), w(i), axis=axis, check_indices=True),
           lambda: _put_along(x, i, i.astype(x.dtype), axis) is not None and
           np.take_along_axis(x, i, axis=axis))


def _unpadded(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape without its leading 1s."""
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _scatter_nd(x: np.ndarray, i: np.ndarray, u: np.ndarray, check: bool) -> np.ndarray:
    """ONNX ScatterND in numpy; a tuple out of range raises (check) or is dropped."""
    k = i.shape[-1]
    if k > x.ndim or u.dtype != x.dtype or i.dtype.kind not in "iu":
        raise ValueError("ScatterND's types and tuple size")
    if _unpadded(u.shape) != _unpadded(i.shape[:-1] + x.shape[k:]):  # dmlc pads ranks
        raise ValueError("ScatterND: updates of indices.shape[:-1] + data.shape[k:]")
    out = x.copy()
    rows = u.reshape((int(np.prod(i.shape[:-1])),) + x.shape[k:])
    for t, row in zip(i.reshape(-1, k), rows):
        if all(-n <= c < n for c, n in zip(t, x.shape)):
            out[tuple(t)] = row
        elif check:
            raise IndexError(f"{t} out of range")
    return out


def _gather_nd(x: np.ndarray, i: np.ndarray) -> np.ndarray:
    """ONNX GatherND (batch_dims 0) in numpy, of at least one dimension (DirectML's)."""
    k = i.shape[-1]
    if k > x.ndim or i.dtype.kind not in "iu":
        raise ValueError("GatherND's tuple size")
    if i.size and not all(((-n <= c) & (c < n)).all() for c, n in zip(np.moveaxis(i, -1, 0),
                                                                       x.shape)):
        raise IndexError("out of range")
    got = x[tuple(np.moveaxis(i, -1, 0))] if k else np.broadcast_to(x, i.shape[:-1] + x.shape)
    return got.reshape(got.shape or (1,))


@EXAMPLES
@given(data=st.data())
def test_scatter_nd_and_gather_nd(data):
    x = _array(data.draw, _shape(data.draw))
    k = data.draw(st.integers(1, x.ndim + 1))
    lead = _any_shape(data.draw, data.draw(st.integers(0, 2)))
    i = _indices(data.draw, lead + (k,), min(x.shape[:k], default=1),
                 [np.int32, np.int64, np.uint32])
    want = lead + x.shape[k:]
    u = _array(data.draw, data.draw(st.sampled_from([want, want, want + (1,), (0,)])),
               data.draw(st.sampled_from([x.dtype, x.dtype, np.float16])))
    if u.ndim == 0:
        return  # a 0-d update is dmlc's (ONNX's) one element; not drawn here
    check = data.draw(st.booleans())
    w = _device(data.draw)
    _agree(lambda: dmlc.scatter_nd(w(x), w(i), w(u), check_indices=check),
           lambda: _scatter_nd(x, i, u, check))
    if i.ndim and x.ndim + i.ndim - 1 - k <= 8:
        _agree(lambda: dmlc.gather_nd(w(x), w(i), check_indices=True),
               lambda: _gather_nd(x, i))


@EXAMPLES
@given(data=st.data())
def test_join_and_split(data):
    x = _array(data.draw, _shape(data.draw))
    axis = _axis(data.draw, x.ndim)
    parts = [x]
    for _ in range(data.draw(st.integers(0, 2))):
        shape = list(x.shape)
        if -x.ndim <= axis < x.ndim:
            shape[axis] = data.draw(st.integers(0, 2))
        if data.draw(st.integers(0, 5)) == 0:  # now and then a shape that does not fit
            shape[data.draw(st.integers(0, x.ndim - 1))] += 1
        parts.append(_array(data.draw, tuple(shape), x.dtype))
    w = _device(data.draw)
    _agree(lambda: dmlc.join([w(p) for p in parts], axis=axis),
           lambda: np.concatenate(parts, axis=axis))
    n = x.shape[axis] if -x.ndim <= axis < x.ndim else 0
    if data.draw(st.booleans()):
        sections = data.draw(st.integers(0, 3))
        _agree(lambda: dmlc.split(w(x), sections, axis=axis),
               lambda: np.split(x, sections, axis=axis))
    else:
        sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))

        def numpys() -> Any:
            if sum(sizes) != n:
                raise ValueError("DML_SPLIT: the sizes sum to the axis")
            return np.split(x, np.cumsum(sizes)[:-1], axis=axis)
        _agree(lambda: dmlc.split(w(x), sizes, axis=axis), numpys)


@EXAMPLES
@given(data=st.data())
def test_pad_tile_copy(data):
    x = _array(data.draw, _shape(data.draw))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
    limit = {"reflect": -1, "symmetric": 0, "wrap": 0}.get(mode)
    # widths within DirectML's one reflection where the axis is not empty (numpy reflects
    # further, dmlc refuses: a rule for every size, not this test's)
    widths = [tuple(min(data.draw(st.integers(0, 2)), n + limit if limit is not None and n
                        else 2) for _ in "se") for n in x.shape]
    w = _device(data.draw)
    _agree(lambda: dmlc.pad(w(x), widths, mode=mode), lambda: np.pad(x, widths, mode=mode))
    reps = data.draw(st.one_of(st.integers(-1, 2), st.lists(st.integers(-1, 2), max_size=5)))

    def tile() -> np.ndarray:
        if np.any(np.asarray(reps) < 0):  # numpy skips its check where x is empty
            raise ValueError("negative dimensions are not allowed")
        return np.tile(x, reps)
    _agree(lambda: dmlc.tile(w(x), reps), tile)
    _agree(lambda: dmlc.copy(w(x)), lambda: np.copy(x))


def _window(x: np.ndarray, offsets: list[int], sizes: list[int], strides: list[int]
            ) -> np.ndarray:
    """DML_SLICE1's window as numpy's basic slicing (a negative stride reads from the
    window's end)."""
    if not len(offsets) == len(sizes) == len(strides) == x.ndim:
        raise ValueError("one of each per dimension")
    key = []
    for o, s, st_, n in zip(offsets, sizes, strides, x.shape):
        if o < 0 or s < 0 or st_ == 0 or o + s > n:
            raise ValueError("the window leaves the input")
        key.append(slice(o, o + s, st_) if st_ > 0 or not s else
                   slice(o + s - 1, o - 1 if o else None, st_))
    return x[tuple(key)]


@EXAMPLES
@given(data=st.data())
def test_slice(data):
    x = _array(data.draw, _shape(data.draw))
    offsets = [data.draw(st.integers(0, n)) for n in x.shape]
    sizes = [data.draw(st.integers(0, n - o + data.draw(st.sampled_from([0, 0, 0, 1]))))
             for o, n in zip(offsets, x.shape)]
    strides = [data.draw(st.sampled_from([1, 2, -1, -3])) for _ in x.shape]
    w = _device(data.draw)
    _agree(lambda: dmlc.slice(w(x), offsets, sizes, strides),
           lambda: _window(x, offsets, sizes, strides))


def test_the_reported_cases():
    """scatter_nd of an empty data tensor returned the padded (1, 1, 0); take of empty float
    indices returned an empty result where any other size of them is refused (as numpy's)."""
    data = np.zeros((0,), np.int16)
    got = dmlc.scatter_nd(data, np.zeros((2, 2, 1), np.uint32), np.zeros((2, 2), np.int16))
    assert (got.shape, got.dtype) == ((0,), np.int16)
    a = np.arange(6.0).reshape(2, 3)
    for indices in (np.array([], np.float64), np.array([1.0])):
        with pytest.raises(dmlc.ValidationError, match=r"take: indices.dtype: expected an "
                                                       r"integer type .* got float64"):
            dmlc.take(a, indices)
    assert dmlc.take(a, []).shape == np.take(a, []).shape == (0,)  # a list says no dtype
    # numpy checks the indices it visits: every one, once per row before the axis
    with pytest.raises(dmlc.IndexOutOfRangeError):
        dmlc.take(np.zeros((2, 0)), [5], axis=0)
    assert dmlc.take(np.zeros((0, 3)), [5], axis=1).shape == (0, 1)  # no row: none visited

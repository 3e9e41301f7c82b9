"""Independent numpy oracles for the four operators (no dmlc code involved).

Index values are handled as Python integers, so 64-bit values are never truncated:
negative signed values count from the end once, then clamp (gather) or drop (scatter).
"""
from __future__ import annotations

import numpy as np


def fix_index(value: int, dim: int, signed: bool) -> int | None:
    """docs/decisions.md: the in-range index, or None when it is out of range."""
    v = int(value)
    if signed and v < 0:
        v += dim
    return v if 0 <= v < dim else None


def clamp_index(value: int, dim: int, signed: bool) -> int:
    v = int(value)
    if signed and v < 0:
        v += dim
    return min(max(v, 0), dim - 1)


def _clamped(indices: np.ndarray, dim: int) -> np.ndarray:
    signed = indices.dtype.kind == "i"
    flat = [clamp_index(v, dim, signed) for v in indices.reshape(-1).tolist()]
    return np.array(flat, dtype=np.int64).reshape(indices.shape)


def gather_output_shape(x_shape, idx_shape, axis: int, k: int) -> tuple[int, ...]:
    d = len(x_shape)
    full = list(x_shape[:axis]) + list(idx_shape[d - k:]) + list(x_shape[axis + 1:])
    return tuple(full[len(full) - d:]) if len(full) >= d else (1,) * (d - len(full)) + tuple(full)


def gather(x: np.ndarray, indices: np.ndarray, axis: int, index_dimensions: int) -> np.ndarray:
    d, k = x.ndim, index_dimensions
    real = _clamped(indices, x.shape[axis]).reshape(indices.shape[d - k:])
    out = np.take(x, real, axis=axis)
    return out.reshape(gather_output_shape(x.shape, indices.shape, axis, k))


def gather_elements(x: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    return np.take_along_axis(x, _clamped(indices, x.shape[axis]), axis=axis)


def scatter(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int) -> np.ndarray:
    """Sequential definition: updates applied in row-major order, so the last one wins."""
    out = x.copy()
    signed = indices.dtype.kind == "i"
    for pos in np.ndindex(indices.shape):
        i = fix_index(indices[pos], x.shape[axis], signed)
        if i is not None:
            target = list(pos)
            target[axis] = i
            out[tuple(target)] = updates[pos]
    return out


def slice1(x: np.ndarray, offsets, sizes, strides, output_sizes=None) -> np.ndarray:
    if output_sizes is None:
        output_sizes = [1 + (s - 1) // abs(st) for s, st in zip(sizes, strides)]
    axes = []
    for o, s, st, n in zip(offsets, sizes, strides, output_sizes):
        start = o + s - 1 if st < 0 else o
        axes.append(start + st * np.arange(n))
    return x[np.ix_(*axes)]


def join(xs: list[np.ndarray], axis: int) -> np.ndarray:
    """DML_JOIN: numpy.concatenate."""
    return np.concatenate(xs, axis=axis)


def split(x: np.ndarray, sizes: list[int], axis: int) -> list[np.ndarray]:
    """DML_SPLIT by sizes: numpy.split at the running sums."""
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def assert_bits_equal(actual: np.ndarray, expected: np.ndarray) -> None:
    """Same dtype, same shape, same bits (NaN payloads and -0.0 count)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    bits = np.dtype(f"uint{8 * actual.dtype.itemsize}")
    a, e = actual.view(bits), expected.view(bits)
    if not np.array_equal(a, e):
        where = np.argwhere(a != e)[:5].tolist()
        raise AssertionError(f"bits differ at {where}: got {a[tuple(zip(*where))]}, "
                             f"expected {e[tuple(zip(*where))]}")


class _Loaded:
    """Values read from an index tensor, not yet normalized (the tensor they index decides).
    Arithmetic on them (with index grids or integers) is int64's, wrapping, Python's // and %:
    what a subscript that reads indices computes before it is normalized."""

    __array_ufunc__ = None  # numpy's grids defer to these operators (i + I[i])

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    @staticmethod
    def _wide(x):
        return x.values.astype(np.int64) if isinstance(x, _Loaded) else np.int64(x) if \
            isinstance(x, int) else np.asarray(x, np.int64)

    def _op(self, other, fn, swap=False):
        a, b = self._wide(self), self._wide(other)
        with np.errstate(over="ignore"):
            return _Loaded(fn(b, a) if swap else fn(a, b))

    def __add__(self, o):
        return self._op(o, np.add)

    def __radd__(self, o):
        return self._op(o, np.add, True)

    def __sub__(self, o):
        return self._op(o, np.subtract)

    def __rsub__(self, o):
        return self._op(o, np.subtract, True)

    def __mul__(self, o):
        return self._op(o, np.multiply)

    def __rmul__(self, o):
        return self._op(o, np.multiply, True)

    def __floordiv__(self, o):
        return self._op(o, np.floor_divide)

    def __mod__(self, o):
        return self._op(o, np.mod)

    def __neg__(self):
        return self._op(0, np.subtract, True)


class _Tensor:
    """A tensor in a Python-evaluated tensor expression: t[subscripts] with numpy index grids."""

    def __init__(self, name: str, array: np.ndarray) -> None:
        self.name, self.array = name, array

    def __getitem__(self, subs):
        subs = subs if isinstance(subs, tuple) else (subs,)
        fixed = []
        for k, s in enumerate(subs):
            dim = self.array.shape[k]
            if isinstance(s, _Loaded):
                s = _clamped(s.values, dim)
            s = np.asarray(s)
            assert s.min() >= 0 and s.max() < dim, f"{self.name} subscript {k} out of range"
            fixed.append(s)
        values = self.array[tuple(np.broadcast_arrays(*fixed))]
        return _Loaded(values) if self.array.dtype.kind in "iu" and self.index else values

    index = False


def evaluate_statement(rhs: str, index_vars: list[str], shape, arrays: dict[str, np.ndarray],
                       index_tensors: set[str]) -> np.ndarray:
    """An independent oracle for `Y[index_vars] = rhs`: Python evaluates the right-hand side
    with numpy index grids (Python's // and % round as dmlc's do); indices loaded from an index
    tensor are normalized against the dimension they select (negative from the end, clamped)."""
    grids = np.indices(shape, dtype=np.int64)
    env: dict[str, object] = dict(zip(index_vars, grids))
    for name, a in arrays.items():
        t = _Tensor(name, a)
        t.index = name in index_tensors
        env[name] = t
    out = eval(rhs, {"__builtins__": {}}, env)
    return np.broadcast_to(out, tuple(shape)).copy()

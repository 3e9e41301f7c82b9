"""Independent numpy oracles for DML_SCATTER_ND and the scatter reductions (no dmlc code
involved): updates applied one at a time, in row-major order; a reduction is numpy's ufunc
called on each (current, update) pair of elements."""
from __future__ import annotations

import numpy as np

from reference import fix_index

UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def combine(reduction: str, current, update):
    """The value a reduction stores: the update itself, or numpy's ufunc on the two elements."""
    if reduction == "none":
        return update
    with np.errstate(all="ignore"):
        return UFUNCS[reduction](current, update)


def scatter(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int,
            reduction: str = "none") -> np.ndarray:
    """ScatterElements, element by element in row-major order of `updates`."""
    out = x.copy()
    signed = indices.dtype.kind == "i"
    for pos in np.ndindex(indices.shape):
        i = fix_index(indices[pos], x.shape[axis], signed)
        if i is not None:
            target = list(pos)
            target[axis] = i
            t = tuple(target)
            out[t] = combine(reduction, out[t], updates[pos])
    return out


def scatter_nd(x: np.ndarray, indices: np.ndarray, updates: np.ndarray,
               input_dims: int | None = None, reduction: str = "none") -> np.ndarray:
    """x: the input; indices: tuples along the last axis; updates: one row per tuple, of
    x's shape after the leading (x.ndim - input_dims) + k axes (leading 1s may pad or be
    dropped: only the element count per row matters). A tuple with a coordinate out of range
    (negative signed ones count from the end once) is dropped; the last tuple wins."""
    d = x.ndim
    first = d - (d if input_dims is None else input_dims)
    k = indices.shape[-1]
    out = x.copy()
    tuples = indices.reshape(-1, k)
    slice_shape = x.shape[first + k:]
    rows = updates.reshape(len(tuples), *slice_shape)
    signed = indices.dtype.kind == "i"
    for row, t in zip(rows, tuples.tolist()):
        fixed = [fix_index(v, x.shape[first + j], signed) for j, v in enumerate(t)]
        if any(v is None for v in fixed):
            continue
        at = (0,) * first + tuple(fixed)
        if reduction == "none":
            out[at] = row
            continue
        for s in np.ndindex(slice_shape):  # one element at a time
            out[at + s] = combine(reduction, out[at + s], row[s])
    return out

"""Independent numpy oracle for DML_SCATTER_ND (no dmlc code involved): updates applied one
index tuple at a time, in row-major order."""
from __future__ import annotations

import numpy as np

from reference import fix_index


def scatter_nd(x: np.ndarray, indices: np.ndarray, updates: np.ndarray,
               input_dims: int | None = None) -> np.ndarray:
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
        out[(0,) * first + tuple(fixed)] = row
    return out

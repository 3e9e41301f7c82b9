"""Independent numpy references for gather_nd, one_hot and reverse_subsequences
(docs/decisions.md: negative indices count from the end once; then clamped, or for one_hot
no class)."""
from __future__ import annotations

import numpy as np

from reference import clamp_index, fix_index


def gather_nd(x: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    b, k = batch_dims, indices.shape[-1]
    signed = indices.dtype.kind == "i"
    out = np.empty(indices.shape[:-1] + x.shape[b + k:], x.dtype)
    for pos in np.ndindex(*indices.shape[:-1]):
        coords = tuple(clamp_index(v, x.shape[b + j], signed)
                       for j, v in enumerate(indices[pos].tolist()))
        out[pos] = x[pos[:b] + coords]
    return out


def one_hot(indices: np.ndarray, values: np.ndarray, depth: int, axis: int) -> np.ndarray:
    axis %= indices.ndim + 1
    off, on = values.reshape(-1)
    out = np.full(indices.shape[:axis] + (depth,) + indices.shape[axis:], off, values.dtype)
    signed = indices.dtype.kind == "i"
    for pos in np.ndindex(*indices.shape):
        label = fix_index(indices[pos], depth, signed)
        if label is not None:
            out[pos[:axis] + (label,) + pos[axis:]] = on
    return out


def reverse_subsequences(x: np.ndarray, lengths: np.ndarray, axis: int) -> np.ndarray:
    """lengths: x's shape with 1 along axis."""
    n = x.shape[axis]
    moved, lens = np.moveaxis(x, axis, -1), np.moveaxis(lengths, axis, -1)
    out = moved.copy()
    signed = lengths.dtype.kind == "i"
    for pos in np.ndindex(*moved.shape[:-1]):
        length = clamp_index(lens[pos + (0,)], n + 1, signed)
        out[pos + (slice(0, length),)] = moved[pos + (slice(0, length),)][::-1]
    return np.moveaxis(out, -1, axis)

"""Bench cases of scatter_nd: whole rows replaced (a KV-cache or embedding update), unique and
colliding tuples."""
from __future__ import annotations

import functools

import numpy as np

from ..descriptors import ScatterNDDesc
from .common import BenchCase, bits, tensor


def _inputs(r: np.random.Generator, m: int, rows: int,
            unique: bool) -> tuple[np.ndarray, ...]:
    data = bits(r, (m, m), "float32")
    targets = r.permutation(m)[:rows] if unique else r.integers(0, 8, rows)
    return data, targets.astype(np.int32).reshape(rows, 1), bits(r, (rows, m), "float32")


def _numpy_rows(x: np.ndarray, i: np.ndarray, u: np.ndarray) -> np.ndarray:
    out = x.copy()
    for row, target in zip(u, i[:, 0]):  # in order: the last row wins
        out[target] = row
    return out


def scatter_nd_cases(q: int) -> list[BenchCase]:
    m = 2048 // q
    rows = m // 4
    desc = ScatterNDDesc(input=tensor("FLOAT32", (m, m)), indices=tensor("INT32", (rows, 1)),
                         updates=tensor("FLOAT32", (rows, m)), input_dimension_count=2,
                         indices_dimension_count=2)
    return [BenchCase(f"scatter_nd f32 [M,M] rows M/4 {label}", desc,
                      functools.partial(_inputs, m=m, rows=rows, unique=unique), _numpy_rows,
                      0.4)
            for label, unique in (("unique", True), ("colliding", False))]

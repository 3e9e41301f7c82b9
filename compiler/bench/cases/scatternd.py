"""Bench cases of scatter_nd (whole rows replaced: a KV-cache or embedding update, unique and
colliding tuples) and of the scatter reductions against no reduction: what determinism costs
(the reductions walk each line's updates in order and combine in integer-only soft float)."""
from __future__ import annotations

import functools

import numpy as np

from ...ops.scatter.desc import ScatterDesc, ScatterNDDesc
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


def _numpy_rows_add(x: np.ndarray, i: np.ndarray, u: np.ndarray) -> np.ndarray:
    out = x.copy()
    with np.errstate(all="ignore"):
        for row, target in zip(u, i[:, 0]):  # in order, one row at a time
            out[target] = out[target] + row
    return out


def _elements_inputs(r: np.random.Generator, m: int) -> tuple[np.ndarray, ...]:
    """Finite floats (a sum of random bits is mostly NaN); 8 rows of targets: collisions."""
    return (r.standard_normal((m, m)).astype(np.float32), r.integers(0, 8, (m, m)).astype(np.int32),
            r.standard_normal((m, m)).astype(np.float32))


def _numpy_elements(x: np.ndarray, i: np.ndarray, u: np.ndarray, add: bool) -> np.ndarray:
    out = x.copy()
    cols = np.arange(x.shape[1])
    for row in range(i.shape[0]):  # in order; one row's targets are in distinct columns
        t = i[row]
        out[t, cols] = out[t, cols] + u[row] if add else u[row]
    return out


def scatter_nd_cases(q: int) -> list[BenchCase]:
    m = 2048 // q
    rows = m // 4
    desc = ScatterNDDesc(input=tensor("FLOAT32", (m, m)), indices=tensor("INT32", (rows, 1)),
                         updates=tensor("FLOAT32", (rows, m)), input_dimension_count=2,
                         indices_dimension_count=2)
    cases = [BenchCase(f"scatter_nd f32 [M,M] rows M/4 {label}", desc,
                       functools.partial(_inputs, m=m, rows=rows, unique=unique), _numpy_rows,
                       0.4)
             for label, unique in (("unique", True), ("colliding", False))]
    cases.append(BenchCase("scatter_nd f32 [M,M] rows M/4 colliding reduction add",
                           ScatterNDDesc(input=desc.input, indices=desc.indices,
                                         updates=desc.updates, input_dimension_count=2,
                                         indices_dimension_count=2, reduction="add"),
                           functools.partial(_inputs, m=m, rows=rows, unique=False),
                           _numpy_rows_add, 0.1))
    for reduction in ("none", "add"):
        cases.append(BenchCase(
            f"scatter f32 [M,M] axis 0 colliding finite reduction {reduction}",
            ScatterDesc(input=tensor("FLOAT32", (m, m)), indices=tensor("INT32", (m, m)),
                        updates=tensor("FLOAT32", (m, m)), axis=0, reduction=reduction),
            functools.partial(_elements_inputs, m=m),
            functools.partial(_numpy_elements, add=reduction == "add"),
            0.4 if reduction == "none" else 0.1))
    return cases

"""Bench cases of the first four operators: gather, gather_elements, scatter, slice."""
from __future__ import annotations

import functools

import numpy as np

from ...ops.gather.desc import GatherDesc, GatherElementsDesc
from ...ops.scatter.desc import ScatterDesc
from ...ops.slice.desc import Slice1Desc
from .common import BenchCase, bits, tensor


def _row_gather_inputs(r: np.random.Generator, rows: int, width: int, dtype: str,
                       itype: str) -> tuple[np.ndarray, ...]:
    return bits(r, (rows, width), dtype), r.integers(0, rows, (1, rows)).astype(itype)


def _scatter_inputs(r: np.random.Generator, m: int, unique: bool) -> tuple[np.ndarray, ...]:
    """Unique targets (a permutation per column) or colliding ones (8 rows)."""
    data = bits(r, (m, m), "float32")  # draws in this order: the same bytes as before
    targets = np.argsort(r.random((m, m)), axis=0) if unique else r.integers(0, 8, (m, m))
    return data, targets.astype(np.int32), bits(r, (m, m), "float32")


def core_cases(q: int) -> list[BenchCase]:
    """The first four operators."""
    n, rows, width, m = 4096 // q, 65536 // q, 256, 2048 // q
    cases = [BenchCase(
        "slice f32 [N,N] rows::2, cols reversed",
        Slice1Desc(input=tensor("FLOAT32", (n, n)), offsets=(0, 0), sizes=(n, n), strides=(2, -1)),
        lambda r: (bits(r, (n, n), "float32"),), lambda x: x[::2, ::-1].copy(), 0.8)]
    for dtype, itype in (("float32", "int32"), ("float16", "int32"), ("int8", "int32"),
                         ("float32", "int64")):
        cases.append(BenchCase(
            f"gather rows {dtype} [{rows},{width}] {itype} idx",
            GatherDesc(input=tensor(dtype.upper(), (rows, width)),
                       indices=tensor(itype.upper(), (1, rows)), axis=0, index_dimensions=1),
            functools.partial(_row_gather_inputs, rows=rows, width=width, dtype=dtype,
                              itype=itype),
            lambda x, i: np.take(x, i[0], axis=0), 0.8))
    cases.append(BenchCase(
        "gather_elements f32 [M,M] axis 1",
        GatherElementsDesc(input=tensor("FLOAT32", (m, m)), indices=tensor("INT32", (m, m)),
                           axis=1),
        lambda r: (bits(r, (m, m), "float32"), r.integers(0, m, (m, m)).astype(np.int32)),
        lambda x, i: np.take_along_axis(x, i, axis=1), 0.5))
    for label, unique in (("unique", True), ("colliding", False)):
        cases.append(BenchCase(
            f"scatter f32 [M,M] axis 0 {label}",
            ScatterDesc(input=tensor("FLOAT32", (m, m)), indices=tensor("INT32", (m, m)),
                        updates=tensor("FLOAT32", (m, m)), axis=0),
            functools.partial(_scatter_inputs, m=m, unique=unique),
            _numpy_scatter, 0.4))
    cases.append(BenchCase(
        "slice of transposed f32 [N,N] rows::2",
        Slice1Desc(input=tensor("FLOAT32", (n, n), (1, n)), offsets=(0, 0), sizes=(n, n),
                   strides=(2, 1)),
        lambda r: (bits(r, n * n, "float32"),),
        lambda x: x.reshape(n, n).T[::2].copy(), 0.8))
    big, picked = 195 * 2**20 // (4 * 1024) // q, 8192 // q  # full size: 195 MiB, 2 bindings
    cases.append(BenchCase(
        f"gather rows f32 from a [{big},1024] table ({big * 4096 // 2**20} MiB: chunked "
        "bindings past maxStorageBufferRange)",
        GatherDesc(input=tensor("FLOAT32", (big, 1024)), indices=tensor("INT32", (1, picked)),
                   axis=0, index_dimensions=1),
        lambda r: (bits(r, (big, 1024), "float32"),
                   r.integers(0, big, (1, picked)).astype(np.int32)),
        lambda x, i: np.take(x, i[0], axis=0), 0.8))
    cases.append(BenchCase(
        "gather rows of transposed f32 [N,N]",
        GatherDesc(input=tensor("FLOAT32", (n, n), (1, n)), indices=tensor("INT32", (1, n)), axis=0,
                   index_dimensions=1),
        lambda r: (bits(r, n * n, "float32"), r.integers(0, n, (1, n)).astype(np.int32)),
        lambda x, i: np.take(x.reshape(n, n).T, i[0], axis=0), 0.8))
    return cases


def _numpy_scatter(x: np.ndarray, i: np.ndarray, u: np.ndarray) -> np.ndarray:
    out = x.copy()
    np.put_along_axis(out, i, u, axis=0)
    return out

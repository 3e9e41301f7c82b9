"""Bench cases of gather_nd and one_hot (gather-like: the gathers' 0.8)."""
from __future__ import annotations

import numpy as np

from ...ops.gather_nd.desc import GatherND1Desc
from ...ops.one_hot.desc import OneHotDesc
from .common import BenchCase, bits, tensor


def nd_cases(q: int) -> list[BenchCase]:
    rows, width, n = 65536 // q, 64, 16384 // q
    labels, classes = 65536 // q, 256 // (q if q > 1 else 1)
    return [
        BenchCase(f"gather_nd rows of f32 [{rows},{width}] by [{n},1]",
                  GatherND1Desc(input=tensor("FLOAT32", (rows, width)),
                                indices=tensor("INT32", (n, 1))),
                  lambda r: (bits(r, (rows, width), "float32"),
                             r.integers(0, rows, (n, 1)).astype(np.int32)),
                  lambda x, i: x[i[:, 0]], 0.8),
        BenchCase(f"one_hot f16 {labels} labels x {classes} classes",
                  OneHotDesc(indices=tensor("INT32", (labels, 1)),
                             values=tensor("FLOAT16", (1, 2)), axis=1,
                             output=tensor("FLOAT16", (labels, classes))),
                  lambda r: (r.integers(0, classes, (labels, 1)).astype(np.int32),
                             np.array([[0, 1]], np.float16)),
                  lambda i, v: np.where(np.arange(classes) == i, v[0, 1], v[0, 0]), 0.8),
    ]

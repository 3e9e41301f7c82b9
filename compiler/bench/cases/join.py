"""Bench cases of join and split: slice-like, so the target is the copy's 0.8."""
from __future__ import annotations

import numpy as np

from ...ops.join.desc import JoinDesc, SplitDesc
from .common import BenchCase, bits, tensor


def join_cases(q: int) -> list[BenchCase]:
    n = 4096 // q
    parts = (n // 4, n // 2, n // 4)
    return [
        BenchCase(f"join 3 f32 [N,*] axis 1 ({'+'.join(map(str, parts))})",
                  JoinDesc(inputs=tuple(tensor("FLOAT32", (n, p)) for p in parts), axis=1),
                  lambda r: tuple(bits(r, (n, p), "float32") for p in parts),
                  lambda *xs: np.concatenate(xs, axis=1), 0.8),
        BenchCase(f"split f32 [N,N] axis 1 into 3 ({'+'.join(map(str, parts))})",
                  SplitDesc(input=tensor("FLOAT32", (n, n)),
                            outputs=tuple(tensor("FLOAT32", (n, p)) for p in parts), axis=1),
                  lambda r: (bits(r, (n, n), "float32"),),
                  lambda x: np.concatenate([a.ravel() for a in
                                            np.split(x, np.cumsum(parts)[:-1], axis=1)]), 0.8),
    ]

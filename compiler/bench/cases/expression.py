"""Bench cases of tensor expressions (dmlc.expr): an ONNX Expand of a device tensor (a
broadcast, ops onnx/ops.py: broadcast_on_device) and a strided read of every other row, the
kind of statement a .dml file fuses (slice-like: 0.8 of the copy)."""
from __future__ import annotations

import numpy as np

from ...ops.expression import tree as E
from ...ops.expression.desc import ExpressionDesc
from .common import BenchCase, bits, tensor


def expression_cases(q: int) -> list[BenchCase]:
    n, batch, seq = 4096 // q, 16, 256 // q
    width = 1024 // q
    i, j, k = E.Var("i"), E.Var("j"), E.Var("k")
    expand = ExpressionDesc(name="Y", index_vars=("i", "j", "k"),
                            body=E.Load("X", (i, E.Const(0), k)),
                            tensors=(("X", tensor("FLOAT32", (batch, 1, width))),),
                            output=tensor("FLOAT32", (batch, seq, width)))
    odd_rows = ExpressionDesc(name="Y", index_vars=("i", "j"),
                              body=E.Load("X", (E.Add(E.Mul(i, 2), E.Const(1)), j)),
                              tensors=(("X", tensor("FLOAT32", (n, n))),))
    return [
        BenchCase(f"expression: Expand f32 [{batch},1,{width}] to [{batch},{seq},{width}]",
                  expand, lambda r: (bits(r, (batch, 1, width), "float32"),),
                  lambda x: np.ascontiguousarray(np.broadcast_to(x, (batch, seq, width))), 0.8),
        BenchCase(f"expression: Y[i, j] = X[2*i + 1, j] f32 [{n},{n}]",
                  odd_rows, lambda r: (bits(r, (n, n), "float32"),),
                  lambda x: np.ascontiguousarray(x[1::2]), 0.8),
    ]

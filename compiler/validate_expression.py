"""Validation of tensor expressions (ExpressionDesc): names, ranks, affine arithmetic, and ranges.

Errors name the expression, the tensor and subscript, and the bound: a subscript whose proven range
leaves its dimension is refused here, so no read can leave a buffer whatever the index values.
"""
from __future__ import annotations

import dataclasses

from . import expr as E
from .descriptors import ExpressionDesc
from .errors import ValidationError
from .lower.expression import infer_extents, out_of_range
from .validate import MAX_RANK, check_tensor, fmt, resolve_output


def _canonical(desc: ExpressionDesc, op: str) -> E.Load:
    """Check every node; turn index-tensor loads used as whole subscripts into IndexValues."""
    tensors = dict(desc.tensors)

    def subscript(tensor: str, k: int, s: E.Expr) -> E.Expr:
        if isinstance(s, E.Load):
            loaded = load(s)
            if not tensors[s.tensor].data_type.is_index:
                raise ValidationError(op, f"{tensor} subscript {k} ({E.render(s)})",
                                      "an index tensor (int32, uint32, int64 or uint64)",
                                      tensors[s.tensor].data_type.value)
            return E.IndexValue(loaded, tensors[tensor].sizes[k])
        if isinstance(s, E.IndexValue):
            return subscript(tensor, k, s.load)
        return arith(tensor, k, s)

    def arith(tensor: str, k: int, s: E.Expr) -> E.Expr:
        for n in E.walk(s):
            where = f"{tensor} subscript {k} ({E.render(s)})"
            if isinstance(n, (E.Load, E.IndexValue)):
                raise ValidationError(op, where, "index arithmetic, or a loaded index as the "
                                      "whole subscript", f"arithmetic on {E.render(n)}")
            if isinstance(n, E.Var) and n.name not in desc.index_vars:
                raise ValidationError(op, where, "indices of the left-hand side "
                                      f"{desc.name}[{', '.join(desc.index_vars)}]",
                                      f"unbound index {n.name!r}")
            if isinstance(n, (E.FloorDiv, E.Mod)) and n.divisor <= 0:
                raise ValidationError(op, where, "a positive constant divisor", n.divisor)
        return s

    def load(n: E.Load) -> E.Load:
        if not isinstance(n, E.Load):
            raise ValidationError(op, "body", "a tensor read such as X[i, j]", E.render(n))
        if n.tensor not in tensors:
            raise ValidationError(op, "tensor", "one of " + (", ".join(tensors) or "(none)"),
                                  repr(n.tensor), "declare it first: X: float32[3, 3]")
        rank = tensors[n.tensor].rank
        if len(n.subscripts) != rank:
            raise ValidationError(op, f"{n.tensor} subscripts", f"{rank} ({n.tensor} is "
                                  f"{fmt(tensors[n.tensor].sizes)})", len(n.subscripts))
        return E.Load(n.tensor, tuple(subscript(n.tensor, k, s)
                                      for k, s in enumerate(n.subscripts)))

    return load(desc.body)


def validate_expression(desc: ExpressionDesc) -> ExpressionDesc:
    op = f"expression {desc.name}"
    if not desc.name.isidentifier():
        raise ValidationError(op, "name", "an identifier", repr(desc.name))
    vars_ = desc.index_vars
    if not 1 <= len(vars_) <= MAX_RANK:
        raise ValidationError(op, "indices", f"1 to {MAX_RANK}", len(vars_))
    if len(set(vars_)) != len(vars_):
        raise ValidationError(op, "indices", "distinct names", ", ".join(vars_))
    for name, t in desc.tensors:
        check_tensor(op, name, t)
        if name == desc.name:
            raise ValidationError(op, "name", "a name no input has", repr(name))
    desc = dataclasses.replace(desc, body=_canonical(desc, op))
    if desc.output is not None:
        check_tensor(op, desc.name, desc.output, len(vars_))
        extents = dict(zip(vars_, desc.output.sizes))
    else:
        extents = infer_extents(desc, lambda v: ValidationError(
            op, f"extent of index {v}", f"a subscript that uses {v} alone", "none",
            f"declare the output's shape: {desc.name}: <type>[...]"))
    bad = out_of_range(desc, extents)
    if bad is not None:
        load, k, sub, (lo, hi) = bad
        size = desc.tensor(load.tensor).sizes[k]
        ranges = ", ".join(f"{v} in [0, {extents[v] - 1}]" for v in vars_ if v in E.variables(sub))
        raise ValidationError(op, f"{load.tensor} subscript {k} ({E.render(sub)})",
                              f"values in [0, {size - 1}] ({load.tensor} is "
                              f"{fmt(desc.tensor(load.tensor).sizes)})",
                              f"[{lo}, {hi}]" + (f" for {ranges}" if ranges else ""))
    dtype = desc.tensor(desc.body.tensor).data_type
    out = resolve_output(op, desc, tuple(extents[v] for v in vars_), dtype)
    return dataclasses.replace(desc, output=out)


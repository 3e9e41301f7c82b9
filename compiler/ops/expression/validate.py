"""Validation of tensor expressions (ExpressionDesc): names, ranks, affine arithmetic, and ranges.

Errors name the expression, the tensor and subscript, and the bound: a subscript whose proven range
leaves its dimension is refused here, so no read can leave a buffer whatever the index values.
"""
from __future__ import annotations

import dataclasses

from ...dtypes import DataType
from ...errors import ValidationError
from ...family.checks import MAX_RANK, check_tensor, fmt, resolve_output
from ...family.literal import literal_bits
from . import tree as E
from .desc import ExpressionDesc
from .ranges import infer_extents, out_of_range


def _canonical(desc: ExpressionDesc, op: str) -> E.Value:
    """Check every node; turn index-tensor loads used as whole subscripts into IndexValues."""
    tensors = dict(desc.tensors)

    def value(n: E.Expr) -> E.Value:
        if isinstance(n, E.Select):
            return E.Select(condition(n.cond), value(n.then), value(n.other))
        if isinstance(n, E.Literal):
            return n
        return load(n)  # type: ignore[arg-type]

    def condition(c: E.Expr) -> E.Compare | E.And:
        if isinstance(c, E.And):
            return E.And(condition(c.a), condition(c.b))
        if not isinstance(c, E.Compare) or c.op not in E.COMPARISONS:
            raise ValidationError(op, "condition", "comparisons of index arithmetic ("
                                  + " ".join(E.COMPARISONS) + "), joined by &&", E.render(c))
        if _reads(c.a) or _reads(c.b):  # compares loaded index values: computed in 64 bits
            where = f"condition ({E.render(c)})"
            return E.Compare(reading(where, c.a), c.op, reading(where, c.b))
        return E.Compare(arith("condition", 0, c.a), c.op, arith("condition", 1, c.b))

    def reading(where: str, s: E.Expr) -> E.Expr:
        """Integer arithmetic on index variables, constants and loaded index values."""
        if isinstance(s, E.Load):
            if not tensors.get(s.tensor, None) or not tensors[s.tensor].data_type.is_index:
                kind = tensors[s.tensor].data_type.value if s.tensor in tensors else "unknown"
                raise ValidationError(op, f"{where}: {E.render(s)}", "an index tensor (int32, "
                                      "uint32, int64 or uint64)", kind)
            return load(s)
        if isinstance(s, E.IndexValue):  # composed from an intermediate tensor: normalized
            return s
        if isinstance(s, E.Add):
            return E.Add(reading(where, s.a), reading(where, s.b))
        if isinstance(s, E.Mul):
            return E.Mul(reading(where, s.a), s.factor)
        if isinstance(s, (E.FloorDiv, E.Mod)):
            if s.divisor <= 0:
                raise ValidationError(op, where, "a positive constant divisor", s.divisor)
            return type(s)(reading(where, s.a), s.divisor)
        if isinstance(s, E.Var) and s.name not in desc.index_vars:
            raise ValidationError(op, where, "indices of the left-hand side "
                                  f"{desc.name}[{', '.join(desc.index_vars)}]",
                                  f"unbound index {s.name!r}")
        if not isinstance(s, (E.Var, E.Const)):
            raise ValidationError(op, where, "index arithmetic", E.render(s))
        return s

    def subscript(tensor: str, k: int, s: E.Expr) -> E.Expr:
        if isinstance(s, E.Load):
            loaded = load(s)
            if not tensors[s.tensor].data_type.is_index:
                raise ValidationError(op, f"{tensor} subscript {k} ({E.render(s)})",
                                      "an index tensor (int32, uint32, int64 or uint64)",
                                      tensors[s.tensor].data_type.value)
            return E.IndexValue(loaded, tensors[tensor].sizes[k])
        if isinstance(s, E.IndexValue):
            # Already normalized (composed from an intermediate tensor: lang/expressions.py):
            # it keeps that tensor's clamping, which must stay inside this dimension.
            inner = subscript(tensor, k, s.load)
            assert isinstance(inner, E.IndexValue)
            dim = tensors[tensor].sizes[k]
            if not 1 <= s.size <= dim:
                raise ValidationError(op, f"{tensor} subscript {k} ({E.render(s)})",
                                      f"an index normalized against at most {dim} elements "
                                      f"({tensor} is {fmt(tensors[tensor].sizes)})", s.size)
            return E.IndexValue(inner.load, s.size)
        if _reads(s):  # arithmetic on loaded indices: normalized like one
            return E.IndexValue(reading(f"{tensor} subscript {k} ({E.render(s)})", s),
                                tensors[tensor].sizes[k])
        return arith(tensor, k, s)

    def arith(tensor: str, k: int, s: E.Expr) -> E.Expr:
        for n in E.walk(s):
            where = (f"{tensor} subscript {k} ({E.render(s)})" if tensor != "condition" else
                     f"condition ({E.render(s)})")
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
            raise ValidationError(op, "body", "a tensor read such as X[i, j], a constant, or "
                                  "where(condition, read or constant, read or constant)",
                                  E.render(n))
        if n.tensor not in tensors:
            raise ValidationError(op, "tensor", "one of " + (", ".join(tensors) or "(none)"),
                                  repr(n.tensor), "declare it first: X: float32[3, 3]")
        rank = tensors[n.tensor].rank
        if len(n.subscripts) != rank:
            raise ValidationError(op, f"{n.tensor} subscripts", f"{rank} ({n.tensor} is "
                                  f"{fmt(tensors[n.tensor].sizes)})", len(n.subscripts))
        return E.Load(n.tensor, tuple(subscript(n.tensor, k, s)
                                      for k, s in enumerate(n.subscripts)))

    return value(desc.body)


def _reads(e: E.Expr) -> bool:
    """Whether index arithmetic `e` reads a tensor."""
    return any(isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(e))


def value_loads(e: E.Expr) -> list[E.Load]:
    """The reads a value chooses between (not the index reads inside their subscripts)."""
    if isinstance(e, E.Select):
        return value_loads(e.then) + value_loads(e.other)
    return [e] if isinstance(e, E.Load) else []


def _data_type(desc: ExpressionDesc, op: str) -> DataType:
    """The elements' type: the reads' (one type), else the declared output's."""
    types = {desc.tensor(n.tensor).data_type for n in value_loads(desc.body)}
    if len(types) > 1:
        raise ValidationError(op, "body", "reads of one data type", ", ".join(
            sorted(t.name for t in types)))
    if types:
        return types.pop()
    if desc.output is None:
        raise ValidationError(op, "output", "a declared type (the body reads no tensor)",
                              "none", f"declare it: {desc.name}: float32[...]")
    return desc.output.data_type


_FIELDS = {E.Const: (("value", int),), E.Var: (("name", str),), E.Add: (("a", None), ("b", None)),
           E.Mul: (("a", None), ("factor", int)), E.FloorDiv: (("a", None), ("divisor", int)),
           E.Mod: (("a", None), ("divisor", int)), E.Load: (("tensor", str), ("subscripts", tuple)),
           E.IndexValue: (("load", E.Load), ("size", int)),
           E.Compare: (("a", None), ("op", "op"), ("b", None)), E.And: (("a", None), ("b", None)),
           E.Literal: (("text", "text"),),
           E.Select: (("cond", None), ("then", None), ("other", None))}
# Constants stay far inside the shaders' 32-bit arithmetic (value ranges do the exact proof).
MAX_CONSTANT = 2**31 - 1


def check_tree(op: str, e: object, where: str = "body") -> None:
    """Every node of `e` is an expression node whose fields have the right types (the trees
    are plain data: a program may build them by hand)."""
    fields = _FIELDS.get(type(e))
    if fields is None:
        raise ValidationError(op, where, "an expression node (dmlc.expr)",
                              type(e).__name__)
    for name, kind in fields:
        value = getattr(e, name)
        if kind is None or kind is E.Load:
            check_tree(op, value, where)
        elif kind is tuple:
            if not isinstance(value, tuple):
                raise ValidationError(op, f"{where}: {name}", "a tuple", type(value).__name__)
            for s in value:
                check_tree(op, s, where)
        elif kind is int and (not isinstance(value, int) or isinstance(value, bool)
                              or abs(value) > MAX_CONSTANT):
            raise ValidationError(op, f"{where}: {type(e).__name__}.{name}",
                                  f"an integer in [-{MAX_CONSTANT}, {MAX_CONSTANT}]", repr(value))
        elif kind == "op" and value not in E.COMPARISONS:
            raise ValidationError(op, f"{where}: Compare.op", " ".join(E.COMPARISONS),
                                  repr(value))
        elif kind == "text" and not isinstance(value, str):
            raise ValidationError(op, f"{where}: Literal.text", "a number as text ('-0.0')",
                                  repr(value))
        elif kind is str and not (isinstance(value, str) and value.isidentifier()):
            raise ValidationError(op, f"{where}: {type(e).__name__}.{name}", "an identifier",
                                  repr(value))


def _check_names(desc: ExpressionDesc, op: str) -> None:
    if not isinstance(desc.name, str) or not desc.name.isidentifier():
        raise ValidationError(op, "name", "an identifier", repr(desc.name))
    vars_ = desc.index_vars
    if not 1 <= len(vars_) <= MAX_RANK:
        raise ValidationError(op, "indices", f"1 to {MAX_RANK}", len(vars_))
    for v in vars_:
        if not isinstance(v, str) or not v.isidentifier():
            raise ValidationError(op, "indices", "identifiers", repr(v))
    if len(set(vars_)) != len(vars_):
        raise ValidationError(op, "indices", "distinct names", ", ".join(vars_))
    names = []
    for entry in desc.tensors:
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)
                and entry[0].isidentifier()):
            raise ValidationError(op, "tensors", "(name, TensorDesc) pairs", repr(entry))
        names.append(entry[0])
        check_tensor(op, entry[0], entry[1])
        if entry[0] == desc.name:
            raise ValidationError(op, "name", "a name no input has", repr(entry[0]))
    if len(set(names)) != len(names):
        raise ValidationError(op, "tensors", "distinct names", ", ".join(names))
    check_tree(op, desc.body)


def validate_expression(desc: ExpressionDesc) -> ExpressionDesc:
    op = f"expression {desc.name}"
    _check_names(desc, op)
    vars_ = desc.index_vars
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
        load, k, sub, (lo, hi), known = bad
        size = desc.tensor(load.tensor).sizes[k]
        ranges = ", ".join(f"{v} in [{known[v][0]}, {known[v][1]}]" for v in vars_
                           if v in E.variables(sub))
        raise ValidationError(op, f"{load.tensor} subscript {k} ({E.render(sub)})",
                              f"values in [0, {size - 1}] ({load.tensor} is "
                              f"{fmt(desc.tensor(load.tensor).sizes)})",
                              f"[{lo}, {hi}]" + (f" for {ranges}" if ranges else ""))
    dtype = _data_type(desc, op)
    for n in E.walk(desc.body):
        if isinstance(n, E.Literal):
            literal_bits(op, n.text, dtype)
    out = resolve_output(op, desc, tuple(extents[v] for v in vars_), dtype)
    return dataclasses.replace(desc, output=out)


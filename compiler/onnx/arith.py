"""ONNX's elementwise integer nodes on tensor data: index arithmetic, fused into the kernel that
reads it (family/computed.py).

Exporters turn data movement into integer arithmetic on indices: `Mod(idx, n)` before a
GatherElements, `i * stride + j` into a flat Gather, `Add(idx, Range(...))` into ScatterND
indices, `Cast(Equal(Unsqueeze(idx, -1), Range(0, depth)))` for one-hot. Such a node makes no
kernel: its result is a Computed (oneshot/computed.py) over its operands, and the gather or
scatter that takes it as indices evaluates it per element, in its own kernel; anything else
that reads it (a graph output, a Concat...) computes it by one kernel of its own. Constants
enter as constants: a scalar as its value, a host range (Range's output, an arange
initializer) as its start plus the element's coordinate times its step, no buffer at all.

The semantics are ONNX's, exactly, in the operands' type: + - * wrap, Div truncates, Mod
follows the divisor's sign (fmod=1: the dividend's), comparisons are bools, Cast between
integers wraps and a bool casts to 0 or 1 of any type. Arithmetic on floating-point data is
refused: dmlc moves data, it does not compute on it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..family import computed as C
from ..oneshot.computed import Computed, combine
from ..ops.copy.api import materialize
from .ops import OnnxNode
from .values import Value, device_data

_BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "truncdiv", "Min": "min",
           "Max": "max"}
_COMPARE = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}
_LOGIC = {"Not", "And", "Or", "Xor"}
ARITH_OPS = {*_BINARY, "Mod", "Neg", "Abs", *_COMPARE, *_LOGIC, "Where", "Cast"}
"""The elementwise nodes that take tensor data as index arithmetic."""

ONNX_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
              7: "int64", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64"}
"""TensorProto element types a Cast may name (others, bfloat16 and the float8s, are not
numbers dmlc computes with)."""


def _kind(dtype: np.dtype) -> str:
    return "bool" if dtype.kind == "b" else ("int" if dtype.kind in "iu" else "float")


def _progression(a: np.ndarray, shape: tuple[int, ...]) -> C.Expr | None:
    """An integer host array broadcast to `shape` that changes along one axis only, by a
    constant step (Range's output), as start + coordinate * step; else None."""
    lead = len(shape) - a.ndim
    axes = [k for k, d in enumerate(a.shape) if d > 1]
    if a.dtype.kind not in "iu" or len(axes) != 1 or lead < 0:
        return None
    line = [int(x) for x in a.reshape(-1)]
    step = line[1] - line[0]
    if any(y - x != step for x, y in zip(line, line[1:])):
        return None
    t = a.dtype.name
    coord: C.Expr = C.Coord(axes[0] + lead)
    coord = coord if t == "int64" else C.Cast(coord, t)
    if step != 1:
        coord = C.Arith("mul", coord, _const(step, a.dtype))
    return coord if line[0] == 0 else C.Arith("add", _const(line[0], a.dtype), coord)


def _const(value: Any, dtype: np.dtype) -> C.Const:
    """A constant element of `dtype` (numpy's), by its bits."""
    if dtype.kind == "b":
        return C.Const(C.BOOL, int(bool(value)))
    a = np.array(value).astype(dtype)
    return C.Const(dtype.name, int(a.view(f"u{dtype.itemsize}")))


def term(v: Value, shape: tuple[int, ...]) -> Any:
    """An operand as combine() takes it: a constant or a host range as an expression, a
    computed value as it is, tensor data as an input (a bool tensor's bytes read as bools)."""
    if v.on_host and v.data.size == 1:
        return _const(v.data.reshape(-1)[0], v.logical)
    if v.on_host:
        found = _progression(v.data, shape)
        if found is not None:
            return found
    if isinstance(v.data, Computed):
        return v.data
    data = device_data(v)
    if v.logical.kind == "b":  # moved as uint8: true is any byte but 0
        return Computed(C.Logic("not", C.Compare("eq", C.Input(0), C.Const("uint8", 0))),
                        [data], data.shape)
    return data


def _operands(n: OnnxNode, ins: list[Value], want: str) -> None:
    """The operands' types: all `want` ("int": integers of one type, "bool")."""
    kinds = {_kind(v.logical) for v in ins}
    types = {v.logical for v in ins}
    if kinds == {"float"} or "float" in kinds:
        raise n.error("inputs", "integer index arithmetic, or constants and shapes (dmlc "
                      "moves data; it does not compute on floating-point data)",
                      f"{', '.join(sorted(t.name for t in types))} tensor data")
    if kinds != {want} or (want == "int" and len(types) > 1):
        raise n.error("inputs", f"{'integers of one type' if want == 'int' else 'bools'}",
                      ", ".join(sorted(t.name for t in types)))


def _fold(kind: str, exprs: list[C.Expr]) -> C.Expr:
    out = exprs[0]
    for e in exprs[1:]:
        out = C.Arith(kind, out, e)
    return out


def _cast(n: OnnxNode, x: Value, to: str, e: C.Expr) -> C.Expr:
    src = x.logical
    if to == "bool":
        zero = _const(0, src)
        return C.Logic("not", C.Compare("eq", e, zero)) if src.kind != "b" else e
    if _kind(np.dtype(to)) == "float":
        bool_of = _bool_source(e)
        if bool_of is not None:  # Cast(Cast(Equal(...), int64), float): 0 or 1 either way
            return C.Cast(bool_of, to)
        raise n.error("to", "an integer type, or a float from a bool (dmlc moves data: it "
                      "does not convert numbers)", f"{src.name} to {to}")
    return C.Cast(e, to)


def _bool_source(e: C.Expr) -> C.Expr | None:
    """The bool an expression holds as 0 or 1 (a Cast of one), else None."""
    if isinstance(e, (C.Compare, C.Logic)):
        return e
    if isinstance(e, C.Cast) and isinstance(e.a, (C.Compare, C.Logic, C.Cast)):
        return _bool_source(e.a)
    return None


def convert(n: OnnxNode, ins: list[Value | None]) -> list[Value]:
    """An elementwise integer node whose operands include tensor data: one Computed value."""
    present = [v for v in ins if v is not None]
    try:
        shape = tuple(np.broadcast_shapes(*(v.shape for v in present)))
    except ValueError:
        raise n.error("inputs", "shapes that broadcast", [v.shape for v in present]) from None
    op = n.op_type
    build: Callable[..., C.Expr]
    out_type: np.dtype
    if op in _BINARY or op == "Mod":
        _operands(n, present, "int")
        kind = _BINARY.get(op) or ("truncmod" if n.attrs.get("fmod", 0) else "floormod")
        build, out_type = (lambda *es: _fold(kind, list(es))), present[0].logical
    elif op in ("Neg", "Abs"):
        _operands(n, present, "int")
        zero = _const(0, present[0].logical)
        if op == "Neg":
            build = lambda a: C.Arith("sub", zero, a)  # noqa: E731
        else:
            build = lambda a: C.Select(C.Compare("lt", a, zero),  # noqa: E731
                                       C.Arith("sub", zero, a), a)
        out_type = present[0].logical
    elif op in _COMPARE:
        if {v.logical.kind for v in present} == {"b"}:  # bools compare as their bytes
            present = [_as_uint8(v) for v in present]
        _operands(n, present, "int")
        lt: dict[str, Callable[..., C.Expr]] = {"Less": lambda a, b: C.Compare("lt", a, b),
              "Greater": lambda a, b: C.Compare("lt", b, a),
              "LessOrEqual": lambda a, b: C.Logic("not", C.Compare("lt", b, a)),
              "GreaterOrEqual": lambda a, b: C.Logic("not", C.Compare("lt", a, b)),
              "Equal": lambda a, b: C.Compare("eq", a, b)}
        build, out_type = lt[op], np.dtype(bool)
    elif op in _LOGIC:
        _operands(n, present, "bool")
        logic: dict[str, Callable[..., C.Expr]] = {
            "Not": lambda a: C.Logic("not", a), "And": lambda a, b: C.Logic("and", a, b),
            "Or": lambda a, b: C.Logic("or", a, b),
            "Xor": lambda a, b: C.Logic("or", C.Logic("and", a, C.Logic("not", b)),
                                        C.Logic("and", C.Logic("not", a), b))}
        build, out_type = logic[op], np.dtype(bool)
    elif op == "Where":
        cond, a, b = present
        if cond.logical.kind != "b":
            raise n.error("condition", "bools", cond.logical.name)
        _operands(n, [a, b], "int" if a.logical.kind != "b" else "bool")
        build, out_type = (lambda c, x, y: C.Select(c, x, y)), a.logical
    else:  # Cast
        to = ONNX_TYPES.get(int(n.attrs.get("to", 0)))
        x = present[0]
        if to == x.logical.name:  # to its own type: the same elements
            return [x]
        if to is None or (x.logical.kind not in "iub"):
            raise n.error("to" if to is None else "input", "a cast of integers or bools (dmlc "
                          "moves data: it does not convert numbers)",
                          f"{x.logical.name} to {to or n.attrs.get('to')}")
        build, out_type = (lambda e: _cast(n, x, to, e)), np.dtype(to)
    terms = [term(v, shape) for v in present]
    value = combine(build, terms, shape)
    if value is None:  # a computed operand read through a view it cannot take: compute it
        terms = [materialize(t) if isinstance(t, Computed) else t for t in terms]
        value = combine(build, terms, shape)
    assert value is not None
    if math.prod(shape) == 0:
        return [Value(np.empty(shape, out_type), out_type)]
    return [Value(value, out_type)]


def _as_uint8(v: Value) -> Value:
    """A bool value read as its bytes (0 or 1), for comparisons."""
    if v.on_host:
        return Value(v.data.astype(np.uint8), np.dtype(np.uint8))
    return Value(combine(lambda e: C.Cast(e, "uint8"), [term(v, v.shape)], v.shape),
                 np.dtype(np.uint8))

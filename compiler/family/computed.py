"""Operands computed element by element: index arithmetic on loaded values, fused into the
kernel that reads the operand.

ONNX exporters write data movement as integer arithmetic on indices: `GatherElements(x,
Mod(idx, n))`, `Gather(flat, i * stride + j)`, ScatterND over `Add(idx, Range(...))`, one-hot as
`Cast(Equal(idx, Range(0, depth)))`. A ComputedTensor describes such an operand: a TensorDesc
(packed, of its sizes and element type) whose elements are an expression over other tensors
(its `inputs`, broadcast numpy-style), the element's coordinates and constants. A descriptor
takes it wherever it takes a tensor. Its elements are never stored: once the descriptor is
lowered, the compile driver replaces every load of that operand (`substitute_computed`) with
the expression at the element's coordinates. One kernel, no intermediate index tensor, and the
consumer's own rules (clamp, drop, checked mode) apply to the computed values as to loaded ones.

Integer arithmetic has ONNX's and numpy's exact semantics in the element type: it wraps modulo
2^bits, `floordiv`/`floormod` round towards -inf (ONNX Mod), `truncdiv`/`truncmod` towards 0
(ONNX Div, Mod with fmod=1), and a zero divisor gives 0 (numpy's rule; ONNX leaves it undefined).
A bool (a comparison) becomes 0 or 1 of any element type, floats included; nothing else
converts to or from a float: that would compute on data.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..errors import ValidationError
from ..ir import Buffer, Program
from ..ir import build as b
from ..ir.algebra import NO_RULES
from ..ir.ops import Node, Op, VType, toposort
from ..ir.rewrite import substitute
from .lowering import address, tensor_buffer, unflatten
from .tensor import TensorDesc

BOOL = "bool"
"""A comparison's type (DirectML has no bool element)."""


@dataclass(frozen=True)
class Input:
    """An element of input k, broadcast to the computed shape by numpy's rules (right-aligned;
    a dimension of size 1 repeats)."""

    k: int


@dataclass(frozen=True)
class Coord:
    """The element's coordinate along `axis`, as an int64 (what Range(0, n) along it holds)."""

    axis: int


@dataclass(frozen=True)
class Const:
    """A constant element of `dtype` (a DataType's value, or "bool"), by its raw bits."""

    dtype: str
    bits: int


@dataclass(frozen=True)
class Arith:
    """a `kind` b, integers of one type (ir/build.py's ARITH_KINDS)."""

    kind: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Compare:
    """a < b ("lt") or a == b ("eq") of integers of one type: a bool."""

    kind: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Logic:
    """Bools: "and", "or", or "not" (of a; b unused, None)."""

    kind: str
    a: Expr
    b: Expr | None = None


@dataclass(frozen=True)
class Cast:
    """a as `dtype` (a DataType's value): integers wrap as numpy's astype; a bool is 0 or 1."""

    a: Expr
    dtype: str


@dataclass(frozen=True)
class Select:
    """b if cond else c, per element (ONNX Where)."""

    cond: Expr
    a: Expr
    b: Expr


Expr = Input | Coord | Const | Arith | Compare | Logic | Cast | Select


@dataclass(frozen=True, kw_only=True)
class ComputedTensor(TensorDesc):
    """A tensor whose elements are `value`, computed where a kernel reads them. Its TensorDesc
    fields describe it as packed (sizes: `shape`, or a reshape of it: the same elements in the
    same row-major order)."""

    value: Expr = Const(BOOL, 0)
    inputs: tuple[TensorDesc, ...] = ()
    """The tensors the value reads (Input k: inputs[k]): any layout, broadcast to `shape`."""
    shape: tuple[int, ...] = ()
    """The shape the expression is computed over (Coord axes; inputs broadcast to it)."""


def type_of(e: Expr, inputs: tuple[TensorDesc, ...]) -> str:
    """The element type of `e`: a DataType's value, or "bool"."""
    if isinstance(e, Input):
        return inputs[e.k].data_type.value
    if isinstance(e, Coord):
        return DataType.INT64.value
    if isinstance(e, Const):
        return e.dtype
    if isinstance(e, Arith):
        return type_of(e.a, inputs)
    if isinstance(e, (Compare, Logic)):
        return BOOL
    if isinstance(e, Cast):
        return e.dtype
    return type_of(e.a, inputs)


def _children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Arith, Compare)):
        return (e.a, e.b)
    if isinstance(e, Logic):
        return (e.a,) if e.b is None else (e.a, e.b)
    if isinstance(e, Cast):
        return (e.a,)
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    return ()


def walk(e: Expr) -> list[Expr]:
    """Every node of e, parents first."""
    out, stack = [], [e]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(_children(n)))
    return out


def rebuild(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """e rebuilt bottom-up; where fn returns a node for a (rebuilt) node, it replaces it."""
    if isinstance(e, (Arith, Compare)):
        e = type(e)(e.kind, rebuild(e.a, fn), rebuild(e.b, fn))
    elif isinstance(e, Logic):
        e = Logic(e.kind, rebuild(e.a, fn), None if e.b is None else rebuild(e.b, fn))
    elif isinstance(e, Cast):
        e = Cast(rebuild(e.a, fn), e.dtype)
    elif isinstance(e, Select):
        e = Select(rebuild(e.cond, fn), rebuild(e.a, fn), rebuild(e.b, fn))
    out = fn(e)
    return e if out is None else out


def _integer(t: str) -> bool:
    return t != BOOL and np.dtype(t).kind in "iu"


def check_computed(op: str, field: str, t: ComputedTensor) -> None:
    """Every rule a computed operand keeps, each broken one a ValidationError naming it."""
    def fail(what: str, expected: str, actual: object) -> ValidationError:
        return ValidationError(op, f"{field} ({what})", expected, actual)
    rank = len(t.shape)
    if t.strides is not None or t.offset or int(np.prod(t.shape)) != t.element_count:
        raise fail("layout", f"packed, {int(np.prod(t.shape))} elements", t.sizes)
    for k, inp in enumerate(t.inputs):
        aligned = t.shape[rank - inp.rank:] if inp.rank <= rank else None
        if aligned is None or any(s not in (1, d) for s, d in zip(inp.sizes, aligned)):
            raise fail(f"input {k}", f"sizes that broadcast to {t.shape}", inp.sizes)
    for n in walk(t.value):
        kinds = {Arith: b.ARITH_KINDS, Compare: ("lt", "eq"), Logic: ("and", "or", "not")}
        if type(n) in kinds and n.kind not in kinds[type(n)]:  # type: ignore[union-attr]
            raise fail(type(n).__name__, " ".join(kinds[type(n)]), n.kind)  # type: ignore
        if isinstance(n, Input) and not 0 <= n.k < len(t.inputs):
            raise fail("input", f"an input in [0, {len(t.inputs)})", n.k)
        if isinstance(n, Coord) and not 0 <= n.axis < rank:
            raise fail("coordinate", f"an axis in [0, {rank})", n.axis)
        types = [type_of(c, t.inputs) for c in _children(n)]
        if isinstance(n, (Arith, Compare)) and not (_integer(types[0]) and types[0] == types[1]):
            raise fail(type(n).__name__.lower(), "integers of one type", " and ".join(types))
        if isinstance(n, Logic) and any(x != BOOL for x in types):
            raise fail("logic", "bools", " and ".join(types))
        if isinstance(n, Select) and (types[0] != BOOL or types[1] != types[2]):
            raise fail("where", "a bool condition and two values of one type", types)
        if isinstance(n, Cast) and not (types[0] == BOOL or _integer(types[0])
                                        and _integer(n.dtype)):
            raise fail("cast", "integers to integers, or a bool to any type (dmlc moves "
                       "data: it does not convert numbers)", f"{types[0]} to {n.dtype}")
    if type_of(t.value, t.inputs) != t.data_type.value:
        raise fail("type", type_of(t.value, t.inputs), t.data_type.value)


def _one(dtype: DataType) -> int:
    """The raw bits of 1 in `dtype`."""
    return int(np.array(1, dtype.numpy).view(dtype.bits_dtype))


def emit(t: ComputedTensor, flat: Node, buffers: list[Buffer]) -> Node:
    """The IR of t's element number `flat` (row-major in its shape), reading input k from
    buffers[k]. An input laid out as the shape's trailing dimensions, packed (the index tensor
    itself, most often), is read at `flat` itself (modulo its size): no coordinates made and
    folded back."""
    rank = len(t.shape)
    coords = unflatten(flat, t.shape)

    def go(e: Expr) -> Node:
        if isinstance(e, Input):
            inp = t.inputs[e.k]
            if inp.is_packed and inp.sizes == t.shape[rank - inp.rank:]:
                at = flat if inp.rank == rank else b.floormod(flat, inp.element_count)
                return b.load(buffers[e.k], at)
            here = [c if s > 1 else b.const(0)
                    for c, s in zip(coords[rank - inp.rank:], inp.sizes)]
            return b.load(buffers[e.k], address(here, inp))
        if isinstance(e, Coord):
            return b.convert(coords[e.axis], DataType.INT64)
        if isinstance(e, Const):
            return (b.const_bool(bool(e.bits)) if e.dtype == BOOL
                    else b.const_data(DataType.of(e.dtype), e.bits))
        if isinstance(e, Arith):
            return b.arith(e.kind, go(e.a), go(e.b))
        if isinstance(e, Compare):
            return b.compare(e.kind, go(e.a), go(e.b))
        if isinstance(e, Logic):
            a = go(e.a)
            if e.kind == "not":
                return b.where(a, b.const_bool(False), b.const_bool(True))
            other = go(e.b)  # type: ignore[arg-type]
            return b.logical_and(a, other) if e.kind == "and" else b.where(
                a, b.const_bool(True), other)
        if isinstance(e, Cast):
            to, a = DataType.of(e.dtype), go(e.a)
            if a.dtype is VType.BOOL:
                return b.where(a, b.const_data(to, _one(to)), b.const_data(to, 0))
            return b.convert(a, to)
        return b.where(go(e.cond), go(e.a), go(e.b))
    return go(t.value)


def computed_fields(desc: Any) -> list[tuple[str, ComputedTensor]]:
    """(keyword, tensor) of each of a descriptor's operands that is computed."""
    cls: type = type(desc)
    return [(name, v) for name in _field_names(cls)
            if isinstance(v := getattr(desc, name), ComputedTensor)]


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A dataclass's field names (dataclasses.fields costs microseconds at every ask)."""
    return tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) \
        else ()


def input_name(keyword: str, k: int) -> str:
    """The program input that holds input k of the operand `keyword` computes from."""
    return f"{keyword}_in{k}"


def computed_argument(desc: object, name: str) -> TensorDesc | None:
    """The tensor behind program input `name` when it is an input of a computed operand."""
    for keyword, t in computed_fields(desc):
        for k, inp in enumerate(t.inputs):
            if name == input_name(keyword, k):
                return inp
    return None


def _element_or_vector(load: Node, t: ComputedTensor, buffers: list[Buffer]) -> Node:
    """What a LOAD (one element) or VLOAD (a vector's elements, lane 0 first) of t reads."""
    if load.op is Op.LOAD:
        return emit(t, load.src[0], buffers)
    lanes = b.vector_width(t.data_type)
    return b.vpack_lanes([emit(t, b.add(load.src[0], j), buffers) for j in range(lanes)])


def substitute_computed(p: Program, desc: object) -> Program:
    """`p` with each computed operand's loads replaced by its value at their coordinates, and
    its buffer by the buffers of its inputs (program inputs in its place, in order)."""
    for keyword, t in computed_fields(desc):
        buffers = [tensor_buffer(input_name(keyword, k), inp, "input")
                   for k, inp in enumerate(t.inputs)]
        kernels = []
        for k in p.kernels:
            mapping = {n: _element_or_vector(n, t, buffers) for n in toposort(list(k.effects))
                       if n.op in (Op.LOAD, Op.VLOAD) and n.buffer == keyword}
            effects = substitute(list(k.effects), mapping, NO_RULES) if mapping else k.effects
            kernels.append(dataclasses.replace(k, effects=tuple(effects)))
        inputs = [n for name in p.inputs for n in (
            [x.name for x in buffers] if name == keyword else [name])]
        p = dataclasses.replace(
            p, buffers=tuple(n for x in p.buffers for n in (
                buffers if x.name == keyword else [x])),
            kernels=tuple(kernels), inputs=tuple(inputs))
    return p



def evaluate(value: Expr, shape: tuple[int, ...], arrays: list[np.ndarray]) -> np.ndarray:
    """The elements of `value` over `shape` on the host (numpy), from its inputs' elements:
    what shape arithmetic that reads them needs (ONNX's host nodes)."""
    from ..ir.interp import arith_bits  # the IR's own meaning of ARITH, on raw bits
    rank = len(shape)

    def go(e: Expr) -> np.ndarray:
        if isinstance(e, Input):
            a = np.asarray(arrays[e.k])
            return a.reshape((1,) * (rank - a.ndim) + a.shape)
        if isinstance(e, Coord):
            return np.arange(shape[e.axis], dtype=np.int64).reshape(
                [-1 if k == e.axis else 1 for k in range(rank)])
        if isinstance(e, Const):
            return np.array(bool(e.bits)) if e.dtype == BOOL else np.array(
                e.bits, DataType.of(e.dtype).bits_dtype).view(DataType.of(e.dtype).numpy)
        if isinstance(e, Arith):
            x, y = np.broadcast_arrays(go(e.a), go(e.b))
            dtype = DataType.of(x.dtype)
            return arith_bits(e.kind, dtype, x.view(dtype.bits_dtype),
                              y.view(dtype.bits_dtype)).view(dtype.numpy)
        if isinstance(e, Compare):
            return np.less(go(e.a), go(e.b)) if e.kind == "lt" else np.equal(go(e.a), go(e.b))
        if isinstance(e, Logic):
            if e.kind == "not":
                return np.logical_not(go(e.a))
            fn = np.logical_and if e.kind == "and" else np.logical_or
            return fn(go(e.a), go(e.b))  # type: ignore[arg-type]
        if isinstance(e, Cast):
            return go(e.a).astype(DataType.of(e.dtype).numpy)
        return np.where(go(e.cond), go(e.a), go(e.b))
    with np.errstate(all="ignore"):
        return np.ascontiguousarray(np.broadcast_to(go(value), shape))

"""Smart constructors for IR nodes: the only way lowering builds IR.

Each constructor folds what value ranges decide on the spot (x + 0, x * 1, x // d and x % d
where 0 <= x < d, min/max/compare where the ranges do not overlap, constants), so lowered IR is
already free of trivial arithmetic. Deeper rewriting belongs to the passes.
"""
from __future__ import annotations

import math

from typing import Optional, Union

from ..dtypes import DataType
from .kernel import Buffer
from .ops import Node, Op, VType

IntLike = Union[Node, int]


def const(value: int) -> Node:
    return Node(Op.CONST, VType.INT, (), int(value))


def const_bool(value: bool) -> Node:
    return Node(Op.CONST, VType.BOOL, (), bool(value))


def const_data(dtype: DataType, raw_bits: int) -> Node:
    """A tensor element given by its raw bits (e.g. UINT32 0 to reset a scratch word)."""
    return Node(Op.CONST, dtype, (), int(raw_bits))


def var(name: str, lo: int, hi: int) -> Node:
    return Node(Op.VAR, VType.INT, (), (name, int(lo), int(hi)))


def item_id(items: int) -> Node:
    """The invocation's item id, in [0, items)."""
    return var("gid", 0, items - 1)


def _int(x: IntLike) -> Node:
    if isinstance(x, Node):
        if x.dtype is not VType.INT:
            raise TypeError(f"expected an INT node, got {x.dtype}")
        return x
    return const(x)


def _fixed(n: Node) -> Optional[int]:
    """The node's value when its range is a single point."""
    return n.vmin if n.vmin == n.vmax else None


def _const_tail(n: Node) -> Optional[tuple[Node, int]]:
    """(x, c) when n is x + c with a constant c (canonical sums keep constants outermost)."""
    if n.op is Op.ADD and n.src[1].is_const:
        return n.src[0], int(n.src[1].arg)  # type: ignore[call-overload]
    return None


def add(a: IntLike, b: IntLike) -> Node:
    a, b = _int(a), _int(b)
    if a.is_const and b.is_const:
        return const(a.arg + b.arg)  # type: ignore[operator]
    if a.is_const:
        a, b = b, a  # constants on the right
    if b.is_const and b.arg == 0:
        return a  # x + 0 -> x
    ta, tb = _const_tail(a), _const_tail(b)
    if b.is_const and ta:
        return add(ta[0], ta[1] + b.arg)  # (x + c1) + c2 -> x + (c1 + c2)
    if tb:
        return add(add(a, tb[0]), tb[1])  # a + (y + c) -> (a + y) + c
    if ta and not b.is_const:
        return add(add(ta[0], b), ta[1])  # (x + c) + b -> (x + b) + c
    for x, y in ((a, b), (b, a)):
        if (x.op is Op.MUL and x.src[0].op is Op.FLOORDIV and y.op is Op.FLOORMOD
                and x.src[0].src[0] is y.src[0] and x.src[1].is_const
                and x.src[1].arg == x.src[0].src[1].arg == y.src[1].arg):
            return y.src[0]  # (x // d) * d + x % d -> x
    return Node(Op.ADD, VType.INT, (a, b))


def mul(a: IntLike, b: IntLike) -> Node:
    a, b = _int(a), _int(b)
    if a.is_const and b.is_const:
        return const(a.arg * b.arg)  # type: ignore[operator]
    if a.is_const:
        a, b = b, a
    if b.is_const and b.arg == 0:
        return const(0)  # x * 0 -> 0
    if b.is_const and b.arg == 1:
        return a  # x * 1 -> x
    if _fixed(a) == 0:
        return const(0)
    if b.is_const:
        ta = _const_tail(a)
        if ta:
            return add(mul(ta[0], b), ta[1] * b.arg)  # (x + c) * k -> x * k + c * k
        if a.op is Op.MUL and a.src[1].is_const:
            return mul(a.src[0], a.src[1].arg * b.arg)  # (x * c1) * c2 -> x * (c1 * c2)
    return Node(Op.MUL, VType.INT, (a, b))


def sub(a: IntLike, b: IntLike) -> Node:
    return add(a, mul(b, -1))


def _multiple_of(n: Node, d: int) -> bool:
    return n.divisor % d == 0


def floordiv(a: IntLike, d: int) -> Node:
    a = _int(a)
    if d <= 0:
        raise ValueError("floordiv by a positive constant only")
    if d == 1:
        return a  # x // 1 -> x
    if a.is_const:
        return const(a.arg // d)  # type: ignore[operator]
    if a.vmin // d == a.vmax // d:
        return const(a.vmin // d)  # the whole range falls in one quotient
    if a.op is Op.FLOORDIV:
        return floordiv(a.src[0], a.src[1].arg * d)  # (x // c1) // c2 -> x // (c1 * c2)
    if a.op is Op.MUL and a.src[1].is_const and a.src[1].arg > 0:
        c = a.src[1].arg
        if c % d == 0:
            return mul(a.src[0], c // d)  # (x * c) // d -> x * (c / d)  when d | c
        if d % c == 0:
            return floordiv(a.src[0], d // c)  # (x * c) // d -> x // (d / c)  when c | d
    if a.op is Op.ADD:
        p, q = a.src
        for x, y in ((p, q), (q, p)):
            if _multiple_of(x, d):
                return add(floordiv(x, d), floordiv(y, d))  # (d*k + y) // d -> k + y // d
        t = _const_tail(a)
        if t and 0 <= t[1] < math.gcd(t[0].divisor, d):
            return floordiv(t[0], d)  # (x + c) // d -> x // d  when m | x, m | d, 0 <= c < m
    return Node(Op.FLOORDIV, VType.INT, (a, const(d)))


def floormod(a: IntLike, d: int) -> Node:
    a = _int(a)
    if d <= 0:
        raise ValueError("floormod by a positive constant only")
    if d == 1:
        return const(0)  # x % 1 -> 0
    if a.is_const:
        return const(a.arg % d)  # type: ignore[operator]
    if 0 <= a.vmin and a.vmax < d:
        return a  # x % d -> x  when 0 <= x < d
    if _multiple_of(a, d):
        return const(0)  # (d * k) % d -> 0
    if a.op is Op.FLOORMOD and a.src[1].arg % d == 0:
        return floormod(a.src[0], d)  # (x % e) % d -> x % d  when d | e
    if a.op is Op.MUL and a.src[1].is_const and a.src[1].arg > 0 and d % a.src[1].arg == 0:
        c = a.src[1].arg
        return mul(floormod(a.src[0], d // c), c)  # (x * c) % d -> (x % (d / c)) * c  when c | d
    if a.op is Op.ADD:
        p, q = a.src
        for x, y in ((p, q), (q, p)):
            if _multiple_of(x, d):
                return floormod(y, d)  # (d*k + y) % d -> y % d
        t = _const_tail(a)
        if t and 0 <= t[1] < math.gcd(t[0].divisor, d):
            return add(floormod(t[0], d), t[1])  # (x + c) % d -> x % d + c  when m | x, m | d, 0 <= c < m
    return Node(Op.FLOORMOD, VType.INT, (a, const(d)))


def minimum(a: IntLike, b: IntLike) -> Node:
    a, b = _int(a), _int(b)
    if a.vmax <= b.vmin:
        return a
    if b.vmax <= a.vmin:
        return b
    return Node(Op.MIN, VType.INT, (a, b))


def maximum(a: IntLike, b: IntLike) -> Node:
    a, b = _int(a), _int(b)
    if a.vmin >= b.vmax:
        return a
    if b.vmin >= a.vmax:
        return b
    return Node(Op.MAX, VType.INT, (a, b))


def clamp(x: IntLike, lo: int, hi: int) -> Node:
    return minimum(maximum(x, lo), hi)


def less(a: IntLike, b: IntLike) -> Node:
    a, b = _int(a), _int(b)
    if a.vmax < b.vmin:
        return const_bool(True)
    if a.vmin >= b.vmax:
        return const_bool(False)
    return Node(Op.CMPLT, VType.BOOL, (a, b))


def not_equal(a: IntLike, b: IntLike) -> Node:
    a, b = _int(a), _int(b)
    if a is b:
        return const_bool(False)
    if a.vmax < b.vmin or b.vmax < a.vmin:
        return const_bool(True)
    return Node(Op.CMPNE, VType.BOOL, (a, b))


def logical_and(a: Node, b: Node) -> Node:
    for x, y in ((a, b), (b, a)):
        if x.is_const:
            return y if x.arg else x
    return Node(Op.AND, VType.BOOL, (a, b))


def where(cond: Node, a: Node, b: Node) -> Node:
    if cond.dtype is not VType.BOOL or a.dtype != b.dtype:
        raise TypeError("where(bool, x, y) with x and y of one type")
    if cond.is_const:
        return a if cond.arg else b
    if a is b:
        return a
    return Node(Op.WHERE, a.dtype, (cond, a, b))


def load(buf: Buffer, index: IntLike) -> Node:
    return Node(Op.LOAD, buf.dtype, (_int(index),), buf.name)


def index(raw: Node, dim: int, mode: str) -> Node:
    """Normalize a loaded index value against an axis of size `dim` (SPEC.md, Indices):
    a negative signed index counts from the end once; what is still outside [0, dim) is clamped
    to [0, dim - 1] ("clamp") or becomes -1 ("mask")."""
    if (raw.op not in (Op.LOAD, Op.VEXTRACT) or not isinstance(raw.dtype, DataType)
            or not raw.dtype.is_index):
        raise TypeError("index() takes a value loaded from an index-typed buffer")
    if mode not in ("clamp", "mask"):
        raise ValueError(mode)
    return Node(Op.INDEX, VType.INT, (raw, const(dim)), mode)


def bits(value: Node) -> Node:
    """A 32-bit data value's bits as a signed int32 (for counters kept in scratch buffers)."""
    if not isinstance(value.dtype, DataType) or value.dtype.bits != 32:
        raise TypeError("bits() takes a 32-bit value")
    return Node(Op.BITS, VType.INT, (value,))


VECTOR_BYTES = 16  # one uvec4


def vector_width(dtype: DataType) -> int:
    """Elements of `dtype` in one 16-byte vector."""
    return VECTOR_BYTES // dtype.itemsize


def vload(buf_name: str, first: Node) -> Node:
    """The 16 bytes starting at element `first` of a buffer (first must be a multiple of the
    vector width: verify.py proves it)."""
    return Node(Op.VLOAD, VType.VEC16, (_int(first),), buf_name)


def reverse(vec: Node, itemsize: int) -> Node:
    """A vector's elements in the opposite order."""
    return Node(Op.REVERSE, VType.VEC16, (vec,), itemsize)


def vextract(vec: Node, dtype: DataType, lane: int) -> Node:
    """Element `lane` of a vector of `dtype` elements (32 or 64 bits: whole words)."""
    if vec.dtype is not VType.VEC16 or dtype.bits < 32 or not 0 <= lane < vector_width(dtype):
        raise TypeError(f"vextract of lane {lane} of {dtype.name} from {vec.dtype}")
    return Node(Op.VEXTRACT, dtype, (vec,), int(lane))


def vpack(elements: "list[Node]") -> Node:
    """A vector of 16 bytes of 32/64-bit elements, lane 0 first."""
    dtype = elements[0].dtype
    if (not isinstance(dtype, DataType) or dtype.bits < 32 or len(elements) != vector_width(dtype)
            or any(e.dtype != dtype for e in elements)):
        raise TypeError("vpack takes one vector's worth of 32/64-bit elements of one type")
    if all(e.op is Op.VEXTRACT and e.src[0] is elements[0].src[0] and e.arg == i
           for i, e in enumerate(elements)):
        return elements[0].src[0]  # pack(extract(v, 0), ..., extract(v, W-1)) -> v
    return Node(Op.VPACK, VType.VEC16, tuple(elements))


def vstore(buf_name: str, first: Node, vec: Node) -> Node:
    return Node(Op.VSTORE, VType.VOID, (_int(first), vec), buf_name)


def _effect(op: Op, buf: Buffer, idx: IntLike, value: Node, pred: Optional[Node]) -> Node:
    src = (_int(idx), value) if pred is None else (_int(idx), value, pred)
    if pred is not None and pred.dtype is not VType.BOOL:
        raise TypeError("predicate must be BOOL")
    return Node(op, VType.VOID, src, buf.name)


def store(buf: Buffer, idx: IntLike, value: Node, pred: Optional[Node] = None) -> Node:
    if value.dtype != buf.dtype:
        raise TypeError(f"store of {value.dtype} into {buf.name}: {buf.dtype}")
    return _effect(Op.STORE, buf, idx, value, pred)


def atomic_max(buf: Buffer, idx: IntLike, value: IntLike, pred: Optional[Node] = None) -> Node:
    if buf.dtype is not DataType.UINT32:
        raise TypeError("atomic_max needs a UINT32 buffer")
    return _effect(Op.ATOMIC_MAX, buf, idx, _int(value), pred)

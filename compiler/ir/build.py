"""Smart constructors for IR nodes: the only way lowering and passes build IR.

Each arithmetic constructor applies the first enabled rule of its op's rule table (x + 0 -> x,
(x // d) * d + x % d -> x, ...): the tables below, one identity per rule, grouped by the pass
that owns them (ir/rules.py). Lowering builds with every group off; the pipeline's rule passes
rebuild the IR with their groups on.
"""
from __future__ import annotations

import math

from typing import Callable, Optional, Union

from ..dtypes import DataType
from .kernel import Buffer
from .ops import Node, Op, VType
from .rules import COALESCE, FOLD_CONSTANTS, SIMPLIFY_DIVMOD, Rule, apply

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


def step_id(steps: int) -> Node:
    """The step of a kernel with steps (ir.Kernel.steps), in [0, steps)."""
    return var("step", 0, steps - 1)


def _int(x: IntLike) -> Node:
    if isinstance(x, Node):
        if x.dtype is not VType.INT:
            raise TypeError(f"expected an INT node, got {x.dtype}")
        return x
    return const(x)


def const_tail(n: Node) -> Optional[tuple[Node, int]]:
    """(x, c) when n is x + c with a constant c (canonical sums keep constants outermost)."""
    if n.op is Op.ADD and n.src[1].is_const:
        return n.src[0], int(n.src[1].arg)  # type: ignore[call-overload]
    return None


def _scaled(n: Node) -> tuple[Node, int]:
    """(u, k) with n == u * k for a constant k (k = 1 when n is not a product)."""
    if n.op is Op.MUL and n.src[1].is_const:
        return n.src[0], int(n.src[1].arg)  # type: ignore[call-overload]
    return n, 1


def _multiple_of(n: Node, d: int) -> bool:
    return n.divisor % d == 0


def _merge_terms(p: Node, q: Node) -> Optional[Node]:
    """Coalescing: the terms of two adjacent dimensions of one split index, as one term.
    q = (x % d) * k and p = (x // d) * (d * k)          -> x * k
    q = (x % d) * k and p = ((x // d) % m) * (d * k)    -> (x % (m * d)) * k"""
    (u, kp), (r, kq) = _scaled(p), _scaled(q)
    if r.op is not Op.FLOORMOD or kp != kq * r.src[1].arg:  # type: ignore[operator]
        return None
    x, d = r.src[0], r.src[1].arg
    if u.op is Op.FLOORDIV and u.src[0] is x and u.src[1].arg == d:
        return mul(x, kq)
    if (u.op is Op.FLOORMOD and u.src[0].op is Op.FLOORDIV and u.src[0].src[0] is x
            and u.src[0].src[1].arg == d):
        return mul(floormod(x, u.src[1].arg * d), kq)  # type: ignore[operator]
    return None


def _coalesce_last(a: Node, b: Node) -> Optional[Node]:
    """Sums are built dimension by dimension, so the term to merge b with is a's last one."""
    if a.op is Op.ADD and not a.src[1].is_const:
        merged = _merge_terms(a.src[1], b)
        if merged is not None:
            return add(a.src[0], merged)
    return None


ADD_RULES = [
    Rule("c1 + c2 -> (c1 + c2)", FOLD_CONSTANTS,
         lambda a, b: const(a.arg + b.arg) if a.is_const and b.is_const else None),
    Rule("c + x -> x + c", FOLD_CONSTANTS,
         lambda a, b: add(b, a) if a.is_const and not b.is_const else None),
    Rule("x + 0 -> x", FOLD_CONSTANTS, lambda a, b: a if b.is_const and b.arg == 0 else None),
    Rule("(x + c1) + c2 -> x + (c1 + c2)", FOLD_CONSTANTS,
         lambda a, b: add(const_tail(a)[0], const_tail(a)[1] + b.arg)  # type: ignore[index]
         if b.is_const and const_tail(a) else None),
    Rule("a + (y + c) -> (a + y) + c", FOLD_CONSTANTS,
         lambda a, b: add(add(a, const_tail(b)[0]), const_tail(b)[1])  # type: ignore[index]
         if const_tail(b) else None),
    Rule("(x + c) + b -> (x + b) + c", FOLD_CONSTANTS,
         lambda a, b: add(add(const_tail(a)[0], b), const_tail(a)[1])  # type: ignore[index]
         if const_tail(a) and not b.is_const else None),
    Rule("(x // d) * (d * k) + (x % d) * k -> x * k", COALESCE,
         lambda a, b: _merge_terms(a, b) or _merge_terms(b, a)),
    Rule("(s + ((x // d) % m) * (d * k)) + (x % d) * k -> s + (x % (m * d)) * k", COALESCE,
         _coalesce_last),
]

MUL_RULES = [
    Rule("c1 * c2 -> (c1 * c2)", FOLD_CONSTANTS,
         lambda a, b: const(a.arg * b.arg) if a.is_const and b.is_const else None),
    Rule("c * x -> x * c", FOLD_CONSTANTS,
         lambda a, b: mul(b, a) if a.is_const and not b.is_const else None),
    Rule("x * 0 -> 0", FOLD_CONSTANTS, lambda a, b: const(0) if b.is_const and b.arg == 0 else None),
    Rule("x * 1 -> x", FOLD_CONSTANTS, lambda a, b: a if b.is_const and b.arg == 1 else None),
    Rule("x * k -> 0  when x's range is {0}", SIMPLIFY_DIVMOD,
         lambda a, b: const(0) if a.vmin == a.vmax == 0 else None),
    Rule("(x + c) * k -> x * k + c * k", FOLD_CONSTANTS,
         lambda a, b: add(mul(const_tail(a)[0], b), const_tail(a)[1] * b.arg)  # type: ignore
         if b.is_const and const_tail(a) else None),
    Rule("(x * c1) * c2 -> x * (c1 * c2)", FOLD_CONSTANTS,
         lambda a, b: mul(a.src[0], a.src[1].arg * b.arg)  # type: ignore[operator]
         if b.is_const and a.op is Op.MUL and a.src[1].is_const else None),
]


def _div_sum(a: Node, d: int) -> Optional[Node]:
    if a.op is Op.ADD:
        for x, y in (a.src, a.src[::-1]):
            if _multiple_of(x, d):
                return add(floordiv(x, d), floordiv(y, d))
    return None


def _mod_sum(a: Node, d: int) -> Optional[Node]:
    if a.op is Op.ADD:
        for x, y in (a.src, a.src[::-1]):
            if _multiple_of(x, d):
                return floormod(y, d)
    return None


def _small_offset(a: Node, d: int) -> Optional[tuple[Node, int]]:
    """(x, c) when a = x + c with m | x, m | d and 0 <= c < m for some m."""
    t = const_tail(a)
    return t if t and 0 <= t[1] < math.gcd(t[0].divisor, d) else None


def _big_offset(a: Node, d: int) -> Optional[tuple[Node, int]]:
    """(x, c) when a = x + c with c >= d: whole multiples of d leave the division (a tile's
    items sit whole rows apart, so their offsets outgrow the row length)."""
    t = const_tail(a)
    return t if t and t[1] >= d else None


def _mul_by(a: Node) -> int:
    """a's positive constant factor when a = x * c, else 0."""
    return int(a.src[1].arg) if (a.op is Op.MUL and a.src[1].is_const  # type: ignore[call-overload]
                                 and a.src[1].arg > 0) else 0  # type: ignore[operator]


FLOORDIV_RULES = [
    Rule("x // 1 -> x", FOLD_CONSTANTS, lambda a, d: a if d == 1 else None),
    Rule("c // d -> (c // d)", FOLD_CONSTANTS, lambda a, d: const(a.arg // d) if a.is_const else None),
    Rule("x // d -> q  when x's whole range has quotient q", SIMPLIFY_DIVMOD,
         lambda a, d: const(a.vmin // d) if a.vmin // d == a.vmax // d else None),
    Rule("(x // c1) // c2 -> x // (c1 * c2)", COALESCE,
         lambda a, d: floordiv(a.src[0], a.src[1].arg * d) if a.op is Op.FLOORDIV else None),
    Rule("(x * c) // d -> x * (c / d)  when d | c", SIMPLIFY_DIVMOD,
         lambda a, d: mul(a.src[0], _mul_by(a) // d) if _mul_by(a) and _mul_by(a) % d == 0
         else None),
    Rule("(x * c) // d -> x // (d / c)  when c | d", SIMPLIFY_DIVMOD,
         lambda a, d: floordiv(a.src[0], d // _mul_by(a)) if _mul_by(a) and d % _mul_by(a) == 0
         else None),
    Rule("(d*k + y) // d -> k + y // d", SIMPLIFY_DIVMOD, _div_sum),
    Rule("(x + c) // d -> x // d  when m | x, m | d, 0 <= c < m", SIMPLIFY_DIVMOD,
         lambda a, d: floordiv(_small_offset(a, d)[0], d)  # type: ignore[index]
         if _small_offset(a, d) else None),
    Rule("(x + c) // d -> (x + c % d) // d + c // d  when c >= d", SIMPLIFY_DIVMOD,
         lambda a, d: add(floordiv(add(_big_offset(a, d)[0], _big_offset(a, d)[1] % d), d),  # type: ignore[index]
                          _big_offset(a, d)[1] // d) if _big_offset(a, d) else None),  # type: ignore[index]
]

FLOORMOD_RULES = [
    Rule("x % 1 -> 0", FOLD_CONSTANTS, lambda a, d: const(0) if d == 1 else None),
    Rule("c % d -> (c % d)", FOLD_CONSTANTS, lambda a, d: const(a.arg % d) if a.is_const else None),
    Rule("x % d -> x  when 0 <= x < d", SIMPLIFY_DIVMOD,
         lambda a, d: a if 0 <= a.vmin and a.vmax < d else None),
    Rule("(d * k) % d -> 0", SIMPLIFY_DIVMOD, lambda a, d: const(0) if _multiple_of(a, d) else None),
    Rule("(x % e) % d -> x % d  when d | e", SIMPLIFY_DIVMOD,
         lambda a, d: floormod(a.src[0], d) if a.op is Op.FLOORMOD and a.src[1].arg % d == 0
         else None),
    Rule("(x * c) % d -> (x % (d / c)) * c  when c | d", SIMPLIFY_DIVMOD,
         lambda a, d: mul(floormod(a.src[0], d // _mul_by(a)), _mul_by(a))
         if _mul_by(a) and d % _mul_by(a) == 0 else None),
    Rule("(d*k + y) % d -> y % d", SIMPLIFY_DIVMOD, _mod_sum),
    Rule("(x + c) % d -> x % d + c  when m | x, m | d, 0 <= c < m", SIMPLIFY_DIVMOD,
         lambda a, d: add(floormod(_small_offset(a, d)[0], d), _small_offset(a, d)[1])  # type: ignore
         if _small_offset(a, d) else None),
    Rule("(x + c) % d -> (x + c % d) % d  when c >= d", SIMPLIFY_DIVMOD,
         lambda a, d: floormod(add(_big_offset(a, d)[0], _big_offset(a, d)[1] % d), d)  # type: ignore[index]
         if _big_offset(a, d) else None),
]

MIN_RULES = [
    Rule("min(a, b) -> a  when a <= b over their ranges", SIMPLIFY_DIVMOD,
         lambda a, b: a if a.vmax <= b.vmin else (b if b.vmax <= a.vmin else None)),
]
MAX_RULES = [
    Rule("max(a, b) -> a  when a >= b over their ranges", SIMPLIFY_DIVMOD,
         lambda a, b: a if a.vmin >= b.vmax else (b if b.vmin >= a.vmax else None)),
]
LESS_RULES = [
    Rule("a < b -> true / false  when their ranges decide it", SIMPLIFY_DIVMOD,
         lambda a, b: const_bool(True) if a.vmax < b.vmin else (
             const_bool(False) if a.vmin >= b.vmax else None)),
]
NOT_EQUAL_RULES = [
    Rule("x != x -> false", FOLD_CONSTANTS, lambda a, b: const_bool(False) if a is b else None),
    Rule("a != b -> true  when their ranges do not meet", SIMPLIFY_DIVMOD,
         lambda a, b: const_bool(True) if a.vmax < b.vmin or b.vmax < a.vmin else None),
]
AND_RULES = [
    Rule("true && y -> y, false && y -> false (either side)", FOLD_CONSTANTS,
         lambda a, b: next(((y if x.arg else x) for x, y in ((a, b), (b, a)) if x.is_const),
                           None)),
]
WHERE_RULES = [
    Rule("true ? a : b -> a, false ? a : b -> b", FOLD_CONSTANTS,
         lambda c, a, b: (a if c.arg else b) if c.is_const else None),
    Rule("c ? a : a -> a", FOLD_CONSTANTS, lambda c, a, b: a if a is b else None),
]


def _binary(op: Op, table: list[Rule], dtype: VType = VType.INT) -> Callable[[IntLike, IntLike], Node]:
    """The constructor of an op over two INT operands: its rule table, else a new node."""
    def construct(a: IntLike, b: IntLike) -> Node:
        a, b = _int(a), _int(b)
        return apply(table, a, b) or Node(op, dtype, (a, b))
    construct.__name__ = op.name.lower()
    return construct


def _by_constant(op: Op, table: list[Rule]) -> Callable[[IntLike, int], Node]:
    """The constructor of // or % by a positive constant."""
    def construct(a: IntLike, d: int) -> Node:
        a = _int(a)
        if d <= 0:
            raise ValueError(f"{op.name.lower()} by a positive constant only")
        return apply(table, a, d) or Node(op, VType.INT, (a, const(d)))
    construct.__name__ = op.name.lower()
    return construct


add = _binary(Op.ADD, ADD_RULES)
mul = _binary(Op.MUL, MUL_RULES)
minimum = _binary(Op.MIN, MIN_RULES)
maximum = _binary(Op.MAX, MAX_RULES)
less = _binary(Op.CMPLT, LESS_RULES, VType.BOOL)
not_equal = _binary(Op.CMPNE, NOT_EQUAL_RULES, VType.BOOL)
floordiv = _by_constant(Op.FLOORDIV, FLOORDIV_RULES)  # rounds towards -inf
floormod = _by_constant(Op.FLOORMOD, FLOORMOD_RULES)  # has the divisor's sign


def sub(a: IntLike, b: IntLike) -> Node:
    return add(a, mul(b, -1))


def clamp(x: IntLike, lo: int, hi: int) -> Node:
    return minimum(maximum(x, lo), hi)


def logical_and(a: Node, b: Node) -> Node:
    return apply(AND_RULES, a, b) or Node(Op.AND, VType.BOOL, (a, b))


def where(cond: Node, a: Node, b: Node) -> Node:
    if cond.dtype is not VType.BOOL or a.dtype != b.dtype:
        raise TypeError("where(bool, x, y) with x and y of one type")
    return apply(WHERE_RULES, cond, a, b) or Node(Op.WHERE, a.dtype, (cond, a, b))


RULE_TABLES = {"add": ADD_RULES, "mul": MUL_RULES, "floordiv": FLOORDIV_RULES,
               "floormod": FLOORMOD_RULES, "min": MIN_RULES, "max": MAX_RULES, "less": LESS_RULES,
               "not_equal": NOT_EQUAL_RULES, "and": AND_RULES, "where": WHERE_RULES}


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

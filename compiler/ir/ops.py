"""IR nodes: one hash-consed node type over a small closed set of ops (tinygrad's UOp, simplified).

A node is immutable and interned: building the same (op, dtype, src, arg) twice returns the same
object, so equality is identity and common subexpressions are shared for free. Integer nodes
carry their value range (vmin, vmax), which lowering uses to fold, verification uses to prove
every address inside its buffer, and codegen uses to pick 32-bit arithmetic and plain `/` `%`.

Integer values mean mathematical integers; the range proves they fit the shader's 32-bit int.
"""
from __future__ import annotations

import enum
import math
import weakref
from functools import cached_property
from typing import AbstractSet, Union

from ..dtypes import DataType


class Op(enum.Enum):
    CONST = enum.auto()      # arg: int or bool
    VAR = enum.auto()        # arg: (name, lo, hi)  e.g. the invocation's item id
    ADD = enum.auto()
    MUL = enum.auto()
    FLOORDIV = enum.auto()   # rounds towards -inf; divisor a positive constant
    FLOORMOD = enum.auto()   # result has the divisor's sign; divisor a positive constant
    MIN = enum.auto()
    MAX = enum.auto()
    CMPLT = enum.auto()      # -> BOOL
    CMPNE = enum.auto()      # -> BOOL
    AND = enum.auto()        # BOOL x BOOL -> BOOL
    WHERE = enum.auto()      # (cond, a, b): a if cond else b; a and b of any one type
    LOAD = enum.auto()       # arg: buffer name; src: (element index,) -> the buffer's DataType
    INDEX = enum.auto()      # arg: "clamp" | "mask"; src: (raw index LOAD, CONST dim) -> INT
    BITS = enum.auto()       # src: (32-bit data value,) -> INT: its bits as a signed int32
    VLOAD = enum.auto()      # arg: buffer name; src: (first element,) -> VEC16: 16 bytes from there
    REVERSE = enum.auto()    # arg: element size in bytes; src: (VEC16,) -> its elements reversed
    VEXTRACT = enum.auto()   # arg: lane; src: (VEC16,) -> that 32/64-bit element (node's dtype)
    VPACK = enum.auto()      # src: (16 bytes' worth of 32/64-bit elements of one dtype) -> VEC16
    STORE = enum.auto()      # arg: buffer name; src: (index, value[, predicate]) -> VOID
    VSTORE = enum.auto()     # arg: buffer name; src: (first element, VEC16) -> VOID
    ATOMIC_MAX = enum.auto() # arg: uint32 buffer; src: (index, INT value[, predicate]) -> VOID


class VType(enum.Enum):
    """Types of values that are not tensor elements."""

    INT = "int"
    BOOL = "bool"
    VOID = "void"
    VEC16 = "vec16"  # 16 raw bytes: several consecutive elements moved as one uvec4


DType = Union[VType, DataType]

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class Node:
    """One IR value. Build nodes through `ir.build`, not this constructor."""

    __slots__ = ("op", "dtype", "src", "arg", "is_const", "_hash", "__weakref__", "__dict__")
    _cache: "weakref.WeakValueDictionary[tuple, Node]" = weakref.WeakValueDictionary()

    op: Op
    dtype: DType
    src: tuple["Node", ...]
    arg: object
    is_const: bool

    def __new__(cls, op: Op, dtype: DType, src: tuple["Node", ...] = (), arg: object = None):
        # Tuples of ints compare equal to bools (1 == True); keep the arg's type in the key.
        # Enum members are singletons: their ids hash faster than their values.
        key = (id(op), id(dtype), tuple(map(id, src)), type(arg), arg)
        node = cls._cache.get(key)
        if node is None:
            node = super().__new__(cls)
            object.__setattr__(node, "op", op)
            object.__setattr__(node, "dtype", dtype)
            object.__setattr__(node, "src", src)
            object.__setattr__(node, "arg", arg)
            object.__setattr__(node, "is_const", op is Op.CONST)
            object.__setattr__(node, "_hash", hash(key))
            cls._cache[key] = node
        return node

    def __setattr__(self, name: str, value: object) -> None:
        if name in Node.__slots__:
            raise AttributeError("IR nodes are immutable")
        object.__setattr__(self, name, value)  # cached_property storage

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other

    def __repr__(self) -> str:
        from .printer import render_expr
        return f"<{render_expr(self)}>"

    @cached_property
    def bounds(self) -> tuple[int, int]:
        """(vmin, vmax): an interval containing every value this INT/BOOL node can take."""
        return _bounds(self)

    @cached_property
    def divisor(self) -> int:
        """A number this INT node's value is always a multiple of (0: the value is always 0).
        Vectorization uses it to prove addresses aligned."""
        return _divisor(self)

    @property
    def vmin(self) -> int:
        return self.bounds[0]

    @property
    def vmax(self) -> int:
        return self.bounds[1]

    def toposort(self) -> list["Node"]:
        """This node and everything it depends on, each once, dependencies first."""
        return toposort([self])


def toposort(roots: list[Node], stop: "AbstractSet[Node]" = frozenset()) -> list[Node]:
    """Every node the roots depend on, each once, dependencies first; the sources of nodes in
    `stop` are not followed (a substitution that replaces them never needs those)."""
    seen: set[int] = set()
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(r, False) for r in reversed(roots)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        if node not in stop:
            stack.extend((s, False) for s in reversed(node.src) if id(s) not in seen)
    return order


def _divisor(n: Node) -> int:
    op, s = n.op, n.src
    if op is Op.CONST:
        return abs(int(n.arg))  # type: ignore[call-overload]
    if op is Op.MUL:
        return s[0].divisor * s[1].divisor
    if op in (Op.ADD, Op.MIN, Op.MAX):
        return math.gcd(s[0].divisor, s[1].divisor)
    if op is Op.WHERE:
        return math.gcd(s[1].divisor, s[2].divisor)
    if op is Op.FLOORMOD:
        return math.gcd(s[0].divisor, s[1].arg)  # type: ignore[arg-type]
    if op is Op.FLOORDIV:
        d = s[1].arg
        return s[0].divisor // d if s[0].divisor % d == 0 else 1  # type: ignore[operator]
    return 1


def _bounds(n: Node) -> tuple[int, int]:
    op, s = n.op, n.src
    if n.dtype is VType.BOOL:
        if op is Op.CONST:
            return int(bool(n.arg)), int(bool(n.arg))
        return 0, 1
    if op is Op.CONST:
        return int(n.arg), int(n.arg)  # type: ignore[call-overload]
    if op is Op.VAR:
        return n.arg[1], n.arg[2]  # type: ignore[index]
    if op is Op.ADD:
        return s[0].vmin + s[1].vmin, s[0].vmax + s[1].vmax
    if op is Op.MUL:
        c = [a * b for a in s[0].bounds for b in s[1].bounds]
        return min(c), max(c)
    if op is Op.FLOORDIV:  # divisor is a positive constant
        d = s[1].arg
        return s[0].vmin // d, s[0].vmax // d  # type: ignore[operator]
    if op is Op.FLOORMOD:
        d = s[1].arg
        if s[0].vmin >= 0 and s[0].vmax < d:  # type: ignore[operator]
            return s[0].bounds
        # x a multiple of m: x % d is a multiple of gcd(m, d) below d (0 when x is always 0).
        return 0, d - math.gcd(s[0].divisor, d)  # type: ignore[operator, arg-type]
    if op is Op.MIN:
        return min(s[0].vmin, s[1].vmin), min(s[0].vmax, s[1].vmax)
    if op is Op.MAX:
        return max(s[0].vmin, s[1].vmin), max(s[0].vmax, s[1].vmax)
    if op is Op.WHERE:
        return min(s[1].vmin, s[2].vmin), max(s[1].vmax, s[2].vmax)
    if op is Op.INDEX:
        return (0 if n.arg == "clamp" else -1), s[1].arg - 1  # type: ignore[operator]
    if op is Op.BITS:
        return INT32_MIN, INT32_MAX
    raise TypeError(f"{op.name} has no integer range")

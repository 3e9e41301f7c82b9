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
from collections.abc import Callable

from ..dtypes import DataType
from .cached import cached as _cached
from .walk import toposort


class Op(enum.Enum):
    CONST = enum.auto()      # arg: int or bool
    VAR = enum.auto()        # arg: (name, lo, hi)  e.g. the invocation's item id
    PARAM = enum.auto()      # arg: ("p<k>", lo, hi): push-constant word k, a size known only at
    #                          dispatch, in [lo, hi] (generic kernels: docs/generic-kernels.md)
    ADD = enum.auto()
    MUL = enum.auto()
    FLOORDIV = enum.auto()   # rounds towards -inf; divisor a positive constant, or a PARAM
    #                          (lo >= 1) of a dividend proven >= 0
    FLOORMOD = enum.auto()   # result has the divisor's sign; divisor as FLOORDIV's
    MIN = enum.auto()
    MAX = enum.auto()
    CMPLT = enum.auto()      # -> BOOL
    CMPNE = enum.auto()      # -> BOOL
    AND = enum.auto()        # BOOL x BOOL -> BOOL
    WHERE = enum.auto()      # (cond, a, b): a if cond else b; a and b of any one type
    LOAD = enum.auto()       # arg: buffer name; src: (element index,) -> the buffer's DataType
    INDEX = enum.auto()      # arg: "clamp" | "mask"; src: (raw index LOAD, INT dim >= 1) -> INT
    BITS = enum.auto()       # src: (32-bit data value,) -> INT: its bits as a signed int32
    VLOAD = enum.auto()      # arg: buffer name; src: (first element,) -> VEC16: 16 bytes from there
    REVERSE = enum.auto()    # arg: element size in bytes; src: (VEC16,) -> its elements reversed
    VEXTRACT = enum.auto()   # arg: lane; src: (VEC16,) -> that 32/64-bit element (node's dtype)
    VPACK = enum.auto()      # src: (16 bytes' worth of 32/64-bit elements of one dtype) -> VEC16
    PACK = enum.auto()       # src: (a 32-bit word's worth of 8/16-bit elements) -> UINT32 word
    STORE = enum.auto()      # arg: buffer name; src: (index, value[, predicate]) -> VOID
    VSTORE = enum.auto()     # arg: buffer name; src: (first element, VEC16) -> VOID
    ATOMIC_MAX = enum.auto() # arg: uint32 buffer; src: (index, INT value[, predicate]) -> VOID
    WSTORE = enum.auto()     # arg: 8/16-bit buffer; src: (word index, UINT32 word) -> VOID
    ATOMIC_STORE = enum.auto()  # arg: 8/16-bit buffer; src: (index, value[, predicate]) -> VOID:
    #                             the element's bits put into its word atomically (and, then or)
    COMBINE = enum.auto()    # arg: "add" | "mul" | "max" | "min"; src: (a, b) of one DataType ->
    #                          that type: numpy's np.add(a, b), ... on the elements, bit for bit
    ARITH = enum.auto()      # arg: one of ARITH_KINDS; src: (a, b) of one integer DataType ->
    #                          that type: integer arithmetic on loaded values, wrapping modulo
    #                          2^bits (ONNX's and numpy's integer semantics; x / 0 and x % 0 are 0)
    COMPARE = enum.auto()    # arg: "lt" | "eq"; src: (a, b) of one integer DataType -> BOOL
    CONVERT = enum.auto()    # src: (an integer DataType value, or an INT) -> the node's integer
    #                          DataType: numpy's astype (sign- or zero-extended, then wrapped)


class VType(enum.Enum):
    """Types of values that are not tensor elements."""

    INT = "int"
    BOOL = "bool"
    VOID = "void"
    VEC16 = "vec16"  # 16 raw bytes: several consecutive elements moved as one uvec4


DType = VType | DataType
Arg = int | str | tuple[str, int, int] | None
"""A node's parameter, by op (see Op): a constant's value (int, bool or a data constant's raw
bits), a variable's (name, lo, hi), a buffer's name, a lane, an element size, or a mode. Read
it through the typed accessors below (Node.value, .buffer, ...)."""

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class IRError(AssertionError):
    """The IR breaks an invariant: a dmlc bug, never the user's fault."""


_INTERNED: dict[tuple, weakref.ref] = {}
"""Every live node by its key (and some dead ones, purged as the table grows): a
WeakValueDictionary's work, without its Python-level get, set and death callback on the path of
every node built (the compiler's hottest). A live node holds its sources, so the ids in its key
are theirs; a dead entry is a miss, and is overwritten."""
_purge_at = 1 << 16


def _purge() -> None:
    """Drop the entries of dead nodes; the next purge when the table has doubled again."""
    global _purge_at
    for key in [k for k, ref in list(_INTERNED.items()) if ref() is None]:
        ref = _INTERNED.get(key)
        if ref is not None and ref() is None:
            del _INTERNED[key]
    _purge_at = max(1 << 16, 2 * len(_INTERNED))


class Node:
    """One IR value. Build nodes through `ir.build`, not this constructor."""

    # No __eq__ or __hash__: nodes are interned, so equality is identity, and object's own
    # (C-level) hash is by identity too (a Python-level __hash__ ran on every dict and set use).
    __slots__ = ("op", "dtype", "src", "arg", "is_const", "__weakref__", "__dict__")

    op: Op
    dtype: DType
    src: tuple[Node, ...]
    arg: Arg
    is_const: bool

    def __new__(cls, op: Op, dtype: DType, src: tuple[Node, ...] = (), arg: Arg = None):
        # Tuples of ints compare equal to bools (1 == True); keep the arg's type in the key.
        # Enum members are singletons: their ids hash faster than their values.
        key = (id(op), id(dtype), tuple(map(id, src)), type(arg), arg)
        ref = _INTERNED.get(key)
        node = ref() if ref is not None else None
        if node is None:
            node = object.__new__(cls)
            _set_op(node, op)
            _set_dtype(node, dtype)
            _set_src(node, src)
            _set_arg(node, arg)
            _set_is_const(node, op is Op.CONST)
            _INTERNED[key] = weakref.ref(node)
            if len(_INTERNED) >= _purge_at:
                _purge()
        return node

    def __setattr__(self, name: str, value: object) -> None:
        if name in Node.__slots__:
            raise AttributeError("IR nodes are immutable")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"<{render_expr(self)}>"

    # The arg, typed by what it means (each raises IRError on a node whose op has no such arg).

    @property
    def value(self) -> int:
        """A CONST's value: an integer, a bool as 0 or 1, a data constant's raw bits."""
        a = self.arg
        if a.__class__ is int and self.op is Op.CONST:  # (the rules' offsets: first, inline)
            return a
        if self.op is not Op.CONST or not isinstance(a, int):
            raise IRError(f"{self.op.name} is not a constant")
        return int(a)

    @property
    def buffer(self) -> str:
        """The name of the buffer a LOAD, VLOAD or effect reads or writes."""
        a = self.arg
        if self.op not in BUFFER_OPS or not isinstance(a, str):
            raise IRError(f"{self.op.name} names no buffer")
        return a

    @property
    def lane(self) -> int:
        """The lane a VEXTRACT takes."""
        a = self.arg
        if self.op is not Op.VEXTRACT or not isinstance(a, int):
            raise IRError(f"{self.op.name} takes no lane")
        return a

    @property
    def itemsize(self) -> int:
        """The element size in bytes a REVERSE reverses by."""
        a = self.arg
        if self.op is not Op.REVERSE or not isinstance(a, int):
            raise IRError(f"{self.op.name} has no element size")
        return a

    @property
    def variable(self) -> tuple[str, int, int]:
        """A VAR's (name, lo, hi)."""
        a = self.arg
        if self.op is not Op.VAR or not isinstance(a, tuple):
            raise IRError(f"{self.op.name} is not a variable")
        return a

    @property
    def param(self) -> int:
        """A PARAM's push-constant word."""
        a = self.arg
        if self.op is not Op.PARAM or not isinstance(a, tuple):
            raise IRError(f"{self.op.name} is not a parameter")
        return int(a[0][1:])

    @property
    def mode(self) -> str:
        """An INDEX's mode ("clamp" | "mask"), or a COMBINE's, ARITH's or COMPARE's kind ("add",
        "floordiv", "lt", ...)."""
        a = self.arg
        if self.op not in (Op.INDEX, Op.COMBINE, Op.ARITH, Op.COMPARE) or not isinstance(a, str):
            raise IRError(f"{self.op.name} has no mode")
        return a

    @property
    def data_type(self) -> DataType:
        """The node's type as a tensor element type (IRError for int, bool, void, vec16)."""
        if not isinstance(self.dtype, DataType):
            raise IRError(f"{self.op.name} of {self.dtype} is no tensor element")
        return self.dtype

    @_cached
    def bounds(self) -> tuple[int, int]:
        """(vmin, vmax): an interval containing every value this INT/BOOL node can take."""
        return _bounds(self)

    @_cached
    def divisor(self) -> int:
        """A number this INT node's value is always a multiple of (0: the value is always 0).
        Vectorization uses it to prove addresses aligned."""
        return _divisor(self)

    @_cached
    def vmin(self) -> int:
        return self.bounds[0]

    @_cached
    def vmax(self) -> int:
        return self.bounds[1]

    def toposort(self) -> list[Node]:
        """This node and everything it depends on, each once, dependencies first."""
        return toposort([self])


# The slots' own setters, past Node.__setattr__ (which refuses them): a node is built once.
_set_op, _set_dtype, _set_src, _set_arg, _set_is_const = (
    vars(Node)[name].__set__ for name in ("op", "dtype", "src", "arg", "is_const"))


def _divisor(n: Node) -> int:
    op, s = n.op, n.src
    if op is Op.CONST:
        return abs(n.value)
    if op is Op.MUL:
        return s[0].divisor * s[1].divisor
    if op in (Op.ADD, Op.MIN, Op.MAX):
        return math.gcd(s[0].divisor, s[1].divisor)
    if op is Op.WHERE:
        return math.gcd(s[1].divisor, s[2].divisor)
    if op in (Op.FLOORMOD, Op.FLOORDIV) and not s[1].is_const:
        return 1  # a runtime divisor: nothing is known
    if op is Op.FLOORMOD:
        return math.gcd(s[0].divisor, s[1].value)
    if op is Op.FLOORDIV:
        d = s[1].value
        return s[0].divisor // d if s[0].divisor % d == 0 else 1
    return 1


def _bounds(n: Node) -> tuple[int, int]:
    op, s = n.op, n.src
    if n.dtype is VType.BOOL:
        if op is Op.CONST:
            return int(bool(n.arg)), int(bool(n.arg))
        return 0, 1
    if op is Op.CONST:
        return n.value, n.value
    if op in (Op.VAR, Op.PARAM):
        a = n.arg
        assert isinstance(a, tuple)
        return a[1], a[2]
    if op in (Op.FLOORDIV, Op.FLOORMOD) and not s[1].is_const:
        # a runtime divisor in [lo, hi], lo >= 1, of a dividend >= 0 (build.py checks both)
        lo, hi = s[1].bounds
        if op is Op.FLOORDIV:
            return s[0].vmin // hi, s[0].vmax // lo
        return 0, min(s[0].vmax, hi - 1)
    if op is Op.ADD:
        return s[0].vmin + s[1].vmin, s[0].vmax + s[1].vmax
    if op is Op.MUL:
        c = [a * b for a in s[0].bounds for b in s[1].bounds]
        return min(c), max(c)
    if op is Op.FLOORDIV:  # divisor is a positive constant
        d = s[1].value
        return s[0].vmin // d, s[0].vmax // d
    if op is Op.FLOORMOD:
        d = s[1].value
        if s[0].vmin >= 0 and s[0].vmax < d:
            return s[0].bounds
        # x a multiple of m: x % d is a multiple of gcd(m, d) below d (0 when x is always 0).
        return 0, d - math.gcd(s[0].divisor, d)
    if op is Op.MIN:
        return min(s[0].vmin, s[1].vmin), min(s[0].vmax, s[1].vmax)
    if op is Op.MAX:
        return max(s[0].vmin, s[1].vmin), max(s[0].vmax, s[1].vmax)
    if op is Op.WHERE:
        return min(s[1].vmin, s[2].vmin), max(s[1].vmax, s[2].vmax)
    if op is Op.INDEX:
        return (0 if n.arg == "clamp" else -1), s[1].vmax - 1
    if op is Op.BITS:
        return INT32_MIN, INT32_MAX
    raise TypeError(f"{op.name} has no integer range")


# Leaves: the nodes with no sources. (Built here, beside Node, so that kernels can name their
# item and step variables without importing the builders.)

def const(value: int) -> Node:
    return Node(Op.CONST, VType.INT, (), int(value))


def const_bool(value: bool) -> Node:
    return Node(Op.CONST, VType.BOOL, (), bool(value))


def const_data(dtype: DataType, raw_bits: int) -> Node:
    """A tensor element given by its raw bits (e.g. UINT32 0 to reset a scratch word)."""
    return Node(Op.CONST, dtype, (), int(raw_bits))


def var(name: str, lo: int, hi: int) -> Node:
    return Node(Op.VAR, VType.INT, (), (name, int(lo), int(hi)))


def param(k: int, lo: int, hi: int) -> Node:
    """Push-constant word k: a size known at dispatch, declared in [lo, hi]."""
    return Node(Op.PARAM, VType.INT, (), (f"p{int(k)}", int(lo), int(hi)))


def item_id(items: int) -> Node:
    """The invocation's item id, in [0, items)."""
    return var("gid", 0, items - 1)


def step_id(steps: int) -> Node:
    """The step of a kernel with steps (ir.Kernel.steps), in [0, steps)."""
    return var("step", 0, steps - 1)


# Text: one table of how each op prints, for repr, error messages and ir/printer.py.

INFIX = {Op.ADD: "+", Op.MUL: "*", Op.FLOORDIV: "//", Op.FLOORMOD: "%", Op.CMPLT: "<",
         Op.CMPNE: "!=", Op.AND: "&&"}
"""Binary ops written between their operands, in the IR's text and in GLSL alike."""
FORMS = {Op.LOAD: "load {arg}[{0}]", Op.VLOAD: "vload {arg}[{0}:+16B]",
         Op.REVERSE: "reverse.{arg}B({0})", Op.VEXTRACT: "{0}.lane{arg}",
         Op.INDEX: "index.{arg}({0}, dim={1})", Op.WHERE: "{0} ? {1} : {2}",
         Op.ARITH: "{arg}({0}, {1})", Op.COMPARE: "{arg}({0}, {1})"}
EFFECTS = (Op.STORE, Op.VSTORE, Op.ATOMIC_MAX, Op.WSTORE, Op.ATOMIC_STORE)
BUFFER_OPS = (Op.LOAD, Op.VLOAD, *EFFECTS)
"""The ops whose arg names a buffer (Node.buffer)."""


def type_name(n: Node) -> str:
    return n.dtype.value if isinstance(n.dtype, VType) else n.dtype.name.lower()


def leaf_text(n: Node) -> str | None:
    """A constant's or variable's text; None for other nodes."""
    if n.op is Op.CONST:
        return str(n.arg).lower() if n.dtype is VType.BOOL else (
            str(n.arg) if n.dtype is VType.INT else f"{type_name(n)}({n.arg:#x})")
    if n.op in (Op.VAR, Op.PARAM):
        a = n.arg
        assert isinstance(a, tuple)
        return str(a[0])
    return None


def node_text(n: Node, name: Callable[[Node], str]) -> str:
    """One node's text, its sources named by `name`."""
    a = [name(s) for s in n.src]
    if n.op in INFIX:
        return f"{a[0]} {INFIX[n.op]} {a[1]}"
    if n.op in FORMS:
        return FORMS[n.op].format(*a, arg=n.arg)
    if n.op in EFFECTS:
        text = f"{n.op.name.lower()} {n.arg}[{a[0]}] = {a[1]}"
        return text + (f" if {a[2]}" if len(a) > 2 else "")
    return f"{n.op.name.lower()}({', '.join(a)})"


def render_expr(n: Node) -> str:
    """One node as a nested expression (for repr and error messages)."""
    leaf = leaf_text(n)
    return leaf if leaf is not None else node_text(n, lambda s: (
        leaf_text(s) or f"({render_expr(s)})"))

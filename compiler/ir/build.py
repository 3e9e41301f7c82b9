"""Pure constructors for IR nodes: the only way lowering and passes build IR.

They check types and hash-cons (building the same node twice gives the same object) and nothing
else: `add(x, 0)` is an ADD node. Simplifying is a separate, explicit call that names the rules
it applies (ir/rewrite.py's `simplify(roots, rules)`, over ir/algebra.py's tables), so the IR a
builder returns never depends on who calls it or when.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..dtypes import DataType
from .kernel import Buffer, vector_width, word_lanes
from .ops import Node, Op, VType, const, const_bool, const_data, item_id, param, step_id, var

__all__ = ["const", "const_bool", "const_data", "var", "param", "item_id", "step_id", "add", "mul",
           "minimum", "maximum", "less", "not_equal", "floordiv", "floormod", "sub", "clamp",
           "logical_and", "where", "load", "index", "bits", "vector_width", "vload", "reverse",
           "vextract", "vpack", "vpack_lanes", "vstore", "store", "atomic_max", "atomic_store",
           "only_if", "pack", "wstore", "combine", "COMBINE_KINDS", "arith", "compare", "convert",
           "ARITH_KINDS"]

IntLike = Node | int


def _int(x: IntLike) -> Node:
    if isinstance(x, Node):
        if x.dtype is not VType.INT:
            raise TypeError(f"expected an INT node, got {x.dtype}")
        return x
    node = _CONSTS.get(x)  # the rules' offsets and factors, built again and again
    if node is None:
        node = const(x)
        if len(_CONSTS) < 4096:
            _CONSTS[node.value] = node  # (held here, so it stays the interned constant)
    return node


_CONSTS: dict[int, Node] = {}
INT = VType.INT


def _binary(op: Op, dtype: VType = VType.INT) -> Callable[[IntLike, IntLike], Node]:
    """The constructor of an op over two INT operands."""
    def construct(a: IntLike, b: IntLike) -> Node:
        # (INT nodes pass through inline: the rules build thousands of sums and products)
        if a.__class__ is not Node or a.dtype is not INT:
            a = _int(a)
        if b.__class__ is not Node or b.dtype is not INT:
            b = _int(b)
        return Node(op, dtype, (a, b))
    construct.__name__ = op.name.lower()
    return construct


def _by_constant(op: Op) -> Callable[[IntLike, IntLike], Node]:
    """The constructor of // or % by a positive constant, or by a runtime size (a PARAM whose
    range starts at 1) of a dividend proven >= 0: both then mean GLSL's plain / and %."""
    def construct(a: IntLike, d: IntLike) -> Node:
        if isinstance(d, Node) and not d.is_const:
            if d.op is not Op.PARAM or d.vmin < 1 or _int(a).vmin < 0:
                raise ValueError(f"{op.name.lower()} by a runtime size: a PARAM >= 1 of a "
                                 "dividend >= 0 only")
            return Node(op, VType.INT, (_int(a), d))
        d = d.value if isinstance(d, Node) else d
        if d <= 0:
            raise ValueError(f"{op.name.lower()} by a positive constant only")
        if a.__class__ is not Node or a.dtype is not INT:
            a = _int(a)
        return Node(op, INT, (a, _int(d)))  # (_int: the interned constant, looked up)
    construct.__name__ = op.name.lower()
    return construct


add = _binary(Op.ADD)
mul = _binary(Op.MUL)
minimum = _binary(Op.MIN)
maximum = _binary(Op.MAX)
less = _binary(Op.CMPLT, VType.BOOL)
not_equal = _binary(Op.CMPNE, VType.BOOL)
floordiv = _by_constant(Op.FLOORDIV)  # rounds towards -inf
floormod = _by_constant(Op.FLOORMOD)  # has the divisor's sign


def sub(a: IntLike, b: IntLike) -> Node:
    return add(a, mul(b, -1))


def clamp(x: IntLike, lo: int, hi: int) -> Node:
    return minimum(maximum(x, lo), hi)


def logical_and(a: Node, b: Node) -> Node:
    if a.dtype is not VType.BOOL or b.dtype is not VType.BOOL:
        raise TypeError("logical_and of two BOOL nodes")
    return Node(Op.AND, VType.BOOL, (a, b))


def all_of(conds: Sequence[Node]) -> Node:
    """Their logical_and, left to right (at least one condition)."""
    out = conds[0]
    for c in conds[1:]:
        out = logical_and(out, c)
    return out


def where(cond: Node, a: Node, b: Node) -> Node:
    if cond.dtype is not VType.BOOL or a.dtype != b.dtype:
        raise TypeError("where(bool, x, y) with x and y of one type")
    return Node(Op.WHERE, a.dtype, (cond, a, b))


def load(buf: Buffer, index: IntLike) -> Node:
    return Node(Op.LOAD, buf.dtype, (_int(index),), buf.name)


def index(raw: Node, dim: IntLike, mode: str) -> Node:
    """Normalize an index value (loaded, or computed from loaded values by arith()) against an
    axis of size `dim` (a constant, or an INT node of range >= 1: a generic kernel's pushed
    size; docs/decisions.md):
    a negative signed index counts from the end once; what is still outside [0, dim) is clamped
    to [0, dim - 1] ("clamp") or becomes -1 ("mask")."""
    if not isinstance(raw.dtype, DataType) or not raw.dtype.is_index:
        raise TypeError("index() takes an index-typed value (int32, int64, uint32, uint64)")
    if mode not in ("clamp", "mask"):
        raise ValueError(mode)
    return Node(Op.INDEX, VType.INT, (raw, _int(dim)), mode)


def bits(value: Node) -> Node:
    """A 32-bit data value's bits as a signed int32 (for counters kept in scratch buffers)."""
    if not isinstance(value.dtype, DataType) or value.dtype.bits != 32:
        raise TypeError("bits() takes a 32-bit value")
    return Node(Op.BITS, VType.INT, (value,))


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


def vpack(elements: list[Node]) -> Node:
    """A vector of 16 bytes of 32/64-bit elements, lane 0 first."""
    dtype = elements[0].dtype
    if (not isinstance(dtype, DataType) or dtype.bits < 32 or len(elements) != vector_width(dtype)
            or any(e.dtype != dtype for e in elements)):
        raise TypeError("vpack takes one vector's worth of 32/64-bit elements of one type")
    return Node(Op.VPACK, VType.VEC16, tuple(elements))


def vpack_lanes(elements: list[Node]) -> Node:
    """A vector of 16 bytes of any one type's elements, lane 0 first: 8/16-bit ones packed
    into its four 32-bit words (pack), lane 0 in the lowest bits."""
    dtype = elements[0].dtype
    if not isinstance(dtype, DataType) or dtype.bits >= 32:
        return vpack(elements)
    per = word_lanes(dtype)
    if len(elements) != vector_width(dtype):
        raise TypeError("vpack_lanes takes one vector's worth of elements of one type")
    return vpack([pack(elements[w:w + per]) for w in range(0, len(elements), per)])


def vstore(buf_name: str, first: Node, vec: Node) -> Node:
    return Node(Op.VSTORE, VType.VOID, (_int(first), vec), buf_name)


def _effect(op: Op, buf: Buffer, idx: IntLike, value: Node, pred: Node | None) -> Node:
    src = (_int(idx), value) if pred is None else (_int(idx), value, pred)
    if pred is not None and pred.dtype is not VType.BOOL:
        raise TypeError("predicate must be BOOL")
    return Node(op, VType.VOID, src, buf.name)


def only_if(effect: Node, cond: Node) -> Node:
    """A predicated effect (STORE, ATOMIC_MAX, ATOMIC_STORE) done only where `cond` also
    holds."""
    if effect.op not in (Op.STORE, Op.ATOMIC_MAX, Op.ATOMIC_STORE) or cond.dtype is not VType.BOOL:
        raise TypeError("only_if takes a store or atomic effect and a BOOL condition")
    pred = cond if len(effect.src) < 3 else logical_and(effect.src[2], cond)
    return Node(effect.op, effect.dtype, (effect.src[0], effect.src[1], pred), effect.arg)


def store(buf: Buffer, idx: IntLike, value: Node, pred: Node | None = None) -> Node:
    if value.dtype != buf.dtype:
        raise TypeError(f"store of {value.dtype} into {buf.name}: {buf.dtype}")
    return _effect(Op.STORE, buf, idx, value, pred)


def atomic_max(buf: Buffer, idx: IntLike, value: IntLike, pred: Node | None = None) -> Node:
    if buf.dtype is not DataType.UINT32:
        raise TypeError("atomic_max needs a UINT32 buffer")
    return _effect(Op.ATOMIC_MAX, buf, idx, _int(value), pred)


def atomic_store(buf: Buffer, idx: IntLike, value: Node, pred: Node | None = None) -> Node:
    """Store one 8/16-bit element where other invocations may store other elements of its
    32-bit word (a scatter's targets): its bits go into the word by atomic and, then or."""
    if buf.dtype.bits >= 32 or value.dtype != buf.dtype:
        raise TypeError(f"atomic_store of {value.dtype} into {buf.name}: {buf.dtype} "
                        "(8/16-bit buffers only)")
    return _effect(Op.ATOMIC_STORE, buf, idx, value, pred)


def pack(elements: list[Node]) -> Node:
    """A 32-bit word of 8/16-bit elements of one type, lane 0 in the lowest bits."""
    dtype = elements[0].dtype
    if (not isinstance(dtype, DataType) or dtype.bits >= 32 or len(elements) != word_lanes(dtype)
            or any(e.dtype != dtype for e in elements)):
        raise TypeError("pack takes one word's worth of 8/16-bit elements of one type")
    return Node(Op.PACK, DataType.UINT32, tuple(elements))


def wstore(buf: Buffer, word: IntLike, value: Node) -> Node:
    """Store 32-bit word `word` of an 8/16-bit buffer (elements word * lanes ...)."""
    if buf.dtype.bits >= 32 or value.dtype is not DataType.UINT32:
        raise TypeError("wstore writes a UINT32 word into an 8/16-bit buffer")
    return Node(Op.WSTORE, VType.VOID, (_int(word), value), buf.name)


COMBINE_KINDS = ("add", "mul", "max", "min")


def combine(kind: str, a: Node, b: Node) -> Node:
    """Two elements of one data type combined as numpy's np.add / np.multiply / np.maximum /
    np.minimum would (a scatter reduction: a the current value, b the update)."""
    if kind not in COMBINE_KINDS:
        raise ValueError(kind)
    if not isinstance(a.dtype, DataType) or a.dtype != b.dtype:
        raise TypeError(f"combine() takes two elements of one data type, got {a.dtype}, {b.dtype}")
    return Node(Op.COMBINE, a.dtype, (a, b), kind)


ARITH_KINDS = ("add", "sub", "mul", "floordiv", "floormod", "truncdiv", "truncmod", "min", "max")
"""Integer arithmetic on elements (Op.ARITH): + - * wrap modulo 2^bits; floordiv/floormod
round towards -inf (Python's // and %, ONNX Mod), truncdiv/truncmod towards 0 (ONNX Div, Mod
with fmod=1, C's / and %); a zero divisor gives 0 (numpy's integer rule)."""


def _integer(op: str, *values: Node) -> DataType:
    dtype = values[0].dtype
    if not isinstance(dtype, DataType) or dtype.numpy.kind not in "iu" or any(
            v.dtype != dtype for v in values):
        raise TypeError(f"{op}() takes integer elements of one type, got "
                        + ", ".join(str(v.dtype) for v in values))
    return dtype


def arith(kind: str, a: Node, b: Node) -> Node:
    """Two integer elements of one type combined by `kind` (ARITH_KINDS), wrapping."""
    if kind not in ARITH_KINDS:
        raise ValueError(kind)
    return Node(Op.ARITH, _integer("arith", a, b), (a, b), kind)


def compare(kind: str, a: Node, b: Node) -> Node:
    """a < b ("lt") or a == b ("eq") of two integer elements of one type, by their values."""
    if kind not in ("lt", "eq"):
        raise ValueError(kind)
    _integer("compare", a, b)
    return Node(Op.COMPARE, VType.BOOL, (a, b), kind)


def convert(x: IntLike, dtype: DataType) -> Node:
    """An integer element (or an INT of index arithmetic) as an element of integer type
    `dtype`: numpy's astype, sign- or zero-extended, then wrapped."""
    if dtype.numpy.kind not in "iu":
        raise TypeError(f"convert() to an integer type, not {dtype.name}")
    x = x if isinstance(x, Node) and x.dtype is not VType.INT else _int(x)
    if x.dtype is not VType.INT:
        _integer("convert", x)
    return x if x.dtype == dtype else Node(Op.CONVERT, dtype, (x,))

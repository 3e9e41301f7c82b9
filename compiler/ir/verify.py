"""Structural and safety checks on IR programs, run after lowering and after every pass.

The safety rule that matters most: every LOAD, STORE and ATOMIC_MAX address is proven, by value
ranges alone, to lie inside its buffer, whatever the index values in memory. Codegen relies on it.
A buffer of runtime extent (a generic kernel's) is proven so for every admissible size
(ir/extents.py).
"""
from __future__ import annotations

from ..dtypes import DataType
from .extents import clamped_vector, clamped_word, vector_within_extent, within_extent
from .extents import clear_memo as clear_extents_memo
from .kernel import SOFT_FLOAT_COPIES, Kernel, Program, soft_float_copies, vector_width, word_lanes
from .ops import INT32_MAX, INT32_MIN, IRError, Node, Op, VType, render_expr, toposort

__all__ = ["IRError", "clear_memo", "verify_program"]


def _check_node(n: Node, k: Kernel, p: Program) -> None:
    def fail(msg: str) -> None:
        raise IRError(f"{p.name}/{k.name}: {msg}: {render_expr(n)}")

    if n.dtype is VType.INT and not (INT32_MIN <= n.vmin and n.vmax <= INT32_MAX):
        fail(f"range [{n.vmin}, {n.vmax}] does not fit int32")
    if n.op in (Op.FLOORDIV, Op.FLOORMOD) and not (
            (n.src[1].is_const and n.src[1].value > 0)
            or (n.src[1].op is Op.PARAM and n.src[1].vmin >= 1 and n.src[0].vmin >= 0)):
        fail("divisor must be a positive constant, or a PARAM >= 1 of a dividend >= 0")
    if n.op is Op.PARAM and n not in p.params:
        fail("a parameter the program does not declare")
    if n.op is Op.VAR and n.arg not in (("gid", 0, k.items - 1), ("step", 0, k.steps - 1)):
        fail("the only variables are the item id gid and the kernel's step")
    if n.op in (Op.LOAD, Op.STORE, Op.ATOMIC_MAX, Op.ATOMIC_STORE):
        try:
            buf = p.buffer(n.buffer)
        except KeyError:
            fail(f"unknown buffer {n.arg!r}")
        addr = n.src[0]
        if addr.vmin < 0 or addr.vmax >= buf.count:
            fail(f"address range [{addr.vmin}, {addr.vmax}] may leave {buf.name}[{buf.count}]")
        if buf.extent is not None and not within_extent(addr, buf.extent, k):
            fail(f"address not proven inside {buf.name}'s runtime extent {buf.extent.arg}")
        if n.op is Op.LOAD and n.dtype != buf.dtype:
            fail("load type differs from the buffer's")
        if n.op is Op.ATOMIC_STORE and (buf.dtype.bits >= 32 or n.src[1].dtype != buf.dtype):
            fail("atomic_store puts an 8/16-bit element of the buffer's type")
        if n.op is Op.STORE and n.src[1].dtype != buf.dtype:
            fail("stored value's type differs from the buffer's")
        if n.op is Op.STORE and buf.dtype.bits < 32 and (
                addr is not k.gid or len(n.src) > 2 or buf.count != k.items):
            fail("8/16-bit stores must write element gid of a buffer of `items` elements, "
                 "unpredicated (kernel.packed_stores: legalize then gives each invocation "
                 "whole 32-bit words)")
    if n.op in (Op.VLOAD, Op.VSTORE):
        try:
            buf = p.buffer(n.buffer)
        except KeyError:
            fail(f"unknown buffer {n.arg!r}")
        width, addr = vector_width(buf.dtype), n.src[0]
        if buf.extent is not None and not (
                vector_within_extent(addr, buf.extent, width, k)
                or (n.op is Op.VLOAD and clamped_vector(addr, buf.extent, width))):
            fail(f"vector access not proven inside {buf.name}'s runtime extent (one holds for "
                 "every size as vector gid of a kernel of count items and an extent of count "
                 "vectors, a load clamped to the extent's last vector, or one whose upper "
                 "bound is a whole vector below the extent: ir/extents.py)")
        # A load may read the padding of the last vector (Buffer.words: every binding is whole
        # 16-byte vectors); only the lanes it extracts are elements, and those are checked where
        # the scalar address was. A store writes elements only.
        end = buf.padded_count if n.op is Op.VLOAD else buf.count
        if addr.vmin < 0 or addr.vmax + width > end:
            fail(f"vector range [{addr.vmin}, {addr.vmax + width - 1}] may leave "
                 f"{buf.name}[{end}]")
        if addr.divisor % width:
            fail(f"vector address not provably a multiple of {width} elements")
        if n.op is Op.VSTORE and n.src[1].dtype is not VType.VEC16:
            fail("vstore of a non-vector value")
    if n.op is Op.WSTORE:
        try:
            buf = p.buffer(n.buffer)
        except KeyError:
            fail(f"unknown buffer {n.arg!r}")
        lanes, addr = word_lanes(buf.dtype), n.src[0]
        if buf.extent is not None and not clamped_word(addr, buf.extent, lanes):
            fail(f"word store not proven inside {buf.name}'s runtime extent (one holds for "
                 "every size only clamped to the extent's last word: min(x, (extent - 1) // "
                 f"{lanes}))")
        words = -(-buf.count // lanes)
        if buf.dtype.bits >= 32 or n.src[1].dtype is not DataType.UINT32:
            fail("wstore writes a uint32 word into an 8/16-bit buffer")
        if addr.vmin < 0 or addr.vmax >= words:
            fail(f"word range [{addr.vmin}, {addr.vmax}] may leave {buf.name}'s {words} words")
    if n.op is Op.PACK and not (isinstance(n.src[0].dtype, DataType) and n.src[0].dtype.bits < 32
                                and len(n.src) == word_lanes(n.src[0].dtype)):
        fail("pack takes one word's worth of 8/16-bit elements")
    if n.op is Op.VEXTRACT and not (n.src[0].dtype is VType.VEC16 and isinstance(n.dtype, DataType)
                                    and 0 <= n.lane < vector_width(n.dtype)):
        fail("vextract needs a vector and a lane inside it")
    if n.op is Op.INDEX and not (isinstance(n.src[0].dtype, DataType) and n.src[1].vmin >= 1
                                 and n.src[0].data_type.is_index):
        fail("index() takes an index-typed value and a dim of at least 1")
    if n.op in (Op.ARITH, Op.COMPARE) and not (
            _integer(n.src[0]) and n.src[1].dtype == n.src[0].dtype
            and (n.dtype == n.src[0].dtype if n.op is Op.ARITH else n.dtype is VType.BOOL)):
        fail(f"{n.op.name.lower()} takes two integer elements of one type")
    if n.op is Op.CONVERT and not (_integer(n) and (n.src[0].dtype is VType.INT
                                                    or _integer(n.src[0]))):
        fail("convert takes an integer element (or an int) to an integer type")


def _integer(n: Node) -> bool:
    return isinstance(n.dtype, DataType) and n.dtype.numpy.kind in "iu"


def _extent_ok(extent: Node, p: Program) -> bool:
    """A runtime extent: a declared PARAM, or one times a positive constant (vectors)."""
    if extent in p.params:
        return True
    return extent.op is Op.MUL and any(a in p.params and m.is_const and m.value > 0
                                       for a, m in (extent.src, extent.src[::-1]))


MAX_PARAMS = 32
"""Push-constant words a generic kernel may take: Vulkan guarantees 128 bytes."""


_OWN_CHECKS = frozenset(map(id, (
    Op.FLOORDIV, Op.FLOORMOD, Op.VAR, Op.LOAD, Op.STORE, Op.ATOMIC_MAX, Op.ATOMIC_STORE, Op.VLOAD,
    Op.VSTORE, Op.WSTORE, Op.PACK, Op.VEXTRACT, Op.INDEX, Op.PARAM, Op.ARITH, Op.COMPARE,
    Op.CONVERT)))
"""The ops _check_node checks beyond an int's range (by id: an enum's hash is Python-level);
a node of any other op that fits int32 passes without the call."""
_INT = VType.INT

MAX_STEPS = 65535
"""A kernel's steps are a loop in the shader; lavapipe stops a loop after 65,535 iterations."""
_VERIFIED: set[tuple[Kernel, tuple]] = set()
"""Kernels proven over these buffers (kernels and their nodes are immutable)."""
_CHECKED: dict[tuple, set[Node]] = {}
"""Per (items, steps, count, step_count, buffers, params): nodes that passed _check_node with
all they depend on. The check reads nothing else of its kernel and program but their names (for
its messages), and the planner's candidates share most of their nodes: each is checked once."""
MEMO_NODES = 1 << 16


def clear_memo() -> None:
    """Forget which kernels and nodes were verified, and what the extent proofs opened."""
    _VERIFIED.clear()
    _CHECKED.clear()
    clear_extents_memo()


def verify_program(p: Program) -> Program:
    """Raise IRError on the first broken invariant; return `p` so passes can chain it."""
    names = [x.name for x in p.buffers]
    if len(set(names)) != len(names):
        raise IRError(f"{p.name}: duplicate buffer names {names}")
    for name in p.inputs + (p.output,):
        p.buffer(name)
    if len(p.params) > MAX_PARAMS:
        raise IRError(f"{p.name}: {len(p.params)} parameters, more than {MAX_PARAMS} push words")
    if any(q.op is not Op.PARAM or q.param != i for i, q in enumerate(p.params)):
        raise IRError(f"{p.name}: params must be PARAM words 0, 1, ... in order")
    if p.push_words > MAX_PARAMS or any(
            not (0 <= k < len(p.params) and 1 <= p.params[k].vmin
                 and p.params[k].vmax <= INT32_MAX) for k in p.divisors):
        raise IRError(f"{p.name}: divisors {p.divisors} must be words of params in "
                      f"[1, {INT32_MAX}], with their magic words within {MAX_PARAMS} push words")
    for buf in p.buffers:
        if buf.extent is not None and (not _extent_ok(buf.extent, p)
                                       or buf.extent.vmax != buf.count):
            raise IRError(f"{p.name}: buffer {buf.name}'s extent must be a declared PARAM (or "
                          "one times a constant) whose largest value is its count")
    for k in p.kernels:
        if (k, p.buffers) in _VERIFIED:  # passes verify what they keep, then the pipeline again
            continue
        if (k.count is not None) != bool(p.params) or (
                k.count is not None and (k.count not in p.params or k.count.vmax != k.items)):
            raise IRError(f"{p.name}/{k.name}: a generic program's kernels run `count` items "
                          "(a declared PARAM whose largest value is `items`)")
        if k.step_count is not None and (k.step_count not in p.params
                                         or k.step_count.vmax != k.steps
                                         or k.step_count.vmin < 1):
            raise IRError(f"{p.name}/{k.name}: a kernel's `step_count` is a declared PARAM in "
                          "[1, steps]")
        if not k.effects:  # its shader would bind no buffer: a driver may crash on it
            raise IRError(f"{p.name}/{k.name}: a kernel with no effects")
        if not 1 <= k.steps <= MAX_STEPS:
            raise IRError(f"{p.name}/{k.name}: {k.steps} steps, not in [1, {MAX_STEPS}]")
        packed = {p.buffer(e.buffer).dtype.itemsize for e in k.effects
                  if e.op is Op.STORE and p.buffer(e.buffer).dtype.bits < 32}
        if len(packed) > 1:
            raise IRError(f"{p.name}/{k.name}: stores of several sub-32-bit widths {packed}")
        copies = soft_float_copies(k)
        if copies > SOFT_FLOAT_COPIES:
            raise IRError(f"{p.name}/{k.name}: {copies} float add/mul combines, more than "
                          f"{SOFT_FLOAT_COPIES} (a driver's compile time)")
        for e in k.effects:
            if e.op is Op.ATOMIC_MAX and p.buffer(e.buffer).dtype is not DataType.UINT32:
                raise IRError(f"{p.name}/{k.name}: atomic_max needs a uint32 buffer")
        context = (k.items, k.steps, k.count, k.step_count, p.buffers, p.params)
        checked = _CHECKED.get(context)
        if checked is None or len(checked) > MEMO_NODES:
            if len(_CHECKED) >= 64:
                _CHECKED.clear()
            checked = _CHECKED[context] = set()
        nodes = toposort(list(k.effects), stop=checked)  # what a checked node uses is checked
        for n in nodes:
            if n not in checked and (id(n.op) in _OWN_CHECKS or n.dtype is _INT and not (
                    INT32_MIN <= n.vmin and n.vmax <= INT32_MAX)):
                _check_node(n, k, p)
        checked.update(nodes)
        if len(_VERIFIED) >= 256:
            _VERIFIED.clear()
        _VERIFIED.add((k, p.buffers))
    return p

"""Kernels and programs: what a dispatch computes, and the buffers a sequence of them share.

A Kernel runs one invocation per item id `gid` in [0, items) and holds a list of effects
(STORE / ATOMIC_MAX nodes): per item, which addresses it reads and which it writes (once per
step, when the kernel has steps). Nothing here
assumes one operator per kernel: a kernel is any set of effects over shared buffers, and a
Program is any ordered list of kernels (each one sees all writes of the ones before it).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..dtypes import DataType, padded_words
from .mapping import Piece, Plan
from .ops import BUFFER_OPS, EFFECTS, Node, Op, VType, item_id, step_id, toposort

VECTOR_BYTES = 16
"""Every binding is whole 16-byte vectors (one uvec4), so that any buffer can be read as
vectors."""


def vector_width(dtype: DataType) -> int:
    """Elements of `dtype` in one 16-byte vector."""
    return VECTOR_BYTES // dtype.itemsize


def word_lanes(dtype: DataType) -> int:
    """Elements of an 8/16-bit type in one 32-bit word (1 for wider types)."""
    return max(1, 4 // dtype.itemsize)


@dataclass(frozen=True)
class Buffer:
    """A flat array of `count` elements of `dtype`, bound to every kernel of a Program."""

    name: str
    dtype: DataType
    count: int
    role: str
    """'input' (uploaded each call), 'output' (downloaded; undefined until written),
    'scratch' (device only; starts zeroed and every kernel that uses it leaves it zeroed
    again), 'temp' (device only; undefined until a kernel of the call writes it: a join tree's
    partial results), or 'status' (starts zeroed, is read back after every call, and the
    runtime zeroes it again when a call set it)."""
    extent: Node | None = None
    """Generic kernels: the PARAM holding the elements this call's buffer has (`count` is then
    its largest admissible value). Every access of such a buffer is proven inside [0, extent)
    for every admissible value (ir/verify.py), and the host checks the pushed extent against
    the buffer it binds (runtime/executable.py)."""

    @property
    def words(self) -> int:
        """32-bit words the buffer occupies: every type travels as packed uint32 words, and the
        buffer is padded to whole 16-byte vectors so that it can also be read as uvec4s."""
        return padded_words(self.count, self.dtype.itemsize)

    @property
    def padded_count(self) -> int:
        """Elements in the buffer's binding: its own and the padding of its last vector (a
        vector load may read that padding; only elements are ever stored)."""
        return self.words * 4 // self.dtype.itemsize


@dataclass(frozen=True)
class Schedule:
    """How a kernel's items map onto invocations at launch: written by passes/schedule.py from
    the kernel's plan (ir/mapping.py), and only printed by codegen."""

    local_size: int
    """Invocations per workgroup."""
    stride: int
    """Items per invocation, local_size apart, so that neighbouring invocations touch
    neighbouring memory (the best copy shader's layout)."""
    items: int
    branches: frozenset[Node] = frozenset()
    """The selects between vectors that run as if/else, each side computing (and loading) only
    what it needs; codegen prints the other selects as selects."""

    @property
    def invocations(self) -> int:
        """Invocations to launch (whole workgroups)."""
        per_group = self.local_size * self.stride
        return -(-self.items // per_group) * self.local_size


@dataclass(frozen=True)
class Kernel:
    name: str
    items: int
    """The item id `gid` ranges over [0, items)."""
    effects: tuple[Node, ...]
    """STORE, VSTORE and ATOMIC_MAX nodes, run in order for each item."""
    unrolled: int = 1
    """How many items of the kernel it was built from one item runs: what carrying out its
    plan's item map made of it (passes/unroll.py's unroll_kernel; printed, never decided on)."""
    steps: int = 1
    """Each item runs its effects once per step id `step` in [0, steps), in order: a loop in the
    invocation, for work that must happen in sequence (scatter's lines, ops/scatter/kernels.py)."""
    schedule: Schedule | None = None
    """How items map onto invocations (passes/schedule.py, the pipeline's last step)."""
    plan: Plan | None = None
    """How the planner (passes/planner.py) chose to map the items of the kernel this one comes
    from; the rewriting passes carry it out."""
    piece: int = 0
    """Which of the plan's pieces (dispatches) this kernel is."""
    count: Node | None = None
    """Generic kernels: the PARAM holding this call's item count (`items` is then its largest
    admissible value, the range of gid); the shader runs items gid < count only."""
    step_count: Node | None = None
    """Generic kernels with steps: the PARAM holding this call's steps (`steps` is then its
    largest admissible value, the range of the step id); the loop stops there (a scatter's
    lines whose length is the call's number of updates)."""

    def __post_init__(self) -> None:
        for e in self.effects:
            if e.op not in EFFECTS or e.dtype is not VType.VOID:
                raise TypeError(f"kernel effects must be one of {[x.name for x in EFFECTS]}, "
                                f"got {e.op.name}")

    @property
    def planned(self) -> Piece | None:
        """The piece of its plan this kernel carries out (None: not planned)."""
        return self.plan.chosen.pieces[self.piece] if self.plan else None

    @property
    def gid(self) -> Node:
        return item_id(self.items)

    @property
    def step(self) -> Node:
        return step_id(self.steps)


@dataclass(frozen=True)
class Program:
    """What one operator call runs: buffers, then kernels dispatched in order."""

    name: str
    buffers: tuple[Buffer, ...]
    kernels: tuple[Kernel, ...]
    inputs: tuple[str, ...]
    """Buffer names in the order the caller passes arrays."""
    output: str
    output_shape: tuple[int, ...] = field(default=())
    params: tuple[Node, ...] = ()
    """Generic programs: the PARAM nodes, word k at position k (push constants, set by the host
    per call from the sizes of the call: docs/generic-kernels.md). Empty: every size is
    baked in."""
    divisors: tuple[int, ...] = ()
    """The PARAM words a kernel divides by through the magic numbers the host pushes after the
    params, two words each (division_magic; passes/divisors.py): a runtime integer division
    costs a multiply-high, an add and a shift, where the hardware's divide is slow or, on
    llvmpipe's SIMD lanes, one scalar instruction per lane."""

    @property
    def push_words(self) -> int:
        """The push-constant words its kernels take: the params, then (magic, shift) per
        divisor (push_values)."""
        return len(self.params) + 2 * len(self.divisors)

    def with_kernels(self, kernels: tuple[Kernel, ...]) -> Program:
        """The same program running other kernels (what every pass returns)."""
        return dataclasses.replace(self, kernels=tuple(kernels))

    def buffer(self, name: str) -> Buffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)


def unbindable(p: Program, params: Sequence[int]) -> str | None:
    """Why `params` cannot be p's push words (their number, or one outside its PARAM's declared
    range), or None: what launch_plan and specialize refuse alike."""
    if len(params) != len(p.params):
        return f"{p.name} takes {len(p.params)} parameters, got {len(params)}"
    return next((f"{p.name}: parameter {q.arg} = {v} outside its range"
                 for q, v in zip(p.params, params) if not q.vmin <= v <= q.vmax), None)


def push_values(p: Program, params: tuple[int, ...]) -> tuple[int, ...]:
    """A call's push words: its params' values, then each divisor's division_magic."""
    magic = (w for k in p.divisors for w in division_magic(params[k]))
    return (*params, *magic) if p.divisors else params


def magic_words(p: Program) -> dict[Node, tuple[int, int]]:
    """Each divisor's PARAM -> the words of its magic and its shift (push_values' order)."""
    base = len(p.params)
    return {p.params[w]: (base + 2 * i, base + 2 * i + 1) for i, w in enumerate(p.divisors)}


MAGIC_RANGES = ((1, (1 << 32) - 1), (0, 31))
"""The ranges of division_magic's two words, m and s."""


def division_magic(d: int) -> tuple[int, int]:
    """(m, s) with n // d == (mulhi32(n, m) + n) >> s for every 0 <= n < 2**31, for a divisor
    1 <= d < 2**31 (the round-up method of Granlund and Montgomery, as PyTorch's IntDivider:
    s = ceil(log2 d), m = floor(2**32 * (2**s - d) / d) + 1 < 2**32; t + n stays below 2**32
    since t < n < 2**31)."""
    if not 1 <= d < 1 << 31:
        raise ValueError(f"a divisor in [1, 2**31), got {d}")
    s = (d - 1).bit_length()
    return ((1 << 32) * ((1 << s) - d)) // d + 1, s


def packed_stores(k: Kernel, p: Program) -> list[Buffer]:
    """The 8/16-bit buffers kernel `k` stores elements to one at a time. Such a store must write
    element gid of a buffer of `items` elements, unpredicated (ir/verify.py), so that
    passes/legalize.py can give each invocation whole 32-bit words: the one rule of sub-word
    ownership, stated here and relied on there."""
    names = sorted({e.buffer for e in k.effects if e.op is Op.STORE})
    return [buf for buf in map(p.buffer, names) if buf.dtype.bits < 32]


_ORDERS: dict[tuple[Node, ...], list[Node]] = {}
"""effects_order's answers, by effects (the keys hold their nodes: no id is reused)."""
MAX_ORDERS = 64


def effects_order(k: Kernel) -> list[Node]:
    """toposort(list(k.effects)), the list shared (callers read it, never change it): the
    planner, the cost model, unroll and codegen each walk the same candidate kernel, and most
    of a compile's walks are these. Remembered for the last MAX_ORDERS effects."""
    order = _ORDERS.get(k.effects)  # one lookup: another thread may clear it meanwhile
    if order is None:
        order = toposort(list(k.effects))
        if len(_ORDERS) >= MAX_ORDERS:
            _ORDERS.clear()
        _ORDERS[k.effects] = order
    return order


SOFT_FLOAT_COPIES = 4
"""The most float add/mul COMBINEs (integer-only soft float, ir/build.py's combine) a kernel may
repeat in one invocation (items or lines an invocation runs, unrolled). Drivers inline each
copy, and their compile time grows faster than the code: SwiftShader's pipeline build of a
generic float32 scatter-add, 16 / 8 / 4 / 2 copies: 50 / 2.6 / 0.8 / 0.3 s (lavapipe's, and
every other reduction's at 16, under a second)."""


def soft_float(kind: str, dtype: object) -> bool:
    """Whether combining `dtype` elements by `kind` is a float add or mul (the costly
    combines: see SOFT_FLOAT_COPIES)."""
    return kind in ("add", "mul") and isinstance(dtype, DataType) and dtype.numpy.kind == "f"


def soft_float_copies(k: Kernel) -> int:
    """The float add/mul COMBINEs one invocation of k runs (see SOFT_FLOAT_COPIES)."""
    return sum(soft_float(n.mode, n.dtype) for n in effects_order(k) if n.op is Op.COMBINE)


def clear_memo() -> None:
    """Forget effects_order's answers."""
    _ORDERS.clear()


def kernel_buffers(k: Kernel, p: Program) -> tuple[Buffer, ...]:
    """The buffers kernel `k` reads or writes, in program order: its bindings 0, 1, ... (a
    kernel binds only these, so it needs as few descriptors as it can: Vulkan guarantees only
    4 storage buffers per shader stage)."""
    used = {n.buffer for n in effects_order(k) if n.op in BUFFER_OPS}
    return tuple(b for b in p.buffers if b.name in used)

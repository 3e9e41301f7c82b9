"""Generic kernels' lowering helpers: tensors whose sizes are push constants
(docs/generic-kernels.md).

A generic lowering builds the same IR as the specialized one, with some sizes replaced by PARAM
nodes (push-constant words the host sets per call). Safety does not depend on the sizes the host
pushes: every access of a buffer whose length varies is clamped to that buffer's pushed extent
(`min(address, extent - 1)`), the output's store is the item id under the shader's `gid < count`
guard, and the host checks every pushed extent against the buffer it binds. Correctness is the
exact index arithmetic: coordinates come from `//` and `%` by one size at a time (a runtime
divisor is a PARAM >= 1 of a dividend >= 0, so GLSL's `/` and `%` are exact), and the outermost
coordinate is clamped to its size rather than reduced (exact, since gid < count).

Each PARAM comes with its recipe: how the host computes its value from a call's validated
descriptor (ParamTable.values).

A tensor's element offset is pushed the same way where the tensor is a view (pushes_offset): a
PARAM in [0, OFFSET_MAX] (sym_offset), which address_sym and sym_buffer take as they take a
symbolic size, the key holding PUSHED in its place (masked(offset=True)); the sizes' ranges
leave the offset that room (offset_room, buffer_room), so every address fits int32 and stays
inside the buffer's runtime extent for every admissible offset.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..ir import Buffer, Program
from ..ir import build as b
from ..ir.ops import INT32_MAX, Node
from ..ir.specialize import specialize
from .formula import paired
from .lowering import Operand, Size, largest, sym_strides
from .tensor import TensorDesc, derived

Recipe = Callable[[Any], int]

MAX_DYNAMIC = 1 << 24
"""The largest size a dynamic dimension admits (smaller where int32 addresses need it)."""

OFFSET_MAX = INT32_MAX // 4
"""The largest element offset a pushed offset admits (pushes_offset): the ranges of the sizes
leave it this much room, so offset + reach stays within INT32_MAX // 2 for every admissible
value (a call whose offset is larger is compiled specialized)."""

PUSHED = "pushed"
"""A pushed offset's place in a generic kernel's key (masked): no value, the kernel reads it."""


@dataclass(frozen=True)
class GenericProgram:
    """A generic lowering's result: the program, and how a call's descriptor gives its push
    words (each in its PARAM's range, or the call is not admissible: compiled specialized)."""

    program: Program
    recipes: tuple[Recipe, ...]
    variant: str = ""
    """Which of the family's generic kernels (GenericRules.variants: "vector", "rows"...,
    "checked", "in place"); "" where the family has one kind."""
    dims: tuple[int, ...] = ()
    """The positions of GenericRules.sizes it takes at dispatch (dynamic.py sets both)."""

    def values(self, desc: Any) -> tuple[int, ...] | None:
        """The push words for a call of `desc` (None: a size outside the declared ranges)."""
        try:
            vals = tuple(int(r(desc)) for r in self.recipes)
        except (IndexError, TypeError, ValueError):
            return None
        if any(not q.vmin <= v <= q.vmax for q, v in zip(self.program.params, vals)):
            return None
        return vals


def static_program(generic: GenericProgram | None, desc: Any) -> Program:
    """A specialized kernel's program: `generic`, the family's lowering of `desc` with no size
    pushed (ParamTable(static=True)), what it leaves pushed (the counts) bound to the call's
    values (ir/specialize.py)."""
    assert generic is not None, "a static lowering takes every validated descriptor"
    values = generic.values(desc)
    assert values is not None, "a static lowering's counts are the call's"
    return specialize(generic.program, values)


@dataclass(frozen=True)
class GenericRules:
    """What a family says of its generic kernels (registry.Rules.generic)."""

    sizes: Callable[[Any], tuple[int, ...]]
    """A validated descriptor -> its sizes a generic kernel may take at dispatch (positions in
    this tuple are the `dims` a generic kernel names)."""
    free: Callable[[Any], tuple[int, ...]]
    """A validated descriptor -> the positions that may be dynamic."""
    key: Callable[[Any, Sequence[int]], tuple[Any, ...]]
    """(descriptor, dims) -> everything but those sizes: descriptors with one key share one
    generic kernel."""
    lower: Callable[[Any, Sequence[int]], GenericProgram | None]
    """(descriptor, dims) -> the generic program, or None where this descriptor has none."""
    layouts: Callable[[Any, Sequence[int]], tuple[Any, ...]] | None = None
    """(descriptor, dims) -> the descriptors that compute the same call, keyed and lowered in
    their place, first preferred (`layouts`); None: the descriptor itself."""

    variants: Callable[[Any, Sequence[int]], tuple[str, ...]] | None = None
    """(descriptor, dims) -> the generic kernels this call may run, best first, the last the
    most general (lower then takes it as a third argument; a variant is part of the kernel's
    key); None: one kind of generic kernel."""
    checked: Callable[[Any, Sequence[int]], GenericProgram | None] | None = None
    """lower in checked mode (check_indices=True: with_index_check's kernels in front); None:
    checked mode compiles specialized."""
    targets: tuple[str, ...] = ("cpu", "gpu")
    """The targets (compiler/target.py) a generic kernel serves; on others the family compiles
    specialized (the scatters' lines, on lavapipe's CPU cores, against a GPU's vote)."""
    in_place: Callable[[Any, Sequence[int]], GenericProgram | None] | None = None
    """lower for the form that updates its data tensor in place (the scatters: out= the data
    tensor, a view at a pushed offset); None: the in-place form compiles specialized."""
    checked_in_place: Callable[[Any, Sequence[int]], GenericProgram | None] | None = None
    """lower for the in-place form in checked mode (its writes made only when every index is
    in range); None: checked mode in place compiles specialized."""
    always: Callable[[Any], tuple[int, ...]] | None = None
    """A validated descriptor -> the free positions that "always" makes dynamic from the first
    call (the others become dynamic once they vary, as in auto: a gather's row width, which its
    vector kernels need static); None: every free one."""
    offsets: Callable[[Any], tuple[int, ...]] | None = None
    """A validated descriptor -> the element offsets its generic kernels may take at dispatch
    (dynamic.py's auto mode: a signature back with other offsets gets a generic kernel); None:
    every TensorDesc's offset in it (tensor_offsets)."""

    def serves(self, target: str, in_place: bool, check_indices: bool) -> bool:
        """Whether a compile with these options may get a generic kernel: its target served,
        the in-place form, checked mode and both together only where the family has that
        form."""
        form = (self.checked_in_place if in_place and check_indices else
                self.in_place if in_place else self.checked if check_indices else self.lower)
        return target in self.targets and form is not None

    def moved(self, desc: Any) -> tuple[int, ...]:
        """The offsets of this call (`offsets`)."""
        return tensor_offsets(desc) if self.offsets is None else self.offsets(desc)

    def forms(self, desc: Any, dims: Sequence[int]) -> tuple[Any, ...]:
        return (desc,) if self.layouts is None else self.layouts(desc, dims)

    def choices(self, desc: Any, dims: Sequence[int]) -> tuple[str, ...]:
        return ("",) if self.variants is None else self.variants(desc, dims)

    def build(self, desc: Any, dims: Sequence[int], variant: str) -> GenericProgram | None:
        return self.lower(desc, dims) if self.variants is None else \
            cast(Any, self.lower)(desc, dims, variant)


class ParamTable:
    """The PARAMs of one generic program, in push-word order, with their recipes. static: the
    lowering of a specialized kernel (every size its number: ir/specialize.py binds what is
    left), which pushes no offset (sym_offset: the tensor's own, every address static)."""

    def __init__(self, static: bool = False) -> None:
        self.params: list[Node] = []
        self.recipes: list[Recipe] = []
        self.static = static

    def add(self, lo: int, hi: int, recipe: Recipe) -> Node:
        p = b.param(len(self.params), lo, hi)
        self.params.append(p)
        self.recipes.append(recipe)
        return p


def dynamic_limit(static: Sequence[int], dynamic: int, strides: Sequence[int] = (),
                  offset: int = 0) -> int:
    """The largest size H (<= MAX_DYNAMIC) each of `dynamic` dimensions may take so that the
    elements (the static sizes' product times H**dynamic) and the farthest address (offset +
    sum((H - 1) * stride) over the dynamic dimensions' strides, which the caller adds to the
    static part in `offset`) fit int32; 0 when none does."""
    lo, hi = 0, MAX_DYNAMIC
    base = math.prod(static)
    while lo < hi:
        h = (lo + hi + 1) // 2
        ok = base * h ** dynamic <= INT32_MAX // 2 and offset + sum(
            (h - 1) * st for st in strides) <= INT32_MAX // 2
        lo, hi = (h, hi) if ok else (lo, h - 1)
    return lo


def generic_layouts(out: TensorDesc, *reads: TensorDesc) -> bool:
    """Whether a generic kernel takes these tensors: an output it owns whole (no strides, offset
    or TotalTensorSizeInBytes: its runtime extent is its elements) and tensors it reads at
    non-negative strides with no TotalTensorSizeInBytes (their reach grows with a pushed size).
    A specialized kernel's lowering (ParamTable(static=True)) takes any layout."""
    return (out.strides is None and not out.offset and out.total_bytes is None
            and all(t.total_bytes is None and all(st >= 0 for st in t.element_strides)
                    for t in reads))


def lowered_variant(variant: str, static: bool, dims: Sequence[int],
                    allowed: Callable[[], Sequence[str]], takes: bool) -> str | None:
    """The variant a family's lowering builds, or None where it builds none. A specialized
    kernel's lowering (static: no dims) builds "scalar", one element an item, whose mapping the
    planner chooses, whatever the validated descriptor; a generic kernel's builds `variant`
    where the call's tensors and sizes take a generic kernel (`takes`: generic_layouts and the
    family's own conditions) and the descriptor allows that variant (allowed(): the family's
    variants; "scalar" always)."""
    assert not (static and dims), "a specialized kernel's sizes are its numbers"
    if static:
        return "scalar"
    return variant if takes and (variant == "scalar" or variant in allowed()) else None


def tensor_limit(t: TensorDesc, dims: Sequence[int]) -> int:
    """dynamic_limit for tensor t with its sizes at `dims` dynamic: its elements and its
    farthest address from its offset's room (offset_room) within int32; a packed tensor's
    farthest address is below its elements, a view's adds its static dimensions' reach and
    its strides at `dims`."""
    fixed = offset_room(t) + sum((s - 1) * st for i, (s, st) in
                                 enumerate(zip(t.sizes, t.strides or ())) if i not in dims)
    return dynamic_limit([s for i, s in enumerate(t.sizes) if i not in dims], len(dims),
                         [st for i, st in enumerate(t.strides or ()) if i in dims], fixed)


def sym_sizes(t: TensorDesc, dims: Sequence[int], table: ParamTable, hi: int,
              recipe_of: Callable[[int], Recipe]) -> list[Size]:
    """t's sizes with those at `dims` made PARAMs in [1, hi] (recipe_of(dim): a call's value)."""
    return [table.add(1, hi, recipe_of(i)) if i in dims else s for i, s in enumerate(t.sizes)]


def sym_buffer(name: str, t: TensorDesc, role: str, sizes: Sequence[Size],
               table: ParamTable, recipe: Recipe, offset: Size,
               strides: Sequence[Size] | None = None) -> tuple[Buffer, Node | None]:
    """The buffer behind a tensor at element `offset` (sym_offset's): static when its sizes and
    offset are, else of a runtime extent (a PARAM whose largest value is the elements the
    largest sizes reach, at `strides` (default sym_strides'), from the largest offset)."""
    if isinstance(offset, int) and all(isinstance(s, int) for s in sizes):
        assert offset == t.offset
        return Buffer(name, t.data_type, t.buffer_elements, role), None
    strides = sym_strides(t, sizes) if strides is None else strides
    reach = largest(offset) + sum((largest(s) - 1) * largest(st)
                                  for s, st in zip(sizes, strides)) + 1
    extent = table.add(1, reach, recipe)
    return Buffer(name, t.data_type, reach, role, extent), extent


def sym_operand(name: str, field: str | Callable[[Any], TensorDesc], t: TensorDesc, role: str,
                sizes: Sequence[Size], table: ParamTable, lanes: int = 1) -> Operand:
    """Tensor `field` of the descriptor (or the one `field(call)` returns) as a generic kernel
    reads it: of `sizes` (some PARAMs), a view's offset pushed (sym_offset: a multiple of
    `lanes`), its buffer of runtime extent where any is (sym_buffer)."""
    of = field if callable(field) else (lambda d: getattr(d, field))
    offset = sym_offset(t, table, lambda d: of(d).offset, lanes)
    buf, extent = sym_buffer(name, t, role, sizes, table, lambda d: of(d).buffer_elements, offset)
    return Operand(buf, sizes, sym_strides(t, sizes), offset, extent)


def pushes_offset(t: TensorDesc) -> bool:
    """Whether a generic kernel takes t's element offset at dispatch (where the family pushes
    its offsets: masked(offset=True), sym_offset): a view's (explicit strides), whose offset a
    window's start or another output of the buffer it shares moves; a packed tensor's only
    where it is not 0 (so the generic kernels of packed tensors stay as they were)."""
    return t.strides is not None or t.offset != 0


def offset_room(t: TensorDesc) -> int:
    """What the ranges of t's sizes leave for its offset (dynamic_limit's `offset`): OFFSET_MAX
    where it is pushed, else the offset itself."""
    return OFFSET_MAX if pushes_offset(t) else t.offset


def buffer_room(t: TensorDesc) -> int:
    """t's buffer elements with its offset at offset_room (dynamic_limit's `offset` for a
    tensor whose every address counts)."""
    return offset_room(t) + t.buffer_elements - t.offset


def sym_offset(t: TensorDesc, table: ParamTable, recipe: Recipe, lanes: int = 1) -> Size:
    """t's element offset: a PARAM in [0, OFFSET_MAX] where pushes_offset(t) (recipe: a call's
    offset), else the int. lanes > 1: a count of vectors times lanes (a variant that loads
    16-byte vectors needs an aligned offset: the kernel takes only such offsets, which the host
    checks in values(), a guarded assumption; divisibility is then a static fact of the IR)."""
    if table.static or not pushes_offset(t):
        return t.offset
    if lanes == 1:
        return table.add(0, OFFSET_MAX, recipe)

    def aligned(d: Any) -> int:
        off = recipe(d)
        return off // lanes if off % lanes == 0 else -1  # outside the range: not admitted
    return b.mul(table.add(0, OFFSET_MAX // lanes, aligned), lanes)


def tensor_offsets(desc: Any) -> tuple[int, ...]:
    """The offset of every TensorDesc field of a descriptor (items of tuple fields too, and the
    tensors of (name, tensor) pairs: an expression's)."""
    found: list[int] = []
    for f in dataclasses.fields(desc):
        value = getattr(desc, f.name)
        for item in value if isinstance(value, tuple) else (value,):
            t = paired(item)
            if isinstance(t, TensorDesc):
                found.append(t.offset)
    return tuple(found)


def indices_offset(desc: Any) -> tuple[int, ...]:
    """GenericRules.offsets of a family that pushes only its indices' offset (its table's is
    in the key: one_hot)."""
    return (desc.indices.offset,)


class _Wild:
    """The stride of a dynamic dimension of size 1 in a call's lookup key: no access of the
    call uses it, so it equals any stride (a key holding one is compared by ==, not hashed)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "*"


WILD = _Wild()


def has_wild(x: Any) -> bool:
    """Whether a key holds a WILD stride (found by a scan, never by hashing)."""
    return x is WILD or (isinstance(x, tuple) and any(has_wild(y) for y in x))


def wild(t: TensorDesc, dims: Sequence[int]) -> TensorDesc:
    """t (explicit) with WILD strides at its dynamic dimensions of size 1: the lookup form of a
    call whose stride there is only explicit()'s guess (a batch of 1 sliced from a wider one),
    which any generic kernel equal elsewhere serves. Never lowered."""
    e = explicit(t, dims)
    assert e.strides is not None
    strides: tuple[Any, ...] = tuple(WILD if i in dims and n == 1 else st
                                     for i, (n, st) in enumerate(zip(t.sizes, e.strides)))
    return derived(e, strides=strides)


def explicit(t: TensorDesc, dims: Sequence[int]) -> TensorDesc:
    """t with explicit element strides, a packed tensor's row-major ones, and the stride of each
    size-1 dimension (which no access of this call uses: a view gives it 0) replaced by the one
    it has when the tensor is sliced there from a buffer laid out like its inner dimensions:
    the next inner dimension's stride times its size (1 for the innermost), 0 where that size
    is dynamic, 1 in this call too (so that no key depends on a dynamic size); a broadcast
    dimension (stride 0) takes no room, so the one outside it steps as the one inside it
    would (ONNX ReverseSequence's [batch] lengths broadcast over [1, batch, inner], strides
    (0, 1, 0): a batch of 1 gets the strides every later batch has). The addresses of this call are
    unchanged; a generic kernel lowered from it bakes that stride into a dynamic dimension of
    size 1, which serves a later call exactly when its key (so this stride) is the same."""
    strides = list(t.element_strides)
    inner = 1
    for i in range(t.rank - 1, -1, -1):
        if t.sizes[i] == 1:
            strides[i] = inner
            if i in dims:  # a dynamic size, 1 in this call: as where it is not
                inner = 0
        elif strides[i] != 0:
            inner = 0 if i in dims or strides[i] < 0 else strides[i] * t.sizes[i]
    return derived(t, strides=tuple(strides))


def layouts(desc: Any, field: str, dims: Sequence[int]) -> tuple[Any, ...]:
    """GenericRules.layouts of a family whose sizes at dispatch are those of `field`: a strided
    tensor keyed by its explicit() layout (cache[:, :, :1], whose last stride is 0, shares the
    kernel of cache[:, :, :t]); a packed one by itself (a kernel whose strides follow its
    sizes) and then by its explicit() layout (the whole cache shares the kernel of its views).
    Any two descriptors of one key make the same accesses: their strides are equal wherever
    their sizes are not 1, and a size-1 dimension's coordinate is 0. A call with a dynamic
    dimension of size 1 is looked up last with a WILD stride there (wild())."""
    t: TensorDesc = getattr(desc, field)
    canonical = derived(desc, **{field: explicit(t, dims)})
    forms = (canonical,) if t.strides is not None else (desc, canonical)
    if any(i in dims and n == 1 for i, n in enumerate(t.sizes)):
        forms += (derived(desc, **{field: wild(t, dims)}),)
    return forms


def masked(t: TensorDesc, dims: Sequence[int], offset: bool = False,
           strides: bool = False) -> tuple[Any, ...]:
    """What a tensor contributes to a generic kernel's key: everything but the sizes at dims
    and, with `offset` (a tensor the family lowers at sym_offset), its offset where pushed;
    with `strides` (a view's the family pushes: pushed_strides), no strides."""
    kept: Any = t.strides
    if strides and t.strides is not None:
        kept = (PUSHED,) * t.rank
    return (t.data_type, tuple(-1 if i in dims else s for i, s in enumerate(t.sizes)),
            kept, t.total_bytes, PUSHED if offset and pushes_offset(t) else t.offset)



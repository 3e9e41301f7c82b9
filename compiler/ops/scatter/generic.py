"""DML_SCATTER_ND and DML_SCATTER as generic kernels (docs/generic-kernels.md): the lines form
of kernels.py with sizes as push constants, copying (copy, then lines) or in place (lines
alone, through the data tensor's view at a pushed offset: a KV cache's prefill of a varying
number of rows), every reduction.

ScatterND: the number of index tuples (the indices' counting dimensions) and the slice (the
input's dimensions after the indexed ones) may vary; the indexed dimensions, whose sizes the
tuples are checked against, stay static. ScatterElements: every size of the indices (the
input's too, but on the axis). A line's length (its steps: ScatterND's tuples, ScatterElements'
axis) is the kernel's step_count, at most MAX_STEPS; a call with more compiles specialized (its
vote). No vote here (its scratch would have a runtime size): the generic kernels serve the cpu
target only (GenericRules.targets), a GPU's scatter compiles specialized. Each item walks
LINE_BLOCK neighbouring lines in step, a line past the call's last one clamped for its
addresses and its stores predicated off (a reduction must not combine twice); the last update
in row-major order wins, as in the specialized lines (docs/decisions.md).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ...dtypes import DataType
from ...family.generic import (
    GenericProgram,
    ParamTable,
    Recipe,
    buffer_room,
    dynamic_limit,
    layouts,
    masked,
    sym_operand,
    sym_sizes,
)
from ...family.index_check import with_index_check, writes_only_if_valid
from ...family.lowering import Operand, Size, largest, product, sym_strides, unflatten
from ...family.rows import vector_block
from ...family.tensor import TensorDesc
from ...family.words import element_kernel
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from ...ir.kernel import SOFT_FLOAT_COPIES, soft_float, vector_width
from ...ir.ops import Op
from ...ir.verify import MAX_STEPS
from .desc import ScatterDesc, ScatterNDDesc
from .kernels import element_target, prefix, tuple_target
from .lower import in_place_layout

Scatter = ScatterDesc | ScatterNDDesc

VECTOR_BLOCK = 8
"""16-byte vectors an item of the copy moves (the generic copy's blocks: family/rows.py)."""
LINE_BLOCK = 16
"""Neighbouring lines an item walks (planner.py's STEP_FACTORS: 16 lines an invocation were the
specialized kernel's best on lavapipe); SOFT_FLOAT_COPIES where they combine floats by add or
mul (a driver's compile time: ir/kernel.py)."""


def scatter_sizes(desc: Scatter) -> tuple[int, ...]:
    """ScatterND: the input's sizes, then the indices'; ScatterElements: the indices'."""
    if isinstance(desc, ScatterNDDesc):
        return desc.input.sizes + desc.indices.sizes
    return desc.indices.sizes


def _updates_dropped(desc: ScatterNDDesc) -> int:
    """Leading counting dimensions of the indices that the updates' rank drops (sizes 1)."""
    d, q = desc.input.rank, desc.indices_dimension_count
    return max(0, (q - 1) + (d - desc.first_indexed - desc.tuple_size) - d)


def scatter_free(desc: Scatter) -> tuple[int, ...]:
    """ScatterND: the slice's input dimensions and the indices' counting ones (those the updates
    keep); ScatterElements: every dimension of the indices."""
    if isinstance(desc, ScatterNDDesc):
        d, q = desc.input.rank, desc.indices_dimension_count
        rows = range(d + d - q + _updates_dropped(desc), d + d - 1)
        return (*range(desc.first_indexed + desc.tuple_size, d), *rows)
    return tuple(range(desc.indices.rank))


def scatter_layouts(desc: Scatter, dims: Sequence[int]) -> tuple[Any, ...]:
    """Keyed by the input's canonical layout (in place it is the output's: a KV cache's view)."""
    if isinstance(desc, ScatterNDDesc):
        return layouts(desc, "input", [i for i in dims if i < desc.input.rank])
    axis = desc.axis
    return layouts(desc, "input", [i for i in dims if i != axis])


def scatter_key(desc: Scatter, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    d = desc.input.rank
    if isinstance(desc, ScatterNDDesc):
        idims = [i - d for i in dims if i >= d]
        in_dims = [i for i in dims if i < d]
        udims = _updates_dims(desc, in_dims, idims)
        extra: tuple[Any, ...] = (desc.input_dimension_count, desc.indices_dimension_count)
    else:
        idims = udims = list(dims)
        in_dims = [i for i in dims if i != desc.axis]
        extra = (desc.axis,)
    return (desc.operator, masked(desc.input, in_dims, offset=True),
            masked(desc.indices, idims, offset=True), masked(desc.updates, udims, offset=True),
            masked(out, in_dims), desc.reduction, *extra)


def _updates_dims(desc: ScatterNDDesc, in_dims: Sequence[int],
                  idims: Sequence[int]) -> list[int]:
    """The updates' dimensions that the dynamic input and indices dimensions are."""
    d, q = desc.input.rank, desc.indices_dimension_count
    first, k = desc.first_indexed, desc.tuple_size
    places = _updates_places(d, q, first, k, _updates_dropped(desc))
    return [u for u, (kind, i) in enumerate(places)
            if (kind == "idx" and i in idims) or (kind == "in" and i in in_dims)]


def _updates_places(d: int, q: int, first: int, k: int, dropped: int) -> list[tuple[str, int]]:
    """Where each updates dimension's size comes from: ("idx", j) the indices' dimension j,
    ("in", i) the input's, ("one", 0) a leading 1."""
    full = [("idx", j) for j in range(d - q, d - 1)] + [("in", i) for i in range(first + k, d)]
    full = full[dropped:]
    return [("one", 0)] * (d - len(full)) + full


def lower_scatter_generic(desc: Scatter, dims: Sequence[int]) -> GenericProgram | None:
    return _lower(desc, dims, in_place=False)


def lower_scatter_in_place(desc: Scatter, dims: Sequence[int]) -> GenericProgram | None:
    return _lower(desc, dims, in_place=True)


def lower_scatter_checked(desc: Scatter, dims: Sequence[int]) -> GenericProgram | None:
    return _lower(desc, dims, in_place=False, checked=True)


def lower_scatter_checked_in_place(desc: Scatter,
                                   dims: Sequence[int]) -> GenericProgram | None:
    return _lower(desc, dims, in_place=True, checked=True)


def _refused(desc: Scatter, dims: Sequence[int], in_place: bool) -> bool:
    """No generic form: a given output layout (copying), TotalTensorSizeInBytes, a negative
    stride, or a dimension the family keeps static."""
    out = desc.output
    assert out is not None
    tensors = (desc.input, desc.indices, desc.updates, out)
    return ((not in_place and (out.strides is not None or out.offset != 0))
            or any(t.total_bytes is not None or any(st < 0 for st in t.element_strides)
                   for t in tensors)
            or not set(dims) <= set(scatter_free(desc)))


def _lower(desc: Scatter, dims: Sequence[int], in_place: bool,
           checked: bool = False) -> GenericProgram | None:
    """The copying or in-place program; checked: with the index check's kernels in front
    (with_index_check: each index against its static indexed size), and in place, the writes
    made only when every index was in range (writes_only_if_valid), as a specialized kernel."""
    if _refused(desc, dims, in_place):
        return None
    if in_place:
        desc = in_place_layout(desc)
    lowered = (_lower_nd(desc, dims, in_place) if isinstance(desc, ScatterNDDesc) else
               _lower_elements(desc, dims, in_place))
    if lowered is None:
        return None
    program, table, s_idx = lowered
    if checked:
        program = with_index_check(program, table, desc, desc.indices, s_idx.sizes, s_idx.buf,
                                   s_idx.extent, s_idx.offset)
    if checked and in_place:
        program = writes_only_if_valid(program)
    return GenericProgram(program, tuple(table.recipes))


def _limit(t: TensorDesc, dyn: Sequence[int], fixed: dict[int, int] | None = None) -> int:
    """dynamic_limit of t's dimensions `dyn`, those in `fixed` at their given largest size (a
    packed tensor's reach is its elements; a view's strides are static)."""
    fixed = fixed or {}
    static = [fixed.get(i, s) for i, s in enumerate(t.sizes) if i not in dyn]
    strides = t.strides or (0,) * t.rank
    room = buffer_room(t) + sum((hi - 1) * strides[i] for i, hi in fixed.items())
    return dynamic_limit(static, len(dyn), [strides[i] for i in dyn], room)


_Lowered = tuple[Program, ParamTable, Operand]
"""A program, its PARAMs' table (checked mode adds its own) and the indices as it reads them."""


def _lower_nd(desc: ScatterNDDesc, dims: Sequence[int], in_place: bool) -> _Lowered | None:
    inp, idx, upd = desc.input, desc.indices, desc.updates
    d, q, first, k = inp.rank, desc.indices_dimension_count, desc.first_indexed, desc.tuple_size
    dropped = _updates_dropped(desc)
    in_dims = [i for i in dims if i < d]
    idims = [i - d for i in dims if i >= d]
    places = _updates_places(d, q, first, k, dropped)
    # the tuples are a line's steps (at most MAX_STEPS); the slice's sizes take what is left
    static_rows = math.prod(s for j, s in enumerate(idx.sizes[:-1]) if j not in idims)
    hi_r = _limit(idx, idims)
    while idims and hi_r > 1 and static_rows * hi_r ** len(idims) > MAX_STEPS:
        hi_r = min(hi_r - 1, int((MAX_STEPS // static_rows) ** (1 / len(idims))) + 1)
    fixed = {u: hi_r for u, (kind, j) in enumerate(places) if kind == "idx" and j in idims}
    slice_u = [u for u, (kind, i) in enumerate(places) if kind == "in" and i in in_dims]
    hi_s = min(_limit(inp, in_dims), _limit(upd, slice_u, fixed))
    if (idims and hi_r < 2) or (in_dims and hi_s < 2) or hi_s < 1 or static_rows > MAX_STEPS:
        return None
    table = ParamTable()
    isizes = sym_sizes(idx, idims, table, hi_r, lambda j: lambda x: x.indices.sizes[j])
    insizes = sym_sizes(inp, in_dims, table, hi_s, lambda i: lambda x: x.input.sizes[i])
    usizes: list[Size] = [1 if kind == "one" else isizes[i] if kind == "idx" else insizes[i]
                          for kind, i in places]
    s_idx = sym_operand("indices", "indices", idx, "input", isizes, table)
    s_upd = sym_operand("updates", "updates", upd, "input", usizes, table)
    slice_sizes, count_sizes = insizes[first + k:], isizes[d - q:d - 1]
    zero = b.const(0)

    def update(row: Node, line: Node) -> tuple[list[Node], Node, list[Node]]:
        """(output coordinates, kept, updates coordinates) of tuple `row` at slice position
        `line` (kernels.py's tuple_target)."""
        rc, sc = _coords(row, count_sizes), _coords(line, slice_sizes)
        indexed, keep = tuple_target(desc, s_idx, [zero] * (d - q) + rc)
        kept = rc[dropped:] + sc
        return [zero] * first + indexed + sc, keep, [zero] * (d - len(kept)) + kept

    def rows(x: Any) -> int:
        return x.indices.element_count // x.tuple_size

    def lines(x: Any) -> int:
        return math.prod(x.input.sizes[x.first_indexed + x.tuple_size:])
    return _program(desc, table, insizes, in_place, (s_idx, s_upd),
                    (product(count_sizes), rows), (product(slice_sizes), lines), update)


def _lower_elements(desc: ScatterDesc, dims: Sequence[int],
                    in_place: bool) -> _Lowered | None:
    inp, idx, upd = desc.input, desc.indices, desc.updates
    axis = desc.axis
    in_dims = [i for i in dims if i != axis]
    hi = min(_limit(idx, dims), _limit(upd, dims), _limit(inp, in_dims))
    if axis in dims:
        hi = min(hi, MAX_STEPS)
    if (dims and hi < 2) or idx.sizes[axis] > MAX_STEPS:
        return None
    table = ParamTable()
    isizes = sym_sizes(idx, dims, table, hi, lambda j: lambda x: x.indices.sizes[j])
    insizes: list[Size] = [inp.sizes[axis] if i == axis else s for i, s in enumerate(isizes)]
    s_idx = sym_operand("indices", "indices", idx, "input", isizes, table)
    s_upd = sym_operand("updates", "updates", upd, "input", isizes, table)
    line_sizes: list[Size] = [1 if i == axis else s for i, s in enumerate(isizes)]

    def update(step: Node, line: Node) -> tuple[list[Node], Node, list[Node]]:
        """The line's coordinates with `step` on the axis (kernels.py's element_target)."""
        uc = _coords(line, line_sizes)
        uc[axis] = step
        return (*element_target(desc, s_idx, uc), uc)

    def steps(x: Any) -> int:
        return x.indices.sizes[x.axis]

    def lines(x: Any) -> int:
        return x.indices.element_count // x.indices.sizes[x.axis]
    return _program(desc, table, insizes, in_place, (s_idx, s_upd), (isizes[axis], steps),
                    (product(line_sizes), lines), update)


def _program(desc: Scatter, table: ParamTable, sizes: list[Size], in_place: bool,
             tensors: tuple[Operand, Operand], steps: tuple[Size, Recipe],
             lines: tuple[Size, Recipe],
             update: Callable[[Node, Node], tuple[list[Node], Node, list[Node]]]
             ) -> _Lowered:
    """Copy (unless in place), then the lines kernel. `update(step, line)`: an update's output
    coordinates, whether it is kept, and its coordinates in the updates; the data tensor's
    `sizes`; `steps` and `lines`: each line's updates and the lines, with their recipes."""
    inp, out = desc.input, desc.output
    assert out is not None
    s_idx, s_upd = tensors
    name = prefix(desc)
    if in_place:  # the data tensor is the output, in its own layout (in_place_layout)
        s_out = sym_operand("output", "input", inp, "output", sizes, table)
        kernels: list[Kernel] = []
        bufs: tuple[Buffer, ...] = (s_idx.buf, s_upd.buf, s_out.buf)
    else:
        s_in = sym_operand("input", "input", inp, "input", sizes, table)
        copy, b_out = _copy_kernel(name, table, s_in, out.data_type,
                                   inp.strides is None and inp.offset == 0)
        s_out = Operand(b_out, sizes, sym_strides(out, sizes), 0, b_out.extent)
        kernels = [copy]
        bufs = (s_in.buf, s_idx.buf, s_upd.buf, s_out.buf)
    n_steps, steps_recipe = steps
    step_count = None if isinstance(n_steps, int) else (
        n_steps if n_steps.op is Op.PARAM else table.add(1, n_steps.vmax, steps_recipe))
    n_lines = table.add(1, largest(lines[0]), lines[1])
    walk = SOFT_FLOAT_COPIES if soft_float(desc.reduction, out.data_type) else LINE_BLOCK
    blocks = table.add(1, -(-n_lines.vmax // walk), lambda x: -(-lines[1](x) // walk))
    g, step = b.item_id(blocks.vmax), b.step_id(largest(n_steps))
    store = b.atomic_store if out.data_type.bits < 32 else b.store  # lines share words
    effects = []
    for j in range(walk):
        line = b.add(b.mul(g, walk), j) if j else b.mul(g, walk)
        coords, keep, ucoords = update(step, b.minimum(line, b.add(n_lines, -1)))
        target = s_out.at(coords)
        value = b.load(s_upd.buf, s_upd.at(ucoords))
        if desc.reduction != "none":
            value = b.combine(desc.reduction, b.load(s_out.buf, target), value)
        effects.append(store(s_out.buf, target, value,
                             pred=b.logical_and(keep, b.less(line, n_lines))))
    kernels.append(Kernel(f"{name}_lines", blocks.vmax, tuple(effects), steps=largest(n_steps),
                          count=blocks, step_count=step_count))
    program = Program(f"{name}_in_place" if in_place else name, bufs, tuple(kernels),
                      ("indices", "updates") if in_place else ("input", "indices", "updates"),
                      "output", out.sizes, params=tuple(table.params))
    return program, table, s_idx


def _copy_kernel(name: str, table: ParamTable, s_in: Operand, dtype: DataType,
                 packed: bool) -> tuple[Kernel, Buffer]:
    """The copy of the input into the (packed) output, with the output's buffer. A packed input
    at offset 0: blocks of VECTOR_BLOCK 16-byte vectors (family/rows.py's vector_block), the
    output's extent its vectors (the last one's padding lanes are the output's own: a generic
    kernel's output is a buffer of its own, family/words.py); else an element (or a word of
    8/16-bit elements) an item, read where the input's layout puts it."""
    elements = largest(product(s_in.sizes))
    if packed:
        lanes = vector_width(dtype)
        vectors = table.add(1, -(-elements // lanes),
                            lambda x: -(-x.input.element_count // lanes))
        blocks = table.add(1, -(-vectors.vmax // VECTOR_BLOCK),
                           lambda x: -(-x.input.element_count // (lanes * VECTOR_BLOCK)))
        b_out = Buffer("output", dtype, vectors.vmax * lanes, "output", b.mul(vectors, lanes))
        last = b.add(vectors, -1)
        zero = b.const(0)  # the one row's start in the input and in the output
        stores = vector_block(b.item_id(blocks.vmax), VECTOR_BLOCK, zero, zero, last, last,
                              s_in.extent, lanes)
        return Kernel(f"{name}_copy", blocks.vmax, tuple(stores), count=blocks), b_out
    count = table.add(1, elements, lambda x: x.input.element_count)
    b_out = Buffer("output", dtype, elements, "output", count)
    return element_kernel(f"{name}_copy", table, count, b_out, lambda t: b.load(
        s_in.buf, s_in.at(unflatten(t, s_in.sizes)))), b_out


def _coords(linear: Node, sizes: Sequence[Size]) -> list[Node]:
    """unflatten, its leading static 1s left out (coordinate 0): a line of one dimension
    is its own coordinate (clamped), no division in the loop."""
    ones = next((i for i, n in enumerate(sizes) if not (isinstance(n, int) and n == 1)),
                len(sizes))
    zero = b.const(0)
    return [zero] * ones + unflatten(linear, sizes[ones:])


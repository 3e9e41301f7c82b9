"""DML_ONE_HOT: one lowering, over sizes that are numbers or push constants (family/generic.py).
One read of the label per output element: values[1] where the element's label (normalized
against the depth; one outside it matches no class) equals its coordinate along the axis, else
values[0].

The specialized kernel (lower_one_hot) is the lowering with every size its number, what it
leaves pushed bound to the call's values (ir/specialize.py); a generic kernel
(lower_one_hot_generic) takes a varying number of indices at dispatch, the depth (the output's
size along the axis) and the values static."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    buffer_room,
    dynamic_limit,
    generic_layouts,
    layouts,
    lowered_variant,
    masked,
    static_program,
    sym_operand,
    sym_sizes,
)
from ...family.index_check import with_index_check
from ...family.lowering import (
    Operand,
    Size,
    address,
    largest,
    product,
    replace,
    unflatten,
)
from ...family.registry import PLAIN, LowerContext
from ...family.rows import BLOCK, row_block_kernel
from ...family.words import element_kernel
from ...ir import Buffer, Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import OneHotDesc


def label_of(desc: OneHotDesc, coords: Sequence[Node], indices: Operand) -> Node:
    """The label of output element `coords` (read as `indices` reads), normalized against the
    depth: -1 outside [-depth, depth), no class."""
    axis = desc.axis
    depth = desc.output.sizes[axis]
    return b.index(indices.load(replace(coords, axis, b.const(0))), depth, "mask")


def is_class(label: Node, x: Node, after: Node | None = None) -> Node:
    """label == x (for coordinates x >= 0 along the axis; `after`: x + 1 as the caller spells
    it, a generic kernel's vector lanes first + (k + 1))."""
    after = b.add(x, 1) if after is None else after
    return b.logical_and(b.less(label, after), b.less(x, b.add(label, 1)))


def lower_one_hot(desc: OneHotDesc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, what it leaves
    pushed bound to the call's values (ir/specialize.py)."""
    return static_program(lower_one_hot_generic(desc, (), static=True), desc)


def one_hot_sizes(desc: OneHotDesc) -> tuple[int, ...]:
    """The sizes a generic one_hot may take at dispatch: the indices' (the output's off the
    axis)."""
    return desc.indices.sizes


def one_hot_free(desc: OneHotDesc) -> tuple[int, ...]:
    """Every dimension but the axis (the indices' 1 there, the output's depth)."""
    return tuple(i for i in range(desc.indices.rank) if i != desc.axis)


def one_hot_layouts(desc: OneHotDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "indices", dims)


def one_hot_key(desc: OneHotDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    return (desc.operator, masked(desc.indices, dims, offset=True), masked(desc.values, ()),
            (out.data_type, out.strides, out.total_bytes, out.offset, out.sizes[desc.axis]),
            desc.axis)


def one_hot_variants(desc: OneHotDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "rows" (the classes the output's
    innermost dimension and its rows whole 16-byte vectors, BLOCK of them or more: each
    invocation loads one label and writes BLOCK vectors of one row, all static, since the
    depth is) and "scalar" (any call: one element, or word of 8/16-bit elements, an item)."""
    out, axis = desc.output, desc.axis
    lanes = vector_width(out.data_type)
    depth = out.sizes[axis]
    if axis == out.rank - 1 and depth % lanes == 0 and depth // lanes >= BLOCK:
        return ("rows", "scalar")
    return ("scalar",)


def lower_one_hot_checked(desc: OneHotDesc, dims: Sequence[int]) -> GenericProgram | None:
    return lower_one_hot_generic(desc, dims, "scalar", checked=True)


def lower_one_hot_generic(desc: OneHotDesc, dims: Sequence[int], variant: str = "scalar",
                          checked: bool = False, static: bool = False) -> GenericProgram | None:
    """The one_hot of `desc` with the indices' (and the output's) sizes at `dims` dynamic;
    checked: with the index check's kernels in front (with_index_check). The "rows" variant
    (one_hot_variants) writes the output by row blocks of 16-byte vectors (family/rows.py):
    vector c of a row holds classes c * lanes ... of the row's label, loaded once (the
    compares against it static offsets from c * lanes), 8/16-bit values packed by words.
    static: the specialized kernel's lowering (no dims; lower_one_hot binds it), one element an
    item, which takes every descriptor."""
    idx, values, out, axis = desc.indices, desc.values, desc.output, desc.axis
    built = lowered_variant(variant, static, dims, lambda: one_hot_variants(desc, dims),
                            generic_layouts(out, idx) and set(dims) <= set(one_hot_free(desc)))
    if built is None:
        return None
    variant = built
    depth = out.sizes[axis]
    hi = 1  # (static: no size is pushed)
    if not static:
        others = [s for i, s in enumerate(idx.sizes) if i not in dims]
        # the output's elements: the indices' times the depth
        hi = dynamic_limit([*others, depth], len(dims),
                           [st for i, st in enumerate(idx.strides or ()) if i in dims],
                           buffer_room(idx))
        if hi < 2:
            return None
    table = ParamTable(static)
    isizes = sym_sizes(idx, dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    osizes: list[Size] = [depth if i == axis else s for i, s in enumerate(isizes)]
    items = product([largest(s) for s in osizes])
    assert isinstance(items, int)
    indices = sym_operand("indices", "indices", idx, "input", isizes, table)
    b_val = Buffer("values", values.data_type, values.buffer_elements, "input")
    zeros = [b.const(0)] * (values.rank - 1)
    on = b.load(b_val, address(zeros + [b.const(1)], values))
    off = b.load(b_val, address(zeros + [b.const(0)], values))

    def label_at(coords: list[Node]) -> Node:
        return label_of(desc, coords, indices)

    if variant == "rows":
        lanes = vector_width(out.data_type)

        def vector(outer: list[Node], col: Node) -> Node:
            label = label_at([*outer, b.const(0)])
            first = b.mul(col, lanes)  # the vector's first class
            hits = [is_class(label, b.add(first, k), b.add(first, k + 1)) for k in range(lanes)]
            return b.vpack_lanes([b.where(hit, on, off) for hit in hits])
        vsizes = [*osizes[:-1], depth // lanes]
        kernel, b_out = row_block_kernel("one_hot", table, vsizes, out.data_type, vector,
                                         lanes=lanes)
        program = Program("one_hot", (indices.buf, b_val, b_out), (kernel,), ("indices", "values"),
                          "output", out.sizes, params=tuple(table.params))
        return GenericProgram(program, tuple(table.recipes))

    count = table.add(1, items, lambda x: x.output.element_count)
    b_out = Buffer("output", out.data_type, items, "output", count)

    def value_of(u: Node) -> Node:
        coords = unflatten(u, osizes)
        label = label_at(coords)
        return b.where(is_class(label, coords[axis]), on, off)
    kernel = element_kernel("one_hot", table, count, b_out, value_of)
    program = Program("one_hot", (indices.buf, b_val, b_out), (kernel,), ("indices", "values"),
                      "output", out.sizes, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, indices.buf,
                                   indices.extent, indices.offset)
    return GenericProgram(program, tuple(table.recipes))

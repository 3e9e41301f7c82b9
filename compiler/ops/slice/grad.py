"""DML_SLICE_GRAD: one lowering, over sizes that are numbers or push constants
(family/generic.py). Output element p lies on the window where, per dimension, t = p - start
(start - p for a negative stride) is >= 0, a multiple of |stride| (a constant divisor) and
t / |stride| < n, the input gradient's size there; it then takes input_gradient[t / |stride|],
read at that coordinate clamped to [0, n - 1] (and the address to the buffer's runtime extent
where it has one), else zero.

The specialized kernel (lower_slice_grad) is the lowering with every size its number, what it
leaves pushed bound (ir/specialize.py). A generic kernel (lower_slice_grad_generic) takes the
input gradient's and the output's sizes at `dims`, the window's offsets and strides fixed. A
positive stride's start is its offset (in the key); a negative stride's, offset + size - 1,
moves with the window's size, so it is a PARAM of its own (the key holds PUSHED there): the
window's sizes are in no key, and a slice's gradient over a varying batch shares one kernel.
The output coordinates come from family/rows.py (row blocks, or one element, a word of
8/16-bit elements, per item; one element an item in a specialized kernel's lowering)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    PUSHED,
    GenericProgram,
    ParamTable,
    Recipe,
    generic_layouts,
    layouts,
    masked,
    static_program,
    sym_buffer,
    sym_offset,
    sym_sizes,
    tensor_limit,
)
from ...family.lowering import Size, address_sym, clamped, int32_strides, sym_strides
from ...family.registry import PLAIN, LowerContext
from ...family.rows import output_kernel, size_of
from ...ir import Node, Program
from ...ir import build as b
from .desc import SliceGradDesc
from .lower import window_starts


def lower_slice_grad(desc: SliceGradDesc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, bound."""
    return static_program(lower_slice_grad_generic(desc, (), static=True), desc)


def grad_sizes(desc: SliceGradDesc) -> tuple[int, ...]:
    """The sizes a generic slice gradient may take at dispatch: the input gradient's, then the
    output's (positions rank + i)."""
    return desc.input_gradient.sizes + desc.output_gradient.sizes


def grad_free(desc: SliceGradDesc) -> tuple[int, ...]:
    return tuple(range(2 * desc.output_gradient.rank))


def _split(desc: SliceGradDesc, dims: Sequence[int]) -> tuple[list[int], list[int]]:
    """dims as the input gradient's dynamic dimensions and the output's."""
    r = desc.output_gradient.rank
    return [i for i in dims if i < r], [i - r for i in dims if i >= r]


def _start_of(i: int) -> Recipe:
    """The recipe of a call's window start along dimension i."""
    return lambda d: window_starts(d)[i]


def grad_offsets(desc: SliceGradDesc) -> tuple[int, ...]:
    """What a generic slice gradient takes at dispatch besides sizes (dynamic.py's auto mode: a
    signature back with others gets a generic kernel): the input gradient's offset and the
    starts of the negative strides' windows."""
    return (desc.input_gradient.offset,
            *(s for s, st in zip(window_starts(desc), desc.strides) if st < 0))


def grad_key(desc: SliceGradDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """The tensors but the sizes at dims, the strides, and each positive stride's start
    (PUSHED for a negative one's); never the window's sizes, which the kernel does not read."""
    dyd, outd = _split(desc, dims)
    return (desc.operator, masked(desc.input_gradient, dyd, offset=True),
            masked(desc.output_gradient, outd), desc.strides,
            tuple(PUSHED if st < 0 else o for o, st in zip(desc.offsets, desc.strides)))


def grad_layouts(desc: SliceGradDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "input_gradient", _split(desc, dims)[0])


def lower_slice_grad_generic(desc: SliceGradDesc, dims: Sequence[int],
                             static: bool = False) -> GenericProgram | None:
    """The slice gradient of `desc` with the sizes at `dims` dynamic (grad_sizes' positions;
    an 8/16-bit output stored by words: family/words.py). None for an output with strides, an
    offset or a TotalTensorSizeInBytes, an input gradient's TotalTensorSizeInBytes or negative
    stride, or sizes no int32 address range admits. static: the specialized kernel's lowering
    (no dims; lower_slice_grad binds it), which takes every validated descriptor."""
    dy, out = desc.input_gradient, desc.output_gradient
    r = out.rank
    assert not (static and dims), "a specialized kernel's sizes are its numbers"
    if not static and (not generic_layouts(out, dy) or not set(dims) <= set(range(2 * r))):
        return None
    dyd, outd = _split(desc, dims)
    hi_dy, hi_out = (1, 1) if static else (tensor_limit(dy, dyd), tensor_limit(out, outd))
    if hi_dy < 1 or hi_out < 1:
        return None
    table = ParamTable(static)
    dy_sizes = sym_sizes(dy, dyd, table, hi_dy, lambda i: size_of("input_gradient", i))
    out_sizes = sym_sizes(out, outd, table, hi_out, lambda i: size_of("output_gradient", i))
    starts: list[Size] = []
    for i, (o, st, m) in enumerate(zip(window_starts(desc), desc.strides, out_sizes)):
        if st > 0 or static:
            starts.append(o)
            continue
        last = m - 1 if isinstance(m, int) else m.vmax - 1  # start < the output's size
        starts.append(table.add(0, last, _start_of(i)))
    offset = sym_offset(dy, table, lambda d: d.input_gradient.offset)
    b_dy, extent = sym_buffer("input_gradient", dy, "input", dy_sizes, table,
                              lambda d: d.input_gradient.buffer_elements, offset)
    strides = int32_strides(dy_sizes, sym_strides(dy, dy_sizes))
    zero = b.const_data(out.data_type, 0)

    def element(outer: list[Node], col: Node) -> Node:
        on: Node | None = None  # rank >= 1 (validated): set below
        src: list[Node] = []
        for p, start, stride, n in zip([*outer, col], starts, desc.strides, dy_sizes):
            t = b.sub(p, start) if stride > 0 else b.sub(start, p)
            step = abs(stride)
            c = b.floordiv(t, step)  # a constant divisor: exact for t < 0 too
            here = b.logical_and(b.less(-1, t), b.less(c, n))
            if step > 1:
                here = b.logical_and(here, b.less(b.floormod(t, step), 1))
            on = here if on is None else b.logical_and(on, here)
            src.append(b.minimum(b.maximum(c, 0), n - 1 if isinstance(n, int) else b.add(n, -1)))
        assert on is not None
        value = b.load(b_dy, clamped(address_sym(src, strides, offset), extent))
        return b.where(on, value, zero)
    kernel, b_out = output_kernel("slice_grad", table, out_sizes, out.data_type, element)
    program = Program("slice_grad", (b_dy, b_out), (kernel,), ("input_gradient",), "output",
                      out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))

"""DML_SPACE_TO_DEPTH(1) and DML_DEPTH_TO_SPACE(1): one lowering, over sizes that are numbers or
push constants (family/generic.py). Each output element reads the input at coordinates of
index arithmetic of its own (DCR or CRD order).

The specialized kernel (lower_depth_space) is the lowering with every size its number, what it
leaves pushed bound to the call's values (ir/specialize.py). A generic kernel
(lower_depth_space_generic) takes N, C, H and W as push constants, the block size and order
fixed. A dynamic dimension's sizes on the two sides differ by a constant factor (the block
size, or its square for the channels): each side's is a PARAM of its own (the divisors that
give coordinates), the smaller side's range [1, top], the larger's its multiples' [factor,
top * factor], so that the input's size and the output's stay in the ratio validation holds
them (depth_to_space's input channels a multiple of b * b, space_to_depth's H and W of b) for
every call the host admits. The scalar kernel maps output coordinates by constants but for the
channels' DCR split by the smaller side's C; vectors.py moves 16-byte vectors."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    generic_layouts,
    layouts,
    lowered_variant,
    masked,
    static_program,
    sym_buffer,
    sym_offset,
    tensor_limit,
)
from ...family.lowering import Size, address_sym, clamped, sym_strides
from ...family.registry import PLAIN, LowerContext
from ...family.rows import BLOCK, output_kernel, size_of, vectors_of
from ...ir import Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import SpaceToDepthDesc
from .vectors import vector_kernel


def source(desc: SpaceToDepthDesc, coords: list[Node], cin: Size, cout: Size) -> list[Node]:
    """The input coordinates of output element `coords`, index arithmetic of its own (DCR or
    CRD order); cin, cout the input's and output's channels (numbers, or in a generic kernel a
    PARAM or a PARAM times b * b where dynamic)."""
    n, ch, h, w = coords
    bs, dcr = desc.block_size, desc.order.endswith("DEPTH_COLUMN_ROW")
    if desc.to_depth:  # output channel -> (block row, block column, input channel)
        if dcr:
            block, src_c = b.floordiv(ch, cin), b.floormod(ch, cin)
        else:
            block, src_c = b.floormod(ch, bs * bs), b.floordiv(ch, bs * bs)
        return [n, src_c, b.add(b.mul(h, bs), b.floordiv(block, bs)),
                b.add(b.mul(w, bs), b.floormod(block, bs))]
    block = b.add(b.mul(b.floormod(h, bs), bs), b.floormod(w, bs))
    src_c = b.add(b.mul(block, cout), ch) if dcr else b.add(b.mul(ch, bs * bs), block)
    return [n, src_c, b.floordiv(h, bs), b.floordiv(w, bs)]


def lower_depth_space(desc: SpaceToDepthDesc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, what it leaves
    pushed bound to the call's values (ir/specialize.py)."""
    return static_program(lower_depth_space_generic(desc, (), static=True), desc)


def depth_space_sizes(desc: SpaceToDepthDesc) -> tuple[int, ...]:
    """The sizes a generic kernel may take at dispatch: the input's N, C, H, W."""
    return desc.input.sizes


def depth_space_free(desc: SpaceToDepthDesc) -> tuple[int, ...]:
    return (0, 1, 2, 3)


def depth_space_key(desc: SpaceToDepthDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True), masked(out, dims),
            desc.block_size, desc.order)


def depth_space_layouts(desc: SpaceToDepthDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "input", dims)


def depth_space_variants(desc: SpaceToDepthDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vector" (vectors.py: groups of
    16-byte vectors, b in and b out; 32/64-bit elements, a block size up to BLOCK, the input
    contiguous along W with its other strides and offset multiples of the vector width, and
    the smaller side's W whole vectors, a dynamic W admitted only as such, the host checking
    it: a guarded assumption) and "scalar" (any sizes)."""
    inp = desc.input
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    small = desc.output if desc.to_depth else inp
    assert small is not None
    vector = (inp.data_type.bits >= 32 and desc.block_size <= BLOCK and strides[-1] == 1
              and all(st % lanes == 0 for st in strides[:-1]) and inp.offset % lanes == 0
              and small.sizes[3] % lanes == 0)
    if not vector:
        return ("scalar",)
    return ("vector", "scalar") if 3 in dims else ("vector",)


def lower_depth_space_generic(desc: SpaceToDepthDesc, dims: Sequence[int],
                              variant: str = "scalar", static: bool = False
                              ) -> GenericProgram | None:
    """The space_to_depth or depth_to_space of `desc` with the input's sizes at `dims` dynamic
    (an 8/16-bit output stored by words: family/words.py); None for a given output layout or
    TotalTensorSizeInBytes, a negative input stride, a variant this call does not allow.
    static: the specialized kernel's lowering (no dims; lower_depth_space binds it), one
    element an item, which takes every descriptor."""
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    built = lowered_variant(variant, static, dims, lambda: depth_space_variants(desc, dims),
                            generic_layouts(out, inp) and set(dims) <= {0, 1, 2, 3})
    if built is None:
        return None
    variant = built
    lanes = vector_width(inp.data_type) if variant == "vector" else 1
    table = ParamTable(static)
    sized = sym_depth_space(desc, dims, table, lanes)
    if sized is None:
        return None
    in_sizes, out_sizes, q = sized
    offset = sym_offset(inp, table, lambda d: d.input.offset, lanes)
    b_in, extent = sym_buffer("input", inp, "input", in_sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    strides = sym_strides(inp, in_sizes)
    if variant == "vector":
        kernel, b_out = vector_kernel(desc, table, in_sizes, out_sizes, strides, offset,
                                      extent, lanes, q)
    else:
        def element(outer: list[Node], col: Node) -> Node:
            src = source(desc, [*outer, col], in_sizes[1], out_sizes[1])
            return b.load(b_in, clamped(address_sym(src, strides, offset), extent))
        kernel, b_out = output_kernel(_name(desc), table, out_sizes, out.data_type, element)
    program = Program(_name(desc), (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def sym_depth_space(desc: SpaceToDepthDesc, dims: Sequence[int], table: ParamTable,
                    lanes: int = 1) -> tuple[list[Size], list[Size], Size] | None:
    """The input's and the output's sizes with those at `dims` symbolic (the module
    docstring); the smaller side's W a count of vectors of `lanes` times lanes (vectors_of:
    multiples only), that count (or the static W's) third. None where the int32 ranges leave a
    dimension no room."""
    inp, out = desc.input, desc.output
    assert out is not None
    bs = desc.block_size
    hi = tensor_limit(inp, dims)
    in_sizes: list[Size] = list(inp.sizes)
    out_sizes: list[Size] = list(out.sizes)
    q: Size = (out if desc.to_depth else inp).sizes[3] // lanes
    for i in dims:
        # the smaller side and the factor of the larger: channels by b * b, space by b
        factor = bs * bs if i == 1 else bs if i > 1 else 1
        small_in = (i == 1) == desc.to_depth or i == 0
        field = "input" if small_in else "output"
        unit = lanes if i == 3 else 1
        top = (hi if small_in else hi // factor) // unit
        if top < 2:
            return None
        recipe = vectors_of(size_of(field, i), unit) if unit > 1 else size_of(field, i)
        count = table.add(1, top, recipe)
        if i == 3:
            q = count
        small = count if unit == 1 else b.mul(count, unit)
        large = small if factor == 1 else table.add(
            factor * unit, top * unit * factor, size_of("output" if small_in else "input", i))
        in_sizes[i], out_sizes[i] = (small, large) if small_in else (large, small)
    return in_sizes, out_sizes, q


def _name(desc: SpaceToDepthDesc) -> str:
    return "space_to_depth" if desc.to_depth else "depth_to_space"

"""DML_PADDING(1): one lowering, over sizes that are numbers or push constants (family/generic.py).
Every mode: an output coordinate x maps to i = x - start, then through where-chains with the
input size n a number or a PARAM (coords.py: the constant's window start <= x < start + n, the
select's load clamped into the input; the edge's clamp to n - 1; the mirrors' 2n - 2 - i and
2n - 1 - i, the wrap's i -/+ n: additions and comparisons only, no division by n).

The specialized kernel (lower_padding) is the lowering with every size its number, what it
leaves pushed bound to the call's values (ir/specialize.py). A generic kernel
(lower_padding_generic) takes the input's sizes as push constants, the pads fixed. One
reflection reaches every output element exactly where validation holds (a pad at most n - 1, n
for symmetric and wrap), so each size's range starts where validation lets it (a smaller size
is not admitted: it compiles specialized, where validation refuses it); the final clamp into
[0, n - 1] only proves it. The output coordinates come from `%` and `//` by the output's sizes,
PARAMs of their own: once per block of a row (family/rows.py) unless its rows are shorter than
a block, then per element; interior.py moves the rows' interior as whole vectors."""
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
    sym_operand,
)
from ...family.lowering import Size
from ...family.registry import PLAIN, LowerContext
from ...family.rows import BLOCK, output_kernel, row_block_kernel, size_of, vectors_of
from ...ir import Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .coords import SMALLEST, padded_element, size_limit
from .desc import PaddingDesc
from .interior import interior_fits, lower_interior
from .validate import padding_bits


def lower_padding(desc: PaddingDesc, ctx: LowerContext = PLAIN) -> Program:
    """The generic lowering with every size its number, what it leaves pushed bound to the
    call's values (ir/specialize.py)."""
    return static_program(lower_padding_generic(desc, (), static=True), desc)


def padding_sizes(desc: PaddingDesc) -> tuple[int, ...]:
    """The sizes a generic padding may take at dispatch: the input's."""
    return desc.input.sizes


def padding_free(desc: PaddingDesc) -> tuple[int, ...]:
    return tuple(range(desc.input.rank))


def padding_key(desc: PaddingDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True), masked(out, dims), desc.mode,
            desc.start_padding, desc.end_padding,
            padding_bits(desc.operator, desc.value, desc.input.data_type))


def padding_layouts(desc: PaddingDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "input", dims)


def padding_variants(desc: PaddingDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "interior" where interior_fits holds
    (the rows' interior moved as whole input vectors, the borders by lanes: interior.py),
    "vector" (family/rows.py's row blocks
    of 16-byte output vectors, each packed from its lanes' elements, mapped and read as the
    scalar kernel's: the output's innermost size a multiple of the vector width, which a
    dynamic one is only admitted as, the host checking it: a guarded assumption; a static one
    of a block of vectors or more) and "scalar" (any sizes)."""
    out = desc.output
    assert out is not None
    lanes = vector_width(out.data_type)
    last = out.rank - 1
    if (out.rank == 0 or out.sizes[-1] % lanes
            or (last not in dims and out.sizes[-1] // lanes < BLOCK)):
        return ("scalar",)
    tail = ("vector", "scalar") if last in dims else ("vector",)
    return ("interior", *tail) if interior_fits(desc) else tail


def lower_padding_generic(desc: PaddingDesc, dims: Sequence[int], variant: str = "scalar",
                          static: bool = False) -> GenericProgram | None:
    """The padding of `desc` with the input's sizes at `dims` dynamic (an 8/16-bit output
    stored by words: family/words.py); None for a given output layout or
    TotalTensorSizeInBytes, a negative input stride, a variant this call does not allow
    (padding_variants). static: the specialized kernel's lowering (no dims; lower_padding
    binds it), one element an item, which takes every descriptor."""
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    built = lowered_variant(variant, static, dims, lambda: padding_variants(desc, dims),
                            generic_layouts(out, inp))
    if built is None:
        return None
    variant = built
    if variant == "interior":
        return lower_interior(desc, dims)
    lanes = vector_width(out.data_type) if variant == "vector" else 1
    last = out.rank - 1
    starts, ends = desc.start_padding, desc.end_padding
    hi = 1 if static else size_limit(desc, dims)
    table = ParamTable(static)
    in_sizes: list[Size] = []
    out_sizes: list[Size] = []
    for i, (n, m) in enumerate(zip(inp.sizes, out.sizes)):
        if i not in dims:
            in_sizes.append(n)
            out_sizes.append(m)
            continue
        extra = SMALLEST.get(desc.mode)
        lo = max(1, starts[i] + extra, ends[i] + extra) if extra is not None else 1
        if hi < lo + 1:
            return None
        in_sizes.append(table.add(lo, hi, size_of("input", i)))
        if i == last and lanes > 1:  # in vectors: the host admits multiples only
            pads = starts[i] + ends[i]
            out_sizes.append(table.add(-(-(lo + pads) // lanes), (hi + pads) // lanes,
                                       vectors_of(size_of("output", i), lanes)))
            continue
        out_sizes.append(table.add(lo + starts[i] + ends[i], hi + starts[i] + ends[i],
                                   size_of("output", i)))
    source = sym_operand("input", "input", inp, "input", in_sizes, table)

    def element(outer: list[Node], col: Node) -> Node:
        return padded_element(desc, [*outer, col], source)
    if lanes > 1:
        if isinstance(out_sizes[-1], int):
            out_sizes[-1] //= lanes

        def vector(outer: list[Node], col: Node) -> Node:
            first = b.mul(col, lanes)
            return b.vpack_lanes([element(outer, b.add(first, j) if j else first)
                                  for j in range(lanes)])
        kernel, b_out = row_block_kernel("padding", table, out_sizes, out.data_type, vector,
                                         lanes=lanes)
    else:
        kernel, b_out = output_kernel("padding", table, out_sizes, out.data_type, element)
    program = Program("padding", (source.buf, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))

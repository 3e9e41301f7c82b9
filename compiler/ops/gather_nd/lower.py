"""DML_GATHER_ND(1): gather form, one invocation per output element. The output's real
coordinates are F = [batch, rest, tail]; the tuple indices[batch, rest, :] gives the
coordinates after the batch ones, each normalized against its dimension (negative from the end,
then clamped: docs/decisions.md)."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.lowering import Operand, address, operand, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Node, Program
from ...ir import build as b
from .desc import GatherND1Desc


def nd_source(desc: GatherND1Desc, coords: Sequence[Node], indices: Operand) -> list[Node]:
    """The input coordinates output `coords` reads: its real coordinates [batch, rest, tail],
    the tuple indices[batch, rest, :] (read as `indices` reads) between the batch and the
    tail, each index clamped to its dimension."""
    inp = desc.input
    d, r, q = inp.rank, desc.input_dimension_count, desc.indices_dimension_count
    bd, k = desc.batch_dimension_count, desc.tuple_size
    assert r and q, "validate() first"
    real = (q - 1) + (r - bd - k)
    full = list(coords[d - real:])  # batch, rest (of the indices), tail (of the input)
    zero = b.const(0)
    lead = [zero] * (d - q) + full[:q - 1]
    tuple_ = [b.index(indices.load(lead + [b.const(j)]), inp.sizes[d - r + bd + j], "clamp")
              for j in range(k)]
    return [zero] * (d - r) + full[:bd] + tuple_ + full[q - 1:]


def lower_gather_nd(desc: GatherND1Desc, ctx: LowerContext = PLAIN) -> Program:
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    source = nd_source(desc, unflatten(gid, out.sizes), operand(idx, b_idx))
    value = b.load(b_in, address(source, inp))
    kernel = Kernel("gather_nd", out.element_count, (b.store(b_out, gid, value),))
    return Program("gather_nd", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                   "output", out.sizes)

"""DML_GATHER_ND(1): gather form, one invocation per output element. The output's real
coordinates are F = [batch, rest, tail]; the tuple indices[batch, rest, :] gives the
coordinates after the batch ones, each normalized against its dimension (negative from the end,
then clamped: docs/decisions.md)."""
from __future__ import annotations

from ...family.lowering import address, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Program
from ...ir import build as b
from .desc import GatherND1Desc


def lower_gather_nd(desc: GatherND1Desc, ctx: LowerContext = PLAIN) -> Program:
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None and desc.input_dimension_count and desc.indices_dimension_count
    d, r, q = inp.rank, desc.input_dimension_count, desc.indices_dimension_count
    bd, k = desc.batch_dimension_count, desc.tuple_size
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    real = (q - 1) + (r - bd - k)
    full = coords[d - real:]  # batch, rest (of the indices), tail (of the input)
    zero = b.const(0)
    lead_idx = [zero] * (d - q) + full[:q - 1]
    tuple_ = [b.index(b.load(b_idx, address(lead_idx + [b.const(j)], idx)),
                      inp.sizes[d - r + bd + j], "clamp") for j in range(k)]
    src = [zero] * (d - r) + full[:bd] + tuple_ + full[q - 1:]
    value = b.load(b_in, address(src, inp))
    kernel = Kernel("gather_nd", out.element_count, (b.store(b_out, gid, value),))
    return Program("gather_nd", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                   "output", out.sizes)

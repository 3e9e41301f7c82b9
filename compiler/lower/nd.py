"""DML_GATHER_ND(1), DML_ONE_HOT, DML_REVERSE_SUBSEQUENCES: gather form, one invocation per
output element, its index tensor read where the element needs it.

GatherND: the output's real coordinates are F = [batch, rest, tail]; the tuple
indices[batch, rest, :] gives the coordinates after the batch ones, each normalized against its
dimension (negative from the end, then clamped: README "Decisions").
OneHot: values[1] where the element's label (normalized against the depth; one outside it
matches no class) equals its coordinate along the axis, else values[0].
ReverseSubsequences: a length L read as an index of the n + 1 positions [0, n] (negative from
the end, beyond clamped); coordinate x < L reads L - 1 - x, the others read themselves.
"""
from __future__ import annotations

from ..descriptors.nd import GatherND1Desc, GatherNDDesc, OneHotDesc, ReverseSubsequencesDesc
from ..ir import Kernel, Program
from ..ir import build as b
from .common import address, replace, tensor_buffer, unflatten


def lower_gather_nd(desc: GatherND1Desc) -> Program:
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


def lower_one_hot(desc: OneHotDesc) -> Program:
    idx, values, out, axis = desc.indices, desc.values, desc.output, desc.axis
    b_idx = tensor_buffer("indices", idx, "input")
    b_val = tensor_buffer("values", values, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    depth = out.sizes[axis]
    label = b.index(b.load(b_idx, address(replace(coords, axis, b.const(0)), idx)), depth,
                    "mask")  # -1 outside [-depth, depth): no class
    zeros = [b.const(0)] * (values.rank - 1)
    on = b.load(b_val, address(zeros + [b.const(1)], values))
    off = b.load(b_val, address(zeros + [b.const(0)], values))
    hit = b.logical_and(b.less(label, b.add(coords[axis], 1)),
                        b.less(coords[axis], b.add(label, 1)))  # label == coordinate
    kernel = Kernel("one_hot", out.element_count, (b.store(b_out, gid, b.where(hit, on, off)),))
    return Program("one_hot", (b_idx, b_val, b_out), (kernel,), ("indices", "values"),
                   "output", out.sizes)


def lower_reverse_subsequences(desc: ReverseSubsequencesDesc) -> Program:
    inp, lengths, out, axis = desc.input, desc.sequence_lengths, desc.output, desc.axis
    assert out is not None, "validate() first"
    b_in = tensor_buffer("input", inp, "input")
    b_len = tensor_buffer("sequence_lengths", lengths, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    n, x = inp.sizes[axis], coords[axis]
    length = b.index(b.load(b_len, address(replace(coords, axis, b.const(0)), lengths)), n + 1,
                     "clamp")
    mirrored = b.clamp(b.sub(b.sub(length, 1), x), 0, n - 1)
    src = b.where(b.less(x, length), mirrored, x)
    value = b.load(b_in, address(replace(coords, axis, src), inp))
    kernel = Kernel("reverse_subsequences", out.element_count, (b.store(b_out, gid, value),))
    return Program("reverse_subsequences", (b_in, b_len, b_out), (kernel,),
                   ("input", "sequence_lengths"), "output", out.sizes)


ND_LOWERINGS = {GatherND1Desc: lower_gather_nd, GatherNDDesc: lower_gather_nd,
                OneHotDesc: lower_one_hot, ReverseSubsequencesDesc: lower_reverse_subsequences}

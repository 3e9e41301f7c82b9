"""DML_JOIN and DML_SPLIT: gather form, one kernel, one invocation per output element.

Join: output element c reads input k, the one whose block along the axis holds c[axis]:
  value = c[axis] < s1 ? in0[c] : c[axis] < s2 ? in1[c - s1] : ...
(each input's load has its axis coordinate clamped into the input, so every address is proven
in its buffer whichever input the comparisons pick).
Split: the outputs lie one after another in one buffer; its element t belongs to output k, the
one whose region [P_k, P_k + m_k) holds t, and reads the input at that output's coordinates
with the axis shifted by the sizes of the outputs before it. The comparisons pick the
address, so each element makes one load.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from ...family.lowering import Operand, address, operand, replace, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...family.tensor import TensorDesc, list_argument
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from .desc import JoinDesc, SplitDesc


def piecewise(position: Node, starts: Sequence[int], pieces: Sequence[Node]) -> Node:
    """pieces[k] where starts[k] <= position < starts[k + 1] (starts[0] is 0)."""
    value = pieces[-1]
    for start, piece in zip(reversed(starts[1:]), reversed(pieces[:-1])):
        value = b.where(b.less(position, start), piece, value)
    return value


GROUP = 7
"""Inputs one join kernel reads at most: with the output, 8 storage buffers (lavapipe allows 32,
SwiftShader 30, MoltenVK 31), fewer where the device binds fewer to one shader
(maxPerStageDescriptorStorageBuffers, 4 at the Vulkan minimum: see group()). More inputs are
joined a group at a time into temp buffers, then those are joined: every kernel still writes
its buffer in order, one element per item (8/16-bit stores need that)."""


def group(storage_buffers: int) -> int:
    """Inputs per join kernel on a device that binds `storage_buffers` to one shader (one is the
    output)."""
    return max(2, min(GROUP, storage_buffers - 1))


def joined(coords: Sequence[Node], axis: int, parts: Sequence[Operand]) -> Node:
    """Element `coords` of `parts` joined along `axis` (their sizes there numbers): part k's,
    the one whose block holds coords[axis], each load's axis coordinate clamped into its part
    (so every address stays in its buffer whichever part the comparisons pick)."""
    starts, loads, at = [], [], 0
    for part in parts:
        n = part.sizes[axis]
        assert isinstance(n, int), "the axis is static"
        local = b.clamp(b.sub(coords[axis], at), 0, n - 1)
        loads.append(part.load(replace(coords, axis, local)))
        starts.append(at)
        at += n
    return piecewise(coords[axis], starts, loads)


def join_kernel(name: str, parts: Sequence[tuple[Buffer, TensorDesc]], target: Buffer,
                sizes: Sequence[int], axis: int) -> Kernel:
    """target (packed, of `sizes`) = the parts joined along `axis`."""
    gid = b.item_id(math.prod(sizes))
    value = joined(unflatten(gid, sizes), axis, [operand(t, buf) for buf, t in parts])
    return Kernel(name, math.prod(sizes), (b.store(target, gid, value),))


def lower_join(desc: JoinDesc, ctx: LowerContext = PLAIN) -> Program:
    out, axis = desc.output, desc.axis
    assert out is not None, "validate() first"
    names = [list_argument("inputs", k) for k in range(len(desc.inputs))]
    bufs = [tensor_buffer(n, t, "input") for n, t in zip(names, desc.inputs)]
    parts = list(zip(bufs, desc.inputs))
    temps: list[Buffer] = []
    kernels: list[Kernel] = []
    width = group(ctx.limits.maxPerStageDescriptorStorageBuffers)
    while len(parts) > width:  # a tree of joins, `width` parts at a time
        joined = []
        for g in range(0, len(parts), width):
            some = parts[g:g + width]
            if len(some) == 1:
                joined.append(some[0])
                continue
            sizes = list(out.sizes)
            sizes[axis] = sum(t.sizes[axis] for _, t in some)
            t = TensorDesc(data_type=out.data_type, sizes=tuple(sizes))
            buf = tensor_buffer(f"joined{len(temps)}", t, "temp")
            kernels.append(join_kernel(f"join{len(temps)}", some, buf, sizes, axis))
            temps.append(buf)
            joined.append((buf, t))
        parts = joined
    b_out = tensor_buffer("output", out, "output")
    kernels.append(join_kernel("join", parts, b_out, out.sizes, axis))
    return Program("join", (*bufs, *temps, b_out), tuple(kernels), tuple(names), "output",
                   out.sizes)


def lower_split(desc: SplitDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out, axis = desc.input, desc.output, desc.axis
    assert out is not None, "validate() first"
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    addresses, shift = [], 0
    for start, t in zip(desc.output_starts, desc.outputs):
        local = b.clamp(b.sub(gid, start), 0, t.element_count - 1)
        coords = unflatten(local, t.sizes)
        coords[axis] = b.add(coords[axis], shift)
        addresses.append(address(coords, inp))
        shift += t.sizes[axis]
    value = b.load(b_in, piecewise(gid, desc.output_starts, addresses))
    kernel = Kernel("split", out.element_count, (b.store(b_out, gid, value),))
    return Program("split", (b_in, b_out), (kernel,), ("input",), "output", out.sizes)

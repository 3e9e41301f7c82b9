"""DML_SLICE1: an affine read per output element."""
from __future__ import annotations

from ..descriptors import Slice1Desc
from ..ir import Kernel, Program
from ..ir import build as b
from .common import address, tensor_buffer, unflatten


def window_starts(desc: Slice1Desc) -> list[int]:
    """Start = offset, or offset + size - 1 when the stride is negative."""
    return [o + s - 1 if st < 0 else o for o, s, st in zip(desc.offsets, desc.sizes, desc.strides)]


def lower_slice(desc: Slice1Desc) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = [b.add(start, b.mul(c, stride)) for c, start, stride
              in zip(unflatten(gid, out.sizes), window_starts(desc), desc.strides)]
    value = b.load(b_in, address(coords, inp))
    kernel = Kernel("slice", out.element_count, (b.store(b_out, gid, value),))
    return Program("slice", (b_in, b_out), (kernel,), ("input",), "output", out.sizes)

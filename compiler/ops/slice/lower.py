"""DML_SLICE1, DML_SLICE and DML_SLICE_GRAD: gather form.

DML_SLICE1 is an affine read per output element; DML_SLICE is the DML_SLICE1 that reads the
same elements. SliceGrad: output element p lies on the slice's window when, per dimension,
t = p - start (or start - p for a negative stride) is >= 0, a multiple of |stride| and
t / |stride| < the slice's output size; it then takes input_gradient[t / |stride|], else zero.
"""
from __future__ import annotations

from ...family.lowering import address, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Node, Program
from ...ir import build as b
from .desc import Slice1Desc, SliceDesc, SliceGradDesc
from .validate import as_slice1


def window_starts(desc: Slice1Desc | SliceGradDesc) -> list[int]:
    """Start = offset, or offset + size - 1 when the stride is negative."""
    return [o + s - 1 if st < 0 else o for o, s, st in zip(desc.offsets, desc.sizes, desc.strides)]


def lower_slice(desc: Slice1Desc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = [b.add(start, b.mul(c, stride)) for c, start, stride
              in zip(unflatten(gid, out.sizes), window_starts(desc), desc.strides)]
    value = b.load(b_in, address(coords, inp))
    kernel = Kernel("slice", out.element_count, (b.store(b_out, gid, value),))
    return Program("slice", (b_in, b_out), (kernel,), ("input",), "output", out.sizes)


def lower_slice0(desc: SliceDesc, ctx: LowerContext = PLAIN) -> Program:
    return lower_slice(as_slice1(desc))


def lower_slice_grad(desc: SliceGradDesc, ctx: LowerContext = PLAIN) -> Program:
    dy, out = desc.input_gradient, desc.output_gradient
    b_dy = tensor_buffer("input_gradient", dy, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    starts = window_starts(desc)
    on: Node | None = None
    src = []
    for p, start, stride, n in zip(unflatten(gid, out.sizes), starts, desc.strides, dy.sizes):
        t = b.sub(p, start) if stride > 0 else b.sub(start, p)
        step = abs(stride)
        c = b.floordiv(t, step)
        here = b.logical_and(b.less(-1, t), b.less(c, n))
        if step > 1:
            here = b.logical_and(here, b.less(b.floormod(t, step), 1))
        on = here if on is None else b.logical_and(on, here)
        src.append(b.clamp(c, 0, n - 1))
    value = b.load(b_dy, address(src, dy))
    zero = b.const_data(out.data_type, 0)
    body = value if on is None else b.where(on, value, zero)
    kernel = Kernel("slice_grad", out.element_count, (b.store(b_out, gid, body),))
    return Program("slice_grad", (b_dy, b_out), (kernel,), ("input_gradient",), "output",
                   out.sizes)

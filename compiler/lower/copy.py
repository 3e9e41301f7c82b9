"""DML_ELEMENT_WISE_IDENTITY, DML_SLICE and DML_SLICE_GRAD: gather form.

Identity reads the input's view at each output element's coordinates (its strides fold into the
address); an output with strides (dmlc: a view written in place, `DeviceTensor.__setitem__`)
is written where its layout puts each element.

DML_SLICE is the DML_SLICE1 that reads the same elements. SliceGrad: output element p
lies on the slice's window when, per dimension, t = p - start (or start - p for a negative
stride) is >= 0, a multiple of |stride| and t / |stride| < the slice's output size; it then
takes input_gradient[t / |stride|], else zero.
"""
from __future__ import annotations

from ..descriptors.copy import IdentityDesc, SliceDesc, SliceGradDesc
from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..validate_copy import as_slice1
from .common import address, store_at, tensor_buffer, unflatten
from .slice import lower_slice, window_starts


def lower_identity(desc: IdentityDesc) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    value = b.load(b_in, address(unflatten(gid, out.sizes), inp))
    kernel = Kernel("identity", out.element_count, (store_at(out, b_out, gid, value),))
    return Program("identity", (b_in, b_out), (kernel,), ("input",), "output", out.sizes)


def lower_slice0(desc: SliceDesc) -> Program:
    return lower_slice(as_slice1(desc))


def lower_slice_grad(desc: SliceGradDesc) -> Program:
    dy, out = desc.input_gradient, desc.output_gradient
    b_dy = tensor_buffer("input_gradient", dy, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    starts = window_starts(desc)  # type: ignore[arg-type]
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


COPY_LOWERINGS = {IdentityDesc: lower_identity, SliceDesc: lower_slice0,
                  SliceGradDesc: lower_slice_grad}

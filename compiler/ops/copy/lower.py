"""DML_ELEMENT_WISE_IDENTITY: gather form. Each output element reads the input's view at its
coordinates (its strides fold into the address); an output with strides (dmlc: a view written
in place, `DeviceTensor.__setitem__`) is written where its layout puts each element."""
from __future__ import annotations

from ...family.lowering import address, store_at, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Program
from ...ir import build as b
from .desc import IdentityDesc


def lower_identity(desc: IdentityDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    value = b.load(b_in, address(unflatten(gid, out.sizes), inp))
    kernel = Kernel("identity", out.element_count, (store_at(out, b_out, gid, value),))
    return Program("identity", (b_in, b_out), (kernel,), ("input",), "output", out.sizes)

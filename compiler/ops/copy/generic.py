"""DML_ELEMENT_WISE_IDENTITY as a generic kernel: the copy of a view whose sizes are push
constants (`dmlc.copy(cache[:, :, :t])` for every t; family/generic.py)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    address_sym,
    clamped,
    dynamic_limit,
    layouts,
    masked,
    product,
    sym_buffer,
    sym_sizes,
    sym_strides,
    unflatten_sym,
)
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
from .desc import IdentityDesc


def identity_sizes(desc: IdentityDesc) -> tuple[int, ...]:
    """The sizes a generic copy may take at dispatch: the input's (the output's are the same)."""
    return desc.input.sizes


def identity_free(desc: IdentityDesc) -> tuple[int, ...]:
    return tuple(range(desc.input.rank))


def identity_layouts(desc: IdentityDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "input", dims)


def identity_key(desc: IdentityDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims), masked(out, dims), desc.scale_bias)


def lower_identity_generic(desc: IdentityDesc, dims: Sequence[int]) -> GenericProgram | None:
    """output = input with the sizes at `dims` dynamic; None where no generic form exists (an
    output written through a view, a negative stride, a given TotalTensorSizeInBytes)."""
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    if (out.strides is not None or out.offset or out.total_bytes is not None
            or out.data_type.bits < 32  # 8/16-bit stores go by words: legalize needs a size
            or inp.total_bytes is not None or any(st < 0 for st in inp.element_strides)):
        return None
    static = [s for i, s in enumerate(inp.sizes) if i not in dims]
    fixed = inp.offset + sum((s - 1) * st for i, (s, st) in
                             enumerate(zip(inp.sizes, inp.element_strides)) if i not in dims)
    dyn_strides = [st for i, st in enumerate(inp.strides or ()) if i in dims]
    hi = dynamic_limit(static, len(dims), dyn_strides, fixed)
    if hi < 2:
        return None
    table = ParamTable()
    sizes = sym_sizes(inp, dims, table, hi, lambda i: lambda d: d.input.sizes[i])
    items_hi = product([s if isinstance(s, int) else s.vmax for s in sizes])
    assert isinstance(items_hi, int)
    count = table.add(1, items_hi, lambda d: d.output.element_count)
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: d.input.buffer_elements)
    b_out = Buffer("output", out.data_type, items_hi, "output", count)
    gid = b.item_id(items_hi)
    coords = unflatten_sym(gid, sizes)
    value = b.load(b_in, clamped(address_sym(coords, sym_strides(inp, sizes), inp.offset), extent))
    kernel = Kernel("identity", items_hi, (b.store(b_out, gid, value),), count=count)
    program = Program("identity", (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))

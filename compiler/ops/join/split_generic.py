"""DML_SPLIT as a generic kernel: the input cut along an axis whose other sizes (a batch) are
push constants (family/generic.py). The outputs' sizes along the axis stay fixed; they still
lie one after another in one buffer (output k from outer * inner * S_k, S_k the axis sizes of
the outputs before it), which a call's descriptor gives the host (output_regions()).

Element gid of that buffer: its inner coordinates (the dimensions after the axis) come from
gid itself, by `%` and `//` one size at a time (every region starts at a multiple of inner);
R = gid // inner lies in output k's rows [outer * S_k, outer * S_{k+1}), where
R - outer * S_k = o * m_k + a: the axis coordinate a + S_k and the outer index o, both by
constants. The comparisons of R pick o and a, and the picked o is unflattened over the
dimensions before the axis once (the divisions by push constants do not grow with the number
of outputs): one address, one load (clamped to the input's runtime extent)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    Size,
    address_sym,
    clamped,
    dynamic_limit,
    layouts,
    masked,
    offset_room,
    product,
    sym_buffer,
    sym_offset,
    sym_strides,
    unflatten_sym,
)
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from .desc import SplitDesc


def split_sizes(desc: SplitDesc) -> tuple[int, ...]:
    """The sizes a generic split may take at dispatch: the input's (the outputs share them off
    the axis)."""
    return desc.input.sizes


def split_free(desc: SplitDesc) -> tuple[int, ...]:
    """Every dimension but the axis."""
    return tuple(i for i in range(desc.input.rank) if i != desc.axis)


def split_key(desc: SplitDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """Everything but the sizes at dims: the input's layout, the outputs' axis sizes, the
    shared buffer's layout fields (its one size follows the others)."""
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True),
            tuple(masked(t, dims) for t in desc.outputs), desc.axis,
            (out.data_type, out.strides, out.total_bytes, out.offset))


def split_layouts(desc: SplitDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """family/generic.py's layouts of the input (a view of one row of a batch shares the kernel
    of the other batch sizes)."""
    return layouts(desc, "input", dims)


def lower_split_generic(desc: SplitDesc, dims: Sequence[int]) -> GenericProgram | None:
    """lower_split (lower.py) with the sizes at `dims` (never the axis) dynamic; None for
    8/16-bit elements, a given output or TotalTensorSizeInBytes, a negative input stride. One
    kernel of two buffers whatever the number of outputs (the binding limits do not apply)."""
    inp, out, axis = desc.input, desc.output, desc.axis
    assert out is not None, "validate() first"
    if (axis in dims or out.strides is not None or out.offset or out.total_bytes is not None
            or out.data_type.bits < 32 or inp.total_bytes is not None
            or any(st < 0 for st in inp.element_strides)):
        return None
    static = [s for i, s in enumerate(inp.sizes) if i not in dims]
    fixed = offset_room(inp) + sum((s - 1) * st for i, (s, st) in
                             enumerate(zip(inp.sizes, inp.element_strides)) if i not in dims)
    hi = dynamic_limit(static, len(dims), [st for i, st in enumerate(inp.strides or ())
                                           if i in dims], fixed)
    if hi < 2:
        return None
    table = ParamTable()
    sizes: list[Size] = [table.add(1, hi, _size_of(i)) if i in dims else s
                         for i, s in enumerate(inp.sizes)]
    items_hi = product([s if isinstance(s, int) else s.vmax for s in sizes])
    assert isinstance(items_hi, int)
    count = table.add(1, items_hi, lambda d: d.input.element_count)
    offset = sym_offset(inp, table, lambda d: d.input.offset)
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    strides = sym_strides(inp, sizes)
    gid = b.item_id(items_hi)
    inner: list[Node] = []  # innermost first
    rows = gid
    for k in range(inp.rank - 1, axis, -1):
        s = sizes[k]
        if isinstance(s, int) and s == 1:
            inner.append(b.const(0))
            continue
        inner.append(b.floormod(rows, s))
        rows = b.floordiv(rows, s)
    outer_sizes = sizes[:axis]
    outer = product(outer_sizes)
    outs: list[Node] = []  # per output: its outer index o
    along: list[Node] = []  # and its axis coordinate in the input, a + S_k
    bounds: list[Node | int] = []
    shift = 0
    for t in desc.outputs:
        m = t.sizes[axis]
        start = outer * shift if isinstance(outer, int) else b.mul(outer, shift)
        local = rows if shift == 0 else b.maximum(b.sub(rows, start), 0)
        if axis == 0:  # no outer dimensions: local < m where this output is chosen
            outs.append(b.const(0))
            along.append(b.add(b.minimum(local, m - 1), shift) if m > 1 else b.const(shift))
        else:
            a = b.const(0) if m == 1 else b.floormod(local, m)
            outs.append(local if m == 1 else b.floordiv(local, m))
            along.append(a if shift == 0 else b.add(a, shift))
        if shift:
            bounds.append(start)
        shift += m
    o, a = _pick(rows, bounds, outs), _pick(rows, bounds, along)
    coords = [*(unflatten_sym(o, outer_sizes) if axis else []), a, *inner[::-1]]
    addr = address_sym(coords, strides, offset)
    b_out = Buffer("output", out.data_type, items_hi, "output", count)
    value = b.load(b_in, clamped(addr, extent))
    kernel = Kernel("split", items_hi, (b.store(b_out, gid, value),), count=count)
    program = Program("split", (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _pick(rows: Node, bounds: Sequence[Node | int], pieces: Sequence[Node]) -> Node:
    """pieces[k] where rows lies in output k's rows (bounds: where outputs 1, 2, ... start)."""
    value = pieces[-1]
    for bound, piece in zip(reversed(bounds), reversed(pieces[:-1])):
        value = b.where(b.less(rows, bound), piece, value)
    return value


def _size_of(i: int) -> Any:
    return lambda d: d.input.sizes[i]

"""Checked mode (check_indices=True): find out-of-range indices on the device.

Two kernels run before the operator's own, over the index tensor's n elements in row-major
order (which tensor, and the axis each element indexes: the descriptor's index_bounds()):
  1. check_indices, per element u: if the index is outside its axis (docs/decisions.md:
     [-dim, dim - 1] signed, [0, dim - 1] unsigned), check_first[0] = max(check_first[0],
     n - u), atomically, so the largest value names the lowest offending position u;
  2. check_report, one invocation: check_value[0] = indices[n - check_first[0]] when set.
Both buffers are "status" buffers: the runtime reads them back after the call and zeroes them
again when they were set. The host never scans the indices.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..errors import IndexOutOfRangeError
from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.ops import Node
from .generic import ParamTable
from .lowering import (
    Size,
    address,
    address_sym,
    clamped,
    largest,
    product,
    sym_strides,
    tensor_buffer,
    unflatten,
)
from .registry import OperatorDesc
from .tensor import IndexBounds, TensorDesc, index_bounds

FIRST, VALUE = "check_first", "check_value"


def is_bad(raw: Node, coords: list[Node], bounds: IndexBounds,
           dims: Sequence[Size] | None = None) -> Node:
    """Whether the index `raw` at `coords` is outside the axis it indexes (of the size
    bounds.dims gives, or `dims`: a generic kernel's, some PARAMs)."""
    sizes = bounds.dims if dims is None else dims

    def outside(dim: Size) -> Node:
        return b.less(b.index(raw, dim, "mask"), 0)
    if bounds.dim_axis is None:
        return outside(sizes[0])
    along, bad = coords[bounds.dim_axis], outside(sizes[-1])
    for j in reversed(range(len(sizes) - 1)):
        bad = b.where(b.not_equal(along, j), bad, outside(sizes[j]))
    return bad


def add_index_check(p: Program, desc: OperatorDesc) -> Program:
    """`p` with the two checking kernels in front and their status buffers added. The index
    tensor is the program's input buffer of its field's keyword (IndicesTensor: indices)."""
    bounds = index_bounds(desc)
    idx = bounds.tensor
    n = idx.element_count
    keyword = type(desc).dml_fields[bounds.field]
    assert keyword is not None, f"{bounds.field} is a tensor field: it has a keyword"
    b_idx = tensor_buffer(keyword, idx, "input")
    b_first = Buffer(FIRST, DataType.UINT32, 1, "status")
    b_value = Buffer(VALUE, idx.data_type, 1, "status")

    u = b.item_id(n)
    coords = unflatten(u, idx.sizes)
    bad = is_bad(b.load(b_idx, address(coords, idx)), coords, bounds)
    k_check = Kernel("check_indices", n, (b.atomic_max(b_first, 0, b.sub(n, u), pred=bad),))

    first = b.clamp(b.bits(b.load(b_first, 0)), 0, n)
    pos = b.clamp(b.sub(n, first), 0, n - 1)
    value = b.load(b_idx, address(unflatten(pos, idx.sizes), idx))
    k_report = Kernel("check_report", 1, (b.store(b_value, 0, value, pred=b.less(0, first)),))
    return Program(p.name, (*p.buffers, b_first, b_value), (k_check, k_report, *p.kernels),
                   p.inputs, p.output, p.output_shape)


def writes_only_if_valid(p: Program) -> Program:
    """Checked mode in place: the kernels after the checks write nothing when an index was
    bad, so that a call that raises leaves the data tensor as it was (every one of them: a
    reduction's long lines run as several kernels)."""
    b_first = p.buffer(FIRST)
    valid = b.less(b.clamp(b.bits(b.load(b_first, 0)), 0, 1), 1)  # check_first[0] == 0
    guarded = tuple(dataclasses.replace(k, effects=tuple(b.only_if(e, valid) for e in k.effects))
                    for k in p.kernels[2:])
    return p.with_kernels((*p.kernels[:2], *guarded))


def raise_for_status(desc: OperatorDesc, status: dict[str, np.ndarray]) -> None:
    """Raise IndexOutOfRangeError if the checking kernels found a bad index."""
    first = int(status[FIRST].view(np.uint32)[0])
    if first == 0:
        return
    bounds = index_bounds(desc)
    idx = bounds.tensor
    pos = tuple(int(p) for p in np.unravel_index(idx.element_count - first, idx.sizes))
    value = int(status[VALUE].view(idx.data_type.numpy)[0])
    dim = bounds.dim_at(pos)
    lo = -dim if idx.data_type.is_signed_int else 0
    raise IndexOutOfRangeError(desc.operator, bounds.field, pos, value, (lo, dim - 1))


def with_index_check(program: Program, table: ParamTable, desc: Any, idx: TensorDesc,
                     sizes: Sequence[Size], buf: Buffer, extent: Node | None,
                     offset: Size, dims: Sequence[Size] | None = None) -> Program:
    """Checked mode (family/index_check.py) for a generic program: the two checking kernels in
    front, over the index tensor of symbolic `sizes` read through `buf` (its loads clamped to
    its runtime extent; `offset` its element offset, sym_offset's), the positions counted by a
    PARAM n; the report kernel runs 1 item. `dims`: the indexed axes' sizes where some are
    PARAMs (is_bad)."""
    bounds = index_bounds(desc)
    n_hi = product([largest(s) for s in sizes])
    assert isinstance(n_hi, int)
    n = table.add(1, n_hi, lambda d: index_bounds(d).tensor.element_count)
    one = table.add(1, 1, lambda d: 1)
    strides = sym_strides(idx, sizes)
    b_first = Buffer(FIRST, DataType.UINT32, 1, "status")
    b_value = Buffer(VALUE, idx.data_type, 1, "status")
    u = b.item_id(n_hi)
    coords = unflatten(u, sizes)
    raw = b.load(buf, clamped(address_sym(coords, strides, offset), extent))
    k_check = Kernel("check_indices", n_hi, (b.atomic_max(b_first, 0, b.sub(n, u),
                                                          pred=is_bad(raw, coords, bounds, dims)),),
                     count=n)
    first = b.minimum(b.maximum(b.bits(b.load(b_first, 0)), 0), n)
    pos = b.minimum(b.maximum(b.sub(n, first), 0), b.add(n, -1))
    value = b.load(buf, clamped(address_sym(unflatten(pos, sizes), strides, offset), extent))
    k_report = Kernel("check_report", 1, (b.store(b_value, 0, value, pred=b.less(0, first)),),
                      count=one)
    return Program(program.name, (*program.buffers, b_first, b_value),
                   (k_check, k_report, *program.kernels), program.inputs, program.output,
                   program.output_shape, params=tuple(table.params))

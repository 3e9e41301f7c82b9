"""Checked mode (check_indices=True): find out-of-range indices on the device.

Two kernels run before the operator's own, over the IndicesTensor's n elements in row-major
order:
  1. check_indices, per element u: if the index is outside its axis (SPEC.md: [-dim, dim - 1]
     signed, [0, dim - 1] unsigned), check_first[0] = max(check_first[0], n - u), atomically,
     so the largest value names the lowest offending position u;
  2. check_report, one invocation: check_value[0] = indices[n - check_first[0]] when set.
Both buffers are "status" buffers: the runtime reads them back after the call and zeroes them
again when they were set. The host never scans the indices.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..descriptors import GatherDesc, GatherElementsDesc, ScatterDesc
from ..dtypes import DataType
from ..errors import IndexOutOfRangeError
from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from .common import address, tensor_buffer, unflatten

Checked = GatherDesc | GatherElementsDesc | ScatterDesc
"""The descriptors with an IndicesTensor (descriptors' has_indices)."""
FIRST, VALUE = "check_first", "check_value"


def add_index_check(p: Program, desc: Checked) -> Program:
    """`p` with the two checking kernels in front and their status buffers added."""
    idx, dim = desc.indices, desc.input.sizes[desc.axis]
    n = idx.element_count
    b_idx = tensor_buffer("indices", idx, "input")
    b_first = Buffer(FIRST, DataType.UINT32, 1, "status")
    b_value = Buffer(VALUE, idx.data_type, 1, "status")

    u = b.item_id(n)
    bad = b.less(b.index(b.load(b_idx, address(unflatten(u, idx.sizes), idx)), dim, "mask"), 0)
    k_check = Kernel("check_indices", n, (b.atomic_max(b_first, 0, b.sub(n, u), pred=bad),))

    first = b.clamp(b.bits(b.load(b_first, 0)), 0, n)
    pos = b.clamp(b.sub(n, first), 0, n - 1)
    value = b.load(b_idx, address(unflatten(pos, idx.sizes), idx))
    k_report = Kernel("check_report", 1, (b.store(b_value, 0, value, pred=b.less(0, first)),))
    return Program(p.name, (*p.buffers, b_first, b_value), (k_check, k_report, *p.kernels),
                   p.inputs, p.output, p.output_shape)


def writes_only_if_valid(p: Program) -> Program:
    """Checked mode in place: the first kernel after the checks writes nothing when an index
    was bad, so that a call that raises leaves the data tensor as it was."""
    b_first = p.buffer(FIRST)
    valid = b.less(b.clamp(b.bits(b.load(b_first, 0)), 0, 1), 1)  # check_first[0] == 0
    k = p.kernels[2]
    effects = tuple(b.only_if(e, valid) for e in k.effects)
    return p.with_kernels((*p.kernels[:2], dataclasses.replace(k, effects=effects),
                           *p.kernels[3:]))


def raise_for_status(desc: Checked, status: dict[str, np.ndarray]) -> None:
    """Raise IndexOutOfRangeError if the checking kernels found a bad index."""
    first = int(status[FIRST].view(np.uint32)[0])
    if first == 0:
        return
    idx, dim = desc.indices, desc.input.sizes[desc.axis]
    pos = np.unravel_index(idx.element_count - first, idx.sizes)
    value = int(status[VALUE].view(idx.data_type.numpy)[0])
    lo = -dim if idx.data_type.is_signed_int else 0
    raise IndexOutOfRangeError(desc.operator, "IndicesTensor", tuple(int(p) for p in pos), value,
                               (lo, dim - 1))

"""Shared lowering helpers: tensors as buffers, and linear index <-> coordinates <-> address."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.ops import INT32_MAX, INT32_MIN, Node
from .tensor import TensorDesc


def tensor_buffer(name: str, t: TensorDesc, role: str) -> Buffer:
    """The buffer behind a tensor: as many elements as its sizes and strides reach."""
    return Buffer(name, t.data_type, t.buffer_elements, role)


def unflatten(linear: Node, sizes: Sequence[int]) -> list[Node]:
    """Row-major coordinates of `linear` in a tensor of `sizes`: (linear // inner) % size."""
    coords = []
    for k, size in enumerate(sizes):
        inner = math.prod(sizes[k + 1:])
        coords.append(b.floormod(b.floordiv(linear, inner), size))
    return coords


def address(coords: Sequence[Node], t: TensorDesc) -> Node:
    """Element offset of `coords` in t's buffer: offset + sum(coord * stride). A size-1 dimension's
    coordinate is always 0, so a stride there that no 32-bit int holds counts as 0 (the rules
    fold the others away)."""
    acc = b.const(t.offset)
    for c, stride, size in zip(coords, t.element_strides, t.sizes):
        if size == 1 and not INT32_MIN <= stride <= INT32_MAX:
            stride = 0
        acc = b.add(acc, b.mul(c, stride))
    return acc


def store_at(out: TensorDesc, buf: Buffer, t: Node, value: Node) -> Node:
    """The store of output element t (row-major): at t where the output is the kernel's own
    buffer (no strides, no offset: whole words and vectors may be written), else where its
    layout (a view's strides and offset) puts it, element by element, atomically for 8/16-bit
    elements (the other elements of their 32-bit word are not t's to write)."""
    if out.strides is None and not out.offset:
        return b.store(buf, t, value)
    at = address(unflatten(t, out.sizes), out)
    return (b.atomic_store if out.data_type.bits < 32 else b.store)(buf, at, value)


def replace(coords: Sequence[Node], axis: int, value: Node) -> list[Node]:
    out = list(coords)
    out[axis] = value
    return out


def gather_form(name: str, inp: TensorDesc, out: TensorDesc,
                 coords_of: Callable[[list[Node], Buffer], Node]) -> Program:
    """output[c] = input[coords_of(c)] (or what coords_of returns as the value itself)."""
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    value = coords_of(coords, b_in)
    kernel = Kernel(name, out.element_count, (b.store(b_out, gid, value),))
    return Program(name, (b_in, b_out), (kernel,), ("input",), "output", out.sizes)

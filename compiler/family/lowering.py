"""The families' shape helpers: tensors as buffers, linear index <-> coordinates <-> address,
over sizes that are numbers (a specialized kernel) or PARAMs (a generic one: family/generic.py).

Both kinds of kernel share the algorithm, written over `Size` and reading its tensors through
`Operand`s. Index arithmetic is spelled in full (`address_sym`'s every term, `unflatten`'s
every size) and the rule passes fold it, under a generic kernel's PARAMs' ranges too; a generic
kernel's accesses are clamped to their buffers' runtime extents."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.ops import INT32_MAX, INT32_MIN, Node
from .tensor import TensorDesc

Size = Node | int
"""A size: a number, or a generic kernel's PARAM (a push constant, family/generic.py)."""


def tensor_buffer(name: str, t: TensorDesc, role: str) -> Buffer:
    """The buffer behind a tensor: as many elements as its sizes and strides reach."""
    return Buffer(name, t.data_type, t.buffer_elements, role)


def address(coords: Sequence[Node], t: TensorDesc) -> Node:
    """Element offset of `coords` in t's buffer (address_sym)."""
    return address_sym(coords, int32_strides(t.sizes, t.element_strides), t.offset)


def int32_strides(sizes: Sequence[Size], strides: Sequence[Size]) -> list[Size]:
    """The strides an address takes: a size-1 dimension's coordinate is always 0, so a stride
    there that no 32-bit int holds counts as 0."""
    return [0 if isinstance(n, int) and n == 1 and isinstance(st, int)
            and not INT32_MIN <= st <= INT32_MAX else st for n, st in zip(sizes, strides)]


@dataclass(frozen=True)
class Operand:
    """A tensor as a kernel reads it: its buffer, its sizes, element strides and offset (numbers,
    or a generic kernel's PARAMs), and the address of an element (address_sym's), clamped to
    the buffer's runtime `extent` where it has one (a generic kernel's: family/generic.py,
    sym_operand)."""

    buf: Buffer
    sizes: Sequence[Size]
    strides: Sequence[Size]
    offset: Size
    extent: Node | None = None

    def at(self, coords: Sequence[Node]) -> Node:
        return clamped(address_sym(coords, self.strides, self.offset), self.extent)

    def load(self, coords: Sequence[Node]) -> Node:
        return b.load(self.buf, self.at(coords))


def operand(t: TensorDesc, buf: Buffer) -> Operand:
    """Tensor t as a specialized kernel reads it, from `buf` (tensor_buffer's)."""
    return Operand(buf, t.sizes, int32_strides(t.sizes, t.element_strides), t.offset)


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


def largest(x: Size) -> int:
    """A size's largest value: itself, or a PARAM's upper bound."""
    return x if isinstance(x, int) else x.vmax


def product(sizes: Sequence[Size]) -> Size:
    acc: Size = 1
    for s in sizes:
        acc = (acc * s if isinstance(acc, int) and isinstance(s, int) else b.mul(acc, s))
    return acc


def sym_strides(t: TensorDesc, sizes: Sequence[Size]) -> list[Size]:
    """t's element strides: its own, or those of a packed tensor of `sizes`."""
    if t.strides is not None:
        return list(t.strides)
    return [product(sizes[i + 1:]) for i in range(len(sizes))]


def unflatten(linear: Node, sizes: Sequence[Size]) -> list[Node]:
    """Row-major coordinates of `linear` (in [0, product(sizes))): innermost first, % then //
    by one size at a time; the outermost clamped to its size (exact below the product); 0
    where a size is 1 (which the rules would not always see: min(gid, 0) in a kernel of one
    item is gid to them)."""
    if not sizes:
        return []
    coords: list[Node] = []
    q = linear
    for size in sizes[:0:-1]:
        if isinstance(size, int) and size == 1:
            coords.append(b.const(0))
            continue
        coords.append(b.floormod(q, size))
        q = b.floordiv(q, size)
    first = sizes[0]
    coords.append(b.const(0) if isinstance(first, int) and first == 1 else
                  b.minimum(q, first - 1 if isinstance(first, int) else b.add(first, -1)))
    return coords[::-1]


def address_sym(coords: Sequence[Node], strides: Sequence[Size], offset: Size) -> Node:
    """offset + sum(coord * stride) over numbers or PARAMs (a pushed offset, sym_offset's, is a
    PARAM or a PARAM times the vector width), spelled in full: the rule passes fold it."""
    acc = b.const(offset) if isinstance(offset, int) else offset
    for c, st in zip(coords, strides):
        acc = b.add(acc, b.mul(c, st))
    return acc


def block_column(block: Node, size: int, j: int, last: Node | int) -> Node:
    """Column j of block `block` of `size` columns along a row whose last column is `last`:
    block * size + j, clamped to `last` (a block past the row's end repeats its last column;
    the rule passes drop the clamp where the column's range keeps it there)."""
    return b.minimum(b.add(b.mul(block, size), j), last)


def clamped(addr: Node, extent: Node | None) -> Node:
    """An address kept inside a buffer of runtime `extent` elements (verify.py's proof)."""
    return addr if extent is None else b.minimum(addr, b.add(extent, -1))


def clamped_vector(addr: Node, extent: Node | None, lanes: int) -> Node:
    """An aligned vector's element address kept inside a buffer of runtime `extent` elements:
    clamped to its last vector (verify.py's proof; exact for every vector the call reads)."""
    if extent is None:
        return addr
    return b.mul(b.minimum(b.floordiv(addr, lanes), b.floordiv(b.add(extent, -1), lanes)), lanes)

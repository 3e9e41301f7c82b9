"""Generic gather-form kernels by row blocks (docs/generic-kernels.md): each invocation writes
BLOCK consecutive elements of one row of a packed output (its innermost dimension), so the
divisions by push constants that give a row's outer coordinates run once per block, not once per
element; what the family maps per element (a tile's x or a padding's where-chain along the row)
stays cheap. Exact for every size: column c = min(BLOCK * block + j, row - 1) (a block past its
row's end writes the row's last element again, the same value), stored at
min(row * width + c, elements - 1) (clamped to the output's runtime extent: verify.py's proof;
exact, since the row and column are inside the output)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..dtypes import DataType
from ..ir import Buffer, Kernel, Node
from ..ir import build as b
from .generic import ParamTable
from .lowering import Size, block_column, clamped_vector, largest, product, unflatten
from .tensor import TensorDesc
from .words import element_kernel

BLOCK = 8
"""Elements (or 16-byte vectors) of one row per invocation."""

Element = Callable[[list[Node], Node], Node]
"""(the row's outer output coordinates, the column) -> the element's value."""


def by_rows(sizes: Sequence[Size]) -> bool:
    """Whether row blocks suit an output of these sizes: its rows are not known to be shorter
    than a block (a dynamic innermost size is taken as long)."""
    inner = sizes[-1] if sizes else 1
    return not isinstance(inner, int) or inner >= BLOCK


def row_block_kernel(name: str, table: ParamTable, sizes: Sequence[Size], dtype: DataType,
                     element: Element, out_of: Callable[[Any], TensorDesc] = lambda d: d.output,
                     lanes: int = 1, buffer: str = "output") -> tuple[Kernel, Buffer]:
    """The kernel `name` writing the packed output of `sizes` (some PARAMs) by row blocks, and
    its output buffer (of runtime extent: the output's elements, a PARAM); each recipe reads
    out_of(call's descriptor). With lanes > 1 the innermost size is counted in vectors of
    `lanes` elements (the output's innermost size a multiple of them, which the caller
    guarantees), `element` gives a 16-byte vector and each is stored at min(row * width + c,
    vectors - 1) * lanes (the extent `vectors * lanes`: verify.py's whole-vector clamp)."""
    his = [largest(s) for s in sizes]
    elements_hi = product(his)
    assert isinstance(elements_hi, int)
    inner = sizes[-1]
    inner_hi = his[-1]
    rows_hi = elements_hi // inner_hi
    total = table.add(1, elements_hi, lambda d: out_of(d).element_count // lanes)
    per_row: Size = -(-inner // BLOCK) if isinstance(inner, int) else table.add(
        1, -(-inner_hi // BLOCK), lambda d: -(-(out_of(d).sizes[-1] // lanes) // BLOCK))
    per_row_hi = largest(per_row)
    blocks_hi = rows_hi * per_row_hi
    count = table.add(1, blocks_hi, lambda d: _blocks(out_of(d), lanes))
    gid = b.item_id(blocks_hi)
    row = gid if per_row == 1 else b.floordiv(gid, per_row)
    row = b.minimum(row, rows_hi - 1)  # exact: gid < rows * per_row
    block = b.const(0) if per_row == 1 else b.floormod(gid, per_row)
    outer = unflatten(row, sizes[:-1])
    last_col = inner - 1 if isinstance(inner, int) else b.add(inner, -1)
    first = b.mul(row, inner)
    last = b.add(total, -1)
    if lanes == 1:
        b_out = Buffer(buffer, dtype, elements_hi, "output", total)
    else:
        b_out = Buffer(buffer, dtype, elements_hi * lanes, "output", b.mul(total, lanes))
    effects = []
    for j in range(BLOCK):
        col = block_column(block, BLOCK, j, last_col)
        at = b.minimum(b.add(first, col), last)
        effects.append(b.store(b_out, at, element(outer, col)) if lanes == 1 else
                       b.vstore(buffer, b.mul(at, lanes), element(outer, col)))
    return Kernel(name, blocks_hi, tuple(effects), count=count), b_out


def vector_block(block: Node, size: int, src: Node, first: Node, last_col: Node | int,
                 last: Node, extent: Node | None, lanes: int) -> list[Node]:
    """The stores of a block of `size` 16-byte vectors copied along one row: column
    c = min(block * size + j, last_col) (a block past the row's end copies its last vector
    again) read at src + c * lanes (clamped to the last whole vector of the input's runtime
    `extent`, if any) and stored at vector min(first + c, last) of the output."""
    effects = []
    for j in range(size):
        col = block_column(block, size, j, last_col)
        addr = clamped_vector(b.add(src, b.mul(col, lanes)), extent, lanes)
        dst = b.mul(b.minimum(b.add(first, col), last), lanes)
        effects.append(b.vstore("output", dst, b.vload("input", addr)))
    return effects


def output_kernel(name: str, table: ParamTable, sizes: Sequence[Size], dtype: DataType,
                  element: Element, buffer: str = "output") -> tuple[Kernel, Buffer]:
    """The kernel `name` writing the packed output of `sizes`, each element `element(outer
    coordinates, column)`: by row blocks where by_rows(sizes) (32/64-bit types; not in a
    specialized kernel's lowering, `table.static`, whose mapping the planner chooses), else one
    element (or word of 8/16-bit elements: family/words.py) per invocation; with its output
    buffer (named `buffer`, of runtime extent: the output's elements)."""
    if by_rows(sizes) and dtype.bits >= 32 and not table.static:
        return row_block_kernel(name, table, sizes, dtype, element, buffer=buffer)
    items_hi = product([largest(s) for s in sizes])
    assert isinstance(items_hi, int)
    count = table.add(1, items_hi, lambda d: d.output.element_count)
    b_out = Buffer(buffer, dtype, items_hi, "output", count)

    def value_of(i: Node) -> Node:
        xs = unflatten(i, sizes)
        return element(xs[:-1], xs[-1])
    return element_kernel(name, table, count, b_out, value_of), b_out


def size_of(field: str, i: int) -> Callable[[Any], int]:
    """The recipe of a call's `field` tensor's size i."""
    return lambda d: getattr(d, field).sizes[i]


def vectors_of(size: Callable[[Any], int], lanes: int) -> Callable[[Any], int]:
    """The recipe of a size (`size`'s) in vectors of `lanes`: 0 (outside every range: not
    admitted) for a call whose size is not a multiple of the width (a guarded assumption)."""
    def recipe(d: Any) -> int:
        n = size(d)
        return n // lanes if n % lanes == 0 else 0
    return recipe


def vector_sizes(static: Sequence[int], dims: Sequence[int], table: ParamTable, hi: int,
                 lanes: int, size: Callable[[int], Callable[[Any], int]]
                 ) -> tuple[list[Size], list[Size]]:
    """A tensor's sizes with those at `dims` PARAMs in [1, hi] (`size(i)` the recipe of size
    i), and the same sizes with the innermost counted in vectors of `lanes`: a dynamic
    innermost size is then a PARAM count of vectors times lanes (vectors_of: the host admits
    multiples only)."""
    last = len(static) - 1
    sizes: list[Size] = []
    vsizes: list[Size] = []
    for i, s in enumerate(static):
        if i not in dims:
            sizes.append(s)
            vsizes.append(s // lanes if i == last else s)
        elif i == last and lanes > 1:
            q = table.add(1, hi // lanes, vectors_of(size(i), lanes))
            sizes.append(b.mul(q, lanes))
            vsizes.append(q)
        else:
            sizes.append(table.add(1, hi, size(i)))
            vsizes.append(sizes[-1])
    return sizes, vsizes


def _blocks(out: TensorDesc, lanes: int = 1) -> int:
    """Invocations: rows times blocks per row (of vectors of `lanes` elements)."""
    inner = out.sizes[-1] if out.sizes else 1
    return out.element_count // inner * -(-(inner // lanes) // BLOCK)

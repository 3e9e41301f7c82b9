"""Generic kernels' output stores: one item per element, or per 32-bit word of 8/16-bit elements
(docs/generic-kernels.md).

A shader stores whole 32-bit words (SPEC: no 8/16-bit storage), and two invocations must never
write parts of one word. A specialized kernel's element stores become words in
passes/legalize.py, which needs the item count; a generic kernel's count is a push constant, so
its lowering builds the words itself. Item g of a kernel of `words` = ceil(count / L) items (a
PARAM of its own, computed from count's recipe) computes the elements g*L + j, j < L, each by
its own index arithmetic (`value_of` the element index clamped to count - 1: every address is
then what it is for an element below count), and stores their PACK at word
min(g, (count - 1) // L): clamped to the last word that holds an element of the output's runtime
extent, which ir/verify.py proves inside the buffer for every admissible count. The lanes at or
past count store 0: the padding of the last word, as legalize's do.

Writing that padding is safe because a generic kernel's output is always a buffer of its own:
the families lower no generic form for an output with strides, an offset or a
TotalTensorSizeInBytes, and the runtime binds a generic program's output only to a new tensor or
a whole one (call.py: `out=` a view of part of a buffer is computed into a temporary, then
written through the view by the specialized copy kernel, whose 8/16-bit stores go element by
element into their words atomically); every binding is whole 16-byte vectors, so the last
word's lanes past count belong to no other tensor.
"""
from __future__ import annotations

from collections.abc import Callable

from ..ir import Buffer, Kernel
from ..ir import build as b
from ..ir.kernel import word_lanes
from ..ir.ops import Node
from .generic import ParamTable


def element_kernel(name: str, table: ParamTable, count: Node, out: Buffer,
                   value_of: Callable[[Node], Node]) -> Kernel:
    """The kernel that stores out[i] = value_of(i) for every i < count (a declared PARAM, the
    output's runtime extent): item gid stores element gid (32/64-bit types; the shader's guard
    gid < count), or for 8/16-bit types item g stores word g (module docstring); in a
    specialized kernel's lowering (table.static) element gid, whatever its type, whose words
    passes/legalize.py makes (the specialized pipeline's way: then vectorized where it can)."""
    assert out.extent is count and count in table.params, "the output's extent is its count"
    if out.dtype.bits >= 32 or table.static:
        gid = b.item_id(count.vmax)
        return Kernel(name, count.vmax, (b.store(out, gid, value_of(gid)),), count=count)
    lanes = word_lanes(out.dtype)
    recipe = table.recipes[count.param]
    words = table.add(1, -(-count.vmax // lanes), lambda d: -(-recipe(d) // lanes))
    g = b.item_id(words.vmax)
    last = b.add(count, -1)
    zero = b.const_data(out.dtype, 0)
    values = []
    for j in range(lanes):
        i = b.mul(g, lanes) if j == 0 else b.add(b.mul(g, lanes), j)
        value = value_of(b.minimum(i, last))
        values.append(value if j == 0 else b.where(b.less(i, count), value, zero))
    at = b.minimum(g, b.floordiv(last, lanes))
    return Kernel(name, words.vmax, (b.wstore(out, at, b.pack(values)),), count=words)

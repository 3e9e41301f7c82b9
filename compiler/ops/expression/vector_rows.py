"""A tensor expression's generic "vector" kernel: output rows moved as 16-byte vectors.

Where the body is one read whose innermost subscript is the output's innermost index plus a
constant (`Y[i, j] = X[2*i + 1, j]`, an Expand's `X[i, 0, k]`), output row r reads one
contiguous run of X's innermost dimension: family/rows.py's row blocks counted in vectors,
vector c of a row loading X's vector at that row's address plus c vectors. The body is the
same expression_value (lower.py), its read an Operand whose load() is that vector load. Taken
where X is contiguous innermost with its other strides, offset and the constant multiples of
the vector width, and both innermost sizes whole vectors; a dynamic innermost size is admitted
only as such (vectors_of: the host checks it, a guarded assumption), a static one makes rows of
BLOCK vectors or more."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...family.generic import pushes_offset
from ...family.lowering import Operand, address_sym, clamped_vector
from ...family.rows import BLOCK
from ...ir import build as b
from ...ir.kernel import vector_width
from ...ir.ops import Node
from . import tree as E
from .desc import ExpressionDesc
from .sizes import position_spans


@dataclass(frozen=True)
class VectorRows(Operand):
    """A tensor read by whole aligned 16-byte vectors: load(coords) is the vector holding
    element `coords` (the first of its vector in every call the variant admits)."""

    lanes: int = 4

    def load(self, coords: Sequence[Node]) -> Node:
        at = address_sym(coords, self.strides, self.offset)
        if self.extent is None:
            at = b.mul(b.floordiv(at, self.lanes), self.lanes)
        return b.vload(self.buf.name, clamped_vector(at, self.extent, self.lanes))


def vector_read(desc: ExpressionDesc) -> tuple[str, int] | None:
    """(tensor, constant) of a body that is one read whose innermost subscript is the output's
    innermost index plus a constant (and no other subscript uses that index), else None."""
    body, last = desc.body, desc.index_vars[-1]
    if not isinstance(body, E.Load) or not body.subscripts:
        return None
    *outer, inner = body.subscripts
    if any(last in E.variables(s) for s in outer):  # loaded indices' subscripts too
        return None
    terms = [inner.a, inner.b] if isinstance(inner, E.Add) else [inner]
    index = [t for t in terms if t == E.Var(last) or t == E.Mul(E.Var(last), 1)]
    const = [t for t in terms if isinstance(t, E.Const)]
    if len(index) != 1 or len(index) + len(const) != len(terms):
        return None
    return body.tensor, sum(c.value for c in const)


def expression_variants(desc: ExpressionDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """("vector", "scalar") where the module docstring's conditions hold for this call (the
    dynamic innermost sizes then guarded), else ("scalar",)."""
    out = desc.output
    assert out is not None, "validate() first"
    read = vector_read(desc)
    if read is None:
        return ("scalar",)
    name, const = read
    k = next(i for i, (n, _) in enumerate(desc.tensors) if n == name)
    t = desc.tensors[k][1]
    lanes = vector_width(t.data_type)
    strides = t.element_strides
    spans = position_spans(desc)
    out_last, t_last = out.rank - 1, t.rank - 1
    dynamic = out_last in spans[0](dims) or t_last in spans[k + 1](dims)
    if (strides[-1] != 1 or const % lanes or any(st % lanes for st in strides[:-1])
            or t.offset % lanes or out.sizes[-1] % lanes or t.sizes[-1] % lanes):
        return ("scalar",)
    if not dynamic and out.sizes[-1] // lanes < BLOCK:
        return ("scalar",)
    return ("vector", "scalar") if dynamic or pushes_offset(t) else ("vector",)

"""Tensor expressions -> one ExpressionDesc per statement, earlier statements inlined (fused).

    X: float32[3, 3]                 declarations: inputs, optionally `= [data]`
    I: int32[2, 3]
    Y[i, j] = X[I[i, j], j]          statements: one output each, one kernel each
    W[i, j] = Y[i // 2, 2 - j]       reading Y inlines its definition: still one read of X

A statement's output may be declared too: the declaration fixes its shape and type, and data
given with it is the expected result that `dmlc run` checks.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..dtypes import DataType
from ..errors import ValidationError
from ..family.registry import validate
from ..family.tensor import TensorDesc
from ..ops.expression import tree as E
from ..ops.expression.desc import ExpressionDesc
from .data import Source, array_data
from .parser import DeclarationItem, StatementItem
from .unit import Unit


def _declared(d: DeclarationItem, src: Source) -> TensorDesc:
    try:
        dtype = DataType.of(d.dtype)
    except ValueError:
        raise src.error(f"{d.name}: unknown data type {d.dtype!r}; expected one of "
                        + ", ".join(t.value for t in DataType), d.dtype_loc) from None
    sizes = tuple(s for s in d.sizes if isinstance(s, int))  # symbolic ones bound before
    if not d.sizes or len(sizes) < len(d.sizes) or any(s < 1 for s in sizes):
        raise src.error(f"{d.name}: expected 1 to 8 sizes, each at least 1, got "
                        f"[{', '.join(map(str, d.sizes))}]", d.loc)
    return TensorDesc(data_type=dtype, sizes=sizes)


def build_units(decls: list[DeclarationItem], stmts: list[StatementItem],
                src: Source) -> list[Unit]:
    declared: dict[str, tuple[TensorDesc, DeclarationItem]] = {}
    for d in decls:
        if d.name in declared:
            raise src.error(f"{d.name} is declared twice (first on line "
                            f"{declared[d.name][1].loc.line})", d.loc)
        declared[d.name] = (_declared(d, src), d)
    defined: dict[str, ExpressionDesc] = {}
    outputs = {s.name for s in stmts}
    inputs = {n: t for n, (t, _) in declared.items() if n not in outputs}
    units = []
    for s in stmts:
        if s.name in defined:
            raise src.error(f"{s.name} is defined twice", s.loc)
        decl = declared.get(s.name)
        if any(isinstance(n, E.Load) and n.tensor == s.name for n in E.walk(s.body)):
            raise src.error(f"{s.text}: a statement cannot read the tensor it writes ({s.name}); "
                            f"write the result to a new tensor", s.loc)
        # First check the statement as written, with earlier outputs as tensors of their shapes.
        visible = {**inputs, **{n: d.output for n, d in defined.items() if d.output}}
        desc = ExpressionDesc(name=s.name, index_vars=s.index_vars, body=s.body,
                              tensors=tuple(visible.items()),
                              output=decl[0] if decl else None)
        try:
            checked = validate(desc)
        except ValidationError as e:
            raise src.error(f"{s.text}: {e}", s.loc) from None
        assert isinstance(checked, ExpressionDesc)
        readable = {**inputs, **{n: d.output for n, d in defined.items() if d.output}}
        final = _reading(checked, _inline(checked.body, defined), readable)
        try:
            validate(final)
        except ValidationError:  # composed, a read's range is not provable: keep the
            final = _reading(checked, checked.body, readable)  # intermediates (two kernels)
        defined[s.name] = final
        data = {n: array_data(declared[n][1].data, t, src, f"{n} data")  # type: ignore[arg-type]
                for n, t in final.tensors if n in inputs and declared[n][1].data is not None}
        expected: np.ndarray | None = None
        if decl is not None and decl[1].data is not None:
            expected = array_data(decl[1].data, decl[0], src, f"{s.name} data")
        locations = {n: declared[n][1].loc for n, _ in final.tensors if n in declared}
        locations[s.name] = s.loc
        units.append(Unit(s.name, final, {n: n for n, _ in final.tensors}, data, expected,
                          locations))
    return units


def _reading(desc: ExpressionDesc, body: E.Value,
             readable: dict[str, TensorDesc]) -> ExpressionDesc:
    """desc computing `body`, with the tensors it reads."""
    used = {n.tensor for n in E.walk(body) if isinstance(n, E.Load)}
    return dataclasses.replace(desc, body=body, tensors=tuple(
        (n, t) for n, t in readable.items() if n in used))


def _inline(body: E.Expr, defined: dict[str, ExpressionDesc]) -> E.Value:
    """Replace reads of earlier outputs by what those outputs read (their bodies are inlined
    already), so that a statement reads declared inputs only, in one kernel. A read through a
    loaded index keeps the clamping of the tensor it indexes (its IndexValue's size), so the
    fused program gives the bits of running the statements one at a time. Where that index
    would land inside arithmetic of the earlier body (A[j] = X[j + 1], then A[I[k]]), the read
    is not composed: the statement reads the intermediate tensor (its own kernel, run after the
    one that writes it)."""
    as_index = {n.load for n in E.walk(body) if isinstance(n, E.IndexValue)}

    def fn(n: E.Expr) -> E.Expr | None:
        if isinstance(n, E.Load) and n.tensor in defined:
            d = defined[n.tensor]
            if not isinstance(d.body, E.Load) and n in as_index:
                return None  # an index read of a where(): read the intermediate tensor
            env = dict(zip(d.index_vars, n.subscripts))
            loaded = {v for v, s in env.items() if isinstance(s, E.IndexValue)}
            if loaded & _arithmetic_variables(d.body):
                return None
            return E.substitute(d.body, env)
        return None
    out = E.transform(body, fn)
    assert isinstance(out, (E.Load, E.Select, E.Literal))
    return out


def _arithmetic_variables(body: E.Expr) -> set[str]:
    """Index variables that occur in a subscript other than alone (x + 1, 2*x, x // 2), or in
    a where()'s condition (which compares index arithmetic only)."""
    subscripts = {v for n in E.walk(body) if isinstance(n, E.Load) for s in n.subscripts
                  if not isinstance(s, (E.Var, E.IndexValue)) for v in E.variables(s)}
    return subscripts | {v for n in E.walk(body) if isinstance(n, E.Compare)
                         for v in E.variables(n)}

"""Random tensor expressions (registered in cases.ALL_CASES as "expression"): Y[v...] reads a
data tensor X of rank 1-8, each of its dimensions by one output index (permuted) through an
affine map, a // or a %, a constant, or a 1-D index tensor of wild values; the output may have
dimensions X does not follow (a broadcast), and the read may sit under where() beside a
constant. The oracle is Python evaluating the statement's text on numpy index grids
(reference.evaluate_statement), not dmlc's tree."""
from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

import dmlc
from cases import Case, seeds
from dmlc.expr import (
    Add,
    Compare,
    Const,
    ExpressionDesc,
    FloorDiv,
    Literal,
    Load,
    Mod,
    Mul,
    Select,
    Var,
)
from reference import evaluate_statement
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits

LARGEST = {1: 64, 2: 24, 3: 10, 4: 6}
"""The largest size of each of X's dimensions by its rank (4 beyond)."""


def expression(*arrays: np.ndarray, desc: ExpressionDesc) -> np.ndarray:
    """The one-shot form of a tensor expression: compile the descriptor, run it on the arrays
    (in the order of its tensors)."""
    return dmlc.compile(desc)(*arrays)


@st.composite
def _subscript(draw: Any, v: str, n: int, name: str, arrays: dict[str, np.ndarray]
               ) -> tuple[Any, str, int]:
    """A subscript of a dimension of n elements by index variable v: (tree, text, the
    extent of v it allows)."""
    kind = draw(st.sampled_from(["affine", "affine", "div", "mod", "const", "indirect"]))
    var = Var(v)
    if kind == "indirect":
        extent = draw(st.integers(1, 9))
        dtype = draw(st.sampled_from(INDEX_TYPES))
        arrays[name] = draw(index_arrays((extent,), dtype, n))
        return Load(name, (var,)), f"{name}[{v}]", extent
    if kind == "div":
        d = draw(st.integers(2, 3))
        return FloorDiv(var, d), f"({v} // {d})", draw(st.integers(1, n * d))
    if kind == "mod":
        m, c = draw(st.integers(1, n)), draw(st.integers(0, 9))
        return Mod(Add(var, Const(c)), m), f"(({v} + {c}) % {m})", draw(st.integers(1, 9))
    if kind == "const":
        c = draw(st.integers(0, n - 1))
        return Const(c), str(c), draw(st.integers(1, 5))
    a = draw(st.sampled_from([1, 1, 2, -1, -2]))
    extent = draw(st.integers(1, (n - 1) // abs(a) + 1))
    span = abs(a) * (extent - 1)
    c = draw(st.integers(span, n - 1) if a < 0 else st.integers(0, n - 1 - span))
    return Add(Mul(var, a), Const(c)), f"({a}*{v} + {c})", extent


@st.composite
def expression_cases(draw: Any, dtypes: Any = DATA_TYPES) -> Case:
    rank = draw(st.integers(1, 8))
    dtype = draw(st.sampled_from(dtypes))
    lanes = 16 // np.dtype(dtype).itemsize
    rows = draw(st.booleans())  # X's rows read whole: vector_rows.py's conditions, often
    x_shape = [draw(st.integers(1, LARGEST.get(rank, 4))) for _ in range(rank)]
    if rows:
        x_shape[-1] = lanes * draw(st.integers(1, 3))
    lead = draw(st.integers(0, min(2, 8 - rank)))  # output dimensions X does not follow
    names = [f"v{k}" for k in range(lead + rank)]
    perm = draw(st.permutations(range(rank)))  # output index lead + k reads X's perm[k]
    if rows:
        perm = [d for d in perm if d != rank - 1] + [rank - 1]
    trees: list[Any] = [None] * rank
    texts: list[str] = [""] * rank
    shape = [draw(st.integers(1, 3)) for _ in range(lead)]
    indices: dict[str, np.ndarray] = {}
    for k, dim in enumerate(perm):
        if rows and dim == rank - 1:
            v, c = names[-1], lanes * draw(st.integers(0, x_shape[-1] // lanes - 1))
            extent = draw(st.one_of(st.integers(1, x_shape[-1] - c),  # whole vectors, often
                                    st.sampled_from(range(lanes, x_shape[-1] - c + 1, lanes))))
            trees[dim], texts[dim] = Add(Var(v), Const(c)), f"({v} + {c})"
        else:
            trees[dim], texts[dim], extent = draw(_subscript(names[lead + k], x_shape[dim],
                                                             f"I{k}", indices))
        shape.append(extent)
    x = random_bits(draw(seeds), tuple(x_shape), dtype)
    read, rhs = Load("X", tuple(trees)), f"X[{', '.join(texts)}]"
    arrays = {"X": x, **indices}
    expected = evaluate_statement(rhs, names, tuple(shape), arrays, set(indices))
    body: Any = read
    if draw(st.integers(0, 3)) == 0:  # where(v < t, X[...], 0)
        v = draw(st.integers(0, len(names) - 1))
        t = draw(st.integers(0, shape[v]))
        body = Select(Compare(Var(names[v]), "<", Const(t)), read, Literal("0"))
        chosen = np.indices(shape)[v] < t
        expected = np.where(chosen, expected, np.zeros((), np.dtype(dtype)))
    tensors = tuple((name, dmlc.TensorDesc(data_type=a.dtype.name, sizes=a.shape))
                    for name, a in arrays.items())
    desc = ExpressionDesc(name="Y", index_vars=tuple(names), body=body, tensors=tensors,
                          output=dmlc.TensorDesc(data_type=np.dtype(dtype).name,
                                                 sizes=tuple(shape)))
    return Case(expression, tuple(arrays.values()), {"desc": desc}, desc, expected)

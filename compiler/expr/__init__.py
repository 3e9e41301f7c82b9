"""dmlc.expr: tensor expressions built in Python, the stable public home of ExpressionDesc and
its tree's nodes (they live in dmlc.ops.expression.tree; import them from here).

`Y[i, j] = X[I[i], 2 - j]` (rows of X picked by the index tensor I, columns reversed) is one
ExpressionDesc whose body is a Load of X with two subscripts: a Load of I (a loaded index:
negative counts from the end, then clamped, as the operators' indices) and 2 - j (see the
example below).

The nodes: Var (an index variable), Const, Add, Mul (by a constant), FloorDiv and Mod (by a
positive constant), Load (a tensor read; as a subscript, an index tensor's value), Compare and
And (conditions), Literal (a constant element, written as in a .dml file), Select (where) and
IndexValue (a loaded index normalized against a dimension; validation makes it from a Load),
and whatever node kinds the tree gains: every node class of dmlc.ops.expression.tree is
exported here (tests/test_expr_module.py keeps the two in step). The .dml notation of the same
statement is docs/dml-language.md.

Examples
--------
>>> import numpy as np
>>> import dmlc
>>> from dmlc.expr import Add, Const, ExpressionDesc, Load, Mul, Var
>>> X = dmlc.TensorDesc(data_type="FLOAT32", sizes=(4, 3))
>>> I = dmlc.TensorDesc(data_type="INT32", sizes=(2,))
>>> desc = ExpressionDesc(
...     name="Y", index_vars=("i", "j"),
...     body=Load("X", (Load("I", (Var("i"),)), Add(Const(2), Mul(Var("j"), -1)))),
...     tensors=(("X", X), ("I", I)))
>>> kernel = dmlc.compile(desc)           # the output's shape inferred: (2, 3)
>>> x = np.arange(12, dtype=np.float32).reshape(4, 3)
>>> ids = np.array([3, -4], np.int32)
>>> kernel.reference(x, ids).tolist()     # the IR interpreter; kernel(x, ids) runs on the device
[[11.0, 10.0, 9.0], [2.0, 1.0, 0.0]]
"""
from __future__ import annotations

import dataclasses as _dataclasses

from ..ops.expression import tree as _tree
from ..ops.expression.desc import ExpressionDesc
from ..ops.expression.tree import (
    Add,
    And,
    Compare,
    Const,
    Expr,
    FloorDiv,
    IndexValue,
    Literal,
    Load,
    Mod,
    Mul,
    Select,
    Value,
    Var,
)

NODES: tuple[str, ...] = tuple(
    name for name, obj in vars(_tree).items()
    if isinstance(obj, type) and obj.__module__ == _tree.__name__
    and _dataclasses.is_dataclass(obj))
"""The node classes of the tree, in their order there: those imported above by name (for type
checkers), and any the tree has gained since, taken as they are."""

__all__ = ["ExpressionDesc", "Add", "And", "Compare", "Const", "FloorDiv", "IndexValue",
           "Literal", "Load", "Mod", "Mul", "Select", "Var", "Expr", "Value"]
__all__ += [name for name in NODES if name not in __all__]  # a node kind added to the tree
globals().update({name: getattr(_tree, name) for name in NODES})

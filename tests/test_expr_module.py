"""dmlc.expr: the stable public home of ExpressionDesc and the expression tree's nodes (they
had no public path since they moved to dmlc.ops.expression.tree). Its docstring's example
builds Y[i, j] = X[I[i], 2 - j] in Python and runs it; every node class of the tree is
exported, also one the tree gains later (another engineer adds node kinds there)."""
from __future__ import annotations

import dataclasses
import doctest

import numpy as np
import pytest

import dmlc
import dmlc.expr
from dmlc.ops.expression import tree


def test_dmlc_expr_is_public_api():
    assert "expr" in dmlc.__all__ and dmlc.expr is dmlc.__dict__["expr"]
    assert dmlc.expr.ExpressionDesc is dmlc.ExpressionDesc


def test_every_node_class_of_the_tree_is_exported():
    nodes = {name for name, obj in vars(tree).items() if isinstance(obj, type)
             and obj.__module__ == tree.__name__ and dataclasses.is_dataclass(obj)}
    assert nodes and nodes <= set(dmlc.expr.__all__)
    for name in nodes:
        assert getattr(dmlc.expr, name) is getattr(tree, name)
    assert {"Var", "Add", "Load", "Select", "Literal"} <= nodes
    star: dict[str, object] = {}
    exec("from dmlc.expr import *", star)
    assert nodes | {"ExpressionDesc"} <= set(star)


def test_the_documented_example_runs():
    """The docstring's example, on the IR interpreter (doctest: its printed result too)."""
    result = doctest.testmod(dmlc.expr, raise_on_error=True)
    assert result.attempted >= 10 and result.failed == 0


@pytest.mark.vulkan
def test_the_documented_example_runs_on_the_device():
    from dmlc.expr import Add, Const, ExpressionDesc, Load, Mul, Var
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([3, -4], np.int32)
    desc = ExpressionDesc(
        name="Y", index_vars=("i", "j"),
        body=Load("X", (Load("I", (Var("i"),)), Add(Const(2), Mul(Var("j"), -1)))),
        tensors=(("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=(4, 3))),
                 ("I", dmlc.TensorDesc(data_type="INT32", sizes=(2,)))))
    np.testing.assert_array_equal(dmlc.compile(desc)(x, ids), x[[3, 0]][:, ::-1])

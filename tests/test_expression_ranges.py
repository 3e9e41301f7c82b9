"""Validation and lowering prove subscripts in range under the same rules.

Validation simplifies each subscript of a tensor expression under SUBSCRIPT_RULES and refuses one
whose range can leave its dimension; lowering builds the very same simplified subscript, so a
program validation accepts always verifies (with and without the passes), and one it cannot prove
is a ValidationError, never an internal IRError.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

import dmlc
from dmlc.compiled import build_program
from dmlc.family.registry import lower, validate
from dmlc.ir.verify import verify_program
from dmlc.lang import parse_module
from dmlc.ops.expression import tree as E
from reference import assert_bits_equal

FOLDS_IN_RANGE = """
X: float32[1] = [7]
Y: float32[4] = [7, 7, 7, 7]
Y[i] = X[(4*i + 3) % 4 - 3]
"""


def descriptor(text: str) -> dmlc.ExpressionDesc:
    (unit,) = parse_module(text).units
    return unit.descriptor


def test_a_subscript_that_folds_in_range_runs_on_the_interpreter():
    kernel = dmlc.compile(descriptor(FOLDS_IN_RANGE))
    x = np.array([7], np.float32)
    assert_bits_equal(kernel.reference(x), np.full(4, 7, np.float32))


@pytest.mark.vulkan
def test_a_subscript_that_folds_in_range_runs_on_the_device(tmp_path, capsys):
    from dmlc.cli import main
    path = tmp_path / "fold.dml"
    path.write_text(FOLDS_IN_RANGE)
    assert main(["run", str(path)]) == 0  # 0: Y matched the values the file gives it
    assert "Y: float32[4] = [7, 7, 7, 7]" in capsys.readouterr().out


@pytest.mark.parametrize("subscript, got", [
    ("(4*i + 3) % 4 - 4", "[-1, -1]"),   # folds, and is out of range
    ("i % 4 - i % 2", "[-1, 3]"),        # in range for every i, but no rule proves it
    ("(i + 1) // 2 - i // 2", "[-1, 2]"),  # 0 or 1 in fact; ranges alone say [-1, 2]
])
def test_a_subscript_that_cannot_be_proven_in_range_is_a_validation_error(subscript, got):
    text = f"X: float32[2]\nY: float32[4]\nY[i] = X[{subscript}]\n"
    with pytest.raises(dmlc.DmlcError, match="X subscript 0") as info:
        parse_module(text)  # the front end validates each statement, and names its line
    assert got in str(info.value) and "IRError" not in repr(info.value)


# ---- the property: random affine subscripts, validated, lowered, verified and evaluated

@st.composite
def subscripts(draw, depth: int = 3) -> E.Expr:
    """Index arithmetic over i: + - * // % and constants, as expression trees."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from([E.Var("i"), E.Var("i"), E.Const(draw(st.integers(-3, 9)))]))
    op = draw(st.sampled_from(["+", "-", "*", "//", "%"]))
    a = draw(subscripts(depth - 1))
    if op == "+":
        return E.Add(a, draw(subscripts(depth - 1)))
    if op == "-":
        return E.Add(a, E.Mul(draw(subscripts(depth - 1)), -1))
    if op == "*":
        return E.Mul(a, draw(st.integers(-3, 5)))
    return (E.FloorDiv if op == "//" else E.Mod)(a, draw(st.integers(1, 9)))


def meaning(e: E.Expr, i: np.ndarray) -> np.ndarray:
    """What a subscript means, evaluated with numpy (floor division and modulo, as dmlc's)."""
    if isinstance(e, E.Const):
        return np.full_like(i, e.value)
    if isinstance(e, E.Var):
        return i
    if isinstance(e, E.Add):
        return meaning(e.a, i) + meaning(e.b, i)
    if isinstance(e, E.Mul):
        return meaning(e.a, i) * e.factor
    if isinstance(e, E.FloorDiv):
        return meaning(e.a, i) // e.divisor
    assert isinstance(e, E.Mod)
    return meaning(e.a, i) % e.divisor


@settings(max_examples=budget(300), deadline=None)
@given(subscripts(), st.integers(1, 9), st.integers(1, 12))
def test_validation_and_lowering_agree(subscript, n, m):
    """Whatever the subscript: validation refuses it (a ValidationError), or the naive lowering
    and the optimized program both verify and compute X[subscript] for every i."""
    desc = dmlc.ExpressionDesc(
        name="Y", index_vars=("i",), body=E.Load("X", (subscript,)),
        tensors=(("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=(n,))),),
        output=dmlc.TensorDesc(data_type="FLOAT32", sizes=(m,)))
    try:
        checked = validate(desc)
    except dmlc.ValidationError:
        return
    verify_program(lower(checked))  # naive IR: no pass has run
    _, program = build_program(desc, dump_after=set())
    positions = meaning(subscript, np.arange(m))
    assert positions.min() >= 0 and positions.max() < n, "validation accepted a bad subscript"
    x = np.arange(100, 100 + n, dtype=np.float32)
    kernel = dmlc.compile(desc)
    assert_bits_equal(kernel.reference(x), x[positions])
    assert len(program.kernels) == 1

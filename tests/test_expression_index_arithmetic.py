"""Tensor expressions whose subscripts and conditions compute with loaded indices (the patterns
ONNX exporters write: flat indices, Mod, an index plus a coordinate, one-hot by comparison),
against an independent oracle (Python evaluating the same text on numpy grids, int64 wrapping
arithmetic: tests/reference.py), on the IR interpreter and the device."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
from dmlc.errors import ParseError
from dmlc.lang import parse_module
from reference import assert_bits_equal, evaluate_statement

X = np.arange(40, dtype=np.float32).reshape(8, 5)
ARRAYS = {"X": X, "I": np.array([0, 3, -1, 9, -40, 2**31 - 1], np.int64),
          "J": np.array([4, 0, 2, -7, 11, 3], np.int64),
          "K": np.array([[1, -2, 7], [0, 5, 4]], np.int32),
          "U": np.array([3, 0, 4294967295, 9, 1, 2], np.uint32)}
DECLS = ("X: float32[8, 5]\nI: int64[6]\nJ: int64[6]\nK: int32[2, 3]\nU: uint32[6]\n")
INDEX = {"I", "J", "K", "U"}
DEVICE = [False, pytest.param(True, marks=pytest.mark.vulkan)]


def compiled(statement: str) -> dmlc.CompiledKernel:
    (k,) = dmlc.compile_module(parse_module(DECLS + statement)).values()
    return k


def run(k: dmlc.CompiledKernel, device: bool) -> np.ndarray:
    args = [ARRAYS[n] for n in k.program.inputs]
    return k(*args) if device else k.reference(*args)


@pytest.mark.parametrize("device", DEVICE, ids=["interp", "device"])
@pytest.mark.parametrize("rhs, names, shape", [
    ("X[(I[i] * 5 + J[i]) // 5, J[i] % 5]", ["i"], (6,)),      # flat indices, split
    ("X[0, (I[i] * 5 + J[i]) % 40 // 8]", ["i"], (6,)),
    ("X[i, K[i, j] % 5]", ["i", "j"], (2, 3)),                 # take_along_dim's Mod
    ("X[I[0] + i, j]", ["i", "j"], (3, 5)),                    # a row index plus a range
    ("X[-I[i], 2]", ["i"], (6,)),
    ("X[2 - K[i, j], 3*j // 2]", ["i", "j"], (2, 3)),
    ("X[U[i] + 1, 0]", ["i"], (6,)),                           # uint32 + 1, in 64 bits
    ("X[I[i] * 65536 * 65536 * 4 + 1, 0]", ["i"], (6,)),           # wraps in int64
])
def test_subscripts_computed_from_loaded_indices(rhs, names, shape, device):
    lhs = f"Y[{', '.join(names)}]"
    k = compiled(f"{lhs} = {rhs}\nY: float32[{', '.join(map(str, shape))}]")
    assert len(k.program.kernels) == 1
    want = evaluate_statement(rhs, names, shape, ARRAYS, INDEX)
    assert_bits_equal(run(k, device), want)


@pytest.mark.parametrize("device", DEVICE, ids=["interp", "device"])
def test_one_hot_by_a_comparison_with_a_loaded_index(device):
    k = compiled("Y[i, c] = where(J[i] == c, 1.0, 0.0)\nY: float16[6, 5]")
    want = (ARRAYS["J"][:, None] == np.arange(5)).astype(np.float16)
    assert_bits_equal(run(k, device), want)
    k = compiled("Y[i, c] = where(c < K[1, i] && K[0, i] >= 0 - c, X[c, i], -0.0)\n"
                 "Y: float32[3, 5]")
    K = ARRAYS["K"]
    i, c = np.indices((3, 5))
    want = np.where((c < K[1][i]) & (K[0][i] >= -c), X[c, i], np.float32(-0.0)).astype(
        np.float32)
    assert_bits_equal(run(k, device), want)


@pytest.mark.parametrize("text, words", [
    ("Y[i] = X[I[i] + X[0, 0], 0]\nY: float32[6]", ["an index tensor", "float32"]),
    ("Y[i] = X[I[i] + q, 0]\nY: float32[6]", ["unbound index 'q'"]),
    ("Y[i] = X[I[i] // 0, 0]\nY: float32[6]", ["takes a positive integer constant"]),
])
def test_refusals_name_the_subscript(text, words):
    with pytest.raises(ParseError) as e:
        dmlc.compile_module(parse_module(DECLS + text))
    for w in words:
        assert w in str(e.value)


@st.composite
def index_arithmetic(draw, depth=0):
    """Random integer arithmetic over loaded indices, the index variable i and constants."""
    leaves = ["I[i]", "J[i]", "U[i]", "K[i % 2, i % 3]", "i", str(draw(st.integers(-9, 9)))]
    if depth > 2 or draw(st.booleans()):
        return draw(st.sampled_from(leaves))
    a = draw(index_arithmetic(depth + 1))
    form = draw(st.sampled_from(["+", "-", "*", "//", "%"]))
    if form in ("//", "%"):
        return f"({a}) {form} {draw(st.integers(1, 13))}"
    if form == "*":
        return f"({a}) * {draw(st.integers(-70000, 70000))}"
    return f"({a}) {form} ({draw(index_arithmetic(depth + 1))})"


@pytest.mark.parametrize("device", DEVICE, ids=["interp", "device"])
@given(st.lists(index_arithmetic(), min_size=2, max_size=2))
def test_random_index_arithmetic(device, subs):
    if not any(t in s for s in subs for t in INDEX):  # a subscript that reads no index: its
        subs[0] = f"{subs[0]} + I[i]"                 # range proof is another test's
    rhs = f"X[{subs[0]}, {subs[1]}]"
    text = f"Y[i] = {rhs}\nY: float32[6]"
    try:
        k = compiled(text)
    except ParseError as e:  # an affine subscript of i alone may leave X, and constants
        assert "expected values in" in str(e) or "expected an integer in" in str(e)
        return                  # folded past int32 are refused: statically
    assert_bits_equal(run(k, device), evaluate_statement(rhs, ["i"], (6,), ARRAYS, INDEX))


def test_a_generic_kernel_whose_ranges_leave_int32_gives_way_to_a_specialized_one(monkeypatch):
    """With every size generic, `i * 65552` over a pushed size reaches past int32 (the
    expression's generic lowering bounds the size, not each product): that generic program does
    not verify, and the call compiles specialized instead of raising (found by the property
    above under DMLC_DYNAMIC=always)."""
    monkeypatch.setenv("DMLC_DYNAMIC", "always")
    dmlc.clear_cache()
    rhs = "X[I[i], (((i) * 3856) * 17) % 3]"
    k = compiled(f"Y[i] = {rhs}\nY: float32[6]")
    assert not k.compiled.params, "specialized"
    assert_bits_equal(run(k, False), evaluate_statement(rhs, ["i"], (6,), ARRAYS, INDEX))

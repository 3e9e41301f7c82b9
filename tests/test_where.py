"""where() in tensor expressions: per element, a read or a constant chosen by comparisons of
index arithmetic. Padding, one-hot-like masks and piecewise joins are statements; a chain such
as pad -> slice -> transpose fuses into one kernel. Results against numpy on the IR interpreter
(and on the device where marked)."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.lang import parse_module
from dmlc.ops.expression import tree as E
from dmlc.passes.pipeline import env_names
from reference import assert_bits_equal
from strategies import DATA_TYPES, random_bits

VECTORIZING = not env_names("DMLC_DISABLE_PASSES") & {"vectorize", "all"}
"""Whether the shape of the kernels is asserted (make test-nopasses runs the bits alone)."""


def run(text: str, **arrays: np.ndarray) -> dict[str, np.ndarray]:
    """Every statement on the IR interpreter, earlier results feeding later ones."""
    out: dict[str, np.ndarray] = {}
    for u in parse_module(text).units:
        k = dmlc.compile(u.descriptor)
        out[u.name] = k.reference(*[arrays.get(n, out.get(n)) for n in k.program.inputs])
    return out


def fill_for(dtype: np.dtype) -> tuple[str, np.ndarray]:
    """A constant written in the file, and the element it must become."""
    if dtype.kind == "f":
        return "-0.0", np.array(-0.0, dtype)
    info = np.iinfo(dtype)
    return str(info.min), np.array(info.min, dtype)  # exact at the type's edge (int64 too)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_constant_padding_is_np_pad(dtype):
    x = random_bits(3, (2, 3), dtype)
    text, fill = fill_for(dtype)
    src = (f"X: {dtype.name}[2, 3]\nP: {dtype.name}[5, 6]\n"
           f"P[i, j] = where(i >= 1 && i < 3 && j >= 2 && j < 5, X[i - 1, j - 2], {text})\n")
    expected = np.pad(x, ((1, 2), (2, 1)), constant_values=fill)
    assert_bits_equal(run(src, X=x)["P"], expected)


def test_edge_reflect_and_wrap_padding_are_arithmetic():
    """np.pad's other modes need no where(): their source index is index arithmetic."""
    x = np.arange(5, dtype=np.int16)
    src = ("X: int16[5]\n"
           "W[i] = X[(i + 3) % 5]\n")  # wrap by 2 on the left: i - 2 mod 5
    w = run(src.replace("W[i]", "W: int16[9]\nW[i]"), X=x)["W"]
    assert_bits_equal(w, np.pad(x, (2, 2), mode="wrap"))
    edge = run("X: int16[5]\nE: int16[9]\nE[i] = where(i < 2, X[0], where(i < 7, X[i - 2], "
               "X[4]))\n", X=x)["E"]
    assert_bits_equal(edge, np.pad(x, (2, 2), mode="edge"))
    reflect = run("X: int16[5]\nR: int16[9]\nR[i] = where(i < 2, X[2 - i], where(i < 7, "
                  "X[i - 2], X[10 - i]))\n", X=x)["R"]
    assert_bits_equal(reflect, np.pad(x, (2, 2), mode="reflect"))


def test_a_piecewise_read_joins_tensors():
    a, c = np.arange(3, dtype=np.float16), np.arange(10, 14, dtype=np.float16)
    got = run("A: float16[3]\nC: float16[4]\nY: float16[7]\n"
              "Y[i] = where(i < 3, A[i], C[i - 3])\n", A=a, C=c)["Y"]
    assert_bits_equal(got, np.concatenate([a, c]))


def test_a_mask_from_comparisons_of_indices():
    """An identity matrix, a band: constants on both sides, the output type declared."""
    got = run("I: uint8[4, 4]\nI[i, j] = where(i == j, 1, 0)\n")["I"]
    assert_bits_equal(got, np.eye(4, dtype=np.uint8))
    band = run("B: int32[4, 5]\nB[i, j] = where(j - i <= 1 && i - j <= 1, 7, -1)\n")["B"]
    i, j = np.indices((4, 5))
    assert_bits_equal(band, np.where(abs(i - j) <= 1, 7, -1).astype(np.int32))


PAD_SLICE_TRANSPOSE = """
X: float32[2, 3]
P: float32[4, 7]
P[i, j] = where(i >= 1 && i < 3 && j >= 2 && j < 5, X[i - 1, j - 2], nan)
S[i, j] = P[i, 2 * j]
T[j, i] = S[i, j]
"""


def test_pad_slice_transpose_is_one_kernel_reading_only_the_input():
    module = parse_module(PAD_SLICE_TRANSPOSE)
    t = next(u for u in module.units if u.name == "T")
    assert [n for n, _ in t.descriptor.tensors] == ["X"]  # fused: no intermediate read
    x = random_bits(5, (2, 3), np.dtype("float32"))
    kernel = dmlc.compile(t.descriptor)
    assert len(kernel.program.kernels) == 1
    expected = np.pad(x, ((1, 1), (2, 2)), constant_values=np.nan)[:, ::2].T
    assert_bits_equal(kernel.reference(x), expected)


def test_composing_that_would_lose_a_proof_keeps_the_intermediate():
    """Y[k] = A[k // 2] into A's where(j >= 1, X[j - 1], ...) would need k // 2 >= 1 to bound
    a read: not provable here, so Y reads A (two kernels), with A's result."""
    src = ("X: float32[4]\nA: float32[4]\nA[j] = where(j >= 1, X[j - 1], 5)\n"
           "Y: float32[8]\nY[k] = A[k // 2]\n")
    y = parse_module(src).units[1]
    assert [n for n, _ in y.descriptor.tensors] == ["A"]
    x = np.arange(4, dtype=np.float32)
    a = np.concatenate([[5], x[:3]]).astype(np.float32)
    assert_bits_equal(run(src, X=x)["Y"], a[np.arange(8) // 2])


@pytest.mark.parametrize("text, words", [
    ("X: float32[3]\nK: int32[3]\nY: float32[3]\nY[i] = where(i < 1, X[i], K[i])\n",
     "reads of one data type"),
    ("X: uint8[3]\nY: uint8[3]\nY[i] = where(i < 1, X[i], 256)\n",
     "constant '256': expected an integer in [0, 255]"),
    ("X: int32[3]\nY: int32[3]\nY[i] = where(i < 1, X[i], 1.5)\n",
     "constant '1.5': expected an integer"),
    ("X: float16[3]\nY: float16[3]\nY[i] = where(i < 1, X[i], 1e6)\n",
     "inside FLOAT16's range"),
    ("X: float32[3]\nY: float32[4]\nY[i] = where(i % 2 == 0, X[i], 0)\n",
     "X subscript 0 (i): expected values in [0, 2] (X is {3}), got [0, 3] for i in [0, 3]"),
    ("X: float32[3]\nY: float32[5]\nY[i] = where(i >= 1, X[i - 1], 0)\n",
     "got [0, 3] for i in [1, 4]"),
    ("X: float32[3]\nY[i] = where(i < 2, X[i], 0)\n", "declare the output's shape"),
    ("Y[i] = where(i < 2, 1, 0)\n", "declare"),
    ("X: float32[3]\nY: float32[3]\nY[i] = where(X[i] < 2, X[i], 0)\n",
     "condition (X[i] < 2): X[i]: expected an index tensor (int32, uint32, int64 or uint64), "
     "got float32"),
])
def test_errors_name_what_is_wrong(text, words):
    with pytest.raises(dmlc.DmlcError) as e:
        dmlc.compile_module(parse_module(text, "w.dml"))
    assert words in str(e.value), str(e.value)


def test_trees_built_in_python_are_checked():
    x = dmlc.TensorDesc(data_type="FLOAT32", sizes=(3,))
    bad = E.Select(E.Compare(E.Var("i"), "=<", E.Const(1)), E.Load("X", (E.Var("i"),)),
                   E.Literal("0"))
    with pytest.raises(dmlc.ValidationError, match="Compare.op"):
        dmlc.compile(dmlc.ExpressionDesc(name="Y", index_vars=("i",), body=bad,
                                         tensors=(("X", x),), output=x))
    good = E.Select(E.Compare(E.Var("i"), "<", E.Const(1)), E.Load("X", (E.Var("i"),)),
                    E.Literal("-0.0"))
    k = dmlc.compile(dmlc.ExpressionDesc(name="Y", index_vars=("i",), body=good,
                                         tensors=(("X", x),), output=x))
    got = k.reference(np.array([1, 2, 3], np.float32))
    assert_bits_equal(got, np.array([1, -0.0, -0.0], np.float32))
    # -0.0 and 0.0 are different programs (the constant is part of the cache key)
    zero = dmlc.ExpressionDesc(name="Y", index_vars=("i",), body=E.Select(
        good.cond, good.then, E.Literal("0.0")), tensors=(("X", x),), output=x)
    assert_bits_equal(dmlc.compile(zero).reference(np.array([1, 2, 3], np.float32)),
                      np.array([1, 0.0, 0.0], np.float32))


@pytest.mark.vulkan
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_padding_of_whole_vectors_on_the_device(dtype):
    """Rows of 64 padded by 16 on each side: the kernel moves 16-byte vectors (the constant
    as a vector of itself), and the device gives np.pad's bits."""
    x = random_bits(9, (3, 64), dtype)
    text, fill = fill_for(dtype)
    src = (f"X: {dtype.name}[3, 64]\nP: {dtype.name}[3, 96]\n"
           f"P[i, j] = where(j >= 16 && j < 80, X[i, j - 16], {text})\n")
    (unit,) = parse_module(src).units
    kernel = dmlc.compile(unit.descriptor, dynamic=False)  # the specialized plan's vectors
    if VECTORIZING:
        assert "vload" in kernel.ir and "vpack" in kernel.ir, kernel.ir
    assert_bits_equal(kernel(x), np.pad(x, ((0, 0), (16, 16)), constant_values=fill))


@pytest.mark.vulkan
def test_pad_slice_transpose_on_the_device():
    x = random_bits(5, (2, 3), np.dtype("float32"))
    got = dmlc.run_module(parse_module(PAD_SLICE_TRANSPOSE), {"X": x})["T"]
    assert_bits_equal(got, np.pad(x, ((1, 1), (2, 2)), constant_values=np.nan)[:, ::2].T)

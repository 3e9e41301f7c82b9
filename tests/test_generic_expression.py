"""Tensor expressions as generic kernels (ops/expression/sizes.py): the output's and each tensor's
sizes pushed, one lowering with the specialized kernel (lower.py: expression_value). Against
the oracle of tests/cases_expression.py on the IR interpreter; one generic compile serves every
size a signature comes back with; a loaded index is normalized against its pushed dimension."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.strategies import budget, index_arrays, random_bits

import cases
import dmlc
from dmlc.compiled import KERNELS
from dmlc.expr import Add, Const, ExpressionDesc, IndexValue, Load, Mul, Var
from dmlc.family.registry import rules_of, validate
from reference import assert_bits_equal


def _compiles() -> dict[str, int]:
    return dmlc.cache_info()["compiles"]


@settings(max_examples=budget(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases.ALL_CASES["expression"](), st.data())
def test_generic_expression_matches_the_oracle(case, data):
    """One drawn position dynamic, then every position: bit for bit the oracle's answer (the
    interpreter runs the generic program at the call's push words). Every position dynamic
    shares one range among many sizes (int32 addresses: 13 for 8 output dimensions), which
    a call's sizes may leave: it then compiles specialized."""
    desc = validate(case.descriptor)
    free = rules_of(desc).generic.free(desc)
    for dynamic in ((data.draw(st.sampled_from(free)),), True):
        kernel = dmlc.compile(desc, dynamic=dynamic, target="cpu")
        assert kernel.compiled.generic is not None or dynamic is True
        assert_bits_equal(kernel.reference(*case.arrays), case.expected)


def _transpose(rows: int, cols: int, dtype: str = "FLOAT32") -> ExpressionDesc:
    x = dmlc.TensorDesc(data_type=dtype, sizes=(rows, cols))
    return ExpressionDesc(name="Y", index_vars=("i", "j"), body=Load("X", (Var("j"), Var("i"))),
                          tensors=(("X", x),))


def test_a_signature_back_with_other_sizes_compiles_one_generic_kernel():
    """auto: the first size specialized, the next four one generic kernel, each exact."""
    KERNELS.clear()
    for rows in (5, 3, 9, 1, 17):
        x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        assert_bits_equal(dmlc.compile(_transpose(rows, 4), dynamic="auto").reference(x), x.T)
    assert _compiles() == {"expression": 1, "expression generic": 1}
    KERNELS.clear()


@pytest.mark.parametrize("dtype", [np.float16, np.uint8, np.float64])
def test_a_gather_by_an_expression_normalizes_against_the_pushed_rows(dtype):
    """Y[i, j] = X[I[i], j] over tables of five row counts: the loaded index is normalized
    (negative from the end, then clamped) against each call's rows, by one generic kernel."""
    KERNELS.clear()
    rng = np.random.default_rng(7)
    for rows, ids in ((6, 4), (2, 9), (11, 1), (4, 4), (30, 7)):
        x = random_bits(int(rng.integers(1 << 30)), (rows, 5), dtype)
        idx = rng.integers(-2 * rows, 2 * rows, size=ids).astype(np.int64)
        tensors = (("X", dmlc.TensorDesc(data_type=np.dtype(dtype).name, sizes=(rows, 5))),
                   ("I", dmlc.TensorDesc(data_type="INT64", sizes=(ids,))))
        desc = ExpressionDesc(name="Y", index_vars=("i", "j"),
                              body=Load("X", (Load("I", (Var("i"),)), Var("j"))), tensors=tensors)
        rows_of = np.clip(np.where(idx < 0, idx + rows, idx), 0, rows - 1)
        assert_bits_equal(dmlc.compile(desc, dynamic=True, target="cpu").reference(x, idx),
                          x[rows_of])
    assert _compiles() == {"expression generic": 1}
    KERNELS.clear()


def test_an_index_normalized_against_another_size_stays_in_the_key():
    """An IndexValue of an intermediate tensor's size (composed, lang/expressions.py) is a
    constant of its kernel: two such sizes, two kernels; its own dimension's size is pushed."""
    rules = rules_of(_transpose(2, 2))
    keys = []
    for size in (3, 4, 6):
        tensors = (("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=(6, 5))),
                   ("I", dmlc.TensorDesc(data_type="INT32", sizes=(2,))))
        body = Load("X", (IndexValue(Load("I", (Var("i"),)), size), Var("j")))
        desc = validate(ExpressionDesc(name="Y", index_vars=("i", "j"), body=body,
                                       tensors=tensors))
        keys.append(rules.generic.key(desc, rules.generic.free(desc)))
    assert keys[0] != keys[1] and keys[2] != keys[0]
    x = dmlc.TensorDesc(data_type="FLOAT32", sizes=(7, 5))  # a plain Load: normalized to 7
    own = validate(ExpressionDesc(name="Y", index_vars=("i", "j"), tensors=(("X", x), tensors[1]),
                                  body=Load("X", (Load("I", (Var("i"),)), Var("j")))))
    assert rules.generic.key(own, rules.generic.free(own)) == keys[2]  # 6 of 6, 7 of 7: pushed


def test_a_window_of_a_growing_cache_read_through_an_expression():
    """Y[i, j] = X[i, 2*j + 1] of views cache[:t] (strides fixed, sizes growing): one
    specialized and one generic compile over six sizes, each exact."""
    KERNELS.clear()
    cache = random_bits(3, (40, 16), np.int32)
    for t in (4, 5, 9, 10, 33, 40):
        x = dmlc.TensorDesc(data_type="INT32", sizes=(t, 16), strides=(16, 1))
        desc = ExpressionDesc(name="Y", index_vars=("i", "j"), tensors=(("X", x),),
                              body=Load("X", (Var("i"), Add(Mul(Var("j"), 2), Const(1)))))
        got = dmlc.compile(desc, dynamic="auto").reference(cache[:t].reshape(-1))
        assert_bits_equal(got, cache[:t, 1::2])
    assert _compiles() == {"expression": 1, "expression generic": 1}
    KERNELS.clear()


@st.composite
def row_reads(draw):
    """Y[i, j] = X[f(i), j + c] with X's rows whole 16-byte vectors and c a multiple of them
    (vector_rows.py's conditions): (descriptor, arrays, the oracle's answer)."""
    dtype = np.dtype(draw(st.sampled_from([d.numpy for d in dmlc.DataType])))
    lanes = 16 // dtype.itemsize
    width, extra = lanes * draw(st.integers(1, 3)), draw(st.integers(0, 2))
    rows = draw(st.integers(1, 9))
    x = random_bits(draw(st.integers(0, 99)), (rows, width + extra * lanes), dtype)
    c = lanes * draw(st.integers(0, extra))
    if draw(st.booleans()):
        a = draw(st.sampled_from([1, 2, -1]))
        n = draw(st.integers(1, (rows - 1) // abs(a) + 1))
        start = (n - 1) * abs(a) if a < 0 else 0
        outer, picked = Add(Mul(Var("i"), a), Const(start)), start + a * np.arange(n)
        arrays: tuple[np.ndarray, ...] = (x,)
        tensors = (("X", dmlc.TensorDesc(data_type=dtype.name, sizes=x.shape)),)
    else:
        n = draw(st.integers(1, 7))
        ids = draw(index_arrays((n,), np.int32, rows))
        outer, picked = Load("I", (Var("i"),)), np.clip(np.where(ids < 0, ids + rows, ids), 0,
                                                        rows - 1)
        arrays = (x, ids)
        tensors = (("X", dmlc.TensorDesc(data_type=dtype.name, sizes=x.shape)),
                   ("I", dmlc.TensorDesc(data_type="INT32", sizes=(n,))))
    body = Load("X", (outer, Add(Var("j"), Const(c))))
    desc = ExpressionDesc(name="Y", index_vars=("i", "j"), body=body, tensors=tensors,
                          output=dmlc.TensorDesc(data_type=dtype.name, sizes=(n, width)))
    return desc, arrays, x[picked][:, c:c + width]


@settings(max_examples=budget(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(row_reads())
def test_rows_of_whole_vectors_run_the_vector_kernel(case):
    """Every size dynamic: the "vector" variant, bit for bit the oracle's answer."""
    desc, arrays, expected = case
    kernel = dmlc.compile(desc, dynamic=True, target="cpu")
    assert kernel.compiled.variant == "vector"
    assert_bits_equal(kernel.reference(*arrays), expected)


def test_a_row_off_the_vector_width_runs_the_scalar_kernel():
    """The vector kernel's guard (a dynamic innermost size in whole vectors): 8 then 6
    columns of float32, both exact, the second by the scalar variant."""
    KERNELS.clear()
    variants = []
    for cols in (8, 6):
        x = random_bits(1, (5, cols), np.float32)
        tensors = (("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=x.shape)),)
        desc = ExpressionDesc(name="Y", index_vars=("i", "j"), tensors=tensors,
                              body=Load("X", (Add(Const(4), Mul(Var("i"), -1)), Var("j"))))
        kernel = dmlc.compile(desc, dynamic=True, target="cpu")
        variants.append(kernel.compiled.variant)
        assert_bits_equal(kernel.reference(x), x[::-1])
    assert variants == ["vector", "scalar"]
    KERNELS.clear()

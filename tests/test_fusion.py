"""Fusing statements never changes a result: a fused program gives the bits of running its
statements one at a time, with data-dependent indices in and out of range (issue 17, item 0).
A read through a loaded index keeps the clamping of the tensor it indexes; a read that cannot be
composed keeps the intermediate tensor (two kernels)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dmlc
from dmlc.lang import parse_module
from reference import assert_bits_equal
from strategies import DATA_TYPES, budget, random_bits


def run_reference(text: str, given_arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every statement of `text` on the IR interpreter, in order, as dmlc.run_module runs them
    (each kernel's inputs: the given arrays, then earlier results)."""
    results: dict[str, np.ndarray] = {}
    for u in parse_module(text).units:
        kernel = dmlc.compile(u.descriptor)
        args = [given_arrays.get(n, results.get(n)) for n in kernel.program.inputs]
        results[u.name] = kernel.reference(*args)
    return results


ISSUE = """
X: float32[3] = [10, 20, 30]
I: int32[1] = [{i}]
A: float32[{a}]
A[j] = X[j]
Y: float32[2]
Y[k] = A[I[0]]
"""


@pytest.mark.parametrize("i, a, expected", [(5, 2, 20), (-2, 1, 10), (1, 2, 20), (-1, 2, 20)])
def test_a_read_through_an_index_keeps_the_intermediates_clamping(i, a, expected):
    module = parse_module(ISSUE.format(i=i, a=a))
    y = next(u for u in module.units if u.name == "Y")
    assert {n for n, _ in y.descriptor.tensors} == {"X", "I"}  # still fused: one kernel
    kernel = dmlc.compile(y.descriptor)
    x, idx = np.array([10, 20, 30], np.float32), np.array([i], np.int32)
    args = {"X": x, "I": idx}
    assert_bits_equal(kernel.reference(*[args[n] for n in kernel.program.inputs]),
                      np.full(2, expected, np.float32))


def test_a_read_that_cannot_compose_keeps_the_intermediate():
    text = ("X: float32[8]\nI: int32[2]\nY[i] = X[i // 4]\nZ[k] = Y[I[k]]\n")
    module = parse_module(text)
    z = module.units[1]
    assert {n for n, _ in z.descriptor.tensors} == {"I", "Y"}
    x = np.arange(8, dtype=np.float32)
    got = run_reference(text, {"X": x, "I": np.array([1, 40], np.int32)})["Z"]
    assert_bits_equal(got, np.array([x[0], x[7]], np.float32))


@pytest.mark.vulkan
def test_the_issue_program_prints_its_expected_values(tmp_path, capsys):
    from dmlc.cli import main
    path = tmp_path / "fused.dml"
    path.write_text(ISSUE.format(i=5, a=2).replace("Y: float32[2]", "Y: float32[2] = [20, 20]"))
    assert main(["run", str(path)]) == 0
    assert "Y: float32[2] = [20, 20]" in capsys.readouterr().out


# Reads through a loaded index are drawn most: they are where fusion can change a result.
A_READS = ["X[j]", "X[j]", "X[j // 2]", "X[{n1} - j]", "X[J[j]]", "X[(j + 1) % {n}]", "X[2*j]",
           "where(j >= 1 && j <= {n}, X[j - 1], 0)", "where(2*j + 1 < {n}, X[2*j + 1], X[0])",
           "where(j % 2 == 0, X[J[j]], 1)"]
Y_READS = ["A[I[k]]", "A[I[k]]", "A[I[k // 2]]", "A[I[0]]", "A[k]", "A[k // 2]", "A[{m1} - k]",
           "where(k < {m}, A[k], 1)", "where(k >= 1 && k - 1 < {m}, A[k - 1], A[0])",
           "where({m1} - k >= 0, A[{m1} - k], A[I[k]])"]


@settings(max_examples=budget(150), deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 6), q=st.integers(1, 6),
       a_read=st.sampled_from(A_READS), y_read=st.sampled_from(Y_READS),
       dtype=st.sampled_from(DATA_TYPES), seed=st.integers(0, 2**32 - 1))
def test_fused_programs_give_the_bits_of_their_statements_one_at_a_time(
        n, m, q, a_read, y_read, dtype, seed):
    rng = np.random.default_rng(seed)
    name = np.dtype(dtype).name
    a_body = a_read.format(n=n, n1=n - 1)
    y_body = y_read.format(m=m, m1=m - 1)
    inputs = {"X": random_bits(seed, (n,), dtype),
              "J": rng.integers(-2 * n, 2 * n, m).astype(np.int32),
              "I": rng.integers(-2 * m, 2 * m, q).astype(np.int32)}
    decls = (f"X: {name}[{n}]\nJ: int32[{m}]\nI: int32[{q}]\n"
             f"A: {name}[{m}]\nY: {name}[{q}]\n")
    stmt_a, stmt_y = f"A[j] = {a_body}\n", f"Y[k] = {y_body}\n"
    # one at a time: A as a program of its own, then Y reading A as a declared input
    try:
        alone_a = run_reference(f"X: {name}[{n}]\nJ: int32[{m}]\nA: {name}[{m}]\n" + stmt_a,
                                inputs)["A"]
        alone_y = run_reference(f"A: {name}[{m}]\nI: int32[{q}]\nY: {name}[{q}]\n" + stmt_y,
                                {**inputs, "A": alone_a})["Y"]
    except dmlc.DmlcError:  # a statement that is not valid as written (e.g. out of range)
        assume(False)
    fused = run_reference(decls + stmt_a + stmt_y, inputs)  # valid alone: valid together
    assert_bits_equal(fused["A"], alone_a)
    assert_bits_equal(fused["Y"], alone_y)

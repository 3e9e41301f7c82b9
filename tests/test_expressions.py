"""Tensor expressions: shape inference, static range errors, fusion into one kernel, and random
statements against an independent oracle (Python evaluating the same text on numpy grids)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
from dmlc.ir import Op
from dmlc.ir.ops import toposort
from dmlc.lang import parse_module
from reference import assert_bits_equal, evaluate_statement
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits

X = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
I = np.array([[1, 2, 0], [2, 0, -1]], np.int32)
DECLS = "X: float32[3, 3]\nI: int32[2, 3]\n"
ISSUE_EXAMPLES = {  # the examples of the issue, with numpy's answer
    "Y[i, j] = X[I[i, j], j]": np.take_along_axis(X, np.where(I < 0, I + 3, I), axis=0),
    "Z[i, j] = X[2*i + 1, 2 - j]": X[1::2, ::-1],
    "W[i, j] = X[I[i // 2, j], 2 - j]": X[np.where(I < 0, I + 3, I)[np.arange(4)[:, None] // 2,
                                          np.arange(3)], 2 - np.arange(3)],
}


def kernels(text: str) -> dict[str, dmlc.CompiledKernel]:
    return dmlc.compile_module(parse_module(text))


def run(kernel: dmlc.CompiledKernel, arrays: dict[str, np.ndarray], device: bool) -> np.ndarray:
    args = [arrays[n] for n in kernel.program.inputs]
    return kernel(*args) if device else kernel.reference(*args)


@pytest.mark.parametrize("device", [False, pytest.param(True, marks=pytest.mark.vulkan)],
                         ids=["interp", "device"])
@pytest.mark.parametrize("statement", list(ISSUE_EXAMPLES))
def test_issue_examples_are_one_kernel_each_and_match_numpy(statement, device):
    (k,) = kernels(DECLS + statement).values()
    assert len(k.program.kernels) == 1 and len(k.stages) == 1
    assert_bits_equal(run(k, {"X": X, "I": I}, device), ISSUE_EXAMPLES[statement])


@pytest.mark.parametrize("statement, shape", [
    ("Y[i, j] = X[i, j]", (3, 3)),
    ("Y[i, j] = X[2 - i, j // 2]", (3, 6)),
    ("Y[i] = X[i % 3, i // 3]", (9,)),          # i % 3 never leaves X; i // 3 < 3 bounds i
    ("Y[i, j] = X[2*i, 2*j + 1]", (2, 1)),
    ("Y[i, j] = X[-i + 2, I[1, j]]", (3, 3)),   # j bound by I's dimension 1
    ("Y[i, j, k] = X[I[i, j], k]", (2, 3, 3)),
])
def test_output_shape_inference(statement, shape):
    (k,) = kernels(DECLS + statement).values()
    assert k.output.sizes == shape


@pytest.mark.parametrize("text, words", [
    ("Y[i] = X[i + 1, 0]\nY: float32[3]", ["X subscript 0 (i + 1)", "[0, 2]", "got [1, 3]",
                                           "i in [0, 2]"]),
    ("Y: float32[3, 3]\nY[i, j] = X[i + j, j]", ["X subscript 0 (i + j)", "got [0, 4]"]),
    ("Y[i] = X[i, k]", ["unbound index 'k'"]),
    ("Y[i] = X[i]", ["X subscripts: expected 2", "got 1"]),
    ("Y[i] = Q[i]", ["'Q'", "declare it first"]),
    ("F: float32[3]\nY[i] = X[F[i], i]", ["an index tensor", "float32"]),
    ("F: float32[3]\nY[i] = X[F[i] + 1, i]", ["X subscript 0 (F[i] + 1): F[i]",
                                              "an index tensor", "got float32"]),
    ("Y[i, j] = X[i + j, 0]", ["extent of index i", "declare the output's shape"]),
    ("Y: int32[3, 3]\nY[i, j] = X[i, j]", ["DataType", "FLOAT32"]),
    ("Y[i] = X[i, i]\nY[i] = X[i, 0]", ["Y is defined twice"]),
    ("Y[i, i] = X[i, i]", ["distinct names"]),
])
def test_semantic_errors_name_tensor_index_and_bound(text, words):
    with pytest.raises(dmlc.DmlcError) as info:
        dmlc.compile_module(parse_module(DECLS + text, "e.dml"))
    msg = str(info.value)
    for w in words:
        assert w in msg, msg
    assert msg.startswith("e.dml:"), msg


def test_statements_fuse_into_one_kernel_that_reads_only_inputs():
    text = DECLS + """
    G[t, d] = X[I[t // 3, t % 3], d]      # gather rows: [6, 3]
    S[t, d] = G[5 - t, 2 - d]             # reverse both axes
    V[t, d] = S[2*t + 1, d // 2]          # every 2nd row, columns repeated: [3, 6]
    """
    ks = kernels(text)
    v = ks["V"]
    assert len(v.program.kernels) == 1 and set(v.program.inputs) == {"X", "I"}
    loads = [n for n in toposort(list(v.program.kernels[0].effects)) if n.op is Op.LOAD]
    rows = np.where(I < 0, I + 3, I).reshape(-1)
    g = X[rows]
    s = g[::-1, ::-1]
    expected = s[1::2][:, np.arange(6) // 2]
    assert_bits_equal(run(v, {"X": X, "I": I}, False), expected)
    assert sorted(n.arg for n in loads) == ["I", "X"]  # per element: one read of I, one of X


# ---- random statements against the oracle

@st.composite
def statements(draw):
    """A random statement over a data tensor X of rank 1-4 (output dims permuted, each read with
    an affine map or through a 1-D index tensor with wild values) and its inputs."""
    rank = draw(st.integers(1, 4))
    x_shape = [draw(st.integers(1, 5)) for _ in range(rank)]
    dtype = draw(st.sampled_from(DATA_TYPES))
    perm = draw(st.permutations(range(rank)))  # output index k reads X's dimension perm[k]
    names = [f"v{k}" for k in range(rank)]
    subs, out_shape, arrays, index_names = [None] * rank, [], {}, set()
    decls = []
    for k, dim in enumerate(perm):
        n, v = x_shape[dim], names[k]
        kind = draw(st.sampled_from(["affine", "affine", "div", "mod", "indirect"]))
        if kind == "indirect":
            extent = draw(st.integers(1, 6))
            idx_type = draw(st.sampled_from(INDEX_TYPES))
            name = f"I{k}"
            arrays[name] = draw(index_arrays((extent,), idx_type, n))
            index_names.add(name)
            decls.append(f"{name}: {idx_type.name}[{extent}]")
            subs[dim] = f"{name}[{v}]"
        elif kind == "div":
            d = draw(st.integers(1, 3))
            extent = draw(st.integers(1, n * d))
            subs[dim] = f"{v} // {d}"
        elif kind == "mod":
            m = draw(st.integers(1, n))
            extent = draw(st.integers(1, 7))
            subs[dim] = f"(({v} + {draw(st.integers(0, 9))}) % {m})"
        else:
            a = draw(st.sampled_from([1, 2, 3, -1, -2]))
            extent = draw(st.integers(1, (n - 1) // abs(a) + 1))
            span = abs(a) * (extent - 1)
            c = draw(st.integers(span if a < 0 else 0, n - 1 if a < 0 else n - 1 - span))
            subs[dim] = f"{a}*{v} + {c}" if a != -1 else f"{c} - {v}"
        out_shape.append(extent)
    arrays["X"] = random_bits(draw(st.integers(0, 2**32 - 1)), tuple(x_shape), dtype)
    decls.append(f"X: {np.dtype(dtype).name}[{', '.join(map(str, x_shape))}]")
    decls.append(f"Y: {np.dtype(dtype).name}[{', '.join(map(str, out_shape))}]")
    rhs = f"X[{', '.join(subs)}]"
    text = "\n".join(decls) + f"\nY[{', '.join(names)}] = {rhs}\n"
    return text, rhs, names, tuple(out_shape), arrays, index_names


def check_statement(case, device: bool) -> None:
    text, rhs, names, shape, arrays, index_names = case
    (k,) = kernels(text).values()
    expected = evaluate_statement(rhs, names, shape, arrays, index_names)
    assert_bits_equal(run(k, arrays, device), expected)


@given(statements())
def test_random_statements_on_the_interpreter(case):
    check_statement(case, device=False)


@pytest.mark.vulkan
@given(statements())
def test_random_statements_on_the_device(case):
    check_statement(case, device=True)

"""A kernel repeats a float add/mul scatter combine (integer-only soft float) at most
SOFT_FLOAT_COPIES times an invocation (ir/kernel.py): SwiftShader took 50 s to build the
pipeline of a generic float32 scatter-add that walked 16 lines an item, and the specialized
kernel at the bench's sizes walked 16 too. The planner, the generic scatter and the verifier
each keep the bound; other reductions and types keep their 16 lines."""
from __future__ import annotations

import re

import pytest

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.codegen import glsl
from dmlc.family.registry import validate
from dmlc.ir import Buffer, Kernel, Program
from dmlc.ir import build as b
from dmlc.ir.kernel import SOFT_FLOAT_COPIES
from dmlc.ir.verify import IRError, verify_program
from dmlc.passes.planner import _runs

FLOATS = (DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64)


SOFT_FLOAT_CALL = re.compile(r"\bdmlc_(add|mul)_f(16|32|64)\(v")


def _copies(kernel: dmlc.CompiledKernel) -> list[int]:
    """The float add/mul combines each kernel's GLSL calls (its soft-float functions applied
    to values, not their definitions), counted in the text: not ir/kernel.py's count."""
    return [len(SOFT_FLOAT_CALL.findall(glsl.render_glsl(k, kernel.program)))
            for k in kernel.program.kernels]


def _scatter_nd(dtype: DataType, reduction: str, m: int) -> dmlc.ScatterNDDesc:
    return validate(dmlc.ScatterNDDesc(
        input=TensorDesc(data_type=dtype, sizes=(m, m)),
        indices=TensorDesc(data_type=DataType.INT32, sizes=(m // 4, 1)),
        updates=TensorDesc(data_type=dtype, sizes=(m // 4, m)),
        input_dimension_count=2, indices_dimension_count=2, reduction=reduction))


def _scatter(dtype: DataType, reduction: str, m: int) -> dmlc.ScatterDesc:
    t = TensorDesc(data_type=dtype, sizes=(m, m))
    return validate(dmlc.ScatterDesc(
        input=t, indices=TensorDesc(data_type=DataType.INT32, sizes=(m, m)), updates=t, axis=0,
        reduction=reduction))


@pytest.mark.parametrize("make", [_scatter_nd, _scatter])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["add", "mul"])
@pytest.mark.parametrize("dynamic", [False, True])
def test_float_add_mul_scatters_repeat_the_combine_at_most_the_bound(make, dtype, reduction,
                                                                     dynamic):
    assert SOFT_FLOAT_COPIES == 4  # the bound the module's docstring argues for
    kernel = dmlc.compile(make(dtype, reduction, 512), dynamic=dynamic)
    assert 1 <= max(_copies(kernel)) <= SOFT_FLOAT_COPIES  # the planner's (1 with no passes)
    if dynamic:  # the generic kernel's lines, lowered so
        assert max(_copies(kernel)) == SOFT_FLOAT_COPIES


@pytest.mark.parametrize("dtype,reduction", [(DataType.FLOAT32, "max"),
                                             (DataType.INT32, "add"), (DataType.INT64, "mul")])
def test_cheap_combines_keep_sixteen_lines(dtype, reduction):
    glsl = dmlc.compile(_scatter(dtype, reduction, 512), dynamic=True).glsl
    name = {"max": "dmlc_max_f32", "add": "dmlc_add_i32", "mul": "dmlc_mul_i64"}[reduction]
    assert glsl.count(f"{name}(v") == 16


def test_the_verifier_refuses_more_copies():
    out = Buffer("output", DataType.FLOAT32, 8, "output")
    value = b.load(out, b.const(0))
    stores = tuple(b.store(out, b.const(i), b.combine("add", b.load(out, b.const(i)), value))
                   for i in range(SOFT_FLOAT_COPIES + 1))
    program = Program("p", (out,), (Kernel("k", 1, stores[:-1]),), (), "output", (8,))
    verify_program(program)
    with pytest.raises(IRError, match="float add/mul combines"):
        verify_program(program.with_kernels((Kernel("k", 1, stores),)))


def test_the_planner_counts_the_copies_an_item_already_has():
    """Two float combines an item: no factor above 2 is offered (4 would make 8 copies, which
    the verifier refuses after planning)."""
    n = 1 << 16
    inp = Buffer("input", DataType.FLOAT32, n, "input")
    ids = Buffer("indices", DataType.INT32, n, "input")
    out = Buffer("output", DataType.FLOAT32, 2 * n, "output")
    g = b.item_id(n)
    row = b.clamp(b.index(b.load(ids, g), n, "clamp"), 0, n - 1)
    stores = tuple(b.store(out, at, b.combine("add", b.load(out, at), b.load(inp, g)))
                   for at in (row, b.add(row, n)))
    kernel = Kernel("k", n, stores)
    program = Program("p", (inp, ids, out), (kernel,), ("input", "indices"), "output", (2 * n,))
    factors = [m.count for m in _runs(kernel, program, None, 1)]
    assert factors and max(factors) == SOFT_FLOAT_COPIES // 2

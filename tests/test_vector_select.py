"""Vectors through selects (passes/vector_select.py): join and split, whose kernels choose their
input with a chain of selects, move 16 bytes per item when every piece is whole vectors, and
give the same bits as without the passes; where a piece is not, they stay scalar. No Vulkan:
the IR interpreter runs both programs; glslang compiles the shaders."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.codegen.glsl import render_glsl
from dmlc.dtypes import DataType
from dmlc.ir import Buffer, Kernel, Program
from dmlc.ir import build as b
from dmlc.ir.interp import run_buffers
from dmlc.ir.ops import Op, toposort
from dmlc.passes.pipeline import env_names, run_pipeline
from dmlc.toolchain import compile_glsl
from reference import assert_bits_equal
from strategies import random_bits

VECTORIZING = not env_names("DMLC_DISABLE_PASSES") & {"vectorize", "all"}
"""Whether the shape of the kernels is asserted (make test-nopasses runs the bits alone)."""


def T(shape, dtype):
    return dmlc.TensorDesc(data_type=DataType.of(np.dtype(dtype)), sizes=tuple(shape))


def ops(kernel) -> set[Op]:
    return {n.op for n in toposort(list(kernel.effects))}


ALIGNED = [("float32", (4, 8, 12)), ("float16", (8, 16, 8)), ("int8", (16, 32, 16)),
           ("float64", (2, 6, 2)), ("uint64", (2, 2, 4)), ("int32", (4, 4))]


@pytest.mark.parametrize("dtype, widths", ALIGNED, ids=[a[0] for a in ALIGNED])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_aligned_join_and_split_move_whole_vectors(dtype, widths, axis):
    shape = [3, 2, 1]
    xs = [random_bits(k, tuple(w if d == axis else s for d, s in enumerate(shape)),
                      np.dtype(dtype)) for k, w in enumerate(widths)]
    join = dmlc.compile(dmlc.JoinDesc(inputs=tuple(T(x.shape, dtype) for x in xs), axis=axis))
    (kernel,) = join.program.kernels
    if VECTORIZING and (axis == 2 or np.prod([s for d, s in enumerate(shape) if d > axis]) == 1):
        assert Op.VLOAD in ops(kernel) and Op.LOAD not in ops(kernel), join.ir
    joined = np.concatenate(xs, axis=axis)
    assert_bits_equal(join.reference(*xs), joined)
    split = dmlc.compile(dmlc.SplitDesc(input=T(joined.shape, dtype),
                                        outputs=tuple(T(x.shape, dtype) for x in xs), axis=axis))
    for got, x in zip(split.reference(joined), xs):
        assert_bits_equal(got, x)
    for stage in (*join.compiled.stages, *split.compiled.stages):
        assert stage.spirv[:4] == bytes.fromhex("03022307")  # glslang compiled the select


@pytest.mark.parametrize("widths", [(3, 5), (4, 6), (1, 4, 3)])
def test_pieces_of_part_vectors_move_lanes(widths):
    """Pieces that end inside a vector: each lane picked from the vectors its piece spans (or
    its own load where they are not near), bit-exact."""
    xs = [random_bits(k, (2, w), np.dtype("float32")) for k, w in enumerate(widths)]
    join = dmlc.compile(dmlc.JoinDesc(inputs=tuple(T(x.shape, "float32") for x in xs), axis=1))
    if VECTORIZING and sum(widths) % 4 == 0:  # rows of whole vectors
        assert all(Op.VSTORE in ops(k) for k in join.program.kernels), join.ir
    assert_bits_equal(join.reference(*xs), np.concatenate(xs, axis=1))


def window_program(dtype: DataType, fill_bits: int) -> Program:
    """out[r, c] = in[r, c - 16] for 16 <= c < 32, else `fill` (a constant): rows of 64."""
    n_rows, cols = 4, 64
    b_in, b_out = Buffer("input", dtype, n_rows * 16, "input"), Buffer("output", dtype,
                                                                      n_rows * cols, "output")
    gid = b.item_id(n_rows * cols)
    c = b.floormod(gid, cols)
    inside = b.logical_and(b.less(15, c), b.less(c, 32))
    address = b.add(b.mul(b.floordiv(gid, cols), 16), b.clamp(b.sub(c, 16), 0, 15))
    value = b.where(inside, b.load(b_in, address), b.const_data(dtype, fill_bits))
    kernel = Kernel("window", n_rows * cols, (b.store(b_out, gid, value),))
    return Program("window", (b_in, b_out), (kernel,), ("input",), "output", (n_rows, cols))


@pytest.mark.parametrize("dtype", list(DataType), ids=lambda d: d.name)
def test_a_window_with_a_constant_outside_moves_whole_vectors(dtype):
    """A select between a load and a constant (padding's form): the constant becomes a vector
    of it, the load an aligned vector load on its branch; the bits are the scalar program's."""
    fill = (0xA5A5A5A5A5A5A5A5 >> (64 - dtype.bits)) & ((1 << dtype.bits) - 1)
    p = window_program(dtype, fill)
    x = random_bits(1, (4 * 16,), dtype.numpy).view(dtype.bits_dtype)
    before = run_buffers(p, x)["output"]
    after_p = run_pipeline(p, dump_after=set(), disabled=set())
    after = run_buffers(after_p, x)["output"]
    assert np.array_equal(after, before)
    expected = np.full((4, 64), fill, dtype=dtype.bits_dtype)
    expected[:, 16:32] = x.reshape(4, 16)
    assert np.array_equal(before.reshape(4, 64), expected)
    (k,) = after_p.kernels
    assert {Op.VLOAD, Op.VPACK} <= ops(k) and Op.LOAD not in ops(k), k
    compile_glsl(render_glsl(k, after_p))

"""GLSL generation: CHECK-style assertions on the fragments that matter, and a SPIR-V check that
every kernel kind, for every data and index type, compiles, validates and declares no optional
capability."""
from __future__ import annotations

import itertools
import os
import re

import pytest

import dmlc
from dmlc import GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc, TensorDesc
from dmlc.toolchain import FORBIDDEN_CAPABILITIES, capabilities

DTYPES = [d.name for d in dmlc.DataType]
ITYPES = ["INT32", "INT64", "UINT32", "UINT64"]


def T(sizes, dtype="FLOAT32"):
    return TensorDesc(data_type=dtype, sizes=sizes)


def descriptors(dtype, itype):
    yield GatherDesc(input=T((5, 3), dtype), indices=T((1, 4), itype), axis=0, index_dimensions=1)
    yield GatherElementsDesc(input=T((5, 3), dtype), indices=T((2, 3), itype), axis=0)
    yield ScatterDesc(input=T((5, 3), dtype), indices=T((2, 3), itype), updates=T((2, 3), dtype),
                      axis=0)
    yield Slice1Desc(input=T((5, 3), dtype), offsets=(1, 0), sizes=(4, 3), strides=(-2, 1))


COMBOS = [(d, i) for d, i in itertools.product(DTYPES, ITYPES) if i == "INT32" or d == "FLOAT32"]


@pytest.mark.parametrize("dtype,itype", COMBOS)
def test_every_kernel_is_portable_spirv(dtype, itype):
    for desc in descriptors(dtype, itype):
        kernel = dmlc.compile(desc)
        for stage in kernel.stages:
            # Only 32-bit types in the source: no 64/16/8-bit declarations at all.
            assert not re.search(r"\b(u?int(64|16|8)_t|double|float16_t|dvec\d)\b", stage.glsl)
            assert "GL_EXT_shader" not in stage.glsl
            caps = capabilities(stage.spirv)
            assert caps and not set(caps) & set(FORBIDDEN_CAPABILITIES), caps


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_lowerings(dtype, scatter_design):
    """By lines: a copy kernel, then a loop over the axis in each line's invocation, for 32/64-bit
    data (8/16-bit data scatter by vote: their lines would share words); portable SPIR-V."""
    k = dmlc.compile(ScatterDesc(input=T((5, 3), dtype), indices=T((4, 3), "INT32"),
                                 updates=T((4, 3), dtype), axis=0))
    lines = scatter_design == "lines" and dmlc.DataType[dtype].bits >= 32
    assert [s.name for s in k.stages] == (["scatter_copy", "scatter_lines"] if lines else
                                          ["scatter_vote", "scatter_resolve"])
    assert ("for (int step = 0; step < 4; step++) {" in k.glsl) == lines
    assert ("atomicMax" in k.glsl) != lines
    for stage in k.stages:
        assert not set(capabilities(stage.spirv)) & set(FORBIDDEN_CAPABILITIES)


def test_gather_binding_layout_and_index_helper():
    k = dmlc.compile(GatherDesc(input=T((5, 3)), indices=T((1, 4), "INT64"), axis=0,
                                index_dimensions=1), dynamic=False)  # (not a generic kernel
    g = k.glsl                                         # an earlier test's gather made)
    assert "binding = 0) restrict readonly buffer Buffer0 { uint data[]; } b_input" in g
    assert "binding = 2) restrict writeonly buffer Buffer2 { uint data[]; } b_output" in g
    assert "dmlc_index_i64(" in g and ", 5, true)" in g  # clamp against dim 5
    assert "if (item < 12u) {" in g


def test_packed_outputs_are_written_a_word_per_invocation():
    g = dmlc.compile(Slice1Desc(input=T((9,), "INT8"), offsets=(0,), sizes=(9,),
                                strides=(1,))).glsl
    assert "if (item < 3u) {" in g  # 9 bytes -> 3 words, one an invocation
    assert g.count("& 0xFFu) << ") == 4  # four lanes packed into each word (legalize.py)
    assert g.count("b_output.data[gid] = ") == 1  # and stored whole, once


def test_scatter_is_a_vote_then_a_gather_form_resolve():
    k = dmlc.compile(ScatterDesc(input=T((5, 3)), indices=T((2, 3), "INT32"),
                                 updates=T((2, 3)), axis=0))
    vote, resolve = k.stages
    assert "atomicMax(b_winner.data[" in vote.glsl and "dmlc_index_i32(" in vote.glsl
    assert ", false)" in vote.glsl  # mask mode: out-of-range updates are dropped
    assert "b_winner.data[gid] = 0u;" in resolve.glsl  # leaves the scratch zeroed
    assert k.spirv == resolve.spirv


def test_division_helpers_only_where_dividend_may_be_negative():
    g = dmlc.compile(Slice1Desc(input=T((4, 6)), offsets=(0, 0), sizes=(4, 6),
                                strides=(-1, 2))).glsl
    body = g[g.index("void main"):]
    assert "dmlc_floordiv(" not in body and "dmlc_floormod(" not in body
    assert " / 3" in body  # gid // 3: plain division, gid >= 0 is proven


NEEDS_PASSES = pytest.mark.skipif(bool(os.environ.get("DMLC_DISABLE_PASSES")),
                                  reason="checks what the passes produce")


@NEEDS_PASSES
def test_power_of_two_division_is_a_shift_and_modulo_a_mask():
    # Two's complement makes these exact for negative operands too.
    g = dmlc.compile(Slice1Desc(input=T((4, 8)), offsets=(0, 0), sizes=(4, 8),
                                strides=(-1, 1))).glsl  # 2 vectors per row: gid // 2, gid % 2
    body = g[g.index("void main"):]
    assert "gid >> 1;" in body and "gid & 1;" in body
    assert "b_input_v.data[v6 >> 2]" in body  # vector index: element address // 4
    assert " / " not in body and " % " not in body


@NEEDS_PASSES
def test_unrolled_row_gather_loads_each_index_once():
    desc = GatherDesc(input=T((64, 256)), indices=T((1, 1024), "INT32"), axis=0,
                      index_dimensions=1)
    k = dmlc.compile(desc, dynamic=False)  # 65536 vectors, 8 per invocation
    assert "kernel gather(gid < 8192, 8 items each)" in k.ir
    glsl = k.stages[0].glsl
    assert glsl.count("b_indices.data[") == 1  # one index load for eight vectors
    assert glsl.count("b_output_v.data[") == 8 and k.stages[0].invocations == 8192


@NEEDS_PASSES
def test_unrolled_scalar_kernels_move_whole_vectors(scatter_design):
    """gather_elements, scatter's resolve and scatter's lines read indices, winners and updates
    and write outputs as uvec4s once unrolled; only the data-dependent accesses stay scalar."""
    ge = dmlc.compile(GatherElementsDesc(input=T((256, 256)), indices=T((256, 256), "INT32"),
                                         axis=1)).glsl
    assert ge.count("b_indices_v.data[") == 2 and ge.count("b_output_v.data[") == 2
    assert ge.count("b_input.data[") == 8 and "uvec4(" in ge
    sc = dmlc.compile(ScatterDesc(input=T((256, 256)), indices=T((256, 256), "INT32"),
                                  updates=T((256, 256)), axis=0)).stages[1].glsl
    if scatter_design == "vote":
        assert sc.count("b_winner_v.data[") == 4  # 2 loads, 2 resets to zero
        assert "= uvec4(0u, 0u, 0u, 0u);" in sc and sc.count("b_updates.data[") == 8
    else:  # 16 lines per invocation: 4 vectors of indices and of updates per step
        assert sc.count("b_indices_v.data[") == 4 and sc.count("b_updates_v.data[") == 4
        assert sc.count("b_output.data[") == 16 and "for (int step = 0; step < 256;" in sc

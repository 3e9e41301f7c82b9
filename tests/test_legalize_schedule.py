"""The pipeline's required steps: 8/16-bit stores become whole words (passes/legalize.py), and
every kernel gets its schedule (passes/schedule.py), which codegen only prints."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from dmlc.codegen import render_glsl
from dmlc.compiled import build_program
from dmlc.family.registry import lower
from dmlc.ir import Op
from dmlc.ir.interp import run_program
from dmlc.ir.ops import toposort
from dmlc.passes.pipeline import run_pipeline
from reference import assert_bits_equal
from strategies import budget, random_bits

SUB_WORD = ["int8", "uint8", "int16", "uint16", "float16"]


def _slice(n: int, dtype: str, stride: int) -> dmlc.Slice1Desc:
    return dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type=dtype.upper(), sizes=(n,)),
                           offsets=(0,), sizes=(n,), strides=(stride,))


@settings(max_examples=budget(60), deadline=None)
@given(st.integers(1, 40), st.sampled_from(SUB_WORD), st.sampled_from([1, -1, 2, -3]),
       st.sampled_from(["", "all"]))
def test_sub_word_outputs_are_stored_as_whole_words(n, dtype, stride, disabled):
    """Any count, also one that leaves the last word part empty, with and without the passes:
    the kernel stores whole words (one per item) or whole vectors, and computes the slice."""
    checked, _ = build_program(_slice(n, dtype, stride), dump_after=set())
    program = run_pipeline(lower(checked), dump_after=set(), disabled={disabled})
    (k,) = program.kernels
    lanes = 4 // np.dtype(dtype).itemsize
    out = checked.output.element_count
    stores = [e.op for e in k.effects]
    assert stores in ([Op.WSTORE], [Op.VSTORE]), stores
    if stores == [Op.WSTORE]:
        assert k.items == -(-out // lanes)
    x = random_bits(n, (n,), dtype)
    got = run_program(program, x).view(dtype)
    assert_bits_equal(got, x[::stride][:out])


def test_a_ragged_last_word_predicates_the_other_stores():
    """A 32-bit store beside an 8-bit one in the same kernel (scatter's resolve resets its
    scratch) must not run for the lanes past the items."""
    desc = dmlc.ScatterDesc(input=dmlc.TensorDesc(data_type="INT8", sizes=(3, 3)),
                            indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 3)),
                            updates=dmlc.TensorDesc(data_type="INT8", sizes=(1, 3)), axis=0)
    _, program = build_program(desc, dump_after=set(), target="gpu")
    words = [k for k in program.kernels if any(e.op is Op.WSTORE for e in k.effects)]
    assert words
    for k in words:
        others = [e for e in k.effects if e.op is not Op.WSTORE]
        assert all(len(e.src) == 3 for e in others[1:])  # lane 0 is always in range
    x = np.arange(9, dtype=np.int8).reshape(3, 3)
    kernel = dmlc.compile(desc, target="gpu")
    got = kernel.reference(x, np.array([[2, 0, 1]], np.int32), np.array([[7, 8, 9]], np.int8))
    expected = x.copy()
    expected[[2, 0, 1], [0, 1, 2]] = [7, 8, 9]
    assert_bits_equal(got, expected)


def test_every_kernel_is_scheduled_and_codegen_only_prints_it():
    _, program = build_program(_slice(1 << 17, "float32", -1), dump_after=set())
    for k in program.kernels:
        assert k.schedule is not None and k.schedule.items == k.items
        glsl = render_glsl(k, program)
        assert f"layout(local_size_x = {k.schedule.local_size}) in;" in glsl
        assert glsl.count("uint item = group * ") == k.schedule.stride
    unscheduled = program.kernels[0].__class__(program.kernels[0].name, program.kernels[0].items,
                                               program.kernels[0].effects)
    with pytest.raises(ValueError, match="no schedule"):
        render_glsl(unscheduled, program)


def test_the_required_steps_run_with_every_pass_disabled():
    checked, _ = build_program(_slice(9, "int8", 1), dump_after=set())
    program = run_pipeline(lower(checked), dump_after=set(), disabled={"all"})
    (k,) = program.kernels
    assert k.schedule is not None
    assert not any(n.op is Op.STORE for n in toposort(list(k.effects)))

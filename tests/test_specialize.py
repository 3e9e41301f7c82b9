"""ir/specialize.py: a generic program with every PARAM bound to one call's values is a static
program that computes, bit for bit, what the generic one computes with those push words (the
IR interpreter runs both on the same random bytes), for every family's generic lowerings and
variants; and where a family's two lowerings already agree (tools/lowering_parity.py), they
keep agreeing. No Vulkan."""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits
from tests.test_generic_vectors import moves_vectors

import dmlc
from cases import ALL_CASES
from cases_nd import gather_nd_cases
from dmlc import DataType, GatherND1Desc, PaddingDesc, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.errors import DmlcError
from dmlc.family.registry import rules_of, validate
from dmlc.ir.interp import buffer_count, run_program
from dmlc.ir.ops import IRError
from dmlc.ir.specialize import specialize
from dmlc.ir.verify import verify_program
from dmlc.passes import run_pipeline
from dmlc.passes.pipeline import env_names

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
import lowering_parity

FAMILIES = sorted(ALL_CASES)
WIDE = [t.numpy for t in DataType if t.bits >= 32]
PASSES_ON = pytest.mark.skipif(bool(env_names("DMLC_DISABLE_PASSES")),
                               reason="the two programs agree once the passes optimized them")


def _generic(data: st.DataObject, family: str):
    """A drawn call of `family` and one of its generic programs (some dimensions dynamic, one of
    the variants it may run), with the call's push words; None where it has none."""
    try:
        desc = validate(data.draw(ALL_CASES[family](), label="case").descriptor)
    except DmlcError:  # the cases that test refusals
        return None
    rules = rules_of(desc).generic
    if rules is None or not rules.free(desc):
        return None
    free = list(rules.free(desc))
    dims = tuple(sorted(data.draw(st.sets(st.sampled_from(free), min_size=1), label="dims")))
    variant = data.draw(st.sampled_from(rules.choices(desc, dims)), label="variant")
    generic = rules.build(desc, dims, variant)
    values = None if generic is None else generic.values(desc)
    return None if values is None else (desc, generic.program, values)


@settings(max_examples=budget(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FAMILIES), st.data())
def test_specialized_program_computes_what_the_generic_one_does(family, data):
    found = _generic(data, family)
    if found is None:
        return
    _, program, values = found
    event(f"{family}: bound")
    static = verify_program(specialize(program, values))
    assert static.params == () and static.divisors == ()
    assert all(b.extent is None for b in static.buffers)
    assert all(k.count is None and k.step_count is None for k in static.kernels)
    for buf in program.buffers:  # each buffer as large as the call's
        assert static.buffer(buf.name).count == buffer_count(buf, values)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    inputs = [program.buffer(n) for n in program.inputs]
    arrays = [rng.integers(0, 256, buffer_count(buf, values) * buf.dtype.itemsize, np.uint8)
              .view(buf.dtype.bits_dtype) for buf in inputs]
    np.testing.assert_array_equal(run_program(static, *arrays),
                                  run_program(program, *arrays, params=values))


@PASSES_ON
@settings(max_examples=budget(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(gather_nd_cases(dtypes=WIDE), st.sampled_from(["cpu", "gpu"]))
def test_gather_nd_lowerings_agree(case, target):
    """DML_GATHER_ND's specialized kernel is its one lowering with no size pushed (lower.py):
    the generic kernel of no dynamic dimension, its offsets pushed too, bound to the call's
    values optimizes to exactly that program for 32/64-bit types (an 8/16-bit generic kernel
    stores words of its own making, which a few random cases in 1,500 spell otherwise)."""
    assert lowering_parity.compare(validate(case.descriptor), target) == ("same", "")


@PASSES_ON
@pytest.mark.parametrize("dtype,tail,vectors", [
    (DataType.FLOAT16, (2, 4), True),    # 8 halves: one vector, its innermost size 4
    (DataType.FLOAT16, (1, 2, 4), True),
    (DataType.UINT8, (4, 4), True),      # 16 bytes
    (DataType.FLOAT32, (3, 4), True),    # 3 vectors, one row of them
    (DataType.FLOAT32, (3, 2), False),   # 6 elements: no whole vectors
    (DataType.FLOAT16, (2, 3), False)])
def test_gather_nd_reads_a_contiguous_slice_as_one_row_of_vectors(dtype, tail, vectors):
    """A gathered slice whose innermost size is off the vector width but whose contiguous tail
    is whole vectors ([2, 4] float16: 16 bytes) moves as one row of vectors, as the specialized
    lowering's passes move it: the bound generic program optimizes to the specialized one
    (tools/lowering_parity.py; Hypothesis found the [1, 2, 4] float16 case), and over several
    numbers of tuples the generic kernel reads bit for bit numpy's elements."""
    shape = (5, *tail)
    x = random_bits(7, shape, dtype.numpy)
    for n in (1, 3, 2, 6):
        ids = (np.arange(n, dtype=np.int32) * 3 % 5).reshape(n, 1)
        desc = validate(GatherND1Desc(
            input=TensorDesc(data_type=dtype, sizes=shape),
            indices=TensorDesc(data_type=DataType.INT32, sizes=(*(1,) * (len(shape) - 2), n, 1)),
            input_dimension_count=len(shape), indices_dimension_count=2,
            batch_dimension_count=0))
        for target in ("cpu", "gpu"):
            assert lowering_parity.compare(desc, target) == ("same", "")
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params and moves_vectors(generic) == vectors
        got = generic.reference(x, ids.reshape(desc.indices.sizes))
        assert got.tobytes() == np.ascontiguousarray(x[ids[:, 0]]).tobytes()
    KERNELS.clear()


def test_specialize_refuses_what_it_cannot_bind():
    desc = validate(PaddingDesc(input=TensorDesc(data_type="FLOAT16", sizes=(3, 5)),
                                mode="DML_PADDING_MODE_REFLECTION", start_padding=(1, 2),
                                end_padding=(0, 3)))
    rules = rules_of(desc).generic
    generic = rules.build(desc, (0, 1), "scalar")
    values = generic.values(desc)
    program = generic.program
    with pytest.raises(IRError, match="parameters, got"):
        specialize(program, values[:-1])
    low = program.params[0].vmin
    with pytest.raises(IRError, match="outside"):
        specialize(program, (low - 1, *values[1:]))
    planned = run_pipeline(verify_program(program))
    if planned.params:
        with pytest.raises(IRError, match="before the planner"):
            specialize(planned, values)
    static = rules_of(desc).lower(desc)
    assert specialize(static, ()) is static

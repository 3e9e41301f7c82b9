"""Tensor expressions as generic kernels on the device (ops/expression/sizes.py): random
expressions with every size pushed against the oracle, bit for bit; a growing transpose and an
ONNX Expand over a symbolic batch compile their expression once."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.onnx_models import compiles_over_batches, gather_expand
from tests.strategies import budget

import cases
import dmlc
from dmlc.expr import ExpressionDesc, Load, Var
from dmlc.family.registry import rules_of, validate
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


@settings(max_examples=budget(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases.ALL_CASES["expression"](), st.data())
def test_generic_expression_matches_the_oracle_on_the_device(case, data):
    """One drawn position dynamic (always admitted), then every one (specialized where the
    call's sizes leave the range they share: tests/test_generic_expression.py)."""
    desc = validate(case.descriptor)
    free = rules_of(desc).generic.free(desc)
    for dynamic in ((data.draw(st.sampled_from(free)),), True):
        kernel = dmlc.compile(desc, dynamic=dynamic)
        assert kernel.compiled.generic is not None or dynamic is True
        assert_bits_equal(kernel(*case.arrays), case.expected)


def test_a_growing_transpose_compiles_one_specialized_and_one_generic_kernel():
    dmlc.clear_cache()
    for rows in (5, 3, 9, 1, 17):
        x = np.random.default_rng(rows).standard_normal((rows, 6)).astype(np.float32)
        desc = ExpressionDesc(name="Y", index_vars=("i", "j"), body=Load("X", (Var("j"), Var("i"))),
                              tensors=(("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=x.shape)),))
        assert_bits_equal(dmlc.compile(desc, dynamic="auto")(x), x.T)
    assert dmlc.cache_info()["compiles"] == {"expression": 1, "expression generic": 1}


def test_onnx_expand_over_a_symbolic_batch_compiles_once():
    """Gather -> Unsqueeze -> Expand, B a dim_param: five batch sizes, the broadcast's
    expression compiled once (generic from the first run), every result as onnx's reference
    evaluator's."""
    table = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    compiles = compiles_over_batches(gather_expand(table), lambda batch, rng: {
        "ids": rng.integers(-16, 16, (batch,)).astype(np.int64)})
    assert compiles == {"DML_GATHER generic": 1, "expression generic": 1}, compiles

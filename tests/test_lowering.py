"""Descriptor -> IR -> IR interpreter == the numpy reference, bit for bit (no Vulkan needed)."""
from __future__ import annotations

import pytest
from hypothesis import given

import dmlc
from cases import ALL_CASES
from dmlc.compiled import build_program
from dmlc.ir.interp import run_program
from reference import assert_bits_equal


def interpret(case):
    checked, program = build_program(case.descriptor)
    raw = run_program(program, *case.arrays)
    out = checked.output
    return raw.view(out.data_type.numpy).reshape(out.sizes)


@pytest.mark.parametrize("op", sorted(ALL_CASES))
def test_interpreter_matches_reference(op):
    @given(ALL_CASES[op]())
    def check(case):
        if case.expected is None:  # an invalid gather: validation must refuse it
            with pytest.raises(dmlc.ValidationError):
                build_program(case.descriptor)
            return
        before = [a.copy() for a in case.arrays]
        assert_bits_equal(interpret(case), case.expected)
        for a, b in zip(case.arrays, before):
            assert_bits_equal(a, b)  # inputs untouched
    check()


def test_scatter_by_lines_matches_reference(scatter_design):
    test_interpreter_matches_reference("scatter")


@pytest.mark.parametrize("unroll_all", [False, True], ids=["default", "unroll-all"])
def test_scatter_by_lines_passes_change_nothing(unroll_all, scatter_design, monkeypatch):
    test_passes_change_nothing_observable("scatter", unroll_all, monkeypatch)


@pytest.mark.parametrize("unroll_all", [False, True], ids=["default", "unroll-all"])
@pytest.mark.parametrize("op", sorted(ALL_CASES))
def test_passes_change_nothing_observable(op, unroll_all, monkeypatch):
    """The full pipeline and no passes at all give the same bits (IR interpreter); also with
    every kernel unrolled, which the size threshold otherwise keeps from small cases."""
    import dmlc.passes.planner as planner
    if unroll_all:
        monkeypatch.setattr(planner, "MIN_ITEMS", 1)
    from dmlc.family.registry import LowerContext, lower, validate
    from dmlc.ir.verify import verify_program
    from dmlc.passes import run_pipeline
    from dmlc.target import resolve

    @given(ALL_CASES[op]())
    def check(case):
        if case.expected is None:
            return
        checked = validate(case.descriptor)
        plain = verify_program(lower(checked, LowerContext(resolve(None))))
        optimized = run_pipeline(plain, dump_after=set(), disabled=set())
        assert_bits_equal(run_program(optimized, *case.arrays), run_program(plain, *case.arrays))
    check()

"""The one-shot API on the Vulkan device == the numpy reference, bit for bit, over random cases
(ranks 1-8, all 11 data types, all 4 index types, negative and out-of-range indices, collisions)."""
from __future__ import annotations

import pytest
from hypothesis import given

import dmlc
import dmlc.passes.planner as planner
from cases import ALL_CASES
from dmlc.compiled import clear_caches
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


@pytest.fixture(params=["default", "unroll-all"])
def schedule(request, monkeypatch):
    """The default schedules, and every kernel free to run several items per invocation
    (passes/planner.py considers it only for large kernels, which random cases never reach)."""
    if request.param == "unroll-all":
        monkeypatch.setattr(planner, "MIN_ITEMS", 1)
    clear_caches()
    yield request.param
    clear_caches()


@pytest.mark.parametrize("op", sorted(ALL_CASES))
def test_device_matches_reference(op, schedule):
    check_cases(op)


def test_scatter_by_lines_matches_reference(schedule, scatter_design):
    """Scatter's two lowerings on random cases (the default picks one by size and type)."""
    check_cases("scatter")


def check_cases(op):
    @given(ALL_CASES[op]())
    def check(case):
        if case.expected is None:
            with pytest.raises(dmlc.ValidationError):
                case.fn(*case.arrays, **case.kwargs)
            return
        before = [a.copy() for a in case.arrays]
        assert_bits_equal(case.fn(*case.arrays, **case.kwargs), case.expected)
        for a, b in zip(case.arrays, before):
            assert_bits_equal(a, b)  # inputs untouched
    check()

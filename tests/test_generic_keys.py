"""The contract of a generic kernel's key (family/generic.py: GenericRules.key): descriptors of
one key share one generic kernel, so they must make the same accesses. For every family with
generic kernels, descriptors drawn by its test cases (tests/cases*.py) and views at moving
offsets (tests/offset_cases.py): wherever two share a key (with the same dynamic dimensions and
variant), both lower to the same program, or neither lowers (a kernel found by its key is run
without lowering the call again: dynamic.py)."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.offset_cases import FAMILIES, draw_calls

import cases
from dmlc import DataType
from dmlc.errors import DmlcError
from dmlc.family.registry import rules_of, validate
from dmlc.ir.printer import render_program


def _programs(desc: Any, seen: dict[Any, str | None]) -> None:
    """Lower `desc` generic for its every free dimension, each one alone and none, every
    variant; check each against what `seen` holds for its key, then record it."""
    rules = rules_of(desc).generic
    if rules is None:
        return
    free = tuple(rules.free(desc))
    for dims in {free, (), *((i,) for i in free)}:
        for form in rules.forms(desc, dims)[:1]:  # the form a miss lowers
            for variant in rules.choices(form, dims):
                key = (rules.key(form, dims), dims, variant)
                built = rules.build(form, dims, variant)
                text = None if built is None else render_program(built.program)
                if key in seen and (seen[key] is not None or text is not None):
                    assert text == seen[key], (key, desc)
                seen.setdefault(key, text)


@pytest.mark.parametrize("family", sorted(cases.ALL_CASES))
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_descriptors_of_one_key_lower_to_one_program(family, data):
    seen: dict[Any, str | None] = {}
    strategy = cases.ALL_CASES[family]()
    for _ in range(8):
        try:
            desc = validate(data.draw(strategy).descriptor)
        except DmlcError:
            continue
        _programs(desc, seen)


@pytest.mark.parametrize("name", sorted(FAMILIES))
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_views_at_moving_offsets_of_one_key_lower_to_one_program(name, data):
    seen: dict[Any, str | None] = {}
    dtype = data.draw(st.sampled_from(list(DataType)))
    for x, sizes, owner, offset, k in draw_calls(data, name, dtype):
        desc, _, _ = FAMILIES[name](dtype, x, sizes, owner, offset, k, data)
        _programs(validate(desc), seen)

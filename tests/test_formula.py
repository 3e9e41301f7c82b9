"""Push words as formulas (compiler/family/formula.py): a recipe traced on a call gives the
same arithmetic as data, its branches as guards. (tests/test_generic_keys.py checks every
family's words against the calls that share their kernel; tests/test_manifest.py and
tests/device/test_manifest_runner.py use them from a manifest.)"""
from __future__ import annotations

import math

import pytest

import dmlc
from dmlc.family.formula import TraceError, evaluate, holds, render, render_guard, trace
from dmlc.family.registry import validate

T = dmlc.TensorDesc


def _call(rows: int, width: int = 8, start: int = 0):
    return validate(dmlc.Slice1Desc(input=T(data_type="FLOAT32", sizes=(rows, width)),
                                    offsets=(start, 0), sizes=(rows - start, width),
                                    strides=(1, 1)))


def test_arithmetic_is_traced_as_data_and_evaluated_for_another_call():
    blocks, guards = trace(lambda d: -(-d.output.element_count // 4) * d.input.element_strides[0],
                           _call(6))
    assert render(blocks) == "(-((-(output.sizes[0] * output.sizes[1])) // 4)) * " \
                             "input.strides[0]"
    assert guards == ()
    other = _call(11, 5, 2)
    assert evaluate(blocks, other) == -(-9 * 5 // 4) * 5
    assert hash(blocks) == hash(trace(lambda d: -(-d.output.element_count // 4)
                                      * d.input.element_strides[0], _call(3))[0])


def test_a_branch_is_a_guard_and_an_index_pins_its_value():
    def vectors(d):
        n = d.input.sizes[1]
        return n // 4 if n % 4 == 0 else 0
    f, guards = trace(vectors, _call(6, 8))
    assert render(f) == "input.sizes[1] // 4"
    assert [render_guard(g) for g in guards] == ["input.sizes[1] % 4 == 0"]
    assert holds(guards[0], _call(2, 12)) and not holds(guards[0], _call(2, 6))
    f, guards = trace(lambda d: math.prod(d.input.sizes[d.offsets[0]:]), _call(6, 8, 1))
    assert render(f) == "input.sizes[1]"
    assert [render_guard(g) for g in guards] == ["offsets[0] == 1"]


@pytest.mark.parametrize("recipe", [lambda d: int(d.input.sizes[0]),
                                    lambda d: d.input.is_packed,
                                    lambda d: d.input.data_type])
def test_what_is_not_arithmetic_of_the_call_is_refused(recipe):
    with pytest.raises(TraceError):
        trace(recipe, _call(4))

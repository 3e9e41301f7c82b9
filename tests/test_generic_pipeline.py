"""A generic kernel's pipeline (passes/pipeline.py: run_generic_pipeline): the rule passes
simplify its program under its PARAMs' ranges, so whatever they rewrite must hold for every size
the kernel admits, not only for the call that lowered it. For descriptors of every family with
generic kernels (tests/cases*.py), each generic program (every free dimension dynamic, then each
alone; every variant, the checked and in-place forms) is run on the IR interpreter as lowered
and as compiled, at the push words of the call that lowered it and of neighbours of other sizes
that share its key (the calls the kernel serves: dynamic.py finds it by that key): every buffer
the program writes holds the same bits, for inputs of random bits (any index value, NaN
payloads, -0.0)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.strategies import budget
from tests.test_generic_keys import QUIET, _valid, free_size

import cases
from dmlc.family.registry import rules_of
from dmlc.ir.interp import buffer_count, run_buffers
from dmlc.ir.printer import render_program
from dmlc.ir.verify import verify_program
from dmlc.passes.pipeline import run_generic_pipeline

SIZES = 3
"""Neighbours of other sizes drawn per descriptor."""


def _lowerings(rules: Any, form: Any, dims: tuple[int, ...]) -> list[tuple[str, Any]]:
    """Each generic program of `form` for these dims: its variants, then its checked and
    in-place forms (dynamic.py's _lower)."""
    built = [(v, rules.build(form, dims, v)) for v in rules.choices(form, dims)]
    for name, lower in (("checked", rules.checked), ("in place", rules.in_place),
                        ("checked in place", rules.checked_in_place)):
        if lower is not None:
            built.append((name, lower(form, dims)))
    return [(name, g) for name, g in built if g is not None]


def _same_bits(generic: Any, compiled: Any, values: tuple[int, ...],
               rng: np.random.Generator) -> None:
    inputs = [rng.integers(0, 256, buffer_count(b, values) * b.dtype.itemsize,
                           dtype=np.uint8).view(b.dtype.bits_dtype)
              for name in generic.program.inputs
              for b in generic.program.buffers if b.name == name]
    lowered = run_buffers(generic.program, *inputs, params=values)
    after = run_buffers(compiled, *inputs, params=values)
    for b in generic.program.buffers:
        if b.role in ("output", "status"):
            assert np.array_equal(lowered[b.name], after[b.name]), (
                b.name, values, render_program(compiled))


@pytest.mark.parametrize("family", sorted(cases.ALL_CASES))
@settings(max_examples=budget(6), deadline=None,
          suppress_health_check=[*QUIET, HealthCheck.differing_executors])
@given(data=st.data())
def test_a_compiled_generic_program_keeps_every_bit_at_every_size_it_serves(family, data):
    case = data.draw(cases.ALL_CASES[family]())
    base = _valid(case.descriptor)
    rules = None if base is None else rules_of(base).generic
    if rules is None:
        return
    calls = [base, *(c for c in (_valid(data.draw(free_size(case.descriptor, base)))
                                 for _ in range(SIZES)) if c is not None)]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    free = tuple(rules.free(base))
    for dims in dict.fromkeys([free, *((d,) for d in free)]):
        form = rules.forms(base, dims)[0]
        key = rules.key(form, dims)
        served = [c for c in calls if rules.key(rules.forms(c, dims)[0], dims) == key]
        for _, generic in _lowerings(rules, form, dims):
            compiled = run_generic_pipeline(verify_program(generic.program), dump_after=set())
            for call in served:
                values = generic.values(call)
                if values is not None:
                    _same_bits(generic, compiled, values, rng)

"""The contract of a generic kernel's key (family/generic.py: GenericRules.key): descriptors of
one key share one generic kernel, so they must make the same accesses. For every family with
generic kernels: a descriptor drawn by its test cases (tests/cases*.py) and its neighbours
(sizes, dtypes and integer fields changed one at a time, kept where they validate), and views
at moving offsets (tests/offset_cases.py): wherever two different descriptors share a key
(with the same dynamic dimensions and variant), both lower to the same program, or neither
lowers (a kernel found by its key is run without lowering the call again: dynamic.py).

Each run counts the comparisons of two different descriptors and fails if there are too few
(two draws rarely share a key: the neighbours are what make them), and a mutation check drops
a component from a family's key and sees the test fail."""
from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from tests.offset_cases import FAMILIES, draw_calls
from tests.strategies import budget

import cases
from dmlc import DataType, TensorDesc
from dmlc.errors import DmlcError
from dmlc.family.formula import evaluate, holds, render, trace
from dmlc.family.registry import rules_of, validate
from dmlc.ir.printer import render_program

NEIGHBOURS = 6  # per drawn descriptor
WORDS = ["none", "add", "mul", "max", "min",  # DirectML's (and ONNX's) scatter reductions
         *(f"DML_PADDING_MODE_{m}" for m in ("CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC",
                                               "WRAP")),
         "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH"]
"""The words a descriptor's string fields take, for neighbours of another mode or order."""
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


class Seen:
    """Each key met so far: the first descriptor that had it, and its program (lowered only
    once a second, different descriptor shares the key: most keys are met once)."""

    def __init__(self) -> None:
        self.first: dict[Any, tuple[Any, Any, Any, str, list[str | None]]] = {}
        self.compared = 0  # comparisons of two different descriptors

    def check(self, desc: Any) -> None:
        """Every dims (all free ones, each alone, none) and variant of `desc` against the
        descriptor first seen with its key."""
        rules = rules_of(desc).generic
        if rules is None:
            return
        free = tuple(rules.free(desc))
        for dims in {free, (), *((i,) for i in free)}:
            for form in rules.forms(desc, dims)[:1]:  # the form a miss lowers
                for variant in rules.choices(form, dims):
                    key = (rules.key(form, dims), dims, variant)
                    if key not in self.first:
                        self.first[key] = (desc, rules, form, variant, [])
                        continue
                    other, other_rules, other_form, _, text = self.first[key]
                    if other == desc:
                        continue
                    if not text:
                        text.append(_program(other_rules, other_form, dims, variant))
                    mine = _program(rules, form, dims, variant)
                    self.compared += 1
                    assert mine[0] == text[0][0], ("one key, two programs", key, other, desc)
                    _same_words(text[0][1], other, desc)


def _program(rules: Any, form: Any, dims: tuple[int, ...], variant: str) -> tuple[Any, Any]:
    built = rules.build(form, dims, variant)
    return (None, None) if built is None else (render_program(built.program), built)


def _same_words(generic: Any, first: Any, call: Any) -> None:
    """The push words' formulas traced on the call that compiled the kernel (what its manifest
    holds, family/formula.py) give every later call the kernel admits its own words, and their
    guards hold for it."""
    if generic is None or generic.values(call) is None:
        return
    for recipe in generic.recipes:
        f, guards = trace(recipe, first)
        assert evaluate(f, call) == recipe(call), (render(f), first, call)
        assert all(holds(g, call) for g in guards), (guards, first, call)


def _tensors(desc: Any, change: Any) -> Any:
    """desc with change(t) for each of its TensorDescs (fields, tuples of them, and an
    expression's (name, tensor) pairs)."""
    fields = {}
    for f in dataclasses.fields(desc):
        v = getattr(desc, f.name)
        if isinstance(v, TensorDesc):
            fields[f.name] = change(v)
        elif isinstance(v, tuple) and v and all(isinstance(t, TensorDesc) for t in v):
            fields[f.name] = tuple(change(t) for t in v)
        elif isinstance(v, tuple) and v and all(isinstance(p, tuple) and len(p) == 2
                                                and isinstance(p[1], TensorDesc) for p in v):
            fields[f.name] = tuple((name, change(t)) for name, t in v)
    return dataclasses.replace(desc, **fields)


def _ints(desc: Any) -> list[str]:
    """The descriptor's integer fields and integer tuples (axis, repeats, offsets...)."""
    return [f.name for f in dataclasses.fields(desc)
            if type(getattr(desc, f.name)) is int or (
                isinstance(getattr(desc, f.name), tuple) and getattr(desc, f.name)
                and all(type(x) is int for x in getattr(desc, f.name)))]


@st.composite
def free_size(draw: Any, desc: Any, base: Any) -> Any:
    """desc with one size its generic kernels take at dispatch changed (rules.sizes at one of
    rules.free: a dimension of the tensor whose sizes they are), and the same dimension of
    other tensors of that size too or not (scatter's updates follow its indices)."""
    rules = rules_of(base).generic
    free = tuple(rules.free(base)) if rules is not None else ()
    if not free:
        return desc
    sizes, p = rules.sizes(base), draw(st.sampled_from(free))
    tensors: list[TensorDesc] = []
    _tensors(desc, lambda t: tensors.append(t) or t)
    starts = {0, *(t.rank for t in tensors)}
    places = [(k, p - o) for k, t in enumerate(tensors) for o in starts
              if o <= p < o + t.rank and sizes[o:o + t.rank] == t.sizes]
    if not places:
        return desc
    which, dim = draw(st.sampled_from(places))
    old, new = tensors[which].sizes[dim], draw(st.integers(1, 7))
    follow = [k == which or (t.rank > dim and t.sizes[dim] == old and draw(st.booleans()))
              for k, t in enumerate(tensors)]
    count = iter(range(len(tensors)))
    return _tensors(desc, lambda t: dataclasses.replace(
        t, sizes=t.sizes[:dim] + (new,) + t.sizes[dim + 1:]) if follow[next(count)] else t)


@st.composite
def neighbours(draw: Any, desc: Any) -> Any:
    """desc with one thing changed: a size (every dimension of it, in every tensor or in some,
    and in the integer fields too or not; or one dimension of one tensor), a data type (every
    tensor of it), one integer of a field by one or its sign, or a word (a mode, an order, a
    reduction). Most share desc's key only where the key masks what changed."""
    kind = draw(st.sampled_from(["size", "size and fields", "size in some", "size in some",
                                 "one size", "data type", "field", "word"]))
    if kind == "word":
        names = [f.name for f in dataclasses.fields(desc) if getattr(desc, f.name) in WORDS]
        if not names:
            return desc
        name = draw(st.sampled_from(names))
        return dataclasses.replace(desc, **{name: draw(st.sampled_from(WORDS))})
    if kind == "one size":
        tensors: list[TensorDesc] = []
        _tensors(desc, lambda t: tensors.append(t) or t)
        which = draw(st.integers(0, len(tensors) - 1))
        dim, new = draw(st.integers(0, tensors[which].rank - 1)), draw(st.integers(1, 7))
        count = iter(range(len(tensors)))
        return _tensors(desc, lambda t: dataclasses.replace(
            t, sizes=t.sizes[:dim] + (new,) + t.sizes[dim + 1:]) if next(count) == which else t)
    if kind.startswith("size"):
        sizes: set[int] = set()
        _tensors(desc, lambda t: sizes.update(t.sizes) or t)
        old, new = draw(st.sampled_from(sorted(sizes))), draw(st.integers(1, 7))
        some = kind != "size in some" or None
        desc = _tensors(desc, lambda t: dataclasses.replace(
            t, sizes=tuple(new if s == old else s for s in t.sizes))
            if some or draw(st.booleans()) else t)
        if kind == "size and fields":
            desc = dataclasses.replace(desc, **{
                name: tuple(new if x == old else x for x in getattr(desc, name))
                for name in _ints(desc) if isinstance(getattr(desc, name), tuple)})
        return desc
    if kind == "data type":
        types: set[DataType] = set()
        _tensors(desc, lambda t: types.add(t.data_type) or t)
        old_t = draw(st.sampled_from(sorted(types, key=lambda d: d.value)))
        new_t = draw(st.sampled_from(list(DataType)))
        return _tensors(desc, lambda t: dataclasses.replace(t, data_type=new_t)
                        if t.data_type == old_t else t)
    names = _ints(desc)
    if not names:
        return desc
    name = draw(st.sampled_from(names))
    step = draw(st.sampled_from([1, -1, 0]))  # 0: the sign

    def moved(x: int) -> int:
        return -x if step == 0 else x + step
    value = getattr(desc, name)
    if type(value) is int:
        return dataclasses.replace(desc, **{name: moved(value)})
    at = draw(st.integers(0, len(value) - 1))
    return dataclasses.replace(desc, **{name: value[:at] + (moved(value[at]),) + value[at + 1:]})


def _valid(desc: Any) -> Any:
    try:
        return validate(desc)
    except DmlcError:
        return None


def check_family(family: str, examples: int, **overrides: Any) -> int:
    """Run the property for one family, budget(examples) of them; return how many times two
    different descriptors of one key were compared."""
    compared = Counter[str]()

    @settings(max_examples=budget(examples), deadline=None, suppress_health_check=QUIET,
              **overrides)
    @given(data=st.data())
    def run(data: Any) -> None:
        seen = Seen()
        case = data.draw(cases.ALL_CASES[family]())
        base = _valid(case.descriptor)
        if base is None:
            return
        seen.check(base)
        for n in range(NEIGHBOURS):
            near = _valid(data.draw(free_size(case.descriptor, base) if n % 2 else
                                    neighbours(case.descriptor)))
            if near is not None:
                seen.check(near)
        compared[family] += seen.compared
    run()
    return compared[family]


@pytest.mark.parametrize("family", sorted(cases.ALL_CASES))
def test_descriptors_of_one_key_lower_to_one_program(family):
    # Random draws may compare few pairs in one run (scatter_nd: 1 of 20 once); a family whose
    # strategies never give two descriptors of one key still fails after five runs.
    needed, compared = max(2, budget(20) // 10), 0
    for _ in range(5):
        compared += check_family(family, 20)
        if compared >= needed:
            break
    assert compared >= needed, f"only {compared} comparisons of two descriptors"


MUTATIONS = {  # family: (the key's component dropped, what it is)
    "gather": (4, "the axis"),
    "gather_elements": (2, "the indices' tensor"),
    "tile": (3, "the repeats"),
    "padding": (4, "the start padding"),
    "scatter_reduce": (5, "the reduction"),
}


@pytest.mark.parametrize("family", sorted(MUTATIONS))
def test_a_key_missing_a_component_fails_the_check(family, monkeypatch):
    """The mutation check: the family's key without one component that matters; the
    property above must then find two descriptors of one key and two programs."""
    index, _ = MUTATIONS[family]
    original = rules_of

    def mutated(desc: Any) -> Any:
        rules = original(desc)
        if rules.generic is None:
            return rules
        real = rules.generic.key
        generic = dataclasses.replace(
            rules.generic, key=lambda d, dims: (k := real(d, dims))[:index] + k[index + 1:])
        return dataclasses.replace(rules, generic=generic)
    monkeypatch.setattr(sys.modules[__name__], "rules_of", mutated)
    with pytest.raises(AssertionError, match="one key, two programs"):
        check_family(family, 60, derandomize=True, database=None,
                     phases=[Phase.generate])


@pytest.mark.parametrize("name", sorted(FAMILIES))
@settings(max_examples=budget(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_views_at_moving_offsets_of_one_key_lower_to_one_program(name, data):
    seen = Seen()
    dtype = data.draw(st.sampled_from(list(DataType)))
    for x, sizes, owner, offset, k in draw_calls(data, name, dtype):
        desc, _, _ = FAMILIES[name](dtype, x, sizes, owner, offset, k, data)
        seen.check(validate(desc))

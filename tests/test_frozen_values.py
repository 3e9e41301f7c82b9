"""family/tensor.py's helpers for the frozen dataclasses the caches key by: hash_once (a
descriptor's hash computed once and kept, never pickled) and derived (a copy without
__init__, what a generic kernel's lookup makes at every new size)."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

import dmlc
from dmlc.compiled import CompileOptions, compile_program
from dmlc.family.tensor import derived

T = dmlc.TensorDesc


def gather(rows: int = 5) -> dmlc.GatherDesc:
    return dmlc.GatherDesc(input=T(data_type="FLOAT32", sizes=(rows, 4)),
                           indices=T(data_type="INT32", sizes=(1, 3)), axis=0,
                           index_dimensions=1)


def test_equal_descriptors_hash_alike_and_the_hash_is_kept():
    a, b = gather(), gather()
    assert a == b and hash(a) == hash(b) and a is not b
    assert a.__dict__["_hash"] == hash(a)  # kept after the first ask
    assert gather(6) != a and {a: 1}.get(gather()) == 1 and {a: 1}.get(gather(6)) is None


def test_the_kept_hash_is_not_pickled():
    """str hashes differ between processes: an unpickled descriptor computes its own."""
    a = gather()
    hash(a)
    for value in (a, a.input, CompileOptions.resolve(False, 0, "gpu")):
        state = pickle.dumps(value)
        back = pickle.loads(state)
        assert back == value and "_hash" not in back.__dict__ and hash(back) == hash(value)


def test_a_replaced_descriptor_hashes_its_own_fields():
    a = gather()
    hash(a)
    b = dataclasses.replace(a, axis=1)
    assert "_hash" not in b.__dict__ and b != a
    assert hash(b) == hash(dataclasses.replace(gather(), axis=1))


def test_derived_is_replace_without_init():
    t = T(data_type="FLOAT16", sizes=(2, 3), strides=(3, 1))
    hash(t)
    d = derived(t, strides=(1, 2))
    assert d == dataclasses.replace(t, strides=(1, 2)) and "_hash" not in d.__dict__
    with pytest.raises(AssertionError):
        derived(t, stride=(1, 2))


def test_derived_drops_cached_properties():
    """A generic kernel's artifact bound to a call: its launch plan is the call's, not the one
    cached on the artifact it was derived from."""
    compiled = compile_program(gather())
    assert compiled.plan is compiled.plan  # cached
    again = derived(compiled, params=compiled.params)
    assert "plan" not in again.__dict__ and again.plan == compiled.plan
    assert again.plan is not compiled.plan

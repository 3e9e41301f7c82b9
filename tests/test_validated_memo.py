"""family/validated.py: a descriptor exactly like one validated before gets the same validated
descriptor without its rules checked again; one that is only equal (0.0 for 0, True for 1, -0.0
for 0.0, a numpy integer for an int) is validated on its own."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dmlc
from dmlc.family import validated
from dmlc.family.checks import zero_sizes
from dmlc.family.registry import validate


def gather(axis=0, dims=1, rows=5):
    return dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(rows, 4)),
                           indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 3)),
                           axis=axis, index_dimensions=dims)


def pad(value):
    return dmlc.PaddingDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(3,)),
                            mode="DML_PADDING_MODE_CONSTANT", start_padding=(1,),
                            end_padding=(0,), value=value)


def test_an_exact_repeat_gets_the_same_validated_descriptor():
    validated.clear()
    first = validate(gather())
    assert validate(gather()) is first
    assert validate(gather(rows=6)) is not first  # another descriptor: validated anew


@pytest.mark.parametrize("loose", [{"axis": 0.0}, {"dims": True}])
def test_a_value_equal_to_a_valid_one_is_still_refused(loose):
    validated.clear()
    validate(gather())
    assert gather(**loose) == gather()  # what a memo keyed by equality alone would find
    with pytest.raises(dmlc.ValidationError):
        validate(gather(**loose))


def test_a_float_keeps_its_own_bits():
    validated.clear()
    plus, minus = validate(pad(0.0)), validate(pad(-0.0))
    assert (plus.value.bits, minus.value.bits) == (0, 0x80000000)  # float32's -0.0
    assert validate(pad(-0.0)) is minus


def test_what_is_not_exact_is_validated_every_time():
    validated.clear()
    first = validate(gather(axis=np.int64(0)))
    assert validate(gather(axis=np.int64(0))) is not first
    assert validate(gather(axis=np.int64(0))) == first


@pytest.mark.parametrize("field, value", [("sizes", (np.int64(5), 4)), ("sizes", (5, True)),
                                          ("strides", (4, 1.0)), ("offset", np.int32(0)),
                                          ("total_bytes", 80.0)])
def test_a_tensor_value_equal_to_a_valid_one_is_never_found(field, value):
    """A TensorDesc's sizes, strides, offset and total_bytes are looked at one by one (its
    fast path in the memo's key): one of another type than int is validated every time."""
    validated.clear()
    ok = dataclasses.replace(gather().input, sizes=(5, 4))
    loose = dataclasses.replace(ok, **{field: value})
    first = validate(dataclasses.replace(gather(), input=ok))
    try:
        again = validate(dataclasses.replace(gather(), input=loose))
    except dmlc.ValidationError:
        return  # refused: never the valid one's
    assert again is not first


def test_zero_sizes_changes_the_rules_and_the_key():
    validated.clear()
    empty = gather(rows=0)
    with zero_sizes():
        assert validate(empty).input.sizes == (0, 4)
    with pytest.raises(dmlc.ValidationError):
        validate(empty)


def test_the_memory_is_bounded(monkeypatch):
    validated.clear()
    monkeypatch.setattr(validated, "ENTRIES", 4)
    for rows in range(1, 10):
        validate(gather(rows=rows))
        assert len(validated._found) <= 4

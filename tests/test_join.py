"""DML_JOIN and DML_SPLIT without a device: every invalid descriptor or argument is a
ValidationError naming the field; the .dml notation with tensor lists; the IR interpreter against
numpy. (The property, device and passes-unchanged layers run them through tests/cases.py.)"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dmlc
import reference as ref
from dmlc import JoinDesc, SplitDesc, TensorDesc
from dmlc.family.registry import validate
from dmlc.lang import parse_module
from strategies import random_bits

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def T(sizes, dtype="FLOAT32", strides=None):
    return TensorDesc(data_type=dtype, sizes=tuple(sizes), strides=strides)


INVALID = [
    # (descriptor factory, field fragment, expected fragment)
    (lambda: JoinDesc(inputs=(), axis=0), "InputCount", "1 to 256 tensors"),
    (lambda: JoinDesc(inputs=(T((2,)),) * 257, axis=0), "InputCount", "1 to 256"),
    (lambda: JoinDesc(inputs=(T((2, 3)), T((2, 3))), axis=2), "Axis", ""),
    (lambda: JoinDesc(inputs=(T((2, 3)), T((2, 3), "INT32")), axis=0),
     "InputTensors[1].DataType", "FLOAT32"),
    (lambda: JoinDesc(inputs=(T((2, 3)), T((2, 3, 1))), axis=0),
     "InputTensors[1].DimensionCount", "2"),
    (lambda: JoinDesc(inputs=(T((2, 3)), T((2, 4))), axis=0),
     "InputTensors[1].Sizes[1]", "every dimension but Axis 0"),
    (lambda: JoinDesc(inputs=(T((2, 3)), T((1, 3))), axis=0, output=T((4, 3))),
     "OutputTensor.Sizes", "{3, 3}"),
    (lambda: JoinDesc(inputs=(T((2, 3)), T((1, 3))), axis=0, output=T((3, 3), "FLOAT16")),
     "OutputTensor.DataType", "FLOAT32"),
    (lambda: SplitDesc(input=T((4, 3)), outputs=(T((1, 3)), T((2, 3))), axis=0),
     "OutputTensors Sizes[0]", "summing to InputTensor.Sizes[0] = 4"),
    (lambda: SplitDesc(input=T((4, 3)), outputs=(), axis=0), "OutputCount", "1 to 256"),
    (lambda: SplitDesc(input=T((4, 3)), outputs=(T((2, 3)), T((2, 3), "INT8")), axis=0),
     "OutputTensors[1].DataType", "FLOAT32"),
    (lambda: SplitDesc(input=T((4, 3)), outputs=(T((2, 3)), T((2, 2))), axis=0),
     "OutputTensors[1].Sizes[1]", "3"),
    (lambda: SplitDesc(input=T((4, 3)), outputs=(T((2, 3)), T((2, 3), strides=(1, 2))),
                       axis=0), "OutputTensors[1].Strides", "packed"),
    (lambda: SplitDesc(input=T((4, 3)), outputs=(T((4, 3)),), axis=-1), "Axis", ""),
]


@pytest.mark.parametrize("make, field, expected", INVALID,
                         ids=[f"{i}-{c[1]}" for i, c in enumerate(INVALID)])
def test_invalid_descriptors_name_their_field(make, field, expected):
    desc = make()
    with pytest.raises(dmlc.ValidationError) as e:
        validate(desc)
    assert e.value.operator == desc.operator
    assert field in e.value.field, str(e.value)
    assert expected in str(e.value)


def test_a_tensor_list_that_is_not_one_is_refused_at_construction():
    with pytest.raises(dmlc.ValidationError, match="InputTensors"):
        JoinDesc(inputs=T((2,)), axis=0)  # type: ignore[arg-type]


@pytest.mark.parametrize("call, field", [
    (lambda: dmlc.join(np.zeros(3, np.float32)), "InputTensors"),
    (lambda: dmlc.join("ab"), "InputTensors"),
    (lambda: dmlc.join([]), "InputCount"),
    (lambda: dmlc.join([np.zeros(2, np.float32), np.zeros((1, 2), np.float32)]), "InputTensors"),
    (lambda: dmlc.join([np.zeros(2, np.float32), np.zeros(2, np.int32)]), "DataType"),
    (lambda: dmlc.join([np.zeros((2, 2), np.float32)] * 2, axis=2), "Axis"),
    (lambda: dmlc.split(np.zeros(6, np.float32), 4), "sizes"),
    (lambda: dmlc.split(np.zeros(6, np.float32), [2, -1, 5]), "sizes"),  # 0: an empty piece
    (lambda: dmlc.split(np.zeros(6, np.float32), [2, 3]), "OutputTensors"),
    (lambda: dmlc.split(np.zeros(6, np.float32), "2"), "sizes"),
    (lambda: dmlc.split(np.zeros(6, np.float32), 2, axis=1), "Axis"),
    (lambda: dmlc.split(np.zeros(6, np.float32), 2, axis=0.0), "Axis"),
])
def test_bad_one_shot_arguments_are_validation_errors(call, field):
    """Refused before anything reaches the device: these run without Vulkan."""
    with pytest.raises(dmlc.ValidationError) as e:
        call()
    assert field in e.value.field, str(e.value)


def interpret(desc, *arrays):
    return dmlc.compile(desc).reference(*arrays)


@pytest.mark.parametrize("dtype", ["float16", "int64", "uint8", "float64"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_the_interpreter_joins_and_splits_as_numpy(dtype, axis):
    xs = [random_bits(k, tuple(s if d != axis else s + k for d, s in enumerate((2, 3, 4))),
                      np.dtype(dtype)) for k in range(3)]
    joined = interpret(JoinDesc(inputs=tuple(T(x.shape, dtype.upper()) for x in xs), axis=axis),
                       *xs)
    ref.assert_bits_equal(joined, np.concatenate(xs, axis=axis))
    outputs = tuple(T(x.shape, dtype.upper()) for x in xs)
    kernel = dmlc.compile(SplitDesc(input=T(joined.shape, dtype.upper()), outputs=outputs,
                                    axis=axis))
    pieces = kernel.reference(joined)
    assert len(pieces) == len(xs)
    for got, x in zip(pieces, xs):
        ref.assert_bits_equal(got, x)
    ref.assert_bits_equal(np.concatenate(pieces, axis=axis), joined)


def test_join_dml_example_gives_its_documented_output():
    module = dmlc.lang.load(EXAMPLES / "join_channels.dml")
    (unit,) = module.units
    assert unit.descriptor.operator == "DML_JOIN" and len(unit.descriptor.inputs) == 3
    kernel = dmlc.compile(unit.descriptor)
    got = kernel.reference(*(unit.data[a] for a in kernel.program.inputs))
    ref.assert_bits_equal(got, unit.expected)


def test_split_dml_example_documents_each_output():
    (unit,) = dmlc.lang.load(EXAMPLES / "split_heads.dml").units
    desc = unit.descriptor
    assert desc.operator == "DML_SPLIT" and isinstance(unit.expected, tuple)
    pieces = dmlc.compile(desc).reference(unit.data["input"])
    assert len(pieces) == len(unit.expected) == 3
    for got, expected in zip(pieces, unit.expected):
        ref.assert_bits_equal(got, expected)


@pytest.mark.parametrize("edit, words", [
    (("InputCount: 3", "InputCount: 2"), "InputCount: expected 3 (the tensors in InputTensors), "
                                         "got 2"),
    (("Axis: 1", "Axis: 4"), "Axis"),
    (("(Sizes:{1, 2, 2, 2}, DataType:FLOAT16)", "(Sizes:{1, 2, 2, 3}, DataType:FLOAT16)"),
     "InputTensors[1]"),
])
def test_join_dml_errors_point_at_the_field(edit, words):
    text = (EXAMPLES / "join_channels.dml").read_text()
    assert edit[0] in text
    with pytest.raises(dmlc.DmlcError) as info:
        dmlc.compile_module(parse_module(text.replace(*edit), "join.dml"))
    assert str(info.value).startswith("join.dml:") and words in str(info.value), str(info.value)


def test_split_dml_output_count_must_count_the_list():
    text = (EXAMPLES / "split_heads.dml").read_text().replace("OutputCount: 3", "OutputCount: 4")
    with pytest.raises(dmlc.ParseError, match="OutputCount: expected 3"):
        parse_module(text, "split.dml")

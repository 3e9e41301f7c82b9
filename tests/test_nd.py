"""GatherND, OneHot and ReverseSubsequences without a device: invalid descriptors and arguments
name their field; the .dml notation; the interpreter against numpy on hand-picked cases
(property cases: tests/cases_nd.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dmlc
import reference_nd as ref
from dmlc.family.registry import validate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def T(sizes, dtype="FLOAT32"):
    return dmlc.TensorDesc(data_type=dtype, sizes=tuple(sizes))


INVALID = [
    (lambda: dmlc.GatherND1Desc(input=T((2, 3)), indices=T((2, 1), "FLOAT32")),
     "IndicesTensor.DataType"),
    (lambda: dmlc.GatherND1Desc(input=T((2, 3)), indices=T((2, 3), "INT32")),
     "IndicesTensor.Sizes[last]"),
    (lambda: dmlc.GatherND1Desc(input=T((2, 3)), indices=T((2, 1, 1), "INT32")),
     "DimensionCount"),
    (lambda: dmlc.GatherND1Desc(input=T((2, 3)), indices=T((3, 1), "INT32"),
                                batch_dimension_count=1), "batch sizes"),
    (lambda: dmlc.GatherND1Desc(input=T((2, 3)), indices=T((2, 1), "INT32"),
                                batch_dimension_count=2), "BatchDimensionCount"),
    (lambda: dmlc.GatherND1Desc(input=T((2, 3)), indices=T((2, 1), "INT32"),
                                input_dimension_count=1), "InputTensor.Sizes[0]"),
    (lambda: dmlc.OneHotDesc(indices=T((2, 1), "INT32"), values=T((1, 2)),
                             output=T((2, 5)), axis=2), "Axis"),
    (lambda: dmlc.OneHotDesc(indices=T((2, 2), "INT32"), values=T((1, 2)),
                             output=T((2, 5)), axis=1), "IndicesTensor.Sizes"),
    (lambda: dmlc.OneHotDesc(indices=T((2, 1), "INT32"), values=T((1, 3)),
                             output=T((2, 5)), axis=1), "ValuesTensor.Sizes"),
    (lambda: dmlc.OneHotDesc(indices=T((2, 1), "INT32"), values=T((1, 2), "INT8"),
                             output=T((2, 5)), axis=1), "OutputTensor.DataType"),
    (lambda: dmlc.ReverseSubsequencesDesc(input=T((4, 3)), sequence_lengths=T((4, 1), "INT32"),
                                          axis=0), "SequenceLengthsTensor.Sizes"),
    (lambda: dmlc.ReverseSubsequencesDesc(input=T((4, 3)), sequence_lengths=T((1, 3), "INT8"),
                                          axis=0), "SequenceLengthsTensor.DataType"),
]


@pytest.mark.parametrize("make, field", INVALID, ids=[str(i) for i in range(len(INVALID))])
def test_invalid_descriptors_name_their_field(make, field):
    with pytest.raises(dmlc.ValidationError) as e:
        validate(make())
    assert field in str(e.value), str(e.value)


@pytest.mark.parametrize("call, field", [
    (lambda: dmlc.gather_nd(np.zeros((2, 3)), np.zeros((2, 1), np.int32), batch_dims=-1),
     "BatchDimensionCount"),
    (lambda: dmlc.one_hot(np.zeros(3, np.int32), np.zeros(3, np.float32), 4), "ValuesTensor"),
    (lambda: dmlc.one_hot(np.zeros(3, np.int32), np.zeros(2, np.float32), 0), "depth"),
    (lambda: dmlc.one_hot(np.zeros(3, np.int32), np.zeros(2, np.float32), 4, axis=3), "Axis"),
    (lambda: dmlc.reverse_subsequences(np.zeros((4, 3)), np.zeros(2, np.int64), axis=0),
     "SequenceLengthsTensor"),
])
def test_bad_one_shot_arguments(call, field):
    with pytest.raises(dmlc.ValidationError) as e:
        call()
    assert field in str(e.value)


def test_gather_nd_with_batch_dims_on_the_interpreter():
    x = np.arange(2 * 3 * 4, dtype=np.int16).reshape(2, 3, 4)
    idx = np.array([[[2], [-1]], [[0], [7]]], np.int64)  # 7 is clamped
    k = dmlc.compile(dmlc.GatherND1Desc(input=T(x.shape, "INT16"), indices=T(idx.shape, "INT64"),
                                        batch_dimension_count=1))
    assert np.array_equal(k.reference(x, idx), ref.gather_nd(x, idx, 1))


@pytest.mark.parametrize("name", ["gather_nd1_batch", "one_hot_labels"])
def test_dml_examples(name):
    (unit,) = dmlc.lang.load(EXAMPLES / f"{name}.dml").units
    kernel = dmlc.compile(unit.descriptor)
    got = kernel.reference(*(unit.data[a] for a in kernel.program.inputs))
    assert np.array_equal(got, unit.expected)

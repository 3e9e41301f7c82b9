"""Every kind of invalid descriptor raises ValidationError naming operator, field, expected and
actual; nothing is lowered, compiled or dispatched for it."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc import GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc, TensorDesc
from dmlc.family.registry import validate


def T(sizes, dtype="FLOAT32", strides=None, total_bytes=None):
    return TensorDesc(data_type=dtype, sizes=tuple(sizes), strides=strides,
                      total_bytes=total_bytes)


X = T((3, 4))
IDX = T((1, 2), "INT32")

INVALID = [
    # (descriptor factory, operator, field fragment)
    (lambda: GatherDesc(input=X, indices=IDX, axis=2, index_dimensions=1), "DML_GATHER", "Axis"),
    (lambda: GatherDesc(input=X, indices=IDX, axis=-1, index_dimensions=1), "DML_GATHER", "Axis"),
    (lambda: GatherDesc(input=X, indices=IDX, axis=0, index_dimensions=3), "DML_GATHER",
     "IndexDimensions"),
    (lambda: GatherDesc(input=X, indices=T((2, 2), "INT32"), axis=0, index_dimensions=1),
     "DML_GATHER", "IndicesTensor.Sizes"),
    (lambda: GatherDesc(input=X, indices=T((1, 2), "FLOAT32"), axis=0, index_dimensions=1),
     "DML_GATHER", "IndicesTensor.DataType"),
    (lambda: GatherDesc(input=X, indices=T((1, 2), "INT16"), axis=0, index_dimensions=1),
     "DML_GATHER", "IndicesTensor.DataType"),
    (lambda: GatherDesc(input=X, indices=T((2,), "INT32"), axis=0, index_dimensions=1),
     "DML_GATHER", "IndicesTensor.DimensionCount"),
    (lambda: GatherDesc(input=X, indices=T((2, 2), "INT32"), axis=0, index_dimensions=2),
     "DML_GATHER", "IndexDimensions"),
    (lambda: GatherDesc(input=X, indices=IDX, axis=0, index_dimensions=1,
                        output=T((2, 5))), "DML_GATHER", "OutputTensor.Sizes"),
    (lambda: GatherDesc(input=X, indices=IDX, axis=0, index_dimensions=1,
                        output=T((2, 4), "FLOAT16")), "DML_GATHER", "OutputTensor.DataType"),
    (lambda: GatherDesc(input=X, indices=IDX, axis=0, index_dimensions=1,
                        output=T((2, 4), strides=(1, 2))), "DML_GATHER", "OutputTensor.Strides"),
    (lambda: GatherElementsDesc(input=X, indices=T((2, 3), "INT32"), axis=0),
     "DML_GATHER_ELEMENTS", "IndicesTensor.Sizes[1]"),
    (lambda: GatherElementsDesc(input=X, indices=T((2, 4), "UINT8"), axis=0),
     "DML_GATHER_ELEMENTS", "IndicesTensor.DataType"),
    (lambda: GatherElementsDesc(input=X, indices=T((2, 4), "INT32"), axis=0,
                                output=T((3, 4))), "DML_GATHER_ELEMENTS", "OutputTensor.Sizes"),
    (lambda: ScatterDesc(input=X, indices=T((2, 4), "INT32"), updates=T((2, 3)), axis=0),
     "DML_SCATTER", "UpdatesTensor.Sizes"),
    (lambda: ScatterDesc(input=X, indices=T((2, 4), "INT32"), updates=T((2, 4), "INT32"),
                         axis=0), "DML_SCATTER", "UpdatesTensor.DataType"),
    (lambda: ScatterDesc(input=X, indices=T((3, 2), "INT32"), updates=T((3, 2)), axis=0),
     "DML_SCATTER", "IndicesTensor.Sizes[1]"),
    (lambda: ScatterDesc(input=X, indices=T((2, 4), "INT32"), updates=T((2, 4)), axis=0,
                         output=T((2, 4))), "DML_SCATTER", "OutputTensor.Sizes"),
    (lambda: Slice1Desc(input=X, offsets=(0, 0), sizes=(3, 4), strides=(1, 0)),
     "DML_SLICE1", "InputWindowStrides[1]"),
    (lambda: Slice1Desc(input=X, offsets=(1, 0), sizes=(3, 4), strides=(1, 1)),
     "DML_SLICE1", "InputWindowSizes[0]"),
    (lambda: Slice1Desc(input=X, offsets=(0, -1), sizes=(3, 4), strides=(1, 1)),
     "DML_SLICE1", "InputWindowOffsets[1]"),
    (lambda: Slice1Desc(input=X, offsets=(0, 0), sizes=(3, 0), strides=(1, 1)),
     "DML_SLICE1", "InputWindowSizes[1]"),
    (lambda: Slice1Desc(input=X, offsets=(0,), sizes=(3, 4), strides=(1, 1)),
     "DML_SLICE1", "InputWindowOffsets length"),
    (lambda: Slice1Desc(input=X, offsets=(0, 0), sizes=(3, 4), strides=(2, 1),
                        output=T((3, 4))), "DML_SLICE1", "OutputTensor.Sizes[0]"),
    (lambda: Slice1Desc(input=X, offsets=(0, 0), sizes=(3, 4), strides=(1.5, 1)),
     "DML_SLICE1", "InputWindowStrides"),
    (lambda: Slice1Desc(input=T((0, 4)), offsets=(0, 0), sizes=(1, 4), strides=(1, 1)),
     "DML_SLICE1", "InputTensor.Sizes[0]"),
    (lambda: Slice1Desc(input=T((1,) * 9), offsets=(0,) * 9, sizes=(1,) * 9, strides=(1,) * 9),
     "DML_SLICE1", "InputTensor.DimensionCount"),
    (lambda: Slice1Desc(input=T((3, 4), strides=(4,)), offsets=(0, 0), sizes=(3, 4),
                        strides=(1, 1)), "DML_SLICE1", "InputTensor.Strides length"),
    (lambda: Slice1Desc(input=T((3, 4), strides=(4, -1)), offsets=(0, 0), sizes=(3, 4),
                        strides=(1, 1)), "DML_SLICE1", "InputTensor.Strides[1]"),
    (lambda: Slice1Desc(input=T((3, 4), strides=(8, 1), total_bytes=64), offsets=(0, 0),
                        sizes=(3, 4), strides=(1, 1)), "DML_SLICE1",
     "InputTensor.TotalTensorSizeInBytes"),
    (lambda: Slice1Desc(input=T((65536, 65536)), offsets=(0, 0), sizes=(1, 1), strides=(1, 1)),
     "DML_SLICE1", "InputTensor.Sizes"),
    (lambda: TensorDesc(data_type="COMPLEX64", sizes=(2,)), "DML_BUFFER_TENSOR_DESC", "DataType"),
]


@pytest.mark.parametrize("make,operator,field", INVALID,
                         ids=[f"{op}:{field}" for _, op, field in INVALID])
def test_invalid_descriptor(make, operator, field):
    with pytest.raises(dmlc.ValidationError) as info:
        validate(make())
    err = info.value
    assert err.operator == operator
    assert field in err.field, (field, err.field)
    assert "expected" in str(err) and "got" in str(err)
    assert isinstance(err, ValueError) and isinstance(err, dmlc.DmlcError)


def test_valid_descriptors_get_their_output():
    out = validate(GatherDesc(input=T((1, 3, 3)), indices=T((1, 1, 2), "UINT32"), axis=2,
                              index_dimensions=2)).output
    assert out.sizes == (3, 1, 2) and out.data_type is dmlc.DataType.FLOAT32
    out = validate(Slice1Desc(input=T((1, 1, 4, 4)), offsets=(0, 0, 0, 1), sizes=(1, 1, 4, 3),
                              strides=(1, 1, -2, 2))).output
    assert out.sizes == (1, 1, 2, 2)
    strided = T((3, 4), strides=(1, 3))  # a transposed (column-major) layout
    assert strided.buffer_elements == 12 and strided.min_bytes == 48


API_ERRORS = [
    (lambda: dmlc.gather(np.zeros((2, 2), np.float32), np.zeros(2, np.int32), axis=0,
                         index_dimensions=1), "indices.ndim"),
    (lambda: dmlc.gather(np.zeros(3, np.complex64), np.zeros(2, np.int32), axis=0,
                         index_dimensions=1), "input.dtype"),
    (lambda: dmlc.gather(np.zeros(3, np.float32), np.zeros(2, np.float32), axis=0,
                         index_dimensions=1), "IndicesTensor.DataType"),
    (lambda: dmlc.gather(np.float32(1), np.zeros(1, np.int32), axis=0, index_dimensions=1),
     "input.ndim"),
    (lambda: dmlc.gather_elements(np.zeros((2, 2), np.complex64), np.zeros((2, 2), np.int32),
                                 axis=0),
     "input.dtype"),
    (lambda: dmlc.scatter(np.zeros(4, np.float32), np.zeros(2, np.int32),
                          np.zeros(2, np.float64), axis=0), "UpdatesTensor.DataType"),
    (lambda: dmlc.slice(np.zeros(4, np.float32), [0], [5], [1]), "InputWindowSizes[0]"),
    (lambda: dmlc.slice(np.zeros(4, np.float32), 0, [4], [1]), "InputWindowOffsets"),
    (lambda: dmlc.slice(np.zeros((2, 0), np.float32), [0, 0], [1, 1], [1, 1]), "Sizes"),
    (lambda: dmlc.gather([[1.0], [2.0, 3.0]], np.zeros(1, np.int32), axis=0,
                         index_dimensions=1), "input"),
]


@pytest.mark.parametrize("call,field", API_ERRORS, ids=[f for _, f in API_ERRORS])
def test_api_argument_errors(call, field):
    with pytest.raises(dmlc.ValidationError, match=field.replace("[", r"\[").replace("]", r"\]")):
        call()


def test_numpy_integers_in_descriptors_validate_as_ints():
    """numpy's uint64 mixed with a Python int gives a float64: each field is an int once
    validated, whatever integer type it came as."""
    g = validate(GatherDesc(input=T((1, 3, 3)), indices=T((1, 1, 2), "UINT32"),
                            axis=np.uint64(2), index_dimensions=np.uint64(2)))
    assert g.output.sizes == (3, 1, 2) and type(g.index_dimensions) is int
    s2d = validate(dmlc.SpaceToDepthDesc(input=T((1, 1, 4, 4)), block_size=np.uint64(2)))
    assert s2d.output.sizes == (1, 4, 2, 2) and type(s2d.block_size) is int
    nd = validate(dmlc.ScatterNDDesc(input=T((1, 3, 4)), indices=T((1, 2, 1), "INT64"),
                                     updates=T((1, 2, 4)), input_dimension_count=np.uint64(2),
                                     indices_dimension_count=np.uint64(2)))
    assert nd.input_dimension_count == 2 and type(nd.indices_dimension_count) is int
    for bad in (True, np.bool_(True)):
        with pytest.raises(dmlc.ValidationError, match="BlockSize"):
            validate(dmlc.SpaceToDepthDesc(input=T((1, 1, 4, 4)), block_size=bad))

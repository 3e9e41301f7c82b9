"""GatherND, OneHot and ReverseSubsequences on the device: ONNX's reference evaluator
(GatherND with batch_dims, OneHot, ReverseSequence) for every data and index type, checked
mode, guard words with wild indices, device tensors."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
import reference_nd as ref
from dmlc.dtypes import DataType
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, random_bits

pytestmark = pytest.mark.vulkan
GUARD = 256


def tensor(a: np.ndarray) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape)


@pytest.mark.parametrize("itype", INDEX_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_gather_nd_is_onnx(onnx_reference, dtype, itype):
    x = random_bits(1, (2, 3, 4), dtype)
    signed = itype.kind == "i"
    idx = np.array([[[1, -1 if signed else 2], [0, 2]], [[1, 0], [0, 1]]], itype)
    (expected,) = onnx_reference.run_node("GatherND", [x, idx.astype(np.int64)])
    assert_bits_equal(dmlc.gather_nd(x, idx), expected)
    batch = np.array([[2], [0]], itype)
    (expected,) = onnx_reference.run_node("GatherND", [x, batch.astype(np.int64)],
                                          batch_dims=1)
    assert_bits_equal(dmlc.gather_nd(x, batch, batch_dims=1), expected)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_is_onnx(onnx_reference, dtype, axis):
    idx = np.array([[1, -1, 5], [0, 2, -7]], np.int64)
    values = np.array([3, 9], dtype)  # numbers ONNX's arithmetic keeps exact
    (expected,) = onnx_reference.run_node("OneHot", [idx, np.array(4, np.int64), values],
                                          axis=axis)
    assert_bits_equal(dmlc.one_hot(idx, values, 4, axis=axis), expected.astype(dtype))


def test_one_hot_moves_the_values_bits():
    """Where ONNX's reference computes off + (on - off) * hot (-0.0 becomes 0.0), dmlc moves
    the values as they are: NaN payloads and -0.0 included."""
    values = np.array([0x8000, 0x7E01], np.uint16).view(np.float16)  # -0.0, a NaN payload
    got = dmlc.one_hot(np.array([1, 0], np.int32), values, 2)
    assert_bits_equal(got, ref.one_hot(np.array([1, 0], np.int32), values, 2, -1))


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_reverse_subsequences_is_onnx_reverse_sequence(onnx_reference, dtype):
    x = random_bits(2, (4, 3, 2), dtype)
    lengths = np.array([4, 1, 2], np.int64)
    (expected,) = onnx_reference.run_node("ReverseSequence", [x, lengths], batch_axis=1,
                                          time_axis=0)
    assert_bits_equal(dmlc.reverse_subsequences(x, lengths.reshape(1, 3, 1), axis=0),
                      expected)


WILD = [0, 1, 2, 3, -1, -3, -4, 4, 2**31 - 1, -(2**31)]


@pytest.mark.parametrize("itype", INDEX_TYPES, ids=lambda d: d.name)
def test_wild_indices_stay_inside_and_checked_mode_names_the_first(itype):
    signed = itype.kind == "i"
    values = [v for v in WILD if signed or v >= 0]
    x = random_bits(3, (3, 4), np.dtype("float32"))
    idx = np.array([[v, 1] for v in values], itype)
    desc = dmlc.GatherND1Desc(input=tensor(x), indices=tensor(idx))
    kernel = dmlc.compile(desc, guard_words=GUARD)
    assert_bits_equal(kernel(x, idx).reshape(-1), ref.gather_nd(x, idx))
    assert kernel.executable().guard_damage() == []
    with pytest.raises(dmlc.IndexOutOfRangeError, match="IndicesTensor"):
        dmlc.gather_nd(x, idx, check_indices=True)
    lengths = np.array([[v] for v in values], itype).reshape(len(values), 1)
    seq = random_bits(4, (len(values), 3), np.dtype("int8"))
    rdesc = dmlc.ReverseSubsequencesDesc(input=tensor(seq), sequence_lengths=tensor(lengths),
                                         axis=1)
    kernel = dmlc.compile(rdesc, guard_words=GUARD)
    assert_bits_equal(kernel(seq, lengths), ref.reverse_subsequences(seq, lengths, 1))
    assert kernel.executable().guard_damage() == []
    labels = np.array(values, itype)
    hot = dmlc.compile(dmlc.OneHotDesc(indices=tensor(labels.reshape(-1, 1)),
                                       values=tensor(np.zeros((1, 2), np.int64)), axis=1,
                                       output=dmlc.TensorDesc(data_type="INT64",
                                                              sizes=(len(values), 4))),
                       guard_words=GUARD)
    on_off = np.array([[-1, 2**62]], np.int64)
    assert_bits_equal(hot(labels.reshape(-1, 1), on_off),
                      ref.one_hot(labels, on_off.reshape(-1), 4, -1))
    assert hot.executable().guard_damage() == []


def test_device_tensors_and_a_bidirectional_pass():
    x = random_bits(5, (6, 2, 3), np.dtype("float16"))
    lengths = dmlc.to_device(np.broadcast_to(np.array([6, 3], np.int32).reshape(1, 2, 1),
                                             (1, 2, 3)).copy())
    t = dmlc.to_device(x)
    rev = dmlc.reverse_subsequences(t, lengths, axis=0)
    back = dmlc.reverse_subsequences(rev, lengths, axis=0)
    assert_bits_equal(back.numpy(), x)  # reversing twice gives the sequences back

"""Generic kernels' keys, variants and push-word limits on the device
(tests/test_generic_keys_and_limits.py's cases): bit for bit numpy and the specialized kernel,
guard words intact."""
from __future__ import annotations

import numpy as np
import pytest
from tests import reference
from tests.reference_nd import reverse_subsequences
from tests.strategies import random_bits
from tests.test_generic_keys_and_limits import _join, _reverse_batch

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import validate

pytestmark = pytest.mark.vulkan


@pytest.mark.parametrize("mode", [True, "auto"])
def test_join_of_many_inputs_runs(mode):
    """16 inputs, views at their own offsets among them: too many push words for a generic
    kernel, so the specialized one (or a variant that fits) runs every batch."""
    dmlc.clear_cache()
    for batch in (2, 3):
        shapes = [(batch, 8)] * 16
        desc = _join(DataType.FLOAT32, shapes, 1, [4 * (k % 3) for k in range(16)])
        xs = [random_bits(batch * 100 + k, s, np.float32) for k, s in enumerate(shapes)]
        arrays = []
        for x, t in zip(xs, desc.inputs):
            flat = random_bits(7, (t.offset + x.size + 3,), np.float32)
            flat[t.offset:t.offset + x.size] = x.reshape(-1)
            arrays.append(flat)
        kernel = dmlc.compile(desc, dynamic=mode, guard_words=16)
        assert kernel(*arrays).tobytes() == np.concatenate(xs, axis=1).tobytes()
        assert kernel.executable().guard_damage() == []
    KERNELS.clear()


@pytest.mark.parametrize("dtype", [DataType.INT8, DataType.FLOAT16])
def test_join_of_nine_narrow_inputs_auto_runs_the_vector_kernel(dtype):
    lanes = 16 // dtype.itemsize
    dmlc.clear_cache()
    for k in (1, 2, 3):
        shapes = [(2, 1 + j % 2, lanes * k) for j in range(9)]
        desc = _join(dtype, shapes, 1)
        xs = [random_bits(k * 10 + j, s, dtype.numpy) for j, s in enumerate(shapes)]
        kernel = dmlc.compile(desc, dynamic="auto", guard_words=16)
        assert kernel(*xs).tobytes() == np.concatenate(xs, axis=1).tobytes()
        assert kernel.executable().guard_damage() == []
    assert dmlc.cache_info()["compiles"] == {"DML_JOIN": 1, "DML_JOIN generic": 1}
    KERNELS.clear()


def test_gather_windows_of_mixed_alignment():
    """Windows of a float32 [4, 8] table at aligned and misaligned offsets, auto: the vector
    "rows" kernel and the element "rows/e" kernel each serve theirs."""
    flat = random_bits(3, (64,), np.float32)
    ids = np.array([[2, 0, 3, -1, 9]], np.int32)
    dmlc.clear_cache()
    for off in (0, 4, 8, 1, 2, 5):
        desc = validate(dmlc.GatherDesc(
            input=TensorDesc(data_type=DataType.FLOAT32, sizes=(4, 8), strides=(8, 1),
                             offset=off),
            indices=TensorDesc(data_type=DataType.INT32, sizes=(1, 5)), axis=0,
            index_dimensions=1))
        kernel = dmlc.compile(desc, dynamic="auto", guard_words=16)
        want = reference.gather(flat[off:off + 32].reshape(4, 8), ids, 0, 1)
        assert kernel(flat, ids).tobytes() == np.ascontiguousarray(want).tobytes()
        assert kernel.executable().guard_damage() == []
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER": 1, "DML_GATHER generic": 2}
    KERNELS.clear()


def test_reverse_batch_of_one_first():
    """The generic kernel lowered from a batch of 1 (its lengths' strides guessed as every
    later batch's) serves the later batches."""
    dmlc.clear_cache()
    for batch in (2, 1, 3, 4):
        desc = _reverse_batch(DataType.FLOAT32, batch, 4 * batch)
        x = random_bits(batch, (4, batch, 4 * batch), np.float32)
        lengths = (np.arange(batch, dtype=np.int64) * 3) % 6 - 1
        kernel = dmlc.compile(desc, dynamic="auto", guard_words=16)
        want = reverse_subsequences(x, np.broadcast_to(lengths.reshape(1, batch, 1),
                                                      desc.sequence_lengths.sizes), 0)
        assert kernel(x, lengths).tobytes() == want.tobytes()
        assert kernel.executable().guard_damage() == []
    assert dmlc.cache_info()["compiles"] == {"DML_REVERSE_SUBSEQUENCES": 1,
                                             "DML_REVERSE_SUBSEQUENCES generic": 1}
    KERNELS.clear()

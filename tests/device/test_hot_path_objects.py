"""What the device makes once a loop is warm, as dmlc.cache_info()["objects"] reports it (on
either backend): a call repeated on the same tensors makes nothing; a window that grows by a
row each step still makes a buffer (and on Vulkan an algorithm, a pipeline with its descriptor
set) per step, which buffers by size class and pipelines per kernel are to end."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.runtime.pool import poisoning

pytestmark = [pytest.mark.vulkan,
              pytest.mark.skipif(poisoning(), reason="DMLC_POISON adds an upload and a "
                                 "read-back per pooled buffer: what a warm loop makes is "
                                 "measured unpoisoned")]


def objects() -> dict[str, int]:
    return dict(dmlc.cache_info()["objects"])


def made(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}


def test_objects_are_counted_and_a_repeated_call_makes_none():
    host = np.arange(24, dtype=np.float32).reshape(6, 4)
    table = dmlc.to_device(host)
    ids = dmlc.to_device(np.array([[5, 0, 2]], np.int32))
    out = dmlc.empty((3, 4), np.float32)
    for _ in range(3):
        dmlc.gather(table, ids, axis=0, out=out)
    before = objects()
    assert before["tensors"] >= 3 and len(before) == 3, before  # the backend's three kinds
    for _ in range(20):
        dmlc.gather(table, ids, axis=0, out=out)
    assert made(before, objects()) == {}
    assert out.numpy().tolist() == host[[5, 0, 2]].tolist()


def test_objects_are_empty_with_no_device_open():
    dmlc.close_device()
    assert dmlc.cache_info()["objects"] == {}


@pytest.mark.xfail(strict=True, reason="a new size takes a buffer of exactly its size from the "
                   "pool, and a kernel's binding (a kp algorithm, a WebGPU bind group) names its "
                   "buffers: buffers by size class and pipelines per kernel are still to come")
def test_a_growing_window_makes_no_object_once_warm():
    host = np.arange(4 * 8 * 48, dtype=np.float32).reshape(4, 8, 48)
    cache = dmlc.to_device(host)
    for t in range(1, 21):
        dmlc.copy(cache[:, :, :t])
    before = objects()
    for t in range(21, 31):
        window = dmlc.copy(cache[:, :, :t])
        assert np.array_equal(window.numpy(), host[:, :, :t])
    assert made(before, objects()) == {}

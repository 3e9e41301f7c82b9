"""Memory that follows the work in flight, not the shapes seen: kernels own no tensor-sized
memory between calls (buffers come from one pool), the compile cache is bounded by bytes, and
dmlc.cache_info() / dmlc.clear_cache() report and drop what is held."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dmlc
from dmlc.compiled import KERNELS
from dmlc.runtime import get_device
from dmlc.runtime.pool import poisoning
from memory import steady_state

pytestmark = pytest.mark.vulkan

MiB = 2**20


def test_twenty_shapes_over_a_48_mib_table_stay_under_160_mib():
    """The newcomer's embedding workload, in a fresh process (so that nothing else is pooled):
    20 gathers of different token counts from a 48 MiB table on the device, and the same with
    the table as a host array. Before the pool each shape kept ~95 MiB (2,058 MiB in all)."""
    code = textwrap.dedent("""
        import gc, numpy as np, dmlc
        from memory import resident_bytes
        rng = np.random.default_rng(0)
        host = rng.random((12288, 1024), dtype=np.float32)          # 48 MiB
        table = dmlc.to_device(host)
        def rows(n):
            return (np.arange(n, dtype=np.int32) * 7 % 12288).reshape(1, n)
        for where, x in (("device", table), ("host", host)):
            y = dmlc.gather(x, rows(3), axis=0)
            base = resident_bytes()
            for k in range(20):
                n = 16 + 37 * k
                y = dmlc.gather(x, dmlc.to_device(rows(n)) if where == "device" else rows(n),
                                axis=0)
                got = y.numpy() if where == "device" else y
                assert np.array_equal(got, host[rows(n)[0]]), (where, n)
            del y
            gc.collect()
            print(where, (resident_bytes() - base) / 2**20)
    """)
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": tests})
    assert run.returncode == 0, run.stderr
    grown = dict(line.split() for line in run.stdout.splitlines())
    for where, mib in grown.items():
        assert float(mib) < 160, f"{where}: grew {mib} MiB over 20 shapes"


def test_a_kernel_owns_no_tensor_sized_memory():
    x = np.zeros((1024, 1024), np.float32)
    kernel = dmlc.compile(dmlc.GatherDesc(
        input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1024, 1024)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 512)), axis=0,
        index_dimensions=1))
    kernel(x, np.zeros((1, 512), np.int32))
    assert kernel.executable().owned_bytes == 0 and kernel.held_bytes < 64 * 1024


@pytest.mark.skipif(poisoning(), reason="DMLC_POISON adds an upload and a read-back per pooled "
                    "buffer and call: the steady state measured here is make test's")
def test_alternating_shapes_leave_memory_and_vulkan_objects_flat():
    """10,000 calls cycling through three shapes, on host arrays and on device tensors.
    Unpoisoned, as test_leaks: after make test-poison's first 600 device tests, poisoned calls
    grew resident memory by 1-11 MB a window of 5,000 (1-2 KB a call, shrinking to 0.9 MB by
    the third) with no Vulkan object made, the pool unchanged and the Python heap flat
    (tracemalloc: +10 KB): native allocator state, not what this test measures."""
    x = np.random.default_rng(1).standard_normal((256, 64)).astype(np.float32)
    on_device = dmlc.to_device(x)
    shapes = [(1, 5), (1, 9), (1, 33)]
    idx = [np.arange(n, dtype=np.int32).reshape(s) % 256 for s, n in
           zip(shapes, (5, 9, 33))]
    idx_device = [dmlc.to_device(i) for i in idx]

    def call(k: int) -> None:
        j = k % 3
        dmlc.gather(x, idx[j], axis=0)
        dmlc.gather(on_device, idx_device[j], axis=0).numpy()

    for k in range(300):
        call(k)
    calls = itertools.count()
    steady_state(get_device(), lambda: call(next(calls)), 10_000 // 2)


def test_cache_info_and_clear_cache():
    x = np.zeros((64, 64), np.float32)
    dmlc.gather(x, np.zeros((1, 3), np.int32), axis=0)
    info = dmlc.cache_info()
    assert info["kernels"]["entries"] + info["kernels"]["sizes"] >= 1  # DMLC_DYNAMIC=always: sizes
    assert (info["kernels"]["bytes"] > 0) == (info["kernels"]["entries"] > 0)
    assert info["buffers"]["idle_buffers"] >= 2 and info["buffers"]["limit_bytes"] > 0
    dmlc.clear_cache()
    info = dmlc.cache_info()
    assert info["kernels"]["entries"] == info["kernels"]["sizes"] == 0
    assert info["buffers"]["idle_buffers"] == 0 and info["buffers"]["idle_bytes"] == 0
    assert np.array_equal(dmlc.gather(x + 1, np.zeros((1, 3), np.int32), axis=0),
                          np.ones((3, 64), np.float32))


def test_the_compile_cache_is_bounded_by_bytes(monkeypatch):
    dmlc.clear_cache()
    monkeypatch.setenv("DMLC_DYNAMIC", "never")  # compiled kernels (generic ones bound to sizes
    # are kept apart: test_a_growing_window_evicts_no_compiled_kernel)
    monkeypatch.setattr(KERNELS, "BYTES", 1)  # every kernel is over: only the newest stays
    for n in range(1, 5):
        dmlc.gather(np.zeros((8, n), np.float32), np.zeros((1, 2), np.int32), axis=0)
        assert dmlc.cache_info()["kernels"]["entries"] == 1
    monkeypatch.setattr(KERNELS, "BYTES", 2**30)
    monkeypatch.setattr(KERNELS, "ENTRIES", 3)
    for n in range(1, 6):
        dmlc.gather(np.zeros((8, n), np.float32), np.zeros((1, 2), np.int32), axis=0)
    assert dmlc.cache_info()["kernels"]["entries"] == 3


def test_a_growing_window_evicts_no_compiled_kernel(monkeypatch):
    """A generic kernel bound to each size of a window that grows by a row is kept apart from
    the compiled kernels (the last SIZES of them): 300 sizes leave a model's kernels cached,
    and cost no compile when they are called again."""
    dmlc.clear_cache()
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")  # the policy whose kernels these are
    monkeypatch.setattr(KERNELS, "ENTRIES", 16)
    monkeypatch.setattr(KERNELS, "SIZES", 8)
    tables = [np.zeros((8, 4), dtype) for dtype in (np.float32, np.float16, np.int8, np.int16,
                                                     np.int32, np.int64, np.uint8, np.uint16,
                                                     np.uint32, np.uint64)]  # 10 compiles
    for t in tables:
        dmlc.gather(t, np.zeros((1, 2), np.int32), axis=0)
    cache = dmlc.to_device(np.zeros((2, 4, 300), np.float32))
    for t in range(1, 301):
        dmlc.copy(cache[:, :, :t])
    before = dict(dmlc.cache_info()["compiles"])
    for t in tables:
        dmlc.gather(t, np.zeros((1, 2), np.int32), axis=0)
    info = dmlc.cache_info()
    assert info["compiles"] == before, (before, info["compiles"])
    assert info["kernels"]["sizes"] == 8 and info["kernels"]["entries"] <= 16
    assert info["compiles"].get("DML_ELEMENT_WISE_IDENTITY generic") == 1


def test_generic_kernels_are_bounded(monkeypatch):
    """GenericKernels keeps the last GENERIC generic kernels: windows of four dtypes, each at
    two sizes (one generic kernel each), leave two; the first dtype's compiles again when its
    window grows again, and every result is right."""
    from dmlc import dynamic
    dmlc.clear_cache()
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")  # one generic kernel per window
    monkeypatch.setattr(dynamic, "GENERIC", 2)
    dtypes = (np.float32, np.int16, np.uint8, np.int64)
    caches = [np.arange(64, dtype=d).reshape(2, 32) for d in dtypes]
    for host in caches:
        window = dmlc.to_device(host)
        for t in (3, 4):
            assert np.array_equal(dmlc.copy(window[:, :t]).numpy(), host[:, :t])
    info = dmlc.cache_info()
    assert len(info["generic"]) == 2, info["generic"]
    assert info["compiles"]["DML_ELEMENT_WISE_IDENTITY generic"] == 4
    window = dmlc.to_device(caches[0])
    assert np.array_equal(dmlc.copy(window[:, :5]).numpy(), caches[0][:, :5])
    assert dmlc.cache_info()["compiles"]["DML_ELEMENT_WISE_IDENTITY generic"] == 5


def test_the_pool_is_bounded_and_drops_idle_buffers(monkeypatch):
    pool = get_device().pool
    dmlc.clear_cache()
    if hasattr(pool, "ARENA_WORDS"):  # Vulkan: arenas (arena.py)
        words = pool.ARENA_WORDS + 1  # each its own arena (1.25x the floor), none kept now
        before = pool.info()
        held = [dmlc.empty((words,), np.float32) for _ in range(3)]
        assert pool.created - before["created"] == 3
        one = 2 * 4 * (5 * pool.ARENA_WORDS // 4)
        monkeypatch.setattr(type(pool), "LIMIT", one)
        del held  # three arenas idle at once: two are over the limit, destroyed
        info = dmlc.cache_info()["buffers"]
        assert info["idle_bytes"] == one and info["arenas"] == before["arenas"] + 1, info
        monkeypatch.setattr(type(pool), "IDLE_SECONDS", 0.0)
        dmlc.empty((1,), np.float32)  # the next take drops every idle arena
        assert dmlc.cache_info()["buffers"]["idle_bytes"] <= info["floor_bytes"]
        return
    monkeypatch.setattr(type(pool), "LIMIT", 4 * MiB)
    for n in range(1, 40):  # 39 buffers of 4 KiB to 156 KiB (3 MiB), released at once
        dmlc.empty((n, 1024), np.float32)
    assert 0 < dmlc.cache_info()["buffers"]["idle_bytes"] <= 4 * MiB
    monkeypatch.setattr(type(pool), "IDLE_SECONDS", 0.0)
    dmlc.empty((1,), np.float32)  # the next take drops everything idle
    assert dmlc.cache_info()["buffers"]["idle_buffers"] <= 1

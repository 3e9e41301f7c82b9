"""Threads: kernels and one-shot calls from several threads at once give the same bits as one
thread (dmlc's model: one device per process; work on it runs one call at a time under the
device's lock, so threads are safe, not parallel)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import dmlc
import reference as ref
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

THREADS, CALLS = 8, 40


def job(seed: int) -> None:
    """Every operator, on host arrays and device tensors, with this thread's own data; shapes
    repeat across threads, so threads share cached kernels, executables and pooled buffers."""
    rng = np.random.default_rng(seed)
    shared = dmlc.compile(dmlc.GatherElementsDesc(
        input=dmlc.TensorDesc(data_type="INT16", sizes=(6, 5)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(3, 5)), axis=0))
    for k in range(CALLS):
        x = rng.integers(-999, 999, (6, 5)).astype(np.int16)
        i = rng.integers(-6, 6, (3, 5)).astype(np.int32)
        u = rng.integers(-999, 999, (3, 5)).astype(np.int16)
        want = ref.gather_elements(x, i, 0)
        assert_bits_equal(dmlc.gather_elements(x, i, axis=0), want)
        assert_bits_equal(shared(x, i), want)
        assert_bits_equal(shared(dmlc.to_device(x), dmlc.to_device(i)).numpy(), want)
        assert_bits_equal(dmlc.scatter(x, i, u, axis=0), ref.scatter(x, i, u, 0))
        assert_bits_equal(dmlc.slice(dmlc.to_device(x), [1, 0], [5, 5], [2, -1]).numpy(),
                          ref.slice1(x, [1, 0], [5, 5], [2, -1]))
        rows = rng.integers(0, 6, (1, 2)).astype(np.uint64)
        assert_bits_equal(dmlc.gather(x, rows, axis=0, index_dimensions=1),
                          ref.gather(x, rows, 0, 1))
        if k % 10 == 0:  # checked mode from many threads: each sees its own error
            bad = i.copy()
            bad.flat[seed % bad.size] = 6 + seed
            with pytest.raises(dmlc.IndexOutOfRangeError) as info:
                dmlc.gather_elements(x, bad, axis=0, check_indices=True)
            assert info.value.value == 6 + seed
            assert info.value.position == np.unravel_index(seed % bad.size, bad.shape)


def test_threads_get_the_same_bits():
    with ThreadPoolExecutor(THREADS) as pool:
        for future in [pool.submit(job, seed) for seed in range(THREADS)]:
            future.result()


FIRST_USE = """
from concurrent.futures import ThreadPoolExecutor
import numpy as np, dmlc
def first(seed):
    x = np.arange(30, dtype=np.int16).reshape(6, 5) + seed
    i = np.zeros((3, 5), np.int32)
    dmlc.cache_info()
    assert (dmlc.gather_elements(x, i, axis=0) == x[:1]).all()
    assert (dmlc.gather_elements(dmlc.to_device(x), i, axis=0).numpy() == x[:1]).all()
with ThreadPoolExecutor(8) as pool:
    for f in [pool.submit(first, s) for s in range(8)]:
        f.result()
print("ok")
"""


def test_threads_as_the_first_use_of_the_runtime():
    """Threads that load dmlc's runtime between them: a thread may see the runtime's modules
    while another is still importing them (was: 'partially initialized module' errors)."""
    import subprocess
    import sys
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", FIRST_USE], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]

"""A call on device tensors returns once its last kernel is submitted (dmlc's kp:
Sequence.submit), so the host prepares the next call while the device runs it. Whatever the host
does next waits for that work where it must: reading a result, writing staging memory the kernel
may still upload from, a device tensor released, the pool trimmed, the device closed; every
later submission runs after it."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc

pytestmark = pytest.mark.vulkan


@pytest.fixture
def device():
    from dmlc.runtime import backend
    if backend.known() == "webgpu":
        pytest.skip("the Vulkan backend's submissions (WebGPU's queue has its own)")
    from dmlc.runtime.device import get_device
    found = get_device()
    if not found.submits:
        pytest.skip("a kp without dmlc's Sequence.submit waits for every call")
    return found


def test_a_call_returns_submitted_and_reading_its_result_waits(device):
    host = np.arange(4096, dtype=np.float32).reshape(64, 64)
    y = dmlc.tile(dmlc.to_device(host), (3, 2))
    assert device.busy
    assert np.array_equal(y.numpy(), np.tile(host, (3, 2)))
    assert not device.busy


def test_synchronize_leaves_nothing_running(device):
    x = dmlc.to_device(np.ones((8, 8), np.float32))
    dmlc.copy(x.T)
    assert device.busy
    dmlc.synchronize()
    assert not device.busy
    dmlc.synchronize()  # nothing to wait for: returns


def test_a_chain_of_calls_reads_each_results_own(device):
    """Each call's kernel runs after the one before: a result feeds the next call while it may
    still be running, and the host arrays staged in pooled buffers (the ids: large, so that
    their upload runs while the next call writes its own) are each call's own."""
    rng = np.random.default_rng(0)
    table = np.arange(1 << 10, dtype=np.int32)
    x, want, results = dmlc.to_device(table), table, []
    for _ in range(12):
        ids = rng.integers(0, 1 << 10, 1 << 20).astype(np.int32)
        y = dmlc.gather(x, ids, axis=0)  # [2^20]: the next call's table
        want = want[ids]
        results.append((y, want))
        x = y[:1 << 10]
        want = want[:1 << 10]
    for step, (got, expected) in enumerate(results):
        assert np.array_equal(got.numpy(), expected), step


def test_calls_queue_behind_running_work_in_order(device):
    """Where kp orders submissions (dmlc's patch: a global barrier begins each dispatch and
    upload), a call on device tensors does not wait for the work before it: a chain of copies,
    each reading the last one's result, all in flight at once, each right."""
    if not device.ordered:
        pytest.skip("a kp without dmlc's ordered submissions waits for the last one")
    host = np.arange(96 * 64, dtype=np.float32).reshape(96, 64)
    # the outputs made first: a buffer the pool hands out under DMLC_POISON is poisoned, which
    # waits for the device (pool.py)
    chain = [dmlc.to_device(host)] + [dmlc.empty(host.T.shape if k % 2 == 0 else host.shape,
                                                 np.float32) for k in range(6)]
    dmlc.synchronize()
    for k in range(1, 7):
        dmlc.copy(chain[k - 1].T, out=chain[k])
    assert device.in_flight == 6
    for k, got in enumerate(chain):
        assert np.array_equal(got.numpy(), host if k % 2 == 0 else host.T), k
    assert not device.busy


def test_a_kernel_in_flight_is_waited_for_before_it_runs_again(device):
    """The same kernel on the same buffers replays one recorded sequence, which Vulkan forbids
    submitting while it runs: the call waits for it; a call writing what one in flight reads
    runs after it (its result is the old data's)."""
    host = np.arange(48 * 40, dtype=np.int32).reshape(48, 40)
    x, out = dmlc.to_device(host), dmlc.empty((40, 48), np.int32)
    for _ in range(3):
        dmlc.copy(x.T, out=out)
        assert device.in_flight <= 1
    assert np.array_equal(out.numpy(), host.T)
    y = dmlc.copy(x[::-1])
    dmlc.copy(dmlc.to_device(-host), out=x)
    assert np.array_equal(y.numpy(), host[::-1])
    assert np.array_equal(x.numpy(), -host)


def test_a_plan_of_several_kernels_runs_them_in_order(device):
    """A join of more inputs than one shader binds runs as a tree of kernels, the last reading
    what the first wrote: submitted one after another without waiting (ordered kp)."""
    from dmlc.compiled import KERNELS
    parts = [np.full((3, 5), k, np.float32) for k in range(40)]
    dmlc.synchronize()
    got = dmlc.join([dmlc.to_device(p) for p in parts], axis=1)
    kernels = max(len(k.compiled.plan.kernels) for k in KERNELS._kernels.values()
                  if k.descriptor.operator == "DML_JOIN")
    assert kernels > 1
    if device.ordered:
        assert device.in_flight == kernels
    assert np.array_equal(got.numpy(), np.concatenate(parts, axis=1))


def test_releasing_an_input_of_running_work_waits_for_it(device):
    host = np.arange(1 << 16, dtype=np.int32).reshape(256, 256)
    x = dmlc.to_device(host)
    y = dmlc.copy(x[::-1, ::2])
    x.release()
    assert not device.busy
    assert np.array_equal(y.numpy(), host[::-1, ::2])


def test_trimming_the_pool_and_closing_the_device_wait(device):
    host = np.arange(1 << 14, dtype=np.float32)
    y = dmlc.copy(dmlc.to_device(host)[::-1])
    dmlc.clear_cache()  # destroys the idle arenas: none may be in use
    assert not device.busy
    assert np.array_equal(y.numpy(), host[::-1])
    dmlc.copy(dmlc.to_device(host)[::2])
    assert device.busy
    dmlc.close_device()
    assert not device.busy


def test_the_host_writes_no_staging_memory_that_work_in_flight_uploads_from(device, monkeypatch):
    """What no result can show for sure (the race between a running upload and the next call's
    write is timing's): every write of a call's host array into a pooled buffer's staging
    memory is into memory no submitted work still uploads from. Where submissions are ordered
    the write need not wait (the device keeps the staged inputs in flight: the pool cannot
    hand their buffers out); else it finds nothing running."""
    from dmlc.runtime import tensor
    from dmlc.runtime.device import Device
    overlaps, busy_at_writes, uploading = [], [], []

    def to_chunks(array, elements, outs):
        overlaps.append(any(np.shares_memory(o, k) for o in outs for k in uploading))
        busy_at_writes.append(device.busy)
        return write(array, elements, outs)

    def submit(self, sequence, staged=()):
        uploading.extend(t._slot.tensor.data() for t in staged)  # until waited for
        return raw_submit(self, sequence, staged)

    def wait(self):
        raw_wait(self)
        uploading.clear()
    write, raw_submit, raw_wait = tensor.to_chunks, Device.submit, Device.wait
    monkeypatch.setattr(tensor, "to_chunks", to_chunks)
    monkeypatch.setattr(Device, "submit", submit)
    monkeypatch.setattr(Device, "wait", wait)
    rng = np.random.default_rng(1)
    table = dmlc.to_device(rng.standard_normal((64, 8)).astype(np.float32))
    want = table.numpy()
    for step in range(20):
        ids = rng.integers(0, 64, (1, 1 + step % 3)).astype(np.int32)
        assert np.array_equal(dmlc.gather(table, ids, axis=0).numpy(), want[ids[0]])
        dmlc.gather(table, ids[:, ::-1].copy(), axis=0)  # left in flight: the next call stages
    assert len(overlaps) >= 40 and not any(overlaps)
    from dmlc.runtime.pool import poisoning
    if not device.ordered:
        assert not any(busy_at_writes)
    elif not poisoning():  # (a poisoned buffer waits for the device: pool.py)
        assert any(busy_at_writes)  # writes beside work in flight: none waited


EXITS_RUNNING = """
import numpy as np, dmlc
from dmlc.runtime import device
wait = device.Device.wait
def told(self):
    if self.busy:
        print("waited", flush=True)
    wait(self)
device.Device.wait = told
y = dmlc.tile(dmlc.to_device(np.arange(4, dtype=np.float32)), 2)
assert device.get_device().busy
"""


def test_a_process_that_exits_with_work_running_waits_for_it(device):
    """kp frees its command buffers when the process ends, which Vulkan forbids while one
    runs: a script whose last call is never read waits for it at exit."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", EXITS_RUNNING], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["waited"], done.stdout

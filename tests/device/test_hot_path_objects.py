"""What the device makes once a loop is warm, as dmlc.cache_info()["objects"] reports it: a call
repeated on the same tensors makes nothing (either backend); on Vulkan, where buffers are views
of arenas and a kernel's algorithms are bound again (dmlc's patch to kp), neither does a window
that grows by a row each step, a decode loop, or a model run at new batch sizes."""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
from tests.onnx_models import gather_slice_concat

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
    assert before["tensors"] >= 1 and len(before) == 3, before  # the backend's three kinds
    for _ in range(20):
        dmlc.gather(table, ids, axis=0, out=out)
    assert made(before, objects()) == {}
    assert out.numpy().tolist() == host[[5, 0, 2]].tolist()


def test_objects_are_empty_with_no_device_open():
    dmlc.close_device()
    assert dmlc.cache_info()["objects"] == {}


def vulkan_rebinds() -> bool:
    from dmlc.runtime import backend
    if backend.known() == "webgpu":
        return False
    from dmlc.runtime.device import get_device
    return get_device().rebinds


def test_a_growing_window_makes_no_object_once_warm():
    if not vulkan_rebinds():
        pytest.skip("a new size makes a WebGPU buffer and bind group (or, with a kp without "
                    "dmlc's patch, a kp tensor and algorithm)")
    host = np.arange(4 * 8 * 48, dtype=np.float32).reshape(4, 8, 48)
    cache = dmlc.to_device(host)
    for t in range(1, 21):
        dmlc.copy(cache[:, :, :t]).numpy()
    before = objects()
    for t in range(21, 48):
        window = dmlc.copy(cache[:, :, :t])
        assert np.array_equal(window.numpy(), host[:, :, :t])
    assert made(before, objects()) == {}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_decode_loop_makes_no_object_after_warm_up(dtype):
    """tools/decode_loop.py: a gather of 1-7 ids, an in-place scatter of a row, the growing
    window's copy, checked against numpy at every step; after 20 steps nothing is made, and the
    pool holds at most twice the live tensors' bytes over one arena (its floor)."""
    if not vulkan_rebinds():
        pytest.skip("needs Vulkan with dmlc's patch to kp")
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    import decode_loop
    result = decode_loop.run(200, "auto", dtype=dtype)  # the loop: 200 steps
    assert result["objects_made_after_warm_up"] == {}, result
    assert result["compiles"] == {"DML_GATHER": 1, "DML_SCATTER_ND": 1,
                                  "DML_ELEMENT_WISE_IDENTITY": 1, "DML_GATHER generic": 1,
                                  "DML_ELEMENT_WISE_IDENTITY generic": 1}, result
    pool = result["pool"]
    assert pool["arena_bytes"] <= 2 * pool["live_bytes"] + pool["floor_bytes"], pool


def test_an_onnx_model_at_twenty_batch_sizes_makes_no_object_after_the_first_few():
    """Gather -> Slice -> Concat over a symbolic batch B, run at 20 batch sizes (host arrays in
    and out): after the first five, no run makes a Vulkan object; every result is onnx's
    reference evaluator's."""
    if not vulkan_rebinds():
        pytest.skip("needs Vulkan with dmlc's patch to kp")
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    import dmlc.onnx
    table = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    model = gather_slice_concat(table)
    reference = ReferenceEvaluator(model)
    rng = np.random.default_rng(1)
    made_per_run = []
    with dmlc.onnx.load_program(model) as program:
        for batch in rng.permutation(np.arange(1, 21)):
            feeds = {"ids": rng.integers(-16, 16, (batch, 3)).astype(np.int64),
                     "x": rng.standard_normal((batch, 2, 8)).astype(np.float32)}
            before = objects()
            got = program.run(feeds)["y"]
            made_per_run.append(made(before, objects()))
            (want,) = reference.run(None, feeds)
            assert got.tobytes() == np.asarray(want).tobytes()
    assert made_per_run[5:] == [{}] * 15, made_per_run


@pytest.fixture
def submissions(monkeypatch):
    """The Vulkan submissions (kp sequence evals, and submits: dmlc's kp returns from a call's
    last kernel once submitted) made while the test runs, counted."""
    if not vulkan_rebinds():
        pytest.skip("counts kp's submissions")
    from dmlc.runtime.device import _import_kp
    kp = _import_kp()
    count = [0]

    def counting(run):
        def counted(seq, *args):
            count[0] += 1
            return run(seq, *args)
        return counted
    for name in ("eval", "submit"):
        if hasattr(kp.Sequence, name):
            monkeypatch.setattr(kp.Sequence, name, counting(getattr(kp.Sequence, name)))
    return count


def test_host_arrays_in_a_device_call_ride_the_kernels_submission(submissions):
    """A host array among device tensors (the decode loop's ids, where and row) is written to a
    pooled buffer's staging memory and uploaded by the kernel's own submission: a warm gather
    with host ids, and a warm in-place scatter_nd with host indices and updates, submit once
    each; the values are each call's own, whether the binding is found again or bound anew."""
    rng = np.random.default_rng(0)
    host = rng.standard_normal((64, 8)).astype(np.float32)
    table = dmlc.to_device(host)
    cache_host = np.zeros((16, 8), np.float32)
    cache = dmlc.to_device(cache_host)
    for step in range(40):
        ids = rng.integers(0, 64, (1, 1 + step % 5)).astype(np.int32)  # 5 sizes: rebinding
        row = rng.standard_normal((1, 8)).astype(np.float32)
        where = np.array([[step % 16]], np.int64)
        before = submissions[0]
        got = dmlc.gather(table, ids, axis=0)
        dmlc.scatter_nd(cache, where, row, out=cache)
        if step >= 10:
            assert submissions[0] - before == 2, step
        cache_host[step % 16] = row[0]
        assert np.array_equal(got.numpy(), host[ids[0]])
        assert np.array_equal(cache.numpy(), cache_host)


def test_a_staged_tensor_is_uploaded_before_anything_reads_it():
    """DeviceTensor.staged leaves the data in staging memory for a kernel's submission; reading
    it back first (numpy()) uploads it first, so the device copy is never behind."""
    from dmlc.runtime import get_device
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    DeviceTensor = type(dmlc.to_device(x))  # dmlc's: its views pack by a copy kernel
    t = DeviceTensor.staged(x, get_device())
    assert t.staged_slot is not None
    assert np.array_equal(t.numpy(), x) and t.staged_slot is None
    v = DeviceTensor.staged(x, get_device())[::-1]  # a kernel reading a view of one
    assert np.array_equal(dmlc.copy(v).numpy(), x[::-1]) and v.staged_slot is None


@pytest.fixture
def rebinds(monkeypatch):
    """Bindings bound again to other tensors (Binding.rebind: a kernel's algorithms, or a copy
    of runs recorded again) while the test runs, counted."""
    if not vulkan_rebinds():
        pytest.skip("counts kp's algorithms bound again")
    from dmlc.runtime.executable import Binding
    count = [0]
    raw = Binding.rebind

    def counted(self, *args):
        count[0] += 1
        return raw(self, *args)
    monkeypatch.setattr(Binding, "rebind", counted)
    return count


def test_calls_that_cycle_through_buffer_sets_replay_their_bindings(rebinds):
    """A gather of 1-5 ids in turn (each count its own output and ids buffers) binds each set
    once it is seen to come back, up to PlanBuffers.BINDINGS_CYCLE: a warm cycle binds nothing
    again, and each call's values are its own."""
    rng = np.random.default_rng(0)
    host = rng.standard_normal((64, 8)).astype(np.float32)
    table = dmlc.to_device(host)
    for step in range(40):
        ids = rng.integers(0, 64, (1, 1 + step % 5)).astype(np.int32)
        before = rebinds[0]
        got = dmlc.gather(table, ids, axis=0)
        if step >= 20:
            assert rebinds[0] == before, step
        assert np.array_equal(got.numpy(), host[ids[0]])


def test_a_growing_window_keeps_the_fewest_bindings(rebinds):
    """A window that grows by a row each step never meets the same buffers twice: its copy
    kernel keeps PlanBuffers.BINDINGS bindings, each bound again in turn."""
    from dmlc.runtime.device import get_device
    from dmlc.runtime.plan_buffers import PlanBuffers
    dmlc.close_device()  # a device of its own: only this test's kernels are on it
    host = np.arange(4 * 8 * 48, dtype=np.float32).reshape(4, 8, 48)
    cache = dmlc.to_device(host)
    for t in range(1, 48):
        assert np.array_equal(dmlc.copy(cache[:, :, :t]).numpy(), host[:, :, :t])
    assert rebinds[0] >= 40
    shared = [s for s in get_device().kernels._shared.values() if s.bindings]
    assert shared and max(len(s.bindings) for s in shared) <= PlanBuffers.BINDINGS


def test_a_generic_kernel_at_new_sizes_derives_its_executables(monkeypatch):
    """A generic kernel's call at a new size gets its executable from the one its last call
    made (Executable.at: the same kernels, their bindings and status buffers shared) rather
    than looking everything up again; a plan of other kernels gets one of its own."""
    if not vulkan_rebinds():
        pytest.skip("Vulkan's executables")
    from dmlc.runtime.executable import Executable
    made_whole = [0]
    raw = Executable.__init__

    def counted(self, *args):
        made_whole[0] += 1
        raw(self, *args)
    monkeypatch.setattr(Executable, "__init__", counted)
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")  # (never: every size its specialized kernel)
    dmlc.clear_cache()
    host = np.arange(3 * 5 * 40, dtype=np.float32).reshape(3, 5, 40)
    cache = dmlc.to_device(host)
    for t in range(1, 40):
        assert np.array_equal(dmlc.copy(cache[:, :, :t]).numpy(), host[:, :, :t])
        assert np.array_equal(dmlc.copy(cache[:, 1:, :t]).numpy(), host[:, 1:, :t])
    # each generic kernel's first call (and any specialized compile before it) makes one whole
    assert made_whole[0] <= 6, made_whole
    window = dmlc.compile(dmlc.IdentityDesc(input=dmlc.TensorDesc(data_type="FLOAT32",
                                                                   sizes=(4,))))
    other = dmlc.compile(dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,)),
                                         offsets=(0,), sizes=(4,), strides=(-1,)))
    first = window.executable()  # another program's plan: an executable of its own
    before = made_whole[0]
    derived = first.at(other.plan)
    assert made_whole[0] == before + 1 and derived.plan is other.plan
    assert derived._shared is not first._shared

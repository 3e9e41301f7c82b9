"""The runtime's two backends (runtime/backend.py): choosing one, device tensors staying on
theirs, and what is particular to WebGPU (runtime/webgpu/): limits from its adapter, a buffer
bound writable read through a copy in the same dispatch, kernels without SPIR-V, one submission
per call. The rest of the device suite runs on either backend (`make test-webgpu`)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import dmlc
from dmlc.runtime import backend
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

needs_both = pytest.mark.skipif(
    backend.vulkan_problem() is not None or backend.webgpu_problem() is not None,
    reason="needs both backends here (kp with a Vulkan device, and wgpu-py with an adapter)")


def test_the_backend_is_the_api_s_then_the_environment_s_then_the_available_one(monkeypatch):
    monkeypatch.setattr(backend, "_chosen", None)
    monkeypatch.setenv("DMLC_BACKEND", "WebGPU")
    assert backend.name() == "webgpu" == dmlc.get_backend()
    with dmlc.use_backend("vulkan"):
        assert dmlc.get_backend() == "vulkan"
        with dmlc.use_backend("webgpu"):
            assert dmlc.get_backend() == "webgpu"
        assert dmlc.get_backend() == "vulkan"
    assert dmlc.get_backend() == "webgpu"
    monkeypatch.delenv("DMLC_BACKEND")
    assert backend.name() == backend.default() in backend.BACKENDS
    monkeypatch.setenv("DMLC_BACKEND", "metal")
    with pytest.raises(dmlc.DeviceError, match="DMLC_BACKEND must be one of vulkan, webgpu, "
                                               "got 'metal'"):
        backend.name()
    with pytest.raises(dmlc.DeviceError, match="backend must be one of vulkan, webgpu"):
        dmlc.set_backend("cuda")


def test_the_default_is_vulkan_where_it_runs_else_webgpu(monkeypatch):
    monkeypatch.setattr(backend, "vulkan_problem", lambda: None)
    assert backend._available() == "vulkan"
    monkeypatch.setattr(backend, "vulkan_problem", lambda: "no kp")
    monkeypatch.setattr(backend, "webgpu_problem", lambda: None)
    assert backend._available() == "webgpu"


@needs_both
def test_a_kernel_runs_on_the_device_of_its_tensors():
    """Tensors stay on the device they were made on; a call with device tensors runs there
    whatever the backend chosen since; tensors of two devices in one call are refused."""
    x = np.arange(24, dtype=np.int16).reshape(6, 4)
    i = np.array([[5, 0, -1]], np.int32)
    with dmlc.use_backend("webgpu"):
        on_webgpu = dmlc.to_device(x)
    with dmlc.use_backend("vulkan"):
        on_vulkan = dmlc.to_device(x)
        got = dmlc.gather(on_webgpu, i, axis=0, index_dimensions=1)
        assert got.device is on_webgpu.device and got.device.backend == "webgpu"
        assert_bits_equal(got.numpy(), x[[5, 0, 5]])
        view = on_webgpu[::-2, 1:]
        assert_bits_equal(view.numpy(), x[::-2, 1:])  # packed on its own device
        on_webgpu[1:3] = on_vulkan[4:6].numpy()
        with pytest.raises(dmlc.DeviceError, match="must be on one device"):
            dmlc.gather(on_webgpu, dmlc.to_device(i), axis=0, index_dimensions=1)
        with pytest.raises(dmlc.DeviceError, match="the value is on vulkan device"):
            on_webgpu[0] = on_vulkan[0]
    expected = x.copy()
    expected[1:3] = x[4:6]
    assert_bits_equal(on_webgpu.numpy(), expected)


@pytest.fixture
def webgpu():
    if backend.webgpu_problem() is not None:
        pytest.skip(f"no WebGPU here: {backend.webgpu_problem()}")
    with dmlc.use_backend("webgpu"):
        yield dmlc.runtime.get_device()


def test_webgpu_limits_come_from_its_adapter(webgpu):
    import wgpu

    from dmlc.runtime.webgpu.adapters import webgpu_limits
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    want = webgpu_limits(adapter.limits)
    got = webgpu.limits
    assert got.source == "webgpu" and got.maxStorageBufferRange == want.maxStorageBufferRange
    assert got.maxPerStageDescriptorStorageBuffers == \
        adapter.limits["max-storage-buffers-per-shader-stage"]
    assert got.maxComputeWorkGroupCount == (adapter.limits[
        "max-compute-workgroups-per-dimension"],) * 3
    assert webgpu.plan_limits.maxStorageBufferRange == got.maxStorageBufferRange
    if adapter.info["backend_type"] == "Vulkan":  # the Vulkan loader's heap, WebGPU has none
        assert got.deviceLocalHeapSize >= 2**27


def test_a_buffer_bound_writable_is_read_through_a_copy_in_the_same_dispatch(webgpu):
    """WebGPU refuses a buffer bound writable and bound again in one dispatch (Vulkan allows
    it): the in-place scatter given its data as its updates reads them from a copy made just
    before, so it gives numpy's answer (the updates as they were)."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([[3, 2, 1], [0, 3, 2], [1, 0, 3], [2, 1, 0]], np.int64)
    kernel = dmlc.compile(dmlc.ScatterDesc(input=dmlc.TensorDesc(data_type="FLOAT32",
                                                                 sizes=(4, 3)),
                                           indices=dmlc.TensorDesc(data_type="INT64",
                                                                   sizes=(4, 3)),
                                           updates=dmlc.TensorDesc(data_type="FLOAT32",
                                                                   sizes=(4, 3)), axis=0))
    t = dmlc.to_device(x)
    exe = kernel._in_place().executable()  # bound as it is, not through call.py's copy
    exe.run_device([dmlc.to_device(idx), t], t)
    (binding,) = exe._shared.bindings.values()
    assert [len(c) for c in binding.copies] == [1]
    expected = x.copy()
    np.put_along_axis(expected, idx, x, axis=0)
    assert_bits_equal(t.numpy(), expected)
    t2 = dmlc.to_device(x)  # and through the API (call.py copies first: no binding copy)
    assert_bits_equal(dmlc.scatter(t2, idx, t2, axis=0, out=t2).numpy(), expected)


def test_a_call_is_one_submission_and_waits_only_for_what_it_reads(webgpu, monkeypatch):
    """Every kernel of a call in one submission (checked scatter: 4 kernels); a call on device
    tensors waits for nothing unless checked mode reads its status back."""
    monkeypatch.delenv("DMLC_POISON", raising=False)  # its uploads and checks are submissions
    submits, reads = [], []
    real = webgpu.submit
    monkeypatch.setattr(webgpu, "submit", lambda enc, r=(): (submits.append(1),
                                                             reads.append(len(r)),
                                                             real(enc, r)))
    x = dmlc.to_device(np.zeros((64, 8), np.float32))
    i = dmlc.to_device(np.tile(np.arange(8, dtype=np.int32), (4, 1)))
    u = dmlc.to_device(np.ones((4, 8), np.float32))
    out = dmlc.empty((64, 8), np.float32)
    submits.clear(), reads.clear()
    dmlc.scatter(x, i, u, axis=0, out=out)
    assert (len(submits), reads) == (1, [0])
    submits.clear(), reads.clear()
    dmlc.scatter(x, i, u, axis=0, out=out, check_indices=True)
    assert len(submits) == 1 and reads[0] >= 1  # the status words, read back
    expected = np.zeros((64, 8), np.float32)
    np.put_along_axis(expected, i.numpy(), u.numpy(), axis=0)
    assert_bits_equal(out.numpy(), expected)


NO_GLSLANG = """
import numpy as np, dmlc
from dmlc.compiled import KERNELS
x = np.arange(12, dtype=np.float32).reshape(4, 3)
got = dmlc.gather(x, np.array([[3, 0]], np.int32), axis=0, index_dimensions=1)
assert got.tolist() == [[9, 10, 11], [0, 1, 2]], got
(kernel,) = [*KERNELS._kernels.values(), *KERNELS._sizes.values()]  # generic: bound to sizes
assert kernel.compiled.stages[0].code.program._spirv is None  # glslang never ran
print(dmlc.get_backend(), "ok")
"""


def test_webgpu_runs_without_glslang(webgpu, tmp_path):
    """No glslang library and no glslangValidator: the WebGPU backend compiles and runs
    (WGSL from the IR; SPIR-V is made only when the Vulkan backend asks)."""
    env = {**os.environ, "DMLC_BACKEND": "webgpu", "DMLC_GLSLANG": "process",
           "PATH": str(tmp_path), "DMLC_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", NO_GLSLANG], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "webgpu ok"


@needs_both
def test_bench_both_backends_side_by_side(capsys):
    from dmlc.cli import main
    assert main(["bench", "--quick", "--repeats", "1", "--backend", "both", "--only",
                 "transpose", "--markdown"]) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.startswith("transpose")]
    assert row.endswith(" -") and "| Vulkan GB/s | WebGPU GB/s | speed |" in out


def test_webgpu_timings_are_positive_and_counted(webgpu):
    from dmlc.bench import copy_plan
    from dmlc.runtime.backend import Executable, timing
    dmlc.clear_cache()
    before = dict(webgpu.created)
    exe = Executable(webgpu, copy_plan(4096))
    src, dst = dmlc.to_device(np.ones(4096, np.uint32)), dmlc.empty((4096,), np.uint32)
    clock = timing("webgpu")
    assert clock.time_kernels(exe, [src], dst) > 0
    assert clock.time_buffer_copy(webgpu, src, dst) > 0
    assert exe.run([np.ones(4096, np.uint32)])[0].sum() == 4096
    bare = clock.RecordedDispatch(webgpu)
    for _ in range(3):
        bare.run_and_wait()
    made = {k: webgpu.created[k] - before.get(k, 0) for k in webgpu.created}
    # src and dst; run()'s 2 pooled buffers (src and dst are in use); the bare dispatch's
    # buffer. Pipelines: the copy shader's and the empty one's, once per device
    assert made["tensors"] == 5 and made.get("pipelines", 0) <= 2

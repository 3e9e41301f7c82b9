"""Device limits: read from Vulkan (kp hides most of them), and respected even on lavapipe,
which enforces none: work over a limit is refused with the limit's name and the device's value."""
from __future__ import annotations

import dataclasses
import struct

import numpy as np
import pytest

import dmlc
from backends import vulkan_only
from dmlc import ScatterDesc, Slice1Desc, TensorDesc
from dmlc.dtypes import DataType
from dmlc.errors import DeviceError, DmlcError
from dmlc.runtime import get_device
from dmlc.runtime import limits as lim
from reference import assert_bits_equal, scatter

vulkan = pytest.mark.vulkan


def test_properties_are_parsed_at_the_spec_offsets():
    raw = bytearray(824)
    raw[20:20 + 8] = b"fake gpu"
    base = 296
    for offset, value in ((28, 2**31), (32, 256), (76, 8), (108, 96), (216, 49152), (232, 512)):
        struct.pack_into("<I", raw, base + offset, value)
    struct.pack_into("<3I", raw, base + 220, 7, 8, 9)
    struct.pack_into("<3I", raw, base + 236, 512, 256, 64)
    name, found = lim.parse_properties(bytes(raw))
    assert name == "fake gpu"
    assert found == lim.Limits(2**31, 256, 8, 96, 49152, (7, 8, 9), 512, (512, 256, 64))


def test_disagreeing_with_kp_falls_back_to_the_guaranteed_minimums():
    real = lim.Limits(2**32 - 1, 256, 64, 512, 49152, (2**31 - 1, 65535, 65535), 1024,
                      (1024, 1024, 64))
    found = ("GPU A", real)
    assert lim.device_limits(found, "GPU A", (2**31 - 1, 65535, 65535), 1024) == real
    assert lim.device_limits(found, "GPU B", (2**31 - 1, 65535, 65535), 1024) is lim.GUARANTEED
    assert lim.device_limits(found, "GPU A", (65535,) * 3, 1024) is lim.GUARANTEED
    assert lim.device_limits(None, "GPU A", (65535,) * 3, 1024) is lim.GUARANTEED


@vulkan
@vulkan_only("the limits read from the Vulkan loader (WebGPU's from its adapter: "
             "test_webgpu_backend.py)")
def test_limits_come_from_the_device():
    device = get_device()
    name, found = lim.query(device.index)
    assert name == device.name and device.limits == found and found.source == "vulkan"
    assert found.maxComputeWorkGroupCount == device.max_group_count
    assert "maxStorageBufferRange" in device.info()["limits"]


def _with_limits(monkeypatch, **changes):
    device = get_device()
    monkeypatch.setattr(device, "limits", dataclasses.replace(device.limits, **changes))


def _slice(n: int) -> Slice1Desc:
    """A reversed window: a kernel reads every element (a window of stride +1 would run as a
    copy of its run, which binds no shader: family/runs.py)."""
    return Slice1Desc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(n,)), offsets=(0,),
                      sizes=(n,), strides=(-1,))


@vulkan
def test_storage_buffer_range_is_refused_with_its_value(monkeypatch):
    _with_limits(monkeypatch, maxStorageBufferRange=1024)
    kernel = dmlc.compile(_slice(1000))
    with pytest.raises(DeviceError, match=r"buffer input of 4000 bytes, more than this "
                                          r"device's maxStorageBufferRange = 1024"):
        kernel(np.zeros(1000, np.float32))
    small = dmlc.compile(_slice(256))  # exactly 1024 bytes: allowed
    assert_bits_equal(small(np.arange(256, dtype=np.float32)),
                      np.arange(256, dtype=np.float32)[::-1])


@vulkan
def test_workgroup_size_is_refused_with_its_value(monkeypatch):
    _with_limits(monkeypatch, maxComputeWorkGroupInvocations=32)
    kernel = dmlc.compile(_slice(1 << 16))  # enough work for workgroups of 64
    assert kernel.stages[0].local_size == 64
    with pytest.raises(DeviceError, match="maxComputeWorkGroupInvocations = 32"):
        kernel(np.zeros(1 << 16, np.float32))


@vulkan
def test_every_kernel_binds_at_most_the_guaranteed_four_buffers(monkeypatch):
    """Scatter in checked mode has more than 4 buffers (7 specialized, 6 generic), but no kernel
    of it binds more than 4."""
    _with_limits(monkeypatch, maxPerStageDescriptorStorageBuffers=4)
    desc = ScatterDesc(input=TensorDesc(data_type=DataType.INT8, sizes=(4, 3)),
                       indices=TensorDesc(data_type=DataType.INT64, sizes=(2, 3)),
                       updates=TensorDesc(data_type=DataType.INT8, sizes=(2, 3)), axis=0)
    kernel = dmlc.compile(desc, check_indices=True)
    assert len(kernel.program.buffers) > 4 and max(len(s.buffers) for s in kernel.stages) <= 4
    x, i = np.zeros((4, 3), np.int8), np.array([[3, 0, -1], [1, 1, 1]], np.int64)
    u = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert_bits_equal(kernel(x, i, u), scatter(x, i, u, 0))


@vulkan
def test_too_many_buffers_for_one_kernel_is_refused(monkeypatch):
    _with_limits(monkeypatch, maxPerStageDescriptorStorageBuffers=2)
    module = dmlc.lang.parse_module("A: int32[2]\nB: int32[2]\nY[i] = A[B[i]]\n")
    with pytest.raises(DeviceError, match="3 storage buffers, more than this device's "
                                          "maxPerStageDescriptorStorageBuffers = 2"):
        dmlc.run_module(module, {"A": np.arange(2, dtype=np.int32), "B": np.zeros(2, np.int32)})


@vulkan
def test_a_tensor_too_large_for_the_device_is_refused(monkeypatch):
    """Over the device's largest memory heap (lavapipe's: 2 GiB), a tensor is refused naming
    it; a compile whose chunks need more bindings than a kernel has says so."""
    heap = get_device().limits.deviceLocalHeapSize
    assert heap >= 2**27
    with pytest.raises(DeviceError, match=rf"more than this device's largest memory heap "
                                          rf"holds \({heap} bytes"):
        dmlc.empty((heap // 4 + 1,), np.float32)
    _with_limits(monkeypatch, deviceLocalHeapSize=2**20)
    with pytest.raises(DeviceError, match=r"needs 1048592 bytes, more than this device's "
                                          r"largest memory heap holds \(1048576 bytes"):
        dmlc.to_device(np.zeros(2**18 + 1, np.float32))
    with pytest.raises(DmlcError, match="maxPerStageDescriptorStorageBuffers"):
        # Vulkan's minimums (128 MiB a binding, 4 a shader) on any device: 256 MiB in and out
        # are 3 chunks each
        dmlc.compile(_slice(2**26 + 4), limits="minimum")


@vulkan
@pytest.mark.parametrize("steps", [65535, 65536])
def test_the_longest_scatter_lines_run_whole(steps, monkeypatch):
    """lavapipe stops a shader loop after 65,535 iterations: a line that long still runs every
    step (the last update wins), and a longer one scatters by vote instead."""
    import dmlc.ops.scatter.lower as lowering
    from dmlc.compiled import clear_caches
    monkeypatch.setattr(lowering, "LINES_MIN", 1)
    clear_caches()
    x = np.zeros((steps, 4), np.float32)
    idx = np.zeros((steps, 4), np.int32)
    upd = np.arange(steps * 4, dtype=np.float32).reshape(steps, 4)
    t = lambda a: TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape)  # noqa: E731
    kernel = dmlc.compile(ScatterDesc(input=t(x), indices=t(idx), updates=t(upd), axis=0),
                          target="cpu")
    assert ("scatter_lines" in kernel.ir) == (steps <= 65535)
    assert_bits_equal(kernel(x, idx, upd), scatter(x, idx, upd, 0))
    clear_caches()


@vulkan
def test_a_tensor_larger_than_a_binding_is_chunked(monkeypatch):
    """A tensor over maxStorageBufferRange is held as several device buffers (chunks), each
    within it (tests/device/test_big_tensors.py runs kernels on them)."""
    _with_limits(monkeypatch, maxStorageBufferRange=1024)
    x = np.arange(2 * 129, dtype=np.float32).reshape(2, 129)
    t = dmlc.to_device(x)
    assert t.chunk_words == 256 and [k.data().nbytes for k in t.kp_tensor] == [1024, 16]
    assert_bits_equal(t.numpy(), x)
    assert dmlc.empty((256,), np.float32).chunk_words == 0  # exactly the limit: one buffer


@vulkan
def test_a_tensor_no_kernel_can_bind_is_refused_when_made(monkeypatch):
    """dmlc.empty and to_device refuse at once, naming the limits, a tensor that needs more
    chunks than a kernel has bindings, rather than every kernel failing on it later."""
    _with_limits(monkeypatch, maxStorageBufferRange=1024, maxPerStageDescriptorStorageBuffers=4)
    for make in (lambda: dmlc.empty((769,), np.float32),
                 lambda: dmlc.to_device(np.zeros((3, 257), np.float32))):
        with pytest.raises(DeviceError, match=r"needs 3088 bytes: 4 bindings of this device's "
                                              r"maxStorageBufferRange = 1024, more than the 3"):
            make()
    assert dmlc.empty((768,), np.float32).nbytes == 3072  # three chunks: allowed


@vulkan
@pytest.mark.parametrize("shape", [(2**31, 2**31), (2**62,), (2**40,) * 8])
@pytest.mark.parametrize("heap_known", [True, False])
def test_a_huge_tensor_is_refused_before_anything_grows_with_its_size(shape, heap_known,
                                                                      monkeypatch):
    """Found by a fuzzer: dmlc.empty((2**31, 2**31), np.int8) hung (a list of its 2^35 chunk
    sizes, built before the heap check) where (2**40,) was refused at once. Every size check
    comes before any work that grows with the size: the heap's, and where the heap is unknown
    (0), the bindings' (the count of chunks, computed, not listed)."""
    if not heap_known:
        _with_limits(monkeypatch, deviceLocalHeapSize=0)
    match = "largest memory heap" if heap_known else "maxPerStageDescriptorStorageBuffers"
    with pytest.raises(DeviceError, match=match):
        dmlc.empty(shape, np.int8)

"""The runtime as the bench uses it: a launch plan written by hand (no IR) runs, and the timing
functions make every Vulkan object through the Device, which counts it."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from backends import vulkan_only
from dmlc.bench import EMPTY_SHADER, copy_plan
from dmlc.runtime import Executable, get_device, timing
from dmlc.runtime.pool import poisoning
from dmlc.toolchain import compile_glsl

pytestmark = pytest.mark.vulkan


def test_a_hand_written_plan_runs():
    """The bench's copy shader: one kernel from src to dst, described by a plan alone."""
    plan = copy_plan(1000)
    assert [b.words for b in plan.buffers] == [1000, 1000] and plan.kernels[0].local_size == 256
    words = np.arange(1000, dtype=np.uint32) * np.uint32(2654435761)
    got, status = Executable(get_device(), plan).run([words])
    assert np.array_equal(got, words) and status == {}


@vulkan_only("counts kp's objects (algorithms, sequences); WebGPU's timings: "
             "test_webgpu_backend.py")
def test_timings_are_positive_and_counted():
    device = get_device()
    dmlc.clear_cache()  # idle pooled buffers left by earlier tests would be reused, not created
    before, arenas = dict(device.created), device.pool.created
    exe = Executable(device, copy_plan(4096))
    src, dst = dmlc.to_device(np.ones(4096, np.uint32)), dmlc.empty((4096,), np.uint32)
    assert timing.time_kernels(exe, [src], dst) > 0
    assert timing.time_buffer_copy(device, src, dst) > 0
    assert exe.run([np.ones(4096, np.uint32)])[0].sum() == 4096
    bare = timing.RecordedDispatch(device, compile_glsl(EMPTY_SHADER))
    for _ in range(3):
        bare.run()
    made = {k: device.created[k] - before.get(k, 0) for k in device.created}
    # src and dst: 1 upload sequence (dst is zeroed: another); the timings: 1 algorithm
    # (binding src and dst) and one sequence per time_op; run(): 1 algorithm, 1 sequence; the
    # bare dispatch: 1 tensor, 1 algorithm, 1 sequence; DMLC_POISON uploads its pattern into
    # run()'s 2 buffers: 2 more sequences. Buffers: the arenas made (views: dmlc's kp), else src,
    # dst and run()'s 2 (in use at once), each a kp tensor
    pooled = device.pool.created - arenas if device.rebinds else 4
    assert made == {"tensors": 1 + pooled, "algorithms": 3,
                    "sequences": 9 if poisoning() else 7}

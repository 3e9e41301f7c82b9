"""The runtime as the bench uses it: a launch plan written by hand (no IR) runs, and the timing
functions make every Vulkan object through the Device, which counts it."""
from __future__ import annotations

import numpy as np
import pytest

from dmlc.bench import EMPTY_SHADER, copy_plan
from dmlc.runtime import Executable, get_device, timing
from dmlc.toolchain import compile_glsl

pytestmark = pytest.mark.vulkan


def test_a_hand_written_plan_runs():
    """The bench's copy shader: one kernel from src to dst, described by a plan alone."""
    plan = copy_plan(1000)
    assert [b.words for b in plan.buffers] == [1000, 1000] and plan.kernels[0].local_size == 256
    words = np.arange(1000, dtype=np.uint32) * np.uint32(2654435761)
    got, status = Executable(get_device(), plan).run([words])
    assert np.array_equal(got, words) and status == {}


def test_timings_are_positive_and_counted():
    device = get_device()
    before = dict(device.created)
    exe = Executable(device, copy_plan(4096))
    exe.upload([np.ones(4096, np.uint32)])
    assert timing.time_kernels(exe) > 0 and timing.time_buffer_copy(exe) > 0
    assert exe.run([np.ones(4096, np.uint32)])[0].sum() == 4096
    bare = timing.RecordedDispatch(device, compile_glsl(EMPTY_SHADER))
    for _ in range(3):
        bare.run()
    made = {k: device.created[k] - before.get(k, 0) for k in device.created}
    # the copy: 2 tensors, 1 algorithm and 5 sequences (the first zeroing, the kernel's, the
    # upload's, and one per timing: time_op records a sequence of its own); the bare dispatch:
    # 1 tensor, 1 algorithm, 1 sequence
    assert made == {"tensors": 3, "algorithms": 2, "sequences": 6}

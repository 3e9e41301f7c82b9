"""Copies of runs of bytes on the device (family/runs.py, plan.PlanCopy, kp's
OpTensorCopyRuns): the copies and slices whose plan has runs take them instead of a shader,
bit for bit as numpy, for every data type, on device tensors and on host arrays, specialized
and generic, and a shader still runs everything else."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from dmlc.compiled import cached_compile
from dmlc.oneshot import tensor_of
from dmlc.ops.copy.desc import IdentityDesc
from reference import assert_bits_equal
from strategies import DATA_TYPES, budget, random_bits

pytestmark = pytest.mark.vulkan


@pytest.fixture(scope="module")
def device():
    from dmlc.runtime import backend
    if backend.known() == "webgpu":
        pytest.skip("WebGPU runs the kernels (no copy command taken)")
    from dmlc.runtime.device import get_device
    found = get_device()
    if not found.copies:
        pytest.skip("a kp without dmlc's OpTensorCopyRuns runs the kernels")
    return found


def copies(view) -> bool:
    """Whether a copy of `view` runs as copies of runs (its executable's choice)."""
    return cached_compile(IdentityDesc(input=tensor_of(view))).executable().copies


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_windows_of_a_cache_copy_their_rows(device, dtype):
    host = random_bits(1, (3, 8, 40), dtype)
    cache = dmlc.to_device(host)
    for t in (1, 2, 7, 16, 33, 40):
        assert_bits_equal(dmlc.copy(cache[:, :, :t]).numpy(), host[:, :, :t])
        assert_bits_equal(dmlc.copy(cache[1:, 2:7, t - 1:]).numpy(), host[1:, 2:7, t - 1:])
    assert copies(cache[:, :, :7])


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_host_arrays_and_slices_and_out(device, dtype):
    host = random_bits(2, (6, 10), dtype)
    assert_bits_equal(dmlc.copy(host[::2, 3:9]), host[::2, 3:9])  # numpy in, numpy out
    assert_bits_equal(dmlc.slice(host, [1, 2], [4, 7], [2, 1]), host[1:5:2, 2:9])
    x = dmlc.to_device(host)
    assert_bits_equal(dmlc.slice(x, [1, 2], [4, 7], [2, 1]).numpy(), host[1:5:2, 2:9])
    out = dmlc.empty((3, 6), dtype)
    assert dmlc.copy(x[::-2, 1:7], out=out) is out
    assert_bits_equal(out.numpy(), host[::-2, 1:7])
    assert copies(x[::-2, 1:7]) and copies(host[::2, 3:9])


def test_what_runs_no_copy_of_runs_takes_a_shader(device):
    host = np.arange(48, dtype=np.float32).reshape(6, 8)
    x = dmlc.to_device(host)
    assert not copies(x.T) and not copies(x[:, ::-1])
    assert_bits_equal(dmlc.copy(x.T).numpy(), host.T)
    assert_bits_equal(dmlc.copy(x[:, ::-1]).numpy(), host[:, ::-1])


def test_a_generic_window_copies_runs_at_every_size(device, monkeypatch):
    """The decode loop's window: one generic kernel serves every size, each call's plan has its
    own runs, and no Vulkan object is made once its bindings exist."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    host = random_bits(3, (4, 16, 64), np.dtype("float16"))
    cache = dmlc.to_device(host)
    for t in range(1, 30):  # warm-up: bindings, and the downloads' recorded sequences
        assert_bits_equal(dmlc.copy(cache[:, :, :t]).numpy(), host[:, :, :t])
    before = dict(dmlc.cache_info()["objects"])
    for t in range(30, 65):
        assert_bits_equal(dmlc.copy(cache[:, :, :t]).numpy(), host[:, :, :t])
    assert dmlc.cache_info()["objects"] == before
    assert copies(cache[:, :, :20])
    assert any("generic" in name for name in dmlc.cache_info()["compiles"])


@st.composite
def device_views(draw):
    """A view of a device tensor by basic indexing: a slice per dimension, any step (negative
    too) outside the innermost, which keeps step 1 half the time."""
    dtype = draw(st.sampled_from(DATA_TYPES))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(draw(st.integers(1, 4))))
    index = []
    for k, n in enumerate(shape):
        start = draw(st.integers(0, n - 1))
        step = draw(st.sampled_from([1, 1, 2, -1, 3]))
        if k == len(shape) - 1 and draw(st.booleans()):
            step = 1
        stop = draw(st.integers(start + 1, n)) if step > 0 else None
        index.append(slice(start, stop, step))
    return random_bits(draw(st.integers(0, 99)), shape, dtype), tuple(index)


@settings(max_examples=budget(60), deadline=None)
@given(device_views())
def test_any_view_copies_as_numpy_copies_it(device, case):
    host, index = case
    got = dmlc.copy(dmlc.to_device(host)[index]).numpy()
    assert_bits_equal(got, np.ascontiguousarray(host[index]))


def test_kp_refuses_runs_outside_the_tensors_or_between_shared_memory(device):
    """dmlc's OpTensorCopyRuns checks every run against both tensors (a run past a pooled
    buffer's end would reach the arena's next tensor) and refuses tensors that overlap (Vulkan
    forbids a copy between overlapping memory)."""
    from dmlc.runtime import kompute
    kp = kompute.load()  # dmlc's own binding, or the kp package (`make install`)
    a, b = dmlc.empty((16,), np.float32), dmlc.empty((16,), np.float32)
    ok = kp.OpTensorCopyRuns(a.kp_tensor, b.kp_tensor, 0, 16, [4], [16])
    assert ok is not None
    for offset, run, sizes, strides in ((4, 16, [4], [16]), (0, 20, [4], [16]),
                                        (0, 0, [4], [16]), (0, 16, [4], [20])):
        with pytest.raises(RuntimeError, match="leaves a tensor"):
            kp.OpTensorCopyRuns(a.kp_tensor, b.kp_tensor, offset, run, sizes, strides)
    for sizes, strides, says in (([4], [-16], "before the source"), ([4, 2], [16], "as many"),
                                 ([0], [16], "between 1 and"), ([1 << 13] * 2, [0, 0],
                                                                  "between 1 and")):
        with pytest.raises(RuntimeError, match=says):
            kp.OpTensorCopyRuns(a.kp_tensor, b.kp_tensor, 0, 4, sizes, strides)
    whole = a.kp_tensor
    with pytest.raises(RuntimeError, match="share memory"):
        kp.OpTensorCopyRuns(whole.view(0, 8), whole.view(4, 8), 0, 4, [], [])
    kp.OpTensorCopyRuns(whole.view(0, 8), whole.view(8, 8), 0, 32, [], [])


def test_the_bench_times_a_copy_of_runs_on_the_device(device):
    """dmlc bench's device timing of an executable that copies runs times that copy (it has
    no kernel dispatch to time)."""
    from dmlc.runtime.timing import time_kernels
    x = dmlc.to_device(np.arange(64 * 48, dtype=np.float32).reshape(64, 48))
    view = x[:, 5:40]
    exe = cached_compile(IdentityDesc(input=tensor_of(view))).executable()
    assert exe.copies
    out = dmlc.empty((64, 35), np.float32)
    assert time_kernels(exe, [x], out) > 0

"""Runtime behaviour on the device: grids within limits, slot reuse, scratch reset, determinism,
threads, strided inputs, and kp's import side effect kept away from the user's logging."""
from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import dmlc
import reference as ref
from dmlc.errors import DeviceError
from dmlc.runtime import get_device
from dmlc.runtime.limits import dispatch_grid
from reference import assert_bits_equal


def test_dispatch_grid_respects_per_axis_limits():
    assert dispatch_grid(100, 64, (65535, 65535, 65535)) == (2, 1, 1)
    assert dispatch_grid(64 * 70000, 64, (65535, 65535, 65535)) == (65535, 2, 1)
    gx, gy, _ = dispatch_grid(1000, 64, (3, 100, 1))
    assert gx <= 3 and gx * gy * 64 >= 1000
    with pytest.raises(DeviceError, match="maxComputeWorkGroupCount"):
        dispatch_grid(64 * 10, 64, (3, 3, 1))


@pytest.mark.vulkan
def test_two_dimensional_grid_is_correct(monkeypatch):
    # Pretend the device allows only 5 groups per axis: the kernel must still cover every item.
    monkeypatch.setattr(get_device(), "max_group_count", (5, 65535, 65535))
    x = np.arange(5000, dtype=np.uint16)
    kernel = dmlc.compile(dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="UINT16",
                                                                sizes=(5000,)),
                                          offsets=(0,), sizes=(5000,), strides=(-1,)))
    assert_bits_equal(kernel(x), x[::-1].copy())


@pytest.mark.vulkan
def test_more_than_65535_workgroups():
    x = np.arange(64 * 65536 + 7, dtype=np.float32)
    assert dispatch_grid(x.size, 64, get_device().max_group_count)[1] == 2
    assert_bits_equal(dmlc.slice(x, [0], [x.size], [1]), x)


@pytest.mark.vulkan
def test_kernel_is_reused_with_fresh_data_and_zeroed_scratch():
    x = np.zeros(6, np.int16)
    desc = dmlc.ScatterDesc(input=dmlc.TensorDesc(data_type="INT16", sizes=(6,)),
                            indices=dmlc.TensorDesc(data_type="INT32", sizes=(4,)),
                            updates=dmlc.TensorDesc(data_type="INT16", sizes=(4,)), axis=0)
    kernel = dmlc.compile(desc)
    rng = np.random.default_rng(1)
    for _ in range(20):
        i = rng.integers(-8, 8, 4).astype(np.int32)
        u = rng.integers(-100, 100, 4).astype(np.int16)
        assert_bits_equal(kernel(x, i, u), ref.scatter(x, i, u, 0))


@pytest.mark.vulkan
def test_colliding_scatter_is_deterministic():
    x = np.zeros((3, 5), np.float32)
    i = np.random.default_rng(2).integers(0, 3, (4000, 5)).astype(np.int64)
    u = np.arange(4000 * 5, dtype=np.float32).reshape(4000, 5)
    expected = ref.scatter(x, i, u, 0)
    for _ in range(5):
        assert_bits_equal(dmlc.scatter(x, i, u, axis=0), expected)


@pytest.mark.vulkan
def test_threads_share_kernels_safely():
    x = np.arange(64, dtype=np.uint8).reshape(8, 8)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(20):
                i = rng.integers(-8, 8, (8, 8)).astype(np.int32)
                assert_bits_equal(dmlc.gather_elements(x, i, axis=1),
                                  ref.gather_elements(x, i, 1))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@pytest.mark.vulkan
def test_strided_input_descriptor():
    base = np.arange(12, dtype=np.float64)  # a 3x4 tensor stored column-major: strides (1, 3)
    logical = base.reshape(4, 3).T
    desc = dmlc.GatherElementsDesc(input=dmlc.TensorDesc(data_type="FLOAT64", sizes=(3, 4),
                                                         strides=(1, 3)),
                                   indices=dmlc.TensorDesc(data_type="INT32", sizes=(3, 2)),
                                   axis=1)
    idx = np.array([[3, 0], [1, -1], [2, 2]], np.int32)
    kernel = dmlc.compile(desc)
    assert_bits_equal(kernel(base, idx), ref.gather_elements(logical, idx, 1))
    with pytest.raises(dmlc.ValidationError, match="buffer"):
        kernel(base[:5], idx)


def test_kp_import_leaves_root_logger_alone():
    code = ("import logging; from dmlc.runtime.device import _import_kp; _import_kp(); "
            "print(len(logging.getLogger().handlers))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"

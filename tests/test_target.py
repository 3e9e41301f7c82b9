"""The compile target (compiler/target.py): "cpu" or "gpu", from the argument, $DMLC_TARGET or
the selected device's kind; it picks scatter's lowering, and a bad value is a clear error."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import dmlc
from dmlc.compiled import clear_caches
from dmlc.target import resolve
from test_no_device import NO_DRIVER

BIG = dmlc.ScatterDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(8, 256)),
                       indices=dmlc.TensorDesc(data_type="INT32", sizes=(8, 256)),
                       updates=dmlc.TensorDesc(data_type="FLOAT32", sizes=(8, 256)), axis=0)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.delenv("DMLC_TARGET", raising=False)
    clear_caches()
    yield
    clear_caches()


def test_the_argument_then_the_environment(monkeypatch):
    assert resolve("cpu") == "cpu" and resolve("gpu") == "gpu"
    monkeypatch.setenv("DMLC_TARGET", "gpu")
    assert resolve(None) == "gpu" and resolve("cpu") == "cpu"
    monkeypatch.setenv("DMLC_TARGET", "npu")
    with pytest.raises(dmlc.ValidationError, match="DMLC_TARGET: expected cpu or gpu, got 'npu'"):
        resolve(None)
    with pytest.raises(dmlc.ValidationError, match="target: expected cpu or gpu, got 'tpu'"):
        dmlc.compile(BIG, target="tpu")


def test_scatter_by_lines_on_a_cpu_by_vote_on_a_gpu():
    cpu, gpu = dmlc.compile(BIG, target="cpu"), dmlc.compile(BIG, target="gpu")
    assert (cpu.target, gpu.target) == ("cpu", "gpu")
    assert [s.name for s in cpu.stages] == ["scatter_copy", "scatter_lines"]
    assert [s.name for s in gpu.stages] == ["scatter_vote", "scatter_resolve"]


def test_without_a_device_the_target_is_gpu():
    code = ("import dmlc, test_target\n"
            "print(dmlc.compile(test_target.BIG).target)\n")
    env = {**os.environ, **NO_DRIVER, "PYTHONPATH": os.path.dirname(__file__)}
    env.pop("DMLC_TARGET", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "gpu"


@pytest.mark.vulkan
def test_lavapipe_and_swiftshader_are_cpus():
    """Both report VK_PHYSICAL_DEVICE_TYPE_CPU (make test-swiftshader runs this on the second)."""
    from dmlc.runtime import get_device
    from dmlc.runtime.device import device_kind
    name = get_device().name
    expected = "cpu" if "llvmpipe" in name or "SwiftShader" in name else "gpu"
    assert device_kind() == expected and resolve(None) == expected

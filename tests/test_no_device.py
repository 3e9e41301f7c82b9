"""Without a Vulkan driver, or with a device index that does not exist, dmlc says what is missing
and how to install it (kp alone would abort the process), and `dmlc info` diagnoses it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends import webgpu

NO_DRIVER = {"VK_ICD_FILENAMES": "/nonexistent/driver.json",
             "VK_DRIVER_FILES": "/nonexistent/driver.json"}
CALL = ("import numpy as np, dmlc\n"
        "try:\n"
        "    dmlc.gather_elements(np.zeros((2, 2), np.float32), np.zeros((1, 2), np.int32),"
        " axis=0)\n"
        "except dmlc.DeviceError as e:\n"
        "    print('DeviceError:', e)\n")


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_no_driver_is_a_clear_error_not_an_abort():
    done = run([sys.executable, "-c", CALL], **NO_DRIVER)
    assert done.returncode == 0, done.stderr[-2000:]
    if webgpu():  # DMLC_BACKEND=webgpu: wgpu's Vulkan finds no driver either
        assert "DeviceError: WebGPU finds" in done.stdout and "a GPU driver" in done.stdout
        return
    assert "DeviceError: no usable Vulkan device: no Vulkan driver found" in done.stdout
    assert "apt-get install mesa-vulkan-drivers" in done.stdout


def test_dmlc_info_diagnoses_a_missing_driver():
    dmlc_exe = Path(sys.executable).with_name("dmlc")
    done = run([str(dmlc_exe), "info"], **NO_DRIVER)
    assert done.returncode == 3
    if webgpu():
        assert "backend: webgpu" in done.stdout and "WebGPU finds" in done.stderr
        return
    assert "Vulkan loader: " in done.stdout and "/nonexistent/driver.json" in done.stdout
    assert "no Vulkan driver found" in done.stderr


@pytest.mark.vulkan
def test_a_device_index_that_does_not_exist():
    done = run([sys.executable, "-c", CALL], DMLC_DEVICE="7")
    said = "WebGPU adapter 7" if webgpu() else "Vulkan device 7"  # an index into its list
    assert f"DeviceError: {said} does not exist" in done.stdout
    assert "0: " in done.stdout  # and it lists the devices there are


ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str, **env: str) -> subprocess.CompletedProcess:
    """pytest on `args` without a driver, outside CI unless `env` says otherwise."""
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "DMLC_NO_DEVICE")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**base, **NO_DRIVER, **env})


def test_a_missing_device_fails_the_run_unless_said_on_purpose():
    """2,500 device tests skipped must not pass by accident: without a device the run fails,
    unless DMLC_NO_DEVICE=1 says so (then they are skipped); under CI it fails even then; a
    run that selects no device test needs none."""
    device_tests = "tests/device/test_views.py"
    refused = _pytest(device_tests)
    assert refused.returncode not in (0, 5)
    assert "DMLC_NO_DEVICE=1" in refused.stdout + refused.stderr
    skipped = _pytest(device_tests, DMLC_NO_DEVICE="1")
    assert skipped.returncode == 0 and " skipped" in skipped.stdout, skipped.stdout[-2000:]
    ci = _pytest(device_tests, DMLC_NO_DEVICE="1", CI="true")
    assert ci.returncode not in (0, 5)
    assert "CI needs a Vulkan device" in ci.stdout + ci.stderr
    deselected = _pytest(device_tests, "-m", "not vulkan")
    assert deselected.returncode == 5, deselected.stdout[-2000:]  # nothing left to run

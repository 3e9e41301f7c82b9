"""Other Vulkan devices (issue 26): picking one (DMLC_DEVICE by index or name, set_device(),
VK_ICD_FILENAMES choosing the drivers), and planning within each one's limits. Each case runs in
a process of its own, since a process opens one device. The mock ICD (Vulkan's required minimums:
4 storage buffers per shader, 128 invocations per workgroup; it executes nothing, so it checks
plans and errors, never values) and SwiftShader come from Debian's chromium-common
(`make test-swiftshader` fetches it: tools/swiftshader.sh); their cases are skipped without
it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dmlc
from backends import vulkan_only
from dmlc import JoinDesc, TensorDesc
from dmlc.plan import MINIMUM

pytestmark = pytest.mark.vulkan

def _chromium() -> Path:
    """Where chromium-common's Vulkan libraries are: tools/swiftshader.sh's choice, the package
    installed, or the copy that script unpacks into .venv."""
    unpacked = Path(__file__).resolve().parents[2] / ".venv/chromium/root/usr/lib/chromium"
    found = [Path(p) for p in (os.environ.get("DMLC_CHROMIUM_DIR"), "/usr/lib/chromium") if p]
    return next((p for p in found if (p / "libvk_swiftshader.so").exists()), unpacked)


CHROMIUM = _chromium()
SWIFTSHADER = CHROMIUM / "vk_swiftshader_icd.json"
MOCK = CHROMIUM / "libVkICD_mock_icd.so"
LAVAPIPE = Path("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
needs_mock = pytest.mark.skipif(not MOCK.exists(), reason="no mock ICD (apt-get install "
                                "chromium-common, or make test-swiftshader)")
needs_swiftshader = pytest.mark.skipif(not SWIFTSHADER.exists(), reason="no SwiftShader "
                                       "(apt-get install chromium-common)")


@pytest.fixture
def mock_icd(tmp_path) -> str:
    """The mock ICD's manifest (chromium-common ships the library without one)."""
    path = tmp_path / "mock_icd.json"
    path.write_text(json.dumps({"file_format_version": "1.0.0", "ICD": {
        "library_path": str(MOCK), "api_version": "1.3.0"}}))
    return str(path)


def run(script: str, tmp_path: Path, **env: str) -> str:
    """`script` in a fresh Python with `env` on top of ours (its own shader cache); its stdout."""
    full = {**os.environ, "DMLC_CACHE_DIR": str(tmp_path / "cache"), **env}
    if "DMLC_DEVICE" not in env:
        full.pop("DMLC_DEVICE", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=full, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def info(tmp_path: Path, **env: str) -> str:
    return run("from dmlc.cli import main; main(['info'])", tmp_path, **env)


@vulkan_only("the mock ICD is a Vulkan driver that runs nothing; wgpu finds no adapter in it")
@needs_mock
def test_the_mock_icd_plans_every_bench_operator_and_joins_of_2_to_64(tmp_path, mock_icd):
    """Under Vulkan's minimums every bench case (and its checked form) plans and launches
    without a DeviceError; joins of 2 to 64 inputs bind at most 4 buffers per kernel; a kernel
    compiled for the default limits is planned again for the device at its first call."""
    out = run('''
import numpy as np, dmlc
from dmlc.bench import suite
from dmlc.runtime import get_device
dev = get_device()
print(dev.name, dev.plan_limits.maxPerStageDescriptorStorageBuffers)
rng = np.random.default_rng(0)
for case in suite(quick=True):
    k = dmlc.compile(case.descriptor)
    assert k.compiled.limits == dev.plan_limits, case.name
    k(*case.make_inputs(rng))
    if k.descriptor.has_indices:
        dmlc.compile(case.descriptor, check_indices=True)(*case.make_inputs(rng))
widest = 0
for n in range(2, 65):
    xs = [np.full((2, 1 + n % 3), n, np.float32) for _ in range(n)]
    assert dmlc.join(xs, axis=1).shape == (2, sum(x.shape[1] for x in xs))
    k = dmlc.compile(dmlc.JoinDesc(inputs=tuple(dmlc.TensorDesc(data_type="FLOAT32",
                     sizes=x.shape) for x in xs), axis=1))
    widest = max(widest, *(len(s.buffers) for s in k.stages))
    d = dmlc.compile(k.descriptor, target="cpu")  # the device-free default: 8 buffers a kernel
    d(*xs)
    assert d.executable().plan.within(dev.plan_limits)
print("widest", widest)
''', tmp_path, VK_ICD_FILENAMES=mock_icd)
    assert out.splitlines() == ["Vulkan Mock Device 4", "widest 4"]


@vulkan_only("the mock ICD is a Vulkan driver that runs nothing; wgpu finds no adapter in it")
@needs_mock
def test_dmlc_info_under_the_mock_icd(tmp_path, mock_icd):
    out = info(tmp_path, VK_ICD_FILENAMES=mock_icd)
    assert "device 0: Vulkan Mock Device" in out and "DMLC_DEVICE=" in out
    assert "maxPerStageDescriptorStorageBuffers: 4" in out
    assert "maxComputeWorkGroupInvocations: 128" in out


@vulkan_only("the Vulkan loader's device list (VK_ICD_FILENAMES, DMLC_DEVICE indices into it)")
@needs_swiftshader
def test_vk_icd_filenames_and_dmlc_device_pick_the_device(tmp_path):
    """With lavapipe's and SwiftShader's drivers both listed, DMLC_DEVICE picks either by index
    or by a piece of its name (any case); a name that matches none lists the devices."""
    both = os.pathsep.join([str(LAVAPIPE), str(SWIFTSHADER)])
    listed = info(tmp_path, VK_ICD_FILENAMES=both)
    names = [line.split(": ", 1)[1] for line in listed.splitlines()
             if line.startswith("  physical device ")]
    assert len(names) == 2 and any("SwiftShader" in n for n in names), names
    swift = next(i for i, n in enumerate(names) if "SwiftShader" in n)
    for pick in (str(swift), "swiftshader", "SWIFTSHADER Device"):
        out = info(tmp_path, VK_ICD_FILENAMES=both, DMLC_DEVICE=pick)
        assert f"device {swift}: SwiftShader Device" in out, out
        assert "maxComputeWorkGroupInvocations: 256" in out
    out = info(tmp_path, VK_ICD_FILENAMES=both, DMLC_DEVICE="llvmpipe")
    assert f"device {1 - swift}: llvmpipe" in out
    script = ("import dmlc\ntry:\n    dmlc.set_device('no such gpu')\nexcept dmlc.DeviceError "
              "as e:\n    print(e)")
    said = run(script, tmp_path, VK_ICD_FILENAMES=both)
    assert "set_device() = 'no such gpu' names no Vulkan device" in said and "0: " in said


@needs_swiftshader
def test_set_device_by_name_runs_there_with_the_same_bits(tmp_path):
    both = os.pathsep.join([str(LAVAPIPE), str(SWIFTSHADER)])
    out = run('''
import numpy as np, dmlc
from dmlc.runtime import get_device
dmlc.set_device("swiftshader")
xs = [np.arange(k * 6, k * 6 + 6, dtype=np.int32).reshape(2, 3) for k in range(9)]
got = dmlc.join(xs, axis=0)
assert np.array_equal(got, np.concatenate(xs)), got
print(get_device().name)
''', tmp_path, VK_ICD_FILENAMES=both)
    assert out.strip() == "SwiftShader Device (Subzero)"


def test_the_selected_devices_limits_plan_and_values_match_under_minimum_limits():
    """On this device: joins planned for Vulkan's minimums (trees of 3-input kernels) give the
    same bits as numpy; and a plan whose limits the device lacks is planned again when bound."""
    from dmlc.runtime import get_device
    dev = get_device()
    assert dmlc.compile(JoinDesc(inputs=(TensorDesc(data_type="INT8", sizes=(2,)),) * 2,
                                 axis=0)).compiled.limits == dev.plan_limits
    rng = np.random.default_rng(5)
    for n in (2, 4, 7, 8, 20):
        xs = [rng.integers(-128, 128, (3, 1 + k % 4), np.int8) for k in range(n)]
        desc = JoinDesc(inputs=tuple(TensorDesc(data_type="INT8", sizes=x.shape) for x in xs),
                        axis=1)
        k = dmlc.compile(desc, limits="minimum")
        assert all(len(s.buffers) <= 4 for s in k.stages)
        np.testing.assert_array_equal(k(*xs), np.concatenate(xs, axis=1))


def test_a_kernel_is_planned_again_for_a_device_with_fewer_buffers(monkeypatch):
    from dmlc.compiled import clear_caches
    from dmlc.runtime import get_device
    dev = get_device()
    xs = [np.full((2, 2), k, np.float32) for k in range(6)]
    k = dmlc.compile(JoinDesc(inputs=(TensorDesc(data_type="FLOAT32", sizes=(2, 2)),) * 6,
                              axis=0), target="cpu")
    assert len(k.stages) == 1
    clear_caches()
    monkeypatch.setattr(dev, "plan_limits", MINIMUM)
    np.testing.assert_array_equal(k(*xs), np.concatenate(xs))
    assert len(k.executable().plan.kernels) == 3

"""Portability drivers (how macOS's Vulkan loader lists MoltenVK): listed only to an instance
that enables VK_KHR_portability_enumeration. kp (built by tools/kp_wheel.py with that patch) and
dmlc's own probe (runtime/limits.py) both ask for it, so lavapipe declared a portability driver
is found and runs kernels; `make test-portability` runs a part of the device suite so."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from backends import vulkan_only
from dmlc.runtime import limits

pytestmark = pytest.mark.vulkan
LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
SCRIPT = """
import numpy as np, dmlc
x = np.arange(12, dtype=np.float32).reshape(4, 3)
assert (dmlc.take(x, np.array([3, 0]), axis=0) == x[[3, 0]]).all()
print(dmlc.runtime.get_device().name)
"""


def portability_manifest(folder) -> str:
    icd = json.load(open(LAVAPIPE))
    icd["file_format_version"] = "1.0.1"
    icd["ICD"]["is_portability_driver"] = True
    path = os.path.join(folder, "lvp_portability.json")
    json.dump(icd, open(path, "w"))
    return path


@pytest.mark.skipif(not os.path.exists(LAVAPIPE), reason="no lavapipe driver manifest")
@vulkan_only("the Vulkan loader's portability enumeration (kp's patch, dmlc's probe); wgpu "
             "lists no portability driver on Linux")
def test_lavapipe_declared_a_portability_driver_is_found_and_runs(tmp_path):
    env = {**os.environ, "VK_ICD_FILENAMES": portability_manifest(tmp_path)}
    env.pop("VK_DRIVER_FILES", None)
    env.pop("DMLC_DEVICE", None)
    info = subprocess.run([sys.executable, "-m", "dmlc", "info"], env=env, capture_output=True,
                          text=True)
    assert info.returncode == 0, info.stderr
    assert "physical device 0: llvmpipe" in info.stdout
    ran = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stderr
    assert "llvmpipe" in ran.stdout


def test_a_portability_driver_a_loader_cannot_list_is_named(monkeypatch):
    monkeypatch.setattr(limits, "portability_drivers", lambda: ["/x/MoltenVK_icd.json"])
    hint = limits._no_driver_hint(portable=False)
    assert "/x/MoltenVK_icd.json declare a portability driver (MoltenVK)" in hint
    assert "VK_KHR_portability_enumeration (1.3.216 or newer)" in hint
    assert "brew upgrade vulkan-loader" in hint
    monkeypatch.setattr(limits, "portability_drivers", lambda: [])
    assert limits._no_driver_hint(portable=True) == limits.DRIVER_HINT


def test_portability_drivers_are_read_from_the_manifests(tmp_path, monkeypatch):
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"ICD": {"library_path": "x.so"}}))
    portable = portability_manifest(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    monkeypatch.setenv("VK_ICD_FILENAMES", os.pathsep.join([str(plain), portable,
                                                             str(broken)]))
    assert limits.portability_drivers() == [portable]

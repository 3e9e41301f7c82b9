"""The install without apt (setup.py, tools/kompute.py): when dmlc's wheel builds the Vulkan
binding, what it says is missing, per platform, and how the runtime finds a binding. The build
itself runs in `make test-pip` (a fresh venv, the wheel from `make dist`)."""
from __future__ import annotations

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import kompute  # noqa: E402


def test_dmlc_vulkan_off_builds_nothing_and_asks_nothing(monkeypatch):
    monkeypatch.setattr(kompute, "missing_prerequisites", lambda: pytest.fail("asked"))
    assert kompute.wanted({"DMLC_VULKAN": "off"}) is False
    assert kompute.wanted({"DMLC_VULKAN": " OFF "}) is False


def test_dmlc_vulkan_must_be_one_of_three():
    with pytest.raises(SystemExit, match="DMLC_VULKAN must be auto, on or off, got 'yes'"):
        kompute.wanted({"DMLC_VULKAN": "yes"})


@pytest.mark.parametrize("mode", ["auto", "on"])
def test_builds_where_nothing_is_missing(monkeypatch, mode):
    monkeypatch.setattr(kompute, "missing_prerequisites", lambda: [])
    assert kompute.wanted({"DMLC_VULKAN": mode}) is True
    assert kompute.wanted({}) is True  # auto is the default


def test_auto_says_what_is_missing_and_builds_a_pure_wheel(monkeypatch, capsys):
    monkeypatch.setattr(kompute, "missing_prerequisites", lambda: ["a C++ compiler"])
    monkeypatch.setattr(kompute, "platform_key", lambda: "darwin")
    assert kompute.wanted({}) is False
    said = capsys.readouterr().err
    assert "needs a C++ compiler: brew install molten-vk vulkan-loader vulkan-headers" in said
    assert "the WebGPU backend (its webgpu extra)" in said


def test_on_stops_saying_what_is_missing(monkeypatch):
    monkeypatch.setattr(kompute, "missing_prerequisites",
                        lambda: ["the Vulkan headers (vulkan/vulkan.hpp)"])
    monkeypatch.setattr(kompute, "platform_key", lambda: "fedora")
    with pytest.raises(SystemExit, match=r"DMLC_VULKAN=on, but .*vulkan/vulkan.hpp.*"
                                         r"sudo dnf install vulkan-headers"):
        kompute.wanted({"DMLC_VULKAN": "on"})


def test_missing_prerequisites_names_each(monkeypatch, tmp_path):
    monkeypatch.setattr(kompute.shutil, "which", lambda name: None)
    monkeypatch.setattr(kompute, "header_dirs", lambda: [tmp_path])
    monkeypatch.setattr(kompute.ctypes.util, "find_library", lambda name: None)
    monkeypatch.delenv("VULKAN_SDK", raising=False)
    assert kompute.missing_prerequisites() == [
        "CMake (3.21 or newer)", "a C++ compiler", "the Vulkan headers (vulkan/vulkan.hpp)",
        "the Vulkan loader (libvulkan)"]
    (tmp_path / "vulkan").mkdir()
    (tmp_path / "vulkan" / "vulkan.hpp").write_text("")
    assert "the Vulkan headers (vulkan/vulkan.hpp)" not in kompute.missing_prerequisites()


def test_this_machine_has_what_the_build_needs():
    """make install put them here (Debian: libvulkan-dev, cmake, g++), and make test-pip
    builds with them: auto must find them, or it would silently build a pure wheel."""
    assert kompute.missing_prerequisites() == []


@pytest.mark.parametrize("release, key", [({"ID": "debian"}, "debian"),
                                          ({"ID": "ubuntu", "ID_LIKE": "debian"}, "debian"),
                                          ({"ID": "fedora"}, "fedora"),
                                          ({"ID": "rocky", "ID_LIKE": "rhel centos fedora"},
                                           "fedora")])
def test_linux_hints_follow_os_release(monkeypatch, release, key):
    monkeypatch.setattr(kompute.sys, "platform", "linux")
    monkeypatch.setattr(kompute.platform, "freedesktop_os_release", lambda: release)
    assert kompute.platform_key() == key
    assert kompute.install_hint() == kompute.HINTS[key]


def test_every_platform_has_a_hint():
    assert set(kompute.HINTS) == {"debian", "fedora", "darwin", "windows"}
    assert "LunarG" in kompute.HINTS["windows"] and "brew" in kompute.HINTS["darwin"]


def test_each_patch_edits_text_found_once_in_the_sources_it_names():
    """The edits are exact (patched_source stops on a count other than one); each inserts
    what the portability drivers need."""
    edits = kompute.PATCHES["src/Manager.cpp"]
    added = "".join(new for _, new in edits)
    for needed in ("VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME", "eEnumeratePortabilityKHR",
                   "computeInstanceCreateInfo.flags = instanceFlags",
                   '"VK_KHR_portability_subset"'):
        assert needed in added
    assert all(new.count(old) == 1 for old, new in edits)  # each keeps the text it patches


def test_the_sdist_carries_the_build_and_no_tests():
    manifest = (ROOT / "MANIFEST.in").read_text().split("\n")
    assert "include tools/kompute.py" in manifest and "prune tests" in manifest


def test_the_runtime_finds_a_binding_without_importing_it():
    from dmlc import target
    from dmlc.runtime import kompute as binding
    found = binding.origin()
    assert found in (binding.BUILT_IN, "kp")  # make install: the kp wheel
    assert target.has_kompute()
    assert binding.describe().startswith(("dmlc.runtime.kompute.kp", "kp "))

"""Choosing the Vulkan device without one (issue 26): DMLC_DEVICE and dmlc.set_device() take an
index or a piece of a device's name; anything else is a DeviceError that says what was given and
lists the devices. tests/device/test_devices.py picks real ones (lavapipe, SwiftShader)."""
from __future__ import annotations

import pytest

import dmlc
import dmlc.runtime.device as device
from dmlc.plan import DEFAULT, MINIMUM
from dmlc.runtime.limits import Probe


@pytest.fixture
def two_devices(monkeypatch):
    found = Probe("libvulkan.so.1", (("llvmpipe (LLVM 15.0.6, 256 bits)", DEFAULT),
                                     ("SwiftShader Device (Subzero)", MINIMUM)), (4, 4))
    monkeypatch.setattr(device, "probe", lambda: found)
    monkeypatch.setenv("DMLC_BACKEND", "vulkan")  # dmlc.set_device chooses the Vulkan device
    monkeypatch.setattr(device, "_device", None)
    monkeypatch.setattr(device, "_device_index", None)
    monkeypatch.delenv("DMLC_DEVICE", raising=False)
    device._index_named.cache_clear()
    yield
    device._index_named.cache_clear()


@pytest.mark.parametrize("given, index", [
    ("0", 0), ("1", 1), (" 1 ", 1), ("swiftshader", 1), ("SwiftShader Device", 1),
    ("llvmpipe", 0), ("LLVM", 0), ("Device", 1),
])
def test_dmlc_device_takes_an_index_or_a_piece_of_a_name(two_devices, monkeypatch, given, index):
    monkeypatch.setenv("DMLC_DEVICE", given)
    assert device.selected_index() == index


def test_set_device_takes_either_and_overrides_the_environment(two_devices, monkeypatch):
    monkeypatch.setenv("DMLC_DEVICE", "0")
    dmlc.set_device("swift")
    assert device.selected_index() == 1
    dmlc.set_device(0)
    assert device.selected_index() == 0


@pytest.mark.parametrize("given, says", [
    ("no such gpu", "DMLC_DEVICE = 'no such gpu' names no Vulkan device; this machine has "
                    "0: llvmpipe (LLVM 15.0.6, 256 bits); 1: SwiftShader Device (Subzero)"),
    ("-1", "DMLC_DEVICE = '-1' names no Vulkan device"),
    ("", "DMLC_DEVICE must be a device index or a piece of a device's name, got ''"),
])
def test_a_device_that_is_not_there_is_named_with_the_choices(two_devices, monkeypatch, given,
                                                               says):
    monkeypatch.setenv("DMLC_DEVICE", given)
    with pytest.raises(dmlc.DeviceError) as e:
        device.selected_index()
    assert says in str(e.value)


@pytest.mark.parametrize("given, says", [
    (-2, "set_device() must be a device index >= 0, got -2"),
    (1.5, "set_device() must be a device index or a piece of a device's name, got 1.5"),
    (True, "got True"),
    ("radeon", "set_device() = 'radeon' names no Vulkan device"),
])
def test_set_device_refuses_what_is_no_device(two_devices, given, says):
    with pytest.raises(dmlc.DeviceError) as e:
        dmlc.set_device(given)
    assert says in str(e.value)

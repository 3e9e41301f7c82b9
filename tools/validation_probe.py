"""One known violation, for tools/validation.sh to prove that the pattern it counts the
layer's messages by still matches what the layer writes: vkCreateInstance (through the Vulkan
loader, with ctypes: no dmlc, no kp) with a VkInstanceCreateInfo whose flags hold a bit Vulkan
does not define (VUID-VkInstanceCreateInfo-flags-parameter, an error). Lavapipe creates the
instance anyway; the probe destroys it."""
from __future__ import annotations

import ctypes
import ctypes.util

vk = ctypes.CDLL(ctypes.util.find_library("vulkan") or "libvulkan.so.1")


class AppInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p),
                ("pApplicationName", ctypes.c_char_p), ("applicationVersion", ctypes.c_uint32),
                ("pEngineName", ctypes.c_char_p), ("engineVersion", ctypes.c_uint32),
                ("apiVersion", ctypes.c_uint32)]


class CreateInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.POINTER(AppInfo)),
                ("enabledLayerCount", ctypes.c_uint32), ("ppEnabledLayerNames", ctypes.c_void_p),
                ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]


app = AppInfo(0, None, b"dmlc-validation-probe", 1, b"dmlc", 1, (1 << 22) | (1 << 12))
info = CreateInfo(1, None, 0x40000000, ctypes.pointer(app), 0, None, 0, None)
instance = ctypes.c_void_p()
result = vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance))
if result == 0:
    vk.vkDestroyInstance(instance, None)
print("vkCreateInstance:", result)

"""One known violation, for tools/validation.sh to prove that the pattern it counts the
layer's messages by still matches what the layer writes: vkCreateInstance (through the Vulkan
loader, with ctypes: no dmlc, no kp) with a VkInstanceCreateInfo whose flags hold a bit Vulkan
does not define (VUID-VkInstanceCreateInfo-flags-parameter, an error). Lavapipe creates the
instance anyway; the probe destroys it. Where the loader offers VK_KHR_portability_enumeration,
the instance asks for it (as dmlc's do), so that a portability driver alone (make
test-portability) still gets the instance made, and the layer sees it."""
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


class ExtensionProperties(ctypes.Structure):
    _fields_ = [("extensionName", ctypes.c_char * 256), ("specVersion", ctypes.c_uint32)]


PORTABILITY = b"VK_KHR_portability_enumeration"
ENUMERATE_PORTABILITY = 0x00000001  # VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
count = ctypes.c_uint32()
vk.vkEnumerateInstanceExtensionProperties(None, ctypes.byref(count), None)
found = (ExtensionProperties * count.value)()
vk.vkEnumerateInstanceExtensionProperties(None, ctypes.byref(count), found)
portable = any(e.extensionName == PORTABILITY for e in found[:count.value])
names = (ctypes.c_char_p * 1)(PORTABILITY)

app = AppInfo(0, None, b"dmlc-validation-probe", 1, b"dmlc", 1, (1 << 22) | (1 << 12))
info = CreateInfo(1, None, 0x40000000 | (ENUMERATE_PORTABILITY if portable else 0),
                  ctypes.pointer(app), 0, None, int(portable),
                  ctypes.cast(names, ctypes.c_void_p) if portable else None)
instance = ctypes.c_void_p()
result = vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance))
if result == 0:
    vk.vkDestroyInstance(instance, None)
print("vkCreateInstance:", result)

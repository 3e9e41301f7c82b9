"""dmlc's runtime: the only package that talks to Vulkan (through Kompute, `kp`).

Everything above it (descriptors, IR, passes, codegen, toolchain) works and is tested without
Vulkan; this package turns a compiled program's launch plan (dmlc.plan, its one import from the
compiler besides dtypes and errors) into kp tensors, pipelines and sequences.
"""
from .buffers import from_words, to_words
from .device import Device, close_device, get_device, set_device
from .executable import Executable

__all__ = ["Device", "Executable", "close_device", "get_device", "set_device", "to_words",
           "from_words"]

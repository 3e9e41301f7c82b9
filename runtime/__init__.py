"""dmlc's runtime: the only package that talks to a GPU API, through one of two backends
(backend.py): Vulkan through Kompute (`kp`: device.py, executable.py, the default where it
runs) or WebGPU through wgpu-py (runtime/webgpu/).

Everything above it (descriptors, IR, passes, codegen, toolchain) works and is tested without
a device; this package turns a compiled program's launch plan (dmlc.plan, its one import from
the compiler besides dtypes and errors) into device buffers, pipelines and dispatches. The
names below are the current backend's.
"""
from .backend import (
    Executable,
    close_device,
    get_device,
    pool_info,
    set_backend,
    set_device,
    use_backend,
)
from .buffers import from_words, to_words
from .device import Device

__all__ = ["Device", "Executable", "close_device", "get_device", "set_device", "set_backend",
           "use_backend", "pool_info", "to_words", "from_words"]

"""Which runtime backend the device tests run on (DMLC_BACKEND: `make test` Vulkan, `make
test-webgpu` WebGPU), and `vulkan_only(reason)`: the mark of a test of the Vulkan backend
itself (kp, the Vulkan loader and its layers, SwiftShader's ICD), skipped under WebGPU with its
reason. Every other device test runs, bit for bit, on both."""
from __future__ import annotations

import functools
import os

import pytest


@functools.cache
def backend() -> str:
    """The backend the suite's device tests run on ("vulkan" or "webgpu")."""
    chosen = os.environ.get("DMLC_BACKEND", "").strip().lower()
    if chosen:
        return chosen
    from dmlc.runtime.backend import name
    return name()


def webgpu() -> bool:
    return backend() == "webgpu"


def vulkan_only(reason: str) -> pytest.MarkDecorator:
    """Skip under the WebGPU backend, saying why the test concerns Vulkan alone."""
    return pytest.mark.skipif(webgpu(), reason=f"Vulkan backend only: {reason}")

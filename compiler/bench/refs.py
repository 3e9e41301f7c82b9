"""The bench's references on each backend: the copy shader's code for both (GLSL and WGSL),
each backend's buffer copy, its bare dispatch of an empty shader, and what waits for its queue."""
from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources
from typing import Any

from .. import toolchain
from ..plan import LaunchPlan, PlanBuffer, PlanKernel

COPY_PER_INVOCATION = 4
EMPTY_SHADER = (f"{toolchain.GLSL_VERSION}\nlayout(local_size_x = 64) in;\n"
                "layout(std430, binding = 0) buffer B { uint data[]; } b;\nvoid main() {}\n")


class CopyCode:
    """The reference copy shader's code for each backend (dmlc.plan.KernelCode): GLSL
    (shaders/bench_copy.comp) compiled at the first ask, and its WGSL twin (bench_copy.wgsl)."""

    def __init__(self, vec4s: int) -> None:
        def text(name: str) -> str:
            return (resources.files("dmlc.shaders").joinpath(name).read_text()
                    .replace("@VEC4S@", str(vec4s)).replace("@PER@", str(COPY_PER_INVOCATION)))
        self.glsl, self._wgsl = text("bench_copy.comp"), text("bench_copy.wgsl")

    def spirv(self) -> bytes:
        return toolchain.compile_glsl(self.glsl)

    def wgsl(self) -> str:
        return self._wgsl

    def binding_types(self) -> tuple[str, ...]:
        return ("read-only-storage", "storage")


def copy_plan(words: int) -> LaunchPlan:
    """The reference copy shader over `words` 32-bit words (rounded up to whole uvec4s), as a
    launch plan of one kernel from buffer src to buffer dst."""
    vec4s = -(-words // 4)
    buffers = (PlanBuffer("src", "uint32", vec4s * 4, vec4s * 4, "input"),
               PlanBuffer("dst", "uint32", vec4s * 4, vec4s * 4, "output"))
    groups = -(-vec4s // (256 * COPY_PER_INVOCATION))
    kernel = PlanKernel("copy", CopyCode(vec4s), groups * 256, 256, ("src", "dst"))
    return LaunchPlan("copy", buffers, (kernel,), ("src",), "dst", (vec4s * 4,))


BUFFER_COPY = {"vulkan": "vkCmdCopyBuffer", "webgpu": "copyBufferToBuffer"}
"""Each backend's copy of one buffer to another, the bench's second reference (its key in a
report)."""


def backend_name() -> str:
    from ..runtime.backend import name
    return name()


def bare_dispatch(device: Any) -> Any:
    """The current backend's pre-recorded dispatch of an empty shader (timing.RecordedDispatch;
    on WebGPU encoded and submitted at each run, as WebGPU submits a command buffer once)."""
    from ..runtime.backend import timing
    if device.backend == "vulkan":
        return timing("vulkan").RecordedDispatch(device, toolchain.compile_glsl(EMPTY_SHADER))
    return timing("webgpu").RecordedDispatch(device)


def waiter(device: Any) -> Callable[[], None]:
    """What waits for the device's queue after a call (a call on device tensors returns once
    its work is submitted, on both backends)."""
    if device.backend == "vulkan":
        return device.wait
    from ..runtime.backend import timing
    return functools.partial(timing("webgpu").wait, device)


def echo_overhead(overhead: dict[str, Any], echo: Callable[[str], None]) -> None:
    """The call overhead's lines (and each call waited for: a call returns once submitted)."""
    what = ("a bare wgpu dispatch (pipeline and bind group made once, encoded and submitted)"
            if overhead.get("backend") == "webgpu" else "a bare pre-recorded kp dispatch")
    echo(f"\ncall overhead: a cached kernel on device tensors (out=) vs {what} of an empty "
         "shader")
    echo(f"  bare dispatch {overhead['bare_dispatch_us']:7.1f} us   kernel call "
         f"{overhead['kernel_call_us']:7.1f} us   ratio {overhead['ratio']:.2f} (goal <= 2) "
         + ("ok" if overhead["ratio"] <= 2 else "MISS"))
    if "bare_dispatch_wait_us" in overhead:
        echo(f"  each waited for: bare dispatch {overhead['bare_dispatch_wait_us']:7.1f} us   "
             f"kernel call {overhead['kernel_call_wait_us']:7.1f} us   ratio "
             f"{overhead['ratio_waited']:.2f}")

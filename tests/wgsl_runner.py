"""A test-only WebGPU dispatcher for dmlc's WGSL kernels (codegen/wgsl.py), through wgpu-py
(naga) on whatever adapter it finds (lavapipe here), and the IR interpreter run on the same
starting bytes.

It runs a CompiledProgram as its LaunchPlan says, with the WGSL of each kernel instead of its
SPIR-V: one wgpu buffer per plan buffer (per chunk of a chunked one), inputs holding the
arguments' bytes, scratch and status buffers zeros, every other byte (outputs, temps, the
padding of the last vector) 0xA5 (what `make test-poison` does to kp's buffers); each buffer
between guard regions of a known pattern when the program was compiled with guard words; the
push words in a uniform buffer bound after the storage buffers; each kernel's grid as the kp
runtime picks it (2-D within max_groups); the kernels in order, one compute pass each, in one
submission; every buffer read back. Nothing here is dmlc's runtime: it is the oracle a WebGPU
backend will be held to.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dmlc.artifact import CompiledProgram, results
from dmlc.codegen.wgsl import binding_types, render_wgsl
from dmlc.ir.interp import run_kernel

POISON = 0xA5
GUARD_WORD = 0x5EC7A5ED


def wgpu_problem() -> str | None:
    """Why WGSL cannot run here (wgpu missing, no adapter), or None."""
    try:
        import wgpu
    except ImportError as e:
        return f"wgpu-py is not installed ({e}): pip install wgpu"
    try:
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception as e:  # no adapter, no Vulkan driver
        return f"wgpu-py finds no adapter: {e}"
    if adapter is None:
        return "wgpu-py finds no adapter"
    return None


def dispatch_grid(invocations: int, local_size: int,
                  max_groups: tuple[int, int] = (65535, 65535)) -> tuple[int, int, int]:
    """runtime/device.py's dispatch_grid: a 2-D grid of at least `invocations` invocations
    (the kernels linearize the group id)."""
    groups = max(1, -(-invocations // local_size))
    gx = min(groups, max_groups[0])
    gy = -(-groups // gx)
    assert gy <= max_groups[1], (invocations, local_size, max_groups)
    return gx, gy, 1


@dataclass
class Timings:
    shader_modules: float = 0.0
    pipelines: float = 0.0
    run: float = 0.0
    kernels: int = 0


@dataclass
class Run:
    """One program run on WebGPU and by the interpreter, from the same bytes."""

    wgpu: dict[str, np.ndarray]
    """Every buffer's elements (raw bits) after the WGSL kernels."""
    interp: dict[str, np.ndarray]
    """The same after the IR interpreter (temp buffers left out)."""
    guards_intact: bool = True
    sources: list[str] = field(default_factory=list)

    def output(self, compiled: CompiledProgram) -> Any:
        """The call's result as CompiledKernel.__call__ returns it, from the WGSL run."""
        name = compiled.program.output
        t = compiled.output
        raw = self.wgpu[name][:t.element_count]
        return results(compiled.descriptor, raw.view(t.data_type.numpy).reshape(t.sizes).copy())


class WgslRunner:
    def __init__(self) -> None:
        import wgpu
        self.wgpu = wgpu
        self.adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        self.device = self.adapter.request_device_sync()
        self.timings = Timings()
        self._pipelines: dict[str, Any] = {}

    def pipeline(self, source: str, types: tuple[str, ...]) -> Any:
        """The compute pipeline of one WGSL kernel, with an explicit layout from
        binding_types (what a runtime would build; "auto" would derive the same)."""
        key = source
        if key not in self._pipelines:
            t0 = time.perf_counter()
            module = self.device.create_shader_module(code=source)
            t1 = time.perf_counter()
            layout = self.device.create_bind_group_layout(entries=[
                {"binding": i, "visibility": self.wgpu.ShaderStage.COMPUTE,
                 "buffer": {"type": t}} for i, t in enumerate(types)])
            pipeline_layout = self.device.create_pipeline_layout(bind_group_layouts=[layout])
            pipeline = self.device.create_compute_pipeline(
                layout=pipeline_layout, compute={"module": module, "entry_point": "main"})
            t2 = time.perf_counter()
            self.timings.shader_modules += t1 - t0
            self.timings.pipelines += t2 - t1
            self.timings.kernels += 1
            self._pipelines[key] = (pipeline, layout)
        return self._pipelines[key]

    def run(self, compiled: CompiledProgram, arrays: tuple[Any, ...] = (),
            initial: dict[str, np.ndarray] | None = None,
            max_groups: tuple[int, int] = (65535, 65535)) -> Run:
        """Run the compiled program's WGSL on `arrays` (the call's arguments; `initial`: the
        starting elements of other buffers, e.g. an in-place scatter's data)."""
        wgpu = self.wgpu
        program, plan, g = compiled.program, compiled.plan, compiled.guard_words
        binding_bytes = compiled.limits.maxStorageBufferRange
        given = dict(zip(program.inputs, compiled.arguments(arrays))) if arrays else {}
        given.update(initial or {})
        start: dict[str, np.ndarray] = {}  # each buffer's words, padded (what the device holds)
        interp: dict[str, np.ndarray] = {}
        for pb in plan.buffers:
            bits = program.buffer(pb.name).dtype.bits_dtype
            words = np.full(pb.words * 4, POISON, np.uint8)
            if pb.zeroed:
                words[:] = 0
            if pb.name in given:
                a = np.ascontiguousarray(given[pb.name]).reshape(-1).view(np.uint8)
                words[:min(a.size, words.size)] = a[:words.size]
            start[pb.name] = words
            elements = words.view(bits)[:pb.count].copy()
            if pb.name in given and pb.role == "input":
                whole = np.ascontiguousarray(given[pb.name]).reshape(-1).view(bits)
                elements = whole if program.buffer(pb.name).extent is None else whole[:pb.count]
            interp[pb.name] = elements
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        guard = np.full(g, GUARD_WORD, np.uint32).view(np.uint8)
        device_buffers: dict[str, list[Any]] = {}
        for pb in plan.buffers:
            parts, lo = [], 0
            for words in pb.chunks:
                data = start[pb.name][4 * lo:4 * (lo + words)]
                parts.append(self.device.create_buffer_with_data(
                    data=np.concatenate([guard, data, guard]).tobytes(), usage=usage))
                lo += words
            device_buffers[pb.name] = parts
        uniform = None
        if program.params:
            push = np.zeros(-(-len(compiled.push) // 4) * 4, np.uint32)
            push[:len(compiled.push)] = compiled.push  # the sizes, then divisors' magic words
            uniform = self.device.create_buffer_with_data(
                data=push.tobytes(), usage=wgpu.BufferUsage.UNIFORM)
        sources = []
        t0 = time.perf_counter()
        encoder = self.device.create_command_encoder()
        for k, pk in zip(program.kernels, plan.kernels):
            source = render_wgsl(k, program, g, binding_bytes)
            sources.append(source)
            types = binding_types(k, program, g, binding_bytes)
            pipeline, layout = self.pipeline(source, types)
            entries = [{"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                       for i, b in enumerate(b for name in pk.buffers
                                             for b in device_buffers[name])]
            if uniform is not None:
                entries.append({"binding": len(entries),
                                "resource": {"buffer": uniform, "offset": 0,
                                             "size": uniform.size}})
            assert len(entries) == len(types)
            most = self.device.limits["max-storage-buffers-per-shader-stage"]
            assert plan.bindings(pk) <= most, (f"{k.name} binds {plan.bindings(pk)} storage "
                                               f"buffers, the adapter offers {most}")
            bind_group = self.device.create_bind_group(layout=layout, entries=entries)
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, bind_group)
            compute.dispatch_workgroups(*dispatch_grid(pk.invocations, pk.local_size,
                                                       max_groups))
            compute.end()
        self.device.queue.submit([encoder.finish()])
        out: dict[str, np.ndarray] = {}
        intact = True
        for pb in plan.buffers:
            words = []
            for buf in device_buffers[pb.name]:
                raw = np.frombuffer(self.device.queue.read_buffer(buf), np.uint8)
                intact &= bool((raw[:4 * g] == guard).all() and (raw[raw.size - 4 * g:] ==
                                                                 guard).all())
                words.append(raw[4 * g:raw.size - 4 * g])
            bits = program.buffer(pb.name).dtype.bits_dtype
            out[pb.name] = np.concatenate(words).view(bits)[:pb.count]
        self.timings.run += time.perf_counter() - t0
        for k in program.kernels:
            run_kernel(k, interp, compiled.params)
        interp = {b.name: interp[b.name] for b in plan.buffers if b.role != "temp"}
        if program.buffer(program.output).extent is not None:
            # a generic output of whole vectors: past the result, the padding of the inputs'
            # last vectors (poisoned differently by the interpreter) was copied
            n = compiled.output.element_count
            out[program.output], interp[program.output] = (
                out[program.output][:n], interp[program.output][:n])
        return Run(out, interp, intact, sources)

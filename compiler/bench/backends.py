"""`dmlc bench --backend both`: every case's kernels on the Vulkan and the WebGPU backends side by
side, interleaved in one run on the same device, each also against its own backend's copy
shader; then each backend's call overhead against its own bare dispatch.

The WebGPU backend's goal: every case at least SPEED_GOAL of the Vulkan backend's speed
(Vulkan's time / WebGPU's time), device time of one call's kernels on device tensors (Vulkan
timestamps on both: kp's, and the WebGPU command encoder's).
"""
from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..compiled import compile as compile_desc
from ..target import resolve as resolve_target
from .cases import BenchCase, suite
from .refs import copy_plan, echo_overhead

SPEED_GOAL = 0.8
BACKENDS = ("vulkan", "webgpu")


def _bound(case: BenchCase, inputs: Sequence[np.ndarray], backend: str) -> dict[str, Any]:
    """The case's kernel and a copy shader of the same bytes, bound on `backend`'s device."""
    from ..runtime import Executable, get_device
    from ..runtime.backend import timing, use_backend
    from ..runtime.tensor import empty, to_device
    from . import bytes_moved
    with use_backend(backend):
        kernel = compile_desc(case.descriptor, dynamic=False)
        device = get_device()
        plan = copy_plan(-(-bytes_moved(kernel.descriptor) // 8))
        return {"exe": kernel.executable(device), "timing": timing(backend),
                "inputs": [to_device(a) for a in inputs],
                "out": empty(kernel.output.sizes, kernel.output.data_type.numpy, zeroed=False),
                "copy": Executable(device, plan),
                "src": to_device(np.zeros(plan.buffers[0].count, np.uint32)),
                "dst": empty((plan.buffers[1].count,), np.uint32, zeroed=False),
                "device": device.name, "bytes": bytes_moved(kernel.descriptor)}


def compare_case(case: BenchCase, repeats: int, rng: np.random.Generator) -> dict[str, Any]:
    """One case on both backends, interleaved: each backend's kernels and copy shader, the
    median device time of each after two warm-up rounds, and Vulkan's time / WebGPU's."""
    inputs = case.make_inputs(rng)
    on = {b: _bound(case, inputs, b) for b in BACKENDS}
    times: dict[str, list[float]] = {f"{b}_{w}": [] for b in BACKENDS for w in ("dmlc", "copy")}
    for i in range(repeats + 2):
        for b, s in on.items():
            t_op = s["timing"].time_kernels(s["exe"], s["inputs"], s["out"])
            t_copy = s["timing"].time_kernels(s["copy"], [s["src"]], s["dst"])
            if i >= 2:
                times[f"{b}_dmlc"].append(t_op)
                times[f"{b}_copy"].append(t_copy)
    ms = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    moved = on["vulkan"]["bytes"]
    return {"case": case.name, "bytes": moved, "ms": ms,
            "GB/s": {k: moved / (v * 1e-3) / 1e9 for k, v in ms.items()},
            "webgpu_vs_vulkan": ms["vulkan_dmlc"] / ms["webgpu_dmlc"],
            "vs_copy_shader": {b: ms[f"{b}_copy"] / ms[f"{b}_dmlc"] for b in BACKENDS},
            "goal": SPEED_GOAL, "device": on["vulkan"]["device"]}


def compare(quick: bool, repeats: int, echo: Callable[[str], None],
            only: list[str] | None, json_path: str | None = None) -> dict[str, Any]:
    """The suite on both backends (docs/platforms.md), then each one's call overhead."""
    from ..runtime import get_device
    from ..runtime.backend import use_backend
    from . import QUICK_NOTE, call_overhead, judged
    rng = np.random.default_rng(0)
    cases = [c for c in suite(quick) if not only or any(text in c.name for text in only)]
    with use_backend("vulkan"):
        device = get_device().name
    echo(f"device: {device}, both backends, target {resolve_target(None)}   "
         f"({'quick' if quick else 'full'} suite, median of {repeats} after 2 warm-up runs; "
         "GB/s = bytes read + written; speed: Vulkan's time / WebGPU's, goal >= "
         f"{SPEED_GOAL})")
    head = (f"{'case':44} {'MB':>6} {'vulkan':>7} {'webgpu':>7} {'speed':>6} "
            f"{'vk/copy':>7} {'wg/copy':>7} {'goal':>6}")
    echo(head)
    echo("-" * len(head))
    results = []
    for case in cases:
        r = compare_case(case, repeats, rng)
        g, mark = r["GB/s"], judged(r["webgpu_vs_vulkan"] >= SPEED_GOAL, quick)
        echo(f"{case.name:44} {r['bytes'] / 1e6:6.1f} {g['vulkan_dmlc']:7.2f} "
             f"{g['webgpu_dmlc']:7.2f} {r['webgpu_vs_vulkan']:6.2f} "
             f"{r['vs_copy_shader']['vulkan']:7.2f} {r['vs_copy_shader']['webgpu']:7.2f} "
             f"{SPEED_GOAL:>4.1f} {mark}")
        results.append(r)
    if quick:
        echo(QUICK_NOTE)
    report: dict[str, Any] = {"device": device, "backend": "both", "quick": quick,
                              "target": resolve_target(None), "repeats": repeats,
                              "cases": results}
    if not only:
        report["call_overhead"] = {}
        for b in BACKENDS:
            with use_backend(b):
                overhead = report["call_overhead"][b] = call_overhead(
                    calls=500 if quick else 2000)
            echo(f"\n[{b}]")
            echo_overhead(overhead, echo)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(report, f, indent=2)
    return report

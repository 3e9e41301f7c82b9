"""`dmlc bench`: each operator's device bandwidth against copies of the same bytes, in one run.

Every case is timed on the device (Vulkan timestamps where available), median of the repeats
after warm-up, interleaved with three references moving the same number of bytes: the best copy
shader (shaders/bench_copy.comp), vkCmdCopyBuffer (kp's OpTensorCopy) and numpy doing the
operation on the CPU. Bytes count reads plus writes; ratios are what to trust on a shared,
noisy machine. A case whose operator has a generic kernel (sizes as push constants,
docs/generic-kernels.md) times that kernel too, interleaved: its bandwidth as a ratio to the
specialized kernel's (goal >= GENERIC_GOAL). Compile latency per operator is measured cold (no
caches), with the SPIR-V disk cache only, and warm (compiled before in this process).
"""
from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiled import clear_caches, compile_program
from ..compiled import compile as compile_desc
from ..family.registry import OperatorDesc
from ..ops.gather.desc import GatherDesc
from ..ops.scatter.desc import ScatterDesc
from ..target import resolve as resolve_target
from .cases import BenchCase, suite
from .cases.common import bits, tensor
from .refs import (
    BUFFER_COPY,
    backend_name,
    bare_dispatch,
    copy_plan,
    echo_overhead,
    waiter,
)
from .refs import (
    COPY_PER_INVOCATION as COPY_PER_INVOCATION,
)
from .refs import (
    EMPTY_SHADER as EMPTY_SHADER,
)

COLD_TARGET_MS, WARM_TARGET_MS = 100.0, 1.0
GENERIC_GOAL = 0.85
"""The least a generic kernel's bandwidth may be against its specialized twin's."""
QUICK_NOTE = ("--quick: sizes divided by 4 per dimension are too small to judge against the "
              "targets, which are set for the full sizes (no ok/MISS; run without --quick)")


def judged(met: bool, quick: bool) -> str:
    """The mark of a size-dependent target: "ok" or "MISS", or "-" for the quick suite's small
    sizes, which cannot be judged against targets set for the full ones."""
    return "-" if quick else "ok" if met else "MISS"


def bytes_moved(desc: OperatorDesc) -> int:
    """Bytes an ideal implementation reads plus writes: the output's twice (read once from
    wherever, written once), and any index and update tensors read once."""
    out = desc.output
    assert out is not None
    extra = [t for t in (getattr(desc, "indices", None), getattr(desc, "updates", None)) if t]
    return 2 * out.element_count * out.data_type.itemsize + sum(
        t.element_count * t.data_type.itemsize for t in extra)


def _median_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1e3


def generic_twin(desc: OperatorDesc) -> Any:
    """The generic kernel of the descriptor (dynamic=True: every dimension its family lets
    vary dynamic, those of size 1 static where the sizes need the range that leaves: see
    dmlc/dynamic.py), or None where it has none: the specialized kernel's twin in the bench."""
    kernel = compile_desc(desc, dynamic=True)
    return kernel if kernel.compiled.params else None


def run_case(case: BenchCase, repeats: int, rng: np.random.Generator) -> dict[str, Any]:
    from ..runtime import Executable, get_device
    from ..runtime.backend import timing as timing_of
    from ..runtime.tensor import empty, to_device
    timing, vk = timing_of(), BUFFER_COPY[backend_name()]
    kernel = compile_desc(case.descriptor, dynamic=False)
    twin = generic_twin(case.descriptor)
    inputs = case.make_inputs(rng)
    exe = kernel.executable()
    on_device = [to_device(a) for a in inputs]
    out = empty(kernel.output.sizes, kernel.output.data_type.numpy, zeroed=False)
    moved = bytes_moved(kernel.descriptor)
    plan = copy_plan(-(-moved // 8))
    copy = Executable(get_device(), plan)
    src = to_device(np.zeros(plan.buffers[0].count, np.uint32))
    dst = empty((plan.buffers[1].count,), np.uint32, zeroed=False)
    times: dict[str, list[float]] = {"dmlc": [], "copy_shader": [], vk: [], "numpy": []}
    twin_times: list[float] = []
    for i in range(repeats + 2):  # two warm-up rounds, interleaved like the measured ones
        t0 = time.perf_counter()
        case.numpy_fn(*inputs)
        t_np = time.perf_counter() - t0
        # untimed, so that the kernel and its twin both run after one on the same buffers: the
        # first of them after other work ran slow (a scatter's twin timed first: 0.74 of the
        # specialized kernel, timed second 1.14; 0.91-0.92 either way after this run)
        timing.time_kernels(exe, on_device, out)
        if twin is not None:
            t_twin = timing.time_kernels(twin.executable(), on_device, out)
            if i >= 2:
                twin_times.append(t_twin)
        t_op = timing.time_kernels(exe, on_device, out)
        t_copy = timing.time_kernels(copy, [src], dst)
        t_vk = timing.time_buffer_copy(copy.device, src, dst)
        if i >= 2:
            for key, t in zip(times, (t_op, t_copy, t_vk, t_np)):
                times[key].append(t)
    med = {k: _median_ms(v) for k, v in times.items()}
    gbs = {k: moved / (v * 1e-3) / 1e9 for k, v in med.items()}
    generic = None
    if twin is not None:
        ms = _median_ms(twin_times)
        generic = {"ms": ms, "GB/s": moved / (ms * 1e-3) / 1e9,
                   "vs_specialized": med["dmlc"] / ms, "goal": GENERIC_GOAL}
    return {"case": case.name, "bytes": moved, "ms": med, "GB/s": gbs,
            "vs_copy_shader": gbs["dmlc"] / gbs["copy_shader"],
            f"vs_{vk}": gbs["dmlc"] / gbs[vk],
            "vs_numpy": gbs["dmlc"] / gbs["numpy"], "goal": case.goal,
            "kernels": len(kernel.stages), "generic": generic}


WARM_CALLS = 20
"""Cache hits a warm figure is the median of: a hot path's steady cost. The first few hits after
a compile cost more (up to 0.3 ms: CPython's adaptive interpreter has run validation's code
once or twice), reported as warm_first_ms."""


def compile_latency(cases: list[BenchCase], repeats: int) -> list[dict[str, Any]]:
    """Per case, compile() three ways: cold (no cache at all: lowering, passes, codegen and
    glslang), disk (a new process's case: the SPIR-V cache hits, everything before glslang
    runs) and warm (the descriptor was compiled before in this process: the median of
    WARM_CALLS hits in a row, and the first of them as warm_first). The cold compile is
    compile()'s uncached build with the SPIR-V cache skipped for it alone."""
    rows = []
    for case in cases:
        op = case.descriptor.operator
        times: dict[str, list[float]] = {"cold": [], "disk": [], "warm": [], "warm_first": []}
        for _ in range(repeats):
            for kind in ("cold", "disk"):
                clear_caches()
                t0 = time.perf_counter()
                if kind == "cold":
                    compile_program(case.descriptor, spirv_cache=False)
                else:
                    compile_desc(case.descriptor)
                times[kind].append(time.perf_counter() - t0)
            hits = []
            for _ in range(WARM_CALLS):
                t0 = time.perf_counter()
                compile_desc(case.descriptor)
                hits.append(time.perf_counter() - t0)
            times["warm"].append(statistics.median(hits))
            times["warm_first"].append(hits[0])
        rows.append({"case": case.name, "operator": op,
                     **{f"{k}_ms": _median_ms(v) for k, v in times.items()}})
    return rows


def call_overhead(calls: int = 2000, rounds: int = 5) -> dict[str, float]:
    """Host cost of calling a cached kernel on device tensors (out= given), against a bare
    pre-recorded kp dispatch of an empty shader, interleaved; each the best round's mean."""
    from ..runtime import get_device
    from ..runtime.tensor import empty, to_device
    device = get_device()
    bare, wait = bare_dispatch(device), waiter(device)
    x, i = np.arange(8, dtype=np.float32).reshape(4, 2), np.array([[3, 1, 0, 2]], np.int32)
    kernel = compile_desc(GatherDesc(input=tensor("float32", x.shape),
                                     indices=tensor("int32", i.shape), axis=0, index_dimensions=1))
    xd, idd, out = to_device(x), to_device(i), empty((4, 2), np.float32)

    def per_call(fn: Callable[[], Any]) -> float:
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) / calls

    def waited(fn: Callable[[], Any]) -> Callable[[], Any]:
        return lambda: (fn(), wait())

    ways: dict[str, Callable[[], Any]] = {"bare": bare.run,
                                          "kernel": lambda: kernel(xd, idd, out=out)}
    # a call returns once submitted (the next one waits for it): also each waited for
    ways.update(bare_wait=waited(bare.run), kernel_wait=waited(ways["kernel"]))
    samples: dict[str, list[float]] = {k: [] for k in ways}
    for _ in range(rounds + 1):  # the first round warms up
        for name, fn in ways.items():
            samples[name].append(per_call(fn))
    us = {k: min(v[1:]) * 1e6 for k, v in samples.items()}
    return {"backend": device.backend, "bare_dispatch_us": us["bare"],
            "kernel_call_us": us["kernel"], "ratio": us["kernel"] / us["bare"], "goal": 2.0,
            "bare_dispatch_wait_us": us["bare_wait"], "kernel_call_wait_us": us["kernel_wait"],
            "ratio_waited": us["kernel_wait"] / us["bare_wait"]}


IN_PLACE_TARGET = 0.25


def in_place_update(quick: bool = False, repeats: int = 7, calls: int = 20) -> dict[str, Any]:
    """A KV cache's per-token update: one row of an [8192, 1024] float16 cache ([2048, 1024]
    with --quick) scattered in place (out= the cache) against the copying form (out= another
    tensor) and a bare pre-recorded dispatch of an empty shader; wall time per call on device
    tensors, what an engine pays, interleaved, median of the repeats' means."""
    from ..runtime import get_device
    from ..runtime.tensor import empty, to_device
    rows, width = (2048 if quick else 8192), 1024
    rng = np.random.default_rng(0)
    cache = to_device(bits(rng, (rows, width), "float16"))
    idx = to_device(np.full((1, width), rows // 2, np.int32))
    row = to_device(bits(rng, (1, width), "float16"))
    other = empty((rows, width), np.float16, zeroed=False)
    kernel = compile_desc(ScatterDesc(input=tensor("FLOAT16", (rows, width)),
                                      indices=tensor("INT32", (1, width)),
                                      updates=tensor("FLOAT16", (1, width)), axis=0))
    device = get_device()
    bare, wait = bare_dispatch(device), waiter(device)
    ways: dict[str, Callable[[], Any]] = {  # each call waited for
        "in_place": lambda: (kernel(cache, idx, row, out=cache), wait()),
        "copying": lambda: (kernel(cache, idx, row, out=other), wait()),
        "empty_dispatch": lambda: (bare.run(), wait())}
    samples: dict[str, list[float]] = {k: [] for k in ways}
    for r in range(repeats + 1):  # the first round warms up
        for name, fn in ways.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            if r:
                samples[name].append((time.perf_counter() - t0) / calls)
    ms = {k: _median_ms(v) for k, v in samples.items()}
    return {"case": f"scatter one row into f16 [{rows},{width}]", "ms": ms,
            "in_place_vs_copying": ms["in_place"] / ms["copying"],
            "in_place_vs_empty_dispatch": ms["in_place"] / ms["empty_dispatch"],
            "goal": IN_PLACE_TARGET}


def run(quick: bool = False, repeats: int = 7, json_path: str | None = None,
        echo: Callable[[str], None] = print, only: list[str] | None = None,
        backend: str | None = None) -> dict[str, Any]:
    """The bench on `backend` ("vulkan", "webgpu"; default: the current one; both side by
    side: bench/backends.py)."""
    from ..runtime.backend import use_backend
    if backend is not None:
        with use_backend(backend):
            return run(quick, repeats, json_path, echo, only)
    report = _run(quick, repeats, echo, only)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(report, f, indent=2)
    return report


def _run(quick: bool, repeats: int, echo: Callable[[str], None],
         only: list[str] | None) -> dict[str, Any]:
    from ..runtime import get_device
    rng = np.random.default_rng(0)
    cases = [c for c in suite(quick) if not only or any(text in c.name for text in only)]
    vk, short = BUFFER_COPY[backend_name()], {"vulkan": "vkCopy", "webgpu": "bufCopy"}[
        backend_name()]
    echo(f"device: {get_device().name} ({backend_name()} backend), target "
         f"{resolve_target(None)}   ({'quick' if quick else 'full'} suite, median of {repeats} "
         f"after 2 warm-up runs; GB/s = bytes read + written; {short}: {vk})")
    head = (f"{'case':44} {'MB':>6} {'dmlc':>7} {'copy':>7} {short:>7} {'numpy':>7} "
            f"{'/copy':>6} {'/' + short:>7} {'/numpy':>6} {'goal':>6}")
    echo(head)
    echo("-" * len(head))
    results = []
    for case in cases:
        r = run_case(case, repeats, rng)
        g = r["GB/s"]
        mark = judged(r["vs_copy_shader"] >= case.goal, quick)
        echo(f"{case.name:44} {r['bytes'] / 1e6:6.1f} {g['dmlc']:7.2f} {g['copy_shader']:7.2f} "
             f"{g[vk]:7.2f} {g['numpy']:7.2f} {r['vs_copy_shader']:6.2f} "
             f"{r['vs_' + vk]:7.2f} {r['vs_numpy']:6.2f} {case.goal:>4.1f} {mark}")
        twin = r["generic"]
        if twin is not None:
            echo(f"  {'its generic kernel':42} {'':6} {twin['GB/s']:7.2f}   "
                 f"{twin['vs_specialized']:.2f} of the specialized kernel (goal >= "
                 f"{GENERIC_GOAL}) {judged(twin['vs_specialized'] >= GENERIC_GOAL, quick)}")
        results.append(r)
    if quick:
        echo(QUICK_NOTE)
    report = {"device": get_device().name, "backend": backend_name(), "buffer_copy": vk,
              "target": resolve_target(None), "quick": quick, "repeats": repeats,
              "cases": results}
    if not only:
        report.update(_latency_and_overhead(cases, quick, echo))
    return report


def _latency_and_overhead(cases: list[BenchCase], quick: bool,
                          echo: Callable[[str], None]) -> dict[str, Any]:
    latency = compile_latency(cases, repeats=5)
    echo("\ncompile latency (median of 5): cold (no cache), disk (SPIR-V cache hit, IR rebuilt: "
         f"a new process), warm (compiled before in this process: the median of {WARM_CALLS} "
         f"hits in a row); targets: cold <= "
         f"{COLD_TARGET_MS:.0f} ms, warm <= {WARM_TARGET_MS:.0f} ms"
         + ("; on WebGPU no SPIR-V is made: cold and disk both render WGSL, uncached"
            if backend_name() == "webgpu" else ""))
    for row in latency:
        fast = row["cold_ms"] <= COLD_TARGET_MS and row["warm_ms"] <= WARM_TARGET_MS
        mark = "ok" if fast else "MISS"
        echo(f"  {row['case']:44} cold {row['cold_ms']:6.1f} ms   disk {row['disk_ms']:5.2f} ms"
             f"   warm {row['warm_ms']:6.3f} ms  {mark}")
    update = in_place_update(quick)
    ms = update["ms"]
    echo("\nin-place update: a KV cache's one-row scatter, out= the cache vs out= another tensor "
         "(wall time per call on device tensors)")
    echo(f"  {update['case']:44} in place {ms['in_place']:7.3f} ms   copying "
         f"{ms['copying']:7.3f} ms   empty dispatch {ms['empty_dispatch']:6.3f} ms   "
         f"ratio {update['in_place_vs_copying']:.3f} (goal <= {IN_PLACE_TARGET}) "
         + judged(update["in_place_vs_copying"] <= IN_PLACE_TARGET, quick))
    overhead = call_overhead(calls=500 if quick else 2000)
    echo_overhead(overhead, echo)
    return {"compile_latency": latency, "in_place_update": update, "call_overhead": overhead}


"""A decode loop of generic kernels (issue 25 part 3): per step, a gather of a varying number of
token ids from an embedding table, an in-place one-row KV scatter_nd into a cache, and a copy of
the growing window cache[:, :, :t]. Reports the compiles per operator and the per-step host time
after warm-up, with the automatic policy and with dynamic=False (DMLC_DYNAMIC=never).

    .venv/bin/python tools/decode_loop.py [--steps 200] [--dtype float16] [--json] [--breakdown]

Each step is also measured against its floor, in the same run: as many bare pre-recorded
dispatches of an empty shader as the step dispatched kernels (the bench's call-overhead
reference), timed right after it. The ratio of the two says what dmlc adds to the device's own
cost per dispatch, which the machine's speed of the hour moves far less than the milliseconds
(lavapipe's bare dispatch took 24 us on one day and 85 us on another on these machines).
The report also makes each step's calls again right after it, at the sizes they just met, and
gives step / repeated step: what meeting a new size costs over the same work at a size seen
before (issue 35's question), measured in the same hour as the step itself.

--breakdown says where a step's host time goes (issue 35): per step, the time spent in each
one-shot call and, across them, in the device's sequences (kp's eval: the submissions and the
waits for them), in the compile cache's lookup, in validation and in the compile options; the
rest of a call is the Python between them.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

WARM_UP = 20
"""Steps before the objects the device makes are counted (issue 35's measure)."""


def run(steps: int, mode: str, seed: int = 0, dtype: str = "float32",
        repeat: bool = False) -> dict[str, object]:
    """The loop under DMLC_DYNAMIC=mode, checked against numpy at every step; repeat: each
    step's calls made again right after it, at the sizes they just met, and timed too."""
    before = os.environ.get("DMLC_DYNAMIC")
    os.environ["DMLC_DYNAMIC"] = mode
    try:
        return _loop(steps, mode, seed, np.dtype(dtype), repeat)
    finally:
        if before is None:
            os.environ.pop("DMLC_DYNAMIC", None)
        else:
            os.environ["DMLC_DYNAMIC"] = before


def _loop(steps: int, mode: str, seed: int, dtype: np.dtype,
          repeat: bool = False) -> dict[str, object]:
    import dmlc
    dmlc.clear_cache()
    rng = np.random.default_rng(seed)
    vocab, width, heads, window = 512, 64, 4, steps
    table = dmlc.to_device(rng.standard_normal((vocab, width)).astype(dtype))
    host_cache = np.zeros((heads, width, window), dtype)
    cache = dmlc.to_device(host_cache)
    times, floors, dispatched, again, warm_objects = [], [], [], [], None

    def calls(t: int, ids: np.ndarray, row: np.ndarray) -> tuple[Any, Any]:
        emb = dmlc.gather(table, ids, axis=0)                     # [n, width], n varies
        where = np.array([[[t - 1]]], np.int64)                   # the step's column of the cache
        # cache[:, :, t-1] = row, in place: a scatter_nd over the last axis (transposed view)
        dmlc.scatter_nd(cache.reshape(heads * width, window).T,
                        where.reshape(1, 1), row.reshape(1, heads * width),
                        out=cache.reshape(heads * width, window).T)
        window_copy = dmlc.copy(cache[:, :, :t])                  # [heads, width, t], t grows
        dmlc.synchronize()  # the step's work done (a call returns once it is submitted)
        return emb, window_copy
    with Floor() as floor:  # the counting wrapper is removed however the loop ends
        for t in range(1, steps + 1):
            if t == WARM_UP + 1:
                warm_objects = dict(dmlc.cache_info()["objects"])
            floor.dispatches = 0
            start = time.perf_counter()
            ids = rng.integers(0, vocab, (1, 1 + t % 7)).astype(np.int32)
            row = rng.standard_normal((heads, width, 1)).astype(dtype)
            emb, window_copy = calls(t, ids, row)
            times.append(time.perf_counter() - start)
            dispatched.append(floor.dispatches)
            floors.append(floor.time(floor.dispatches))
            if repeat:  # the same calls at the sizes they just met (the same results)
                start = time.perf_counter()
                emb, window_copy = calls(t, ids, row)
                again.append(time.perf_counter() - start)
            host_cache[:, :, t - 1] = row[:, :, 0]
            assert np.array_equal(emb.numpy() if hasattr(emb, "numpy") else emb,
                                  table.numpy()[ids[0]])
            assert np.array_equal(window_copy.numpy(), host_cache[:, :, :t]), t
    info = dmlc.cache_info()
    warm, warm_floors, warm_dispatches, warm_again = (
        times[10:], floors[10:], dispatched[10:], again[10:])
    made = {k: n - warm_objects.get(k, 0) for k, n in info["objects"].items()
            if n != warm_objects.get(k, 0)} if warm_objects is not None else None
    live = (table, cache, emb, window_copy)  # what the loop holds at its end
    return {"mode": mode, "dtype": dtype.name, "steps": steps, "compiles": info["compiles"],
            "pool": info["buffers"], "live_tensor_bytes": sum(t.nbytes for t in live),
            "generic": info["generic"], "objects_made_after_warm_up": made,
            "host_ms_per_step": {"median": 1e3 * float(np.median(warm)),
                                 "mean": 1e3 * float(np.mean(warm))},
            "dispatches_per_step": {"min": min(warm_dispatches), "max": max(warm_dispatches)},
            "floor_ms_per_step": 1e3 * float(np.median(warm_floors)),
            "step_over_floor": float(np.median(np.array(warm) / np.array(warm_floors))),
            **({"repeated_ms_per_step": 1e3 * float(np.median(warm_again)),
                "step_over_repeated": float(np.median(np.array(warm) / np.array(warm_again)))}
               if repeat else {})}


class Floor:
    """A step's floor: a bare pre-recorded dispatch of an empty shader (the bench's
    call-overhead reference, compiler/bench/refs.py) evaluated as many times as the step
    dispatched kernels, counted while the block runs by wrapping the executables' binding of
    their buffers (each binding runs every kernel of its plan once)."""

    def __init__(self) -> None:
        from dmlc.bench.refs import bare_dispatch, waiter
        from dmlc.runtime import get_device
        device = get_device()
        self._bare, self._wait = bare_dispatch(device), waiter(device)
        self.dispatches = 0

    def __enter__(self) -> Floor:
        from dmlc.runtime.plan_buffers import PlanBuffers
        self._raw = vars(PlanBuffers)["bound"]

        def bound(exe: PlanBuffers, *a: object, **k: object) -> object:
            self.dispatches += len(exe.plan.kernels)
            return self._raw(exe, *a, **k)
        PlanBuffers.bound = bound
        return self

    def time(self, dispatches: int) -> float:
        """Seconds that many bare dispatches take, each waited for."""
        start = time.perf_counter()
        for _ in range(dispatches):
            self._bare.run()
            self._wait()
        return time.perf_counter() - start

    def __exit__(self, *exc: object) -> None:
        from dmlc.runtime.plan_buffers import PlanBuffers
        PlanBuffers.bound = self._raw


DEVICE_LAYER = {"vulkan": "device sequences (kp eval)",
                "webgpu": "device call (WebGPU: bind, submit, wait)"}
"""The layer that holds the device's work, per backend."""


@contextlib.contextmanager
def timed_layers() -> Iterator[dict[str, float]]:
    """Seconds spent in each layer of a call while the block runs (by wrapping the functions
    that begin them; each wrapper adds ~1 us)."""
    import dmlc
    from dmlc import compiled
    from dmlc.runtime import backend
    spent: dict[str, float] = collections.defaultdict(float)
    if backend.name() == "vulkan":
        from dmlc.runtime import executable
        device = [(executable.Binding, "run", DEVICE_LAYER["vulkan"]),
                  (executable.Binding, "rebind", "binding again (kp rebind, recording)")]
    else:  # WebGPU's executable binds, submits and waits in one call
        from dmlc.runtime.webgpu import executable as webgpu
        device = [(webgpu.Executable, "run_device", DEVICE_LAYER["webgpu"])]
    layers = [(dmlc, name, f"dmlc.{name}") for name in ("gather", "scatter_nd", "copy")] + [
        *device,
        (compiled.KernelCache, "get", "compile cache lookup"),
        (compiled, "validate", "validation"),
        (compiled.CompileOptions, "resolve", "compile options")]
    saved = [(owner, name, vars(owner)[name]) for owner, name, _ in layers]
    for owner, name, label in layers:
        def timed(*a: object, __f: object = getattr(owner, name), __label: str = label,
                  **k: object) -> object:
            start = time.perf_counter()
            try:
                return __f(*a, **k)  # type: ignore[operator]
            finally:
                spent[__label] += time.perf_counter() - start
        static = isinstance(vars(owner)[name], staticmethod)
        setattr(owner, name, staticmethod(timed) if static else timed)
    try:
        yield spent
    finally:
        for owner, name, raw in saved:
            setattr(owner, name, raw)


def breakdown(steps: int, dtype: str) -> None:
    """Run the loop under the automatic policy, once to warm up and once timed by layer."""
    run(steps, "auto", dtype=dtype)
    with timed_layers() as spent:
        result = run(steps, "auto", dtype=dtype)
    host = result["host_ms_per_step"]
    assert isinstance(host, dict)
    print(f"median step {host['median']:.2f} ms (mean {host['mean']:.2f}), {dtype}, "
          f"{result['step_over_floor']:.1f}x its floor of bare dispatches "
          f"({result['floor_ms_per_step']:.2f} ms); per step, mean over all steps (layers "
          "overlap: the calls contain the rest):")
    width = max(map(len, spent))
    for label, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"    {label:{width}} {1e3 * seconds / steps:.3f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--dtype", default="float32",
                    help="the table's and the cache's (float16: a KV cache as engines keep it)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--breakdown", action="store_true",
                    help="where a step's host time goes, by layer (the automatic policy)")
    args = ap.parse_args()
    if args.breakdown:
        breakdown(args.steps, args.dtype)
        return
    results = [run(args.steps, mode, dtype=args.dtype, repeat=mode == "auto")
               for mode in ("auto", "never")]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for r in results:
        host = r["host_ms_per_step"]
        assert isinstance(host, dict)
        print(f"DMLC_DYNAMIC={r['mode']:6} {r['dtype']} steps={r['steps']} "
              f"compiles={r['compiles']}")
        print(f"    per-step host time after 10 warm-up steps: median {host['median']:.2f} ms, "
              f"mean {host['mean']:.2f} ms; generic kernels: {r['generic']}")
        d = r["dispatches_per_step"]
        assert isinstance(d, dict)
        print(f"    floor (the step's {d['min']}-{d['max']} dispatches, bare and pre-recorded, "
              f"timed after each step): median {r['floor_ms_per_step']:.2f} ms; step / floor: "
              f"median {r['step_over_floor']:.1f}x")
        if "repeated_ms_per_step" in r:  # (not in never: each repeat would bind anew)
            print(f"    the same calls again right after each step, at the sizes they just met: "
                  f"median {r['repeated_ms_per_step']:.2f} ms; step / repeated step: median "
                  f"{r['step_over_repeated']:.2f}x (what meeting new sizes costs)")
        print(f"    device objects made after {WARM_UP} warm-up steps "
              f"(dmlc.cache_info()['objects']): {r['objects_made_after_warm_up']}")
        pool = r["pool"]
        assert isinstance(pool, dict)
        if "arena_bytes" in pool:
            print(f"    pool at the end: {pool['arenas']} arena(s), {pool['arena_bytes']} bytes "
                  f"(device and staging) for {pool['live_bytes']} live; the loop's tensors: "
                  f"{r['live_tensor_bytes']} bytes")


if __name__ == "__main__":
    main()

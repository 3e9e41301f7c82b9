"""What the process holds, for the memory tests (test_leaks, test_memory_flat)."""
from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable
from typing import Any

RSS_SLACK = 3 * 2**20  # allocator noise; a leak of 300 bytes per call of 10,000 exceeds it


def resident_bytes() -> int:
    """The process's anonymous resident memory (RssAnon: its heaps, where a leak grows).
    Resident file pages (lavapipe's LLVM, numpy's libraries) are left out: they come and go
    with other processes' demands on the page cache, which made a window of a busy machine
    "grow" by 5-13 MB with nothing leaked."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("/proc/self/status has no RssAnon line")


def under_validation_layer() -> bool:
    """Whether tools/validation.sh runs this process: the layer shares the process's heap and
    keeps records of its own per queue submission (in CI's runs, 600-900 bytes per call, in
    every window), so there resident memory measures the layer, not dmlc."""
    return bool(os.environ.get("DMLC_VALIDATION_DIR"))


class _Held:
    """Bytes the process holds: resident memory, or under the validation layer the Python heap
    (tracemalloc: every object dmlc keeps is a Python object or a Vulkan object, counted apart;
    `make test` measures resident memory on the same calls without the layer)."""

    def __init__(self) -> None:
        self.python = under_validation_layer()
        if self.python:
            tracemalloc.start()

    def now(self) -> int:
        return tracemalloc.get_traced_memory()[0] if self.python else resident_bytes()

    def close(self) -> None:
        if self.python:
            tracemalloc.stop()


def steady_state(device: Any, call: Callable[[], Any], calls: int, windows: int = 3) -> Any:
    """Run `call` in windows of `calls` calls until one creates no Vulkan object (as counted in
    device.created) and grows the bytes held (_Held) by less than RSS_SLACK; fail after
    `windows`. A leak grows in every window. Once, something else may: the allocator taking an
    arena, or a buffer another test gave back late taking a binding's place in the pool (one
    new binding: a kp algorithm and its sequence). Returns the last result."""
    seen = []  # (Vulkan objects created, bytes held grown) per window
    held = _Held()
    try:
        for _ in range(windows):
            gc.collect()
            created, before = dict(device.created), held.now()
            for _ in range(calls):
                last = call()
            gc.collect()
            made = {k: n - created.get(k, 0) for k, n in device.created.items()
                    if n != created.get(k, 0)}
            seen.append((made, held.now() - before))
            if not made and seen[-1][1] < RSS_SLACK:
                return last
    finally:
        held.close()
    what = "the Python heap" if held.python else "resident memory"
    raise AssertionError(f"not flat in any of {windows} windows of {calls} calls (Vulkan "
                         f"objects made, bytes of {what} grown): {seen}")

"""What the process holds, for the memory tests (test_leaks, test_memory_flat)."""
from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

RSS_SLACK = 3 * 2**20  # allocator noise; a leak of 300 bytes per call of 10,000 exceeds it


def resident_bytes() -> int:
    """The process's resident set size."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def steady_state(device: Any, call: Callable[[], Any], calls: int, windows: int = 3) -> Any:
    """Run `call` in windows of `calls` calls until one creates no Vulkan object (as counted in
    device.created) and grows resident memory by less than RSS_SLACK; fail after `windows`.
    A leak grows in every window. Once, something else may: the allocator or the validation
    layer taking an arena, or a buffer another test gave back late taking a binding's place in
    the pool (one new binding: a kp algorithm and its sequence). Returns the last result."""
    seen = []  # (Vulkan objects created, bytes of resident memory grown) per window
    for _ in range(windows):
        gc.collect()
        created, rss = dict(device.created), resident_bytes()
        for _ in range(calls):
            last = call()
        gc.collect()
        made = {k: n - created.get(k, 0) for k, n in device.created.items()
                if n != created.get(k, 0)}
        seen.append((made, resident_bytes() - rss))
        if not made and seen[-1][1] < RSS_SLACK:
            return last
    raise AssertionError(f"not flat in any of {windows} windows of {calls} calls "
                         f"(Vulkan objects made, bytes of resident memory grown): {seen}")

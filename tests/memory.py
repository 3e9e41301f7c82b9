"""What the process holds, for the memory tests (test_leaks, test_memory_flat)."""
from __future__ import annotations


def resident_bytes() -> int:
    """The process's resident set size."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

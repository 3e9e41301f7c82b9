"""The cyclic garbage collector held off while a compile builds its IR.

A compile allocates tens of thousands of nodes, tuples and dicts, and none of them form cycles
(nodes are an immutable DAG: reference counting frees them); yet every 700 allocations the
collector walks the young objects, and now and then all of them: a fifth of a cold compile's
time (pad reflect f32 [1, 64, 256, 256], 130 -> 106 ms CPU). Collection resumes as the last
overlapping compile ends, if it was on when the first began.
"""
from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off (compiles in several threads may overlap)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()

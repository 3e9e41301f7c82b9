"""A Vulkan device's queue of submitted work: the sequences submitted and not yet waited for.

With dmlc's kp (tools/kompute.py) a sequence is submitted without waiting for it
(`Sequence.submit`), and where kp orders submissions (`kp.ordered_submissions`: a global
barrier begins each dispatch, upload and copy) without waiting for the ones before it either:
the device runs them in submission order. Everything the host does to memory the device may
still use waits for all of them first (`wait`).
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any


class Submissions:
    """The part of runtime.device.Device that submits and waits (its `_pending`, `_lock` and
    `ordered` are the device's)."""

    _pending: list[Any]
    _lock: threading.RLock
    ordered: bool
    _staged: list[Any]
    """The staged inputs (DeviceTensor.staged) the sequences in flight upload from, kept alive
    until they have run: the pool cannot hand their buffers to another host array meanwhile,
    so staging one needs no wait where submissions are ordered (before_staging)."""

    def wait(self) -> None:
        """Wait until the device has run everything submitted (a call on device tensors
        returns once its work is submitted: submit()). Done before the host touches a buffer's
        memory, before another submission, before anything a submitted sequence uses is bound
        again or destroyed; dmlc.synchronize() for a caller's timing."""
        if self._pending:
            with self._lock:
                pending, self._pending = self._pending, []
                for sequence in pending:  # each once: kp's fence and running flag
                    sequence.eval_await()  # never with a timeout (PLATFORM.md: kp's trap)
                self._staged = []  # their buffers go back to the pool

    QUEUED = 8
    """Submissions in flight at most (ordered): the host runs no further ahead of the device."""

    def submit(self, sequence: Any, staged: Sequence[Any] = ()) -> None:
        """Run a recorded sequence without waiting for it (caller holds the device; kp with
        dmlc's patch: self.submits), after everything submitted before: ordered by kp's
        barriers (self.ordered), else by waiting for the last submission first. A sequence
        still in flight is waited for (Vulkan forbids submitting a pending command buffer).
        `staged`: the staged inputs it uploads from, kept until it has run."""
        pending = self._pending
        if pending and (not self.ordered or len(pending) >= self.QUEUED
                        or any(s is sequence for s in pending)):
            self.wait()
        sequence.submit()
        self._pending.append(sequence)
        self._staged.extend(staged)

    def before_staging(self) -> None:
        """Before the host writes a host array into a pooled buffer's staging memory
        (DeviceTensor.staged): no buffer the pool hands out is one that work in flight
        uploads from (submit keeps those), so only where submissions are not ordered (each
        waited for before the next) is the last one waited for here, as before."""
        if not self.ordered:
            self.wait()

    def runs(self, sequence: Any) -> bool:
        return any(s is sequence for s in self._pending)  # submitted and not waited for

    @property
    def busy(self) -> bool:
        return bool(self._pending)  # work submitted and not waited for

    @property
    def in_flight(self) -> int:
        """Submissions not yet waited for."""
        return len(self._pending)

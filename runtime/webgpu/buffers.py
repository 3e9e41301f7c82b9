"""WgpuTensor: a wgpu buffer of 32-bit words with a host copy, what a kp tensor is to the
Vulkan backend, so that the buffer pool (runtime/pool.py) and device tensors
(runtime/tensor.py) work on either backend unchanged: `data()` is the host copy (kp's staging
memory), synced by Device.sync ("up": queue.write_buffer, "down": a read back),
`destroy()` frees the buffer, `is_init()` says it was not.

A new buffer holds zeros (WebGPU zero-fills every buffer it creates), so the host copy of a
buffer made from zeros is not uploaded. The host copy is the array the buffer was made from,
kept as it is (np.zeros costs no memory until written).
"""
from __future__ import annotations

from typing import Any

import numpy as np


class WgpuTensor:
    """A device buffer of `words` uint32 words (usage STORAGE | COPY_SRC | COPY_DST)."""

    __slots__ = ("buffer", "words", "_host", "__weakref__")

    def __init__(self, buffer: Any, words: int, host: np.ndarray) -> None:
        self.buffer, self.words, self._host = buffer, words, host

    def data(self) -> np.ndarray:
        """The host copy of the words (as last synced, or written by the caller)."""
        return self._host

    def is_init(self) -> bool:
        """Not destroyed, nor released by wgpu-py: a GPUBuffer's finalizer releases it when the
        garbage collector frees a cycle it is in, even where another finalizer in that cycle
        (a DeviceTensor's, giving its buffer back to the pool) keeps it reachable."""
        return self.buffer is not None and self.buffer._internal is not None

    def destroy(self) -> None:
        """Free the device buffer now (work already submitted on it completes first)."""
        if self.buffer is not None:
            self.buffer.destroy()
            self.buffer = None

    @property
    def nbytes(self) -> int:
        return 4 * self.words

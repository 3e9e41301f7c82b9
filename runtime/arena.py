"""The Vulkan buffer pool: tensors suballocated from a few large buffers (arenas), so that a new
size makes no Vulkan object.

A pooled buffer is a view of an arena (kp's `Tensor.view`, dmlc's patch: tools/kompute.py),
bound, copied and synced at its offset, of exactly the words asked for: a kernel sees the same
buffer it would see alone. Offsets are multiples of ALIGN (256 bytes: the largest
minStorageBufferOffsetAlignment Vulkan allows), so any view can be bound on any device.

Blocks of an arena lie one after another, each free or taken. A buffer given back keeps its view
(and so the bindings and recorded sequences that name it), and the next request of the same
size takes the most recent such buffer: a repeated call binds the buffers it bound last time.
Another size takes the smallest free block it fits, one that keeps no idle buffer first (the
rest stays free); where none is large enough, adjacent free blocks are merged first (dropping
their views), and only then is a new arena made, of ARENA_WORDS or, for a larger request, of
that size rounded up to a quarter of a power of two (at most 1.25x). An arena nobody uses is
destroyed after IDLE_SECONDS, or at once when idle arenas hold more than LIMIT bytes.

So memory is the live tensors, what fragmentation leaves between them, and one arena's floor:
a window that grows by a row each step reuses the blocks the last steps gave back.
"""
from __future__ import annotations

import collections
import time
from typing import Any

import numpy as np

from .pool import Device, Pooled, Slot

ALIGN = 64
"""Words between block offsets (256 bytes)."""


def aligned(words: int) -> int:
    return -(-max(words, 1) // ALIGN) * ALIGN


def arena_words(words: int, floor: int) -> int:
    """An arena's size for a request of `words`: the floor, or `words` rounded up to 1, 1.25,
    1.5 or 1.75 times a power of two."""
    if words <= floor:
        return floor
    top = 1 << (words - 1).bit_length()
    return next(top * q // 8 for q in (5, 6, 7, 8) if top * q // 8 >= words)


class Block:
    __slots__ = ("offset", "words", "slot", "free")

    def __init__(self, offset: int, words: int) -> None:
        self.offset, self.words = offset, words
        self.slot: Slot | None = None
        """The buffer made of this block (kept while free: the next request of its size takes
        it back, with its bindings)."""
        self.free = True


class Arena:
    """One kp tensor of `words` words (and its staging memory), cut into blocks."""

    __slots__ = ("tensor", "words", "blocks", "live", "idle_since")

    def __init__(self, tensor: Any, words: int) -> None:
        self.tensor, self.words = tensor, words
        self.blocks = [Block(0, words)]
        self.live = 0
        self.idle_since = time.monotonic()

    @property
    def nbytes(self) -> int:
        return 2 * 4 * self.words  # device and staging memory

    def merge(self, idle: dict[int, list[Slot]]) -> None:
        """Join runs of free blocks into one (their buffers dropped from `idle`)."""
        merged: list[Block] = []
        for b in self.blocks:
            if b.free and merged and merged[-1].free:
                last = merged[-1]
                for x in (last, b):
                    _forget(x, idle)
                last.words += b.words
            else:
                merged.append(b)
        self.blocks = merged


def _forget(block: Block, idle: dict[int, list[Slot]]) -> None:
    """Drop a free block's buffer (its view) from the idle lists."""
    if block.slot is not None:
        same = idle.get(block.slot.words)
        if same is not None and block.slot in same:
            same.remove(block.slot)
        block.slot = None


class ArenaPool(Pooled):
    """Buffers as views of arenas, for one device (the interface of pool.BufferPool). take()
    and trim() run under the device's lock; give() may run in a finalizer and only appends to
    a queue."""

    ARENA_WORDS = 2**20
    """Words of an ordinary arena (4 MiB, and as much staging memory): the pool's floor."""
    LIMIT = 256 * 2**20
    """Bytes of idle arenas kept at most (device and staging memory together)."""
    IDLE_SECONDS = 10.0

    def __init__(self, device: Device) -> None:
        self.device = device
        self.arenas: list[Arena] = []
        self._idle: dict[int, list[Slot]] = {}
        """Free buffers that keep their view, by words, the most recently given back last."""
        self._returned: collections.deque[Slot] = collections.deque()
        self.created = 0  # arenas made
        self.reused = 0   # buffers taken back as they were (their view and bindings)

    def take(self, words: int, zeroed: bool = False) -> Slot:
        """A buffer of exactly `words` words; zeroed: its device copy holds zeros (else its
        contents are whatever the last user left)."""
        self._settle()
        slot = self._reuse(words) or self._carve(words)
        if slot is None:
            for arena in self.arenas:
                arena.merge(self._idle)
            slot = self._carve(words) or self._carve(words, self._new_arena(words))
        assert slot is not None
        arena, block = slot.home
        block.free = False
        arena.live += 1
        return self._ready(slot, zeroed)

    def _reuse(self, words: int) -> Slot | None:
        same = self._idle.get(words)
        if not same:
            return None
        slot = same.pop()
        self.reused += 1
        return slot

    def _carve(self, words: int, only: Arena | None = None) -> Slot | None:
        """A new buffer at the start of the smallest free block that holds `words`, one that
        keeps no idle buffer's view first (taking such a block drops that buffer: calls that
        cycle through a few small sizes, each in a block of ALIGN words, would otherwise take
        each other's blocks, and each call would make a view and bind it again)."""
        need = aligned(words)
        fits = [(b.slot is not None, b.words, i, arena)
                for arena in ([only] if only else self.arenas)
                for i, b in enumerate(arena.blocks) if b.free and b.words >= need]
        if not fits:
            return None
        _, _, i, arena = min(fits, key=lambda f: (f[0], f[1]))
        block = arena.blocks[i]
        _forget(block, self._idle)
        if block.words > need:
            rest = Block(block.offset + need, block.words - need)
            arena.blocks.insert(i + 1, rest)
            block.words = need
        slot = Slot(arena.tensor.view(block.offset, words), words)
        slot.home = (arena, block)
        block.slot = slot
        return slot

    def _new_arena(self, words: int) -> Arena:
        size = arena_words(aligned(words), self.ARENA_WORDS)
        arena = Arena(self.device.tensor(np.zeros(size, np.uint32)), size)
        self.arenas.append(arena)
        self.created += 1
        return arena

    def _settle(self) -> None:
        """File the buffers given back since, then drop idle arenas past the limits."""
        now = time.monotonic()
        while self._returned:
            slot = self._returned.popleft()
            arena, block = slot.home
            if block.slot is not slot or block.free:
                continue  # its arena was destroyed meanwhile
            block.free = True
            self._idle.setdefault(slot.words, []).append(slot)
            arena.live -= 1
            if not arena.live:
                arena.idle_since = now
        idle = [a for a in self.arenas if not a.live]
        if idle and (sum(a.nbytes for a in idle) > self.LIMIT or
                     min(a.idle_since for a in idle) < now - self.IDLE_SECONDS):
            self.trim(self.LIMIT, now - self.IDLE_SECONDS)

    def trim(self, limit: int, older_than: float = float("-inf")) -> None:
        """Destroy arenas nobody uses, least recently used first, while they hold more than
        `limit` bytes or the oldest has been idle since before `older_than`."""
        self.device.wait()  # submitted work may still use a block of an idle arena
        idle = sorted((a for a in self.arenas if not a.live), key=lambda a: a.idle_since)
        held = sum(a.nbytes for a in idle)
        for arena in idle:
            if held <= limit and arena.idle_since >= older_than:
                break
            for b in arena.blocks:
                _forget(b, self._idle)
            self.arenas.remove(arena)
            held -= arena.nbytes
            arena.tensor.destroy()
        self._idle = {w: same for w, same in self._idle.items() if same}

    def clear(self) -> None:
        """Destroy every arena nobody uses, and forget the views of free blocks in the rest."""
        self._settle()
        for arena in self.arenas:
            arena.merge(self._idle)
            for b in arena.blocks:
                if b.free:
                    _forget(b, self._idle)
        self.trim(0)

    def info(self) -> dict[str, int]:
        """idle_buffers: free buffers kept for a request of their size; idle_bytes: arenas
        nobody uses (what trim frees); free_bytes: free blocks in every arena; *_bytes count
        device and staging memory."""
        self._settle()
        return {"idle_buffers": sum(len(same) for same in self._idle.values()),
                "idle_bytes": sum(a.nbytes for a in self.arenas if not a.live),
                "limit_bytes": self.LIMIT, "created": self.created, "reused": self.reused,
                "arenas": len(self.arenas), "floor_bytes": 2 * 4 * self.ARENA_WORDS,
                "arena_bytes": sum(a.nbytes for a in self.arenas),
                "free_bytes": 2 * 4 * sum(b.words for a in self.arenas for b in a.blocks
                                          if b.free),
                "live_bytes": 2 * 4 * sum(b.words for a in self.arenas for b in a.blocks
                                          if not b.free)}

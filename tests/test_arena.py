"""The Vulkan buffer pool's suballocation (runtime/arena.py), without Vulkan: a fake device whose
tensors are numpy arrays and whose views are slices, so that every property of the blocks can be
checked against what the views see."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

from dmlc.runtime.arena import ALIGN, ArenaPool, aligned, arena_words


class FakeTensor:
    def __init__(self, words: np.ndarray, parent: FakeTensor | None = None, offset: int = 0):
        self.words, self.parent, self.offset = words, parent, offset
        self.destroyed = False

    def view(self, offset: int, size: int) -> FakeTensor:
        assert not self.destroyed and self.parent is None
        assert 0 <= offset and offset + size <= self.words.size and size > 0
        return FakeTensor(self.words[offset:offset + size], self, offset)

    def data(self) -> np.ndarray:
        return self.words

    def is_init(self) -> bool:
        return not (self.parent or self).destroyed

    def destroy(self) -> None:
        self.destroyed = True


class FakeDevice:
    def __init__(self) -> None:
        self.made: list[FakeTensor] = []

    def tensor(self, words: np.ndarray) -> FakeTensor:
        t = FakeTensor(words.copy())
        self.made.append(t)
        return t

    def sync(self, tensor: Any, direction: str) -> None:
        pass

    def wait(self) -> None:  # nothing is ever submitted here
        pass


def small_pool() -> ArenaPool:
    pool = ArenaPool(FakeDevice())
    pool.ARENA_WORDS = 16 * ALIGN
    return pool


def check_blocks(pool: ArenaPool) -> None:
    """Blocks tile each arena in order; taken blocks hold a view of their own at their offset."""
    for arena in pool.arenas:
        at = 0
        for b in arena.blocks:
            assert b.offset == at and b.words > 0 and b.offset % ALIGN == 0
            at += b.words
            if not b.free:
                assert b.slot is not None and b.slot.tensor.offset == b.offset
                assert aligned(b.slot.words) == b.words
        assert at == arena.words
        assert arena.live == sum(not b.free for b in arena.blocks)


def test_arena_sizes_round_up_by_quarter_octaves():
    assert arena_words(10, 1024) == 1024
    assert arena_words(1025, 1024) == 1280 and arena_words(1281, 1024) == 1536
    assert arena_words(1793, 1024) == 2048 and arena_words(2048, 1024) == 2048
    assert all(w <= arena_words(w, 64) <= 1.25 * w for w in range(65, 5000))


def test_a_repeated_size_takes_back_the_same_buffer():
    pool = small_pool()
    a = pool.take(100)
    pool.give(a)
    b = pool.take(100)
    assert b is a and pool.reused == 1 and pool.created == 1


def test_a_growing_window_reuses_one_arena():
    """A tensor growing by a row per step, the last step's given back after the next is taken
    (a decode loop's window): one arena of three times the last size, however many steps
    (two windows live at once, and the free blocks between them)."""
    pool = small_pool()
    pool.ARENA_WORDS = 3 * aligned(199 * 3)
    last = None
    for t in range(1, 200):
        slot = pool.take(t * 3)
        slot.tensor.data()[:] = t
        if last is not None:
            assert np.all(last.tensor.data() == t - 1)  # neither overlaps the other
            pool.give(last)
        last = slot
        check_blocks(pool)
    assert pool.created == 1 and len(pool.arenas) == 1


def test_a_request_larger_than_an_arena_gets_its_own():
    pool = small_pool()
    big = pool.take(40 * ALIGN + 1)
    assert len(pool.arenas) == 1 and pool.arenas[0].words == arena_words(41 * ALIGN, 16 * ALIGN)
    small = pool.take(5)
    assert small.tensor.parent is big.tensor.parent  # the rest of that arena serves others
    check_blocks(pool)


def test_idle_arenas_are_destroyed_and_their_buffers_never_taken_again():
    pool = small_pool()
    slot = pool.take(10)
    pool.give(slot)
    pool.clear()
    assert pool.arenas == [] and pool.info()["idle_buffers"] == 0
    assert slot.tensor.parent.destroyed
    again = pool.take(10)
    assert again is not slot and not again.tensor.parent.destroyed


def test_zeroed_buffers_hold_zeros():
    pool = small_pool()
    a = pool.take(70)
    a.tensor.data()[:] = 7
    pool.give(a)
    b = pool.take(70, zeroed=True)
    assert b is a and not b.tensor.data().any()


def largest_free_run(pool: ArenaPool) -> int:
    """The most words a take could get from the arenas as they are (adjacent free blocks
    merged)."""
    best = 0
    for arena in pool.arenas:
        run = 0
        for b in arena.blocks:
            run = run + b.words if b.free else 0
            best = max(best, run)
    return best


@settings(max_examples=budget(60), deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 40 * ALIGN)), min_size=1, max_size=60))
def test_live_buffers_never_overlap_and_arenas_are_made_only_when_nothing_fits(ops):
    """Random takes and gives: every live buffer keeps its own words (each is filled with its
    own number and checked after every step), the blocks tile the arenas, and a new arena is
    made only where no run of free blocks could hold the request."""
    pool = small_pool()
    live: list[tuple[int, Any]] = []
    for n, (give, words) in enumerate(ops):
        if give and live:
            _, slot = live.pop(len(live) // 2)
            pool.give(slot)
        else:
            pool._settle()
            room, made = largest_free_run(pool), pool.created
            slot = pool.take(words)
            assert slot.words == words and slot.tensor.data().size == words
            assert pool.created == made or room < aligned(words)
            slot.tensor.data()[:] = n
            live.append((n, slot))
        pool._settle()
        check_blocks(pool)
        for mark, slot in live:
            assert np.all(slot.tensor.data() == mark)


@pytest.mark.parametrize("words", [1, ALIGN, ALIGN + 1])
def test_offsets_are_aligned_for_any_device(words):
    pool = small_pool()
    slots = [pool.take(words) for _ in range(5)]
    assert all(s.tensor.offset % ALIGN == 0 for s in slots)
    assert len({s.tensor.offset for s in slots}) == 5

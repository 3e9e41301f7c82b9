"""No kernel relies on memory it did not write: pooled and fresh buffers hold whatever their last
user left (on a GPU a new buffer is not zero either). Only scratch and status buffers start
zeroed, and the kernels that use scratch leave it zeroed. `make test-poison` runs the whole
device suite with DMLC_POISON=1, which fills every other buffer with 0xA5 bytes before its
kernel runs and reads back every buffer given back as zeroed; these tests hold the mechanism
and the case that found the bug (issue 23, item 0)."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.errors import DeviceError
from dmlc.runtime import get_device
from dmlc.runtime.pool import POISON_WORD
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


def test_a_scatter_after_a_join_tree_is_right():
    """A join of 9 inputs runs a tree whose partial results went back to the pool marked as
    zeroed; the next scatter's vote buffer of that size was then taken without clearing it."""
    x = (np.arange(63) % 50).astype(np.float16).reshape(9, 7)
    assert_bits_equal(dmlc.join([x] * 9, axis=1), np.concatenate([x] * 9, axis=1))
    u = np.array([[3] * 7, [5] * 7, [6] * 7], np.float16)
    want = x.copy()
    want[1], want[3] = 5, 6
    assert_bits_equal(dmlc.scatter_nd(x, np.array([[1], [1], [3]]), u), want)


def test_a_join_tree_s_partial_results_are_temporaries():
    """Device-only buffers that kernels fill ('temp') are not scratch: nobody assumes them
    zeroed, before or after."""
    tree = dmlc.compile(dmlc.JoinDesc(inputs=tuple(
        dmlc.TensorDesc(data_type="FLOAT16", sizes=(9, 7)) for _ in range(9)), axis=1))
    roles = {b.name: (b.role, b.zeroed) for b in tree.plan.buffers}
    assert roles["joined0"] == ("temp", False) and roles["output"] == ("output", False)


def test_poisoned_buffers_hold_the_pattern(monkeypatch):
    monkeypatch.setenv("DMLC_POISON", "1")
    pool = get_device().pool
    with get_device().use("test"):
        slot = pool.take(64)
        slot.sync(get_device(), "down")
        assert (slot.tensor.data() == POISON_WORD).all()
        pool.give(slot)
        slot = pool.take(64, zeroed=True)
        assert slot.holds_zeros(get_device())
        pool.give(slot, clean=True, what="test")


def test_a_buffer_given_back_dirty_as_zeroed_is_caught(monkeypatch):
    monkeypatch.setenv("DMLC_POISON", "1")
    device = get_device()
    with device.use("test"):
        slot = device.pool.take(64)
        with pytest.raises(DeviceError, match="a_kernel: gave back a buffer of 64 words as "
                                              "zeroed, but it holds non-zero words"):
            device.pool.give(slot, clean=True, what="a_kernel")
        device.pool.give(slot)


def test_every_kernel_family_under_poison(monkeypatch):
    """A quick pass over the families with scratch or temporaries, poisoned (the whole suite
    runs so in CI: make test-poison)."""
    monkeypatch.setenv("DMLC_POISON", "1")
    dmlc.clear_cache()
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**16, (9, 7), dtype=np.uint16).view(np.float16)
    for _ in range(2):  # the second round takes the buffers the first gave back
        assert_bits_equal(dmlc.join([x] * 9, axis=1), np.concatenate([x] * 9, axis=1))
        idx = np.array([[1], [1], [3]])
        u = rng.integers(0, 2**16, (3, 7), dtype=np.uint16).view(np.float16)
        want = x.copy()
        want[1], want[3] = u[1], u[2]
        assert_bits_equal(dmlc.scatter_nd(x, idx, u), want)
        e = np.zeros((3, 7), np.int64)
        want = x.copy()
        want[0] = u[2]
        assert_bits_equal(dmlc.scatter(x, e, u, axis=0), want)
        t = dmlc.to_device(x)
        dmlc.scatter(t, e, u, axis=0, out=t)
        assert_bits_equal(t.numpy(), want)

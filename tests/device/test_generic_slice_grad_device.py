"""DML_SLICE_GRAD's generic kernels on the device (docs/generic-kernels.md): forced generic
over several sizes, bit for bit the specialized kernel and numpy, every data type, guard words
intact; under `auto` a new batch compiles nothing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.slice_grad_calls import draw_call, draw_window, grad_desc, want_grad
from tests.strategies import budget, random_bits

import dmlc
from dmlc import DataType

pytestmark = pytest.mark.vulkan
DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


@settings(max_examples=budget(12))
@given(st.data())
def test_generic_slice_grad_equals_specialized(data):
    """Random windows (both signs of stride), three sizes each, the input gradient packed or
    a view of a wider owner."""
    dtype = data.draw(st.sampled_from(DTYPES))
    offsets, strides = draw_window(data, data.draw(st.integers(1, 3)))
    room = data.draw(st.sampled_from([None, 1]))
    for _ in range(3):
        desc, arg, _, want = draw_call(data, dtype, offsets, strides, room)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(arg)
        special = dmlc.compile(desc, dynamic=False)(arg)
        assert got.tobytes() == special.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", DTYPES)
def test_generic_slice_grad_of_every_type_at_several_sizes(dtype):
    """Every type at batches 1 to 9 (8/16-bit outputs of odd element counts: the last word's
    padding), one forced generic kernel, guard words intact."""
    dmlc.clear_cache()
    for n in (1, 4, 9, 2):
        shape, offsets, sizes, strides = (n, 7, 5), (0, 1, 1), (n, 5, 4), (1, 2, -2)
        dy = random_bits(n, (n, 3, 2), dtype.numpy)
        desc = grad_desc(dtype, shape, offsets, sizes, strides, dy.shape)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        got = generic(dy)
        want = want_grad(dy, shape, offsets, sizes, strides)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False)(dy).tobytes() \
            == want.tobytes()
        assert generic.executable().guard_damage() == []
    assert dmlc.cache_info()["compiles"]["DML_SLICE_GRAD generic"] == 1


def test_a_new_slice_grad_batch_compiles_nothing(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for n in (3, 1, 8, 2, 5, 17):
        dy = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        got = dmlc.slice_grad(dy, [n, 9], [0, 1], [n, 8], [1, 2])
        assert np.asarray(got).tobytes() == want_grad(dy, (n, 9), (0, 1), (n, 8),
                                                      (1, 2)).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SLICE_GRAD": 1, "DML_SLICE_GRAD generic": 1}

"""Generic kernels of DML_SPLIT, DML_PADDING and DML_TILE on the device (docs/generic-kernels.md):
forced generic, bit for bit the specialized kernel and numpy over random sizes, guard words intact;
a new size compiles nothing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests import reference
from tests.reference_layout import fill_bits, pad
from tests.strategies import budget, random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate

pytestmark = pytest.mark.vulkan
DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_split_equals_specialized(data):
    """DML_SPLIT over random batches, its input a view of a wider owner or packed."""
    dtype = data.draw(st.sampled_from(DTYPES))
    pieces = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=5)))
    axis = data.draw(st.integers(0, 2))
    for _ in range(3):
        shape = tuple(sum(pieces) if i == axis else data.draw(st.integers(1, 9))
                      for i in range(3))
        owner = tuple(n + data.draw(st.integers(0, 1)) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        strides = tuple(int(np.prod(owner[i + 1:])) for i in range(3))
        outs = tuple(TensorDesc(data_type=dtype, sizes=tuple(m if i == axis else s
                                                             for i, s in enumerate(shape)))
                     for m in pieces)
        desc = validate(dmlc.SplitDesc(input=TensorDesc(data_type=dtype, sizes=shape,
                                                        strides=strides),
                                       outputs=outs, axis=axis))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(x.reshape(-1))
        special = dmlc.compile(desc, dynamic=False)(x.reshape(-1))
        want = reference.split(x[tuple(slice(0, n) for n in shape)], list(pieces), axis)
        for g, s, w in zip(got, special, want, strict=True):
            assert g.tobytes() == s.tobytes() == np.ascontiguousarray(w).tobytes()
        assert generic.executable().guard_damage() == []


def test_a_new_split_batch_compiles_nothing(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for batch in (3, 1, 8, 2, 5, 17):
        x = np.arange(batch * 12, dtype=np.int64).reshape(batch, 12)
        got = dmlc.split(x, [4, 4, 4], axis=1)
        assert all(np.array_equal(np.asarray(g), w)
                   for g, w in zip(got, np.split(x, 3, axis=1), strict=True))
    assert dmlc.cache_info()["compiles"] == {"DML_SPLIT": 1, "DML_SPLIT generic": 1}


MODES = ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE", "DML_PADDING_MODE_REFLECTION",
         "DML_PADDING_MODE_SYMMETRIC", "DML_PADDING_MODE_WRAP")


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_padding_equals_specialized(data):
    """DML_PADDING1 in every mode over random input sizes (as small as the pads allow), its
    input a view of a wider owner or packed."""
    dtype = data.draw(st.sampled_from(DTYPES))
    mode = data.draw(st.sampled_from(MODES))
    start = tuple(data.draw(st.integers(0, 2)) for _ in range(3))
    end = tuple(data.draw(st.integers(0, 2)) for _ in range(3))
    least = [max(1, s + 1, e + 1) for s, e in zip(start, end)]
    for _ in range(3):
        shape = tuple(data.draw(st.integers(lo, lo + 6)) for lo in least)
        owner = tuple(n + data.draw(st.integers(0, 1)) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        strides = tuple(int(np.prod(owner[i + 1:])) for i in range(3))
        value = data.draw(st.integers(0, 9))
        desc = validate(dmlc.PaddingDesc(
            input=TensorDesc(data_type=dtype, sizes=shape, strides=strides), mode=mode,
            start_padding=start, end_padding=end, value=value))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(x.reshape(-1))
        special = dmlc.compile(desc, dynamic=False)(x.reshape(-1))
        want = pad(x[tuple(slice(0, n) for n in shape)], start, end, mode,
                   fill_bits(value, dtype.numpy))  # numpy's, not dmlc's padding_bits
        assert got.tobytes() == special.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


def test_a_new_padding_size_compiles_nothing(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for hw in (5, 3, 8, 2, 13, 4):
        x = np.arange(2 * hw * hw, dtype=np.float32).reshape(2, hw, hw)
        got = dmlc.pad(x, [0, 1, 1], [0, 1, 1], mode="reflect")
        assert np.array_equal(np.asarray(got), np.pad(x, [(0, 0), (1, 1), (1, 1)],
                                                      mode="reflect"))
    assert dmlc.cache_info()["compiles"] == {"DML_PADDING1": 1, "DML_PADDING1 generic": 1}


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_tile_equals_specialized(data):
    """DML_TILE over random input sizes, its input a view of a wider owner or packed."""
    dtype = data.draw(st.sampled_from(DTYPES))
    repeats = tuple(data.draw(st.integers(1, 3)) for _ in range(3))
    for _ in range(3):
        shape = tuple(data.draw(st.integers(1, 9)) for _ in range(3))
        owner = tuple(n + data.draw(st.integers(0, 1)) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        strides = tuple(int(np.prod(owner[i + 1:])) for i in range(3))
        desc = validate(dmlc.TileDesc(input=TensorDesc(data_type=dtype, sizes=shape,
                                                       strides=strides), repeats=repeats))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(x.reshape(-1))
        special = dmlc.compile(desc, dynamic=False)(x.reshape(-1))
        want = np.tile(x[tuple(slice(0, n) for n in shape)], repeats)
        assert got.tobytes() == special.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


def test_a_new_tile_size_compiles_nothing(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for n in (6, 2, 11, 1, 4, 9):
        x = np.arange(n * 5, dtype=np.uint32).reshape(n, 5)
        assert np.array_equal(np.asarray(dmlc.tile(x, (3, 2))), np.tile(x, (3, 2)))
    assert dmlc.cache_info()["compiles"] == {"DML_TILE": 1, "DML_TILE generic": 1}

"""Generic kernels of DML_REVERSE_SUBSEQUENCES and DML_SPACE_TO_DEPTH / DML_DEPTH_TO_SPACE on the
device (docs/generic-kernels.md): forced generic, bit for bit the specialized kernel and numpy
over random sizes, guard words intact; a new size compiles nothing; views at moving offsets
are one specialized and one generic kernel; checked mode raises as the specialized kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.offset_cases import FAMILIES
from tests.reference_layout import depth_to_space, space_to_depth
from tests.reference_nd import reverse_subsequences
from tests.strategies import INDEX_TYPES, budget, random_bits
from tests.test_generic_reverse_depth import SPACE_DEPTH, _depth_space, _reverse, _shape
from tests.test_generic_vectors import moves_vectors

import dmlc
from dmlc import DataType
from dmlc.ops.space_depth.desc import DEPTH_SPACE_ORDERS

pytestmark = pytest.mark.vulkan
DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_reverse_equals_specialized(data):
    """Random sizes but the axis's, the input a view of a wider owner or packed, the lengths
    broadcast along some dimensions (stride 0) or packed, any value."""
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    axis = data.draw(st.integers(0, 2))
    n = data.draw(st.integers(1, 7))
    spread = tuple(data.draw(st.booleans()) for _ in range(3))
    for _ in range(3):
        shape = tuple(n if i == axis else data.draw(st.integers(1, 9)) for i in range(3))
        owner = tuple(s + data.draw(st.integers(0, 1)) for s in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _reverse(dtype, itype, shape, axis, owner, spread)
        small = tuple(1 if i == axis or b else s for i, (s, b) in enumerate(zip(shape, spread)))
        lengths = (random_bits(data.draw(st.integers(0, 99)), small, itype) % (n + 3)) \
            .astype(itype)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        args = (x.reshape(-1), lengths.reshape(-1) if any(spread) else lengths)
        got = generic(*args)
        special = dmlc.compile(desc, dynamic=False)(*args)
        want = reverse_subsequences(x[tuple(slice(0, s) for s in shape)],
                                    np.broadcast_to(lengths, desc.sequence_lengths.sizes), axis)
        assert got.tobytes() == special.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16,
                                   DataType.INT8])
def test_generic_reverse_by_vectors_equals_specialized(dtype):
    """ONNX's [batch] lengths (one a row) over rows of whole 16-byte vectors: the "vector"
    kernel (rows of vectors), bit for bit, guard words intact, over batches."""
    lanes = 16 // dtype.itemsize
    for batch in (5, 1, 3):
        x = random_bits(batch, (7, batch, 3 * lanes), dtype.numpy)
        lengths = (np.arange(batch, dtype=np.int32) * 3 % 10 - 1).reshape(1, batch, 1)
        desc = _reverse(dtype, lengths.dtype, x.shape, 0, None, (False, False, True))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert moves_vectors(generic)
        got = generic(x, lengths.reshape(-1))
        special = dmlc.compile(desc, dynamic=False)(x, lengths.reshape(-1))
        want = reverse_subsequences(x, np.broadcast_to(lengths, (1, batch, 3 * lanes)), 0)
        assert got.tobytes() == special.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


def test_a_new_reverse_batch_compiles_nothing(monkeypatch):
    """ONNX ReverseSequence's [batch] lengths, broadcast by the one-shot API: one specialized
    kernel, then one generic kernel for every later batch."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for batch in (3, 6, 1, 2, 9):  # a batch of 1 first would lower a guessed stride
        x = np.arange(5 * batch * 4, dtype=np.float32).reshape(5, batch, 4)
        lengths = (np.arange(batch, dtype=np.int64) % 6).reshape(1, batch, 1)
        got = dmlc.reverse_subsequences(x, lengths, axis=0)
        want = reverse_subsequences(x, np.broadcast_to(lengths, (1, batch, 4)), 0)
        assert np.asarray(got).tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_REVERSE_SUBSEQUENCES": 1,
                                             "DML_REVERSE_SUBSEQUENCES generic": 1}


def test_generic_checked_reverse_raises_as_the_specialized_one():
    """check_indices on the device: a length outside [0, n] named by position and value as
    the specialized kernel names it; valid lengths give its result."""
    for lengths in ([[2, 0, 4, 1]], [[1, 5, -1]], [[3, 3, 3, 3, 3, 9]]):
        ls = np.array(lengths, np.int32)
        x = random_bits(ls.size, (4, ls.size), np.dtype(np.uint8))
        desc = _reverse(DataType.UINT8, ls.dtype, x.shape, 0)
        generic = dmlc.compile(desc, dynamic=True, check_indices=True)
        special = dmlc.compile(desc, dynamic=False, check_indices=True)
        assert generic.compiled.params and not special.compiled.params
        try:
            want = special(x, ls)
        except dmlc.IndexOutOfRangeError as e:
            with pytest.raises(dmlc.IndexOutOfRangeError) as got:
                generic(x, ls)
            assert str(got.value) == str(e)
        else:
            assert generic(x, ls).tobytes() == want.tobytes()


@settings(max_examples=budget(12))
@given(st.data())
def test_generic_space_depth_equals_specialized(data):
    """Both operators (and their first versions), both orders, block sizes 1-3, random N, C,
    H, W whose W is whole vectors or not (the "vector" and the "scalar" kernel), the input a
    view of a wider owner or packed."""
    cls = data.draw(st.sampled_from(SPACE_DEPTH))
    dtype = data.draw(st.sampled_from(DTYPES))
    block = data.draw(st.integers(1, 3))
    order = data.draw(st.sampled_from(DEPTH_SPACE_ORDERS)) if cls.operator.endswith("1") \
        else DEPTH_SPACE_ORDERS[0]
    lanes = 16 // dtype.itemsize
    strided = data.draw(st.booleans())
    for _ in range(3):
        whole = data.draw(st.booleans())
        shape = _shape(data, cls.to_depth, block, whole, lanes)
        owner = tuple(s + lanes * data.draw(st.integers(0, 1)) for s in shape) if strided \
            else shape
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _depth_space(cls, dtype, shape, block, order, owner if strided else None)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        assert moves_vectors(generic) == (dtype.bits >= 32 and whole)
        arg = x.reshape(-1) if strided else x
        got = generic(arg)
        special = dmlc.compile(desc, dynamic=False)(arg)
        fn = space_to_depth if cls.to_depth else depth_to_space
        want = fn(x[tuple(slice(0, s) for s in shape)], block, order.endswith("COLUMN_ROW"))
        assert got.tobytes() == special.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("fn", [dmlc.depth_to_space, dmlc.space_to_depth])
def test_a_new_depth_space_size_compiles_nothing(monkeypatch, fn):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for k, hw in enumerate((4, 8, 2, 6, 12)):
        x = random_bits(hw, (1 + k % 2, 8, hw, hw), np.dtype(np.int32))
        got = fn(x, 2, "CRD")
        ref = depth_to_space if fn is dmlc.depth_to_space else space_to_depth
        assert np.asarray(got).tobytes() == ref(x, 2, False).tobytes()
    op = "DML_DEPTH_TO_SPACE1" if fn is dmlc.depth_to_space else "DML_SPACE_TO_DEPTH1"
    assert dmlc.cache_info()["compiles"] == {op: 1, f"{op} generic": 1}


@pytest.mark.parametrize("name", ["reverse", "depth_to_space"])
@settings(max_examples=budget(3))
@given(data=st.data())
def test_views_at_moving_offsets_are_one_specialized_and_one_generic_kernel(name, data):
    """auto, the views' sizes fixed and their offsets moving (aligned and not): the first call
    specialized, then one generic kernel (sizes static, offsets pushed) for the rest."""
    owner, sizes = (3, 5), (2, 3)
    dtype = data.draw(st.sampled_from(DTYPES))
    x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
    dmlc.clear_cache()
    for k, offset in enumerate((1, 4, 0, 7, 8)):
        desc, arrays, want = FAMILIES[name](dtype, x, sizes, owner, offset, k, data)
        got = dmlc.compile(desc, dynamic="auto", guard_words=16)
        assert got(*arrays).tobytes() == np.ascontiguousarray(want).tobytes(), (name, offset)
        assert got.executable().guard_damage() == []
    compiles = dmlc.cache_info()["compiles"]
    assert sorted(compiles.values()) == [1, 1] and len(
        [k for k in compiles if k.endswith(" generic")]) == 1, compiles

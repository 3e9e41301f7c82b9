"""Generic kernels of DML_SCATTER_ND and DML_SCATTER on the device (docs/generic-kernels.md,
ops/scatter/generic.py): forced generic, bit for bit the specialized kernel and numpy over
random sizes, colliding and out-of-range indices (dropped), every reduction, guard words
intact; in place through a view at moving offsets (a KV cache's prefill), the rest of its
buffer untouched; auto: a new size compiles nothing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
import reference_scatternd as ref
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from strategies import budget, random_bits

pytestmark = pytest.mark.vulkan
DTYPES = list(DataType)
REDUCTIONS = ("none", "add", "mul", "max", "min")


def _values(dtype: DataType, seed: int, shape: tuple[int, ...], reduction: str) -> np.ndarray:
    """Raw bits (NaN payloads, -0.0); small integers where a reduction combines floats."""
    if reduction != "none" and dtype.numpy.kind == "f":
        return np.random.default_rng(seed).integers(-3, 4, shape).astype(dtype.numpy)
    return random_bits(seed, shape, dtype.numpy)


def _rows(seed: int, rows: int, length: int) -> np.ndarray:
    """Row indices: repeated (colliding), negative and out of range both ways."""
    return np.random.default_rng(seed).integers(-length - 1, length + 1,
                                                (rows, 1)).astype(np.int64)


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_scatter_nd_equals_specialized(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    length = data.draw(st.integers(1, 9))
    for _ in range(3):
        rows, width = data.draw(st.integers(1, 40)), data.draw(st.integers(1, 37))
        desc = validate(dmlc.ScatterNDDesc(
            input=TensorDesc(data_type=dtype, sizes=(length, width)),
            indices=TensorDesc(data_type=DataType.INT64, sizes=(rows, 1)),
            updates=TensorDesc(data_type=dtype, sizes=(rows, width)),
            input_dimension_count=2, indices_dimension_count=2, reduction=reduction))
        seed = data.draw(st.integers(0, 999))
        x, i = _values(dtype, seed, (length, width), reduction), _rows(seed, rows, length)
        u = _values(dtype, seed + 1, (rows, width), reduction)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(x, i, u)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False)(x, i, u).tobytes()
        assert got.tobytes() == ref.scatter_nd(x, i, u, reduction=reduction).tobytes()
        assert generic.executable().guard_damage() == []


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_scatter_elements_equals_specialized(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    axis = data.draw(st.integers(0, 1))
    n = data.draw(st.integers(1, 6))
    for _ in range(3):
        idx_shape = (data.draw(st.integers(1, 30)), data.draw(st.integers(1, 30)))
        x_shape = tuple(n if j == axis else s for j, s in enumerate(idx_shape))
        desc = validate(dmlc.ScatterDesc(
            input=TensorDesc(data_type=dtype, sizes=x_shape),
            indices=TensorDesc(data_type=DataType.INT32, sizes=idx_shape),
            updates=TensorDesc(data_type=dtype, sizes=idx_shape), axis=axis,
            reduction=reduction))
        seed = data.draw(st.integers(0, 999))
        x = _values(dtype, seed, x_shape, reduction)
        i = np.random.default_rng(seed).integers(-n - 1, n + 1, idx_shape).astype(np.int32)
        u = _values(dtype, seed + 1, idx_shape, reduction)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(x, i, u)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False)(x, i, u).tobytes()
        assert got.tobytes() == ref.scatter(x, i, u, axis, reduction).tobytes()
        assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("checked", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.int64, np.uint64])
def test_a_kv_prefill_in_place_at_moving_offsets_compiles_once(monkeypatch, dtype, checked):
    """A cache [layers, length, width] whose layer l is updated in place (a view at offset
    l * length * width) by a prompt of a varying number of rows: auto compiles the in-place
    kernel once specialized, then once generic (its sizes and offset pushed) for every later
    prompt and layer; nothing else of the cache changes. Unchecked, rows out of range are
    dropped; checked (check_indices=True), a prompt with a bad row raises naming it and leaves
    the whole cache as it was."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    layers, length, width = 3, 16, 24
    host = random_bits(1, (layers, length, width), dtype)
    cache = dmlc.to_device(host)
    for step, (layer, rows) in enumerate([(0, 5), (1, 9), (2, 5), (0, 1), (1, 16), (2, 3)]):
        i = _rows(step, rows, length)
        u = random_bits(step + 7, (rows, width), dtype)
        view = cache[layer]
        if checked:
            i = np.clip(i, -length, length - 1)
            if step in (2, 4):  # a bad row: the call raises, nothing written
                i[rows // 2, 0] = length + step
                with pytest.raises(dmlc.IndexOutOfRangeError) as bad:
                    dmlc.scatter_nd(view, i, u, out=view, check_indices=True)
                assert bad.value.position == (rows // 2, 0) and bad.value.value == length + step
                assert cache.numpy().tobytes() == host.tobytes(), step
                continue
        assert dmlc.scatter_nd(view, i, u, out=view, check_indices=checked) is view
        host[layer] = ref.scatter_nd(host[layer], i, u)
        assert cache.numpy().tobytes() == host.tobytes(), step
    assert dmlc.cache_info()["compiles"] == {"DML_SCATTER_ND": 1, "DML_SCATTER_ND generic": 1}


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_generic_in_place_scatter_through_a_transposed_view(monkeypatch, reduction):
    """The in-place ScatterElements of a generic kernel writes where a transposed view's
    elements lie (its strides, no copy), equal to the specialized kernel's."""
    host = np.random.default_rng(1).integers(-50, 50, (12, 10)).astype(np.float32)
    idx = np.random.default_rng(0).integers(-11, 11, (3, 12)).astype(np.int32)
    upd = np.random.default_rng(2).integers(-50, 50, (3, 12)).astype(np.float32)
    results = []
    for mode in ("always", "never"):
        monkeypatch.setenv("DMLC_DYNAMIC", mode)
        dmlc.clear_cache()
        cache = dmlc.to_device(host)
        view = cache.T  # [10, 12], strides (1, 10)
        assert dmlc.scatter(view, idx, upd, axis=0, reduction=reduction, out=view) is view
        assert ("DML_SCATTER generic" in dmlc.cache_info()["compiles"]) == (mode == "always")
        results.append(cache.numpy())
    assert results[0].tobytes() == results[1].tobytes()
    assert results[0].tobytes() == ref.scatter(host.T, idx, upd, 0, reduction).T.tobytes()


def test_a_new_number_of_tuples_compiles_nothing(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    x = random_bits(2, (32, 40), np.float32)
    for rows in (4, 7, 1, 30, 2):
        i = _rows(rows, rows, 32)
        u = random_bits(rows, (rows, 40), np.float32)
        assert dmlc.scatter_nd(x, i, u).tobytes() == ref.scatter_nd(x, i, u).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SCATTER_ND": 1, "DML_SCATTER_ND generic": 1}


@pytest.mark.parametrize("mode", ["auto", "never", "always"])
def test_an_in_place_call_compiles_only_the_in_place_kernel(monkeypatch, mode):
    """out= the data tensor: one compile, the in-place kernel's (the copying kernel, which such
    a call never runs, was compiled first: tools/decode_loop.py's 'DML_SCATTER_ND: 2')."""
    monkeypatch.setenv("DMLC_DYNAMIC", mode)
    dmlc.clear_cache()
    host = random_bits(3, (8, 6), np.float32)
    t = dmlc.to_device(host)
    for token in (2, 7, 2):
        row = random_bits(token, (1, 6), np.float32)
        dmlc.scatter_nd(t, np.array([[token]]), row, out=t)
        dmlc.scatter(t, np.full((1, 6), token), row, axis=0, out=t)
        host[token] = row[0]
    assert t.numpy().tobytes() == host.tobytes()
    generic = " generic" if mode == "always" else ""
    assert dmlc.cache_info()["compiles"] == {f"DML_SCATTER_ND{generic}": 1,
                                             f"DML_SCATTER{generic}": 1}

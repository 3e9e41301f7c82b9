"""Generic kernels of the index families on the device (docs/generic-kernels.md): gather_nd,
gather_elements and one_hot, the generic and the specialized kernel of one descriptor against
each other and an independent numpy reference over random sizes, bit for bit, wild index
values, guard words intact."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits

import dmlc
import reference
import reference_nd
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate

pytestmark = pytest.mark.vulkan
DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)
ITYPES = ["int32", "int64", "uint32", "uint64"]


def _both(desc, *arrays) -> tuple[bytes, bytes]:
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params
    got = generic(*arrays).tobytes()
    assert generic.executable().guard_damage() == []
    return got, dmlc.compile(desc, dynamic=False)(*arrays).tobytes()


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_gather_nd_equals_specialized(data):
    dtype, itype = data.draw(st.sampled_from(DTYPES)), np.dtype(data.draw(st.sampled_from(ITYPES)))
    x_shape = tuple(data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    k = data.draw(st.integers(1, len(x_shape)))
    x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
    for n in data.draw(st.lists(st.integers(1, 70), min_size=1, max_size=3)):
        ids = random_bits(n, (n, k), itype)  # wild values: normalized and clamped
        ids[::2] %= max(x_shape)  # and some in range
        d = max(len(x_shape), 2, 1 + len(x_shape) - k)
        xs = x.reshape((1,) * (d - x.ndim) + x.shape)
        desc = validate(dmlc.GatherND1Desc(
            input=TensorDesc(data_type=dtype, sizes=xs.shape),
            indices=TensorDesc(data_type=DataType.of(itype.name),
                               sizes=(1,) * (d - 2) + ids.shape),
            input_dimension_count=x.ndim, indices_dimension_count=2))
        got, special = _both(desc, xs, ids.reshape(desc.indices.sizes))
        assert got == special == np.ascontiguousarray(reference_nd.gather_nd(x, ids)).tobytes()


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_gather_elements_equals_specialized(data):
    dtype, itype = data.draw(st.sampled_from(DTYPES)), np.dtype(data.draw(st.sampled_from(ITYPES)))
    rank = data.draw(st.integers(1, 3))
    axis, m = data.draw(st.integers(0, rank - 1)), data.draw(st.integers(1, 9))
    for _ in range(data.draw(st.integers(1, 3))):
        idx_shape = tuple(data.draw(st.lists(st.integers(1, 17), min_size=rank,
                                             max_size=rank)))
        x_shape = tuple(m if i == axis else s for i, s in enumerate(idx_shape))
        x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
        ids = random_bits(data.draw(st.integers(0, 99)), idx_shape, itype)
        ids[..., ::2] %= m
        desc = validate(dmlc.GatherElementsDesc(
            input=TensorDesc(data_type=dtype, sizes=x_shape),
            indices=TensorDesc(data_type=DataType.of(itype.name), sizes=idx_shape), axis=axis))
        got, special = _both(desc, x, ids)
        assert got == special == np.ascontiguousarray(
            reference.gather_elements(x, ids, axis)).tobytes()


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_one_hot_equals_specialized(data):
    dtype, itype = data.draw(st.sampled_from(DTYPES)), np.dtype(data.draw(st.sampled_from(ITYPES)))
    depth = data.draw(st.integers(1, 9))
    values = random_bits(data.draw(st.integers(0, 99)), (1, 2), dtype.numpy)
    for n in data.draw(st.lists(st.integers(1, 70), min_size=1, max_size=3)):
        ids = random_bits(n, (n, 1), itype)
        ids[::2] %= depth
        desc = validate(dmlc.OneHotDesc(
            indices=TensorDesc(data_type=DataType.of(itype.name), sizes=(n, 1)),
            values=TensorDesc(data_type=dtype, sizes=(1, 2)),
            output=TensorDesc(data_type=dtype, sizes=(n, depth)), axis=1))
        got, special = _both(desc, ids, values)
        want = reference_nd.one_hot(ids.reshape(n), values.reshape(2), depth, 1)
        assert got == special == np.ascontiguousarray(want).tobytes()


@settings(max_examples=budget(8))
@given(st.data())
def test_generic_gather_from_each_layer_of_a_device_cache(data):
    """Rows of each layer of a cache on the device (one buffer; each layer a view at its own
    offset, transposed or not: the strips variant): the table's offset is pushed, one generic
    kernel for every layer, bit for bit the specialized kernel and numpy, guard words intact."""
    dtype = data.draw(st.sampled_from(DTYPES))
    layers, rows, cols = data.draw(st.integers(2, 3)), data.draw(st.integers(1, 9)), \
        data.draw(st.sampled_from([1, 4, 5, 16]))
    transposed = data.draw(st.booleans())
    cache = random_bits(data.draw(st.integers(0, 99)), (layers, rows, cols), dtype.numpy)
    stored = np.ascontiguousarray(cache.transpose(0, 2, 1) if transposed else cache)
    dmlc.clear_cache()
    for layer in range(layers):
        ids = random_bits(layer, (1, data.draw(st.integers(1, 40))), np.dtype(np.int32))
        table = TensorDesc(data_type=dtype, sizes=(rows, cols),
                           strides=(1, rows) if transposed else (cols, 1),
                           offset=layer * rows * cols)
        desc = validate(dmlc.GatherDesc(input=table, indices=TensorDesc(
            data_type="int32", sizes=ids.shape), axis=0, index_dimensions=1))
        got, special = _both(desc, stored.reshape(-1), ids)
        want = reference.gather(cache[layer], ids, 0, 1)
        assert got == special == np.ascontiguousarray(want).tobytes()
    assert dmlc.cache_info()["compiles"]["DML_GATHER generic"] == 1  # every layer, every size

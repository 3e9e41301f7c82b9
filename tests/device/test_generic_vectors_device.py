"""Vector variants of generic kernels on the device (docs/generic-kernels.md: "Vectors"):
forced generic over sizes that hit and miss each variant's guard, bit for bit the specialized
kernel and numpy, guard words intact (tests/test_generic_vectors.py draws the cases)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests import reference, reference_nd
from tests.strategies import INDEX_TYPES, budget, index_arrays, random_bits
from tests.test_generic_families import _pad, _want_pad
from tests.test_generic_vectors import (
    WIDTHS,
    _elements,
    _join,
    _packed_strides,
    _split,
    _tile,
    block_width,
    elements_case,
    gather_case,
    interior_case,
    interior_kernels,
    join_arrays,
    join_case,
    moves_vectors,
    one_hot_check,
    pad_case,
    slice_vectors,
    split_case,
    tile_case,
    vstores,
)

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import CompiledKernel
from dmlc.family.registry import validate
from dmlc.ops.gather.desc import GatherDesc
from dmlc.ops.gather_nd.desc import GatherND1Desc

pytestmark = pytest.mark.vulkan


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64, DataType.FLOAT16,
                                   DataType.UINT8])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_split_vector_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    shape, axis, pieces, owner, hit = split_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), owner or shape, dtype.numpy)
    desc = _split(dtype, shape, axis, pieces, owner)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    arg = x if owner is None else x.reshape(-1)
    got = generic(arg)
    special = dmlc.compile(desc, dynamic=False)(arg)
    want = reference.split(x[tuple(slice(0, n) for n in shape)], list(pieces), axis)
    for g, s, w in zip(got, special, want, strict=True):
        assert g.tobytes() == s.tobytes() == np.ascontiguousarray(w).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64, DataType.FLOAT16,
                                   DataType.UINT8])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_join_vector_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    shapes, axis, views, hit = join_case(data, lanes)
    args, values = join_arrays(data, dtype, shapes, views)
    desc = _join(dtype, shapes, axis, views)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    got = generic(*args)
    special = dmlc.compile(desc, dynamic=False)(*args)
    want = np.concatenate(values, axis)
    assert got.tobytes() == special.tobytes() == want.tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64, DataType.FLOAT16,
                                   DataType.UINT8])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_tile_vector_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    shape, repeats, owner, hit = tile_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), owner or shape, dtype.numpy)
    desc = _tile(dtype, shape, repeats, owner)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    arg = x if owner is None else x.reshape(-1)
    got = generic(arg)
    special = dmlc.compile(desc, dynamic=False)(arg)
    want = np.tile(x[tuple(slice(0, n) for n in shape)], repeats)
    assert got.tobytes() == special.tobytes() == want.tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_gather_blocks_variant_on_device(dtype, data):
    dmlc.clear_cache()  # a table width seen before makes "always" push it (dynamic.py): no
    itype = data.draw(st.sampled_from(INDEX_TYPES))  # vectors then
    lanes = WIDTHS[dtype.itemsize]
    shape, pad, hit = gather_case(data, lanes)
    owner = (*shape[:-1], shape[-1] + pad)
    x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
    n = data.draw(st.integers(1, 9))
    ids = data.draw(index_arrays((1, 1, n), itype, shape[0]))
    desc = validate(GatherDesc(
        input=TensorDesc(data_type=dtype, sizes=shape,
                         strides=_packed_strides(owner) if pad else None),
        indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=(1, 1, n)),
        axis=0, index_dimensions=1))
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert vstores(generic) == (block_width(shape[-1], lanes) if hit else 0)
    arg = x.reshape(-1) if pad else x
    got = generic(arg, ids)
    special = dmlc.compile(desc, dynamic=False)(arg, ids)
    want = reference.gather(x[..., :shape[-1]], ids, 0, 1)
    assert got.tobytes() == special.tobytes() == want.tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.FLOAT64])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_gather_nd_blocks_variant_on_device(dtype, data):
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    lanes = WIDTHS[dtype.itemsize]
    shape, _, _ = gather_case(data, lanes)
    k = data.draw(st.integers(1, 2))
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    n = data.draw(st.integers(1, 9))
    ids = data.draw(index_arrays((n, k), itype, max(shape[:k])))
    desc = validate(GatherND1Desc(
        input=TensorDesc(data_type=dtype, sizes=shape),
        indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=(1, n, k)),
        input_dimension_count=3, indices_dimension_count=2, batch_dimension_count=0))
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert vstores(generic) == slice_vectors(shape, k, lanes)
    got = generic(x, ids.reshape(1, n, k))
    special = dmlc.compile(desc, dynamic=False)(x, ids.reshape(1, n, k))
    want = np.ascontiguousarray(reference_nd.gather_nd(x, ids))
    assert got.reshape(-1).tobytes() == special.reshape(-1).tobytes() \
        == want.reshape(-1).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_gather_elements_vector_variant_on_device(dtype, data):
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    lanes, ilanes = WIDTHS[dtype.itemsize], WIDTHS[itype.itemsize]
    x_shape, idx_shape, owner, axis, hit = elements_case(data, lanes, ilanes)
    x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
    ids = data.draw(index_arrays(owner or idx_shape, itype, x_shape[axis]))
    desc = _elements(dtype, itype, x_shape, idx_shape, owner, axis)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert (vstores(generic) == 8) == hit
    arg = ids if owner is None else ids.reshape(-1)
    got = generic(x, arg)
    special = dmlc.compile(desc, dynamic=False)(x, arg)
    want = reference.gather_elements(x, ids[..., :idx_shape[-1]], axis)
    assert got.tobytes() == special.tobytes() == want.tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64, DataType.FLOAT16,
                                   DataType.UINT8])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_padding_vector_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    mode, shape, start, end, hit = pad_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    desc = _pad(dtype, shape, mode, start, end, data.draw(st.integers(0, 100)))
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    got = generic(x)
    special = dmlc.compile(desc, dynamic=False)(x)
    assert got.tobytes() == special.tobytes() == _want_pad(x, desc).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_padding_interior_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    mode, shape, start, end, hit = interior_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    desc = _pad(dtype, shape, mode, start, end, data.draw(st.integers(0, 100)))
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and interior_kernels(generic) == hit
    got = generic(x)
    special = dmlc.compile(desc, dynamic=False)(x)
    assert got.tobytes() == special.tobytes() == _want_pad(x, desc).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("mode", ["DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_WRAP"])
@pytest.mark.parametrize("dtype", [DataType.FLOAT16, DataType.UINT8])
def test_padding_interior_narrow_falls_back_on_device(dtype, mode):
    """8/16-bit outputs of a shape the interior variant would take (it shifts 32/64-bit lanes)
    run another variant (row blocks of packed vectors here)."""
    desc = _pad(dtype, (3, 5, 64), mode, (1, 2, 2), (2, 1, 2), 7)
    x = random_bits(5, (3, 5, 64), dtype.numpy)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and not interior_kernels(generic)
    assert generic(x).tobytes() == _want_pad(x, desc).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT16, DataType.INT8, DataType.FLOAT32,
                                   DataType.INT64])
@settings(max_examples=budget(12))
@given(data=st.data())
def test_one_hot_rows_variant_on_device(dtype, data):
    """The one_hot cases of tests/test_generic_vectors.py run on the device, guard words
    intact."""
    def run(kernel: CompiledKernel, ids: np.ndarray, values: np.ndarray) -> np.ndarray:
        got = kernel(ids, values)
        if kernel.compiled.params:  # the generic kernel (compiled with guard words)
            assert kernel.executable().guard_damage() == []
        return got
    one_hot_check(data, dtype, run)


def test_padding_interior_without_innermost_pads_runs_one_kernel():
    """Innermost pads 0: the interior is the whole row and the program has no border kernel
    (it once had an empty one, which lavapipe crashed on binding: verify.py now refuses a
    kernel with no effects)."""
    shape, start, end = (4, 4, 36), (1, 2, 0), (3, 0, 0)
    x = random_bits(1, shape, np.float32)
    desc = _pad(DataType.FLOAT32, shape, "DML_PADDING_MODE_CONSTANT", start, end, 5)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert interior_kernels(generic)
    assert [k.name for k in generic.compiled.program.kernels] == ["padding"]
    assert generic(x).tobytes() == _want_pad(x, desc).tobytes()
    assert generic.executable().guard_damage() == []

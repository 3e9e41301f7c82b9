"""Generic kernels of the index families (docs/generic-kernels.md): gather_nd (a varying number
of index tuples), gather_elements (the indices' sizes) and one_hot (a varying number of
indices), on the interpreter: the generic program against the specialized one and an
independent numpy reference, for several sizes of one program, its proof of safety, the auto
policy's compiles, and checked mode's errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import INDEX_TYPES, index_arrays, random_bits
from tests.twins import assert_checked_twins

import dmlc
import reference
import reference_nd
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.ir.interp import run_buffers
from dmlc.ir.verify import verify_program
from dmlc.ops.gather.desc import GatherElementsDesc
from dmlc.ops.gather_nd.desc import GatherND1Desc
from dmlc.ops.one_hot.desc import OneHotDesc

DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


def _nd_desc(dtype: DataType, itype: np.dtype, x_shape: tuple[int, ...],
             idx_shape: tuple[int, ...], b: int) -> GatherND1Desc:
    r, q = len(x_shape), len(idx_shape)
    d = max(r, q, q - 1 + r - b - idx_shape[-1])
    return validate(GatherND1Desc(
        input=TensorDesc(data_type=dtype, sizes=(1,) * (d - r) + x_shape),
        indices=TensorDesc(data_type=DataType[itype.name.upper()],
                           sizes=(1,) * (d - q) + idx_shape),
        input_dimension_count=r, indices_dimension_count=q, batch_dimension_count=b))


@given(st.data())
def test_generic_gather_nd_matches_specialized_and_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    r = data.draw(st.integers(1, 4))
    b = data.draw(st.integers(0, r - 1))
    k = data.draw(st.integers(1, r - b))
    x_shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=r, max_size=r)))
    n_rest = data.draw(st.integers(1, 2))  # the counting dimensions (dynamic)
    x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
    dim = max(x_shape[b:b + k])

    def idx_shape(rest: tuple[int, ...]) -> tuple[int, ...]:
        return x_shape[:b] + rest + (k,)
    first = _nd_desc(dtype, itype, x_shape, idx_shape((2,) * n_rest), b)
    rules = rules_of(first).generic
    dims = rules.free(first)
    assert len(dims) == n_rest
    generic = rules.lower(first, dims)
    assert generic is not None
    verify_program(generic.program)
    for _ in range(3):  # one program, several sizes (1 and odd ones included)
        rest = tuple(data.draw(st.lists(st.integers(1, 7), min_size=n_rest, max_size=n_rest)))
        ids = data.draw(index_arrays(idx_shape(rest), itype, dim))
        desc = _nd_desc(dtype, itype, x_shape, ids.shape, b)
        values = generic.values(desc)
        assert values is not None
        got = run_buffers(generic.program, x, ids, params=values)["output"]
        special = dmlc.compile(desc, dynamic=False)
        assert not special.compiled.params
        want = np.ascontiguousarray(reference_nd.gather_nd(x, ids, b))
        assert got.tobytes() == want.tobytes()
        xs, ids = x.reshape(desc.input.sizes), ids.reshape(desc.indices.sizes)
        assert special.reference(xs, ids).tobytes() == want.tobytes()



@given(st.data())
def test_generic_gather_nd_by_vectors_matches_numpy(data):
    """Rows whose innermost size is a multiple of the vector width move as 16-byte vectors,
    one tuple read per vector, for every number of tuples."""
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    lanes = 16 // dtype.itemsize
    x_shape = (data.draw(st.integers(1, 5)), data.draw(st.integers(1, 3)),
               lanes * data.draw(st.integers(1, 3)))
    k = data.draw(st.integers(1, 2))
    x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
    generic = rules_of(_nd_desc(dtype, itype, x_shape, (2, k), 0)).generic.lower(
        _nd_desc(dtype, itype, x_shape, (2, k), 0), (1,))
    assert generic is not None
    assert generic.program.kernels[-1].effects[0].op.name == "VSTORE"
    verify_program(generic.program)
    for n in data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)):
        ids = data.draw(index_arrays((n, k), itype, max(x_shape[:k])))
        desc = _nd_desc(dtype, itype, x_shape, ids.shape, 0)
        got = run_buffers(generic.program, x, ids, params=generic.values(desc))["output"]
        want = np.ascontiguousarray(reference_nd.gather_nd(x, ids))
        assert got.tobytes() == want.tobytes()

def test_auto_gather_nd_is_one_specialized_then_one_generic_kernel():
    dmlc.clear_cache()
    x = np.arange(60, dtype=np.float32).reshape(5, 4, 3)
    for n in (3, 1, 7, 2, 5, 64):
        ids = np.random.default_rng(n).integers(-6, 6, (n, 2)).astype(np.int64)
        desc = _nd_desc(DataType.FLOAT32, ids.dtype, x.shape, ids.shape, 0)
        kernel = dmlc.compile(desc)
        want = reference_nd.gather_nd(x, ids)
        assert kernel.reference(x, ids.reshape(desc.indices.sizes)).tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER_ND1": 1, "DML_GATHER_ND1 generic": 1}
    KERNELS.clear()


def test_generic_checked_gather_nd_raises_as_the_specialized_one():
    x = np.arange(60, dtype=np.float32).reshape(5, 4, 3)
    dmlc.clear_cache()
    for ids in ([[1, 2], [3, 0]], [[0, 1], [4, -5], [2, 2]], [[5, 0]], [[1, 1], [0, -1]]):
        i = np.array(ids, np.int32)
        desc = _nd_desc(DataType.FLOAT32, i.dtype, x.shape, i.shape, 0)
        i = i.reshape(desc.indices.sizes)
        generic = dmlc.compile(desc, dynamic=True, check_indices=True)
        special = dmlc.compile(desc, dynamic=False, check_indices=True)
        assert_checked_twins(generic, special, x, i)
    assert dmlc.cache_info()["compiles"]["DML_GATHER_ND1 generic"] == 1
    KERNELS.clear()


def test_generic_gather_nd_of_narrow_outputs_and_its_fixed_batch():
    f16 = _nd_desc(DataType.FLOAT16, np.dtype("int32"), (5, 4), (3, 1), 0)
    assert dmlc.compile(f16, dynamic=True).compiled.params  # words (family/words.py)
    batched = _nd_desc(DataType.FLOAT32, np.dtype("int32"), (2, 5, 4), (2, 3, 1), 1)
    assert rules_of(batched).generic.free(batched) == (1,)  # the batch is the input's
    KERNELS.clear()


def _elements_desc(dtype: DataType, itype: np.dtype, x_shape: tuple[int, ...],
                   idx_shape: tuple[int, ...], axis: int) -> GatherElementsDesc:
    return validate(GatherElementsDesc(
        input=TensorDesc(data_type=dtype, sizes=x_shape),
        indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=idx_shape), axis=axis))


@given(st.data())
def test_generic_gather_elements_matches_specialized_and_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    rank = data.draw(st.integers(1, 4))
    axis = data.draw(st.integers(0, rank - 1))
    m = data.draw(st.integers(1, 6))  # the input's axis: static
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, rank - 1), min_size=1))))

    def draw_sizes() -> tuple[int, ...]:
        return tuple(data.draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    first = draw_sizes()

    def shapes(sizes: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        idx = tuple(s if i in dims else first[i] for i, s in enumerate(sizes))
        return tuple(m if i == axis else s for i, s in enumerate(idx)), idx
    generic = rules_of(_elements_desc(dtype, itype, *shapes(first), axis)).generic.lower(
        _elements_desc(dtype, itype, *shapes(first), axis), dims)
    assert generic is not None
    verify_program(generic.program)
    for _ in range(3):  # one program, several sizes (1 and odd ones included)
        x_shape, idx_shape = shapes(draw_sizes())
        x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
        ids = data.draw(index_arrays(idx_shape, itype, m))
        desc = _elements_desc(dtype, itype, x_shape, idx_shape, axis)
        values = generic.values(desc)
        assert values is not None
        got = run_buffers(generic.program, x, ids, params=values)["output"]
        want = np.ascontiguousarray(reference.gather_elements(x, ids, axis))
        assert got.tobytes() == want.tobytes()
        special = dmlc.compile(desc, dynamic=False)
        assert not special.compiled.params
        assert special.reference(x, ids).tobytes() == want.tobytes()


def test_auto_gather_elements_is_one_specialized_then_one_generic_kernel():
    dmlc.clear_cache()
    for rows in (3, 1, 7, 2, 5, 33):
        x = np.arange(rows * 4, dtype=np.int32).reshape(rows, 4)
        ids = np.random.default_rng(rows).integers(-5, 5, (rows, 9)).astype(np.int64)
        desc = _elements_desc(DataType.INT32, ids.dtype, x.shape, ids.shape, 1)
        want = reference.gather_elements(x, ids, 1)
        assert dmlc.compile(desc).reference(x, ids).tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER_ELEMENTS": 1,
                                             "DML_GATHER_ELEMENTS generic": 1}
    KERNELS.clear()


def test_generic_checked_gather_elements_raises_as_the_specialized_one():
    dmlc.clear_cache()
    for ids in ([[1, 2], [3, 0]], [[0, 1], [4, -5], [2, 2]], [[5, 0]], [[1, 1], [0, -4]]):
        i = np.array(ids, np.int64)
        x = np.arange(i.shape[0] * 4, dtype=np.float32).reshape(-1, 4)
        desc = _elements_desc(DataType.FLOAT32, i.dtype, x.shape, i.shape, 1)
        generic = dmlc.compile(desc, dynamic=True, check_indices=True)
        special = dmlc.compile(desc, dynamic=False, check_indices=True)
        assert_checked_twins(generic, special, x, i)
    assert dmlc.cache_info()["compiles"]["DML_GATHER_ELEMENTS generic"] == 1
    KERNELS.clear()


def _one_hot_desc(dtype: DataType, itype: np.dtype, shape: tuple[int, ...], depth: int,
                  axis: int) -> OneHotDesc:
    rank = len(shape) + 1
    return validate(OneHotDesc(
        indices=TensorDesc(data_type=DataType[itype.name.upper()],
                           sizes=shape[:axis] + (1,) + shape[axis:]),
        values=TensorDesc(data_type=dtype, sizes=(1,) * (rank - 1) + (2,)),
        output=TensorDesc(data_type=dtype, sizes=shape[:axis] + (depth,) + shape[axis:]),
        axis=axis))


@given(st.data())
def test_generic_one_hot_matches_specialized_and_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    rank = data.draw(st.integers(1, 3))
    axis = data.draw(st.integers(0, rank))
    depth = data.draw(st.integers(1, 6))
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, rank - 1), min_size=1))))
    values = random_bits(data.draw(st.integers(0, 99)), (2,), dtype.numpy)

    def draw_shape(first: tuple[int, ...] | None = None) -> tuple[int, ...]:
        s = tuple(data.draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
        return s if first is None else tuple(n if i in dims else first[i]
                                             for i, n in enumerate(s))
    first = draw_shape()
    desc0 = _one_hot_desc(dtype, itype, first, depth, axis)
    rules = rules_of(desc0).generic
    gdims = tuple(i if i < axis else i + 1 for i in dims)  # the indices' dimensions
    assert set(gdims) <= set(rules.free(desc0))
    generic = rules.lower(desc0, gdims)
    assert generic is not None
    verify_program(generic.program)
    for _ in range(3):  # one program, several sizes (1 and odd ones included)
        shape = draw_shape(first)
        ids = data.draw(index_arrays(shape, itype, depth))
        desc = _one_hot_desc(dtype, itype, shape, depth, axis)
        vals = values.reshape(desc.values.sizes)
        ids = ids.reshape(desc.indices.sizes)
        got = run_buffers(generic.program, ids, vals, params=generic.values(desc))["output"]
        want = np.ascontiguousarray(reference_nd.one_hot(ids.reshape(shape), values, depth,
                                                         axis))
        assert got.tobytes() == want.tobytes()
        special = dmlc.compile(desc, dynamic=False)
        assert not special.compiled.params
        assert special.reference(ids, vals).tobytes() == want.tobytes()


def test_auto_one_hot_is_one_specialized_then_one_generic_kernel():
    dmlc.clear_cache()
    values = np.array([[0.0, 1.0]], np.float32)
    for n in (3, 1, 7, 2, 5, 40):
        ids = np.random.default_rng(n).integers(-7, 7, (n, 1)).astype(np.int32)
        desc = _one_hot_desc(DataType.FLOAT32, ids.dtype, (n,), 5, 1)
        want = reference_nd.one_hot(ids.reshape(n), values, 5, 1)
        assert dmlc.compile(desc).reference(ids, values).tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_ONE_HOT": 1, "DML_ONE_HOT generic": 1}
    KERNELS.clear()


def test_generic_checked_one_hot_raises_as_the_specialized_one():
    dmlc.clear_cache()
    values = np.array([[0, 1]], np.int64)
    for ids in ([1, 2, 3], [0, -6, 4, 5, 3], [4], [2, 4, -5, 1]):
        i = np.array(ids, np.int64).reshape(-1, 1)
        desc = _one_hot_desc(DataType.INT64, i.dtype, (len(ids),), 5, 1)
        generic = dmlc.compile(desc, dynamic=True, check_indices=True)
        special = dmlc.compile(desc, dynamic=False, check_indices=True)
        assert generic.compiled.params and not special.compiled.params
        try:
            want = special.reference(i, values)
        except dmlc.IndexOutOfRangeError as e:
            with pytest.raises(dmlc.IndexOutOfRangeError) as got:
                generic.reference(i, values)
            assert str(got.value) == str(e)
        else:
            assert generic.reference(i, values).tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"]["DML_ONE_HOT generic"] == 1
    KERNELS.clear()

"""Generic gathers from tables whose sizes are pushed too (ops/gather/lower.py), without a
device: a beam search's cache reordered by its beams as the batch and the sequence grow, a
window of a cache. One kernel lowered with every free dimension dynamic (the input's sizes as
well as the indices') serves calls of other sizes, packed (its strides products of pushed
sizes) or views of one buffer (strides fixed, the offset pushed), by the interpreter bit for
bit the specialized kernel's result (checked mode: tests/test_generic.py); and the shape
policy compiles one specialized and one generic kernel over five sizes."""
from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.ir.interp import run_buffers
from dmlc.ir.verify import verify_program
from dmlc.ops.gather.desc import GatherDesc
from dmlc.ops.gather.lower import gather_variants, lower_gather_generic

DTYPES = list(DataType)
ITYPES = [DataType.INT32, DataType.INT64, DataType.UINT32, DataType.UINT64]


def _gather(dtype: DataType, sizes: tuple[int, ...], itype: DataType, isizes: tuple[int, ...],
            axis: int, k: int, strides: tuple[int, ...] | None = None,
            offset: int = 0) -> GatherDesc:
    return validate(GatherDesc(
        input=TensorDesc(data_type=dtype, sizes=sizes, strides=strides, offset=offset),
        indices=TensorDesc(data_type=itype, sizes=isizes), axis=axis, index_dimensions=k))


@st.composite
def gathers(draw: Any) -> tuple[Any, ...]:
    """A table of rank 1-4 (packed, or a view into a buffer of `full` sizes), a count k of
    index dimensions and an axis (DirectML's rule: the table's leading k - 1 sizes are 1s, and
    the axis is not among them)."""
    d = draw(st.integers(1, 4))
    k = draw(st.integers(1, d))
    full = (1,) * (k - 1) + tuple(draw(st.lists(st.integers(1, 5), min_size=d - k + 1,
                                                max_size=d - k + 1)))
    axis = draw(st.integers(k - 1, d - 1))
    return (draw(st.sampled_from(DTYPES)), draw(st.sampled_from(ITYPES)), full, axis, k,
            draw(st.booleans()))


@settings(max_examples=budget(40), deadline=None)
@given(gathers(), st.data())
def test_one_generic_gather_serves_tables_of_every_size(case, data):
    dtype, itype, full, axis, k, view = case
    d = len(full)
    buffer = random_bits(data.draw(st.integers(0, 99)), (int(np.prod(full)) + 3,), dtype.numpy)
    strides = tuple(int(np.prod(full[i + 1:])) for i in range(d))

    def call() -> tuple[GatherDesc, np.ndarray, np.ndarray]:
        sizes = tuple(data.draw(st.integers(1, n)) for n in full)
        isizes = (1,) * (d - k) + tuple(data.draw(st.integers(1, 4)) for _ in range(k))
        info = np.iinfo(itype.numpy)
        ids = np.array(data.draw(st.lists(st.integers(max(int(info.min), -9),
                                                       min(int(info.max), 9)),
                                          min_size=int(np.prod(isizes)),
                                          max_size=int(np.prod(isizes)))),
                       itype.numpy).reshape(isizes)
        if view:  # a window of the buffer at a moving offset
            offset = data.draw(st.integers(0, 3))
            return (_gather(dtype, sizes, itype, isizes, axis, k, strides, offset), buffer, ids)
        table = buffer[:int(np.prod(sizes))].reshape(sizes)
        return _gather(dtype, sizes, itype, isizes, axis, k), table, ids

    first, _, _ = call()
    rules = rules_of(first).generic
    assert rules is not None
    dims = rules.free(first)
    assert set(range(d + k - 1, 2 * d)) <= set(dims), dims  # the table's but its leading 1s
    generic = lower_gather_generic(first, dims)
    assert generic is not None
    verify_program(generic.program)
    assert gather_variants(first, dims) == ("rows/e",)  # the row's width pushed: elements
    for _ in range(3):
        desc, table, ids = call()
        values = generic.values(desc)
        assert values is not None, desc
        got = run_buffers(generic.program, table, ids, params=values)["output"]
        want = dmlc.compile(desc, dynamic=False).reference(table, ids)
        assert got.tobytes() == np.ascontiguousarray(want).reshape(-1).view(got.dtype).tobytes()


def test_vector_kernels_keep_the_row_width_static():
    """Forced mode ("always") pushes every size of the table but its innermost (a row's
    width): the vector kernels of a table of aligned rows stay; a width that varies is pushed
    too, by elements."""
    desc = _gather(DataType.FLOAT32, (6, 3, 8), DataType.INT32, (1, 1, 2), 0, 1)
    rules = rules_of(desc).generic
    assert rules is not None and rules.always is not None
    forced = rules.always(desc)
    assert forced == (2, 3, 4)  # the indices' last, the table's but its width
    assert gather_variants(desc, forced) == ("blocks", "rows")
    assert gather_variants(desc, (*forced, 5)) == ("rows/e",)
    generic = lower_gather_generic(desc, forced, "rows")
    assert generic is not None and "vload" in str(generic.program.kernels[0].effects)
    wider = _gather(DataType.FLOAT32, (9, 5, 8), DataType.INT32, (1, 1, 7), 0, 1)
    assert generic.values(wider) is not None


def test_a_beam_search_reorder_compiles_one_specialized_and_one_generic(monkeypatch):
    """A cache [beams, heads, t, dim] reordered by beam_idx (axis 0) as the beams change and
    the sequence grows at each step: the first shape specialized, then one generic kernel for
    the rest."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for beams, t in ((2, 3), (3, 4), (4, 5), (4, 6), (6, 7)):
        dmlc.compile(_gather(DataType.FLOAT16, (beams, 2, t, 8), DataType.INT64,
                             (1, 1, 1, beams), 0, 1))
    info = dmlc.cache_info()
    assert info["compiles"] == {"DML_GATHER": 1, "DML_GATHER generic": 1}, info["compiles"]
    assert list(info["generic"].values()) == [4]
    KERNELS.clear()


@settings(max_examples=budget(40), deadline=None)
@given(st.data())
def test_one_generic_gather_serves_transposed_views_of_every_size(data):
    """A table that is a transposed view of a packed tensor (ONNX's Transpose -> Gather): its
    strides are the viewed tensor's sizes, pushed with them. Each variant the first call
    admits, lowered once with every free dimension dynamic, serves views of tensors of other
    sizes (a vector variant those whose strides stay aligned), bit for bit."""
    dtype = data.draw(st.sampled_from([DataType.FLOAT32, DataType.FLOAT16, DataType.INT64,
                                       DataType.UINT8]))
    d = data.draw(st.integers(2, 4))
    perm = data.draw(st.permutations(range(d)))
    axis = data.draw(st.integers(0, d - 1))
    lanes = 16 // dtype.itemsize
    width = data.draw(st.sampled_from([1, 3, lanes, 2 * lanes]))  # the view's innermost

    def call() -> tuple[GatherDesc, np.ndarray, np.ndarray]:
        base = [data.draw(st.integers(1, 5)) for _ in range(d)]
        base[perm[-1]] = width
        packed = random_bits(data.draw(st.integers(0, 99)), tuple(base), dtype.numpy)
        view = packed.transpose(perm)
        strides = tuple(st // dtype.itemsize for st in view.strides)
        n = data.draw(st.integers(1, 4))
        ids = np.array(data.draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n)),
                       np.int32).reshape((1,) * (d - 1) + (n,))
        desc = _gather(dtype, view.shape, DataType.INT32, ids.shape, axis, 1, strides)
        return desc, packed.reshape(-1), ids

    first, _, _ = call()
    rules = rules_of(first).generic
    assert rules is not None
    dims = rules.free(first)
    programs = [(v, lower_gather_generic(first, dims, v)) for v in gather_variants(first, dims)]
    assert all(g is not None for _, g in programs)
    for _ in range(3):
        desc, buffer, ids = call()
        want = dmlc.compile(desc, dynamic=False).reference(buffer, ids)
        for variant, generic in programs:
            assert generic is not None
            values = generic.values(desc)
            if values is None:  # a vector variant's strides or offset no longer aligned
                assert variant in ("blocks", "rows"), (variant, desc)
                continue
            got = run_buffers(generic.program, buffer, ids, params=values)["output"]
            assert got.tobytes() == np.ascontiguousarray(want).reshape(-1).view(
                got.dtype).tobytes(), variant


def test_a_table_over_the_smallest_binding_range_keeps_its_sizes_static():
    """A table of pushed sizes has a runtime extent, which is never split into chunks: one
    larger than every device binds at once (Vulkan's minimum maxStorageBufferRange) keeps its
    sizes static in forced mode, so that its generic kernel (chunked) still exists."""
    small = _gather(DataType.FLOAT32, (1000, 64), DataType.INT32, (1, 7), 0, 1)
    big = _gather(DataType.FLOAT32, (49920, 1024), DataType.INT32, (1, 7), 0, 1)
    for desc, table in ((small, (2,)), (big, ())):
        rules = rules_of(desc).generic
        assert rules is not None and rules.always is not None
        assert rules.always(desc) == (1, *table)

"""Generic kernels without a device (docs/generic-kernels.md): the IR with PARAMs, its proof of
safety for every admissible size, the interpreter against numpy, and the shape policy."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits
from tests.twins import assert_checked_twins

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.dynamic import ShapePolicy, resolve_mode
from dmlc.errors import ValidationError
from dmlc.family.generic import GenericRules, explicit
from dmlc.family.registry import rules_of, validate
from dmlc.ir import build as b
from dmlc.ir.interp import run_buffers
from dmlc.ir.ops import IRError
from dmlc.ir.verify import verify_program
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.copy.lower import identity_variants, lower_identity_generic
from dmlc.ops.gather.desc import GatherDesc
from dmlc.ops.gather.lower import lower_gather_generic
from dmlc.ops.scatter.desc import ScatterDesc

DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


def _view_desc(dtype: DataType, full: tuple[int, ...], sizes: tuple[int, ...]) -> IdentityDesc:
    strides = tuple(int(np.prod(full[i + 1:])) for i in range(len(full)))
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes, strides=strides)))


def test_param_ranges_and_divisors():
    p = b.param(0, 1, 100)
    q = b.floordiv(b.item_id(1000), p)
    assert q.bounds == (0, 999) and q.divisor == 1
    assert b.floormod(b.item_id(1000), p).bounds == (0, 99)
    with pytest.raises(ValueError):
        b.floordiv(b.sub(b.item_id(10), 5), p)  # a dividend that may be negative
    with pytest.raises(ValueError):
        b.floordiv(b.item_id(10), b.param(0, 0, 5))  # a divisor that may be 0


@given(st.data())
def test_generic_copy_of_views_matches_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    full = tuple(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)))
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, len(full) - 1), min_size=1))))
    generic = lower_identity_generic(_view_desc(dtype, full, full), dims)
    assert generic is not None
    verify_program(generic.program)
    x = random_bits(data.draw(st.integers(0, 99)), full, dtype.numpy)
    for _ in range(3):  # one program, several sizes
        sizes = tuple(data.draw(st.integers(1, n)) if i in dims else n
                      for i, n in enumerate(full))
        desc = _view_desc(dtype, full, sizes)
        values = generic.values(desc)
        assert values is not None
        raw = run_buffers(generic.program, x, params=values)["output"]
        want = x[tuple(slice(0, n) for n in sizes)]
        assert np.array_equal(raw.view(dtype.numpy).reshape(sizes).view(raw.dtype),
                              np.ascontiguousarray(want).view(raw.dtype))


@given(st.data())
def test_generic_gather_matches_specialized(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from([DataType.INT32, DataType.INT64, DataType.UINT32,
                                       DataType.UINT64]))
    rows, width = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 5))
    table = random_bits(1, (rows, width), dtype.numpy)

    def desc(n: int) -> GatherDesc:
        return validate(GatherDesc(input=TensorDesc(data_type=dtype, sizes=(rows, width)),
                                   indices=TensorDesc(data_type=itype, sizes=(1, n)), axis=0,
                                   index_dimensions=1))
    generic = lower_gather_generic(desc(1), (1,))
    assert generic is not None
    for n in data.draw(st.lists(st.integers(1, 12), min_size=1, max_size=3)):
        info = np.iinfo(itype.numpy)
        ids = np.array(data.draw(st.lists(st.integers(max(int(info.min), -2**40),
                                                       min(int(info.max), 2**40)),
                                          min_size=n, max_size=n)), itype.numpy).reshape(1, n)
        got = run_buffers(generic.program, table, ids, params=generic.values(desc(n)))["output"]
        special = dmlc.compile(desc(n), dynamic=False).reference(table, ids)
        assert np.array_equal(got, np.ascontiguousarray(special).reshape(-1).view(got.dtype))


def test_verify_refuses_unclamped_access_of_a_runtime_extent():
    generic = lower_identity_generic(_view_desc(DataType.FLOAT32, (4, 8), (4, 8)), (1,))
    assert generic is not None
    p = generic.program
    k = p.kernels[0]
    load = next(n for n in k.effects[0].toposort() if n.op.name == "LOAD")
    raw = load.src[0].src[0]  # the address before its clamp
    bad = b.store(p.buffer("output"), k.gid, b.load(p.buffer("input"), raw))
    with pytest.raises(IRError, match="runtime extent"):
        verify_program(p.with_kernels((type(k)(k.name, k.items, (bad,), count=k.count),)))


def test_interp_refuses_a_param_outside_its_range():
    generic = lower_identity_generic(_view_desc(DataType.FLOAT32, (4, 8), (4, 8)), (1,))
    assert generic is not None
    values = list(generic.values(_view_desc(DataType.FLOAT32, (4, 8), (4, 8))) or ())
    values[0] = 0
    with pytest.raises(IRError, match="outside its range"):
        run_buffers(generic.program, np.zeros(32, np.float32), params=tuple(values))


def test_policy_auto_specializes_first_then_one_generic():
    rules = rules_of(_view_desc(DataType.FLOAT32, (2, 8), (2, 8))).generic
    assert isinstance(rules, GenericRules)
    policy = ShapePolicy()
    chosen = [policy.dims(rules, _view_desc(DataType.FLOAT32, (2, 8), (2, t)), None, "auto",
                          True) for t in (3, 3, 4, 5, 3)]
    assert chosen == [None, None, (1,), (1,), (1,)]
    assert policy.dims(rules, _view_desc(DataType.FLOAT32, (2, 8), (2, 1)), None, "never",
                       True) is None
    assert policy.dims(rules, _view_desc(DataType.FLOAT32, (2, 8), (2, 1)), None, "always",
                       True) == (0, 1)


def test_resolve_mode(monkeypatch):
    assert resolve_mode(True) == "always" and resolve_mode(False) == "never"
    assert resolve_mode((2, 0, 2)) == (0, 2)
    monkeypatch.setenv("DMLC_DYNAMIC", "never")
    assert resolve_mode(None) == "never"
    monkeypatch.setenv("DMLC_DYNAMIC", "sometimes")
    with pytest.raises(ValidationError, match="DMLC_DYNAMIC"):
        resolve_mode(None)
    with pytest.raises(ValidationError, match="dynamic"):
        resolve_mode("yes")


def test_compile_dynamic_true_shares_one_program():
    dmlc.clear_cache()
    a = dmlc.compile(_view_desc(DataType.FLOAT32, (3, 8), (3, 5)), dynamic=True)
    c = dmlc.compile(_view_desc(DataType.FLOAT32, (3, 8), (2, 7)), dynamic=True)
    assert a.program is c.program and a.compiled.params != c.compiled.params
    assert "push_constant" in a.glsl
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY generic": 1}
    x = np.arange(24, dtype=np.float32)
    assert np.array_equal(c.reference(x), x.reshape(3, 8)[:2, :7])
    # an 8/16-bit output too: one kernel storing words (family/words.py)
    small = dmlc.compile(_view_desc(DataType.FLOAT16, (3, 8), (3, 5)), dynamic=True)
    other = dmlc.compile(_view_desc(DataType.FLOAT16, (3, 8), (1, 7)), dynamic=True)
    assert small.program is other.program and small.compiled.params
    h = np.arange(24, dtype=np.float16)
    assert other.reference(h).tobytes() == h.reshape(3, 8)[:1, :7].tobytes()
    KERNELS.clear()


def test_explicit_layout_of_size_one_dimensions_and_packed_tensors():
    f32 = DataType.FLOAT32
    view1 = TensorDesc(data_type=f32, sizes=(4, 64, 1), strides=(12800, 200, 0))
    assert explicit(view1, (2,)).strides == (12800, 200, 1)  # what cache[:, :, :t] has
    assert explicit(TensorDesc(data_type=f32, sizes=(4, 1, 200), strides=(12800, 0, 1)),
                    (0,)).strides == (12800, 200, 1)
    # the guess never reads a dynamic size: a key must not change with it
    assert explicit(TensorDesc(data_type=f32, sizes=(4, 1, 7), strides=(12800, 0, 1)),
                    (2,)).strides == (12800, 0, 1)
    assert explicit(TensorDesc(data_type=f32, sizes=(4, 64, 200)), (2,)).strides == \
        (12800, 200, 1)


def _strided(dtype: DataType, sizes: tuple[int, ...], strides: tuple[int, ...] | None,
             offset: int = 0) -> IdentityDesc:
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes, strides=strides,
                                                  offset=offset)))


def test_window_copy_is_one_specialized_and_one_generic_kernel():
    """The decode loop's copy of cache[:, :, :t] for t = 1 (a size-1 dimension: stride 0), the
    growing window, and t = the whole cache (packed, no strides): one signature."""
    dmlc.clear_cache()
    full = (2, 3, 9)
    x = np.arange(54, dtype=np.float32)
    for t in (1, 2, 5, 9, 1, 9, 4):
        strides = None if t == 9 else (27, 9, 1 if t > 1 else 0)
        kernel = dmlc.compile(_strided(DataType.FLOAT32, (2, 3, t), strides), dynamic="auto")
        arg = x.reshape(full) if strides is None else x
        assert np.array_equal(kernel.reference(arg), x.reshape(full)[:, :, :t])
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}
    dmlc.clear_cache()
    for t in (1, 3, 9):  # forced: the kernel lowered at t = 1 serves the rest
        strides = None if t == 9 else (27, 9, 1 if t > 1 else 0)
        kernel = dmlc.compile(_strided(DataType.FLOAT32, (2, 3, t), strides), dynamic=True)
        assert kernel.compiled.params
        arg = x.reshape(full) if strides is None else x
        assert np.array_equal(kernel.reference(arg), x.reshape(full)[:, :, :t])
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY generic": 1}
    KERNELS.clear()


@given(st.data())
def test_generic_copy_any_size_one_stride_matches_numpy(data):
    """Views whose size-1 dimensions carry any stride (0, the real one, another) and the whole
    tensor packed, in any order through one cache: the kernel each call gets (sharing by the
    canonical layout) reads exactly numpy's elements."""
    dmlc.clear_cache()
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    steps = tuple(data.draw(st.integers(1, 2)) for _ in full)
    base = [int(np.prod(full[i + 1:])) for i in range(len(full))]
    x = random_bits(data.draw(st.integers(0, 99)), (int(np.prod(full)),), np.dtype(np.int32))
    mode = data.draw(st.sampled_from(["auto", True]))
    for _ in range(5):
        sizes = tuple(data.draw(st.integers(1, -(-n // s))) for n, s in zip(full, steps))
        strides = tuple(b_ * s if n > 1 else data.draw(st.sampled_from([0, b_ * s, 3]))
                        for b_, s, n in zip(base, steps, sizes))
        packed = sizes == full and all(s == 1 for s in steps) and data.draw(st.booleans())
        kernel = dmlc.compile(_strided(DataType.INT32, sizes, None if packed else strides),
                              dynamic=mode)
        want = np.lib.stride_tricks.as_strided(x, sizes, [4 * st_ for st_ in strides])
        assert np.array_equal(kernel.reference(x.reshape(sizes) if packed else x), want)
    compiles = dmlc.cache_info()["compiles"]
    assert sum(compiles.values()) <= 5
    KERNELS.clear()


def test_generic_gather_admits_as_many_indices_as_the_output_allows():
    """The bound on a dynamic size counts the output's elements (the indices' times the input's
    off the axis), not the whole input's: the bench's [65536, 256] row gather is admissible."""
    def desc(n: int) -> GatherDesc:
        return validate(GatherDesc(input=TensorDesc(data_type=DataType.FLOAT32,
                                                    sizes=(65536, 256)),
                                   indices=TensorDesc(data_type=DataType.INT32, sizes=(1, n)),
                                   axis=0, index_dimensions=1))
    generic = lower_gather_generic(desc(1), (1,))
    assert generic is not None
    assert generic.values(desc(65536)) is not None
    assert generic.values(desc(2**22 - 1)) is not None  # under 2**30 output elements
    assert generic.values(desc(2**22)) is None
    verify_program(generic.program)


def test_forced_mode_compiles_a_family_without_a_generic_kernel_once():
    """dynamic=True on a descriptor without a generic lowering (a scatter tuned for a GPU: no
    generic vote; a copy of a given TotalTensorSizeInBytes): the specialized kernel, compiled
    once and then found (it was compiled on every call)."""
    dmlc.clear_cache()
    i32 = DataType.INT32
    desc = validate(ScatterDesc(input=TensorDesc(data_type=i32, sizes=(2, 4)),
                                indices=TensorDesc(data_type=i32, sizes=(2, 1)),
                                updates=TensorDesc(data_type=i32, sizes=(2, 1)), axis=1))
    sized = validate(IdentityDesc(input=TensorDesc(data_type=DataType.FLOAT16, sizes=(3, 5),
                                                   total_bytes=32)))  # no generic form
    for _ in range(3):
        assert not dmlc.compile(desc, dynamic=True, target="gpu").compiled.params
        assert not dmlc.compile(sized, dynamic=(1,)).compiled.params
    assert dmlc.cache_info()["compiles"] == {"DML_SCATTER": 1, "DML_ELEMENT_WISE_IDENTITY": 1}
    KERNELS.clear()


def test_forced_mode_falls_back_to_the_next_variant_that_admits_the_call():
    """A tile repeated 2**22 times leaves its input's dynamic size a range of [1, 4]: too
    narrow for the vector variant (two vectors or more), wide enough for the scalar one. Forced
    generic runs the scalar variant, not a specialized kernel (the best variant alone was tried)."""
    dmlc.clear_cache()
    desc = validate(dmlc.TileDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(4,)),
                                  repeats=(1 << 22,)))
    assert rules_of(desc).generic.choices(desc, (0,)) == ("vector", "scalar")
    kernel = dmlc.compile(desc, dynamic=True)
    assert kernel.compiled.params
    assert dmlc.cache_info()["generic"] == {"DML_TILE dims (0,) scalar #0": 1}
    assert dmlc.cache_info()["compiles"] == {"DML_TILE generic": 1}
    KERNELS.clear()


def test_forced_mode_keeps_size_one_dimensions_static_and_lowers_each_program_once(
        monkeypatch):
    """dynamic=True on [1, 16, H, H] reflect pads: every dimension dynamic does not admit these
    sizes, so the size-1 one stays static (a generic kernel, not a specialized one), and the
    programs that did not admit a call are lowered once: later sizes are checked against them
    (each new size lowered every variant again, ~6 ms)."""
    from dmlc.ops.pad.desc import PaddingDesc
    dmlc.clear_cache()
    lowered: list[tuple[int, ...]] = []
    build = GenericRules.build

    def counted(rules: GenericRules, desc: object, dims: tuple[int, ...],
                variant: str) -> object:
        lowered.append(tuple(dims))
        return build(rules, desc, dims, variant)
    monkeypatch.setattr(GenericRules, "build", counted)
    for h in (256, 240, 224, 200):  # multiples of 4: the interior kernel admits each
        desc = PaddingDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 16, h, h)),
                           mode="DML_PADDING_MODE_REFLECTION", start_padding=(0, 0, 2, 2),
                           end_padding=(0, 0, 2, 2))
        assert dmlc.compile(desc, dynamic=True, target="gpu").compiled.params
        if h == 256:
            first = list(lowered)
    assert (0, 1, 2, 3) in first and (1, 2, 3) in first  # all four tried, then three
    assert lowered == first, lowered  # nothing lowered again for 240, 224, 200
    assert dmlc.cache_info()["compiles"] == {"DML_PADDING1 generic": 1}
    KERNELS.clear()


@given(st.data())
def test_generic_gather_by_vectors_matches_specialized(data):
    """The generic gather moves whole 16-byte vectors where the input's innermost size, strides
    and offset allow it (a static fact: every size of the indices then has aligned vectors),
    element by element elsewhere; both bit for bit the specialized kernel's result over random
    index counts, padded rows and offsets included."""
    dtype = data.draw(st.sampled_from(DTYPES))
    rows = data.draw(st.integers(1, 9))
    width = data.draw(st.sampled_from([1, 2, 3, 4, 6, 8, 12]))
    pad, offset = data.draw(st.sampled_from([0, 1, 2, 4])), data.draw(st.sampled_from([0, 2, 4]))
    strides = None if pad == 0 and offset == 0 else (width + pad, 1)
    table = random_bits(7, (offset + rows * (width + pad),), dtype.numpy)

    def desc(n: int) -> GatherDesc:
        return validate(GatherDesc(
            input=TensorDesc(data_type=dtype, sizes=(rows, width), strides=strides,
                             offset=offset),
            indices=TensorDesc(data_type=DataType.INT32, sizes=(1, n)), axis=0,
            index_dimensions=1))
    generic = lower_gather_generic(desc(1), (1,))
    assert generic is not None
    verify_program(generic.program)
    lanes = 16 // dtype.itemsize
    vector = width % lanes == 0 and (width + pad) % lanes == 0 and offset % lanes == 0
    ops = {n.op.name for n in generic.program.kernels[0].effects[0].toposort()}
    assert ("VSTORE" in ops) == vector
    arg = table if strides is not None else table.reshape(rows, width)
    for n in data.draw(st.lists(st.integers(1, 12), min_size=1, max_size=3)):
        ids = random_bits(n, (1, n), np.dtype(np.int32))
        got = run_buffers(generic.program, arg, ids, params=generic.values(desc(n)))["output"]
        special = dmlc.compile(desc(n), dynamic=False).reference(arg, ids)
        assert np.array_equal(got, np.ascontiguousarray(special).reshape(-1).view(got.dtype))


def test_verify_refuses_a_vector_outside_a_runtime_extent():
    desc = validate(GatherDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(5, 8)),
                               indices=TensorDesc(data_type=DataType.INT32, sizes=(1, 3)),
                               axis=0, index_dimensions=1))
    generic = lower_gather_generic(desc, (1,))
    assert generic is not None
    p = generic.program
    k = p.kernels[0]
    store = k.effects[0]
    assert store.op.name == "VSTORE"
    shifted = b.vstore("output", b.add(store.src[0], 4), store.src[1])  # one vector further
    with pytest.raises(IRError, match="runtime extent"):
        verify_program(p.with_kernels((type(k)(k.name, k.items, (shifted,), count=k.count),)))


@given(st.data())
def test_generic_copy_variants_match_numpy(data):
    """Both generic copies, "vector" (16-byte vectors, blocks of a row; a dynamic innermost
    size admitted only as a multiple of the vector width, which values() checks) and "scalar",
    against numpy over random sizes: every admitted call exact, every refused one refused."""
    dtype = data.draw(st.sampled_from(DTYPES))
    lanes = 16 // dtype.itemsize
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=0, max_size=2))) + (
        lanes * data.draw(st.integers(1, 11)),)
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, len(full) - 1), min_size=1))))
    packed = data.draw(st.booleans())
    first = _strided(dtype, full, None) if packed else _view_desc(dtype, full, full)
    assert identity_variants(first, dims)[0] == "vector"
    x = random_bits(data.draw(st.integers(0, 99)), full, dtype.numpy)
    for variant in ("vector", "scalar"):
        generic = lower_identity_generic(first, dims, variant)
        assert generic is not None
        verify_program(generic.program)
        ops = {n.op.name for e in generic.program.kernels[0].effects for n in e.toposort()}
        assert ("VSTORE" in ops) == (variant == "vector")
        for _ in range(3):
            sizes = tuple(data.draw(st.integers(1, n)) if i in dims else n
                          for i, n in enumerate(full))
            want = np.ascontiguousarray(x[tuple(slice(0, n) for n in sizes)])
            desc = (_strided(dtype, sizes, None) if packed else _view_desc(dtype, full, sizes))
            values = generic.values(desc)
            admitted = variant == "scalar" or sizes[-1] % lanes == 0
            assert (values is not None) == admitted
            if values is None:
                continue
            arg = want if packed else x
            raw = run_buffers(generic.program, arg, params=values)["output"]
            assert raw.tobytes() == want.tobytes()


def test_verify_refuses_vector_loads_not_clamped_to_the_extent():
    desc = _view_desc(DataType.FLOAT32, (3, 16), (3, 8))
    generic = lower_identity_generic(desc, (1,), "vector")
    assert generic is not None
    p = generic.program
    k = p.kernels[0]
    store = k.effects[0]
    load = store.src[1]
    clamp = load.src[0]  # min(x // 4, (extent - 1) // 4) * 4
    raw = clamp.src[0].src[0].src[0]  # x: the address before its clamp
    bad_load = b.vstore("output", store.src[0], b.vload("input", raw))
    with pytest.raises(IRError, match="runtime extent"):
        verify_program(p.with_kernels((type(k)(k.name, k.items, (bad_load,), count=k.count),)))
    dst = store.src[0].src[0].src[0]  # min(row * n + col, vectors - 1): unclamped
    bad_store = b.vstore("output", b.mul(dst, 4), load)
    with pytest.raises(IRError, match="runtime extent"):
        verify_program(p.with_kernels((type(k)(k.name, k.items, (bad_store,), count=k.count),)))


def _join_desc(dtype: DataType, batch: int, widths: tuple[int, ...], axis_len: int,
               strided: bool) -> tuple[dmlc.JoinDesc, list[np.ndarray]]:
    """inputs [batch, widths[k], 4] joined along axis 1; input 0 (strided) is rows 1.. of a
    [batch, widths[0] + 1, 4] owner (a Slice's view: its batch stride does not follow its
    sizes; at batch 1 a view gives it stride 0)."""
    tensors, arrays = [], []
    for k, w in enumerate(widths):
        if k == 0 and strided:
            owner = random_bits(batch + k, (batch, w + 1, 4), dtype.numpy)
            arrays.append(owner.reshape(-1)[4:])
            strides = (0 if batch == 1 else (w + 1) * 4, 4, 1)
            tensors.append(TensorDesc(data_type=dtype, sizes=(batch, w, 4), strides=strides))
        else:
            arrays.append(random_bits(batch + k, (batch, w, 4), dtype.numpy))
            tensors.append(TensorDesc(data_type=dtype, sizes=(batch, w, 4)))
    return validate(dmlc.JoinDesc(inputs=tuple(tensors), axis=1)), arrays


@given(st.data())
def test_generic_join_matches_specialized(data):
    """DML_JOIN with the batch (every dimension but the axis) dynamic: bit for bit the
    specialized kernel over random batch sizes, a strided input (a sliced view) included."""
    dtype = data.draw(st.sampled_from(DTYPES))
    widths = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    strided = data.draw(st.booleans())
    dmlc.clear_cache()
    for batch in data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)):
        desc, arrays = _join_desc(dtype, batch, widths, sum(widths), strided)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        assert generic.reference(*arrays).tobytes() == special.reference(*arrays).tobytes()
    KERNELS.clear()


@settings(max_examples=budget(25))
@given(st.data())
def test_generic_join_of_more_inputs_than_a_shader_binds(data):
    """A join of 8-17 inputs (a shader binds 7 and the output): the scalar variant is a kernel
    per 7 inputs (ops/join/generic.py: _grouped_join), any axis, views among the inputs at
    their own offsets, random batches; bit for bit numpy and the specialized kernel; one
    generic kernel for every batch. 8/16-bit outputs compile specialized (a word may hold
    elements of two groups)."""
    dtype = data.draw(st.sampled_from([d for d in DataType if d.bits >= 32]))
    n, axis = data.draw(st.integers(8, 17)), data.draw(st.integers(0, 2))
    widths = [data.draw(st.integers(1, 3)) for _ in range(n)]
    inner = data.draw(st.sampled_from([1, 3, 5]))  # never whole vectors: the scalar variant
    dmlc.clear_cache()
    # a batch of 1 last: a view's stride there is only guessed, so a kernel lowered from it
    # first would serve that batch alone (another compile, as for any family)
    for batch in sorted(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)),
                        reverse=True):
        shapes = [tuple(w if i == axis else (batch, 2, inner)[i] for i in range(3))
                  for w in widths]
        xs = [random_bits(batch * 31 + k, s, dtype.numpy) for k, s in enumerate(shapes)]
        tensors, arrays = [], []
        for k, (x, shape) in enumerate(zip(xs, shapes)):
            if k % 3 == 1:  # a view at offset k of a buffer holding it
                flat = random_bits(k, (k + x.size + 2,), dtype.numpy)
                flat[k:k + x.size] = x.reshape(-1)
                strides = tuple(int(np.prod(shape[i + 1:])) for i in range(3))
                tensors.append(TensorDesc(data_type=dtype, sizes=shape, strides=strides,
                                          offset=k))
                arrays.append(flat)
            else:
                tensors.append(TensorDesc(data_type=dtype, sizes=shape))
                arrays.append(x)
        desc = validate(dmlc.JoinDesc(inputs=tuple(tensors), axis=axis))
        generic = dmlc.compile(desc, dynamic=True)
        if axis == 1 or batch > 1 or inner > 1:  # not every dimension of size 1 but the axis
            assert generic.compiled.params
        got = generic.reference(*arrays)
        assert got.tobytes() == np.concatenate(xs, axis=axis).tobytes()
        assert got.tobytes() == dmlc.compile(desc, dynamic=False).reference(*arrays).tobytes()
    assert dmlc.cache_info()["compiles"].get("DML_JOIN generic", 0) == 1
    KERNELS.clear()


def test_generic_join_serves_a_batch_of_one_of_a_sliced_view():
    """A batch of 1 of a sliced view has stride 0 on the batch (view_tensor), which its layout
    can only guess: looked up with a WILD stride there, it runs the kernel of the others."""
    dmlc.clear_cache()
    for batch in (2, 1, 3, 5, 4):
        desc, arrays = _join_desc(DataType.FLOAT32, batch, (2, 3), 5, True)
        kernel = dmlc.compile(desc, dynamic=True)
        special = dmlc.compile(desc, dynamic=False)
        assert kernel.reference(*arrays).tobytes() == special.reference(*arrays).tobytes()
    assert dmlc.cache_info()["compiles"]["DML_JOIN generic"] == 1
    KERNELS.clear()


def test_generic_checked_gather_raises_as_the_specialized_one():
    """Checked mode (ONNX's Gather) has a generic kernel: the index check's kernels in front,
    over a dynamic count of indices, each index checked against this call's axis size (the
    table's sizes are pushed too); the first bad index is reported as the specialized kernel
    reports it, and valid indices give its result."""
    dmlc.clear_cache()
    for rows, ids in ((10, [[1, 2, 3]]), (10, [[0, -10, 9, 12, 3]]), (10, [[5]]),
                      (10, [[2, 9, -11, 1]]), (4, [[0, -4, 3, 4]]), (7, [[6, -8]]),
                      (12, [[11]])):
        table = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        i = np.array(ids, np.int64)
        desc = validate(GatherDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(rows, 4)),
                                   indices=TensorDesc(data_type=DataType.INT64, sizes=i.shape),
                                   axis=0, index_dimensions=1))
        generic = dmlc.compile(desc, dynamic=True, check_indices=True)
        special = dmlc.compile(desc, dynamic=False, check_indices=True)
        assert_checked_twins(generic, special, table, i)
    assert dmlc.cache_info()["compiles"]["DML_GATHER generic"] == 1
    KERNELS.clear()


def test_sizes_vary_hint(monkeypatch):
    from dmlc.dynamic import sizes_vary
    monkeypatch.delenv("DMLC_DYNAMIC", raising=False)
    with sizes_vary():
        assert resolve_mode(None) == "always" and resolve_mode(False) == "never"
    assert resolve_mode(None) == "auto"
    with sizes_vary("never"), sizes_vary():  # an enclosing never wins (dmlc compile's)
        assert resolve_mode(None) == "never"
    monkeypatch.setenv("DMLC_DYNAMIC", "never")
    with sizes_vary():
        assert resolve_mode(None) == "never"


def test_manifests_and_dmlc_compile_stay_specialized(monkeypatch, tmp_path, capsys):
    """A generic program's manifest says its push words (compiler/manifest.py), and `dmlc
    compile` of integer sizes compiles specialized even under DMLC_DYNAMIC=always."""
    from dmlc.cli import main
    from dmlc.manifest import write_manifest
    generic = dmlc.compile(_view_desc(DataType.FLOAT32, (3, 8), (3, 5)), dynamic=True)
    document = json.loads(pathlib.Path(write_manifest(generic, tmp_path)).read_text())
    assert len(document["generic"]["words"]) == len(generic.compiled.push)
    monkeypatch.setenv("DMLC_DYNAMIC", "always")
    example = pathlib.Path(__file__).resolve().parent.parent / "examples" / \
        "identity_nhwc_as_nchw.dml"  # a copy: a generic kernel where the mode allows
    assert main(["compile", str(example), "--emit", "glsl"]) == 0
    out = capsys.readouterr().out
    assert "#version 430" in out and "push_constant" not in out
    KERNELS.clear()


@given(st.data())
def test_generic_slice_matches_specialized(data):
    """DML_SLICE1 with its window's sizes dynamic (the window read as a view of the input, both
    variants): bit for bit the specialized kernel over random windows; a negative window
    stride (its start moves with the size) stays specialized."""
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = tuple(data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    dmlc.clear_cache()
    for _ in range(3):
        offsets = [data.draw(st.integers(0, n - 1)) for n in shape]
        sizes = [data.draw(st.integers(1, n - o)) for n, o in zip(shape, offsets)]
        strides = [data.draw(st.sampled_from([1, 1, 2, 3, -1])) for _ in shape]
        desc = validate(dmlc.Slice1Desc(input=TensorDesc(data_type=dtype, sizes=shape),
                                        offsets=offsets, sizes=sizes, strides=strides))
        generic, special = dmlc.compile(desc, dynamic=True), dmlc.compile(desc, dynamic=False)
        assert bool(generic.compiled.params) == all(s > 0 for s in strides)
        assert generic.reference(x).tobytes() == special.reference(x).tobytes()
    KERNELS.clear()


def test_symbolic_sizes_in_descriptors():
    """A TensorDesc size may be a name (one size wherever it appears) or None (any): dmlc.compile
    gives a SymbolicKernel, each call's sizes bound from its arrays, one generic kernel for every
    size; a name given two sizes, a wrong rank and a bad field are ValidationErrors naming the
    operator and the field."""
    dmlc.clear_cache()
    f32 = DataType.FLOAT32
    copy = dmlc.compile(IdentityDesc(input=TensorDesc(data_type=f32, sizes=("B", 8))))
    for batch in (1, 2, 5, 3):
        x = random_bits(batch, (batch, 8), np.dtype(np.float32))
        assert copy.reference(x).tobytes() == x.tobytes()
    take = dmlc.compile(GatherDesc(input=TensorDesc(data_type=f32, sizes=(10, 4)),
                                   indices=TensorDesc(data_type=DataType.INT32, sizes=(1, None)),
                                   axis=0, index_dimensions=1))
    table = random_bits(1, (10, 4), np.dtype(np.float32))
    for n in (1, 3, 7):
        ids = (np.arange(n, dtype=np.int32) * 3 % 10).reshape(1, n)
        assert take.reference(table, ids).tobytes() == table[ids[0]].tobytes()
    join = dmlc.compile(dmlc.JoinDesc(inputs=(TensorDesc(data_type=f32, sizes=("B", 2)),
                                              TensorDesc(data_type=f32, sizes=("B", 3))),
                                      axis=1))
    for batch in (2, 4):
        a, c = np.ones((batch, 2), np.float32), np.zeros((batch, 3), np.float32)
        assert np.array_equal(join.reference(a, c), np.concatenate([a, c], axis=1))
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY generic": 1,
                                             "DML_GATHER generic": 1, "DML_JOIN generic": 1}
    with pytest.raises(ValidationError, match=r"DML_JOIN: InputTensors\[1\].Sizes\[0\] \(B\)"):
        join.reference(np.ones((2, 2), np.float32), np.zeros((3, 3), np.float32))
    with pytest.raises(ValidationError, match="DML_ELEMENT_WISE_IDENTITY: InputTensor rank"):
        copy.reference(np.ones(8, np.float32))
    with pytest.raises(ValidationError, match="DML_JOIN: Axis"):  # at compile, not first call
        dmlc.compile(dmlc.JoinDesc(inputs=(TensorDesc(data_type=f32, sizes=("B", 2)),), axis=5))
    with pytest.raises(ValidationError, match="Strides"):
        dmlc.compile(IdentityDesc(input=TensorDesc(data_type=f32, sizes=("B", 8),
                                                   strides=(8, 1))))
    KERNELS.clear()


def test_a_generic_kernel_outside_the_compile_limits_is_specialized_instead():
    """A generic join binds every input in one kernel; where a shader binds only 4 buffers
    (Vulkan's minimum) a join of 6 compiles specialized, as a tree of narrower kernels."""
    def join(n):
        return dmlc.JoinDesc(inputs=tuple(dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 3))
                                          for _ in range(n)), axis=1)
    narrow = dmlc.compile(join(2), target="cpu", limits="minimum", dynamic=True)
    assert narrow.compiled.program.params  # generic: 3 buffers fit
    wide = dmlc.compile(join(6), target="cpu", limits="minimum", dynamic=True)
    assert not wide.compiled.program.params
    assert max(len(s.buffers) for s in wide.compiled.stages) <= 4
    wide_default = dmlc.compile(join(6), target="cpu", dynamic=True)  # 8 buffers a shader
    assert wide_default.compiled.program.params


@settings(max_examples=budget(25))
@given(st.data())
def test_generic_slice_v1_matches_numpy_and_compiles_once(data):
    """DML_SLICE (strides >= 1) has DML_SLICE1's generic kernels (the same fields): forced
    generic over random windows of random inputs, bit for bit numpy and the specialized kernel;
    auto over windows of one layout growing: one specialized and one generic compile."""
    dtype = data.draw(st.sampled_from(DTYPES))
    rank = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 7)) for _ in range(rank))
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    starts = [data.draw(st.integers(0, n - 1)) for n in shape]
    steps = [data.draw(st.integers(1, 3)) for _ in shape]
    sizes = [data.draw(st.integers(1, -(-(n - o) // s))) for n, o, s in zip(shape, starts, steps)]
    desc = validate(dmlc.SliceDesc(input=TensorDesc(data_type=dtype, sizes=shape),
                                   offsets=tuple(starts), sizes=tuple(sizes), strides=tuple(steps)))
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params
    want = x[tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(starts, sizes, steps))]
    got = generic.reference(x)
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()
    assert got.tobytes() == dmlc.compile(desc, dynamic=False).reference(x).tobytes()
    dmlc.clear_cache()
    for t in range(1, 5):
        grow = validate(dmlc.SliceDesc(input=TensorDesc(data_type=dtype, sizes=(2, 9)),
                                       offsets=(0, 1), sizes=(2, t), strides=(1, 2)))
        y = random_bits(t, (2, 9), dtype.numpy)
        got = dmlc.compile(grow, dynamic="auto").reference(y)
        assert got.tobytes() == np.ascontiguousarray(y[:, 1:1 + 2 * t - 1:2]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SLICE": 1, "DML_SLICE generic": 1}
    KERNELS.clear()

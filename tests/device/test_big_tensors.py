"""Tensors larger than one binding (issue 26 part 3): a buffer over maxStorageBufferRange is bound
as several chunks (codegen/chunks.py). lavapipe enforces no binding limit, so most tests lower
the device's limit to 1 MiB (chunk boundaries cheaply) and record every kp tensor a kernel binds:
all within the limit, and some kernel binds more tensors than it has buffers (chunking happened).
The `big` tests run real tensors of 195-300 MiB against lavapipe's 128 MiB."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dmlc
import reference_scatternd as ref
from dmlc.bench.cases import suite
from dmlc.compiled import clear_caches
from dmlc.plan import PlanLimits
from dmlc.runtime import get_device
from reference import assert_bits_equal
from strategies import random_bits

pytestmark = pytest.mark.vulkan
MiB = 2**20
GUARD = 8


@pytest.fixture
def bindings(monkeypatch):
    """The list of (storage buffers' byte sizes) of every kernel bound meanwhile (Vulkan: each
    kp algorithm's tensors; WebGPU: each bind group's storage entries)."""
    dev = get_device()
    bound: list[list[int]] = []
    if dev.backend == "webgpu":
        group = dev.bind_group

        def bind_group(layout, entries):
            bound.append([e["resource"]["size"] for e in entries
                          if e["resource"]["buffer"].usage & 0x80])  # STORAGE
            return group(layout, entries)
        monkeypatch.setattr(dev, "bind_group", bind_group)
        return bound
    made = dev.algorithm

    def algorithm(tensors, spirv, grid, push=()):
        bound.append([t.data().nbytes for t in tensors])
        return made(tensors, spirv, grid, push)
    monkeypatch.setattr(dev, "algorithm", algorithm)
    return bound


@pytest.fixture
def binding_limit(monkeypatch, bindings):
    """Lower the device's maxStorageBufferRange to 1 MiB; yields `bindings`."""
    dev = get_device()
    limits = dataclasses.replace(dev.limits, maxStorageBufferRange=MiB)
    monkeypatch.setattr(dev, "limits", limits)
    monkeypatch.setattr(dev, "plan_limits", PlanLimits.of(limits, "1 MiB bindings"))
    clear_caches()
    yield bindings
    clear_caches()


def chunked(bound: list[list[int]], limit: int = MiB) -> bool:
    """Every binding within `limit`, and some kernel bound a buffer as several chunks."""
    assert bound and all(n <= limit for sizes in bound for n in sizes), bound
    return any(len(sizes) > 3 for sizes in bound)


def table_and_rows(rows: int, width: int, dtype: str, seed: int = 0):
    table = random_bits(seed, (rows, width), np.dtype(dtype))
    # rows on both sides of each chunk boundary, the ends, negative and out-of-range (clamped)
    per_row = width * np.dtype(dtype).itemsize
    edges = [r for b in range(MiB, rows * per_row, MiB) for r in (b // per_row - 1, b // per_row,
                                                                  b // per_row + 1)]
    idx = np.array([0, rows - 1, -1, -rows, rows + 5, *edges], np.int32)
    return table, idx


@pytest.mark.parametrize("dtype", ["float32", "float16", "uint8", "int64"])
def test_gather_from_a_chunked_table(binding_limit, dtype):
    table, idx = table_and_rows(3 * MiB // (257 * np.dtype(dtype).itemsize) + 2, 257, dtype)
    expected = table[np.clip(np.where(idx < 0, idx + len(table), idx), 0, len(table) - 1)]
    inside = idx != len(table) + 5  # numpy's take raises for it; DML's gather clamps
    assert_bits_equal(dmlc.take(table, idx[inside], axis=0), expected[inside])
    got = dmlc.take(dmlc.to_device(table), dmlc.to_device(idx[inside]), axis=0)
    assert_bits_equal(got.numpy(), expected[inside])
    desc = dmlc.GatherDesc(input=dmlc.TensorDesc(data_type=dtype, sizes=table.shape),
                           indices=dmlc.TensorDesc(data_type="int32", sizes=(1, len(idx))),
                           axis=0, index_dimensions=1)
    guarded = dmlc.compile(desc, guard_words=GUARD, limits=get_device().plan_limits)
    assert_bits_equal(guarded(table, idx[None]), expected)
    assert guarded.executable().guard_damage() == []
    assert chunked(binding_limit)


def test_checked_gather_raises_across_chunks(binding_limit):
    table, idx = table_and_rows(3 * MiB // 1028 + 2, 257, "float32")
    desc = dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="float32", sizes=table.shape),
                           indices=dmlc.TensorDesc(data_type="int32", sizes=(1, len(idx))),
                           axis=0, index_dimensions=1)
    checked = dmlc.compile(desc, check_indices=True)
    with pytest.raises(dmlc.IndexOutOfRangeError):
        checked(table, idx[None])
    fine = np.clip(idx, 0, len(table) - 1)
    assert_bits_equal(checked(table, fine[None]), table[fine])
    assert chunked(binding_limit)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "float64"])
def test_row_scatter_in_place_into_a_chunked_cache(binding_limit, dtype):
    width = 64
    rows = 3 * MiB // (width * np.dtype(dtype).itemsize) + 3
    cache = random_bits(1, (rows, width), np.dtype(dtype))
    _, rows_at = table_and_rows(rows, width, dtype)
    rows_at = np.unique(np.clip(rows_at, 0, rows - 1)).astype(np.int64)[:, None]
    updates = random_bits(2, (len(rows_at), width), np.dtype(dtype))
    t = dmlc.to_device(cache)
    assert t.chunk_words and len(t.kp_tensor) == 4
    assert dmlc.scatter_nd(t, rows_at, updates, out=t) is t
    expected = ref.scatter_nd(cache, rows_at, updates)
    assert_bits_equal(t.numpy(), expected)
    assert_bits_equal(dmlc.scatter_nd(cache, rows_at, updates), expected)
    assert chunked(binding_limit)


def test_checked_scatter_in_place_leaves_the_chunked_cache_as_it_was(binding_limit):
    cache = random_bits(3, (3 * MiB // 256 + 3, 64), np.dtype("float32"))
    t = dmlc.to_device(cache)
    bad = np.array([[0], [len(cache) // 2], [len(cache)]], np.int64)
    updates = random_bits(4, (3, 64), np.dtype("float32"))
    desc = dmlc.ScatterNDDesc(
        input=dmlc.TensorDesc(data_type="float32", sizes=cache.shape),
        indices=dmlc.TensorDesc(data_type="int64", sizes=bad.shape),
        updates=dmlc.TensorDesc(data_type="float32", sizes=updates.shape),
        input_dimension_count=2, indices_dimension_count=2)
    kernel = dmlc.compile(desc, check_indices=True)
    with pytest.raises(dmlc.IndexOutOfRangeError):
        kernel(t, dmlc.to_device(bad), dmlc.to_device(updates), out=t)
    assert_bits_equal(t.numpy(), cache)
    assert chunked(binding_limit)


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_transposed_copy_of_a_chunked_tensor(binding_limit, dtype):
    x = random_bits(5, (700, 1100 * 4 // np.dtype(dtype).itemsize), np.dtype(dtype))
    t = dmlc.to_device(x)
    assert_bits_equal(dmlc.copy(t.T).numpy(), np.ascontiguousarray(x.T))
    assert_bits_equal(dmlc.copy(x.T), np.ascontiguousarray(x.T))
    kernel = dmlc.compile(dmlc.IdentityDesc(input=dmlc.TensorDesc(
        data_type=dtype, sizes=x.T.shape, strides=(1, x.shape[1]))), guard_words=GUARD,
        limits=get_device().plan_limits)
    assert_bits_equal(kernel(x), np.ascontiguousarray(x.T))
    assert kernel.executable().guard_damage() == []
    assert chunked(binding_limit)


def test_join_whose_output_crosses_the_limit(binding_limit):
    parts = [random_bits(6 + i, (300, w), np.dtype("float32")) for i, w in
             enumerate((600, 500, 333))]
    expected = np.concatenate(parts, axis=1)
    assert_bits_equal(dmlc.join(parts, axis=1), expected)
    assert_bits_equal(dmlc.join([dmlc.to_device(p) for p in parts], axis=1).numpy(), expected)
    desc = dmlc.JoinDesc(inputs=tuple(dmlc.TensorDesc(data_type="float32", sizes=p.shape)
                                      for p in parts), axis=1)
    kernel = dmlc.compile(desc, guard_words=GUARD, limits=get_device().plan_limits)
    assert_bits_equal(kernel(*parts), expected)
    assert kernel.executable().guard_damage() == []
    assert chunked(binding_limit)


BIG = pytest.mark.big


@pytest.fixture(autouse=True)
def at_128_mib(request):
    """The big tests need a device whose bindings hold 128 MiB (lavapipe, Adreno, Vulkan's
    minimum); the rest lower the limit themselves."""
    if request.node.get_closest_marker("big") and \
            get_device().limits.maxStorageBufferRange != 128 * MiB:
        pytest.skip("the big tests are sized for a 128 MiB binding limit")


def test_generic_kernels_take_chunked_tensors_specialized(binding_limit, monkeypatch):
    """A generic kernel binds tensors of runtime size whole: a window copy whose sizes grow past
    one binding compiles specialized (and chunked) for those sizes, with the same bits."""
    monkeypatch.setenv("DMLC_DYNAMIC", "always")
    cache = random_bits(3, (2, 4, 1024, 64), np.dtype("float32"))  # 2 MiB
    device = dmlc.to_device(cache)
    for t in (1, 7, 300, 1024):  # the last two windows' copies hold over 1 MiB
        binding_limit.clear()
        got = dmlc.copy(device[:, :, :t]).numpy()
        assert_bits_equal(got, cache[:, :, :t])
        assert all(n <= MiB for sizes in binding_limit for n in sizes), binding_limit
    info = dmlc.cache_info()["compiles"]  # generic kernels ran, and specialized ones where
    assert info.get("DML_ELEMENT_WISE_IDENTITY generic", 0) >= 1, info  # they did not fit
    assert info.get("DML_ELEMENT_WISE_IDENTITY", 0) >= 1, info


@BIG
def test_gather_from_a_195_mib_table(bindings):
    """Real sizes on lavapipe's 128 MiB limit: a 195 MiB table is two chunks."""
    rows, width = 195 * MiB // 4096, 1024
    table = np.arange(rows * width, dtype=np.uint32).reshape(rows, width).view(np.float32)
    boundary = 128 * MiB // 4096
    idx = np.array([0, boundary - 1, boundary, boundary + 1, rows - 1, -1, 7], np.int64)
    expected = table[idx]
    t = dmlc.to_device(table)
    assert t.chunk_words == 32 * MiB and len(t.kp_tensor) == 2
    assert_bits_equal(dmlc.take(t, dmlc.to_device(idx), axis=0).numpy(), expected)
    assert_bits_equal(dmlc.take(table, idx, axis=0), expected)
    assert chunked(bindings, 128 * MiB)


@BIG
def test_row_scatter_in_place_into_a_256_mib_cache(bindings):
    rows, width = 256 * MiB // 2048, 1024
    cache = np.zeros((rows, width), np.float16)
    cache.view(np.uint16)[:, :] = np.arange(width, dtype=np.uint16)
    at = np.array([[0], [rows // 2 - 1], [rows // 2], [rows - 1]], np.int32)
    updates = random_bits(9, (4, width), np.dtype("float16"))
    t = dmlc.to_device(cache)
    assert len(t.kp_tensor) == 2
    assert dmlc.scatter_nd(t, at, updates, out=t) is t
    got = t.numpy()
    assert_bits_equal(got[at[:, 0]], updates)
    rest = np.ones(rows, bool)
    rest[at[:, 0]] = False
    assert_bits_equal(got[rest], cache[rest])
    assert all(n <= 128 * MiB for sizes in bindings for n in sizes) and bindings


@BIG
def test_transposed_copy_and_a_join_over_128_mib(bindings):
    x = random_bits(10, (4100, 8200), np.dtype("float32"))  # 128.3 MiB
    got = dmlc.copy(dmlc.to_device(x).T)
    assert got.chunk_words and len(got.kp_tensor) == 2
    assert_bits_equal(got.numpy(), np.ascontiguousarray(x.T))
    a, b = x[:, :5000], x[:, 5000:]
    assert_bits_equal(dmlc.join([b, a], axis=1), np.concatenate([b, a], axis=1))
    assert all(n <= 128 * MiB for sizes in bindings for n in sizes) and bindings


@pytest.mark.parametrize("case", [c for c in suite(quick=True)
                                  if "chunked bindings" not in c.name], ids=lambda c: c.name)
def test_every_bench_operator_with_chunked_bindings(monkeypatch, bindings, case):
    """Every operator of the bench (quick sizes) under a binding limit of half its largest
    tensor (a power of two), that tensor bound as chunks, bit for bit as the IR interpreter
    runs it."""
    largest = max(4 * b.words for b in dmlc.compile(case.descriptor).compiled.plan.buffers)
    limit = 1 << ((largest - 1).bit_length() - 2)  # chunks of half or a quarter
    dev = get_device()
    limits = dataclasses.replace(dev.limits, maxStorageBufferRange=limit)
    monkeypatch.setattr(dev, "limits", limits)
    monkeypatch.setattr(dev, "plan_limits", PlanLimits.of(limits, f"{limit}-byte bindings"))
    clear_caches()
    try:
        inputs = case.make_inputs(np.random.default_rng(7))
        kernel = dmlc.compile(case.descriptor)
        got, expected = kernel(*inputs), kernel.reference(*inputs)
        for g, e in zip(got if isinstance(got, tuple) else (got,),
                        expected if isinstance(expected, tuple) else (expected,)):
            assert_bits_equal(g, e)
        assert all(n <= limit for sizes in bindings for n in sizes), bindings
        big = [b for b in kernel.executable().plan.buffers if 4 * b.words > limit]
        assert big and all(b.chunk_words for b in big), big  # those over the limit: chunked
    finally:
        clear_caches()

"""Generic kernels of 8/16-bit outputs without a device (family/words.py): one invocation per
32-bit word, the word store's proof for every admissible size, bit-exact results against the
specialized kernel and numpy for odd element counts and sizes of 1, and the compile counts."""
from __future__ import annotations

import numpy as np
import pytest
from tests.strategies import random_bits
from tests.twins import assert_checked_twins

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.dynamic import ShapePolicy
from dmlc.family.generic import GenericRules
from dmlc.family.registry import rules_of, validate
from dmlc.ir import build as b
from dmlc.ir.interp import run_buffers
from dmlc.ir.ops import IRError, Op
from dmlc.ir.verify import verify_program
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.copy.lower import identity_variants, lower_identity_generic
from dmlc.ops.gather.desc import GatherDesc

NARROW = [d for d in DataType if d.bits < 32]
SPECIALS = np.array([0x7C01, 0xFE01, 0x7E00, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x0001, 0x83FF],
                    np.uint16)
"""float16 bits moved as they are: NaNs with payloads (signalling and quiet), -0.0, +0.0,
infinities, denormals."""


def _view(dtype: DataType, full: tuple[int, ...], sizes: tuple[int, ...]) -> IdentityDesc:
    strides = tuple(int(np.prod(full[i + 1:])) for i in range(len(full)))
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes, strides=strides)))


def _data(dtype: DataType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    x = random_bits(seed, shape, dtype.numpy)
    if dtype is DataType.FLOAT16:
        flat = x.reshape(-1).view(np.uint16)
        flat[:len(SPECIALS)] = SPECIALS[:flat.size]
    return x


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: d.name)
def test_narrow_copy_of_odd_sizes_matches_specialized_and_numpy(dtype):
    """Generic kernels (forced) for windows of a [3, 5, 7] tensor, sizes of 1 and odd element
    counts included: their words hold exactly numpy's elements, as the specialized kernel's do
    (two generic kernels at most: the first window, all 1s, is lowered with explicit()'s
    strides, docs/generic-kernels.md)."""
    dmlc.clear_cache()
    full = (3, 5, 7)
    x = _data(dtype, full, 7)
    rng = np.random.default_rng(int(dtype.itemsize))
    windows = [(1, 1, 1), (1, 1, 3), (3, 5, 7), (2, 3, 5), (1, 5, 1)] + [
        tuple(int(rng.integers(1, n + 1)) for n in full) for _ in range(6)]
    for sizes in windows:
        desc = _view(dtype, full, sizes)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        want = np.ascontiguousarray(x[tuple(slice(0, n) for n in sizes)])
        got = generic.reference(x.reshape(-1))
        special = dmlc.compile(desc, dynamic=False).reference(x.reshape(-1))
        assert got.tobytes() == special.tobytes() == want.tobytes(), sizes
    assert dmlc.cache_info()["compiles"]["DML_ELEMENT_WISE_IDENTITY generic"] <= 2
    KERNELS.clear()


def test_narrow_copy_stores_whole_words_clamped_to_the_last_one():
    generic = lower_identity_generic(_view(DataType.INT8, (4, 9), (4, 9)), (0, 1))
    assert generic is not None
    verify_program(generic.program)
    (k,) = generic.program.kernels
    (store,) = k.effects
    assert store.op is Op.WSTORE and store.src[1].op is Op.PACK and len(store.src[1].src) == 4
    out = generic.program.buffer("output")
    assert k.items == -(-out.count // 4) and k.count is not out.extent  # words, not elements
    # 9 elements: 3 words, the last holding one element and 3 lanes of padding
    x = np.arange(36, dtype=np.int8)
    values = generic.values(_view(DataType.INT8, (4, 9), (1, 9)))
    assert values is not None and values[k.count.param] == 3
    raw = run_buffers(generic.program, x, params=values)["output"]
    assert raw.tobytes() == x[:9].tobytes()


def test_verify_refuses_word_stores_not_clamped_to_the_runtime_extent():
    """The word store's proof (ir/verify.py): min(g, (extent - 1) // lanes). Unclamped, or
    clamped one word further (extent // lanes: a whole word past an extent that fills its
    last word), it is refused."""
    generic = lower_identity_generic(_view(DataType.FLOAT16, (4, 9), (4, 9)), (0, 1))
    assert generic is not None
    p = generic.program
    (k,) = p.kernels
    (store,) = k.effects
    out = p.buffer("output")
    assert out.extent is not None
    for bad in (k.gid, b.minimum(k.gid, b.floordiv(out.extent, 2)),
                b.minimum(k.gid, b.floordiv(b.add(out.extent, -1), 4))):
        wrong = b.wstore(out, bad, store.src[1])
        with pytest.raises(IRError, match="runtime extent"):
            verify_program(p.with_kernels((type(k)(k.name, k.items, (wrong,), count=k.count),)))


def test_policy_finds_the_signature_a_size_one_window_was_seen_as():
    """cache[:, :, :1] (the view's stride there is its real one, 16, while explicit() keys it
    by its guess) then cache[:, :, :2]: one signature, so the second call already runs the
    generic kernel (it compiled a second specialized kernel before)."""
    full = (2, 4, 64, 16)
    rules = rules_of(_view(DataType.FLOAT16, full, full)).generic
    assert isinstance(rules, GenericRules)
    policy = ShapePolicy()
    chosen = [policy.dims(rules, _view(DataType.FLOAT16, full, (2, 4, t, 16)), None, "auto",
                          True) for t in (1, 2, 3, 1)]
    assert chosen == [None, (2,), (2,), (2,)]


@pytest.mark.parametrize("dtype", [DataType.FLOAT16, DataType.INT8], ids=lambda d: d.name)
def test_narrow_window_copy_compiles_one_specialized_and_one_generic_kernel(dtype):
    dmlc.clear_cache()
    full = (2, 4, 64, 16)
    x = _data(dtype, full, 3)
    for t in range(1, 8):
        kernel = dmlc.compile(_view(dtype, full, (2, 4, t, 16)), dynamic="auto")
        assert kernel.reference(x.reshape(-1)).tobytes() == np.ascontiguousarray(
            x[:, :, :t]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}
    KERNELS.clear()


@pytest.mark.parametrize("dtype", [DataType.FLOAT16, DataType.INT8, DataType.UINT16],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("width", [5, 64])
def test_narrow_gather_of_a_varying_number_of_ids_compiles_twice(dtype, width):
    """An embedding table of 8/16-bit rows (width 5: words of elements; 64: 16-byte vectors)
    gathered by 1, 2, ... ids: one specialized and one generic kernel, bit for bit numpy."""
    dmlc.clear_cache()
    table = _data(dtype, (11, width), 5)
    for n in (1, 2, 3, 7, 4, 1):
        ids = np.arange(n, dtype=np.int32).reshape(1, n) * 3 % 11
        desc = validate(GatherDesc(input=TensorDesc(data_type=dtype, sizes=(11, width)),
                                   indices=TensorDesc(data_type=DataType.INT32, sizes=(1, n)),
                                   axis=0, index_dimensions=1))
        got = dmlc.compile(desc, dynamic="auto").reference(table, ids)
        assert got.tobytes() == np.ascontiguousarray(table[ids[0]]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER": 1, "DML_GATHER generic": 1}
    KERNELS.clear()


@pytest.mark.parametrize("dtype", [DataType.FLOAT16, DataType.UINT8], ids=lambda d: d.name)
@pytest.mark.parametrize("offset", [0, 1, 3])
def test_narrow_transposed_copy_runs_words(dtype, offset):
    """A transposed view (the tile variants are 32/64-bit only): the "scalar" generic kernel,
    words of elements read down the input's columns, for sizes of 1 and odd counts."""
    x = _data(dtype, (offset + 35,), 9)
    full, strides = (5, 7), (1, 5)

    def desc(sizes: tuple[int, ...]) -> IdentityDesc:
        return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes,
                                                      strides=strides, offset=offset)))
    assert identity_variants(desc(full), (0, 1)) == ("scalar",)
    generic = lower_identity_generic(desc(full), (0, 1))
    assert generic is not None
    verify_program(generic.program)
    for sizes in ((1, 1), (5, 7), (3, 5), (1, 7), (5, 1), (2, 3)):
        want = np.lib.stride_tricks.as_strided(x[offset:], sizes,
                                               [dtype.itemsize * s for s in strides])
        values = generic.values(desc(sizes))
        assert values is not None
        raw = run_buffers(generic.program, x, params=values)["output"]
        assert raw.tobytes() == np.ascontiguousarray(want).tobytes(), sizes


def test_narrow_checked_gather_raises_as_the_specialized_one():
    table = _data(DataType.FLOAT16, (5, 3), 8)
    for ids in ([[0, 4, 1]], [[2, 7, -9]], [[-5]], [[3, 3, 3, 3, 3]]):
        i = np.array(ids, np.int32)
        desc = validate(GatherDesc(input=TensorDesc(data_type=DataType.FLOAT16, sizes=(5, 3)),
                                   indices=TensorDesc(data_type=DataType.INT32, sizes=i.shape),
                                   axis=0, index_dimensions=1))
        assert_checked_twins(dmlc.compile(desc, dynamic=True, check_indices=True),
                             dmlc.compile(desc, dynamic=False, check_indices=True), table, i)
    KERNELS.clear()

"""Generic kernels of 8/16-bit outputs on the device (family/words.py): bit for bit the
specialized kernel and numpy, guard words intact around a last word that is part padding, an
`out=` view that ends (or starts) inside a word keeping its neighbours' bits, and the decode
loop's compile counts."""
from __future__ import annotations

import numpy as np
import pytest
from tests.strategies import random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from dmlc.ops.copy.desc import IdentityDesc

pytestmark = pytest.mark.vulkan
NARROW = [d for d in DataType if d.bits < 32]
SPECIALS = np.array([0x7C01, 0xFE01, 0x7E00, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x0001, 0x83FF],
                    np.uint16)
"""float16 NaNs with payloads, -0.0, +0.0, infinities, denormals."""


def _data(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    x = random_bits(seed, shape, dtype)
    if dtype == np.float16:
        flat = x.reshape(-1).view(np.uint16)
        flat[:len(SPECIALS)] = SPECIALS[:flat.size]
    return x


def _view(dtype: DataType, full: tuple[int, ...], sizes: tuple[int, ...]) -> IdentityDesc:
    strides = tuple(int(np.prod(full[i + 1:])) for i in range(len(full)))
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes, strides=strides)))


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: d.name)
def test_narrow_generic_copy_equals_specialized_and_keeps_the_guard_words(dtype):
    full = (5, 7)
    x = _data(dtype.numpy, full, 11)
    for sizes in ((1, 1), (1, 3), (5, 7), (3, 5), (2, 7), (5, 1)):
        desc = _view(dtype, full, sizes)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        want = np.ascontiguousarray(x[:sizes[0], :sizes[1]])
        got, ref = generic(x.reshape(-1)), special(x.reshape(-1))
        assert got.tobytes() == ref.tobytes() == want.tobytes(), sizes
        assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
def test_window_copy_from_one_compiles_one_specialized_and_one_generic(monkeypatch, dtype):
    """The issue's loop: dmlc.copy(c[:, :, :t]) for t = 1 ... 7 of a [2, 4, 64, 16] cache."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")  # the policy this counts (make test-generic
    dmlc.clear_cache()                           # forces generic kernels)
    x = _data(np.dtype(dtype), (2, 4, 64, 16), 1)
    c = dmlc.to_device(x)
    for t in range(1, 8):
        assert dmlc.copy(c[:, :, :t]).numpy().tobytes() == np.ascontiguousarray(
            x[:, :, :t]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}


@pytest.mark.parametrize("dtype", [np.float16, np.int8])
@pytest.mark.parametrize("width", [3, 64])
def test_embedding_gather_of_varying_ids_compiles_twice(monkeypatch, dtype, width):
    """A table of 8/16-bit rows gathered by a varying number of ids (width 3: words of
    elements, a row's end inside a word; 64: 16-byte vectors)."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    table = _data(np.dtype(dtype), (50, width), 2)
    device_table = dmlc.to_device(table)
    for n in (1, 2, 5, 3, 9, 1):
        ids = (np.arange(n, dtype=np.int64) * 7 % 50).reshape(1, n)
        got = dmlc.gather(device_table, ids, axis=0, index_dimensions=1)
        assert np.asarray(got.numpy()).tobytes() == np.ascontiguousarray(
            table[ids[0]]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER": 1, "DML_GATHER generic": 1}


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.uint16])
def test_out_view_inside_words_keeps_its_neighbours_bits(monkeypatch, dtype):
    """Generic kernels forced, out= views of part of a buffer: one that ends inside a word,
    one that starts inside one, a column block of a 2-D tensor. The generic kernel stores
    whole words only into a buffer of its own (a temporary); the elements then go where the
    view puts them, and every other bit of the buffer stays as it was."""
    monkeypatch.setenv("DMLC_DYNAMIC", "always")
    dmlc.clear_cache()
    dt = np.dtype(dtype)
    src = _data(dt, (4, 9), 3)
    base = _data(dt, (40,), 4)
    flat = dmlc.to_device(src.reshape(-1))
    for key, n in ((slice(0, 5), 5), (slice(3, 8), 5), (slice(1, 2), 1), (slice(7, 30), 23)):
        dev = dmlc.to_device(base)
        dmlc.copy(flat[:n], out=dev[key])
        want = base.copy()
        want[key] = src.reshape(-1)[:n]
        assert dev.numpy().tobytes() == want.tobytes(), key
    grid = _data(dt, (3, 7), 5)
    dev = dmlc.to_device(grid)
    dmlc.copy(dmlc.to_device(src)[:3, 2:5], out=dev[:, 1:4])
    want = grid.copy()
    want[:, 1:4] = src[:3, 2:5]
    assert dev.numpy().tobytes() == want.tobytes()
    assert dmlc.cache_info()["generic"], "the copies ran generic kernels"


@pytest.mark.parametrize("dtype", [np.int8, np.float16])
def test_generic_gather_into_out_views_and_whole_tensors(monkeypatch, dtype):
    """A forced generic gather of odd row counts: into a whole tensor of its own (its last word
    part padding, written whole) and into a view ending inside a word (neighbours kept)."""
    monkeypatch.setenv("DMLC_DYNAMIC", "always")
    dmlc.clear_cache()
    dt = np.dtype(dtype)
    table = _data(dt, (6, 3), 6)
    for n in (1, 3, 5):
        ids = np.arange(n, dtype=np.int32).reshape(1, n) % 6
        want = np.ascontiguousarray(table[ids[0]])
        whole = dmlc.empty((n, 3), dt)
        dmlc.gather(table, ids, axis=0, index_dimensions=1, out=whole)
        assert whole.numpy().tobytes() == want.tobytes()
        base = _data(dt, (n + 2, 3), 7)
        dev = dmlc.to_device(base)
        dmlc.gather(table, ids, axis=0, index_dimensions=1, out=dev[:n])
        expect = base.copy()
        expect[:n] = want
        assert dev.numpy().tobytes() == expect.tobytes()
    assert any("DML_GATHER" in k for k in dmlc.cache_info()["generic"])

"""Generic kernels of DML_SPLIT, DML_PADDING and DML_TILE without a device (docs/generic-
kernels.md): bit for bit the specialized kernel and an independent numpy reference over random sizes
(the interpreter runs both), every admissible size proven in-bounds by verify.py, the range edges,
and the `auto` policy's compile counts."""
from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests import reference
from tests.reference_layout import fill_bits, pad
from tests.strategies import random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.ir.verify import verify_program

DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


def _split(dtype: DataType, shape: tuple[int, ...], axis: int, pieces: tuple[int, ...],
           view: tuple[int, ...] | None = None) -> dmlc.SplitDesc:
    """`shape` cut into `pieces` along axis; the input a view of a packed owner of sizes `view`
    (its first elements) when given."""
    strides = None if view is None else tuple(int(np.prod(view[i + 1:]))
                                              for i in range(len(view)))
    outs = tuple(TensorDesc(data_type=dtype, sizes=tuple(m if i == axis else s
                                                         for i, s in enumerate(shape)))
                 for m in pieces)
    return validate(dmlc.SplitDesc(input=TensorDesc(data_type=dtype, sizes=shape,
                                                    strides=strides),
                                   outputs=outs, axis=axis))


def _same(got: tuple[np.ndarray, ...], want: list[np.ndarray]) -> bool:
    return len(got) == len(want) and all(
        g.shape == w.shape and g.tobytes() == np.ascontiguousarray(w).tobytes()
        for g, w in zip(got, want))


@given(st.data())
def test_generic_split_matches_specialized_and_numpy(data):
    """DML_SPLIT with every dimension but the axis dynamic, over random batches (size 1 and
    sizes that break every alignment included), packed and as a view of a wider owner."""
    dtype = data.draw(st.sampled_from(DTYPES))
    rank = data.draw(st.integers(1, 4))
    axis = data.draw(st.integers(0, rank - 1))
    pieces = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    strided = data.draw(st.booleans())
    dmlc.clear_cache()
    for _ in range(3):
        shape = tuple(sum(pieces) if i == axis else data.draw(st.integers(1, 5))
                      for i in range(rank))
        owner = tuple(n + (data.draw(st.integers(0, 2)) if strided else 0) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _split(dtype, shape, axis, pieces, owner if strided else None)
        generic = dmlc.compile(desc, dynamic=True)
        assert bool(generic.compiled.params) == (rank > 1)  # rank 1: the axis only
        special = dmlc.compile(desc, dynamic=False)
        arg = x.reshape(-1) if strided else x
        want = reference.split(x[tuple(slice(0, n) for n in shape)], list(pieces), axis)
        assert _same(generic.reference(arg), want) and _same(special.reference(arg), want)
    KERNELS.clear()


def test_generic_split_range_edges():
    """The batch's range: its largest size is admitted, one more is not (that call compiles
    specialized); size 1 and the largest give the push words their recipes say."""
    desc = _split(DataType.FLOAT32, (3, 6, 4), 1, (2, 4))
    generic = rules_of(desc).generic.lower(desc, (0, 2))
    assert generic is not None
    verify_program(generic.program)
    hi = generic.program.params[0].vmax
    assert generic.values(_split(DataType.FLOAT32, (1, 6, 1), 1, (2, 4))) is not None
    assert generic.values(_split(DataType.FLOAT32, (hi, 6, 1), 1, (2, 4))) is not None
    assert generic.values(_split(DataType.FLOAT32, (hi + 1, 6, 1), 1, (2, 4))) is None


def test_generic_split_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for batch in (2, 5, 1, 7, 3, 4):
        x = random_bits(batch, (batch, 9), np.dtype(np.float32))
        got = dmlc.compile(_split(DataType.FLOAT32, (batch, 9), 1, (2, 3, 4))).reference(x)
        assert _same(got, reference.split(x, [2, 3, 4], 1))
    assert dmlc.cache_info()["compiles"] == {"DML_SPLIT": 1, "DML_SPLIT generic": 1}
    KERNELS.clear()


def test_generic_split_of_8_16_bit_elements_and_its_fixed_axis():
    """8/16-bit elements: a generic kernel storing words of the outputs' one buffer (a word
    whose lanes belong to two outputs included); the axis is never dynamic."""
    small = _split(DataType.FLOAT16, (3, 4), 1, (1, 3))
    assert dmlc.compile(small, dynamic=True).compiled.params
    assert rules_of(small).generic.free(small) == (0,)
    KERNELS.clear()


MODES = ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE", "DML_PADDING_MODE_REFLECTION",
         "DML_PADDING_MODE_SYMMETRIC", "DML_PADDING_MODE_WRAP")
SMALLEST = {"DML_PADDING_MODE_REFLECTION": 1, "DML_PADDING_MODE_SYMMETRIC": 0,
            "DML_PADDING_MODE_WRAP": 0}


def _pad(dtype: DataType, shape: tuple[int, ...], mode: str, start: tuple[int, ...],
         end: tuple[int, ...], value: int = 0, view: tuple[int, ...] | None = None,
         desc_class: type = dmlc.PaddingDesc) -> dmlc.PaddingDesc:
    strides = None if view is None else tuple(int(np.prod(view[i + 1:]))
                                              for i in range(len(view)))
    checked = validate(desc_class(input=TensorDesc(data_type=dtype, sizes=shape,
                                                   strides=strides),
                                  mode=mode, start_padding=start, end_padding=end, value=value))
    return dataclasses.replace(checked, value=value)  # as given: validate keeps its bits


def _want_pad(x: np.ndarray, desc: dmlc.PaddingDesc) -> np.ndarray:
    assert isinstance(desc.value, int) and 0 <= desc.value <= 100, desc.value
    return pad(x, desc.start_padding, desc.end_padding, desc.mode,
               fill_bits(desc.value, desc.input.data_type.numpy))  # not dmlc's padding_bits


@given(st.data())
def test_generic_padding_matches_specialized_and_numpy(data):
    """DML_PADDING1 (and DML_PADDING) with the input's sizes dynamic, the pads fixed, every mode:
    over random sizes down to the smallest each mode's pads allow (size 1 where they do), packed
    and as a view of a wider owner."""
    dtype = data.draw(st.sampled_from(DTYPES))
    mode = data.draw(st.sampled_from(MODES))
    rank = data.draw(st.integers(1, 4))
    start = tuple(data.draw(st.integers(0, 3)) for _ in range(rank))
    end = tuple(data.draw(st.integers(0, 3)) for _ in range(rank))
    value = data.draw(st.integers(0, 100))
    strided = data.draw(st.booleans())
    desc_class = data.draw(st.sampled_from([dmlc.PaddingDesc, dmlc.Padding0Desc]))
    extra = SMALLEST.get(mode)
    least = [1 if extra is None else max(1, s + extra, e + extra) for s, e in zip(start, end)]
    dmlc.clear_cache()
    for _ in range(3):
        shape = tuple(data.draw(st.integers(lo, lo + 4)) for lo in least)
        owner = tuple(n + (data.draw(st.integers(0, 2)) if strided else 0) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _pad(dtype, shape, mode, start, end, value, owner if strided else None,
                    desc_class)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        arg = x.reshape(-1) if strided else x
        want = _want_pad(x[tuple(slice(0, n) for n in shape)], desc)
        got = generic.reference(arg)
        assert got.tobytes() == special.reference(arg).tobytes() == want.tobytes()
    KERNELS.clear()


def test_generic_padding_range_edges():
    """Each size's range starts where validation lets the mode's pads reach (a reflection by 2
    needs 3 elements) and ends where int32 addresses do; verify.py proves every access inside
    for every size between."""
    for mode in MODES:
        desc = _pad(DataType.FLOAT32, (5, 6), mode, (2, 0), (1, 3))
        generic = rules_of(desc).generic.lower(desc, (0, 1))
        assert generic is not None
        verify_program(generic.program)
        extra = SMALLEST.get(mode)
        n0, n1 = (1, 1) if extra is None else (2 + extra, max(1, 3 + extra))
        p = generic.program.params
        assert (p[0].vmin, p[2].vmin) == (n0, n1)
        assert generic.values(_pad(DataType.FLOAT32, (n0, n1), mode, (2, 0), (1, 3))) \
            is not None
        hi = p[0].vmax
        big = _pad(DataType.FLOAT32, (hi, 1 if extra is None else n1), mode, (2, 0), (1, 3))
        assert generic.values(big) is not None
        bigger = _pad(DataType.FLOAT32, (hi + 1, 1 if extra is None else n1), mode, (2, 0),
                      (1, 3))
        assert generic.values(bigger) is None


def test_generic_padding_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for hw in (4, 9, 5, 2, 16, 3):
        x = random_bits(hw, (1, 3, hw, hw), np.dtype(np.float32))
        desc = _pad(DataType.FLOAT32, x.shape, "DML_PADDING_MODE_SYMMETRIC", (0, 0, 2, 2),
                    (0, 0, 2, 2))
        assert dmlc.compile(desc).reference(x).tobytes() == _want_pad(x, desc).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_PADDING1": 1, "DML_PADDING1 generic": 1}
    KERNELS.clear()


def _tile(dtype: DataType, shape: tuple[int, ...], repeats: tuple[int, ...],
          view: tuple[int, ...] | None = None) -> dmlc.TileDesc:
    strides = None if view is None else tuple(int(np.prod(view[i + 1:]))
                                              for i in range(len(view)))
    return validate(dmlc.TileDesc(input=TensorDesc(data_type=dtype, sizes=shape,
                                                   strides=strides), repeats=repeats))


@given(st.data())
def test_generic_tile_matches_specialized_and_numpy(data):
    """DML_TILE with the input's sizes dynamic, the repeats fixed, over random sizes (1 and
    sizes that break every alignment included), packed and as a view of a wider owner."""
    dtype = data.draw(st.sampled_from(DTYPES))
    rank = data.draw(st.integers(1, 4))
    repeats = tuple(data.draw(st.integers(1, 3)) for _ in range(rank))
    strided = data.draw(st.booleans())
    dmlc.clear_cache()
    for _ in range(3):
        shape = tuple(data.draw(st.integers(1, 5)) for _ in range(rank))
        owner = tuple(n + (data.draw(st.integers(0, 2)) if strided else 0) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _tile(dtype, shape, repeats, owner if strided else None)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        arg = x.reshape(-1) if strided else x
        want = np.tile(x[tuple(slice(0, n) for n in shape)], repeats)
        assert generic.reference(arg).tobytes() == special.reference(arg).tobytes() \
            == want.tobytes()
    KERNELS.clear()


def test_generic_tile_range_edges():
    """Each input size's range: 1 up to where the output's int32 addresses reach (divided by
    its repeats), proven by verify.py; one more is not admitted."""
    desc = _tile(DataType.INT64, (3, 4), (2, 3))
    generic = rules_of(desc).generic.lower(desc, (0, 1))
    assert generic is not None
    verify_program(generic.program)
    hi = generic.program.params[0].vmax
    assert generic.values(_tile(DataType.INT64, (1, 1), (2, 3))) is not None
    assert generic.values(_tile(DataType.INT64, (hi, 1), (2, 3))) is not None
    assert generic.values(_tile(DataType.INT64, (hi + 1, 1), (2, 3))) is None


def test_generic_tile_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for n in (4, 7, 1, 5, 12, 3):
        x = random_bits(n, (n, 3), np.dtype(np.int32))
        got = dmlc.compile(_tile(DataType.INT32, (n, 3), (2, 2))).reference(x)
        assert got.tobytes() == np.tile(x, (2, 2)).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_TILE": 1, "DML_TILE generic": 1}
    KERNELS.clear()


@given(st.data())
def test_generic_padding_and_tile_of_short_static_rows(data):
    """Rows shorter than a block (static innermost size < 8): one element per invocation
    instead of row blocks, still bit for bit, every mode."""
    dtype = data.draw(st.sampled_from(DTYPES))
    mode = data.draw(st.sampled_from(MODES))
    width = data.draw(st.integers(2, 3))
    dmlc.clear_cache()
    for n in data.draw(st.lists(st.integers(3, 9), min_size=1, max_size=3)):
        x = random_bits(n, (n, width), dtype.numpy)
        desc = _pad(dtype, (n, width), mode, (2, 1), (1, 2 if mode.endswith("WRAP") else 1))
        generic = dmlc.compile(desc, dynamic=(0,))
        assert generic.compiled.params and len(generic.program.kernels[0].effects) == 1
        assert generic.reference(x).tobytes() == _want_pad(x, desc).tobytes()
        tile = dmlc.compile(_tile(dtype, (n, width), (2, 2)), dynamic=(0,))
        assert tile.compiled.params and len(tile.program.kernels[0].effects) == 1
        assert tile.reference(x).tobytes() == np.tile(x, (2, 2)).tobytes()
    KERNELS.clear()


def test_the_bench_twin_of_a_padding_too_large_for_every_dimension_dynamic():
    """dmlc bench's generic twin of pad f32 [1,64,256,256]: all four dimensions dynamic leave
    256 out of range, so the twin keeps the size-1 one static; asked again it is found again
    (the cache's "no generic kernel" memo is per mode: dynamic=True's does not hide dims')."""
    from dmlc.bench import generic_twin
    from dmlc.bench.cases import suite
    case = next(c for c in suite(False) if c.name.startswith("pad reflect"))
    for _ in range(2):
        twin = generic_twin(case.descriptor)
        assert twin is not None and twin.compiled.params
    KERNELS.clear()

"""Generic kernels of DML_REVERSE_SUBSEQUENCES and DML_SPACE_TO_DEPTH / DML_DEPTH_TO_SPACE
without a device (docs/generic-kernels.md): bit for bit the specialized kernel and an
independent numpy reference over random sizes (the interpreter runs both), every variant's
every admissible size proven in-bounds by verify.py, the range edges, the `auto` policy's
compile counts, checked mode's errors. Views at moving offsets: tests/offset_cases.py."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests.reference_layout import depth_to_space, space_to_depth
from tests.reference_nd import reverse_subsequences
from tests.strategies import INDEX_TYPES, random_bits
from tests.test_generic_vectors import moves_vectors
from tests.twins import assert_checked_twins

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.ir.interp import run_buffers
from dmlc.ir.verify import verify_program
from dmlc.ops.space_depth.desc import DEPTH_SPACE_ORDERS, DepthToSpace0Desc, SpaceToDepth0Desc

DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)
SPACE_DEPTH = [dmlc.SpaceToDepthDesc, dmlc.DepthToSpaceDesc, SpaceToDepth0Desc,
               DepthToSpace0Desc]


def _packed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))


def _reverse(dtype: DataType, itype: np.dtype, shape: tuple[int, ...], axis: int,
             owner: tuple[int, ...] | None = None,
             spread: tuple[bool, ...] | None = None) -> dmlc.ReverseSubsequencesDesc:
    """The input the first `shape` of a packed `owner` (None: packed); the lengths the input's
    sizes with 1 along axis, broadcast (stride 0) where `spread` says."""
    lsizes = tuple(1 if i == axis else s for i, s in enumerate(shape))
    lstrides = None
    if spread is not None and any(spread):
        small = tuple(1 if b else s for s, b in zip(lsizes, spread))
        lstrides = tuple(0 if b else st for st, b in zip(_packed(small), spread))
    return validate(dmlc.ReverseSubsequencesDesc(
        input=TensorDesc(data_type=dtype, sizes=shape,
                         strides=None if owner is None else _packed(owner)),
        sequence_lengths=TensorDesc(data_type=DataType.of(itype), sizes=lsizes,
                                    strides=lstrides), axis=axis))


@given(st.data())
def test_generic_reverse_matches_specialized_and_numpy(data):
    """Every dimension but the axis dynamic, over random sizes (1 included), the input packed
    or a view of a wider owner, the lengths packed or broadcast, of every index type and any
    value (negative, past the axis: clamped)."""
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    rank = data.draw(st.integers(1, 4))
    axis = data.draw(st.integers(0, rank - 1))
    n = data.draw(st.integers(1, 6))
    strided = data.draw(st.booleans())
    spread = tuple(data.draw(st.booleans()) for _ in range(rank))
    dmlc.clear_cache()
    for _ in range(3):
        shape = tuple(n if i == axis else data.draw(st.integers(1, 5)) for i in range(rank))
        owner = tuple(s + (data.draw(st.integers(0, 2)) if strided else 0) for s in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _reverse(dtype, itype, shape, axis, owner if strided else None, spread)
        small = tuple(1 if i == axis or b else s for i, (s, b) in enumerate(zip(shape, spread)))
        info = np.iinfo(itype)
        lengths = np.asarray(data.draw(st.lists(
            st.integers(max(info.min, -n - 3), min(info.max, n + 3)),
            min_size=int(np.prod(small)), max_size=int(np.prod(small)))),
            itype).reshape(small)
        generic = dmlc.compile(desc, dynamic=True)
        assert bool(generic.compiled.params) == (rank > 1)  # rank 1: the axis only
        special = dmlc.compile(desc, dynamic=False)
        args = (x.reshape(-1) if strided else x,
                lengths.reshape(-1) if any(spread) else lengths)
        want = reverse_subsequences(x[tuple(slice(0, s) for s in shape)],
                                    np.broadcast_to(lengths, desc.sequence_lengths.sizes), axis)
        got = generic.reference(*args)
        assert got.tobytes() == special.reference(*args).tobytes() == want.tobytes()
    KERNELS.clear()


@given(st.data())
def test_generic_reverse_by_vectors_matches_specialized_and_numpy(data):
    """Lengths broadcast along the innermost dimension (one a row) and rows of whole 16-byte
    vectors: forced mode runs "vector" (rows of vectors) exactly where its guard holds (the
    axis not the innermost, the view's strides aligned), else "scalar"; both bit for bit."""
    dtype = data.draw(st.sampled_from(DTYPES))
    lanes = 16 // dtype.itemsize
    rank = data.draw(st.integers(2, 4))
    axis = data.draw(st.integers(0, rank - 1))
    n = data.draw(st.integers(1, 6))
    strided, aligned = data.draw(st.booleans()), data.draw(st.booleans())
    spread = tuple(data.draw(st.booleans()) for _ in range(rank - 1)) + (True,)
    dmlc.clear_cache()
    for _ in range(3):
        whole = data.draw(st.booleans())
        inner = (lanes if whole else 1) * data.draw(st.integers(1, 3)) + (0 if whole else 1)
        shape = tuple(n if i == axis else inner if i == rank - 1 else
                      data.draw(st.integers(1, 4)) for i in range(rank))
        owner = tuple(s + (lanes if aligned else 1) * data.draw(st.integers(0, 1))
                      for s in shape) if strided else shape
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _reverse(dtype, np.dtype("int32"), shape, axis, owner if strided else None,
                        spread)
        small = tuple(1 if i == axis or b else s for i, (s, b) in enumerate(zip(shape, spread)))
        lengths = np.asarray(data.draw(st.lists(st.integers(-n - 2, n + 2),
                                                min_size=int(np.prod(small)),
                                                max_size=int(np.prod(small)))),
                             np.int32).reshape(small)
        generic = dmlc.compile(desc, dynamic=True)
        hit = (axis != rank - 1 and shape[-1] % lanes == 0
               and all(st % lanes == 0 for st in _packed(owner)[:-1]))
        assert moves_vectors(generic) == hit, (shape, owner, axis)
        args = (x.reshape(-1) if strided else x, lengths.reshape(-1))
        want = reverse_subsequences(x[tuple(slice(0, s) for s in shape)],
                                    np.broadcast_to(lengths, desc.sequence_lengths.sizes), axis)
        got = generic.reference(*args)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False).reference(*args).tobytes() \
            == want.tobytes()
    KERNELS.clear()


def test_generic_reverse_range_edges():
    """The dynamic sizes' range: 1 up to where int32 addresses reach, proven by verify.py (the
    checked form too); one more is not admitted; the axis stays static."""
    desc = _reverse(DataType.INT64, np.dtype("int32"), (3, 5, 4), 1)
    rules = rules_of(desc).generic
    assert rules.free(desc) == (0, 2)
    generic = rules.lower(desc, (0, 2))
    assert generic is not None and rules.lower(desc, (0, 1)) is None
    verify_program(generic.program)
    checked = rules.checked(desc, (0, 2))
    assert checked is not None
    verify_program(checked.program)
    hi = generic.program.params[0].vmax
    spread = _reverse(DataType.INT64, np.dtype("int32"), (3, 5, 4), 1, None, (0, 0, 1))
    vector = rules.build(spread, (0, 2), "vector")
    assert rules.variants(spread, (0, 2)) == ("vector", "scalar") and vector is not None
    verify_program(vector.program)
    assert vector.values(_reverse(DataType.INT64, np.dtype("int32"), (3, 5, 3), 1, None,
                                  (0, 0, 1))) is None  # rows off the vector width: "scalar"
    assert generic.values(_reverse(DataType.INT64, np.dtype("int32"), (1, 5, 1), 1)) is not None
    assert generic.values(_reverse(DataType.INT64, np.dtype("int32"), (hi, 5, 1), 1)) is not None
    assert generic.values(_reverse(DataType.INT64, np.dtype("int32"), (hi + 1, 5, 1), 1)) is None


def test_generic_reverse_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for batch in (3, 5, 1, 8, 2):
        x = random_bits(batch, (6, batch, 2), np.dtype(np.float32))
        lengths = np.arange(batch, dtype=np.int64).reshape(1, batch, 1) % 8 - 1
        got = dmlc.compile(_reverse(DataType.FLOAT32, lengths.dtype, x.shape, 0, None,
                                    (False, False, True))).reference(x, lengths.reshape(-1))
        want = reverse_subsequences(x, np.broadcast_to(lengths, (1, batch, 2)), 0)
        assert got.tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_REVERSE_SUBSEQUENCES": 1,
                                             "DML_REVERSE_SUBSEQUENCES generic": 1}
    KERNELS.clear()


def test_generic_checked_reverse_raises_as_the_specialized_one():
    """Checked mode: the index check's kernels over the lengths (a length is a position in
    [0, n]), the first bad one named as the specialized kernel names it."""
    dmlc.clear_cache()
    for lengths in ([[2, 0, 4]], [[1, 5, -1, 3]], [[4, 4]], [[-6, 2, 7, 0, 1]]):
        ls = np.array(lengths, np.int32).reshape(1, -1)
        x = random_bits(ls.size, (4, ls.size), np.dtype(np.int16))
        desc = _reverse(DataType.INT16, ls.dtype, x.shape, 0)
        generic = dmlc.compile(desc, dynamic=True, check_indices=True)
        special = dmlc.compile(desc, dynamic=False, check_indices=True)
        assert_checked_twins(generic, special, x, ls)
    assert dmlc.cache_info()["compiles"]["DML_REVERSE_SUBSEQUENCES generic"] == 1
    KERNELS.clear()


def _depth_space(cls: type, dtype: DataType, shape: tuple[int, ...], block: int, order: str,
                 owner: tuple[int, ...] | None = None) -> dmlc.SpaceToDepthDesc:
    strides = None if owner is None else _packed(owner)
    return validate(cls(input=TensorDesc(data_type=dtype, sizes=shape, strides=strides),
                        block_size=block, order=order))


def _want(desc: dmlc.SpaceToDepthDesc, x: np.ndarray) -> np.ndarray:
    fn = space_to_depth if desc.to_depth else depth_to_space
    return fn(x, desc.block_size, desc.order.endswith("DEPTH_COLUMN_ROW"))


def _shape(data, to_depth: bool, block: int, whole: bool, lanes: int) -> tuple[int, ...]:
    """[N, C, H, W] valid for the operator: the smaller side's W whole vectors where `whole`,
    else a W that is not (where it can be)."""
    n, c, h = (data.draw(st.integers(1, 3)) for _ in range(3))
    unit = lanes if whole else 1
    w = unit * data.draw(st.integers(1, 3))
    if not whole and w % lanes == 0:
        w += 1
    if to_depth:
        return n, c, h * block, w * block
    return n, c * block * block, h, w


@given(st.data())
def test_generic_space_depth_matches_specialized_and_numpy(data):
    """N, C, H and W dynamic, over random sizes, both operators and their first versions,
    both orders, block sizes 1-3, every type, the input packed or a view of a wider owner
    (padded by whole vectors or not); the "vector" variant runs exactly where its guard
    holds (32/64-bit, the smaller side's W whole vectors, the view's strides aligned)."""
    cls = data.draw(st.sampled_from(SPACE_DEPTH))
    dtype = data.draw(st.sampled_from(DTYPES))
    block = data.draw(st.integers(1, 3))
    order = data.draw(st.sampled_from(DEPTH_SPACE_ORDERS)) if cls.operator.endswith("1") \
        else DEPTH_SPACE_ORDERS[0]
    lanes = 16 // dtype.itemsize
    strided = data.draw(st.booleans())
    aligned = data.draw(st.booleans())
    dmlc.clear_cache()
    for _ in range(3):
        whole = data.draw(st.booleans())
        shape = _shape(data, cls.to_depth, block, whole, lanes)
        pads = [(lanes if aligned else 1) * data.draw(st.integers(0, 1)) for _ in shape]
        owner = tuple(s + p for s, p in zip(shape, pads)) if strided else shape
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _depth_space(cls, dtype, shape, block, order, owner if strided else None)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        hit = dtype.bits >= 32 and whole and all(st % lanes == 0 for st in _packed(owner)[:-1])
        assert moves_vectors(generic) == hit, (shape, owner)
        special = dmlc.compile(desc, dynamic=False)
        arg = x.reshape(-1) if strided else x
        want = _want(desc, x[tuple(slice(0, s) for s in shape)])
        got = generic.reference(arg)
        assert got.tobytes() == special.reference(arg).tobytes() == want.tobytes()
    KERNELS.clear()


@given(st.data())
def test_every_space_depth_variant_of_a_call_matches_numpy(data):
    """Each variant a call may run (rules.variants), lowered and run by the interpreter at
    the call's push words: "scalar" too where "vector" is the forced choice."""
    cls = data.draw(st.sampled_from(SPACE_DEPTH[:2]))
    dtype = data.draw(st.sampled_from([d for d in DTYPES if d.bits >= 32]))
    block = data.draw(st.integers(1, 4))
    order = data.draw(st.sampled_from(DEPTH_SPACE_ORDERS))
    lanes = 16 // dtype.itemsize
    shape = _shape(data, cls.to_depth, block, True, lanes)
    desc = _depth_space(cls, dtype, shape, block, order)
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    rules = rules_of(desc).generic
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, 3), min_size=1))))
    assert rules.variants(desc, dims) == (("vector", "scalar") if 3 in dims else ("vector",))
    for variant in ("vector", "scalar"):
        generic = rules.build(desc, dims, variant)
        assert generic is not None
        values = generic.values(desc)
        assert values is not None
        got = run_buffers(generic.program, x, params=values)["output"]
        assert got.tobytes() == _want(desc, x).tobytes(), variant


def test_generic_space_depth_range_edges():
    """Every variant proven by verify.py for every admissible size; each dimension's range
    ends where int32 addresses do (one more is not admitted), the larger side's multiples
    of the smaller's; a dynamic W off the vector width is not admitted by "vector"."""
    f32 = DataType.FLOAT32
    for cls in (dmlc.SpaceToDepthDesc, dmlc.DepthToSpaceDesc):
        shape = (2, 3, 4, 8) if cls.to_depth else (2, 12, 2, 4)
        desc = _depth_space(cls, f32, shape, 2, DEPTH_SPACE_ORDERS[1])
        rules = rules_of(desc).generic
        for variant in ("vector", "scalar"):
            generic = rules.build(desc, (0, 1, 2, 3), variant)
            assert generic is not None
            verify_program(generic.program)
            hi = generic.program.params[0].vmax  # N's
            assert generic.values(desc) is not None
            at = [_depth_space(cls, f32, (n,) + shape[1:3] + (w,), 2, DEPTH_SPACE_ORDERS[1])
                  for n, w in ((hi, 8), (hi + 1, 8), (1, 6 if cls.to_depth else 3))]
            assert generic.values(at[0]) is not None and generic.values(at[1]) is None
            # the smaller side's W 3: off the vector width
            assert (generic.values(at[2]) is None) == (variant == "vector")


def test_generic_space_depth_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    """auto compiles the most general variant once ("scalar"): sizes whose W is and is not
    whole vectors all run it."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for hw in (4, 6, 2, 8, 3):
        x = random_bits(hw, (2, 8, hw, hw), np.dtype(np.float32))
        desc = _depth_space(dmlc.DepthToSpaceDesc, DataType.FLOAT32, x.shape, 2,
                            DEPTH_SPACE_ORDERS[0])
        assert dmlc.compile(desc).reference(x).tobytes() == _want(desc, x).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_DEPTH_TO_SPACE1": 1,
                                             "DML_DEPTH_TO_SPACE1 generic": 1}
    KERNELS.clear()


def test_the_bench_twins_move_vectors():
    """dmlc bench's twins of its depth_to_space, space_to_depth (N, of size 1, static: four
    dynamic dimensions leave 256 channels out of range) and reverse_subsequences cases: generic
    and the "vector" variant."""
    from dmlc.bench import generic_twin
    from dmlc.bench.cases import suite
    cases = [c for c in suite(False)
             if c.name.startswith(("depth_to", "space_to", "reverse_sub"))]
    assert len(cases) == 3
    for case in cases:
        twin = generic_twin(case.descriptor)
        assert twin is not None and twin.compiled.params and moves_vectors(twin)
    KERNELS.clear()

"""Vector variants of generic kernels (docs/generic-kernels.md: "Vectors") without a device:
sizes and layouts drawn to hit the variant's guard (16-byte vectors) and to miss it (a size or
stride off the vector width: the general variant), each run by the interpreter bit for bit
against the specialized kernel and numpy, with the variant the call got checked from how the
sizes were drawn, and every admissible size proven in-bounds by verify.py."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests import reference, reference_nd
from tests.offset_cases import buffer, view_at
from tests.strategies import INDEX_TYPES, index_arrays, random_bits
from tests.test_generic_families import MODES, SMALLEST, _pad, _want_pad

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.family.rows import BLOCK
from dmlc.ir.interp import run_buffers
from dmlc.ir.ops import Op
from dmlc.ir.verify import verify_program
from dmlc.ops.gather.desc import GatherDesc
from dmlc.ops.gather_nd.desc import GatherND1Desc

WIDE = [d for d in DataType if d.bits >= 32]
EVERY = list(DataType)  # split, join, tile and pad move 8/16-bit rows as 16-byte vectors too
WIDTHS = {1: 16, 2: 8, 4: 4, 8: 2}
"""Elements per 16-byte vector by item size."""


def moves_vectors(compiled: dmlc.CompiledKernel) -> bool:
    """Whether a compiled (generic) kernel stores 16-byte vectors."""
    return any(e.op is Op.VSTORE for k in compiled.compiled.program.kernels for e in k.effects)


def _packed_strides(owner: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(np.prod(owner[i + 1:])) for i in range(len(owner)))


def split_case(data, lanes: int) -> tuple[tuple[int, ...], int, tuple[int, ...],
                                          tuple[int, ...] | None, bool]:
    """(shape, axis, pieces, owner or None, whether the vector guard holds): rows of whole
    vectors or not, an owner padded by whole vectors or not."""
    rank = data.draw(st.integers(2, 4))
    axis = data.draw(st.integers(0, rank - 1))
    whole = data.draw(st.booleans())  # the innermost rows whole vectors
    unit = lanes if whole else 1
    pieces = tuple(unit * data.draw(st.integers(1, 3))
                   for _ in range(data.draw(st.integers(1, 4))))
    if not whole and axis == rank - 1 and all(m % lanes == 0 for m in pieces):
        pieces = (*pieces[:-1], pieces[-1] + 1)
    shape = []
    for i in range(rank):
        if i == axis:
            shape.append(sum(pieces))
        elif i == rank - 1:
            n = unit * data.draw(st.integers(1, 3))
            shape.append(n + 1 if not whole and n % lanes == 0 else n)
        else:
            shape.append(data.draw(st.integers(1, 4)))
    strided = data.draw(st.booleans())
    aligned = data.draw(st.booleans())
    owner = None
    if strided:  # a view of a wider owner: padded by whole vectors (aligned) or by one element
        owner = tuple(n + (0 if i == rank - 1 and not aligned else
                           lanes * data.draw(st.integers(0, 1)) if aligned else
                           data.draw(st.integers(0, 1)))
                      for i, n in enumerate(shape))
        if not aligned and owner[-1] % lanes == 0:
            owner = (*owner[:-1], owner[-1] + 1)
    hit = whole and (not strided or aligned)
    return tuple(shape), axis, pieces, owner, hit


def _split(dtype: DataType, shape, axis: int, pieces, owner) -> dmlc.SplitDesc:
    strides = None if owner is None else _packed_strides(owner)
    outs = tuple(TensorDesc(data_type=dtype, sizes=tuple(m if i == axis else s
                                                         for i, s in enumerate(shape)))
                 for m in pieces)
    return validate(dmlc.SplitDesc(input=TensorDesc(data_type=dtype, sizes=tuple(shape),
                                                    strides=strides),
                                   outputs=outs, axis=axis))


def _same(got, want) -> bool:
    return len(got) == len(want) and all(
        g.shape == w.shape and g.tobytes() == np.ascontiguousarray(w).tobytes()
        for g, w in zip(got, want))


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_split_vector_variant(dtype, data):
    """DML_SPLIT forced generic: "vector" where the rows are whole vectors and the input
    aligned, "scalar" elsewhere; bit for bit the specialized kernel and numpy either way."""
    dtype = data.draw(st.sampled_from([dtype, *EVERY]))
    lanes = WIDTHS[dtype.itemsize]
    shape, axis, pieces, owner, hit = split_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), owner or shape, dtype.numpy)
    desc = _split(dtype, shape, axis, pieces, owner)
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params and moves_vectors(generic) == hit
    arg = x if owner is None else x.reshape(-1)
    want = reference.split(x[tuple(slice(0, n) for n in shape)], list(pieces), axis)
    assert _same(generic.reference(arg), want)
    assert _same(dmlc.compile(desc, dynamic=False).reference(arg), want)
    KERNELS.clear()


def test_split_vector_guard_and_ranges():
    """A dynamic innermost size is admitted by the vector kernel as a multiple of the width
    only (the host's guard: values() is None otherwise, and that call's variants are the
    scalar one alone); verify.py proves the kernel for every admissible size."""
    desc = _split(DataType.FLOAT32, (3, 2, 8), 1, (1, 1), None)
    rules = rules_of(desc).generic
    assert rules.choices(desc, (0, 2)) == ("vector", "scalar")
    generic = rules.build(desc, (0, 2), "vector")
    assert generic is not None and verify_program(generic.program)
    assert generic.values(_split(DataType.FLOAT32, (5, 2, 12), 1, (1, 1), None)) is not None
    odd = _split(DataType.FLOAT32, (5, 2, 6), 1, (1, 1), None)
    assert generic.values(odd) is None and rules.choices(odd, (0, 2)) == ("scalar",)
    along = _split(DataType.INT64, (3, 6), 1, (2, 4), None)  # the axis innermost: static rows
    assert rules.choices(along, (0,)) == ("vector",)
    assert rules.choices(_split(DataType.INT64, (3, 6), 1, (3, 3), None), (0,)) == ("scalar",)


def test_split_auto_compiles_the_general_variant(monkeypatch):
    """`auto` compiles the most general variant for a dynamic innermost size (one kernel for
    every later size, multiples of the width or not)."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for n in (8, 12, 5, 16):
        x = random_bits(n, (3, 4, n), np.dtype(np.float32))
        got = dmlc.compile(_split(DataType.FLOAT32, (3, 4, n), 1, (1, 3), None)).reference(x)
        assert _same(got, reference.split(x, [1, 3], 1))
    assert dmlc.cache_info()["compiles"] == {"DML_SPLIT": 1, "DML_SPLIT generic": 1}
    kernels = list(dmlc.cache_info()["generic"])
    assert len(kernels) == 1 and " scalar #" in kernels[0]
    KERNELS.clear()


def join_case(data, lanes: int):
    """(shape of each input, axis, per input its (owner, offset) or None, whether the vector
    guard holds): 2-4 inputs whose rows are whole vectors or not, each a packed tensor or a view
    of a wider owner at an element offset, padded and placed by whole vectors or not."""
    rank = data.draw(st.integers(2, 4))
    axis = data.draw(st.integers(0, rank - 1))
    whole = data.draw(st.booleans())
    unit = lanes if whole else 1
    pieces = [unit * data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(2, 4)))]
    if not whole and axis == rank - 1 and all(m % lanes == 0 for m in pieces):
        pieces[-1] += 1
    base = []
    for i in range(rank):
        if i == rank - 1 and i != axis:
            n = unit * data.draw(st.integers(1, 3))
            base.append(n + 1 if not whole and n % lanes == 0 else n)
        else:
            base.append(data.draw(st.integers(1, 4)))
    shapes = [tuple(m if i == axis else s for i, s in enumerate(base)) for m in pieces]
    views: list[tuple[tuple[int, ...], int] | None] = []
    hit = whole
    for shape in shapes:
        if not data.draw(st.booleans()):
            views.append(None)
            continue
        aligned = data.draw(st.booleans())
        owner = tuple(n + (lanes * data.draw(st.integers(0, 1)) if aligned else
                           data.draw(st.integers(0, 1)))
                      for n in shape)
        if not aligned and owner[-1] % lanes == 0:
            owner = (*owner[:-1], owner[-1] + 1)
        offset = lanes * data.draw(st.integers(0, 2)) if aligned else data.draw(
            st.sampled_from([1, lanes + 1]))
        if not aligned and data.draw(st.booleans()):  # a misaligned offset alone
            owner, offset = shape, offset
        views.append((owner, offset))
        hit = hit and aligned
    return shapes, axis, views, hit


def _join(dtype: DataType, shapes, axis: int, views) -> dmlc.JoinDesc:
    return validate(dmlc.JoinDesc(inputs=tuple(
        TensorDesc(data_type=dtype, sizes=shape) if v is None else
        TensorDesc(data_type=dtype, sizes=shape, strides=_packed_strides(v[0]), offset=v[1])
        for shape, v in zip(shapes, views)), axis=axis))


def join_arrays(data, dtype: DataType, shapes, views):
    """(the call's arguments, the inputs' values): a view's owner flat at its offset."""
    args, values = [], []
    for shape, v in zip(shapes, views):
        seed = data.draw(st.integers(0, 99))
        if v is None:
            x = random_bits(seed, shape, dtype.numpy)
            args.append(x)
            values.append(x)
            continue
        owner, offset = v
        x = random_bits(seed, owner, dtype.numpy)
        flat = random_bits(seed + 1, (offset + x.size + 3,), dtype.numpy)
        flat[offset:offset + x.size] = x.reshape(-1)
        args.append(flat)
        values.append(x[tuple(slice(0, n) for n in shape)])
    return args, values


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_join_vector_variant(dtype, data):
    """DML_JOIN forced generic: "vector" (a kernel per input) where every input's rows are
    whole vectors and every input aligned, "scalar" elsewhere; bit for bit the specialized
    kernel and numpy either way."""
    dtype = data.draw(st.sampled_from([dtype, *EVERY]))
    lanes = WIDTHS[dtype.itemsize]
    shapes, axis, views, hit = join_case(data, lanes)
    args, values = join_arrays(data, dtype, shapes, views)
    desc = _join(dtype, shapes, axis, views)
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params and moves_vectors(generic) == hit
    want = np.concatenate(values, axis)
    assert generic.reference(*args).tobytes() == want.tobytes()
    assert dmlc.compile(desc, dynamic=False).reference(*args).tobytes() == want.tobytes()
    KERNELS.clear()


def test_join_vector_guard_and_ranges():
    """A dynamic innermost size is admitted by the vector kernel as a multiple of the width
    only (values() is None otherwise, and that call's variants are the scalar one alone);
    misaligned pushed offsets are refused the same way; verify.py proves the kernel for every
    admissible size."""
    f32 = DataType.FLOAT32
    desc = _join(f32, [(3, 2, 8), (3, 1, 8)], 1, [None, None])
    rules = rules_of(desc).generic
    assert rules.choices(desc, (0, 2)) == ("vector", "scalar")
    generic = rules.build(desc, (0, 2), "vector")
    assert generic is not None and verify_program(generic.program)
    assert len(generic.program.kernels) == 2
    assert generic.values(_join(f32, [(5, 2, 12), (5, 1, 12)], 1, [None, None])) is not None
    odd = _join(f32, [(5, 2, 6), (5, 1, 6)], 1, [None, None])
    assert generic.values(odd) is None and rules.choices(odd, (0, 2)) == ("scalar",)
    along = _join(DataType.INT64, [(3, 2), (3, 4), (3, 6)], 1, [None, None, None])
    assert rules.choices(along, (0,)) == ("vector",)
    built = rules.build(along, (0,), "vector")
    assert built is not None and verify_program(built.program)
    assert rules.choices(_join(DataType.INT64, [(3, 3), (3, 3)], 1, [None, None]),
                         (0,)) == ("scalar",)
    assert rules.build(_join(DataType.INT64, [(3, 3), (3, 3)], 1, [None, None]), (0,),
                       "vector") is None
    view = _join(f32, [(4, 8), (4, 8)], 0, [((4, 12), 4), None])
    vrules = rules_of(view).generic
    assert vrules.choices(view, (1,)) == ("vector", "scalar")
    pushed = vrules.build(view, (1,), "vector")
    assert pushed is not None and verify_program(pushed.program)
    assert pushed.values(_join(f32, [(4, 8), (4, 8)], 0, [((4, 12), 8), None])) is not None
    assert pushed.values(_join(f32, [(4, 8), (4, 8)], 0, [((4, 12), 5), None])) is None
    half = _join(DataType.FLOAT16, [(3, 8), (3, 8)], 1, [None, None])  # rows of 8 lanes
    assert rules_of(half).generic.choices(half, (0,)) == ("vector",)
    short = _join(DataType.FLOAT16, [(3, 4), (3, 8)], 1, [None, None])
    assert rules_of(short).generic.choices(short, (0,)) == ("scalar",)


def tile_case(data, lanes: int) -> tuple[tuple[int, ...], tuple[int, ...],
                                         tuple[int, ...] | None, bool]:
    """(shape, repeats, owner or None, whether the vector guard holds): an innermost size of
    whole vectors or not, an owner padded by whole vectors or not."""
    rank = data.draw(st.integers(1, 4))
    whole = data.draw(st.booleans())
    repeats = tuple(data.draw(st.integers(1, 3)) for _ in range(rank))
    inner = data.draw(st.integers(1, 3)) * lanes if whole else \
        data.draw(st.integers(1, 3 * lanes).filter(lambda n: n % lanes))
    shape = (*(data.draw(st.integers(1, 4)) for _ in range(rank - 1)), inner)
    strided = data.draw(st.booleans())
    aligned = data.draw(st.booleans())
    owner = None
    if strided:
        owner = tuple(n + (lanes * data.draw(st.integers(0, 1)) if aligned else
                           data.draw(st.integers(0, 1)) if i < rank - 1 else 1)
                      for i, n in enumerate(shape))
        if rank == 1:
            aligned = True  # no stride but the innermost's: still aligned
    hit = whole and (not strided or aligned or all(
        st_ % lanes == 0 for st_ in _packed_strides(owner or shape)[:-1]))
    return shape, repeats, owner, hit


def _tile(dtype: DataType, shape, repeats, owner) -> dmlc.TileDesc:
    strides = None if owner is None else _packed_strides(owner)
    return validate(dmlc.TileDesc(input=TensorDesc(data_type=dtype, sizes=tuple(shape),
                                                   strides=strides), repeats=tuple(repeats)))


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_tile_vector_variant(dtype, data):
    """DML_TILE forced generic: "vector" (row blocks of vectors, output vector c of a row
    reading the input's vector c % n) where the innermost size is whole vectors and the input
    aligned, "scalar" elsewhere; bit for bit the specialized kernel and numpy either way."""
    dtype = data.draw(st.sampled_from([dtype, *EVERY]))
    lanes = WIDTHS[dtype.itemsize]
    shape, repeats, owner, hit = tile_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), owner or shape, dtype.numpy)
    desc = _tile(dtype, shape, repeats, owner)
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params and moves_vectors(generic) == hit
    arg = x if owner is None else x.reshape(-1)
    want = np.tile(x[tuple(slice(0, n) for n in shape)], repeats)
    assert generic.reference(arg).tobytes() == want.tobytes()
    assert dmlc.compile(desc, dynamic=False).reference(arg).tobytes() == want.tobytes()
    KERNELS.clear()


def test_tile_vector_guard_and_ranges():
    """The vector kernel admits a dynamic innermost size as a multiple of the width only;
    verify.py proves it for every admissible size, its range edges included."""
    desc = _tile(DataType.FLOAT32, (3, 8), (2, 3), None)
    rules = rules_of(desc).generic
    assert rules.choices(desc, (0, 1)) == ("vector", "scalar")
    assert rules.choices(desc, (0,)) == ("scalar",)  # static rows of 6 vectors: < a block
    assert rules.choices(_tile(DataType.FLOAT32, (3, 16), (2, 2), None), (0,)) == ("vector",)
    generic = rules.build(desc, (0, 1), "vector")
    assert generic is not None and verify_program(generic.program)
    hi = generic.program.params[0].vmax
    assert generic.values(_tile(DataType.FLOAT32, (1, 4), (2, 3), None)) is not None
    assert generic.values(_tile(DataType.FLOAT32, (hi, 4), (2, 3), None)) is not None
    assert generic.values(_tile(DataType.FLOAT32, (hi + 1, 4), (2, 3), None)) is None
    odd = _tile(DataType.FLOAT32, (3, 6), (2, 3), None)
    assert generic.values(odd) is None and rules.choices(odd, (0, 1)) == ("scalar",)
    assert rules.choices(_tile(DataType.FLOAT32, (3, 32), (1, 1), (3, 33)), (0,)) == ("scalar",)


def vstores(compiled: dmlc.CompiledKernel) -> int:
    """The vector stores of a compiled kernel's last kernel (an item's)."""
    return sum(e.op is Op.VSTORE for e in compiled.compiled.program.kernels[-1].effects)


def block_width(inner: int, lanes: int) -> int:
    """Vectors an item of the "blocks" variant moves: a row of inner // lanes vectors in
    ceil(v / 8) blocks."""
    v = inner // lanes
    return -(-v // -(-v // 8))


def slice_vectors(shape: tuple[int, ...], k: int, lanes: int) -> int:
    """The vector stores of an item of a forced-generic gather_nd ("blocks") from a packed
    table of `shape` by tuples of k: its rows' vectors where they are whole vectors, else the
    whole slice's (one contiguous run) where it is, else none (elements)."""
    inner = shape[-1] if shape[-1] % lanes == 0 else int(np.prod(shape[k:]))
    return block_width(inner, lanes) if inner % lanes == 0 else 0


def gather_case(data, lanes: int) -> tuple[tuple[int, ...], int, bool]:
    """(table shape, pad of its rows, whether the rows are whole aligned vectors): rows of up to
    24 vectors (several blocks, a last one clamped) or a width off the vector width."""
    whole = data.draw(st.booleans())
    width = lanes * data.draw(st.integers(1, 24)) if whole else \
        data.draw(st.integers(1, 3 * lanes).filter(lambda n: n % lanes))
    pad = data.draw(st.sampled_from([0, 0, lanes, 1]))
    shape = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 9)), width)
    return shape, pad, whole and pad % lanes == 0


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_gather_blocks_variant(dtype, data):
    """DML_GATHER forced generic: "blocks" (up to 8 vectors of a gathered row an item, one
    index read) where the rows are whole aligned vectors, element by element elsewhere; over
    several index counts, bit for bit the specialized kernel and numpy."""
    dtype = data.draw(st.sampled_from([dtype, *WIDE]))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    lanes = WIDTHS[dtype.itemsize]
    shape, pad, hit = gather_case(data, lanes)
    axis = data.draw(st.integers(0, 1))
    owner = (*shape[:-1], shape[-1] + pad)
    x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
    KERNELS.clear()  # a table width compiled before (another test's) makes "always" push it
    for n in data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)):
        ids = data.draw(index_arrays((1, 1, n), itype, shape[axis]))
        desc = validate(GatherDesc(
            input=TensorDesc(data_type=dtype, sizes=shape,
                             strides=_packed_strides(owner) if pad else None),
            indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=(1, 1, n)),
            axis=axis, index_dimensions=1))
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        assert vstores(generic) == (block_width(shape[-1], lanes) if hit else 0)
        arg = x.reshape(-1) if pad else x
        want = reference.gather(x[..., :shape[-1]], ids, axis, 1)
        assert generic.reference(arg, ids).tobytes() == want.tobytes()
        assert dmlc.compile(desc, dynamic=False).reference(arg, ids).tobytes() == want.tobytes()
    KERNELS.clear()


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.FLOAT64])
@given(data=st.data())
def test_gather_nd_blocks_variant(dtype, data):
    """DML_GATHER_ND forced generic: "blocks" where the gathered slices' rows are whole
    vectors, or the slices are (one tuple read a block), elements elsewhere; over several
    numbers of tuples, bit for bit the specialized kernel and numpy."""
    dtype = data.draw(st.sampled_from([dtype, *WIDE]))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    lanes = WIDTHS[dtype.itemsize]
    shape, _, _ = gather_case(data, lanes)  # packed: its rows' width decides
    k = data.draw(st.integers(1, 2))
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    for n in data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)):
        ids = data.draw(index_arrays((n, k), itype, max(shape[:k])))
        desc = validate(GatherND1Desc(
            input=TensorDesc(data_type=dtype, sizes=shape),
            indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=(1, n, k)),
            input_dimension_count=3, indices_dimension_count=2, batch_dimension_count=0))
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        assert vstores(generic) == slice_vectors(shape, k, lanes)
        want = np.ascontiguousarray(reference_nd.gather_nd(x, ids))
        got = generic.reference(x, ids.reshape(1, n, k))
        assert got.reshape(-1).tobytes() == want.reshape(-1).tobytes()
        special = dmlc.compile(desc, dynamic=False).reference(x, ids.reshape(1, n, k))
        assert special.reshape(-1).tobytes() == want.reshape(-1).tobytes()
    KERNELS.clear()


def test_gather_blocks_are_proven_and_auto_compiles_rows(monkeypatch):
    """The blocks variants are proven by verify.py for every admissible count; `auto` compiles
    the most general variant ("rows"), forced mode the best ("blocks")."""
    def rows_of(n: int) -> GatherND1Desc:  # n rows of a [50, 52] table
        return validate(GatherND1Desc(
            input=TensorDesc(data_type=DataType.FLOAT32, sizes=(50, 52)),
            indices=TensorDesc(data_type=DataType.INT64, sizes=(n, 1)),
            input_dimension_count=2, indices_dimension_count=2, batch_dimension_count=0))
    desc = rows_of(3)
    rules = rules_of(desc).generic
    assert rules.choices(desc, (0,)) == ("blocks", "rows")
    generic = rules.build(desc, (0,), "blocks")
    assert generic is not None and verify_program(generic.program)
    assert len(generic.program.kernels[0].effects) == 7  # 13 vectors: blocks of 7
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    x = random_bits(1, (50, 52), np.dtype(np.float32))
    for n in (3, 5, 2):
        ids = np.arange(n, dtype=np.int64)[::-1].reshape(n, 1)
        got = dmlc.compile(rows_of(n)).reference(x, ids)
        assert got.tobytes() == x[n - 1::-1].tobytes()
    kernels = list(dmlc.cache_info()["generic"])
    assert len(kernels) == 1 and " rows #" in kernels[0]
    KERNELS.clear()


def elements_case(data, lanes: int, ilanes: int):
    """(input shape, indices shape, indices owner or None, axis, whether "vectors" applies):
    rows of whole output vectors or not, indices padded by whole index vectors or not."""
    rank = data.draw(st.integers(1, 3))
    axis = data.draw(st.integers(0, rank - 1))
    whole = data.draw(st.booleans())
    inner = lanes * data.draw(st.integers(1, 12)) if whole else \
        data.draw(st.integers(1, 3 * lanes).filter(lambda n: n % lanes))
    idx_shape = (*(data.draw(st.integers(1, 4)) for _ in range(rank - 1)), inner)
    m = data.draw(st.integers(1, 6))
    x_shape = tuple(m if i == axis else n for i, n in enumerate(idx_shape))
    pad = data.draw(st.sampled_from([0, 0, ilanes, 1]))
    owner = None if pad == 0 or rank == 1 else (*idx_shape[:-1], inner + pad)
    aligned = owner is None or owner[-1] % ilanes == 0
    return x_shape, idx_shape, owner, axis, whole and aligned and lanes >= ilanes


def _elements(dtype: DataType, itype: np.dtype, x_shape, idx_shape, owner, axis: int):
    return validate(dmlc.GatherElementsDesc(
        input=TensorDesc(data_type=dtype, sizes=tuple(x_shape)),
        indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=tuple(idx_shape),
                           strides=None if owner is None else _packed_strides(owner)),
        axis=axis))


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_gather_elements_vector_variant(dtype, data):
    """DML_GATHER_ELEMENTS forced generic: "vectors" (row blocks of output vectors, the
    indices read as whole vectors) where the rows are whole vectors, the indices aligned and
    no narrower than an element, else "blocks" (row blocks of elements); bit for bit the
    specialized kernel and numpy either way."""
    dtype = data.draw(st.sampled_from([dtype, *WIDE]))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    lanes, ilanes = WIDTHS[dtype.itemsize], WIDTHS[itype.itemsize]
    x_shape, idx_shape, owner, axis, hit = elements_case(data, lanes, ilanes)
    x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
    ids = data.draw(index_arrays(owner or idx_shape, itype, x_shape[axis]))
    desc = _elements(dtype, itype, x_shape, idx_shape, owner, axis)
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params
    (k,) = generic.compiled.program.kernels
    assert [e.op for e in k.effects] == [Op.VSTORE if hit else Op.STORE] * 8
    arg = ids if owner is None else ids.reshape(-1)
    want = reference.gather_elements(x, ids[..., :idx_shape[-1]], axis)
    assert generic.reference(x, arg).tobytes() == want.tobytes()
    assert dmlc.compile(desc, dynamic=False).reference(x, arg).tobytes() == want.tobytes()
    KERNELS.clear()


@pytest.mark.parametrize("variant", ["vectors", "blocks", "elements"])
@given(data=st.data())
def test_gather_elements_variants_serve_their_sizes(variant, data):
    """Each variant lowered once, proven by verify.py, run by the interpreter over several
    sizes of its dynamic dimensions: bit for bit numpy where it admits the size; "vectors"
    admits an innermost size only as a multiple of the width (values() is None otherwise)."""
    dtype = data.draw(st.sampled_from([DataType.FLOAT32, DataType.UINT32]))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    rank = data.draw(st.integers(2, 3))
    axis = data.draw(st.integers(0, rank - 1))
    m = data.draw(st.integers(1, 6))
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, rank - 1), min_size=1))))
    inner = 4 * data.draw(st.integers(8, 12))  # a static innermost size: >= a block

    def shapes(sizes):
        idx = tuple(s if i in dims else (inner if i == rank - 1 else 2)
                    for i, s in enumerate(sizes))
        return tuple(m if i == axis else s for i, s in enumerate(idx)), idx
    first = _elements(dtype, itype, *shapes((2,) * (rank - 1) + (8,)), None, axis)
    rules = rules_of(first).generic
    assert variant in rules.choices(first, dims)
    generic = rules.build(first, dims, variant)
    assert generic is not None and verify_program(generic.program)
    for _ in range(3):
        sizes = tuple(data.draw(st.integers(1, 13)) for _ in range(rank))
        x_shape, idx_shape = shapes(sizes)
        desc = _elements(dtype, itype, x_shape, idx_shape, None, axis)
        values = generic.values(desc)
        if variant == "vectors" and idx_shape[-1] % 4:
            assert values is None and "vectors" not in rules.choices(desc, dims)
            continue
        assert values is not None
        x = random_bits(data.draw(st.integers(0, 99)), x_shape, dtype.numpy)
        ids = data.draw(index_arrays(idx_shape, itype, m))
        got = run_buffers(generic.program, x, ids, params=values)["output"]
        want = np.ascontiguousarray(reference.gather_elements(x, ids, axis))
        assert got.tobytes() == want.tobytes()


def pad_case(data, lanes: int):
    """(mode, shape, start, end, whether the vector guard holds): each size at least what its
    mode's pads need, the output's rows whole vectors or not."""
    mode = data.draw(st.sampled_from(MODES))
    rank = data.draw(st.integers(1, 3))
    start = tuple(data.draw(st.integers(0, 3)) for _ in range(rank))
    end = tuple(data.draw(st.integers(0, 3)) for _ in range(rank))
    extra = SMALLEST.get(mode)
    least = [1 if extra is None else max(1, s + extra, e + extra) for s, e in zip(start, end)]
    shape = [data.draw(st.integers(lo, lo + 4)) for lo in least]
    whole = data.draw(st.booleans())
    row = shape[-1] + start[-1] + end[-1]
    if whole:
        shape[-1] += (-row) % lanes + lanes * data.draw(st.integers(0, 2))
    elif row % lanes == 0:
        shape[-1] += 1
    return mode, tuple(shape), start, end, whole


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_padding_vector_variant(dtype, data):
    """DML_PADDING1 forced generic, every mode: "vector" (row blocks of output vectors, each
    packed from its lanes, mapped as the scalar kernel maps them) where the output's rows are
    whole vectors, "scalar" elsewhere; bit for bit the specialized kernel and numpy."""
    dtype = data.draw(st.sampled_from([dtype, *EVERY]))
    lanes = WIDTHS[dtype.itemsize]
    mode, shape, start, end, hit = pad_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    desc = _pad(dtype, shape, mode, start, end, data.draw(st.integers(0, 100)))
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params and moves_vectors(generic) == hit
    want = _want_pad(x, desc)
    assert generic.reference(x).tobytes() == want.tobytes()
    assert dmlc.compile(desc, dynamic=False).reference(x).tobytes() == want.tobytes()
    KERNELS.clear()


def test_padding_vector_guard_and_ranges():
    """The vector kernel admits an input size whose padded row is whole vectors only (values()
    is None otherwise, and that call's variants are the scalar one alone); verify.py proves it
    for every admissible size; static rows shorter than a block stay scalar."""
    mode = "DML_PADDING_MODE_REFLECTION"
    desc = _pad(DataType.FLOAT32, (5, 36), mode, (2, 2), (1, 2))
    rules = rules_of(desc).generic
    assert rules.choices(desc, (0, 1)) == ("interior", "vector", "scalar")  # 8 inside
    assert rules.choices(desc, (0,)) == ("interior", "vector")
    generic = rules.build(desc, (0, 1), "vector")
    assert generic is not None and verify_program(generic.program)
    assert generic.values(_pad(DataType.FLOAT32, (3, 4), mode, (2, 2), (1, 2))) is not None
    odd = _pad(DataType.FLOAT32, (3, 5), mode, (2, 2), (1, 2))
    assert generic.values(odd) is None and rules.choices(odd, (0, 1)) == ("scalar",)
    short = _pad(DataType.FLOAT32, (5, 4), mode, (2, 2), (1, 2))  # rows of 2 vectors
    assert rules.choices(short, (0,)) == ("scalar",)


def interior_case(data, lanes: int):
    """(mode, shape, start, end, whether the "interior" guard holds): the innermost pads
    together whole vectors or not, the innermost size whole vectors of at least a block's
    interior or not (a size off the width, or rows too short: the "vector" or "scalar"
    variant)."""
    mode = data.draw(st.sampled_from(MODES))
    rank = data.draw(st.integers(1, 3))
    start = [data.draw(st.integers(0, 3)) for _ in range(rank)]
    end = [data.draw(st.integers(0, 3)) for _ in range(rank)]
    pads_whole = data.draw(st.booleans())
    if pads_whole:
        end[-1] += (-(start[-1] + end[-1])) % lanes
    elif (start[-1] + end[-1]) % lanes == 0:
        end[-1] += 1
    extra = SMALLEST.get(mode)
    least = [1 if extra is None else max(1, s + extra, e + extra) for s, e in zip(start, end)]
    shape = [data.draw(st.integers(lo, lo + 3)) for lo in least]
    shift = 1 if start[-1] % lanes else 0
    kind = data.draw(st.sampled_from(["long", "short", "odd"]))
    if kind == "long":  # a block's interior or more
        shape[-1] = lanes * (BLOCK + shift + data.draw(st.integers(0, 12)))
    elif kind == "short":  # whole vectors, one fewer than a block's interior
        shape[-1] = max(lanes * (BLOCK + shift - 1), -(-least[-1] // lanes) * lanes)
    else:
        shape[-1] = lanes * (BLOCK + shift + data.draw(st.integers(0, 4))) + 1
    hit = pads_whole and kind == "long"
    return mode, tuple(shape), tuple(start), tuple(end), hit


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@given(data=st.data())
def test_padding_interior_variant(dtype, data):
    """DML_PADDING1 forced generic, every mode: "interior" (the rows' interior moved as whole
    input vectors, shifted where the start pad is off a vector; the border vectors by lanes, a
    second kernel) where its guard holds, another variant elsewhere; bit for bit the
    specialized kernel and numpy (random bits: NaN payloads, -0.0)."""
    dtype = data.draw(st.sampled_from([dtype, *WIDE]))
    lanes = WIDTHS[dtype.itemsize]
    mode, shape, start, end, hit = interior_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), shape, dtype.numpy)
    desc = _pad(dtype, shape, mode, start, end, data.draw(st.integers(0, 100)))
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params
    assert interior_kernels(generic) == hit
    want = _want_pad(x, desc)
    assert generic.reference(x).tobytes() == want.tobytes()
    assert dmlc.compile(desc, dynamic=False).reference(x).tobytes() == want.tobytes()
    KERNELS.clear()


def interior_kernels(compiled: dmlc.CompiledKernel) -> bool:
    """Whether a compiled generic padding runs the "interior" variant: it alone reads the
    input as whole vectors (the others read elements; its border kernel is left out where the
    innermost pads are 0)."""
    from dmlc.ir.ops import Op
    from dmlc.ir.walk import toposort
    return any(n.op is Op.VLOAD and n.buffer == "input"
               for k in compiled.compiled.program.kernels for n in toposort(list(k.effects)))


@pytest.mark.parametrize("mode", MODES)
def test_padding_interior_guard_and_ranges(mode):
    """The interior kernel admits an input innermost size of whole vectors, at least a block's
    interior (values() is None otherwise, and that call runs "vector" or "scalar"); verify.py
    proves it for every admissible size, each dimension dynamic alone or all; a 64-bit type;
    8/16-bit outputs never take it (words: family/words.py) and stay exact."""
    desc = _pad(DataType.FLOAT32, (3, 5, 64), mode, (1, 2, 2), (2, 1, 2))
    rules = rules_of(desc).generic
    for dims in [(0, 1, 2), (0,), (1,), (2,), (0, 2)]:
        choices = rules.choices(desc, dims)
        assert choices[0] == "interior", (dims, choices)
        generic = rules.build(desc, dims, "interior")
        assert generic is not None and verify_program(generic.program)
    generic = rules.build(desc, (0, 1, 2), "interior")
    assert generic is not None
    long = _pad(DataType.FLOAT32, (3, 5, 36), mode, (1, 2, 2), (2, 1, 2))  # 9 vectors, 8 inside
    assert generic.values(long) is not None
    short = _pad(DataType.FLOAT32, (3, 5, 32), mode, (1, 2, 2), (2, 1, 2))
    assert generic.values(short) is None and rules.choices(short, (0, 1, 2)) == ("vector",
                                                                                  "scalar")
    odd = _pad(DataType.FLOAT32, (3, 5, 37), mode, (1, 2, 2), (2, 1, 2))
    assert generic.values(odd) is None and rules.choices(odd, (0, 1, 2)) == ("scalar",)
    aligned = _pad(DataType.INT64, (3, 5, 20), mode, (1, 2, 2), (2, 1, 0))
    assert rules.choices(aligned, (0, 1, 2))[0] == "interior"
    built = rules.build(aligned, (0, 1, 2), "interior")
    assert built is not None and verify_program(built.program)
    for dtype in (DataType.FLOAT16, DataType.INT8):
        narrow = _pad(dtype, (3, 5, 64), mode, (1, 2, 2), (2, 1, 2))
        assert "interior" not in rules.choices(narrow, (0, 1, 2))
        x = random_bits(3, (3, 5, 64), dtype.numpy)
        got = dmlc.compile(narrow, dynamic=True).reference(x)
        assert got.tobytes() == _want_pad(x, narrow).tobytes()
    KERNELS.clear()


ONE_HOT_TYPES = [DataType.FLOAT16, DataType.INT8, DataType.FLOAT32, DataType.INT64]


def one_hot_case(data, lanes: int) -> tuple[tuple[int, ...], int, int, bool]:
    """(the labels' shape, the axis, the depth, whether the "rows" guard holds): the classes
    innermost or not, a depth of BLOCK or more whole vectors or not (fewer, or off the
    width)."""
    rank = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(rank))
    axis = data.draw(st.integers(0, rank))
    whole = data.draw(st.booleans())
    depth = (lanes * data.draw(st.integers(BLOCK, BLOCK + 2)) if whole else
             data.draw(st.sampled_from([lanes * data.draw(st.integers(1, BLOCK - 1)),
                                        lanes * BLOCK + data.draw(st.integers(1, lanes - 1))
                                        if lanes > 1 else lanes * BLOCK - 1,
                                        data.draw(st.integers(1, lanes * BLOCK))])))
    hit = axis == rank and depth % lanes == 0 and depth // lanes >= BLOCK
    return shape, axis, depth, hit


def _one_hot(dtype: DataType, itype: np.dtype, shape, axis: int, depth: int) -> dmlc.OneHotDesc:
    inner = (*shape[:axis], 1, *shape[axis:])
    return validate(dmlc.OneHotDesc(
        indices=TensorDesc(data_type=DataType[itype.name.upper()], sizes=inner),
        values=TensorDesc(data_type=dtype, sizes=(1,) * len(shape) + (2,)), axis=axis,
        output=TensorDesc(data_type=dtype, sizes=(*shape[:axis], depth, *shape[axis:]))))


def one_hot_check(data, dtype: DataType, run) -> None:
    """One drawn one_hot case forced generic: its variant from the guard, and `run(kernel,
    labels, values)` bit for bit numpy's for the generic and the specialized kernel."""
    lanes = 16 // dtype.itemsize
    shape, axis, depth, hit = one_hot_case(data, lanes)
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    ids = data.draw(index_arrays(shape, itype, depth))
    values = random_bits(data.draw(st.integers(0, 99)), (2,), dtype.numpy)
    desc = _one_hot(dtype, itype, shape, axis, depth)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    if hit:
        assert vstores(generic) == BLOCK
    want = reference_nd.one_hot(ids, values, depth, axis).tobytes()
    labels = ids.reshape(desc.indices.sizes)
    vals = values.reshape(desc.values.sizes)
    assert run(generic, labels, vals).tobytes() == want
    assert run(dmlc.compile(desc, dynamic=False), labels, vals).tobytes() == want


@pytest.mark.parametrize("dtype", ONE_HOT_TYPES)
@given(data=st.data())
def test_one_hot_rows_variant(dtype, data):
    """DML_ONE_HOT forced generic: "rows" (one label an item, BLOCK 16-byte vectors of its row
    of classes, 8/16-bit values packed by words) where the classes are innermost and a row is
    BLOCK or more whole vectors, "scalar" elsewhere; labels in range, negative and far outside
    it; bit for bit the specialized kernel and numpy."""
    one_hot_check(data, dtype, lambda k, ids, vals: k.reference(ids, vals))
    KERNELS.clear()


def test_one_hot_rows_guard_and_ranges(monkeypatch):
    """verify.py proves the rows kernel for every admissible number of labels (any of the
    labels' dimensions dynamic); the guard is static (the depth's); `auto`
    compiles the most general variant, forced mode the rows."""
    for dtype, depth in ((DataType.FLOAT16, 64), (DataType.INT8, 128), (DataType.INT64, 16)):
        desc = _one_hot(dtype, np.dtype(np.int32), (3, 5), 2, depth)
        rules = rules_of(desc).generic
        for dims in ((0,), (1,), (0, 1)):
            assert rules.choices(desc, dims) == ("rows", "scalar")
            generic = rules.build(desc, dims, "rows")
            assert generic is not None and verify_program(generic.program)
            assert sum(e.op is Op.VSTORE for e in generic.program.kernels[0].effects) == BLOCK
        short = _one_hot(dtype, np.dtype(np.int32), (3, 5), 2, depth - 1)
        assert rules.choices(short, (0,)) == ("scalar",)
        assert rules.build(short, (0,), "rows") is None
        assert rules.choices(_one_hot(dtype, np.dtype(np.int32), (3, 5), 1, depth), (0,)) == \
            ("scalar",)
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    values = np.array([2, 5], np.float16)
    for n in (3, 5, 2):
        ids = (np.arange(n, dtype=np.int32) * 7 - 3).reshape(n, 1)
        got = dmlc.compile(_one_hot(DataType.FLOAT16, ids.dtype, (n,), 1, 64)).reference(
            ids, values.reshape(1, 2))
        assert got.tobytes() == reference_nd.one_hot(ids[:, 0], values, 64, 1).tobytes()
    kernels = list(dmlc.cache_info()["generic"])
    assert len(kernels) == 1 and " scalar #" in kernels[0]
    KERNELS.clear()


def test_one_hot_rows_reads_labels_at_pushed_offsets():
    """The rows variant reads the labels of a strided view at its pushed offset (any offset:
    one label an item, no vector loads), one generic kernel for every offset, bit for bit
    numpy."""
    values = np.array([7, -3], np.int8)
    owner, sizes = (4, 3), (3, 2)
    ids = np.array([[0, 127, -1], [-128, 128, 5], [64, -129, 2], [1, 1, 1]], np.int32)
    want = reference_nd.one_hot(ids[:3, :2], values, 128, 2).tobytes()
    dmlc.clear_cache()
    for offset in (0, 1, 5, 7):
        desc = validate(dmlc.OneHotDesc(
            indices=view_at(DataType.INT32, sizes + (1,), owner + (1,), offset),
            values=TensorDesc(data_type=DataType.INT8, sizes=(1, 1, 2)),
            output=TensorDesc(data_type=DataType.INT8, sizes=(*sizes, 128)), axis=2))
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params and vstores(generic) == BLOCK
        assert verify_program(generic.compiled.program)
        got = generic.reference(buffer(ids, offset, offset), values.reshape(1, 1, 2))
        assert got.tobytes() == want
    assert sum(v for k, v in dmlc.cache_info()["compiles"].items() if "generic" in k) == 1
    KERNELS.clear()

"""A view's element offset as a push constant (docs/generic-kernels.md), without a device: every
family's generic kernel, compiled once, serves its tensors at any offset (0, offsets that break
the vector alignment, aligned ones), bit for bit the specialized kernel and numpy; the key holds
no offset value; the proof of safety covers every admissible offset; a moving window compiles one
specialized and one generic kernel."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests import reference, reference_nd
from tests.offset_cases import FAMILIES, INDEX, buffer, draw_calls, view_at
from tests.strategies import budget, random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.generic import OFFSET_MAX, PUSHED
from dmlc.family.registry import rules_of, validate
from dmlc.ir.interp import run_buffers
from dmlc.ir.ops import IRError
from dmlc.ir.verify import verify_program
from dmlc.ops.copy.desc import IdentityDesc

EVERY = list(DataType)  # 8/16-bit outputs: words (family/words.py), at pushed offsets too


@settings(max_examples=budget(30))
@given(st.data())
def test_one_generic_kernel_serves_every_offset(data):
    """Each family, its tensors views of a fixed owner at offsets drawn among 0, offsets that
    break the 16-byte alignment and aligned ones, and sizes drawn below the owner's: forced
    mode compiles one generic kernel (one per variant where a vector variant takes aligned
    offsets only), bit for bit the specialized kernel and numpy."""
    name = data.draw(st.sampled_from(sorted(FAMILIES)))
    dtype = data.draw(st.sampled_from(EVERY))
    dmlc.clear_cache()
    for x, sizes, owner, offset, k in draw_calls(data, name, dtype):
        desc, arrays, want = FAMILIES[name](dtype, x, sizes, owner, offset, k, data)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params, (name, desc)
        special = dmlc.compile(desc, dynamic=False)
        assert not special.compiled.params
        got, twin = generic.reference(*arrays), special.reference(*arrays)
        if isinstance(got, tuple):  # split's outputs, joined for the comparison
            got, twin = np.concatenate(got), np.concatenate(twin)
        assert got.tobytes() == twin.tobytes() == np.ascontiguousarray(want).tobytes(), (
            name, sizes, offset)
    compiles = {k: v for k, v in dmlc.cache_info()["compiles"].items() if "generic" in k}
    assert len(compiles) == 1, compiles
    # one per variant: a vector variant takes aligned offsets only (copy; split, tile, pad and
    # gather_elements since their vector and block variants), the general one the others
    assert list(compiles.values())[0] <= (1 if name in ("gather", "one_hot") else 2), (
        compiles)
    KERNELS.clear()


def test_the_key_holds_no_offset_and_the_proof_covers_every_offset():
    """A view's offset is PUSHED in the key; a packed tensor's 0 stays (its kernel as before);
    the offset PARAM spans [0, OFFSET_MAX] and verify.py proves every access inside the
    buffer's runtime extent for all of it; the interpreter runs the largest offset and refuses
    one past it."""
    f32 = DataType.FLOAT32
    view = validate(dmlc.TileDesc(input=view_at(f32, (2, 3), (4, 3), 5), repeats=(1, 2)))
    packed = validate(dmlc.TileDesc(input=TensorDesc(data_type=f32, sizes=(2, 3)),
                                    repeats=(1, 2)))
    rules = rules_of(view).generic
    assert PUSHED in rules.key(view, (0, 1))[1] and 0 in rules.key(packed, (0, 1))[1]
    generic = rules.lower(view, (0, 1))
    assert generic is not None
    verify_program(generic.program)
    offsets = [q for q in generic.program.params if (q.vmin, q.vmax) == (0, OFFSET_MAX)]
    assert len(offsets) == 1
    plain = rules.lower(packed, (0, 1))
    assert plain is not None and len(plain.program.params) == len(generic.program.params) - 1
    far = validate(dmlc.TileDesc(input=view_at(f32, (2, 3), (4, 3), OFFSET_MAX), repeats=(1, 2)))
    assert generic.values(far) is not None
    beyond = validate(dmlc.TileDesc(input=view_at(f32, (2, 3), (4, 3), OFFSET_MAX + 1),
                                    repeats=(1, 2)))
    assert generic.values(beyond) is None
    x = random_bits(1, (4, 3), np.dtype(np.float32))
    got = run_buffers(generic.program, buffer(x, 5, 2), params=generic.values(view))
    assert got["output"].tobytes() == np.tile(x[:2], (1, 2)).tobytes()


def test_vector_copy_takes_aligned_offsets_only():
    """The "vector" copy's offset is a PARAM times the width (verify proves its vectors
    aligned); a misaligned offset is not admitted (the call runs the "rows" kernel: a 32-bit
    type whose rows are a block long)."""
    f32 = DataType.FLOAT32
    aligned = validate(IdentityDesc(input=view_at(f32, (3, 8), (4, 8), 8)))
    rules = rules_of(aligned).generic
    assert rules.choices(aligned, (0,)) == ("vector",)
    generic = rules.build(aligned, (0,), "vector")
    assert generic is not None
    verify_program(generic.program)
    assert generic.values(validate(IdentityDesc(input=view_at(f32, (2, 8), (4, 8), 4)))) is not None
    odd = validate(IdentityDesc(input=view_at(f32, (2, 8), (4, 8), 3)))
    assert generic.values(odd) is None and rules.choices(odd, (0,)) == ("rows",)


def _window(t0: int) -> Any:
    return validate(IdentityDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(4, 3),
                                                  strides=(8, 1), offset=t0)))


def test_moving_window_copy_is_one_specialized_and_one_generic_kernel():
    """dmlc.copy(c[:, t0:t0 + 3]) for t0 in 0..4 (auto): the first offset specialized, the
    next one generic (its sizes static, the offset pushed), which serves the rest; a window
    that then grows too widens it once."""
    dmlc.clear_cache()
    c = random_bits(3, (4, 8), np.dtype(np.float32))
    for t0 in range(5):
        kernel = dmlc.compile(_window(t0), dynamic="auto")
        assert kernel.reference(c.reshape(-1)).tobytes() == \
            np.ascontiguousarray(c[:, t0:t0 + 3]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}
    for t0 in range(3):
        desc = validate(IdentityDesc(input=TensorDesc(data_type=DataType.FLOAT32,
                                                      sizes=(4, 5 - t0), strides=(8, 1),
                                                      offset=t0)))
        kernel = dmlc.compile(desc, dynamic="auto")
        assert kernel.reference(c.reshape(-1)).tobytes() == \
            np.ascontiguousarray(c[:, t0:5]).tobytes()
    assert dmlc.cache_info()["compiles"]["DML_ELEMENT_WISE_IDENTITY generic"] == 2
    KERNELS.clear()


def test_moving_slice_window_is_one_specialized_and_one_generic_kernel():
    """DML_SLICE1 of a window whose start moves: its offset is the view's (slice_offsets)."""
    dmlc.clear_cache()
    x = random_bits(4, (3, 9), np.dtype(np.int32))
    for t0 in (0, 1, 2, 5, 3):
        desc = validate(dmlc.Slice1Desc(input=TensorDesc(data_type=DataType.INT32, sizes=(3, 9)),
                                        offsets=(0, t0), sizes=(3, 4), strides=(1, 1)))
        got = dmlc.compile(desc, dynamic="auto").reference(x)
        assert got.tobytes() == np.ascontiguousarray(x[:, t0:t0 + 4]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SLICE1": 1, "DML_SLICE1 generic": 1}
    KERNELS.clear()


def test_an_offset_past_the_bound_buffer_is_refused():
    """The interpreter checks every address against the buffer it binds: a pushed extent
    larger than the array is an error, not a read past it."""
    view = validate(IdentityDesc(input=view_at(DataType.FLOAT32, (2, 3), (4, 3), 2)))
    generic = rules_of(view).generic.build(view, (0, 1), "scalar")
    assert generic is not None
    with pytest.raises(IRError):
        run_buffers(generic.program, np.zeros(4, np.float32), params=generic.values(view))


def test_an_offset_past_one_binding_compiles_specialized_and_chunked():
    """A pushed offset's buffer is of runtime extent, never bound as chunks (dynamic.py's
    extents_fit): a view whose offset puts its buffer past one binding (Vulkan's minimum,
    128 MiB) compiles specialized; a small offset of the same view runs the generic kernel."""
    def view(offset: int) -> Any:
        return IdentityDesc(input=TensorDesc(data_type="FLOAT32", sizes=(2, 3),
                                             strides=(8, 1), offset=offset))
    near = dmlc.compile(view(1000), target="cpu", limits="minimum", dynamic=True)
    assert near.compiled.program.params
    far = dmlc.compile(view(40_000_000), target="cpu", limits="minimum", dynamic=True)
    assert not far.compiled.program.params
    KERNELS.clear()


@pytest.mark.parametrize("name", sorted(FAMILIES))
@settings(max_examples=budget(2))
@given(data=st.data())
def test_auto_moving_offsets_are_one_specialized_and_one_generic_kernel(name, data):
    """auto, the sizes fixed and the views' offsets moving: the first call specialized, the
    second a generic kernel of no dynamic dimension (its offsets pushed) serving the rest,
    aligned and misaligned (the innermost size 3 has no vector variant), bit for bit numpy."""
    owner, sizes = (3, 5), (2, 3)
    x = random_bits(data.draw(st.integers(0, 99)), owner, np.dtype(np.float32))
    dmlc.clear_cache()
    for k, offset in enumerate((1, 3, 4, 0, 7)):
        desc, arrays, want = FAMILIES[name](DataType.FLOAT32, x, sizes, owner, offset, k, data)
        got = dmlc.compile(desc, dynamic="auto").reference(*arrays)
        if isinstance(got, tuple):
            got = np.concatenate(got)
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), (name, offset)
    compiles = dmlc.cache_info()["compiles"]
    assert sorted(compiles.values()) == [1, 1] and len(
        [k for k in compiles if k.endswith(" generic")]) == 1, compiles
    KERNELS.clear()


@pytest.mark.parametrize("mode", ["DML_PADDING_MODE_EDGE", "DML_PADDING_MODE_REFLECTION",
                                  "DML_PADDING_MODE_CONSTANT"])
def test_padding_interior_reads_a_view_at_every_offset(mode):
    """The padding "interior" variant (ops/pad/interior.py: whole input vectors) of a view:
    its pushed offset is a PARAM times the width, so aligned offsets run it and the others
    "vector"/"scalar"; every call bit for bit the specialized kernel and numpy."""
    from tests.reference_layout import pad
    dtype, owner = DataType.FLOAT32, (3, 48)
    x = random_bits(5, owner, dtype.numpy)
    start, end = (0, 1), (0, 3)  # the innermost pads together one vector, the start off it
    dmlc.clear_cache()
    ran = []
    for offset, width in [(0, 40), (4, 36), (1, 40), (8, 44), (3, 36), (12, 40)]:
        desc = validate(dmlc.PaddingDesc(input=view_at(dtype, (3, width), owner, offset),
                                         mode=mode, start_padding=start, end_padding=end))
        generic = dmlc.compile(desc, dynamic=True)
        ran.append(any(k.name == "padding_border" for k in generic.compiled.program.kernels))
        arrays = [buffer(x, offset, offset)]
        want = pad(x[:, :width], start, end, mode)
        assert generic.reference(*arrays).tobytes() == want.tobytes(), (offset, width)
        assert dmlc.compile(desc, dynamic=False).reference(*arrays).tobytes() == want.tobytes()
    assert ran == [True, True, False, True, False, True]
    compiles = {k: v for k, v in dmlc.cache_info()["compiles"].items() if "generic" in k}
    assert compiles == {"DML_PADDING1 generic": 2}, compiles  # interior, and one for the rest
    KERNELS.clear()


def _layer(dtype: DataType, owner: tuple[int, ...], layer: int, shift: int,
           transposed: bool) -> TensorDesc:
    """Layer `layer` of a cache of shape `owner` (layers outermost) in a buffer whose first
    `shift` elements come before it: a view of static sizes at a moving offset (transposed:
    the layer's [cols, rows] read as [rows, cols], the gather's "strips" variant)."""
    rows, cols = owner[1:]
    return TensorDesc(data_type=dtype, sizes=(rows, cols),
                      strides=(1, rows) if transposed else (cols, 1),
                      offset=shift + layer * rows * cols)


@settings(max_examples=budget(25))
@given(st.data())
def test_gather_from_each_layer_of_a_cache_is_one_generic_kernel(data):
    """A gather (and a gather_nd) of rows of each layer of a cache sliced from one buffer: the
    table's offset is pushed (family/gather_rows.py: GatherTable), so forced generic compiles
    one kernel for every layer (one per variant: a vector variant takes aligned offsets only),
    and auto one specialized kernel then one generic; bit for bit numpy and the specialized
    kernel, ids in range and out of it (clamped)."""
    dtype = data.draw(st.sampled_from(EVERY))
    layers, rows = data.draw(st.integers(2, 4)), data.draw(st.integers(1, 6))
    cols = data.draw(st.sampled_from([1, 3, 4, 8, 12]))
    shift = data.draw(st.sampled_from([0, 1, 4]))
    nd, transposed = data.draw(st.booleans()), data.draw(st.booleans())
    n = data.draw(st.integers(1, 5))  # ids per call (a size that varies too: other tests)
    owner = (layers, rows, cols)
    cache = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
    stored = cache.transpose(0, 2, 1) if transposed else cache  # as the buffer holds it
    flat = random_bits(7, (shift + cache.size + 5,), dtype.numpy)
    flat[shift:shift + cache.size] = stored.reshape(-1)
    for mode in (True, "auto"):
        dmlc.clear_cache()
        for layer in range(layers):
            ids = np.asarray(data.draw(st.lists(st.integers(-rows - 2, rows + 2), min_size=n,
                                                max_size=n)), np.int32)
            table = _layer(dtype, owner, layer, shift, transposed)
            if nd:
                desc = validate(dmlc.GatherNDDesc(
                    input=table, indices=TensorDesc(data_type=INDEX, sizes=(n, 1)),
                    input_dimension_count=2, indices_dimension_count=2))
                want = reference_nd.gather_nd(cache[layer], ids.reshape(n, 1))
                arrays = [flat, ids.reshape(n, 1)]
            else:
                desc = validate(dmlc.GatherDesc(
                    input=table, indices=TensorDesc(data_type=INDEX, sizes=(1, n)), axis=0,
                    index_dimensions=1))
                want = reference.gather(cache[layer], ids.reshape(1, n), 0, 1)
                arrays = [flat, ids.reshape(1, n)]
            kernel = dmlc.compile(desc, dynamic=mode)
            got = kernel.reference(*arrays)
            assert got.tobytes() == np.ascontiguousarray(want).tobytes(), (layer, ids)
            twin = dmlc.compile(desc, dynamic=False).reference(*arrays)
            assert got.tobytes() == twin.tobytes()
        compiles = dmlc.cache_info()["compiles"]
        op = desc.operator
        generic = compiles.get(f"{op} generic", 0)
        assert 1 <= generic <= 2, compiles  # forced: one per variant; auto: one
        if mode == "auto":
            assert generic == 1, compiles
        KERNELS.clear()


def test_a_reversed_input_read_by_a_reversing_window_never_runs_a_forward_kernel():
    """dmlc.slice(base[::-1], [0], [6], [-1]) after two slices of packed vectors (auto: the
    second compiled a generic kernel): the window's view has stride (-1) * (-1) = +1 like a
    packed input's, but starts elsewhere; its key said so only by the window strides' signs.
    It ran the packed slices' generic kernel and read [305, 0, 0, 0, 0, 0] (found by
    test_device_tensors' strided views, a history-dependent result)."""
    dmlc.clear_cache()
    u32 = DataType.UINT32
    for n in (2, 1):
        x = np.arange(n, dtype=np.uint32) + 100
        desc = validate(dmlc.Slice1Desc(input=TensorDesc(data_type=u32, sizes=(n,)),
                                        offsets=(0,), sizes=(n,), strides=(1,)))
        assert dmlc.compile(desc, dynamic="auto").reference(x).tobytes() == x.tobytes()
    base = np.arange(6, dtype=np.uint32) + 300
    reversed_view = TensorDesc(data_type=u32, sizes=(6,), strides=(-1,), offset=5)
    desc = validate(dmlc.Slice1Desc(input=reversed_view, offsets=(0,), sizes=(6,),
                                    strides=(-1,)))
    rules = rules_of(desc).generic
    packed = validate(dmlc.Slice1Desc(input=TensorDesc(data_type=u32, sizes=(6,)),
                                      offsets=(0,), sizes=(6,), strides=(1,)))
    assert rules.key(desc, (0,)) != rules.key(packed, (0,))
    for mode in ("auto", True):
        got = dmlc.compile(desc, dynamic=mode).reference(base)
        assert got.tobytes() == base.tobytes(), (mode, got)
    KERNELS.clear()


@settings(max_examples=budget(60))
@given(st.data())
def test_slices_of_one_key_lower_to_one_program(data):
    """The contract of a generic kernel's key (family/generic.py): descriptors of one key make
    the same accesses. Slices of random views (strides of either sign, offsets) by random
    windows (steps of either sign), drawn in pairs of one rank and type: where two keys are
    equal, both lower to the same program, or neither lowers."""
    from dmlc.ir.printer import render_program
    rank, dtype = data.draw(st.integers(1, 3)), DataType.FLOAT32

    def draw_desc() -> Any:
        owner = [data.draw(st.integers(1, 5)) for _ in range(rank)]
        packed = [int(np.prod(owner[i + 1:])) for i in range(rank)]
        signs = [data.draw(st.sampled_from([1, -1])) for _ in range(rank)]
        offset = sum((n - 1) * p for n, p, s in zip(owner, packed, signs) if s < 0)
        inp = TensorDesc(data_type=dtype, sizes=tuple(owner),
                         strides=tuple(p * s for p, s in zip(packed, signs)), offset=offset)
        steps = [data.draw(st.sampled_from([1, 2, -1])) for _ in range(rank)]
        starts = [data.draw(st.integers(0, n - 1)) for n in owner]
        sizes = [data.draw(st.integers(1, max(1, (n - o) // abs(s) if s > 0 else o // 1 + 1)))
                 for n, o, s in zip(owner, starts, steps)]
        return dmlc.Slice1Desc(input=inp, offsets=tuple(starts), sizes=tuple(sizes),
                               strides=tuple(steps))
    seen: dict[Any, str | None] = {}
    for _ in range(6):
        try:
            desc = validate(draw_desc())
        except dmlc.ValidationError:
            continue
        rules = rules_of(desc).generic
        dims = tuple(range(rank))
        for variant in rules.choices(desc, dims):
            key = (rules.key(desc, dims), variant)
            built = rules.build(desc, dims, variant)
            text = None if built is None else render_program(built.program)
            if key in seen and seen[key] is not None:
                assert text == seen[key], (key, desc)
            seen.setdefault(key, text)


def test_a_gather_from_a_reversed_table_compiles_specialized_not_an_error():
    """a[::-1] as a gather's table (strides (-6, 1), offset 18): its addresses fall below a
    pushed offset of 0, so no generic kernel pushes its offset (table_fits); forced generic
    raised IRError from verify.py (the address range [-18, ...]) instead of compiling the
    specialized kernel. Every mode gives numpy's rows."""
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    table = TensorDesc(data_type=DataType.FLOAT32, sizes=(4, 6), strides=(-6, 1), offset=18)
    ids = np.array([[0, 3, -1]], np.int32)
    desc = validate(dmlc.GatherDesc(input=table, indices=TensorDesc(data_type=INDEX,
                                                                    sizes=ids.shape),
                                    axis=0, index_dimensions=1))
    assert rules_of(desc).generic.build(desc, (1,), "rows/e") is None
    for mode in (True, "auto", False):
        got = dmlc.compile(desc, dynamic=mode).reference(a.reshape(-1), ids)
        assert got.tobytes() == a[::-1][[0, 3, 3]].tobytes(), mode
    KERNELS.clear()

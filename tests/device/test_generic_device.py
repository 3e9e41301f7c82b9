"""Generic kernels on the device (docs/generic-kernels.md): the generic and the specialized
kernel of one descriptor against each other and numpy over random sizes, bit for bit; guard
words around every buffer; a new size compiles nothing; the decode loop's compile counts."""
from __future__ import annotations

import importlib.util
import pathlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.offset_cases import FAMILIES, draw_calls
from tests.onnx_models import compiles_over_batches, gather_slice_concat
from tests.strategies import budget, random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.gather.desc import GatherDesc

pytestmark = pytest.mark.vulkan
DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)


def _view(dtype: DataType, full: tuple[int, ...], sizes: tuple[int, ...]) -> IdentityDesc:
    strides = tuple(int(np.prod(full[i + 1:])) for i in range(len(full)))
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes, strides=strides)))


@settings(max_examples=budget(15))
@given(st.data())
def test_generic_copy_equals_specialized(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    full = tuple(data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    x = random_bits(data.draw(st.integers(0, 99)), full, dtype.numpy)
    for _ in range(2):
        sizes = tuple(data.draw(st.integers(1, n)) for n in full)
        desc = _view(dtype, full, sizes)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        want = np.ascontiguousarray(x[tuple(slice(0, n) for n in sizes)])
        got, ref = generic(x.reshape(-1)), special(x.reshape(-1))
        assert got.tobytes() == ref.tobytes() == want.tobytes()


@settings(max_examples=budget(15))
@given(st.data())
def test_generic_vector_copy_equals_specialized(data):
    """Views whose innermost size is a multiple of the vector width: forced mode runs the
    "vector" generic kernel (blocks of 16-byte vectors); other sizes of the same view the
    "scalar" one; both bit for bit the specialized kernel and numpy, guard words intact."""
    dtype = data.draw(st.sampled_from(DTYPES))
    lanes = 16 // dtype.itemsize
    full = tuple(data.draw(st.lists(st.integers(1, 6), min_size=0, max_size=2))) + (
        lanes * data.draw(st.integers(1, 24)),)
    x = random_bits(data.draw(st.integers(0, 99)), full, dtype.numpy)
    for _ in range(3):
        sizes = tuple(data.draw(st.integers(1, n)) for n in full)
        desc = _view(dtype, full, sizes)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        assert ("vstore" in generic.ir) == (sizes[-1] % lanes == 0), generic.ir
        special = dmlc.compile(desc, dynamic=False)
        want = np.ascontiguousarray(x[tuple(slice(0, n) for n in sizes)])
        got, ref = generic(x.reshape(-1)), special(x.reshape(-1))
        assert got.tobytes() == ref.tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []


@settings(max_examples=budget(15))
@given(st.data())
def test_generic_gather_equals_specialized(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(["int32", "int64", "uint32", "uint64"]))
    rows, width = data.draw(st.integers(1, 40)), data.draw(st.sampled_from([1, 2, 3, 4, 7, 8, 12]))
    table = random_bits(3, (rows, width), dtype.numpy)
    for n in data.draw(st.lists(st.integers(1, 70), min_size=1, max_size=3)):
        ids = random_bits(n, (1, n), np.dtype(itype))  # wild values: clamped, bit for bit
        desc = validate(GatherDesc(input=TensorDesc(data_type=dtype, sizes=(rows, width)),
                                   indices=TensorDesc(data_type=DataType.of(itype),
                                                      sizes=(1, n)),
                                   axis=0, index_dimensions=1))
        generic, special = dmlc.compile(desc, dynamic=True), dmlc.compile(desc, dynamic=False)
        assert generic.compiled.params and not special.compiled.params
        assert generic(table, ids).tobytes() == special(table, ids).tobytes()


def test_generic_kernels_keep_the_guard_words():
    x = random_bits(5, (7, 13), np.dtype(np.float32))
    for t in (1, 6, 13):
        kernel = dmlc.compile(_view(DataType.FLOAT32, (7, 13), (7, t)), guard_words=64,
                              dynamic=True)
        assert kernel.compiled.params
        out = kernel(x.reshape(-1))
        assert out.tobytes() == np.ascontiguousarray(x[:, :t]).tobytes()
        assert kernel.executable().guard_damage() == []


def test_a_new_size_compiles_nothing(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")  # the policy this counts (make test-generic
    dmlc.clear_cache()                           # forces generic kernels)
    cache = dmlc.to_device(np.arange(2 * 3 * 50, dtype=np.float32).reshape(2, 3, 50))
    for t in range(2, 40):
        assert np.array_equal(dmlc.copy(cache[:, :, :t]).numpy(), cache.numpy()[:, :, :t])
    info = dmlc.cache_info()
    assert info["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                "DML_ELEMENT_WISE_IDENTITY generic": 1}
    assert list(info["generic"].values()) == [37]


def test_device_tensor_smaller_than_the_pushed_extent_is_refused():
    kernel = dmlc.compile(_view(DataType.FLOAT32, (4, 16), (4, 10)), dynamic=True)
    small = dmlc.to_device(np.zeros(8, np.float32))
    with pytest.raises(dmlc.DmlcError):
        kernel(small)


def _decode_loop() -> Any:
    """tools/decode_loop.py as a module (tools/ is no package)."""
    path = pathlib.Path(__file__).resolve().parents[2] / "tools" / "decode_loop.py"
    spec = importlib.util.spec_from_file_location("decode_loop", path)
    assert spec is not None and spec.loader is not None
    loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loop)
    return loop


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_decode_loop_compiles_at_most_two_kernels_per_signature(dtype):
    """The loop of tools/decode_loop.py (every step checked against numpy), float32 and a
    float16 table and cache (8/16-bit outputs: a generic kernel stores words), with the floor
    it measures each step against."""
    from dmlc.runtime.plan_buffers import PlanBuffers
    loop, bound = _decode_loop(), vars(PlanBuffers)["bound"]
    for mode in ("auto", "always"):
        result = loop.run(40, mode, dtype=dtype)
        compiles = result["compiles"]
        per_op: dict[str, int] = {}
        for name, n in compiles.items():
            op = name.removesuffix(" generic")
            per_op[op] = per_op.get(op, 0) + n
        assert max(per_op.values()) <= 2, (mode, compiles)
        # the window copy: t = 1 (a size-1 dimension, stride 0), the growing window and
        # t = window (the whole cache, packed) share one signature: in auto one generic
        # kernel (the scalar one, for every t), forced the vector one too (t % 4 == 0)
        assert compiles["DML_ELEMENT_WISE_IDENTITY generic"] == (1 if mode == "auto" else 2)
        assert compiles.get("DML_ELEMENT_WISE_IDENTITY", 0) == (mode == "auto"), compiles
        # its floor: one dispatch per call (the in-place scatter_nd is one kernel), as many
        # bare ones timed after each step; the wrapper that counts them is gone after
        assert result["dispatches_per_step"] == {"min": 3, "max": 3}, result
        assert 0 < result["floor_ms_per_step"] and result["step_over_floor"] > 1, result
        assert vars(PlanBuffers)["bound"] is bound


def test_onnx_model_with_a_symbolic_batch_compiles_each_kernel_once():
    """Gather (ids [B, 3] from a table) -> Slice (rows 1:3) -> Concat with x [B, 2, 8], B a
    dim_param: five batch sizes run, each kernel compiled once (generic from the first run:
    the model says its sizes vary), every result as onnx's reference evaluator's."""
    table = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    compiles = compiles_over_batches(gather_slice_concat(table), lambda batch, rng: {
        "ids": rng.integers(-16, 16, (batch, 3)).astype(np.int64),
        "x": rng.standard_normal((batch, 2, 8)).astype(np.float32)})
    assert compiles == {"DML_GATHER generic": 1, "DML_JOIN generic": 1}, compiles


def test_onnx_concat_of_ten_inputs_with_a_symbolic_batch_compiles_once():
    """Concat of ten [B, 2] inputs (more than a shader binds) at five batch sizes: one generic
    kernel (a kernel per 7 inputs; it compiled specialized per batch: five), every result as
    onnx's reference evaluator's."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
    names = [f"x{i}" for i in range(10)]
    graph = helper.make_graph(
        [helper.make_node("Concat", names, ["y"], axis=1)], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["B", 2]) for n in names],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", 20])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    import dmlc.onnx
    program = dmlc.onnx.load_program(model)
    dmlc.clear_cache()
    rng = np.random.default_rng(2)
    for batch in (3, 1, 5, 2, 4):
        feeds = {n: rng.standard_normal((batch, 2)).astype(np.float32) for n in names}
        got = program.run(feeds)["y"]
        (want,) = ReferenceEvaluator(model).run(None, feeds)
        assert got.tobytes() == np.asarray(want).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_JOIN generic": 1}


def test_growing_slices_compile_two_kernels(monkeypatch):
    """dmlc.slice of a growing window (auto): one specialized kernel, then one generic for
    every later size; the same bits as numpy."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    x = random_bits(4, (6, 40), np.dtype(np.float32))
    for t in range(1, 30):
        got = dmlc.slice(x, (1, 2), (4, t), (2, 1))
        assert np.asarray(got).tobytes() == np.ascontiguousarray(x[1:5:2, 2:2 + t]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SLICE1": 1, "DML_SLICE1 generic": 1}


def test_a_symbolic_descriptor_runs_every_batch_on_the_device():
    """ids [1, B, S] (two names) from a table [1, 12, 8]: one generic kernel for every batch."""
    dmlc.clear_cache()
    take = dmlc.compile(GatherDesc(
        input=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 12, 8)),
        indices=TensorDesc(data_type=DataType.INT64, sizes=(1, "B", "S")), axis=1,
        index_dimensions=2))
    table = random_bits(2, (1, 12, 8), np.dtype(np.float32))
    for batch, seq in ((1, 3), (4, 3), (2, 5), (3, 1)):
        ids = (random_bits(batch * seq, (1, batch, seq), np.dtype(np.uint32)) % 12).astype(
            np.int64)
        got = np.asarray(take(table, ids))
        assert got.tobytes() == np.ascontiguousarray(table[0][ids[0]]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER generic": 1}


@settings(max_examples=budget(6))
@given(st.data())
def test_generic_join_of_many_inputs_equals_specialized(data):
    """A join of 8-12 inputs (more than a shader binds: a kernel per 7 inputs), forced generic
    over random batches: bit for bit the specialized kernel and numpy, guard words intact."""
    dtype = data.draw(st.sampled_from([d for d in DTYPES if d.bits >= 32]))
    n, axis = data.draw(st.integers(8, 12)), data.draw(st.integers(0, 1))
    widths = [data.draw(st.integers(1, 3)) for _ in range(n)]
    for batch in sorted(data.draw(st.lists(st.integers(2, 7), min_size=1, max_size=3))):
        xs = [random_bits(batch + k, (w, batch, 3) if axis == 0 else (batch, w, 3),
                          dtype.numpy) for k, w in enumerate(widths)]
        desc = validate(dmlc.JoinDesc(inputs=tuple(
            TensorDesc(data_type=dtype, sizes=x.shape) for x in xs), axis=axis))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(*xs)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False)(*xs).tobytes() == \
            np.concatenate(xs, axis=axis).tobytes()
        assert generic.executable().guard_damage() == []


@settings(max_examples=budget(10))
@given(st.data())
def test_generic_join_and_slice_equal_specialized(data):
    """DML_JOIN over random batches (a sliced view among its inputs) and DML_SLICE1 over random
    windows, forced generic: bit for bit the specialized kernels and numpy, guard words
    intact."""
    dtype = data.draw(st.sampled_from(DTYPES))
    for batch in data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)):
        owner = random_bits(batch, (batch, 4, 5), dtype.numpy)
        other = random_bits(batch + 1, (batch, 2, 5), dtype.numpy)
        view = TensorDesc(data_type=dtype, sizes=(batch, 3, 5),
                          strides=(0 if batch == 1 else 20, 5, 1), offset=5)
        desc = validate(dmlc.JoinDesc(inputs=(view, TensorDesc(data_type=dtype,
                                                               sizes=(batch, 2, 5))), axis=1))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        got = generic(owner.reshape(-1), other)
        want = np.concatenate([owner[:, 1:], other], axis=1)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False)(
            owner.reshape(-1), other).tobytes() == want.tobytes()
        assert generic.executable().guard_damage() == []
    x = random_bits(7, (9, 11), dtype.numpy)
    for _ in range(3):
        off = [data.draw(st.integers(0, n - 1)) for n in x.shape]
        size = [data.draw(st.integers(1, n - o)) for n, o in zip(x.shape, off)]
        step = [data.draw(st.integers(1, 3)) for _ in x.shape]
        desc = validate(dmlc.Slice1Desc(input=TensorDesc(data_type=dtype, sizes=x.shape),
                                        offsets=off, sizes=size, strides=step))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        want = np.ascontiguousarray(x[off[0]:off[0] + size[0]:step[0],
                                      off[1]:off[1] + size[1]:step[1]])
        assert generic(x).tobytes() == dmlc.compile(desc, dynamic=False)(x).tobytes() \
            == want.tobytes()
        assert generic.executable().guard_damage() == []


def _pad_split_tile_compiles() -> dict[str, int]:
    """Pad -> Split -> Tile over x [B, 2, 4], B a dim_param, at five batch sizes, every result
    checked against onnx's reference evaluator: the compiles, by operator."""
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
    nodes = [helper.make_node("Pad", ["x", "pads"], ["p"], mode="reflect"),
             helper.make_node("Split", ["p", "split"], ["a", "b"], axis=1),
             helper.make_node("Tile", ["b", "repeats"], ["t"])]
    inits = [numpy_helper.from_array(np.array([0, 1, 1, 0, 1, 1], np.int64), "pads"),
             numpy_helper.from_array(np.array([1, 3], np.int64), "split"),
             numpy_helper.from_array(np.array([1, 1, 2], np.int64), "repeats")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 2, 4])],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["B", 1, 6]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, ["B", 3, 12])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    import dmlc.onnx
    program = dmlc.onnx.load_program(model)
    dmlc.clear_cache()
    rng = np.random.default_rng(2)
    for batch in (3, 1, 5, 2, 4):
        feeds = {"x": rng.standard_normal((batch, 2, 4)).astype(np.float32)}
        got = program.run(feeds)
        want = dict(zip(("a", "t"), ReferenceEvaluator(model).run(None, feeds)))
        for name in ("a", "t"):
            assert got[name].tobytes() == np.asarray(want[name]).tobytes(), (batch, name)
    return dmlc.cache_info()["compiles"]


def test_onnx_pad_split_tile_with_a_symbolic_batch():
    """Every batch right; Pad and Split one generic kernel each for all five."""
    pytest.importorskip("onnx")
    compiles = _pad_split_tile_compiles()
    assert compiles["DML_PADDING1 generic"] == 1 and compiles["DML_SPLIT generic"] == 1, compiles
    assert set(compiles) == {"DML_PADDING1 generic", "DML_SPLIT generic", "DML_TILE generic"}


def test_onnx_tile_of_a_split_output_compiles_once_for_every_batch():
    """Split's second output is a view at element offset B * 6 of the buffer both outputs
    share: Tile's generic kernel pushes that offset (one compile for five batches, was five)."""
    pytest.importorskip("onnx")
    assert _pad_split_tile_compiles()["DML_TILE generic"] == 1


def test_moving_window_copy_compiles_one_specialized_and_one_generic(monkeypatch):
    """dmlc.copy(c[:, t0:t0 + 3]) of a device tensor for t0 in 0..4: a view whose offset moves
    (its sizes do not): the first specialized, then one generic kernel (the offset pushed)."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    c = dmlc.to_device(np.arange(4 * 8, dtype=np.float32).reshape(4, 8))
    for t0 in range(5):
        assert dmlc.copy(c[:, t0:t0 + 3]).numpy().tobytes() == \
            np.ascontiguousarray(c.numpy()[:, t0:t0 + 3]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}


@settings(max_examples=budget(15))
@given(st.data())
def test_generic_kernels_at_pushed_offsets_equal_specialized(data):
    """tests/test_generic_offsets.py's cases on the device: each family's tensors views at
    offsets (0, misaligned, aligned) and sizes drawn per call, every data type; one generic
    kernel (one per variant where a vector variant takes aligned offsets only) bit for bit the
    specialized kernel and numpy, guard words intact."""
    name = data.draw(st.sampled_from(sorted(FAMILIES)))
    dtype = data.draw(st.sampled_from(list(DataType)))
    dmlc.clear_cache()
    for x, sizes, owner, offset, k in draw_calls(data, name, dtype):
        desc, arrays, want = FAMILIES[name](dtype, x, sizes, owner, offset, k, data)
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        got, twin = generic(*arrays), special(*arrays)
        if isinstance(got, tuple):
            got, twin = np.concatenate(got), np.concatenate(twin)
        assert got.tobytes() == twin.tobytes() == np.ascontiguousarray(want).tobytes(), (
            name, sizes, offset)
        assert generic.executable().guard_damage() == []
    compiles = {k: v for k, v in dmlc.cache_info()["compiles"].items() if "generic" in k}
    assert len(compiles) == 1 and list(compiles.values())[0] <= (
        1 if name in ("gather", "one_hot") else 2)  # a vector variant: aligned offsets


@settings(max_examples=budget(8))
@given(st.data())
def test_generic_slice_v1_equals_specialized(data):
    """DML_SLICE over random windows, forced generic (DML_SLICE1's kernels): bit for bit the
    specialized kernel and numpy, guard words intact."""
    dtype = data.draw(st.sampled_from(DTYPES))
    x = random_bits(data.draw(st.integers(0, 99)), (7, 9), dtype.numpy)
    starts = [data.draw(st.integers(0, n - 1)) for n in x.shape]
    steps = [data.draw(st.integers(1, 3)) for _ in x.shape]
    sizes = [data.draw(st.integers(1, -(-(n - o) // s)))
             for n, o, s in zip(x.shape, starts, steps)]
    desc = validate(dmlc.SliceDesc(input=TensorDesc(data_type=dtype, sizes=x.shape),
                                   offsets=tuple(starts), sizes=tuple(sizes),
                                   strides=tuple(steps)))
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params
    want = x[tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(starts, sizes, steps))]
    got = generic(x)
    assert got.tobytes() == dmlc.compile(desc, dynamic=False)(x).tobytes() == \
        np.ascontiguousarray(want).tobytes()
    assert generic.executable().guard_damage() == []


def test_decode_loop_times_each_step_again_at_the_sizes_it_just_met():
    """tools/decode_loop.py's repeat: each step's calls made again at once (their results
    checked against numpy as the step's are), timed apart; the step / repeated step ratio is
    what new sizes cost. Without repeat the loop reports neither."""
    loop = _decode_loop()
    result = loop.run(24, "auto", repeat=True)
    assert result["repeated_ms_per_step"] > 0 and result["step_over_repeated"] > 0, result
    assert "repeated_ms_per_step" not in loop.run(12, "auto")


def test_decode_loops_breakdown_times_every_layer_and_leaves_them_as_they_were():
    """tools/decode_loop.py --breakdown wraps the functions that begin each layer of a call:
    every layer is timed once the loop ran (the device's: the current backend's), and
    afterwards the functions are dmlc's again."""
    from dmlc import compiled
    from dmlc.runtime import backend
    loop = _decode_loop()
    before = (dmlc.gather, compiled.validate, vars(compiled.CompileOptions)["resolve"],
              vars(compiled.KernelCache)["get"])
    with loop.timed_layers() as spent:
        loop.run(12, "auto")
    device = loop.DEVICE_LAYER[backend.name()]
    assert set(spent) >= {"dmlc.gather", "dmlc.scatter_nd", "dmlc.copy", device,
                          "compile cache lookup", "validation", "compile options"}, dict(spent)
    assert all(seconds > 0 for seconds in spent.values())
    assert spent[device] < sum(spent[f"dmlc.{name}"] for name in ("gather", "scatter_nd",
                                                                  "copy"))
    assert (dmlc.gather, compiled.validate, vars(compiled.CompileOptions)["resolve"],
            vars(compiled.KernelCache)["get"]) == before


def test_always_keeps_size_one_dimensions_static_where_all_of_them_cannot_be_dynamic():
    """dynamic=True on a [1, 16, 256, 256] reflect pad: with all four dimensions dynamic the
    kernel does not admit these sizes (dynamic=(0, 1, 2, 3) compiles specialized), so its size-1
    dimension stays static: one generic compile, no specialized one, bit-exact. Before, every
    dynamic=True compile of it (the bench's generic twin) was specialized."""
    from dmlc.ops.pad.desc import PaddingDesc
    desc = PaddingDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 16, 256, 256)),
                       mode="DML_PADDING_MODE_REFLECTION", start_padding=(0, 0, 2, 2),
                       end_padding=(0, 0, 2, 2))
    dmlc.clear_cache()
    assert not dmlc.compile(desc, dynamic=(0, 1, 2, 3)).compiled.params
    dmlc.clear_cache()
    generic = dmlc.compile(desc, dynamic=True)
    assert generic.compiled.params and dmlc.cache_info()["compiles"] == {
        "DML_PADDING1 generic": 1}
    x = random_bits(3, (1, 16, 256, 256), np.dtype(np.float32))
    want = np.pad(x, [(0, 0), (0, 0), (2, 2), (2, 2)], mode="reflect")
    assert generic(x).tobytes() == dmlc.compile(desc, dynamic=False)(x).tobytes() == \
        want.tobytes()

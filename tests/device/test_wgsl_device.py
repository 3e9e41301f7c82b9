"""The WGSL kernels (codegen/wgsl.py) run on WebGPU (wgpu-py: naga, on lavapipe), bit for bit
against the IR interpreter from the same starting bytes (every buffer but temps: inputs left as
they were, outputs, status and scratch) and against the GLSL kernels on kp (the kernel called
normally). The dispatcher is tests/wgsl_runner.py: buffers poisoned with 0xA5, push words in a
uniform buffer, the launch plan's grids, kernels in order.

Programs: every operator family (drawn), every data and index type, both scatter designs
(vote with atomicMax; lines), checked mode (in range and out of range), scatter reductions
(soft float) on NaN payloads, -0.0, infinities and denormals, 8-bit scatter in place
(atomicAnd/Or on shared words), generic kernels (push words), index arithmetic (every ARITH
kind, COMPARE and CONVERT on every integer type's edge values), chunked buffers, guard words
and 2-D grids."""
from __future__ import annotations

import dataclasses
import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("wgpu", reason="wgpu-py is not installed (pip install wgpu): "
                    "no WebGPU to run WGSL on")

import cases
import dmlc
import reference as ref
from dmlc.artifact import argument
from dmlc.errors import IndexOutOfRangeError
from dmlc.family import computed as C
from dmlc.oneshot.computed import Computed
from dmlc.plan import DEFAULT
from integer_oracle import INTEGER_TYPES, KINDS, edge_values
from reference import assert_bits_equal
from strategies import budget, random_bits
from wgsl_runner import Run, WgslRunner, wgpu_problem

pytestmark = pytest.mark.vulkan


@pytest.fixture(scope="module")
def runner() -> WgslRunner:
    problem = wgpu_problem()
    assert problem is None, problem  # wgpu is installed: it must find the Vulkan device
    return WgslRunner()


def T(sizes, dtype="FLOAT32") -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=dtype, sizes=sizes)


def same_results(got, want) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_bits_equal(g, w)
    else:
        assert_bits_equal(got, want)


def check(runner: WgslRunner, kernel: dmlc.CompiledKernel, arrays: tuple, *,
          out_of_range: bool = False, max_groups: tuple[int, int] = (65535, 65535)) -> Run:
    """WGSL on wgpu == the interpreter (every kept buffer), and its result == kp's."""
    run = runner.run(kernel.compiled, arrays, max_groups=max_groups)
    assert run.guards_intact
    for name, want in run.interp.items():
        assert_bits_equal(run.wgpu[name], want)
    if out_of_range:
        with pytest.raises(IndexOutOfRangeError):
            kernel(*arrays)
    else:
        same_results(run.output(kernel.compiled), kernel(*arrays))
    return run


@settings(max_examples=budget(40), suppress_health_check=[HealthCheck.too_slow,
                                                          HealthCheck.function_scoped_fixture])
@given(st.one_of(*(make() for make in cases.ALL_CASES.values())))
def test_every_family(runner, case):
    assume(case.expected is not None)  # a valid descriptor
    k = dmlc.compile(case.descriptor)
    arrays = []  # the one-shot function's arrays, in the shapes of the descriptor's tensors
    for name, a in zip(k.program.inputs, case.arrays):
        t = argument(k.descriptor, name)[0]
        arrays.append(a.reshape(t.sizes) if t.strides is None else a)
    check(runner, k, tuple(arrays))


COMBOS = [(d.name, i) for d, i in itertools.product(dmlc.DataType, ["INT32", "INT64", "UINT32",
                                                                    "UINT64"])
          if i == "INT32" or d.name == "FLOAT32"]


@pytest.mark.parametrize("dtype,itype", COMBOS)
def test_every_data_and_index_type(runner, dtype, itype):
    """Gather, gather_elements, scatter (vote: atomicMax) and a reversed slice of every data
    type, indices of every type with negative and out-of-range values (clamped)."""
    np_d, np_i = dmlc.DataType[dtype].numpy, np.dtype(itype.lower())
    x = random_bits(1, (5, 3), np_d)
    signed = np_i.kind == "i"
    idx = np.array([[4, -1 if signed else 7, 2, 9]], np_i)
    idx2 = np.array([[0, 4, 2], [-5 if signed else 1, 3, 6]], np_i)
    upd = random_bits(2, (2, 3), np_d)
    for desc, arrays in (
            (dmlc.GatherDesc(input=T((5, 3), dtype), indices=T((1, 4), itype), axis=0,
                             index_dimensions=1), (x, idx)),
            (dmlc.GatherElementsDesc(input=T((5, 3), dtype), indices=T((2, 3), itype), axis=0),
             (x, idx2)),
            (dmlc.ScatterDesc(input=T((5, 3), dtype), indices=T((2, 3), itype),
                              updates=T((2, 3), dtype), axis=0), (x, idx2, upd)),
            (dmlc.Slice1Desc(input=T((5, 3), dtype), offsets=(1, 0), sizes=(4, 3),
                             strides=(-2, 1)), (x,))):
        check(runner, dmlc.compile(desc), arrays)


@pytest.mark.parametrize("dtype", ["FLOAT16", "INT8", "INT64", "FLOAT32"])
def test_scatter_designs(runner, dtype, scatter_design):
    """Vote (atomicMax on a winner buffer, then resolve) and lines (a loop over steps)."""
    np_d = dmlc.DataType[dtype].numpy
    x, upd = random_bits(3, (40, 3), np_d), random_bits(4, (30, 3), np_d)
    idx = (np.arange(90, dtype=np.int32).reshape(30, 3) * 7) % 45 - 3
    k = dmlc.compile(dmlc.ScatterDesc(input=T((40, 3), dtype), indices=T((30, 3), "INT32"),
                                      updates=T((30, 3), dtype), axis=0), dynamic=False)
    run = check(runner, k, (x, idx, upd))
    lines = scatter_design == "lines" and np_d.itemsize >= 4  # 8/16-bit data: always a vote
    assert ("atomicMax(&" in "".join(run.sources)) != lines


def test_checked_mode(runner):
    """Checked mode's kernels (status buffer, atomicMax): in range the result, out of range the
    same status words as the interpreter (and kp raises)."""
    x = random_bits(5, (6, 4), np.float32)
    desc = dmlc.GatherDesc(input=T((6, 4)), indices=T((1, 3), "INT64"), axis=0,
                           index_dimensions=1)
    k = dmlc.compile(desc, check_indices=True)
    check(runner, k, (x, np.array([[5, -6, 0]], np.int64)))
    run = check(runner, k, (x, np.array([[1, 6, -9]], np.int64)), out_of_range=True)
    status = [b.name for b in k.plan.status]
    assert status and any(run.wgpu[s].any() for s in status)
    scatter = dmlc.compile(dmlc.ScatterDesc(input=T((6, 4)), indices=T((2, 4), "INT32"),
                                            updates=T((2, 4)), axis=0), check_indices=True)
    upd = random_bits(6, (2, 4), np.float32)
    check(runner, scatter, (x, np.array([[0, 1, 2, 3], [5, 4, -1, 0]], np.int32), upd))
    check(runner, scatter, (x, np.array([[0, 1, 2, 3], [6, 4, -1, 0]], np.int32), upd),
          out_of_range=True)


SPECIAL = {np.float16: [0x7E01, 0xFC00, 0x7C00, 0x8000, 0x0000, 0x0001, 0x8001, 0x3C00, 0xFE55,
                        0x7BFF, 0x0400, 0x03FF],
           np.float32: [0x7FC00123, 0xFF800000, 0x7F800000, 0x80000000, 0, 1, 0x80000001,
                        0x3F800000, 0xFFA00001, 0x7F7FFFFF, 0x00800000, 0x007FFFFF],
           np.float64: [0x7FF8000000000123, 0xFFF0000000000000, 0x7FF0000000000000,
                        0x8000000000000000, 0, 1, 0x8000000000000001, 0x3FF0000000000000,
                        0xFFF4000000000001, 0x7FEFFFFFFFFFFFFF, 0x0010000000000000,
                        0x000FFFFFFFFFFFFF]}


@pytest.mark.parametrize("dtype", ["FLOAT16", "FLOAT32", "FLOAT64", "INT8", "UINT16", "INT32",
                                   "INT64", "UINT64"])
@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatter_reductions(runner, dtype, reduction):
    """Soft-float and integer reductions (shaders/dmlc_reduce.wgsl): NaN payloads, -0.0,
    infinities, denormals and the largest finite values pile onto few rows."""
    np_d = dmlc.DataType[dtype].numpy
    n = 48
    x, upd = random_bits(7, (4, n), np_d), random_bits(8, (6, n), np_d)
    if np_d.type in SPECIAL:  # the special values meet each other in the first 12 columns
        bits = np.array(SPECIAL[np_d.type], f"u{np_d.itemsize}")
        x[0, :12] = bits.view(np_d)
        upd[0, :12], upd[1, :12] = bits[::-1].view(np_d), np.roll(bits, 5).view(np_d)
    idx = np.array([[0] * n, [0] * n, [1] * n, [3] * n, [0] * n, [1] * n], np.int32)
    k = dmlc.compile(dmlc.ScatterDesc(input=T((4, n), dtype), indices=T((6, n), "INT32"),
                                      updates=T((6, n), dtype), axis=0, reduction=reduction))
    run = check(runner, k, (x, idx, upd))
    if np_d.kind == "f":
        assert f"dmlc_{reduction}_f{np_d.itemsize * 8}(" in "".join(run.sources)


@pytest.mark.parametrize("dtype", ["INT8", "FLOAT16", "FLOAT32"])
def test_scatter_in_place(runner, dtype):
    """The in-place scatter: 8/16-bit elements of different lines share words (atomicAnd,
    atomicOr), the data tensor is the program's output from the start."""
    np_d = dmlc.DataType[dtype].numpy
    data, upd = random_bits(9, (7, 5), np_d), random_bits(10, (3, 5), np_d)
    idx = np.array([[0, 6, 2, 1, 5], [3, -1, 4, 0, 9], [6, 2, 2, 5, 1]], np.int32)
    k = dmlc.compile(dmlc.ScatterDesc(input=T((7, 5), dtype), indices=T((3, 5), "INT32"),
                                      updates=T((3, 5), dtype), axis=0))
    place = k._in_place()
    run = runner.run(place.compiled, (idx, upd), initial={place.program.output: data})
    for name, want in run.interp.items():
        assert_bits_equal(run.wgpu[name], want)
    want = ref.scatter(data, idx, upd, 0)
    assert_bits_equal(run.output(place.compiled), want)
    t = dmlc.to_device(data)
    k(t, idx, upd, out=t)
    assert_bits_equal(t.numpy(), want)


def test_generic_kernels_take_their_push_words(runner):
    """Generic kernels (sizes as push words, here in a uniform buffer): gather, a scatter by
    lines with a pushed step count, a reversed slice; two sizes each."""
    for rows in (7, 50):
        x = random_bits(rows, (rows, 3), np.float32)
        idx = np.arange(-4, 5, dtype=np.int32).reshape(1, 9) * (rows // 4)
        g = dmlc.compile(dmlc.GatherDesc(input=T((rows, 3)), indices=T((1, 9), "INT32"),
                                         axis=0, index_dimensions=1), dynamic=True)
        assert g.compiled.params
        run = check(runner, g, (x, idx))
        assert "var<uniform> dmlc_p" in run.sources[0]
        upd = random_bits(rows + 1, (rows, 3), np.int64)
        data = random_bits(rows + 2, (rows, 3), np.int64)
        s = dmlc.compile(dmlc.ScatterDesc(input=T((rows, 3), "INT64"),
                                          indices=T((rows, 3), "INT32"),
                                          updates=T((rows, 3), "INT64"), axis=0),
                         dynamic=True, target="cpu")
        lines = (np.arange(rows * 3, dtype=np.int32).reshape(rows, 3) * 5) % rows
        check(runner, s, (data, lines, upd))
        sl = dmlc.compile(dmlc.Slice1Desc(input=T((rows, 3), "UINT8"), offsets=(1, 0),
                                          sizes=(rows - 1, 3), strides=(-2, 1)), dynamic=True)
        check(runner, sl, (random_bits(rows, (rows, 3), np.uint8),))


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_index_arithmetic(runner, dtype):
    """ARITH of every kind, COMPARE and CONVERT (shaders/dmlc_int.wgsl) on every pair of the
    type's edge values: zero divisors, INT_MIN / -1, wrapping."""
    values = edge_values(dtype)
    a, b = (np.array(v, dtype) for v in zip(*itertools.product(values, values)))
    computed = [Computed(C.Arith(kind, C.Input(0), C.Input(1)), [a, b], a.shape)
                for kind in KINDS]
    computed += [Computed(C.Cast(C.Compare(kind, C.Input(0), C.Input(1)), to), [a, b], a.shape)
                 for kind, to in (("lt", "float16"), ("eq", "int64"))]
    x = np.array(values, dtype)
    computed += [Computed(C.Cast(C.Input(0), to), [x], x.shape) for to in INTEGER_TYPES]
    for c in computed:
        check(runner, dmlc.compile(dmlc.IdentityDesc(input=c.tensor)), (c,))


def test_chunked_buffers(runner):
    """Buffers over one binding (a 1 KiB maxStorageBufferRange): one binding per chunk, the
    chunk picked by a function, scalar words and vectors alike (each kernel within the
    adapter's storage buffers per stage: SwiftShader's wgpu offers 10)."""
    small = dataclasses.replace(DEFAULT, maxStorageBufferRange=1024)
    x = random_bits(11, (100, 4), np.float32)
    idx = np.array([[99, 0, -1, 50, 77, 64]], np.int64)
    g = dmlc.compile(dmlc.GatherDesc(input=T((100, 4)), indices=T((1, 6), "INT64"), axis=0,
                                     index_dimensions=1), limits=small)
    assert any(b.chunk_words for b in g.plan.buffers)
    run = check(runner, g, (x, idx))
    assert "fn dmlc_" in run.sources[0] and "c1_input" in run.sources[0]
    s = dmlc.compile(dmlc.ScatterDesc(input=T((100, 4)), indices=T((2, 4), "INT32"),
                                      updates=T((2, 4)), axis=0), limits=small, target="gpu")
    check(runner, s, (x, np.array([[1, 99, 3, 50], [0, 5, 70, 50]], np.int32),
                      random_bits(12, (2, 4), np.float32)))
    t = dmlc.compile(dmlc.Slice1Desc(input=T((300, 4), "INT8"), offsets=(0, 0),
                                     sizes=(300, 4), strides=(-1, 1)), limits=small)
    check(runner, t, (random_bits(13, (300, 4), np.int8),))


def test_guard_words_stay_untouched(runner):
    """Buffers between guard regions (the memory-safety tests' layout): WGSL's struct
    {guard, data} reaches the same words, and no access lands outside them."""
    x = random_bits(14, (9, 5), np.float16)
    for desc, arrays in (
            (dmlc.GatherDesc(input=T((9, 5), "FLOAT16"), indices=T((1, 3), "INT32"), axis=0,
                             index_dimensions=1), (x, np.array([[8, -9, 4]], np.int32))),
            (dmlc.ScatterDesc(input=T((9, 5), "FLOAT16"), indices=T((1, 5), "INT32"),
                              updates=T((1, 5), "FLOAT16"), axis=0),
             (x, np.array([[8, 0, 4, 1, 2]], np.int32), random_bits(15, (1, 5), np.float16)))):
        run = check(runner, dmlc.compile(desc, guard_words=8), arrays)
        assert "guard: array<" in run.sources[0]


def test_two_dimensional_grids(runner):
    """A grid of several rows of workgroups (the group id linearized as the GLSL does)."""
    x = random_bits(16, (64, 33), np.uint16)
    k = dmlc.compile(dmlc.Slice1Desc(input=T((64, 33), "UINT16"), offsets=(0, 0),
                                     sizes=(64, 33), strides=(-1, -1)))
    check(runner, k, (x,), max_groups=(3, 65535))


def test_vectors_and_words_of_one_binding(runner):
    """A join reads each input both as vectors and as words (rows that straddle two inputs),
    branching between them: one vec4<u32> view per binding, words as its lanes."""
    x, y = random_bits(17, (4, 3), np.uint32), random_bits(18, (4, 3), np.uint32)
    k = dmlc.compile(dmlc.JoinDesc(inputs=(T((4, 3), "UINT32"), T((4, 3), "UINT32")), axis=0),
                     dynamic=False)  # the specialized kernel (DMLC_DYNAMIC=always too)
    run = check(runner, k, (x, y))
    if not os.environ.get("DMLC_DISABLE_PASSES"):  # vectors are the optimizing passes'
        assert "b_inputs_0: array<vec4<u32>>" in run.sources[0] and "& 3u];" in run.sources[0]

"""Generic kernels of DML_SCATTER_ND and DML_SCATTER without a device (docs/generic-kernels.md,
ops/scatter/generic.py): bit for bit the specialized kernel and the independent numpy oracles over
random sizes (the interpreter runs both), copying and in place through a view at an offset, every
reduction, colliding and out-of-range indices; the ranges (a line's steps at most MAX_STEPS); the
`auto` policy's compile counts; the kernel's runtime step count in verify.py, the interpreter and
GLSL."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.twins import assert_checked_twins

import dmlc
import reference_scatternd as ref
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS, build_program
from dmlc.family.registry import rules_of, validate
from dmlc.ir import Buffer, Kernel, Program
from dmlc.ir import build as b
from dmlc.ir.interp import run_kernel
from dmlc.ir.verify import MAX_STEPS, IRError, verify_program
from strategies import random_bits

DTYPES = list(DataType)
INDEX_TYPES = (DataType.INT32, DataType.INT64, DataType.UINT32, DataType.UINT64)
REDUCTIONS = ("none", "add", "mul", "max", "min")


def _indices(seed: int, shape: tuple[int, ...], dims: list[int], itype: DataType) -> np.ndarray:
    """Index values along the last axis for `dims`: in range, negative (signed types) and out
    of range both ways; few distinct values, so tuples collide."""
    rng = np.random.default_rng(seed)
    k = shape[-1]
    cols = []
    for j in range(k):
        lo = -dims[j] - 1 if itype.numpy.kind == "i" else 0
        cols.append(rng.integers(lo, dims[j] + 1, shape[:-1] + (1,)))
    return np.concatenate(cols, axis=-1).astype(itype.numpy)


def _values(dtype: DataType, seed: int, shape: tuple[int, ...], reduction: str) -> np.ndarray:
    """Raw bits (NaN payloads, -0.0); small integers where a reduction combines floats (numpy's
    NaN payloads of a sum are the platform's)."""
    if reduction != "none" and dtype.numpy.kind == "f":
        return np.random.default_rng(seed).integers(-3, 4, shape).astype(dtype.numpy)
    return random_bits(seed, shape, dtype.numpy)


def _in_place(program, params, data: np.ndarray, *arrays: np.ndarray,
              status: dict | None = None) -> np.ndarray:
    """An in-place program run by the interpreter: its output buffer holds the data tensor's
    owner (flat bits) as the call binds it; returns that buffer after the kernels. `status`:
    checked mode's status buffers, zeroed first and filled in."""
    bufs = {"output": data.reshape(-1).view(f"uint{8 * data.itemsize}").copy()}
    for name, a in zip(program.inputs, arrays, strict=True):
        bufs[name] = np.ascontiguousarray(a).reshape(-1).view(f"uint{8 * a.itemsize}")
    for buf in program.buffers:
        if buf.role == "status":
            bufs[buf.name] = np.zeros(buf.count, buf.dtype.bits_dtype)
    for k in program.kernels:
        run_kernel(k, bufs, params)
    if status is not None:
        status.update({name: a for name, a in bufs.items() if name.startswith("check_")})
    return bufs["output"].view(data.dtype).reshape(data.shape)


def _nd(dtype: DataType, itype: DataType, x_shape, idx_shape, reduction="none",
        view=None, offset=0) -> dmlc.ScatterNDDesc:
    d, k = len(x_shape), idx_shape[-1]
    idx_shape = (1,) * (d - len(idx_shape)) + tuple(idx_shape)
    u_shape = tuple(idx_shape[:-1]) + tuple(x_shape[k:])
    while len(u_shape) > d:  # right-aligned: leading 1s dropped
        assert u_shape[0] == 1
        u_shape = u_shape[1:]
    strides = None if view is None else tuple(int(np.prod(view[i + 1:])) for i in range(d))
    return validate(dmlc.ScatterNDDesc(
        input=TensorDesc(data_type=dtype, sizes=x_shape, strides=strides, offset=offset),
        indices=TensorDesc(data_type=itype, sizes=idx_shape),
        updates=TensorDesc(data_type=dtype, sizes=(1,) * (d - len(u_shape)) + u_shape),
        input_dimension_count=d, indices_dimension_count=d, reduction=reduction))


@given(st.data())
def test_generic_scatter_nd_matches_specialized_and_numpy(data):
    """Copying: over random numbers of tuples (and slices), every type and reduction."""
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    d = data.draw(st.integers(2, 3))
    k = data.draw(st.integers(1, d))
    dmlc.clear_cache()
    for _ in range(3):
        x_shape = tuple(data.draw(st.integers(1, 5)) for _ in range(d))
        rows = data.draw(st.integers(1, 9))
        idx_shape = (1,) * (d - 2) + (rows, k)
        desc = _nd(dtype, itype, x_shape, idx_shape, reduction)
        seed = data.draw(st.integers(0, 999))
        x = _values(dtype, seed, x_shape, reduction)
        i = _indices(seed, idx_shape, list(x_shape), itype)
        u = _values(dtype, seed + 1, desc.updates.sizes, reduction)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        got = generic.reference(x, i, u)
        want = ref.scatter_nd(x, i.reshape(-1, idx_shape[-1]), u, reduction=reduction)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False).reference(x, i, u).tobytes()
        assert got.tobytes() == want.tobytes()
    KERNELS.clear()


@given(st.data())
def test_generic_scatter_nd_in_place_through_a_view_at_moving_offsets(data):
    """In place (a KV cache's prefill): the data tensor a window of a wider owner at an offset,
    rows of it replaced (or combined) by a varying number of tuples; the rest of the owner as
    it was. Checked mode too: the status the specialized kernel reports and, where an index is
    bad, the owner as it was."""
    dtype = data.draw(st.sampled_from(DTYPES))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    checked = data.draw(st.booleans())
    length, width = data.draw(st.integers(2, 6)), data.draw(st.integers(1, 9))
    owner_shape = (length, width + data.draw(st.integers(0, 3)))
    for _ in range(3):
        offset = data.draw(st.integers(0, owner_shape[1] - width))
        rows = data.draw(st.integers(1, 7))
        desc = _nd(dtype, DataType.INT64, (length, width), (rows, 1), reduction,
                   view=owner_shape, offset=offset)
        seed = data.draw(st.integers(0, 999))
        owner = _values(dtype, seed, owner_shape, reduction)
        i = _indices(seed, (rows, 1), [length], DataType.INT64)
        u = _values(dtype, seed + 1, (rows, width), reduction)
        rules = rules_of(desc).generic
        dims = rules.free(desc)
        generic = (rules.checked_in_place if checked else rules.in_place)(
            rules.forms(desc, dims)[0], dims)
        assert generic is not None
        got_status: dict = {}
        want_status: dict = {}
        got = _in_place(verify_program(generic.program), generic.values(desc), owner, i, u,
                        status=got_status)
        special = build_program(desc, in_place=True, check_indices=checked)[1]
        window = (slice(None), slice(offset, offset + width))
        want = owner.copy()
        bad = ((i < -length) | (i >= length)).any()
        if not (checked and bad):
            want[window] = ref.scatter_nd(owner[window], i, u, reduction=reduction)
        assert got.tobytes() == _in_place(special, (), owner, i, u, status=want_status).tobytes()
        assert got.tobytes() == want.tobytes()
        assert {k: v.tobytes() for k, v in got_status.items()} == \
            {k: v.tobytes() for k, v in want_status.items()}
        assert bool(got_status) == checked
        assert not checked or bool(got_status["check_first"][0]) == bad


def _elements(dtype: DataType, itype: DataType, x_shape, idx_shape, axis: int,
              reduction="none") -> dmlc.ScatterDesc:
    return validate(dmlc.ScatterDesc(
        input=TensorDesc(data_type=dtype, sizes=x_shape),
        indices=TensorDesc(data_type=itype, sizes=idx_shape),
        updates=TensorDesc(data_type=dtype, sizes=idx_shape), axis=axis, reduction=reduction))


@given(st.data())
def test_generic_scatter_elements_matches_specialized_and_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    d = data.draw(st.integers(1, 3))
    axis = data.draw(st.integers(0, d - 1))
    n_axis = data.draw(st.integers(1, 5))
    dmlc.clear_cache()
    for _ in range(3):
        idx_shape = tuple(data.draw(st.integers(1, 5)) for _ in range(d))
        x_shape = tuple(n_axis if j == axis else n for j, n in enumerate(idx_shape))
        desc = _elements(dtype, itype, x_shape, idx_shape, axis, reduction)
        seed = data.draw(st.integers(0, 999))
        x = _values(dtype, seed, x_shape, reduction)
        rng = np.random.default_rng(seed)
        lo = -n_axis - 1 if itype.numpy.kind == "i" else 0
        i = rng.integers(lo, n_axis + 1, idx_shape).astype(itype.numpy)
        u = _values(dtype, seed + 1, idx_shape, reduction)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        got = generic.reference(x, i, u)
        assert got.tobytes() == dmlc.compile(desc, dynamic=False).reference(x, i, u).tobytes()
        assert got.tobytes() == ref.scatter(x, i, u, axis, reduction).tobytes()
    KERNELS.clear()


@given(st.data())
def test_generic_checked_scatters_raise_as_the_specialized_ones(data):
    """check_indices=True: a generic kernel (its index check over a varying number of indices,
    each against its static indexed size) names the first bad index as the specialized kernel
    does, or gives its result bit for bit; one generic compile serves the sizes."""
    nd = data.draw(st.booleans())
    itype = data.draw(st.sampled_from(INDEX_TYPES))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    dtype = data.draw(st.sampled_from(DTYPES))
    dmlc.clear_cache()
    for _ in range(3):
        rows, width = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 4))
        seed = data.draw(st.integers(0, 999))
        if nd:
            desc = _nd(dtype, itype, (4, width), (rows, 1), reduction)
            i = _indices(seed, (rows, 1), [4], itype)
        else:
            desc = _elements(dtype, itype, (4, width), (rows, width), 0, reduction)
            lo = -5 if itype.numpy.kind == "i" else 0
            i = np.random.default_rng(seed).integers(lo, 5, (rows, width)).astype(itype.numpy)
        x = _values(dtype, seed, (4, width), reduction)
        u = _values(dtype, seed + 1, desc.updates.sizes, reduction)
        generic = dmlc.compile(desc, dynamic=True, check_indices=True, target="cpu")
        special = dmlc.compile(desc, dynamic=False, check_indices=True, target="cpu")
        assert_checked_twins(generic, special, x, i, u)
    assert dmlc.cache_info()["compiles"][f"{desc.operator} generic"] == 1
    KERNELS.clear()


def test_a_line_of_more_than_max_steps_updates_compiles_specialized():
    """A line's steps (ScatterND's tuples) are a loop of at most MAX_STEPS: its largest number
    is admitted, one more is not (that call runs the specialized vote)."""
    desc = _nd(DataType.FLOAT32, DataType.INT32, (8, 4), (3, 1))
    rules = rules_of(desc).generic
    dims = rules.free(desc)
    assert dims == (1, 2)  # the slice, the tuples
    generic = rules.lower(desc, dims)
    steps = next(k.step_count for k in generic.program.kernels if k.step_count is not None)
    assert steps.vmax == MAX_STEPS
    assert generic.values(_nd(DataType.FLOAT32, DataType.INT32, (8, 1), (MAX_STEPS, 1)))
    assert generic.values(_nd(DataType.FLOAT32, DataType.INT32, (8, 1),
                              (MAX_STEPS + 1, 1))) is None
    big = _nd(DataType.FLOAT32, DataType.INT32, (8, 1), (MAX_STEPS + 1, 1))
    kernel = dmlc.compile(big, dynamic=True)
    assert not kernel.compiled.params and "scatter_nd_vote" in kernel.compiled.ir
    KERNELS.clear()


def test_the_indexed_dimensions_and_a_gpu_target_stay_specialized():
    """The tuples are checked against the indexed sizes (static); a GPU target runs the vote
    (GenericRules.targets)."""
    desc = _nd(DataType.INT8, DataType.INT32, (5, 3, 2), (4, 2))
    assert rules_of(desc).generic.free(desc) == (2, 3, 4)  # the slice; the tuples
    assert not dmlc.compile(desc, dynamic=True, target="gpu").compiled.params
    assert dmlc.compile(desc, dynamic=True, target="cpu").compiled.params
    KERNELS.clear()


def test_a_new_number_of_tuples_compiles_nothing(monkeypatch):
    """auto: one specialized and one generic kernel for every later number of tuples, in place
    too (a prefill of a varying prompt length into a KV cache)."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    for rows in (3, 5, 1, 9, 2):
        i = (np.arange(rows, dtype=np.int32) * 5 % 16).reshape(rows, 1)
        u = np.full((rows, 4), rows, np.float32)
        desc = _nd(DataType.FLOAT32, DataType.INT32, (16, 4), (rows, 1))
        got = dmlc.compile(desc).reference(x, i, u)
        assert got.tobytes() == ref.scatter_nd(x, i, u).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SCATTER_ND": 1, "DML_SCATTER_ND generic": 1}
    KERNELS.clear()


def test_the_step_count_is_a_declared_param_and_the_loop_bound():
    """A kernel whose steps are pushed: verify.py wants a declared PARAM in [1, steps], the
    interpreter runs that many steps, and GLSL loops to the push word."""
    n = b.param(0, 1, 8)
    one = b.param(1, 1, 1)
    out = Buffer("output", DataType.UINT32, 8, "output", n)
    seven = b.const_data(DataType.UINT32, 7)
    k = Kernel("k", 1, (b.store(out, b.minimum(b.step_id(8), b.add(n, -1)), seven),),
               steps=8, count=one, step_count=n)
    program = Program("p", (out,), (k,), (), "output", (8,), params=(n, one))
    verify_program(program)
    bufs = {"output": np.zeros(8, np.uint32)}
    run_kernel(k, bufs, (3, 1))
    assert bufs["output"].tolist() == [7, 7, 7, 0, 0, 0, 0, 0]
    with pytest.raises(IRError, match="step_count"):
        verify_program(dataclasses.replace(program, kernels=(
            dataclasses.replace(k, steps=4),)))
    desc = _nd(DataType.FLOAT32, DataType.INT32, (8, 4), (3, 1))
    glsl = dmlc.compile(desc, dynamic=True).compiled.glsl
    assert "step < int(dmlc_p.p[" in glsl
    KERNELS.clear()

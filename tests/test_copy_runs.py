"""A copy or slice of a view as copies of runs of bytes (family/runs.py, plan.PlanCopy): which
views are runs, and the runs' bytes, simulated on the host as plan.PlanCopy defines them (what
kp's OpTensorCopyRuns copies), against the view's elements read by index arithmetic."""
from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
from dmlc.dtypes import DataType
from dmlc.family.runs import GPU_RUNS, MAX_RUNS, copy_runs
from dmlc.family.tensor import TensorDesc
from strategies import budget

F32, F16 = DataType.FLOAT32, DataType.FLOAT16


def view(dtype: DataType, sizes, strides, offset: int = 0) -> TensorDesc:
    return TensorDesc(data_type=dtype, sizes=tuple(sizes), strides=tuple(strides), offset=offset)


def packed(dtype: DataType, sizes) -> TensorDesc:
    return TensorDesc(data_type=dtype, sizes=tuple(sizes))


def runs(v: TensorDesc, target: str = "cpu"):
    return copy_runs("input", v, packed(v.data_type, v.sizes), target)


def test_a_window_of_a_cache_is_a_run_per_row():
    found = runs(view(F32, (4, 64, 30), (64 * 200, 200, 1)))
    assert found is not None
    assert (found.sizes, found.strides, found.offset, found.run) == ((256,), (800,), 0, 120)


def test_contiguous_dimensions_merge_and_size_1_dimensions_drop():
    whole = runs(view(F32, (2, 1, 3, 5), (15, 7, 5, 1), offset=10))
    assert whole is not None and whole.sizes == () and (whole.offset, whole.run) == (40, 120)
    rows = runs(view(F16, (3, 1, 4), (20, 99, 1), offset=3))
    assert rows is not None and (rows.sizes, rows.strides, rows.offset, rows.run) == \
        ((3,), (40,), 6, 8)


def test_outer_strides_of_any_sign_and_broadcasts_are_runs():
    rev = runs(view(F32, (3, 4), (-8, 1), offset=16))
    assert rev is not None and rev.strides == (-32,) and rev.offset == 64
    bcast = runs(view(F32, (5, 4), (0, 1)))
    assert bcast is not None and bcast.strides == (0,) and bcast.count == 5


def test_what_is_not_runs():
    assert runs(view(F32, (4, 3), (1, 4))) is None          # a transpose: elements apart
    assert runs(view(F32, (4, 3), (3, -1), offset=2)) is None  # reversed rows
    assert runs(view(F32, (4, 3), (0, 0))) is None          # a broadcast element
    assert runs(view(F32, (MAX_RUNS + 1, 2), (4, 1))) is None  # too many runs
    assert runs(view(F32, (MAX_RUNS, 2), (4, 1))) is not None
    assert runs(view(F32, (GPU_RUNS + 1, 2), (4, 1)), "gpu") is None
    assert runs(view(F32, (6, 2), (2, 1)), "gpu") is not None  # one block
    other = copy_runs("input", view(F32, (4,), (1,)), packed(DataType.INT32, (4,)), "cpu")
    assert other is None


def test_the_copy_and_slice_families_give_their_views():
    x = np.zeros((4, 6, 9), np.float32)
    k = dmlc.compile(dmlc.IdentityDesc(input=dmlc.oneshot.tensor_of(x[:, :, 2:7])))
    assert k.compiled.plan.copy is not None and k.compiled.plan.copy.count == 24
    s = dmlc.compile(dmlc.Slice1Desc(input=TensorDesc(data_type=F32, sizes=(6, 9)),
                                     offsets=(1, 2), sizes=(4, 5), strides=(1, 1)))
    assert s.compiled.plan.copy is not None and s.compiled.plan.copy.offset == 4 * 11
    down = dmlc.compile(dmlc.Slice1Desc(input=TensorDesc(data_type=F32, sizes=(6, 9)),
                                        offsets=(2, 2), sizes=(4, 5), strides=(-1, 1)))
    assert down.compiled.plan.copy is None  # a negative window stride: the kernels
    t = dmlc.compile(dmlc.IdentityDesc(input=dmlc.oneshot.tensor_of(x.transpose(0, 2, 1))))
    assert t.compiled.plan.copy is None


@st.composite
def views(draw):
    """A view of a buffer: sizes 1-5 over ranks 1-5, element strides of any sign (0 too) with
    the innermost often 1, the offset that keeps every element inside, of a type of 1-8 bytes."""
    dtype = draw(st.sampled_from([DataType.INT8, F16, F32, DataType.INT64]))
    rank = draw(st.integers(1, 5))
    sizes = [draw(st.integers(1, 5)) for _ in range(rank)]
    strides, span = [], 1
    for n in reversed(sizes):
        st_ = draw(st.sampled_from([span, span, -span, 0, span + draw(st.integers(0, 3))]))
        strides.insert(0, st_)
        span = max(span, abs(st_) * n) if st_ else span
    if draw(st.booleans()):
        strides[-1] = 1
    low = sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    offset = -low + draw(st.integers(0, 4))
    return view(dtype, sizes, strides, offset)


@settings(max_examples=budget(300))
@given(views())
def test_the_runs_copy_the_views_bytes(v):
    """Whenever runs are found, the regions read from the buffer's bytes give the view's
    elements in row-major order; they are found whenever the innermost elements that move lie
    together and their number fits."""
    item = v.data_type.itemsize
    grid = np.indices(v.sizes).reshape(len(v.sizes), -1)
    index = v.offset + np.tensordot(np.array(v.element_strides), grid, axes=1)
    buffer = np.random.default_rng(0).integers(0, 256, (int(index.max()) + 1) * item, np.uint8)
    want = buffer.reshape(-1, item)[index].reshape(-1)
    found = runs(v)
    moving = [(n, s) for n, s in zip(v.sizes, v.element_strides) if n > 1]
    inner_together = not moving or moving[-1][1] == 1
    if found is None:  # (at most 5^4 runs here: never too many)
        assert not inner_together
        return
    starts = [found.offset + sum(i * st for i, st in zip(index, found.strides))
              for index in itertools.product(*(range(n) for n in found.sizes))]
    got = np.concatenate([buffer[s:s + found.run] for s in starts])
    assert len(starts) == found.count and np.array_equal(got, want)



SLICE_UNIT = """DML_SLICE1_OPERATOR_DESC
InputTensor: (Sizes:{4, 64, 200}, DataType:FLOAT32)
InputWindowOffsets: {0, 0, 0}
InputWindowSizes: {4, 64, 37}
InputWindowStrides: {1, 1, 1}
"""


def test_the_plan_says_when_it_runs_as_copies_of_runs(tmp_path, capsys):
    """`dmlc compile --emit plan` names the runs where the Vulkan runtime copies them (a CPU
    target: 256 runs; a GPU target takes one block only, so none here)."""
    from dmlc.cli import main
    unit = tmp_path / "window.dml"
    unit.write_text(SLICE_UNIT)
    assert main(["compile", str(unit), "--emit", "plan", "--target", "cpu"]) == 0
    assert "256 copies of 148-byte runs in one vkCmdCopyBuffer" in capsys.readouterr().out
    assert main(["compile", str(unit), "--emit", "plan", "--target", "gpu"]) == 0
    assert "vkCmdCopyBuffer" not in capsys.readouterr().out

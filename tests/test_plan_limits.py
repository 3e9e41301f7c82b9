"""Planning within a device's limits, without a device (issue 26 part 2): the limits travel as
data (dmlc.PlanLimits in the compile options); joins become trees of narrower kernels where a
shader binds fewer storage buffers; workgroups stay under every device's minimum; a bad limit is
a ValidationError naming the field. The device layer (tests/device/test_devices.py) runs the
same plans under the mock ICD, SwiftShader and lavapipe."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dmlc
from dmlc import JoinDesc, PlanLimits, TensorDesc
from dmlc.bench import suite
from dmlc.compiled import compile_program
from dmlc.passes.schedule import LOCAL_SIZE
from dmlc.plan import DEFAULT, MINIMUM
from strategies import random_bits


def join_of(n: int, dtype=np.float32, axis: int = 1) -> tuple[JoinDesc, list[np.ndarray]]:
    rng = np.random.default_rng(n)
    arrays = [random_bits(n * 100 + k, (2, int(rng.integers(1, 4)), 3), dtype)
              for k in range(n)]
    desc = JoinDesc(inputs=tuple(TensorDesc(data_type=dmlc.DataType.of(a.dtype), sizes=a.shape)
                                 for a in arrays), axis=axis)
    return desc, arrays


def with_buffers(n: int) -> PlanLimits:
    return dataclasses.replace(MINIMUM, maxPerStageDescriptorStorageBuffers=n, source=f"{n}")


@pytest.mark.parametrize("inputs", [2, 3, 4, 5, 7, 8, 9, 16, 31, 64])
@pytest.mark.parametrize("buffers", [4, 5, 8, 32])
def test_a_join_binds_at_most_the_limit_and_joins_right(inputs, buffers):
    desc, arrays = join_of(inputs)
    art = compile_program(desc, target="cpu", limits=with_buffers(buffers))
    assert art.limits.maxPerStageDescriptorStorageBuffers == buffers
    assert art.plan.within(art.limits)
    assert max(len(k.buffers) for k in art.plan.kernels) <= min(buffers, 8)
    if inputs <= min(buffers, 8) - 1:
        assert len(art.plan.kernels) == 1
    got = dmlc.CompiledKernel(art).reference(*arrays)
    np.testing.assert_array_equal(got.view(np.uint32), np.concatenate(arrays, 1).view(np.uint32))


def test_the_default_limits_plan_as_before():
    """lavapipe's limits (the device-free default): one kernel for up to 7 inputs (8 buffers),
    a tree above; Vulkan's minimum: one kernel for up to 3."""
    for n, kernels in ((7, 1), (8, 2), (49, 8)):
        assert len(compile_program(join_of(n)[0], target="gpu").plan.kernels) == kernels
    assert len(compile_program(join_of(3)[0], target="gpu", limits="minimum").plan.kernels) == 1
    assert len(compile_program(join_of(4)[0], target="gpu", limits="minimum").plan.kernels) == 2


def test_named_limits_and_what_a_named_target_plans_within():
    desc = join_of(2)[0]
    assert compile_program(desc, target="cpu").limits is DEFAULT
    assert compile_program(desc, target="cpu", limits="default").limits is DEFAULT
    assert compile_program(desc, target="cpu", limits="minimum").limits is MINIMUM
    assert DEFAULT.maxPerStageDescriptorStorageBuffers == 32  # lavapipe's
    assert DEFAULT.below_minimum() is None and MINIMUM.below_minimum() is None


def test_limits_that_differ_compile_apart_and_equal_ones_share():
    desc = join_of(5)[0]
    a = dmlc.compile(desc, target="cpu", limits=with_buffers(4))
    b = dmlc.compile(desc, target="cpu", limits=dataclasses.replace(with_buffers(4), source="x"))
    c = dmlc.compile(desc, target="cpu", limits=with_buffers(6))
    assert a.compiled is b.compiled and a.compiled is not c.compiled


@pytest.mark.parametrize("limits, field, expected", [
    ("lavapipe", "limits", "'minimum', 'default' or a dmlc.PlanLimits"),
    (4, "limits", "a dmlc.PlanLimits"),
    (with_buffers(3), "limits.maxPerStageDescriptorStorageBuffers", ">= Vulkan's minimum 4"),
    (dataclasses.replace(MINIMUM, maxComputeWorkGroupInvocations=64),
     "limits.maxComputeWorkGroupInvocations", "minimum 128"),
    (dataclasses.replace(MINIMUM, maxComputeWorkGroupCount=(65535, 100, 65535)),
     "limits.maxComputeWorkGroupCount", "(65535, 65535, 65535)"),
    (dataclasses.replace(MINIMUM, maxComputeWorkGroupCount=(65535,)),
     "limits.maxComputeWorkGroupCount", "(65535, 65535, 65535)"),
    (dataclasses.replace(MINIMUM, maxPushConstantsSize=64.0), "limits.maxPushConstantsSize",
     "128"),
    (dataclasses.replace(MINIMUM, maxPerStageDescriptorStorageBuffers=True),
     "limits.maxPerStageDescriptorStorageBuffers", "4"),
])
def test_a_bad_limit_is_refused_naming_the_field(limits, field, expected):
    with pytest.raises(dmlc.ValidationError) as e:
        dmlc.compile(join_of(2)[0], target="cpu", limits=limits)
    assert e.value.field == field and expected in e.value.expected


def test_workgroups_fit_every_device():
    """maxComputeWorkGroupInvocations is at least 128 on any device, and dmlc's workgroups are
    at most LOCAL_SIZE: no plan depends on a device's workgroup limit (the runtime still checks
    every launch against its device)."""
    assert LOCAL_SIZE <= MINIMUM.maxComputeWorkGroupInvocations


@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_every_bench_operator_plans_within_the_minimum(target):
    """Vulkan's minimum limits (the mock ICD's): every bench case plans, and plans exactly as
    under the default limits but for joins of 4 or more inputs."""
    for case in suite(quick=True):
        low = compile_program(case.descriptor, target=target, limits="minimum")
        assert low.plan.within(MINIMUM), case.name
        if not isinstance(low.descriptor, JoinDesc) or len(low.descriptor.inputs) < 4:
            usual = compile_program(case.descriptor, target=target)
            assert low.glsl == usual.glsl, case.name


def test_limits_are_asked_of_the_device_exactly_when_the_target_is(monkeypatch):
    import dmlc.target as target
    monkeypatch.delenv("DMLC_TARGET", raising=False)
    assert target.asks_device(None) and not target.asks_device("gpu")
    monkeypatch.setenv("DMLC_TARGET", "cpu")
    assert not target.asks_device(None)
    monkeypatch.setattr(target, "_device_limits", lambda: None)  # the loader cannot say
    assert target.resolve_limits(None, True) is DEFAULT
    monkeypatch.setattr(target, "_device_limits", lambda: ("Tiny GPU", with_buffers(5)))
    got = target.resolve_limits(None, True)
    assert got == with_buffers(5) and got.source == "Tiny GPU"
    assert target.resolve_limits(None, False) is DEFAULT


def test_a_devices_limits_are_built_once_and_follow_the_device(monkeypatch):
    """Every compile asks the selected device's limits: the PlanLimits of one probed Limits
    object are made once (the same object back), and another device's (another object, of
    the same name too) are its own."""
    import dmlc.target as target
    monkeypatch.delenv("DMLC_TARGET", raising=False)
    five, six = with_buffers(5), with_buffers(6)
    monkeypatch.setattr(target, "_device_limits", lambda: ("GPU", five))
    first = target.resolve_limits(None, True)
    assert first == five and target.resolve_limits(None, True) is first
    monkeypatch.setattr(target, "_device_limits", lambda: ("GPU", six))
    assert target.resolve_limits(None, True) == six


def test_a_plan_over_its_limits_is_a_compile_error(monkeypatch):
    """The planner's limits are checked on what it made (a bug there is said at compile time,
    not by a device): here a join made to bind 8 buffers where only 4 are allowed."""
    import dmlc.ops.join.lower as join
    monkeypatch.setattr(join, "group", lambda buffers: 7)
    with pytest.raises(dmlc.DmlcError, match="kernel join needs "
                       "maxPerStageDescriptorStorageBuffers >= 8, more than the 4 of Vulkan's"):
        compile_program(join_of(7)[0], target="cpu", limits="minimum")


def test_a_buffer_over_the_binding_limit_is_planned_as_chunks():
    """No device: a 3 MiB table under 1 MiB bindings is three chunks of 2^18 words, each read
    through the chunk-picking helper; the plan is within those limits only (a device with larger
    bindings, or smaller, gets it planned again at its first call)."""
    desc = dmlc.GatherDesc(input=TensorDesc(data_type="float32", sizes=(3 * 2**18, 1)),
                           indices=TensorDesc(data_type="int32", sizes=(1, 5)),
                           axis=0, index_dimensions=1)
    small = dataclasses.replace(DEFAULT, maxStorageBufferRange=2**20)
    chunked = compile_program(desc, target="gpu", limits=small)
    table = chunked.plan.buffer("input")
    assert table.chunk_words == 2**18 and table.chunks == (2**18,) * 3
    assert chunked.plan.bindings(chunked.plan.kernels[0]) == 5
    assert "dmlc_ld_input" in chunked.stages[0].glsl and "c2_input" in chunked.stages[0].glsl
    assert chunked.plan.within(small) and not chunked.plan.within(DEFAULT)
    whole = compile_program(desc, target="gpu")
    assert whole.plan.buffer("input").chunk_words == 0 and "dmlc_ld" not in whole.stages[0].glsl
    assert whole.plan.within(DEFAULT) and not whole.plan.within(small)
    with pytest.raises(dmlc.DmlcError, match="take one per chunk"):
        compile_program(desc, target="gpu", limits=dataclasses.replace(
            MINIMUM, maxStorageBufferRange=2**20))

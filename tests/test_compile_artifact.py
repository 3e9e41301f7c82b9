"""Compiling is device-free: dmlc.compile() builds a CompiledProgram (descriptor, IR, GLSL,
SPIR-V, launch plan) without importing the runtime or kp, and one in-memory cache holds it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dmlc
from dmlc.compiled import cached_compile, clear_caches, compile_program
from dmlc.plan import LaunchPlan

T = dmlc.TensorDesc
SCATTER = dmlc.ScatterDesc(input=T(data_type="INT8", sizes=(4, 3)),
                           indices=T(data_type="INT64", sizes=(2, 3)),
                           updates=T(data_type="INT8", sizes=(2, 3)), axis=0)
GATHER = dmlc.GatherDesc(input=T(data_type="FLOAT32", sizes=(4, 3)),
                         indices=T(data_type="INT32", sizes=(1, 2)), axis=0, index_dimensions=1)

NO_RUNTIME = """
import sys
import numpy as np
import dmlc
desc = dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(4, 3)),
                       indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 2)), axis=0,
                       index_dimensions=1)
kernel = dmlc.compile(desc, target="gpu")
x, i = np.arange(12, dtype=np.float32).reshape(4, 3), np.array([[3, 0]], np.int32)
assert kernel.ir and kernel.glsl and kernel.spirv and kernel.plan.kernels
assert kernel.reference(x, i).tolist() == [[9, 10, 11], [0, 1, 2]]
print([m for m in sys.modules if m.startswith("dmlc.runtime")], "kp" in sys.modules)
"""


def test_compiling_imports_neither_the_runtime_nor_kp():
    """In a process of its own: other tests have imported the runtime in this one."""
    env = {k: v for k, v in os.environ.items() if k != "DMLC_TARGET"}
    done = subprocess.run([sys.executable, "-c", NO_RUNTIME], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[] False"


def test_compiling_with_no_target_asks_the_loader_and_opens_nothing():
    """As docs/platforms.md says: with neither target= nor $DMLC_TARGET, dmlc.compile asks the
    Vulkan loader which kind of device is selected (dmlc.runtime's device module), without kp."""
    env = {k: v for k, v in os.environ.items() if k != "DMLC_TARGET"}
    script = NO_RUNTIME.replace('target="gpu"', "")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded, kp = done.stdout.strip().rsplit(" ", 1)
    assert "'dmlc.runtime.device'" in loaded and kp == "False"


def test_the_runtime_imports_no_compiler_module_but_the_plan():
    """runtime/ depends on the compiler through dmlc.plan (and dtypes, errors) only."""
    allowed = {"dmlc.plan", "dmlc.dtypes", "dmlc.errors"}
    root = Path(__file__).resolve().parent.parent / "runtime"
    for path in root.glob("*.py"):
        for line in path.read_text().splitlines():
            words = line.split()
            if words[:1] == ["from"] and words[1].startswith("dmlc."):
                assert words[1] in allowed or words[1].startswith("dmlc.runtime"), (path, line)


def test_the_launch_plan_holds_what_the_runtime_needs():
    artifact = compile_program(SCATTER, check_indices=True, guard_words=8, target="cpu")
    plan = artifact.plan
    assert isinstance(plan, LaunchPlan) and plan is artifact.plan  # built once
    program = artifact.program
    assert (plan.name, plan.inputs, plan.output, plan.output_shape, plan.guard_words) == (
        program.name, program.inputs, program.output, program.output_shape, 8)
    assert [(b.name, b.dtype, b.count, b.words, b.role) for b in plan.buffers] == [
        (b.name, b.dtype.numpy.name, b.count, b.words, b.role) for b in program.buffers]
    assert all(b.nbytes == 4 * b.words and b.words % 4 == 0 for b in plan.buffers)
    # only scratch and status buffers start zeroed: nothing else may rely on it (issue 23)
    assert [b.name for b in plan.buffers if b.zeroed] == ["winner", "check_first", "check_value"]
    assert [b.name for b in plan.status] == ["check_first", "check_value"]
    assert [(k.name, k.spirv, k.invocations, k.local_size, k.buffers) for k in plan.kernels] == [
        (s.name, s.spirv, s.invocations, s.local_size, s.buffers) for s in artifact.stages]
    assert plan.kernels[0].name == "check_indices"


def test_the_artifact_without_a_device():
    kernel = dmlc.compile(GATHER, target="cpu")
    artifact = kernel.compiled
    assert (kernel.ir, kernel.glsl, kernel.spirv) == (artifact.ir, artifact.glsl, artifact.spirv)
    assert kernel.descriptor is artifact.descriptor and kernel.stages is artifact.stages
    assert (kernel.target, kernel.check_indices, kernel.guard_words) == ("cpu", False, 0)
    x, i = np.arange(12, dtype=np.float32).reshape(4, 3), np.array([[3, 0]], np.int32)
    assert artifact.reference(x, i).tolist() == kernel.reference(x, i).tolist()
    with pytest.raises(dmlc.ValidationError, match="IndicesTensor array dtype"):
        artifact.reference(x, i.astype(np.int64))


def test_one_cache_compile_wraps_cached_compile_shares():
    clear_caches()
    a, b = dmlc.compile(GATHER, target="cpu"), dmlc.compile(GATHER, target="cpu")
    assert a is not b and a.compiled is b.compiled  # own device bindings, one artifact
    shared = cached_compile(GATHER, target="cpu")
    assert shared is cached_compile(GATHER, False, "cpu") and shared.compiled is a.compiled
    assert dmlc.compile(GATHER, target="gpu").compiled is not a.compiled
    assert dmlc.compile(GATHER, target="cpu", dump_after=set(["vectorize"])).compiled \
        is not a.compiled  # dumping builds afresh (and prints the IR)
    clear_caches()
    assert dmlc.compile(GATHER, target="cpu").compiled is not a.compiled


def test_the_cache_key_has_the_disabled_passes(monkeypatch):
    clear_caches()
    on = dmlc.compile(GATHER, target="cpu").compiled
    other = "" if os.environ.get("DMLC_DISABLE_PASSES") == "all" else "all"  # make test-nopasses
    monkeypatch.setenv("DMLC_DISABLE_PASSES", other)
    off = dmlc.compile(GATHER, target="cpu").compiled
    assert off is not on and dmlc.compile(GATHER, target="cpu").compiled is off
    clear_caches()


def test_a_cache_miss_validates_once_and_resolves_the_target_once(monkeypatch):
    """The descriptor is validated once and the target resolved once per compile, hit or miss
    (the options travel as one CompileOptions, the validated descriptor with them)."""
    import dmlc.compiled as compiled
    calls = {"validate": 0, "target": 0}

    def counting(name, fn):
        def wrapped(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapped
    monkeypatch.setattr(compiled, "validate", counting("validate", compiled.validate))
    monkeypatch.setattr(compiled, "resolve_with_limits",
                        counting("target", compiled.resolve_with_limits))
    for fn in (dmlc.compile, cached_compile):
        clear_caches()
        for _ in ("a miss", "a hit"):
            before = dict(calls)
            fn(SCATTER)
            assert {k: calls[k] - before[k] for k in calls} == {"validate": 1, "target": 1}
    clear_caches()


def test_an_unhashable_descriptor_is_a_validation_error_not_a_type_error():
    bad = dmlc.GatherDesc(input=T(data_type="FLOAT32", sizes=(4, 3)),
                          indices=T(data_type="INT32", sizes=(1, 2)), axis=[0],  # type: ignore
                          index_dimensions=1)
    for fn in (dmlc.compile, cached_compile):
        with pytest.raises(dmlc.ValidationError, match="Axis"):
            fn(bad, target="cpu")


def test_a_cold_compile_leaves_the_spirv_cache_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("DMLC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DMLC_CACHE", raising=False)
    monkeypatch.setenv("DMLC_BACKEND", "vulkan")  # SPIR-V at compile (WebGPU's needs none)
    compile_program(SCATTER, target="gpu", spirv_cache=False)
    assert not list(tmp_path.rglob("*.spv"))
    compile_program(SCATTER, target="gpu")
    assert len(list(tmp_path.rglob("*.spv"))) == 2

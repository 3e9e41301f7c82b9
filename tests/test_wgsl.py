"""WGSL generation (codegen/wgsl.py), no dispatch: every operator family and kernel kind renders,
with the GLSL kernel's interface (workgroup size, bindings in order, push words), one view per
binding, atomics declared atomic and used atomically, no write-only buffers; naga (wgpu-py's
shader compiler, where it is installed and finds an adapter) accepts every shader. Running the
shaders is tests/device/test_wgsl_device.py's."""
from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import cases
import dmlc
from dmlc.codegen.glsl import glsl_name, helpers, render_glsl
from dmlc.codegen.wgsl import binding_types, render_wgsl
from dmlc.codegen.wgsl_buffers import views, wgsl_helpers
from dmlc.compiled import build_program
from dmlc.family import computed as C
from dmlc.ir import Buffer, Kernel, Program
from dmlc.ir import build as b
from dmlc.ir.kernel import BUFFER_OPS, effects_order, kernel_buffers
from dmlc.ir.ops import Op, item_id
from dmlc.oneshot.computed import Computed
from dmlc.plan import DEFAULT
from integer_oracle import INTEGER_TYPES, KINDS, edge_values
from strategies import budget

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KINDS_OF = {"storage, read_write": "storage", "storage, read": "read-only-storage",
            "uniform": "uniform"}
_NAGA: list = []


def naga():
    """A wgpu device whose create_shader_module runs naga's WGSL front end and validator, or
    None where wgpu-py is not installed or finds no adapter (the text checks still run)."""
    if not _NAGA:
        try:
            import wgpu
            _NAGA.append(wgpu.gpu.request_adapter_sync(
                power_preference="high-performance").request_device_sync())
        except Exception:  # not installed, no adapter: nothing to validate with
            _NAGA.append(None)
    return _NAGA[0]


def T(sizes, dtype="FLOAT32") -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=dtype, sizes=sizes)


def checked_wgsl(k: Kernel, p: Program, guard_words: int = 0,
                 binding_bytes: int | None = None) -> str:
    """The kernel's WGSL, checked against its GLSL and by naga."""
    src = render_wgsl(k, p, guard_words, binding_bytes)
    glsl = render_glsl(k, p, guard_words, binding_bytes)
    assert k.schedule is not None
    assert f"@compute @workgroup_size({k.schedule.local_size})\n" in src
    assert f"layout(local_size_x = {k.schedule.local_size}) in;" in glsl
    storage = sorted({int(i) for i in re.findall(r"binding = (\d+)\)", glsl)})
    bound = [int(i) for i in re.findall(r"@binding\((\d+)\) var<storage", src)]
    assert bound == storage == list(range(len(storage)))  # one variable per GLSL binding
    types = binding_types(k, p, guard_words, binding_bytes)
    uniform = re.findall(r"@binding\((\d+)\) var<uniform>", src)
    assert uniform == ([str(len(bound))] if p.params else [])  # right after the storage
    declared = re.findall(r"var<(storage, read_write|storage, read|uniform)>", src)
    assert types == tuple(KINDS_OF[d] for d in declared)
    assert "writeonly" not in src and "$" not in src and "@family" not in src
    nodes = effects_order(k)
    for buf in kernel_buffers(k, p):
        ops = {n.op for n in nodes if n.op in BUFFER_OPS and n.buffer == buf.name}
        atomic = bool(ops & {Op.ATOMIC_MAX, Op.ATOMIC_STORE})
        declared = re.findall(rf"var<storage, \w+> \w*_{re.escape(glsl_name(p, buf.name))}: "
                              r"([^;]+);", src)
        assert declared and all(("atomic<u32>" in d) == atomic for d in declared), declared
    device = naga()
    if device is not None:
        device.create_shader_module(code=src)  # raises on any naga error
    return src


def checked_program(desc, **options) -> list[str]:
    _, program = build_program(desc, **options)
    return [checked_wgsl(k, program) for k in program.kernels]


@settings(max_examples=budget(60), suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(*(make() for make in cases.ALL_CASES.values())), st.sampled_from(["cpu", "gpu"]))
def test_every_family_renders_valid_wgsl(case, target):
    assume(case.expected is not None)  # a valid descriptor
    checked_program(case.descriptor, target=target)


@pytest.mark.parametrize("dtype,itype", [
    (d.name, i) for d, i in itertools.product(dmlc.DataType, ["INT32", "INT64", "UINT32", "UINT64"])
    if i == "INT32" or d.name == "FLOAT32"])
def test_every_data_and_index_type(dtype, itype):
    for desc in (
            dmlc.GatherDesc(input=T((5, 3), dtype), indices=T((1, 4), itype), axis=0,
                            index_dimensions=1),
            dmlc.GatherElementsDesc(input=T((5, 3), dtype), indices=T((2, 3), itype), axis=0),
            dmlc.ScatterDesc(input=T((5, 3), dtype), indices=T((2, 3), itype),
                             updates=T((2, 3), dtype), axis=0),
            dmlc.Slice1Desc(input=T((5, 3), dtype), offsets=(1, 0), sizes=(4, 3),
                            strides=(-2, 1))):
        for src in checked_program(desc):
            assert not re.search(r"\b(i64|u64|f16|f32|f64|i16|u16|i8|u8)\b", src)  # words only


def test_atomic_buffers_are_atomic_throughout():
    """Checked mode's status and scatter's vote: atomic<u32> and atomicMax; an 8-bit scatter in
    place: atomicAnd and atomicOr on shared words."""
    checked = checked_program(dmlc.GatherDesc(input=T((6, 4)), indices=T((1, 3), "INT64"),
                                              axis=0, index_dimensions=1), check_indices=True)
    assert any("array<atomic<u32>>" in s and "atomicMax(&b_" in s for s in checked)
    vote = checked_program(dmlc.ScatterDesc(input=T((50, 3)), indices=T((40, 3), "INT32"),
                                            updates=T((40, 3)), axis=0), target="gpu")
    assert "atomicMax(&b_" in vote[0] and "atomic" not in vote[1]
    place = checked_program(dmlc.ScatterDesc(input=T((7, 5), "INT8"), indices=T((3, 5), "INT32"),
                                             updates=T((3, 5), "INT8"), axis=0), in_place=True)
    assert any("atomicAnd(&b_output[" in s and "atomicOr(&b_output[" in s for s in place)


def test_push_words_are_a_uniform_buffer_after_the_storage_buffers():
    """A generic kernel's words, 4 to a vec4 (a uniform array's 16-byte stride)."""
    k = dmlc.compile(dmlc.ScatterDesc(input=T((9, 3), "INT64"), indices=T((9, 3), "INT32"),
                                      updates=T((9, 3), "INT64"), axis=0), dynamic=True,
                     target="cpu")
    words = len(k.program.params)
    assert words > 4
    for kernel in k.program.kernels:
        src = checked_wgsl(kernel, k.program)
        n = len(kernel_buffers(kernel, k.program))
        assert (f"@group(0) @binding({n}) var<uniform> dmlc_p: array<vec4<u32>, "
                f"{-(-words // 4)}>;") in src
        assert binding_types(kernel, k.program)[-1] == "uniform"
    lines = render_wgsl(k.program.kernels[-1], k.program)
    step = k.program.kernels[-1].step_count
    assert step is not None and f"step < i32(dmlc_p[{step.param // 4}]." in lines


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_index_arithmetic(dtype):
    """ARITH of every kind, COMPARE and CONVERT on every integer type: the helpers'
    functions (dmlc_int.wgsl's @family blocks expanded) exist and naga takes them."""
    a = np.array(edge_values(dtype), dtype)
    two = [C.Arith(kind, C.Input(0), C.Input(1)) for kind in KINDS]
    two += [C.Cast(C.Compare(kind, C.Input(0), C.Input(1)), "uint8") for kind in ("lt", "eq")]
    computed = [Computed(e, [a, a], a.shape) for e in two]
    computed += [Computed(C.Cast(C.Input(0), to), [a], a.shape) for to in INTEGER_TYPES]
    for c in computed:
        checked_program(dmlc.IdentityDesc(input=c.tensor))


def test_helpers_port_every_glsl_helper():
    """Every dmlc_* function of the GLSL helpers (their macro families expanded) has its WGSL
    twin: what the writer calls in one language it calls in the other."""
    for name in ("dmlc_helpers", "dmlc_int", "dmlc_reduce", "dmlc_divide"):
        glsl = helpers(f"{name}.glsl")
        rows = {m: re.findall(rf"^{m}\((\w+),", glsl, re.M)
                for m in re.findall(r"^#define (\w+)\(", glsl, re.M)}
        want = set(re.findall(r"^\w+ (dmlc_\w+)\(", glsl, re.M))
        for fn in re.findall(r"^\w+ (dmlc_\w+)##T\(", glsl, re.M):
            want |= {fn + t for ts in rows.values() for t in ts}
        wgsl = wgsl_helpers(f"{name}.wgsl")
        have = set(re.findall(r"^fn (dmlc_\w+)\(", wgsl, re.M))
        assert want and want <= have, sorted(want - have)
        assert "$" not in wgsl and "@family" not in wgsl


def test_chunked_buffers_take_a_binding_per_chunk():
    """Over one binding (1 KiB here), a buffer is chunked as in GLSL: a variable and a binding
    per chunk, in order, reached through functions that pick the chunk."""
    small = dataclasses.replace(DEFAULT, maxStorageBufferRange=1024)
    for desc in (dmlc.GatherDesc(input=T((300, 4)), indices=T((1, 6), "INT64"), axis=0,
                                 index_dimensions=1),
                 dmlc.ScatterDesc(input=T((300, 4), "INT8"), indices=T((2, 4), "INT32"),
                                  updates=T((2, 4), "INT8"), axis=0)):
        k = dmlc.compile(desc, limits=small)
        sources = []
        for kernel, pk in zip(k.program.kernels, k.plan.kernels):
            sources.append(checked_wgsl(kernel, k.program, 0, 1024))
            assert len(re.findall(r"@binding\(\d+\) var<storage", sources[-1])) == \
                k.plan.bindings(pk)
        assert any(re.search(r"var<storage, \w+> c1_", s)
                   and re.search(r"fn dmlc_\w+_\w+\(i: u32", s) for s in sources)


def test_guard_words_are_a_struct_member():
    k = dmlc.compile(dmlc.GatherDesc(input=T((9, 5), "FLOAT16"), indices=T((1, 3), "INT32"),
                                     axis=0, index_dimensions=1), guard_words=8)
    src = checked_wgsl(k.program.kernels[0], k.program, 8)
    assert "guard: array<u32, 8>, data: array<u32> }" in src and "b_output.data[" in src


def test_an_atomic_buffer_moved_as_vectors_is_refused():
    """WGSL gives a binding one type: atomic<u32> or vec4<u32>, not both (no planned kernel
    does both to one buffer)."""
    out = Buffer("out", dmlc.DataType.UINT32, 8, "output")
    gid = item_id(2)
    k = Kernel("both", 2, (b.vstore("out", b.mul(gid, 4), b.vload("out", b.mul(gid, 4))),
                           b.atomic_max(out, gid, 1)))
    with pytest.raises(NotImplementedError, match="one view"):
        views(k, Program("p", (out,), (k,), (), "out"), 0, {})


def test_cli_emits_wgsl(capsys, tmp_path):
    from dmlc.cli import main
    scatter = EXAMPLES / "seeds" / "scatter_1_1d.dml"
    assert main(["compile", str(scatter), "--emit", "wgsl"]) == 0
    out = capsys.readouterr().out
    assert out.count("@compute @workgroup_size(") == 2 and "// ---- " in out
    assert main(["compile", str(EXAMPLES / "reverse_subsequences.dml"), "--emit", "wgsl",
                 "--emit", "glsl", "-o", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert any(n.endswith(".wgsl") for n in names) and any(n.endswith(".comp") for n in names)
    device = naga()
    for p in tmp_path.glob("*.wgsl"):
        if device is not None:
            device.create_shader_module(code=p.read_text())

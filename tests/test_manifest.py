"""The manifest's contents (compiler/manifest.py), without a device: every kernel with its
bindings and dispatch, every buffer with its access and initial contents, the inputs and
outputs. (tests/device/test_manifest_runner.py runs manifests from C.)"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from tests.strategies import budget

import cases
import dmlc
from dmlc.cli import main
from dmlc.compiled import compile_program
from dmlc.family.registry import output_regions
from dmlc.manifest import GUARANTEED_GROUPS, dispatch, manifest

T = dmlc.TensorDesc
NO_GENERIC = {"split"}
"""Families whose generic kernels have no manifest yet (DML_SPLIT's outputs at pushed places).
(Most drawn slices step backwards, which compiles specialized: slice draws more.)"""


def test_a_scatter_manifest_names_every_buffer_and_kernel():
    k = dmlc.compile(dmlc.ScatterDesc(input=T(data_type="FLOAT32", sizes=(4, 3)),
                                      indices=T(data_type="INT32", sizes=(2, 3)),
                                      updates=T(data_type="FLOAT32", sizes=(2, 3)), axis=0),
                     target="gpu")
    files = [f"s{i}.spv" for i in range(len(k.stages))]
    m = manifest("Y", k.compiled, files)
    assert m["format"] == "dmlc-manifest" and m["version"] == 2 and m["generic"] is None
    assert m["vulkan"] == {"api_version": "1.0", "features": [], "extensions": []}
    assert [kk["spirv"] for kk in m["kernels"]] == files and len(files) >= 2
    buffers = {b["name"]: b for b in m["buffers"]}
    assert [i["buffer"] for i in m["inputs"]] == ["input", "indices", "updates"]
    assert [i["shape"] for i in m["inputs"]] == [[4, 3], [2, 3], [2, 3]]
    for name in ("input", "indices", "updates"):
        assert buffers[name]["access"] == "read" and buffers[name]["initial"] == "input"
    assert buffers["output"]["output"] and buffers["output"]["access"] in ("write", "read_write")
    scratch = [b for b in m["buffers"] if b["role"] == "scratch"]
    assert scratch and all(b["initial"] == "zeros" for b in scratch)
    for b in m["buffers"]:
        assert b["byte_size"] % 16 == 0 and b["byte_size"] >= b["element_count"] * 4
    for kk in m["kernels"]:
        assert [x["binding"] for x in kk["bindings"]] == list(range(len(kk["bindings"])))
        assert kk["dispatch"][0] * kk["dispatch"][1] >= kk["workgroups"]
        assert kk["workgroups"] * kk["workgroup_size"][0] >= kk["invocations"]
    json.dumps(m)  # plain JSON


def test_split_outputs_are_regions_of_one_buffer():
    t = T(data_type="UINT8", sizes=(2, 6))
    k = dmlc.compile(dmlc.SplitDesc(input=t, outputs=(T(data_type="UINT8", sizes=(2, 2)),
                                                      T(data_type="UINT8", sizes=(2, 4))),
                                    axis=1), dynamic=False)  # a generic split has none yet
    m = manifest("S", k.compiled, ["s.spv"])
    assert [(o["shape"], o["offset_elements"]) for o in m["outputs"]] == [([2, 2], 0),
                                                                         ([2, 4], 4)]


def test_a_dispatch_grid_stays_inside_the_guaranteed_limits():
    assert dispatch(1) == [1, 1, 1]
    assert dispatch(GUARANTEED_GROUPS) == [GUARANTEED_GROUPS, 1, 1]
    gx, gy, _ = dispatch(GUARANTEED_GROUPS * 3 + 1)
    assert gx <= GUARANTEED_GROUPS and gx * gy >= GUARANTEED_GROUPS * 3 + 1


@pytest.mark.parametrize("args", [[], ["-o", "x.json"]])
def test_a_manifest_needs_a_directory(args, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "g.dml"
    src.write_text("X: float32[4]\nY[i] = X[3 - i]\n")
    assert main(["compile", str(src), "--emit", "manifest", *args]) == 2
    assert "-o DIR" in capsys.readouterr().err


def test_manifest_and_glsl_into_one_directory(tmp_path):
    src = tmp_path / "g.dml"
    src.write_text("X: float32[4]\nY[i] = X[3 - i]\n")
    out = tmp_path / "out"
    assert main(["compile", str(src), "--emit", "manifest", "--emit", "glsl", "-o",
                 str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["Y.comp", "g.manifest.json", "g.spv"]


def scatter_desc(data_type="FLOAT16"):
    return dmlc.ScatterDesc(input=T(data_type=data_type, sizes=(6, 4)),
                            indices=T(data_type="INT32", sizes=(1, 4)),
                            updates=T(data_type=data_type, sizes=(1, 4)), axis=0)


@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_a_manifest_records_its_target(target):
    m = manifest("G", dmlc.compile(scatter_desc(), target=target).compiled, ["a", "b"])
    assert m["target"] == target and m["in_place"] is False
    assert all(o["input_index"] is None for o in m["outputs"])


def test_an_in_place_scatter_takes_its_data_tensor_as_input_0_and_output():
    compiled = compile_program(scatter_desc(), in_place=True, target="cpu")
    m = manifest("kv", compiled, [f"kv{i}.spv" for i in range(len(compiled.stages))])
    assert m["in_place"] is True
    assert [(i["buffer"], i["index"], i["shape"]) for i in m["inputs"]] == [
        ("output", 0, [6, 4]), ("indices", 1, [1, 4]), ("updates", 2, [1, 4])]
    (data,) = [b for b in m["buffers"] if b["output"]]
    assert (data["input_index"], data["initial"]) == (0, "input")
    assert m["outputs"][0]["input_index"] == 0 and m["outputs"][0]["buffer"] == "output"
    assert "input" not in {b["name"] for b in m["buffers"]}  # nothing is copied


def test_write_manifest_writes_the_manifest_beside_its_spirv(tmp_path):
    kernel = dmlc.compile(scatter_desc(), target="gpu")
    path = dmlc.write_manifest(kernel, tmp_path / "out")
    m = json.loads(open(path).read())
    assert path == str(tmp_path / "out" / f"{kernel.program.name}.manifest.json")
    for k in m["kernels"]:
        assert (tmp_path / "out" / k["spirv"]).read_bytes()[:4] == b"\x03\x02\x23\x07"
    named = dmlc.write_manifest(compile_program(scatter_desc(), in_place=True), tmp_path, "kv")
    assert named == str(tmp_path / "kv.manifest.json")
    assert json.loads(open(named).read())["in_place"] is True


def test_write_manifest_refuses_what_has_no_manifest(tmp_path):
    with pytest.raises(TypeError, match="compiled kernel or program"):
        dmlc.write_manifest("gather", tmp_path)
    guarded = dmlc.compile(scatter_desc(), guard_words=4)
    with pytest.raises(ValueError, match="guard words"):
        dmlc.write_manifest(guarded, tmp_path / "g")
    assert not (tmp_path / "g").exists()


GATHER_DML = ("DML_GATHER_OPERATOR_DESC\nAxis: 0\nIndexDimensions: 1\n"
              "InputTensor: (Sizes:{3, 2}, DataType:FLOAT32)\n"
              "IndicesTensor: (Sizes:{1, 2}, DataType:INT32)\n")
SCATTER_DML = ("DML_SCATTER_OPERATOR_DESC\nAxis: 0\n"
               "InputTensor: (Sizes:{3, 2}, DataType:FLOAT32)\n"
               "IndicesTensor: (Sizes:{1, 2}, DataType:INT32)\n"
               "UpdatesTensor: (Sizes:{1, 2}, DataType:FLOAT32)\n")


def test_each_file_s_manifest_is_named_after_the_file(tmp_path, capsys):
    """A gather's and a scatter's manifests side by side in one folder: each named after its
    file (both were OutputTensor.manifest.json, the second overwriting the first)."""
    (tmp_path / "gather.dml").write_text(GATHER_DML)
    (tmp_path / "scatter.dml").write_text(SCATTER_DML)
    out = tmp_path / "out"
    for name in ("gather", "scatter"):
        assert main(["compile", str(tmp_path / f"{name}.dml"), "--emit", "manifest",
                     "-o", str(out)]) == 0
    names = {p.name for p in out.glob("*.manifest.json")}
    assert names == {"gather.manifest.json", "scatter.manifest.json"}
    operators = {json.loads((out / n).read_text())["operator"] for n in names}
    assert operators == {"DML_GATHER", "DML_SCATTER"}
    source = json.loads((out / "gather.manifest.json").read_text())["source"]
    assert source.endswith("gather.dml#OutputTensor")


def test_name_and_several_programs_of_one_file(tmp_path):
    (tmp_path / "gather.dml").write_text(GATHER_DML)
    out = tmp_path / "out"
    assert main(["compile", str(tmp_path / "gather.dml"), "--emit", "manifest", "-o", str(out),
                 "--name", "rows"]) == 0
    assert (out / "rows.manifest.json").exists() and (out / "rows.spv").exists()
    (tmp_path / "two.dml").write_text("X: float32[4]\nY[i] = X[3 - i]\nZ[i] = X[i // 2]\n")
    assert main(["compile", str(tmp_path / "two.dml"), "--emit", "manifest", "-o",
                 str(out)]) == 0
    assert {"two.Y.manifest.json", "two.Z.manifest.json"} <= {p.name for p in out.iterdir()}


def test_another_program_s_manifest_is_not_overwritten(tmp_path, capsys):
    """The same program recompiled replaces its own manifest (its file edited, too); another
    file of the same name, or another program under one --name, is refused and nothing of it
    is written."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, other = tmp_path / "a" / "k.dml", tmp_path / "b" / "k.dml"
    first.write_text(GATHER_DML)
    other.write_text(SCATTER_DML)
    out = tmp_path / "out"
    assert main(["compile", str(first), "--emit", "manifest", "-o", str(out)]) == 0
    first.write_text(GATHER_DML.replace("{3, 2}", "{5, 2}"))  # edited: the same program
    assert main(["compile", str(first), "--emit", "manifest", "-o", str(out)]) == 0
    before = (out / "k.manifest.json").read_text()
    assert main(["compile", str(other), "--emit", "manifest", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "k.manifest.json" in err and "a/k.dml#OutputTensor" in err and "--name" in err
    assert (out / "k.manifest.json").read_text() == before
    assert sorted(p.name for p in out.iterdir()) == ["k.manifest.json", "k.spv"]
    assert main(["compile", str(other), "--emit", "manifest", "-o", str(out), "--name",
                 "k2"]) == 0


def test_write_manifest_keeps_another_program_s_manifest(tmp_path):
    kernel = dmlc.compile(scatter_desc(), target="gpu")
    dmlc.write_manifest(kernel, tmp_path, "s")
    dmlc.write_manifest(kernel, tmp_path, "s")  # the same program: replaced
    other = dmlc.compile(scatter_desc("FLOAT32"), target="gpu")
    with pytest.raises(dmlc.ValidationError, match="s.manifest.json"):
        dmlc.write_manifest(other, tmp_path, "s")
    assert dmlc.write_manifest(other, tmp_path, "s", overwrite=True).endswith("s.manifest.json")
    (tmp_path / "x.manifest.json").write_text("not json")
    with pytest.raises(dmlc.ValidationError, match="not a dmlc manifest"):
        dmlc.write_manifest(other, tmp_path, "x")


def _formula(expr):
    """A manifest's JSON formula as family/formula.py's tuples."""
    return tuple(_formula(x) for x in expr) if isinstance(expr, list) else expr


@pytest.mark.parametrize("dtype", ["FLOAT16", "FLOAT32", "INT64"])
def test_a_generic_manifest_gives_every_call_its_push_words(dtype):
    """The words' formulas, traced at the call that compiled the kernel, give another call of
    that kernel the words dmlc pushes for it, and its guards hold; a call the kernel does not
    serve (a size it fixes, a misaligned window) breaks a guard. A runtime extent is a formula
    of the words."""
    from dmlc.family.formula import evaluate, holds
    from dmlc.family.registry import validate

    def view(t, start=0):  # cache[start:start + t] of a [64, 24] cache
        return dmlc.IdentityDesc(input=T(data_type=dtype, sizes=(t, 24), strides=(24, 1),
                                         offset=24 * start))
    dmlc.clear_cache()
    first = dmlc.compile(view(5), dynamic=(0,))
    m = manifest("window", first.compiled, ["window.spv"])
    words = [_formula(w["expr"]) for w in m["generic"]["words"]]
    guards = [_formula(g["expr"]) for g in m["generic"]["guards"]]
    assert [w["word"] for w in m["generic"]["words"]] == list(range(len(words)))
    for t, start in ((1, 0), (9, 3), (40, 20)):
        other = dmlc.compile(view(t, start), dynamic=(0,))
        assert other.compiled.program is first.compiled.program  # one kernel
        call = validate(view(t, start))
        assert all(holds(g, call) for g in guards)
        assert tuple(evaluate(w, call) for w in words) == other.compiled.push
    wider = validate(dmlc.IdentityDesc(input=T(data_type=dtype, sizes=(5, 12),
                                               strides=(24, 1))))
    assert not all(holds(g, wider) for g in guards)
    assert any(b["extent"] is not None for b in m["buffers"])
    for k in m["kernels"]:
        assert k["count_word"] is not None and k["items_per_workgroup"] >= 1


@pytest.mark.parametrize("family", sorted(cases.ALL_CASES))
def test_every_familys_generic_kernel_has_a_manifest(family):
    """Each family's generic kernels (every dimension it allows dynamic, the CPU target's, as
    the scatters have theirs there): the manifest's words, computed from the call's tensors,
    are the words dmlc pushes for that call, and its guards hold for it."""
    from dmlc.family.formula import evaluate, holds
    made = []

    @settings(max_examples=budget(30 if family == "slice" else 6), deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(cases.ALL_CASES[family]())
    def run(case):
        try:
            kernel = dmlc.compile(case.descriptor, dynamic=True, target="cpu")
        except dmlc.DmlcError:
            return
        if not kernel.compiled.params or output_regions(kernel.compiled.descriptor):
            return
        m = manifest("k", kernel.compiled, [f"{s.name}.spv" for s in kernel.stages])
        call = kernel.compiled.descriptor
        assert tuple(evaluate(_formula(w["expr"]), call) for w in m["generic"]["words"]) == \
            kernel.compiled.push
        assert all(holds(_formula(g["expr"]), call) for g in m["generic"]["guards"])
        made.append(kernel)
    run()
    assert made or family in NO_GENERIC, family

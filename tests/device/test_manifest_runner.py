"""Shaders out, usable without dmlc: `dmlc compile --emit manifest` writes SPIR-V and a JSON
manifest, and a small C program (examples/manifest_runner/run_manifest.c: plain Vulkan through
the loader, no kp, built here with the system compiler) runs each example program from its
manifest alone and gives dmlc's bits, for every .dml example (one or more per operator
family) and for programs of several kernels."""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import dmlc
from dmlc.cli import main
from dmlc.cli.commands import manifest_name
from dmlc.lang import parse_module
from dmlc.oneshot.symbolic import has_symbols
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _static(path: pathlib.Path) -> bool:
    module = dmlc.lang.load(path)
    return module.symbolic is None and not any(has_symbols(u.descriptor) for u in module.units)


EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.dml") if _static(p))
"""Every example but those of symbolic sizes: their manifests hold generic kernels, whose calls
say their sizes (test_a_decode_loop_of_growing_sizes_runs_on_one_spirv_per_kernel)."""


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> pathlib.Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler (make install installs g++, which brings gcc)"
    exe = tmp_path_factory.mktemp("runner") / "run_manifest"
    subprocess.run([cc, "-O2", "-Wall", "-Werror", "-o", str(exe),
                    str(ROOT / "examples/manifest_runner/run_manifest.c"), "-lvulkan",
                    "-lcjson"], check=True)
    return exe


def run_from_manifests(runner: pathlib.Path, folder: pathlib.Path, module,
                       inputs: dict[str, np.ndarray], stem: str) -> dict[str, np.ndarray]:
    """Every unit run by the C program from its manifest (named after the file, `stem`), in
    order (later statements read earlier results, as dmlc.run_module does)."""
    results: dict[str, np.ndarray] = {}
    for u in module.units:
        name = manifest_name(stem, u.name, len(module.units))
        m = json.loads((folder / f"{name}.manifest.json").read_text())
        files = []
        for item in m["inputs"]:
            label = u.arguments[item["buffer"]]
            value = inputs.get(label, u.data.get(item["buffer"], results.get(label)))
            path = folder / f"{u.name}.{item['buffer']}.bin"
            np.ascontiguousarray(value).tofile(path)
            files.append(str(path))
        out = folder / f"{u.name}.out.bin"
        subprocess.run([str(runner), str(folder / f"{name}.manifest.json"), *files, str(out)],
                       check=True, capture_output=True, text=True)
        (first, *rest) = m["outputs"]
        flat = np.fromfile(out, dtype=first["element_type"])
        if rest:  # a split: its outputs, one after another in the buffer
            for k, o in enumerate(m["outputs"]):
                n = int(np.prod(o["shape"]))
                start = o["offset_elements"]
                results[f"{u.name}[{k}]"] = flat[start:start + n].reshape(o["shape"])
        else:
            results[u.name] = flat[:int(np.prod(first["shape"]))].reshape(first["shape"])
    return results


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_runs_from_its_manifest_alone(path, runner, tmp_path):
    assert main(["compile", str(path), "--emit", "manifest", "-o", str(tmp_path)]) == 0
    module = dmlc.lang.load(path)
    got = run_from_manifests(runner, tmp_path, module, {}, path.stem)
    expected = dmlc.run_module(module)
    assert set(got) == set(expected)
    for name, value in expected.items():
        assert_bits_equal(got[name], value)


SEVERAL_KERNELS = {
    # scatter: a vote kernel over scratch (zeroed), then the gather-form resolve
    "scatter": """DML_SCATTER_OPERATOR_DESC
Axis: 0
InputTensor: (Sizes:{3, 2}, DataType:FLOAT16) [[1, 2], [3, 4], [5, 6]]
IndicesTensor: (Sizes:{2, 2}, DataType:INT64) [[2, 0], [2, -3]]
UpdatesTensor: (Sizes:{2, 2}, DataType:FLOAT16) [[-0.0, nan], [inf, 8]]
""",
    # join of more inputs than a shader binds: a tree of kernels through scratch tensors
    "join": "DML_JOIN_OPERATOR_DESC\nAxis: 0\nInputTensors: {"
            + ", ".join(f"(Sizes:{{1, 2}}, DataType:INT8) [[{k}, {-k}]]" for k in range(12))
            + "}\n",
}


@pytest.mark.parametrize("name", SEVERAL_KERNELS)
def test_programs_of_several_kernels(name, runner, tmp_path):
    src = tmp_path / f"{name}.dml"
    src.write_text(SEVERAL_KERNELS[name])
    out = tmp_path / "out"
    assert main(["compile", str(src), "--emit", "manifest", "-o", str(out)]) == 0
    module = parse_module(src.read_text())
    (unit,) = module.units
    m = json.loads((out / f"{name}.manifest.json").read_text())
    assert len(m["kernels"]) > 1
    assert any(b["initial"] == "zeros" for b in m["buffers"]) or name == "join"
    got = run_from_manifests(runner, out, module, {}, name)
    for k, value in dmlc.run_module(module).items():
        assert_bits_equal(got[k], value)


def test_a_program_of_many_workgroups(runner, tmp_path):
    """Many workgroups, 16-bit elements packed in words, 64-bit indices."""
    src = tmp_path / "gather.dml"
    src.write_text("DML_GATHER_OPERATOR_DESC\nAxis: 0\nIndexDimensions: 1\n"
                   "InputTensor: (Sizes:{4096, 64}, DataType:FLOAT16)\n"
                   "IndicesTensor: (Sizes:{1, 3001}, DataType:INT64)\n")
    rng = np.random.default_rng(3)
    inputs = {"InputTensor": rng.integers(0, 2**16, (4096, 64), dtype=np.uint16).view(np.float16),
              "IndicesTensor": rng.integers(-5000, 5000, (1, 3001)).astype(np.int64)}
    out = tmp_path / "out"
    assert main(["compile", str(src), "--emit", "manifest", "-o", str(out)]) == 0
    module = parse_module(src.read_text())
    m = json.loads((out / "gather.manifest.json").read_text())
    assert m["kernels"][0]["workgroups"] > 10
    got = run_from_manifests(runner, out, module, inputs, "gather")
    assert_bits_equal(got["OutputTensor"], dmlc.run_module(module, inputs)["OutputTensor"])


def run_manifest(runner: pathlib.Path, path: str, arrays: list[np.ndarray],
                 folder: pathlib.Path) -> bytes:
    """The C runner on one manifest: its inputs' bytes in order, the output buffer's bytes."""
    files = []
    for k, a in enumerate(arrays):
        files.append(str(folder / f"in{k}.bin"))
        np.ascontiguousarray(a).tofile(files[-1])
    out = folder / "out.bin"
    subprocess.run([str(runner), path, *files, str(out)], check=True, capture_output=True)
    return out.read_bytes()


IN_PLACE = {
    # a KV cache's rows by token position: f16 (sub-word stores), a colliding pair of updates
    "scatter": lambda dt: dmlc.ScatterDesc(
        input=dmlc.TensorDesc(data_type=dt, sizes=(300, 8)),
        indices=dmlc.TensorDesc(data_type="INT64", sizes=(2, 8)),
        updates=dmlc.TensorDesc(data_type=dt, sizes=(2, 8)), axis=0),
    # few long lines: the in-place vote (its scratch zeroed once, left zeroed)
    "scatter_vote": lambda dt: dmlc.ScatterDesc(
        input=dmlc.TensorDesc(data_type=dt, sizes=(300, 8)),
        indices=dmlc.TensorDesc(data_type="INT64", sizes=(100, 8)),
        updates=dmlc.TensorDesc(data_type=dt, sizes=(100, 8)), axis=0),
    "scatter_nd": lambda dt: dmlc.ScatterNDDesc(
        input=dmlc.TensorDesc(data_type=dt, sizes=(300, 8)),
        indices=dmlc.TensorDesc(data_type="INT64", sizes=(2, 1)),
        updates=dmlc.TensorDesc(data_type=dt, sizes=(2, 8)), input_dimension_count=2,
        indices_dimension_count=2),
}


@pytest.mark.parametrize("dtype", ["FLOAT16", "FLOAT32"])
@pytest.mark.parametrize("op", IN_PLACE)
def test_an_in_place_scatter_updates_the_data_tensor_given_as_input_0(op, dtype, runner,
                                                                      tmp_path):
    from dmlc.compiled import compile_program
    desc = IN_PLACE[op](dtype)
    np_type = np.float16 if dtype == "FLOAT16" else np.float32
    rng = np.random.default_rng(5)
    data = rng.standard_normal((300, 8)).astype(np_type)
    updates = rng.standard_normal(desc.updates.sizes).astype(np_type)
    indices = {"scatter": np.array([[7] * 8, [-1] * 8]),
               "scatter_vote": rng.integers(-300, 300, (100, 8)),
               "scatter_nd": np.array([[7], [-1]])}[op]
    compiled = compile_program(desc, in_place=True)
    path = dmlc.write_manifest(compiled, tmp_path / "m")
    got = run_manifest(runner, path, [data, indices.astype(np.int64), updates], tmp_path)
    fn = dmlc.scatter_nd if op == "scatter_nd" else dmlc.scatter
    kwargs = {} if op == "scatter_nd" else {"axis": 0}
    if op == "scatter_vote":
        assert any(b["initial"] == "zeros" for b in json.loads(open(path).read())["buffers"])
    expected = fn(data, indices, updates, **kwargs)
    assert_bits_equal(np.frombuffer(got, np_type)[:data.size].reshape(data.shape), expected)


def run_model_from_manifests(runner: pathlib.Path, folder: pathlib.Path, stem: str,
                             inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A model run by the C runner alone, one kernel manifest after another, wired as
    STEM.model.json says: each kernel input from a model input, a constant's file or an earlier
    kernel's output buffer (its first element_count elements)."""
    model = json.loads((folder / f"{stem}.model.json").read_text())
    data: dict[tuple[str, str], bytes] = {}
    for i in model["inputs"]:
        data["input", i["name"]] = np.ascontiguousarray(inputs[i["name"]]).tobytes()
    for c in model["constants"]:
        data["constant", c["name"]] = (folder / c["file"]).read_bytes()
    for k in model["kernels"]:
        manifest = json.loads((folder / k["manifest"]).read_text())
        arrays = []
        for wire, spec in zip(k["inputs"], manifest["inputs"], strict=True):
            ((kind, name),) = wire["from"].items()
            dtype = np.dtype(spec["element_type"])
            arrays.append(np.frombuffer(data[kind, name], dtype)[:wire["element_count"]])
        data["kernel", k["name"]] = run_manifest(runner, str(folder / k["manifest"]), arrays,
                                                 folder)
    out = {}
    for o in model["outputs"]:
        ((kind, name),) = o["from"].items()
        flat = np.frombuffer(data[kind, name], o["element_type"])[o["offset_elements"]:]
        out[o["name"]] = flat[:int(np.prod(o["shape"]))].reshape(o["shape"]).view(o["onnx_type"])
    return out


def test_a_model_runs_from_its_manifests_alone(runner, tmp_path):
    """Transpose, Gather by a constant, Reshape, Concat with another input, a reversed Slice,
    Split; an embedding table (an initializer) gathered by ids, and a bool Pad."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    table = np.arange(40 * 6, dtype=np.float16).reshape(40, 6)
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("Gather", ["t", "idx"], ["g"], axis=0),
             helper.make_node("Reshape", ["g", "flat"], ["r"]),
             helper.make_node("Concat", ["r", "c"], ["j"], axis=0),
             helper.make_node("Slice", ["j", "starts", "ends", "axes", "steps"], ["s"]),
             helper.make_node("Split", ["s"], ["a", "b"], axis=0, num_outputs=2),
             helper.make_node("Gather", ["table", "ids"], ["e"], axis=0),
             helper.make_node("Pad", ["m", "pads"], ["p"], mode="edge")]
    inits = [numpy_helper.from_array(v, n) for n, v in {
        "idx": np.array([3, 0, -1], np.int64), "flat": np.array([-1], np.int64),
        "starts": np.array([-1], np.int64), "ends": np.array([-1000], np.int64),
        "axes": np.array([0], np.int64), "steps": np.array([-2], np.int64),
        "table": table, "pads": np.array([1, 0, 0, 2], np.int64)}.items()]
    graph = helper.make_graph(nodes, "wired", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 5]),
        helper.make_tensor_value_info("c", TensorProto.FLOAT, [4]),
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 3]),
        helper.make_tensor_value_info("m", TensorProto.BOOL, [2, 3])],
        [helper.make_tensor_value_info(n, 0, None) for n in "abep"], inits)
    path = tmp_path / "wired.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    out = tmp_path / "out"
    assert main(["compile", str(path), "--dim", "batch=2", "--emit", "manifest", "-o",
                 str(out)]) == 0
    wiring = json.loads((out / "wired.model.json").read_text())
    assert {c["of"] for c in wiring["constants"]} >= {"table", "idx"}
    rng = np.random.default_rng(9)
    inputs = {"x": rng.standard_normal((2, 5)).astype(np.float32),
              "c": rng.standard_normal(4).astype(np.float32),
              "ids": rng.integers(-40, 40, (2, 3)).astype(np.int64),
              "m": rng.random((2, 3)) > 0.5}
    got = run_model_from_manifests(runner, out, "wired", inputs)
    import dmlc.onnx
    expected = dmlc.onnx.run(str(path), inputs)
    assert set(got) == set(expected)
    for name, value in expected.items():
        assert_bits_equal(got[name], value)


def run_calls(runner: pathlib.Path, manifest: str, calls: list[dict], folder: pathlib.Path,
              name: str) -> list[np.ndarray]:
    """The C runner on a generic manifest: every call (its tensors' sizes, its input arrays)
    in one process, one pipeline per kernel; each call's output as a flat array."""
    doc = []
    for k, (tensors, arrays) in enumerate(calls):
        files = []
        for j, a in enumerate(arrays):
            files.append(str(folder / f"{name}.{k}.in{j}.bin"))
            np.ascontiguousarray(a).tofile(files[-1])
        doc.append({"tensors": tensors, "inputs": files,
                    "output": str(folder / f"{name}.{k}.out.bin")})
    (folder / f"{name}.calls.json").write_text(json.dumps(doc))
    subprocess.run([str(runner), manifest, "--calls", str(folder / f"{name}.calls.json")],
                   check=True, capture_output=True, text=True)
    dtype = json.loads(pathlib.Path(manifest).read_text())["outputs"][0]["element_type"]
    return [np.fromfile(folder / f"{name}.{k}.out.bin", dtype=dtype) for k in range(len(calls))]


@pytest.mark.parametrize("dtype", ["FLOAT16", "FLOAT32"])
def test_a_decode_loop_of_growing_sizes_runs_on_one_spirv_per_kernel(dtype, runner, tmp_path):
    """Issue 36 item 5: 50 steps of a decode loop, from manifests alone: a gather of 1-7 ids
    from a [300, 64] table, an in-place one-row scatter_nd into a [heads, width, window] cache
    (its sizes fixed), and the copy of the window cache[:, :, :t], t growing. Each generic
    kernel is one SPIR-V for every step, its sizes pushed from its manifest's formulas; every
    step's result has numpy's bits."""
    from dmlc.compiled import compile_program
    T, H, W, V, STEPS = 60, 2, 16, 300, 50
    np_type = dmlc.DataType[dtype].numpy
    rng = np.random.default_rng(11)
    table = rng.standard_normal((V, 64)).astype(np_type)
    rows = rng.standard_normal((STEPS, H * W)).astype(np_type)
    desc = dmlc.TensorDesc
    gather = dmlc.compile(dmlc.GatherDesc(
        input=desc(data_type=dtype, sizes=(V, 64)), indices=desc(data_type="INT64", sizes=(1, 3)),
        axis=0, index_dimensions=1), dynamic=True)
    window = dmlc.compile(dmlc.IdentityDesc(input=desc(  # cache[:, :, :5]
        data_type=dtype, sizes=(H, W, 5), strides=(W * T, T, 1))), dynamic=True)
    scatter = compile_program(dmlc.ScatterNDDesc(  # the cache as [window, heads * width]
        input=desc(data_type=dtype, sizes=(T, H * W)), indices=desc(data_type="INT64",
                                                                    sizes=(1, 1)),
        updates=desc(data_type=dtype, sizes=(1, H * W)), input_dimension_count=2,
        indices_dimension_count=2), in_place=True)
    assert gather.compiled.params and window.compiled.params  # generic kernels
    out = tmp_path / "out"
    paths = {n: dmlc.write_manifest(k, out, n) for n, k in
             (("gather", gather), ("window", window), ("scatter", scatter))}
    assert sorted(p.name for p in out.glob("*.spv")) == [f"{n}.spv" for n in sorted(paths)]

    ids = [rng.integers(-V, V, (1, n)) for n in rng.integers(1, 8, STEPS)]
    cache = np.zeros((T, H * W), np_type)  # [window, heads * width]: row t is step t's
    caches = []
    for t in range(STEPS):
        caches.append(cache.copy())
        cache[t] = rows[t]
    scattered = run_calls(runner, paths["scatter"], [
        ({}, [caches[t], np.array([[t]], np.int64), rows[t:t + 1]]) for t in range(STEPS)],
        tmp_path, "scatter")
    gathered = run_calls(runner, paths["gather"], [
        ({"indices": {"sizes": [1, i.shape[1]]}, "output": {"sizes": [i.shape[1], 64]}}, [table, i])
        for i in ids], tmp_path, "gather")
    by_head = np.ascontiguousarray(cache.T.reshape(H, W, T))  # the cache [heads, width, window]
    windows = run_calls(runner, paths["window"], [
        ({"input": {"sizes": [H, W, t]}, "output": {"sizes": [H, W, t]}}, [by_head])
        for t in range(1, STEPS + 1)], tmp_path, "window")
    for t in range(STEPS):
        assert_bits_equal(scattered[t].reshape(T, H * W), np.where(
            np.arange(T)[:, None] == t, rows[t], caches[t]))
        assert_bits_equal(gathered[t].reshape(-1, 64), table[ids[t][0] % V])
        assert_bits_equal(windows[t].reshape(H, W, t + 1), by_head[:, :, :t + 1])


def test_a_call_the_generic_kernel_does_not_serve_is_refused(runner, tmp_path):
    """A size the kernel fixes (the window's width), or one outside a push word's range, is
    refused with what the kernel assumes; nothing is dispatched."""
    kernel = dmlc.compile(dmlc.IdentityDesc(input=dmlc.TensorDesc(
        data_type="FLOAT32", sizes=(5, 64), strides=(64, 1))), dynamic=(0,))
    path = dmlc.write_manifest(kernel, tmp_path / "out")
    data = np.zeros((10, 64), np.float32)
    for sizes, says in (([3, 32], "assumes input.sizes[1] == 64"),
                        ([0, 64], "push word 0 = input.sizes[0] is 0, outside [1, ")):
        with pytest.raises(subprocess.CalledProcessError) as e:
            run_calls(runner, path, [({"input": {"sizes": sizes}}, [data])], tmp_path, "bad")
        assert says in e.value.stderr, e.value.stderr

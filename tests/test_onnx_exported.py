"""The exporter set: small data-movement modules exported by PyTorch's two ONNX exporters
(tools/export_models.py; TorchScript at opsets 20 and 11, dynamo at opset 20, each with a static
and with a dynamic batch), run through dmlc.onnx and compared bit for bit (dtype, shape, bytes)
with onnxruntime's outputs on the same file, recorded in tests/data/exported/.

Every model runs, except those in onnx_exported_expect.py's two tables: OUT_OF_SCOPE (models
that compute on float data or need NonZero: dmlc must refuse them, naming the node) and
KNOWN_FAILING (a temporary list of what dmlc does not run yet: strict xfails, so that a fix
shows up as an XPASS and its entry is to be removed). Needs numpy and the onnx package.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dmlc.errors import ValidationError
from onnx_exported_expect import KNOWN_FAILING, OUT_OF_SCOPE

DATA = pathlib.Path(__file__).parent / "data" / "exported"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
MODELS = MANIFEST["models"]


def runs(entry: dict) -> list[tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]]:
    """The model's reference runs: (batch, inputs by name, onnxruntime's outputs by name)."""
    with np.load(DATA / f"{entry['name']}.npz") as npz:
        return [(b, {n: npz[f"b{b}/in/{n}"] for n in entry["inputs"]},
                 {n: npz[f"b{b}/out/{n}"] for n in entry["outputs"]}) for b in entry["batches"]]


def assert_same_bits(got: np.ndarray, want: np.ndarray, where: str) -> None:
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    bits = f"uint{8 * want.dtype.itemsize}"
    g, w = np.ascontiguousarray(got).view(bits), np.ascontiguousarray(want).view(bits)
    if not np.array_equal(g, w):
        at = np.argwhere(g != w)
        first = tuple(at[0])
        raise AssertionError(f"{where}: {len(at)} of {w.size} elements differ; first at "
                             f"{list(first)}: got {g[first]:#x}, expected {w[first]:#x}")


def _params(out_of_scope: bool) -> list:
    params = []
    for entry in MODELS:
        name = entry["name"]
        if (name in OUT_OF_SCOPE) != out_of_scope:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_FAILING[name])] \
            if name in KNOWN_FAILING else []
        params.append(pytest.param(entry, id=name, marks=marks))
    return params


@pytest.mark.vulkan
@pytest.mark.parametrize("entry", _params(out_of_scope=False))
def test_exported_model_is_onnxruntime_bit_for_bit(entry):
    pytest.importorskip("onnx")
    import dmlc.onnx
    with dmlc.onnx.load_program(str(DATA / entry["file"])) as program:  # one for every batch
        for b, inputs, expected in runs(entry):
            got = program.run(inputs)
            assert sorted(got) == sorted(expected), (b, sorted(got))
            for name, want in expected.items():
                assert_same_bits(got[name], want, f"batch {b}, output {name!r}")


@pytest.mark.vulkan
@pytest.mark.parametrize("entry", _params(out_of_scope=True))
def test_out_of_scope_model_is_refused_naming_the_node(entry):
    onnx = pytest.importorskip("onnx")
    import dmlc.onnx
    op_type, _reason = OUT_OF_SCOPE[entry["name"]]
    nodes = [n.name or n.output[0] for n in onnx.load(str(DATA / entry["file"])).graph.node
             if n.op_type == op_type]
    assert nodes, f"the model has no {op_type} node"
    with pytest.raises(ValidationError) as refused:
        with dmlc.onnx.load_program(str(DATA / entry["file"])) as program:
            for _b, inputs, _expected in runs(entry):
                program.run(inputs)
    message = str(refused.value)
    assert op_type in message and any(repr(n) in message for n in nodes), message


def test_the_tables_name_exported_models():
    names = {m["name"] for m in MODELS}
    assert not set(OUT_OF_SCOPE) - names, sorted(set(OUT_OF_SCOPE) - names)
    assert not set(KNOWN_FAILING) - names, sorted(set(KNOWN_FAILING) - names)
    assert not set(OUT_OF_SCOPE) & set(KNOWN_FAILING)


def test_the_manifest_accounts_for_every_export_and_file():
    """Each module's six exports are a model (with its two files) or a recorded refusal."""
    seen = {(e["module"], e["exporter"], e["opset"], e["batch"])
            for e in MODELS + MANIFEST["refused"]}
    exports = {(e, o) for e, o in [("torchscript", 20), ("torchscript", 11), ("dynamo", 20)]}
    want = {(m, e, o, b) for m in MANIFEST["modules"] for e, o in exports
            for b in ("static", "dynamic")}
    assert seen == want, sorted(seen ^ want)[:5]
    files = {f.name for f in DATA.iterdir() if f.suffix in (".onnx", ".npz")}
    listed = {f"{m['name']}{ext}" for m in MODELS for ext in (".onnx", ".npz")}
    assert files == listed, sorted(files ^ listed)[:5]
    for m in MODELS:
        assert m["batches"] == ([1, 3, 5] if m["batch"] == "dynamic" else [2]) or \
            m.get("ort_failed"), m["name"]

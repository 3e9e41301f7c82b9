"""Gathers from tables that grow, on the device (ops/gather/lower.py pushes the table's sizes):
PyTorch's exported beam-search reorder (`cache.index_select(0, beam_idx)`, its batch symbolic)
at five batch sizes compiles one generic kernel, and a beam search's reorder of a growing
device cache compiles a kernel per dimension that varies, not per shape; every result bit for
bit numpy's."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import dmlc

pytestmark = pytest.mark.vulkan
EXPORTED = pathlib.Path(__file__).parents[1] / "data" / "exported"


@pytest.mark.parametrize("exporter", ["ts11", "ts20", "dynamo20"])
def test_exported_beam_reorder_compiles_once_for_every_batch(exporter):
    onnx = pytest.importorskip("onnx")
    import dmlc.onnx
    model = onnx.load(EXPORTED / f"BeamReorder__{exporter}_dyn.onnx")
    program = dmlc.onnx.load_program(model)
    names = [i.name for i in model.graph.input]
    dmlc.clear_cache()
    rng = np.random.default_rng(7)
    for batch in (3, 1, 5, 2, 4):
        cache = rng.standard_normal((batch, 2, 3, 2)).astype(np.float32)
        beam_idx = rng.permutation(batch).astype(np.int64)
        (got,) = program.run(dict(zip(names, (cache, beam_idx)))).values()
        assert np.asarray(got).tobytes() == cache[beam_idx].tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER generic": 1}


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8"])
def test_reordering_a_growing_device_cache_compiles_a_kernel_per_varying_dimension(
        monkeypatch, dtype):
    """Each step reorders a [beams, heads, t, 16] cache by its beams (take on axis 0: the
    table's rows) and grows t by one; from step 6 on the beams shrink as hypotheses finish.
    The first shape is specialized, the growing rows get a generic kernel, and the first
    change of beams widens it once (dynamic.py's auto policy): three compiles over twelve
    shapes, where each shape compiled a kernel of its own before."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    rng = np.random.default_rng(3)
    beams = 5
    cache = rng.integers(-100, 100, (beams, 2, 1, 16)).astype(dtype)
    for step in range(12):
        if step >= 6 and step % 2 == 0:
            beams -= 1
            cache = cache[:beams]
        order = rng.integers(0, beams, beams).astype(np.int64)
        got = dmlc.take(dmlc.to_device(cache), order, axis=0).numpy()
        assert got.tobytes() == cache[order].tobytes()
        row = rng.integers(-100, 100, (beams, 2, 1, 16)).astype(dtype)
        cache = np.concatenate([got, row], axis=2)
    info = dmlc.cache_info()
    assert info["compiles"] == {"DML_GATHER": 1, "DML_GATHER generic": 2}, info["compiles"]
    assert sorted(info["generic"].values()) == [5, 6]

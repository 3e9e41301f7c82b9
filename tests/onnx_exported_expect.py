"""What tests/test_onnx_exported.py expects of the exporter set, beyond "runs bit for bit".

Keys are model names (tests/data/exported/manifest.json: MODULE__EXPORT_BATCH, EXPORT one of
ts20, ts11, dynamo20 and BATCH static or dyn).
"""
from __future__ import annotations

EXPORTS = [f"{e}_{b}" for e in ("ts20", "ts11", "dynamo20") for b in ("static", "dyn")]

OUT_OF_SCOPE: dict[str, tuple[str, str]] = {
    # model: (the op type dmlc must refuse, naming its node; why that is out of scope)
    **{f"RotateHalf__{e}": ("Neg", "negates float data (rotary's rotate_half)") for e in EXPORTS},
    **{f"MaskedSelect__{e}": ("NonZero", "x[mask]: a shape that depends on the values")
       for e in EXPORTS},
    **{f"ScatterAdd__ts11_{b}": ("Add", "opset 11 has no scatter reduction: TorchScript "
                                 "scatters into zeros, then adds float data")
       for b in ("static", "dyn")},
}
"""Models that compute on float data or need NonZero: dmlc moves data, so these must be refused
with a dmlc ValidationError naming the node. Every other model must run."""

KNOWN_FAILING: dict[str, str] = {}
"""TEMPORARY: models dmlc does not run yet (model: the cause), strict xfails. A fix makes its
models XPASS: then remove their entries. Empty when dmlc runs the whole set."""

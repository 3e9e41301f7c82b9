"""ONNX's own node tests (the ones the `onnx` package ships, onnx.backend.test) for the
data-movement operators, run through dmlc.onnx.backend on the device, its outputs compared bit
for bit (tests/onnx_bits.py: not ONNX's allclose). Every test included passes; the ones excluded
are listed below with the reason."""
from __future__ import annotations

import re
import warnings

import pytest

onnx_backend_test = pytest.importorskip("onnx.backend.test")
import dmlc.onnx.backend as dmlc_backend  # noqa: E402  (after the importorskip)
from onnx_bits import BitExactBackendTest  # noqa: E402

OPERATORS = ["concat", "constant_pad", "depthtospace", "edge_pad", "expand", "flatten", "gather",
             "gather_elements", "gathernd", "identity", "onehot", "reflect_pad", "reshape",
             "reversesequence", "scatter_elements", "scatter", "scatternd", "slice",
             "spacetodepth", "split", "tensorscatter",
             "squeeze", "tile", "transpose", "unsqueeze", "wrap_pad"]

EXCLUDED = {
    # Sequences are not tensors: dmlc moves tensors.
    "test_identity_sequence": "a sequence input",
    "test_identity_opt": "an optional input",
    "test_split_to_sequence_1": "SplitToSequence (a sequence output)",
    "test_split_to_sequence_2": "SplitToSequence (a sequence output)",
    "test_split_to_sequence_nokeepdims": "SplitToSequence (a sequence output)",
}

with warnings.catch_warnings():  # building ONNX's cases evaluates numpy edge cases (1/0...)
    warnings.simplefilter("ignore", RuntimeWarning)
    backend_test = BitExactBackendTest(dmlc_backend, __name__)
for name in OPERATORS:
    backend_test.include(rf"^test_{name}_.*_cpu$")
    backend_test.include(rf"^test_{name}_cpu$")
for name in EXCLUDED:
    backend_test.exclude(rf"^{name}_cpu$")

# Only the included tests become pytest items (the harness makes every other node test a skip).
_KEEP = re.compile("|".join([rf"^test_{n}(_.*)?_cpu$" for n in OPERATORS]))
_cases = backend_test.test_cases  # a property: built anew on each access
for _case in _cases.values():
    for _name in [a for a in vars(_case) if a.startswith("test_")]:
        if not _KEEP.match(_name) or _name.removesuffix("_cpu") in EXCLUDED:
            delattr(_case, _name)
globals().update(_cases)
pytestmark = pytest.mark.vulkan

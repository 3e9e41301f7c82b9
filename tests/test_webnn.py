"""WebNN's conformance vectors (tests/data/webnn, from ../shared/conformance/webnn) mapped onto
the DirectML operators.

WebNN tensors have their own ranks; DirectML's share one DimensionCount, so every tensor is
padded with leading 1s to D (for gather, D = max(input rank, indices rank, output rank), and
IndexDimensions = the indices' rank). Expected outputs are compared bit for bit after the
float32/float16 literals are converted to their type, as WebNN's tests do (0 ULP).
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import dmlc
import dmlc.compiled as compiled
from reference import assert_bits_equal

ROOT = os.environ.get("DMLC_CONFORMANCE_DIR") or os.path.join(
    os.path.dirname(__file__), "data", "webnn")
FILES = {"gather": "gather.json", "gatherElements": "gatherElements.json",
         "scatterElements": "scatterElements.json", "slice": "slice.json",
         "gatherND": "gatherND.json"}


def load_cases():
    cases = []
    for op, name in FILES.items():
        path = os.path.join(ROOT, name)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for case in json.load(f)["cases"]:
                cases.append(pytest.param(op, case, id=f"{op}: {case['name']}"))
    return cases


CASES = load_cases()


def test_conformance_vectors_present():
    assert len(CASES) == 46 + 13 + 26 + 20 + 18, f"found {len(CASES)} cases under {ROOT}"


def array(t: dict) -> np.ndarray:
    return np.array(t["data"], dtype=t["dataType"]).reshape(t["shape"])


def pad(a: np.ndarray, d: int) -> np.ndarray:
    return a.reshape((1,) * (d - a.ndim) + a.shape)


def run_case(op: str, case: dict) -> np.ndarray:
    inputs = {t["argument"]: array(t) for t in case["inputs"]}
    options = case.get("options") or {}
    x = inputs["input"]
    if op == "slice":
        attrs = case["attributes"]
        d = max(x.ndim, 1)
        strides = options.get("strides", [1] * x.ndim)
        out = dmlc.slice(pad(x, d), [0] * (d - x.ndim) + attrs["starts"],
                         [1] * (d - x.ndim) + attrs["sizes"], [1] * (d - x.ndim) + strides)
        return out
    axis = options.get("axis", 0)
    i = inputs["indices"]
    if op == "gather":
        d = max(x.ndim, i.ndim, x.ndim + i.ndim - 1, 1)
        return dmlc.gather(pad(x, d), pad(i, d), axis=axis + d - x.ndim, index_dimensions=i.ndim)
    if op == "gatherND":
        return dmlc.gather_nd(x, i)
    if op == "gatherElements":
        return dmlc.gather_elements(x, i, axis=axis)
    return dmlc.scatter(x, i, inputs["updates"], axis=axis)


def check(op: str, case: dict) -> None:
    expected = array(case["expected"])
    out = run_case(op, case)
    assert_bits_equal(out.reshape(expected.shape), expected)


@pytest.mark.parametrize("op,case", CASES)
def test_interpreter(op, case, monkeypatch):
    monkeypatch.setattr(compiled.CompiledKernel, "__call__", compiled.CompiledKernel.reference)
    check(op, case)


@pytest.mark.vulkan
@pytest.mark.parametrize("op,case", CASES)
def test_device(op, case):
    check(op, case)

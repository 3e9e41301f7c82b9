"""Every example of the four DirectML reference pages: the page's documented output, exactly,
from the numpy reference, the IR interpreter and the Vulkan device."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import reference as ref
from reference import assert_bits_equal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from seed_examples import SEED_EXAMPLES, run_example

IDS = [f"{e.page}-{e.title.split('.')[0]}-{i}" for i, e in enumerate(SEED_EXAMPLES)]
REFERENCE = {"gather": ref.gather, "gather_elements": ref.gather_elements,
             "scatter": ref.scatter, "slice": ref.slice1}


@pytest.mark.parametrize("example", SEED_EXAMPLES, ids=IDS)
def test_reference_agrees_with_page(example):
    out = REFERENCE[example.run.__name__](*example.inputs.values(), *example.fields.values())
    assert_bits_equal(np.asarray(out), example.expected)


@pytest.mark.parametrize("example", SEED_EXAMPLES, ids=IDS)
def test_interpreter_agrees_with_page(example, monkeypatch):
    import dmlc.compiled as compiled
    # Route the one-shot call through the IR interpreter instead of the device.
    monkeypatch.setattr(compiled.CompiledKernel, "__call__", compiled.CompiledKernel.reference)
    assert_bits_equal(run_example(example), example.expected)


@pytest.mark.vulkan
@pytest.mark.parametrize("example", SEED_EXAMPLES, ids=IDS)
def test_device_agrees_with_page(example):
    assert_bits_equal(run_example(example), example.expected)

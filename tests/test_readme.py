"""Every code block of the README runs as written: the Python blocks in order in one namespace
(on the device), the `.dml` blocks through the front end (and on the interpreter where they
give data), the shell block's commands are make targets that exist."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import dmlc

README = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, flags=re.S | re.M)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCKS if lang == kind]


def test_the_readme_has_the_blocks_this_test_reads():
    assert len(blocks("python")) >= 2 and len(blocks("")) >= 2 and blocks("sh")


@pytest.mark.vulkan
def test_python_blocks_run_as_written():
    namespace: dict[str, object] = {}
    for body in blocks("python"):
        exec(compile(body, "README.md", "exec"), namespace)  # our own README
    table = namespace["table"]
    expected = np.take(table, [3, 0, 3], axis=0)  # rows 3, 0, -1 (from the end)
    np.testing.assert_array_equal(namespace["y"].numpy(), expected)  # type: ignore[attr-defined]


def test_dml_blocks_parse_and_their_data_checks_out():
    dml = [b for b in blocks("") if "DML_" in b or re.search(r"^\w+: \w+\[", b, re.M)]
    assert dml
    for body in dml:
        module = dmlc.lang.parse_module(body, "README.md")
        for unit in module.units:
            kernel = dmlc.compile(unit.descriptor)
            if unit.expected is not None and all(a in unit.data for a in kernel.program.inputs):
                got = kernel.reference(*[unit.data[a] for a in kernel.program.inputs])
                np.testing.assert_array_equal(got, unit.expected)


def test_shell_blocks_name_make_targets_that_exist():
    makefile = (pathlib.Path(__file__).resolve().parent.parent / "Makefile").read_text()
    for body in blocks("sh"):
        for target in re.findall(r"^make (\S+)", body, flags=re.M):
            assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.M), target

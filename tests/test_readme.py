"""Every code block of the README runs as written: the Python blocks in order in one namespace
(on the device), the `.dml` blocks through the front end (and on the interpreter where they
give data), the shell block's commands are make targets that exist."""
from __future__ import annotations

import pathlib
import re
from collections.abc import Callable

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


def _clamped(i: np.ndarray, n: int) -> np.ndarray:
    """A loaded index: negative counts from the end, then clamped to [0, n)."""
    return np.clip(np.where(i < 0, i + n, i), 0, n - 1)


def _padding(t: dict[str, np.ndarray]) -> np.ndarray:
    p = np.zeros((4, 7), np.float32)
    p[1:3, 2:5] = t["X"]
    return p


ORACLES: dict[str, Callable[[dict[str, np.ndarray]], np.ndarray]] = {
    # Each README unit without data of its own: numpy's answer on random arguments, by name.
    "Y": lambda t: np.take_along_axis(t["X"], _clamped(t["I"], 3), axis=0),
    "Z": lambda t: t["X"][1::2, ::-1][:1],
    "W": lambda t: t["X"][_clamped(t["I"], 3)[np.arange(4) // 2], [[2, 1, 0]]],
    "V": lambda t: np.take_along_axis(t["X"], _clamped(t["I"], 3), axis=0)[::-1],
    "P": _padding,
    "J": lambda t: np.concatenate([t["A"], t["B"]]),
    "E": lambda t: np.eye(4, dtype=np.uint8),
}


def _arguments(kernel: dmlc.CompiledKernel, unit, rng: np.random.Generator) -> list[np.ndarray]:
    """The unit's data, else random arguments (indices of I in range and out of it)."""
    args = []
    for name in kernel.program.inputs:
        if name in unit.data:
            args.append(unit.data[name])
            continue
        buf = next(b for b in kernel.program.buffers if b.name == name)
        dtype = buf.dtype.numpy
        shape = next(t.sizes for n, t in kernel.descriptor.tensors if n == name) \
            if hasattr(kernel.descriptor, "tensors") else (buf.count,)
        if dtype.kind == "f":
            args.append(rng.standard_normal(shape).astype(dtype))
        else:
            args.append(rng.integers(-5, 5, shape).astype(dtype))
    return args


def test_dml_blocks_parse_and_every_unit_checks_out():
    """Every .dml unit of the README compiles and gives, in the interpreter, the data its
    block documents, or else numpy's answer (ORACLES) on random arguments: all of them."""
    dml = [b for b in blocks("") if "DML_" in b or re.search(r"^\w+: \w+\[", b, re.M)]
    assert dml
    checked = []
    rng = np.random.default_rng(5)
    for body in dml:
        module = dmlc.lang.parse_module(body, "README.md")
        for unit in module.units:
            kernel = dmlc.compile(unit.descriptor)
            if unit.expected is not None and all(a in unit.data for a in kernel.program.inputs):
                got = kernel.reference(*[unit.data[a] for a in kernel.program.inputs])
                np.testing.assert_array_equal(got, unit.expected)
                checked.append(unit.name)
                continue
            args = _arguments(kernel, unit, rng)
            named = {unit.arguments[a]: v for a, v in zip(kernel.program.inputs, args)}
            want = ORACLES[unit.name](named)
            got = kernel.reference(*args)
            assert got.shape == want.shape and got.dtype == want.dtype, (unit.name, got, want)
            assert got.tobytes() == want.tobytes(), (unit.name, got, want)
            checked.append(unit.name)
    assert sorted(checked) == sorted(["OutputTensor", *ORACLES]), checked


def test_shell_blocks_name_make_targets_that_exist():
    makefile = (pathlib.Path(__file__).resolve().parent.parent / "Makefile").read_text()
    for body in blocks("sh"):
        for target in re.findall(r"^make (\S+)", body, flags=re.M):
            assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.M), target

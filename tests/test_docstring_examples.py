"""Every public name of dmlc (`dmlc.__all__`) has an Examples section in its docstring, and
every example runs as written: doctest executes each name's `>>>` lines in a namespace of their
own (with `np` and `dmlc`) and compares what they print with the output the docstring shows.
The API reference (docs/reference.md) renders these docstrings, so what it shows is what runs.
Examples that dispatch run on the device (the `vulkan` marker); the few that need none run
everywhere."""
from __future__ import annotations

import ast
import doctest
import inspect
import io
import pathlib

import numpy as np
import pytest

import dmlc

NAMES = [name for name in dmlc.__all__ if name != "__version__"]  # a str: its docstring is str's
DEVICE_FREE = {
    # Their examples open no device: descriptors built, errors raised before any dispatch,
    # the backend chosen by name.
    "TensorDesc", "DataType", "ShaderCompileError", "UsageError", "ParseError", "DeviceError",
    "set_device", "set_backend", "use_backend", "get_backend",
}
PARSER = doctest.DocTestParser()


def docstring(name: str) -> str:
    """The docstring the reference shows: an alias's own (`scatter_elements = scatter` and
    the string below it, which griffe reads), else the object's."""
    obj = getattr(dmlc, name)
    if inspect.ismodule(obj):
        return obj.__doc__ or ""
    if getattr(obj, "__name__", name) != name:
        source = pathlib.Path(inspect.getsourcefile(inspect.unwrap(obj)) or "")
        body = ast.parse(source.read_text()).body
        for node, after in zip(body, body[1:]):
            if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name] \
                    and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                return inspect.cleandoc(after.value.value)
    return inspect.getdoc(obj) or ""


def examples(name: str) -> doctest.DocTest:
    """The docstring's Examples section as a doctest, in a fresh namespace."""
    text = docstring(name)
    section = text.split("\nExamples\n--------\n", 1)[1] if "\nExamples\n--------\n" in text \
        else ""
    return PARSER.get_doctest(section, {"np": np, "dmlc": dmlc}, f"dmlc.{name}", None, 0)


def test_every_public_name_has_examples():
    """The count of names and of the examples the suite runs from their docstrings."""
    missing = [name for name in NAMES if not examples(name).examples]
    counts = {name: len(examples(name).examples) for name in NAMES}
    shown = sum(1 for name in NAMES for e in examples(name).examples if e.want)
    print(f"\n{len(NAMES)} public names, {sum(1 for c in counts.values() if c)} with examples: "
          f"{sum(counts.values())} docstring examples executed ({shown} with their output "
          f"checked), {sum(counts[n] for n in DEVICE_FREE)} of them without a device")
    assert not missing, f"public names without an Examples section: {missing}"
    assert len(NAMES) >= 68 and DEVICE_FREE <= set(NAMES)


def _run(name: str) -> None:
    test = examples(name)
    report = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=report.write, clear_globs=True)
    assert result.attempted == len(test.examples) > 0
    assert result.failed == 0, report.getvalue()


@pytest.mark.parametrize("name", sorted(DEVICE_FREE))
def test_examples_without_a_device(name: str):
    _run(name)


@pytest.mark.vulkan
@pytest.mark.parametrize("name", [n for n in NAMES if n not in DEVICE_FREE])
def test_examples_on_the_device(name: str):
    _run(name)

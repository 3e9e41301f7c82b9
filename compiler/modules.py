"""Compiling and running a parsed `.dml` module: the step after the front end.

`dmlc.lang` parses a file into units (descriptor, data, expected values, source locations) and
stops there; this module compiles each unit's descriptor with dmlc.compile and runs the kernels
on the caller's inputs or the file's data. Validation errors point at the file's line.

    module = dmlc.lang.load("examples/image_crop.dml")
    outputs = dmlc.run_module(module)               # {output name: numpy array}
    kernels = dmlc.compile_module(module)           # {output name: CompiledKernel}
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .call import CompiledKernel
from .compiled import cached_compile
from .compiled import compile as compile_descriptor
from .errors import ValidationError
from .lang import Module, Unit


def _compile(module: Module, u: Unit, dump_after: set[str] | None = None,
             check_indices: bool = False, target: str | None = None) -> CompiledKernel:
    check = check_indices and u.descriptor.has_indices
    try:
        if dump_after:  # the IR after some passes is printed by a fresh build only
            return compile_descriptor(u.descriptor, dump_after=dump_after,
                                      check_indices=check, target=target)
        return cached_compile(u.descriptor, check, target)
    except ValidationError as e:
        raise module.located(e, u) from None


def compile_module(module: Module, dump_after: set[str] | None = None,
                   target: str | None = None) -> dict[str, CompiledKernel]:
    """Every unit compiled, by output name (memoized per descriptor unless dump_after asks for
    the IR after some passes); target: dmlc.compile's."""
    return {u.name: _compile(module, u, dump_after, target=target) for u in module.units}


def run_module(module: Module, inputs: Mapping[str, np.ndarray] | None = None,
               check_indices: bool = False) -> dict[str, np.ndarray]:
    """Run every unit on the Vulkan device (a unit of several outputs, DML_SPLIT's, gives
    each its own name: OutputTensors[0], ...). `inputs` (by the file's tensor names, or the
    operators' argument names input/indices/updates) adds to or replaces the file's data.
    check_indices: operators with an IndicesTensor raise IndexOutOfRangeError for an index
    outside its axis instead of clamping or dropping it."""
    if inputs is not None and not isinstance(inputs, Mapping):
        raise ValidationError("dmlc.run_module", "inputs", "a mapping of tensor names to arrays",
                              type(inputs).__name__)
    inputs = dict(inputs or {})
    known = {n for u in module.units for n in (*u.arguments, *u.arguments.values())}
    for name in inputs:
        if name not in known:
            raise ValidationError(module.kind, "input name", "one of " + ", ".join(
                sorted(known)), repr(name))
    results: dict[str, np.ndarray] = {}
    for u in module.units:
        kernel = _compile(module, u, check_indices=check_indices)
        arrays = []
        for arg in kernel.program.inputs:
            label = u.arguments[arg]
            # the caller's, the file's, or an earlier statement's result (an intermediate that
            # could not be fused: lang/expressions.py)
            value = inputs.get(label, inputs.get(arg, u.data.get(arg, results.get(label))))
            if value is None:
                raise ValidationError(u.name, label, "data in the file or --input "
                                      f"{label}=FILE.npy", "none")
            arrays.append(value)
        value = kernel(*arrays)
        if isinstance(value, tuple):  # DML_SPLIT's outputs: OutputTensors[0], [1], ...
            results.update({f"{u.name}[{k}]": part for k, part in enumerate(value)})
        else:
            results[u.name] = value
    return results


def unit_results(u: Unit, results: Mapping[str, np.ndarray]) -> list[
        tuple[str, np.ndarray, np.ndarray | None]]:
    """(name, value, expected values or None) of each output of a unit that run_module ran."""
    if u.name in results:
        assert not isinstance(u.expected, tuple), "one output, one expected value"
        return [(u.name, results[u.name], u.expected)]
    names = [n for n in results if n.startswith(f"{u.name}[")]
    expected = u.expected if isinstance(u.expected, tuple) else (None,) * len(names)
    return [(n, results[n], e) for n, e in zip(names, expected)]

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
from .lang.symbols import is_symbolic, spell
from .oneshot.symbolic import SymbolicKernel, call_tensors, has_symbols

Kernel = CompiledKernel | SymbolicKernel


def _compile(module: Module, u: Unit, dump_after: set[str] | None = None,
             check_indices: bool = False, target: str | None = None) -> Kernel:
    check = check_indices and u.descriptor.has_indices
    try:
        if has_symbols(u.descriptor):  # Sizes:{B, 4}: generic kernels, bound per call
            options = {"check_indices": check, "target": target, "dump_after": dump_after}
            return SymbolicKernel(u.descriptor, {k: v for k, v in options.items() if v},
                                  _probe(u))
        if dump_after:  # the IR after some passes is printed by a fresh build only
            return compile_descriptor(u.descriptor, dump_after=dump_after,
                                      check_indices=check, target=target)
        return cached_compile(u.descriptor, check, target)
    except ValidationError as e:
        raise module.located(e, u) from None


def _probe(u: Unit) -> dict[str, tuple[int, ...]]:
    """Each input tensor's sizes at the file's data (the names it binds), else 1 for each
    symbolic size: what a symbolic unit is validated, and `dmlc compile` lowers it, at."""
    out = {}
    for dml, arg, t in call_tensors(u.descriptor):
        data = u.data.get(arg)
        out[dml] = tuple(data.shape) if data is not None else tuple(
            s if isinstance(s, int) else u.bound.get(s, 1) if isinstance(s, str) else 1
            for s in t.sizes)
    return out


def compile_module(module: Module, dump_after: set[str] | None = None,
                   target: str | None = None) -> dict[str, Kernel]:
    """Every unit compiled, by output name (memoized per descriptor unless dump_after asks for
    the IR after some passes); target: dmlc.compile's. A unit of symbolic sizes (Sizes:{B, 4})
    gives a SymbolicKernel (one generic kernel for every size); tensor expressions of symbolic
    sizes have no generic kernel: compile them at sizes (`module.at(shapes)`).

    Parameters
    ----------
    module : dmlc.lang.Module
        A parsed .dml file.
    dump_after : set of str, optional
        Passes to print the IR after.
    target : str, optional
        "cpu" or "gpu", as dmlc.compile takes it.

    Returns
    -------
    dict of str to kernel
        A compiled kernel per output name.

    Raises
    ------
    ValidationError
        A unit that breaks its operator's rules.

    Examples
    --------
    >>> module = dmlc.lang.parse_module("X: float32[4]\\nY[i] = X[3 - i]")
    >>> kernels = dmlc.compile_module(module)
    >>> print(kernels["Y"](np.array([1., 2., 3., 4.], np.float32)))
    [4. 3. 2. 1.]
    """
    if module.symbolic is not None:
        d = next(d for d in module.symbolic.inputs() if is_symbolic(d.sizes))
        raise ValidationError("expression", f"{d.name} sizes", "integers: tensor expressions "
                              "have no generic kernel (dmlc run compiles them at the sizes "
                              "their data binds, once per size; dmlc compile --dim NAME=SIZE "
                              "binds them)", spell(d.sizes))
    return {u.name: _compile(module, u, dump_after, target=target) for u in module.units}


def generic_kernels(module: Module, dump_after: set[str] | None = None,
                    target: str | None = None) -> dict[str, CompiledKernel]:
    """compile_module, each SymbolicKernel as its generic kernel (lowered at the sizes _probe
    gives; its sizes are push constants): what `dmlc compile` prints. A unit whose operator has
    no generic kernel for its tensors is refused."""
    out = {}
    for name, k in compile_module(module, dump_after, target).items():
        if isinstance(k, SymbolicKernel):
            u = next(u for u in module.units if u.name == name)
            try:
                k = k.at(_probe(u))
            except ValidationError as e:
                raise module.located(e, u) from None
            if not k.compiled.params:
                dml, _, t = next(c for c in call_tensors(u.descriptor) if is_symbolic(c[2].sizes))
                op = u.descriptor.operator
                raise module.located(ValidationError(
                    op, f"{dml}.Sizes", f"integers: {op} has no generic kernel for these "
                    "tensors (dmlc run compiles it at the sizes its data binds, once per size; "
                    "dmlc compile --dim NAME=SIZE binds them)",
                    spell(t.sizes)), u)
        out[name] = k
    return out


def run_module(module: Module, inputs: Mapping[str, np.ndarray] | None = None,
               check_indices: bool = False) -> dict[str, np.ndarray]:
    """Run every unit on the Vulkan device (a unit of several outputs, DML_SPLIT's, gives
    each its own name: OutputTensors[0], ...). `inputs` (by the file's tensor names, or the
    operators' argument names input/indices/updates) adds to or replaces the file's data.
    check_indices: operators with an IndicesTensor raise IndexOutOfRangeError for an index
    outside its axis instead of clamping or dropping it.

    Parameters
    ----------
    module : dmlc.lang.Module
        A parsed .dml file.
    inputs : mapping of str to ndarray, optional
        Tensors by name, adding to or replacing the file's data.
    check_indices : bool, default False
        Raise for an index out of range.

    Returns
    -------
    dict of str to ndarray
        Every output, by name.

    Raises
    ------
    ValidationError
        A unit that breaks its operator's rules, or data missing.
    IndexOutOfRangeError
        An index out of range, with check_indices=True.

    Examples
    --------
    >>> module = dmlc.lang.parse_module("X: float32[4] = [1, 2, 3, 4]\\nY[i] = X[3 - i]")
    >>> print(dmlc.run_module(module)["Y"])
    [4. 3. 2. 1.]
    >>> print(dmlc.run_module(module, {"X": np.array([5., 6., 7., 8.], np.float32)})["Y"])
    [8. 7. 6. 5.]
    """
    if inputs is not None and not isinstance(inputs, Mapping):
        raise ValidationError("dmlc.run_module", "inputs", "a mapping of tensor names to arrays",
                              type(inputs).__name__)
    inputs = dict(inputs or {})
    module = module.at({n: np.shape(v) for n, v in inputs.items()})
    known = {n for u in module.units for n in (*u.arguments, *u.arguments.values())}
    for name in inputs:
        if name not in known:
            raise ValidationError(module.kind, "input name", "one of " + ", ".join(
                sorted(known)), repr(name))
    results: dict[str, np.ndarray] = {}
    for u in module.units:
        kernel = _compile(module, u, check_indices=check_indices)
        arrays = []
        for arg in (kernel.program.inputs if isinstance(kernel, CompiledKernel) else
                    [a for _, a, _ in call_tensors(u.descriptor)]):
            label = u.arguments[arg]
            # the caller's, the file's, or an earlier statement's result (an intermediate that
            # could not be fused: lang/expressions.py)
            value = inputs.get(label, inputs.get(arg, u.data.get(arg, results.get(label))))
            if value is None:
                raise ValidationError(u.name, label, "data in the file or --input "
                                      f"{label}=FILE.npy", "none")
            arrays.append(value)
        try:
            value = kernel(*arrays)
        except ValidationError as e:
            if isinstance(kernel, CompiledKernel):
                raise
            raise module.located(e, u) from None  # a symbolic size the arrays bind twice
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

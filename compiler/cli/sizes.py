"""Symbolic sizes of a .dml file under `dmlc compile`: bound on the command line, or taken by
a generic kernel as push constants, never fixed at 1 in silence (a scatter with Sizes:{N, 8}
compiled --in-place had been a manifest of one row; a gather's symbolic table length, a kernel
of a one-row table).

- `--dim NAME=N` binds a name wherever the file writes it, `--shape TENSOR=D0,D1,...` a whole
  tensor (for `?`; TENSOR as the file names it: InputTensor, X): the file is then compiled
  for those sizes, as if it had written them; every symbolic size must be bound (by these or
  the file's data), and what was bound is said on stderr.
- Without them a symbolic unit prints its generic kernel, whose sizes are push constants; a
  size the generic kernel fixes all the same (it is part of the kernel, not pushed) is refused
  unless the file's data binds it, which is then said on stderr. A manifest and the in-place
  form are compiled for one shape: they need the sizes bound.
"""
from __future__ import annotations

import dataclasses
import sys
from typing import Any

from ..compiled import KERNELS
from ..errors import UsageError, ValidationError
from ..lang import Module, Unit
from ..lang.symbols import is_symbolic, spell
from ..oneshot.symbolic import SymbolicKernel, call_tensors, has_symbols, substitute

Position = tuple[str, int]
"""(DML field, dimension) of a symbolic size."""

PROBE_STEP = 16
"""How far a second probe moves a symbolic size: a multiple of every vector width and block
size, so that it keeps the generic variant the first probe chose."""


def symbolic_sizes(u: Unit) -> dict[str, list[Position]]:
    """Each symbolic size of a DirectML unit's inputs: a name with the positions it appears at,
    or a `?` ("TENSOR.Sizes[k] (?)") with its one position."""
    out: dict[str, list[Position]] = {}
    for dml, _, t in call_tensors(u.descriptor):
        for k, s in enumerate(t.sizes):
            if isinstance(s, str):
                out.setdefault(s, []).append((dml, k))
            elif s is None:
                out[f"{dml}.Sizes[{k}] (?)"] = [(dml, k)]
    return out


def _hint(names: list[str], known: dict[str, int] | None = None) -> str:
    """The options that bind these sizes (a size the file's data gives, as its value)."""
    named = [n for n in names if "(?)" not in n]
    unnamed = [n.split(".")[0] for n in names if "(?)" in n]
    return " and ".join(
        ([" ".join(f"--dim {n}={(known or {}).get(n, 'SIZE')}" for n in named)]
         if named else [])
        + ([" ".join(f"--shape {t}=D0,D1,..." for t in dict.fromkeys(unnamed))]
           if unnamed else []))


def refuse_unbound(module: Module, what: str) -> None:
    """`what` (a manifest, the in-place form) is compiled for one shape: a unit with symbolic
    sizes the command line left unbound is refused, naming them and how to bind them (the
    file's data sizes, where it gives them)."""
    if module.symbolic is not None:
        names = [spell(d.sizes) + f" of {d.name}" for d in module.symbolic.inputs()
                 if is_symbolic(d.sizes)]
        raise UsageError(f"{what} is compiled for one shape, and this file's tensors have "
                         f"symbolic sizes ({', '.join(names)}): bind them with --dim NAME=SIZE "
                         "(or --shape X=D0,D1,...)")
    for u in module.units:
        if has_symbols(u.descriptor):
            names = list(symbolic_sizes(u))
            raise UsageError(f"{what} is compiled for one shape, and {u.name} has symbolic "
                             f"sizes ({', '.join(names)}): bind them with "
                             f"{_hint(names, u.bound)}")


def bind(module: Module, dims: dict[str, int], shapes: dict[str, tuple[int, ...]]) -> Module:
    """The module with the sizes --dim and --shape give written in (a name wherever it
    appears, a tensor's every size); the sizes they leave stay symbolic (a generic kernel's
    push constants, check_generic). What was bound is said on stderr. Tensor expressions have
    no generic kernel: every symbolic size must be bound (or by the file's data)."""
    if module.symbolic is not None:
        return _bind_expressions(module, dims, shapes)
    _known("--dim", dims, {n for u in module.units for n in symbolic_sizes(u) if "(?)" not in n})
    _known("--shape", shapes, {label for u in module.units
                               for dml, arg, _ in call_tensors(u.descriptor)
                               for label in (dml, u.arguments.get(arg, dml))})
    units = []
    for u in module.units:
        if not has_symbols(u.descriptor):
            units.append(u)
            continue
        by_field, told = {}, [f"{n} = {v} (--dim)" for n, v in dims.items()
                              if n in symbolic_sizes(u)]
        for dml, arg, t in call_tensors(u.descriptor):
            given = shapes.get(dml, shapes.get(u.arguments.get(arg, dml)))
            if given is None:
                continue
            if len(given) != len(t.sizes):
                raise UsageError(f"--shape {dml}: expected {len(t.sizes)} sizes (Sizes "
                                 f"{spell(t.sizes)}), got {len(given)}")
            by_field[dml] = given
            told.append(f"{dml} = {spell(given)} (--shape)")
        try:
            desc = substitute(u.descriptor, dims, by_field)
        except ValidationError as e:
            raise module.located(e, u) from None
        left = list(symbolic_sizes(dataclasses.replace(u, descriptor=desc)))
        print(f"dmlc: {u.name}: {', '.join(told) or 'nothing bound'}" + (
            f"; still symbolic: {', '.join(left)}" if left else ""), file=sys.stderr)
        units.append(dataclasses.replace(u, descriptor=desc))
    return dataclasses.replace(module, units=units)


def _known(option: str, given: dict[str, Any], known: set[str]) -> None:
    for name in given:
        if name not in known:
            raise UsageError(f"{option} {name}: the file has no such "
                             f"{'symbolic size' if option == '--dim' else 'tensor'}; it has "
                             + (", ".join(sorted(known)) or "none"))


def _bind_expressions(module: Module, dims: dict[str, int],
                      shapes: dict[str, tuple[int, ...]]) -> Module:
    """Tensor expressions of symbolic sizes elaborated at the bound sizes."""
    assert module.symbolic is not None
    inputs = [d for d in module.symbolic.inputs() if is_symbolic(d.sizes)]
    _known("--dim", dims, {s for d in inputs for s in d.sizes if isinstance(s, str)})
    _known("--shape", shapes, {d.name for d in module.symbolic.decls})
    bound: dict[str, tuple[int, ...]] = {}
    for d in inputs:
        if d.name in shapes:
            bound[d.name] = shapes[d.name]
        elif all(isinstance(s, int) or (isinstance(s, str) and s in dims) for s in d.sizes):
            bound[d.name] = tuple(s if isinstance(s, int) else dims[str(s)] for s in d.sizes)
        elif d.data is None:
            names = [s if isinstance(s, str) else f"{d.name}.Sizes[{k}] (?)"
                     for k, s in enumerate(d.sizes) if not isinstance(s, int) and s not in dims]
            raise UsageError(f"{d.name}: symbolic sizes {', '.join(names)} are not bound "
                             f"({_hint(names).replace('TENSOR', d.name)})")
    told = ", ".join(f"{n}{spell(s)}" for n, s in bound.items())
    print(f"dmlc: expressions compiled for {told or 'the sizes of the file data'}",
          file=sys.stderr)
    return module.at(bound)


def check_generic(module: Module, target: str | None) -> None:
    """Each symbolic unit's generic kernel (lowered at the sizes modules._probe gives): a
    symbolic size it does not take as a push constant (it compiles another kernel when only
    that size moves) is refused where nothing binds it, and said on stderr where the file's
    data does."""
    from ..modules import _probe
    for u in module.units:
        if not has_symbols(u.descriptor):
            continue
        base = _probe(u)
        symbolic = SymbolicKernel(u.descriptor, {"target": target} if target else {}, base)
        KERNELS.clear()  # each kernel as a new process compiles it: no size varied before
        base_ir = symbolic.at(base).ir
        fixed, told = [], []
        for name, where in symbolic_sizes(u).items():
            moved = {dml: list(s) for dml, s in base.items()}
            for dml, k in where:
                moved[dml][k] += PROBE_STEP
            KERNELS.clear()
            try:
                other = symbolic.at({dml: tuple(s) for dml, s in moved.items()})
                same = other.ir == base_ir
            except ValidationError:
                same = False
            if same:
                continue
            dml, k = where[0]
            if u.data.get(_argument(u, dml)) is not None or name in u.bound:
                told.append(f"{name} = {base[dml][k]}")
            else:
                fixed.append(name)
        op = u.descriptor.operator
        if fixed:
            raise UsageError(f"{u.name}: {op}'s generic kernel takes symbolic sizes as push "
                             f"constants, but not {', '.join(fixed)}: it would be compiled for "
                             f"1; bind {'them' if len(fixed) > 1 else 'it'} ({_hint(fixed)})")
        if told:
            print(f"dmlc: {u.name}: {op}'s generic kernel fixes {', '.join(told)}, the "
                  "file's data (the other symbolic sizes are push constants)", file=sys.stderr)


def _argument(u: Unit, dml: str) -> str:
    return next(arg for d, arg, _ in call_tensors(u.descriptor) if d == dml)

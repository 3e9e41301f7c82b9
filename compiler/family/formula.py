"""A generic kernel's push words as formulas of a call's tensors (docs/shaders-out.md).

Each PARAM of a generic program comes with its recipe, a Python function of the call's
validated descriptor (family/generic.py). `trace` runs a recipe once on a symbolic stand-in of
the descriptor, whose tensors' sizes, strides, offsets and buffer lengths are variables, and
returns what it computed as a formula: the same arithmetic, as data. A formula is an int, or a
tuple `(op, *args)`:

- variables: `("size", T, i)`, `("stride", T, i)` (in elements), `("offset", T)` (elements
  before the tensor's first, in its buffer), `("elements", T)` (the elements its bound buffer
  holds), where T names a descriptor's tensor field: "input", or "inputs[1]" for an item of a
  tuple field ("tensors[1]": the tensor of an expression's second (name, tensor) pair);
  `("field", F)` and `("field", F, i)`: an integer field of the descriptor, or
  item i of a tuple of them (a slice's window offsets);
- arithmetic on int64: `("add", a, b)`, `("sub", a, b)`, `("mul", a, b)`, `("neg", a)`,
  `("floordiv", a, b)` and `("mod", a, b)` (Python's: rounding toward minus infinity, the
  remainder taking the divisor's sign);
- a divisor's magic words (passes/divisors.py): `("magic", d)` and `("shift", d)`, the m and
  s of ir/kernel.py's division_magic(d).

Formulas are hashable and compare by structure (a kernel's push words as data, where its
recipes are closures), `evaluate` computes one for a call, and `render` prints it in Python's
syntax. A branch on a call's value (a comparison, a truth test, a size used as an index) goes
the way the traced call goes and is recorded as a guard, `(op, a, b)`: the kernel serves a call
only where every guard holds (Halide's specialize(cond), as data). Converting a value to int,
or reading anything of a tensor but its sizes, strides, offset, buffer length and element
count, cannot be traced: TraceError.
"""
from __future__ import annotations

import dataclasses
import math
import operator
import types
from collections.abc import Callable
from typing import Any

from ..ir.kernel import division_magic
from .tensor import TensorDesc

Formula = int | tuple
Guard = tuple[str, Formula, Formula]
"""(op, a, b): the comparison a op b (op: eq, ne, lt, le, gt, ge) that held in the call traced
and that every call of the kernel must meet."""
_NOT = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}
VARIABLES = ("size", "stride", "offset", "elements", "field")
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_BINARY = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}
_MAGIC = ("magic", "shift")
"""A divisor's magic words, in division_magic's order."""
_APPLY: dict[str, Callable[[int, int], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "floordiv": operator.floordiv, "mod": operator.mod, "eq": operator.eq, "ne": operator.ne,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}
"""Each binary op and comparison on Python ints (// and % floor)."""


class TraceError(Exception):
    """A recipe that is not a formula of the call's tensors."""


def trace(recipe: Callable[[Any], Any], desc: Any) -> tuple[Formula, tuple[Guard, ...]]:
    """What `recipe` computes from a call of `desc`'s kind, as a formula of its tensors, and
    the guards its branches took for `desc` (each holds for desc)."""
    guards: list[Guard] = []
    value = recipe(Symbolic(desc, guards))
    if isinstance(value, Traced):
        return value.f, tuple(dict.fromkeys(guards))
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value), tuple(dict.fromkeys(guards))
    raise TraceError(f"a recipe returned {type(value).__name__}, not a number")


def holds(guard: Guard, desc: Any) -> bool:
    """Whether a call of `desc` meets `guard`."""
    op, a, b = guard
    return bool(_APPLY[op](evaluate(a, desc), evaluate(b, desc)))


def evaluate(f: Formula, desc: Any) -> int:
    """The value of formula `f` for a call of `desc`."""
    if isinstance(f, int):
        return f
    op = f[0]
    if op == "field":
        value = getattr(desc, f[1])
        return value if len(f) == 2 else value[f[2]]
    if op in VARIABLES:
        t = tensor(desc, f[1])
        return (t.sizes[f[2]] if op == "size" else t.element_strides[f[2]] if op == "stride"
                else t.offset if op == "offset" else t.buffer_elements)
    if op == "neg":
        return -evaluate(f[1], desc)
    if op in _MAGIC:
        return division_magic(evaluate(f[1], desc))[_MAGIC.index(op)]
    return int(_APPLY[op](evaluate(f[1], desc), evaluate(f[2], desc)))


def tensor(desc: Any, name: str) -> TensorDesc:
    """The tensor a formula's variable names: field `name`, or item k of field F as "F[k]"."""
    field, _, item = name.partition("[")
    t = getattr(desc, field)
    return paired(t[int(item[:-1])]) if item else t


def paired(item: Any) -> Any:
    """An item of a tuple field: a tensor's (name, tensor) pair (an expression's) as its
    tensor, anything else as it is."""
    return item[1] if isinstance(item, tuple) and len(item) == 2 else item


def render(f: Formula) -> str:
    """f in Python's syntax (// floors), over names such as input.sizes[0]."""
    if isinstance(f, int):
        return str(f)
    op = f[0]
    if op in ("size", "stride"):
        return f"{f[1]}.{op}s[{f[2]}]"
    if op in ("offset", "elements"):
        return f"{f[1]}.{'offset' if op == 'offset' else 'buffer_elements'}"
    if op == "field":
        return f[1] if len(f) == 2 else f"{f[1]}[{f[2]}]"
    if op == "neg":
        return f"-{_operand(f[1])}"
    if op in _MAGIC:
        return f"{op}({render(f[1])})"
    return f"{_operand(f[1])} {_BINARY[op]} {_operand(f[2])}"


def render_guard(guard: Guard) -> str:
    """A guard in Python's syntax (input.offset % 4 == 0)."""
    op, a, b = guard
    return f"{render(a)} {_COMPARE[op]} {render(b)}"


def variables(f: Formula) -> set[tuple]:
    """The variables `f` reads."""
    if isinstance(f, int):
        return set()
    if f[0] in VARIABLES:
        return {f}
    return set().union(*(variables(a) for a in f[1:3]))


def _operand(f: Formula) -> str:
    compound = isinstance(f, tuple) and f[0] not in VARIABLES
    return f"({render(f)})" if compound or (isinstance(f, int) and f < 0) else render(f)


def _fold(op: str, a: Formula, b: Formula) -> Formula:
    if isinstance(a, int) and isinstance(b, int):
        return evaluate((op, a, b), None)
    if op == "add" and (a == 0 or b == 0):
        return b if a == 0 else a
    if op == "sub" and b == 0:
        return a
    if op == "mul" and (a == 1 or b == 1):
        return b if a == 1 else a
    if op == "mul" and (a == 0 or b == 0):
        return 0
    if op == "floordiv" and b == 1:
        return a
    return (op, a, b)


def _formula(x: Any) -> Formula:
    if isinstance(x, Traced):
        return x.f
    if isinstance(x, int) and not isinstance(x, bool):
        return int(x)
    raise TraceError(f"arithmetic with a {type(x).__name__}")


class Traced:
    """A value a recipe computes from the call's tensors: its formula, and its value in the
    call traced. Arithmetic builds the formula; a comparison (a branch) or a conversion to an
    index answers as the traced call does and records that answer as a guard of the trace."""

    __slots__ = ("f", "v", "guards")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, f: Formula, v: int, guards: list[Guard]) -> None:
        self.f, self.v, self.guards = f, v, guards

    def _bin(self, op: str, other: Any, swap: bool = False) -> Traced:
        o, ov = _formula(other), other.v if isinstance(other, Traced) else other
        a, b = (o, self.f) if swap else (self.f, o)
        va, vb = (ov, self.v) if swap else (self.v, ov)
        return Traced(_fold(op, a, b), evaluate((op, va, vb), None), self.guards)

    def __add__(self, o: Any) -> Traced: return self._bin("add", o)
    def __radd__(self, o: Any) -> Traced: return self._bin("add", o, True)
    def __sub__(self, o: Any) -> Traced: return self._bin("sub", o)
    def __rsub__(self, o: Any) -> Traced: return self._bin("sub", o, True)
    def __mul__(self, o: Any) -> Traced: return self._bin("mul", o)
    def __rmul__(self, o: Any) -> Traced: return self._bin("mul", o, True)
    def __floordiv__(self, o: Any) -> Traced: return self._bin("floordiv", o)
    def __rfloordiv__(self, o: Any) -> Traced: return self._bin("floordiv", o, True)
    def __mod__(self, o: Any) -> Traced: return self._bin("mod", o)
    def __rmod__(self, o: Any) -> Traced: return self._bin("mod", o, True)

    def __neg__(self) -> Traced:
        f = self.f
        return Traced(f[1] if isinstance(f, tuple) and f[0] == "neg" else
                      -f if isinstance(f, int) else ("neg", f), -self.v, self.guards)

    def __pos__(self) -> Traced:
        return self

    def _compare(self, op: str, other: Any) -> bool:
        result = _APPLY[op](self.v, other.v if isinstance(other, Traced) else other)
        self.guards.append((op if result else _NOT[op], self.f, _formula(other)))
        return bool(result)

    def __eq__(self, o: Any) -> bool: return self._compare("eq", o)
    def __ne__(self, o: Any) -> bool: return self._compare("ne", o)
    def __lt__(self, o: Any) -> bool: return self._compare("lt", o)
    def __le__(self, o: Any) -> bool: return self._compare("le", o)
    def __gt__(self, o: Any) -> bool: return self._compare("gt", o)
    def __ge__(self, o: Any) -> bool: return self._compare("ge", o)

    def __index__(self) -> int:
        """As an index (a slice's bound): the traced call's value, which the kernel then
        assumes (a guard)."""
        self._compare("eq", self.v)
        return self.v

    def __int__(self) -> int:
        raise TraceError(f"a recipe converts {render(self.f)} to int: push words must be "
                         "arithmetic of the call's tensors")

    def __bool__(self) -> bool:
        return self._compare("ne", 0)


class SymbolicTensor:
    """A tensor of the call: its sizes, strides, offset and buffer length variables; its type
    and layout kind (packed or strided) those of the descriptor traced."""

    def __init__(self, name: str, t: TensorDesc, guards: list[Guard]) -> None:
        self._name = name
        self.data_type, self.total_bytes = t.data_type, t.total_bytes
        self.rank = t.rank
        self.sizes = tuple(Traced(("size", name, i), n, guards) for i, n in enumerate(t.sizes))
        self.element_strides = tuple(Traced(("stride", name, i), st, guards)
                                     for i, st in enumerate(t.element_strides))
        self.strides = None if t.strides is None else self.element_strides
        self.offset = Traced(("offset", name), t.offset, guards)
        self.buffer_elements = Traced(("elements", name), t.buffer_elements, guards)

    @property
    def element_count(self) -> Any:
        return math.prod(self.sizes)

    def __getattr__(self, name: str) -> Any:
        raise TraceError(f"a recipe reads {self._name}.{name}, not a formula of the call")


class Symbolic:
    """A validated descriptor as a recipe sees it when traced: its tensors SymbolicTensors,
    its other fields as they are, its properties and methods run on this stand-in."""

    def __init__(self, desc: Any, guards: list[Guard]) -> None:
        self._desc, self._guards = desc, guards

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(stand-in, ScatterNDDesc), as for the call
        return type(self._desc)

    def __getattr__(self, name: str) -> Any:
        member = getattr(type(self._desc), name, None)
        if isinstance(member, property) and member.fget is not None:
            return member.fget(self)
        if isinstance(member, types.FunctionType):
            return types.MethodType(member, self)
        value = getattr(self._desc, name)
        if isinstance(value, TensorDesc):
            return SymbolicTensor(name, value, self._guards)
        if isinstance(value, tuple) and any(isinstance(paired(t), TensorDesc) for t in value):
            return tuple(_symbolic(f"{name}[{k}]", t, self._guards) for k, t in enumerate(value))
        if _is_int(value):
            return Traced(("field", name), value, self._guards)
        if isinstance(value, tuple) and value and all(_is_int(x) for x in value):
            return tuple(Traced(("field", name, k), x, self._guards) for k, x in enumerate(value))
        return value


def _symbolic(name: str, item: Any, guards: list[Guard]) -> Any:
    """An item of a tuple field as a recipe sees it: a tensor (alone, or in a (name, tensor)
    pair) symbolic, anything else as it is."""
    if isinstance(item, TensorDesc):
        return SymbolicTensor(name, item, guards)
    if isinstance(paired(item), TensorDesc):
        return (item[0], SymbolicTensor(name, item[1], guards))
    return item


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def int_fields(desc: Any) -> list[tuple[str, Any]]:
    """The descriptor's integer fields and tuples of integers (the formulas' fields)."""
    return [(f.name, v) for f in dataclasses.fields(desc) if _is_int(v := getattr(desc, f.name))
            or (isinstance(v, tuple) and v and all(_is_int(x) for x in v))]


def tensor_fields(desc: Any) -> list[tuple[str, TensorDesc]]:
    """Every tensor of a descriptor by the name formulas give it (input, inputs[1]; an
    expression's tensors[0], the tensor of its first (name, tensor) pair)."""
    found = []
    for f in dataclasses.fields(desc):
        value = getattr(desc, f.name)
        if isinstance(value, TensorDesc):
            found.append((f.name, value))
        elif isinstance(value, tuple):
            found += [(f"{f.name}[{k}]", paired(t)) for k, t in enumerate(value)
                      if isinstance(paired(t), TensorDesc)]
    return found

"""The operator families and what the compile driver asks of them.

An operator family is one folder of `dmlc.ops` (a vertical slice): its descriptors, their
validation, their lowering and its one-shot functions side by side. The folder's
`__init__.py` builds its `Family`, which registers the rules of each descriptor class it
defines; the driver then validates and lowers any descriptor through `validate()` and
`lower()` here, by its class, without knowing the families. `dmlc/__init__.py` imports every
family (one line each), so every descriptor that exists has its rules registered.

Every lowering has one signature, `lower(desc, ctx)`: what a few families need beyond the
descriptor (the target's kind, the scatters' in-place form) travels in the `LowerContext`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..errors import ValidationError
from ..ir import Program
from ..plan import DEFAULT, PlanLimits
from .computed import check_computed, computed_fields
from .tensor import TensorDesc
from .validated import memoized


class OperatorDesc(Protocol):
    """What every descriptor class says of itself (frozen dataclasses: ops/*/desc.py). Those
    with indices (has_indices) also have index_bounds() -> IndexBounds: what checked mode
    checks; one with several outputs in one buffer has output_regions() (DML_SPLIT); one
    whose inputs are not its fields has argument(name) (ExpressionDesc)."""

    operator: str
    """Its DirectML name (DML_GATHER, ...)."""
    has_indices: ClassVar[bool]
    """It has an IndicesTensor (checked mode applies)."""
    dml_fields: ClassVar[dict[str, str | None]]
    """DirectML field name -> keyword argument; None for a field only checked (DimensionCount)."""

    @property
    def output(self) -> TensorDesc | None: ...


@dataclass(frozen=True)
class LowerContext:
    """What a lowering may need beyond its descriptor."""

    target: str = "gpu"
    """"cpu" or "gpu" (compiler/target.py): the scatters lower differently for each."""
    in_place: bool = False
    """The scatter that updates its data tensor, given as the output (ops/scatter)."""
    limits: PlanLimits = DEFAULT
    """The device limits to plan within (dmlc.plan): a join's width (ops/join)."""


PLAIN = LowerContext()


@dataclass(frozen=True)
class Rules:
    """How the driver treats one descriptor class."""

    validate: Callable[[Any], Any]
    """desc -> the same descriptor, checked completely, its OutputTensor filled in."""
    lower: Callable[[Any, LowerContext], Program]
    """A validated descriptor -> naive IR."""
    directml: bool = True
    """It mirrors a DML_*_OPERATOR_DESC (the .dml front end reads it by its fields)."""
    in_place: bool = False
    """out= its data tensor updates it in place (only the updates are written)."""
    generic: Any = None
    """family/generic.py's GenericRules: how to lower it with sizes taken at dispatch (None:
    always specialized)."""
    copy_of: Callable[[Any], tuple[TensorDesc, TensorDesc] | None] | None = None
    """A validated descriptor -> (a view of its one input, its packed output) where the output
    is a copy of that view, else None: the runtime may then copy runs of bytes instead of
    running the kernels (family/runs.py)."""


@dataclass(frozen=True)
class Family:
    """One operator family (a folder of dmlc.ops): its descriptor classes' rules, and the
    names it adds to the `dmlc` namespace. Registered when made."""

    name: str
    rules: Mapping[type, Rules]
    exports: tuple[str, ...] = field(default=())

    registered: ClassVar[dict[str, Family]] = {}

    def __post_init__(self) -> None:
        for cls in self.rules:
            owner = next((f for f in Family.registered.values() if cls in f.rules), None)
            if owner is not None and owner.name != self.name:
                raise ValueError(f"{cls.__name__} belongs to family {owner.name!r} already")
        Family.registered[self.name] = self
        _RULES.clear()


_RULES: dict[type, tuple[Family, Rules]] = {}
"""rules_of's answers by class (a call asks several times), each with its family: an answer
holds while that family is registered (a test may take one out of Family.registered)."""


def families() -> Iterator[Family]:
    return iter(tuple(Family.registered.values()))


def rules_of(desc: object) -> Rules:
    """The rules of `desc`'s class; a ValidationError for anything else."""
    known = _RULES.get(type(desc))
    if known is not None and Family.registered.get(known[0].name) is known[0]:
        return known[1]
    for family in families():
        found = family.rules.get(type(desc))
        if found is not None:
            _RULES[type(desc)] = (family, found)
            return found
    raise ValidationError("dmlc.compile", "descriptor", "one of dmlc's descriptors ("
                          + ", ".join(cls.__name__ for cls in descriptor_classes()) + ")",
                          type(desc).__name__)


def descriptor_classes(directml_only: bool = False) -> tuple[type, ...]:
    """Every registered descriptor class (directml_only: those mirroring a DirectML struct)."""
    return tuple(cls for f in families() for cls, r in f.rules.items()
                 if r.directml or not directml_only)


def validate(desc: Any) -> Any:
    """Check `desc` against every rule of its DirectML page (and docs/decisions.md); return
    it with OutputTensor inferred. Operands computed from others (family/computed.py) are
    checked too, and must reach the validated descriptor as they are. A descriptor exactly like
    one validated before gets what that one got (family/validated.py)."""
    return memoized(_validate, desc)


def _validate(desc: Any) -> Any:
    computed = computed_fields(desc)
    for keyword, t in computed:
        check_computed(desc.operator, dml_field(desc, keyword), t)
    checked = rules_of(desc).validate(desc)
    if computed and computed_fields(checked) != computed:
        raise ValidationError(desc.operator, dml_field(desc, computed[0][0]), "a tensor read "
                              "as it is given (an operand computed by index arithmetic)",
                              "one the operator rewrites")
    return checked


def lower(desc: Any, ctx: LowerContext = PLAIN) -> Program:
    """Lower a descriptor that `validate()` returned (its OutputTensor filled in) to naive IR
    (the IR builders are pure: the pipeline's rule passes do the simplifying)."""
    rules = rules_of(desc)
    if ctx.in_place and not rules.in_place:
        raise ValidationError(desc.operator, "in_place", "False (only the scatters update "
                              "their input in place)", True)
    return rules.lower(desc, ctx)


def updates_in_place(desc: object) -> bool:
    """Whether out= the data tensor of `desc` updates it in place."""
    return rules_of(desc).in_place


def output_regions(desc: Any) -> tuple[tuple[int, TensorDesc], ...] | None:
    """Where a descriptor with several outputs in one buffer puts each (start element, tensor):
    its output_regions() (DML_SPLIT); None for one output."""
    regions = getattr(desc, "output_regions", None)
    return None if regions is None else tuple(regions())


def dml_field(desc: Any, keyword: str) -> str:
    """How DirectML calls the field a keyword names (input -> InputTensor)."""
    for name, kw in type(desc).dml_fields.items():
        if kw == keyword:
            return name
    return keyword

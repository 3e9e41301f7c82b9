"""When to compile a generic kernel (sizes as push constants) instead of a specialized one: the
policy of README "Generic kernels".

`dynamic` (dmlc.compile's argument, else $DMLC_DYNAMIC, else "auto"):
- "never" / False: every shape is compiled specialized (its sizes baked in: the fastest kernel);
- "auto" / None: the first shape of an operator signature (everything but the sizes: operator,
  types, rank, layout, options; a layout as GenericRules.layouts gives it, so that a size-1
  dimension's stride and a packed tensor's implicit strides do not make another signature) is
  specialized; when that signature comes back with other sizes,
  one generic kernel is compiled where exactly those dimensions are dynamic, and it serves every
  later size it admits (another dimension varying later widens it once more);
- "always" / True: every dimension the family allows is dynamic from the first call (the test
  suite runs this way with `make test-generic`);
- a tuple of positions: those dimensions dynamic (positions in the family's GenericRules.sizes).
Families without a generic lowering, checked mode, the in-place scatter, and a call whose sizes
fall outside the generic kernel's ranges are always compiled specialized.
"""
from __future__ import annotations

import os
from typing import Any

from .errors import ValidationError
from .family.generic import GenericRules

MODES = ("auto", "always", "never")


def resolve_mode(dynamic: object) -> str | tuple[int, ...]:
    """dmlc.compile's `dynamic` as a mode or a tuple of positions, checked."""
    if dynamic is None:
        env = os.environ.get("DMLC_DYNAMIC", "auto").strip().lower() or "auto"
        if env not in MODES:
            raise ValidationError("dmlc.compile", "DMLC_DYNAMIC", " | ".join(MODES), env)
        return env
    if dynamic is True or dynamic is False:
        return "always" if dynamic else "never"
    if isinstance(dynamic, str) and dynamic in MODES:
        return dynamic
    if isinstance(dynamic, (tuple, list)) and all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dynamic):
        return tuple(sorted(set(dynamic)))
    raise ValidationError("dmlc.compile", "dynamic", "None, True, False, 'auto', 'always', "
                          "'never' or a tuple of dimension positions", repr(dynamic))


class ShapePolicy:
    """Per operator signature: the first sizes seen and the dynamic dimensions chosen since
    (the caller holds a lock)."""

    def __init__(self) -> None:
        self.seen: dict[Any, tuple[tuple[int, ...], tuple[int, ...] | None]] = {}

    def dims(self, rules: GenericRules | None, checked: Any, options: Any,
             mode: str | tuple[int, ...], eligible: bool) -> tuple[int, ...] | None:
        """The dimensions to make dynamic for this call, or None: specialized."""
        if rules is None or not eligible or mode == "never":
            return None
        free = set(rules.free(checked))
        if isinstance(mode, tuple):
            return mode if set(mode) <= free and mode else None
        if mode == "always":
            return tuple(sorted(free)) or None
        sizes = rules.sizes(checked)
        every = tuple(range(len(sizes)))
        signatures = [(rules.key(d, every), options) for d in rules.forms(checked, every)]
        signature = next((s for s in signatures if s in self.seen), signatures[0])
        first, chosen = self.seen.setdefault(signature, (sizes, None))
        differ = {i for i, (a, c) in enumerate(zip(sizes, first)) if a != c}
        if not differ and chosen is None:
            return None
        wanted = differ | set(chosen or ())
        if not wanted <= free:
            return chosen if chosen is not None and differ <= set(chosen) else None
        dims = tuple(sorted(wanted))
        self.seen[signature] = (first, dims)
        return dims

    def clear(self) -> None:
        self.seen.clear()


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

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Any

from .errors import ValidationError
from .family.generic import GenericRules, has_wild

MODES = ("auto", "always", "never")


_HINT: contextvars.ContextVar[str | None] = contextvars.ContextVar("dmlc_dynamic_hint",
                                                                  default=None)


@contextlib.contextmanager
def sizes_vary(mode: str = "always") -> Iterator[None]:
    """Within it, compiles that leave `dynamic` to the default (the one-shot functions, a
    .dml module) use `mode`, whatever $DMLC_DYNAMIC says but "never": what a front end that
    knows better asks. An ONNX model with symbolic dimensions asks "always" (one compile per
    kernel for every batch size, not a specialized one first); `dmlc compile` asks "never" (a
    manifest's runner passes no push constants)."""
    token = _HINT.set("never" if _HINT.get() == "never" else mode)  # an enclosing never wins
    try:
        yield
    finally:
        _HINT.reset(token)


def resolve_mode(dynamic: object) -> str | tuple[int, ...]:
    """dmlc.compile's `dynamic` as a mode or a tuple of positions, checked."""
    if dynamic is None:
        env = os.environ.get("DMLC_DYNAMIC", "auto").strip().lower() or "auto"
        if env not in MODES:
            raise ValidationError("dmlc.compile", "DMLC_DYNAMIC", " | ".join(MODES), env)
        hint = _HINT.get()
        return env if hint is None or env == "never" else hint
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
        signature = next((s for s in signatures if s in self.seen), None) or next(
            (k for s in signatures if has_wild(s) for k in self.seen if k == s), signatures[0])
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


"""When to compile a generic kernel (sizes as push constants) instead of a specialized one: the
policy of docs/generic-kernels.md.

`dynamic` (dmlc.compile's argument, else $DMLC_DYNAMIC, else "auto"):
- "never" / False: every shape is compiled specialized (its sizes baked in: the fastest kernel);
- "auto" / None: the first shape of an operator signature (everything but the sizes: operator,
  types, rank, layout, options; a layout as GenericRules.layouts gives it, so that a size-1
  dimension's stride and a packed tensor's implicit strides do not make another signature) is
  specialized; when that signature comes back with other sizes,
  one generic kernel is compiled where exactly those dimensions are dynamic, and it serves every
  later size it admits (another dimension varying later widens it once more); a signature back
  with the same sizes at other element offsets (a moving window: an offset is not part of the
  signature where a generic kernel pushes it, family/generic.py: pushes_offset) gets a generic
  kernel with those dimensions, none at first: its sizes static, its offsets pushed;
- "always" / True: every dimension the family allows is dynamic from the first call (the test
  suite runs this way with `make test-generic`), but those it keeps static until they vary
  (GenericRules.always: a gather's row width, which its vector kernels need static); where
  the sizes do not fit the ranges that leaves each dimension (a [1, 64, 256, 256] pad: the
  int32 addresses' range is shared), its dimensions of size 1 stay static;
- a tuple of positions: those dimensions dynamic (positions in the family's GenericRules.sizes).
Families without a generic lowering, checked mode where the family has no checked generic
form (GenericRules.checked), the in-place form where it has none (GenericRules.in_place and
checked_in_place: the scatters have both), and a call whose sizes fall
outside the generic kernel's ranges are always compiled specialized.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .artifact import CompiledProgram
from .call import CompiledKernel
from .codegen.chunks import chunk_words
from .dtypes import padded_words
from .environment import env_value
from .errors import ValidationError
from .family.generic import GenericProgram, GenericRules, has_wild
from .family.tensor import derived
from .ir import Program
from .ir.interp import param_value
from .ir.ops import IRError
from .ir.verify import verify_program

MODES = ("auto", "always", "never")
LOWERED = 256
"""Programs lowered but not compiled that GenericKernels keeps at most (all dropped when full)."""
GENERIC = 256
"""Generic kernels GenericKernels keeps at most, the least recently used dropped first (a
kernel bound to a call's sizes keeps its own; a dropped one is compiled again when asked)."""


_HINT: contextvars.ContextVar[str | None] = contextvars.ContextVar("dmlc_dynamic_hint",
                                                                  default=None)


@contextlib.contextmanager
def sizes_vary(mode: str = "always") -> Iterator[None]:
    """Within it, compiles that leave `dynamic` to the default (the one-shot functions, a
    .dml module) use `mode`, whatever $DMLC_DYNAMIC says but "never": what a front end that
    knows better asks. An ONNX model with symbolic dimensions asks "always" (one compile per
    kernel for every batch size, not a specialized one first); `dmlc compile` asks "never" (a
    file's integer sizes are specialized; its symbolic ones give generic kernels anyway)."""
    token = _HINT.set("never" if _HINT.get() == "never" else mode)  # an enclosing never wins
    try:
        yield
    finally:
        _HINT.reset(token)


def resolve_mode(dynamic: object) -> str | tuple[int, ...]:
    """dmlc.compile's `dynamic` as a mode or a tuple of positions, checked."""
    if dynamic is None:
        env = env_value("DMLC_DYNAMIC", "auto").strip().lower() or "auto"
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
        self.seen: dict[Any, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None]] = {}
        """signature -> (the first sizes, the first offsets, the dynamic dimensions chosen)."""
        self.wild: list[tuple[Any, Any]] = []
        """(a WILD form, the signature it was seen as) for each signature first seen with a
        size 1 at some dimension: a later call of that signature with another size there (a
        view gives that dimension its real stride then, not explicit()'s guess) finds it by a
        scan (cache[:, :, :1], then cache[:, :, :2]: one signature)."""

    def dims(self, rules: GenericRules | None, checked: Any, options: Any,
             mode: str | tuple[int, ...], eligible: bool) -> tuple[int, ...] | None:
        """The dimensions to make dynamic for this call, or None: specialized."""
        if rules is None or not eligible or mode == "never":
            return None
        free = set(rules.free(checked))
        if isinstance(mode, tuple):
            return mode if set(mode) <= free and mode else None
        forced = set() if mode != "always" else (
            free if rules.always is None else set(rules.always(checked)))
        if mode == "always" and forced == free:  # every free position forced: no tracking
            return tuple(sorted(free)) or None
        sizes = rules.sizes(checked)
        every = tuple(range(len(sizes)))
        signatures = [(rules.key(d, every), options) for d in rules.forms(checked, every)]
        signature = next((s for s in signatures if s in self.seen), None) or next(
            (k for s in signatures if has_wild(s) for k in self.seen if k == s), None) or next(
            (k for w, k in self.wild for s in signatures if w == s), signatures[0])
        if signature not in self.seen:
            self.wild += [(s, signature) for s in signatures[1:] if has_wild(s)]
        offsets = rules.moved(checked)
        first, first_offsets, chosen = self.seen.setdefault(signature, (sizes, offsets, None))
        differ = {i for i, (a, c) in enumerate(zip(sizes, first)) if a != c}
        if not differ and chosen is None and offsets == first_offsets and not forced:
            return None  # the first shape at its first offsets: specialized
        wanted = forced | differ | set(chosen or ())
        if not wanted <= free:
            if chosen is not None and differ <= set(chosen):
                return chosen
            return tuple(sorted(forced)) or None
        dims = tuple(sorted(wanted))  # () where only an offset moved: sizes static, offsets
        self.seen[signature] = (first, first_offsets, dims)  # pushed (pushes_offset)
        return dims

    def clear(self) -> None:
        self.seen.clear()
        self.wild.clear()



class Compiled:
    """A generic kernel compiled: its program, its artifact (bound to the call that compiled
    it), how many sizes it served, and the executable its last call made (a call at another
    size derives its own from it: the same kernels, their bindings shared)."""

    __slots__ = ("generic", "artifact", "served", "executable")

    def __init__(self, generic: GenericProgram, artifact: CompiledProgram) -> None:
        self.generic, self.artifact, self.served = generic, artifact, 0
        self.executable: list[Any] = []
        """The last executable, or none yet (the one list every bound kernel shares)."""


_Found = tuple[tuple, Compiled, tuple[int, ...]]
"""(the kernel's key, the kernel, this call's push words)."""


class GenericKernels:
    """The generic kernels compiled so far, by (family key, options, dims, variant): the
    program, its artifact (bound to the call that compiled it) and how many sizes it served."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock  # the kernel cache's
        self._store: dict[tuple, Compiled] = {}
        self._lowered: dict[tuple, GenericProgram | None] = {}
        """Programs lowered but not compiled, by key as _store's: None where the descriptor
        has none for that key, else one that did not admit the call that lowered it (its
        sizes outside its ranges). Lowering depends on the key alone, so a later call checks
        its sizes against them without lowering again (dynamic=True on a [1, 16, 256, 256] pad
        tries every dimension dynamic first at each new size: ~6 ms a time)."""
        self._again: dict[tuple, tuple] = {}
        """In auto mode, the kernel that served a call: (the family key of its descriptor as
        it came, options, dims) -> its key in _store (again())."""
        self._again_dims: dict[tuple, tuple[int, ...]] = {}
        """(descriptor type, options, number of sizes) -> the dims of the last one remembered."""

    def again(self, rules: GenericRules, checked: Any, options: Any,
              replan: Callable[[Any], CompiledProgram],
              in_place: Callable[[], CompiledKernel] | None = None) -> CompiledKernel | None:
        """In auto mode, the generic kernel that served a call of the same family key (the
        same descriptor but for the sizes at its dims, as it came: no canonical layouts, no
        variants, no shape policy) bound to this call, or None. Sound because only a kernel
        found by the remembered call's first form is remembered (the call itself, or its
        canonical layout: the same strides but at dimensions of size 1), and only where that
        call's sizes at its dims are not 1: the strides the kernel bakes are then the call's
        own wherever a size may vary, and a later call of the same key has those strides
        there (a stride at a size of 1 is any value, and its keys would differ)."""
        dims = self._again_dims.get((type(checked), options, len(rules.sizes(checked))))
        if dims is None:
            return None
        gkey = self._again.get((rules.key(checked, dims), options, dims))
        entry = None if gkey is None else self._store.get(gkey)
        if gkey is None or entry is None:
            return None
        values = entry.generic.values(checked)
        return None if values is None else self._bound(gkey, entry, values, checked, options,
                                                        replan, in_place)

    def _remember(self, rules: GenericRules, checked: Any, options: Any, dims: tuple[int, ...],
                  gkey: tuple) -> None:
        if len(self._again) >= GENERIC:
            self._again.clear()
            self._again_dims.clear()
        self._again_dims[(type(checked), options, len(rules.sizes(checked)))] = dims
        self._again[(rules.key(checked, dims), options, dims)] = gkey

    def kernel(self, rules: GenericRules | None, checked: Any, options: Any,
               dims: tuple[int, ...], mode: str | tuple[int, ...],
               compile_artifact: Callable[[GenericProgram], CompiledProgram],
               replan: Callable[[Any], CompiledProgram],
               in_place: Callable[[], CompiledKernel] | None = None) -> CompiledKernel | None:
        """The generic kernel for these dims bound to this call (compiled on first use by
        `compile_artifact`), or None where the family has none for this descriptor or it does
        not admit its sizes. `replan`: this call specialized for a device whose limits the
        kernel's plan does not fit (a tensor of runtime size over its binding limit);
        `in_place`: a scatter's kernel for out= its data tensor (CompiledKernel's)."""
        assert rules is not None
        forms = rules.forms(checked, dims)  # equivalent layouts, the first lowered on a miss
        variants = rules.choices(checked, dims)  # best first, the last the most general
        if mode == "auto":
            # any kernel already compiled, else the most general, which serves every later size
            # (a decode loop's window compiles one generic kernel, not one per variant); where
            # it cannot be built (a join of more than GROUP 8/16-bit inputs has no scalar
            # kernel), the next most general
            found = self._lookup(rules, checked, forms, options, dims, variants)
            for variant in reversed(variants):
                if found is not None:
                    break
                found = self._build(rules, checked, forms[0], options, dims, variant,
                                    compile_artifact)
        else:
            # forced: the best variant this call admits; one that cannot be built at these
            # sizes (its int32 ranges too small) or does not admit them gives way to the next
            found = None
            for variant in variants:
                found = self._lookup(rules, checked, forms, options, dims, (variant,)) or \
                    self._build(rules, checked, forms[0], options, dims, variant,
                                compile_artifact)
                if found is not None:
                    break
        if found is None and mode == "always":
            # no kernel with every dimension dynamic admits these sizes (each dimension's range
            # is what the int32 addresses leave it, shared among them): those of size 1 static
            # (nothing varies there now) before a specialized compile
            sizes = rules.sizes(checked)
            fewer = tuple(d for d in dims if sizes[d] != 1)
            if fewer and fewer != dims:
                return self.kernel(rules, checked, options, fewer, mode, compile_artifact,
                                   replan, in_place)
        if found is None:
            return None
        gkey, entry, values = found
        kernel = self._bound(gkey, entry, values, checked, options, replan, in_place)
        if kernel is not None and mode == "auto" and gkey[0] == rules.key(forms[0], dims) \
                and all(rules.sizes(checked)[i] != 1 for i in dims):
            self._remember(rules, checked, options, dims, gkey)
        return kernel

    def _bound(self, gkey: tuple, entry: Compiled, values: tuple[int, ...], checked: Any,
               options: Any, replan: Callable[[Any], CompiledProgram],
               in_place: Callable[[], CompiledKernel] | None) -> CompiledKernel | None:
        """The kernel of entry bound to this call's push words, or None where its plan breaks
        the limits (a join of more inputs than a shader binds, or a tensor over one binding:
        specialized then, narrower joins, chunks)."""
        bound = derived(entry.artifact, descriptor=checked, params=values)
        if not bound.plan.within(options.limits):
            return None
        with self._lock:
            entry.served += 1
            self._store.pop(gkey, None)  # the most recently used last
            self._store[gkey] = entry
            while len(self._store) > GENERIC:
                del self._store[next(iter(self._store))]
        return CompiledKernel(bound, in_place=in_place, replan=replan,
                              last=entry.executable)

    def _lookup(self, rules: GenericRules, checked: Any, forms: tuple[Any, ...], options: Any,
                dims: tuple[int, ...], variants: tuple[str, ...]) -> _Found | None:
        """A kernel already compiled for one of `forms` as one of `variants` that admits this
        call's sizes, or None."""
        keys = [rules.key(d, dims) for d in forms]  # each once, whatever the variants
        gkeys = [(k, options, dims, v) for v in variants for k in keys]
        with self._lock:
            gkey, entry = next(((k, self._store[k]) for k in gkeys if k in self._store),
                               (None, None))
            if entry is None:  # a size-1 dynamic dimension: any stride there serves
                gkey, entry = next(((k, e) for w in gkeys if has_wild(w)
                                    for k, e in self._store.items() if k == w), (None, None))
        if entry is None or gkey is None:
            return None
        values = entry.generic.values(checked)
        return None if values is None else (gkey, entry, values)

    def _build(self, rules: GenericRules, checked: Any, form: Any, options: Any,
               dims: tuple[int, ...], variant: str,
               compile_artifact: Callable[[GenericProgram], CompiledProgram]) -> _Found | None:
        """`variant` lowered from `form` and compiled, or None where it cannot serve this call
        (nothing is compiled then: nor where that kernel exists, not admitting this call, nor
        where its program needs more push words than a shader has, MAX_PARAMS: a join of many
        inputs, a PARAM or two each)."""
        key = (rules.key(form, dims), options, dims, variant)
        with self._lock:
            if key in self._store:
                return None
            known = key in self._lowered
            generic = self._lowered.get(key)
        if not known:
            generic = self._lower(rules, form, options, dims, variant)
        values = None if generic is None else generic.values(checked)
        if generic is None or values is None or not extents_fit(generic.program, values,
                                                                 options):
            with self._lock:
                if len(self._lowered) >= LOWERED:
                    self._lowered.clear()
                self._lowered[key] = generic
            return None
        with self._lock:
            self._lowered.pop(key, None)
        return key, Compiled(generic, compile_artifact(generic)), values

    @staticmethod
    def _lower(rules: GenericRules, form: Any, options: Any, dims: tuple[int, ...],
               variant: str) -> GenericProgram | None:
        """The generic program of `variant` (or of checked mode's, or the in-place form), or
        None where there is none or it does not verify (ir/verify.py: more push words than a
        shader has, MAX_PARAMS; a range the lowering left beyond int32, an expression's
        `i * 65552` over a size pushed up to its family's limit): the call is then compiled
        specialized. The one verification of a generic program (compiled.py's
        _generic_artifact compiles what this returns)."""
        if options.check_indices and options.in_place and rules.checked_in_place:
            generic, variant = rules.checked_in_place(form, dims), "checked in place"
        elif options.check_indices and rules.checked:
            generic, variant = rules.checked(form, dims), "checked"
        elif options.in_place and rules.in_place:
            generic, variant = rules.in_place(form, dims), "in place"
        else:
            generic = rules.build(form, dims, variant)
        if generic is None:
            return None
        try:
            verify_program(generic.program)
        except IRError:
            return None
        return dataclasses.replace(generic, variant=variant, dims=dims)

    def info(self) -> dict[str, int]:
        """Each generic kernel ("DML_GATHER dims (1,) #0") and the sizes it served."""
        with self._lock:
            return {f"{key[0]} dims {dims}{' ' + v if v else ''} #{i}": entry.served
                    for i, ((key, _, dims, v), entry) in enumerate(self._store.items())}

    def clear(self) -> None:
        self._store.clear()  # the caller holds the lock
        self._lowered.clear()
        self._again.clear()
        self._again_dims.clear()


def extents_fit(program: Program, values: tuple[int, ...], options: Any) -> bool:
    """Whether every buffer of runtime extent fits one binding at these sizes: those are never
    chunked (a generic kernel's chunks would be fixed for its largest size), so a call whose
    tensors need chunks is compiled specialized."""
    bound = options.limits.maxStorageBufferRange
    return all(chunk_words(padded_words(param_value(b.extent, values), b.dtype.itemsize),
                           options.guard_words, bound) == 0
               for b in program.buffers if b.extent is not None)

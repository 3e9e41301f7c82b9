"""dmlc.compile(): descriptor -> validated -> IR -> GLSL -> SPIR-V, memoized in memory.

The compile path only: a device-free CompiledProgram (artifact.py) wrapped in the CompiledKernel
that runs it (call.py); no Vulkan is touched, nor the runtime imported, until a kernel is called.
The target ("cpu" or "gpu") is resolved here, at the API edge, passed down as a value."""
from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import toolchain
from .artifact import CompiledProgram, Stage, stages_of
from .call import CompiledKernel, TracedCall, traced, tracing
from .codegen import glsl
from .dynamic import GenericKernels, ShapePolicy, resolve_mode
from .environment import env_value
from .errors import ValidationError
from .family.computed import computed_fields, substitute_computed
from .family.generic import GenericProgram, GenericRules
from .family.index_check import add_index_check, writes_only_if_valid
from .family.registry import LowerContext, OperatorDesc, lower, rules_of, updates_in_place, validate
from .family.tensor import hash_once
from .family.validated import clear as clear_validated
from .ir import Program
from .ir.gc_pause import gc_paused
from .ir.kernel import clear_memo as clear_order_memo
from .ir.rewrite import clear_memo as clear_rewrite_memo
from .ir.verify import clear_memo as clear_verify_memo
from .ir.verify import verify_program
from .passes import clear_memos as clear_pass_memos
from .passes import run_pipeline
from .passes.pipeline import env_names, run_generic_pipeline
from .plan import DEFAULT, PlanLimits
from .target import known_backend, resolve_with_limits, wants_spirv

__all__ = ["CompiledKernel", "CompiledProgram", "Stage", "TracedCall", "build_program",
           "cached_compile", "clear_caches", "compile", "compile_program", "tracing"]


@hash_once
@dataclass(frozen=True)
class CompileOptions:
    """Everything besides the descriptor that decides a compiled result, resolved once per
    compile (the target asked of $DMLC_TARGET or the device, the passes disabled read from
    $DMLC_DISABLE_PASSES): with the validated descriptor, the in-memory cache's key."""

    check_indices: bool = False
    """Add checked mode's kernels (family/index_check.py)."""
    guard_words: int = 0
    """Tests only: shaders for buffers between guard regions of this many words."""
    target: str = "gpu"
    """"cpu" or "gpu": what the kernels are tuned for (compiler/target.py)."""
    in_place: bool = False
    """The scatter that updates its data tensor (ops/scatter/lower.py)."""
    disabled: str = ""
    """DMLC_DISABLE_PASSES as it was (part of the key: the passes decide the result)."""
    limits: PlanLimits = DEFAULT
    """The device limits the program is planned within (compiler/target.py, dmlc.plan)."""

    @staticmethod
    def resolve(check_indices: object = False, guard_words: object = 0,
                target: str | None = None, in_place: bool = False,
                limits: PlanLimits | str | None = None) -> CompileOptions:
        """The options of one compile, checked, their defaults read from the environment."""
        if not isinstance(check_indices, (bool, np.bool_)):
            raise ValidationError("dmlc.compile", "check_indices", "True or False",
                                  repr(check_indices))
        if not isinstance(guard_words, int) or guard_words < 0 or guard_words % 4:
            raise ValidationError("dmlc.compile", "guard_words", "a multiple of 4, >= 0",
                                  repr(guard_words))
        resolved, planned = resolve_with_limits(target, limits)
        key = (bool(check_indices), guard_words, resolved, in_place,
               env_value("DMLC_DISABLE_PASSES"), planned)
        found = _OPTIONS.get((key, planned.source))  # (not compared: named in messages)
        if found is None:
            if len(_OPTIONS) >= 64:
                _OPTIONS.clear()
            found = _OPTIONS[(key, planned.source)] = CompileOptions(*key)
        return found


_OPTIONS: dict[tuple[object, ...], CompileOptions] = {}
"""The options resolved so far, by their values: a call gets the same object each time, whose
hash (hash_once) the caches it keys are then spared."""


def build_program(desc: OperatorDesc, dump_after: set[str] | None = None,
                  check_indices: bool = False, target: str | None = None,
                  in_place: bool = False,
                  limits: PlanLimits | str | None = None) -> tuple[OperatorDesc, Program]:
    """Validate, lower and optimize a descriptor; the IR is verified after every step.
    dump_after: pass names after which to print the IR (default: $DMLC_DUMP_AFTER).
    check_indices: add the kernels of checked mode (family/index_check.py).
    target: "cpu" or "gpu" (default: compiler/target.py's choice).
    in_place: the scatter that updates its data tensor (ops/scatter/lower.py).
    limits: the device limits to plan within (compiler/target.py's choice by default)."""
    options = CompileOptions.resolve(check_indices, 0, target, in_place, limits)
    checked = validate(desc)
    with gc_paused():
        return checked, _optimized(checked, options, dump_after)


def _optimized(checked: OperatorDesc, options: CompileOptions,
               dump_after: set[str] | None) -> Program:
    """The IR of a validated descriptor, lowered and through the pipeline."""
    if options.check_indices and not checked.has_indices:
        raise ValidationError(checked.operator, "check_indices", "False (the operator has "
                              "no IndicesTensor)", True)
    if options.in_place and not updates_in_place(checked):
        raise ValidationError(checked.operator, "in_place", "False (only the scatters update "
                              "its input in place)", True)
    program = lower(checked, LowerContext(options.target, options.in_place, options.limits))
    if options.check_indices:
        program = add_index_check(program, checked)
        if options.in_place:
            program = writes_only_if_valid(program)
    program = substitute_computed(program, checked)  # index arithmetic, fused (a no-op without)
    return run_pipeline(verify_program(program), dump_after=dump_after)


def compile_program(desc: OperatorDesc, *, dump_after: set[str] | None = None,
                    check_indices: bool = False, guard_words: int = 0,
                    target: str | None = None, spirv_cache: bool = True,
                    in_place: bool = False,
                    limits: PlanLimits | str | None = None) -> CompiledProgram:
    """What compile() builds on a miss, without its in-memory cache: the device-free artifact.
    spirv_cache=False also skips the SPIR-V cache on disk (the bench's cold compile)."""
    options = CompileOptions.resolve(check_indices, guard_words, target, in_place, limits)
    return _artifact(validate(desc), options, dump_after, spirv_cache)


def _artifact(checked: OperatorDesc, options: CompileOptions,
              dump_after: set[str] | None = None, spirv_cache: bool = True) -> CompiledProgram:
    """The device-free artifact of a validated descriptor: IR, GLSL, SPIR-V, launch plan."""
    if known_backend() != "webgpu":
        toolchain.warm_up()  # glslang builds its tables on another thread while we lower
    with gc_paused():
        program = _optimized(checked, options, dump_after)
    compiled = _compiled(checked, program, options, spirv_cache)
    compiled.plan.check(checked.operator, options.limits)  # the plan it keeps, built once
    return compiled


def _generic_artifact(generic: GenericProgram, checked: OperatorDesc,
                      options: CompileOptions) -> CompiledProgram:
    """A generic program compiled (docs/generic-kernels.md; its pipeline:
    run_generic_pipeline), the artifact bound to the call of `checked`
    (CompiledProgram.params); the program verified when it was lowered (dynamic.py)."""
    if known_backend() != "webgpu":
        toolchain.warm_up()
    program = run_generic_pipeline(generic.program)
    return _compiled(checked, program, options, generic=generic)


def _compiled(checked: OperatorDesc, program: Program, options: CompileOptions, spirv_cache:
              bool = True, generic: GenericProgram | None = None) -> CompiledProgram:
    """The artifact of `checked`'s call: its shaders (generic: a generic kernel's lowering)."""
    params = () if generic is None else generic.values(checked)
    assert params is not None, "the policy checks admissibility first"
    with gc_paused():
        sources = [glsl.render_glsl(k, program, options.guard_words,
                                    options.limits.maxStorageBufferRange)
                   for k in program.kernels]
    stages = stages_of(program, sources, options.guard_words,
                       options.limits.maxStorageBufferRange, wants_spirv(), spirv_cache,
                       known_backend() == "webgpu")
    return CompiledProgram(checked, program, stages, options.check_indices,
                           options.guard_words, options.target, options.in_place,
                           options.limits, params=params, generic=generic)


def compile(desc: OperatorDesc, *,
            dump_after: set[str] | None = None, check_indices: bool = False,
            guard_words: int = 0, target: str | None = None,
            limits: PlanLimits | str | None = None,
            dynamic: object = None) -> CompiledKernel:
    """Validate, lower, generate and compile `desc` into a callable kernel. With
    check_indices=True the kernel raises IndexOutOfRangeError for an index outside its axis
    (found on the device) instead of clamping or dropping it. target: "cpu" or "gpu", what the
    kernels are tuned for (default: $DMLC_TARGET, else the selected device's kind). limits:
    the device limits to plan within, a dmlc.PlanLimits or "minimum" (Vulkan's: runs on any
    device) or "default" (lavapipe's); by default the selected device's when no target is
    named (nor $DMLC_TARGET), else "default" (compiler/target.py).
    A descriptor compiled before in this process comes from memory (dump_after, which asks for
    the IR to be printed, always builds afresh); each call returns a new kernel, bound to the
    device on its own first call. Validation runs on every call, once: the memory is keyed by
    the validated descriptor, so a value that merely compares equal to a valid one (axis=0.0,
    index_dimensions=True) is refused however often a valid one was compiled.
    dynamic: which sizes the kernel takes at dispatch (dmlc/dynamic.py): None (the default:
    $DMLC_DYNAMIC, else "auto": a signature seen again with other sizes gets one generic
    kernel), True / "always", False / "never", or a tuple of dimension positions."""
    options = CompileOptions.resolve(check_indices, guard_words, target, limits=limits)
    mode = resolve_mode(dynamic)
    checked = validate(desc)
    dumping = bool(dump_after if dump_after is not None else env_names("DMLC_DUMP_AFTER"))
    if dumping:
        return CompiledKernel(_artifact(checked, options, dump_after))
    return CompiledKernel(KERNELS.get(checked, options, mode).compiled,
                          in_place=_in_place_of(checked, options, mode),
                          replan=_replan_of(checked, options))


def cached_compile(desc: OperatorDesc, check_indices: bool = False,
                   target: str | None = None,
                   limits: PlanLimits | str | None = None,
                   in_place: bool = False) -> CompiledKernel:
    """compile(), but the same kernel for the same descriptor: the one-shot functions share it,
    so a repeated call reuses its device buffers and pipelines. in_place: a scatter's kernel
    that updates its data tensor (CompiledKernel.run_in_place), the one its copying kernel
    calls for out= that tensor, compiled without the copying one."""
    options = CompileOptions.resolve(check_indices, 0, target, in_place=in_place, limits=limits)
    mode = resolve_mode(None)
    return traced(KERNELS.get(validate(desc), options, mode))


class KernelCache:
    """The in-memory compile cache: compile() of a descriptor seen before skips lowering, the
    passes and codegen (the SPIR-V cache on disk then only serves new processes). Bounded by
    entries and by bytes held (artifacts, and what their executables own on the device), least
    recently used dropped first. A generic kernel bound to one call's sizes is kept apart, the
    last SIZES of them: it shares its program's code (GenericKernels holds it), so a window that
    grows by a row each step neither evicts compiled kernels nor counts their bytes again."""

    ENTRIES = 256
    BYTES = 64 * 2**20
    SIZES = 64

    def __init__(self) -> None:
        self._kernels: OrderedDict[tuple[OperatorDesc, CompileOptions, bool], CompiledKernel] = \
            OrderedDict()
        """By (descriptor, options, False): compiled kernels."""
        self._sizes: OrderedDict[tuple[OperatorDesc, CompileOptions, bool], CompiledKernel] = \
            OrderedDict()
        """By (descriptor, options, True): generic kernels bound to the descriptor's sizes."""
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        self._added = self._held = 0
        self.policy = ShapePolicy()
        self.generic = GenericKernels(self._lock)
        self._no_generic: set[tuple[OperatorDesc, CompileOptions, str | tuple[int, ...]]] = set()
        """Descriptors a generic kernel was asked of, in a forced mode ("always" or those
        dimensions), and has none in it (compiled specialized)."""
        self.compiles: dict[str, int] = {}
        """Compiles by operator ("DML_GATHER" specialized, "DML_GATHER generic")."""

    def get(self, checked: OperatorDesc, options: CompileOptions,
            mode: str | tuple[int, ...] = "never") -> CompiledKernel:
        """The kernel of a validated descriptor, compiled on a miss (outside the lock: compiles
        may overlap, and the first one stored wins); by the policy's choice (dynamic.py), a
        generic kernel bound to this call's sizes."""
        if not _hashable(checked):  # a list where a number belongs: compiling says which field
            return CompiledKernel(_artifact(checked, options))
        special, generic = (checked, options, False), (checked, options, True)
        forced = [generic, special] if (checked, options, mode) in self._no_generic else [generic]
        keys = {"never": [special], "auto": [special, generic]}.get(str(mode), forced)
        with self._lock:  # "auto": a specialized kernel first; forced: a generic one if any
            for key in keys:
                store = self._sizes if key[2] else self._kernels
                found = store.get(key)
                if found is not None:
                    self.hits += 1
                    store.move_to_end(key)
                    return found
            self.misses += 1
            rules: GenericRules | None = None if computed_fields(checked) else rules_of(
                checked).generic  # (a computed operand is substituted in specialized programs)
            eligible = rules is not None and rules.serves(options.target, options.in_place,
                                                          options.check_indices)
        if eligible and mode == "auto":  # a kernel that served this family key: no policy
            assert rules is not None
            again = self.generic.again(rules, checked, options, _replan_of(checked, options),
                                       _in_place_of(checked, options, mode))
            if again is not None:
                return self._keep((checked, options, True), again)
        with self._lock:
            dims = self.policy.dims(rules, checked, options, mode, eligible)
        built = self.generic.kernel(rules, checked, options, dims, mode,
                                    lambda g: self._generic_artifact(g, checked, options),
                                    _replan_of(checked, options),
                                    _in_place_of(checked, options, mode)
                                    ) if dims is not None else None
        key = (checked, options, built is not None)
        if built is None and mode not in ("never", "auto"):  # forced, and specialized: next
            with self._lock:                                 # time found, not compiled again
                self._no_generic.add((checked, options, mode))
        if built is None:
            self._count(checked.operator)
            built = CompiledKernel(_artifact(checked, options),
                                   in_place=_in_place_of(checked, options, mode),
                                   replan=_replan_of(checked, options))
        return self._keep(key, built)

    def _keep(self, key: tuple[OperatorDesc, CompileOptions, bool],
              built: CompiledKernel) -> CompiledKernel:
        """Store a kernel just built (the first stored wins)."""
        with self._lock:
            if key[2]:
                kernel = self._sizes.setdefault(key, built)
                while len(self._sizes) > self.SIZES:
                    self._sizes.popitem(last=False)
                return kernel
            kernel = self._kernels.setdefault(key, built)
            self._trim()
            return kernel

    def _count(self, name: str) -> None:
        with self._lock:
            self.compiles[name] = self.compiles.get(name, 0) + 1

    def _generic_artifact(self, generic: GenericProgram, checked: OperatorDesc,
                          options: CompileOptions) -> CompiledProgram:
        self._count(f"{checked.operator} generic")
        return _generic_artifact(generic, checked, options)

    def _trim(self) -> None:
        """Drop the least recently used while over ENTRIES or BYTES (bytes summed every
        ENTRIES-th entry, else the newest's added: a loop of new sizes must not walk the cache)."""
        self._added += 1
        newest = next(reversed(self._kernels.values()))
        self._held = sum(k.held_bytes for k in self._kernels.values()) \
            if self._added % self.ENTRIES == 0 else self._held + newest.held_bytes
        while len(self._kernels) > 1 and (len(self._kernels) > self.ENTRIES
                                          or self._held > self.BYTES):
            self._held -= self._kernels.popitem(last=False)[1].held_bytes

    def clear(self) -> None:
        with self._lock:
            self._kernels.clear()
            self._sizes.clear()
            self._held = 0
            self.generic.clear()
            self.policy.clear()
            self.compiles.clear()
            self._no_generic.clear()

    def info(self) -> dict[str, int]:
        with self._lock:
            return {"entries": len(self._kernels),
                    "bytes": sum(k.held_bytes for k in self._kernels.values()),
                    "max_entries": self.ENTRIES, "max_bytes": self.BYTES,
                    "sizes": len(self._sizes), "max_sizes": self.SIZES,
                    "hits": self.hits, "misses": self.misses}


KERNELS = KernelCache()
"""The one in-memory cache: per key, the compiled program, wrapped in the kernel that
cached_compile() hands out (its device binding made at its first call, then kept). compile()
wraps the same program in a kernel of its own."""


def _hashable(checked: OperatorDesc) -> bool:
    """Whether it can key the cache (a list where a number belongs cannot: compiling says)."""
    try:
        return hash(checked) is not None
    except TypeError:
        return False


def _in_place_of(checked: OperatorDesc, options: CompileOptions,
                 mode: str | tuple[int, ...]) -> Callable[[], CompiledKernel] | None:
    """For a scatter, how to get the kernel that updates its data tensor in place (compiled on
    the first call with out= that tensor, then cached like any other; by the same policy as
    the copying kernel: a KV cache's prefill of a varying number of rows is generic)."""
    if not updates_in_place(checked) or options.in_place or options.guard_words:
        return None
    return functools.partial(KERNELS.get, checked, dataclasses.replace(options, in_place=True),
                             mode)


def _replan_of(checked: OperatorDesc,
                options: CompileOptions) -> Callable[[PlanLimits], CompiledProgram]:
    """How to get the program planned within other limits: a kernel compiled without its device
    (the default limits) meeting a device that binds fewer buffers to one shader, say."""
    def replan(limits: PlanLimits) -> CompiledProgram:
        return KERNELS.get(checked, dataclasses.replace(options, limits=limits)).compiled
    return replan


def clear_caches() -> None:
    """Forget every compiled program, validated descriptor, rule rewrite, verified node and
    built candidate kept in memory (tests of pass settings; the bench's cold compiles)."""
    KERNELS.clear()
    clear_validated()
    clear_order_memo()
    clear_rewrite_memo()
    clear_verify_memo()
    clear_pass_memos()

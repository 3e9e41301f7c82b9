"""Print the IR and GLSL of a fixed, broad set of programs, to check that a refactor leaves the
generated shaders byte-identical:

    .venv/bin/python tools/ir_snapshot.py > /tmp/before.txt   # on the old tree
    .venv/bin/python tools/ir_snapshot.py > /tmp/after.txt    # on the new one
    diff /tmp/before.txt /tmp/after.txt

The set: every bench case (full and quick sizes), the .dml examples, and a few hundred operator
cases drawn (derandomized) from the test suite's strategies, each for both targets, with the
passes on and with every pass off; the scatters in their in-place form too. Needs no Vulkan
device. With --generic: the same descriptors' generic programs instead (every free dimension
dynamic, then each one alone; every variant, the checked and in-place forms), as compiled
(run_generic_pipeline: DMLC_DISABLE_PASSES=all gives them with no rule pass), IR and GLSL.
"""
from __future__ import annotations

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def _no_local_constants() -> None:
    """Hypothesis mixes the literal constants of every local module loaded so far into its draws
    (hypothesis.internal.conjecture.providers, since 6.13x), so the drawn cases would change with
    any refactor that moves an import or a constant of dmlc; the snapshot draws without them."""
    from hypothesis.internal.conjecture import providers
    providers.is_local_module_file = lambda path: False  # before the first draw


def descriptors() -> list[tuple[str, object]]:

    import cases
    from dmlc import lang
    from dmlc.bench import suite

    out: list[tuple[str, object]] = []
    for quick in (False, True):
        out += [(f"bench {c.name} quick={quick}", c.descriptor) for c in suite(quick)]
    for path in sorted((ROOT / "examples").rglob("*.dml")):
        out += [(f"{path.name} {u.name}", u.descriptor)
                for u in lang.load(str(path)).units]
    _no_local_constants()
    strategies = [cases.gather_cases(), cases.gather_elements_cases(), cases.scatter_cases(),
                  cases.slice_cases()]
    for k, strategy in enumerate(strategies):
        out += [(f"case {k}.{i}", d) for i, d in enumerate(_draw(strategy))]
    first = ("gather", "gather_elements", "scatter", "slice")  # numbered 0-3, as above
    for name, make in cases.ALL_CASES.items():  # every later family, by name
        if name not in first:
            out += [(f"case {name}.{i}", d) for i, d in enumerate(_draw(make()))]
    return out + _written_views()


def _written_views() -> list[tuple[str, object]]:
    """Copies the drawn cases never make: an output written through its layout (a device
    tensor's `__setitem__`), a reversed input into a transposed output, a given
    TotalTensorSizeInBytes on either side; 8 to 64-bit types."""
    from dmlc import IdentityDesc, TensorDesc

    out: list[tuple[str, object]] = []
    for dt in ("FLOAT32", "FLOAT16", "INT8", "INT64", "UINT16"):
        def t(sizes: tuple[int, ...], strides: tuple[int, ...] | None = None, offset: int = 0,
              total: int | None = None, dt: str = dt) -> TensorDesc:
            return TensorDesc(data_type=dt, sizes=sizes, strides=strides, offset=offset,
                              total_bytes=total)
        out += [(f"written view {dt} {i}", d) for i, d in enumerate((
            IdentityDesc(input=t((4, 6)), output=t((4, 6), (12, 2), 3)),
            IdentityDesc(input=t((3, 5), (-5, 1), 10), output=t((3, 5), (1, 3))),
            IdentityDesc(input=t((2, 3, 4)), output=t((2, 3, 4), total=256)),
            IdentityDesc(input=t((2, 3, 4), total=256), output=t((2, 3, 4), (1, 2, 6)))))]
    return out


def _draw(strategy: object) -> list[object]:
    """60 descriptors from a case strategy, the same ones on every run."""
    from hypothesis import HealthCheck, given, settings

    drawn: list[object] = []

    @settings(derandomize=True, database=None, max_examples=60, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case: object) -> None:
        drawn.append(case.descriptor)  # type: ignore[attr-defined]

    collect()
    return drawn


def render(desc: object, target: str, in_place: bool = False) -> str:
    from dmlc.codegen import glsl
    from dmlc.compiled import build_program
    from dmlc.ir.printer import render_program

    try:
        _, program = build_program(desc, dump_after=set(), target=target,  # type: ignore[arg-type]
                                   in_place=in_place)
    except Exception as e:
        return f"error: {type(e).__name__}: {e}"
    text = [render_program(program)]
    for k in program.kernels:
        text.append(glsl.render_glsl(k, program))
    return "\n".join(text)


def render_generic(desc: object) -> str:
    """Every generic program of `desc` (dynamic.py's lowerings, without the policy)."""
    from dmlc.family.registry import rules_of, validate

    try:
        checked = validate(desc)
        rules = rules_of(checked).generic
        if rules is None:
            return "no generic rules"
        free = tuple(rules.free(checked))
        text = []
        for dims in dict.fromkeys([free, *((d,) for d in free)]):
            for form in rules.forms(checked, dims)[:1]:  # the one lowered (dynamic.py)
                lowerings = [(v, lambda v=v, f=form, d=dims: rules.build(f, d, v))
                             for v in rules.choices(checked, dims)]
                if rules.checked:
                    lowerings.append(("checked", lambda f=form, d=dims: rules.checked(f, d)))
                if rules.in_place:
                    lowerings.append(("in place", lambda f=form, d=dims: rules.in_place(f, d)))
                for name, lowering in lowerings:
                    try:
                        g = lowering()
                        body = "none" if g is None else _compiled_generic(g.program)
                    except Exception as e:
                        body = f"error: {type(e).__name__}: {e}"
                    text.append(f"-- dims {dims} form {form!r:.60} {name}\n{body}")
        return "\n".join(text)
    except Exception as e:
        return f"error: {type(e).__name__}: {e}"


def _compiled_generic(program: object) -> str:
    """A generic program as its compile runs it (run_generic_pipeline), IR and GLSL."""
    from dmlc.codegen import glsl
    from dmlc.ir.printer import render_program
    from dmlc.ir.verify import verify_program
    from dmlc.passes.pipeline import run_generic_pipeline

    compiled = run_generic_pipeline(verify_program(program), dump_after=set())  # type: ignore[arg-type]
    return "\n".join([render_program(compiled),
                      *(glsl.render_glsl(k, compiled) for k in compiled.kernels)])


def main() -> None:
    items = descriptors()
    if "--generic" in sys.argv[1:]:
        for name, desc in items:
            print(f"==== {name} generic")
            print(render_generic(desc))
        return
    for disabled in ("", "all"):
        os.environ["DMLC_DISABLE_PASSES"] = disabled
        for name, desc in items:
            for target in ("cpu", "gpu"):
                print(f"==== {name} target={target} disabled={disabled or 'none'}")
                print(render(desc, target))
                if hasattr(desc, "updates"):  # a scatter: its in-place form too
                    print(f"==== {name} in place target={target} disabled={disabled or 'none'}")
                    print(render(desc, target, in_place=True))


if __name__ == "__main__":
    main()

"""The suite checks what it claims (issue 32), read from its source with `ast`:

- every test function reaches an assertion: an `assert`, `pytest.raises` / `pytest.warns` /
  `pytest.fail`, an `assert*` function (numpy's, unittest's, reference.assert_bits_equal), or a
  function of tests/ that reaches one (followed through calls, transitively), or one of the
  library's own checks listed in CHECKS with the reason it fails a test;
- every hypothesis budget goes through strategies.budget (`max_examples=budget(n)`), so that
  HYPOTHESIS_PROFILE=thorough raises it and no property runs fewer than 20 examples;
- no test bounds wall-clock time (a loaded CI machine is slow at random): the device's own
  timings are reported, not compared with a bound.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
FILES = sorted(p for p in TESTS.rglob("*.py") if "data" not in p.relative_to(TESTS).parts)
TEST_FILES = [p for p in FILES if p.name.startswith("test_")]

CHECKS = {
    # Functions outside tests/ that fail a test by raising when what they check does not hold.
    "verify_program": "dmlc.ir.verify: raises IRError on any unproven access or malformed IR",
}
ASSERTING_ATTRIBUTES = {"raises", "warns", "fail", "deprecated_call"}  # pytest.<name>


def _parse(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


MODULES = {p: _parse(p) for p in FILES}


class Module:
    """One file of tests/: its functions (nested ones too, by name), its classes' methods,
    the helpers it imports from tests/ (local name -> (module, name)) and the tests/ modules
    it imports whole."""

    def __init__(self, path: pathlib.Path, tree: ast.Module) -> None:
        self.path, self.tree = path, tree
        self.defs: dict[str, list[ast.AST]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.setdefault(node.name, []).append(node)
        self.methods: dict[str, list[ast.AST]] = {}
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for f in cls.body:
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.methods.setdefault(f.name, []).append(f)
        self.imported: dict[str, tuple[str, str]] = {}
        self.aliases: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.imported[a.asname or a.name] = (node.module, a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[a.asname or a.name] = a.name


def _module_name(path: pathlib.Path) -> list[str]:
    """The names a tests/ file is imported by: `reference`, `tests.reference`."""
    rel = path.relative_to(TESTS).with_suffix("")
    dotted = ".".join(rel.parts)
    return [dotted, f"tests.{dotted}", rel.name]


MODS = {p: Module(p, t) for p, t in MODULES.items()}
BY_NAME = {name: m for m in MODS.values() for name in _module_name(m.path)}


def _resolve(mod: Module, call: ast.expr, depth: int = 0) -> list[tuple[Module, ast.AST]]:
    """The functions of tests/ a called (or passed) expression names, where it can tell."""
    if isinstance(call, ast.Name):
        if call.id in mod.defs:
            return [(mod, f) for f in mod.defs[call.id]]
        if call.id in mod.imported and depth < 4:
            source, name = mod.imported[call.id]
            other = BY_NAME.get(source)
            if other is not None:
                return _resolve(other, ast.Name(id=name), depth + 1)
        return []
    if isinstance(call, ast.Attribute) and isinstance(call.value, ast.Name):
        if call.value.id in mod.aliases:
            other = BY_NAME.get(mod.aliases[call.value.id])
            if other is not None and call.attr in other.defs:
                return [(other, f) for f in other.defs[call.attr]]
            return []
    if isinstance(call, ast.Attribute) and call.attr in mod.methods:  # obj.method(...)
        return [(mod, f) for f in mod.methods[call.attr]]
    return []


def _called_name(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def _direct(node: ast.AST) -> tuple[bool, list[ast.expr]]:
    """Whether `node`'s own code asserts, and what it calls (or passes: a helper handed to
    another function, as hypothesis and pytest take them)."""
    calls: list[ast.expr] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Assert):
            return True, calls
        if isinstance(n, ast.Call):
            name = _called_name(n)
            f = n.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                    and f.value.id == "pytest" and f.attr in ASSERTING_ATTRIBUTES:
                return True, calls
            if name is not None and (name.lower().startswith("assert") or name in CHECKS):
                return True, calls
            calls.append(f)
            calls += [a for a in n.args if isinstance(a, (ast.Name, ast.Attribute))]
            calls += [k.value for k in n.keywords if isinstance(k.value, (ast.Name, ast.Attribute))]
    return False, calls


_MEMO: dict[int, bool] = {}


def asserts(mod: Module, node: ast.AST, seen: frozenset[int] = frozenset()) -> bool:
    """Whether `node` reaches an assertion, following calls to functions of tests/."""
    key = id(node)
    if key in _MEMO:
        return _MEMO[key]
    if key in seen:
        return False
    direct, calls = _direct(node)
    result = direct or any(asserts(m, f, seen | {key})
                           for c in calls for m, f in _resolve(mod, c))
    if not seen:
        _MEMO[key] = result
    return result


def _tests(tree: ast.Module) -> list[ast.FunctionDef]:
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)
                and n.name.startswith("Test")):
        found += [n for n in cls.body if isinstance(n, ast.FunctionDef)
                  and n.name.startswith("test")]
    return found


def test_the_check_sees_the_suite():
    assert len(TEST_FILES) > 80
    assert sum(len(_tests(MODULES[p])) for p in TEST_FILES) > 800


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_every_test_reaches_an_assertion(path):
    silent = [t.name for t in _tests(MODULES[path]) if not asserts(MODS[path], t)]
    assert silent == [], f"{path.name}: tests that assert nothing: {silent}"


def test_the_assertion_finder_can_fail():
    """A test that only calls things, or a helper that asserts nothing, is found out; one
    that calls a helper of another module that asserts is not."""
    tree = ast.parse("from reference import assert_bits_equal, split\n"
                     "def helper(x):\n    return x\n\n"
                     "def test_quiet():\n    helper(1)\n    split(1, 2, 3)\n\n"
                     "def test_loud():\n    assert helper(1)\n\n"
                     "def test_through_a_helper():\n    assert_bits_equal(1, 1)\n")
    mod = Module(TESTS / "made_up.py", tree)
    quiet, loud, through = (f for f in tree.body[2:])
    assert not asserts(mod, quiet) and asserts(mod, loud) and asserts(mod, through)


def _budgets(tree: ast.Module) -> list[tuple[int, str]]:
    """Each max_examples= whose value is not a call of budget()."""
    bad = []
    for n in ast.walk(tree):
        if isinstance(n, ast.keyword) and n.arg == "max_examples":
            v = n.value
            if not (isinstance(v, ast.Call) and _called_name(v) == "budget"):
                bad.append((n.value.lineno, ast.unparse(v)))
    return bad


@pytest.mark.parametrize("path", [p for p in FILES if p.name != "conftest.py"],
                         ids=lambda p: str(p.relative_to(TESTS)))
def test_every_hypothesis_budget_goes_through_budget(path):
    assert _budgets(MODULES[path]) == [], f"{path.name}: max_examples not through budget()"


def test_budget_scales_with_the_profile_and_has_a_floor(monkeypatch):
    from hypothesis import settings

    import strategies
    assert strategies.MIN_EXAMPLES == 20 and strategies.budget(2) >= 20
    for profile, factor in [("default", 1), ("ci", 1), ("thorough", 1000 / 60)]:
        monkeypatch.setattr(strategies, "settings", type("S", (), {
            "default": settings.get_profile(profile)}))
        assert strategies.budget(2) == max(20, round(2 * factor))
        assert strategies.budget(150) == round(150 * factor)


def _clock_bounds(tree: ast.Module) -> list[int]:
    """Lines comparing a time.perf_counter()/time.time()/time.monotonic() difference."""
    clocks = {"perf_counter", "time", "monotonic", "perf_counter_ns", "monotonic_ns"}
    bad = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare):
            for part in ast.walk(n):
                if isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) \
                        and part.func.attr in clocks and isinstance(part.func.value, ast.Name) \
                        and part.func.value.id == "time":
                    bad.append(n.lineno)
                    break
    return bad


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_bounds_wall_clock_time(path):
    assert _clock_bounds(MODULES[path]) == [], path.name


@pytest.mark.parametrize("signed", [True, False], ids=["DML_SLICE1", "DML_SLICE"])
def test_slice_windows_move_more_than_one_element(signed):
    """strategies.slice_window_plan, which the slice cases draw from, over independent draws:
    a median output of 8 elements or more, every rank 1-8, strides of every sign the operator
    has (DML_SLICE: positive only), each window inside its input, the input bounded."""
    import math
    import random

    from strategies import SLICE_INPUT_LIMIT, slice_window_plan
    rng = random.Random(32)
    outputs, ranks, signs = [], set(), set()
    for _ in range(2000):
        shape, offsets, sizes, strides, out = slice_window_plan(rng.randint, signed)
        assert math.prod(shape) <= SLICE_INPUT_LIMIT
        for n, o, s, st, m in zip(shape, offsets, sizes, strides, out):
            assert 0 <= o and o + s <= n and st != 0 and 1 + (s - 1) // abs(st) == m
        outputs.append(math.prod(out))
        ranks.add(len(shape))
        signs.update(st > 0 for st in strides)
    assert sorted(outputs)[len(outputs) // 2] >= 8
    assert ranks == set(range(1, 9)) and signs == ({True, False} if signed else {True})


@pytest.mark.parametrize("family", ["slice", "slice0"])
def test_slice_cases_move_more_than_one_element(family):
    """The slice properties (interpreter, passes, device against numpy) draw these cases,
    as hypothesis draws them: a median output of 8 elements or more, strides of every sign
    the operator has."""
    from hypothesis import HealthCheck, given, settings

    import cases
    from strategies import budget
    outputs, ranks, signs = [], set(), set()

    @settings(max_examples=budget(100), deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(cases.ALL_CASES[family]())
    def draw(case):
        outputs.append(case.expected.size)
        ranks.add(case.expected.ndim)
        strides = case.kwargs["strides"] if family == "slice" else case.descriptor.strides
        signs.update(s > 0 for s in strides)
    draw()
    assert sorted(outputs)[len(outputs) // 2] >= 8, sorted(outputs)
    assert len(ranks) >= 5, ranks
    assert signs == ({True, False} if family == "slice" else {True}), signs


def test_the_clock_finder_can_fail():
    """The bound test_toolchain_library.py had (a wall-clock bound of 20 ms) is found."""
    tree = ast.parse("import time\n\ndef test_fast():\n    t0 = time.perf_counter()\n"
                     "    assert time.perf_counter() - t0 < 0.02\n")
    assert _clock_bounds(tree) == [5]

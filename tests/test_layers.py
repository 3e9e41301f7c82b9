"""The house stays one-way: front ends -> operator families (dmlc.ops, each a vertical slice that
imports no other) -> the one-shot helpers and the compile driver -> the families' common ground
(dmlc.family) -> IR -> passes -> codegen -> toolchain -> runtime. Read from the source (an AST
scan of every import, lazy ones included), so a new module that breaks a layer fails here,
without Vulkan. The compiler reaches the runtime from the modules RUNTIME_USERS names (call.py
binding a compiled program to the device at its first call, target.py asking what the device
is...), lazily but for ops/copy/tensor.py, which nothing loads eagerly;
test_compile_artifact.py checks that compiling for a named target loads no runtime module."""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = {"compiler": "dmlc", "runtime": "dmlc.runtime", "shaders": "dmlc.shaders"}
MAX_LINES = 400


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
    parts = list(rel.with_suffix("").parts)
    parts[0] = PACKAGES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for top in PACKAGES for p in (ROOT / top).rglob("*.py")}


def _imports(name: str, path: pathlib.Path, known: set[str], eager: bool = False) -> set[str]:
    """The dmlc modules (and kp, wgpu) that module `name` imports anywhere in its body (eager:
    at its top level, what loading it loads)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text())
    for node in (tree.body if eager else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            names = {f"{base}.{a.name}" for a in node.names}
            found |= names & known  # `from . import tree`: the module tree
            if names - known:  # `from .ir import Program`: the module ir
                found.add(base)
    return {m for m in found if m in known or m.split(".")[0] in ("kp", "wgpu")}


GRAPH = {name: _imports(name, path, set(_modules())) for name, path in _modules().items()}


def _reaches(start: str, target: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        for nxt in GRAPH.get(stack.pop(), ()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def test_no_import_cycles():
    cycles = [m for m in GRAPH if m != "dmlc" and _reaches(m, m)]
    assert not cycles, f"modules on an import cycle: {sorted(cycles)}"


def test_only_runtime_kompute_loads_kp():
    """kp is loaded by name in one place, runtime/kompute/ (the binding built into dmlc's wheel,
    else an installed kp); no module imports it directly."""
    users = [m for m, deps in GRAPH.items() if any(d.split(".")[0] == "kp" for d in deps)]
    assert users == [], users
    loaders = [m for m, path in _modules().items()
               if "import_module(" in path.read_text() and '"kp"' in path.read_text()]
    assert loaders == ["dmlc.runtime.kompute"], loaders
    assert "kompute.load()" in (ROOT / "runtime" / "device.py").read_text()


def test_only_the_runtime_imports_wgpu():
    """The WebGPU backend's library, as kp is the Vulkan backend's: only runtime/webgpu/."""
    users = [m for m, deps in GRAPH.items() if any(d.split(".")[0] == "wgpu" for d in deps)]
    assert users and all(m.startswith("dmlc.runtime.webgpu") for m in users), users


DRIVER = ("dmlc.compiled", "dmlc.call", "dmlc.artifact", "dmlc.plan", "dmlc.target",
          "dmlc.manifest", "dmlc.toolchain")
FAMILIES = sorted({m.split(".")[2] for m in GRAPH if m.startswith("dmlc.ops.")})
COMPILE_FACETS = ("desc", "validate", "lower")
"""What a family gives the compile driver (through the registry): never above the driver."""


@pytest.mark.parametrize("lower, upper", [
    # the IR and what builds on it know nothing of operators or of what runs them
    ("dmlc.ir", "dmlc.family"), ("dmlc.ir", "dmlc.ops"), ("dmlc.ir", "dmlc.passes"),
    ("dmlc.passes", "dmlc.family"), ("dmlc.passes", "dmlc.ops"), ("dmlc.codegen", "dmlc.ops"),
    ("dmlc.passes", "dmlc.codegen"), ("dmlc.codegen", "dmlc.passes"),
    # the families' common ground, and the driver, reach no family: the registry dispatches
    ("dmlc.family", "dmlc.ops"), ("dmlc.family", "dmlc.compiled"), ("dmlc.family", "dmlc.oneshot"),
    *[(d, "dmlc.ops") for d in DRIVER], *[(d, "dmlc.oneshot") for d in DRIVER],
    ("dmlc.oneshot", "dmlc.ops"),
    # the front end stops at descriptors
    ("dmlc.lang", "dmlc.compiled"), ("dmlc.lang", "dmlc.modules"), ("dmlc.lang", "dmlc.passes"),
    ("dmlc.lang", "dmlc.runtime"),
    ("dmlc.ops.expression.validate", "dmlc.ops.expression.lower"),
    # only the runtime talks to Vulkan, and it sees launch plans, not IR or descriptors
    ("dmlc.family", "dmlc.runtime"), ("dmlc.passes", "dmlc.runtime"),
    ("dmlc.codegen", "dmlc.runtime"), ("dmlc.toolchain", "dmlc.runtime"),
    ("dmlc.artifact", "dmlc.runtime"), ("dmlc.runtime", "dmlc.ir"),
    ("dmlc.runtime", "dmlc.compiled"), ("dmlc.runtime", "dmlc.family"),
    ("dmlc.runtime", "dmlc.ops"),
    *[(f"dmlc.ops.{f}.{facet}", "dmlc.compiled") for f in FAMILIES for facet in COMPILE_FACETS
      if f"dmlc.ops.{f}.{facet}" in GRAPH],
])
def test_layers_read_one_way(lower, upper):
    """No module of package `lower` reaches any module of `upper`."""
    starts = [m for m in GRAPH if m == lower or m.startswith(lower + ".")]
    bad = [(s, t) for s in starts for t in GRAPH
           if (t == upper or t.startswith(upper + ".")) and _reaches(s, t)]
    assert not bad, f"{lower} reaches {upper}: {bad[:3]}"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_imports_no_other_family(family):
    """Each operator family is one folder (a vertical slice): adding or changing one touches
    nothing of another's. What they share lives below them (dmlc.family, dmlc.oneshot)."""
    others = [f"dmlc.ops.{f}" for f in FAMILIES if f != family]
    own = f"dmlc.ops.{family}"
    starts = [m for m in GRAPH if m == own or m.startswith(own + ".")]
    bad = [(s, t) for s in starts for t in GRAPH for o in others
           if (t == o or t.startswith(o + ".")) and _reaches(s, t)]
    assert not bad, f"family {family} reaches another: {bad[:3]}"


def _eager(name: str) -> set[str]:
    return _imports(name, _modules()[name], set(_modules()), eager=True)


RUNTIME_USERS = {
    "dmlc": "dmlc.to_device, dmlc.empty, cache_info() and the device functions, lazily",
    "dmlc.call": "a compiled kernel's first call binds it to the device, lazily",
    "dmlc.target": "the device's kind when no target is given, lazily",
    "dmlc.cli": "`dmlc info` and `dmlc run`, lazily",
    "dmlc.bench": "the bench times the device, lazily", "dmlc.bench.backends": "likewise",
    "dmlc.bench.refs": "likewise",
    "dmlc.ops.copy.tensor": "dmlc's DeviceTensor subclasses the runtime's, at load: this "
                            "module is itself imported lazily, when a device tensor is made"}


def test_the_compiler_reaches_the_runtime_from_these_modules_only():
    """Where the compiler side reaches the runtime (RUNTIME_USERS says why each does), and
    that only ops/copy/tensor.py does so when it loads, which no module loads at its own
    load: compiling (test_compile_artifact.py) never loads the runtime."""
    users = {m for m, deps in GRAPH.items() if not m.startswith("dmlc.runtime")
             and any(d.startswith("dmlc.runtime") for d in deps)}
    assert users == set(RUNTIME_USERS), users ^ set(RUNTIME_USERS)
    eager = {m for m in users if any(d.startswith("dmlc.runtime") for d in _eager(m))}
    assert eager == {"dmlc.ops.copy.tensor"}, eager
    loaders = {m for m in GRAPH if "dmlc.ops.copy.tensor" in _eager(m)}
    assert loaders == set(), loaders


def test_the_compiler_root_holds_the_driver_and_the_public_face_only():
    """Everything else lives in a folder of its own (issue 24: at most 12 modules here, and
    environment.py: the one reader of the environment the runtime shares, beside errors.py)."""
    root = sorted(p.name for p in (ROOT / "compiler").glob("*.py"))
    assert len(root) <= 13, root


def test_no_source_file_over_the_size_limit():
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "compiler").rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    long |= {str(p.relative_to(ROOT)): n for p in (ROOT / "runtime").rglob("*.py")
             if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_test_modules_have_unique_names():
    """pytest imports test files by basename (no packages): two of one name in tests/ and
    tests/device/ fail collection in a fresh clone."""
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted(set(names)) == sorted(names), sorted(n for n in names if names.count(n) > 1)


def test_pyproject_lists_every_package():
    """A package missing from pyproject's list works in the editable install and breaks every
    installed wheel (dmlc.descriptors was, once)."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {"dmlc": "compiler", "dmlc.runtime": "runtime", "dmlc.shaders": "shaders"}
    found = set()
    for name, folder in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *parts)))
    assert listed == found, f"missing {sorted(found - listed)}, extra {sorted(listed - found)}"

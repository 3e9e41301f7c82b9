"""Every code block of the README and of docs/*.md runs as written: each page's Python blocks in
order in one namespace of their own (on the device), the `.dml` blocks through the front end
(and on the interpreter, against the data they give or numpy's answer), and the shell blocks'
`make` commands name targets that exist. A Python block opts out only with the line
`<!-- not run: REASON -->` right above it, and the reason is printed."""
from __future__ import annotations

import pathlib
import re
from collections.abc import Callable

import numpy as np
import pytest

import dmlc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OPT_OUT = re.compile(r"^<!-- not run: (.+) -->$")


def fenced_blocks(text: str) -> list[tuple[str, str, str | None]]:
    """(language, body, opt-out reason) of each fenced block, fences paired in order."""
    found, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^```(\w*)$", lines[i])
        if not m:
            i += 1
            continue
        above = OPT_OUT.match(lines[i - 1]) if i else None
        end = next(j for j in range(i + 1, len(lines)) if lines[j] == "```")
        found.append((m.group(1), "\n".join(lines[i + 1:end]) + "\n", above and above.group(1)))
        i = end + 1
    return found


BLOCKS = {p.relative_to(ROOT).as_posix(): fenced_blocks(p.read_text()) for p in PAGES}
PYTHON_PAGES = [name for name, bs in BLOCKS.items() if any(lang == "python" for lang, _, _ in bs)]


def blocks(kind: str) -> list[str]:
    return [body for bs in BLOCKS.values() for lang, body, _ in bs if lang == kind]


def test_every_python_block_is_run_or_says_why_not():
    """The count of Python blocks the suite executes, and each opt-out with its reason."""
    python = [(n, b, why) for n, bs in BLOCKS.items() for lang, b, why in bs if lang == "python"]
    run = [(n, b) for n, b, why in python if not why]
    skipped = [(n, why) for n, _, why in python if why]
    print(f"\n{len(run)} Python code blocks executed from {len(PYTHON_PAGES)} pages"
          f" ({len(PAGES)} pages read); {len(skipped)} not run: {skipped}")
    assert len(run) >= 9 and {"README.md", "docs/python-api.md"} <= set(PYTHON_PAGES)
    assert all(why.strip() for _, why in skipped)


@pytest.mark.vulkan
@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_python_blocks_run_as_written(page: str):
    namespace: dict[str, object] = {}
    ran = 0
    for lang, body, why in BLOCKS[page]:
        if lang == "python" and not why:
            exec(compile(body, page, "exec"), namespace)  # our own documentation
            ran += 1
    assert ran
    if page == "docs/python-api.md":
        table = namespace["table"]
        expected = np.take(table, [3, 0, 3], axis=0)  # rows 3, 0, -1 (from the end)
        np.testing.assert_array_equal(namespace["y"].numpy(), expected)  # type: ignore[attr-defined]


def _clamped(i: np.ndarray, n: int) -> np.ndarray:
    """A loaded index: negative counts from the end, then clamped to [0, n)."""
    return np.clip(np.where(i < 0, i + n, i), 0, n - 1)


def _padding(t: dict[str, np.ndarray]) -> np.ndarray:
    p = np.zeros((4, 7), np.float32)
    p[1:3, 2:5] = t["X"]
    return p


ORACLES: dict[str, Callable[[dict[str, np.ndarray]], np.ndarray]] = {
    # Each docs unit without data of its own: numpy's answer on random arguments, by name.
    "Y": lambda t: np.take_along_axis(t["X"], _clamped(t["I"], 3), axis=0),
    "Z": lambda t: t["X"][1::2, ::-1][:1],
    "W": lambda t: t["X"][_clamped(t["I"], 3)[np.arange(4) // 2], [[2, 1, 0]]],
    "V": lambda t: np.take_along_axis(t["X"], _clamped(t["I"], 3), axis=0)[::-1],
    "P": _padding,
    "J": lambda t: np.concatenate([t["A"], t["B"]]),
    "E": lambda t: np.eye(4, dtype=np.uint8),
}


def _arguments(kernel: dmlc.CompiledKernel, unit, rng: np.random.Generator) -> list[np.ndarray]:
    """The unit's data, else random arguments (indices of I in range and out of it)."""
    args = []
    for name in kernel.program.inputs:
        if name in unit.data:
            args.append(unit.data[name])
            continue
        buf = next(b for b in kernel.program.buffers if b.name == name)
        dtype = buf.dtype.numpy
        shape = next(t.sizes for n, t in kernel.descriptor.tensors if n == name) \
            if hasattr(kernel.descriptor, "tensors") else (buf.count,)
        if dtype.kind == "f":
            args.append(rng.standard_normal(shape).astype(dtype))
        else:
            args.append(rng.integers(-5, 5, shape).astype(dtype))
    return args


def test_dml_blocks_parse_and_every_unit_checks_out():
    """Every .dml unit of the README and the docs compiles and gives, in the interpreter, the data
    its block documents, or else numpy's answer (ORACLES) on random arguments: all of them."""
    dml = [b for b in blocks("") if "DML_" in b or re.search(r"^\w+: \w+\[", b, re.M)]
    assert dml
    checked = []
    rng = np.random.default_rng(5)
    for body in dml:
        module = dmlc.lang.parse_module(body, "docs")
        for unit in module.units:
            kernel = dmlc.compile(unit.descriptor)
            if unit.expected is not None and all(a in unit.data for a in kernel.program.inputs):
                got = kernel.reference(*[unit.data[a] for a in kernel.program.inputs])
                np.testing.assert_array_equal(got, unit.expected)
                checked.append(unit.name)
                continue
            args = _arguments(kernel, unit, rng)
            named = {unit.arguments[a]: v for a, v in zip(kernel.program.inputs, args)}
            want = ORACLES[unit.name](named)
            got = kernel.reference(*args)
            assert got.shape == want.shape and got.dtype == want.dtype, (unit.name, got, want)
            assert got.tobytes() == want.tobytes(), (unit.name, got, want)
            checked.append(unit.name)
    assert sorted(checked) == sorted(["OutputTensor", "OutputTensor", *ORACLES]), checked


def test_shell_blocks_name_make_targets_that_exist():
    makefile = (ROOT / "Makefile").read_text()
    targets = [t for body in blocks("sh") for t in re.findall(r"^make (\S+)", body, flags=re.M)]
    assert {"test", "demo"} <= set(targets)
    for body in blocks("sh"):
        for target in re.findall(r"^make (\S+)", body, flags=re.M):
            assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.M), target


def dmlc_commands() -> list[tuple[str, str]]:
    """(page, command) of each `dmlc ...` line of the pages' shell blocks, comment dropped."""
    found = []
    for page, page_blocks in BLOCKS.items():
        for lang, body, _ in page_blocks:
            for line in body.split("\n") if lang == "sh" else []:
                command = re.split(r"\s+#\s", line, maxsplit=1)[0].strip()
                if command.startswith("dmlc "):
                    found.append((page, command))
    return found


def runnable(command: str) -> str | None:
    """None where the command runs as written; else why not: a synopsis (brackets, |, a
    placeholder in capitals) or a file the reader brings (model.onnx)."""
    words = command.split()[1:]
    if any(c in command for c in "[]|;") or any(re.fullmatch(r"[A-Z][A-Z0-9_.=,-]*", w)
                                                 for w in words):
        return "a synopsis"
    for word in words:
        if word.endswith((".dml", ".onnx")) and not (ROOT / word).exists():
            return f"the reader's file {word}"
    return None


@pytest.mark.vulkan
def test_dmlc_commands_of_the_shell_blocks_run_as_written(tmp_path):
    """Each `dmlc` line that is not a synopsis and names only files of this repository runs,
    exit code 0, in the repository (its -o output redirected to a temporary folder)."""
    import subprocess
    import sys
    exe = pathlib.Path(sys.executable).parent / "dmlc"
    ran, skipped = [], []
    for page, command in dmlc_commands():
        why = runnable(command)
        if why:
            skipped.append((page, command, why))
            continue
        words = command.split()[1:]
        if "-o" in words:
            words[words.index("-o") + 1] = str(tmp_path / words[words.index("-o") + 1])
        done = subprocess.run([str(exe), *words], cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, (page, command, done.stderr[-2000:])
        ran.append(command)
    print(f"\n{len(ran)} dmlc commands of the shell blocks run; {len(skipped)} not: "
          + "; ".join(f"{p}: {c!r} ({w})" for p, c, w in skipped))
    assert "dmlc info" in ran
    assert any(c.startswith("dmlc compile examples/") for c in ran), ran


SCRIPT_COMMANDS = ("dmlc ", "cc ", "python3 ", "./")


def script_blocks() -> list[tuple[str, str]]:
    """(page, body) of each shell block made only of commands a reader runs in the repository
    as written (dmlc, cc, python3, a program it built) with no synopsis or reader's file."""
    found = []
    for page, page_blocks in BLOCKS.items():
        for lang, body, _ in page_blocks:
            lines = [ln for ln in body.split("\n") if ln.strip()]
            if lang == "sh" and lines and all(ln.startswith(SCRIPT_COMMANDS) for ln in lines) \
                    and not any(runnable(ln) for ln in lines if ln.startswith("dmlc ")) \
                    and len(lines) > 1:
                found.append((page, body))
    return found


@pytest.mark.vulkan
def test_shell_scripts_of_the_pages_run_as_written(tmp_path):
    """A block of several such commands (the manifest runner's: compile, build the C runner,
    write the input, run) runs whole, with bash -e, in a folder holding the repository's
    examples/, on this machine's PATH with the venv first."""
    import os
    import subprocess
    import sys
    scripts = script_blocks()
    assert any("run_manifest" in body for _, body in scripts), scripts
    for i, (page, body) in enumerate(scripts):
        work = tmp_path / f"block{i}"
        work.mkdir()
        (work / "examples").symlink_to(ROOT / "examples")
        env = {**os.environ, "PATH": f"{pathlib.Path(sys.executable).parent}{os.pathsep}"
                                     f"{os.environ['PATH']}"}
        done = subprocess.run(["bash", "-e", "-c", body], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (page, body, done.stdout[-1000:], done.stderr[-2000:])
        if "split_heads" in body:  # the manifest runner's output: DML_SPLIT's three parts
            x = np.arange(8, dtype=np.int64).reshape(2, 4)  # of in.bin, in one buffer
            parts = np.split(x, [2, 3], axis=1)
            got = np.fromfile(work / "result.bin", np.int64)
            assert got.tolist() == np.concatenate([p.ravel() for p in parts]).tolist(), got
        if "embedding_batch_symbolic" in body:  # one generic kernel, three batch sizes
            table = np.arange(10, dtype=np.float32).reshape(5, 2)
            for b in (1, 2, 3):
                got = np.fromfile(work / f"emb{b}.bin", np.float32).reshape(b, 4, 2)
                assert got.tolist() == [table[[4, 0, 2, 1]].tolist()] * b, (b, got)
    print(f"\n{len(scripts)} shell scripts of the pages run whole")

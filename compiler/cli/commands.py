"""The commands that take a .dml file or an .onnx model: `dmlc compile` (shaders out) and
`dmlc run` (results out). cli.py holds the parser, `info`, `bench` and the exit codes;
cli_onnx.py what is particular to models."""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from .. import toolchain
from ..codegen.wgsl import render_wgsl
from ..compiled import CompiledKernel, compile_program
from ..dynamic import sizes_vary
from ..errors import UsageError, ValidationError
from ..family.registry import updates_in_place
from ..lang import Module, load
from ..manifest import write_manifest
from ..modules import generic_kernels, run_module, unit_results
from ..passes.planner import describe
from ..target import TARGETS
from . import sizes
from .onnx import compile_onnx, is_onnx, parse_sizes, run_onnx

EMITS = ("ir", "plan", "glsl", "wgsl", "spirv", "spvasm", "manifest")
SUFFIX = {"ir": "ir", "plan": "plan", "glsl": "comp", "wgsl": "wgsl", "spirv": "spv",
          "spvasm": "spvasm"}
PRINT_LIMIT = 1000  # elements; larger results are summarized (save them with -o)


Artifact = tuple[str, str, str | bytes]  # (name, emit, content)


def artifacts(kernels: dict[str, CompiledKernel], emit: str) -> list[Artifact]:
    """One artifact per program (ir, plan) or per shader stage (glsl, wgsl, spirv, spvasm)."""
    out: list[Artifact] = []
    for name, k in kernels.items():
        name = k.program.name if name == "OutputTensor" else name  # DirectML: the operator
        if emit in ("ir", "plan"):
            text = k.ir if emit == "ir" else describe(k.program, k.compiled.variant or
                                                      "its one form")
            runs = k.compiled.plan.copy if emit == "plan" else None
            if runs is not None:  # what the Vulkan runtime does instead (family/runs.py)
                text += (f"\non Vulkan (dmlc's kp): {runs.count} copies of {runs.run}-byte runs "
                         "in one vkCmdCopyBuffer instead of the kernels")
            out.append((name, emit, text))
            continue
        for stage, kernel in zip(k.stages, k.program.kernels):
            label = name if len(k.stages) == 1 else f"{name}.{stage.name}"
            content: str | bytes
            if emit == "glsl":
                content = stage.glsl
            elif emit == "wgsl":  # the same kernel for WebGPU (codegen/wgsl.py)
                content = render_wgsl(kernel, k.program, k.guard_words,
                                      k.compiled.limits.maxStorageBufferRange)
            elif emit == "spirv":
                content = stage.spirv
            else:
                content = toolchain.disassemble(stage.spirv)
            out.append((label, emit, content))
    return out


def _text(items: list[Artifact]) -> str:
    """Text artifacts (binary SPIR-V goes to a file or a pipe whole, cmd_compile)."""
    texts = [(name, e, c) for name, e, c in items if isinstance(c, str)]
    if len(texts) == 1:
        return texts[0][2]
    comment = {"ir": "#", "plan": "#", "glsl": "//", "wgsl": "//", "spvasm": ";"}
    return "\n".join(f"{comment[e]} ---- {name} ({e})\n{c}" for name, e, c in texts)


def _compile_dml(args: argparse.Namespace) -> dict[str, CompiledKernel]:
    dump = set(args.dump_after) if args.dump_after else None
    module = load(args.file)
    dims = {k: v[0] for k, v in parse_sizes("--dim", args.dim, many=False).items()}
    shapes = parse_sizes("--shape", args.shape, many=True)
    if dims or shapes:  # these symbolic sizes written in (cli/sizes.py)
        module = sizes.bind(module, dims, shapes)
    if args.in_place:  # one shape: every size bound
        sizes.refuse_unbound(module, "--in-place")
    kernels = generic_kernels(module, dump_after=dump, target=args.target)
    sizes.check_generic(module, args.target)  # no symbolic size fixed in silence
    if not args.in_place:
        return kernels
    for u in module.units:
        if not updates_in_place(u.descriptor):
            raise UsageError(f"--in-place: {u.name} is a {u.descriptor.operator}; only "
                             "DML_SCATTER and DML_SCATTER_ND update their input in place")
    return {name: CompiledKernel(compile_program(k.descriptor, dump_after=dump,
                                                 target=k.target, in_place=True))
            for name, k in kernels.items()}


def cmd_compile(args: argparse.Namespace) -> int:
    with sizes_vary("never"):  # integer sizes: specialized (symbolic ones: generic, as written)
        return _cmd_compile(args)


def _cmd_compile(args: argparse.Namespace) -> int:
    model = None
    if is_onnx(args.file):
        if args.dump_after:
            raise UsageError("--dump-after is for .dml files (a model's kernels come from "
                             "the compile cache; compile one as a .dml file to see its passes)")
        if args.in_place:
            raise UsageError("--in-place is for the scatters of a .dml file (a model's "
                             "scatter returns a new tensor, as ONNX defines it)")
        if args.name:
            raise UsageError("--name names a .dml file's manifests (a model's are named by "
                             "kernel, and MODEL.model.json by the model)")
        model = compile_onnx(args.file, parse_sizes("--shape", args.shape, many=True),
                             {k: v[0] for k, v in parse_sizes("--dim", args.dim,
                                                              many=False).items()},
                             args.target)
        kernels = model.kernels
    else:
        kernels = _compile_dml(args)
    emits = list(dict.fromkeys(args.emit or ["glsl"]))
    if args.name is not None and ("manifest" not in emits or not args.name or
                                  os.path.basename(args.name) != args.name):
        raise UsageError(f"--name {args.name!r}: expected a file name (no directory) for "
                         "--emit manifest's NAME.manifest.json")
    if "manifest" in emits:
        emits.remove("manifest")
        stem = None if model is not None else args.name or os.path.splitext(
            os.path.basename(args.file))[0]
        write_manifests(kernels, args.output, args.file, stem)
        if model is not None:
            from ..onnx.export import write_model
            stem = os.path.splitext(os.path.basename(args.file))[0]
            path = write_model(model, args.output, stem)
            print(f"wrote {path}: the model's kernels in order, and what feeds each input",
                  file=sys.stderr)
        if not emits:
            return 0
        if not os.path.isdir(args.output):
            raise UsageError("-o is the manifest's directory: the other artifacts go there too")
    produced = [artifacts(kernels, e) for e in emits]
    flat = [a for group in produced for a in group]
    if args.output and (len(flat) > 1 or os.path.isdir(args.output)):  # one file per artifact
        if os.path.splitext(args.output)[1] and not os.path.isdir(args.output):
            names = ", ".join(f"{name}.{SUFFIX[emit]}" for name, emit, _ in flat)
            raise UsageError(f"{len(flat)} artifacts ({names}): -o takes a directory for them, "
                             f"and {args.output!r} looks like a file name")
        os.makedirs(args.output, exist_ok=True)
        for name, emit, content in flat:
            path = os.path.join(args.output, f"{name}.{SUFFIX[emit]}")
            _write(path, content)
            print(f"wrote {path}", file=sys.stderr)
        return 0
    if args.output:
        _write(args.output, flat[0][2])
        return 0
    if any(isinstance(c, bytes) for _, _, c in flat):
        if len(flat) > 1:
            raise UsageError(f"{len(flat)} artifacts include binary SPIR-V; use -o DIR")
        if sys.stdout.isatty():
            raise UsageError("refusing to write binary SPIR-V to a terminal; use -o FILE.spv "
                             "or --emit spvasm")
        sys.stdout.flush()
        sys.stdout.buffer.write(flat[0][2])  # type: ignore[arg-type]
        return 0
    for group in produced:
        sys.stdout.write(_text(group).rstrip("\n") + "\n")
    return 0


def manifest_name(stem: str, unit: str, units: int) -> str:
    """A .dml program's manifest name: the file's (or --name's) stem, and the unit's name in it
    (Y, OutputTensor) where the file has several programs: a gather's and a scatter's
    manifests side by side in one folder, each of its own name."""
    return stem if units == 1 else f"{stem}.{unit}"


def write_manifests(kernels: dict[str, CompiledKernel], folder: str | None, source: str,
                    stem: str | None = None) -> None:
    """Each program's SPIR-V and its manifest (compiler/manifest.py) into `folder`: named
    manifest_name(stem, ...) for a .dml file, by its kernel name for a model (stem None); a
    manifest another source wrote there is not overwritten."""
    if not folder or os.path.splitext(folder)[1]:
        raise UsageError("--emit manifest writes a manifest and its SPIR-V files: -o DIR names "
                         "their directory")
    origin = os.path.realpath(source)
    for name, k in kernels.items():
        file_name = name if stem is None else manifest_name(stem, name, len(kernels))
        try:
            path = write_manifest(k, folder, file_name, source=f"{origin}#{name}")
        except OSError as e:
            raise UsageError(f"cannot write into {folder}: {e.strerror}") from None
        print(f"wrote {path} and its SPIR-V", file=sys.stderr)


def _write(path: str, content: str | bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None


def _inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """--input NAME=FILE.npy, NAME=FILE.npz (a file of one array) or NAME=FILE.npz:KEY (one
    of several: what -o writes for several outputs)."""
    out = {}
    for spec in specs or []:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input expects NAME=FILE.npy, NAME=FILE.npz or "
                             f"NAME=FILE.npz:KEY, got {spec!r}")
        out[name] = _load_input(name, path)
    return out


def _load_input(name: str, spec: str) -> np.ndarray:
    field = f"--input {name}"
    head, colon, tail = spec.rpartition(":")
    path, key = (head, tail) if colon and head.lower().endswith(".npz") else (spec, None)
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ValidationError("dmlc run", field, "a readable .npy or .npz file", path,
                              str(e)) from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        if key is not None:
            raise ValidationError("dmlc run", field, f"an .npz file for the key {key!r}",
                                  f"{path}, a single array")
        return loaded
    with loaded:
        keys = list(loaded.files)
        if key is None and len(keys) != 1:
            raise ValidationError("dmlc run", field, "an .npz file of one array, or "
                                  "FILE.npz:KEY for one of "
                                  + (", ".join(keys) if keys else "its arrays"),
                                  f"{path}, holding {len(keys)}: {', '.join(keys) or 'none'}")
        if key is not None and key not in keys:
            raise ValidationError("dmlc run", field, f"a key of {path}: one of "
                                  + ", ".join(keys), repr(key))
        try:
            return np.asarray(loaded[key if key is not None else keys[0]])
        except (OSError, ValueError) as e:
            raise ValidationError("dmlc run", field, "an array numpy reads without pickle",
                                  f"{path}:{key or keys[0]}", str(e)) from None


def format_number(x: np.generic) -> str:
    if isinstance(x, np.floating):
        return np.format_float_positional(x, trim="-")
    return str(int(x.item()))


def format_array(a: np.ndarray, indent: int) -> str:
    """Nested rows in brackets, the innermost on one line: [[1, 2], [3, 4]]."""
    if a.ndim == 1:
        return "[" + ", ".join(format_number(x) for x in a) + "]"
    pad = " " * (indent + 1)
    rows = [format_array(r, indent + 1) for r in a]
    return "[" + (",\n" + pad).join(rows) + "]"


def format_result(module: Module, name: str, value: np.ndarray) -> str:
    """The result in the file's own notation."""
    if module.kind == "directml":
        head = (f"{name}: (Sizes:{{{', '.join(map(str, value.shape))}}}, "
                f"DataType:{value.dtype.name.upper()})")
        indent = 4
    else:
        head = f"{name}: {value.dtype.name}[{', '.join(map(str, value.shape))}]"
        indent = len(head) + 3
    if value.size > PRINT_LIMIT:
        return f"{head}  // {value.size} elements: save them with -o FILE.npy"
    if module.kind == "directml":
        return f"{head}\n    {format_array(value, indent)}"
    return f"{head} = {format_array(value, indent)}"


def _mismatch(expected: np.ndarray, actual: np.ndarray) -> str | None:
    """Where two results differ bit for bit (NaN payloads and -0.0 count), or None."""
    if expected.shape != actual.shape:
        return f"shape {expected.shape} expected, got {actual.shape}"
    bits = f"uint{8 * expected.dtype.itemsize}"
    diff = expected.view(bits) != actual.view(bits)
    if not diff.any():
        return None
    pos = tuple(int(i) for i in np.unravel_index(int(np.argmax(diff)), diff.shape))
    return (f"{int(diff.sum())} of {diff.size} elements differ; first at {list(pos)}: "
            f"expected {format_number(expected[pos])}, got {format_number(actual[pos])}")


def cmd_run(args: argparse.Namespace) -> int:
    if is_onnx(args.file):
        return _save_or_print(run_onnx(args.file, _inputs(args.input)), args.output)
    inputs = _inputs(args.input)
    module = load(args.file)
    module = module.at({n: v.shape for n, v in inputs.items()})  # X: float32[N, 4]
    results = run_module(module, inputs, check_indices=args.check_indices)
    if args.output:
        if len(results) > 1 and not args.output.endswith(".npz"):
            raise UsageError(f"{len(results)} outputs ({', '.join(results)}): use -o FILE.npz")
        try:
            if args.output.endswith(".npz"):
                np.savez(args.output, **results)
            else:
                np.save(args.output, next(iter(results.values())))
        except OSError as e:
            raise UsageError(f"cannot write {args.output}: {e.strerror}") from None
    status = 0
    for u in module.units:
        for name, value, expected in unit_results(u, results):
            if not args.output:
                print(format_result(module, name, value))
            if expected is None:
                continue
            problem = _mismatch(expected.astype(value.dtype), value)
            if problem:
                print(f"dmlc: error: {name} differs from the values the file expects: "
                      f"{problem}", file=sys.stderr)
                status = 1
            else:
                print(f"{name}: matches the values the file expects", file=sys.stderr)
    return status


def _save_or_print(results: dict[str, np.ndarray], output: str | None) -> int:
    """An ONNX model's outputs: saved (-o .npy for one, .npz for several) or printed."""
    if output:
        if len(results) > 1 and not output.endswith(".npz"):
            raise UsageError(f"{len(results)} outputs ({', '.join(results)}): use -o FILE.npz")
        try:
            if output.endswith(".npz"):
                np.savez(output, **results)
            else:
                np.save(output, next(iter(results.values())))
        except OSError as e:
            raise UsageError(f"cannot write {output}: {e.strerror}") from None
        return 0
    for name, value in results.items():
        with np.printoptions(threshold=PRINT_LIMIT):
            print(f"{name}: {value.dtype}{list(value.shape)} = {value.tolist()!r}"
                  if value.size <= PRINT_LIMIT else f"{name}: {value.dtype}{list(value.shape)}")
    return 0


def add_commands(sub: argparse._SubParsersAction, passes: list[str]) -> None:
    c = sub.add_parser("compile", help="compile a .dml file or an .onnx model to IR, GLSL, "
                       "SPIR-V or manifests",
                       description="Compile every operator or expression of a .dml FILE, or "
                       "every kernel an .onnx model runs (in dispatch order; its symbolic "
                       "dimensions fixed by --dim or --shape). Artifacts go to stdout, or to -o: "
                       "a file for one artifact, a directory for several. Each shape is its own "
                       "SPIR-V; a .dml file of symbolic sizes (Sizes:{B, 4}) gives its generic "
                       "kernel, sizes as push constants (a size the generic kernel fixes must "
                       "be bound: --dim), or with --dim/--shape its kernel for those sizes.")
    c.add_argument("file", metavar="FILE", help="a .dml file (DirectML notation or tensor "
                   "expressions) or an .onnx model")
    c.add_argument("--emit", action="append", choices=EMITS,
                   help="what to produce (repeat for several; default glsl); wgsl: each "
                   "kernel for WebGPU; plan: how each "
                   "kernel's items map onto invocations, every candidate weighed and its cost; "
                   "manifest: "
                   "NAME.manifest.json and SPIR-V per program into -o DIR, and for a model "
                   "MODEL.model.json, which kernel's output feeds which input")
    c.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout")
    c.add_argument("--dim", action="append", metavar="NAME=N",
                   help="a symbolic size NAME (an .onnx model's batch, seq...; a .dml file's "
                   "Sizes:{N, 8}) is N wherever it appears (repeatable); a .dml file is then "
                   "compiled for the sizes given, every symbolic one bound (or by its data)")
    c.add_argument("--shape", action="append", metavar="NAME=D0,D1,...",
                   help="an input's whole shape: an .onnx input's, or a .dml tensor's "
                   "(InputTensor, X) for sizes written ?")
    c.add_argument("--name", metavar="NAME",
                   help="a .dml file's manifest is NAME.manifest.json (default: the file's "
                   "name, FILE.manifest.json; FILE.UNIT.manifest.json for each program of a "
                   "file of several)")
    c.add_argument("--in-place", action="store_true",
                   help="a .dml file's scatters update their data tensor in place: the "
                   "manifest's input 0 is also its output, and only the updates are written")
    c.add_argument("--dump-after", action="append", choices=passes, metavar="PASS",
                   help="print the IR to stderr after PASS (one of: " + ", ".join(passes)
                   + "; .dml files)")
    c.add_argument("--target", choices=TARGETS, help="tune the kernels for a CPU or a GPU "
                   "Vulkan device (default: $DMLC_TARGET, else the selected device's kind)")
    c.set_defaults(func=cmd_compile)
    r = sub.add_parser("run", help="run a .dml file or an .onnx model on the Vulkan device",
                       description="Run FILE on the Vulkan device: a .dml file with the data "
                       "it gives (or --input), results printed in the file's notation and "
                       "values the file gives for an output checked bit for bit (exit 1 on a "
                       "difference); an .onnx model with an --input for each of its inputs.")
    r.add_argument("file", metavar="FILE", help="a .dml file or an .onnx model")
    r.add_argument("--input", action="append", metavar="NAME=FILE.npy",
                   help="data for the tensor NAME (a .dml file's InputTensor, X...: replacing "
                   "the file's; a model's input); a name FILE lacks is refused. FILE.npz "
                   "holding one array, or FILE.npz:KEY (what -o writes for several outputs)")
    r.add_argument("-o", "--output", metavar="FILE.npy",
                   help="save the result (.npy; .npz for several outputs) instead of printing")
    r.add_argument("--check-indices", action="store_true",
                   help="fail (exit 1) on an index outside its axis instead of clamping it "
                   "(.onnx models always check, as ONNX requires indices in range)")
    r.set_defaults(func=cmd_run)

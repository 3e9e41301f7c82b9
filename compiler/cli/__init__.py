"""The `dmlc` command line: `dmlc compile`, `dmlc run`, `dmlc info`, `dmlc bench`, `--version`.

Artifacts go to stdout, diagnostics to stderr. Exit codes: 0 ok, 1 user error, 2 usage,
3 toolchain or device failure; a reader that closes stdout early (`dmlc info | head`) ends the
command quietly with 141, as a process killed by SIGPIPE.
"""
from __future__ import annotations

import argparse
import os
import sys

from .. import __version__, toolchain
from ..errors import DeviceError, DmlcError, ShaderCompileError, UsageError
from ..passes.pipeline import pass_names
from ..target import resolve as resolve_target
from .commands import add_commands


def cmd_info(args: argparse.Namespace) -> int:
    from ..runtime import backend
    if args.backend:
        backend.set_backend(args.backend)
    glslang = toolchain.find_tool("DMLC_GLSLANG", "glslangValidator")
    print(f"dmlc {__version__}")
    print(f"glslangValidator: {glslang or 'not found (apt-get install glslang-tools)'}")
    print(f"GLSL -> SPIR-V: {toolchain.describe()}")
    print(f"spirv-val: {toolchain.find_tool('DMLC_SPIRV_VAL', 'spirv-val') or 'not found'}")
    cache = toolchain.cache_dir()
    print(f"shader cache: {cache if cache else 'disabled (DMLC_CACHE=0)'}")
    chosen = backend.name()
    other = "webgpu" if chosen == "vulkan" else "vulkan"
    why = (backend.vulkan_problem if other == "vulkan" else backend.webgpu_problem)()
    print(f"backend: {chosen} (dmlc.set_backend, DMLC_BACKEND or --backend; else the available "
          f"one); {other}: {'usable' if why is None else why}")
    return _vulkan_info() if chosen == "vulkan" else _webgpu_info()


def _webgpu_info() -> int:
    from ..runtime import get_device
    dev = get_device()
    print(dev.wgpu_version)
    print(f"device {dev.index}: {dev.name} (WebGPU on {dev.adapter_info['backend_type']}; "
          "choose with DMLC_DEVICE=<index or a piece of the name> among wgpu's adapters)")
    print(f"compile target: {resolve_target(None)} (DMLC_TARGET or the device's kind)")
    _print_info(dev.info())
    return 0


def _print_info(info: dict[str, object]) -> None:
    for key, value in info.items():
        if key == "limits":
            assert isinstance(value, dict)
            print("  limits (" + value.pop("source") + "):")
            for name, limit in value.items():
                print(f"    {name}: {limit}")
        elif key not in ("index", "name"):
            print(f"  {key}: {value}")


def _vulkan_info() -> int:
    from ..runtime import get_device, kompute
    from ..runtime.limits import driver_files, probe
    found = probe()
    print(f"Vulkan binding: {kompute.describe()}")
    print(f"Vulkan loader: {found.loader or 'not found'}")
    print(f"Vulkan drivers: {', '.join(driver_files()) or 'no driver manifests found'}")
    for i, (name, _) in enumerate(found.devices):
        print(f"  physical device {i}: {name}")
    if found.problem:
        raise DeviceError(f"no usable Vulkan device: {found.problem}")
    dev = get_device()
    print(f"device {dev.index}: {dev.name} (choose with DMLC_DEVICE=<index or a piece of the "
          "name>, or dmlc.set_device(); VK_ICD_FILENAMES=<driver json> chooses the drivers)")
    print(f"compile target: {resolve_target(None)} (DMLC_TARGET or the device's kind)")
    _print_info(dev.info())
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .. import bench
    if args.only:
        names = [c.name for c in bench.suite(args.quick)]
        if not any(text in name for text in args.only for name in names):
            raise UsageError(f"--only {' '.join(args.only)} matches no case; the cases are: "
                             + "; ".join(names))
    if args.backend == "both":
        from ..bench.backends import compare
        report = compare(args.quick, args.repeats, print, args.only, args.json)
    else:
        report = bench.run(quick=args.quick, repeats=args.repeats, json_path=args.json,
                           only=args.only, backend=args.backend)
    if args.markdown:
        from ..bench.markdown import to_markdown
        flags = ["--quick"] * args.quick + [f"--repeats {args.repeats}"] + [
            f"--only {text!r}" for text in args.only or []] + [
            f"--backend {args.backend}"] * bool(args.backend)
        print("\n" + to_markdown(report, " ".join(["dmlc bench", *flags, "--markdown"])), end="")
    if args.plot and report["cases"] and report.get("backend") != "both":
        from ..bench.plot import plot
        plot(report, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0 if report["cases"] else 1


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dmlc", description="DirectML data-movement operators "
                                     "compiled to Vulkan compute shaders: .dml files and .onnx "
                                     "models")
    parser.add_argument("--version", action="version", version=f"dmlc {__version__}")
    sub = parser.add_subparsers(dest="command")
    info = sub.add_parser("info", help="show the backend, its device, its limits and the "
                          "shader cache")
    info.add_argument("--backend", choices=("vulkan", "webgpu"),
                      help="the backend to show (default: DMLC_BACKEND, else the available one)")
    info.set_defaults(func=cmd_info)
    bench = sub.add_parser("bench", help="time every operator against copies of the same bytes")
    bench.add_argument("--quick", action="store_true", help="sizes divided by 4 per dimension "
                       "(too small to judge against the targets: no ok/MISS marks)")
    bench.add_argument("--repeats", type=positive_int, default=7,
                       help="timed runs per case (default 7)")
    bench.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    bench.add_argument("--only", metavar="TEXT", action="append",
                       help="run only the cases whose name contains TEXT (repeatable; skips the "
                       "compile-latency and call-overhead sections)")
    bench.add_argument("--plot", metavar="FILE.png", help="also draw the ratios per case, "
                       "targets marked (needs matplotlib: pip install matplotlib)")
    bench.add_argument("--backend", choices=("vulkan", "webgpu", "both"),
                       help="the backend to time (default: DMLC_BACKEND, else the available "
                       "one); both: each case on both, side by side, WebGPU's speed as a ratio "
                       "to Vulkan's")
    bench.add_argument("--markdown", action="store_true",
                       help="also print the results as Markdown tables, with date, device and "
                       "command (what docs/performance.md pastes)")
    bench.set_defaults(func=cmd_bench)
    add_commands(sub, pass_names())
    return parser


BROKEN_PIPE = 141
"""The exit status of `dmlc ... | head` once head has gone: 128 + SIGPIPE, as a shell reports a
process that SIGPIPE killed."""


def main(argv: list[str] | None = None) -> int:
    """The command line; a closed stdout ends it quietly (the recipe of Python's signal docs:
    stdout pointed at devnull, so that the interpreter's last flush does not fail again)."""
    try:
        try:
            status = _main(argv)
        except SystemExit:  # argparse's --help and --version print, then exit
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # a closed pipe shows here at the latest, inside the try
        return status
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except UsageError as e:
        print(f"dmlc: error: {e}", file=sys.stderr)
        return 2
    except (DeviceError, ShaderCompileError) as e:
        print(f"dmlc: error: {e}", file=sys.stderr)
        return 3
    except DmlcError as e:
        print(f"dmlc: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

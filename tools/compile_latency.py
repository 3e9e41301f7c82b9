"""Compile latency of every `dmlc bench` case, the figures of docs/performance.md:

- new: dmlc.compile of the case as the first compile of a new process with an empty SPIR-V
  cache (import dmlc not counted; median over --repeats processes). --warm-up says when glslang
  builds its tables: "import" (dmlc's default: on a thread once `import dmlc` is done),
  "compile" (DMLC_WARM_UP=0: on a thread as dmlc.compile begins), "none" (inside the first
  compile, on its path), "before" (done before the compile starts);
- with --generic, new is the first compile of the case's generic twin instead
  (dmlc.bench.generic_twin: every dimension its family lets vary a push constant);
- cold, disk, warm: the bench's in-process figures (dmlc.bench.compile_latency): no cache after
  an earlier compile, SPIR-V disk cache hit, in-memory cache hit (the median of 20 hits in a
  row; "1st hit" the first of them).

    .venv/bin/python tools/compile_latency.py                 # the toolchain as it is
    DMLC_GLSLANG=process .venv/bin/python tools/compile_latency.py   # glslangValidator processes
    .venv/bin/python tools/compile_latency.py --generic --new-only    # generic kernels' first

Runs on any dmlc checkout's interpreter (it uses only dmlc.compile, dmlc.bench.cases and
dmlc.bench.compile_latency). DMLC_TARGET is set to cpu so no device is asked.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

CHILD = """
import sys, time
import dmlc
from dmlc import toolchain
from dmlc.bench.cases import suite
case = next(c for c in suite(False) if c.name == sys.argv[1])
if sys.argv[2] == "before" and hasattr(toolchain, "warm_up"):
    toolchain.warm_up()
    toolchain.library._warm_thread.join()
if sys.argv[2] == "none" and hasattr(toolchain, "warm_up"):
    toolchain.warm_up = lambda: None
t0 = time.perf_counter()
if sys.argv[3] == "generic":
    from dmlc.bench import generic_twin
    generic_twin(case.descriptor)
else:
    dmlc.compile(case.descriptor)
print((time.perf_counter() - t0) * 1e3)
"""


def new_process_ms(name: str, warm_up: str, repeats: int, kind: str = "specialized") -> float:
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="dmlc-latency-") as cache:
            env = {**os.environ, "DMLC_CACHE_DIR": cache, "DMLC_TARGET": "cpu"}
            if warm_up in ("compile", "none"):
                env["DMLC_WARM_UP"] = "0"
            env.pop("DMLC_CACHE", None)
            done = subprocess.run([sys.executable, "-c", CHILD, name, warm_up, kind],
                                  capture_output=True, text=True, env=env, check=True)
            times.append(float(done.stdout.split()[-1]))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="new processes per case")
    parser.add_argument("--only", action="append", help="cases whose name contains TEXT")
    parser.add_argument("--warm-up", choices=("import", "compile", "none", "before"),
                        default="import",
                        help="when new processes build glslang's tables (default: import)")
    parser.add_argument("--new-only", action="store_true",
                        help="only the new-process figure (not the bench's in-process ones)")
    parser.add_argument("--generic", action="store_true",
                        help="new: the first compile of each case's generic twin (the "
                             "in-process columns stay the specialized kernel's)")
    parser.add_argument("--json", help="also write the rows as JSON")
    args = parser.parse_args()
    os.environ["DMLC_TARGET"] = "cpu"
    from dmlc import toolchain
    from dmlc.bench import compile_latency
    from dmlc.bench.cases import suite
    cases = [c for c in suite(False) if not args.only or any(t in c.name for t in args.only)]
    describe = getattr(toolchain, "describe", lambda: "glslangValidator processes")
    print(f"{datetime.date.today()} on {platform.node()} ({os.cpu_count()} cores), "
          f"DMLC_GLSLANG={os.environ.get('DMLC_GLSLANG', '')!r}: {describe()}; "
          f"new processes warm up: {args.warm_up}"
          f"{'; new: the generic twin' if args.generic else ''}")
    rows: list[dict] = [{"case": c.name, "cold_ms": 0.0, "disk_ms": 0.0, "warm_ms": 0.0,
                         "warm_first_ms": 0.0} for c in cases]
    if not args.new_only:
        with tempfile.TemporaryDirectory(prefix="dmlc-latency-") as cache:
            os.environ["DMLC_CACHE_DIR"] = cache
            rows = compile_latency(cases, repeats=5)
    print(f"{'case':52} {'new ms':>7} {'cold ms':>8} {'disk ms':>8} {'warm ms':>8} "
          f"{'1st hit':>8}")
    for case, row in zip(cases, rows):
        row["new_ms"] = new_process_ms(case.name, args.warm_up, args.repeats,
                                       "generic" if args.generic else "specialized")
        print(f"{case.name:52} {row['new_ms']:7.1f} {row['cold_ms']:8.1f} "
              f"{row['disk_ms']:8.2f} {row['warm_ms']:8.3f} {row['warm_first_ms']:8.3f}",
              flush=True)
    for key in ("new_ms", "cold_ms", "disk_ms", "warm_ms", "warm_first_ms"):
        values = [r[key] for r in rows]
        print(f"{key}: median {statistics.median(values):.2f}, worst {max(values):.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()

"""Where a cold compile's time goes, phase by phase, for every `dmlc bench` case: each case is
the first dmlc.compile of a new process with an empty SPIR-V cache (as tools/compile_latency.py's
"new" figure), its time split among the phases below, each counted exclusive of the phases it
calls (verify inside a planner build counts as verify). Python ms is the compile's wall time
less spir-v's; python cpu ms is the main thread's CPU time outside spir-v (steadier than wall time
on a busy machine), and the phases shown are CPU ms too.

    .venv/bin/python tools/compile_phases.py                         # the table, every case
    .venv/bin/python tools/compile_phases.py --only "pad reflect" --profile 30   # + cProfile

Phases: validate, lower, verify (every verify_program), each pipeline pass, the planner's
candidate builds (plan:cuts, plan:vectors, plan:unroll, plan:cost), codegen (GLSL), spir-v
(glslang, waiting for its tables included) and rest (everything not named). DMLC_TARGET=cpu.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = """
import cProfile, io, json, pstats, sys, time
from collections import defaultdict
import dmlc
from dmlc import compiled, toolchain
from dmlc.bench.cases import suite
from dmlc.codegen import glsl
from dmlc.passes import pipeline, planner, unroll

case = next(c for c in suite(False) if c.name == sys.argv[1])
wall, cpu = defaultdict(float), defaultdict(float)
stack = [["rest", 0.0, 0.0]]

def charge(now, now_cpu):  # the phase on top of the stack ran until now
    name, since, since_cpu = stack[-1]
    wall[name] += now - since
    cpu[name] += now_cpu - since_cpu

def timed(name, fn):
    def wrapper(*args, **kwargs):
        now, now_cpu = time.perf_counter(), time.thread_time()
        charge(now, now_cpu)
        stack.append([name, now, now_cpu])
        try:
            return fn(*args, **kwargs)
        finally:
            now, now_cpu = time.perf_counter(), time.thread_time()
            charge(now, now_cpu)
            stack.pop()
            stack[-1][1:] = [now, now_cpu]
    return wrapper

for module, attr, name in [
        (compiled, "validate", "validate"), (compiled, "lower", "lower"),
        (compiled, "verify_program", "verify"), (pipeline, "verify_program", "verify"),
        (unroll, "verify_program", "verify"), (pipeline, "plan", "plan"),
        (planner, "cuts", "plan:cuts"), (planner, "vectors", "plan:vectors"),
        (planner, "unrolled", "plan:unroll"), (planner, "cost", "plan:cost"),
        (planner, "bound", "plan:cost"), (planner, "locality", "plan:cost"),
        (glsl, "render_glsl", "codegen"), (toolchain, "compile_many", "spir-v")]:
    setattr(module, attr, timed(name, getattr(module, attr)))
pipeline.PIPELINE[:] = [(n, timed(n, f)) for n, f in pipeline.PIPELINE]
profile = cProfile.Profile() if int(sys.argv[2]) else None
if profile:
    profile.enable()
c0, t0 = time.thread_time(), time.perf_counter()
stack[0][1:] = [t0, c0]
dmlc.compile(case.descriptor)
t1, c1 = time.perf_counter(), time.thread_time()
charge(t1, c1)
if profile:
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(int(sys.argv[2]))
    print(text.getvalue(), file=sys.stderr)
print(json.dumps({"total": (t1 - t0) * 1e3, "cpu": (c1 - c0) * 1e3,
                  "phases": {k: v * 1e3 for k, v in wall.items()},
                  "cpu_phases": {k: v * 1e3 for k, v in cpu.items()}}))
"""


def run_case(name: str, profile: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="dmlc-phases-") as cache:
        env = {**os.environ, "DMLC_CACHE_DIR": cache, "DMLC_TARGET": "cpu"}
        env.pop("DMLC_CACHE", None)
        done = subprocess.run([sys.executable, "-c", CHILD, name, str(profile)],
                              capture_output=True, text=True, env=env, check=True)
    if profile:
        print(done.stderr)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3,
                        help="new processes per case (the median run by total is shown)")
    parser.add_argument("--only", action="append", help="cases whose name contains TEXT")
    parser.add_argument("--top", type=int, default=3, help="phases shown per case")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also print the N costliest functions (cProfile, one more run)")
    parser.add_argument("--json", help="also write the rows as JSON")
    args = parser.parse_args()
    os.environ["DMLC_TARGET"] = "cpu"
    from dmlc.bench.cases import suite
    names = [c.name for c in suite(False)
             if not args.only or any(t in c.name for t in args.only)]
    print(f"{'case':52} {'python':>7} {'py cpu':>7} {'spir-v':>7} {'total':>7}  "
          f"top phases (cpu ms)")
    rows = []
    for name in names:
        runs = sorted((run_case(name, 0) for _ in range(args.repeats)),
                      key=lambda r: r["total"])
        row = {"case": name, **runs[len(runs) // 2]}
        row["spirv"] = row["phases"].get("spir-v", 0.0)
        row["python"] = row["total"] - row["spirv"]
        row["python_cpu"] = row["cpu"] - row["cpu_phases"].get("spir-v", 0.0)
        rows.append(row)
        top = sorted((kv for kv in row["cpu_phases"].items() if kv[0] != "spir-v"),
                     key=lambda kv: -kv[1])
        print(f"{name:52} {row['python']:7.1f} {row['python_cpu']:7.1f} {row['spirv']:7.1f} "
              f"{row['total']:7.1f}  " + ", ".join(f"{k} {v:.1f}" for k, v in top[:args.top]),
              flush=True)
        if args.profile:
            run_case(name, args.profile)
    for key in ("python", "python_cpu", "spirv", "total"):
        values = [r[key] for r in rows]
        print(f"{key}: median {statistics.median(values):.1f}, worst {max(values):.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()

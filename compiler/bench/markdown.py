"""`dmlc bench --markdown`: a bench report as the Markdown docs/performance.md pastes, with the
date, the device and the command that produced it, so that a figure never outlives its source."""
from __future__ import annotations

import datetime
from typing import Any


def to_markdown(report: dict[str, Any], command: str) -> str:
    """The report's tables: per case the GB/s and the ratios to the copies of the same bytes,
    then the in-place update and the call overhead when the run measured them."""
    day = datetime.date.today().isoformat()
    if report.get("backend") == "both":
        return _both(report, command, day)
    vk = report.get("buffer_copy", "vkCmdCopyBuffer")
    backend = f", {report['backend']} backend" if "backend" in report else ""
    lines = [f"Measured {day} on {report['device']} (target {report['target']}{backend}) with "
             f"`{command}`; median of {report['repeats']} runs. Ratios are taken in one run "
             "against copies of the same bytes on the same device."
             + (" Quick sizes (divided by 4 per dimension) are too small to judge against the "
                "targets, set for the full sizes: none is marked missed." if report.get("quick")
                else ""), "",
             f"| case | MB | dmlc GB/s | / copy shader | / {vk} | / numpy | goal |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in report["cases"]:
        missed = r["vs_copy_shader"] < r["goal"] and not report.get("quick")
        mark = " (missed)" if missed else ""
        lines.append(f"| {r['case']} | {r['bytes'] / 1e6:.1f} | {r['GB/s']['dmlc']:.2f} | "
                     f"{r['vs_copy_shader']:.2f} | {r['vs_' + vk]:.2f} | "
                     f"{r['vs_numpy']:.2f} | {r['goal']:.1f}{mark} |")
    pairs = [r for r in report["cases"] if r.get("generic")]
    if pairs:
        lines += ["", "| case | specialized GB/s | generic GB/s | generic / specialized | goal |",
                  "|---|---:|---:|---:|---:|"]
        for r in pairs:
            twin = r["generic"]
            missed = twin["vs_specialized"] < twin["goal"] and not report.get("quick")
            lines.append(f"| {r['case']} | {r['GB/s']['dmlc']:.2f} | {twin['GB/s']:.2f} | "
                         f"{twin['vs_specialized']:.2f} | {twin['goal']}"
                         f"{' (missed)' if missed else ''} |")
    update = report.get("in_place_update")
    if update:
        ms = update["ms"]
        lines += ["", "| in-place update | in place ms | copying ms | empty dispatch ms | "
                  "in place / copying | goal |", "|---|---:|---:|---:|---:|---:|",
                  f"| {update['case']} | {ms['in_place']:.3f} | {ms['copying']:.3f} | "
                  f"{ms['empty_dispatch']:.3f} | {update['in_place_vs_copying']:.4f} | "
                  f"<= {update['goal']} |"]
    overhead = report.get("call_overhead")
    if overhead:
        lines += ["", f"Call overhead: a cached kernel on device tensors takes "
                  f"{overhead['kernel_call_us']:.1f} us against {overhead['bare_dispatch_us']:.1f}"
                  f" us for a bare pre-recorded dispatch ({overhead['ratio']:.2f}x; goal <= "
                  f"{overhead['goal']:.0f}x)."]
    return "\n".join(lines) + "\n"


def _both(report: dict[str, Any], command: str, day: str) -> str:
    """`dmlc bench --backend both`: each case's speed on the two backends."""
    lines = [f"Measured {day} on {report['device']} (target {report['target']}) with "
             f"`{command}`; median of {report['repeats']} runs, the two backends interleaved. "
             "Speed: Vulkan's device time / WebGPU's.", "",
             "| case | MB | Vulkan GB/s | WebGPU GB/s | speed | goal |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in report["cases"]:
        missed = r["webgpu_vs_vulkan"] < r["goal"] and not report.get("quick")
        lines.append(f"| {r['case']} | {r['bytes'] / 1e6:.1f} | {r['GB/s']['vulkan_dmlc']:.2f} | "
                     f"{r['GB/s']['webgpu_dmlc']:.2f} | {r['webgpu_vs_vulkan']:.2f} | "
                     f">= {r['goal']}{' (missed)' if missed else ''} |")
    for backend, o in (report.get("call_overhead") or {}).items():
        waited = (f"; each waited for: {o['kernel_call_wait_us']:.1f} us against "
                  f"{o['bare_dispatch_wait_us']:.1f} us" if "kernel_call_wait_us" in o else "")
        lines += ["", f"Call overhead, {backend}: {o['kernel_call_us']:.1f} us per cached call "
                  f"against {o['bare_dispatch_us']:.1f} us for a bare dispatch "
                  f"({o['ratio']:.2f}x){waited}."]
    return "\n".join(lines) + "\n"

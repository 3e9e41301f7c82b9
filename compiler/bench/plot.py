"""`dmlc bench --plot FILE.png`: the report's ratios as a picture, one bar per case, targets
marked. matplotlib is an optional extra (`plot`: `pip install matplotlib`); only this module
needs it."""
from __future__ import annotations

import datetime
from typing import Any

from ..errors import UsageError


def plot(report: dict[str, Any], path: str) -> None:
    """A horizontal bar per case: dmlc's GB/s over the copy shader's (same bytes, same run),
    with the case's target as a tick; a bar that meets its target is drawn solid."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install matplotlib") from None
    cases = report["cases"]
    names = [c["case"] for c in cases]
    ratios = [c["vs_copy_shader"] for c in cases]
    targets = [c["goal"] for c in cases]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(cases) + 1.6))
    ys = list(range(len(cases)))[::-1]
    met = [r >= t for r, t in zip(ratios, targets)]
    ax.barh(ys, ratios, color=["#2f7ed8" if m else "#f4a259" for m in met], height=0.6,
            label="dmlc / copy shader")
    ax.scatter(targets, ys, marker="|", s=400, color="black", zorder=3, label="goal")
    for y, r in zip(ys, ratios):
        ax.text(r + 0.02, y, f"{r:.2f}", va="center", fontsize=8)
    ax.axvline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("bandwidth relative to a copy shader moving the same bytes (same run)")
    ax.set_xlim(0, max(1.2, max(ratios + targets) + 0.2))
    quick = " - quick sizes: targets are for the full sizes" if report.get("quick") else ""
    ax.set_title(f"dmlc bench, {datetime.date.today().isoformat()}, {report['device']} "
                 f"(target {report['target']}){quick}", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
    finally:
        plt.close(fig)

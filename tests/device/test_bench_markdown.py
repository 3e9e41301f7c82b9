"""`dmlc bench --markdown` prints the tables docs/performance.md pastes, with date, device and
command; the in-place update case runs (its speed is the bench's to judge, not a unit test's)."""
from __future__ import annotations

import datetime

import pytest

from dmlc import bench
from dmlc.bench import GENERIC_GOAL
from dmlc.bench.markdown import to_markdown
from dmlc.cli import main
from dmlc.runtime import get_device

pytestmark = pytest.mark.vulkan


def test_bench_markdown_names_date_device_and_command(capsys):
    assert main(["bench", "--quick", "--repeats", "1", "--only", "slice f32 [N,N] rows::2",
                 "--markdown"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("Measured"):]
    assert datetime.date.today().isoformat() in table and get_device().name in table
    assert "`dmlc bench --quick --repeats 1 --only 'slice f32 [N,N] rows::2' --markdown`" in table
    rows = [line for line in table.splitlines() if line.startswith("| slice f32")]
    assert len(rows) == 1 and rows[0].count("|") == 8


def test_the_in_place_update_case_reports_against_copying_and_an_empty_dispatch():
    update = bench.in_place_update(quick=True, repeats=1, calls=2)
    assert set(update["ms"]) == {"in_place", "copying", "empty_dispatch"}
    assert all(v > 0 for v in update["ms"].values())
    report = {"device": "d", "target": "cpu", "repeats": 1, "cases": [],
              "in_place_update": update}
    text = to_markdown(report, "dmlc bench")
    assert "| scatter one row into f16 [2048,1024] |" in text and "<= 0.25" in text


def test_bench_plot_draws_the_ratios(tmp_path, capsys):
    path = tmp_path / "bench.png"
    assert main(["bench", "--quick", "--repeats", "1", "--only", "join", "--plot",
                 str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    assert f"wrote {path}" in capsys.readouterr().err


def test_bench_quick_marks_no_case_missed(capsys):
    """Quick sizes are too small to judge against the full sizes' targets: the run says so."""
    assert main(["bench", "--quick", "--repeats", "1", "--only", "transpose"]) == 0
    out = capsys.readouterr().out
    assert " MISS\n" not in out and "too small to judge" in out
    (row,) = [line for line in out.splitlines() if line.startswith("transpose")]
    assert row.endswith(" -")


def test_bench_pairs_a_generic_kernel_with_its_specialized_twin(capsys):
    """A case whose operator has a generic kernel times it beside the specialized one in the
    same run: its ratio in the text table (unjudged at quick sizes) and the Markdown pairs."""
    assert main(["bench", "--quick", "--repeats", "1", "--only", "gather rows float32 [16384,",
                 "--markdown"]) == 0
    out = capsys.readouterr().out
    pairs = [line for line in out.splitlines() if "its generic kernel" in line]
    assert len(pairs) == 2 and all(
        f"of the specialized kernel (goal >= {GENERIC_GOAL}) -" in p for p in pairs)
    table = out[out.index("| case | specialized GB/s"):]
    assert table.count("| gather rows float32") == 2


def test_bench_has_no_pair_without_a_generic_kernel():
    report = {"device": "d", "target": "cpu", "repeats": 1, "cases": [
        {"case": "c", "bytes": 8, "GB/s": {"dmlc": 1.0}, "vs_copy_shader": 1.0,
         "vs_vkCmdCopyBuffer": 1.0, "vs_numpy": 1.0, "goal": 0.8, "generic": None}]}
    assert "generic / specialized" not in to_markdown(report, "dmlc bench")

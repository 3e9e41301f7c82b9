"""The bench's picture (compiler/bench_plot.py, matplotlib an optional extra): one bar per case,
the targets marked. Drawn from a report the test writes, so no device is needed."""
from __future__ import annotations

import pytest

import dmlc
from dmlc.bench.plot import plot

REPORT = {"device": "llvmpipe", "target": "cpu", "repeats": 1, "cases": [
    {"case": "join 3 f32", "vs_copy_shader": 0.84, "goal": 0.8},
    {"case": "transpose f32 [4096,4096]", "vs_copy_shader": 0.31, "goal": 0.5}]}


def test_a_plot_is_a_png_with_every_case(tmp_path):
    image = pytest.importorskip("matplotlib.image")  # the test extra installs matplotlib
    path = tmp_path / "bench.png"
    plot(REPORT, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    height, width = image.imread(str(path)).shape[:2]
    assert width > 600 and height > 150


def test_an_unwritable_path_is_a_usage_error(tmp_path):
    pytest.importorskip("matplotlib")
    with pytest.raises(dmlc.DmlcError, match="cannot write"):
        plot(REPORT, str(tmp_path / "missing" / "bench.png"))


def test_quick_sizes_are_not_judged_against_full_size_targets():
    from dmlc.bench import judged
    from dmlc.bench.markdown import to_markdown
    case = {"case": "transpose f32 [1024,1024]", "bytes": 8e6, "vs_copy_shader": 0.31,
            "vs_vkCmdCopyBuffer": 0.1, "vs_numpy": 1.0, "goal": 0.5,
            "GB/s": {"dmlc": 1.0}}
    full = to_markdown({**REPORT, "quick": False, "cases": [case]}, "dmlc bench")
    quick = to_markdown({**REPORT, "quick": True, "cases": [case]}, "dmlc bench --quick")
    assert "(missed)" in full and "(missed)" not in quick and "too small to judge" in quick
    assert (judged(False, False), judged(True, False), judged(False, True)) == ("MISS", "ok",
                                                                              "-")

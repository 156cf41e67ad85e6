"""One ceiling source for the roofline's chart, table and JSON; the chart title never clipped; ``--levels``
defaults to the longest launch; file paths whole in errors; the bundled example's roofline shows a point
(tryout items 4, 13, 14)."""

from __future__ import annotations

import json
import math
import re

import pytest

from conftest import CORPUS_NCU, EXAMPLE, need
from kernelscope.api import diagnose_file
from kernelscope.cli import main
from kernelscope.errors import InputError, one_line
from kernelscope.knowledge.gpus import find_gpu
from kernelscope.render import roofline_data
from kernelscope.render.common import Fmt

FEATHER = CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_09_double_buffering.ncu-rep"


def test_ceilings_carry_one_scale():
    gpu = find_gpu("NVIDIA A100-SXM4-40GB")
    sheet = roofline_data.ceilings(gpu)
    scaled = roofline_data.ceilings(gpu, 0.5)
    assert [p for _, p in sheet] == [p for _, p in scaled]
    assert all(math.isclose(a, 2 * b) for (a, _), (b, _) in zip(sheet, scaled))


def test_chart_table_and_json_draw_the_same_ceilings(capsys, monkeypatch):
    """The clock-scaled ceilings of the points (diagnose's) on the chart, in the table and in the JSON."""
    from kernelscope.render.charts import roofline as chart

    res = diagnose_file(str(need(FEATHER)))
    data = roofline_data.report_data(res)
    main_point = next(lp.points[0] for lp in data.launches if lp.points)
    assert main_point.clock_scale is not None and main_point.clock_scale < 0.95  # profiled below boost
    assert data.clock_scale == pytest.approx(main_point.clock_scale)
    peaks = {pipes: peak for peak, pipes in data.ceilings}
    fp32 = next(peak for pipes, peak in peaks.items() if main_point.pipe in pipes)
    assert fp32 == pytest.approx(main_point.peak_flops_per_s)  # what the efficiency is of
    f = Fmt("en")
    gpu = roofline_data.pick_gpu(res.kernels)
    points, _ = chart._points(res.kernels, gpu, None, f, False, f)
    drawn = chart._roof(gpu, f, points)
    assert [p for p, _, _ in drawn.ceilings] == pytest.approx([p for p, _ in data.ceilings])
    assert any(f.flops(fp32) in label for _, _, label in drawn.ceilings)
    assert main(["roofline", str(FEATHER), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["clock_scale"] == pytest.approx(data.clock_scale)
    assert [r["peak_flops_per_s"] for r in doc["compute_roofs"]] == pytest.approx([p for p, _ in data.ceilings])
    ridge = next(r for r in doc["ridge_points"] if main_point.pipe in r["pipes"])
    assert ridge["arithmetic_intensity_flop_per_byte"] == pytest.approx(main_point.ridge_point_flop_per_byte)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["roofline", str(FEATHER), "--format", "table"]) == 0
    assert f.flops(fp32) in capsys.readouterr().out


@pytest.mark.parametrize("width,size", [(10.0, 12.0), (7.5, 10.5)])
def test_title_fits_the_figure(width, size):
    from kernelscope.render.charts.style import _new_figure, _text_width_in, fit_title

    fig, renderer = _new_figure(width, 6.0)
    long = "Roofline: " + "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_" * 2 + \
        " on NVIDIA GeForce RTX 4060 Laptop GPU"
    text, s, lines = fit_title(fig, renderer, long, width, size)
    assert lines == len(text.split("\n")) > 1
    assert _text_width_in(fig, renderer, text.split("\n"), s, "bold") <= width - 0.3 + 1e-9
    assert text.replace("\n", "").replace(" ", "") == long.replace(" ", "")  # nothing cut off
    short, s2, one = fit_title(fig, renderer, "Roofline: x on GPU", width, size)
    assert (short, s2, one) == ("Roofline: x on GPU", size, 1)


def test_levels_default_is_the_longest_launch(tmp_path, capsys):
    from kernelscope.analysis.selection import longest_launch

    res = diagnose_file(str(need(FEATHER)))
    d = longest_launch(res.kernels, lambda x: x.kernel)
    assert d.kernel.duration_s == max(k.kernel.duration_s for k in res.kernels)
    assert res.kernels[0].kernel.index != d.kernel.index  # launch 0 is the warm-up
    assert main(["roofline", str(FEATHER), "--levels", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["launches"][0]["index"] == d.kernel.index
    assert f"launch {d.kernel.index} ({d.kernel.name}" in out.err and "longest" in out.err


def test_error_paths_printed_whole(tmp_path, capsys):
    """A path longer than the cut-off is never shortened in an error, in either language."""
    deep = tmp_path / ("d" * 70) / ("e" * 70)
    deep.mkdir(parents=True)
    bad = deep / "report_with_a_long_name.ncu-rep"
    bad.write_text("hello world", encoding="utf-8")
    for lang in ("en", "zh"):
        for cmd in (["roofline", str(bad), "--format", "json"], ["diagnose", str(bad)], ["fusion", str(bad)]):
            assert main([*cmd, "--lang", lang]) == 2
            err = capsys.readouterr().err
            assert str(bad) in err and "characters]" not in err, err
    assert str(bad) in str(InputError(str(bad), "x " + str(bad)))
    junk = "x" * 500
    assert "[500 characters]" in one_line(f"value {junk}")  # a long value that is not a path is still cut
    assert one_line(f"value {junk}", [junk]) == f"value {junk}"


def test_bundled_example_roofline_has_a_point(capsys):
    """examples/seed_kernels.toml: the roof is that of the GPU of the launch that can be plotted, and every launch
    that cannot says why (its own reason, not merely 'another GPU')."""
    assert main(["roofline", str(EXAMPLE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    plotted = [lp for lp in doc["launches"] if lp["points"]]
    assert plotted and doc["gpu"] is not None
    for lp in doc["launches"]:
        assert bool(lp["points"]) != bool(lp["not_plotted"]), lp
        assert not lp["points"] or "another GPU" not in (lp["not_plotted"] or "")
    unplotted = [lp["not_plotted"] for lp in doc["launches"] if not lp["points"]]
    assert all(re.search("DRAM|FLOP|another GPU", why) for why in unplotted)
    res = diagnose_file(str(EXAMPLE))
    own = [roofline_data.why_not_plotted(d, d.gpu, Fmt("en")) for d in res.kernels]
    for why, lp in zip(own, doc["launches"]):  # the reason the launch lacks a point on any roof comes first
        if why is not None:
            assert lp["not_plotted"] == why

"""Repeated launches -> one panel: launches of one kernel, grid and block grouped (kernelscope.analysis.groups), the
representative's panel with the spread and the launches that differ in the table, Markdown and HTML, every launch
plus the groups in the JSON, ``--launches all`` for the per-launch view, the groups with the most time in full."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, REPO, need
from kernelscope import diagnose_file
from kernelscope.analysis.groups import OUTLIER_FACTOR, group_launches, launch_groups, spread_of
from kernelscope.cli import main
from kernelscope.render import charts, render
from kernelscope.render.html import to_html
from kernelscope.render.launch_groups import FULL_GROUPS
from test_render_corpus import assert_offline, check_html

PIRAGI = CORPUS_NCU / "piragi__fuzigrad__output.ncu-rep"
A100 = "NVIDIA A100-SXM4-80GB"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def panels(table: str) -> list[str]:
    """The titles of a table's panels ("[index] name" lines)."""
    return [t.rstrip() for t in re.findall(r"^\[\d+\] .*$", table, flags=re.M)]


def validate(doc: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "diagnosis-1.schema.json").read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: e.json_path)
    assert not errors, f"{errors[0].json_path}: {errors[0].message[:300]}"


def kernel(name: str, duration_us: float, grid=(64, 1, 1), block=(256, 1, 1), **extra) -> dict:
    """One launch of a plain-numbers file: a roofline point (FLOPs, DRAM bytes), Speed-of-Light and stalls."""
    return {"name": name, "device": A100, "duration_us": duration_us, "flops": 2.0e9 * duration_us / 100,
            "pipe": "fp32", "dram_bytes": 1.0e8 * duration_us / 100, "sol_memory_pct": 85.0,
            "sol_compute_pct": 30.0, "achieved_occupancy_pct": 60.0, "grid": list(grid), "block": list(block),
            "stall_breakdown_pct": {"Long Scoreboard": 60.0, "Not Selected": 25.0, "MIO Throttle": 15.0}, **extra}


@pytest.fixture
def repeated(tmp_path) -> Path:
    """``gemm`` 20 launches of 100 µs, the 8th (index 7) 3x slower; ``small`` 30 of 10 µs; ``gemm`` on another grid
    once (its own group); ``late`` 2 of 500 µs (the largest total after gemm)."""
    launches = [kernel("gemm", 300.0 if i == 7 else 100.0 + i % 3) for i in range(20)]
    launches += [kernel("small", 10.0 + (i % 2) * 0.5, grid=(8, 1, 1)) for i in range(30)]
    launches.append(kernel("gemm", 100.0, grid=(128, 1, 1)))
    launches += [kernel("late", 500.0, grid=(4, 4, 1)) for _ in range(2)]
    path = tmp_path / "repeated.json"
    path.write_text(json.dumps({"kernel": launches}), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------- the 100-launch report


def test_the_100_launch_report_is_one_panel_with_its_spread(capsys):
    path = str(need(PIRAGI))
    out = run(capsys, "diagnose", path, "--details")  # the spread is in the whole panel
    titles = panels(out)
    assert len(titles) == 1 and titles[0].endswith("matmul_2d_tiling ×100"), titles
    assert "100 launches, 1.184 s in all (100% of GPU time)" in " ".join(out.split())
    spread = " ".join(out.split("Spread (min / median / max)")[1].split("Launches that differ")[0].split())
    assert re.search(r"duration 11\.\d\d / 11\.84 / 11\.\d\d ms", spread), spread  # one scale, the unit once
    assert "SOL compute 53." in spread and "achieved occupancy 32." in spread
    assert "not measured: DRAM bytes, arithmetic intensity, achieved FLOP/s" in spread  # never a 0
    # the measured spread, not the outlier band: 11.82 ms to 11.91 ms around the median 11.84 ms
    assert "none: every launch 1.00x-1.01x the median duration (11.82 ms to 11.91 ms)" in " ".join(out.split())


def test_launches_all_gives_a_panel_per_launch(capsys):
    path = str(need(PIRAGI))
    out = run(capsys, "diagnose", path, "--launches", "all")
    assert len(panels(out)) == 100
    assert "×100" not in out and "Spread (min" not in out


def test_json_keeps_every_launch_and_adds_the_group(capsys):
    path = str(need(PIRAGI))
    doc = json.loads(run(capsys, "diagnose", path, "--format", "json"))
    validate(doc)
    entry = doc["inputs"][0]
    assert len(entry["launches"]) == 100 and len(entry["groups"]) == 1
    g = entry["groups"][0]
    assert g["name"] == "matmul_2d_tiling" and g["count"] == 100 and g["launches"] == list(range(100))
    assert g["grid"] == [32, 32, 1] and g["block"] == [16, 16, 1]
    assert g["representative"] in g["launches"] and g["outliers"] == []
    durations = sorted(x["duration_s"] for x in entry["launches"])
    s = g["spread"]["duration_s"]
    assert (s["min"], s["max"], s["measured"]) == (durations[0], durations[-1], 100)
    assert s["median"] == pytest.approx((durations[49] + durations[50]) / 2)
    assert g["total_s"] == pytest.approx(sum(durations))
    assert g["spread"]["dram_bytes"] is None  # not measured stays not measured
    rep = next(x for x in entry["launches"] if x["index"] == g["representative"])
    assert rep["duration_s"] == durations[49]  # the launch of median duration (the lower middle one)


# ---------------------------------------------------------------------------------------- grouping itself


def test_groups_by_kernel_grid_and_block_ordered_by_total_time(repeated):
    res = diagnose_file(repeated)
    groups = launch_groups(res)
    assert [(g.name, g.grid, g.count) for g in groups] == [
        ("gemm", (64, 1, 1), 20), ("late", (4, 4, 1), 2), ("small", (8, 1, 1), 30), ("gemm", (128, 1, 1), 1)]
    totals = [g.total_duration_s for g in groups]
    assert totals == sorted(totals, reverse=True)
    assert sum(g.time_share for g in groups) == pytest.approx(1.0)
    assert groups[0].indices == tuple(range(20))
    # ties keep report order: two groups of equal total time
    tie = group_launches([res.kernels[20], res.kernels[50]])  # small (10 µs) vs gemm on 128 blocks (100 µs)
    assert [g.name for g in tie] == ["gemm", "small"]


def test_a_launch_three_times_slower_is_called_out(repeated, capsys):
    g = launch_groups(diagnose_file(repeated))[0]
    assert g.representative.kernel.duration_s == pytest.approx(101e-6)  # median of 100/101/102 µs, not the slow one
    assert [(o.index, round(o.duration_ratio, 2), o.verdict) for o in g.outliers] == [(7, 2.97, None)]
    assert g.spread["duration_s"].max == pytest.approx(300e-6)
    out = " ".join(run(capsys, "diagnose", str(repeated)).split())
    assert "Launches that differ [7] 2.97x the median duration" in out
    doc = json.loads(run(capsys, "diagnose", str(repeated), "--format", "json"))
    validate(doc)
    outliers = doc["inputs"][0]["groups"][0]["outliers"]
    assert outliers == [{"index": 7, "duration_ratio": pytest.approx(300 / 101), "classes": None,
                         "text": "[7] 2.97x the median duration"}]


def test_a_launch_with_another_verdict_is_called_out(tmp_path):
    launches = [kernel("k", 100.0) for _ in range(4)] + [kernel("k", 100.0, sol_memory_pct=20.0, sol_compute_pct=95.0)]
    path = tmp_path / "verdict.json"
    path.write_text(json.dumps({"kernel": launches}), encoding="utf-8")
    res = diagnose_file(path)
    (g,) = launch_groups(res)
    assert [(o.index, o.duration_ratio) for o in g.outliers] == [(4, None)]
    assert g.outliers[0].verdict == res.kernels[4].verdict != g.representative.verdict


def test_spread_and_band():
    assert spread_of([None, 3.0, float("nan"), 1.0, 2.0, 10.0]).__dict__ == {
        "min": 1.0, "median": 2.5, "max": 10.0, "measured": 4}
    assert spread_of([None, float("inf")]) is None
    assert OUTLIER_FACTOR == 1.5


def test_a_group_of_one_launch_is_todays_panel(capsys):
    from conftest import EXAMPLE

    grouped, every = run(capsys, "diagnose", str(EXAMPLE)), run(capsys, "diagnose", str(EXAMPLE), "--launches", "all")
    # the same panels in one order, the largest total time first in both views, nothing added to them
    assert panels(grouped) == panels(every) and "×" not in "".join(panels(grouped))
    assert [t.split("]")[0] for t in panels(grouped)] == ["[1", "[2", "[0"]  # 12.3 ms, 2.1 ms, 32 µs
    extra = [line for line in grouped.splitlines() if line not in every.splitlines()]
    assert len(extra) == 1 and "3 launches in 3 groups" in extra[0]
    assert sorted(line for line in grouped.splitlines() if line not in extra) == sorted(every.splitlines())


# ---------------------------------------------------------------------------------------- charts per group


def test_html_and_markdown_have_charts_per_group(repeated, tmp_path, capsys):
    res = diagnose_file(repeated)
    groups = launch_groups(res)
    page = to_html([res], "en")
    tags = check_html(page)
    assert_offline(page)
    assert tags["section"] == 1 + len(groups)  # one card per group, not per launch (53 launches)
    # two report charts, then a roofline and a stall chart per group card
    assert tags["figure"] == 2 + 2 * len(groups)
    assert page.count("×20</span>") == 1 and page.count("×30</span>") == 1
    assert "Launches that differ</b>: [7] 2.97x the median duration" in page
    # the report roofline: one point per group (its representative), labelled with its launch count
    svg = charts.report_roofline_chart(res, "en", "svg", groups=groups)
    ids = {el.get("id") for el in ET.fromstring(svg).iter() if el.get("id")}
    points = {m.group(1) for i in ids if (m := re.search(r"-ks-kernel-(\d+)$", i))}
    assert points == {str(g.representative.kernel.index) for g in groups}
    md = tmp_path / "report.md"
    run(capsys, "diagnose", str(repeated), "--format", "markdown", "-o", str(md), "--details")
    text = md.read_text(encoding="utf-8")
    assert "![Roofline](report_roofline.svg)" in text and (tmp_path / "report_stalls.svg").exists()
    assert len(re.findall(r"^### \[\d+\] `", text, flags=re.M)) == len(groups)
    assert "| Spread over the launches | min | median | max |" in text
    roof = ET.fromstring((tmp_path / "report_roofline.svg").read_bytes())
    md_points = {m.group(1) for el in roof.iter() if (m := re.search(r"-ks-kernel-(\d+)$", el.get("id") or ""))}
    assert md_points == points
    # per launch, as before: a card per launch
    assert check_html(to_html([res], "en", launches="all"))["section"] == 1 + len(res.kernels)


def test_the_groups_with_the_most_time_in_full_the_others_as_rows(tmp_path, capsys):
    names = [f"kernel_{i:02d}" for i in range(FULL_GROUPS + 5)]
    launches = [kernel(name, 10.0 * (len(names) - i)) for i, name in enumerate(names) for _ in range(2)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"kernel": launches}), encoding="utf-8")
    out = run(capsys, "diagnose", str(path))
    assert len(panels(out)) == FULL_GROUPS
    assert panels(out)[0].startswith("[0] kernel_00 ×2") and "Other kernels: 5 groups" in out
    rest = out.split("Other kernels: 5 groups")[1]
    assert [n for n in names if n in rest] == names[FULL_GROUPS:]
    page = to_html([diagnose_file(path)], "en")
    assert check_html(page)["section"] == 1 + FULL_GROUPS and 'href="#r0-rest"' in page
    md = render([diagnose_file(path)], "markdown")
    assert "### Other kernels: 5 groups" in md and "| `kernel_29` | 2 |" in md
    assert len(panels(run(capsys, "diagnose", str(path), "--launches", "all"))) == len(launches)


def test_launches_option_is_checked(capsys):
    from conftest import EXAMPLE

    with pytest.raises(SystemExit):
        main(["diagnose", str(EXAMPLE), "--launches", "some"])
    assert "invalid choice" in capsys.readouterr().err
    with pytest.raises(ValueError):
        render([diagnose_file(EXAMPLE)], "table", launches="some")


def test_chinese_group_panel(repeated, capsys):
    out = run(capsys, "diagnose", str(repeated), "--lang", "zh", "--details")
    assert "波动（最小 / 中位 / 最大）" in out and "离群启动" in out and "耗时为中位数的 2.97 倍" in out


@pytest.mark.skipif(sys.platform == "win32", reason="the benchmark's generator writes a temporary file")
def test_benchmark_generator_writes_a_readable_details_page(tmp_path):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import many_launches_bench as bench
    finally:
        sys.path.pop(0)
    path = tmp_path / "model.csv"
    info = bench.generate(path, launches=120, kernels=12)
    res = diagnose_file(path)
    assert len(res.kernels) == info["launches"] == 120
    groups = launch_groups(res)
    assert 12 <= len(groups) <= 14 and sum(g.count for g in groups) == 120
    assert all(d.gpu is not None and d.gpu.name == bench.GPU for d in res.kernels)


def test_diagnose_leaves_the_garbage_collector_as_it_found_it(capsys):
    """diagnose pauses the cyclic collector while it reads, diagnoses and renders (a whole model's launches are
    millions of long-lived objects), and gives it back as it was, nothing left frozen."""
    import gc

    from conftest import EXAMPLE

    assert gc.isenabled()
    run(capsys, "diagnose", str(EXAMPLE), "--format", "json")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        run(capsys, "diagnose", str(EXAMPLE), "--format", "markdown")
        assert not gc.isenabled()
    finally:
        gc.enable()


READ_OFFSET = CORPUS_NCU / "Lashi0812__CudaProgramming__profile.ncu-rep"


def test_a_group_whose_launches_ran_at_different_clocks_says_so(capsys):
    # readOffset's three launches: DRAM 10.12 GHz for launch 0, 9.07-9.08 GHz for the others (SM 2.20 vs 1.97 GHz):
    # launch 0's 0.89x duration is mostly the clock's (blind review 23)
    from kernelscope.analysis.groups import CLOCK_SPREAD, clock_ranges
    from kernelscope.render.common import Fmt
    from kernelscope.render.launch_groups import outliers_line

    rd = diagnose_file(need(READ_OFFSET))
    (g,) = launch_groups(rd)
    dram = {c.clock: c for c in g.clocks}["dram"]
    rates = [d.kernel.metrics["dram__cycles_elapsed.avg.per_second"] for d in rd.kernels]
    assert (dram.min_hz, dram.max_hz) == (min(rates), max(rates)) and dram.max_hz / dram.min_hz > 1.1
    assert {c.clock for c in g.clocks} == {"sm", "dram"}
    en, zh = outliers_line(g, Fmt("en")), outliers_line(g, Fmt("zh"))
    assert "the launches ran at different clocks (SM 1.97-2.20 GHz, DRAM 9.07-10.1 GHz)" in en
    assert "ncu --clock-control base" in en and "锁定频率" in zh
    # one clock within CLOCK_SPREAD: nothing said (the two slower launches alone)
    assert clock_ranges(rd.kernels[1:]) == ()
    assert max(rates[1:]) / min(rates[1:]) < CLOCK_SPREAD
    doc = json.loads(run(capsys, "diagnose", str(READ_OFFSET), "--format", "json", "-q"))
    assert [c["clock"] for c in doc["inputs"][0]["groups"][0]["clocks"]] == ["sm", "dram"]
    assert not any(g["clocks"] for g in json.loads(run(capsys, "diagnose", str(need(PIRAGI)), "--format", "json",
                                                      "-q"))["inputs"][0]["groups"])

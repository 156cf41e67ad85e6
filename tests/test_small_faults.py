"""Small faults of issue 27 item 6, each checked on what a user sees: class findings named in words (not rule ids),
integer work in OP/s wherever it is shown, the roofline table's ceilings at the clock its percentages use, the
noise wording of summary rows, the HTML's SASS text at the instructions the findings point to, and no file in
``docs/`` that nothing links to (a stale screenshot)."""

from __future__ import annotations

import html as htmllib
import json
import re

import pytest

from conftest import CORPUS_NCU, REPO, need
from kernelscope.analysis.compare import compare
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.engine import Finding
from kernelscope.api import diagnose_file
from kernelscope.cli import main
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.notes import Note
from kernelscope.render.common import Fmt
from kernelscope.render.rows import kernel_rows
from kernelscope.render.compare import to_text

NAIVE = CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"
INT8 = CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep"  # a CUTLASS INT8 tensor-core GEMM


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_class_findings_are_named_in_words_not_by_their_rule_id(lang):
    """The top-finding column of ``timeline --kernels`` (and Nsight's "both found") named class rules by their ids
    (``memory_throughput``, ``headline_advice``)."""
    f = Fmt(lang)
    memory = Finding("memory_throughput", "warning", Note("rule_memory_dram", {"dram": 91.0, "limit": 80.0}),
                     bound="memory-bound")
    headline = Finding("headline_advice", "info", Note("headline_advice", {"bound": "memory-bound"}))
    assert f.finding_title(memory.id, memory) == f.bound("memory-bound") != "memory_throughput"
    words = f.finding_title(headline.id, headline)
    assert words == f.note(headline.message) and "headline_advice" not in words and "{" not in words


def test_integer_work_is_in_op_per_second_in_the_panel_as_in_the_roofline():
    (res,) = [diagnose_file(need(INT8))]
    int8 = [d for d in res.kernels if d.roofline is not None and d.roofline.pipe.startswith("int")]
    assert int8, "the INT8 GEMM's roofline is on the INT8 tensor pipe"
    achieved = dict(kernel_rows(int8[0], Fmt("en")))["Achieved"]
    assert "TOP/s" in achieved and "FLOP/s" not in achieved
    assert Fmt("en").flops(13.3e12, "int8_tensor") == "13.3 TOP/s" and Fmt("en").flops(13.3e12, "fp32") == "13.3 TFLOP/s"


def test_roofline_table_ceilings_are_the_clock_scaled_ones_its_points_use(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["roofline", str(need(NAIVE)), "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert main(["diagnose", str(NAIVE), "--format", "json"]) == 0
    r = json.loads(capsys.readouterr().out)["inputs"][0]["launches"][1]["roofline"]
    assert r["pipe"] == "fp32" and r["clock_scale"] < 0.95  # profiled below the boost clock
    row = next(line for line in table.splitlines() if "FP32 CUDA cores" in line and "FLOP/B" in line)
    f = Fmt("en")
    assert f.flops(r["peak_flops_per_s"]) in row and f.intensity(r["ridge_point_flop_per_byte"]) in row
    assert f.flops(r["datasheet_peak_flops_per_s"]) not in row and f"x{r['clock_scale']:.2f}" in row


def _summary_row(name: str, duration_s: float, launches: int):
    """A summary row (``nsys stats``-like): ``launches`` launches, their mean, no spread recorded."""
    gpu = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})
    k = KernelProfile(index=0, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=(10, 1, 1), block=(256, 1, 1)), duration_s=duration_s,
                      launch_count=launches)
    return diagnose(k, gpu)


@pytest.mark.parametrize("lang, wrong", [("en", "fewer than two launches"), ("zh", "不足两次启动")])
def test_noise_of_summary_rows_of_five_launches_is_not_blamed_on_the_launch_count(lang, wrong):
    c = compare([_summary_row("k", 2e-3, 5)], [_summary_row("k", 1e-3, 5)])
    assert c.pairs and c.pairs[0].noise is None  # no spread recorded: the noise is not known
    text = " ".join(to_text(c, lang).split())  # (the words, whatever the width wraps)
    assert wrong not in text and ("a side records neither two measured launches" in text or lang == "zh")


def test_html_sass_cells_are_filled_at_the_instructions_the_findings_point_to(tmp_path, capsys):
    page = tmp_path / "r.html"
    assert main(["diagnose", str(need(NAIVE)), "-o", str(page), "-q"]) == 0
    assert main(["diagnose", str(NAIVE), "--format", "json"]) == 0
    launch = json.loads(capsys.readouterr().out)["inputs"][0]["launches"][1]
    offsets = {x["offset"] for f in launch["findings"] for x in f["locations"]}
    assert len(offsets) >= 3
    text = page.read_text(encoding="utf-8")
    for off in offsets:
        row = re.search(rf"<td class=\"muted\">\+0x{off:04x}</td>(.*?)</tr>", text)
        assert row is not None, hex(off)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row[1])
        assert htmllib.unescape(cells[2]).strip(), (hex(off), cells)  # offset | samples | executed | SASS | ...


def test_every_file_in_docs_is_linked_from_the_readme_or_the_docs():
    docs = REPO / "docs"
    texts = [(REPO / "README.md").read_text(encoding="utf-8")] + [p.read_text(encoding="utf-8") for p in docs.glob("*.md")]
    unlinked = [p.name for p in docs.iterdir() if not any(p.name in t for t in texts)]
    assert unlinked == [], f"nothing links to {unlinked} (stale? delete it or link it)"

"""Findings pointed at their instructions (issue 13): the locate metric of each finding (data/findings.toml), the
derived idle thread slots, and on the corpus the PCs Nsight Compute's own rules marked."""

from __future__ import annotations

import json

import math

import pytest

from conftest import CORPUS_NCU, need
from kernelscope import diagnose_file
from kernelscope.analysis.engine import Finding
from kernelscope.analysis.locations import Location, locate, locate_findings, needed_metrics, with_lines
from kernelscope.model import InstructionValues
from kernelscope.notes import Note
from kernelscope.render.json import to_json_text


def _finding(finding_id: str) -> Finding:
    return Finding(finding_id, "optimization", Note(f"f_{finding_id}", {}), (), advice=f"finding:{finding_id}")


def _values() -> InstructionValues:
    # four instructions at 0x1000.. of a function starting at 0x1000
    pcs = (0x1000, 0x1010, 0x1020, 0x1030)
    return InstructionValues(function_pc=0x1000, values={
        "inst_executed": dict(zip(pcs, (100.0, 100.0, 50.0, 10.0))),
        "thread_inst_executed": dict(zip(pcs, (3200.0, 800.0, 1600.0, 320.0))),
        "derived__memory_l2_theoretical_sectors_global_excessive": dict(zip(pcs, (0.0, 300.0, 100.0, math.nan))),
    })


def test_locate_by_hand():
    values = {0x100: 1.0, 0x110: 5.0, 0x120: math.nan, 0x130: 5.0, 0x140: 0.0}
    # total 11; ties (5, 5) by PC; zero and NaN left out
    assert locate(values, "m", 0x100, top=5) == (
        Location(0x110, 0x10, None, None, 5.0, 5 / 11, "m"),
        Location(0x130, 0x30, None, None, 5.0, 5 / 11, "m"),
        Location(0x100, 0x0, None, None, 1.0, 1 / 11, "m"),
    )
    assert len(locate(values, "m")) == 3 and locate({0x100: 0.0}, "m") == ()
    assert locate(values, "m")[0].offset is None  # no function PC: no offset
    lined = with_lines({"f": locate(values, "m", top=2)}, {0x110: ("a.cu", 12), 0x130: (None, None)})
    assert [(x.file, x.line) for x in lined["f"]] == [("a.cu", 12), (None, None)]


def test_needed_metrics_take_the_first_one_the_report_holds():
    found = [_finding("uncoalesced_global"), _finding("thread_divergence"), _finding("speed_of_light")]
    # the older name of the excess-sector metric when the newer one is absent; divergence needs both inputs
    assert needed_metrics(found, ["derived__memory_l2_sectors_global_excessive", "inst_executed"]) == (
        "derived__memory_l2_sectors_global_excessive",)
    assert needed_metrics(found, ["inst_executed", "thread_inst_executed"]) == ("inst_executed", "thread_inst_executed")
    assert needed_metrics([_finding("speed_of_light")], ["inst_executed"]) == ()


def test_locations_by_hand():
    located = locate_findings([_finding("uncoalesced_global"), _finding("thread_divergence")], _values(), top=2)
    # excess sectors 0, 300, 100, NaN: 0x1010 holds 300 / 400 = 75 %, 0x1020 25 %
    glob = located["uncoalesced_global"]
    assert [(x.pc, x.offset) for x in glob] == [(0x1010, 0x10), (0x1020, 0x20)]
    assert [x.share for x in glob] == pytest.approx([0.75, 0.25])
    # idle thread slots = 32 x executed - thread executed: 0, 2400, 0, 0 -> only 0x1010 (zeros left out)
    div = located["thread_divergence"]
    assert [(x.pc, x.value, x.metric) for x in div] == [(0x1010, 2400.0, "idle_thread_slots")]
    assert div[0].share == pytest.approx(1.0)


def _marker_pcs(path, launch: int, rule: str) -> set[int]:
    """The PCs Nsight Compute's rule ``rule`` marked on launch ``launch`` (read with ncu_report directly)."""
    ncu_report = pytest.importorskip("ncu_report")
    ctx = ncu_report.load_report(str(path))
    action = ctx.range_by_idx(0).action_by_idx(launch)
    return {int(m["source_address"]) for m in action.source_markers() if m["rule_identifier"] == rule}


def test_uncoalesced_finding_points_where_nsight_marked():
    path = need(CORPUS_NCU / "armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep")
    d = diagnose_file(path).kernels[0]
    marked = _marker_pcs(path, 0, "UncoalescedGlobalAccess")
    assert len(marked) == 24
    ours = d.locations["uncoalesced_global"]
    assert ours and {x.pc for x in ours} <= marked
    # this report has no line information (compiled without -lineinfo): the places are PC offsets
    assert all(x.file is None and x.offset is not None for x in ours)


def test_long_scoreboard_finding_points_where_nsight_marked():
    path = need(CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep")
    d = diagnose_file(path).kernels[0]
    marked = _marker_pcs(path, 0, "CPIStall")  # "...% of the stalls for this line are of type long_scoreboard"
    ours = d.locations["long_scoreboard_latency"]
    assert ours[0].pc in marked
    assert sum(x.share for x in ours) > 0.5


def test_locations_in_json_and_table():
    path = need(CORPUS_NCU / "armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep")
    rd = diagnose_file(path)
    doc = json.loads(to_json_text([rd], "en"))
    finding = next(f for f in doc["inputs"][0]["launches"][0]["findings"] if f["id"] == "uncoalesced_global")
    assert finding["locations"] and finding["locations"][0]["metric"].endswith("_excessive")
    from kernelscope.render.table import to_table

    assert "where: " in to_table([rd], "en", width=200)
    assert "位置：" in to_table([rd], "zh", width=200)

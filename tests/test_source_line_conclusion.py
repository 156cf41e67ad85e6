"""A hot source line's conclusion follows the line's own dominant stall (its samples): a stall finding located at one
of its instructions (a top MIO Throttle instruction on a line whose samples are mostly Long Scoreboard) is named as
that instruction's, never the line's; a finding the line's own samples show stays the line's."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import CORPUS_NCU, need
from kernelscope.analysis.engine import Finding
from kernelscope.analysis.locations import locate_in_table
from kernelscope.analysis.source import AtInstruction, SourceReport, _stall_reason, analyse, hot_lines
from kernelscope.model import InstructionTable, KernelProfile, ProfileReport
from kernelscope.notes import Note
from kernelscope.render.common import Fmt
from kernelscope.render.source import render_source
from kernelscope.render.source_words import line_cells

LS = "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
MIO = "smsp__pcsamp_warps_issue_stalled_mio_throttle"
CORPUS_REPORT = "Atopos0313__cuda_learning__reports_day08_before.ncu-rep"  # transpose.cu:56, Long Scoreboard


def _finding(finding_id: str) -> Finding:
    return Finding(finding_id, "optimization", Note(f"f_{finding_id}", {}), (), advice=f"finding:{finding_id}")


def _table() -> InstructionTable:
    """a.cu:10 = 0x100 (Long Scoreboard 8, MIO 1) + 0x110 (MIO 5): 8 of its 14 unhealthy samples Long Scoreboard,
    yet 0x110 is the second MIO instruction of the launch; a.cu:20 = 0x120 (MIO 10), the first."""
    nan = math.nan
    cols = {
        "smsp__pcsamp_sample_count": [9, 5, 10],
        LS: [8, 0, 0],
        MIO: [1, 5, 10],
        "inst_executed": [10, 10, 10],
        "memory_l2_theoretical_sectors_global": [40, nan, nan],
        "memory_l2_theoretical_sectors_global_ideal": [10, nan, nan],
        "derived__memory_l2_theoretical_sectors_global_excessive": [30, nan, nan],
    }
    return InstructionTable(
        function_pc=0x100, pc=np.array([0x100, 0x110, 0x120], dtype=np.uint64),
        columns={k: np.array(v, dtype=np.float64) for k, v in cols.items()},
        file=("a.cu", "a.cu", "a.cu"), line=np.array([10, 10, 20], dtype=np.int64), sass={}, sources={}, markers=(),
    )


def _lines():
    t = _table()
    found = [_finding("mio_throttle"), _finding("long_scoreboard_latency"), _finding("uncoalesced_global")]
    located = locate_in_table(found, t, top=3)
    assert set(located) == {"mio_throttle", "long_scoreboard_latency", "uncoalesced_global"}
    return t, located, hot_lines(t, 10, located)


def test_line_conclusion_follows_its_own_dominant_stall_by_hand():
    _, _, lines = _lines()
    a10, a20 = sorted(lines, key=lambda x: x.line)
    assert a10.counters.stalls[0].reason == "long_scoreboard"
    # the line's own: its dominant stall's finding and its own excess sectors; MIO only at its instruction 0x110
    assert a10.findings == ("long_scoreboard_latency", "uncoalesced_global")
    assert a10.at_instructions == (AtInstruction(0x110, 0x10, "mio_throttle"),)
    assert a20.findings == ("mio_throttle",) and a20.at_instructions == ()


@pytest.mark.parametrize("lang, at, line_mio", [
    ("en", "at its instruction +0x0010: MIO queue full (MIO Throttle)", "-> MIO queue full"),
    ("zh", "该行 +0x0010 处的指令：共享内存与特殊函数等 MIO 指令过多", "→ 共享内存与特殊函数等 MIO"),
])
def test_the_cell_names_the_finding_as_the_instructions(lang, at, line_mio):
    _, _, lines = _lines()
    a10, a20 = sorted(lines, key=lambda x: x.line)
    cell = line_cells(a10, Fmt(lang))[-1]
    assert at in cell
    assert line_mio not in cell.split(at)[0]  # before the instruction's part, no MIO conclusion for the line
    assert line_mio in line_cells(a20, Fmt(lang))[-1]


def test_json_lists_the_instructions_finding_apart():
    t, located, _ = _lines()
    k = KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, origin=(0, 0),
                      instruction_metrics=("inst_executed",))
    result = SourceReport(ProfileReport(path="r.ncu-rep", format="ncu-rep", kernels=(k,)), (analyse(k, t, 10, located),))
    doc = json.loads(render_source(result, "json", "en"))
    a10 = next(x for x in doc["launches"][0]["lines"] if x["line"] == 10)
    assert "mio_throttle" not in a10["findings"]
    assert a10["at_instructions"] == [{"pc": 0x110, "offset": 0x10, "finding": "mio_throttle"}]


def test_corpus_long_scoreboard_line_is_not_concluded_mio():
    from kernelscope.api import source_file

    result = source_file(need(CORPUS_NCU / CORPUS_REPORT), top=10)
    lines = [x for ls in result.launches for x in ls.lines]
    assert lines
    for ls in result.launches:
        metric = {fid: places[0].metric for fid, places in ls.located.items()}
        for x in ls.lines:
            dominant = x.counters.stalls[0].reason if x.counters.stalls else None
            for fid in x.findings:  # every stall finding of a line is the line's own dominant stall
                assert _stall_reason(metric[fid]) in (None, dominant), (x.file, x.line, fid)
    (l56,) = [x for x in lines if x.line == 56 and x.file.endswith("transpose.cu")]
    assert l56.counters.stalls[0].reason == "long_scoreboard"
    assert "mio_throttle" not in l56.findings
    assert [a.finding for a in l56.at_instructions] == ["mio_throttle"] and l56.at_instructions[0].pc in l56.pcs

"""Where in the code, with the findings (issue "Where in the code"): each hot line and instruction of ``kernelscope
source`` names the diagnosis findings located there, and ``diagnose --format html/markdown`` shows where in the code
for the launches that hold per-instruction data.

A hand-made table whose findings per line are worked out next to it; on the corpus, the CUTLASS report whose
reference GEMM loads are uncoalesced (s8_gemm.cu:286).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import CORPUS_NCU, EXAMPLE, need
from kernelscope.analysis.engine import Finding
from kernelscope.analysis.locations import lines_of, locate_in_table, values_of
from kernelscope.analysis.source import AtInstruction, SourceReport, analyse
from kernelscope.cli import main
from kernelscope.model import InstructionTable, KernelProfile, ProfileReport
from kernelscope.notes import Note
from kernelscope.render.documents import schema_text
from kernelscope.render.source import render_source
from test_render_corpus import assert_offline, check_html

CUTLASS = "panjd123__cutlass__report-s8.ncu-rep"
NO_DATA = "piragi__fuzigrad__output.ncu-rep"  # 100 launches, no per-instruction data
SAMPLES = "smsp__pcsamp_sample_count"
STALL = "smsp__pcsamp_warps_issue_stalled_"
EXCESS = "derived__memory_l2_theoretical_sectors_global_excessive"
UNCOALESCED = "uncoalesced global accesses"
LG = "too many global/local memory instructions (LG Throttle)"


def _finding(finding_id: str) -> Finding:
    return Finding(finding_id, "optimization", Note(f"f_{finding_id}", {}), (), advice=f"finding:{finding_id}")


#: Most important first, as a diagnosis lists them; speed_of_light has no per-instruction metric.
FOUND = [_finding("lg_throttle"), _finding("uncoalesced_global"), _finding("speed_of_light"),
         _finding("long_scoreboard_latency")]


def table() -> InstructionTable:
    """Six instructions at 0x100..0x150: a.cu:10 (0x100, 0x110), a.cu:12 (0x120), a.cu:14 (0x130, 0x150), and 0x140
    without a line.

    By hand, with the two top instructions per finding (top=2):
    * lg_throttle (LG Throttle samples 0, 4, 0, 3, 2, 0): 0x110 and 0x130;
    * uncoalesced_global (excess sectors 30, 0, 10, NaN, NaN, 5): 0x100 and 0x120;
    * long_scoreboard_latency (Long Scoreboard samples 8, 0, 6, 0, 0, 1): 0x100 and 0x120.
    So a.cu:10 (0x100 + 0x110) holds all three, but its own samples are mostly Long Scoreboard (8 of 12): it
    supports uncoalesced_global and long_scoreboard_latency, in the diagnosis's order, and lg_throttle is its
    instruction 0x110's; a.cu:12 (0x120) uncoalesced_global and long_scoreboard_latency; a.cu:14 (0x130 + 0x150,
    LG Throttle 5 of 6) lg_throttle only; 0x140 none."""
    nan = math.nan
    cols = {
        SAMPLES: [10, 4, 6, 3, 2, 1],
        STALL + "long_scoreboard": [8, 0, 6, 0, 0, 1],
        STALL + "lg_throttle": [0, 4, 0, 3, 2, 0],
        STALL + "selected": [2, 0, 0, 0, 0, 0],
        "inst_executed": [100, 100, 50, 50, 10, 10],
        EXCESS: [30, 0, 10, nan, nan, 5],
    }
    return InstructionTable(
        function_pc=0x100, pc=np.array([0x100, 0x110, 0x120, 0x130, 0x140, 0x150], dtype=np.uint64),
        columns={k: np.array(v, dtype=np.float64) for k, v in cols.items()},
        file=("a.cu", "a.cu", "a.cu", "a.cu", None, "a.cu"), line=np.array([10, 10, 12, 14, 0, 14], dtype=np.int64),
        sources={"a.cu": "\n" * 9 + "x = a[i * 8];\n\ny = b[i];\n\nz = c[i];\n"},
    )


def _launch():
    t = table()
    k = KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, origin=(0, 0),
                      instruction_metrics=tuple(t.columns))
    ls = analyse(k, t, 10, located=locate_in_table(FOUND, t, top=2))
    return SourceReport(ProfileReport(path="r.ncu-rep", format="ncu-rep", kernels=(k,)), (ls,))


def test_values_and_lines_of_a_table():
    t = table()
    v = values_of(t, [EXCESS, "not_there"])
    assert v.function_pc == 0x100 and set(v.values) == {EXCESS}
    assert dict(v.values[EXCESS]) == {0x100: 30.0, 0x110: 0.0, 0x120: 10.0, 0x150: 5.0}  # NaN rows left out
    assert set(values_of(t).values) == set(t.columns)
    assert lines_of(t)[0x140] == (None, None) and lines_of(t)[0x150] == ("a.cu", 14)


def test_findings_per_line_and_instruction_by_hand():
    (ls,) = _launch().launches
    assert list(ls.located) == ["lg_throttle", "uncoalesced_global", "long_scoreboard_latency"]
    assert {f: [x.pc for x in xs] for f, xs in ls.located.items()} == {
        "lg_throttle": [0x110, 0x130], "uncoalesced_global": [0x100, 0x120],
        "long_scoreboard_latency": [0x100, 0x120]}
    assert ls.located["lg_throttle"][0].line == 10 and ls.located["lg_throttle"][1].line == 14
    by_line = {x.line: x.findings for x in ls.lines}
    assert {x.line: x.at_instructions for x in ls.lines} == {10: (AtInstruction(0x110, 0x10, "lg_throttle"),),
                                                             12: (), 14: ()}
    assert by_line == {
        10: ("uncoalesced_global", "long_scoreboard_latency"),
        12: ("uncoalesced_global", "long_scoreboard_latency"),
        14: ("lg_throttle",),
    }
    by_pc = {h.pc: h.findings for h in ls.instructions}
    assert by_pc == {0x100: ("uncoalesced_global", "long_scoreboard_latency"), 0x110: ("lg_throttle",),
                     0x120: ("uncoalesced_global", "long_scoreboard_latency"), 0x130: ("lg_throttle",),
                     0x140: (), 0x150: ()}
    # without findings: nothing named, as before
    bare = analyse(ls.kernel, ls.table, 10)
    assert bare.located == {} and all(x.findings == () for x in (*bare.lines, *bare.instructions))


def test_findings_in_each_format():
    result = _launch()
    text = render_source(result, "table", "en", width=400)
    assert f"-> {UNCOALESCED}, memory latency not hidden (Long Scoreboard); at its instruction +0x0010: {LG}" in text
    assert "a.cu:14 " in text and "a.cu:14: " not in text and f"-> {LG}" in text  # the place in its own column only
    zh = render_source(result, "table", "zh", width=400)
    assert "→ 全局访存未合并、访存延迟未被隐藏" in zh  # a list of titles: 、
    assert "；该行 +0x0010 处的指令：全局/本地访存指令过多——以 LG Throttle（全局/本地访存队列已满）停顿为主" in zh
    md = render_source(result, "markdown", "en")
    assert f"-> {UNCOALESCED}, memory latency not hidden (Long Scoreboard) |" in md
    doc = json.loads(render_source(result, "json", "en"))
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, json.loads(schema_text("source-1.schema.json")))
    lines = {x["line"]: x["findings"] for x in doc["launches"][0]["lines"]}
    assert lines[12] == ["uncoalesced_global", "long_scoreboard_latency"]
    assert {h["pc"]: h["findings"] for h in doc["launches"][0]["instructions"]}[0x110] == ["lg_throttle"]
    page = render_source(result, "html", "en")
    check_html(page)
    assert f'<span class="fb" data-finding="lg_throttle">{LG}</span>' in page
    assert "-&gt;" not in page  # badges, not the arrow text


# ------------------------------------------------------------------------------ the corpus


def test_source_marks_the_uncoalesced_line_of_the_cutlass_report():
    from kernelscope.api import diagnose_file, source_file

    path = need(CORPUS_NCU / CUTLASS)
    (ls,) = source_file(path, top=5).launches
    assert ls.kernel.index == 1
    line = ls.lines[0]
    assert (line.file.rsplit("/", 1)[-1], line.line) == ("s8_gemm.cu", 286)
    assert line.findings == ("uncoalesced_global", "lg_throttle")  # the diagnosis's order
    assert ls.instructions[0].findings == ("uncoalesced_global", "lg_throttle")  # +0x0240 LDG.E.S8
    # located in the whole table = what diagnose locates from the few metrics it reads
    d = diagnose_file(path).kernels[1]
    assert {f: [(x.pc, x.line) for x in xs] for f, xs in ls.located.items()} == {
        f: [(x.pc, x.line) for x in xs] for f, xs in d.locations.items()}


def test_source_command_names_the_findings(capsys):
    path = str(need(CORPUS_NCU / CUTLASS))
    assert main(["source", path, "--top", "3", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    row = next(r for r in out.splitlines() if r.startswith("| s8_gemm.cu:286 |"))
    assert "LG Throttle samples" in row and "fetch 9x the sectors" in row and f"-> {UNCOALESCED}, {LG} |" in row


def test_diagnose_html_shows_where_in_the_code(tmp_path):
    path = str(need(CORPUS_NCU / CUTLASS))
    page_path = tmp_path / "d.html"
    assert main(["diagnose", path, "--format", "html", "-o", str(page_path), "--quiet"]) == 0
    page = page_path.read_text(encoding="utf-8")
    check_html(page)
    assert_offline(page)
    assert page.count('class="source-view"') == 2 and page.count('class="sass-view"') == 2
    card = page[page.index('id="r0-k1"'):]
    view = card[card.index('class="source-view"'):card.index('class="sass-view"')]
    row = next(r for r in view.split("<tr>") if "accumulator += static_cast" in r)
    assert row.startswith('<td class="num muted">286</td>') and 'style="background:rgba(214,39,40,0.80)"' in row
    assert f'data-finding="uncoalesced_global">{UNCOALESCED}</span>' in row and f'data-finding="lg_throttle">{LG}</span>' in row
    assert "LDG.E.S8 R20, [R30.64]" in card  # SASS of the hottest instruction


def test_diagnose_html_without_instruction_data(tmp_path):
    for path in (str(EXAMPLE), str(need(CORPUS_NCU / NO_DATA))):
        page_path = tmp_path / "d.html"
        assert main(["diagnose", path, "--format", "html", "-o", str(page_path), "--quiet"]) == 0
        page = page_path.read_text(encoding="utf-8")
        check_html(page)
        assert "source-view" not in page and "sass-view" not in page and 'class="fb"' not in page


def test_diagnose_markdown_has_the_top_lines(capsys, tmp_path):
    path = str(need(CORPUS_NCU / CUTLASS))
    assert main(["diagnose", path, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.count("#### Hottest source lines") == 2
    assert "| File:line | Source | Samples | Share | Instr. | At this line |" in out
    row = next(r for r in out.splitlines() if r.startswith("| s8_gemm.cu:286 |"))
    assert f"-> {UNCOALESCED}, {LG} |" in row
    target = tmp_path / "d.md"  # written to a file: charts beside it, the same tables
    assert main(["diagnose", path, "--format", "markdown", "--lang", "zh", "-o", str(target), "--quiet"]) == 0
    text = target.read_text(encoding="utf-8")
    assert "#### 最热的源代码行" in text and "d_roofline.svg" in text
    assert main(["diagnose", str(EXAMPLE), "--format", "markdown"]) == 0
    assert "Hottest source lines" not in capsys.readouterr().out


def test_source_for_reads_nothing_without_instruction_data():
    from kernelscope.api import diagnose_file, source_for

    rd = diagnose_file(EXAMPLE)
    assert source_for(rd).launches == ()
    assert source_for(diagnose_file(need(CORPUS_NCU / NO_DATA))).launches == ()

"""Where in the code (``kernelscope source``): the per-instruction reader (kernelscope.ingest.ncu_source), the analysis
(kernelscope.analysis.source) and the command.

On the corpus, every report that holds instruction sampling is read twice: by kernelscope, and directly with
NVIDIA's ``ncu_report`` in this file (its own longest launch, PCs, sample counts, SASS and source lines, grouped
here by hand), and the two must agree. The analysis is also checked on small hand-made tables whose expected
values are worked out next to each case.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import CORPUS_NCU, need

from kernelscope.analysis.source import SourceReport, analyse, hot_instructions, hot_lines
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.model import InstructionTable, KernelProfile, ProfileReport, SourceMarker
from kernelscope.render.documents import schema_text
from kernelscope.render.source import render_source

#: The corpus reports that hold instruction sampling (smsp__pcsamp_sample_count per PC), checked one by one with
#: ncu_report: launches with per-PC samples / launches, PCs sampled, samples in all.
SAMPLED = (
    "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep",  # 3/3 launches, 429 PCs, 74,414 samples
    "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep",  # 3/3, 700 PCs, 41,711
    "Atopos0313__cuda_learning__reports_day08_after.ncu-rep",  # 1/1, 62 PCs, 6,766 (Nsight Compute 2026.2.1)
    "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",  # 1/1, 71 PCs, 18,666
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep",  # 1/2, 137 PCs, 3,670,010
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_02_coalesce_memory.ncu-rep",  # 2/2, 141 PCs, 1,068,056
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_03_tiled.ncu-rep",  # 1/2, 582 PCs, 822,462
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_06_more_compute.ncu-rep",  # 2/2, 977 PCs, 137,547
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_07_vectorize.ncu-rep",  # 1/2, 947 PCs, 115,961
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep",  # 1/2, 868 PCs, 136,726
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_09_double_buffering.ncu-rep",  # 1/2, 1,082 PCs, 163,608
    "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep",  # 2/2, 242 PCs, 227,139
    "Lashi0812__CudaProgramming__profile.ncu-rep",  # 3/3, 333 PCs, 169,781
    "Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep",  # 2/2, 26 PCs, 32
    "armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep",  # 1/1, 42 PCs, 3,199
    "bautista-garcia__heat_sim__profile.ncu-rep",  # 41/41, 164 PCs, 435
    "bautista-garcia__heat_sim__report_name.ncu-rep",  # 4/4, 15 PCs, 45
    "bwd29__self-join-MiSTIC__ilpProf.ncu-rep",  # 1/1, 269 PCs, 3,669,964
    "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep",  # 1/1, 235 PCs, 80,024
    "kilianhae__Attention.C__softmax_CUDA_softmax_thread_coarse.ncu-rep",  # 1/1, 238 PCs, 116,718
    "panjd123__cutlass__report-s8.ncu-rep",  # 2/2, 234 PCs, 32,339
)
NO_DATA = "piragi__fuzigrad__output.ncu-rep"  # 100 launches, LaunchStats/Occupancy/SpeedOfLight only
TOP = 10


def corpus(name: str) -> Path:
    return need(CORPUS_NCU / name)


# ------------------------------------------------------------------------------ the direct read (ncu_report only)


def _actions(ctx):
    return [(r, j, ctx.range_by_idx(r).action_by_idx(j))
            for r in range(ctx.num_ranges()) for j in range(ctx.range_by_idx(r).num_actions())]


def _per_pc(action, name: str) -> dict[int, float]:
    m = action.metric_by_name(name)
    if m is None or not m.has_correlation_ids():
        return {}
    ids = m.correlation_ids()
    return {ids.as_uint64(i): float(m.as_uint64(i)) for i in range(m.num_instances())}


def direct(path: Path):
    """(launch index, top instructions [(pc, sass, samples)], top lines [(file, line, samples)]) of the longest
    sampled launch, read with ncu_report alone: top = most samples first, ties by PC / by (file, line)."""
    ncu_report = pytest.importorskip("ncu_report")
    ctx = ncu_report.load_report(str(path))
    sampled = [(i, a) for i, (_, _, a) in enumerate(_actions(ctx)) if _per_pc(a, "smsp__pcsamp_sample_count")]

    def duration(a) -> float:
        m = a.metric_by_name("gpu__time_duration.sum")
        value = m.as_double() if m is not None else -1.0
        return -1.0 if math.isnan(value) else value

    index, action = max(sampled, key=lambda x: (duration(x[1]), -x[0]))
    samples = _per_pc(action, "smsp__pcsamp_sample_count")
    top = sorted((pc for pc, n in samples.items() if n > 0), key=lambda pc: (-samples[pc], pc))[:TOP]
    instructions = [(pc, " ".join(action.sass_by_pc(pc).split()), samples[pc]) for pc in top]
    lines: dict[tuple[str, int], float] = {}
    for pc, n in samples.items():
        info = action.source_info(pc)
        if info is not None and info.file_name() and info.line() > 0:
            lines[(info.file_name(), info.line())] = lines.get((info.file_name(), info.line()), 0.0) + n
    hot = sorted((k for k, n in lines.items() if n > 0), key=lambda k: (-lines[k], k))[:TOP]
    return index, instructions, [(f, ln, lines[(f, ln)]) for f, ln in hot]


@pytest.mark.parametrize("name", SAMPLED)
def test_top_instructions_and_lines_agree_with_ncu_report(name):
    from kernelscope.api import source_file

    path = corpus(name)
    index, instructions, lines = direct(path)
    (ls,) = source_file(path, top=TOP).launches
    assert ls.kernel.index == index
    assert [(h.pc, h.sass, h.counters.samples) for h in ls.instructions] == instructions
    assert [(x.file, x.line, x.counters.samples) for x in ls.lines] == lines
    for h in ls.instructions:  # the stall reasons split each instruction's samples
        assert sum(s.samples for s in (*h.counters.stalls, *h.counters.healthy)) == h.counters.samples


def test_sampled_reports_are_the_ones_listed():
    """The reader lists per-instruction metrics for exactly the launches of the SAMPLED reports (names only), and
    records where each launch is; a report whose names are aggregates without instances lists none."""
    from kernelscope.ingest.ncu_rep import read_ncu_rep

    found = []
    for path in sorted(need(CORPUS_NCU).glob("*.ncu-rep")):
        report = read_ncu_rep(path)
        assert all(k.origin is not None for k in report.kernels)
        if any("smsp__pcsamp_sample_count" in k.instruction_metrics for k in report.kernels):
            found.append(path.name)
    assert tuple(found) == SAMPLED
    higgs = read_ncu_rep(corpus("bwd29__self-join-MiSTIC__profileHIGGS.out.ncu-rep")).kernels[0]
    assert higgs.instruction_metrics == ()  # four derived__* names, no instance: not per-instruction data
    k = read_ncu_rep(corpus("panjd123__cutlass__report-s8.ncu-rep")).kernels[1]
    assert k.origin == (0, 1) and "inst_executed" in k.instruction_metrics
    assert not any(n.endswith("_not_issued") for n in k.instruction_metrics)


def test_reader_columns_rows_and_sources():
    from kernelscope.ingest.ncu_rep import read_ncu_rep
    from kernelscope.ingest.ncu_source import read_instructions

    path = corpus("panjd123__cutlass__report-s8.ncu-rep")
    k = read_ncu_rep(path).kernels[1]
    (full,) = read_instructions(path, [k], sass=())
    (two,) = read_instructions(path, [k], metrics=["inst_executed", "memory_type", "smsp__pcsamp_sample_count"],
                               sass="all")
    assert set(two.columns) == {"inst_executed", "smsp__pcsamp_sample_count"}  # memory_type: not in the vocabulary
    assert np.all(np.diff(full.pc.astype(np.int64)) > 0) and full.sass == {}
    assert set(two.sass) == set(two.pc.tolist())
    assert full.function_pc is not None and int(full.pc[0]) >= full.function_pc
    assert all(f in full.sources for f in set(full.file) - {None})  # --import-source yes: every file embedded
    executed = full.columns["inst_executed"]
    assert np.isnan(executed).sum() == len(full.pc) - np.isfinite(executed).sum()


def test_reader_errors(tmp_path):
    from kernelscope.ingest.ncu_rep import read_ncu_rep
    from kernelscope.ingest.ncu_source import read_instructions

    path = corpus("armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep")
    k = read_ncu_rep(path).kernels[0]
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(InputError, match="truncated") as exc:
        read_instructions(cut, [k])
    assert "\n" not in str(exc.value)
    bare = KernelProfile(index=3, name="k", demangled_name="k")
    with pytest.raises(InputError, match=r"launch 3 \(k\) holds no per-instruction data.*SourceCounters.*--set full"
                                         r".*--import-source yes.*-lineinfo"):
        read_instructions(path, [bare])


def test_source_command_without_instruction_data(capsys, tmp_path):
    target = tmp_path / "out.json"
    code = main(["source", str(corpus(NO_DATA)), "--format", "json", "-o", str(target)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not target.exists()
    assert err.count("\n") == 1 and err.startswith("kernelscope: error: ")
    for option in ("--section SourceCounters", "--set full", "--import-source yes", "nvcc -lineinfo"):
        assert option in err


def test_source_command_table_markdown_html_json(capsys, tmp_path):
    path = str(corpus("Lashi0812__CudaProgramming__profile.ncu-rep"))
    assert main(["source", path, "--top", "3"]) == 0
    out = capsys.readouterr().out
    # (the sentence wraps in its column; the lone column's part takes Instr. with it: review 11 item 15)
    assert "readWriteOffset.cu:19" in out and "Long Scoreboard" in out and "global accesses fetch" in " ".join(out.split())
    assert main(["source", path, "--format", "markdown", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "| readWriteOffset.cu:19 |" in out and "最热的源代码行" in out and "Long Scoreboard（等待 L1/TEX 缓存的访存结果）" in out
    page = tmp_path / "s.html"
    assert main(["source", path, "--format", "html", "-o", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in text and "<script" not in text and "SHF.L.U64.HI" in text
    assert main(["source", path, "--launch", "0", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    _validate(doc)
    assert [x["index"] for x in doc["launches"]] == [0]
    assert main(["source", path, "--kernel", "Offset", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["launches"]) == 3
    assert main(["source", path, "--launch", "7"]) == 2
    assert "no launch 7" in capsys.readouterr().err


# ------------------------------------------------------------------------------ hand-made tables


def table(markers=(), sass=None, sources=None) -> InstructionTable:
    """Five instructions at 0x100..0x140 (function at 0x100): rows 0 and 4 on a.cu:10, row 1 on a.cu:12, row 2 on
    b.cu:10, row 3 without a line. Row 4 was not sampled (NaN); only rows 0 and 4 are global accesses."""
    nan = math.nan
    cols = {
        "smsp__pcsamp_sample_count": [5, 3, 4, 9, nan],
        "smsp__pcsamp_warps_issue_stalled_long_scoreboard": [4, 0, 1, 0, nan],
        "smsp__pcsamp_warps_issue_stalled_wait": [0, 2, 3, 0, nan],
        "smsp__pcsamp_warps_issue_stalled_selected": [1, 1, 0, 9, nan],
        "inst_executed": [100, 50, 80, 10, 20],
        "thread_inst_executed": [3200, 800, 2560, 320, 640],
        "memory_l2_theoretical_sectors_global": [40, nan, nan, nan, 10],
        "memory_l2_theoretical_sectors_global_ideal": [10, nan, nan, nan, 10],
        "derived__memory_l2_theoretical_sectors_global_excessive": [30, nan, nan, nan, 0],
    }
    return InstructionTable(
        function_pc=0x100, pc=np.array([0x100, 0x110, 0x120, 0x130, 0x140], dtype=np.uint64),
        columns={k: np.array(v, dtype=np.float64) for k, v in cols.items()},
        file=("src/a.cu", "src/a.cu", "b.cu", None, "src/a.cu"), line=np.array([10, 12, 10, 0, 10], dtype=np.int64),
        sass=sass or {}, sources=sources or {}, markers=tuple(markers),
    )


def test_hot_lines_group_by_hand():
    mark = SourceMarker("UncoalescedGlobalAccess", 0x140, "80% of this line's global accesses are excessive.",
                        "OPTIMIZATION")
    lines = hot_lines(table(markers=[mark], sources={"src/a.cu": "\n" * 9 + "  x = a[i * 8];\n\n"}), 10)
    # samples: a.cu:10 = 5 (+ NaN) ; b.cu:10 = 4 ; a.cu:12 = 3 ; the unlined row 3 (9 samples) is left out
    assert [(x.file, x.line, x.counters.samples, x.pcs) for x in lines] == [
        ("src/a.cu", 10, 5.0, (0x100, 0x140)), ("b.cu", 10, 4.0, (0x120,)), ("src/a.cu", 12, 3.0, (0x110,))]
    a10, b10, a12 = lines
    assert a10.text == "x = a[i * 8];" and b10.text is None and a10.markers == (mark,)
    assert a10.counters.share == pytest.approx(5 / 21)  # of all 21 samples, the unlined ones included
    # a.cu:10: executed 100 + 20; threads 3200 + 640 = 3840 = 32 x 120; sectors 50 of ideal 20; excess 30
    c = a10.counters
    assert (c.inst_executed, c.thread_efficiency, c.sectors, c.excess_sectors) == (120.0, 1.0, 50.0, 30.0)
    assert c.sector_ratio == pytest.approx(2.5)
    # long scoreboard: 4 of the line's 5 samples, 4 of the launch's 5 long scoreboard samples; selected apart
    assert [(s.reason, s.samples, s.share, s.share_of_reason) for s in c.stalls] == [("long_scoreboard", 4.0, 0.8, 0.8)]
    assert [(s.reason, s.samples) for s in c.healthy] == [("selected", 1.0)]
    # b.cu:10: wait 3 of 4 samples (3 of the 5 wait samples) dominates long scoreboard 1
    assert [(s.reason, s.share, s.share_of_reason) for s in b10.counters.stalls] == [
        ("wait", 0.75, 0.6), ("long_scoreboard", 0.25, 0.2)]
    # a.cu:12: 800 thread instructions in 50 warp instructions = 16 of 32 threads
    assert a12.counters.thread_efficiency == 0.5 and a12.counters.sector_ratio is None
    assert [(n.key, dict(n.values)) for n in a10.statement] == [
        ("src_line_stall", {"file": "a.cu", "line": 10, "reason": "long_scoreboard", "share": 0.8, "line_share": 0.8}),
        ("src_line_sectors", {"ratio": 2.5, "excess": 30.0})]
    assert [n.key for n in a12.statement] == ["src_line_stall", "src_line_divergence"]
    assert a12.statement[1].values["threads"] == 16.0
    assert hot_lines(table(markers=[mark], sources={"src/a.cu": "\n" * 9 + "  x = a[i * 8];\n\n"}), 1) == lines[:1]


def test_hot_instructions_by_hand():
    rows = hot_instructions(table(sass={0x130: "BAR.SYNC 0x0"}), 3)
    # samples 9 (0x130), 5 (0x100), 4 (0x120)
    assert [(h.pc, h.offset, h.file, h.line, h.sass, h.counters.samples) for h in rows] == [
        (0x130, 0x30, None, None, "BAR.SYNC 0x0", 9.0), (0x100, 0x0, "src/a.cu", 10, None, 5.0),
        (0x120, 0x20, "b.cu", 10, None, 4.0)]
    assert rows[0].counters.stalls == () and rows[0].counters.healthy[0].reason == "selected"
    assert rows[1].counters.sector_ratio == 4.0 and rows[1].counters.excess_sectors == 30.0
    # no samples at all: ranked by executed instructions (100, 80, 50, ...)
    t = table()
    unsampled = InstructionTable(t.function_pc, t.pc, {"inst_executed": t.columns["inst_executed"]}, t.file, t.line)
    assert [h.pc for h in hot_instructions(unsampled, 3)] == [0x100, 0x120, 0x110]
    assert [n.key for n in hot_lines(unsampled)[0].statement] == ["src_line_executed"]


# ------------------------------------------------------------------------------ rendering


def _result(name: str = "k") -> SourceReport:
    k = KernelProfile(index=0, name=name, demangled_name=name, duration_s=1e-3, origin=(0, 0),
                      instruction_metrics=("inst_executed",))
    t = table(sass={0x100: "LDG.E R0, [R2.64] <&>"}, sources={"src/a.cu": "\n" * 9 + "x = a[i * 8]; // <b>\n"},
              markers=[SourceMarker("CPIStall", 0x100, "This line is <hot>.", "OPTIMIZATION")])
    return SourceReport(ProfileReport(path="r.ncu-rep", format="ncu-rep", kernels=(k,)), (analyse(k, t, 10),))


def _validate(doc: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, json.loads(schema_text("source-1.schema.json")))


def test_json_follows_its_schema():
    for lang in ("en", "zh"):
        doc = json.loads(render_source(_result(), "json", lang))
        _validate(doc)
        assert doc["schema"] == "kernelscope.source/1" and doc["lang"] == lang
    (launch,) = doc["launches"]
    line = launch["lines"][0]
    assert (line["file"], line["line"], line["counters"]["samples"], line["counters"]["sector_ratio"]) == (
        "src/a.cu", 10, 5.0, 2.5)
    assert line["statement"][0]["key"] == "src_line_stall" and "Long Scoreboard（等待 L1/TEX 缓存的访存结果）" in line["statement"][0]["text"]
    first = next(h for h in launch["instructions"] if h["pc"] == 0x100)
    assert first["markers"][0]["rule_id"] == "CPIStall" and first["sass"] == "LDG.E R0, [R2.64] <&>"


def test_en_and_zh_text():
    en = render_source(_result(), "table", "en", width=400)
    zh = render_source(_result(), "table", "zh", width=400)
    assert "Hottest source lines" in en and "a.cu:10 " in en and "a.cu:10: " not in en  # the place once, its own column
    assert "80% of all Long Scoreboard samples" in en
    assert "its global accesses fetch 2.5x the sectors they need" in en
    assert "最热的源代码行" in zh and "占全部 Long Scoreboard（等待 L1/TEX 缓存的访存结果）采样" in zh and "a.cu:10：" not in zh and "16/32 个线程活跃" in zh  # (a whole count: no .0, review 7)
    md = render_source(_result(), "markdown", "en")
    assert "| a.cu:10 | `x = a[i * 8]; // <b>` |" in md


def test_html_escapes_names_from_the_report():
    hostile = '<script>alert("x")</script>&'
    page = render_source(_result(hostile), "html", "en")
    assert "<script" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in page
    assert "LDG.E R0, [R2.64] &lt;&amp;&gt;" in page and "// &lt;b&gt;" in page and "This line is &lt;hot&gt;." in page
    assert "default-src 'none'" in page

"""Sixth native review (issue 28): templates at their edge values (no saving, no async call, every column, no
conflict) say so plainly, and Chinese lines break between terms, never inside one."""

from __future__ import annotations

import dataclasses
import re

import pytest

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.analysis.fusion import FusionKernel, estimate
from kernelscope.cli import main
from kernelscope.notes import Note
from kernelscope.render.common import Fmt


def _chain(**changes):
    e = estimate([FusionKernel("a", None, "elementwise", 2.288e-6, 100.0, 100.0),
                  FusionKernel("b", None, "elementwise", 2.288e-6, 100.0, 100.0)], 200.0, peak_bytes_per_s=1e9)
    return dataclasses.replace(e, **changes)


@pytest.mark.parametrize("basis", ["shapes", "dram_counters"])
def test_a_chain_that_saves_nothing_says_so(basis):
    from kernelscope.render.fusion import summary_note
    e = _chain(fused_s=4.576e-6, fused_floor_s=4.576e-6, saving_s=0.0, total_saving_s=0.0, speedup=1.0,
               bytes_basis=basis)
    zh, en = Fmt("zh").note(summary_note(e, Fmt("zh"))), Fmt("en").note(summary_note(e, Fmt("en")))
    assert "而非" not in zh and "节省 0 s" not in zh and "没有收益" in zh and zh.count("4.576 µs") == 1, zh
    assert "instead of" not in en and "0 s saved" not in en and "saves nothing" in en, en
    from kernelscope.render.fusion import fusion_section
    assert fusion_section([e], Fmt("zh"))[2][0][6] == "无" and fusion_section([e], Fmt("en"))[2][0][6] == "none"
    saving = _chain(bytes_basis=basis)  # a real saving keeps the comparison
    assert "而非" in Fmt("zh").note(summary_note(saving, Fmt("zh")))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_pageable_copies_without_async_calls_leave_the_clause_out(lang):
    from kernelscope.analysis.timeline.checks import pageable_key
    f = Fmt(lang)
    values = {"n": 4, "time_s": 1e-3, "gb": 0.5}
    none = f.note(Note(pageable_key(4, 0), {**values, "n_async": 0}))
    assert "0 次" not in none and "0 of them" not in none and "异步" not in none and "async" not in none, none
    some = f.note(Note(pageable_key(4, 1), {**values, "n_async": 1}))
    assert ("其中 1 次为异步调用" if lang == "zh" else "1 of them async") in some, some
    every = f.note(Note(pageable_key(4, 4), {**values, "n_async": 4}))
    assert ("全部为异步调用" if lang == "zh" else "all of them async") in every and "4 次为" not in every, every


def _banks(capsys, lang, tile, dtype="float"):
    assert main(["banks", "--dtype", dtype, "--tile", tile, "--access", "column", "--lang", lang]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("lang,all_of,not_of", [("zh", "全部 32 列均冲突", "32 列中有 32 列"),
                                                ("en", "all 32 columns conflict", "32 of 32 columns")])
def test_every_column_conflicting_reads_as_all(capsys, lang, all_of, not_of):
    from conftest import flat
    out = flat(_banks(capsys, lang, "32x32"))
    assert all_of in out and not_of not in out, out
    some = flat(_banks(capsys, lang, "32x33", "half"))  # 16 of 33 columns: the count stays
    assert ("33 列中有 16 列冲突" if lang == "zh" else "16 of 33 columns") in some, some


@pytest.mark.parametrize("lang,said", [("zh", "无冲突（1 路）"), ("en", "none (1-way)")])
def test_no_conflict_is_one_statement(capsys, lang, said):
    out = _banks(capsys, lang, "32x33")
    assert said in out and "无：" not in out and "conflict-free)" not in out, out


@pytest.mark.parametrize("text,unbroken", [
    ("填充、被屏蔽的线程和 Tensor Core 的空闲", "Tensor Core"),
    ("最主要的停顿原因是 Short Scoreboard（等待共享内存等 MIO 结果）", "Short Scoreboard"),
    ("线程 0～15：Bank 0：16 个字（线程 0～15）；Bank 24：16 个字", "Bank 24"),
    ("访存延迟未被隐藏。位置：PC +0x290（7.1%）、PC +0x230（5.5%）", "PC +0x290"),
    ("耗时最多的是 CUDA graph 1 (replay)，占程序时间的一半", "CUDA graph 1 (replay)"),
    ("每个每周期 4 B，所有支持的 GPU（计算能力 6.0～12.1）", "计算能力"),
])
def test_a_term_a_number_with_its_word_and_an_address_never_break(text, unbroken):
    from rich.cells import cell_len

    from kernelscope.render.cjk import break_opportunities, wrap
    at = text.index(unbroken)
    assert not any(at < i < at + len(unbroken) for i in break_opportunities(text))
    for width in range(cell_len(unbroken) + 4, 40):  # (a narrower line folds it, as any piece wider than a line)
        lines = wrap(text, width)
        assert any(unbroken in line for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # no character lost


def test_a_graph_replay_name_stays_whole_in_a_name_cell():
    from kernelscope.render.cjk import name_breaks
    name = "CUDA graph 12 (replay)"
    assert not any(0 < i < len(name) for i in name_breaks(name))


ATOPOS = "Atopos0313__cuda_learning__reports_day08_{}.ncu-rep"


@pytest.mark.parametrize("lang,estimate", [("zh", "（优化前的首条建议：至多 1.65×）"),
                                           ("en", " (BEFORE's first advice: at most 1.65x)")])
def test_an_estimate_beside_a_finding_title_is_in_parentheses(capsys, monkeypatch, lang, estimate):
    import re
    monkeypatch.setenv("COLUMNS", "200")
    args = ["compare", str(need(CORPUS_NCU / ATOPOS.format("before"))), str(need(CORPUS_NCU / ATOPOS.format("after")))]
    assert main(args + ["--lang", lang]) in (0, 1)
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "1.65" in x and ("预估" in x or "estimate" in x.lower()))
    assert estimate in line, line
    assert ("停顿为主（至多 1.03×）" if lang == "zh" else "(MIO Throttle): at most 1.03x") in line, line  # was "…为主 1.03×", "…） 1.03×"
    assert not re.search(r"） [\d.]+×", out), out
    assert not re.search(r"）（[^（）]*[\d.]+×）", out), out  # never two pairs: "…（最后一轮未填满）：至多 1.03×"


TRACE = SHARED / "corpus" / "torch_traces" / "hta_trace_filter_sampled_rank-0.json.gz"


@pytest.mark.parametrize("width", [80, 120])
def test_the_fusion_table_keeps_every_column(capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["fusion", str(need(TRACE)), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    from kernelscope.render.common import Fmt as F
    f = F("zh")
    for key in ("fu_runs", "fu_unfused", "fu_fused", "fu_saving", "fu_program", "fu_route"):
        # (a header may wrap before its bracket: 程序占比 / （加速比）, never inside it)
        assert all(part in out for part in re.split(r"(?=（)", f.label(key))), (key, out)
    assert "峰值下" in out and "字节数" in out
    # the cells of the columns once dropped: a saving per run, a route
    assert re.search(r"≤ [\d.]+ (?:µs|ms)", out) and (f.label("fu_route_epilogue") in out
                                                     or f.label("fu_route_fused_kernel") in out), out
    assert all(len(line) <= width for line in out.splitlines())


@pytest.mark.parametrize("width", [80, 120])
def test_the_english_fusion_table_keeps_every_column_too(capsys, monkeypatch, width):
    """The same layout in English: where the nine columns do not fit side by side, two tables, none dropped."""
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["fusion", str(need(TRACE)), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    from kernelscope.render.common import Fmt as F
    f = F("en")
    for key in ("fu_runs", "fu_unfused", "fu_fused", "fu_saving", "fu_program", "fu_route"):
        assert f.label(key).split()[0] in out, (key, out)
    assert all(len(line) <= width for line in out.splitlines())


def test_the_ranks_imbalance_table_keeps_every_column_at_80(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["timeline", "--as-ranks", str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    table = out.split("跨 Rank 不均衡")[1]
    rows = [line for line in table.splitlines() if line.strip().startswith(("ncclDevKernel_", "resnet_", "sgd_"))]
    assert rows and all(line.rstrip().endswith("4/4") for line in rows), table  # the last column, ranks running it
    from rich.cells import cell_len
    assert all(cell_len(line) <= 80 for line in out.splitlines())


def test_the_stall_column_of_source_takes_the_room_at_120(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    report = CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_07_vectorize.ncu-rep"
    assert main(["source", str(need(report)), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert any("Long Scoreboard（等待" in line for line in lines), out  # was "（等待" alone
    assert any("L1/TEX 缓存" in line for line in lines), out  # never "L1/TEX" / "缓存" (review 7)
    assert "执行次数" in out  # the columns beside it stay


@pytest.mark.parametrize("lang,said,not_said", [("zh", "全部 30 个等长时间片都低于", "个等长时间片中有 30 个"),
                                                ("en", "all 30 equal time slices", "30 of 30")])
def test_every_slice_below_the_threshold_reads_as_all(lang, said, not_said):
    from test_timeline import KERNEL, US, tl_from
    from kernelscope.analysis.timeline import analyse_timeline
    rows = [(t * US, (t + 10) * US, KERNEL, "k", 0, 7, i) for i, t in enumerate(range(0, 3000, 100))]  # 10% busy
    (low,) = [f for f in analyse_timeline(tl_from(rows, ["k"])).findings if f.id == "low_utilisation"]
    text = Fmt(lang).note(low.message)
    assert said in text and not_said not in text, text


@pytest.mark.parametrize("lang,said,not_said", [("zh", "二者没有重叠", "重叠 0 s"), ("en", "no overlap", "overlap 0 s")])
def test_communication_without_overlap_says_so(capsys, monkeypatch, lang, said, not_said):
    from conftest import flat
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["timeline", str(need(CASES / "N22_kineto_exposed_comm_two_streams.json")), "--lang", lang]) == 0
    out = flat(capsys.readouterr().out)
    assert said in out and not_said not in out, out

"""Sixth native review (issue 28): templates at their edge values (no saving, no async call, every column, no
conflict) say so plainly, and Chinese lines break between terms, never inside one."""

from __future__ import annotations

import dataclasses

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
    ("访存延迟未被掩盖。位置：PC +0x290（7.1%）、PC +0x230（5.5%）", "PC +0x290"),
    ("耗时最多的是 CUDA graph 1 (replay)，占程序时间的一半", "CUDA graph 1 (replay)"),
])
def test_a_term_a_number_with_its_word_and_an_address_never_break(text, unbroken):
    from kernelscope.render.cjk import break_opportunities, wrap
    at = text.index(unbroken)
    assert not any(at < i < at + len(unbroken) for i in break_opportunities(text))
    for width in range(len(unbroken) + 2, 40):  # (a narrower line folds it, as any piece wider than a line)
        lines = wrap(text, width)
        assert any(unbroken in line for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # no character lost


def test_a_graph_replay_name_stays_whole_in_a_name_cell():
    from kernelscope.render.cjk import name_breaks
    name = "CUDA graph 12 (replay)"
    assert not any(0 < i < len(name) for i in name_breaks(name))

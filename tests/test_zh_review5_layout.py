"""Fifth native review's layout kinds, at 80 and 120 columns: lines that fill (a break after 至多 before its
number), no two-character word split across lines, no ")" alone, numbers right-aligned in the ranks table, the
fusion advice said once and not indented deeper, the checks apart from the rows before them, a file name that keeps
its extension, lists in --help joined with 、, a usage error in one sentence."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.cli import main
from kernelscope.knowledge.glossary import unbroken_words
from kernelscope.knowledge.text import labels
from kernelscope.render.cjk import break_opportunities, divide, name_breaks, words, wrap

WIDTHS = (80, 120)
TRACES = SHARED / "corpus" / "torch_traces"
NSYS = SHARED / "corpus" / "nsys"
#: Words the review found split across lines ("标注区" / "间", "共耗" / "时", "处于中" / "位数", "分析" / "器").
SPLIT = ("区间", "耗时", "中位数", "分析器")


def _out(capsys, monkeypatch, width: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code = main([*argv, "--lang", "zh"])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def split_words(text: str) -> list[str]:
    """The unbroken words (:func:`unbroken_words`) one line of ``text`` ends with the start of and the next line
    (its blanks stripped) starts with the rest of."""
    found = []
    lines = [line.rstrip() for line in text.splitlines()]
    for a, b in zip(lines, lines[1:]):
        b = b.strip()
        found += [f"{a[-8:]!r} / {b[:8]!r}" for w in unbroken_words()
                  if any(a.endswith(w[:k]) and b.startswith(w[k:]) for k in range(1, len(w)))]
    return found


def test_split_words_can_fail():
    assert split_words("  以下为耗时处于中\n  位数的一次") and split_words("共耗\n时 3 ms")
    assert not split_words("以下为耗时处于\n中位数的一次")


# ----------------------------------------------------------------------------------------------- 1: lines fill
def test_a_line_breaks_after_at_most_before_its_number():
    text = "1. 共享内存访问存在多余 wavefront。本 Kernel 加速比至多 1.65×，节省 GPU 总时间的 39.5%。调整共享内存访问方式"
    for width in range(56, 64):
        lines = wrap(text, width)
        assert not any(line.strip().startswith("加速比") for line in lines), (width, lines)
        assert cell_len(lines[0]) >= width - 8, (width, lines)  # the line fills: not ending at "本 Kernel"
    assert all(text[i - 1] != "加" for i in break_opportunities(text))  # 加|速比: one word


@pytest.mark.parametrize("width", WIDTHS)
def test_diagnose_lines_before_at_most_are_full(width, capsys, monkeypatch):
    for name in ("Atopos0313__cuda_learning__reports_day08_before", "AveryClapp__ESMM-Research__profile",
                 "yzwang2000__cudaCode__profile", "LakshyaSingh354__CudaCode__gemm_reps_naive"):
        out = _out(capsys, monkeypatch, width, "diagnose", str(need(CORPUS_NCU / f"{name}.ncu-rep")))
        lines = out.splitlines()
        early = [(a, b) for a, b in zip(lines, lines[1:])
                 if b.strip().startswith("加速比至多") and width - 2 - cell_len(a) > 6]  # "加速比" would have fit
        assert early == [], (name, early)


# ----------------------------------------------------------------------------------------------- 2: words whole
def test_no_break_inside_a_listed_word():
    for text in ("3 次启动，共耗时 1.311 ms；以下为耗时处于中位数的一次 [2]", "标注区间（NVTX / 用户标注）",
                 "at::native::elementwise_kernel<…>（名称被分析器截断）"):
        spans = [(a, b) for a, b in words(text) if text[a:b] in SPLIT]
        assert spans, text
        for points in (break_opportunities(text), name_breaks(text)):
            assert not [i for i in points for a, b in spans if a < i < b], (text, points)
    assert {"加速比", "共享内存", "中位数", "耗时"} <= unbroken_words()  # the glossary's terms and the common words


@pytest.mark.parametrize("width", WIDTHS)
def test_outputs_split_no_word(width, capsys, monkeypatch):
    runs = [("diagnose", str(need(CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"))),
            ("diagnose", str(need(CORPUS_NCU / "Abhishek7204__raytracingCuda__profile.ncu-rep"))),
            ("timeline", str(need(NSYS / "ai4mat_nsys_stats_console_torch_gcn.txt"))),
            ("timeline", "-v", str(need(NSYS / "kmeans_nsys2021_console_rtx3080_locale_comma.txt")))]
    bad = []
    for argv in runs:
        bad += [f"{argv[-1][-30:]}: {s}" for s in split_words(_out(capsys, monkeypatch, width, *argv))]
    assert bad == []


def test_a_folded_name_never_starts_a_line_with_a_closing_bracket():
    name = "cudnn::ops::nchwToNhwcKernel<…>(…)"
    for text in (name, name + "（名称被分析器截断）"):
        for width in range(12, 34):
            bounds = [0, *divide(text, width, name=True), len(text)]  # a name cell (NameText) wraps so
            parts = [text[a:b] for a, b in zip(bounds, bounds[1:])]
            assert not any(p[0] in ")>…）" or q[-1] in "(<（" for q, p in zip(parts, parts[1:])), (width, parts)


@pytest.mark.parametrize("width", WIDTHS)
def test_timeline_kernel_names_leave_no_bracket_alone(width, capsys, monkeypatch):
    out = _out(capsys, monkeypatch, width, "timeline", str(need(TRACES / "hta_nccl_data_a100_rank0.json.gz")))
    assert not [line for line in out.splitlines() if line.strip()[:1] in (")", "）")], out


# ----------------------------------------------------------------------------------------------- 3: ranks table
@pytest.mark.parametrize("width", WIDTHS)
def test_ranks_imbalance_numbers_are_right_aligned(width, capsys, monkeypatch):
    out = _out(capsys, monkeypatch, width, "timeline", "--as-ranks", str(need(CASES / "N14_ranks_ddp_compute_straggler")))
    lines = out.splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith(labels().label["tl_ar_imbalance"].zh))
    head = next(line for line in lines[title + 1:] if "总耗时" in line)
    right = cell_len(head[:head.index("总耗时") + 3])  # where the header's text ends
    rows = [line for line in lines[lines.index(head) + 2:] if re.search(r"\d [mµn]?s", line)][:4]
    ends = [cell_len(row[:re.search(r"\d [mµn]?s\b", row).end()]) for row in rows]  # the first time: the total
    assert len(rows) == 4 and ends == [right] * 4, (head, rows)


# ----------------------------------------------------------------------------------------------- 4: fusion advice
@pytest.mark.parametrize("width", WIDTHS)
def test_fusion_advice_once_and_not_indented_deeper(width, capsys, monkeypatch):
    trace = str(need(TRACES / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz"))
    out = _out(capsys, monkeypatch, width, "fusion", trace)
    lines = out.splitlines()
    chains = [line for line in lines if re.search(r"第 \d+ 条链：", line)]
    advice = [line for line in lines if "建议：" in line]
    assert len(chains) > 3 and len(advice) == len(chains), out
    column = {line.index("第") for line in chains if "条链：" in line.strip()[:8]}
    assert {line.index("建议") for line in advice} == column, advice  # the advice starts where its chain does
    full = [line.split("建议：", 1)[1] for line in advice if "同第" not in line]
    assert len(full) == len(set(full)) and len(full) < len(advice), advice  # each route's advice once
    assert re.search(r"建议：同第 \d+ 条链", out)


def test_fusion_advice_same_as_chain_in_english(capsys):
    trace = str(need(TRACES / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz"))
    assert main(["fusion", trace, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "Advice: same as chain 1" in out and out.count("Advice: Every kernel of the chain") == 1


# ----------------------------------------------------------------------------------------------- 5: checks apart
@pytest.mark.parametrize("width", WIDTHS)
def test_the_checks_row_is_apart_from_the_rows_before(width, capsys, monkeypatch):
    out = _out(capsys, monkeypatch, width, "timeline", "-v", str(need(TRACES / "hta_alexnet_a100_rank0_trace.json.gz")))
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(("  检查（", "  假设 ", "  该估计未考虑"))]
    assert len(starts) == 3 and all(lines[i - 1].strip() == "" for i in starts), out


# ----------------------------------------------------------------------------------------------- 6: file names
def test_a_path_breaks_at_its_parts_never_before_its_extension():
    path = "/work/shared/corpus/ncu/kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep"
    for width in range(12, 90):
        breaks = divide(path, width, path=True)
        assert all(i < path.rindex(".") for i in breaks), (width, breaks)  # ".ncu-rep" stays with its name
        if width >= len("softmax_CUDA_naivesoftmax_ncu.ncu-rep"):
            assert all(path[i - 1] == "/" or path[i - 2:i] == "__" for i in breaks), (width, breaks)
    assert not [i for i in name_breaks("rank0.pt.trace.json") if i > len("rank0.pt.trace")]


@pytest.mark.parametrize("width", WIDTHS)
def test_report_header_keeps_the_extension(width, capsys, monkeypatch):
    report = need(CORPUS_NCU / "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep")
    out = _out(capsys, monkeypatch, width, "diagnose", str(report))
    head = out.split("（ncu-rep")[0]
    assert head.replace("\n", "") == str(report), head
    assert all(line.endswith(("/", "__")) for line in head.splitlines()[:-1]), head


# ----------------------------------------------------------------------------------------------- 7, 8: help, errors
@pytest.mark.parametrize("width", WIDTHS)
def test_help_list_of_the_short_report_uses_the_enumeration_comma(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    with pytest.raises(SystemExit):
        main(["timeline", "--help", "--lang", "zh"])
    text = re.sub(r"\s*\n\s*", "", capsys.readouterr().out)
    assert "只列出概览、设备、Rank、主要 Kernel 与融合表以及检查结果" in text, text
    assert "概览，设备" not in text and "融合表，检查结果" not in text


@pytest.mark.parametrize("width", WIDTHS)
def test_an_invalid_choice_is_one_sentence(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    with pytest.raises(SystemExit) as exc:
        main(["diagnose", str(need(CORPUS_NCU / "yzwang2000__cudaCode__profile.ncu-rep")), "--format", "xyz",
              "--lang", "zh"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    assert "）（" not in err and "（" not in err and "无效，可选值为“table”、" in err, err

"""The third zh review's render findings, each as a class: lists in compare (、, 等 N 个, 无), captions that leave
out the part of each dropped column, Markdown headings without their caption, wrapping (paths at their parts, no
widow of one character), what-if factors as integers, no FP work worded, one precision per spread row."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import CASES, need
from kernelscope.analysis.groups import Spread
from kernelscope.render.cjk import _letters, divide, name_breaks, wrap
from kernelscope.render.cjk_console import PATH
from kernelscope.render.common import Fmt
from kernelscope.render.compare import _regressions_line, names_list
from kernelscope.render.launch_groups import spread_values
from kernelscope.render.source_words import count_text
from kernelscope.render.timeline_scopes import Captioned


def test_name_lists_in_chinese_use_the_enumeration_comma_and_say_how_many():
    zh, en = Fmt("zh"), Fmt("en")
    names = tuple(f"kernel_{i}" for i in range(11))
    text = names_list(names, zh)
    assert "、" in text and text.endswith(" 等 11 个") and "," not in text and "..." not in text
    assert names_list(names, en).endswith(", ... (11)")
    assert names_list(names[:2], zh) == "kernel_0、kernel_1"  # all shown: no count
    assert names_list((), zh) == "无" and "-" not in names_list((), zh)


def test_regressions_and_none_in_chinese():
    zh = Fmt("zh")

    class C:
        unmatched_after = ()
        unmatched_growth = 0.0

    line = _regressions_line(("k_17", "total"), 5.0, zh, C())
    assert "k_17、" in line and "，" not in line.split("：", 1)[1]
    assert _regressions_line((), 0.5, zh, C()).endswith("：无")


def test_a_caption_leaves_out_the_part_of_each_dropped_column():
    c = Captioned.build("Kernels", [("share: of kernels", ["Share"]), ("", ["X"]), ("program: of wall", ["Of program", "if 2x"])],
                        "; ")
    assert str(c) == "Kernels; share: of kernels; program: of wall"
    assert c.shown(["Name", "Share", "if 2x"]) == str(c)
    assert c.shown(["Name", "Of program"]) == "Kernels; program: of wall"  # Share dropped: its part too
    assert c.shown(["Name", "Share"]) == "Kernels; share: of kernels"
    assert c.shown(["Name"]) == "Kernels" and c.head == "Kernels"
    assert c.caption() == "share: of kernels; program: of wall"


def _run(*args: str, columns: int = 80) -> str:
    env = {"COLUMNS": str(columns), "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    return subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True, text=True, env=env,
                          check=False).stdout


def test_timeline_caption_at_80_columns_says_nothing_of_a_dropped_share_column():
    case = need(CASES / "N14_ranks_ddp_compute_straggler")
    out = _run("timeline", str(case), "--lang", "zh")
    title = next(line for line in out.splitlines() if line.startswith("按总耗时排序的 Kernel"))
    header = out.splitlines()[out.splitlines().index(title) + 2]
    assert ("占比" in header) == ("占比：" in title)


def test_markdown_heading_holds_the_title_alone():
    case = need(CASES / "N14_ranks_ddp_compute_straggler")
    out = _run("timeline", str(case), "--lang", "zh", "--format", "markdown")
    heads = [line for line in out.splitlines() if line.startswith("###")]
    assert heads and not any("；" in h for h in heads)
    assert not any(line.startswith("* ") for line in out.splitlines())  # a caption is no list item


def test_invalid_record_listed_once_and_no_double_blank_line():
    case = need(CASES / "C03_kineto_ts0_kernel.json")
    out = _run("timeline", str(case), "--lang", "zh")
    assert out.count("volta_sgemm_64x64_nt：没有 GPU") + out.count("已计数但未使用") == 1
    assert "\n\n\n" not in out


PARAGRAPHS = ["这是一段很长的中文说明文字，用来测试行尾只剩下一个字的情况，看看会不会留下孤字有效计算",
              "不显示进度条，也不显示 ncu 自身的输出（失败信息仍会显示）",
              "每次启动的更多内容（依据、各级存储、Roofline、占用率）：用 `--details` 查看",
              "GPU 0 在其时间跨度内忙碌 23.8%，低于 50%；先合并这些忙碌时间并集"]


@pytest.mark.parametrize("text", PARAGRAPHS)
def test_no_widow_of_one_character(text):
    # native review 9: two characters alone on the last line ("计算", "查看") are a short line, not a widow, and
    # the line above stays full (no line ends early to mend them); one alone ("算", "算。") is mended
    for width in range(16, len(text) * 2):
        lines = wrap(text, width)
        assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
        if len(lines) > 1:
            assert _letters(lines[-1]) > 1, (width, lines)


PATHS = ["/work/shared/corpus/ncu/AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep",
         "/work/shared/cases/N14_ranks_ddp_compute_straggler/rank0.json",
         "kernel<…>（名称被分析器截断）"]


@pytest.mark.parametrize("path", PATHS)
def test_a_name_never_leaves_one_or_two_characters_alone(path):
    assert all(len(path) - i >= 3 for i in name_breaks(path))
    for width in range(12, len(path)):
        bounds = [0, *divide(path, width, name=True), len(path)]
        parts = [path[a:b] for a, b in zip(bounds, bounds[1:])]
        assert all(len(p) >= 3 for p in parts[1:]), (width, parts)


def test_paths_wrap_at_their_parts_in_diagnose_and_ranks():
    report = need(CASES.parent / "corpus" / "ncu" / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep")
    first = _run("diagnose", str(report), "--lang", "zh").splitlines()[:2]
    assert first[0][-1] in "/_-." and len(first[1]) >= 3
    ranks = _run("timeline", "--as-ranks", str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--lang", "zh")
    assert not re.search(r"_dd\s*\n\s*p_", ranks)
    assert PATH.fullmatch("a/b.json") and not PATH.fullmatch("3/4")


def test_what_if_factors_are_integers_in_as_ranks():
    out = _run("timeline", "--as-ranks", str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--lang", "zh")
    assert "提速 2×" in out and "2.00×" not in out and "10.00×" not in out


def test_no_fp_work_is_not_applicable_not_zero():
    for lang, word in (("zh", "不适用（没有执行浮点指令）"), ("en", "not applicable (no floating-point instructions executed)")):
        f = Fmt(lang)
        assert f.flops(0) == word and f.intensity(0) == word
        assert f.flops(2e12) != word and f.intensity(1.5).endswith("FLOP/B")


def test_counts_without_thousands_commas():
    assert "," not in count_text(14096, Fmt("zh")) and "," not in count_text(14096, Fmt("en"))
    assert count_text(141096, Fmt("zh")) == count_text(141096, Fmt("en")) == "141096"  # a table's: whole


def test_one_precision_per_spread_row():
    text = spread_values("duration_s", Spread(min=152e-6, median=152.6e-6, max=153.2e-6, measured=3), Fmt("zh"))
    numbers = re.findall(r"\d+(?:\.\d+)?", text)
    assert len({len(n.split(".")[1]) if "." in n else 0 for n in numbers}) == 1


def test_source_sample_counts_through_the_one_count_format():
    report = need(CASES.parent / "corpus" / "ncu" / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep")
    out = _run("source", str(report), "--lang", "zh")
    assert out.strip() and not re.search(r"\d,\d{3}", out)  # 1.41 万, 9521: never 14,096


@pytest.mark.parametrize("columns", [80, 200])
def test_lanes_caption_speaks_of_the_if_columns_only_while_shown(columns):
    out = _run("timeline", "--details", str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--lang", "zh",
               columns=columns).splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("各设备"))
    header = next(line for line in out[at + 1:] if "名称" in line)
    assert ("提速 2× 后" in header) == ("提速后" in "".join(out[at:at + 2]))

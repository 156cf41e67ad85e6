"""The Chinese wording of the second zh review (ZH-REVIEW2): one form for a launch's index, record kinds worded,
no bracket inside a bracket, lists joined by 、, one term per concept in the --help texts too, help lines broken
where no word is split, one wording of a count's lower limit.

Each test checks a whole class over the catalogues (every zh text of ``src/kernelscope/data``, the messages and
--help texts included) or over what the code composes, and shows that its check catches the fault it is for."""

from __future__ import annotations

import re
import string

import pytest

from conftest import CASES, need
from kernelscope.cli import main
from kernelscope.cli.language import cells, wrap_cells
from kernelscope.knowledge.glossary import misused
from kernelscope.knowledge.messages import fill, zh_list
from kernelscope.render.cjk import MEASURE_WORDS, break_opportunities
from kernelscope.render.common import Fmt
from test_zh_terms import _catalogue_zh, _literal, _without_code, outputs  # noqa: F401 (the fixture)


def _filled(template: str) -> str:
    """A template with each field as the neutral stand-in ``V`` (its format spec dropped)."""
    try:
        return _literal(template)
    except ValueError:  # a literal "{" in a phrase: the text as it is
        return template


# --- one term per concept, in every catalogue text (messages and --help included) ------------------------------------

def test_no_forbidden_variant_in_any_zh_catalogue_text():
    """The glossary's forbidden variants (第 1 次启动, 两边, rank, grid 与 block, L1TEX, Tensor 通路, FLOP/byte ...) in
    no zh text of any data file: labels, findings, remedies, stalls, units and the messages, errors and --help."""
    bad = {k: misused(_without_code(_filled(t))) for k, t in _catalogue_zh().items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


@pytest.mark.parametrize("wrong", [
    "--levels：第 1 次启动（silu）", "所选的启动中没有编号为 5 的启动", "只看编号为 N 的启动", "1 条 kernel 记录 x",
    "2 条 memcpy 记录 x", "两边都使用内置规格库", "按 rank 存放跟踪的目录", "每种 Kernel、grid 与 block 一个面板",
    "Long Scoreboard（等待 L1TEX 访存结果）", "Tensor 通路百分比", "Tensor Core 管线", "Tensor 分块浪费",
    "双对数坐标的 FLOP/byte", "Speed-of-Light 计算（SM）", "见 Rank 对比表", "各 Rank 见 Rank 表"])
def test_the_glossary_catches_each_variant_the_review_saw(wrong):
    assert misused(wrong), wrong


@pytest.mark.parametrize("right", [
    "--levels：启动 [1]（silu）", "1 条 Kernel 记录 x", "2 条拷贝记录", "两侧都使用内置规格库", "distributedInfo.rank",
    "--grid", "Grid 与 Block", "Tensor 管线", "Tensor tile 的浪费", "FLOP/B", "Speed-of-Light 计算", "各 Rank 对比"])
def test_the_glossary_passes_the_fixed_forms(right):
    assert not misused(right), (right, misused(right))


def test_a_timeline_words_the_kind_of_a_record_it_set_aside():
    """ZH-REVIEW2 9: ``1 条 kernel 记录``: the kind is a label (tl_record_*), not the English kind name."""
    path = need(CASES / "C03_kineto_ts0_kernel.json")
    out = _run("timeline", str(path), "--lang", "zh")
    assert "条 Kernel 记录" in out and not misused(out), misused(out)


# --- no bracket inside a bracket ------------------------------------------------------------------------------------

def _nested(text: str) -> str | None:
    """The first full-width bracket opened inside another one, with context; None when there is none."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "（":
            depth += 1
            if depth > 1:
                return text[max(0, i - 30): i + 30]
        elif ch == "）":
            depth = max(0, depth - 1)
    return None


def test_no_zh_catalogue_text_has_a_bracket_inside_a_bracket():
    """ZH-REVIEW2 10: ``（…优化后 1 次（每侧至少需要两次））``, ``（被截断：…（块头声明…）；…）``: an inner part goes after
    ``；`` instead. Every zh text, its fields filled with a stand-in, and also filled with a bracketed value where the
    field is one that carries a bracket (a stall name and its gloss, a finding title)."""
    bad = {}
    for key, text in _catalogue_zh().items():
        filled = _filled(text)
        where = _nested(filled)
        if where is None and "{" in text:
            glossed = _glossed(text, _GLOSSED.get(key.partition(":")[2].rpartition(".")[2], ()))
            where = _nested(glossed) if glossed else None
        if where is not None:
            bad[key] = where
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())
    assert _nested("运行间波动未知：优化前 1 次启动，优化后 1 次（每侧至少需要两次）".join("（）"))


#: The fields the code fills with a text that carries its own bracket in Chinese (a stall name with its gloss, a
#: finding title: "Long Scoreboard（…）停顿为主"), by the text's key.
_GLOSSED = {"action": ("best_title",), "resolved_item": ("finding",), "grp_own_advice": ("title",),
            "chart_healthy_named": ("name",), "predicted_value": ("rule",)}


def _glossed(template: str, fields: tuple[str, ...]) -> str | None:
    """``template`` with each of ``fields`` as ``Wait（固定延迟依赖）``, the others as ``V``; None when it has none of
    those fields."""
    parts, hit = [], False
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for literal, field, _, _ in parsed:
        parts.append(literal)
        if field is not None:
            hit = hit or field in fields
            parts.append("Wait（固定延迟依赖）" if field in fields else "V")
    return "".join(parts) if hit else None


def test_a_source_line_names_its_healthy_state_after_a_semicolon():
    """``Dispatch Stall（…）2%（非停顿：Math Pipe Throttle（…）6%）`` -> ``…2%；不计为停顿：…``."""
    from kernelscope.analysis.source import StallSamples
    from kernelscope.render import source_words

    c = type("C", (), {"stalls": [StallSamples("dispatch_stall", 2, 0.02, 0.1)],
                     "healthy": [StallSamples("selected", 50, 0.5, 0.2)]})()
    text = source_words.stall_text(c, Fmt("zh"))
    assert _nested(text) is None and "；" in text, text
    assert "(" in source_words.stall_text(c, Fmt("en"))


# --- lists ------------------------------------------------------------------------------------------------------------

def test_a_zh_list_is_joined_by_the_enumeration_comma():
    assert Fmt("zh").listing(["各 Stream", "按方向统计的拷贝"]) == "各 Stream、按方向统计的拷贝"
    assert Fmt("en").listing(["a", "b"]) == "a, b"
    # a kernel name's template arguments stay whole
    assert zh_list("f<float, 4>(int, int), g") == "f<float, 4>(int, int)、g"
    text = fill("{names:list}", "zh", {"names": "a_kernel, b_kernel"})
    assert text == "a_kernel、b_kernel", text


def test_no_zh_message_lists_names_without_the_list_format():
    """A message field that holds names joined by ``, `` (``names``) is filled ``{names:list}`` in Chinese."""
    bad = [k for k, t in _catalogue_zh().items() if k.startswith("messages.toml:") and "{names}" in t]
    assert not bad, bad


def test_a_timeline_lists_its_more_tables_and_gpus_the_chinese_way():
    path = need(CASES / "C03_kineto_ts0_kernel.json")
    out = _run("timeline", str(path), "--lang", "zh")
    more = re.search(r"更多表格（([^）]*)）", out)
    assert more and "，" not in more.group(1) and ", " not in more.group(1), more and more.group(1)
    assert not re.search(r"GPU\s+\d+:", out), re.search(r"GPU.*", out).group(0)


# --- help texts -------------------------------------------------------------------------------------------------------

def test_no_line_breaks_between_a_determiner_and_its_measure_word():
    text = "逐行列出每个失败的文件及目录中被跳过的每个文件和原因，每 SM 的 Warp 数，目录是一个 Rank 程序"
    points = set(break_opportunities(text))
    glued = [m.end() for m in re.finditer("[每各一两](?=%s)" % "|".join(MEASURE_WORDS), text)]
    glued += [m.end() + 1 for m in re.finditer("[每各](?= [A-Z])|一个(?= [A-Z])", text)]
    assert len(glued) == 5 and not points & set(glued), [text[i - 1:i + 2] for i in points & set(glued)]


def test_a_help_line_ends_where_no_word_is_split():
    """ZH-REVIEW2 16: ``被跳过的每`` / ``个文件``: never between 每 and 个; native review 8: the line still fills
    (it gives back no more than one two-character word), and never splits a word (标准错误)."""
    lines = wrap_cells("某个输入无法读取时不中止其余输入：先报告其余输入，再在标准错误上逐行列出每个失败的文件及目录中被"
                       "跳过的每个文件和原因；有任何失败时退出码为 2", 56)
    assert all(not line.endswith(("每", "各")) for line in lines), lines
    assert all(cells(line) >= 56 - 4 for line in lines[:-1]) and not any(line.endswith("标") for line in lines), lines


@pytest.mark.parametrize("command", ["diagnose", "timeline", "occupancy", "compare", "source", "fusion", "roofline"])
def test_zh_help_splits_no_determiner_from_its_word(command):
    out = _run(command, "--help", "--lang", "zh", columns=80, codes=(0,))
    lines = out.splitlines()
    for a, b in zip(lines, lines[1:]):
        assert not (a.rstrip().endswith(tuple("每各该")) and b.strip().startswith(MEASURE_WORDS)), (a, b)


# --- one wording of a count's lower limit -----------------------------------------------------------------------------

def test_count_limits_are_worded_one_way():
    """``应为正整数（启动次数），实际为 0`` (diagnose) beside ``至少为 1，实际为 -1`` (timeline): one form."""
    texts = {k: t for k, t in _catalogue_zh().items() if "实际为" in t}
    bad = [k for k, t in texts.items() if re.search(r"至少为 1", t)]
    assert not bad, bad


def _run(*argv: str, columns: int = 2000, codes: tuple[int, ...] = (0, 1)) -> str:
    import contextlib
    import io
    import os

    buf = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            try:
                code = main(list(argv))
            except SystemExit as e:  # --help
                code = e.code or 0
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    assert code in codes, (argv, code)
    return buf.getvalue()


def test_no_bracket_inside_a_bracket_in_zh_outputs(outputs):
    """The same in what every command prints in Chinese (the outputs of tests/test_zh_terms.py): a text the code puts
    in brackets holds none of its own (the stall list's note after "；", a verdict title without brackets)."""
    bad = {}
    for name, (text, _) in outputs.items():
        found = [w for w in map(_nested, text.splitlines()) if w]
        if found:
            bad[name] = found[:3]
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())

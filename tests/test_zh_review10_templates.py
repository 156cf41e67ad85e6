"""Native review 10 of the Chinese output, its template and wording items (F30, D22, F31, F32, D21): templates
that read right at unmeasured and zero values, one meaning of 最慢 Rank, no translated-English sentences, no
internal word (corpus / 语料) reaching users, no finding text that repeats its title, one word for replay. Each
test fails on the code before the fix; a rule holds in both languages where the English had the same fault."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.knowledge.glossary import misused

DATA = Path(__file__).resolve().parents[1] / "src" / "kernelscope" / "data"
NCU = SHARED / "corpus" / "ncu"
TRACES = SHARED / "corpus" / "torch_traces"
CASES = SHARED / "cases"


def _out(capsys, *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return re.sub(r"\s+", "", capsys.readouterr().out)  # wrapping aside


def _data_texts() -> list[tuple[str, str]]:
    """(file, text) of every string value of the data files (comments and keys left out)."""
    out = []

    def walk(name, v):
        if isinstance(v, str):
            out.append((name, v))
        elif isinstance(v, dict):
            for x in v.values():
                walk(name, x)
        elif isinstance(v, list):
            for x in v:
                walk(name, x)
    for p in sorted(DATA.glob("*.toml")):
        walk(p.name, tomllib.loads(p.read_text()))
    return out


# --- F30: templates at unmeasured or zero values ---------------------------------------------------------------------

@pytest.mark.parametrize("lang, launches, wrong", [
    ("zh", "3次启动（耗时未测量）", ("共未测量", "占GPU时间未测量", "离群启动", "倍之内")),
    ("en", "3launches(durationsnotmeasured)", ("notmeasuredinall", "ofGPUtime", "Launchesthatdiffer", "within0.67x")),
])
@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_a_group_without_durations_claims_no_total_share_or_outliers(capsys, tmp_path, lang, launches, wrong, fmt):
    case = str(need(CASES / "C05_ncu_console_hit_rates.txt"))
    if fmt == "html":
        page = tmp_path / "d.html"
        _out(capsys, "diagnose", case, "--lang", lang, "--format", "html", "-o", str(page))
        out = re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", page.read_text()))
    else:
        out = _out(capsys, "diagnose", case, "--lang", lang, "--format", fmt)
    assert launches in out.replace("*", "")
    for w in wrong:
        assert w not in out, w


def test_a_group_with_durations_keeps_its_total_and_outlier_line(capsys):
    out = _out(capsys, "diagnose", str(need(NCU / "AveryClapp__ESMM-Research__profile.ncu-rep")), "--lang", "zh", "-v")
    if "离群启动" not in out:
        pytest.skip("this report has no launch group")
    assert "耗时未测量）" not in out


@pytest.mark.parametrize("lang, none, wrong", [
    ("zh", "均无NsightCompute数据", ("0个有", "个中0", "程序整体提速”两列")),
    ("en", "nonewithNsightComputedata", ("0of1", "andprogramspeedup:")),
])
def test_a_join_where_no_kernel_has_data_says_so_without_a_table_of_dashes(capsys, lang, none, wrong):
    out = _out(capsys, "timeline", str(need(TRACES / "hta_triton_example_a100.json.gz")), "--kernels",
               str(need(NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep")), "--lang", lang)
    assert none in out
    for w in wrong:
        assert w not in out, w
    head = out.split(none)[1].split("时间线中没有的" if lang == "zh" else "NsightComputekernelsnot")[0]
    assert "-" * 3 not in head.replace("─", "") and "无NsightCompute数据" not in head.split("程序占比", 2)[-1]


@pytest.mark.parametrize("lang, title, wrong", [
    ("zh", "优化前诊断项的变化（均未解决", "改动解决了什么"),
    ("en", "WhatbecameoftheBEFOREfindings(noneresolved", "Whatthechangeresolved"),
])
def test_a_compare_heading_over_findings_all_still_present_does_not_say_resolved(capsys, lang, title, wrong):
    before = need(NCU / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_fa3_before_n4096_full.ncu-rep")
    after = need(NCU / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep")
    out = _out(capsys, "compare", str(before), str(after), "-v", "--lang", lang)
    assert title in out and wrong not in out


def test_a_compare_heading_over_a_resolved_finding_keeps_resolved(capsys):
    before = need(NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep")
    after = need(NCU / "Atopos0313__cuda_learning__reports_day08_after.ncu-rep")
    out = _out(capsys, "compare", str(before), str(after), "--lang", "zh")
    assert "改动解决了什么" in out and "均未解决" not in out


def test_the_unmeasured_variants_are_chosen_where_a_measured_value_is_none():
    from kernelscope.knowledge.findings import findings
    from kernelscope.render.common import Fmt, work_key
    from kernelscope.analysis.engine import Note

    assert work_key("tail_effect", {"measured_idle": None}) == "tail_effect__unmeasured"
    assert work_key("tail_effect", {"measured_idle": 0.2}) == "tail_effect"
    assert "未测得实际 SM 空闲时间" in findings()["tail_effect"].action("zh", unmeasured=True)
    for lang, right, wrong in (("zh", "未测得实际 SM 空闲时间", "未测量）"), ("en", "idle SM time not measured", ": not measured")):
        text = Fmt(lang).note(Note("tail_effect", {"waves": 2.5, "last_pct": 50.0, "idle": 0.2, "measured_idle": None}))
        assert right in text and wrong not in text, text
        text = Fmt(lang).note(Note("tail_effect", {"waves": 2.5, "last_pct": 50.0, "idle": 0.2, "measured_idle": 0.15}))
        assert "15%" in text


# --- D22: 最慢 Rank means the longest wall, never the most own work ---------------------------------------------------

@pytest.mark.parametrize("lang, wall, own", [("zh", "程序总时长（最慢Rank）", "自身工作最长的Rank"),
                                             ("en", "Programwall(slowestrank)", "Rankwiththemostownwork")])
def test_as_ranks_names_the_rank_with_the_most_own_work_apart_from_the_slowest(capsys, lang, wall, own):
    out = _out(capsys, "timeline", str(need(TRACES / "param_dlrm_kineto_8rank_v100.tar.gz")), "--as-ranks", "--lang", lang)
    assert wall in out and own in out
    assert out.count("最慢Rank" if lang == "zh" else "lowestrank") == 1


# --- F31 / F32 / D21: wording ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("wrong", ["支付启动开销", "至多的数字", "较低的数字", "可以隐藏该停顿", "再往上只能",
                                   "Pay the launch overhead", "pay the launch overhead", "in the corpus reports"])
def test_the_translationese_review_10_quoted_is_gone_from_every_text(wrong):
    assert not [t for _, t in _data_texts() if wrong in t], wrong


def test_no_user_text_names_the_internal_corpus():
    hits = [(f, t[:80]) for f, t in _data_texts() if re.search(r"(?i)\bcorpus\b|语料", t)]
    assert hits == []


def test_no_finding_text_repeats_its_title():
    table = tomllib.loads((DATA / "findings.toml").read_text())["finding"]
    repeats = [(k, lang) for k, v in table.items() for lang in ("en", "zh") for a in ("action", "capped", "unmeasured")
               if v.get(f"{a}_{lang}", "").lower().startswith(v[f"title_{lang}"].lower())]
    assert repeats == []


@pytest.mark.parametrize("lang, right", [("zh", "融合后耗时至少"), ("en", "Fused,ittakesatleast")])
def test_fusion_says_what_takes_at_least_the_time(capsys, lang, right):
    out = _out(capsys, "fusion", str(need(NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep")),
               "--around", "silu_kernel_non_strided", "--lang", lang)
    if "至少" not in out and "atleast" not in out:
        pytest.skip("this fusion estimate is not a flow bound")
    assert right in out
    assert not re.search(r"[。.]至少\d", out)


def test_replay_is_one_word():
    assert misused("多遍回放") and not misused("多遍重放")
    assert not [t for f, t in _data_texts() if "回放" in t and f != "glossary.toml"]  # (the glossary forbids it)


@pytest.mark.parametrize("lang, right, wrong", [("zh", "（耗时未测量）", "占 GPU 时间未测量"),
                                                ("en", "(durations not measured)", "not measured of GPU time")])
def test_the_other_kernels_title_without_any_share_says_not_measured_once(lang, right, wrong):
    from types import SimpleNamespace

    from kernelscope.render.common import Fmt
    from kernelscope.render.launch_groups import rest_title

    text = rest_title([SimpleNamespace(time_share=None)] * 2, Fmt(lang))
    assert right in text and wrong not in text, text
    assert "25" in rest_title([SimpleNamespace(time_share=0.25), SimpleNamespace(time_share=None)], Fmt(lang))

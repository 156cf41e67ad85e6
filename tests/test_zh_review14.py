"""Review zh14's blocking kinds (one rule each, both languages where the kind exists): a count keeps its measure word
before its per-step part (never "共 48（每步 16 次）次"); "half of it" names the quantity it halves; a Chinese list
joined by 和 spaces a Latin word after it like any Chinese text ("寄存器和 Block 槽位"). The retired wordings are
pinned in test_catalogue_wording.RETIRED."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SHARED
from kernelscope.cli import main

TRACES = sorted((SHARED / "corpus" / "torch_traces").glob("*.json.gz")) if SHARED.is_dir() else []
PARAMS = TRACES or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))]
HAN = r"[\u4e00-\u9fff]"


def _run(capsys, *args) -> str:
    try:
        main([*args])
    except SystemExit:
        pass
    return capsys.readouterr().out


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_a_count_keeps_its_measure_word_before_its_per_step_part(path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    zh = "".join(_run(capsys, "fusion", str(path), "--lang", "zh").split())
    en = " ".join(_run(capsys, "fusion", str(path)).split())
    assert not re.search(r"\d（每步[^）]*）次", zh), re.findall(r".{20}\d（每步[^）]*）次", zh)[:3]
    assert not re.search(r"\d \(\S+/step\) runs", en), re.findall(r".{20}\d \(\S+/step\) runs", en)[:3]


def test_half_names_the_idle_time_it_halves(capsys, monkeypatch):
    path = SHARED / "corpus" / "nsys" / "cts_rtx3070_array_inc_a.sqlite"
    if not path.is_file():
        pytest.skip("shared corpus absent")
    monkeypatch.setenv("COLUMNS", "1000")
    zh = _run(capsys, "timeline", str(path), "--lang", "zh")
    en = _run(capsys, "timeline", str(path))
    idle = re.search(r"有 (\S+ ms) 没有任何 GPU 工作", zh).group(1)
    assert f"让这 {idle} 的一半与 GPU 工作重叠" in zh
    assert re.search(rf"hiding half of these {re.escape(idle)} under GPU work", en)


@pytest.mark.parametrize("fmt", ["table", "markdown"])
@pytest.mark.parametrize("args", [("--regs", "40", "--threads", "96"), ("--regs", "64", "--threads", "256", "--smem", "48K")])
def test_a_list_joined_by_he_spaces_a_latin_word(args, fmt, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    zh = _run(capsys, "occupancy", "--arch", "sm_86", *args, "--lang", "zh", "--format", fmt)
    assert "受限于" in zh
    assert not re.search(HAN + r"[A-Za-z]|[A-Za-z]" + HAN, zh), re.findall(".{12}" + HAN + "[A-Za-z].{4}", zh)[:3]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_dunder_name_is_code_in_markdown(lang, capsys, monkeypatch, tmp_path):
    cu = tmp_path / "lb.cu"
    cu.write_text("__global__ void __launch_bounds__(128) tile(float* a) { a[threadIdx.x] *= 2.0f; }\n")
    pytest.importorskip("shutil").which("nvcc") or pytest.skip("nvcc is not installed")
    md = _run(capsys, "occupancy", "--cu", str(cu), "--arch", "sm_86", "--threads", "512", "--format", "markdown",
              "--lang", lang)
    assert "__launch_bounds__" in md
    assert not re.search(r"(?<![`\w])__launch_bounds__(?![`\w])", md), md  # (bare, Markdown would print it bold)


def test_no_empty_rule_name_is_listed():
    from kernelscope import diagnose_file
    from kernelscope.analysis.nsight import match_nsight
    from kernelscope.model import RuleResult

    unnamed = RuleResult(rule_id="", title="", message_type="WARNING", message="If you execute __syncthreads() ...",
                         estimated_speedup_pct=None, speedup_type=None)
    named = RuleResult(rule_id="CPIStall", title="", message_type="WARNING", message="x", estimated_speedup_pct=None,
                       speedup_type=None)
    assert [m.rule_id for m in match_nsight([unnamed, named], ())] == ["CPIStall"]
    path = SHARED / "corpus" / "ncu_csv" / "cts_ncu_text_rtx3070_matrix_sums.profile1-simple.output"
    if path.is_file():
        assert all(m.rule_id for d in diagnose_file(path).kernels for m in d.nsight_matches)

"""Markdown never prints an empty bold label (review 12, blocking 5: ``- ****: ⇒: folded into ...``): a row whose
label is empty continues the line above (render.inline.md_labelled), in every command's Markdown."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS_NCU, SHARED, need
from kernelscope.cli import main


TORCH = SHARED / "corpus" / "torch_traces"
NAIVE = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"
COALESCED = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_02_coalesce_memory.ncu-rep"
#: A bullet or line that starts with an empty label: "- ****", "- **  **", "- : x", "- ：x", a bare "****".
EMPTY_LABEL = re.compile(r"\*\*\*\*|^\s*(?:[-*+] )?\*\*\s+\*\*|^\s*[-*+] [:：]")

COMMANDS = {
    "timeline alexnet": lambda: ["timeline", str(need(TORCH / "hta_alexnet_a100_rank0_trace.json.gz"))],
    "timeline triton": lambda: ["timeline", str(need(TORCH / "hta_triton_example_a100.json.gz"))],
    "fusion alexnet": lambda: ["fusion", str(need(TORCH / "hta_alexnet_a100_rank0_trace.json.gz"))],
    "diagnose": lambda: ["diagnose", str(need(CORPUS_NCU / NAIVE)), str(need(CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep"))],
    "diagnose -v": lambda: ["diagnose", "-v", str(need(CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep"))],
    "compare": lambda: ["compare", str(need(CORPUS_NCU / NAIVE)), str(need(CORPUS_NCU / COALESCED))],
    "banks": lambda: ["banks", "--dtype", "double", "--tile", "32x32", "--access", "column"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_empty_bold_label_in_markdown(name, lang, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code = main([*COMMANDS[name](), "--format", "markdown", "--lang", lang])
    out = capsys.readouterr().out
    assert code in (0, 1) and out, name
    bad = [line for line in out.splitlines() if EMPTY_LABEL.search(line)]
    assert bad == [], "\n".join(bad)


def test_a_row_without_label_continues_the_line_above():
    from kernelscope.render.inline import md_labelled

    assert md_labelled([("A", "1"), ("", "2"), ("B", "3")], ": ", "; ") == ["- **A**: 1; 2", "- **B**: 3"]
    assert md_labelled([("", "0"), ("A", "1")], "：", "；") == ["- 0", "- **A**：1"]
    assert md_labelled([("A", "1")], ": ", "; ", "") == ["**A**: 1"]


#: A bullet that starts with a bold label not followed by the colon (native review 13: "- **检查（时间线专家规则）** GPU 0 …",
#: "- **启动开销** CUDA Graph …" where every other label reads "**输入**：…", "**Input**: ...").
LABEL_WITHOUT_COLON = re.compile(r"^\s*[-*+] \*\*[^*]+\*\*(?![:：])")

COLON_COMMANDS = {**COMMANDS,
                  "timeline nsys": lambda: ["timeline", str(need(SHARED / "corpus" / "nsys" / "cts_rtx3070_array_inc_a.sqlite"))],
                  "timeline dlrm": lambda: ["timeline", str(need(TORCH / "param_dlrm_kineto_8rank_v100.tar.gz"))],
                  "diagnose brief": lambda: ["diagnose", str(need(CORPUS_NCU / "piragi__fuzigrad__output.ncu-rep"))]}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", list(COLON_COMMANDS))
def test_every_bold_label_in_markdown_has_its_colon(name, lang, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code = main([*COLON_COMMANDS[name](), "--format", "markdown", "--lang", lang])
    out = capsys.readouterr().out
    assert code in (0, 1) and out, name
    bad = [line for line in out.splitlines() if LABEL_WITHOUT_COLON.search(line)]
    assert bad == [], "\n".join(bad)


def test_a_labelled_line_is_one_rule():
    from kernelscope.render.inline import md_label_line

    assert md_label_line("检查", "GPU 0 空闲", "：") == "- **检查**：GPU 0 空闲"
    assert md_label_line("Checks", "GPU 0 idle", ": ") == "- **Checks**: GPU 0 idle"
    assert md_label_line("", "GPU 0 idle", ": ") == "- GPU 0 idle"

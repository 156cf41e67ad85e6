"""Fifth native review: overlap rather than "hide under", a tiny share read as 不到 0.1%, a compare refusal and
lists in Chinese ("与", "、", "等 N 个"), and one column per count in the HTML SASS view."""

from __future__ import annotations

import pytest

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.cli import main
from kernelscope.render.common import Fmt

TRACES = SHARED / "corpus" / "torch_traces"
YZ = "yzwang2000__cudaCode__profile.ncu-rep"
TILED = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_03_tiled.ncu-rep"


def test_exposed_communication_is_overlapped_not_hidden_under(capsys):
    assert main(["timeline", str(need(CASES / "N22_kineto_exposed_comm_two_streams.json")), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "与计算重叠" in out and "隐藏到" not in out


def test_a_tiny_share_reads_as_less_than():
    f = Fmt("zh")
    assert f.label("fu_in_chain", i=1, share=f.share(0.0004)) == "第 1 条链：占整体不到 0.1%"


def test_a_refused_compare_lists_in_chinese(capsys):
    args = ["compare", str(need(CORPUS_NCU / YZ)), str(need(TRACES / "hta_alexnet_a100_rank0_trace.json.gz"))]
    assert main(args + ["--lang", "zh"]) == 2
    err = capsys.readouterr().err
    assert " 与 " in err and "kernel_A、kernel_C" in err and " 等 16 个" in err and " vs " not in err, err
    assert main(args) == 2
    assert " vs " in capsys.readouterr().err


def test_a_list_of_names_in_a_reworded_problem_takes_the_enumeration_comma():
    from kernelscope.knowledge.messages import phrase
    problem = "the {} table(s) are empty"  # its template lists {tables}: 、 between the names, not in other text
    assert phrase(problem.format("CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY"), "zh").startswith(
        "CUPTI_ACTIVITY_KIND_KERNEL、CUPTI_ACTIVITY_KIND_MEMCPY")
    assert phrase("line 2: ncu printed: a kernel, then another", "zh").endswith("a kernel, then another")


@pytest.mark.parametrize("lang,word", [("en", "<th>Executed</th>"), ("zh", "<th>执行次数</th>")])
def test_the_sass_view_shows_each_count_once(tmp_path, lang, word):
    out = tmp_path / "x.html"
    assert main(["source", str(need(CORPUS_NCU / TILED)), "--kernel", "warm_up_kernel", "--format", "html",
                 "-o", str(out), "--lang", lang]) == 0
    view = out.read_text("utf-8").split('<table class="code">')[1].split("</tr>")[0]
    assert view.count(word) == 1


@pytest.mark.parametrize("lang,name", [("en", "correctness reference"), ("zh", "正确性校验用参考实现")])
def test_a_library_family_named_in_words_is_worded_in_chinese(lang, name):
    from kernelscope.notes import Note
    text = Fmt(lang).note(Note("f_library_kernel", {"family": "correctness reference", "family_id": "reference"}))
    assert f"({name})" in text or f"（{name}）" in text

"""Fourth native review's kinds: no bracket built inside a bracket at run time, one name for the small grid, no
caption claiming two columns are equal when they are not, one wording for "no FP work"."""

from __future__ import annotations

from conftest import CORPUS_NCU, need
from kernelscope.cli import main
from kernelscope.knowledge.text import labels
from kernelscope.render.common import Fmt


def test_a_bracket_put_in_a_bracket_becomes_a_comma_clause():
    assert Fmt("zh").paren("Grid 过小（SM 空闲）") == "（Grid 过小，SM 空闲）"
    assert Fmt("zh").paren("a") == "（a）"
    assert Fmt("en").paren("a (b)") == " (a (b))"  # English nests as written


def test_small_grid_has_one_name_in_every_place(capsys):
    report = need(CORPUS_NCU / "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep")
    assert main(["diagnose", str(report), "--details", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "Grid 过小" in out and "Grid 太小" not in out and "Grid 小于 GPU 规模" not in out
    assert "（Grid 过小（" not in out


def test_the_idle_share_caption_claims_no_equality():
    table = labels().label
    for key in ("tl_share_of_idle", "tl_share_of_idle_devices"):
        assert "相同" not in table[key].zh and "same" not in table[key].en


def test_no_fp_work_is_worded_one_way():
    table = labels().label
    assert "achieved_no_fp" not in table and table["no_fp_na"].zh == "不适用（无浮点运算）"

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
    assert "achieved_no_fp" not in table and table["no_fp_na"].zh == "不适用（没有执行浮点指令）"


def test_the_memory_side_names_a_memory_unit_when_the_lsu_pipe_leads_both():
    """feather 09's double-buffered GEMM: the LSU pipe (49.0 %) is the busiest compute unit and, as the L1's LSU
    input requests, the busiest memory one; the memory side names the next memory unit instead of the pipe twice."""
    from kernelscope import diagnose_file
    from kernelscope.render.rows import unit_line

    rd = diagnose_file(need(CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_"
                                        "09_double_buffering.ncu-rep"))
    d = next(d for d in rd.kernels if d.limiters.compute and d.limiters.compute[0].unit == "lsu")
    assert d.limiters.memory[0].unit == "lsu"  # the case: the same unit leads both sides
    line = unit_line(d, Fmt("en"), top=1)
    compute, memory = line.split("; ")
    assert "LSU" in compute and "LSU" not in memory and "L1/TEX" in memory, line

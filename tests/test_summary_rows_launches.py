"""An input whose rows are per-kernel summaries (nvprof's summary with its Calls, nvprof metrics with its
Invocations, ``ncu --print-summary``): each row stands for N launches, so the coverage line and the group line
count the launches from those counts and say the rows are summaries, never "all 2 launches diagnosed" beside a
table of 150 + 150 launches. An input of single launches reads as before."""

from __future__ import annotations

import re

import pytest

from kernelscope.render.common import Fmt
from kernelscope.render.rows import shown_text

SUMMARY = """Time(%),Time,Calls,Avg,Min,Max,Name
47.79%,542.36ms,45,12.052ms,12.007ms,12.110ms,[CUDA memcpy HtoD]
20.92%,237.43ms,150,1.5829ms,1.5103ms,2.1174ms,"red_sor(float*, float*, float, int)"
20.91%,237.26ms,150,1.5817ms,1.5084ms,2.1159ms,"black_sor(float*, float*, float, int)"
"""


@pytest.mark.parametrize("lang, every, some, one", [
    ("en", "2 kernels (summary rows, 300 launches in all) diagnosed",
     "1 of 2 kernels (summary rows, 150 of 300 launches) diagnosed",
     "the report's only kernel (a summary row, 3 launches) diagnosed"),
    ("zh", "已诊断 2 个 Kernel（汇总行，共 300 次启动）", "已诊断 2 个 Kernel 中的 1 个（汇总行，300 次启动中的 150 次）",
     "报告只有 1 个 Kernel（汇总行，共 3 次启动），已诊断")])
def test_summary_rows_are_counted_by_their_launches(lang, every, some, one):
    f = Fmt(lang)
    assert shown_text(2, 2, f, 300, 300) == every
    assert shown_text(1, 2, f, 150, 300) == some
    assert shown_text(1, 1, f, 3, 3) == one
    # rows of one launch each are launches: the plain wording
    assert shown_text(2, 2, f, 2, 2) == shown_text(2, 2, f)


@pytest.mark.parametrize("lang, coverage, groups", [
    ("en", "2 kernels (summary rows, 300 launches in all) diagnosed",
     "300 launches (2 summary rows) in 2 groups"),
    ("zh", "已诊断 2 个 Kernel（汇总行，共 300 次启动）", "300 次启动（2 个汇总行）分属 2 组")])
@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_a_summary_inputs_lines_count_the_launches_its_table_shows(tmp_path, lang, coverage, groups, fmt):
    """The launches table says 150 and 150: the lines below it say 300 launches in 2 summary rows."""
    from test_zh_output import run_cli_uncached

    path = tmp_path / "summary.csv"
    path.write_text(SUMMARY)
    out_file = tmp_path / f"out.{ {'table': 'txt', 'markdown': 'md', 'html': 'html'}[fmt] }"
    code, out, err = run_cli_uncached(("diagnose", str(path), "--lang", lang, "--format", fmt, "-o", str(out_file)),
                                      200)
    assert code == 0, err
    text = out_file.read_text()
    assert re.search(r"\b150\b", text), text  # (the table's launches per kernel)
    assert coverage in text, text
    assert groups in text, text
    for wrong in ("all 2 launches", "全部 2 次启动", "2 launches in 2 groups", "2 次启动分属"):
        assert wrong not in text, text

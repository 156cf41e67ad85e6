"""Fifth native review, layout kinds of issue 28 (80 and 120 columns, both languages where the same code serves
English): a table's title fills the width printed in (not the narrower table's), identifiers never folded between
two letters of a word, the ranks view's short names and member file names and columns that fit, the occupancy
notes column kept, a file name in a table header wrapped as a path, the source stall column wide enough, and the
timeline's checks as a bulleted list."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from rich.console import Group
from rich.table import Table
from rich.text import Text

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.cli import main
from kernelscope.render.rich_text import to_plain

TRACES = SHARED / "corpus" / "torch_traces"
NSYS = SHARED / "corpus" / "nsys"


def _out(capsys, monkeypatch, width: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return out


# ---------------------------------------------------------------------------------------- 1. titles fill the width
@pytest.mark.parametrize("title", ["kernel_name: " + "slower by far than before " * 6,
                                   "名称：加速比 0.67×（变慢，耗时为优化前的 1.5×；超出 0.5% 的运行间波动）" * 2])
def test_a_table_title_wraps_at_the_width_printed_in_not_the_tables(title):
    t = Table(title=Text(title), title_justify="left")
    t.add_column("a")
    t.add_row("1")
    lines = to_plain([Group(t)], 80).splitlines()
    title_lines = lines[:next(i for i, line in enumerate(lines) if line.startswith("┏"))]
    assert len(title_lines) >= 2 and max(map(cell_len, title_lines)) <= 80
    assert cell_len(title_lines[0]) >= 80 - 12  # filled to the edge, not to the table's few cells


@pytest.mark.parametrize("width", [80, 120])
def test_compare_title_lines_fill_to_the_edge(capsys, monkeypatch, width):
    before, after = (need(CASES / f"N19_compare_inductor_{side}.toml") for side in ("before", "after"))
    out = _out(capsys, monkeypatch, width, "compare", str(before), str(after), "--lang", "zh")
    first = next(line for line in out.splitlines() if line.startswith("triton_poi_fused_gelu_3"))
    assert cell_len(first) > width - 6 or "之内）；该 Kernel 带来的整体加速比 1.00×" in first
    assert max(map(cell_len, out.splitlines())) <= width


# ---------------------------------------------------------------------------------------- 2. identifiers whole
@pytest.mark.parametrize("name,width,first", [
    ("FusedBiasAddCUDAKernelHalf<…>(…)", 25, "FusedBiasAddCUDAKernel"),
    ("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 25, "cudaOccupancyMaxActive"),
    ("DistributedDataParallel.forward", 25, "DistributedData"),
    ("computeOffsetsKernel<…>(…) [#1]", 21, "computeOffsetsKernel")])
def test_a_long_identifier_folds_between_its_words(name, width, first):
    from kernelscope.render.cjk_console import name_text
    t = Table(show_header=False, box=None, pad_edge=False)
    t.add_column(width=width, overflow="fold")
    t.add_row(name_text(name))
    lines = to_plain([t], 80).splitlines()
    assert lines[0].strip() == first and "".join(line.strip() for line in lines).replace(" ", "") == \
        name.replace(" ", "")


def test_an_identifier_in_a_sentence_folds_at_its_dot_not_between_underscores():
    from kernelscope.render.cjk import wrap
    text = "其中主机在区间 enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ 中耗时 183.7 ms"
    lines = wrap(text, 53)
    assert any(line.endswith("LoaderIter.") for line in lines) and any(line.startswith("__next__") for line in lines)
    assert not any(line.endswith("_") and not line.endswith("__") for line in lines)


# ---------------------------------------------------------------------------------------- 3. the ranks view
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [80, 120])
def test_ranks_name_kernels_short_and_each_rank_by_its_member(capsys, monkeypatch, lang, width):
    archive = need(TRACES / "param_dlrm_kineto_8rank_v100.tar.gz")
    out = _out(capsys, monkeypatch, width, "timeline", str(archive), "--as-ranks", "--lang", lang)
    assert "lambda()" not in out and "TensorIteratorBase&" not in out  # the short display name, not demangled
    assert out.count("param_dlrm_kineto_8rank_v100") == 1  # the archive's path once, in the header
    assert "worker0_step_12" in out and max(map(cell_len, out.splitlines())) <= width


# ---------------------------------------------------------------------------------------- 4. occupancy notes kept
@pytest.mark.parametrize("lang,now", [("en", "<- now"), ("zh", "← 当前")])
@pytest.mark.parametrize("argv", [("--threads", "256", "--regs", "64"), ("--threads", "1024", "--regs", "32",
                                                                         "--smem", "48K")])
def test_occupancy_what_if_tables_keep_the_note_column_at_80(capsys, monkeypatch, lang, now, argv):
    out = _out(capsys, monkeypatch, 80, "occupancy", "--arch", "sm_80", *argv, "--lang", lang)
    assert out.count(now) == 3 and max(map(cell_len, out.splitlines())) <= 80  # one per what-if table


# ---------------------------------------------------------------------------------------- 5. a file name as a path
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_roofline_header_wraps_the_report_name_at_its_parts(capsys, monkeypatch, lang):
    report = need(CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile"
                                ".ncu-rep")
    out = _out(capsys, monkeypatch, 80, "roofline", str(report), "--format", "table", "--lang", lang)
    lines = out.splitlines()
    assert lines[1] == "InhabitancyCocoon__feather_gemm__"  # broken at a "__", the rest whole on the next line
    assert lines[2] == "docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep"


@pytest.mark.parametrize("lang,first", [("en", "Roofline: {name} on NVIDIA GeForce RTX 4060 Laptop GPU"),
                                         ("zh", "Roofline：{name}（NVIDIA GeForce RTX 4060 Laptop GPU）")])
def test_roofline_markdown_header_is_the_title_as_one_paragraph(capsys, monkeypatch, lang, first):
    """The header's lines (a Group: title, path, GPU) become one paragraph, not the Group's repr."""
    name = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep"
    out = _out(capsys, monkeypatch, 80, "roofline", str(need(CORPUS_NCU / name)), "--format", "markdown",
               "--lang", lang)
    assert out.splitlines()[0] == first.format(name=name)


# ---------------------------------------------------------------------------------------- 7. the checks a list
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_timeline_checks_are_bulleted_items_whose_lines_hang(capsys, monkeypatch, lang):
    out = _out(capsys, monkeypatch, 80, "timeline", str(need(NSYS / "cts_rtx3070_array_inc_a.sqlite")), "-v",
               "--lang", lang)
    lines = out.splitlines()
    items = [i for i, line in enumerate(lines) if "• " in line]
    first = lines[items[0]]
    col = cell_len(first[:first.index("• ")])  # cells before the bullet (a Chinese label is two cells a character)
    assert len(items) >= 2 and col > 20  # each check its bullet, in the value column
    after = lines[items[0] + 1]  # a wrapped line hangs under the item's text
    assert after[:col + 2].strip() == "" and after[col + 2] != " "


# ---------------------------------------------------------------------------------------- 6. no orphan chain name
def test_a_chain_name_breaks_after_an_elision_not_leaving_its_start_alone():
    from kernelscope.render.cjk import divide
    text = "#5 cudnn_train_volta_…splitK_medium_nn_v1 ⇒ …kernel<…>(…) [CUDAFunctor_add]"
    bounds = [0, *divide(text, 28, name=True), len(text)]
    lines = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    assert lines[0] == "#5 cudnn_train_volta_…" and lines[1].startswith("splitK_")

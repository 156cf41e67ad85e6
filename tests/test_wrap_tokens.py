"""Native review 10, wrapping (B5, B7): a number with its sign and unit (``260.4 MiB``, ``36.2%``, ``1.73×``) and a
short full-width bracketed or quoted term (``（已使用）``, ``“程序占比”``) are one unbreakable token in every wrap
path (:func:`~kernelscope.render.cjk.divide`'s breaks and :func:`~kernelscope.render.cjk._fold`'s cuts), at any
width where the token fits a line; and no character is lost."""

from __future__ import annotations

import random

import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.render.cjk import divide, wrap
from kernelscope.render.cjk_console import CJKConsole
from kernelscope.render.tokens import NUMBER, SHORT_PAIR, inside_numbers, inside_short_pairs
from rich.cells import cell_len
from rich.table import Table

NCU = SHARED / "corpus" / "ncu"
SILU = NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"

#: Cell and caption texts the product prints (real outputs at 80 and 120 columns).
CELLS = ("719.8 MiB → 260.4 MiB（36.2%）", "42.2%（1.73×）", "FP32 CUDA 核心（已使用）",
         "“程序占比”与“程序整体提速”两列：相对程序总时长 1.531 ms（由最慢的设备决定）",
         "48 KiB → 44.5 KiB，至多节省 188.8 µs", "L1/TEX 缓存 65.6 GiB，6.64 TB/s，占峰值 6.1%",
         "未知（至多 1.32×）", "按总耗时排序的 Kernel；“程序占比”与“提速 N× 后”各列：相对程序总时长 1.531 ms")


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for pattern in (NUMBER, SHORT_PAIR) for m in pattern.finditer(text) if m.end() - m.start() > 1]


@pytest.mark.parametrize("seed", range(6))
def test_no_break_inside_a_token_at_random_widths(seed):
    rng = random.Random(seed)
    for text in CELLS:
        width = rng.randint(8, 60)  # (a table cell is narrower than its terminal: 40–130 columns leave 8–60)
        breaks = divide(text, width)
        widest = max(cell_len(text[a:b]) for a, b in _tokens(text))
        if width >= widest + 2:  # a token that fits a line is never cut
            inside = inside_numbers(text) | inside_short_pairs(text)
            assert not inside & set(breaks), (text, width, breaks)
        lines = wrap(text, width)
        assert "".join(line.replace(" ", "") for line in lines) == text.replace(" ", ""), (text, width)


def test_fold_cuts_a_step_between_numbers_not_a_number():
    from kernelscope.render.cjk import _fold
    assert _fold("719.8 MiB → 260.4 MiB", 16) == ["719.8 MiB → ", "260.4 MiB"]


@pytest.mark.parametrize("width", [40, 57, 80, 101, 130])
def test_table_cells_through_rich_keep_tokens(width):
    """The cells in a folding table column (rich's table layout, the product's console): no line of a cell ends
    inside a number or a short bracket pair, and every character is printed."""
    console = CJKConsole(width=width, record=True, color_system=None)
    t = Table(show_header=False)
    t.add_column(overflow="fold")
    t.add_column(overflow="fold", max_width=max(12, width // 3))
    for text in CELLS:
        t.add_row("x" * (width // 3), text)
    console.print(t)
    out = console.export_text()
    lines = [line.split("│")[2].strip() if line.count("│") >= 3 else "" for line in out.splitlines()]
    for line in lines:
        assert not line.endswith(("260.", "（已", "“程序", "44.5", "6.64")), line
    printed = "".join(lines).replace(" ", "")
    assert printed == "".join(text.replace(" ", "") for text in CELLS)  # (no row rules: the rows' lines in order)


def test_fusion_bytes_cell_keeps_its_numbers(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["fusion", str(need(SILU)), "--around", "silu_kernel_non_strided", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "260.4 MiB" in out and not any(line.rstrip().endswith("260.") for line in out.splitlines())


def test_roofline_levels_term_in_brackets_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    path = next(iter(sorted(NCU.glob("InhabitancyCocoon*01_naive*.ncu-rep"))), None) if NCU.is_dir() else None
    if path is None:
        pytest.skip("the corpus's InhabitancyCocoon 01_naive report is not here")
    assert main(["roofline", str(path), "--levels", "--format", "table", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "（已使用）" in out and "（已\n" not in out.replace(" ", "")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_roofline_points_keep_every_column_at_80(capsys, monkeypatch, lang):
    """B8: a table split into parts (render/fit.py) sizes a part printed inset by one cell at the width it gets, so
    the points table keeps its bound column at 80 instead of leaving it out."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["roofline", str(need(SILU)), "--format", "table", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert ("瓶颈类型" if lang == "zh" else "bottleneck") in out
    assert "未显示" not in out and "not shown" not in out


def test_left_out_note_of_an_inset_part_is_flush_left():
    """The line naming the columns left out of a part printed inset (a Padding) starts at the margin."""
    from rich.padding import Padding

    from kernelscope.render.fit import fit_tables

    t = Table(title=None)
    for n in range(6):
        t.add_column(f"column {n}", no_wrap=True)
    t.add_row(*("x" * 20 for _ in range(6)))
    console = CJKConsole(width=60, record=True, color_system=None)
    for item in fit_tables([Padding(t, (0, 0, 1, 1))], console):
        console.print(item)
    lines = [line for line in console.export_text().splitlines() if "not shown" in line]
    assert lines and not lines[0].startswith(" ")

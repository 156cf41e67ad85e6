"""A table never prints a cell with characters lost (review zh12, blocking 1): ``kernelscope source --lang zh`` at 80
and 100 columns printed the hottest instructions' offsets ``+0x024``, ``+0x041``, ``+0x02b`` where the next part of
the same table, English and ``diagnose`` say ``+0x0240``, ``+0x0410``, ``+0x02b0``. The Chinese table is tight
(:func:`~kernelscope.render.fit.tight`): its first part sat its columns one cell closer (rich's ``collapse_padding``),
and the name column of the split parts was set to one width (:func:`~kernelscope.render.fit._same_name_width`) from
rich's ``_get_padding_width``, which under ``collapse_padding`` leaves out the first column's left padding: the
offset column, which does not wrap, came out one cell short and rich cut it; :func:`~kernelscope.render.fit._squeezed`
measured the column clamped at that same ``max_width`` and did not see it. The rule: a column that does not wrap
keeps its widest cell (else the table drops or moves a column, said as usual)."""

from __future__ import annotations

import io
import re

import pytest
from rich import box
from rich.table import Table
from rich.text import Text

from conftest import CORPUS_NCU, need
from kernelscope.render.cjk_console import CJKConsole
from kernelscope.render.fit import _squeezed, fit_tables, tight

REPORTS = (
    "panjd123__cutlass__report-s8.ncu-rep",
    "Atopos0313__cuda_learning__reports_day08_after.ncu-rep",
    "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep",
    "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep",
)


def _offset(doc: dict) -> str:
    return f"+{doc['offset']:#06x}" if doc["offset"] is not None else f"{doc['pc']:#x}"


def lost(text: str, launches: list[dict]) -> list[str]:
    """The offsets and SASS instructions of the JSON document's hottest instructions (``launches``) that the
    terminal ``text`` does not print whole: an offset as a token of its own (``+0x024`` is not ``+0x0240``), and no
    offset printed that the document does not hold (the offset column is on every part of a split table: a part
    that cuts it prints ``+0x024`` beside another that prints ``+0x0240``); each operand of an instruction as a
    token (an instruction wraps between its operands: a whitespace-flattened comparison of its pieces)."""
    tokens = set(text.split())
    known = {_offset(a) for launch in launches for line in launch.get("lines", ()) for a in line["at_instructions"]}
    known |= {_offset(ins) for launch in launches for ins in launch["instructions"]}
    out = sorted(set(re.findall(r"(?<![\w+])\+0x[0-9a-f]+", text)) - known)
    for launch in launches:
        for ins in launch["instructions"]:
            offset = _offset(ins)
            if not re.search(rf"(?<![\w+]){re.escape(offset)}(?![0-9A-Fa-f])", text):
                out.append(offset)
            out += [f"{offset} {piece!r}" for piece in (ins["sass"] or "").split() if piece not in tokens]
    return out


def test_lost_can_fail():
    doc = [{"instructions": [{"offset": 0x240, "pc": 0, "sass": "LDG.E.S8 R20, [R30.64]"}]}]
    assert lost("  +0x0240  LDG.E.S8 R20,\n    [R30.64]\n\n  +0x0240  11.1 万", doc) == []
    assert lost("  +0x024  LDG.E.S8 R20, [R30.64]", doc) == ["+0x024", "+0x0240"]
    assert lost("  +0x024  LDG.E.S8 R20, [R30.64]\n\n  +0x0240  11.1 万", doc) == ["+0x024"]
    assert lost("  +0x0240  LDG.E.S8 R20, [R30.6", doc) == ["+0x0240 '[R30.64]'"]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("report", REPORTS)
def test_source_prints_every_offset_and_instruction_whole(report, lang):
    """Every offset and SASS instruction of ``source --format json`` is in the terminal text, whole, at 70 to 130
    columns, in both languages."""
    import json

    from kernelscope.api import source_file
    from kernelscope.render.source import render_source

    result = source_file(need(CORPUS_NCU / report), sass="top")
    launches = json.loads(render_source(result, "json", lang))["launches"]
    assert any(launch["instructions"] for launch in launches)
    bad = {}
    for width in range(70, 131, 10):
        text = render_source(result, "table", lang, width)
        if lost(text, launches):
            bad[width] = lost(text, launches)
    assert bad == {}


def _split_tight_table() -> Table:
    """A tight table (as the Chinese hottest instructions) too wide for one part: a first column of offsets that
    does not wrap, a column of Chinese prose that wraps, then columns of counts moved to a part of their own."""
    t = tight(Table(title="最热的指令", box=box.SIMPLE_HEAD, title_justify="left"))
    t.add_column("偏移", no_wrap=True)
    t.add_column("SASS", no_wrap=True)
    t.add_column("采样数", no_wrap=True, justify="right")
    t.add_column("主要停顿（占其采样的比例）", overflow="fold")
    for h in ("执行次数", "每次执行的活跃线程", "扇区/所需", "共享 wavefront/所需", "冲突路数"):
        t.add_column(h, no_wrap=True, justify="right")
    for n in range(6):
        t.add_row(Text(f"+0x{n + 2:x}40"), Text(f"LDG.E.S8 R2{n}, [R30.64+0x{n}]"), Text("1800"),
                  Text("Long Scoreboard（等待 L1/TEX 缓存的访存结果）97%、Wait（固定延迟依赖）3%"),
                  Text("11.1 万"), Text("32"), Text("16×"), Text("-"), Text("-"))
    return t


@pytest.mark.parametrize("width", range(60, 131, 5))
def test_a_split_tight_table_keeps_its_first_column_whole(width):
    """The kind, without a report: every cell of a column that does not wrap printed whole, on every part."""
    t = _split_tight_table()
    cells = [c.plain for c in t.columns[0]._cells] + [c.plain for c in t.columns[1]._cells]
    console = CJKConsole(file=io.StringIO(), width=width, record=True, color_system=None, soft_wrap=False)
    for item in fit_tables([t], console):
        console.print(item)
    out = console.export_text()
    parts = out.count("偏移")  # the offsets on every part, the instructions on the first
    assert parts >= 1 and all(out.count(cell) == (parts if n < 6 else 1) for n, cell in enumerate(cells)), out


def test_squeezed_sees_a_no_wrap_column_narrowed_by_its_max_width():
    """:func:`_squeezed` measures a column that does not wrap at its widest cell, not clamped at its ``max_width``:
    narrower, it is cut (under ``collapse_padding`` too, where rich counts one cell of padding less)."""
    console = CJKConsole(file=io.StringIO(), width=80, color_system=None)
    for collapse in (False, True):
        t = Table(box=box.SIMPLE_HEAD, collapse_padding=collapse)
        t.add_column("偏移", no_wrap=True)
        t.add_column("SASS")
        t.add_row("+0x0240", "LDG.E.S8 R20, [R30.64]")
        assert not _squeezed(t, console, 80)
        t.columns[0].max_width = 6
        assert _squeezed(t, console, 80), collapse

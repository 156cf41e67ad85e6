"""Wrapped text never loses a character (issue 28 item 2): at 119-128 columns a Chinese timeline title lost
'时间隐藏到' because rich laid the table out wider than the terminal (a ``no_wrap`` column keeps its header whole,
the name column its ``min_width``) and the console cropped every line, the title's among them. A property test over
random widths and every real label / message text in both languages, through the line breaker
(:func:`kernelscope.render.cjk.wrap`) and through a table printed as the commands print it (``fit_tables`` on a
``CJKConsole``)."""

from __future__ import annotations

import io
import os
import re
import tomllib
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from conftest import CASES, need
from kernelscope.cli import main
from kernelscope.render.cjk import wrap
from kernelscope.render.cjk_console import CJKConsole
from kernelscope.render.fit import fit_tables
from kernelscope.render.inline import terminal_prose

DATA = Path(__file__).resolve().parents[1] / "src" / "kernelscope" / "data"
def _idle_title() -> str:
    """The title that lost characters: labels.toml tl_gpu_idle + tl_basis_idle (N14's wall: several ranks), as the
    timeline prints it (the caption after a semicolon: no parentheses in parentheses)."""
    labels = tomllib.loads((DATA / "labels.toml").read_text(encoding="utf-8"))["label"]
    basis = labels["tl_basis_idle"]["zh"].format(time="362.1 ms", cols=labels["tl_cols_program_idle"]["zh"])
    return f"{labels['tl_gpu_idle']['zh']}；{labels['tl_share_of_idle']['zh']}；{basis}"


IDLE_TITLE = _idle_title()


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for k, v in node.items() if k in ("en", "zh") or isinstance(v, (dict, list)) for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


@cache
def texts() -> tuple[str, ...]:
    """Every en / zh text of labels.toml and messages.toml, placeholders filled with a short number."""
    out = []
    for name in ("labels.toml", "messages.toml"):
        for s in _strings(tomllib.loads((DATA / name).read_text(encoding="utf-8"))):
            s = re.sub(r"\{[^{}]*\}", "12.5", s).strip()
            if s and "\n" not in s:
                out.append(s)
    return tuple(dict.fromkeys(out))


def _bare(text: str) -> str:
    """``text`` without blanks and line breaks (what wrapping may add or remove)."""
    return re.sub(r"\s+", "", text)


def test_texts_are_read():
    assert len(texts()) > 500 and any("与 GPU 工作重叠" in t for t in texts()) and IDLE_TITLE.endswith("重叠")


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_wrap_keeps_every_character(data):
    text = data.draw(st.sampled_from(texts()))
    width = data.draw(st.integers(20, 200))
    lines = wrap(text, width)
    assert _bare("".join(lines)) == _bare(text), (width, text)


def _printed(title: str, width: int) -> str:
    """``title`` over a table shaped like the timeline's rankings (a name column of min_width 12 that folds,
    right-aligned numeric columns that do not wrap, long Chinese headers), printed as ``show`` prints it."""
    console = CJKConsole(width=width, file=io.StringIO(), record=True, soft_wrap=False)
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    heads = ["名称", "次数", "总耗时", "平均", "最小", "最大", "占比", "程序占比", "该项提速 2× 后的整体加速比",
             "提速 10× 后", "完全消除后"]
    for i, h in enumerate(heads):
        if i == 0:
            table.add_column(h, justify="left", overflow="fold", min_width=12)
        else:
            table.add_column(h, justify="right", no_wrap=True)
    table.add_row(*(Text(c) for c in ["GPU 空闲", "4", "80 µs", "20 µs", "20 µs", "20 µs", "0.0%", "0.0%", "1×",
                                      "1×", "1×"]))
    for item in fit_tables([table], console):
        console.print(item)
    out = console.export_text()
    assert max(map(cell_len, out.splitlines())) <= width, width
    return out


@pytest.mark.parametrize("width", range(100, 140))
def test_the_idle_title_is_whole_at_every_width(width):
    assert _bare(IDLE_TITLE) in _bare(_printed(IDLE_TITLE, width))


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_table_titles_keep_every_character(data):
    title = data.draw(st.sampled_from(texts()))
    width = data.draw(st.integers(20, 200))
    out = _printed(title, width)
    assert _bare(terminal_prose(title)) in _bare(out), (width, title)  # (a Chinese text: code spans without backticks)
    assert out.count("…") == title.count("…"), (width, out)  # a kept column that does not wrap: whole


@pytest.mark.parametrize("title", [t for t in texts() if re.search(r"\[[a-z#/@]", t)])
def test_brackets_are_printed_not_taken_for_markup(title):
    # catalogue texts such as "([n]: the panels ...)" or "tile[t][c]" lost their brackets as rich style tags
    assert _bare(terminal_prose(title)) in _bare(_printed(title, 200))


@pytest.mark.parametrize("width", [80, 119, 120, 124, 128])
def test_timeline_tables_keep_their_titles_and_headers(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    ranks = need(CASES / "N14_ranks_ddp_compute_straggler")
    assert main(["timeline", str(ranks), "--lang", "zh", "--details"]) == 0
    out = capsys.readouterr().out
    assert max(map(cell_len, out.splitlines())) <= width
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.lstrip().startswith("GPU 空闲"))
    idle_header = next(line for line in reversed(lines[:row]) if "次数" in line)
    if width >= 119 or "程序占比" in idle_header:
        assert _bare(IDLE_TITLE) in _bare(out)
    else:  # no room for the program columns: the caption names only what is shown
        shown = _bare(IDLE_TITLE.rsplit("；", 1)[0])
        assert shown in _bare(out) and _bare(IDLE_TITLE) not in _bare(out)
    assert "…" not in "".join(line for line in out.splitlines() if "次数" in line)  # no header cut short

"""Layout kind of zh review 9 (issue 28): a wrapped line fills to the width. No line could have taken the next
piece (what lies between two break opportunities: an ASCII word, a number and its unit, a term such as
``Tensor Core`` or ``Bank 24``), but for a last line of one character mended by at most four cells; nothing is lost
(:func:`kernelscope.render.cjk.wrap`, which the help's ``wrap_cells`` and the tables' cells use too)."""

from __future__ import annotations

import random
import re

import pytest
from rich.cells import cell_len

from kernelscope.render.cjk import _segments, glosses, wrap


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _texts() -> list[str]:
    """Real paragraphs: the Chinese help texts of every command and the Chinese lines of the commands' output."""
    from kernelscope.cli import _parser
    from test_zh_output import paragraphs

    parser = _parser("en", "zh")
    found: list[str] = []

    def walk(p) -> None:
        found.append(p.description or "")
        for action in p._actions:
            found.append(action.help or "")
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                for sub in dict.fromkeys(action.choices.values()):
                    walk(sub)

    walk(parser)
    texts = [" ".join(t.split()) for t in found if t and "%" not in t]
    return [t for t in dict.fromkeys(texts + paragraphs("zh")) if len(t) > 20]


def _early(lines: list[str], text: str, width: int) -> list[str]:
    """The lines of ``text`` wrapped to ``width`` (``lines``) that could have taken the first piece of the next
    line (a piece: what lies between two break opportunities) and still fit, but for a last line of one character
    mended by at most four cells."""
    out = []
    for n in range(len(lines) - 1):
        a, b = lines[n], lines[n + 1].lstrip()
        at = text.index(b) if b else len(text)
        piece = next((text[s:e] for s, e in _segments(text) if s == at), b).rstrip()
        glossed = [g for g in glosses(text) if g == at + len(piece)]  # a stall's name moves down with its gloss
        if glossed:
            piece += next(text[s:e] for s, e in _segments(text) if s == glossed[0]).rstrip()
        sep = " " if text[at - 1:at] == " " else ""
        if cell_len(a) + cell_len(sep) + cell_len(piece) <= width:
            last = n + 1 == len(lines) - 1
            if not (last and cell_len(piece) <= 4):
                out.append(f"{a!r} / {b!r}")
        text = text[at:]
    return out


def test_lines_fill_to_the_width():
    texts = _texts()
    assert len(texts) > 100
    rng = random.Random(28)
    for text in texts:
        for width in rng.sample(range(60, 131), 6):
            if cell_len(text) <= width:
                continue
            lines = wrap(text, width)
            assert _squash("".join(lines)) == _squash(text), (width, text)  # nothing lost
            assert all(cell_len(line) <= width for line in lines if " " in line or cell_len(line) > 1), (width, lines)
            assert _early(lines, text, width) == [], (width, lines)


@pytest.mark.parametrize("text, width, lines", [
    ("32 个 Bank，每个每周期 4 B，所有支持的 GPU（计算能力 6.0～12.1）；一个 Warp 请求在一个 32 线程的阶段内完成", 48,
     ["32 个 Bank，每个每周期 4 B，所有支持的 GPU", "（计算能力 6.0～12.1）；一个 Warp 请求在一个", "32 线程的阶段内完成"]),
    ("任一 Kernel 或总耗时变慢超过 PCT（例如 5%）时以退出码 1 结束", 56,
     ["任一 Kernel 或总耗时变慢超过 PCT（例如 5%）时以退出码 1", "结束"]),
])
def test_the_reviewed_lines_fill(text, width, lines):
    assert wrap(text, width) == lines


@pytest.mark.parametrize("width", range(22, 80))  # from the widest term on: a term wider than a line is folded
def test_terms_stay_whole_at_every_width(width):
    text = ("停顿以 Short Scoreboard 为主，Tensor Core 空闲；Bank 24 冲突，PC +0x290 处最热，"
            "CUDA graph 1 (replay) 重放 12 次，每次 4 KiB")
    joined = "\n".join(wrap(text, width))
    for term in ("Short Scoreboard", "Tensor Core", "Bank 24", "PC +0x290", "CUDA graph 1 (replay)", "4 KiB"):
        assert term in joined, (width, joined)

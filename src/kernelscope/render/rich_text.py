"""The terminal tables of a command as text for a file (``-o``: plain text, no colour) or as Markdown (``--format
markdown``): the same rich renderables (tables and lines of text) the terminal shows, laid out once more. Used by
``occupancy``, ``gpus`` and ``roofline``; no analysis here."""

from __future__ import annotations

import io
import re
from typing import Iterable

from rich.table import Table
from rich.text import Text

from .cjk import CJKConsole

__all__ = ["to_markdown", "to_plain"]


def to_plain(renderables: Iterable[object], width: int = 120) -> str:
    """The renderables as plain text (no colour, no terminal codes), ``width`` columns wide, each printed on its
    own as the terminal shows them."""
    buf = io.StringIO()
    console = CJKConsole(file=buf, width=width, force_terminal=False, color_system=None, soft_wrap=False)
    for item in renderables:
        console.print(item)
    return buf.getvalue()


def _cell(value: object) -> str:
    text = value.plain if isinstance(value, Text) else str(value)
    text = re.sub(r"([\u3000-\u303f\uff00-\uffef])\s*\n\s*", r"\1", text)  # a line after "：" joins it unspaced
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;") or " "


def _table(t: Table) -> list[str]:
    lines = []
    if t.title:
        lines += [f"**{_cell(t.title)}**", ""]
    columns = t.columns
    head = [_cell(c.header) for c in columns] if t.show_header else [" "] * len(columns)
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---:" if c.justify == "right" else "---" for c in columns) + "|")
    for row in zip(*(list(c.cells) for c in columns)):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return lines


def to_markdown(renderables: Iterable[object], heading: str | None = None) -> str:
    """The renderables as Markdown: each table a pipe table under its bold title, each line of text a paragraph;
    ``heading``: a level-1 heading first."""
    lines = [f"# {heading}", ""] if heading else []
    for item in renderables:
        if isinstance(item, Table):
            lines += _table(item)
        else:
            lines.append(_cell(item))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"

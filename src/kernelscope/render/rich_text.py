"""The terminal tables of a command as text for a file (``-o``: plain text, no colour) or as Markdown (``--format
markdown``): the same rich renderables (tables and lines of text) the terminal shows, laid out once more. Used by
``occupancy``, ``gpus`` and ``roofline``; no analysis here."""

from __future__ import annotations

import io
import re
from typing import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .cjk import CJKConsole

__all__ = ["text_width", "to_markdown", "to_plain"]

#: Columns of a plain-text report when neither a width nor ``$COLUMNS`` is given (a pipe, a file).
DEFAULT_WIDTH = 80


def text_width(width: int | None = None) -> int:
    """The columns a plain-text report is laid out in: ``width`` when given, else ``$COLUMNS`` (a positive
    integer), else :data:`DEFAULT_WIDTH` (80), the same rule as standard output when it is not a terminal."""
    import os

    if width is not None and width > 0:
        return width
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    return columns if columns > 0 else DEFAULT_WIDTH


def to_plain(renderables: Iterable[object], width: int | None = None) -> str:
    """The renderables as plain text (no colour, no terminal codes), :func:`text_width` columns wide, each printed
    on its own as the terminal shows them: every table fitted to that width as on a terminal
    (:func:`kernelscope.render.fit.fit_tables`), no line ending in blanks."""
    from .fit import fit_tables

    buf = io.StringIO()
    console = CJKConsole(file=buf, width=text_width(width), force_terminal=False, color_system=None,
                         soft_wrap=False, legacy_windows=False)
    for item in fit_tables(renderables, console):
        console.print(item)
    return "\n".join(line.rstrip() for line in buf.getvalue().split("\n"))


def _cell(value: object) -> str:
    if isinstance(value, Group):  # lines printed as one block (a title and its wrapped path): one paragraph
        text = "\n".join(v.plain if isinstance(v, Text) else str(v) for v in value.renderables)
    else:
        text = value.plain if isinstance(value, Text) else str(value)
    text = re.sub(r"([\u3000-\u303f\uff00-\uffef])\s*\n\s*", r"\1", text)  # a line after "：" joins it unspaced
    text = re.sub(r"\s*\n\s*([\u3000-\u303f\uff00-\uffef])", r"\1", text)  # and one before "（"
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

"""The terminal tables of a command as text for a file (``-o``: plain text, no colour) or as Markdown (``--format
markdown``): the same rich renderables (tables and lines of text) the terminal shows, laid out once more. Used by
``occupancy``, ``gpus`` and ``roofline``; no analysis here."""

from __future__ import annotations

import io
import re
from typing import Iterable

from rich.console import Console, Group
from rich.padding import Padding
from rich.segment import Segment, SegmentLines
from rich.table import Table
from rich.text import Text

from .cjk_console import CJKConsole
from .common import md_code

__all__ = ["Heading", "blocks", "md_spaced", "print_blocks", "text_width", "to_markdown", "to_plain"]


class Heading(Text):
    """A section heading (a title over the lines or the items below it): like a table, it stands apart, one blank
    line before it and one after it (:func:`blocks`), and is a bold paragraph in Markdown."""


def _flat(items: Iterable[object]) -> list[object]:
    """``items`` with every :class:`~rich.console.Group` among them (at any depth) replaced by what it holds: each
    thing a command prints is a block of its own (:func:`blocks`)."""
    out: list[object] = []
    for item in items:
        if type(item) is Group:
            out += _flat(item.renderables)
        else:
            out.append(item)
    return out


def _kind(item: object) -> str:
    """What ``item`` is among the blocks a command prints: ``"blank"`` (an empty line), ``"apart"`` (a table, a
    table cut into parts or with its note, a :class:`Heading`: set apart by blank lines) or ``"text"``."""
    if isinstance(item, (str, Text)) and not str(item.plain if isinstance(item, Text) else item).strip():
        return "blank"
    if isinstance(item, (Heading, Table)):
        return "apart"
    if isinstance(item, Padding):
        return _kind(item.renderable)
    if isinstance(item, Group):
        return "apart" if any(_kind(r) == "apart" for r in item.renderables) else "text"
    return "text"


def _blank(line: list[Segment]) -> bool:
    return not "".join(s.text for s in line if not s.control).strip()


def blocks(renderables: Iterable[object], console: Console) -> list[list[Segment]]:
    """The lines ``console`` prints for ``renderables`` (tables already fitted: :func:`~.fit.fit_tables`), block by
    block, set out as one rule for every command: each table (with its title and its note) and each heading has
    exactly one blank line before it and one after it, other lines follow one another, an empty line between two
    of them stays one; no block starts or ends with blank lines of its own (a table's blank edge), and no two
    blank lines follow one another anywhere."""
    from .fit import fit_tables

    items = fit_tables(_flat(renderables), console)
    out: list[list[Segment]] = []
    gap = False  # a blank line is owed before the next block
    for item in items:
        kind = _kind(item)
        if kind == "blank":
            gap = bool(out)
            continue
        if isinstance(item, str):
            item = console.render_str(item)
        lines = console.render_lines(item, console.options, pad=False, new_lines=False)
        while lines and _blank(lines[0]):
            lines.pop(0)
        while lines and _blank(lines[-1]):
            lines.pop()
        if not lines:
            continue
        if out and (gap or kind == "apart"):
            out.append([])
        for line in lines:
            if not (_blank(line) and out and not out[-1]):  # never two blank lines
                out.append([] if _blank(line) else line)
        gap = kind == "apart"
    return out


def print_blocks(renderables: Iterable[object], console: Console) -> None:
    """Print ``renderables`` on ``console`` as :func:`blocks` sets them out."""
    console.print(SegmentLines(blocks(renderables, console), new_lines=True), end="")

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
    buf = io.StringIO()
    console = CJKConsole(file=buf, width=text_width(width), force_terminal=False, color_system=None,
                         soft_wrap=False, legacy_windows=False)
    print_blocks(renderables, console)
    return "\n".join(line.rstrip() for line in buf.getvalue().split("\n"))


#: A name that starts and ends with two underscores, standing alone (``__launch_bounds__``, ``__syncthreads``'s
#: kin): Markdown would make its inside bold; a code span keeps it. (Inside a longer word, ``a__b__c``, it is text.)
_DUNDER = re.compile(r"(?<![\w`])__[A-Za-z]\w*__(?![\w`])")


def _cell(value: object) -> str:
    if isinstance(value, Group):  # lines printed as one block (a title and its wrapped path): one paragraph
        text = "\n".join(v.plain if isinstance(v, Text) else str(v) for v in value.renderables)
    else:
        text = value.plain if isinstance(value, Text) else str(value)
    text = re.sub(r"([\u3000-\u303f\uff00-\uffef])\s*\n\s*", r"\1", text)  # a line after "：" joins it unspaced
    text = re.sub(r"\s*\n\s*([\u3000-\u303f\uff00-\uffef])", r"\1", text)  # and one before "（"
    text = " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;")
    return _DUNDER.sub(lambda m: md_code(m.group(0)), text) or " "  # (__launch_bounds__ would print bold)


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


#: A Markdown heading line: ``# ...`` or a paragraph that is all bold (a table's title).
_MD_HEADING = re.compile(r"#{1,6} |\*\*[^*](?:.*[^*])?\*\*$")
#: A Markdown list item.
_MD_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)]) ")


def _md_kind(line: str) -> str:
    """What one Markdown line is: ``"blank"``, ``"table"`` (a row of a pipe table), ``"heading"``, ``"item"``
    (a list item or its indented continuation) or ``"text"``."""
    if not line.strip():
        return "blank"
    if line.startswith("|"):
        return "table"
    if _MD_HEADING.match(line):
        return "heading"
    return "item" if _MD_ITEM.match(line) or line.startswith((" ", "\t")) else "text"


def md_spaced(text: str) -> str:
    """``text`` (Markdown) set out as the terminal is (:func:`blocks`): each table and each heading with exactly one
    blank line before and after it, a list ended by a blank line before the paragraph after it (else the paragraph
    would join its last item), no two blank lines anywhere, none at the start; fenced code blocks as they are. Ends
    with one line feed."""
    out: list[str] = []
    prev = "blank"
    fence = False
    for line in text.split("\n"):
        if fence or line.startswith("```"):
            if line.startswith("```"):
                if not fence and out and out[-1]:
                    out.append("")
                fence = not fence
            out.append(line)
            prev = "text" if fence else "heading"  # a blank line after the block
            continue
        kind = _md_kind(line.rstrip())
        if kind == "blank":
            if out and out[-1]:
                out.append("")
            prev = "blank"
            continue
        apart = {prev, kind} & {"table", "heading"} and prev != kind or kind == prev == "heading" \
            or prev == "item" and kind == "text"
        if out and out[-1] and apart:
            out.append("")
        out.append(line)
        prev = kind
    return "\n".join(out).strip("\n") + "\n"


def to_markdown(renderables: Iterable[object], heading: str | None = None) -> str:
    """The renderables as Markdown: each table a pipe table under its bold title, each line of text a paragraph;
    ``heading``: a level-1 heading first."""
    lines = [f"# {heading}", ""] if heading else []
    for item in renderables:
        if isinstance(item, Table):
            lines += _table(item)
        elif isinstance(item, Heading):
            lines.append(f"**{_cell(item)}**")
        else:
            lines.append(_cell(item))
        lines.append("")
    return md_spaced("\n".join(lines))

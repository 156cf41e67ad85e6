"""Terminal rendering with ``rich`` tables: a "where time goes" summary, then one table per group of repeated
launches (or per launch), and the groups not shown in full as rows of one table."""

from __future__ import annotations

from typing import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.diagnosis import ReportDiagnosis
from ..analysis.groups import LaunchGroup
from .rich_text import to_plain
from .brief import Footnotes, brief_group_rows, brief_rows, footnote_table
from .cjk_console import name_text, path_text
from .common import NCU_STAMP_S, Fmt, safe, short_name, short_names
from .rows import kernel_rows, report_shown_text, summary_rows
from .launch_groups import group_rows, is_group, panels, rest_header, rest_rows, rest_title, shown_line


def renderables(results: Sequence[ReportDiagnosis], lang: str, launches: str = "grouped",
                details: bool = True) -> list[RenderableType]:
    """rich renderables for the diagnoses of each file, in input order; ``launches``: ``"grouped"`` (one panel per
    group of repeated launches, :mod:`.launch_groups`) or ``"all"`` (one panel per launch); ``details``: every row
    of each panel, else the short panels of :mod:`.brief` with the caveats once per report."""
    f = Fmt(lang, NCU_STAMP_S)
    out: list[RenderableType] = []
    for res in results:
        rep = res.report
        head = f.input_head(rep.path, rep.format, rep.tool_version)
        out.append(Group(path_text(head, style="bold")))  # a Group: printed as it is (a long path wraps at its parts)
        summary = Table(title=f.label("where_time_goes"), box=box.SIMPLE_HEAD, title_justify="left")
        for col, justify in (("kernel", "left"), ("launches", "right"), ("total_time", "right"), ("share", "right")):
            summary.add_column(f.label(col), justify=justify, overflow="fold")
        rows = summary_rows(res, f)
        for row, name in zip(rows, short_names([row[0] for row in rows])):
            summary.add_row(name_text(name), *(Text(cell) for cell in row[1:]))
        out.append(summary)
        shown, rest = panels(res, launches)
        line = report_shown_text(res, f)
        if launches == "grouped" and res.kernels:
            line += "\n" + shown_line(res, [g for _, g in shown if g], rest, f)
        out.append(Text(line))
        notes = Footnotes()
        for d, g in shown:
            title = f"[{d.kernel.index}] {short_name(d.kernel.name)}" + (f" ×{g.count}" if g and is_group(g) else "")
            t = Table(title=Text(title, style="bold cyan"), box=box.SIMPLE, show_header=False, title_justify="left")
            t.add_column(style="bold", no_wrap=True)
            t.add_column(overflow="fold")
            rows = kernel_rows(d, f) if details else brief_rows(d, f, notes)
            for label, value in ((group_rows(g, f) if details else brief_group_rows(g, f)) if g else []) + rows:
                t.add_row(Text(label), Text(value))
            out.append(t)
        if rest:
            out.append(_rest_table(rest, f))
        if not details:
            out += footnote_table(notes, f)
    return out


def _rest_table(rest: Sequence[LaunchGroup], f: Fmt) -> Table:
    """The groups not shown as panels, one row each."""
    t = Table(title=rest_title(rest, f), box=box.SIMPLE_HEAD, title_justify="left")
    for i, col in enumerate(rest_header(f)):
        t.add_column(col, justify="left" if i in (0, 2, 6) else "right", overflow="fold")
    rows = rest_rows(rest, f)
    for row, name in zip(rows, short_names([row[0] for row in rows])):
        t.add_row(name_text(name), *(Text(cell) for cell in row[1:]))
    return t


def to_table(results: Sequence[ReportDiagnosis], lang: str, width: int | None = None, launches: str = "grouped",
             details: bool = True) -> str:
    """Plain-text (no colour codes) rendering of :func:`renderables`."""
    return to_plain([Group(*renderables(results, lang, launches, details))], width)


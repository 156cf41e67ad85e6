"""Terminal rendering with ``rich`` tables: a "where time goes" summary, then one table per kernel."""

from __future__ import annotations

import io
from typing import Sequence

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.diagnosis import ReportDiagnosis
from .common import Fmt, kernel_rows, safe, short_name, summary_rows


def renderables(results: Sequence[ReportDiagnosis], lang: str) -> list[RenderableType]:
    """rich renderables for the diagnoses of each file, in input order."""
    f = Fmt(lang)
    out: list[RenderableType] = []
    for res in results:
        rep = res.report
        head = f"{safe(rep.path)}  ({rep.format}"
        head += f", {f.label('profiler')} {rep.tool_version})" if rep.tool_version else ")"
        out.append(Text(head, style="bold"))
        summary = Table(title=f.label("where_time_goes"), box=box.SIMPLE_HEAD, title_justify="left")
        for col, justify in (("kernel", "left"), ("launches", "right"), ("total_time", "right"), ("share", "right")):
            summary.add_column(f.label(col), justify=justify, overflow="fold")
        for row in summary_rows(res, f):
            summary.add_row(Text(short_name(row[0])), *(Text(cell) for cell in row[1:]))
        out.append(summary)
        out.append(Text(f.label("kernels_shown", n=len(res.kernels), total=len(rep.kernels))))
        for d in res.kernels:
            t = Table(title=Text(f"[{d.kernel.index}] {short_name(d.kernel.name)}", style="bold cyan"), box=box.SIMPLE, show_header=False, title_justify="left")
            t.add_column(style="bold", no_wrap=True)
            t.add_column(overflow="fold")
            for label, value in kernel_rows(d, f):
                t.add_row(Text(label), Text(value))
            out.append(t)
    return out


def to_table(results: Sequence[ReportDiagnosis], lang: str, width: int = 120) -> str:
    """Plain-text (no colour codes) rendering of :func:`renderables`."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False, legacy_windows=False)
    console.print(Group(*renderables(results, lang)))
    return buf.getvalue()


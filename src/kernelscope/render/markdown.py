"""Markdown rendering for pull-request comments: compact tables that render on GitHub."""

from __future__ import annotations

from typing import Sequence

from ..api import ReportDiagnosis
from .common import Fmt, kernel_rows, kernel_title, summary_rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(results: Sequence[ReportDiagnosis], lang: str) -> str:
    """Markdown document: per file, a summary table and one two-column table per diagnosed kernel."""
    f = Fmt(lang)
    lines: list[str] = []
    for res in results:
        rep = res.report
        version = f", {f.label('profiler')} {rep.tool_version}" if rep.tool_version else ""
        lines += [f"## `{rep.path}` ({rep.format}{version})", "", f"### {f.label('where_time_goes')}", ""]
        lines.append(f"| {f.label('kernel')} | {f.label('launches')} | {f.label('total_time')} | {f.label('share')} |")
        lines.append("|---|---:|---:|---:|")
        for name, n, total, share in summary_rows(res, f):
            lines.append(f"| `{_cell(name)}` | {n} | {total} | {share} |")
        lines += ["", f.label("kernels_shown", n=len(res.kernels), total=len(rep.kernels)), ""]
        for d in res.kernels:
            lines += [f"### `{_cell(kernel_title(d))}`", "", "| | |", "|---|---|"]
            lines += [f"| {_cell(label)} | {_cell(value)} |" for label, value in kernel_rows(d, f)]
            lines.append("")
    return "\n".join(lines)

"""Markdown rendering for pull-request comments: compact tables that render on GitHub."""

from __future__ import annotations

from typing import Sequence

from ..api import ReportDiagnosis
from .common import Fmt, kernel_rows, kernel_title, safe, summary_rows


def _cell(text: str) -> str:
    return safe(text).replace("|", "\\|")


def _code(text: str) -> str:
    """An inline code span that survives backticks in the text (CommonMark: a longer fence)."""
    text = _cell(text)
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def to_markdown(results: Sequence[ReportDiagnosis], lang: str) -> str:
    """Markdown document: per file, a summary table and one two-column table per diagnosed kernel."""
    f = Fmt(lang)
    lines: list[str] = []
    for res in results:
        rep = res.report
        version = f", {f.label('profiler')} {rep.tool_version}" if rep.tool_version else ""
        lines += [f"## {_code(rep.path)} ({rep.format}{version})", "", f"### {f.label('where_time_goes')}", ""]
        lines.append(f"| {f.label('kernel')} | {f.label('launches')} | {f.label('total_time')} | {f.label('share')} |")
        lines.append("|---|---:|---:|---:|")
        for name, n, total, share in summary_rows(res, f):
            lines.append(f"| {_code(name)} | {n} | {total} | {share} |")
        lines += ["", f.label("kernels_shown", n=len(res.kernels), total=len(rep.kernels)), ""]
        for d in res.kernels:
            lines += [f"### {_code(kernel_title(d))}", "", "| | |", "|---|---|"]
            lines += [f"| {_cell(label)} | {_cell(value)} |" for label, value in kernel_rows(d, f)]
            lines.append("")
    return "\n".join(lines)

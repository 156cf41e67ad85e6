"""Markdown rendering for pull-request comments: compact tables that render on GitHub, (written to a file) links to
chart files written beside it, and for launches with per-instruction data a table of their hottest source lines
with the findings located at each (:func:`kernelscope.api.source_for`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence
from urllib.parse import quote

from ..analysis.diagnosis import ReportDiagnosis
from ..analysis.groups import LaunchGroup
from .brief import Footnotes, brief_group_rows, brief_rows, footnote_markdown
from .common import NCU_STAMP_S, Fmt, md_cell, md_code, safe
from .inline import md_labelled, md_prose
from .rows import kernel_rows, kernel_title, report_shown_text, summary_rows
from .launch_groups import (
    is_group, launches_value, outliers_line, panels, shows_outliers,
    rest_header, rest_rows, rest_title, shown_line, spread_cells,
)

if TYPE_CHECKING:
    from ..analysis.source import LaunchSource, SourceReport


def _cell(text: str) -> str:
    return md_cell(text)


def _code(text: str) -> str:
    """An inline code span of input text (a path, a kernel name)."""
    return md_code(_cell(text))


def _hot_lines(ls: "LaunchSource", f: Fmt) -> list[str]:
    """A launch's hottest source lines as a Markdown table under a heading (each line's statement, then "->" and
    the findings located there), or what the report lacks for them."""
    from .source_words import launch_notes, lines_markdown  # NumPy (the analysis) only where there is source data

    out = [f"#### {_cell(f.label('src_hot_lines'))}", ""]
    notes = [f"- {md_prose(t)}" for t in launch_notes(ls, f)]
    table = lines_markdown(ls, f)
    return out + (notes + [""] if notes else []) + (table + [""] if table else [])


def to_markdown(results: Sequence[ReportDiagnosis], lang: str,
                charts: Sequence[Mapping[str, str]] | None = None,
                sources: Sequence["SourceReport | None"] | None = None, launches: str = "grouped",
                details: bool = True) -> str:
    """Markdown document: per file, a summary table, links to its charts (``charts[i]``: chart kind ->
    file name relative to the document, e.g. ``{"roofline": "report_roofline.svg"}``), and per group of repeated
    launches (``launches="grouped"``, :mod:`.launch_groups`; per launch with ``"all"``) a two-column table, a group's
    with its spread and the launches that differ, then, when ``sources[i]`` (:func:`kernelscope.api.source_for`)
    holds the launch, a table of its hottest source lines; the groups not shown in full as rows of one table.
    ``details``: every row, else the short panels of :mod:`.brief` and the caveats once per file."""
    f = Fmt(lang, NCU_STAMP_S)
    lines: list[str] = []
    for i, res in enumerate(results):
        source = sources[i] if sources is not None and i < len(sources) else None
        by_index = {ls.kernel.index: ls for ls in source.launches} if source is not None else {}
        rep = res.report
        lines += [f"## {_code(rep.path)}{f.paren(f.made_by(rep.format, rep.tool_version))}", "", f"### {f.label('where_time_goes')}", ""]
        lines.append(f"| {f.label('kernel')} | {f.label('launches')} | {f.label('total_time')} | {f.label('share')} |")
        lines.append("|---|---:|---:|---:|")
        for name, n, total, share in summary_rows(res, f):
            lines.append(f"| {_code(name)} | {n} | {total} | {share} |")
        shown, rest = panels(res, launches)
        lines += ["", report_shown_text(res, f), ""]
        if launches == "grouped" and res.kernels:
            lines += [shown_line(res, [g for _, g in shown if g], rest, f), ""]
        if charts is not None and charts[i]:
            titles = {"roofline": f.label("roofline"), "stalls": f.label("stalls")}
            lines += [f"![{titles.get(kind, kind)}]({quote(os.fsencode(name))})" for kind, name in charts[i].items()]
            lines.append("")
        notes = Footnotes()
        for d, g in shown:
            # the index is ours, the name is code: "[1] `naive_matmul`", never the index inside the span
            lines += [f"### [{d.kernel.index}] {_code(safe(d.kernel.name))}" + (f" ×{g.count}" if g and is_group(g) else ""), ""]
            brief = md_labelled([(_cell(k), md_prose(v)) for k, v in brief_group_rows(g, f)], f.colon, f.semi, "") if g else []
            lines += (_group_lines(g, f) if details else [x for b in brief for x in (b, "")]) if g and is_group(g) else []
            lines += ["| | |", "|---|---|"]
            rows = kernel_rows(d, f) if details else brief_rows(d, f, notes)
            lines += [f"| {_cell(label)} | {md_prose(value)} |" for label, value in rows]  # prose: its code in spans
            lines.append("")
            if d.kernel.index in by_index:
                lines += _hot_lines(by_index[d.kernel.index], f)
        if rest:
            lines += [f"### {_cell(rest_title(rest, f))}", "", "| " + " | ".join(map(_cell, rest_header(f))) + " |",
                      "|---|---:|---|---:|---:|---:|---|"]
            lines += [f"| {_code(row[0])} | " + " | ".join(map(_cell, row[1:])) + " |" for row in rest_rows(rest, f)]
            lines.append("")
        if not details:
            lines += footnote_markdown(notes, f, md_prose)
    from .rich_text import md_spaced  # (not at import: no rich for a JSON output)

    return md_spaced("\n".join(lines))


def _group_lines(g: LaunchGroup, f: Fmt) -> list[str]:
    """A group's launches and total, its spread as a table (quantity, min, median, max), the launches that differ."""
    head = [f.label(k) for k in ("grp_spread_head", "grp_min", "grp_mid", "grp_max")]
    out = [_cell(launches_value(g, f)), "", "| " + " | ".join(map(_cell, head)) + " |", "|---|---:|---:|---:|"]
    out += ["| " + " | ".join(map(_cell, cells)) + " |" for cells in spread_cells(g, f)]
    if not shows_outliers(g):
        return out + [""]
    return out + ["", f"**{_cell(f.label('grp_differ'))}**{f.colon}{md_prose(outliers_line(g, f))}", ""]


def chart_files(results: Sequence[ReportDiagnosis], lang: str, output: str,
                progress: Callable[[], None] | None = None,
                launches: str = "grouped") -> tuple[list[dict[str, str]], dict[str, bytes]]:
    """The charts that go beside a Markdown file ``output``: ``report.md`` gets ``report_roofline.svg`` and
    ``report_stalls.svg`` (when any launch has stall metrics); with several inputs, ``report_2_roofline.svg``...

    Returns:
        (per result: chart kind -> file name relative to the Markdown file, {path: SVG bytes} to write).
    """
    from .charts import charts_for

    out = Path(output)
    links: list[dict[str, str]] = []
    files: dict[str, bytes] = {}
    for i, res in enumerate(results):
        part = "" if len(results) == 1 else f"_{i + 1}"
        names: dict[str, str] = {}
        for kind, svg in charts_for(res, lang, "svg", progress, launches).items():
            name = f"{out.stem}{part}_{kind}.svg"
            names[kind] = name
            files[str(out.with_name(name))] = svg
        links.append(names)
    return links, files

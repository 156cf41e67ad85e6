"""HTML rendering: one self-contained page (inline CSS, charts inline as SVG, no script, nothing fetched from the
network; a Content-Security-Policy forbids any fetch), and the fragments Jupyter shows for result objects.

Every string that comes from the input (kernel names, paths, rule titles) is HTML-escaped. Labels and advice
come from the same knowledge files as the other renderers, in English or Chinese.

Given where in the code each launch spends its time (:func:`kernelscope.api.source_for`: the launches of a
``.ncu-rep`` report that hold per-instruction data), a launch card also shows its hottest source lines, the source
view and a SASS view coloured by warp samples, with the findings of the diagnosis marked at their lines
(:func:`kernelscope.render.source_html.diagnosis_views`).
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..version import __version__
from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.source import LaunchSource, SourceReport
from .charts import (
    CLASS_COLOURS, chart_lang, count_charts, has_roofline_point, has_stalls, kernel_roofline_chart,
    report_roofline_chart, report_stall_chart, stall_chart, svg_for_html, why_not_plotted,
)
from ..analysis.groups import LaunchGroup, launch_groups
from .common import NCU_STAMP_S, Fmt, safe, short_name
from .inline import html_code, html_prose
from .rows import advice_lines, gloss_once, gpu_unknown, kernel_rows, report_shown_text, summary_rows
from .launch_groups import (
    is_group, launches_value, outliers_line, panels, shows_outliers,
    rest_header, rest_rows, rest_title, shown_line, spread_cells,
)
from .source_html import VIEW_CSS, diagnosis_views

Progress = Callable[[], None] | None

#: No fetch of any kind: styles only from the page itself, images only inline (data:) - there are none.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

CSS = """
.ks{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","DejaVu Sans",sans-serif;color:#1b1f24;
 line-height:1.45;font-size:14px;max-width:1180px;margin:0 auto;padding:0 18px 40px}
.ks h1{font-size:24px;margin:22px 0 6px}
.ks h2{font-size:19px;margin:28px 0 10px;padding-bottom:4px;border-bottom:2px solid #d0d7de}
.ks h3{font-size:16px;margin:0 0 6px;word-break:break-all}
.ks h4{font-size:13px;margin:14px 0 6px;color:#57606a;text-transform:uppercase;letter-spacing:.04em}
.ks code,.ks .mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.ks table{border-collapse:collapse;margin:6px 0 10px}
.ks th,.ks td{text-align:left;vertical-align:top;padding:4px 10px;border-bottom:1px solid #eaeef2}
.ks th{background:#f6f8fa;font-weight:600}
.ks td.num,.ks th.num{text-align:right;white-space:nowrap}
.ks table.kv th{background:none;color:#57606a;font-weight:600;white-space:nowrap;width:1%}
.ks .card{border:1px solid #d0d7de;border-radius:8px;padding:14px 16px;margin:16px 0;background:#fff;
 box-shadow:0 1px 2px rgba(27,31,36,.06)}
.ks .sig{color:#57606a;margin:0 0 8px;word-break:break-all}
.ks .badge{display:inline-block;border-radius:12px;padding:1px 10px;margin:0 6px 4px 0;color:#fff;font-weight:600;font-size:13px}
.ks .muted{color:#57606a}
.ks .note{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:6px 10px;margin:8px 0}
.ks .bar{position:relative;background:#eaeef2;border-radius:3px;height:10px;min-width:120px}
.ks .bar>span{position:absolute;left:0;top:0;bottom:0;border-radius:3px;background:#4878a8}
.ks .bar>i{position:absolute;top:-2px;bottom:-2px;width:2px;background:#1b1f24}
.ks .meters{display:grid;grid-template-columns:max-content minmax(160px,320px) max-content;gap:4px 10px;align-items:center;margin:6px 0}
.ks .charts{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.ks .charts figure{margin:0;flex:1 1 460px;max-width:640px}
.ks figure svg{width:100%;height:auto;display:block}
.ks .wide svg{width:100%;height:auto}
.ks ol,.ks ul{margin:4px 0 8px;padding-left:22px}
.ks li{margin:2px 0}
.ks a{color:#0969da;text-decoration:none}
.ks footer{margin-top:30px;color:#57606a;font-size:12.5px;border-top:1px solid #d0d7de;padding-top:8px}
""" + VIEW_CSS


#: Longest kernel name (and signature) a card shows whole; a longer one (generated code: over 100 kB) is shortened
#: as in the tables (:func:`~kernelscope.render.common.short_name`); the JSON keeps it whole.
HTML_NAME_WIDTH = 1000


def _e(text: object) -> str:
    """Text from anywhere (input file included) as HTML text or attribute value."""
    return html.escape(safe(str(text)), quote=True)


def _anchor(report_no: int, d: KernelDiagnosis) -> str:
    return f"r{report_no}-k{d.kernel.index}"


def _badges(d: KernelDiagnosis, f: Fmt) -> str:
    if not d.verdict:
        return f'<span class="badge" style="background:{CLASS_COLOURS[None]}">{_e(f.nm)}</span>'
    return "".join(
        f'<span class="badge" style="background:{CLASS_COLOURS.get(c, CLASS_COLOURS[None])}">{_e(f.bound(c))}</span>'
        for c in d.verdict
    )


def _meter(label: str, value: float | None, f: Fmt, mark: float | None = None, mark_label: str = "") -> str:
    """A label, a 0-100 % bar (with an optional marker) and the value as text."""
    if value is None:
        bar = '<div class="bar"></div>'
        text = _e(f.nm)
    else:
        width = max(0.0, min(100.0, value))
        marker = "" if mark is None else f'<i style="left:{max(0.0, min(100.0, mark)):.1f}%" title="{_e(mark_label)}"></i>'
        bar = f'<div class="bar"><span style="width:{width:.1f}%"></span>{marker}</div>'
        text = _e(f.pct(value))
        if mark is not None:
            text += f' <span class="muted">/ {_e(mark_label)}</span>'
    return f"<span>{_e(label)}</span>{bar}<span>{text}</span>"


def _meters(d: KernelDiagnosis, f: Fmt) -> str:
    k = d.kernel
    theo = d.occupancy.occupancy_pct if d.occupancy is not None else k.theoretical_occupancy_pct
    theo_label = f.spaced(f.label("occupancy_theoretical"), f.pct(theo)) if theo is not None else ""
    rows = [
        _meter(f.label("sol_compute"), d.sol.compute_pct, f),
        _meter(f.label("sol_memory"), d.sol.memory_pct, f),
        _meter(f.label("occupancy_achieved"), k.achieved_occupancy_pct, f, theo, theo_label),
    ]
    return f'<div class="meters">{"".join(rows)}</div>'


def _figure(svg: bytes, caption: str) -> str:
    return f'<figure role="img" aria-label="{_e(caption)}">{svg_for_html(svg)}</figure>'


def kernel_card(d: KernelDiagnosis, lang: str, report_no: int = 0, total_s: float | None = None,
                with_charts: bool = True, progress: Progress = None, source: LaunchSource | None = None,
                group: LaunchGroup | None = None) -> str:
    """One launch as an HTML card: verdict, evidence, measurements (occupancy included), charts, advice, and with
    ``source`` (the launch's per-instruction data analysed) where in the code: its hottest lines, the source and
    SASS views, the findings marked at their lines. With ``group`` (``d`` its representative, a group of several
    repeated launches): the card of the whole group, with the spread across its launches and those that differ."""
    f = Fmt(lang, NCU_STAMP_S)
    k = d.kernel
    grouped = group is not None and is_group(group)
    parts = [f'<section class="card" id="{_anchor(report_no, d)}">']
    parts.append(f"<h3>[{k.index}] {html_code(short_name(k.name, HTML_NAME_WIDTH))}" + (f' <span class="muted">×{group.count}</span>' if grouped else "") + "</h3>")  # the name is code, the index ours
    if k.demangled_name and k.demangled_name != k.name:
        parts.append(f'<p class="sig mono" title="{_e(f.label("signature"))}">{_e(short_name(k.demangled_name, HTML_NAME_WIDTH))}</p>')
    parts.append(f"<div>{_badges(d, f)}</div>")
    if grouped:
        parts.append(_group_part(group, f))
    evidence = d.evidence if d.classes else (d.sol.evidence if d.sol.bound is not None else ())
    # the card is one block: each glossed term glossed once in it (evidence, measurements, advice together)
    kv = kernel_rows(d, f, verdict=False, advice=False)
    advice = advice_lines(d, f) if d.advice else []
    block = gloss_once([("", f.note(n)) for n in evidence] + kv + [("", t) for t in advice], f)
    evidence_texts = [t for _, t in block[:len(evidence)]]
    kv = block[len(evidence):len(evidence) + len(kv)]
    advice = [t for _, t in block[len(evidence) + len(kv):]]
    if evidence:
        parts.append(f"<h4>{_e(f.label('evidence'))}</h4><ul>")
        parts += [f"<li>{html_prose(text)}</li>" for text in evidence_texts]
        parts.append("</ul>")
    parts.append(_meters(d, f))
    parts.append(f"<h4>{_e(f.label('measurements'))}</h4><table class=\"kv\">")
    for label, value in kv:
        parts.append(f"<tr><th>{_e(label)}</th><td>{html_prose(value)}</td></tr>")
    parts.append("</table>")
    if with_charts:
        figs = []
        if has_roofline_point(d):
            figs.append(_figure(kernel_roofline_chart(d, lang, "svg", total_s, inline=True), f.label("roofline")))
            if progress:
                progress()
        if has_stalls(d):
            figs.append(_figure(stall_chart(d, lang, "svg", inline=True), f.label("stalls")))
            if progress:
                progress()
        parts.append(f"<h4>{_e(f.label('charts'))}</h4>")
        if not has_roofline_point(d):
            why = why_not_plotted(d, d.gpu, f) or f.nm
            parts.append(f'<p class="muted">{_e(f.label("no_roofline_point", reason=why))}</p>')
        if figs:
            parts.append(f'<div class="charts">{"".join(figs)}</div>')
    if d.advice:
        parts.append(f"<h4>{_e(f.label('advice'))}</h4><ol>")
        parts += [f"<li>{html_prose(text)}</li>" for text in advice]
        parts.append("</ol>")
    if source is not None:
        parts.append(diagnosis_views(source, f))
    parts.append("</section>")
    return "".join(parts)


def _group_part(g: LaunchGroup, f: Fmt) -> str:
    """A group's launches and total, the spread across them (quantity, min, median, max), the launches that differ."""
    num = ' class="num"'
    head = "".join(f'<th{num if i else ""}>{_e(f.label(k))}</th>'
                   for i, k in enumerate(("grp_spread_head", "grp_min", "grp_mid", "grp_max")))
    rows = "".join(f"<tr><td>{_e(name)}</td>" + "".join(f'<td class="num">{_e(c)}</td>' for c in cells) + "</tr>"
                   for name, *cells in spread_cells(g, f))
    return (f"<h4>{_e(f.label('launches'))}</h4><p>{_e(launches_value(g, f))}</p><table><tr>{head}</tr>{rows}</table>"
            + (f"<p><b>{_e(f.label('grp_differ'))}</b>{_e(f.colon)}{_e(outliers_line(g, f))}</p>"
               if shows_outliers(g) else ""))


def _rest_table(rest: Sequence[LaunchGroup], f: Fmt, anchor: str) -> str:
    """The groups not shown as cards, one row each."""
    num = ' class="num"'
    head = "".join(f'<th{num if i in (1, 3, 4, 5) else ""}>{_e(c)}</th>' for i, c in enumerate(rest_header(f)))
    body = "".join(
        f'<tr><td class="mono">{_e(row[0])}</td>'
        + "".join(f'<td{num if i in (1, 3, 4, 5) else ""}>{_e(c)}</td>' for i, c in enumerate(row) if i) + "</tr>"
        for row in rest_rows(rest, f))
    return f'<h4 id="{anchor}">{_e(rest_title(rest, f))}</h4><table><tr>{head}</tr>{body}</table>'


def _gpus(res: ReportDiagnosis, f: Fmt) -> str:
    names = list(dict.fromkeys(d.gpu.name for d in res.kernels if d.gpu is not None))
    if names:
        return ", ".join(names)
    devices = list(dict.fromkeys(k.device.display_name for k in res.report.kernels if k.device.display_name))
    if devices:
        return ", ".join(devices)
    return gpu_unknown(res.report.kernels[0], f) if res.report.kernels else f.label("gpu_unknown")  # not "not measured"


def report_section(res: ReportDiagnosis, lang: str, report_no: int = 0, with_charts: bool = True,
                   progress: Progress = None, source: SourceReport | None = None, launches: str = "grouped") -> str:
    """One input file: provenance, where the time goes, the report's charts, then a card per group of repeated
    launches (``launches="grouped"``, :mod:`.launch_groups`: the groups with the most GPU time, the others as rows of
    one table) or per launch (``"all"``), with where in the code for each launch ``source`` holds."""
    f = Fmt(lang, NCU_STAMP_S)
    rep = res.report
    shown, rest = panels(res, launches)
    parts = [f'<section class="report" id="r{report_no}">', f"<h2>{html_code(Path(rep.path).name)}</h2>"]
    prov = [
        (f.label("input_file"), f'<span class="mono">{_e(rep.path)}</span>'),
        (f.label("input_format"), _e(rep.format)),
        (f.label("gpu"), _e(_gpus(res, f))),
        (f.label("profiler_version"), _e(f.profiler_cell(rep.format, rep.tool_version))),
        (f.label("kernelscope_version"), _e(__version__)),
        (f.label("launches"), _e(report_shown_text(res, f))),
    ]
    parts.append(f"<h4>{_e(f.label('provenance'))}</h4><table class=\"kv\">")
    parts += [f"<tr><th>{_e(label)}</th><td>{value}</td></tr>" for label, value in prov]
    parts.append("</table>")

    first = {}
    for d, _ in shown:
        first.setdefault(d.kernel.name, _anchor(report_no, d))
    for g in rest:  # a kernel without a card: its row in the table of the others
        first.setdefault(g.name, f"r{report_no}-rest")
    parts.append(f"<h4>{_e(f.label('where_time_goes'))}</h4><table><tr>"
                 f"<th>{_e(f.label('kernel'))}</th><th class=\"num\">{_e(f.label('launches'))}</th>"
                 f"<th class=\"num\">{_e(f.label('total_time'))}</th><th class=\"num\">{_e(f.label('share'))}</th><th></th></tr>")
    for g, (name, n, total, share) in zip(res.groups, summary_rows(res, f)):
        name = short_name(name, HTML_NAME_WIDTH)
        cell = f'<a href="#{first[g.name]}">{_e(name)}</a>' if g.name in first else _e(name)
        bar = "" if g.share is None else f'<div class="bar"><span style="width:{max(0.0, min(1.0, g.share)) * 100:.1f}%"></span></div>'
        parts.append(f'<tr><td class="mono">{cell}</td><td class="num">{_e(n)}</td><td class="num">{_e(total)}</td>'
                     f'<td class="num">{_e(share)}</td><td style="min-width:140px">{bar}</td></tr>')
    parts.append("</table>")

    if with_charts:
        total_s = math.fsum(g.total_duration_s for g in res.groups) or None
        parts.append(f"<h4>{_e(f.label('charts'))}</h4><div class=\"wide\">")
        groups = launch_groups(res) if launches == "grouped" else None
        parts.append(_figure(report_roofline_chart(res, lang, "svg", inline=True, groups=groups), f.label("roofline")))
        if progress:
            progress()
        if any(has_stalls(d) for d in res.kernels):
            reps = None if groups is None else [d for d, _ in shown]
            parts.append(_figure(report_stall_chart(res, lang, "svg", diagnoses=reps, inline=True), f.label("stalls")))
        if progress:
            progress()
        parts.append("</div>")
    else:
        total_s = math.fsum(g.total_duration_s for g in res.groups) or None

    parts.append(f"<h2>{_e(f.label('kernel_cards'))}</h2>")
    if not res.kernels:
        parts.append(f'<p class="muted">{_e(f.label("no_launches"))}</p>')
    elif launches == "grouped":
        parts.append(f'<p class="muted">{_e(shown_line(res, [g for _, g in shown if g], rest, f))}</p>')
    by_index: Mapping[int, LaunchSource] = {ls.kernel.index: ls for ls in source.launches} if source else {}
    for d, g in shown:
        parts.append(kernel_card(d, lang, report_no, total_s, with_charts, progress, by_index.get(d.kernel.index), g))
    if rest:
        parts.append(_rest_table(rest, f, f"r{report_no}-rest"))
    parts.append("</section>")
    return "".join(parts)


def _font_note(lang: str, f: Fmt) -> str:
    if chart_lang(lang) != lang:
        return f'<p class="note">{_e(f.label("chart_font_fallback"))}</p>'
    return ""


def to_html(results: Sequence[ReportDiagnosis], lang: str, progress: Progress = None,
            sources: Sequence[SourceReport | None] | None = None, launches: str = "grouped") -> str:
    """The whole HTML document (UTF-8 text): one section per input file. ``sources[i]``: where in the code for the
    launches of ``results[i]`` (:func:`kernelscope.api.source_for`), None or absent: the cards without it.
    ``launches``: ``"grouped"`` (a card per group of repeated launches) or ``"all"`` (a card per launch)."""
    f = Fmt(lang, NCU_STAMP_S)
    heading = f.label("html_title")
    title = f.head(heading, Path(results[0].report.path).name) if len(results) == 1 else heading
    sources = list(sources or ())
    body = "".join(report_section(res, lang, i, True, progress, sources[i] if i < len(sources) else None, launches)
                   for i, res in enumerate(results))
    html_lang = "zh-CN" if lang == "zh" else "en"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html_lang}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="kernelscope {_e(__version__)}">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n"
        f'<body><main class="ks"><h1>{_e(heading)}</h1>{_font_note(lang, f)}{body}'
        f"<footer>{_e(f.label('generated_by', version=__version__))}</footer></main></body></html>\n"
    )


def report_fragment(res: ReportDiagnosis, lang: str = "en") -> str:
    """A report as an HTML fragment with its own scoped style (Jupyter's ``_repr_html_``)."""
    return f'<div class="ks"><style>{CSS}</style>{report_section(res, lang)}</div>'


def kernel_fragment(d: KernelDiagnosis, lang: str = "en") -> str:
    """One launch's card as an HTML fragment with its own scoped style (Jupyter's ``_repr_html_``)."""
    return f'<div class="ks"><style>{CSS}</style>{kernel_card(d, lang)}</div>'


def count_work(results: Sequence[ReportDiagnosis], launches: str = "grouped") -> int:
    """Progress steps :func:`to_html` reports (one per chart drawn, two per report)."""
    return count_charts(results, launches=launches)

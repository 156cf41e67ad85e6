"""HTML of where in the code (:class:`~kernelscope.analysis.source.SourceReport`): the page of ``kernelscope source
--format html`` (a card per launch: hottest lines and instructions, the source and SASS views), and the views a
``kernelscope diagnose --format html`` launch card embeds (:func:`diagnosis_views`).

The views colour each source line and instruction by its warp samples (else executed instructions), white (none)
to red (the most), and mark the lines and instructions where a finding of the launch's diagnosis was located with a
badge naming the finding (:meth:`~kernelscope.render.common.Fmt.finding_title`). Every string from the report
(kernel and file names, source and SASS text, Nsight's messages) is HTML-escaped; the page's
Content-Security-Policy forbids any fetch (no script, styles inline).
"""

from __future__ import annotations

import html
from typing import Collection, Sequence

from ..analysis.source import LaunchSource, SourceReport, findings_by_pc, hot_lines
from ..version import __version__
from .common import Fmt, safe
from .inline import html_code, html_prose
from .numbers import NO_VALUE
from .source_words import (base_name, count_text, instruction_head, instruction_rows, launch_lines, line_head,
                           line_rows)

__all__ = [
    "CSP", "CSS", "VIEW_CSS", "diagnosis_views", "finding_badges", "heat_style", "launch_card", "sass_view",
    "sass_view_title", "source_view", "source_view_title", "to_html",
]

#: Rows of the HTML SASS view, and source lines of its source view, at most.
MAX_VIEW_ROWS = 5000
#: Source lines shown around each line with data in the HTML source view.
CONTEXT_LINES = 3
SAMPLES = "smsp__pcsamp_sample_count"

#: No fetch of any kind: styles only from the page itself, no script, no image.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
#: Styles of the source and SASS views and of the finding badges (also part of the ``diagnose`` page).
VIEW_CSS = """
.ks table.code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.ks table.code td{border:none;padding:0 8px;white-space:pre}
.ks .fb{display:inline-block;border-radius:10px;padding:0 8px;margin:0 4px 1px 0;background:#ffebe9;color:#82071e;
 border:1px solid #ff8182;font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;
 font-size:12px;white-space:nowrap}
.ks table.code td.fbs{white-space:normal;min-width:180px}
.ks details{margin:6px 0;overflow-x:auto}.ks summary{cursor:pointer;color:#57606a;font-weight:600}
"""
CSS = """
.ks{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;color:#1b1f24;
 line-height:1.45;font-size:14px;max-width:1280px;margin:0 auto;padding:0 18px 40px}
.ks h1{font-size:24px;margin:22px 0 6px}.ks h2{font-size:19px;margin:0 0 6px;word-break:break-all}
.ks h3{font-size:13px;margin:16px 0 6px;color:#57606a;text-transform:uppercase;letter-spacing:.04em}
.ks code,.ks .mono,.ks pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.ks table{border-collapse:collapse;margin:6px 0 10px}
.ks th,.ks td{text-align:left;vertical-align:top;padding:3px 8px;border-bottom:1px solid #eaeef2}
.ks th{background:#f6f8fa;font-weight:600}.ks td.num,.ks th.num{text-align:right;white-space:nowrap}
.ks table.kv th{background:none;color:#57606a;white-space:nowrap}
.ks .card{border:1px solid #d0d7de;border-radius:8px;padding:14px 16px;margin:16px 0}
.ks .muted{color:#57606a}.ks .sig{color:#57606a;word-break:break-all}
.ks .note{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:6px 10px;margin:8px 0}
.ks footer{margin-top:30px;color:#57606a;font-size:12.5px;border-top:1px solid #d0d7de;padding-top:8px}
""" + VIEW_CSS


def _e(text: object) -> str:
    """Text from anywhere (the report included) as HTML text or attribute value."""
    return html.escape(safe(str(text)), quote=True)


def heat_style(value: float | None, top: float) -> str:
    """An inline background attribute from white (0) to red (``top``, the largest value shown); "" for no value,
    zero, or a zero ``top``."""
    if value is None or not top or value <= 0:
        return ""
    return f' style="background:rgba(214,39,40,{0.08 + 0.72 * min(1.0, value / top):.2f})"'


def finding_badges(ids: Sequence[str], f: Fmt) -> str:
    """One badge per finding id, titled in ``f``'s language (``data/findings.toml``), HTML; "" for none."""
    return "".join(f'<span class="fb" data-finding="{_e(i)}">{_e(f.finding_title(i))}</span>' for i in ids)


def _heat_value(ls: LaunchSource, samples: float | None, executed: float | None) -> float | None:
    """The value a view colours by: samples when the launch is ranked by samples, else executed instructions."""
    return samples if ls.ranked_by == SAMPLES else executed


def _html_table(head: list[str], rows: list[list[str]], right: set[int], heat: list[str] | None = None,
                cls: str = "", heat_col: int = 2, extra: list[str] | None = None, extra_col: int = -1,
                code: int = -1) -> str:
    """A table of escaped cells; ``heat[j]``: row j's style on column ``heat_col``; ``extra[j]``: HTML appended to
    row j's column ``extra_col`` (badges); column ``code`` (SASS) in ``<code>`` (:func:`~.inline.html_code`)."""
    parts = [f'<table{f" class={cls!r}" if cls else ""}><tr>']
    parts += [f'<th{" class=num" if i in right else ""}>{_e(h)}</th>' for i, h in enumerate(head)]
    parts.append("</tr>")
    last = len(head) - 1 if extra_col < 0 else extra_col
    for j, r in enumerate(rows):
        style = heat[j] if heat else ""
        more = extra[j] if extra else ""
        cells = "".join(f'<td{" class=num" if i in right else ""}{style if i == heat_col else ""}>'
                        f'{html_code(c) if i == code and c != NO_VALUE else _e(c)}'
                        f'{(" " + more) if i == last and more else ""}</td>' for i, c in enumerate(r))
        parts.append(f"<tr>{cells}</tr>")
    parts.append("</table>")
    return "".join(parts)


def lines_table(ls: LaunchSource, f: Fmt) -> str:
    """The hottest lines as an HTML table, heat on their samples, each line's findings as badges after its
    statement; "" without lines."""
    if not ls.lines:
        return ""
    top = max((_heat_value(ls, x.counters.samples, x.counters.inst_executed) or 0.0 for x in ls.lines), default=0.0)
    heat = [heat_style(_heat_value(ls, x.counters.samples, x.counters.inst_executed), top) for x in ls.lines]
    return _html_table(line_head(f), line_rows(ls.lines, f, findings=False), {2, 3, 4}, heat,
                       extra=[finding_badges(x.findings, f) for x in ls.lines])


def instructions_table(ls: LaunchSource, f: Fmt) -> str:
    """The hottest instructions as an HTML table, heat on their samples, their findings as badges after the SASS."""
    top = max((_heat_value(ls, h.counters.samples, h.counters.inst_executed) or 0.0 for h in ls.instructions),
              default=0.0)
    heat = [heat_style(_heat_value(ls, h.counters.samples, h.counters.inst_executed), top) for h in ls.instructions]
    return _html_table(instruction_head(f), instruction_rows(ls.instructions, f),
                       {2, 3, 5, 6, 7, 8, 9}, heat, extra=[finding_badges(h.findings, f) for h in ls.instructions],
                       extra_col=1, code=1)


def source_view_title(ls: LaunchSource, f: Fmt) -> str:
    """The source view's title: what its heat shows (samples or executed instructions per line)."""
    return f.label("src_source_view" if ls.ranked_by == SAMPLES else "src_source_view_executed")


def source_view(ls: LaunchSource, f: Fmt) -> str:
    """Per embedded file with data: its lines with data and :data:`CONTEXT_LINES` around them (at most
    :data:`MAX_VIEW_ROWS` lines in all), heat by samples (or executions), the findings located on a line as
    badges after its text; HTML, "" when no line with data is in an embedded file."""
    per_line = [x for x in hot_lines(ls.table, None, ls.located) if x.file in ls.table.sources]
    if not per_line:
        return ""
    value = {(x.file, x.line): _heat_value(ls, x.counters.samples, x.counters.inst_executed) for x in per_line}
    found = {(x.file, x.line): x.findings for x in per_line}
    top = max((v or 0.0) for v in value.values())
    parts = []
    shown = 0
    for file in sorted({x.file for x in per_line}):
        text = ls.table.sources[file].splitlines()
        wanted = sorted({n for (fl, ln) in value if fl == file
                         for n in range(ln - CONTEXT_LINES, ln + CONTEXT_LINES + 1) if 1 <= n <= len(text)})
        parts.append(f'<p class="mono" title="{_e(file)}">{_e(file)}</p><table class="code">')
        last = 0
        for n in wanted[:max(0, MAX_VIEW_ROWS - shown)]:
            if last and n > last + 1:
                parts.append('<tr><td class="muted">…</td><td></td><td></td><td></td></tr>')
            v = value.get((file, n))
            parts.append(f'<tr><td class="num muted">{n}</td><td class="num"{heat_style(v, top)}>'
                         f'{_e(count_text(v, f) if v else "")}</td><td>{_e(text[n - 1])}</td>'
                         f'<td class="fbs">{finding_badges(found.get((file, n), ()), f)}</td></tr>')
            last = n
        shown += len(wanted)
        parts.append("</table>")
    return "".join(parts)


def sass_view_title(ls: LaunchSource, f: Fmt) -> str:
    """The SASS view's title: what its heat shows (samples or executed instructions per instruction)."""
    return f.label("src_sass_view" if ls.ranked_by == SAMPLES else "src_sass_view_executed")


def sass_view(ls: LaunchSource, f: Fmt, pcs: Collection[int] | None = None) -> str:
    """The instructions with data in PC order (``pcs``: only those, "…" where rows are skipped; None: all, at most
    :data:`MAX_VIEW_ROWS`): offset, heat value, executed, SASS (when read), file:line, the findings located there as
    badges; HTML, "" without instructions."""
    table = ls.table
    if not len(table.pc):
        return ""
    values = table.columns.get(ls.ranked_by) if ls.ranked_by else None
    # ranked by executions: the heat column is that count, not shown twice
    executed = None if ls.ranked_by == "inst_executed" else table.columns.get("inst_executed")
    top = float(max((v for v in values.tolist() if v == v), default=0.0)) if values is not None else 0.0
    found = findings_by_pc(ls.located)
    head = [f.label(k) for k in ("src_offset", "src_samples" if ls.ranked_by == SAMPLES else "src_executed")] \
        + [f.label("src_executed")] * (executed is not None) + [f.label("src_sass"), f.label("src_where"), ""]
    parts = ['<table class="code"><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"]
    rows = [i for i, pc in enumerate(table.pc.tolist()) if pcs is None or pc in pcs][:MAX_VIEW_ROWS]
    skipped = '<tr><td class="muted">…</td>' + "<td></td>" * (len(head) - 1) + "</tr>"
    for j, i in enumerate(rows):
        if i > (rows[j - 1] + 1 if j else 0):  # rows left out before this one
            parts.append(skipped)
        pc = int(table.pc[i])
        v = None if values is None or values[i] != values[i] else float(values[i])
        off = f"+{pc - table.function_pc:#06x}" if table.function_pc is not None else f"{pc:#x}"
        ex = "" if executed is None or executed[i] != executed[i] else count_text(float(executed[i]), f)
        ex_cell = "" if executed is None else f'<td class="num">{_e(ex)}</td>'
        where = f"{base_name(table.file[i])}:{table.line[i]}" if table.file[i] is not None and table.line[i] > 0 else ""
        parts.append(f'<tr><td class="muted">{_e(off)}</td><td class="num"{heat_style(v, top)}>'
                     f'{_e(count_text(v, f) if v else "")}</td>{ex_cell}'
                     f"<td>{html_code(table.sass[pc]) if table.sass.get(pc) else ''}</td><td class=\"muted\">{_e(where)}</td>"
                     f'<td class="fbs">{finding_badges(found.get(pc, ()), f)}</td></tr>')
    if rows and rows[-1] < len(table.pc) - 1:
        parts.append(skipped)
    parts.append("</table>")
    return "".join(parts)


def launch_card(ls: LaunchSource, f: Fmt) -> str:
    """One launch as an HTML card: title, notes, the hottest lines and instructions, the source and SASS views."""
    k = ls.kernel
    parts = [f'<section class="card" id="k{k.index}"><h2>{_e(f"[{k.index}] {k.name}")}</h2>']
    if k.demangled_name and k.demangled_name != k.name:
        parts.append(f'<p class="sig mono">{_e(k.demangled_name)}</p>')
    first, *rest = launch_lines(ls, f)
    parts.append(f"<p>{html_prose(first)}</p>" + "".join(f'<p class="note">{html_prose(t)}</p>' for t in rest))
    if ls.lines:
        parts.append(f"<h3>{_e(f.label('src_hot_lines'))}</h3>{lines_table(ls, f)}")
    parts.append(f"<h3>{_e(f.label('src_hot_instructions'))}</h3>{instructions_table(ls, f)}")
    marks = [m for h in ls.instructions for m in h.markers]
    if marks:
        parts.append(f"<h3>{_e(f.label('src_markers'))}</h3><ul>")
        parts += [f"<li><code>{m.pc:#x}</code> {_e(m.rule_id)} ({_e(m.message_type)}): {_e(m.message)}</li>"
                  for m in marks]
        parts.append("</ul>")
    source = source_view(ls, f)
    if source:
        parts.append(f"<h3>{_e(source_view_title(ls, f))}</h3>{source}")
    sass = sass_view(ls, f)
    if sass:
        parts.append(f"<h3>{_e(sass_view_title(ls, f))}</h3>{sass}")
    parts.append("</section>")
    return "".join(parts)


def diagnosis_views(ls: LaunchSource, f: Fmt, heading: str = "h4") -> str:
    """What a ``diagnose`` launch card shows of where in the code: a ``heading`` ("where in the code"), the notes
    on what the report lacks, the hottest lines (with their findings), then, each in a ``<details>`` element open by
    default, the source view and a SASS view of the hottest and the located instructions only; HTML."""
    parts = [f"<{heading}>{_e(f.label('src_title', index=ls.kernel.index, name=ls.kernel.name))}</{heading}>"]
    parts += [f'<p class="note">{html_prose(t)}</p>' for t in launch_lines(ls, f)[1:]]
    parts.append(lines_table(ls, f))
    source = source_view(ls, f)
    if source:
        parts.append(f'<details open class="source-view"><summary>{_e(source_view_title(ls, f))}</summary>'
                     f"{source}</details>")
    shown = {h.pc for h in ls.instructions} | {x.pc for places in ls.located.values() for x in places}
    sass = sass_view(ls, f, shown) if shown else ""
    if sass:
        parts.append(f'<details open class="sass-view"><summary>{_e(sass_view_title(ls, f))}</summary>{sass}</details>')
    return "".join(parts)


def to_html(result: SourceReport, lang: str) -> str:
    """The whole ``kernelscope source`` HTML document (UTF-8 text) of a
    :class:`~kernelscope.analysis.source.SourceReport`: provenance, then a card per launch.

    Raises:
        ValueError: unknown language.
    """
    f = Fmt(lang)
    rep = result.report
    title = f.head(f.label("src_html_title"), base_name(rep.path))
    prov = [(f.label("input_file"), rep.path), (f.label("profiler_version"), f.profiler_cell(rep.format, rep.tool_version)),
            (f.label("kernelscope_version"), __version__)]
    rows = "".join(f"<tr><th>{_e(a)}</th><td>{_e(b)}</td></tr>" for a, b in prov)
    body = "".join(launch_card(ls, f) for ls in result.launches)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{"zh-CN" if f.lang == "zh" else "en"}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n"
        f'<body><main class="ks"><h1>{_e(title)}</h1><table class="kv">{rows}</table>{body}'
        f"<footer>{_e(f.label('generated_by', version=__version__))}</footer></main></body></html>\n"
    )

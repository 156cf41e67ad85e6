"""Rendering of ``kernelscope source`` (:class:`~kernelscope.analysis.source.SourceReport`): a terminal table (rich),
Markdown, the JSON document ``kernelscope.source/1`` (:mod:`kernelscope.render.documents.source`), or a
self-contained HTML page with a source and SASS view per launch (:mod:`kernelscope.render.source_html`), in English
or Chinese. Each hot line's "At this line" cell ends with the findings of the launch's diagnosis located there
("-> uncoalesced global accesses"), most important first.

No analysis here: it words and lays out what :mod:`kernelscope.analysis.source` computed. Every string from the
report (kernel names, file names, source and SASS text, Nsight's messages) is made safe for a terminal.
"""

from __future__ import annotations

from typing import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.source import Counters, LaunchSource, SourceReport, StallSamples
from ..model import SourceMarker
from ..version import __version__
from .rich_text import Heading, md_spaced, to_plain
from .common import Fmt, md_code
from .cjk_console import CodeText
from .fit import code, drop_first, tight, wants
from .documents import encode
from .documents.source import (
    AtInstructionDoc, CountersDoc, InstructionDoc, LaunchSourceDoc, LineDoc, MarkerDoc, SourceDoc, SourceInputDoc, StallSamplesDoc,
)
from .json import finite, notes
from .source_words import (
    instruction_head, instruction_rows, launch_lines, launch_notes, launch_title, line_head, line_rows,
    lines_markdown, md_cell, md_table,
)

SCHEMA = "kernelscope.source/1"
FORMATS: tuple[str, ...] = ("table", "json", "markdown", "html")


def render_source(result: SourceReport, fmt: str = "table", lang: str = "en", width: int | None = None) -> str:
    """The result as ``"table"`` (plain text), ``"json"``, ``"markdown"`` or ``"html"``.

    Raises:
        ValueError: unknown format or language.
    """
    Fmt(lang)  # checks the language
    if fmt == "json":
        return encode(source_doc(result, lang))
    if fmt == "markdown":
        return to_markdown(result, lang)
    if fmt == "html":
        from .source_html import to_html

        return to_html(result, lang)
    if fmt == "table":
        return to_plain([Group(*renderables(result, lang))], width)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


# ----------------------------------------------------------------------------------------------- table
#: Cells the stall column of the hottest instructions wants in Chinese (a stall's name and its gloss on one line:
#: "Long Scoreboard（等待 L1/TEX 缓存的访存结果）100%"), at most a quarter of the width and half of the cells beyond
#: 80 (:func:`~.fit.wants`): at 120 columns the stall names no longer wrap for the short counts beside them.
STALL_WIDTH = 50


def renderables(result: SourceReport, lang: str) -> list[RenderableType]:
    """rich renderables: per launch its title, its notes, the hottest lines and the hottest instructions."""
    f = Fmt(lang)
    out: list[RenderableType] = []
    for ls in result.launches:
        out.append(Heading(launch_title(ls, f), style="bold"))
        out += [Text(text) for text in launch_lines(ls, f)]
        if ls.lines:
            t = Table(title=f.label("src_hot_lines"), box=box.SIMPLE_HEAD, title_justify="left")
            for i, h in enumerate(line_head(f)):
                t.add_column(h, justify="right" if i in (2, 3, 4) else "left", overflow="fold",
                             no_wrap=i in (0, 2, 3, 4))
            for row in line_rows(ls.lines, f):
                t.add_row(*(Text(c) for c in row))
            out.append(drop_first(t, 4, 3))  # narrow: instructions, then share, before what the counters show
        t = Table(title=f.label("src_hot_instructions"), box=box.SIMPLE_HEAD, title_justify="left")
        for i, h in enumerate(instruction_head(f)):
            t.add_column(h, justify="left" if i in (0, 1, 4) else "right", overflow="fold", no_wrap=i not in (1, 4))
        for row in instruction_rows(ls.instructions, f):
            t.add_row(*(CodeText(c) if i == 1 else Text(c) for i, c in enumerate(row)))
        # the SASS column its whole instructions first (code); in Chinese, where the table is too wide, the headers
        # of the short counts wrap and the columns sit one cell closer, and the stall column (its long stall names
        # were squeezed to the SASS column's width) is given its room
        code(t, 1)
        out.append(tight(wants(t, 4, STALL_WIDTH)) if f.zh else t)
    return out


# ----------------------------------------------------------------------------------------------- markdown
def to_markdown(result: SourceReport, lang: str) -> str:
    """Markdown: per launch a heading, its notes, a table of the hottest lines (with each line's statement and the
    findings located there) and a table of the hottest instructions."""
    f = Fmt(lang)
    lines: list[str] = []
    for ls in result.launches:
        lines += [f"## {md_cell(launch_title(ls, f))}", ""] + [f"- {md_cell(t)}" for t in launch_lines(ls, f)] + [""]
        if ls.lines:
            lines += [f"### {md_cell(f.label('src_hot_lines'))}", ""] + lines_markdown(ls, f) + [""]
        rows = [[c if i != 1 else md_code(c) for i, c in enumerate(row)] for row in instruction_rows(ls.instructions, f)]
        lines += [f"### {md_cell(f.label('src_hot_instructions'))}", ""]
        lines += md_table(instruction_head(f), rows, {2, 3, 5, 6, 7, 8, 9}) + [""]
    return md_spaced("\n".join(lines))


# ----------------------------------------------------------------------------------------------- JSON
def _stall_docs(items: Sequence[StallSamples], f: Fmt) -> list[StallSamplesDoc]:
    return [StallSamplesDoc(reason=s.reason, name=f.stall_name(s.reason), samples=s.samples, share=s.share,
                            share_of_reason=s.share_of_reason) for s in items]


def _counters_doc(c: Counters, f: Fmt) -> CountersDoc:
    return CountersDoc(
        samples=finite(c.samples), share=finite(c.share), stalls=_stall_docs(c.stalls, f),
        not_stalls=_stall_docs(c.healthy, f), inst_executed=finite(c.inst_executed),
        thread_efficiency=finite(c.thread_efficiency), sectors=finite(c.sectors),
        excess_sectors=finite(c.excess_sectors), sector_ratio=finite(c.sector_ratio), wavefronts=finite(c.wavefronts),
        excess_wavefronts=finite(c.excess_wavefronts), wavefront_ratio=finite(c.wavefront_ratio), nway=finite(c.nway),
    )


def _marker_docs(markers: Sequence[SourceMarker]) -> list[MarkerDoc]:
    return [MarkerDoc(rule_id=m.rule_id, pc=m.pc, message_type=m.message_type, message=m.message) for m in markers]


def _launch_doc(ls: LaunchSource, f: Fmt) -> LaunchSourceDoc:
    k, table = ls.kernel, ls.table
    origin = k.origin or (0, 0)
    return LaunchSourceDoc(
        index=k.index, name=k.name, demangled_name=k.demangled_name, duration_s=finite(k.duration_s),
        range=origin[0], result=origin[1], function_pc=table.function_pc, instructions_with_data=len(table.pc),
        ranked_by=ls.ranked_by, total_samples=finite(ls.total_samples),  # type: ignore[arg-type]
        total_executed=finite(ls.total_executed), has_lines=ls.has_lines, embedded_sources=sorted(table.sources),
        instructions=[InstructionDoc(pc=h.pc, offset=h.offset, file=h.file, line=h.line, sass=h.sass,
                                     counters=_counters_doc(h.counters, f), markers=_marker_docs(h.markers),
                                     findings=list(h.findings))
                      for h in ls.instructions],
        lines=[LineDoc(file=x.file, line=x.line, text=x.text, pcs=list(x.pcs), counters=_counters_doc(x.counters, f),
                       statement=notes(x.statement, f), markers=_marker_docs(x.markers), findings=list(x.findings),
                       at_instructions=[AtInstructionDoc(pc=a.pc, offset=a.offset, finding=a.finding)
                                        for a in x.at_instructions])
               for x in ls.lines],
        notes=launch_notes(ls, f),
    )


def source_doc(result: SourceReport, lang: str = "en") -> SourceDoc:
    """The ``kernelscope.source/1`` document of ``result``."""
    f = Fmt(lang)
    rep = result.report
    return SourceDoc(
        schema=SCHEMA, kernelscope_version=__version__, lang=f.lang,  # type: ignore[arg-type]
        input=SourceInputDoc(path=rep.path, format="ncu-rep", tool_version=rep.tool_version,
                             launches=len(rep.kernels)),
        launches=[_launch_doc(ls, f) for ls in result.launches],
    )

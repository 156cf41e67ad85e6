"""Rendering of ``kernelscope banks`` (:class:`kernelscope.analysis.banks.BankReport`): a terminal table, Markdown
or the JSON document ``kernelscope.banks/1`` (:mod:`kernelscope.render.documents.banks`), in English or Chinese.
No analysis here: it words and lays out what :mod:`kernelscope.analysis.banks` computed."""

from __future__ import annotations

from typing import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.banks import BankReport, Layout, Phase, Request
from ..version import __version__
from .rich_text import md_spaced, to_plain
from .common import Fmt, md_cell
from .inline import md_labelled, md_prose
from .documents import encode
from .documents.banks import (
    BankFactsDoc, BanksDoc, CollidingBankDoc, LayoutDoc, NWayCountDoc, PhaseDoc, RequestDoc,
)

SCHEMA = "kernelscope.banks/1"
FORMATS: tuple[str, ...] = ("table", "json", "markdown")
#: Banks per line of the per-bank grid.
_GRID_WIDTH = 8
#: Colliding banks listed per phase before "... +n more".
_MAX_BANKS = 4


def declaration(layout: Layout) -> str:
    """``__shared__ float tile[32][33]``: the tile as laid out (padding included)."""
    return f"__shared__ {layout.dtype} tile[{layout.rows}][{layout.row_elements}]"


def compact(values: Sequence[int], limit: int = 8, dash: str = "-", comma: str = ", ") -> str:
    """Indices for reading: ``0-31`` (consecutive; ``dash``: "～" in Chinese), ``1, 3, 5, …, 31`` (a longer arithmetic
    progression), else the first ``limit`` then ``…`` (items parted by ``comma``: "、" in Chinese)."""
    v = list(values)
    if len(v) > 2 and all(b - a == 1 for a, b in zip(v, v[1:])):
        return f"{v[0]}{dash}{v[-1]}"
    if len(v) <= limit:
        return comma.join(map(str, v))
    if all(b - a == v[1] - v[0] for a, b in zip(v, v[1:])):
        return comma.join(map(str, (*v[:3], "…", v[-1])))
    return comma.join(map(str, (*v[:limit], f"… (+{len(v) - limit})")))


def _dash(f: Fmt) -> str:
    return "～" if f.zh else "-"


def _comma(f: Fmt) -> str:
    return "、" if f.zh else ", "


def _which(layout: Layout, index: int, f: Fmt) -> str:
    return f.label(f"banks_which_{layout.access}", i=index)


def _conflict_text(layout: Layout, f: Fmt) -> str:
    if layout.conflict_free:
        return f.label("banks_conflict_none")
    per = f.label("banks_per_phase") if layout.lanes_per_phase < 32 else ""
    if len(layout.conflicting) == len(layout.requests):  # every request: "all 32 columns", not "32 of 32"
        return f.label("banks_conflict_all", n=layout.n_way, per=per, worst=_which(layout, layout.worst.index, f),
                       count=len(layout.requests), unit=f.label(f"banks_unit_{layout.access}"))
    return f.label("banks_conflict_value", n=layout.n_way, per=per, worst=_which(layout, layout.worst.index, f),
                   k=len(layout.conflicting), count=len(layout.requests), unit=f.label(f"banks_unit_{layout.access}"),
                   which=compact(layout.conflicting, dash=_dash(f), comma=_comma(f)))


def _wavefront_text(layout: Layout, f: Fmt) -> str:
    w, ideal = layout.wavefronts, layout.ideal_wavefronts
    if w == ideal:
        return f.label("banks_wavefronts_ideal", w=w, ideal=ideal)
    return f.label("banks_wavefronts_value", w=w, ideal=ideal, x=f"{w / ideal:g}")


def _phase_banks(phase: Phase, f: Fmt) -> list[str]:
    """The colliding banks of ``phase`` and the words each serves: banks that serve as many words to every thread
    of the phase said together ("Bank 0、1 各 16 个字", not each with "（线程 0～15）" repeated)."""
    every = tuple(range(phase.lanes[0], phase.lanes[1] + 1))
    groups: list[list[int]] = []
    for b in phase.colliding_banks:
        same = next((g for g in groups if phase.lanes_per_bank[b] == every and phase.lanes_per_bank[g[0]] == every
                     and phase.words_per_bank[g[0]] == phase.words_per_bank[b]), None)
        if same is not None:
            same.append(b)
        else:
            groups.append([b])
    out = []
    for g in groups[:_MAX_BANKS]:
        if len(g) > 1:
            out.append(f.label("banks_banks_words_all", banks=compact(g, dash=_dash(f), comma=_comma(f)),
                               words=phase.words_per_bank[g[0]]))
        else:
            out.append(f.label("banks_bank_words", bank=g[0], words=phase.words_per_bank[g[0]],
                               lanes=compact(phase.lanes_per_bank[g[0]], dash=_dash(f), comma=_comma(f))))
    if len(groups) > _MAX_BANKS:
        out.append(f.label("banks_more", n=sum(len(g) for g in groups[_MAX_BANKS:])))
    return out


def _phase_prefix(phase: Phase, phases: int, f: Fmt) -> str:
    """What a phase is called before its banks: the first or second half-warp of two, else its threads."""
    if phases == 2 and phase.lanes in ((0, 15), (16, 31)):
        return f.label("banks_phase_first_half" if phase.lanes[0] == 0 else "banks_phase_second_half")
    return f.label("banks_phase_prefix", first=phase.lanes[0], last=phase.lanes[1])


def _colliding_text(req: Request, f: Fmt) -> str:
    parts = []
    for p in req.phases:
        banks = _phase_banks(p, f)
        if not banks:
            continue
        text = f.label("banks_list_sep").join(banks)
        if len(req.phases) > 1:
            text = _phase_prefix(p, len(req.phases), f) + text
        parts.append(text)
    return f.label("banks_list_sep").join(parts) or f.label("banks_colliding_none")


def fix_text(report: BankReport, f: Fmt) -> str:
    """What to change: nothing, the padding, or another access pattern."""
    if report.padding == 0:
        return f.label("banks_fix_none_needed")
    p = report.padded
    if p is None:
        return f.label("banks_fix_impossible")
    plural = (f.label(f"banks_plural_{p.dtype}") if p.dtype in ("float", "half", "double")
              else f.label("banks_plural_other", ctype=p.dtype))
    return f.label("banks_fix_pad", cols=p.row_elements, plural=plural, ctype=p.dtype,
                   decl=declaration(p), pad=p.pad, extra=p.rows * p.pad * p.element_bytes, w=p.wavefronts)


def _model_text(report: BankReport, f: Fmt) -> str:
    facts, d = report.facts, report.declared
    if facts.compute_capability is None:
        where = f.label("banks_any_arch")
    else:
        cc = facts.compute_capability
        where = f.label("occ_where", arch=facts.architecture, cc=f"{cc[0]}.{cc[1]}")
    phases = f.label("banks_half_warps" if d.lanes_per_phase < 32 else "banks_one_phase")
    return f.label("banks_model_value", banks=facts.banks, width=facts.bank_width_bytes, where=where, phases=phases)


def rows(report: BankReport, f: Fmt) -> list[tuple[str, str]]:
    """Label/value rows of the report, in reading order."""
    d = report.declared
    words = d.row_stride_bytes / report.facts.bank_width_bytes
    source = f.label("banks_source_banks")
    if d.lanes_per_phase < 32:
        source += f.label("banks_list_sep") + f.label("banks_source_phases")
    return [
        (f.label("banks_model"), _model_text(report, f)),
        (f.label("banks_stride"), f.label("banks_stride_value", bytes=d.row_stride_bytes, words=f"{words:g}")),
        (f.label("banks_threads"), f.label("banks_threads_all" if d.active_lanes == 32 else "banks_threads_value",
                                           active=d.active_lanes, count=len(d.requests),
                                           unit=f.label(f"banks_unit_{d.access}"),
                                           unit_one=f.label(f"banks_unit_one_{d.access}"))),
        (f.label("banks_conflict"), _conflict_text(d, f)),
        (f.label("banks_wavefronts"), _wavefront_text(d, f)),
        (f.label("banks_colliding", which=_which(d, d.worst.index, f)), _colliding_text(d.worst, f)),
        (f.label("banks_fix"), fix_text(report, f)),
        (f.label("banks_source"), source),
    ]


def title(report: BankReport, f: Fmt) -> str:
    d = report.declared
    return f.label("banks_title", decl=declaration(d), access=f.label(f"banks_access_{d.access}"))


def grids(layout: Layout, f: Fmt) -> list[tuple[str, list[str], list[list[tuple[str, bool]]]]]:
    """Per phase of the worst request: (title, header, rows of (cell, collides)) of the per-bank word counts,
    ``_GRID_WIDTH`` banks per row."""
    req = layout.worst
    out = []
    for p in req.phases:
        lanes = f.label("banks_grid_lanes", first=p.lanes[0], last=p.lanes[1])
        head = [""] + [f"+{i}" for i in range(_GRID_WIDTH)]
        body = []
        for first in range(0, len(p.words_per_bank), _GRID_WIDTH):
            counts = p.words_per_bank[first:first + _GRID_WIDTH]
            body.append([(f.label("banks_grid_banks", first=first, last=first + len(counts) - 1), False)]
                        + [(str(n), n > 1) for n in counts])
        out.append((f.label("banks_grid_title", which=_which(layout, req.index, f), lanes=lanes), head, body))
    return out


# ----------------------------------------------------------------------------------------------- table
def renderables(report: BankReport, lang: str) -> list[RenderableType]:
    """rich renderables: the title, the label/value rows, one per-bank grid per phase of the worst request."""
    f = Fmt(lang)
    out: list[RenderableType] = [Text(title(report, f), style="bold")]
    t = Table(box=box.SIMPLE, show_header=False)
    t.add_column(style="bold", no_wrap=True)
    t.add_column(overflow="fold")
    for label, value in rows(report, f):
        t.add_row(Text(label), Text(value))
    out.append(t)
    for heading, head, body in grids(report.declared, f):
        g = Table(title=heading, box=box.SIMPLE_HEAD, title_justify="left")
        for i, h in enumerate(head):
            g.add_column(h, justify="left" if i == 0 else "right", no_wrap=True)
        for r in body:
            g.add_row(*(Text(cell, style="bold red" if hot else "") for cell, hot in r))
        out.append(g)
    return out


def _table_text(report: BankReport, lang: str, width: int | None) -> str:
    return to_plain([Group(*renderables(report, lang))], width)


# ----------------------------------------------------------------------------------------------- markdown
def _cell(text: str) -> str:
    return md_cell(text)


def to_markdown(report: BankReport, lang: str) -> str:
    """Markdown: the title, a list of the label/value rows, a GitHub table per phase (colliding banks in bold)."""
    f = Fmt(lang)
    lines = [f"## {md_prose(title(report, f))}", ""]  # the declaration, tile[t][c]: code spans (never bold)
    lines += md_labelled([(_cell(label), md_prose(value)) for label, value in rows(report, f)], f.colon, f.semi)
    lines.append("")
    for heading, head, body in grids(report.declared, f):
        lines += [f"### {_cell(heading)}", "", "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        lines += ["| " + " | ".join(f"**{c}**" if hot else c for c, hot in r) + " |" for r in body]
        lines.append("")
    return md_spaced("\n".join(lines))


# ----------------------------------------------------------------------------------------------- JSON
def _phase_doc(p: Phase) -> PhaseDoc:
    return PhaseDoc(first_thread=p.lanes[0], last_thread=p.lanes[1], n_way=p.n_way, distinct_words=p.distinct_words,
                    words_per_bank=list(p.words_per_bank),
                    colliding_banks=[CollidingBankDoc(bank=b, words=p.words_per_bank[b],
                                                      threads=list(p.lanes_per_bank[b])) for b in p.colliding_banks])


def _layout_doc(layout: Layout) -> LayoutDoc:
    w = layout.worst
    return LayoutDoc(
        declaration=declaration(layout), rows=layout.rows, cols=layout.cols, pad=layout.pad,
        row_elements=layout.row_elements, row_stride_bytes=layout.row_stride_bytes, active_threads=layout.active_lanes,
        threads_per_phase=layout.lanes_per_phase, requests=len(layout.requests), n_way=layout.n_way,
        wavefronts=layout.wavefronts, ideal_wavefronts=layout.ideal_wavefronts, conflict_free=layout.conflict_free,
        conflicting=list(layout.conflicting),
        n_way_counts=[NWayCountDoc(n_way=n, requests=k) for n, k in layout.n_way_counts],
        worst=RequestDoc(index=w.index, n_way=w.n_way, wavefronts=w.wavefronts, ideal_wavefronts=w.ideal_wavefronts,
                         phases=[_phase_doc(p) for p in w.phases]),
    )


def banks_doc(report: BankReport, lang: str = "en") -> BanksDoc:
    """The ``kernelscope.banks/1`` document of ``report``."""
    f = Fmt(lang)
    d, facts = report.declared, report.facts
    return BanksDoc(
        schema=SCHEMA, kernelscope_version=__version__, lang=f.lang,  # type: ignore[arg-type]
        dtype=d.dtype, element_bytes=d.element_bytes, access=d.access,  # type: ignore[arg-type]
        facts=BankFactsDoc(banks=facts.banks, bank_width_bytes=facts.bank_width_bytes, warp_size=facts.warp_size,
                           compute_capability=facts.compute_capability, architecture=facts.architecture,
                           source=facts.source, phase_source=facts.phase_source),
        declared=_layout_doc(d), padding_elements=report.padding,
        padded=None if report.padded is None else _layout_doc(report.padded),
        summary=_conflict_text(d, f) + f.semi + f.head(f.label("banks_wavefronts"), _wavefront_text(d, f)),
        fix=fix_text(report, f),
    )


def render_banks(report: BankReport, fmt: str = "table", lang: str = "en", width: int | None = None) -> str:
    """The report as ``"table"`` (plain text), ``"json"`` or ``"markdown"``.

    Raises:
        ValueError: unknown format or language.
    """
    Fmt(lang)  # checks the language
    if fmt == "json":
        return encode(banks_doc(report, lang))
    if fmt == "markdown":
        return to_markdown(report, lang)
    if fmt == "table":
        return _table_text(report, lang, width)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")

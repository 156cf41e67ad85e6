"""Rendering of ``kernelscope timeline --as-ranks`` (:class:`~kernelscope.analysis.timeline.ranks.RanksReport`):
the ``ranks`` section of the ``kernelscope.timeline/1`` document, a rich table view and Markdown. No analysis here."""

from __future__ import annotations

import math
import os

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.timeline.ranks import RanksReport
from ..version import __version__
from .rich_text import md_spaced, to_plain
from .cjk_console import PATH, NarrowHeader, hanging, name_text, path_text
from .fit import compact, with_previous
from .numbers import percent_columns
from .common import Fmt, md_cell, safe, short_names
from .inline import md_labelled, md_prose
from .timeline import _F
from .documents import encode
from .documents.timeline import KernelImbalanceDoc, RankLineDoc, RanksDoc, TimelineDoc

SCHEMA = "kernelscope.timeline/1"
#: The column of the per-rank table that says each rank's own work against the median (per step where the traces
#: hold different step counts): it reads only beside the own work column before it (:func:`~.fit.with_previous`).
PER_RANK_VS = 9


def ranks_doc(rr: RanksReport) -> RanksDoc:
    """The ``ranks`` section of the timeline document."""
    return RanksDoc(
        rank_source=rr.rank_source, wall_s=rr.wall_s, median_wall_s=rr.median_wall_s,  # type: ignore[arg-type]
        busy_s=rr.busy_s, kernel_s=rr.kernel_s, slowest_rank=rr.slowest_rank, stragglers=list(rr.stragglers),
        straggler_pct=rr.straggler_pct, compared_by=rr.compared_by,  # type: ignore[arg-type]
        factors=[None if math.isinf(x) else x for x in rr.factors], balanced_wall_s=rr.balanced_wall_s,
        hidden_wall_s=rr.hidden_wall_s, exposed_s=rr.exposed_s, wait_s=rr.wait_s,
        ranks=[RankLineDoc(rank=r.rank, path=r.path, wall_s=r.wall_s, busy_s=r.busy_s, kernel_s=r.kernel_s,
                           share_pct=r.share_pct, vs_median_pct=r.vs_median_pct, straggler=r.straggler,
                           computation_s=r.computation_s, communication_s=r.communication_s, overlap_s=r.overlap_s,
                           exposed_s=r.exposed_s, wait_s=r.wait_s, own_s=r.own_s, steps=r.steps,
                           median_step_s=r.median_step_s, compared_s=r.compared_s, member=r.member)
               for r in rr.ranks],
        kernels=[KernelImbalanceDoc(name=k.name, total_s=k.total_s, count=k.count, ranks_with=k.ranks_with,
                                    min_s=k.min_s, median_s=k.median_s, max_s=k.max_s,
                                    max_over_median=k.max_over_median, max_rank=k.max_rank,
                                    projected_s=list(k.projected_s),
                                    speedups=[None if math.isinf(x) else x for x in k.speedups])
                 for k in rr.kernels])


def _x(value: float, f: Fmt) -> str:
    return f.factor(value)  # one precision for every speedup (common.factor)


def _signed_pct(value: float | None, f: Fmt) -> str:
    return f.pct(value) if value is None or value < 0 else "+" + f.pct(value)


def _tables(rr: RanksReport, f: Fmt) -> tuple[list[tuple[str, str]], list[tuple[str, list[str], list[list[str]], int]]]:
    """The overview (label, value) rows and the (title, header, rows, words) tables: their first ``words`` columns
    hold words (left-aligned), the others numbers (right-aligned). A kernel is named as the other timeline tables
    name it (:func:`~.common.short_names`); a rank's file is its trace inside an archive or directory, whose path
    the overview says once."""
    paths = {r.path for r in rr.ranks}
    archive = len(paths) == 1 and all(r.member for r in rr.ranks)  # the members of one archive: the archive, then
    folder = _common_folder([r.path for r in rr.ranks]) if not archive else None  # each member; files: their folder
    inputs = [(f.label("tl_input"), paths.pop() if archive else folder)] if archive or folder else []
    short = dict(zip((k.name for k in rr.kernels), map(safe, short_names([k.name for k in rr.kernels]))))
    against = "tl_ar_against_step" if rr.compared_by == "own_per_step" else "tl_ar_against"
    median = f.time(rr.median_compared_s)  # the median the stragglers are measured against, as the table prints it
    overview = inputs + [
        (f.label("tl_ar_ranks"), str(len(rr.ranks))),
        (f.label("tl_ar_rank_source"), f.label("tl_ar_" + rr.rank_source)),
        (f.label("tl_ar_wall"), f.time(rr.wall_s)),
        (f.label("tl_ar_median_wall"), f.time(rr.median_wall_s)),
        (f.label("tl_ar_compared"), f.label("tl_ar_by_step" if rr.compared_by == "own_per_step" else "tl_ar_by_own")),
        (f.label("tl_ar_slowest_step" if rr.compared_by == "own_per_step" else "tl_ar_slowest"), str(rr.slowest_rank)),
        (f.label("tl_ar_stragglers", pct=f.pct(rr.straggler_pct, 0)),
         (f.listing(str(r) for r in rr.stragglers) or f.label("tl_ar_none")) + f.paren(f.label(against, median=median))),
    ]
    steps = any(r.steps for r in rr.ranks)
    per_rank = (f.label("tl_ar_per_rank"),
                [f.label("tl_rank"), f.label("tl_ar_file"), f.label("tl_ar_rank_wall"),
                 f.label("tl_computation"), f.label("tl_communication"), f.label("tl_overlap_short"),
                 f.label("tl_exposed_short"), f.label("tl_wait_short"), f.label("tl_ar_own"),
                 # what the percentage compares, beside the own work it is of (PER_RANK_VS), the steps after it
                 f.label("tl_ar_vs_median_step" if rr.compared_by == "own_per_step" else "tl_ar_vs_median")]
                + ([f.label("tl_ar_steps"), f.label("tl_ar_median_step")] if steps else []),
                [[str(r.rank), os.path.basename(r.member) if archive else os.path.relpath(r.path, folder) if folder else r.path, f.time(r.wall_s), f.time(r.computation_s),
                  f.time(r.communication_s), f.time(r.overlap_s), f.time(r.exposed_s), f.time(r.wait_s),
                  f.time(r.own_s), _signed_pct(r.vs_median_pct, f) + (f.paren(f.label("tl_ar_straggler")) if r.straggler else "")]
                 + ([str(r.steps), f.time(r.median_step_s)] if steps else [])
                 for r in rr.ranks], 2)
    proj_rows = []
    if rr.balanced_wall_s is not None and any(r.straggler for r in rr.ranks):  # no straggler: nothing to fix
        sp = rr.wall_s / rr.balanced_wall_s if rr.balanced_wall_s > 0 else math.inf
        proj_rows.append([f.label("tl_ar_p_balanced"), f.time(rr.balanced_wall_s), _x(sp, f)])
    if rr.hidden_wall_s is not None and rr.exposed_s > 0:
        proj_rows.append([f.label("tl_ar_p_hidden"), f.time(rr.hidden_wall_s),
                          _x(rr.wall_s / rr.hidden_wall_s if rr.hidden_wall_s > 0 else math.inf, f)])
    for k in rr.kernels[:3]:
        for factor, after, sp in zip(rr.factors, k.projected_s, k.speedups):
            what = (f.label("tl_ar_p_gone", name=short[k.name]) if math.isinf(factor)
                    else f.label("tl_ar_p_kernel", name=short[k.name], factor=f.factor(factor, 0 if factor == int(factor) else 2)))  # a hypothesis: 2x
            proj_rows.append([what, f.time(after), _x(sp, f)])
    projections = (f.label("tl_ar_projections"), [f.label("tl_ar_what"), f.label("tl_ar_after"),
                                                   f.label("tl_ar_speedup")], proj_rows, 1)
    imbalance = (f.label("tl_ar_imbalance"),
                 [f.label("kernel"), f.label("total_time"), f.label("tl_ar_min"), f.label("tl_ar_median"),
                  f.label("tl_ar_max"), f.label("tl_ar_ratio"), f.label("tl_ar_max_rank"), f.label("tl_ar_ranks_with")],
                 [[short[k.name], *f.times(k.total_s, k.min_s, k.median_s, k.max_s),
                   "∞" if k.max_over_median is None else f.factor(k.max_over_median), str(k.max_rank),
                   f"{k.ranks_with}/{len(rr.ranks)}"] for k in rr.kernels], 1)
    return overview, [(title, head, percent_columns(rows), words)  # a column's % in one precision
                      for title, head, rows, words in (per_rank, projections, imbalance)]


def _common_folder(paths: list[str]) -> str | None:
    """The folder that holds every one of ``paths`` (two or more files), printed once above the per-rank table so
    that each row names its file relative to it (``rank0.json``, not the whole path); None where they share none."""
    if len(set(paths)) < 2:
        return None
    try:
        common = os.path.commonpath([os.path.abspath(p) for p in paths])
    except ValueError:  # (paths on different drives)
        return None
    return common if common not in ("", os.sep) else None


def ranks_renderables(rr: RanksReport, lang: str) -> list[RenderableType]:
    """rich renderables of the reduce."""
    f = _F(lang)
    overview, tables = _tables(rr, f)
    out: list[RenderableType] = [Text(f.label("tl_ar_title"), style="bold")]
    t = Table(box=box.SIMPLE, show_header=False)
    t.add_column(style="bold", no_wrap=True)
    t.add_column(overflow="fold")
    for label, value in overview:
        t.add_row(Text(label), path_text(value) if label == f.label("tl_input") else Text(value))
    out.append(t)
    for n, (title, head, rows, words) in enumerate(tables):
        tab = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
        keep = n == len(tables) - 1  # the imbalance table keeps every column: headers wrap (onto two lines where
        for i, h in enumerate(head):  # there is room: fit._two_line_headers), numbers whole
            tab.add_column(NarrowHeader(h, no_wrap=False) if keep and i >= words else h,
                           justify="left" if i < words else "right", overflow="fold", no_wrap=keep and i >= words)
        if keep:
            compact(tab)
        if n == 0:
            with_previous(tab, PER_RANK_VS)
        for r in rows:  # a name wraps at its parts; a change worded in the first column hangs when it wraps
            tab.add_row(*((hanging(name_text(c)) if i == 0 and not keep and " " in c else name_text(c))
                          if i < words or PATH.fullmatch(c) else Text(c) for i, c in enumerate(r)))
        out.append(tab)
    return out


def _md(cell: str) -> str:
    return md_cell(cell)


def render_ranks(rr: RanksReport, fmt: str = "table", lang: str = "en", width: int | None = None) -> str:
    """``--as-ranks`` output as ``"table"``, ``"json"`` (the timeline document: ``reports`` empty, ``ranks``
    present) or ``"markdown"``.

    Raises:
        ValueError: unknown format or language.
    """
    f = _F(lang)
    if fmt == "json":
        return encode(TimelineDoc(schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
                                  reports=[], ranks=ranks_doc(rr)))
    if fmt == "table":
        return to_plain([Group(*ranks_renderables(rr, lang))], width)
    if fmt == "markdown":
        overview, tables = _tables(rr, f)
        lines = [f"# {f.label('tl_ar_title')}", ""] + md_labelled([(_md(k), md_prose(v)) for k, v in overview], f.colon, f.semi)
        for title, head, rows, words in tables:
            lines += ["", f"## {title}", "", "| " + " | ".join(map(_md, head)) + " |",
                      "|" + "|".join("---" if i < words else "---:" for i in range(len(head))) + "|"]
            lines += ["| " + " | ".join(map(_md, r)) + " |" for r in rows]
        return md_spaced("\n".join(lines))
    raise ValueError(f"format must be one of table, json, markdown, got {fmt!r}")

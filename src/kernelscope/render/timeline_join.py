"""Text of the timeline's top kernels joined with their Nsight Compute diagnoses (``kernelscope timeline TRACE
--kernels REPORT...``, :mod:`kernelscope.analysis.timeline.join`): one row per top kernel (its shares, bottleneck,
top finding and the program speedup fixing it would give) and the report kernels absent from the timeline. No
analysis here; :mod:`kernelscope.render.timeline` places these in its views and writes the JSON.
"""

from __future__ import annotations

import os
from typing import Sequence

from ..analysis.engine import Finding
from ..analysis.timeline import ItemStat, JoinedKernel, KernelJoin, NcuKernel
from .common import Fmt, safe, short_name
from .timeline_scopes import Captioned, amdahl_caption

Section = tuple[str, list[str], list[list[str]]]


def finding_title(f: Fmt, finding: Finding | None) -> str:
    """The top finding's title (``data/findings.toml``), or its rule id when it has none; "-" for no finding."""
    return "-" if finding is None else f.finding_title(finding.id, finding)


def _speedup(value: float | None, f: Fmt) -> str:
    return f.factor(value)  # one precision for every speedup (common.factor)


def _kernel_speedup(n: NcuKernel, f: Fmt) -> str:
    if n.estimated_speedup is None or n.estimated_speedup_pct is None:
        return f.label("not_estimated") if n.top_finding is not None else "-"
    bound = n.top_finding is not None and n.top_finding.estimate_kind == "upper_bound"
    return f.label("tl_join_kernel_speedup_bound_cell" if bound else "tl_join_kernel_speedup_cell",
                   x=n.estimated_speedup, p=n.estimated_speedup_pct)


def _launch(n: NcuKernel, f: Fmt, several_reports: bool) -> str:
    """"[6]", "[10], median of 2", with "other grid/block" and the report's file name when several were given."""
    parts = [f"[{n.index}]"]
    if several_reports:
        parts.insert(0, safe(os.path.basename(n.report)))
    text = " ".join(parts)
    if n.launches > 1:
        text += (f.label("tl_join_sep") + f.label("tl_join_median_of", n=n.launches))
    if n.shape == "different":
        text += f.label("tl_join_sep") + f.label("tl_join_other_shape")
    return text


def _row(k: JoinedKernel, f: Fmt, several_reports: bool) -> list[str]:
    head = [short_name(k.name), f.pct(k.share_pct), f.share(k.program_fraction)]
    n = k.ncu
    if n is None:
        return head + [f.label("tl_join_no_data"), "-", "-", "-", "-"]
    return head + [f.bounds(n.verdict), safe(finding_title(f, n.top_finding)), _kernel_speedup(n, f),
                   _speedup(k.program_speedup, f), _launch(n, f, several_reports)]


def join_section(join: KernelJoin, items: Sequence[ItemStat], f: Fmt) -> Section:
    """(title, header, rows): one row per top kernel, in ranking order; ``items`` the timeline's kernel ranking
    (for the caption saying what the program columns are of). Where no top kernel has Nsight Compute data, the
    title says so and the rows hold only the kernels and their shares (no column of "-")."""
    caption = amdahl_caption(items, f, cols="tl_cols_join")
    if not join.matched:  # "none of the 3", never "0 of 3" over a table of "-": the kernels and their shares only
        share_caption = amdahl_caption(items, f, cols="tl_cols_share")
        title = Captioned.build(f.label("tl_join_title_none", top=len(join.kernels)),
                                [(share_caption, [f.label("tl_program_share")])], f.semi)
        head = [f.label("tl_name"), f.label("share"), f.label("tl_program_share")]
        return title, head, [_row(k, f, False)[:3] for k in join.kernels]
    alone = f.label("tl_join_title_all" if join.matched == len(join.kernels) else "tl_join_title", n=join.matched,
                    top=len(join.kernels))  # "all 3 with Nsight Compute data", never "3 of 3"
    title = Captioned.build(alone, [(caption, [f.label("tl_program_share"), f.label("tl_join_program_speedup")])],
                            f.semi)
    head = [f.label("tl_name"), f.label("share"), f.label("tl_program_share"), f.label("bound"),
            f.label("tl_join_top_finding"), f.label("tl_join_kernel_speedup"), f.label("tl_join_program_speedup"),
            f.label("tl_join_launch")]
    several = len(join.reports) > 1
    return title, head, [_row(k, f, several) for k in join.kernels]


def absent_section(join: KernelJoin, f: Fmt) -> Section | None:
    """(title, header, rows) of the report kernels no timeline kernel matched; None when there are none."""
    if not join.absent:
        return None
    head = [f.label("tl_name"), f.label("launches"), f.label("total_time"), f.label("tl_join_report")]
    rows = [[short_name(a.demangled_name), str(a.launches), f.time(a.total_s), safe(os.path.basename(a.report))]
            for a in join.absent]
    return f.label("tl_join_absent"), head, rows

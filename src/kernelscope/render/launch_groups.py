"""Repeated launches in the renderers: one panel per group of launches (same kernel, grid and block; see
:mod:`kernelscope.analysis.groups`) instead of one per launch, the representative's full panel with the spread
across the group and the launches that differ; the groups with the most GPU time in full, the others as rows of
one table. The table, Markdown and HTML renderers share these rows and texts; ``--launches all`` keeps the
per-launch view. No analysis here.
"""

from __future__ import annotations

import math

from dataclasses import replace
from typing import Sequence

from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.groups import OUTLIER_FACTOR, LaunchGroup, Outlier, Spread, by_time, launch_groups
from .common import LAUNCH_VIEWS, Fmt, alike, data_size, integer_pipe, ops_unit, safe
from .numbers import percent_columns

#: Groups shown as full panels (the most GPU time first); the others are rows of one table.
FULL_GROUPS = 25
#: Launches that differ named in a panel; the others counted.
OUTLIERS_SHOWN = 8


def check_view(launches: str) -> str:
    """``launches`` when it is one of :data:`LAUNCH_VIEWS`.

    Raises:
        ValueError: another value.
    """
    if launches not in LAUNCH_VIEWS:
        raise ValueError(f"launches must be one of {', '.join(LAUNCH_VIEWS)}, got {launches!r}")
    return launches


def split_groups(res: ReportDiagnosis, full: int = FULL_GROUPS) -> tuple[tuple[LaunchGroup, ...], tuple[LaunchGroup, ...]]:
    """(the ``full`` groups with the most GPU time, shown as panels; the others, shown as table rows)."""
    groups = launch_groups(res)
    return groups[:full], groups[full:]


def _pipe(g: LaunchGroup) -> str | None:
    """The pipe of the group's representative launch (its roofline's), which says the kind of its work: FLOP, or OP
    for an integer pipe (INT8 tensor cores)."""
    r = g.representative.roofline
    return r.pipe if r is not None else None


def _fmt_value(key: str, value: float | None, f: Fmt, pipe: str | None = None) -> str:
    """A spread quantity's value in its unit (the unit is in its id,
    :data:`~kernelscope.analysis.groups.SPREAD_METRICS`; a rate of work in OP/s, an intensity in OP/B on an integer
    ``pipe``)."""
    if key.endswith("_flops_per_s"):
        return f.flops(value, pipe if pipe and integer_pipe(pipe) else None)
    if key.endswith("_s"):
        return f.time(value)
    if key.endswith("_pct"):
        return f.pct(value)
    if value is None:
        return f.nm
    if key.endswith("_bytes"):
        return data_size(value)
    if key.endswith("_flop_per_byte"):
        return f.intensity(value, pipe if pipe and integer_pipe(pipe) else ())
    return f"{value:.4g}"


def metric_name(key: str, f: Fmt, pipe: str | None = None) -> str:
    """A spread quantity's name (:data:`kernelscope.analysis.groups.SPREAD_METRICS`) in ``f``'s language: a rate of
    integer work (``pipe``, INT8 tensor cores) is "achieved OP/s"."""
    if key.endswith("_flops_per_s") and pipe and integer_pipe(pipe):
        return f.label(f"grp_m_{key}").replace("FLOP/s", "OP/s")
    return f.label(f"grp_m_{key}")


def spread_cells(g: LaunchGroup, f: Fmt) -> list[tuple[str, str, str, str]]:
    """(quantity, min, median, max) per quantity of the group's spread, in panel order; a quantity no launch
    measured has "not measured" in its three cells."""
    out = []
    pipe = _pipe(g)
    for key, s in g.spread.items():
        cells = [f.nm] * 3 if s is None else spread_values(key, s, f, pipe).split(" / ")
        if len(cells) == 3 and " " in cells[2] and " " not in cells[0]:  # one precision, the unit in every cell
            unit = cells[2].split(" ", 1)[1]
            cells = [f"{c} {unit}" for c in cells[:2]] + [cells[2]]
        out.append((metric_name(key, f, pipe), *cells))
    return out


def _spread_text(key: str, s: Spread, f: Fmt, pipe: str | None = None) -> str:
    if s.min == s.max:
        return f.spaced(metric_name(key, f, pipe), _fmt_value(key, s.median, f, pipe))
    return f.spaced(metric_name(key, f, pipe), spread_values(key, s, f, pipe))


def spread_values(key: str, s: Spread, f: Fmt, pipe: str | None = None) -> str:
    """min / median / max of one quantity, the unit once where they share it (``152.0 / 152.6 / 153.2 µs``);
    durations each in its own unit by magnitude (``980.0 µs / 1.020 ms / 1.100 ms``, never ``0.980 ms``); bytes in binary units (``1.50 / 2.00 / 2.50 MiB``, never ``MB``), a
    percentage in one precision (``50.0% / 52.5%``), work in OP on an integer ``pipe`` (``TOP/s``, ``OP/B``)."""
    values = (s.min, s.median, s.max)
    if any(v is None or not math.isfinite(v) for v in values):
        return " / ".join(_fmt_value(key, v, f, pipe) for v in values)
    if key.endswith("_pct"):
        return " / ".join(f.pcts(*values))
    work = ops_unit(pipe) if pipe and integer_pipe(pipe) else "FLOP/s"
    if key.endswith("_bytes"):
        return alike(values, "B", 3, binary=True)
    if key.endswith("_s") and not key.endswith("_per_s"):  # each duration in its own unit (units by magnitude), the unit once where they share it
        texts = f.times(*values)
        units = {t.rpartition(" ")[2] for t in texts}
        return " / ".join(t.rpartition(" ")[0] for t in texts) + f" {units.pop()}" if len(units) == 1 and all(
            " " in t for t in texts) else " / ".join(texts)
    unit = work if key.endswith("_flops_per_s") else None
    if unit is not None:
        return alike(values, unit, 3)
    if key.endswith("_flop_per_byte"):
        return alike(values, "", 3) + " " + work.replace("/s", "/B")
    return " / ".join(_fmt_value(key, v, f, pipe) for v in values)


def spread_line(g: LaunchGroup, f: Fmt) -> str:
    """"duration 11.82 ms / 11.84 ms / 11.91 ms; SOL compute 53.1% / ...; not measured: DRAM bytes, ..." (min /
    median / max of each quantity, one value when every launch agrees; the quantities no launch measured last)."""
    pipe = _pipe(g)
    parts = [_spread_text(key, s, f, pipe) for key, s in g.spread.items() if s is not None]
    missing = [metric_name(key, f, pipe) for key, s in g.spread.items() if s is None]
    if missing:
        parts.append(f.label("grp_not_measured", items=f.listing(missing)))
    return f.semi.join(parts)


def verdict_text(classes: Sequence[str], f: Fmt) -> str:
    return f.bounds(classes)


def outlier_text(o: Outlier, g: LaunchGroup, f: Fmt) -> str:
    """"[17] 3.00x the median duration; latency-bound instead of memory-bound"."""
    why = []
    if o.duration_ratio is not None:
        why.append(f.label("grp_ratio", x=o.duration_ratio))
    if o.verdict is not None:
        why.append(f.label("grp_other_verdict", verdict=verdict_text(o.verdict, f),
                           rep=verdict_text(g.representative.verdict, f)))
    if o.own_advice is not None:
        launch = next((x for x in g.launches if x.kernel.index == o.index), None)
        found = next((x for x in launch.findings if x.advice == o.own_advice), None) if launch else None
        why.append(f.label("grp_own_advice", title=f.finding_title(o.own_advice.partition(":")[2], found)))
    return f"[{o.index}] " + f.label("grp_join").join(why)


def outliers_line(g: LaunchGroup, f: Fmt, shown: int = OUTLIERS_SHOWN) -> str:
    """The launches that differ (at most ``shown`` named, the others counted), or that none does; then, where their
    clocks differ (:attr:`~kernelscope.analysis.groups.LaunchGroup.clocks`), that their durations differ by it too."""
    line = _outliers_text(g, f, shown)
    if not g.clocks:
        return line
    clocks = f.comma.join(f.label("grp_clock_range", clock=f.label(f"grp_clock_{c.clock}"), lo=f"{c.min_hz / 1e9:#.3g}",
                                  hi=f"{c.max_hz / 1e9:#.3g}") for c in g.clocks)
    return line + f.semi + f.label("grp_clocks", clocks=clocks)


def _outliers_text(g: LaunchGroup, f: Fmt, shown: int) -> str:
    if not g.outliers:
        d = g.spread.get("duration_s")
        if d is None or not d.median:
            return f.label("grp_differ_none", lo=f"{1 / OUTLIER_FACTOR:.2f}", hi=f"{OUTLIER_FACTOR:.2f}")
        # the spread as measured, not the band: a launch 12 % slower than another is within the band, and visible
        lo, hi = f"{d.min / d.median:.2f}", f"{d.max / d.median:.2f}"  # (one figure where both print alike)
        return f.label("grp_differ_none_even" if lo == hi else "grp_differ_none_spread", lo=lo, hi=hi,
                       tmin=f.time(d.min), tmax=f.time(d.max))
    items = [outlier_text(o, g, f) for o in g.outliers[:shown]]
    if len(g.outliers) > shown:
        items.append(f.label("grp_more", n=len(g.outliers) - shown))
    return f.semi.join(items)


def shows_outliers(g: LaunchGroup) -> bool:
    """Whether a group's panel has the launches-that-differ line: "none differs: every launch within 0.67x-1.50x
    of the median" is a claim about durations, so a group with no outlier and no measured duration has none."""
    return bool(g.outliers) or bool(g.spread["duration_s"])


def is_group(g: LaunchGroup) -> bool:
    """Whether ``g`` is shown as a group (more than one launch); a group of one launch is that launch's panel."""
    return len(g.launches) > 1


def group_title(g: LaunchGroup) -> str:
    """``[index] name`` of the representative, with ``×N`` for a group of several launches."""
    d = g.representative
    title = safe(f"[{d.kernel.index}] {d.kernel.name}")
    return f"{title} ×{g.count}" if is_group(g) else title


def launches_value(g: LaunchGroup, f: Fmt) -> str:
    """"100 launches, 1.184 s in all (100.0% of GPU time); shown: [49], the launch of median duration"; where no
    launch's duration was measured, "3 launches (durations not measured); shown: [0]" (no total, share or median)."""
    if not g.spread["duration_s"]:
        return f.label("grp_launches_unmeasured", n=g.count, rep=g.representative.kernel.index)
    return f.label("grp_launches_value", n=g.count, total=f.time(g.total_duration_s if g.spread["duration_s"] else None),
                   share=f.share(g.time_share), rep=g.representative.kernel.index)


def group_rows(g: LaunchGroup, f: Fmt) -> list[tuple[str, str]]:
    """The rows a group's panel shows before its representative's: launches and total, the spread, the launches
    that differ (left out where none differs and no duration was measured); none for a group of one launch."""
    if not is_group(g):
        return []
    rows = [(f.label("launches"), launches_value(g, f)), (f.label("grp_spread"), spread_line(g, f))]
    if shows_outliers(g):
        rows.append((f.label("grp_differ"), outliers_line(g, f)))
    return rows


def shape_text(g: LaunchGroup, f: Fmt) -> str:
    return f.grid_block(g.grid, g.block)


def rest_header(f: Fmt) -> list[str]:
    """Column titles of the table of the groups not shown in full (:func:`rest_rows`)."""
    return [f.label(k) for k in ("kernel", "launches", "launch_config", "total_time", "share", "grp_median", "bound")]


def rest_rows(groups: Sequence[LaunchGroup], f: Fmt) -> list[list[str]]:
    """One row per group: kernel, launches, grid x block, total time, share, median duration, bottleneck."""
    rows = []
    for g in groups:
        s = g.spread["duration_s"]
        rows.append([safe(g.representative.kernel.name), str(g.count), shape_text(g, f),
                     f.time(g.total_duration_s if s is not None else None), f.share(g.time_share),
                     f.time(s.median if s is not None else None), verdict_text(g.representative.verdict, f)])
    return percent_columns(rows)  # a column's % in one precision


def rest_title(groups: Sequence[LaunchGroup], f: Fmt) -> str:
    """"Other kernels: 12 groups, 3.1% of GPU time"; "(durations not measured)" where no group has a share, never
    "not measured of GPU time"."""
    shares = [g.time_share for g in groups if g.time_share is not None]
    if not shares:
        return f.label("grp_rest_unmeasured", n=len(groups))
    return f.label("grp_rest", n=len(groups), share=f.share(sum(shares)))


def shown_line(res: ReportDiagnosis, full: Sequence[LaunchGroup], rest: Sequence[LaunchGroup], f: Fmt) -> str:
    """"5000 launches diagnosed in 212 groups (same kernel, grid and block): the 25 with the most GPU time in
    full, ..."; summary rows count the launches they stand for, "300 launches (2 summary rows) in 2 groups"."""
    n = len(full) + len(rest)
    rows, launches = len(res.kernels), sum(d.kernel.launch_count for d in res.kernels)
    if launches != rows:  # summary rows (nvprof's Calls): the launches they stand for, and that they are rows
        text = f.label("grp_shown_summary" if n > 1 else "grp_shown_summary_one", launches=launches, rows=rows,
                       groups=n)
    else:
        text = f.label("grp_shown" if n > 1 else "grp_shown_one", launches=rows, groups=n)
    if rest:
        text = f.spaced(text, f.label("grp_shown_cut", n=len(full)))
    return text


def panels(res: ReportDiagnosis, launches: str,
           ) -> tuple[list[tuple[KernelDiagnosis, LaunchGroup | None]], tuple[LaunchGroup, ...]]:
    """What a renderer shows for ``res``: (per panel its launch and its group, None in the per-launch view; the
    groups left to the table of the others). A group's panel shows its representative with the GROUP's share of the
    GPU time, so that the GPU time its findings save is the group's (three identical launches that are all of the
    GPU time save 33 % with a 1.49x fix, not the 11 % of one launch)."""
    if check_view(launches) == "all":  # the groups' order: most GPU time first (one order for both views)
        return [(d, None) for d in by_time(res.kernels)], ()
    full, rest = split_groups(res)
    return [(as_group(g), g) for g in full], rest


def as_group(g: LaunchGroup) -> KernelDiagnosis:
    """The representative of ``g`` standing for the whole group: its diagnosis with the group's share of GPU time."""
    d = g.representative
    return replace(d, time_share=g.time_share) if is_group(g) and g.time_share is not None else d


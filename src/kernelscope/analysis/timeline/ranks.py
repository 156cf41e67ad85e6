"""The ranks of one program, each read from its own file: small per-rank summaries (the map) and their reduce.

``kernelscope timeline --as-ranks FILE...`` reads and analyses each rank's trace alone (memory bounded by one
file; serially, on a process pool or as Ray tasks), keeps of it a :class:`RankSummary` (a few numbers and the
per-kernel totals: small and picklable), and :func:`reduce_ranks` turns the summaries into the program's view:
totals (the program wall is the slowest rank's wall), the per-rank table, the slowest rank, the stragglers (ranks
whose wall exceeds the median rank wall by more than ``[ranks] straggler_pct`` of ``data/timeline_rules.toml``) and
the cross-rank imbalance of the top kernels. Pure: no I/O, frozen dataclasses.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from .report import TimelineReport


@dataclass(frozen=True)
class RankSummary:
    """What the reduce needs of one rank's trace.

    Attributes:
        order: the file's position in the input (0-based).
        path: the file (as given).
        recorded_rank: the rank the trace records (Kineto ``distributedInfo.rank``), None when it records none.
        wall_s: the rank's wall time (first to last record), seconds.
        busy_s: GPU busy time (union of kernels, copies, memsets per device, summed over its devices), seconds.
        kernel_s: time at least one kernel ran (per device, summed over its devices), seconds.
        kernels: (name, total seconds, count) of every kernel name, largest total first.
    """

    order: int
    path: str
    recorded_rank: int | None
    wall_s: float
    busy_s: float
    kernel_s: float
    kernels: tuple[tuple[str, float, int], ...]


@dataclass(frozen=True)
class RankLine:
    """One rank of the per-rank table. ``share_pct``: its kernel time over the summed kernel time of all ranks
    (0-100); ``vs_median_pct``: how far its wall is above (+) or below (-) the median rank wall, percent."""

    rank: int
    path: str
    wall_s: float
    busy_s: float
    kernel_s: float
    share_pct: float | None
    vs_median_pct: float | None
    straggler: bool


@dataclass(frozen=True)
class KernelImbalance:
    """One top kernel across ranks: its per-rank total time (0 on a rank that never ran it), seconds.
    ``max_over_median``: None when the median is 0; ``max_rank``: the rank with the largest total (the first in
    rank order on a tie)."""

    name: str
    total_s: float
    count: int
    ranks_with: int
    min_s: float
    median_s: float
    max_s: float
    max_over_median: float | None
    max_rank: int


@dataclass(frozen=True)
class RanksReport:
    """The program made of the ranks' files.

    Attributes:
        ranks: per rank, in rank order.
        rank_source: "recorded" (the traces' own ranks) or "file_order" (some trace records none, or two record
            the same: ranks are the files' positions, 0-based).
        wall_s: program wall = the slowest rank's wall; ``median_wall_s`` the median rank wall.
        busy_s, kernel_s: summed over ranks.
        slowest_rank: the rank with the longest wall (the first in rank order on a tie).
        stragglers: ranks whose wall exceeds the median by more than ``straggler_pct`` percent.
        straggler_pct: that threshold (``data/timeline_rules.toml`` ``[ranks] straggler_pct``).
        kernels: the top kernels by summed total time, largest first, with their imbalance across ranks.
    """

    ranks: tuple[RankLine, ...]
    rank_source: str
    wall_s: float
    median_wall_s: float
    busy_s: float
    kernel_s: float
    slowest_rank: int
    stragglers: tuple[int, ...]
    straggler_pct: float
    kernels: tuple[KernelImbalance, ...]


def summarize(report: "TimelineReport", path: str, order: int) -> RankSummary:
    """The :class:`RankSummary` of one rank's analysed trace (a timeline with intervals, not a summary).

    Raises:
        ValueError: the report has no wall time (an ``nsys stats`` summary).
    """
    if report.wall_s is None:
        raise ValueError("a per-rank summary needs a trace with intervals (an nsys stats summary has no wall time)")
    recorded = {r.rank for r in report.ranks}
    rank = next(iter(recorded)) if len(recorded) == 1 else None
    kernels = tuple(sorted(((k.name, float(k.total_s or 0.0), int(k.count or 0)) for k in report.kernels),
                           key=lambda t: (-t[1], t[0])))
    return RankSummary(order=order, path=path, recorded_rank=rank, wall_s=float(report.wall_s),
                       busy_s=float(sum(r.busy_s for r in report.ranks)),
                       kernel_s=float(sum(r.kernel_s for r in report.ranks)), kernels=kernels)


def reduce_ranks(summaries: Sequence[RankSummary], *, top: int = 10, straggler_pct: float | None = None) -> RanksReport:
    """The program view of its ranks' summaries (see the module's docstring).

    Raises:
        ValueError: no summaries, or ``top`` below 1.
    """
    if not summaries:
        raise ValueError("no rank to reduce")
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    if straggler_pct is None:
        from ...knowledge.timeline_checks import timeline_checks

        straggler_pct = timeline_checks().ranks.straggler_pct
    ordered = sorted(summaries, key=lambda s: s.order)
    recorded = [s.recorded_rank for s in ordered]
    use_recorded = None not in recorded and len(set(recorded)) == len(recorded)
    ids = [s.recorded_rank if use_recorded else s.order for s in ordered]  # type: ignore[misc]
    pairs = sorted(zip(ids, ordered), key=lambda p: p[0])
    median_wall = statistics.median(s.wall_s for _, s in pairs)
    kernel_total = sum(s.kernel_s for _, s in pairs)
    limit = median_wall * (1.0 + straggler_pct / 100.0)
    lines = tuple(RankLine(
        rank=r, path=s.path, wall_s=s.wall_s, busy_s=s.busy_s, kernel_s=s.kernel_s,
        share_pct=100.0 * s.kernel_s / kernel_total if kernel_total > 0 else None,
        vs_median_pct=100.0 * (s.wall_s / median_wall - 1.0) if median_wall > 0 else None,
        straggler=s.wall_s > limit) for r, s in pairs)
    slowest = max(lines, key=lambda ln: (ln.wall_s, -ln.rank))
    # Per kernel: its total on each rank (0 where the rank never ran it).
    per_kernel: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for i, (_, s) in enumerate(pairs):
        for name, total, count in s.kernels:
            per_kernel.setdefault(name, [0.0] * len(pairs))[i] += total
            counts[name] = counts.get(name, 0) + count
    chosen = sorted(per_kernel, key=lambda n: (-sum(per_kernel[n]), n))[:top]
    kernels = []
    for name in chosen:
        vals = per_kernel[name]
        med = statistics.median(vals)
        hi = max(vals)
        kernels.append(KernelImbalance(
            name=name, total_s=sum(vals), count=counts[name], ranks_with=sum(1 for v in vals if v > 0),
            min_s=min(vals), median_s=med, max_s=hi, max_over_median=hi / med if med > 0 else None,
            max_rank=lines[vals.index(hi)].rank))
    return RanksReport(
        ranks=lines, rank_source="recorded" if use_recorded else "file_order", wall_s=slowest.wall_s,
        median_wall_s=median_wall, busy_s=sum(ln.busy_s for ln in lines), kernel_s=kernel_total,
        slowest_rank=slowest.rank, stragglers=tuple(ln.rank for ln in lines if ln.straggler),
        straggler_pct=straggler_pct, kernels=tuple(kernels))

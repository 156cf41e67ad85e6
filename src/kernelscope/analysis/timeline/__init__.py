"""Where the program's time goes: analysis of a :class:`~kernelscope.timeline_model.Timeline` (intervals) or a
:class:`~kernelscope.timeline_model.TimelineSummary` (``nsys stats`` summaries).

Pure and vectorised (NumPy; no Python loop over events, only over devices / streams / names). Inputs are integer
ns; every result is in SECONDS (float), percentages 0-100 named ``*_pct``, fractions 0-1 named ``*_fraction``.

Definitions:

* Busy time of a device = the UNION of its kernel, memcpy and memset intervals (copies are busy time, case C14),
  so utilisation = busy / span never exceeds 100 % (case C12). The plain sum over streams is reported apart
  (``sum_over_streams_s``) with the overlap it double-counts (``overlap_s``).
* The span (window) of a device runs from its first GPU operation to its last (as Nsight's gpu_gaps rule);
  ``idle_s = span - busy``. The split is exclusive: ``kernel_s`` (at least one kernel running),
  ``memcpy_s`` (copies and no kernel), ``memset_s`` (memsets only), ``idle_s`` add up to the span.
* Synchronisation and API calls are host time: reported, never part of the device split.
* GPU-side annotations (Kineto ``gpu_user_annotation``, case C17) and host annotations are never busy time.
* Program wall time = from the first to the last recorded interval of any kind (per rank; the slowest rank for
  multi-rank traces). Amdahl projections use an item's total time as a fraction of it (``program_fraction``),
  assuming the item's time is on the critical path (overlapped work gains less).

Modules: :mod:`.report` (result objects), :mod:`.intervals` (union / gap algebra), :mod:`.breakdown` (per device
and stream split, ranks), :mod:`.rankings` (per-name rankings, Amdahl, launch shapes), :mod:`.correlation`
(API call -> kernel join, launch latency, tiny kernels), :mod:`.checks` (the expert checks, engine rules),
:mod:`.summary` (the ``nsys stats`` path). Thresholds of the checks are data: ``data/timeline_rules.toml``,
each with its source (:mod:`kernelscope.knowledge.timeline_checks`).
"""

from __future__ import annotations

import numpy as np

from ...knowledge.timeline_checks import timeline_checks
from ...notes import Note
from ...timeline_model import Timeline, TimelineSummary
from ..engine import Finding, run_rules
from .breakdown import Breakdown, Walls, breakdown, program_idle, rank_rows, walls
from .checks import TIMELINE_RULES, IntervalFacts, TimelineContext, is_sync_api, time_and_count
from .correlation import ApiJoin, launch_overhead, tiny_kernels
from .intervals import KindRows, distinct, union_length_ns, union_segments
from .rankings import Rankings, amdahl, amdahl_speedup, black_hole, rankings
from .report import (
    GAP_EDGES_S,
    NS,
    Amdahl,
    BlackHole,
    CopyDirection,
    GapHistogram,
    ItemStat,
    LaunchOverhead,
    LaunchShape,
    RankRow,
    TimelineReport,
    TimeSplit,
    TinyKernel,
)
from .summary import analyse_runs, analyse_summary, summary_runs

__all__ = [
    "GAP_EDGES_S", "TIMELINE_RULES", "Amdahl", "BlackHole", "CopyDirection", "Finding", "GapHistogram", "ItemStat",
    "LaunchOverhead", "LaunchShape", "RankRow", "TimeSplit", "TimelineContext", "TimelineReport", "TinyKernel",
    "amdahl", "amdahl_speedup", "analyse", "analyse_summary", "analyse_timeline", "is_sync_api", "summary_runs",
    "time_and_count", "union_length_ns", "union_segments",
]


def analyse(data: Timeline | TimelineSummary, top: int = 10) -> list[TimelineReport]:
    """Analyse whatever :func:`kernelscope.ingest.load_timeline` returned: one report per run (a summary file may
    hold several captures, analysed one by one)."""
    if isinstance(data, Timeline):
        return [analyse_timeline(data, top)]
    return analyse_runs(data, top)


def analyse_timeline(tl: Timeline, top: int = 10) -> TimelineReport:
    """Analyse one program run (see the module docstring for the definitions).

    Args:
        tl: the run.
        top: how many items of each ranking get a median (all items are ranked).
    """
    if len(tl) == 0:
        return _empty_report(tl, "the trace holds no usable intervals")
    checks = timeline_checks()
    w = walls(tl)
    split = breakdown(tl)  # first: its temporaries are gone before the per-kind row indexes exist (peak memory)
    rows = KindRows.of(tl)
    ranked = rankings(tl, rows, w.program_ns, top)
    join = ApiJoin.of(tl, rows.api)
    k_api = join.api_for(tl, rows.kernel)
    launch = launch_overhead(tl, rows.kernel, k_api, rows.dur)
    tiny = tiny_kernels(tl, rows.kernel, k_api, rows.dur, split.segments, ranked.kernels, checks.tiny_kernels)
    facts = IntervalFacts(tl, rows, join, split.devices, split.segments, w)
    context = TimelineContext(checks, w.program_ns * NS, ranked.api_calls, tiny, facts)
    findings = run_rules(TIMELINE_RULES, context)
    ranks, slowest, slowest_note = rank_rows(tl, w, split.devices, rows, checks.ranks.communication)
    return TimelineReport(
        path=tl.path, format=tl.format, source="intervals", wall_s=w.wall_ns * NS, program_time_s=w.program_ns * NS,
        devices=split.devices, streams=split.streams, host_api_s=_host_api_s(tl, rows.api),
        kernels=ranked.kernels, copies=ranked.copies, memsets=ranked.memsets, api_calls=ranked.api_calls,
        syncs=ranked.syncs, annotations=ranked.annotations, launch=launch, tiny_kernels=tiny,
        black_hole=_black_hole(tl, w, split, ranked, rows), ranks=ranks, slowest_rank=slowest, findings=findings,
        not_computable=_not_computable(rows, launch, split), notes=_notes(tl, w, slowest_note),
        invalid=tl.invalid, problems=tl.problems, tool_version=tl.tool_version, devices_named=tl.devices,
    )


def _host_api_s(tl: Timeline, api_rows: np.ndarray) -> float | None:
    """Host time in CUDA API calls: the union of the API intervals of each rank, summed over ranks (None when
    no API call was recorded)."""
    if api_rows.size == 0:
        return None
    ranks = tl.rank[api_rows]
    total = 0
    for rk in distinct(ranks).tolist():
        a = api_rows[ranks == rk]
        total += union_length_ns(tl.start_ns[a], tl.end_ns[a])
    return total * NS


def _black_hole(tl: Timeline, w: Walls, split: Breakdown, ranked: Rankings, rows: KindRows) -> BlackHole | None:
    """The largest single item, GPU idle time included (time in the longest rank's wall with no GPU work)."""
    longest = w.longest
    own = [segs for (rk, _dv), segs in split.segments.items() if rk == longest]
    idle, host = program_idle(tl, longest, w.by_rank[longest], rows.api, rows.dur, own[0] if len(own) == 1 else None)
    return black_hole(ranked.kernels, ranked.copies, ranked.memsets, idle, w.wall_ns, host)


def _not_computable(rows: KindRows, launch: LaunchOverhead | None, split: Breakdown) -> tuple[str, ...]:
    out = []
    if rows.api.size == 0:
        out.append("host_api")
    if launch is None:
        out.append("launch_overhead")
    if not split.devices:
        out += ["gpu_split", "idle", "utilisation"]
    return tuple(out)


def _notes(tl: Timeline, w: Walls, slowest: Note | None) -> tuple[Note, ...]:
    notes = [slowest] if slowest is not None else []
    if tl.invalid:
        notes.append(Note("tl_invalid_records", {"n": tl.invalid_count,
                                                  "names": ", ".join(sorted({i.name for i in tl.invalid}))}))
    if w.ranks.size == 1 and int(w.ranks[0]) < 0 and tl.format == "kineto":
        notes.append(Note("tl_rank_not_recorded", {}))
    return tuple(notes)


def _empty_report(tl: Timeline, why: str) -> TimelineReport:
    return TimelineReport(
        path=tl.path, format=tl.format, source="intervals", wall_s=None, program_time_s=None, devices=(), streams=(),
        host_api_s=None, kernels=(), copies=(), memsets=(), api_calls=(), syncs=(), annotations=(), launch=None,
        tiny_kernels=(), black_hole=None, ranks=(), slowest_rank=None, findings=(),
        not_computable=("gpu_split", "idle", "utilisation", "launch_overhead"), notes=(Note("tl_empty", {"why": why}),),
        invalid=tl.invalid, problems=tl.problems, tool_version=tl.tool_version, devices_named=tl.devices)

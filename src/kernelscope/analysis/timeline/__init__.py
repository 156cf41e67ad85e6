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
* A CUDA graph replay of a graph-level trace (nsys ``--cuda-graph-trace=graph``, case N18) is one busy kernel-kind
  row (``GRAPH_REPLAY_NAME``); a note says its kernels were not traced one by one.
* Program wall time = from the first to the last recorded interval of any kind (per rank; the slowest rank for
  multi-rank traces: it ends the program). Shares and Amdahl projections are per device (of its rank's wall) and
  for the whole program (:mod:`.scopes`): a kernel, copy or memset loses the time it ADDS to its device's busy
  union (the time it alone covers: overlapped time gains nothing), each rank's wall shrinks by the least time the
  item takes from any of its devices, and the program by its slowest rank. Host API time is per rank.
* Several ranks (:mod:`.collectives`): a rank's computation and communication are wall-clock unions of its
  kernels (never sums over concurrent streams); the communication not under computation is exposed, and the part
  of it spent waiting in collectives for other ranks is wait, not work: the straggler is the rank whose own work
  (wall minus wait) is the longest, and program projections shrink each rank's own work (the program wall is
  shifted by the slowest rank's wait). Exposed communication is one row, a candidate for the black hole.
* Steps: ``ProfilerStep#N`` ranges give the median, slowest and fastest step and their spread.

Modules: :mod:`.report` (result objects), :mod:`.intervals` (union / gap algebra), :mod:`.breakdown` (per device
and stream split, ranks, steps), :mod:`.collectives` (computation / communication unions, collective waits,
projections beyond them), :mod:`.scopes` (per-device / per-rank shares, program projections, GPU idle, exposed
communication),
:mod:`.rankings` (per-name rankings, Amdahl, launch shapes, black hole), :mod:`.correlation`
(API call -> kernel join, launch latency vs queue wait, tiny kernels), :mod:`.graphs` (CUDA graph nodes, per-launch cost,
launch-bound loops and the predicted graph saving), :mod:`.checks` (the expert checks, engine rules),
:mod:`.summary` (the ``nsys stats`` path), :mod:`.fusion` (fusion candidates and what fusing them would save), :mod:`.join` (the top kernels joined with
their Nsight Compute diagnoses). Thresholds of the checks are data: ``data/timeline_rules.toml``,
each with its source (:mod:`kernelscope.knowledge.timeline_checks`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...knowledge.timeline_checks import timeline_checks
from ...notes import Listed, Note
from ...timeline_model import GRAPH_REPLAY_NAME, GRAPH_REPLAYS_META, KERNEL, Timeline, TimelineSummary
from ..engine import Finding, run_rules
from .breakdown import (
    Breakdown, Walls, breakdown, program_idle, rank_rows, rank_value, steps_of, walls,
)
from .collectives import Waits, balanced_wall_s, comms_of, waits_of
from .checks import TIMELINE_RULES, IntervalFacts, TimelineContext, is_sync_api, time_and_count
from .correlation import ApiJoin, launch_overhead, launch_queue, tiny_kernels
from .fusion import fusion_chains
from .graphs import KernelLaunches, graph_use, launch_bound, mark_graph_kernels
from .intervals import KindRows, StreamOrder, union_length_ns, union_segments
from .join import AbsentKernel, JoinedKernel, KernelJoin, NcuKernel, join_kernels
from .rankings import Rankings, amdahl, amdahl_speedup, black_hole, rankings
from .scopes import RankIdle, communication_row, gpu_idle_row
from .report import (
    GAP_EDGES_S,
    NS,
    Amdahl,
    BlackHole,
    CopyDirection,
    GapHistogram,
    GraphUse,
    ItemStat,
    LaunchBound,
    LaunchOverhead,
    LaunchShape,
    RankRow,
    ScopeShare,
    Steps,
    TimelineReport,
    TimeSplit,
    TinyKernel,
)
from .summary import analyse_runs, analyse_summary, summary_runs

__all__ = [
    "GAP_EDGES_S", "TIMELINE_RULES", "Amdahl", "BlackHole", "CopyDirection", "Finding", "GapHistogram", "GraphUse",
    "AbsentKernel", "ItemStat", "JoinedKernel", "KernelJoin", "LaunchBound", "LaunchOverhead", "LaunchShape", "NcuKernel",
    "RankRow", "ScopeShare", "Steps", "TimeSplit", "TimelineContext",
    "TimelineReport", "TinyKernel",
    "amdahl", "amdahl_speedup", "analyse", "analyse_summary", "analyse_timeline", "is_sync_api", "join_kernels",
    "summary_runs",
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
    comms = comms_of(tl, rows.kernel, w.ranks.tolist(), dict(w.by_rank), checks.ranks.communication)
    waits = waits_of(comms, tl.names)
    ranked = rankings(tl, rows, w, top, split, waits)
    join = ApiJoin.of(tl, rows.api)
    launches = KernelLaunches.of(tl, rows.kernel, join.positions(tl, rows.kernel), join.api_rows[join.order], rows.dur)
    streams = StreamOrder.of(tl, np.sort(np.concatenate([rows.kernel, rows.memcpy, rows.memset]), kind="stable"))
    queue = launch_queue(tl, launches, streams.rows, streams)
    launch = launch_overhead(tl, launches, rows.dur, queue)
    tiny = tiny_kernels(tl, rows.kernel, launches.k_api, rows.dur, split.segments, ranked.kernels, checks.tiny_kernels,
                        launches.graph)
    graphs = graph_use(tl, rows.kernel, launches, rows.dur)
    kernels = mark_graph_kernels(tl, ranked.kernels, rows.kernel, launches)
    idle = RankIdle.of(w, split)
    bound = launch_bound(tl, launches, checks, queue)
    if bound is not None and bound.predicted_saving_s > 0:  # a graph removes only time the GPU waits
        saving = min(bound.predicted_saving_s, sum(idle.idle_ns) * NS)
        # the program's wall: no rank ends before its own GPU work does (rank wall less its GPU idle)
        busy = max((w.by_rank[r] - i for r, i in zip(idle.ranks, idle.idle_ns)), default=0)
        program = min(saving, max(w.wall_ns - busy, 0) * NS)
        bound = replace(bound, predicted_saving_s=saving, ranks=max(len(idle.ranks), 1), program_saving_s=program)
    facts = IntervalFacts(tl, rows, join, split.devices, split.segments, w)
    context = TimelineContext(checks, w.program_ns * NS, ranked.api_calls, tiny, facts, bound)
    findings = run_rules(TIMELINE_RULES, context)
    ranks, slowest, slowest_note = rank_rows(tl, w, split.devices, rows, comms, waits.wait_ns,
                                             dict(zip(idle.ranks, idle.idle_ns)))
    comm_row = communication_row(w, comms, waits, checks.amdahl.factors)
    idle_row, black = _black_hole(tl, w, idle, ranked, rows, waits, comm_row)
    return TimelineReport(
        path=tl.path, format=tl.format, source="intervals", wall_s=w.wall_ns * NS, program_time_s=w.wall_ns * NS,
        devices=split.devices, streams=split.streams, host_api_s=_host_api_s(ranks, w),
        host_api_rank=rank_value(w.longest), gpu_idle=idle_row,
        kernels=kernels, copies=ranked.copies, memsets=ranked.memsets, api_calls=ranked.api_calls,
        syncs=ranked.syncs, annotations=ranked.annotations, launch=launch, tiny_kernels=tiny,
        black_hole=black, ranks=ranks, slowest_rank=slowest, findings=findings,
        not_computable=_not_computable(rows, launch, split), notes=_notes(tl, w, slowest_note) + _record_notes(tl, split.devices),
        invalid=tl.invalid, problems=tl.problems, tool_version=tl.tool_version, devices_named=tl.devices,
        graphs=graphs, launch_bound=bound, repaired=tl.repaired, communication=comm_row,
        balanced_wall_s=balanced_wall_s(w.by_rank, waits), steps=steps_of(tl, rows.annotation, slowest),
        fusion=fusion_chains(tl, w.wall_ns * NS, top, join, streams, (launches.k_rows, launches.k_api)),
    )


def _host_api_s(ranks: tuple[RankRow, ...], w: Walls) -> float | None:
    """Host time in CUDA API calls of the rank whose wall is the program wall (the union of its API intervals;
    never summed over ranks: each rank's is in its RankRow). None when that rank recorded no API call."""
    longest = rank_value(w.longest)
    return next((r.host_api_s for r in ranks if r.rank == longest), None)


#: The share of a rank's idle time the host's largest CUDA API call in it must cover to be named as what fills it
#: (below it, the idle time is mostly host code outside CUDA: naming a 47 ms cudaMalloc for 876 ms of idle time
#: misleads; the host_gaps check names the ranges that fill the gaps).
IDLE_API_SHARE = 0.5


def _black_hole(tl: Timeline, w: Walls, idle: RankIdle, ranked: Rankings, rows: KindRows, waits: Waits,
                comm_row: ItemStat | None) -> tuple[ItemStat | None, BlackHole | None]:
    """The GPU idle row and the largest black hole (:func:`.rankings.black_hole`, exposed communication among the
    candidates); for GPU idle, with the API call covering most of the idle time on the host of the rank where the
    idle share is largest."""
    idle_row = gpu_idle_row(w, idle, timeline_checks().amdahl.factors, waits)
    black = black_hole(ranked.kernels, ranked.copies, ranked.memsets, idle_row, comm_row)
    if black is None or black.row != "gpu_idle" or black.lane is None:
        return idle_row, black
    rk = -1 if black.lane.rank is None else black.lane.rank
    segs = idle.segments[idle.ranks.index(rk)]
    _, host = program_idle(tl, rk, w.by_rank[rk], rows.api, rows.dur, segs)
    if host is None or host[1] < IDLE_API_SHARE * black.lane.busy_s:
        return idle_row, black  # no API call, or one that covers little of the idle time: not named as its cause
    rule = timeline_checks().one_off_calls
    # initialisation: one call holds most of it, of an API run once per process or the first CUDA call (which
    # creates the context) of an API that does so
    once = host[2] >= IDLE_API_SHARE * host[1] and bool(
        rule.once.match(host[0]) or (host[3] and rule.first_call.match(host[0])))
    return idle_row, replace(black, host_api=host[0], host_api_s=host[1], host_api_once=once)


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
                                                  "names": Listed(sorted({i.name for i in tl.invalid}))}))
    if w.ranks.size == 1 and int(w.ranks[0]) < 0 and tl.format == "kineto":
        notes.append(Note("tl_rank_not_recorded", {}))
    return tuple(notes)


def _record_notes(tl: Timeline, devices: tuple[TimeSplit, ...]) -> tuple[Note, ...]:
    """What the readers repaired (same-stream overlaps clipped) and the devices whose span is zero (utilisation
    not measurable, never 100 %)."""
    notes = []
    if tl.repaired:
        notes.append(Note("tl_repaired_records", {
            "n": sum(r.count for r in tl.repaired), "removed_s": sum(r.removed_ns for r in tl.repaired) * NS,
            "names": Listed(dict.fromkeys(f"{r.name} ({r.removed_ns / 1000:,.1f} µs)" for r in tl.repaired))}))
    notes += [Note("tl_zero_span", {"device": d.device}) for d in devices if d.utilisation_pct is None]
    graph = _graph_replays(tl)
    if graph is not None:
        notes.append(Note("tl_graph_level_trace", {"n": graph[0], "time_s": graph[1]}))
    return tuple(notes)


def _graph_replays(tl: Timeline) -> tuple[int, float] | None:
    """(replays, their summed time in s) of a graph-level trace (the reader's ``GRAPH_REPLAYS_META``), None when
    the Timeline holds none: their kernels were not traced one by one (case N18)."""
    if GRAPH_REPLAYS_META not in tl.meta:
        return None
    head, _, tail = GRAPH_REPLAY_NAME.partition("{graph_id}")
    ids = [i for i, nm in enumerate(tl.names) if nm.startswith(head) and nm.endswith(tail)]
    rows = (tl.kind == KERNEL) & np.isin(tl.name_id, ids)
    if not rows.any():
        return None
    return int(rows.sum()), float((tl.end_ns[rows] - tl.start_ns[rows]).sum()) * NS


def _empty_report(tl: Timeline, why: str) -> TimelineReport:
    return TimelineReport(
        path=tl.path, format=tl.format, source="intervals", wall_s=None, program_time_s=None, devices=(), streams=(),
        host_api_s=None, kernels=(), copies=(), memsets=(), api_calls=(), syncs=(), annotations=(), launch=None,
        tiny_kernels=(), black_hole=None, ranks=(), slowest_rank=None, findings=(),
        not_computable=("gpu_split", "idle", "utilisation", "launch_overhead"), notes=(Note("tl_empty", {"why": why}),),
        invalid=tl.invalid, problems=tl.problems, tool_version=tl.tool_version, devices_named=tl.devices,
        repaired=tl.repaired)

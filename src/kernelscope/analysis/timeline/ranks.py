"""The ranks of one program, each read from its own file: small per-rank summaries (the map) and their reduce.

``kernelscope timeline --as-ranks FILE...`` reads and analyses each input alone (memory bounded by one file;
serially, on a process pool or as Ray tasks) and keeps of every rank it holds (one per trace file; every rank of
an archive or directory of traces) a :class:`RankSummary`: a few numbers, the per-kernel totals and its
collective calls (small and picklable). :func:`reduce_ranks` turns the summaries into the program's view: totals
(the program wall is the slowest rank's wall), the per-rank table with each rank's computation and communication
unions and its collective wait (:mod:`.collectives`), the straggler (the rank whose own work, wall minus collective
wait, is the longest: a synchronous collective equalises the walls, case N14), the stragglers (own work above the
median by more than ``[ranks] straggler_pct`` of ``data/timeline_rules.toml``; per step when the traces hold
different step counts), the program projections beyond the collective waits, and the cross-rank imbalance of the
top kernels. Ranks of different runs (world sizes or GPU kinds that differ) are refused. Pure: no I/O.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ...timeline_model import run_mismatch
from .collectives import CollectiveCalls, collective_waits, comms_of, program_after
from .collectives import compared as compare_by

if TYPE_CHECKING:
    from ...timeline_model import Timeline
    from .report import TimelineReport


@dataclass(frozen=True)
class RankSummary:
    """What the reduce needs of one rank's trace.

    Attributes:
        order: the rank's position in the input (0-based: file order, then rank order within a file).
        path: the file (as given).
        member: the rank's trace file inside an archive or directory of traces (None: the file is the trace).
        recorded_rank: the rank the trace records (Kineto ``distributedInfo.rank``), None when it records none.
        wall_s: the rank's wall time (first to last record), seconds.
        busy_s: GPU busy time (union of kernels, copies, memsets per device, summed over its devices), seconds.
        kernel_s: time at least one kernel ran (per device, summed over its devices), seconds.
        kernels: (name, total seconds, count) of every kernel name, largest total first.
        exclusive: (name, seconds) per kernel name: the time only it covers on the rank's devices (summed over its
            devices), what it removes from the rank when gone.
        computation_s, communication_s, overlap_s, exposed_s: the rank's unions (:mod:`.collectives`), seconds.
        calls: its collective calls (for the cross-rank wait); None: not recorded (counts as no collective).
        steps: how many ``ProfilerStep#N`` ranges it holds (0: none); ``median_step_s`` their median, seconds.
        world_size: ``distributedInfo.world_size`` (None: not recorded); ``device_name`` its GPU (None: not
            recorded): ranks of one run agree on both.
    """

    order: int
    path: str
    recorded_rank: int | None
    wall_s: float
    busy_s: float
    kernel_s: float
    kernels: tuple[tuple[str, float, int], ...]
    exclusive: tuple[tuple[str, float], ...] = ()
    computation_s: float = 0.0
    communication_s: float = 0.0
    overlap_s: float = 0.0
    exposed_s: float = 0.0
    calls: CollectiveCalls | None = None
    steps: int = 0
    median_step_s: float | None = None
    world_size: int | None = None
    device_name: str | None = None
    member: str | None = None


@dataclass(frozen=True)
class RankLine:
    """One rank of the per-rank table. ``share_pct``: its kernel time over the summed kernel time of all ranks
    (0-100); ``own_s``: wall minus collective wait (seconds); ``compared_s``: what the ranks are compared by (own
    work per trace, or per step, see :class:`RanksReport`); ``vs_median_pct``: how far ``compared_s`` is above (+)
    or below (-) the median rank's, percent; ``member``: its trace inside an archive or directory (None: ``path``
    is the trace). Unions and the wait: :mod:`.collectives`, seconds."""

    rank: int
    path: str
    wall_s: float
    busy_s: float
    kernel_s: float
    share_pct: float | None
    vs_median_pct: float | None
    straggler: bool
    computation_s: float = 0.0
    communication_s: float = 0.0
    overlap_s: float = 0.0
    exposed_s: float = 0.0
    wait_s: float = 0.0
    own_s: float = 0.0
    steps: int = 0
    median_step_s: float | None = None
    compared_s: float = 0.0
    member: str | None = None


@dataclass(frozen=True)
class KernelImbalance:
    """One top kernel across ranks: its per-rank total time (0 on a rank that never ran it), seconds.
    ``max_over_median``: None when the median is 0; ``max_rank``: the rank with the largest total (the first in
    rank order on a tie). ``projected_s``: the program wall if the kernel became ``RanksReport.factors[i]`` times
    faster on every rank (the last: gone), beyond the collective waits (:func:`.collectives.program_after`;
    a prediction under its one-barrier model), seconds; ``speedups`` the program wall over each."""

    name: str
    total_s: float
    count: int
    ranks_with: int
    min_s: float
    median_s: float
    max_s: float
    max_over_median: float | None
    max_rank: int
    projected_s: tuple[float, ...] = ()
    speedups: tuple[float, ...] = ()


@dataclass(frozen=True)
class RanksReport:
    """The program made of the ranks' files.

    Attributes:
        ranks: per rank, in rank order.
        rank_source: "recorded" (the traces' own ranks) or "file_order" (some trace records none, or two record
            the same: ranks are the input positions, 0-based).
        wall_s: program wall = the slowest rank's wall; ``median_wall_s`` the median rank wall.
        busy_s, kernel_s: summed over ranks.
        slowest_rank: the straggler: the rank with the largest ``compared_s`` (own work; the first in rank order
            on a tie).
        stragglers: ranks whose ``compared_s`` exceeds the median by more than ``straggler_pct`` percent.
        median_compared_s: that median: the median rank's ``compared_s`` (seconds; per step with ``own_per_step``),
            the one figure the stragglers, ``vs_median_pct`` and the straggler line are measured against.
        straggler_pct: that threshold (``data/timeline_rules.toml`` ``[ranks] straggler_pct``).
        kernels: the top kernels by summed total time, largest first, with their imbalance across ranks.
        compared_by: ``"own"`` (own work per trace) or ``"own_per_step"`` (own work / step count: the traces hold
            different numbers of ``ProfilerStep`` ranges, so whole walls are not comparable).
        factors: the projection factors (``[amdahl] factors`` and ``inf``: gone).
        balanced_wall_s: the program wall if every rank's own work took the median rank's (the straggler fixed).
        hidden_wall_s: the program wall if every rank's exposed communication (beyond its wait) were hidden.
        exposed_s, wait_s: exposed communication and collective wait summed over ranks, seconds.
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
    compared_by: str = "own"
    factors: tuple[float, ...] = ()
    balanced_wall_s: float | None = None
    hidden_wall_s: float | None = None
    median_compared_s: float = 0.0
    exposed_s: float = 0.0
    wait_s: float = 0.0


def summarize(report: "TimelineReport", path: str, order: int, tl: "Timeline | None" = None) -> list[RankSummary]:
    """One :class:`RankSummary` per rank of one analysed trace (a timeline with intervals, not a summary);
    ``tl``: the Timeline the report is of (for the collective calls; None: none recorded). ``order`` is the
    input's position: a file of several ranks numbers them ``order``, ``order + 1`` ... in rank order (the reduce
    renumbers positions).

    Raises:
        ValueError: the report has no wall time (an ``nsys stats`` summary).
    """
    if report.wall_s is None:
        raise ValueError("a per-rank summary needs a trace with intervals (an nsys stats summary has no wall time)")
    from ...knowledge.timeline_checks import timeline_checks
    from .breakdown import step_times, walls
    from .intervals import KindRows

    calls: dict[int, CollectiveCalls] = {}
    steps: dict[int, dict[int, int]] = {}
    world = device = None
    if tl is not None and len(tl):
        rows = KindRows.of(tl)
        w = walls(tl)
        comms = comms_of(tl, rows.kernel, w.ranks.tolist(), dict(w.by_rank), timeline_checks().ranks.communication)
        calls = {c.rank: c.calls for c in comms}
        steps = step_times(tl, rows.annotation)
        ws = tl.meta.get("world_size") if tl.meta else None
        world = int(ws) if ws is not None and str(ws).lstrip("-").isdigit() else None
        names = sorted({n for _, n in tl.devices if n})
        device = names[0] if len(names) == 1 else None
    meta = tl.meta if tl is not None and tl.meta else {}
    members = dict(zip(meta.get("rank", "").split(", "), meta["files"].split(", "))) if "files" in meta else {}
    out = []
    for i, r in enumerate(report.ranks):
        rk = -1 if r.rank is None else r.rank
        kernels, exclusive = [], []
        for k in report.kernels:
            lanes = [d for d in k.devices if d.rank == r.rank]
            if not lanes and len(report.ranks) > 1:
                continue
            total = sum(d.total_s for d in lanes) if lanes else float(k.total_s or 0.0)
            count = sum(d.count for d in lanes) if lanes else int(k.count or 0)
            kernels.append((k.name, float(total), int(count)))
            alone = sum(d.exclusive_s or 0.0 for d in lanes) if lanes else k.exclusive_s or 0.0
            exclusive.append((k.name, float(alone)))
        per_step = steps.get(rk, {})
        out.append(RankSummary(
            order=order + i, path=path, recorded_rank=r.rank, wall_s=float(r.wall_s), busy_s=float(r.busy_s),
            kernel_s=float(r.kernel_s), kernels=tuple(sorted(kernels, key=lambda t: (-t[1], t[0]))),
            exclusive=tuple(exclusive), computation_s=r.computation_s, communication_s=r.communication_s,
            overlap_s=r.overlap_s, exposed_s=r.exposed_communication_s, calls=calls.get(rk), steps=len(per_step),
            median_step_s=statistics.median(per_step.values()) * 1e-9 if per_step else None, world_size=world,
            device_name=device, member=members.get(str(r.rank))))
    return out


def reduce_ranks(summaries: Sequence[RankSummary], *, top: int = 10, straggler_pct: float | None = None) -> RanksReport:
    """The program view of its ranks' summaries (see the module's docstring).

    Raises:
        ValueError: no summaries, ``top`` below 1, or summaries of different runs
            (:func:`kernelscope.timeline_model.run_mismatch`).
    """
    if not summaries:
        raise ValueError("no rank to reduce")
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    why = run_mismatch([(s.world_size, s.device_name, s.recorded_rank) for s in summaries])
    if why is not None:
        raise ValueError(f"not the ranks of one program: {why}; give the files to plain `timeline` to analyse each "
                         "as its own program")
    from ...knowledge.timeline_checks import timeline_checks

    checks = timeline_checks()
    if straggler_pct is None:
        straggler_pct = checks.ranks.straggler_pct
    ordered = sorted(summaries, key=lambda s: s.order)
    recorded = [s.recorded_rank for s in ordered]
    use_recorded = None not in recorded and len(set(recorded)) == len(recorded)
    ids = [s.recorded_rank if use_recorded else i for i, s in enumerate(ordered)]  # type: ignore[misc]
    pairs = sorted(zip(ids, ordered), key=lambda p: p[0])
    n = len(pairs)
    empty = CollectiveCalls(-1, (), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                            np.zeros(0, dtype=np.int64))
    per_name = collective_waits([s.calls if s.calls is not None else empty for _, s in pairs])
    wait_ns = [min(sum(w.values()), round(s.exposed_s * 1e9)) for w, (_, s) in zip(per_name, pairs)]
    walls_ns = np.array([round(s.wall_s * 1e9) for _, s in pairs], dtype=np.int64)
    own_ns = walls_ns - np.array(wait_ns, dtype=np.int64)
    compared, per_step = compare_by([float(o) * 1e-9 for o in own_ns.tolist()], [s.steps for _, s in pairs])
    median_cmp = statistics.median(compared)
    median_wall = statistics.median(s.wall_s for _, s in pairs)
    kernel_total = sum(s.kernel_s for _, s in pairs)
    limit = median_cmp * (1.0 + straggler_pct / 100.0)
    lines = tuple(RankLine(
        rank=r, path=s.path, wall_s=s.wall_s, busy_s=s.busy_s, kernel_s=s.kernel_s,
        share_pct=100.0 * s.kernel_s / kernel_total if kernel_total > 0 else None,
        vs_median_pct=100.0 * (c / median_cmp - 1.0) if median_cmp > 0 else None, straggler=c > limit,
        computation_s=s.computation_s, communication_s=s.communication_s, overlap_s=s.overlap_s,
        exposed_s=s.exposed_s, wait_s=wt * 1e-9, own_s=o * 1e-9, steps=s.steps, median_step_s=s.median_step_s,
        compared_s=c, member=s.member) for (r, s), wt, o, c in zip(pairs, wait_ns, own_ns.tolist(), compared))
    slowest = max(lines, key=lambda ln: (ln.compared_s, ln.computation_s, -ln.rank))
    fs = tuple(float(f) for f in checks.amdahl.factors) + (math.inf,)
    wait_arr = np.array(wait_ns, dtype=np.int64)
    T = float(walls_ns.max())
    balanced = (T - (float(own_ns.max()) - float(np.median(own_ns)))) * 1e-9
    hidden_removed = np.array([[max(round(s.exposed_s * 1e9) - w, 0) for (_, s), w in zip(pairs, wait_ns)]],
                              dtype=np.float64)
    hidden = float(program_after(walls_ns, wait_arr, hidden_removed, (math.inf,))[0, 0]) * 1e-9
    # Per kernel: its total on each rank (0 where the rank never ran it).
    per_kernel: dict[str, list[float]] = {}
    excl: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for i, (_, s) in enumerate(pairs):
        for name, total, count in s.kernels:
            per_kernel.setdefault(name, [0.0] * n)[i] += total
            counts[name] = counts.get(name, 0) + count
        for name, x in s.exclusive:
            excl.setdefault(name, [0.0] * n)[i] += x
    chosen = sorted(per_kernel, key=lambda nm: (-sum(per_kernel[nm]), nm))[:top]
    removed = np.array([[max(round(e * 1e9) - per_name[i].get(nm, 0), 0)
                         for i, e in enumerate(excl.get(nm, [0.0] * n))] for nm in chosen], dtype=np.float64)
    after = program_after(walls_ns, wait_arr, removed.reshape(len(chosen), n), fs) * 1e-9
    kernels = []
    for j, name in enumerate(chosen):
        vals = per_kernel[name]
        med = statistics.median(vals)
        hi = max(vals)
        proj = tuple(float(a) for a in after[j].tolist())
        kernels.append(KernelImbalance(
            name=name, total_s=sum(vals), count=counts[name], ranks_with=sum(1 for v in vals if v > 0),
            min_s=min(vals), median_s=med, max_s=hi, max_over_median=hi / med if med > 0 else None,
            max_rank=lines[vals.index(hi)].rank, projected_s=proj,
            speedups=tuple(T * 1e-9 / a if a > 0 else math.inf for a in proj)))
    return RanksReport(
        ranks=lines, rank_source="recorded" if use_recorded else "file_order", wall_s=T * 1e-9,
        median_wall_s=median_wall, busy_s=sum(ln.busy_s for ln in lines), kernel_s=kernel_total,
        slowest_rank=slowest.rank, stragglers=tuple(ln.rank for ln in lines if ln.straggler),
        straggler_pct=straggler_pct, kernels=tuple(kernels), compared_by="own_per_step" if per_step else "own",
        factors=fs, balanced_wall_s=balanced, hidden_wall_s=hidden, exposed_s=sum(ln.exposed_s for ln in lines),
        wait_s=sum(ln.wait_s for ln in lines), median_compared_s=median_cmp)

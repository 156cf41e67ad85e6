"""The expert checks of a program run, as rules of :mod:`kernelscope.analysis.engine` over a
:class:`TimelineContext`, in the manner of the Nsight Systems expert system: synchronous copies, pageable copies,
synchronous memsets, GPU gaps, CPU-bound gaps (host work between kernels: which API call or range fills them), low
GPU utilisation, tiny kernels, launch-bound loops (with the CUDA graph saving).

One rule set serves both inputs: a Timeline (intervals: :class:`IntervalFacts`) and an ``nsys stats`` summary
(per-name totals only: ``api_calls``). A rule whose inputs are absent returns nothing.

Every finding's evidence lists first the time it concerns (unit ``"s"``), then how many intervals, launches or
slices it counts (unit ``""``), then the rest (:func:`time_and_count` reads the first two back). Its
``estimated_speedup`` is the program speedup if that time were gone, ``program time / (program time - time)``,
where removing the cause removes the time (idle GPU time); otherwise None with ``speedup_note`` saying why.
Thresholds: ``data/timeline_rules.toml`` (:mod:`kernelscope.knowledge.timeline_checks`), each with its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

import numpy as np

from ...knowledge.timeline_checks import TimelineChecks
from ...notes import Listed, Note
from ...timeline_model import COPY_DTOD, COPY_HTOD, CPU_OP, Timeline
from ..engine import Done, Evidence, Finding, Rule
from .breakdown import Walls
from .correlation import ApiJoin
from .intervals import KindRows, Segments, busy_before, rows_by_rank, union_segments
from .report import NS, ItemStat, LaunchBound, TimeSplit, TinyKernel

_SYNC_COPY_API = re.compile(r"^(cuda|cu)Mem(cpy|set)", re.IGNORECASE)


def is_sync_api(name: str) -> bool:
    """A synchronous copy or memset call: ``cudaMemcpy*`` / ``cuMemset*`` ... without "Async" in its name."""
    return bool(_SYNC_COPY_API.match(name)) and "async" not in name.lower()


@dataclass(frozen=True)
class IntervalFacts:
    """What the interval checks read from a Timeline (absent for a summary)."""

    tl: Timeline
    rows: KindRows
    join: ApiJoin
    devices: tuple[TimeSplit, ...]
    segments: Segments
    walls: Walls

    @cached_property
    def copy_api(self) -> np.ndarray:
        """The API row of each copy row (-1 when not joined)."""
        return self.join.api_for(self.tl, self.rows.memcpy)

    @cached_property
    def sync_name(self) -> np.ndarray:
        """Per name id: a synchronous copy / memset API name."""
        return np.array([is_sync_api(nm) for nm in self.tl.names], dtype=bool)

    def rank_wall_s(self, rank: int | None) -> float:
        """The wall of one rank (None = not recorded)."""
        return self.walls.by_rank[-1 if rank is None else rank] * NS

    def alone_in_rank(self, d: TimeSplit) -> bool:
        """``d`` is the only GPU of its rank (its idle time is then time with no GPU work at all)."""
        return sum(1 for x in self.devices if x.rank == d.rank) == 1


@dataclass(frozen=True)
class TimelineContext:
    """What the timeline checks look at.

    Attributes:
        checks: the thresholds (``timeline_rules.toml``).
        program_s: the program time Amdahl fractions are of (summed rank walls; a summary: its GPU time), or None.
        api_calls: host API calls per name, largest total first (both inputs).
        tiny_kernels: the CUDA Graphs / fusion candidates found (intervals only).
        intervals: the interval facts, None for a summary.
        launch_bound: the per-launch cost and the predicted CUDA graph saving (:mod:`.graphs`), None when the
            per-launch cost cannot be measured.
    """

    checks: TimelineChecks
    program_s: float | None
    api_calls: tuple[ItemStat, ...] = ()
    tiny_kernels: tuple[TinyKernel, ...] = ()
    intervals: IntervalFacts | None = None
    launch_bound: LaunchBound | None = None


def time_and_count(f: Finding) -> tuple[float | None, int | None]:
    """The time a timeline finding concerns (s) and how many intervals it counts, from its evidence."""
    time_s = next((e.value for e in f.evidence if e.unit == "s"), None)
    count = next((e.value for e in f.evidence if e.unit == ""), None)
    return time_s, (int(count) if count is not None else None)


_NO_ESTIMATE = "no estimate: {}"


def _gain(saved_s: float, total_s: float | None, total_name: str,
          why: str) -> tuple[float | None, str, tuple[Evidence, ...]]:
    """``(estimated speedup, note, evidence of the total)`` for ``saved_s`` of ``total_s`` gone."""
    if not total_s:
        return None, "no estimate: no program time to compare with", ()
    total = (Evidence(total_name, total_s, "s"),)
    if saved_s <= 0:
        return None, "no estimate: no time would be saved", total
    if saved_s >= total_s:
        return None, "no estimate: the time concerned is the whole program time", total
    return total_s / (total_s - saved_s), f"{total_name} / ({total_name} - time), {why}", total


def _finding(rule: str, source: str, note: Note, evidence: tuple[Evidence, ...], saved: float | None = None,
             total_s: float | None = None, total_name: str = "program_time", why: str = "",
             no_estimate: str = "") -> Finding:
    """A timeline finding; with ``saved`` (s), estimated as ``total_s`` / (``total_s`` - ``saved``)."""
    if saved is None:
        return Finding(rule, "optimization", note, evidence, speedup_note=_NO_ESTIMATE.format(no_estimate),
                       source=source)
    speedup, how, more = _gain(saved, total_s, total_name, why)
    return Finding(rule, "optimization", note, evidence + more, estimated_speedup=speedup, speedup_note=how,
                   source=source)


# --------------------------------------------------------------------------------------------- copies, memsets


def _sync_calls(ctx: TimelineContext, rule: str, word: str, key: str, source: str) -> Finding | None:
    """Summary input: synchronous ``word`` ("memcpy" / "memset") API calls by their per-name totals."""
    calls = [a for a in ctx.api_calls if is_sync_api(a.name) and word in a.name.lower()]
    if not calls:
        return None
    t = sum(a.total_s for a in calls)
    n = sum(a.count for a in calls)
    values = {"n": n, "time_s": t} | ({"apis": Listed(a.name for a in calls)} if word == "memcpy" else {})
    evidence = (Evidence(f"{rule}.call_time", t, "s"), Evidence(f"{rule}.calls", n))
    return _finding(rule, source, Note(key, values), evidence,
                    no_estimate="asynchronous calls still do the work; they gain the host work that can overlap it, "
                                "which a summary does not show")


def sync_memcpy(ctx: TimelineContext, done: Done) -> Finding | None:
    """Copies issued by a synchronous API block the host (Nsight's cuda_memcpy_sync): not device-to-device
    copies, nor host-to-device copies of at most ``max_small_htod_bytes``. A summary has no copies, only the
    synchronous copy calls' totals (small copies then not excluded)."""
    cfg = ctx.checks.sync_memcpy
    facts = ctx.intervals
    if facts is None:
        return _sync_calls(ctx, "sync_memcpy", "memcpy", "tl_sync_memcpy_summary", cfg.source)
    tl, c_rows, c_api = facts.tl, facts.rows.memcpy, facts.copy_api
    known = c_api >= 0
    if not known.any():
        return None
    is_sync = known & facts.sync_name[tl.name_id[np.maximum(c_api, 0)]]
    ck, nb = tl.copy_kind[c_rows], tl.bytes[c_rows]
    small_htod = (ck == COPY_HTOD) & (nb >= 0) & (nb <= cfg.max_small_htod_bytes)
    flagged = is_sync & ~small_htod & (ck != COPY_DTOD)
    if not flagged.any():
        return None
    t = float(facts.rows.dur[c_rows[flagged]].sum()) * NS
    n = int(flagged.sum())
    apis = Listed(sorted({tl.names[i] for i in tl.name_id[c_api[flagged]].tolist()}))
    return _finding("sync_memcpy", cfg.source, Note("tl_sync_memcpy", {"n": n, "time_s": t, "apis": apis}),
                    (Evidence("sync_memcpy.copy_time", t, "s"), Evidence("sync_memcpy.copies", n)),
                    no_estimate="asynchronous copies still take their time; they gain the host work that can "
                                "overlap them, which the trace does not show")


def pageable_key(n: int, n_async: int) -> str:
    """The note key of ``n`` pageable copies, ``n_async`` of them issued by an async call: the async clause left
    out when there are none, and said as "all of them" when every copy is one."""
    return "tl_pageable_memcpy_sync" if n_async == 0 else (
        "tl_pageable_memcpy_all_async" if n_async == n else "tl_pageable_memcpy")


def pageable_memcpy(ctx: TimelineContext, done: Done) -> Finding | None:
    """Copies from or to pageable host memory (Nsight's cuda_memcpy_async on pageable memory): staged through a
    pinned buffer, and synchronous even when issued by an async call. Intervals only."""
    facts, cfg = ctx.intervals, ctx.checks.pageable_memcpy
    if facts is None or facts.rows.memcpy.size == 0:
        return None
    tl, c_rows = facts.tl, facts.rows.memcpy
    pg = tl.pageable[c_rows] == 1
    if not pg.any():
        return None
    t = float(facts.rows.dur[c_rows[pg]].sum()) * NS
    if t < cfg.min_total_s:
        return None
    c_api = facts.copy_api
    async_name = np.array(["async" in nm.lower() for nm in tl.names], dtype=bool)
    n, n_async = int(pg.sum()), int((pg & (c_api >= 0) & async_name[tl.name_id[np.maximum(c_api, 0)]]).sum())
    nb = tl.bytes[c_rows[pg]]
    moved = int(nb[nb >= 0].sum())
    return _finding("pageable_memcpy", cfg.source,
                    Note(pageable_key(n, n_async), {"n": n, "time_s": t, "n_async": n_async, "gb": moved / 1e9}),
                    (Evidence("pageable_memcpy.copy_time", t, "s"), Evidence("pageable_memcpy.copies", n),
                     Evidence("pageable_memcpy.async_calls", n_async), Evidence("pageable_memcpy.bytes", moved, "B")),
                    no_estimate="pinned copies run faster and can overlap other work, by amounts the trace does "
                                "not give")


def sync_memset(ctx: TimelineContext, done: Done) -> Finding | None:
    """Memsets issued by a synchronous API (Nsight's cuda_memset_sync); a summary: the synchronous memset calls'
    totals."""
    cfg = ctx.checks.sync_memset
    facts = ctx.intervals
    if facts is None:
        return _sync_calls(ctx, "sync_memset", "memset", "tl_sync_memset_summary", cfg.source)
    tl, m_rows = facts.tl, facts.rows.memset
    if m_rows.size == 0 or facts.rows.api.size == 0:
        return None
    m_api = facts.join.api_for(tl, m_rows)
    flagged = (m_api >= 0) & facts.sync_name[tl.name_id[np.maximum(m_api, 0)]]
    if not flagged.any():
        return None
    t = float(facts.rows.dur[m_rows[flagged]].sum()) * NS
    n = int(flagged.sum())
    return _finding("sync_memset", cfg.source, Note("tl_sync_memset", {"n": n, "time_s": t}),
                    (Evidence("sync_memset.memset_time", t, "s"), Evidence("sync_memset.memsets", n)),
                    no_estimate="asynchronous memsets still take their time; they gain the host work that can overlap "
                                "them, which the trace does not show")


# ------------------------------------------------------------------------------------------- idle GPU time

_IDLE_WHY = "if the GPU were kept busy through that time, assuming it is on the critical path"
_NOT_ALONE = "another GPU of the same rank may be busy during this idle time"


def gpu_gaps(ctx: TimelineContext, done: Done) -> Iterator[Finding]:
    """Per device: idle stretches of at least ``min_gap_s`` between its first and last operation (Nsight's
    gpu_gaps). Intervals only."""
    facts, cfg = ctx.intervals, ctx.checks.gpu_gaps
    if facts is None:
        return
    min_gap_ns = cfg.min_gap_s / NS
    for d in facts.devices:
        seg_s, seg_e = facts.segments[(d.rank if d.rank is not None else -1, d.device)]
        gaps = seg_s[1:] - seg_e[:-1]
        long = gaps >= min_gap_ns
        if not long.any():
            continue
        t, n, largest = float(gaps[long].sum()) * NS, int(long.sum()), float(gaps.max()) * NS
        note = Note("tl_gpu_gaps_one" if n == 1 else "tl_gpu_gaps", {"n": n, "device": d.device, "time_s": t, "largest_s": largest,
                                    "limit_s": cfg.min_gap_s, "rank": d.rank})
        evidence = (Evidence("gpu_gaps.gap_time", t, "s"), Evidence("gpu_gaps.gaps", n),
                    Evidence("gpu_gaps.largest_gap", largest, "s"))
        alone = facts.alone_in_rank(d)
        yield _finding("gpu_gaps", cfg.source, note, evidence, saved=t if alone else None,
                       total_s=facts.rank_wall_s(d.rank), total_name="rank_wall", why=_IDLE_WHY, no_estimate=_NOT_ALONE)


def _overlapping(gap_s: np.ndarray, gap_e: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Positions of the intervals ``[start, end)`` that share some time with the disjoint sorted gaps: the first gap
    ending after an interval's start is the only one that can be the first it overlaps (one binary search each;
    gaps of no length, which share no time, are left out first)."""
    if not (gap_e > gap_s).all():
        gap_s, gap_e = gap_s[gap_e > gap_s], gap_e[gap_e > gap_s]
    if gap_s.size == 0:
        return np.zeros(0, dtype=np.int64)
    idx = np.searchsorted(gap_e, start, side="right")
    first = np.minimum(idx, gap_s.size - 1)
    return np.flatnonzero((idx < gap_s.size) & (np.maximum(start, gap_s[first]) < np.minimum(end, gap_e[first])))


def _most_overlap(tl: Timeline, rows: np.ndarray, gap_s: np.ndarray, gap_e: np.ndarray,
                  candidates: int = 8) -> tuple[str, float] | None:
    """(name, seconds) of the name whose rows ``rows`` fill the disjoint sorted gaps ``[gap_s, gap_e)`` most, or None
    when none overlaps. A name's time in the gaps is the union of its rows cut to the gaps (nested or concurrent
    rows of one name counted once, never more than the gaps). Names most of whose own time lies outside the gaps
    (an enclosing step range, mostly GPU work) give way to names that mostly fall into them; the ``candidates``
    names with the largest summed overlap are considered."""
    if rows.size == 0:
        return None
    start, end = tl.start_ns[rows], tl.end_ns[rows]
    name_id = tl.name_id[rows]
    hit = _overlapping(gap_s, gap_e, start, end)  # (the others have no time in the gaps: they add 0 to every sum)
    inside = busy_before(gap_s, gap_e, end[hit]) - busy_before(gap_s, gap_e, start[hit])
    per_name = np.bincount(name_id[hit], weights=inside.astype(np.float64), minlength=len(tl.names))
    names = [i for i in np.argsort(-per_name, kind="stable")[:candidates].tolist() if per_name[i] > 0]
    if not names:
        return None
    cuts, owns = _name_unions(start, end, name_id, names, gap_s, gap_e)
    best = [(2 * cut >= own, cut, tl.names[i]) for i, cut, own in zip(names, cuts, owns)]
    mostly, cut, name = max(best, key=lambda b: (b[0], b[1]))
    return name, cut * NS


def _name_unions(start: np.ndarray, end: np.ndarray, name_id: np.ndarray, names: list[int], gap_s: np.ndarray,
                 gap_e: np.ndarray) -> tuple[list[float], list[float]]:
    """Per name id of ``names``: the ns of the union of its rows inside the gaps, and the union's whole length (each
    an exact integer sum, as a float). One sort for all the names: each one's times are offset past the previous
    one's, so that one union of them all is the union of each (the offsets taken off again)."""
    code = np.full(int(name_id.max()) + 1, -1, dtype=np.int64)
    code[names] = np.arange(len(names))
    sel = np.flatnonzero(code[name_id] >= 0)
    s, e, g = start[sel], end[sel], code[name_id[sel]]
    base, width = int(s.min()), int(e.max()) - int(s.min()) + 1
    if width * len(names) >= 1 << 62:  # (offsets past int64: one name at a time)
        parts = [_name_unions(start, end, name_id, [i], gap_s, gap_e) for i in names]
        return [c for p in parts for c in p[0]], [o for p in parts for o in p[1]]
    seg_s, seg_e = union_segments(s - base + g * width, e - base + g * width)
    group = seg_s // width
    seg_s, seg_e = seg_s - group * width + base, seg_e - group * width + base
    first = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))  # (every name has a segment)
    cut = np.add.reduceat(busy_before(gap_s, gap_e, seg_e) - busy_before(gap_s, gap_e, seg_s), first)
    return [float(x) for x in cut.tolist()], [float(x) for x in np.add.reduceat(seg_e - seg_s, first).tolist()]


def host_gaps(ctx: TimelineContext, done: Done) -> Iterator[Finding]:
    """Per device: CPU-bound gaps, GPU idle stretches of at least ``min_gap_s`` between its operations adding up to
    at least ``min_share_pct`` of its rank's wall, with what fills them on the rank's host: the CUDA API call
    (runtime / driver calls and synchronisation) and the range (NVTX, user annotations, CPU operators) that fill
    most of that time (:func:`_most_overlap`). Kernels far apart are not launch-bound (issue 25 item 5:
    short launch calls, long host work between them). Intervals only."""
    facts, cfg = ctx.intervals, ctx.checks.host_gaps
    if facts is None:
        return
    tl = facts.tl
    min_gap_ns = cfg.min_gap_s / NS
    host_api = facts.rows.api, facts.rows.sync[tl.device[facts.rows.sync] < 0]
    ranges = facts.rows.annotation, np.flatnonzero(tl.kind == CPU_OP)
    api_of, ranges_of = rows_by_rank(tl, *host_api), rows_by_rank(tl, *ranges)
    for d in facts.devices:
        rk = d.rank if d.rank is not None else -1
        seg_s, seg_e = facts.segments[(rk, d.device)]
        long = (seg_s[1:] - seg_e[:-1]) >= min_gap_ns
        if not long.any():
            continue
        gap_s, gap_e = seg_e[:-1][long], seg_s[1:][long]
        t = float((gap_e - gap_s).sum()) * NS
        wall = facts.rank_wall_s(d.rank)
        if not wall or 100.0 * t / wall < cfg.min_share_pct:
            continue
        n, largest = int(long.sum()), float((gap_e - gap_s).max()) * NS
        api = _most_overlap(tl, api_of(rk), gap_s, gap_e)
        rng = _most_overlap(tl, ranges_of(rk), gap_s, gap_e)
        key = "tl_host_gaps" + {(True, True): "", (True, False): "_api", (False, True): "_range",
                                 (False, False): "_none"}[(bool(api), bool(rng))] + ("_one" if n == 1 else "")
        values = {"n": n, "device": d.device, "rank": d.rank, "time_s": t, "pct": 100.0 * t / wall,
                  "largest_s": largest, "limit_s": cfg.min_gap_s}
        evidence = [Evidence("host_gaps.gap_time", t, "s"), Evidence("host_gaps.gaps", n),
                    Evidence("host_gaps.largest_gap", largest, "s")]
        if api:
            values |= {"api": api[0], "api_s": api[1]}
            evidence.append(Evidence("host_gaps.api_time", api[1], "s"))
        if rng:
            values |= {"range": rng[0], "range_s": rng[1]}
            evidence.append(Evidence("host_gaps.range_time", rng[1], "s"))
        alone = facts.alone_in_rank(d)
        yield _finding("host_gaps", cfg.source, Note(key, values), tuple(evidence), saved=t if alone else None,
                       total_s=wall, total_name="rank_wall", why=_IDLE_WHY + " (an upper bound: the host work in the "
                       "gaps must move off the critical path)", no_estimate=_NOT_ALONE)


def low_utilisation(ctx: TimelineContext, done: Done) -> Iterator[Finding]:
    """Per device: busy below ``threshold_pct`` of its span, overall or in any of ``chunks`` equal slices
    (Nsight's gpu_time_util). The note says which of the two fired: a device busy above the threshold overall is
    told so ("busy 89.9% overall; 4 of 30 slices below 50%"), never as if its whole span were low, and it may save
    only the idle time of its low slices. Intervals only."""
    facts, cfg = ctx.intervals, ctx.checks.low_utilisation
    if facts is None:
        return
    thr, chunks = cfg.threshold_pct, cfg.chunks
    for d in facts.devices:
        if d.span_s <= 0:
            continue
        seg_s, seg_e = facts.segments[(d.rank if d.rank is not None else -1, d.device)]
        edges = np.linspace(d.start_ns, d.end_ns, chunks + 1).round().astype(np.int64)
        chunk_busy = np.diff(busy_before(seg_s, seg_e, edges))
        chunk_len = np.diff(edges)
        util = np.where(chunk_len > 0, 100.0 * chunk_busy / np.maximum(chunk_len, 1), 100.0)
        low_mask = util < thr
        low = int(low_mask.sum())
        overall = d.utilisation_pct < thr
        if not (overall or low):
            continue
        idle_s = d.idle_s if overall else float((chunk_len - chunk_busy)[low_mask].sum()) * 1e-9
        key = ("tl_low_utilisation_all" if low == chunks else "tl_low_utilisation") if overall \
            else "tl_low_utilisation_slices"  # every slice low: "all 10", not "10 of 10"
        note = Note(key,
                    {"device": d.device, "rank": d.rank, "util": d.utilisation_pct, "limit": thr, "low": low,
                     "chunks": chunks, "idle_s": idle_s})
        evidence = (Evidence("device.idle_time", idle_s, "s"), Evidence("low_utilisation.low_slices", low),
                    Evidence("device.utilisation", d.utilisation_pct, "%"))
        alone = facts.alone_in_rank(d)
        yield _finding("low_utilisation", cfg.source, note, evidence, saved=idle_s if alone else None,
                       total_s=facts.rank_wall_s(d.rank), total_name="rank_wall", why=_IDLE_WHY, no_estimate=_NOT_ALONE)


def tiny_kernels(ctx: TimelineContext, done: Done) -> Finding | None:
    """Kernels about as long as their launch cost (see :func:`.correlation.tiny_kernels`): CUDA Graphs or fusion
    would save the GPU idle time before their launches. One concern with :func:`launch_bound`: when that finding
    holds (it prices the graph), this one is not repeated."""
    tiny, cfg = ctx.tiny_kernels, ctx.checks.tiny_kernels
    if not tiny or done.get("launch_bound"):
        return None
    saved = sum(t.savings_s for t in tiny)
    launches = sum(t.launches for t in tiny)
    note = Note("tl_tiny_kernels", {"n": len(tiny), "launches": launches, "name": tiny[0].name, "savings_s": saved})
    evidence = (Evidence("tiny_kernels.savings", saved, "s"), Evidence("tiny_kernels.launches", launches),
                Evidence("tiny_kernels.names", len(tiny)))
    return _finding("tiny_kernels", cfg.source, note, evidence, saved=saved, total_s=ctx.program_s,
                    why="if that idle time were gone, assuming it is on the critical path")


def launch_bound(ctx: TimelineContext, done: Done) -> Finding | None:
    """At least ``min_launches`` kernel launches whose kernels run shorter than the host's time per launch (the GPU
    waits for the host), with a positive predicted saving from replaying them as one CUDA graph (the measured cost
    model ``[graph_replay]``, see :mod:`.graphs`). The program speedup (a timeline only; a summary has no wall time)
    counts the loop as then taking the longer of the graph replay and its kernels' own time."""
    lb, cfg = ctx.launch_bound, ctx.checks.launch_bound
    if lb is None or not lb.launch_bound or lb.bound_launches < cfg.min_launches or lb.predicted_saving_s <= 0:
        return None
    summary = lb.cost_source == "call_duration"
    ranks = not summary and lb.ranks > 1 and lb.program_saving_s is not None and ctx.intervals is not None
    key = "tl_launch_bound_summary" if summary else "tl_launch_bound_ranks" if ranks else "tl_launch_bound"
    note = Note(key, {
        "n": lb.bound_launches, "cost_s": lb.per_launch_s, "kernel_s": lb.kernel_s, "saving_s": lb.predicted_saving_s,
        "replay_s": lb.replay_s, "even": lb.break_even_nodes, "fixed_s": lb.replay_fixed_s,
        "per_node_s": lb.replay_per_node_s, "loop_s": lb.bound_launches * lb.per_launch_s,
        "bound_kernel_s": lb.bound_kernel_s or 0.0}
        | ({"ranks": lb.ranks, "wall_s": ctx.intervals.walls.wall_ns * 1e-9, "program_s": lb.program_saving_s}
           if ranks and ctx.intervals is not None else {}))
    evidence = (Evidence("launch_bound.predicted_saving", lb.predicted_saving_s, "s"),
                Evidence("launch_bound.launches", lb.bound_launches),
                Evidence("launch_bound.per_launch_cost", lb.per_launch_s, "s"),
                Evidence("launch_bound.kernel_time", lb.kernel_s, "s"),
                Evidence("launch_bound.graph_replay_cost", lb.replay_s, "s"),
                Evidence("launch_bound.break_even_nodes", lb.break_even_nodes))
    source = f"{cfg.source}; graph replay cost: {ctx.checks.graph_replay.source}"
    if summary:
        return _finding("launch_bound", source, note, evidence,
                        no_estimate="an nsys stats summary has no wall time to compare the saving with")
    return _finding("launch_bound", source, note, evidence, saved=lb.predicted_saving_s, total_s=ctx.program_s,
                    why="if those launches ran as one CUDA graph, the loop then taking the longer of the graph replay "
                        "and its kernels' own time, assuming it is on the critical path")


#: Every timeline check, in the order their findings are listed.
TIMELINE_RULES: tuple[Rule[TimelineContext], ...] = (
    Rule("sync_memcpy", sync_memcpy, doc="copies issued by synchronous calls block the host"),
    Rule("pageable_memcpy", pageable_memcpy, doc="copies from or to pageable host memory"),
    Rule("sync_memset", sync_memset, doc="memsets issued by synchronous calls"),
    Rule("gpu_gaps", gpu_gaps, doc="long idle stretches of a GPU"),
    Rule("host_gaps", host_gaps, doc="CPU-bound gaps: GPU idle between operations while the host does other work"),
    Rule("low_utilisation", low_utilisation, doc="a GPU busy for less than the threshold of its span"),
    Rule("launch_bound", launch_bound, doc="kernels shorter than the host's time per launch; what a CUDA graph saves"),
    Rule("tiny_kernels", tiny_kernels, parents=("launch_bound",), doc="kernels about as long as their launch cost"),
)

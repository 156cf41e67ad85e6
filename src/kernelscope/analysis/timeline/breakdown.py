"""Where each device's time goes: the per device and per stream split into kernel / copy / memset / idle time,
the program wall per rank, the ranks side by side and the time with no GPU work at all.

Busy time of a device is the UNION of its kernel, memcpy and memset intervals (copies are busy time, case C14), so
utilisation never exceeds 100 % (case C12); the plain sum over streams is reported apart with the overlap it
double-counts. Synchronisation records are host time: reported, never part of the split.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np

from ...notes import Note
from ...timeline_model import BUSY_KINDS, COPY_KIND_NAMES, KERNEL, MEMCPY, MEMSET, SYNC, Timeline
from .intervals import (
    ItemTimes, KindRows, Segments, busy_before, distinct, gap_histogram, item_times, rows_by_rank, union_length_ns,
    union_segments,
)
from .report import NS, CopyDirection, RankRow, Steps, TimeSplit

from .collectives import RankComm, compared


def rank_value(r: int) -> int | None:
    """A rank as reported: None for "not recorded" (-1)."""
    return None if r < 0 else int(r)


@dataclass(frozen=True)
class Walls:
    """Program wall time per rank (ns): from the first to the last recorded interval of any kind.

    Attributes:
        ranks: the distinct rank values (-1 = not recorded).
        by_rank: rank -> its wall (ns).
        wall_ns: the longest rank's wall (the program wall: the slowest rank ends the program; the time program
            Amdahl projections are of, :mod:`.scopes`).
        program_ns: the summed rank walls (for checks whose savings are summed over every rank); one rank: its wall.
        bounds: rank -> (first start, last end) of its wall, file clock (ns).
    """

    ranks: np.ndarray
    by_rank: Mapping[int, int]
    wall_ns: int
    program_ns: int
    bounds: Mapping[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def longest(self) -> int:
        """The rank with the longest wall."""
        return max(self.by_rank, key=lambda k: self.by_rank[k])


def walls(tl: Timeline) -> Walls:
    """The wall of every rank of a non-empty Timeline."""
    ranks = distinct(tl.rank)
    by_rank, bounds = {}, {}
    ordered = ranks.size > 1 and bool((tl.rank[1:] >= tl.rank[:-1]).all())  # (rank by rank: one slice each)
    for rk in ranks.tolist():
        if ordered:
            m = slice(int(np.searchsorted(tl.rank, rk, "left")), int(np.searchsorted(tl.rank, rk, "right")))
        else:
            m = tl.rank == rk if ranks.size > 1 else slice(None)
        bounds[rk] = (int(tl.start_ns[m].min()), int(tl.end_ns[m].max()))
        by_rank[rk] = bounds[rk][1] - bounds[rk][0]
    return Walls(ranks, by_rank, max(by_rank.values()), sum(by_rank.values()), bounds)


def copy_directions(dur: np.ndarray, copy_kind: np.ndarray, nbytes: np.ndarray,
                    pageable: np.ndarray) -> tuple[CopyDirection, ...]:
    """Copies summed per direction, largest total first."""
    out = []
    for code in np.unique(copy_kind).tolist():
        m = copy_kind == code
        d = dur[m]
        b = nbytes[m]
        known = b >= 0
        total = float(d.sum()) * NS
        total_bytes = int(b[known].sum()) if known.any() else None
        thr = (total_bytes / total) if total_bytes is not None and total > 0 and known.all() else None
        pg = pageable[m]
        out.append(CopyDirection(
            direction=COPY_KIND_NAMES[code], count=int(m.sum()), total_s=total, bytes=total_bytes,
            throughput_bytes_per_s=thr, pageable_s=float(d[pg == 1].sum()) * NS, pinned_s=float(d[pg == 0].sum()) * NS,
            unknown_memory_s=float(d[pg < 0].sum()) * NS,
        ))
    out.sort(key=lambda c: -c.total_s)
    return tuple(out)


def _copies_of(tl: Timeline, c_idx: np.ndarray, dur: np.ndarray) -> tuple[CopyDirection, ...]:
    """:func:`copy_directions` of the copy rows ``c_idx`` (durations ``dur``): only their columns gathered."""
    if c_idx.size == 0:
        return ()
    return copy_directions(dur, tl.copy_kind[c_idx], tl.bytes[c_idx], tl.pageable[c_idx])


def split_of(tl: Timeline, idx: np.ndarray, sync_idx: np.ndarray, rank: int | None, device: int, stream: int | None,
             with_gaps: bool) -> tuple[TimeSplit, tuple[np.ndarray, np.ndarray]]:
    """Split of the GPU rows ``idx`` (already sorted by start) and their busy union segments. ``sync_idx``: the
    synchronisation rows of the same device (or stream)."""
    start = tl.start_ns[idx]
    end = tl.end_ns[idx]
    kind = tl.kind[idx]
    dur = end - start
    is_k, is_c, is_m = kind == KERNEL, kind == MEMCPY, kind == MEMSET
    span_start, span_end = int(start[0]), int(end.max())
    span = span_end - span_start
    seg_s, seg_e = union_segments(start, end, presorted=True)
    busy = int((seg_e - seg_s).sum())
    n_k, n_c, n_m = int(is_k.sum()), int(is_c.sum()), int(is_m.sum())
    all_kernels = n_k == kind.shape[0]
    # the unions of the parts; the common all-kernel case needs none of them again
    k_union = busy if all_kernels else union_length_ns(start[is_k], end[is_k], presorted=True)
    if n_m == 0:
        kc_union = busy
    else:
        kc = is_k | is_c
        kc_union = union_length_ns(start[kc], end[kc], presorted=True)
    c_union = union_length_ns(start[is_c], end[is_c], presorted=True) if n_c else 0
    k_sum = int(dur.sum()) if all_kernels else int(dur[is_k].sum())
    c_sum, m_sum = (int(dur[is_c].sum()) if n_c else 0), (int(dur[is_m].sum()) if n_m else 0)
    total_sum = k_sum + c_sum + m_sum
    gaps_between = seg_s[1:] - seg_e[:-1]
    if gaps_between.size:
        g = int(np.argmax(gaps_between))
        largest_gap, largest_gap_start = int(gaps_between[g]), int(seg_e[g])
    else:
        largest_gap, largest_gap_start = 0, None
    sync_s = union_length_ns(tl.start_ns[sync_idx], tl.end_ns[sync_idx]) * NS if sync_idx.size else 0.0
    gaps = None
    if with_gaps:
        gaps = gap_histogram(start, end) if all_kernels else gap_histogram(start[is_k], end[is_k])
    split = TimeSplit(
        rank=rank, device=device, stream=stream, device_name=tl.device_name(device),
        start_ns=span_start, end_ns=span_end, span_s=span * NS, busy_s=busy * NS,
        kernel_s=k_union * NS, memcpy_s=(kc_union - k_union) * NS, memset_s=(busy - kc_union) * NS,
        idle_s=(span - busy) * NS, utilisation_pct=(100.0 * busy / span) if span > 0 else None,  # zero span: not measurable
        sum_over_streams_s=total_sum * NS, overlap_s=(total_sum - busy) * NS,
        kernel_sum_s=k_sum * NS, memcpy_sum_s=c_sum * NS, memset_sum_s=m_sum * NS,
        copy_compute_overlap_s=(k_union + c_union - kc_union) * NS,
        copies=_copies_of(tl, idx[is_c], dur[is_c]),
        sync_s=sync_s, kernel_count=n_k, memcpy_count=n_c, memset_count=n_m, gaps=gaps,
        largest_gap_s=largest_gap * NS, largest_gap_start_ns=largest_gap_start,
    )
    return split, (seg_s, seg_e)


def device_groups(tl: Timeline) -> list[np.ndarray]:
    """The GPU (busy-kind) rows of each (rank, device), each sorted by start, in (rank, device) order."""
    gpu_rows = np.flatnonzero(np.isin(tl.kind, np.asarray(BUSY_KINDS, dtype=np.uint8)))
    if gpu_rows.size == 0:
        return []
    g_dev, g_rank = tl.device[gpu_rows], tl.rank[gpu_rows]
    if g_dev.min() == g_dev.max() and g_rank.min() == g_rank.max():
        return [gpu_rows[np.argsort(tl.start_ns[gpu_rows], kind="stable")]]  # one device: a (mostly sorted) timsort
    order = gpu_rows[np.lexsort((tl.start_ns[gpu_rows], g_dev, g_rank))]
    del g_dev, g_rank, gpu_rows  # large index arrays no longer needed
    dev_key = (tl.rank[order].astype(np.int64) << 16) | (tl.device[order].astype(np.int64) & 0xFFFF)
    return np.split(order, np.flatnonzero(np.diff(dev_key)) + 1)


@dataclass(frozen=True)
class Breakdown:
    """The split of every device and stream, each device's busy union (for the gap and idle checks) and, aligned
    with ``devices``, each device's per-item times (:func:`.intervals.item_times`; keys ``kind * len(names) +
    name_id``)."""

    devices: tuple[TimeSplit, ...]
    streams: tuple[TimeSplit, ...]
    segments: Segments
    items: tuple[ItemTimes, ...] = ()


def breakdown(tl: Timeline) -> Breakdown:
    """Split every device of ``tl`` and every stream of it, with their host synchronisation time."""
    sync_rows = np.flatnonzero(tl.kind == SYNC)
    devices: list[TimeSplit] = []
    streams: list[TimeSplit] = []
    segments: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
    items: list[ItemTimes] = []
    for g in device_groups(tl):
        rk, dv = int(tl.rank[g[0]]), int(tl.device[g[0]])
        sync_g = sync_rows[(tl.rank[sync_rows] == rk) & (tl.device[sync_rows] == dv)] if sync_rows.size else sync_rows
        split, segs = split_of(tl, g, sync_g, rank_value(rk), dv, None, with_gaps=True)
        devices.append(split)
        segments[(rk, dv)] = segs
        streams += _stream_splits(tl, g, sync_g, split)
        key = tl.kind[g].astype(np.int64) * len(tl.names) + tl.name_id[g]
        items.append(item_times(key, tl.start_ns[g], tl.end_ns[g], overlapping=split.overlap_s > 0,
                                presorted=True))
    streams.sort(key=lambda s: (s.rank or -1, s.device, -s.busy_s))
    return Breakdown(tuple(devices), tuple(streams), segments, tuple(items))


def _stream_splits(tl: Timeline, g: np.ndarray, sync_g: np.ndarray, device: TimeSplit) -> list[TimeSplit]:
    """The split of each stream of one device's rows ``g`` (sorted by start)."""
    st = tl.stream[g]
    s_ids = distinct(st)
    if s_ids.size == 1:  # one stream: its split is the device's
        s_id = int(s_ids[0])
        sync_s = sync_g[tl.stream[sync_g] == s_id] if sync_g.size else sync_g
        return [replace(device, stream=s_id, gaps=None,
                        sync_s=union_length_ns(tl.start_ns[sync_s], tl.end_ns[sync_s]) * NS)]
    if s_ids.size <= 64:  # a few streams: masks keep the start order
        parts = [g[st == x] for x in s_ids.tolist()]
    else:
        s_order = np.argsort(st, kind="stable")  # keeps start order within each stream
        parts = np.split(g[s_order], np.flatnonzero(np.diff(st[s_order])) + 1)
    out = []
    for sg in parts:
        s_id = int(tl.stream[sg[0]])
        sync_s = sync_g[tl.stream[sync_g] == s_id] if sync_g.size else sync_g
        out.append(split_of(tl, sg, sync_s, device.rank, device.device, s_id, with_gaps=False)[0])
    return out


def host_api_ns(tl: Timeline, api_rows: np.ndarray, rank: int, one_rank: bool) -> int | None:
    """Host time of one rank in CUDA API calls: the union of its API intervals (ns; None when it has none)."""
    a = api_rows if one_rank else api_rows[tl.rank[api_rows] == rank]
    return union_length_ns(tl.start_ns[a], tl.end_ns[a]) if a.size else None


def rank_rows(tl: Timeline, w: Walls, devices: tuple[TimeSplit, ...], rows: KindRows,
              comms: Sequence[RankComm], wait_ns: Mapping[int, int],
              no_gpu_ns: Mapping[int, int] | None = None) -> tuple[tuple[RankRow, ...], int | None, Note | None]:
    """Every rank side by side, the straggler (the largest own time: wall minus collective wait, per
    ``ProfilerStep`` when the ranks hold different step counts, :func:`.collectives.compared`; ties the most
    computation; None with one rank) and the note naming it. ``comms``: each rank's computation and communication
    unions (:mod:`.collectives`, in ``w.ranks`` order); ``wait_ns``: rank -> its collective wait; ``no_gpu_ns``:
    per rank, the time of its wall with no GPU work (ranks without GPU work absent)."""
    out = []
    api_of = rows_by_rank(tl, rows.api)
    for rk, c in zip(w.ranks.tolist(), comms):
        ds = [d for d in devices if (d.rank if d.rank is not None else -1) == rk]
        span = sum(d.span_s for d in ds)
        api_ns = host_api_ns(tl, rows.api if w.ranks.size == 1 else api_of(rk), rk, True)
        no_gpu = (no_gpu_ns or {}).get(rk)
        wait = int(wait_ns.get(rk, 0))
        out.append(RankRow(
            rank=rank_value(rk), wall_s=w.by_rank[rk] * NS, busy_s=sum(d.busy_s for d in ds),
            kernel_s=sum(d.kernel_s for d in ds), memcpy_s=sum(d.memcpy_s for d in ds),
            memset_s=sum(d.memset_s for d in ds), idle_s=sum(d.idle_s for d in ds),
            utilisation_pct=(100.0 * sum(d.busy_s for d in ds) / span) if span > 0 else None,
            communication_s=c.communication_ns * NS, computation_s=c.compute_ns * NS,
            host_api_s=api_ns * NS if api_ns is not None else None,
            no_gpu_s=no_gpu * NS if no_gpu is not None else None,
            overlap_s=c.overlap_ns * NS, exposed_communication_s=c.exposed_ns * NS, collective_wait_s=wait * NS,
            own_s=(w.by_rank[rk] - wait) * NS, communication_sum_s=c.comm_sum_ns * NS))
    if len(out) < 2:
        return tuple(out), None, None
    per_rank_steps = step_times(tl, rows.annotation)
    values, _ = compared([x.own_s for x in out], [len(per_rank_steps.get(rk, {})) for rk in w.ranks.tolist()])
    slowest = max(zip(values, out), key=lambda p: (p[0], p[1].computation_s))[1]
    others = [x for x in out if x is not slowest]
    median_own = statistics.median(x.own_s for x in out)
    note = Note("tl_straggler_rank", {
        "rank": slowest.rank, "own_s": slowest.own_s, "wall_s": slowest.wall_s, "wait_s": slowest.collective_wait_s,
        "own_pct": 100.0 * slowest.own_s / slowest.wall_s if slowest.wall_s > 0 else None,
        "others_wait_s": statistics.median(x.collective_wait_s for x in others), "computation_s": slowest.computation_s,
        "median_own_s": median_own})
    return tuple(out), slowest.rank, note


def program_idle(tl: Timeline, rank: int, wall_ns: int, api_rows: np.ndarray, dur: np.ndarray,
                 segs: tuple[np.ndarray, np.ndarray] | None = None
                 ) -> tuple[float, tuple[str, float, float, bool] | None]:
    """Time of one rank's wall with no GPU work on any of its devices (s), and the API call covering most of that
    idle time on the host: (name, seconds, its longest single call's part in seconds, whether that call is the
    rank's first CUDA API call). ``segs``: the rank's busy union when already known (one device)."""
    if segs is None:
        m = np.isin(tl.kind, np.asarray(BUSY_KINDS, dtype=np.uint8)) & (tl.rank == rank)
        segs = union_segments(tl.start_ns[m], tl.end_ns[m])
    seg_s, seg_e = segs
    idle_ns = wall_ns - int((seg_e - seg_s).sum())
    host = None
    a = api_rows[tl.rank[api_rows] == rank] if api_rows.size else api_rows
    if a.size and idle_ns > 0:
        busy_in = busy_before(seg_s, seg_e, tl.end_ns[a]) - busy_before(seg_s, seg_e, tl.start_ns[a])
        in_idle = np.maximum(dur[a] - busy_in, 0).astype(np.float64)
        per_name = np.bincount(tl.name_id[a], weights=in_idle, minlength=len(tl.names))
        top = int(np.argmax(per_name))
        if per_name[top] > 0:
            mine = np.flatnonzero(tl.name_id[a] == top)
            longest = int(mine[np.argmax(in_idle[mine])])
            first = int(np.argmin(tl.start_ns[a]))
            host = (tl.names[top], float(per_name[top]) * NS, float(in_idle[longest]) * NS, longest == first)
    return idle_ns * NS, host


#: A PyTorch profiler step range: ``ProfilerStep#N``.
STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")


def step_times(tl: Timeline, ann_rows: np.ndarray) -> dict[int, dict[int, int]]:
    """rank -> {step number N: its duration, ns} from the ``ProfilerStep#N`` annotation rows ``ann_rows`` (a step
    recorded twice, e.g. by two threads, keeps its longest range)."""
    ids = [i for i, n in enumerate(tl.names) if STEP_NAME.match(n)]
    if not ids or ann_rows.size == 0:
        return {}
    number = {i: int(STEP_NAME.match(tl.names[i]).group(1)) for i in ids}  # type: ignore[union-attr]
    sel = ann_rows[np.isin(tl.name_id[ann_rows], np.asarray(ids, dtype=tl.name_id.dtype))]
    out: dict[int, dict[int, int]] = {}
    for rk, nid, d in zip(tl.rank[sel].tolist(), tl.name_id[sel].tolist(),
                          (tl.end_ns[sel] - tl.start_ns[sel]).tolist()):
        per = out.setdefault(int(rk), {})
        n = number[nid]
        per[n] = max(per.get(n, 0), int(d))
    return out


def step_stats(per_step: Mapping[int, int], rank: int | None) -> Steps | None:
    """Median, slowest and fastest step and the step-to-step spread of ``{N: duration ns}``; None when empty."""
    if not per_step:
        return None
    nums = sorted(per_step)
    durs = [per_step[n] for n in nums]
    med = statistics.median(durs)
    hi = max(durs)
    lo = min(durs)
    return Steps(rank=rank, count=len(nums), first=nums[0], last=nums[-1], median_s=med * NS, slowest_s=hi * NS,
                 slowest_step=nums[durs.index(hi)], fastest_s=lo * NS,
                 spread_pct=100.0 * (hi - lo) / med if med > 0 else 0.0, durations_s=tuple(d * NS for d in durs))


def steps_of(tl: Timeline, ann_rows: np.ndarray, rank: int | None) -> Steps | None:
    """The :class:`~.report.Steps` of one rank (``rank``: its value, None: the first rank recording steps)."""
    per_rank = step_times(tl, ann_rows)
    if not per_rank:
        return None
    rk = -1 if rank is None else rank
    if rk not in per_rank:
        rk = min(per_rank)
    return step_stats(per_rank[rk], rank_value(rk))

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

Thresholds of the expert checks are data: ``data/timeline_rules.toml``, each with its source.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np

from ..knowledge import raw
from ..notes import Note
from ..timeline_model import (
    ANNOTATION,
    BUSY_KINDS,
    COPY_DTOD,
    COPY_HTOD,
    COPY_KIND_NAMES,
    KERNEL,
    MEMCPY,
    MEMSET,
    RUNTIME_API,
    SYNC,
    InvalidRecord,
    SummaryRow,
    Timeline,
    TimelineSummary,
)

NS = 1e-9

#: Gap histogram bin edges between consecutive kernels on one device, in seconds.
GAP_EDGES_S: tuple[float, ...] = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, math.inf)


def rules() -> Mapping:
    """The parsed ``data/timeline_rules.toml``."""
    return raw("timeline_rules.toml")


# ======================================================================================= result objects
@dataclass(frozen=True)
class Amdahl:
    """Amdahl projection for one item taking ``fraction`` of the program time.

    ``speedups[i]`` is the program speedup (x) if the item became ``factors[i]`` times faster (``inf`` = the item
    vanished); ``saved_fraction[i]`` the share of the program time that would be saved (``fraction * (1 - 1/s)``).
    """

    fraction: float
    factors: tuple[float, ...]
    speedups: tuple[float, ...]
    saved_fraction: tuple[float, ...]


def amdahl_speedup(fraction: float, factor: float) -> float:
    """Program speedup when a part taking ``fraction`` (0-1) of the time becomes ``factor`` times faster."""
    fraction = min(max(fraction, 0.0), 1.0)
    rest = 1.0 - fraction + (0.0 if math.isinf(factor) else fraction / factor)
    return math.inf if rest <= 0 else 1.0 / rest


def amdahl(fraction: float, factors: Sequence[float] | None = None) -> Amdahl:
    """Amdahl projection for the factors of ``timeline_rules.toml`` ``[amdahl]`` (default 2x, 10x) and infinity."""
    fs = tuple(float(f) for f in (factors if factors is not None else rules()["amdahl"]["factors"])) + (math.inf,)
    fraction = min(max(float(fraction), 0.0), 1.0)
    return Amdahl(
        fraction=fraction, factors=fs,
        speedups=tuple(amdahl_speedup(fraction, f) for f in fs),
        saved_fraction=tuple(fraction * (1.0 - (0.0 if math.isinf(f) else 1.0 / f)) for f in fs),
    )


@dataclass(frozen=True)
class ItemStat:
    """One named item (kernel, copy kind, API call, annotation range) summed over its occurrences.

    Attributes:
        kind: interval kind name ("kernel", "memcpy", "memset", "runtime_api", "sync", "annotation").
        name: its name (a name cut by ``nsys stats`` keeps its ellipsis; ``truncated`` says so).
        count: launches / calls.
        total_s, mean_s, min_s, max_s, median_s: times in seconds (median None where not computed).
        share_pct: share of its category's total (kernels: of the summed kernel time, as nsys' "Time (%)").
        program_fraction: total / program wall time (0-1), the Amdahl fraction; None when there is no wall time.
        amdahl: the projection for ``program_fraction``.
        bytes: bytes moved (copies / memsets), None when not recorded.
        throughput_bytes_per_s: bytes / total time, for copies.
        truncated: the name was cut by the profiler.
    """

    kind: str
    name: str
    count: int
    total_s: float
    mean_s: float | None
    min_s: float | None
    max_s: float | None
    median_s: float | None = None
    share_pct: float | None = None
    program_fraction: float | None = None
    amdahl: Amdahl | None = None
    bytes: int | None = None
    throughput_bytes_per_s: float | None = None
    truncated: bool = False


@dataclass(frozen=True)
class CopyDirection:
    """Copies of one direction on one device (plain sums; copies on several streams may overlap)."""

    direction: str
    count: int
    total_s: float
    bytes: int | None
    throughput_bytes_per_s: float | None
    pageable_s: float
    pinned_s: float
    unknown_memory_s: float


@dataclass(frozen=True)
class GapHistogram:
    """Gaps between consecutive kernels on one device (a gap = next start - latest end so far).

    ``edges_s`` are the bin edges; ``counts[i]`` / ``totals_s[i]`` the number and summed length of gaps in
    ``[edges_s[i], edges_s[i+1])``; ``overlapping`` kernels that started before the previous ones ended.
    """

    edges_s: tuple[float, ...]
    counts: tuple[int, ...]
    totals_s: tuple[float, ...]
    overlapping: int


@dataclass(frozen=True)
class TimeSplit:
    """Wall time of one device (``stream`` None) or one stream split into kernel / copy / memset / idle time.

    Attributes:
        rank: distributed rank, None when not recorded.
        device: CUDA device id.
        stream: stream id, or None for the whole device.
        device_name: GPU name from the file, or None.
        start_ns, end_ns: the span (first to last GPU operation), file clock.
        span_s: ``end - start`` in seconds.
        busy_s: union of kernel, memcpy and memset intervals.
        kernel_s: time at least one kernel ran (union of kernels).
        memcpy_s: time copies ran while no kernel did.
        memset_s: time memsets ran while no kernel or copy did.
        idle_s: ``span - busy``.
        utilisation_pct: ``busy / span`` (0-100, never above 100).
        sum_over_streams_s: plain sum of all busy intervals (counts overlapping streams twice: NOT wall time).
        overlap_s: ``sum_over_streams - busy``: time counted more than once by that sum (inter-stream overlap).
        kernel_sum_s, memcpy_sum_s, memset_sum_s: plain sums per kind.
        copy_compute_overlap_s: copy time hidden under kernels.
        copies: per direction.
        sync_s: host time spent in synchronisation records of this device (union); overlaps the split.
        kernel_count, memcpy_count, memset_count: interval counts.
        gaps: kernel-to-kernel gap histogram (devices only).
        largest_gap_s, largest_gap_start_ns: the longest idle gap between busy intervals.
    """

    rank: int | None
    device: int
    stream: int | None
    device_name: str | None
    start_ns: int
    end_ns: int
    span_s: float
    busy_s: float
    kernel_s: float
    memcpy_s: float
    memset_s: float
    idle_s: float
    utilisation_pct: float
    sum_over_streams_s: float
    overlap_s: float
    kernel_sum_s: float
    memcpy_sum_s: float
    memset_sum_s: float
    copy_compute_overlap_s: float
    copies: tuple[CopyDirection, ...]
    sync_s: float
    kernel_count: int
    memcpy_count: int
    memset_count: int
    gaps: GapHistogram | None = None
    largest_gap_s: float = 0.0
    largest_gap_start_ns: int | None = None


@dataclass(frozen=True)
class LaunchOverhead:
    """API call -> kernel start latency, joined on correlation id (within a rank).

    Attributes:
        matched: kernels whose launch call was found; ``unmatched`` those without.
        latency_*_s: kernel start - API call start.
        api_median_s: median host duration of the launch calls.
    """

    matched: int
    unmatched: int
    latency_mean_s: float | None
    latency_median_s: float | None
    latency_p95_s: float | None
    latency_max_s: float | None
    api_median_s: float | None


@dataclass(frozen=True)
class TinyKernel:
    """A kernel name whose launches are about as long as their launch cost: a CUDA Graphs / fusion candidate.

    Attributes:
        name: kernel name. launches: how many. median_s: its median duration. total_s: its total.
        launch_cost_s: median host time of its launch call, None when the launch calls were not recorded.
        gap_before_s: GPU idle time just before its launches, each capped at the launch cost (what Graphs or fusion
            could save: ``savings_s``).
    """

    name: str
    launches: int
    median_s: float
    total_s: float
    launch_cost_s: float | None
    savings_s: float


@dataclass(frozen=True)
class BlackHole:
    """The single largest place the time goes: ``category`` ("kernel", "memcpy", "memset", "gpu_idle") and the
    item ``name``; ``time_s`` and its ``program_fraction`` with the Amdahl projection. For "gpu_idle" (time in the
    program wall with no GPU work at all), ``host_api`` / ``host_api_s`` name the CUDA API call that covers most
    of that idle time on the host (None when no API call was recorded)."""

    category: str
    name: str
    time_s: float
    program_fraction: float | None
    amdahl: Amdahl | None
    host_api: str | None = None
    host_api_s: float | None = None


@dataclass(frozen=True)
class Finding:
    """One expert check that fired: ``rule`` (a table of ``timeline_rules.toml``), the worded ``note``, the time it
    concerns, how many intervals, and the rule's source."""

    rule: str
    note: Note
    time_s: float | None
    count: int
    source: str


@dataclass(frozen=True)
class RankRow:
    """One rank side by side with the others (sums over its devices)."""

    rank: int | None
    wall_s: float
    busy_s: float
    kernel_s: float
    memcpy_s: float
    memset_s: float
    idle_s: float
    utilisation_pct: float | None
    communication_s: float
    computation_s: float


@dataclass(frozen=True)
class TimelineReport:
    """Everything ``kernelscope timeline`` says about one program run.

    Attributes:
        path, format, tool_version: the input.
        source: "intervals" (a Timeline) or "summary" (``nsys stats`` per-name summaries).
        title: extra label (e.g. "run 2 of 6" for a file with several captures), or None.
        wall_s: program wall time (None for a summary); ``program_time_s`` the time Amdahl fractions are of
            (= wall time, or for a summary the summed GPU kernel + copy + memset time, stated in ``notes``).
        devices: per device split (empty for a summary); ``streams`` per stream.
        host_api_s: union of host-side CUDA API time (None when not recorded).
        kernels, copies, memsets, api_calls, syncs, annotations: ranked by total time, largest first.
        launch: launch overhead, None when not computable.
        tiny_kernels: CUDA Graphs / fusion candidates.
        black_hole: the largest single item.
        ranks: per-rank rows (more than one only for multi-rank traces); ``slowest_rank`` the straggler.
        findings: expert checks that fired.
        not_computable: quantities the input cannot give (e.g. "idle", "overlap" for a summary).
        notes: other statements (Notes).
        invalid: records found but not usable; ``problems``: data problems.
        devices_named: (id, name) of the GPUs recorded.
    """

    path: str
    format: str
    source: str
    wall_s: float | None
    program_time_s: float | None
    devices: tuple[TimeSplit, ...]
    streams: tuple[TimeSplit, ...]
    host_api_s: float | None
    kernels: tuple[ItemStat, ...]
    copies: tuple[ItemStat, ...]
    memsets: tuple[ItemStat, ...]
    api_calls: tuple[ItemStat, ...]
    syncs: tuple[ItemStat, ...]
    annotations: tuple[ItemStat, ...]
    launch: LaunchOverhead | None
    tiny_kernels: tuple[TinyKernel, ...]
    black_hole: BlackHole | None
    ranks: tuple[RankRow, ...]
    slowest_rank: int | None
    findings: tuple[Finding, ...]
    not_computable: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    invalid: tuple[InvalidRecord, ...] = ()
    problems: tuple[str, ...] = ()
    tool_version: str | None = None
    title: str | None = None
    devices_named: tuple[tuple[int, str], ...] = ()
    gap_edges_s: tuple[float, ...] = GAP_EDGES_S

    @property
    def kernel_time_s(self) -> float:
        """Summed kernel time (all kernels, plain sum)."""
        return float(sum(k.total_s for k in self.kernels))


# ============================================================================================ interval core
def union_segments(start: np.ndarray, end: np.ndarray, presorted: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The union of intervals ``[start, end)`` as disjoint sorted segments (int64 ns), vectorised."""
    if start.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if not presorted:
        order = np.argsort(start, kind="stable")
        start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    new = np.empty(start.shape[0], dtype=bool)
    new[0] = True
    np.greater(start[1:], reach[:-1], out=new[1:])
    first = np.flatnonzero(new)
    last = np.empty_like(first)
    last[:-1] = first[1:] - 1
    last[-1] = start.shape[0] - 1
    return start[first], reach[last]


def union_length_ns(start: np.ndarray, end: np.ndarray, presorted: bool = False) -> int:
    """Length of the union of intervals in ns (exact integer)."""
    s, e = union_segments(start, end, presorted)
    return int((e - s).sum())


def _busy_before(seg_s: np.ndarray, seg_e: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Busy ns before each time ``t`` given disjoint sorted segments (vectorised)."""
    lengths = seg_e - seg_s
    cum = np.concatenate([[0], np.cumsum(lengths)])
    idx = np.searchsorted(seg_s, t, side="right")  # segments starting at or before t
    prev = np.maximum(idx - 1, 0)
    partial = np.where(idx > 0, np.minimum(t, seg_e[prev]) - seg_s[prev], 0)
    return cum[np.maximum(idx - 1, 0)] * (idx > 0) + np.maximum(partial, 0)


def _gap_histogram(start: np.ndarray, end: np.ndarray) -> GapHistogram:
    """Gaps between consecutive kernels (sorted by start)."""
    edges = GAP_EDGES_S
    if start.shape[0] < 2:
        return GapHistogram(edges, (0,) * (len(edges) - 1), (0.0,) * (len(edges) - 1), 0)
    gaps = np.maximum.accumulate(end)[:-1]
    np.subtract(start[1:], gaps, out=gaps)  # gap = next start - latest end so far
    overlapping = int((gaps < 0).sum())
    if overlapping:
        gaps = gaps[gaps >= 0]
    edges_ns = np.array([round(e / NS) for e in edges[1:-1]], dtype=np.int64)
    bins = np.searchsorted(edges_ns, gaps, side="right")
    counts = np.bincount(bins, minlength=len(edges) - 1)
    totals = np.bincount(bins, weights=gaps, minlength=len(edges) - 1) * NS
    return GapHistogram(edges, tuple(int(c) for c in counts), tuple(float(t) for t in totals), overlapping)


def _copy_directions(dur: np.ndarray, copy_kind: np.ndarray, nbytes: np.ndarray, pageable: np.ndarray) -> tuple[CopyDirection, ...]:
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


def _split(tl: Timeline, idx: np.ndarray, sync_idx: np.ndarray, rank: int | None, device: int, stream: int | None,
           with_gaps: bool) -> tuple[TimeSplit, np.ndarray | None, tuple[np.ndarray, np.ndarray]]:
    """Split of the GPU rows ``idx`` (already sorted by start). Returns the split, for devices the idle gap
    before each row of ``idx`` (ns, >= 0), and the busy union segments."""
    start = tl.start_ns[idx]
    end = tl.end_ns[idx]
    kind = tl.kind[idx]
    dur = end - start
    is_k = kind == KERNEL
    is_c = kind == MEMCPY
    is_m = kind == MEMSET
    span_start, span_end = int(start[0]), int(end.max())
    span = span_end - span_start
    seg_s, seg_e = union_segments(start, end, presorted=True)
    busy = int((seg_e - seg_s).sum())
    n_k, n_c, n_m = int(is_k.sum()), int(is_c.sum()), int(is_m.sum())
    # the unions of the parts; the common all-kernel case needs none of them again
    k_union = busy if n_k == kind.shape[0] else union_length_ns(start[is_k], end[is_k], presorted=True)
    if n_m == 0:
        kc_union = busy
    else:
        kc = is_k | is_c
        kc_union = union_length_ns(start[kc], end[kc], presorted=True)
    c_union = union_length_ns(start[is_c], end[is_c], presorted=True) if n_c else 0
    k_sum = int(dur.sum()) if n_k == kind.shape[0] else int(dur[is_k].sum())
    c_sum, m_sum = (int(dur[is_c].sum()) if n_c else 0), (int(dur[is_m].sum()) if n_m else 0)
    total_sum = k_sum + c_sum + m_sum
    gaps_between = seg_s[1:] - seg_e[:-1]
    if gaps_between.size:
        g = int(np.argmax(gaps_between))
        largest_gap, largest_gap_start = int(gaps_between[g]), int(seg_e[g])
    else:
        largest_gap, largest_gap_start = 0, None
    sync_s = 0.0
    if sync_idx.size:
        ss, se = tl.start_ns[sync_idx], tl.end_ns[sync_idx]
        sync_s = union_length_ns(ss, se) * NS
    split = TimeSplit(
        rank=rank, device=device, stream=stream, device_name=tl.device_name(device),
        start_ns=span_start, end_ns=span_end, span_s=span * NS, busy_s=busy * NS,
        kernel_s=k_union * NS, memcpy_s=(kc_union - k_union) * NS, memset_s=(busy - kc_union) * NS,
        idle_s=(span - busy) * NS, utilisation_pct=(100.0 * busy / span) if span > 0 else 100.0,
        sum_over_streams_s=total_sum * NS, overlap_s=(total_sum - busy) * NS,
        kernel_sum_s=k_sum * NS, memcpy_sum_s=c_sum * NS, memset_sum_s=m_sum * NS,
        copy_compute_overlap_s=(k_union + c_union - kc_union) * NS,
        copies=_copy_directions(dur[is_c], tl.copy_kind[idx][is_c], tl.bytes[idx][is_c], tl.pageable[idx][is_c]),
        sync_s=sync_s, kernel_count=n_k, memcpy_count=n_c, memset_count=n_m,
        gaps=(_gap_histogram(start, end) if n_k == kind.shape[0] else _gap_histogram(start[is_k], end[is_k]))
        if with_gaps else None,
        largest_gap_s=largest_gap * NS, largest_gap_start_ns=largest_gap_start,
    )
    return split, None, (seg_s, seg_e)


# ============================================================================================ grouping
def _distinct(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values; O(n) without sorting when all values are equal (the common one-rank/one-stream case)."""
    if a.size and a.min() == a.max():
        return a[:1].copy()
    return np.unique(a)


def _rank_value(r: int) -> int | None:
    return None if r < 0 else int(r)


def _group_stats(kind_name: str, name_ids: np.ndarray, dur_ns: np.ndarray, names: Sequence[str],
                 nbytes: np.ndarray | None, wall_ns: int | None, median_top: int) -> tuple[ItemStat, ...]:
    """Per-name count / total / mean / min / max (vectorised), largest total first; medians for the first
    ``median_top`` items."""
    if name_ids.size == 0:
        return ()
    n_names = len(names)
    counts = np.bincount(name_ids, minlength=n_names)
    totals = np.bincount(name_ids, weights=dur_ns.astype(np.float64), minlength=n_names)
    present = np.flatnonzero(counts)
    mins = np.full(n_names, np.iinfo(np.int64).max, dtype=np.int64)
    maxs = np.full(n_names, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(mins, name_ids, dur_ns)
    np.maximum.at(maxs, name_ids, dur_ns)
    byts = None
    if nbytes is not None:
        known = nbytes >= 0
        byts = np.bincount(name_ids[known], weights=nbytes[known].astype(np.float64), minlength=n_names)
        unknown_counts = np.bincount(name_ids[~known], minlength=n_names)
    order = present[np.argsort(-totals[present], kind="stable")]
    grand = float(totals[present].sum())
    fs = tuple(float(f) for f in rules()["amdahl"]["factors"])
    out = []
    for rank_i, i in enumerate(order.tolist()):
        total_s = float(totals[i]) * NS
        median = None
        if rank_i < median_top:
            median = float(np.median(dur_ns[name_ids == i])) * NS
        b = None
        thr = None
        if byts is not None and unknown_counts[i] == 0:
            b = int(byts[i])
            thr = b / total_s if total_s > 0 else None
        frac = (float(totals[i]) / wall_ns) if wall_ns else None
        out.append(ItemStat(
            kind=kind_name, name=names[i], count=int(counts[i]), total_s=total_s,
            mean_s=total_s / int(counts[i]), min_s=int(mins[i]) * NS, max_s=int(maxs[i]) * NS, median_s=median,
            share_pct=(100.0 * float(totals[i]) / grand) if grand > 0 else None,
            program_fraction=min(frac, 1.0) if frac is not None else None,
            amdahl=amdahl(frac, fs) if frac is not None else None, bytes=b, throughput_bytes_per_s=thr,
        ))
    return tuple(out)


def _join_key(rank: np.ndarray, corr: np.ndarray) -> np.ndarray:
    return ((rank.astype(np.int64) + 1) << 44) | (corr & ((1 << 44) - 1))


def _api_for(tl: Timeline, gpu_idx: np.ndarray, api_idx: np.ndarray, api_order: np.ndarray, api_keys_sorted: np.ndarray) -> np.ndarray:
    """For each GPU row in ``gpu_idx``, the Timeline row of its API call (joined on rank + correlation id), or -1."""
    if api_idx.size == 0 or gpu_idx.size == 0:
        return np.full(gpu_idx.shape[0], -1, dtype=np.int64)
    keys = _join_key(tl.rank[gpu_idx], tl.correlation_id[gpu_idx])
    pos = np.searchsorted(api_keys_sorted, keys)
    pos_c = np.minimum(pos, api_keys_sorted.shape[0] - 1)
    hit = (api_keys_sorted[pos_c] == keys) & (tl.correlation_id[gpu_idx] >= 0)
    return np.where(hit, api_idx[api_order[pos_c]], -1)


_SYNC_COPY_API = re.compile(r"^(cuda|cu)Mem(cpy|set)", re.IGNORECASE)


def _is_sync_api(name: str) -> bool:
    return bool(_SYNC_COPY_API.match(name)) and "async" not in name.lower()


# ============================================================================================ analysis
def analyse_timeline(tl: Timeline, top: int = 10) -> TimelineReport:
    """Analyse one program run (see the module docstring for the definitions).

    Args:
        tl: the run.
        top: how many items of each ranking get a median (all items are ranked).
    """
    r = rules()
    n = len(tl)
    notes: list[Note] = []
    not_computable: list[str] = []
    gpu_mask = np.isin(tl.kind, np.asarray(BUSY_KINDS, dtype=np.uint8))
    gpu_rows = np.flatnonzero(gpu_mask)
    if n == 0:
        return _empty_report(tl, "the trace holds no usable intervals")

    # ---- program wall per rank
    ranks = _distinct(tl.rank)
    rank_walls = {}
    for rk in ranks.tolist():
        m = tl.rank == rk if ranks.size > 1 else slice(None)
        rank_walls[rk] = int(tl.end_ns[m].max() - tl.start_ns[m].min())
    wall_ns = max(rank_walls.values())
    wall_s = wall_ns * NS
    # Amdahl fractions: item totals are summed over every rank, so they are taken of the summed rank walls
    # (the average per-rank share); one rank: its wall.
    program_ns = sum(rank_walls.values())

    # ---- per device: sort GPU rows by (rank, device, start)
    g_dev, g_rank = tl.device[gpu_rows], tl.rank[gpu_rows]
    single_device = bool(gpu_rows.size) and g_dev.min() == g_dev.max() and g_rank.min() == g_rank.max()
    if single_device:
        order = gpu_rows[np.argsort(tl.start_ns[gpu_rows], kind="stable")]  # one device: a (mostly sorted) timsort
    else:
        order = gpu_rows[np.lexsort((tl.start_ns[gpu_rows], g_dev, g_rank))]
    del g_dev, g_rank, gpu_rows, gpu_mask  # large index arrays no longer needed
    if single_device:
        groups = [order] if order.size else []
    else:
        dev_key = (tl.rank[order].astype(np.int64) << 16) | (tl.device[order].astype(np.int64) & 0xFFFF)
        groups = np.split(order, np.flatnonzero(np.diff(dev_key)) + 1)
        del dev_key
    sync_rows = np.flatnonzero(tl.kind == SYNC)
    devices: list[TimeSplit] = []
    streams: list[TimeSplit] = []
    segments: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
    for g in groups:
        rk, dv = int(tl.rank[g[0]]), int(tl.device[g[0]])
        sync_g = sync_rows[(tl.rank[sync_rows] == rk) & (tl.device[sync_rows] == dv)] if sync_rows.size else sync_rows
        split, _, segs = _split(tl, g, sync_g, _rank_value(rk), dv, None, with_gaps=True)
        devices.append(split)
        segments[(rk, dv)] = segs
        st = tl.stream[g]
        s_ids = _distinct(st)
        if s_ids.size == 1:  # one stream: its split is the device's
            s_id = int(s_ids[0])
            sync_s = sync_g[tl.stream[sync_g] == s_id] if sync_g.size else sync_g
            streams.append(replace(split, stream=s_id, gaps=None,
                                   sync_s=union_length_ns(tl.start_ns[sync_s], tl.end_ns[sync_s]) * NS))
            continue
        if s_ids.size <= 64:  # a few streams: masks keep the start order
            parts = [g[st == x] for x in s_ids.tolist()]
        else:
            s_order = np.argsort(st, kind="stable")  # keeps start order within each stream
            parts = np.split(g[s_order], np.flatnonzero(np.diff(st[s_order])) + 1)
        for sg in parts:
            s_id = int(tl.stream[sg[0]])
            sync_s = sync_g[tl.stream[sync_g] == s_id] if sync_g.size else sync_g
            streams.append(_split(tl, sg, sync_s, _rank_value(rk), dv, s_id, with_gaps=False)[0])
    streams.sort(key=lambda s: (s.rank or -1, s.device, -s.busy_s))

    # ---- rankings
    def rows_of(kind: int) -> np.ndarray:
        return np.flatnonzero(tl.kind == kind)

    k_rows, c_rows, m_rows = rows_of(KERNEL), rows_of(MEMCPY), rows_of(MEMSET)
    a_rows, n_rows = rows_of(RUNTIME_API), rows_of(ANNOTATION)
    dur = tl.end_ns - tl.start_ns
    kernels = _group_stats("kernel", tl.name_id[k_rows], dur[k_rows], tl.names, None, program_ns, top)
    copies = _group_stats("memcpy", tl.name_id[c_rows], dur[c_rows], tl.names, tl.bytes[c_rows], program_ns, top)
    memsets = _group_stats("memset", tl.name_id[m_rows], dur[m_rows], tl.names, tl.bytes[m_rows], program_ns, top)
    api_calls = _group_stats("runtime_api", tl.name_id[a_rows], dur[a_rows], tl.names, None, program_ns, top)
    syncs = _group_stats("sync", tl.name_id[sync_rows], dur[sync_rows], tl.names, None, program_ns, top)
    annotations = _group_stats("annotation", tl.name_id[n_rows], dur[n_rows], tl.names, None, program_ns, top)
    host_api_s = None
    if a_rows.size:
        host_api_s = sum(union_length_ns(tl.start_ns[a_rows[tl.rank[a_rows] == rk]], tl.end_ns[a_rows[tl.rank[a_rows] == rk]])
                         for rk in _distinct(tl.rank[a_rows]).tolist()) * NS
    else:
        not_computable.append("host_api")

    # ---- correlation join (API call -> GPU work)
    api_keys = _join_key(tl.rank[a_rows], tl.correlation_id[a_rows]) if a_rows.size else np.zeros(0, dtype=np.int64)
    api_order = np.argsort(api_keys, kind="stable")
    api_keys_sorted = api_keys[api_order]
    k_api = _api_for(tl, k_rows, a_rows, api_order, api_keys_sorted)
    launch = None
    if a_rows.size and k_rows.size:
        hit = k_api >= 0
        if hit.any():
            lat = (tl.start_ns[k_rows[hit]] - tl.start_ns[k_api[hit]]) * NS
            api_d = dur[k_api[hit]] * NS
            launch = LaunchOverhead(
                matched=int(hit.sum()), unmatched=int((~hit).sum()), latency_mean_s=float(lat.mean()),
                latency_median_s=float(np.median(lat)), latency_p95_s=float(np.percentile(lat, 95)),
                latency_max_s=float(lat.max()), api_median_s=float(np.median(api_d)))
    if launch is None:
        not_computable.append("launch_overhead")

    # ---- tiny kernels (CUDA Graphs / fusion candidates)
    tiny = _tiny_kernels(tl, k_rows, k_api, dur, segments, kernels, r["tiny_kernels"])

    # ---- findings
    findings = _findings(tl, devices, segments, c_rows, m_rows, a_rows, api_order, api_keys_sorted, dur, r)
    if tiny:
        t_total = sum(t.savings_s for t in tiny)
        findings.append(Finding("tiny_kernels", Note("tl_tiny_kernels", {
            "n": len(tiny), "launches": sum(t.launches for t in tiny), "name": tiny[0].name, "savings_s": t_total}),
            t_total, sum(t.launches for t in tiny), r["tiny_kernels"]["source"]))

    # ---- ranks
    comm = re.compile(r["ranks"]["communication_regex"], re.IGNORECASE)
    comm_name = np.array([bool(comm.search(nm)) for nm in tl.names], dtype=bool) if tl.names else np.zeros(0, bool)
    rank_rows = []
    for rk in ranks.tolist():
        ds = [d for d in devices if (d.rank if d.rank is not None else -1) == rk]
        km = k_rows[tl.rank[k_rows] == rk] if ranks.size > 1 else k_rows
        comm_ns = int(dur[km][comm_name[tl.name_id[km]]].sum()) if km.size else 0
        k_total = int(dur[km].sum())
        span = sum(d.span_s for d in ds)
        rank_rows.append(RankRow(
            rank=_rank_value(rk), wall_s=rank_walls[rk] * NS, busy_s=sum(d.busy_s for d in ds),
            kernel_s=sum(d.kernel_s for d in ds), memcpy_s=sum(d.memcpy_s for d in ds),
            memset_s=sum(d.memset_s for d in ds), idle_s=sum(d.idle_s for d in ds),
            utilisation_pct=(100.0 * sum(d.busy_s for d in ds) / span) if span > 0 else None,
            communication_s=comm_ns * NS, computation_s=(k_total - comm_ns) * NS))
    slowest = None
    if len(rank_rows) > 1:
        slowest_row = max(rank_rows, key=lambda x: (x.computation_s, x.wall_s))
        slowest = slowest_row.rank
        fastest = min(rank_rows, key=lambda x: x.computation_s)
        notes.append(Note("tl_slowest_rank", {"rank": slowest, "computation_s": slowest_row.computation_s,
                                              "fastest": fastest.rank, "fastest_s": fastest.computation_s}))

    # ---- black hole (GPU idle = time in the longest rank's wall with no GPU work at all)
    longest = max(rank_walls, key=lambda k: rank_walls[k])
    own = [segs for (rk, _dv), segs in segments.items() if rk == longest]
    idle_prog, host = _program_idle(tl, longest, rank_walls[longest], a_rows, dur, own[0] if len(own) == 1 else None)
    black = _black_hole(kernels, copies, memsets, idle_prog, wall_ns, host)
    if not devices:
        not_computable += ["gpu_split", "idle", "utilisation"]
    if tl.invalid:
        notes.append(Note("tl_invalid_records", {"n": tl.invalid_count,
                                                  "names": ", ".join(sorted({i.name for i in tl.invalid}))}))
    if ranks.size == 1 and int(ranks[0]) < 0 and tl.format == "kineto":
        notes.append(Note("tl_rank_not_recorded", {}))
    return TimelineReport(
        path=tl.path, format=tl.format, source="intervals", wall_s=wall_s, program_time_s=program_ns * NS,
        devices=tuple(devices), streams=tuple(streams), host_api_s=host_api_s, kernels=kernels, copies=copies,
        memsets=memsets, api_calls=api_calls, syncs=syncs, annotations=annotations, launch=launch,
        tiny_kernels=tuple(tiny), black_hole=black, ranks=tuple(rank_rows), slowest_rank=slowest,
        findings=tuple(findings), not_computable=tuple(not_computable), notes=tuple(notes), invalid=tl.invalid,
        problems=tl.problems, tool_version=tl.tool_version, devices_named=tl.devices,
    )


def _empty_report(tl: Timeline, why: str) -> TimelineReport:
    return TimelineReport(
        path=tl.path, format=tl.format, source="intervals", wall_s=None, program_time_s=None, devices=(), streams=(),
        host_api_s=None, kernels=(), copies=(), memsets=(), api_calls=(), syncs=(), annotations=(), launch=None,
        tiny_kernels=(), black_hole=None, ranks=(), slowest_rank=None, findings=(),
        not_computable=("gpu_split", "idle", "utilisation", "launch_overhead"), notes=(Note("tl_empty", {"why": why}),),
        invalid=tl.invalid, problems=tl.problems, tool_version=tl.tool_version, devices_named=tl.devices)


def _gap_before(tl: Timeline, rows: np.ndarray, segments: Mapping) -> np.ndarray:
    """GPU idle time (ns) just before each row: from the end of the previous busy stretch of its device to its
    start when it opens a busy stretch, else 0."""
    out = np.zeros(rows.shape[0], dtype=np.int64)
    rk, dv = tl.rank[rows], tl.device[rows]
    for (r, d), (seg_s, seg_e) in segments.items():
        m = (rk == r) & (dv == d)
        if not m.any() or seg_s.size < 2:
            continue
        t = tl.start_ns[rows[m]]
        i = np.searchsorted(seg_s, t, side="right") - 1
        opens = (i > 0) & (seg_s[np.maximum(i, 0)] == t)
        out[m] = np.where(opens, t - seg_e[np.maximum(i - 1, 0)], 0)
    return out


def _tiny_kernels(tl: Timeline, k_rows: np.ndarray, k_api: np.ndarray, dur: np.ndarray, segments: Mapping,
                  kernels: tuple[ItemStat, ...], cfg: Mapping) -> list[TinyKernel]:
    if k_rows.size == 0:
        return []
    max_d_ns = float(cfg["max_duration_s"]) / NS
    min_launches = int(cfg["min_launches"])
    cap_ns = float(cfg["launch_cost_cap_s"]) / NS
    names = tl.name_id[k_rows]
    counts = np.bincount(names, minlength=len(tl.names))
    # candidates: launched often and short on average (a cheap filter before any median)
    mean = np.bincount(names, weights=dur[k_rows].astype(np.float64), minlength=len(tl.names)) / np.maximum(counts, 1)
    candidates = np.flatnonzero((counts >= min_launches) & (mean <= 4 * max(cap_ns, max_d_ns)))
    if candidates.size == 0:
        return []
    keep = np.isin(names, candidates)
    k_rows, k_api, names = k_rows[keep], k_api[keep], names[keep]
    kd = dur[k_rows]
    api_d = np.where(k_api >= 0, dur[np.maximum(k_api, 0)], -1)
    gap_before = _gap_before(tl, k_rows, segments)
    out = []
    by_name = {k.name: k for k in kernels}
    for i in candidates.tolist():
        m = names == i
        med = float(np.median(kd[m]))
        ad = api_d[m]
        ad = ad[ad >= 0]
        cost = float(np.median(ad)) if ad.size else None
        limit = min(cost, cap_ns) if cost is not None else max_d_ns
        if med > limit:
            continue
        savings = float(np.minimum(gap_before[m], limit).sum())
        total = by_name[tl.names[i]].total_s if tl.names[i] in by_name else float(kd[m].sum()) * NS
        out.append(TinyKernel(name=tl.names[i], launches=int(counts[i]), median_s=med * NS, total_s=total,
                              launch_cost_s=cost * NS if cost is not None else None, savings_s=savings * NS))
    out.sort(key=lambda t: -(t.savings_s + t.total_s))
    return out


def _black_hole(kernels, copies, memsets, idle_s: float, wall_ns: int | None,
                host: tuple[str, float] | None = None) -> BlackHole | None:
    cands = []
    for cat, items in (("kernel", kernels), ("memcpy", copies), ("memset", memsets)):
        if items:
            cands.append((items[0].total_s, cat, items[0].name))
    if idle_s > 0:
        cands.append((idle_s, "gpu_idle", "GPU idle"))
    if not cands:
        return None
    t, cat, name = max(cands)
    frac = (t / (wall_ns * NS)) if wall_ns else None
    api, api_s = (host if (cat == "gpu_idle" and host is not None) else (None, None))
    return BlackHole(cat, name, t, min(frac, 1.0) if frac is not None else None,
                     amdahl(frac) if frac is not None else None, api, api_s)


def _program_idle(tl: Timeline, rank: int, wall_ns: int, a_rows: np.ndarray, dur: np.ndarray,
                  segs: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, tuple[str, float] | None]:
    """Time of one rank's wall with no GPU work on any of its devices, and the API call (name, seconds) covering
    most of that idle time on the host. ``segs``: the rank's busy union when already known (one device)."""
    if segs is None:
        m = np.isin(tl.kind, np.asarray(BUSY_KINDS, dtype=np.uint8)) & (tl.rank == rank)
        segs = union_segments(tl.start_ns[m], tl.end_ns[m])
    seg_s, seg_e = segs
    idle_ns = wall_ns - int((seg_e - seg_s).sum())
    host = None
    a = a_rows[tl.rank[a_rows] == rank] if a_rows.size else a_rows
    if a.size and idle_ns > 0:
        busy_in = _busy_before(seg_s, seg_e, tl.end_ns[a]) - _busy_before(seg_s, seg_e, tl.start_ns[a])
        in_idle = np.maximum(dur[a] - busy_in, 0).astype(np.float64)
        per_name = np.bincount(tl.name_id[a], weights=in_idle, minlength=len(tl.names))
        top = int(np.argmax(per_name))
        if per_name[top] > 0:
            host = (tl.names[top], float(per_name[top]) * NS)
    return idle_ns * NS, host


def _findings(tl: Timeline, devices: list[TimeSplit], segments: Mapping, c_rows: np.ndarray, m_rows: np.ndarray,
              a_rows: np.ndarray, api_order: np.ndarray, api_keys_sorted: np.ndarray, dur: np.ndarray,
              r: Mapping) -> list[Finding]:
    out: list[Finding] = []
    sync_name = np.array([_is_sync_api(nm) for nm in tl.names], dtype=bool) if tl.names else np.zeros(0, bool)
    async_name = np.array(["async" in nm.lower() for nm in tl.names], dtype=bool) if tl.names else np.zeros(0, bool)
    # synchronous memcpy
    if c_rows.size:
        c_api = _api_for(tl, c_rows, a_rows, api_order, api_keys_sorted)
        known = c_api >= 0
        cfg = r["sync_memcpy"]
        if known.any():
            is_sync = known & sync_name[tl.name_id[np.maximum(c_api, 0)]]
            ck = tl.copy_kind[c_rows]
            small_htod = (ck == COPY_HTOD) & (tl.bytes[c_rows] >= 0) & (tl.bytes[c_rows] <= int(cfg["max_small_htod_bytes"]))
            flagged = is_sync & ~small_htod & (ck != COPY_DTOD)
            if flagged.any():
                t = float(dur[c_rows[flagged]].sum()) * NS
                api_names = sorted({tl.names[i] for i in tl.name_id[c_api[flagged]].tolist()})
                out.append(Finding("sync_memcpy", Note("tl_sync_memcpy", {"n": int(flagged.sum()), "time_s": t,
                                                                          "apis": ", ".join(api_names)}),
                                   t, int(flagged.sum()), cfg["source"]))
        # pageable copies
        pg = tl.pageable[c_rows] == 1
        cfg = r["pageable_memcpy"]
        if pg.any():
            t = float(dur[c_rows[pg]].sum()) * NS
            if t >= float(cfg["min_total_s"]):
                n_async = int((pg & known & async_name[tl.name_id[np.maximum(c_api, 0)]]).sum())
                nb = tl.bytes[c_rows[pg]]
                out.append(Finding("pageable_memcpy", Note("tl_pageable_memcpy", {
                    "n": int(pg.sum()), "time_s": t, "n_async": n_async,
                    "gb": float(nb[nb >= 0].sum()) / 1e9}), t, int(pg.sum()), cfg["source"]))
    # synchronous memset
    if m_rows.size and a_rows.size:
        m_api = _api_for(tl, m_rows, a_rows, api_order, api_keys_sorted)
        known = m_api >= 0
        flagged = known & sync_name[tl.name_id[np.maximum(m_api, 0)]]
        if flagged.any():
            t = float(dur[m_rows[flagged]].sum()) * NS
            out.append(Finding("sync_memset", Note("tl_sync_memset", {"n": int(flagged.sum()), "time_s": t}), t,
                               int(flagged.sum()), r["sync_memset"]["source"]))
    # GPU gaps and utilisation, per device
    gcfg, ucfg = r["gpu_gaps"], r["low_utilisation"]
    min_gap_ns = float(gcfg["min_gap_s"]) / NS
    for d in devices:
        seg_s, seg_e = segments[(d.rank if d.rank is not None else -1, d.device)]
        gaps = seg_s[1:] - seg_e[:-1]
        long = gaps >= min_gap_ns
        if long.any():
            t = float(gaps[long].sum()) * NS
            out.append(Finding("gpu_gaps", Note("tl_gpu_gaps", {
                "n": int(long.sum()), "device": d.device, "time_s": t, "largest_s": float(gaps.max()) * NS,
                "limit_s": float(gcfg["min_gap_s"]), "rank": d.rank}), t, int(long.sum()), gcfg["source"]))
        thr = float(ucfg["threshold_pct"])
        chunks = int(ucfg["chunks"])
        if d.span_s > 0:
            edges = np.linspace(d.start_ns, d.end_ns, chunks + 1).round().astype(np.int64)
            busy_at = _busy_before(seg_s, seg_e, edges)
            chunk_busy = np.diff(busy_at)
            chunk_len = np.diff(edges)
            util = np.where(chunk_len > 0, 100.0 * chunk_busy / np.maximum(chunk_len, 1), 100.0)
            low = int((util < thr).sum())
            if d.utilisation_pct < thr or low:
                out.append(Finding("low_utilisation", Note("tl_low_utilisation", {
                    "device": d.device, "rank": d.rank, "util": d.utilisation_pct, "limit": thr, "low": low,
                    "chunks": chunks}), d.idle_s, low, ucfg["source"]))
    return out


# ============================================================================================ summaries
def analyse_summary(summary: TimelineSummary, top: int = 10) -> TimelineReport:
    """Rankings and Amdahl projections from ``nsys stats`` summaries (one capture).

    A summary has no intervals: idle time, utilisation, overlap, per-stream splits, launch latency and gaps are
    listed in ``not_computable``. The Amdahl "program time" is the summed GPU kernel + copy + memset time (busy
    time assuming no overlap), stated in ``notes``; if the file has only host-side tables it is the API time.
    """
    rows = summary.rows
    by_kind: dict[str, list[SummaryRow]] = {}
    for row in rows:
        by_kind.setdefault(row.kind, []).append(row)
    gpu_total = sum((r.total_s or 0.0) for k in ("kernel", "memcpy", "memset") for r in by_kind.get(k, ()))
    notes: list[Note] = []
    program = gpu_total if gpu_total > 0 else None
    if program is not None:
        notes.append(Note("tl_summary_program_time", {"time_s": program}))
    fs = tuple(float(f) for f in rules()["amdahl"]["factors"])

    def stats(kind: str, with_amdahl: bool) -> tuple[ItemStat, ...]:
        items = sorted(by_kind.get(kind, ()), key=lambda r: -(r.total_s or 0.0))
        grand = sum(r.total_s or 0.0 for r in items)
        out = []
        for r in items:
            total = r.total_s or 0.0
            frac = (total / program) if (with_amdahl and program) else None
            out.append(ItemStat(
                kind=kind, name=r.name, count=r.count or 0, total_s=total, mean_s=r.mean_s, min_s=r.min_s,
                max_s=r.max_s, median_s=r.median_s,
                share_pct=r.time_pct if r.time_pct is not None else ((100.0 * total / grand) if grand else None),
                program_fraction=min(frac, 1.0) if frac is not None else None,
                amdahl=amdahl(frac, fs) if frac is not None else None,
                bytes=int(r.bytes) if getattr(r, "bytes", None) is not None else None,
                throughput_bytes_per_s=(r.bytes / total) if getattr(r, "bytes", None) is not None and total > 0 else None,
                truncated=r.truncated))
        return tuple(out)

    kernels = stats("kernel", True)
    copies = stats("memcpy", True)
    memsets = stats("memset", True)
    api_calls = stats("runtime_api", False)
    annotations = stats("annotation", False)
    r = rules()
    findings = []
    sync_apis = [a for a in api_calls if _is_sync_api(a.name) and "memcpy" in a.name.lower()]
    if sync_apis:
        t = sum(a.total_s for a in sync_apis)
        n = sum(a.count for a in sync_apis)
        findings.append(Finding("sync_memcpy", Note("tl_sync_memcpy_summary", {
            "n": n, "time_s": t, "apis": ", ".join(a.name for a in sync_apis)}), t, n, r["sync_memcpy"]["source"]))
    sync_sets = [a for a in api_calls if _is_sync_api(a.name) and "memset" in a.name.lower()]
    if sync_sets:
        t = sum(a.total_s for a in sync_sets)
        n = sum(a.count for a in sync_sets)
        findings.append(Finding("sync_memset", Note("tl_sync_memset_summary", {"n": n, "time_s": t}), t, n,
                                r["sync_memset"]["source"]))
    black = _black_hole(kernels, copies, memsets, 0.0, int(program / NS) if program else None)
    if not (kernels or copies or memsets):
        notes.append(Note("tl_summary_no_gpu", {}))
    api_total = sum(a.total_s for a in api_calls)
    if api_calls and program and api_total > 2 * program:
        notes.append(Note("tl_summary_api_dominates", {"api_s": api_total, "gpu_s": program,
                                                       "name": api_calls[0].name, "top_s": api_calls[0].total_s}))
    return TimelineReport(
        path=summary.path, format=summary.format, source="summary", wall_s=None, program_time_s=program,
        devices=(), streams=(), host_api_s=None, kernels=kernels, copies=copies, memsets=memsets,
        api_calls=api_calls, syncs=(), annotations=annotations, launch=None, tiny_kernels=(), black_hole=black,
        ranks=(), slowest_rank=None, findings=tuple(findings),
        not_computable=("idle", "utilisation", "overlap", "per_stream", "launch_overhead", "gaps", "union"),
        notes=tuple(notes), problems=summary.problems, tool_version=summary.tool_version,
        devices_named=tuple((i, nm) for i, nm in enumerate(summary.device_names)),
    )


def analyse(data: Timeline | TimelineSummary, top: int = 10) -> list[TimelineReport]:
    """Analyse whatever :func:`kernelscope.ingest.load_timeline` returned: one report per run (a summary file may
    hold several captures, analysed one by one)."""
    if isinstance(data, Timeline):
        return [analyse_timeline(data, top)]
    runs = max(summary_runs(data), 1)
    if runs == 1:
        return [analyse_summary(data, top)]
    out = []
    for i in range(runs):
        part = TimelineSummary(
            path=data.path, format=data.format,
            rows=tuple(r for r, k in zip(data.rows, data.run_of_row) if k == i),
            reports=data.reports, runs=1, run_of_row=(), locale=data.locale, problems=data.problems,
            tool_version=data.tool_version, device_names=data.device_names)
        rep = analyse_summary(part, top)
        out.append(_with_title(rep, f"run {i + 1} of {runs}"))
    return out


def summary_runs(summary: TimelineSummary) -> int:
    """How many captures a summary file holds."""
    return summary.runs if summary.run_of_row else 1


def _with_title(rep: TimelineReport, title: str) -> TimelineReport:
    from dataclasses import replace

    return replace(rep, title=title)

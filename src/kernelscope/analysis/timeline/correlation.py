"""The join of host API calls to the GPU work they launched (rank + CUPTI correlation id, whatever the call's name:
cudaLaunchKernel, cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch ...), and what it gives: launch latency (API call
start -> start of the FIRST kernel it launched) and the tiny kernels, whose launches cost about as much as they run
(CUDA Graphs / fusion candidates). Vectorised: one sort of the API rows, one binary search per GPU row. The calls
themselves (kernels per call, CUDA graph nodes) are :class:`.graphs.KernelLaunches`.

Launch latency is not queueing (case N20). The time from a launch call to its kernel's start is launch overhead only
when the call found its stream's queue empty; behind earlier work it is backlog. The QUEUE DEPTH a call found is the
number of GPU operations (kernels, copies, memsets) of its first kernel's stream (rank, device, stream) that started
before that kernel and had not ended when the call started (work launched earlier, still queued or running; the
rule of rocmProfileData PR #36: launch delay only "when there is no queue depth"). Each call's time is split as
TraceLens PR #494 splits it (call duration, queue wait, launch latency): a call into an empty queue gives its launch
latency (call start -> kernel start); a call into a busy queue gives a queue wait (call start -> kernel start, the
backlog ahead of it, until the work ahead ended), never a launch latency. A queued launch whose kernel started as
soon as the work ahead ended is backlogged (the GPU did not wait for it): it never counts towards a launch-bound
verdict (:func:`.graphs.launch_bound`). A queued launch whose kernel still started later than that is not: with a
launch latency longer than the spacing of the calls, a host-bound loop keeps a launch or two in flight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...knowledge.timeline_checks import TinyKernels
from ...timeline_model import Timeline
from .graphs import KernelLaunches, LaunchQueue
from .intervals import Segments, StreamOrder, gap_before
from .report import NS, ItemStat, LaunchOverhead, TinyKernel


def join_key(rank: np.ndarray, corr: np.ndarray) -> np.ndarray:
    """One int64 key per row from its rank and correlation id."""
    return ((rank.astype(np.int64) + 1) << 44) | (corr & ((1 << 44) - 1))


@dataclass(frozen=True)
class ApiJoin:
    """The API rows of a Timeline sorted by join key, ready to look GPU rows up in."""

    api_rows: np.ndarray
    order: np.ndarray
    keys_sorted: np.ndarray

    @classmethod
    def of(cls, tl: Timeline, api_rows: np.ndarray) -> "ApiJoin":
        """Index the API rows ``api_rows`` of ``tl``."""
        keys = join_key(tl.rank[api_rows], tl.correlation_id[api_rows]) if api_rows.size else np.zeros(0, np.int64)
        order = np.argsort(keys, kind="stable")
        return cls(api_rows, order, keys[order])

    def positions(self, tl: Timeline, gpu_rows: np.ndarray) -> np.ndarray:
        """For each GPU row of ``gpu_rows``, the position of its API call in the sorted keys (0 .. number of API
        rows - 1; the Timeline row is ``api_rows[order[position]]``), or -1 when none."""
        if self.api_rows.size == 0 or gpu_rows.size == 0:
            return np.full(gpu_rows.shape[0], -1, dtype=np.int64)
        keys = join_key(tl.rank[gpu_rows], tl.correlation_id[gpu_rows])
        pos = np.searchsorted(self.keys_sorted, keys)
        pos_c = np.minimum(pos, self.keys_sorted.shape[0] - 1)
        hit = (self.keys_sorted[pos_c] == keys) & (tl.correlation_id[gpu_rows] >= 0)
        return np.where(hit, pos_c, -1)

    def api_for(self, tl: Timeline, gpu_rows: np.ndarray) -> np.ndarray:
        """For each GPU row of ``gpu_rows``, the Timeline row of its API call, or -1."""
        pos = self.positions(tl, gpu_rows)
        if self.api_rows.size == 0:
            return pos
        return np.where(pos >= 0, self.api_rows[self.order[np.maximum(pos, 0)]], -1)


def _stream_key(tl: Timeline, rows: np.ndarray) -> np.ndarray:
    """One int64 key per GPU row for its (rank, device, stream) (stream ids beyond 40 bits could collide)."""
    return ((tl.rank[rows].astype(np.int64) + 1) << 52) ^ ((tl.device[rows].astype(np.int64) + 1) << 40) ^ \
        tl.stream[rows].astype(np.int64)


def launch_queue(tl: Timeline, launches: KernelLaunches, busy_rows: np.ndarray,
                 streams: StreamOrder | None = None) -> LaunchQueue:
    """The queue each launch call's first kernel found (see the module docstring), from the GPU rows ``busy_rows``
    (kernels, copies, memsets). Exact without assuming anything about the order of a stream's rows: an operation
    that ended by the call's start began before the kernel, so the depth is (operations of the stream starting
    before the kernel) - (those ending by the call's start). A loop over the
    streams that hold first kernels (no sort where a stream's rows already are in time order, as in ``streams``,
    the same rows in stream order where the caller sorted them: each stream one slice of it)."""
    calls = launches.call_api
    n = calls.shape[0]
    depth = np.zeros(n, dtype=np.int64)
    ahead = np.full(n, -1, dtype=np.int64)
    first_ns = launches.call_first_ns
    call_ns = tl.start_ns[calls] if n else np.zeros(0, dtype=np.int64)
    k_rows, k_call = launches.k_rows, launches.k_call
    if n == 0 or k_rows.size == 0:
        return LaunchQueue(depth, ahead, first_ns, call_ns)
    hit = k_call >= 0
    idx = k_call[hit]
    rows_hit = k_rows[hit]
    is_first = tl.start_ns[rows_hit] == first_ns[idx]
    call_row = np.full(n, -1, dtype=np.int64)
    call_row[idx[is_first]] = rows_hit[is_first]
    ok = np.flatnonzero(call_row >= 0)
    q_rows = call_row[ok]
    q_key = _stream_key(tl, q_rows)
    groups = _stream_groups(_stream_key(tl, busy_rows), busy_rows, np.unique(q_key)) if streams is None else \
        _stream_slices(tl, streams, np.unique(q_key))
    for key, group in groups:
        starts, by_start = _sorted(tl.start_ns[group])
        reach = np.maximum.accumulate(tl.end_ns[group] if by_start is None else tl.end_ns[group][by_start])
        ends = _sorted(tl.end_ns[group])[0]
        m = q_key == key
        k = tl.start_ns[q_rows[m]]
        a = call_ns[ok[m]]
        before = np.searchsorted(starts, k, "left")
        d = before - np.searchsorted(ends, a, "right")
        depth[ok[m]] = np.where(a < k, np.maximum(d, 0), 0)
        ahead[ok[m]] = np.where(before > 0, reach[np.maximum(before - 1, 0)], -1)
    return LaunchQueue(depth, ahead, first_ns, call_ns)


def _sorted(a: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``(a sorted, the sorting order)``; no sort and order None when ``a`` already is in order (the usual case:
    readers keep a table's rows in time order)."""
    if a.size < 2 or bool((a[1:] >= a[:-1]).all()):
        return a, None
    order = np.argsort(a, kind="stable")
    return a[order], order


def _stream_slices(tl: Timeline, streams: StreamOrder, wanted: np.ndarray):
    """:func:`_stream_groups` from rows in stream order: a stream's rows are one slice (the slices of streams whose
    keys collide joined, as one mask would join them)."""
    parts: dict[int, list[np.ndarray]] = {}
    spans = streams.streams()
    firsts = [lo for lo, _ in spans]
    keys = _stream_key(tl, streams.rows[firsts]).tolist() if firsts else []
    for key, (lo, hi) in zip(keys, spans):
        parts.setdefault(key, []).append(streams.rows[lo:hi])
    for key in wanted.tolist():
        got = parts.get(key, [])
        yield key, (got[0] if len(got) == 1 else np.concatenate(got) if got else streams.rows[:0])


def _stream_groups(keys: np.ndarray, rows: np.ndarray, wanted: np.ndarray):
    """``(key, rows of that key)`` for each key of ``wanted``: a mask per key for a few keys (no sort), one sort of
    the keys for many."""
    if wanted.size <= 16:
        for key in wanted.tolist():
            yield key, rows[keys == key]
        return
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    for key in wanted.tolist():
        yield key, rows[order[np.searchsorted(ks, key, "left"):np.searchsorted(ks, key, "right")]]


def _stats(values_ns: np.ndarray) -> tuple[float | None, float | None, float | None, float | None]:
    """(mean, median, p95, max) in seconds; all None for no values."""
    if values_ns.size == 0:
        return None, None, None, None
    v = values_ns * NS
    return float(v.mean()), float(np.median(v)), float(np.percentile(v, 95)), float(v.max())


def launch_overhead(tl: Timeline, launches: KernelLaunches, dur: np.ndarray,
                    queue: LaunchQueue | None = None) -> LaunchOverhead | None:
    """Per launch call: call start -> start of the FIRST kernel it launched (the later nodes of a CUDA graph queue
    behind the earlier ones: not launch latency), split by the queue ``queue`` its kernel found
    (:func:`launch_queue`; None: every call taken as into an empty queue): launch latency over the calls into an
    empty queue, queue wait (:attr:`LaunchQueue.wait_ns`) over the others; and the calls' median host time (a graph
    launch counted once). None when no kernel was joined to its call."""
    calls = launches.call_api
    if calls.size == 0:
        return None
    to_start = launches.call_first_ns - tl.start_ns[calls]
    queued = np.zeros(calls.shape[0], dtype=bool) if queue is None else queue.queued
    depth = np.zeros(calls.shape[0], dtype=np.int64) if queue is None else queue.depth
    mean, median, p95, mx = _stats(to_start[~queued])
    _, q_median, _, q_max = _stats(queue.wait_ns[queued] if queue is not None else to_start[queued])
    matched = int((launches.k_api >= 0).sum())
    return LaunchOverhead(
        matched=matched, unmatched=int(launches.k_api.shape[0] - matched), latency_mean_s=mean,
        latency_median_s=median, latency_p95_s=p95, latency_max_s=mx, api_median_s=float(np.median(dur[calls])) * NS,
        launches=int(calls.size), graph_launches=int(launches.call_graph.sum()),
        idle_queue_launches=int((~queued).sum()), queued_launches=int(queued.sum()), queue_wait_median_s=q_median, queue_wait_max_s=q_max,
        queue_depth_min=int(depth[queued].min()) if queued.any() else None,
        queue_depth_max=int(depth[queued].max()) if queued.any() else None)


def tiny_kernels(tl: Timeline, k_rows: np.ndarray, k_api: np.ndarray, dur: np.ndarray, segments: Segments,
                 kernels: tuple[ItemStat, ...], cfg: TinyKernels,
                 graph: np.ndarray | None = None) -> tuple[TinyKernel, ...]:
    """Kernel names launched at least ``min_launches`` times whose median duration is at most their launch cost
    (the median host time of their launch call, capped at ``launch_cost_cap_s``; ``max_duration_s`` without
    recorded calls). Their savings: the GPU idle time just before each launch, capped at that cost. Largest
    savings + total first. Kernels that ran as CUDA graph nodes (``graph``, per kernel row) are left out: they are
    in a graph already, and their call's host time is not theirs."""
    if graph is not None and graph.any():
        k_rows, k_api = k_rows[~graph], k_api[~graph]
    if k_rows.size == 0:
        return ()
    max_d_ns = cfg.max_duration_s / NS
    cap_ns = cfg.launch_cost_cap_s / NS
    names = tl.name_id[k_rows]
    counts = np.bincount(names, minlength=len(tl.names))
    # candidates: launched often and short on average (a cheap filter before any median)
    mean = np.bincount(names, weights=dur[k_rows].astype(np.float64), minlength=len(tl.names)) / np.maximum(counts, 1)
    candidates = np.flatnonzero((counts >= cfg.min_launches) & (mean <= 4 * max(cap_ns, max_d_ns)))
    if candidates.size == 0:
        return ()
    keep = np.isin(names, candidates)
    k_rows, k_api, names = k_rows[keep], k_api[keep], names[keep]
    kd = dur[k_rows]
    api_d = np.where(k_api >= 0, dur[np.maximum(k_api, 0)], -1)
    gap = gap_before(tl, k_rows, segments)
    by_name = {k.name: k for k in kernels}
    out = []
    order = np.argsort(names, kind="stable")  # each name's kernels together, in their order (not a mask per name)
    lo = np.searchsorted(names[order], candidates, "left").tolist()
    hi = np.searchsorted(names[order], candidates, "right").tolist()
    for i, a, b in zip(candidates.tolist(), lo, hi):
        m = order[a:b]
        med = float(np.median(kd[m]))
        ad = api_d[m]
        ad = ad[ad >= 0]
        cost = float(np.median(ad)) if ad.size else None
        limit = min(cost, cap_ns) if cost is not None else max_d_ns
        if med > limit:
            continue
        savings = float(np.minimum(gap[m], limit).sum())
        total = by_name[tl.names[i]].total_s if tl.names[i] in by_name else float(kd[m].sum()) * NS
        out.append(TinyKernel(name=tl.names[i], launches=int(counts[i]), median_s=med * NS, total_s=total,
                              launch_cost_s=cost * NS if cost is not None else None, savings_s=savings * NS))
    out.sort(key=lambda t: -(t.savings_s + t.total_s))
    return tuple(out)

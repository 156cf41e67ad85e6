"""The join of host API calls to the GPU work they launched (rank + CUPTI correlation id, whatever the call's name:
cudaLaunchKernel, cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch ...), and what it gives: launch latency (API call
start -> start of the FIRST kernel it launched) and the tiny kernels, whose launches cost about as much as they run
(CUDA Graphs / fusion candidates). Vectorised: one sort of the API rows, one binary search per GPU row. The calls
themselves (kernels per call, CUDA graph nodes) are :class:`.graphs.KernelLaunches`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...knowledge.timeline_checks import TinyKernels
from ...timeline_model import Timeline
from .graphs import KernelLaunches
from .intervals import Segments, gap_before
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


def launch_overhead(tl: Timeline, launches: KernelLaunches, dur: np.ndarray) -> LaunchOverhead | None:
    """Latency from each launch call to the start of the FIRST kernel it launched (the later nodes of a CUDA graph
    queue behind the earlier ones: not launch latency), and the calls' median host time (a graph launch counted
    once); None when no kernel was joined to its call."""
    calls = launches.call_api
    if calls.size == 0:
        return None
    lat = (launches.call_first_ns - tl.start_ns[calls]) * NS
    matched = int((launches.k_api >= 0).sum())
    return LaunchOverhead(
        matched=matched, unmatched=int(launches.k_api.shape[0] - matched), latency_mean_s=float(lat.mean()),
        latency_median_s=float(np.median(lat)), latency_p95_s=float(np.percentile(lat, 95)),
        latency_max_s=float(lat.max()), api_median_s=float(np.median(dur[calls])) * NS, launches=int(calls.size),
        graph_launches=int(launches.call_graph.sum()))


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
    for i in candidates.tolist():
        m = names == i
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

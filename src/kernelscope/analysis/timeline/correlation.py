"""The join of host API calls to the GPU work they launched (rank + CUPTI correlation id), and what it gives:
launch latency (API call start -> kernel start) and the tiny kernels, whose launches cost about as much as they
run (CUDA Graphs / fusion candidates). Vectorised: one sort of the API rows, one binary search per GPU row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...knowledge.timeline_checks import TinyKernels
from ...timeline_model import Timeline
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

    def api_for(self, tl: Timeline, gpu_rows: np.ndarray) -> np.ndarray:
        """For each GPU row of ``gpu_rows``, the Timeline row of its API call, or -1."""
        if self.api_rows.size == 0 or gpu_rows.size == 0:
            return np.full(gpu_rows.shape[0], -1, dtype=np.int64)
        keys = join_key(tl.rank[gpu_rows], tl.correlation_id[gpu_rows])
        pos = np.searchsorted(self.keys_sorted, keys)
        pos_c = np.minimum(pos, self.keys_sorted.shape[0] - 1)
        hit = (self.keys_sorted[pos_c] == keys) & (tl.correlation_id[gpu_rows] >= 0)
        return np.where(hit, self.api_rows[self.order[pos_c]], -1)


def launch_overhead(tl: Timeline, k_rows: np.ndarray, k_api: np.ndarray, dur: np.ndarray) -> LaunchOverhead | None:
    """Latency from each launch call to its kernel's start (``k_api``: the API row of each kernel row, -1 when
    none), None when no kernel was joined to its call."""
    hit = k_api >= 0
    if not hit.any():
        return None
    lat = (tl.start_ns[k_rows[hit]] - tl.start_ns[k_api[hit]]) * NS
    api_d = dur[k_api[hit]] * NS
    return LaunchOverhead(
        matched=int(hit.sum()), unmatched=int((~hit).sum()), latency_mean_s=float(lat.mean()),
        latency_median_s=float(np.median(lat)), latency_p95_s=float(np.percentile(lat, 95)),
        latency_max_s=float(lat.max()), api_median_s=float(np.median(api_d)))


def tiny_kernels(tl: Timeline, k_rows: np.ndarray, k_api: np.ndarray, dur: np.ndarray, segments: Segments,
                 kernels: tuple[ItemStat, ...], cfg: TinyKernels) -> tuple[TinyKernel, ...]:
    """Kernel names launched at least ``min_launches`` times whose median duration is at most their launch cost
    (the median host time of their launch call, capped at ``launch_cost_cap_s``; ``max_duration_s`` without
    recorded calls). Their savings: the GPU idle time just before each launch, capped at that cost. Largest
    savings + total first."""
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

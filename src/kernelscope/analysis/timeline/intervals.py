"""Interval algebra on NumPy columns: unions, busy time before an instant, gaps, rows of each kind.

Vectorised: no Python loop over intervals (only over devices). Inputs are integer ns (``int64``), sorted by start
where a function says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ...timeline_model import ANNOTATION, KERNEL, MEMCPY, MEMSET, RUNTIME_API, SYNC, Timeline
from .report import GAP_EDGES_S, NS, GapHistogram

#: Busy-time union of one device: ``(rank, device) -> (segment starts, segment ends)``, disjoint and sorted.
Segments = Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]]


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


def busy_before(seg_s: np.ndarray, seg_e: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Busy ns before each time ``t`` given disjoint sorted segments (vectorised)."""
    lengths = seg_e - seg_s
    cum = np.concatenate([[0], np.cumsum(lengths)])
    idx = np.searchsorted(seg_s, t, side="right")  # segments starting at or before t
    prev = np.maximum(idx - 1, 0)
    partial = np.where(idx > 0, np.minimum(t, seg_e[prev]) - seg_s[prev], 0)
    return cum[np.maximum(idx - 1, 0)] * (idx > 0) + np.maximum(partial, 0)


def gap_histogram(start: np.ndarray, end: np.ndarray) -> GapHistogram:
    """Gaps between consecutive kernels (sorted by start), binned by :data:`~.report.GAP_EDGES_S`."""
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


def gap_before(tl: Timeline, rows: np.ndarray, segments: Segments) -> np.ndarray:
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


def distinct(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values; O(n) without sorting when all values are equal (the common one-rank/one-stream case)."""
    if a.size and a.min() == a.max():
        return a[:1].copy()
    return np.unique(a)


@dataclass(frozen=True)
class KindRows:
    """The Timeline rows of each kind (index arrays) and every row's duration (int64 ns)."""

    kernel: np.ndarray
    memcpy: np.ndarray
    memset: np.ndarray
    api: np.ndarray
    sync: np.ndarray
    annotation: np.ndarray
    dur: np.ndarray

    @classmethod
    def of(cls, tl: Timeline) -> "KindRows":
        """Select the rows of ``tl`` by kind."""
        def rows(kind: int) -> np.ndarray:
            return np.flatnonzero(tl.kind == kind)

        return cls(kernel=rows(KERNEL), memcpy=rows(MEMCPY), memset=rows(MEMSET), api=rows(RUNTIME_API),
                   sync=rows(SYNC), annotation=rows(ANNOTATION), dur=tl.end_ns - tl.start_ns)

"""Interval algebra on NumPy columns: unions, busy time before an instant, gaps, rows of each kind.

Vectorised: no Python loop over intervals (only over devices). Inputs are integer ns (``int64``), sorted by start
where a function says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

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
    """Busy ns before each time ``t`` given disjoint sorted segments (vectorised): the busy time of the segments
    before the last one starting at or before ``t``, plus that one's part up to ``t``. A sentinel segment at the
    dtype's lowest value stands for "none starts before ``t``" (it adds 0), so one gather per column suffices."""
    low = (np.iinfo if seg_s.dtype.kind in "iu" else np.finfo)(seg_s.dtype).min
    pad_s = np.concatenate([np.array([low], dtype=seg_s.dtype), seg_s])
    pad_e = np.concatenate([np.array([low], dtype=seg_e.dtype), seg_e])
    before = np.zeros(pad_s.shape[0], dtype=np.result_type(seg_e.dtype, seg_s.dtype))
    np.cumsum(seg_e[:-1] - seg_s[:-1], out=before[2:])
    idx = np.searchsorted(seg_s, t, side="right")  # segments starting at or before t (0: none; the sentinel)
    return before[idx] + (np.minimum(t, pad_e[idx]) - pad_s[idx])


def by_key_and_start(key: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, list[int], list[int]]:
    """``np.lexsort((start, key))``, faster for a few distinct keys (host threads) whose rows come mostly in start
    order: a stable sort by key, then a stable sort by start within each key (none where a key's rows are already
    in start order). Returns the order, the distinct keys (ascending) and where each one's rows begin in the order
    (one more entry: the end)."""
    order = np.argsort(key, kind="stable")
    key_s = key[order]
    cuts = [0, *(np.flatnonzero(key_s[1:] != key_s[:-1]) + 1).tolist(), key_s.shape[0]]
    start_s = start[order]
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if hi - lo > 1 and not (start_s[lo + 1:hi] >= start_s[lo:hi - 1]).all():
            order[lo:hi] = order[lo:hi][np.argsort(start_s[lo:hi], kind="stable")]
    return order, (key_s[cuts[:-1]].tolist() if key_s.shape[0] else []), cuts


def rows_by_rank(tl: Timeline, *parts: np.ndarray) -> Callable[[int], np.ndarray]:
    """``rank -> rows[tl.rank[rows] == rank]`` (in their order) of the rows ``np.concatenate(parts)``, without a
    pass over all the rows per device: each part stably sorted by rank once (not at all where its ranks already come
    in order, as a reader writes them: rank by rank), then a rank's rows are one slice of each part."""
    split = []
    for rows in parts:
        rank = tl.rank[rows]
        if rank.shape[0] > 1 and not (rank[1:] >= rank[:-1]).all():
            order = np.argsort(rank, kind="stable")
            rows, rank = rows[order], rank[order]
        split.append((rows, rank))

    def of(rk: int) -> np.ndarray:
        return np.concatenate([rows[np.searchsorted(rank, rk, "left"):np.searchsorted(rank, rk, "right")]
                               for rows, rank in split])
    return of


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
    """Sorted distinct values; O(n) without sorting when all values are equal (the common one-rank/one-stream case)
    or already in order (a reader writes the ranks of a multi-rank trace one after the other)."""
    if a.size and a.min() == a.max():
        return a[:1].copy()
    if a.size > 1 and (a[1:] >= a[:-1]).all():
        return a[np.concatenate([[0], np.flatnonzero(a[1:] != a[:-1]) + 1])]
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


@dataclass(frozen=True)
class StreamOrder:
    """GPU rows in stream order: sorted by (rank, device, stream, start), ties in their given order, with those
    columns gathered in that order (one sort shared by the launch queue and the fusion chains)."""

    rows: np.ndarray
    start: np.ndarray
    stream: np.ndarray
    device: np.ndarray
    rank: np.ndarray

    @classmethod
    def of(cls, tl: Timeline, rows: np.ndarray) -> "StreamOrder":
        """Sort the rows ``rows`` of ``tl`` (kernels, copies, memsets) into stream order."""
        cols = tl.start_ns[rows], tl.stream[rows], tl.device[rows], tl.rank[rows]
        order = np.lexsort(cols)
        return cls(rows[order], *(c[order] for c in cols))

    def streams(self) -> list[tuple[int, int]]:
        """``(first, end)`` positions of each (rank, device, stream) run of rows."""
        n = self.rows.shape[0]
        if n == 0:
            return []
        new = (self.rank[1:] != self.rank[:-1]) | (self.device[1:] != self.device[:-1]) | (
            self.stream[1:] != self.stream[:-1])
        cuts = [0, *(np.flatnonzero(new) + 1).tolist(), n]
        return list(zip(cuts[:-1], cuts[1:]))


# ------------------------------------------------------------------------------------ per-item busy / exclusive time
@dataclass(frozen=True)
class ItemTimes:
    """Per-item times of one lane (the busy rows of one device, or one rank's host rows of one kind), int64 ns,
    aligned with ``keys``.

    Attributes:
        keys: the distinct item keys present (sorted; e.g. ``kind * len(names) + name_id`` for GPU rows).
        count: intervals per key.
        total_ns: plain sum of their durations.
        busy_ns: length of the union of the key's own intervals (the time it runs: never more than the lane's
            span, however many streams or threads it overlaps itself on).
        exclusive_ns: time covered by this key ALONE (no other key of the lane active then) = the lane's busy
            union minus the busy union without the key: what removing it would take off the lane's busy time.
    """

    keys: np.ndarray
    count: np.ndarray
    total_ns: np.ndarray
    busy_ns: np.ndarray
    exclusive_ns: np.ndarray


def dense_codes(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted distinct keys, each row's index into them, count per key): ``np.unique`` with its inverse and counts,
    by one bincount for compact key ranges (int64 keys)."""
    if key.shape[0] == 0:
        return key.astype(np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo, hi = int(key.min()), int(key.max())
    if hi - lo <= 4 * key.shape[0] + 4096:
        counts = np.bincount(key - lo)
        present = np.flatnonzero(counts)
        index = np.zeros(counts.shape[0], dtype=np.int64)
        index[present] = np.arange(present.shape[0])
        return present + lo, index[key - lo], counts[present]
    keys, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return keys, inverse.astype(np.int64), counts


def _by(ids: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """Exact int64 sums of ``values`` per id (float64 sums of int64 ns are exact below 2**53 ns, 104 days)."""
    return np.rint(np.bincount(ids, weights=values.astype(np.float64), minlength=k)).astype(np.int64)


def _busy_by(t: np.ndarray, step: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """Union length per id: boundaries sorted by (id, time); a running count of +1 (start) / -1 (end) is each id's
    own number of active intervals (every id's steps sum to 0, so one cumulative sum serves all ids)."""
    order = np.lexsort((t, ids))
    active = np.cumsum(step[order])[:-1] > 0
    t = t[order]
    return _by(ids[order][:-1][active], (t[1:] - t[:-1])[active], k)


def _alone_by(t: np.ndarray, step: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray | None:
    """Time covered by one id alone, per id: boundaries sorted by time; between two boundaries, with ``c`` active
    intervals whose ids (1..k) sum to ``S`` and whose squares sum to ``Q``, all active intervals share one id
    exactly when ``c * Q == S * S`` (Cauchy-Schwarz), and that id is ``S / c``. None when ``c * k`` could overflow
    int64 (then :func:`_alone_by_removal`)."""
    order = np.argsort(t, kind="stable")
    st = step[order]
    c = np.cumsum(st)[:-1]
    if int(c.max(initial=0)) * k >= 1 << 31:
        return None
    nm = ids[order] + 1
    s = np.cumsum(st * nm)[:-1]
    q = np.cumsum(st * nm * nm)[:-1]
    t = t[order]
    seg = t[1:] - t[:-1]
    alone = (c > 0) & (seg > 0) & (c * q == s * s)
    return _by(s[alone] // c[alone] - 1, seg[alone], k)


def _alone_by_removal(start: np.ndarray, end: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """Exclusive time per id as union(all) - union(all but it): one union per id (the rare case of thousands of
    concurrently active intervals, where :func:`_alone_by` could overflow)."""
    whole = union_length_ns(start, end)
    return np.array([whole - union_length_ns(start[ids != i], end[ids != i]) for i in range(k)], dtype=np.int64)


def _crowded(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Rows (sorted by start) lying in a busy-union segment with other rows; the rest overlap nothing, so their
    busy and exclusive time is their duration. O(n): a row opens a segment when it starts after every earlier end."""
    opens = np.ones(start.shape[0] + 1, dtype=bool)
    np.greater(start[1:], np.maximum.accumulate(end)[:-1], out=opens[1:-1])
    return ~(opens[:-1] & opens[1:])  # alone: it opens its segment and the next row opens the next one


def item_times(key: np.ndarray, start: np.ndarray, end: np.ndarray, overlapping: bool = True,
               exclusive: bool = True, presorted: bool = False) -> ItemTimes:
    """Count, total, busy (union) and exclusive time per item key of one lane's intervals ``[start, end)`` (ns).

    Vectorised: one sort of the 2n boundaries per quantity, no loop over intervals. ``overlapping=False`` (the
    caller knows no two intervals overlap, e.g. a device whose busy union equals its plain sum): busy and exclusive
    time equal the total. ``exclusive=False``: exclusive time is not computed (returned equal to busy).
    ``presorted``: the rows are sorted by start; then only the rows sharing a busy-union segment with others are
    swept (usually a small part of a device's rows)."""
    keys, ids, count = dense_codes(key)
    k = keys.shape[0]
    dur = end - start
    total = _by(ids, dur, k)
    if not overlapping or k == 0:
        return ItemTimes(keys, count, total, total, total)
    base = np.zeros(k, dtype=np.int64)
    if presorted:
        crowded = _crowded(start, end)
        if not crowded.all():
            base = _by(ids[~crowded], dur[~crowded], k)
            start, end, ids = start[crowded], end[crowded], ids[crowded]
    n = start.shape[0]
    t = np.concatenate([start, end])
    step = np.concatenate([np.ones(n, dtype=np.int64), np.full(n, -1, dtype=np.int64)])
    both = np.concatenate([ids, ids])
    busy = base + _busy_by(t, step, both, k) if n else base
    if not exclusive:
        return ItemTimes(keys, count, total, busy, busy)
    alone = _alone_by(t, step, both, k) if n and k > 1 else busy - base
    if alone is None:
        alone = _alone_by_removal(start, end, ids, k)
    return ItemTimes(keys, count, total, busy, base + alone)

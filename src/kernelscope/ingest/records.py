"""Impossible records in interval inputs: what every Timeline reader (:mod:`.kineto`, :mod:`.nsys_sqlite`) leaves
out or repairs before the analysis sees the rows. Vectorised (NumPy; Python loops only over the distinct names of
the records found wrong).

Left out -- not rows; counted and named in ``Timeline.invalid`` with the reason:

* an end (or start) at ``INT64_MAX``: the value CUPTI / the exporter leaves in a record that was never completed
  (a Kineto ``dur`` that puts the end past ``INT64_MAX`` ns is saturated to it by the reader); start and end both 0
  (no timing recorded);
* a negative duration (end before start);
* zero-length GPU work (kernel, memcpy, memset) in an input whose clock resolves nanoseconds (an Nsight Systems
  export, a Kineto trace with fractional-µs timestamps): no GPU operation takes no time. In a Kineto trace of whole
  microseconds ``dur`` 0 means "shorter than 1 µs": such a kernel is real and kept (its reader says so in
  ``problems``);
* a timestamp absurdly far from the rest: start or end further than ``max_distance_from_median_s``
  (``data/timeline_rules.toml`` ``[impossible_records]``, with its source) from the median start of the file's GPU
  records (GPU rows) or host records (host rows): another clock, never an event of that capture. Only a minority
  of the rows can be far (most of them must lie around the median, else none is left out).

Repaired -- kept, listed in ``Timeline.repaired`` (which record, how much was removed): the
operations of ONE stream run one after another, so an operation whose end runs past the start of the next operation
on its own (rank, device, stream) ends at that start (case N01: a kernel [1000, 6000) µs followed on its stream by
one starting at 1100 µs ends at 1100 µs; 4,900 µs removed). Rows are sorted by (rank, device, stream, start) and
each end is compared with the next start. Operations launched by ONE call (same correlation id: the nodes of one
CUDA graph launch, whose branches may run side by side) are not compared with each other, only with the next
launch's first operation. An annotation range that ends past its rank's last recorded event by more than the rank's
whole recorded span ends at that event (a step range closed late on another thread would otherwise be the program's
wall).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..knowledge.timeline_checks import ImpossibleRecords, timeline_checks
from ..timeline_model import (
    BUSY_KINDS,
    ANNOTATION,
    GPU_ANNOTATION,
    KIND_NAMES,
    InvalidRecord,
    RepairedRecord,
    Timeline,
)

#: Correlation ids kept per invalid / repaired record group.
MAX_IDS = 32
#: The end CUPTI / the exporter leave in a record that was never completed.
INT64_MAX = int(np.iinfo(np.int64).max)

#: Kind code -> is a GPU row / is GPU work (lookup tables: one gather instead of np.isin's passes).
_GPU_KIND = np.zeros(256, dtype=bool)
_GPU_KIND[list(BUSY_KINDS + (GPU_ANNOTATION,))] = True
_BUSY_KIND = np.zeros(256, dtype=bool)
_BUSY_KIND[list(BUSY_KINDS)] = True
_CLIPPED = "end past the start of the next operation on its stream (one stream runs one operation at a time): " \
           "clipped there"
_OVERLONG = "annotation range ending past the last recorded event by more than the whole recorded span (closed late " \
            "or on another thread: nothing was recorded in that time): clipped at the last recorded event"


def screen_records(tl: Timeline, *, ns_clock: bool, rules: ImpossibleRecords | None = None) -> Timeline:
    """``tl`` without its impossible records (counted in ``invalid``) and with same-stream overlaps clipped
    (listed in ``repaired``); see the module docstring. Returns ``tl`` itself when nothing is wrong.

    Args:
        tl: one file's Timeline (one clock: a Kineto trace file, an Nsight Systems export), integer ns.
        ns_clock: the input's timestamps resolve nanoseconds, so zero-length GPU work is impossible (False for a
            Kineto trace of whole microseconds, where ``dur`` 0 means shorter than 1 µs).
        rules: the threshold of "absurdly far" (default: ``timeline_rules.toml`` ``[impossible_records]``).
    """
    if len(tl) == 0:
        return tl
    rules = rules if rules is not None else timeline_checks().impossible_records
    reason = _reasons(tl, ns_clock, rules)
    if reason is not None:
        tl = _drop(tl, reason, rules)
    return _clip_overlong_annotations(_clip_same_stream(tl))


def _clip_overlong_annotations(tl: Timeline) -> Timeline:
    """Annotation ranges (``ProfilerStep#N``, NVTX) that end past a rank's last recorded event by more than that
    rank's whole recorded span end at that event (listed in ``repaired``): a step range recorded on another thread
    ran 13.3 s past a 355 ms capture (corpus hta_triton_example), and would otherwise be the program's wall."""
    ann = tl.kind == ANNOTATION
    if not ann.any() or ann.all():
        return tl
    end = tl.end_ns
    clip = np.zeros(len(tl), dtype=bool)
    new_end = end.copy()
    for rk in np.unique(tl.rank).tolist():
        mine = tl.rank == rk
        other = mine & ~ann
        if not other.any():
            continue
        first, last = int(tl.start_ns[other].min()), int(end[other].max())
        over = mine & ann & (end - last > max(last - first, 0))
        clip |= over
        new_end[over] = np.maximum(tl.start_ns[over], last)
    if not clip.any():
        return tl
    rows = np.flatnonzero(clip)
    return replace(tl, end_ns=new_end,
                   repaired=tl.repaired + _repairs(tl, rows, end[rows] - new_end[rows], _OVERLONG))


# -------------------------------------------------------------------------------------------------- exclusions
def _reason_texts(rules: ImpossibleRecords) -> tuple[str, ...]:
    """Reason per code 1.. (code 0 = fine), in order of precedence."""
    hours = rules.max_distance_from_median_s / 3600.0
    return ("",
            "end at INT64_MAX (a record never completed)",
            "no timing (start and end 0)",
            f"timestamp more than {hours:g} h from the median of the file's records (another clock)",
            "negative duration (end before start)",
            "zero duration (a ns clock: no GPU operation takes no time)")


def _far(tl: Timeline, rows: np.ndarray | slice, max_ns: int) -> np.ndarray:
    """Whether each of ``rows`` starts or ends more than ``max_ns`` from the median start of those rows. Only a
    minority can be far: when the window around the median does not hold most of the rows, there is no "rest" to
    be far from, and none is."""
    start, end = tl.start_ns[rows], tl.end_ns[rows]
    if start.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    med = int(np.median(start))
    lo, hi = max(med - max_ns, -INT64_MAX), min(med + max_ns, INT64_MAX)  # Python ints: no overflow
    far = (start < lo) | (start > hi) | (end > hi) | (end < lo)
    return far if 2 * int(far.sum()) < far.shape[0] else np.zeros_like(far)


def _reasons(tl: Timeline, ns_clock: bool, rules: ImpossibleRecords) -> np.ndarray | None:
    """Reason code per row (0 = fine; see :func:`_reason_texts`), or None when every row is fine."""
    start, end = tl.start_ns, tl.end_ns
    max_ns = int(rules.max_distance_from_median_s * 1e9)
    far = np.zeros(len(tl), dtype=bool)
    if int(end.max()) - int(start.min()) > max_ns:  # else every timestamp is within max_ns of any median
        gpu = _GPU_KIND[tl.kind]
        far[gpu] = _far(tl, gpu, max_ns)
        far[~gpu] = _far(tl, ~gpu, max_ns)
    at_max = (end == INT64_MAX) | (start == INT64_MAX)
    untimed = (start == 0) & (end == 0)
    negative = end < start
    zero = (end == start) & _BUSY_KIND[tl.kind] if ns_clock else None
    if not (far.any() or at_max.any() or negative.any() or untimed.any() or (zero is not None and zero.any())):
        return None
    code = np.zeros(len(tl), dtype=np.int8)  # the first reason that applies, in the order of _reason_texts
    if zero is not None:
        code[zero] = 5
    code[negative] = 4
    code[far] = 3
    code[untimed] = 2
    code[at_max] = 1
    return code


def _drop(tl: Timeline, code: np.ndarray, rules: ImpossibleRecords) -> Timeline:
    """``tl`` without the rows of a non-zero ``code``, each group of them (kind, name, reason) counted."""
    texts = _reason_texts(rules)
    invalid: list[InvalidRecord] = []
    bad = np.flatnonzero(code)
    key = (code[bad].astype(np.int64) << 40) | (tl.kind[bad].astype(np.int64) << 32) | tl.name_id[bad]
    groups, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    corr = tl.correlation_id[bad]
    for g, k in enumerate(groups.tolist()):
        ids = corr[(inverse == g) & (corr >= 0)][:MAX_IDS]
        invalid.append(InvalidRecord(KIND_NAMES[(k >> 32) & 0xFF], tl.names[k & 0xFFFFFFFF], texts[k >> 40],
                                     int(counts[g]), tuple(int(i) for i in ids)))
    line = (f"{bad.size} impossible record(s) left out: "
            + ", ".join(f"{int((code == c).sum())} {texts[c].split(' (')[0]}" for c in range(1, 6) if (code == c).any())
            + " (see invalid)")
    kept = tl.take(np.flatnonzero(code == 0))
    return replace(kept, invalid=tl.invalid + tuple(invalid), problems=tl.problems + (line,))


# --------------------------------------------------------------------------------------------------- repairs
def _stream_order(tl: Timeline) -> np.ndarray:
    """GPU work rows with a known stream, sorted by (rank, device, stream, start)."""
    rows = np.flatnonzero(_BUSY_KIND[tl.kind] & (tl.stream >= 0))
    keys = [tl.start_ns[rows]]
    for col in (tl.stream, tl.device, tl.rank):
        c = col[rows]
        if c.size and c.min() != c.max():
            keys.append(c)
    if len(keys) == 1:
        return rows[np.argsort(keys[0], kind="stable")]
    return rows[np.lexsort(keys)]


def _clip_same_stream(tl: Timeline) -> Timeline:
    """Ends clipped at the next start on their own stream (see the module docstring)."""
    o = _stream_order(tl)
    if o.size < 2:
        return tl
    s, e = tl.start_ns[o], tl.end_ns[o]
    new_group = np.zeros(o.size, dtype=bool)
    new_group[0] = True
    for col in (tl.rank, tl.device, tl.stream):
        c = col[o]
        if c[0] != c[-1] or c.min() != c.max():
            new_group[1:] |= c[1:] != c[:-1]
    if not ((e[:-1] > s[1:]) & ~new_group[1:]).any():  # nothing overlaps its successor on its own stream
        return tl
    corr = tl.correlation_id[o]
    new_run = new_group.copy()
    new_run[1:] |= (corr[1:] != corr[:-1]) | (corr[1:] < 0)
    first = np.flatnonzero(new_run)  # the first row of each run (operations of one launch on one stream)
    run = np.cumsum(new_run) - 1
    group = np.cumsum(new_group)
    nxt_row = first[np.minimum(run + 1, first.size - 1)]  # the first row of the next run
    over = (run + 1 < first.size) & (group[nxt_row] == group) & (e > s[nxt_row])
    if not over.any():
        return tl
    rows, clip_to = o[over], s[nxt_row[over]]
    removed = tl.end_ns[rows] - clip_to
    end = tl.end_ns.copy()
    end[rows] = clip_to
    return replace(tl, end_ns=end, repaired=tl.repaired + _repairs(tl, rows, removed))


def _repairs(tl: Timeline, rows: np.ndarray, removed: np.ndarray, reason: str = _CLIPPED) -> tuple[RepairedRecord, ...]:
    """The clipped ``rows`` grouped by (kind, name, device, stream), largest removed time first."""
    keys = np.stack([tl.kind[rows].astype(np.int64), tl.name_id[rows].astype(np.int64),
                     tl.device[rows].astype(np.int64), tl.stream[rows]], axis=1)
    groups, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    corr = tl.correlation_id[rows]
    out = []
    for g, (kind, name_id, device, stream) in enumerate(groups.tolist()):
        m = inverse == g
        ids = corr[m & (corr >= 0)][:MAX_IDS]
        out.append(RepairedRecord(KIND_NAMES[kind], tl.names[name_id], reason, device=int(device),
                                  stream=int(stream), count=int(m.sum()), removed_ns=int(removed[m].sum()),
                                  max_removed_ns=int(removed[m].max()), correlation_ids=tuple(int(i) for i in ids)))
    out.sort(key=lambda r: -r.removed_ns)
    return tuple(out)


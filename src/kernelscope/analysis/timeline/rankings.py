"""Rankings: every kernel, copy, memset, API call, synchronisation and annotation name summed over its
occurrences, largest total first, with its Amdahl projection; the kernels' most common launch shape; the single
largest place the time goes (the "black hole").

Amdahl projections use an item's total time as a fraction of the program time (``program_fraction``), assuming
the item's time is on the critical path (overlapped work gains less). Factors: ``timeline_rules.toml``
``[amdahl]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...knowledge.timeline_checks import timeline_checks
from ...timeline_model import Timeline
from .intervals import KindRows
from .report import NS, Amdahl, BlackHole, ItemStat, LaunchShape

#: Launch-arg columns that make a launch shape, in :class:`~.report.LaunchShape` order.
SHAPE_FIELDS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread")


def amdahl_speedup(fraction: float, factor: float) -> float:
    """Program speedup when a part taking ``fraction`` (0-1) of the time becomes ``factor`` times faster
    (``inf`` when the part is the whole time and ``factor`` is ``inf``)."""
    fraction = min(max(fraction, 0.0), 1.0)
    rest = 1.0 - fraction + (0.0 if math.isinf(factor) else fraction / factor)
    return math.inf if rest <= 0 else 1.0 / rest


def amdahl(fraction: float, factors: Sequence[float] | None = None) -> Amdahl:
    """Amdahl projection for ``factors`` (default ``timeline_rules.toml`` ``[amdahl]``: 2x, 10x) and "gone" (inf)."""
    chosen = factors if factors is not None else timeline_checks().amdahl.factors
    fs = tuple(float(f) for f in chosen) + (math.inf,)
    fraction = min(max(float(fraction), 0.0), 1.0)
    return Amdahl(
        fraction=fraction, factors=fs,
        speedups=tuple(amdahl_speedup(fraction, f) for f in fs),
        saved_fraction=tuple(fraction * (1.0 - (0.0 if math.isinf(f) else 1.0 / f)) for f in fs),
    )


def _distinct_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an integer table, sorted (lexicographically by column), and how often each occurs.

    Each column is offset by its minimum and the columns are packed into one int64 key when their ranges fit in
    63 bits (the usual case: counted with one bincount when the keys span at most 2**22 values, else one 1-D sort);
    otherwise NumPy's row-wise unique (a slower sort of whole rows)."""
    lo = table.min(axis=0).astype(np.int64)
    bits = [int(b).bit_length() for b in (table.max(axis=0).astype(np.int64) - lo).tolist()]
    if sum(bits) > 63:
        return np.unique(table, axis=0, return_counts=True)
    shifts = np.cumsum([0] + bits[::-1][:-1])[::-1]  # the first column in the highest bits: keys sort like rows
    key = np.zeros(table.shape[0], dtype=np.int64)
    for j, shift in enumerate(shifts.tolist()):
        key |= (table[:, j].astype(np.int64) - lo[j]) << shift
    if sum(bits) <= 22:  # a small key space: count without sorting
        counts = np.bincount(key)
        keys = np.flatnonzero(counts)
        counts = counts[keys]
    else:
        keys, counts = np.unique(key, return_counts=True)
    masks = np.array([(1 << b) - 1 for b in bits], dtype=np.int64)
    rows = ((keys[:, None] >> shifts[None, :].astype(np.int64)) & masks[None, :]) + lo[None, :]
    return rows, counts


def launch_shapes(tl: Timeline, k_rows: np.ndarray) -> dict[int, LaunchShape]:
    """name id -> the most common launch shape of that kernel name (ties: the smallest shape), from the launch
    args of the kernel rows ``k_rows``; empty when the trace records none. Vectorised (one sort of the recorded
    rows)."""
    la = tl.launch
    if la is None or k_rows.size == 0:
        return {}
    rows = k_rows[(la.grid_x[k_rows] >= 0) & (la.block_x[k_rows] >= 0)]
    if rows.size == 0:
        return {}
    table = np.stack([tl.name_id[rows]] + [getattr(la, f)[rows] for f in SHAPE_FIELDS], axis=1)
    shapes, counts = _distinct_rows(table)  # sorted by name, then shape
    order = np.lexsort((-counts, shapes[:, 0]))  # per name, most used first (stable: ties keep the shape order)
    shapes, counts = shapes[order], counts[order]
    names, first, n_shapes = np.unique(shapes[:, 0], return_index=True, return_counts=True)
    recorded = np.add.reduceat(counts, first)
    out = {}
    for name, i, k, total in zip(names.tolist(), first.tolist(), n_shapes.tolist(), recorded.tolist()):
        s = shapes[i].tolist()
        out[name] = LaunchShape(grid=(s[1], s[2], s[3]), block=(s[4], s[5], s[6]),
                                registers_per_thread=s[7] if s[7] >= 0 else None, launches=int(counts[i]),
                                recorded=int(total), shapes=int(k))
    return out


def group_stats(kind_name: str, name_ids: np.ndarray, dur_ns: np.ndarray, names: Sequence[str],
                nbytes: np.ndarray | None, program_ns: int | None, median_top: int,
                shapes: dict[int, LaunchShape] | None = None) -> tuple[ItemStat, ...]:
    """Per-name count / total / mean / min / max (vectorised), largest total first; medians for the first
    ``median_top`` items; Amdahl fractions of ``program_ns``; ``shapes``: launch shapes by name id (kernels)."""
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
    byts = unknown_counts = None
    if nbytes is not None:
        known = nbytes >= 0
        byts = np.bincount(name_ids[known], weights=nbytes[known].astype(np.float64), minlength=n_names)
        unknown_counts = np.bincount(name_ids[~known], minlength=n_names)
    order = present[np.argsort(-totals[present], kind="stable")]
    grand = float(totals[present].sum())
    fs = timeline_checks().amdahl.factors
    shapes = shapes or {}
    out = []
    for rank_i, i in enumerate(order.tolist()):
        total_s = float(totals[i]) * NS
        median = float(np.median(dur_ns[name_ids == i])) * NS if rank_i < median_top else None
        b = thr = None
        if byts is not None and unknown_counts[i] == 0:
            b = int(byts[i])
            thr = b / total_s if total_s > 0 else None
        frac = (float(totals[i]) / program_ns) if program_ns else None
        out.append(ItemStat(
            kind=kind_name, name=names[i], count=int(counts[i]), total_s=total_s,
            mean_s=total_s / int(counts[i]), min_s=int(mins[i]) * NS, max_s=int(maxs[i]) * NS, median_s=median,
            share_pct=(100.0 * float(totals[i]) / grand) if grand > 0 else None,
            program_fraction=min(frac, 1.0) if frac is not None else None,
            amdahl=amdahl(frac, fs) if frac is not None else None, bytes=b, throughput_bytes_per_s=thr,
            launch=shapes.get(i),
        ))
    return tuple(out)


@dataclass(frozen=True)
class Rankings:
    """Every ranking of one run, largest total first."""

    kernels: tuple[ItemStat, ...]
    copies: tuple[ItemStat, ...]
    memsets: tuple[ItemStat, ...]
    api_calls: tuple[ItemStat, ...]
    syncs: tuple[ItemStat, ...]
    annotations: tuple[ItemStat, ...]


def rankings(tl: Timeline, rows: KindRows, program_ns: int, top: int) -> Rankings:
    """Rank the names of every kind of ``tl``; the first ``top`` of each get a median."""
    dur, names = rows.dur, tl.names

    def stats(kind: str, r: np.ndarray, with_bytes: bool = False, shapes=None) -> tuple[ItemStat, ...]:
        return group_stats(kind, tl.name_id[r], dur[r], names, tl.bytes[r] if with_bytes else None, program_ns, top,
                           shapes)

    return Rankings(
        kernels=stats("kernel", rows.kernel, shapes=launch_shapes(tl, rows.kernel)),
        copies=stats("memcpy", rows.memcpy, with_bytes=True), memsets=stats("memset", rows.memset, with_bytes=True),
        api_calls=stats("runtime_api", rows.api), syncs=stats("sync", rows.sync),
        annotations=stats("annotation", rows.annotation))


def black_hole(kernels: Sequence[ItemStat], copies: Sequence[ItemStat], memsets: Sequence[ItemStat], idle_s: float,
               wall_ns: int | None, host: tuple[str, float] | None = None) -> BlackHole | None:
    """The largest share of the program time among the top kernel, copy and memset (their ``program_fraction``)
    and the GPU idle time ``idle_s`` of a rank whose wall is ``wall_ns`` (with ``host``, the API call covering
    most of it). Items without a fraction compare by time."""
    cands = []
    for cat, items in (("kernel", kernels), ("memcpy", copies), ("memset", memsets)):
        if items:
            cands.append((items[0].program_fraction, items[0].total_s, cat, items[0].name))
    if idle_s > 0:
        cands.append((min(idle_s / (wall_ns * NS), 1.0) if wall_ns else None, idle_s, "gpu_idle", "GPU idle"))
    if not cands:
        return None
    frac, t, cat, name = max(cands, key=lambda c: (c[0] or 0.0, c[1], c[2], c[3]))
    api, api_s = (host if (cat == "gpu_idle" and host is not None) else (None, None))
    return BlackHole(cat, name, t, frac, amdahl(frac) if frac is not None else None, api, api_s)

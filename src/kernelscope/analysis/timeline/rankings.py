"""Rankings: every kernel, copy, memset, API call, synchronisation and annotation name summed over its
occurrences, largest total first, with its Amdahl projections; the kernels' most common launch shape; the single
largest place the time goes (the "black hole").

Amdahl projections of a timeline are per device and for the whole program (:mod:`.scopes`: the time a GPU item
adds to its device's busy union, the slowest rank ending the program); of a summary, an item's total as a fraction
of the summed GPU time, assuming serial execution (:func:`amdahl`). Factors: ``timeline_rules.toml`` ``[amdahl]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...knowledge.timeline_checks import timeline_checks
from ...timeline_model import MEMCPY, MEMSET, Timeline
from .breakdown import Breakdown, Walls
from .collectives import Waits
from .intervals import KindRows
from .report import NS, Amdahl, BlackHole, ItemStat, LaunchShape
from .scopes import ItemScope, gpu_lanes, host_lanes

#: Launch-arg columns that make a launch shape, in :class:`~.report.LaunchShape` order.
SHAPE_FIELDS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread")


def amdahl_speedup(fraction: float, factor: float) -> float:
    """Program speedup when a part taking ``fraction`` (0-1) of the time becomes ``factor`` times faster
    (``inf`` when the part is the whole time and ``factor`` is ``inf``)."""
    fraction = min(max(fraction, 0.0), 1.0)
    rest = 1.0 - fraction + (0.0 if math.isinf(factor) else fraction / factor)
    return math.inf if rest <= 0 else 1.0 / rest


def amdahl(fraction: float, factors: Sequence[float] | None = None, scope: str = "program", basis: str = "serial",
           base_s: float | None = None) -> Amdahl:
    """Amdahl projection of an item taking ``fraction`` (0-1) of a time ``base_s`` (seconds, None: not known) for
    ``factors`` (default ``timeline_rules.toml`` ``[amdahl]``: 2x, 10x) and "gone" (inf); ``scope`` and ``basis``
    say whose time and which of the item's time (see :class:`~.report.Amdahl`)."""
    chosen = factors if factors is not None else timeline_checks().amdahl.factors
    fs = tuple(float(f) for f in chosen) + (math.inf,)
    fraction = min(max(float(fraction), 0.0), 1.0)
    saved = tuple(fraction * (1.0 - (0.0 if math.isinf(f) else 1.0 / f)) for f in fs)
    return Amdahl(
        fraction=fraction, factors=fs, speedups=tuple(amdahl_speedup(fraction, f) for f in fs), saved_fraction=saved,
        scope=scope, basis=basis, base_s=base_s,
        projected_s=tuple(base_s * (1.0 - x) for x in saved) if base_s is not None else (),
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
                shapes: dict[int, LaunchShape] | None = None, scope: ItemScope | None = None) -> tuple[ItemStat, ...]:
    """Per-name count / total / mean / min / max (vectorised), largest total first; medians for the first
    ``median_top`` items; ``shapes``: launch shapes by name id (kernels). Projections: with ``scope``, per device
    and for the program (:mod:`.scopes`); otherwise the total as a fraction of ``program_ns``, serial."""
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
    # sample standard deviation, two-pass (deviations from each name's mean: no cancellation at ns^2 scale)
    means = np.divide(totals, counts, out=np.zeros(n_names), where=counts > 0)
    dev = dur_ns.astype(np.float64) - means[name_ids]
    sq = np.bincount(name_ids, weights=dev * dev, minlength=n_names)
    stds = np.sqrt(np.divide(sq, counts - 1, out=np.zeros(n_names), where=counts > 1))
    byts = unknown_counts = None
    if nbytes is not None:
        known = nbytes >= 0
        byts = np.bincount(name_ids[known], weights=nbytes[known].astype(np.float64), minlength=n_names)
        unknown_counts = np.bincount(name_ids[~known], minlength=n_names)
    order = present[np.argsort(-totals[present], kind="stable")]
    grand = float(totals[present].sum())
    fs = timeline_checks().amdahl.factors
    shapes = shapes or {}
    scoped = scope.of(order) if scope is not None else None
    out = []
    for rank_i, i in enumerate(order.tolist()):
        total_s = float(totals[i]) * NS
        median = float(np.median(dur_ns[name_ids == i])) * NS if rank_i < median_top else None
        b = thr = None
        if byts is not None and unknown_counts[i] == 0:
            b = int(byts[i])
            thr = b / total_s if total_s > 0 else None
        if scoped is not None:
            projected, lanes, exclusive = scoped[rank_i]
        else:
            frac = (float(totals[i]) / program_ns) if program_ns else None
            projected = amdahl(frac, fs, base_s=program_ns * NS) if frac is not None else None
            lanes, exclusive = (), None
        out.append(ItemStat(
            kind=kind_name, name=names[i], count=int(counts[i]), total_s=total_s,
            mean_s=total_s / int(counts[i]), min_s=int(mins[i]) * NS, max_s=int(maxs[i]) * NS, median_s=median,
            share_pct=(100.0 * float(totals[i]) / grand) if grand > 0 else None,
            program_fraction=projected.fraction if projected is not None else None,
            amdahl=projected, bytes=b, throughput_bytes_per_s=thr, launch=shapes.get(i), exclusive_s=exclusive,
            devices=lanes, std_s=float(stds[i]) * NS if counts[i] > 1 else None,
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


def rankings(tl: Timeline, rows: KindRows, w: Walls, top: int, split: Breakdown,
             waits: Waits | None = None) -> Rankings:
    """Rank the names of every kind of ``tl``; the first ``top`` of each get a median. Projections per device (the
    devices of ``split``; host items: per rank) and for the program (the rank walls ``w``, less the ranks'
    collective ``waits``), see :mod:`.scopes` and :mod:`.collectives`."""
    dur, names = rows.dur, tl.names
    fs = timeline_checks().amdahl.factors
    gpu = gpu_lanes(w, split, waits)

    def stats(kind: str, r: np.ndarray, scope: ItemScope, with_bytes: bool = False, shapes=None) -> tuple[ItemStat, ...]:
        return group_stats(kind, tl.name_id[r], dur[r], names, tl.bytes[r] if with_bytes else None, None, top,
                           shapes, scope)

    def host(r: np.ndarray) -> ItemScope:
        return ItemScope(host_lanes(tl, w, r), 0, fs)

    return Rankings(
        kernels=stats("kernel", rows.kernel, ItemScope(gpu, 0, fs), shapes=launch_shapes(tl, rows.kernel)),
        copies=stats("memcpy", rows.memcpy, ItemScope(gpu, MEMCPY * len(names), fs), with_bytes=True),
        memsets=stats("memset", rows.memset, ItemScope(gpu, MEMSET * len(names), fs), with_bytes=True),
        api_calls=stats("runtime_api", rows.api, host(rows.api)), syncs=stats("sync", rows.sync, host(rows.sync)),
        annotations=stats("annotation", rows.annotation, host(rows.annotation)))


def black_hole(kernels: Sequence[ItemStat], copies: Sequence[ItemStat], memsets: Sequence[ItemStat],
               idle: ItemStat | None = None, communication: ItemStat | None = None) -> BlackHole | None:
    """The row whose absence saves the largest share of the program time (its ``program_fraction``; ties: the
    larger total, then the first in the order kernels, copies, memsets, GPU idle, exposed communication) among
    every kernel, copy and memset, the GPU idle row ``idle`` and the exposed communication row ``communication``
    (a category: two concurrent collectives each hide the other, so neither alone gains anything, case N22).
    Every figure is the row's own (rows without a fraction compare as 0)."""
    best: tuple[float, float] | None = None
    chosen = None
    for table, items in (("kernels", kernels), ("copies", copies), ("memsets", memsets),
                         ("gpu_idle", (idle,) if idle is not None else ()),
                         ("communication", (communication,) if communication is not None else ())):
        for it in items:
            key = (it.program_fraction or 0.0, it.total_s)
            if best is None or key > best:
                best, chosen = key, (table, it)
    if chosen is None:
        return None
    table, it = chosen
    lane = max(it.devices, key=lambda d: (d.amdahl.fraction if d.amdahl is not None else 0.0, d.share_pct),
               default=None)
    return BlackHole(category=it.kind, name=it.name, time_s=it.total_s, program_fraction=it.program_fraction,
                     amdahl=it.amdahl, row=table, lane=lane, lanes=len(it.devices))

"""Shares and Amdahl projections per device, per rank and for the whole program, from integer-ns intervals.

Definitions (every projection says its ``scope`` and ``basis``, see :class:`~.report.Amdahl`):

* A device's time is its rank's wall (first to last recorded interval of that rank, any kind). A kernel, copy or
  memset on a device has a plain ``total``, a ``busy`` time (the union of its own intervals: the time it runs, never
  more than the device's time, so its share never exceeds 100 %) and an ``exclusive`` time (covered by it alone: the
  device's busy union minus the busy union without it; what its absence removes when streams overlap). Host items
  (API calls, synchronisation, annotations) have one lane per rank and are projected with their busy time there
  (basis ``"host"``: the rank is assumed to wait for them).
* Per-device projection (scope ``"device"``; ``"rank"`` for host items and GPU idle): the device's time ``W`` minus
  the removed time ``a`` scaled by ``1 - 1/factor``: classic Amdahl with fraction ``a / W``.
* Program projection (scope ``"program"``): the program wall ``T`` is the longest rank wall (the slowest rank, and
  device, ends the program). Each device keeps its rank busy for the rank's wall, so a rank's wall shrinks by the
  LEAST time the item takes from any of its devices (a device without the item keeps the wall); ranks run side by
  side: ``T'(f) = max over ranks r of (W_r - (1 - 1/f) * min over devices d of r of a_rd)``. One device: classic
  Amdahl on the wall. Speedup ``T / T'``, saved share ``1 - T'/T``; ``fraction`` is the saved share when gone.
  Ranks that wait in collectives (:mod:`.collectives`): each rank's own work ``W_r - wait_r`` shrinks, the program
  wall is ``T - (B - B'(f))`` with ``B = max_r(W_r - wait_r)``, and a collective loses only its time beyond its
  wait there (waiting for another rank is not work to speed up, case N14).
* Exposed communication (basis ``"exposed_communication"``): per rank, its communication not under computation,
  beyond its collective wait.
* GPU idle (basis ``"no_gpu_work"``): per rank, the time of its wall with no GPU work on any of its devices.

Vectorised: per-item times come from :func:`.intervals.item_times` (one sort of the boundaries per lane); the
projection is a few array operations over items x lanes (a Python loop over lanes and ranks only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ...timeline_model import Timeline
from .breakdown import Breakdown, Walls, rank_value
from .collectives import RankComm, Waits
from .collectives import program_after as waited_after
from .intervals import ItemTimes, distinct, item_times, union_segments
from .report import NS, Amdahl, ItemStat, ScopeShare


@dataclass(frozen=True)
class Lanes:
    """The lanes items are shared out over: the devices of every rank (GPU items) or every rank's host (host
    items), with each lane's per-item times.

    Attributes:
        walls_ns: wall of every rank, in ``ranks`` order (int64 ns).
        ranks: the distinct rank values (-1 = not recorded).
        rank_index: per lane, its rank's index into ``ranks``.
        devices: per lane, its device id (None: the rank's host).
        times: per lane, its :class:`~.intervals.ItemTimes` (keys: ``kind * len(names) + name_id`` for GPU lanes,
            ``name_id`` for host lanes).
        basis: what a lane's item loses when it goes (``"exclusive"`` or ``"host"``, see :class:`~.report.Amdahl`).
        wait_ns: per rank (``ranks`` order), its collective wait (:mod:`.collectives`); None: no wait.
        lane_wait: per lane, the collective wait of each item key there (ns): a collective loses only its time
            beyond the wait (empty: none).
    """

    walls_ns: np.ndarray
    ranks: np.ndarray
    rank_index: tuple[int, ...]
    devices: tuple[int | None, ...]
    times: tuple[ItemTimes, ...]
    basis: str
    wait_ns: np.ndarray | None = None
    lane_wait: tuple[Mapping[int, int], ...] = ()


def _walls_of(w: Walls) -> tuple[np.ndarray, dict[int, int]]:
    ranks = [int(r) for r in w.ranks.tolist()]
    return np.array([w.by_rank[r] for r in ranks], dtype=np.int64), {r: i for i, r in enumerate(ranks)}


def gpu_lanes(w: Walls, split: Breakdown, waits: Waits | None = None) -> Lanes:
    """One lane per device of every rank, from the breakdown's per-device item times; ``waits``: the ranks'
    collective waits (None: none)."""
    walls_ns, index = _walls_of(w)
    devs = split.devices
    ranks = tuple(-1 if d.rank is None else d.rank for d in devs)
    if waits is None or not any(waits.wait_ns.values()):
        return Lanes(walls_ns, w.ranks, tuple(index[r] for r in ranks), tuple(d.device for d in devs),
                     tuple(split.items), "exclusive")
    wait = np.array([waits.wait_ns.get(int(r), 0) for r in w.ranks.tolist()], dtype=np.int64)
    return Lanes(walls_ns, w.ranks, tuple(index[r] for r in ranks), tuple(d.device for d in devs),
                 tuple(split.items), "exclusive", wait, tuple(waits.by_key.get(r, {}) for r in ranks))


def host_lanes(tl: Timeline, w: Walls, rows: np.ndarray) -> Lanes:
    """One lane per rank for the host rows ``rows`` of one kind (API calls, synchronisation or annotations)."""
    walls_ns, index = _walls_of(w)
    rank_index, times = [], []
    if rows.size:
        rk = tl.rank[rows]
        for r in ([int(rk[0])] if w.ranks.size == 1 else [int(x) for x in distinct(rk).tolist()]):
            sel = rows if w.ranks.size == 1 else rows[rk == r]
            sel = sel[np.argsort(tl.start_ns[sel], kind="stable")]  # by start: only the crowded rows are swept
            rank_index.append(index[r])
            times.append(item_times(tl.name_id[sel].astype(np.int64), tl.start_ns[sel], tl.end_ns[sel],
                                    exclusive=False, presorted=True))
    return Lanes(walls_ns, w.ranks, tuple(rank_index), (None,) * len(times), tuple(times), "host")


def _factors(factors: Sequence[float]) -> tuple[float, ...]:
    return tuple(float(f) for f in factors) + (math.inf,)


def _keep(f: float) -> float:
    """The share of an item's time that remains when it becomes ``f`` times faster."""
    return 0.0 if math.isinf(f) else 1.0 / f


def projections(base_ns: np.ndarray, after_ns: np.ndarray, fs: tuple[float, ...], scope: str,
                basis: str) -> list[Amdahl | None]:
    """One :class:`~.report.Amdahl` per row: a scope whose time ``base_ns[p]`` becomes ``after_ns[p, i]`` for factor
    ``fs[i]`` (the last ``inf``); None where the scope has no time. Vectorised (one conversion per array)."""
    base = np.asarray(base_ns, dtype=np.float64)[:, None]
    after = np.clip(np.asarray(after_ns, dtype=np.float64), 0.0, np.maximum(base, 0.0))
    ok = base[:, 0] > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        speed = np.where(after > 0, base / np.where(after > 0, after, 1.0), np.inf)
        saved = 1.0 - after / np.where(base > 0, base, 1.0)
    sp, sv, pj, bs = speed.tolist(), saved.tolist(), (after * NS).tolist(), (base[:, 0] * NS).tolist()
    return [Amdahl(fraction=sv[p][-1], factors=fs, speedups=tuple(sp[p]), saved_fraction=tuple(sv[p]), scope=scope,
                   basis=basis, base_s=bs[p], projected_s=tuple(pj[p])) if good else None
            for p, good in enumerate(ok.tolist())]


def projection(base_ns: float, after_ns: Sequence[float], fs: tuple[float, ...], scope: str,
               basis: str) -> Amdahl | None:
    """The :class:`~.report.Amdahl` of one scope whose time ``base_ns`` becomes ``after_ns[i]`` for factor ``fs[i]``
    (the last ``inf``); None when the scope has no time."""
    return projections(np.array([base_ns], dtype=np.float64), np.array([after_ns], dtype=np.float64), fs, scope,
                       basis)[0]


def program_after(removed: np.ndarray, rank_index: Sequence[int], walls_ns: np.ndarray,
                  fs: tuple[float, ...], wait_ns: np.ndarray | None = None) -> np.ndarray:
    """The program time after (ns, shape items x factors) when each item loses ``removed[i, lane]`` on every lane
    (shape items x lanes): per rank the least of its lanes, the program the longest rank (module docstring);
    ``wait_ns``: per rank, its collective wait (:func:`.collectives.program_after`)."""
    k = removed.shape[0]
    least = np.zeros((k, walls_ns.shape[0]))
    lane_rank = np.asarray(rank_index, dtype=np.int64)
    for r in np.unique(lane_rank).tolist():
        least[:, r] = removed[:, lane_rank == r].min(axis=1)
    return waited_after(walls_ns, wait_ns, least, fs)


@dataclass(frozen=True)
class ItemScope:
    """Shares out the items of one kind over ``lanes``: per-device shares and projections, and the program
    projection (see the module docstring). ``offset``: the kind's key offset (``kind * len(names)`` on GPU lanes,
    0 on host lanes)."""

    lanes: Lanes
    offset: int
    factors: tuple[float, ...]

    def of(self, ids: np.ndarray) -> list[tuple[Amdahl | None, tuple[ScopeShare, ...], float | None]]:
        """For the items with name ids ``ids`` (in ranking order): (program projection, the item on each lane where
        it occurs, exclusive seconds summed over lanes or None for host items)."""
        lanes, fs, k = self.lanes, _factors(self.factors), ids.shape[0]
        if not lanes.times:
            return [(None, (), None)] * k
        cols = self._columns(ids.astype(np.int64) + self.offset)
        gpu = lanes.basis == "exclusive"
        removed = (cols["excl"] - cols["wait"] if gpu else cols["busy"]).astype(np.float64)
        after = program_after(np.maximum(removed, 0.0), lanes.rank_index, lanes.walls_ns, fs, lanes.wait_ns)
        program = projections(np.full(k, float(lanes.walls_ns.max())), after, fs, "program", lanes.basis)
        shares = self._shares(cols, removed, fs)
        excl = (cols["excl"].sum(axis=1) * NS).tolist()
        return [(program[i], shares[i], excl[i] if gpu else None) for i in range(k)]

    def _columns(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """Count, total, busy and exclusive ns of each item key (rows) on each lane (columns); 0 where absent."""
        cols = {q: np.zeros((keys.shape[0], len(self.lanes.times)), dtype=np.int64)
                for q in ("count", "total", "busy", "excl", "wait")}
        for j, waits in enumerate(self.lanes.lane_wait):
            if waits:
                cols["wait"][:, j] = [waits.get(int(x), 0) for x in keys.tolist()]
        for j, t in enumerate(self.lanes.times):
            if t.keys.size == 0:
                continue
            pos = np.minimum(np.searchsorted(t.keys, keys), t.keys.size - 1)
            hit = t.keys[pos] == keys
            for q, arr in (("count", t.count), ("total", t.total_ns), ("busy", t.busy_ns), ("excl", t.exclusive_ns)):
                cols[q][hit, j] = arr[pos[hit]]
        return cols

    def _shares(self, cols: dict[str, np.ndarray], removed: np.ndarray,
                fs: tuple[float, ...]) -> list[tuple[ScopeShare, ...]]:
        """Per item, a :class:`~.report.ScopeShare` for each lane where it occurs, with the lane's projection."""
        lanes = self.lanes
        ii, jj = np.nonzero(cols["count"])
        walls = lanes.walls_ns[np.asarray(lanes.rank_index, dtype=np.int64)[jj]].astype(np.float64)
        keep = np.array([1.0 - _keep(f) for f in fs])
        after = walls[:, None] - np.maximum(removed[ii, jj], 0.0)[:, None] * keep[None, :]
        gpu = lanes.basis == "exclusive"
        amdahls = projections(walls, after, fs, "device" if gpu else "rank", lanes.basis)
        ranks = [rank_value(int(lanes.ranks[r])) for r in lanes.rank_index]
        count, total, busy, excl = (cols[q][ii, jj].tolist() for q in ("count", "total", "busy", "excl"))
        out: list[list[ScopeShare]] = [[] for _ in range(removed.shape[0])]
        for p, (i, j, wall) in enumerate(zip(ii.tolist(), jj.tolist(), walls.tolist())):
            out[i].append(ScopeShare(
                rank=ranks[j], device=lanes.devices[j], count=count[p], total_s=total[p] * NS, busy_s=busy[p] * NS,
                exclusive_s=excl[p] * NS if gpu else None, time_s=wall * NS,
                share_pct=100.0 * busy[p] / wall if wall > 0 else 100.0, amdahl=amdahls[p]))
        return [tuple(x) for x in out]


def _wait_array(w: Walls, waits: Waits | None) -> np.ndarray | None:
    """Per rank (``w.ranks`` order), its collective wait, ns; None when no rank waits."""
    if waits is None or not any(waits.wait_ns.values()):
        return None
    return np.array([waits.wait_ns.get(int(r), 0) for r in w.ranks.tolist()], dtype=np.int64)


def communication_row(w: Walls, comms: Sequence[RankComm], waits: Waits, factors: Sequence[float]) -> ItemStat | None:
    """Exposed communication as one row (kind ``"communication"``, name ``"exposed communication"``): per rank
    (``devices``, scope "rank") its communication not hidden under computation, and the program projection if that
    time were hidden (or the collectives ``f`` times faster) on every rank, beyond the collective waits (a rank
    that waits for another gains nothing by communicating faster: :mod:`.collectives`). None without any
    communication kernel. ``total_s``: the exposed time summed over ranks; ``count``: communication kernels;
    ``exclusive_s``: what hiding it removes from the ranks, summed."""
    if not any(c.comm_sum_ns for c in comms):
        return None
    walls_ns, index = _walls_of(w)
    fs = _factors(factors)
    gain = [max(c.exposed_ns - waits.wait_ns.get(c.rank, 0), 0) for c in comms]
    removed = np.zeros((1, walls_ns.shape[0]))
    for c, g in zip(comms, gain):
        removed[0, index[c.rank]] = g
    after = waited_after(walls_ns, _wait_array(w, waits), removed, fs)[0]
    program = projection(float(walls_ns.max()), after, fs, "program", "exposed_communication")
    shares = []
    for c, g in zip(comms, gain):
        wall = c.wall_ns
        shares.append(ScopeShare(
            rank=rank_value(c.rank), device=None, count=c.calls.dur_ns.size, total_s=c.exposed_ns * NS,
            busy_s=c.exposed_ns * NS, exclusive_s=g * NS, time_s=wall * NS,
            share_pct=100.0 * c.exposed_ns / wall if wall > 0 else 100.0,
            amdahl=projection(wall, [wall - g * (1.0 - _keep(f)) for f in fs], fs, "rank", "exposed_communication")))
    total = sum(c.exposed_ns for c in comms)
    count = sum(c.calls.dur_ns.size for c in comms)
    walls_sum = sum(c.wall_ns for c in comms)
    return ItemStat(kind="communication", name="exposed communication", count=count, total_s=total * NS,
                    mean_s=None, min_s=None, max_s=None,
                    share_pct=100.0 * total / walls_sum if walls_sum > 0 else None,
                    program_fraction=program.fraction if program is not None else None, amdahl=program,
                    exclusive_s=sum(gain) * NS, devices=tuple(shares))


# ------------------------------------------------------------------------------------------------ GPU idle
@dataclass(frozen=True)
class RankIdle:
    """Per rank with GPU work: its busy union over all its devices and the time of its wall without GPU work.

    Attributes:
        ranks: rank values (-1 = not recorded), in :class:`Walls` order, only ranks with GPU work.
        segments: per rank, the busy union of all its devices (disjoint sorted starts, ends; int64 ns).
        idle_ns: per rank, wall - busy union (ns).
        stretches: per rank, how many stretches of its wall have no GPU work (before, between and after).
        shortest_ns, longest_ns: per rank, the shortest and longest of those stretches (0 when none).
    """

    ranks: tuple[int, ...]
    segments: tuple[tuple[np.ndarray, np.ndarray], ...]
    idle_ns: tuple[int, ...]
    stretches: tuple[int, ...]
    shortest_ns: tuple[int, ...] = ()
    longest_ns: tuple[int, ...] = ()

    @classmethod
    def of(cls, w: Walls, split: Breakdown) -> "RankIdle":
        """From the per-device busy unions of the breakdown and the rank walls (with their bounds)."""
        ranks, segs, idle, stretches, lengths = [], [], [], [], []
        for r in w.ranks.tolist():
            own = [s for (rk, _dv), s in split.segments.items() if rk == r]
            if not own:
                continue
            seg_s, seg_e = own[0] if len(own) == 1 else union_segments(np.concatenate([s for s, _ in own]),
                                                                       np.concatenate([e for _, e in own]))
            lo, hi = w.bounds[r]
            ranks.append(int(r))
            segs.append((seg_s, seg_e))
            idle.append(w.by_rank[r] - int((seg_e - seg_s).sum()))
            gaps = np.concatenate([[seg_s[0] - lo], seg_s[1:] - seg_e[:-1], [hi - seg_e[-1]]])
            gaps = gaps[gaps > 0]
            stretches.append(int(gaps.size))
            lengths.append((int(gaps.min()), int(gaps.max())) if gaps.size else (0, 0))
        return cls(tuple(ranks), tuple(segs), tuple(idle), tuple(stretches), tuple(lo for lo, _ in lengths),
                   tuple(hi for _, hi in lengths))


def gpu_idle_row(w: Walls, idle: RankIdle, factors: Sequence[float], waits: Waits | None = None) -> ItemStat | None:
    """The time with no GPU work as a row (kind ``"gpu_idle"``): summed over ranks, each rank in ``devices``
    (scope "rank"), the program projection if that time were hidden under GPU work on every rank (the host work
    filling it then runs beside the GPU's: a rank saves at most its GPU busy time, so it takes at least the longer
    of its host work and its GPU work; a hidden fraction 1 - 1/f for the factor f); None when there is none. Its
    ``count``, ``mean_s``, ``min_s``, ``max_s`` are of the stretches without GPU work, ``share_pct`` its share of the
    summed walls of the ranks with GPU work."""
    total = sum(idle.idle_ns)
    if total <= 0:
        return None
    walls_ns, index = _walls_of(w)
    fs = _factors(factors)
    lanes = [index[r] for r in idle.ranks]
    idle_ns = np.array(idle.idle_ns, dtype=np.float64)
    busy_ns = np.array([w.by_rank[r] for r in idle.ranks], dtype=np.float64) - idle_ns
    wait = _wait_array(w, waits)
    # hiding: the host work that fills the idle time runs beside the GPU's work instead, so a rank saves at most
    # its GPU busy time (it still takes the longer of the two): saved = min(idle x (1 - 1/f), busy)
    after = [float(program_after(np.minimum(idle_ns * (1.0 - _keep(f)), busy_ns)[None, :], lanes, walls_ns,
                                 (math.inf,), wait)[0, 0]) for f in fs]
    program = projection(float(walls_ns.max()), after, fs, "program", "no_gpu_work")
    shares = []
    for r, a, n, b in zip(idle.ranks, idle.idle_ns, idle.stretches, busy_ns.tolist()):
        wall = w.by_rank[r]
        shares.append(ScopeShare(
            rank=rank_value(r), device=None, count=n, total_s=a * NS, busy_s=a * NS, exclusive_s=None,
            time_s=wall * NS, share_pct=100.0 * a / wall if wall > 0 else 100.0,
            amdahl=projection(wall, [wall - min(a * (1.0 - _keep(f)), b) for f in fs], fs, "rank", "no_gpu_work")))
    count = sum(idle.stretches)
    present = [i for i, n in enumerate(idle.stretches) if n]
    walls_sum = sum(w.by_rank[r] for r in idle.ranks)
    return ItemStat(kind="gpu_idle", name="GPU idle", count=count, total_s=total * NS,
                    mean_s=total * NS / count if count else None,
                    min_s=min(idle.shortest_ns[i] for i in present) * NS if present else None,
                    max_s=max(idle.longest_ns[i] for i in present) * NS if present else None,
                    share_pct=100.0 * total / walls_sum if walls_sum > 0 else None,
                    program_fraction=program.fraction if program is not None else None, amdahl=program,
                    devices=tuple(shares))

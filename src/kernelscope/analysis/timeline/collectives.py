"""Computation and communication of each rank as wall-clock unions, the communication left exposed, and the time a
rank waits in collectives for the others (the straggler's signature).

Definitions (per rank, over all its devices; kernel names matching ``[ranks] communication_regex`` of
``data/timeline_rules.toml`` are communication, every other kernel computation):

* ``compute`` = the UNION of the computation kernels' intervals, ``communication`` the union of the communication
  kernels' (never sums: two concurrent streams count once, as torchtitan PR #3020 "correctly deduplicating
  concurrent kernels across CUDA streams"); ``overlap = compute + communication - union(both)``;
  ``exposed = union(both) - compute``: communication not hidden under computation.
* Collective wait (several ranks): a collective is a barrier, so the k-th call of one collective name runs on
  every rank until the last rank has arrived, then transfers; the rank that arrived last waits nothing. The wait of
  a call = its duration minus the shortest duration of the same call (name, k-th occurrence in time order) over
  the ranks (TraceLens PR #599: the straggler is the rank with the lowest collective wait). Only its part not
  under computation can hold the rank back: the call's exposed wait = min(wait, the call's time not under
  computation), an upper bound of that part. A rank's wait is the sum over its calls, at most its exposed
  communication. One rank: no wait (nothing to wait for).
* A rank's own time = its wall minus its wait: the time its own work takes; the straggler is the rank with the
  largest own time (equal walls say nothing: a synchronous collective equalises them, case N14).
* Program projections with waits (:func:`program_after`): the program ends with its slowest rank's own work,
  ``B = max_r(W_r - wait_r)``; an item saving ``a_r`` on rank r for factor f gives
  ``B'(f) = max_r(W_r - wait_r - (1 - 1/f) a_r)`` and the program wall ``T' = T - (B - B'(f))``. A prediction when
  one rank arrives last at every collective (one barrier per step, as DDP's gradient all-reduce); with several
  barriers where different ranks arrive last, an upper bound of the speedup (each rank still waits at least for its
  own work). No wait: classic per-rank Amdahl, ``T' = max_r(W_r - (1 - 1/f) a_r)``.

Pure NumPy over integer ns (a Python loop over ranks and collective names only).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ...timeline_model import KERNEL, Timeline
from .intervals import busy_before, union_segments


@dataclass(frozen=True)
class CollectiveCalls:
    """The communication kernels of one rank, in time order (small and picklable: what a rank's trace gives the
    cross-rank wait computation).

    Attributes:
        rank: the rank (-1: not recorded).
        names: the distinct collective kernel names of the rank.
        name_index: each call's name, an index into ``names`` (int64).
        dur_ns: each call's duration, int64 ns.
        exposed_ns: each call's time not under the rank's computation union, int64 ns.
    """

    rank: int
    names: tuple[str, ...]
    name_index: np.ndarray
    dur_ns: np.ndarray
    exposed_ns: np.ndarray


@dataclass(frozen=True)
class RankComm:
    """Computation and communication of one rank (ns; see the module docstring).

    Attributes:
        rank: the rank (-1: not recorded).
        wall_ns: its wall.
        compute_ns: union of its computation kernels.
        communication_ns: union of its communication kernels.
        overlap_ns: compute + communication - union of both.
        exposed_ns: communication not under computation.
        comm_sum_ns: plain sum of its communication kernels' durations (concurrent ones counted twice).
        calls: its communication kernels (for the cross-rank wait).
    """

    rank: int
    wall_ns: int
    compute_ns: int
    communication_ns: int
    overlap_ns: int
    exposed_ns: int
    comm_sum_ns: int
    calls: CollectiveCalls


def is_communication(names: Sequence[str], pattern: re.Pattern[str], ids: np.ndarray | None = None) -> np.ndarray:
    """Per name: does it match the communication pattern (bool array aligned with ``names``); ``ids``: only these
    name ids are tested (the others are False), e.g. the kernels' names of a string table shared with API calls."""
    out = np.zeros(len(names), dtype=bool)
    for i in (range(len(names)) if ids is None else ids.tolist()):
        out[i] = bool(pattern.search(names[i]))
    return out


def rank_comm(tl: Timeline, k_rows: np.ndarray, comm_name: np.ndarray, rank: int, wall_ns: int) -> RankComm:
    """The :class:`RankComm` of one rank from its kernel rows ``k_rows`` (any order); ``comm_name``: per name id,
    communication or not (:func:`is_communication`)."""
    is_comm = comm_name[tl.name_id[k_rows]] if k_rows.size else np.zeros(0, dtype=bool)
    c_rows, m_rows = k_rows[~is_comm], k_rows[is_comm]
    cs, ce = union_segments(tl.start_ns[c_rows], tl.end_ns[c_rows])
    compute = int((ce - cs).sum())
    m_rows = m_rows[np.argsort(tl.start_ns[m_rows], kind="stable")]
    ms, me = tl.start_ns[m_rows], tl.end_ns[m_rows]
    us, ue = union_segments(ms, me, presorted=True)
    comm = int((ue - us).sum())
    dur = me - ms
    if cs.size and ms.size:  # time under computation: of each call, and of the communication union
        under = busy_before(cs, ce, me) - busy_before(cs, ce, ms)
        hidden = int((busy_before(cs, ce, ue) - busy_before(cs, ce, us)).sum())
    else:
        under, hidden = np.zeros_like(dur), 0
    ids, index = np.unique(tl.name_id[m_rows], return_inverse=True)
    calls = CollectiveCalls(rank, tuple(tl.names[i] for i in ids.tolist()), index.astype(np.int64).ravel(),
                            dur.astype(np.int64), np.maximum(dur - under, 0).astype(np.int64))
    return RankComm(rank=rank, wall_ns=int(wall_ns), compute_ns=compute, communication_ns=comm,
                    overlap_ns=hidden, exposed_ns=comm - hidden, comm_sum_ns=int(dur.sum()),
                    calls=calls)


def collective_waits(calls: Sequence[CollectiveCalls]) -> list[dict[str, int]]:
    """Per rank (in ``calls`` order): exposed collective wait per collective name, ns (module docstring). Empty
    dicts with fewer than two ranks; a name some rank never calls gives no wait (no barrier to match)."""
    out: list[dict[str, int]] = [{} for _ in calls]
    if len(calls) < 2:
        return out
    by_name: list[dict[str, np.ndarray]] = []
    for c in calls:
        order = np.argsort(c.name_index, kind="stable")  # per name, its calls in time order
        cuts = np.searchsorted(c.name_index[order], np.arange(len(c.names) + 1))
        by_name.append({n: order[cuts[j]:cuts[j + 1]] for j, n in enumerate(c.names)})
    common = set(by_name[0]).intersection(*by_name[1:])
    for name in sorted(common):
        n = min(idx[name].size for idx in by_name)
        durs = np.stack([c.dur_ns[idx[name][:n]] for c, idx in zip(calls, by_name)])
        shortest = durs.min(axis=0)
        for r, (c, idx) in enumerate(zip(calls, by_name)):
            exposed = c.exposed_ns[idx[name][:n]]
            wait = int(np.minimum(durs[r] - shortest, exposed).sum())
            if wait > 0:
                out[r][name] = wait
    return out


def rank_waits(comms: Sequence[RankComm]) -> tuple[list[dict[str, int]], np.ndarray]:
    """Per rank: the exposed wait per collective name, and the rank's total wait (ns, int64, at most its exposed
    communication)."""
    per_name = collective_waits([c.calls for c in comms])
    total = np.array([min(sum(w.values()), c.exposed_ns) for w, c in zip(per_name, comms)], dtype=np.int64)
    return per_name, total


@dataclass(frozen=True)
class Waits:
    """The collective waits of a run's ranks (ns).

    Attributes:
        wait_ns: rank -> its exposed collective wait (at most its exposed communication).
        by_key: rank -> {item key ``KERNEL * len(names) + name_id``: that collective's exposed wait there}.
    """

    wait_ns: Mapping[int, int]
    by_key: Mapping[int, Mapping[int, int]]


def waits_of(comms: Sequence[RankComm], names: Sequence[str]) -> Waits:
    """The :class:`Waits` of ranks ``comms`` whose kernels are named from ``names`` (a Timeline's string table)."""
    per_name, total = rank_waits(comms)
    if not total.any():
        return Waits({c.rank: 0 for c in comms}, {})
    ids = {n: i for i, n in enumerate(names)}
    base = KERNEL * len(names)
    return Waits({c.rank: int(t) for c, t in zip(comms, total.tolist())},
                 {c.rank: {base + ids[n]: v for n, v in w.items()} for c, w in zip(comms, per_name)})


def program_after(walls_ns: np.ndarray, wait_ns: np.ndarray | None, removed: np.ndarray,
                  factors: Sequence[float]) -> np.ndarray:
    """The program wall after (ns, shape items x factors) when each item saves ``removed[i, r]`` ns on rank r
    (shape items x ranks) and becomes ``factors[j]`` times faster (``inf``: gone); ``wait_ns`` per rank (None: no
    wait). See the module docstring for the model."""
    walls = np.asarray(walls_ns, dtype=np.float64)
    own = walls - (np.zeros_like(walls) if wait_ns is None else np.asarray(wait_ns, dtype=np.float64))
    shift = float(walls.max()) - float(own.max())  # T - B: 0 without wait
    cols = [(own[None, :] - removed * (1.0 if math.isinf(f) else 1.0 - 1.0 / f)).max(axis=1) + shift
            for f in factors]
    return np.stack(cols, axis=1) if cols else np.zeros((removed.shape[0], 0))


def kernel_rows_of_rank(tl: Timeline, k_rows: np.ndarray, rank: int, one_rank: bool) -> np.ndarray:
    """The kernel rows of one rank (all of them with one rank)."""
    return k_rows if one_rank else k_rows[tl.rank[k_rows] == rank]


def comms_of(tl: Timeline, k_rows: np.ndarray, ranks: Sequence[int], walls: dict[int, int],
             pattern: re.Pattern[str]) -> list[RankComm]:
    """:class:`RankComm` of every rank in ``ranks`` (``k_rows``: the kernel rows of ``tl``, kind KERNEL)."""
    present = np.flatnonzero(np.bincount(tl.name_id[k_rows], minlength=len(tl.names)))  # (the distinct ids, sorted)
    comm_name = is_communication(tl.names, pattern, present)
    one = len(ranks) == 1
    rk = tl.rank[k_rows]
    if not one and rk.size > 1 and (rk[1:] >= rk[:-1]).all():  # rank by rank (k_rows in row order): slices
        return [rank_comm(tl, k_rows[np.searchsorted(rk, r, "left"):np.searchsorted(rk, r, "right")], comm_name, r,
                          walls[r]) for r in ranks]
    return [rank_comm(tl, kernel_rows_of_rank(tl, k_rows, r, one), comm_name, r, walls[r]) for r in ranks]



def balanced_wall_s(w_by_rank: Mapping[int, int], waits: Waits) -> float | None:
    """The program wall (seconds) if every rank's own work (wall - wait) took the median rank's: the straggler
    fixed, ``T - (B - median_r(W_r - wait_r))`` (module docstring); None with one rank or when no rank waits."""
    if len(w_by_rank) < 2 or not any(waits.wait_ns.values()):
        return None
    walls = np.array([w_by_rank[r] for r in sorted(w_by_rank)], dtype=np.float64)
    own = walls - np.array([waits.wait_ns.get(r, 0) for r in sorted(w_by_rank)], dtype=np.float64)
    return float(walls.max() - (own.max() - np.median(own))) * 1e-9


def compared(own_s: Sequence[float], steps: Sequence[int]) -> tuple[list[float], bool]:
    """What ranks are compared by: their own work (seconds), or their own work per ``ProfilerStep`` when their
    traces hold different step counts (whole walls of traces of different lengths are not comparable). Returns the
    values and whether they are per step."""
    counts = set(steps)
    per_step = len(counts) > 1 and 0 not in counts
    return [o / (n if per_step else 1) for o, n in zip(own_s, steps)], per_step

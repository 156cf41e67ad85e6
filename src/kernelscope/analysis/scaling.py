"""Findings that need several launches of one kernel: time in proportion to the block count while the work stays.

A kernel launched twice on the same work with different grids (a block-size change: 2x the blocks of half the
size) should take about the same time when its blocks run in parallel. When instead its duration grows with the
number of blocks while the work it does (instructions, L2 sectors, DRAM bytes) stays the same, something serialises
per block: an atomic or a lock on one address that every block takes in turn, a global barrier, a spin-wait. The
units' busy shares then look harmless (an L2 atomic unit at 2.8 % on average) while the real headroom is the
factor by which the kernel waits: the busiest unit's work is all that must stay. :func:`serialised_blocks` finds
such pairs among the diagnosed launches of a report and adds the finding to both, sized by the performance model
(:mod:`.performance`: the waiting hidden completely, an upper bound).

Kernels of one report compared with each other: two different kernels that move the same L2 traffic to the request
(:func:`same_traffic`) make the same global accesses, so a rewrite that was meant to fix them did not.

Which launches these findings may compare (:func:`linked`): the launches of a report in parts that can be diagnosed
apart. Pure functions over :class:`~.diagnosis.KernelDiagnosis`; no I/O.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..knowledge.criteria import source
from ..model import KernelProfile
from ..notes import Note
from .engine import Evidence, Finding
from .performance import UPPER_BOUND, Change, describe, predict

#: The work a launch does, in the order tried: the first that both launches of a pair measured decides.
WORK = ("smsp__inst_executed.sum", "lts__t_sectors.sum", "dram__bytes.sum")


@dataclass(frozen=True)
class Scaling:
    """Two launches of one kernel on the same work with different block counts.

    Attributes:
        few / many: indices (``KernelProfile.index``) of the launch with fewer and with more blocks.
        blocks: (fewer, more) blocks.
        durations_s: their durations, s.
        work_metric: the counter that shows the same work; work_ratio: its value many / few.
    """

    few: int
    many: int
    blocks: tuple[int, int]
    durations_s: tuple[float, float]
    work_metric: str
    work_ratio: float

    @property
    def block_ratio(self) -> float:
        """more / fewer blocks."""
        return self.blocks[1] / self.blocks[0]

    @property
    def time_ratio(self) -> float:
        """duration with more blocks / with fewer."""
        return self.durations_s[1] / self.durations_s[0]


def _work(d, names: Sequence[str]) -> tuple[str, float] | None:
    for n in names:
        v = d.kernel.metrics.get(n)
        if v:
            return n, v
    return None


def scalings(diagnoses: Iterable, crit: Mapping[str, float]) -> list[Scaling]:
    """The pairs of launches of one kernel (same demangled name) whose block counts differ by ``scaling_block_ratio``
    or more, whose work (:data:`WORK`) differs by at most ``scaling_work_tolerance`` (a share), and whose duration
    ratio is the block ratio within that tolerance: time in proportion to the blocks."""
    by_name: dict[str, list] = {}
    for d in diagnoses:
        if d.kernel.launch.blocks and d.kernel.duration_s:
            by_name.setdefault(d.kernel.demangled_name or d.kernel.name, []).append(d)
    tol, min_ratio = crit["scaling_work_tolerance"], crit["scaling_block_ratio"]
    out = []
    for ds in by_name.values():
        ds = sorted(ds, key=lambda d: d.kernel.launch.blocks)
        blocks = [d.kernel.launch.blocks for d in ds]
        for i, a in enumerate(ds):
            ba = blocks[i]
            # blocks ascend: the launches with bb / ba >= min_ratio are a suffix (a kernel's thousand launches of
            # one grid shape are not compared pair by pair)
            first = bisect_left(blocks, True, i + 1, key=lambda bb, ba=ba: bb / ba >= min_ratio)
            for b, bb in zip(ds[first:], blocks[first:]):
                wa = _work(a, WORK)
                wb = b.kernel.metrics.get(wa[0]) if wa else None
                if not wa or not wb or abs(wb / wa[1] - 1.0) > tol:
                    continue
                s = Scaling(a.kernel.index, b.kernel.index, (ba, bb), (a.kernel.duration_s, b.kernel.duration_s),
                            wa[0], wb / wa[1])
                if abs(s.time_ratio / s.block_ratio - 1.0) <= tol:
                    out.append(s)
    return out


def serialised_blocks(diagnoses: Sequence, crit: Mapping[str, float]) -> dict[int, Finding]:
    """Launch index -> the ``serialised_blocks`` finding for every launch in a :func:`scalings` pair (the pair with
    the largest block ratio when a launch is in several). Its change: the waiting hidden completely, so the launch
    takes the time of its busiest unit's work (an upper bound)."""
    found: dict[int, Finding] = {}
    best: dict[int, Scaling] = {}
    for s in scalings(diagnoses, crit):
        for index in (s.few, s.many):
            if index not in best or s.block_ratio > best[index].block_ratio:
                best[index] = s
    by_index = {d.kernel.index: d for d in diagnoses}
    for index, s in best.items():
        d = by_index[index]
        change = Change(waiting=1.0, kind=UPPER_BOUND,
                        what="the blocks no longer wait on each other: the launch takes its busiest unit's time")
        e = predict(d.units, change)
        values = {"few": s.blocks[0], "many": s.blocks[1], "t_few_us": s.durations_s[0] * 1e6,
                  "t_many_us": s.durations_s[1] * 1e6, "t_few_s": s.durations_s[0], "t_many_s": s.durations_s[1],
                  "work_ratio": s.work_ratio, "work": s.work_metric,
                  "headroom": e.speedup}
        found[index] = Finding(
            "serialised_blocks", "optimization", Note("f_serialised_blocks", values),
            (Evidence("launch__grid_size", s.blocks[0], "block"), Evidence("launch__grid_size", s.blocks[1], "block"),
             Evidence("gpu__time_duration.sum", s.durations_s[0], "s"),
             Evidence("gpu__time_duration.sum", s.durations_s[1], "s"), Evidence(s.work_metric, s.work_ratio, "ratio")),
            advice="finding:serialised_blocks", source=source("scaling_work_tolerance"),
            estimated_speedup=max(1.0, e.speedup), estimate_kind=UPPER_BOUND, change=change,
            speedup_note=f"upper bound: {change.what}; {describe(e, d.units)}")
    return found


#: The L2 traffic two kernels are compared by, in the order tried.
L2_TRAFFIC = ("lts__t_requests.sum", "lts__t_sectors.sum")
#: The fewest requests (or sectors) for a comparison: small kernels agree by chance.
MIN_TRAFFIC = 1000.0


def same_traffic(diagnoses: Sequence, crit: Mapping[str, float]) -> dict[int, Finding]:
    """Launch index -> a ``same_traffic`` finding for each launch whose L2 traffic (:data:`L2_TRAFFIC`, at least
    :data:`MIN_TRAFFIC`) agrees within ``same_traffic_tolerance`` with a FASTER launch of another kernel (another
    name), where either has uncoalesced global accesses (an ``uncoalesced_global`` finding): the variant did not change
    the access pattern the faster one already has. Not estimated (the faster kernel's finding sizes the fix)."""
    tol = crit["same_traffic_tolerance"]
    measured = []
    for d in diagnoses:
        t = _work(d, L2_TRAFFIC)
        if t is not None and t[1] >= MIN_TRAFFIC and d.kernel.duration_s:
            measured.append((d, t))
    found: dict[int, Finding] = {}
    for d, (metric, value) in measured:
        name = d.kernel.demangled_name or d.kernel.name
        siblings = [(s, v) for s, (m, v) in measured
                    if m == metric and (s.kernel.demangled_name or s.kernel.name) != name
                    and s.kernel.duration_s < d.kernel.duration_s and abs(v / value - 1.0) <= tol
                    and any(f.id == "uncoalesced_global" for f in (*s.findings, *d.findings))]
        if not siblings:
            continue
        s, v = min(siblings, key=lambda x: x[0].kernel.duration_s)
        values = {"sibling": s.kernel.name, "requests": value, "sibling_requests": v, "metric": metric}
        found[d.kernel.index] = Finding(
            "same_traffic", "optimization", Note("f_same_traffic", values),
            (Evidence(metric, value), Evidence(metric, v), Evidence("gpu__time_duration.sum", d.kernel.duration_s, "s"),
             Evidence("gpu__time_duration.sum", s.kernel.duration_s, "s")),
            advice="finding:same_traffic", source=source("same_traffic_tolerance"),
            speedup_note="not estimated: it compares two kernels; the faster one's uncoalesced-access finding sizes the fix")
    return found


def linked(profiles: Sequence[KernelProfile], crit: Mapping[str, float]) -> list[list[int]]:
    """``profiles`` (a report's selected launches) in parts, each a list of positions in ``profiles`` (ascending;
    the parts in the order of their first launch), such that every two launches that :func:`serialised_blocks` or
    :func:`same_traffic` could compare lie in one part: the launches of one kernel (its demangled name, or its name:
    the key of a launch group too, :func:`.groups.group_launches`) are one part, and launches whose L2 traffic
    (:data:`L2_TRAFFIC`, at least :data:`MIN_TRAFFIC`, with a duration) agrees within ``same_traffic_tolerance`` join
    theirs (a superset of the pairs: names, durations and findings not looked at). Each part diagnosed on its own
    gets the findings the whole selection gives it."""
    parent = list(range(len(profiles)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        a, b = root(i), root(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first: dict[str, int] = {}
    traffic: dict[str, list[tuple[float, int]]] = {}
    for i, k in enumerate(profiles):
        join(i, first.setdefault(k.demangled_name or k.name, i))
        for metric in L2_TRAFFIC:  # (the first measured counter, as :func:`same_traffic` takes it)
            v = k.metrics.get(metric)
            if v:
                if v >= MIN_TRAFFIC and k.duration_s:
                    traffic.setdefault(metric, []).append((v, i))
                break
    tol = crit["same_traffic_tolerance"]
    for values in traffic.values():  # close values sorted side by side: each joins the next within the band
        values.sort()
        for (a, i), (b, j) in zip(values, values[1:]):
            if tol >= 1.0 or b * (1.0 - tol) <= a * (1.0 + 1e-12):
                join(i, j)
    parts: dict[int, list[int]] = {}
    for i in range(len(profiles)):
        parts.setdefault(root(i), []).append(i)
    return list(parts.values())

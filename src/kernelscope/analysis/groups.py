"""Repeated launches of one kernel, grouped: the launches of a diagnosis with the same kernel, grid and block become
one :class:`LaunchGroup` with a representative launch, the spread of the headline quantities across the launches,
and the launches that differ beyond that spread called out with the reason.

A whole model's profile holds thousands of launches of a few hundred kernels, most of them near-identical repeats
(a layer launched once per step); the renderers show one panel per group (the representative's diagnosis with the
spread beside it) instead of one per launch. Pure functions over :class:`~.diagnosis.KernelDiagnosis`; no I/O.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from .diagnosis import KernelDiagnosis, ReportDiagnosis

__all__ = ["CLOCK_SPREAD", "CLOCKS", "OUTLIER_FACTOR", "SPREAD_METRICS", "ClockRange", "LaunchGroup", "Outlier", "Spread",
           "clock_ranges", "group_launches", "launch_groups", "order_key"]

#: A launch whose duration lies outside median / OUTLIER_FACTOR .. median x OUTLIER_FACTOR of its group is called
#: out (a ratio; 1.5 = 50 % slower, or a third faster).
OUTLIER_FACTOR = 1.5


def _dram_bytes(d: KernelDiagnosis) -> float | None:
    return d.roofline.dram_bytes if d.roofline is not None and d.roofline.dram_bytes is not None else d.kernel.dram_bytes


def _roofline(attr: str) -> Callable[[KernelDiagnosis], float | None]:
    return lambda d: getattr(d.roofline, attr) if d.roofline is not None else None


#: The quantities whose spread a group gives, by id (the unit is in the id: ``_s`` seconds, ``_pct`` percent of
#: peak 0-100, ``_bytes`` bytes, ``_flop_per_byte`` FLOP per DRAM byte, ``_flops_per_s`` FLOP/s), in the order the
#: panels show them, each with how it is read from one launch's diagnosis (None: not measured).
SPREAD_METRICS: Mapping[str, Callable[[KernelDiagnosis], float | None]] = {
    "duration_s": lambda d: d.kernel.duration_s,
    "sol_compute_pct": lambda d: d.sol.compute_pct,
    "sol_memory_pct": lambda d: d.sol.memory_pct,
    "achieved_occupancy_pct": lambda d: d.kernel.achieved_occupancy_pct,
    "dram_bytes": _dram_bytes,
    "arithmetic_intensity_flop_per_byte": _roofline("arithmetic_intensity_flop_per_byte"),
    "achieved_flops_per_s": _roofline("achieved_flops_per_s"),
}


#: The clocks (Hz) a launch runs at whose range over a group's launches the group gives: the SM's and the DRAM's.
CLOCKS = (("sm", "smsp__cycles_elapsed.avg.per_second"), ("dram", "dram__cycles_elapsed.avg.per_second"))
#: max / min of a clock over a group's launches beyond which their durations are not comparable as measured (a
#: ratio): Nsight Compute locks the clocks at base by default (``ncu --clock-control base``); 1.05, the closeness the
#: calibration holds a prediction to (readOffset's three launches: DRAM 9.07-10.12 GHz, durations 0.89x-1.01x).
CLOCK_SPREAD = 1.05


@dataclass(frozen=True)
class ClockRange:
    """A clock whose measured rate differs across a group's launches by more than :data:`CLOCK_SPREAD`.

    Attributes:
        clock: ``"sm"`` or ``"dram"`` (:data:`CLOCKS`).
        min_hz / max_hz: its lowest and highest rate over the launches that measured it, Hz.
    """

    clock: str
    min_hz: float
    max_hz: float


def clock_ranges(launches: Sequence[KernelDiagnosis]) -> tuple[ClockRange, ...]:
    """The clocks of :data:`CLOCKS` whose rate over ``launches`` (those that measured it, two at least) spreads by more
    than :data:`CLOCK_SPREAD` (max / min)."""
    out = []
    for clock, metric in CLOCKS:
        rates = [v for d in launches if (v := d.kernel.metrics.get(metric)) is not None and math.isfinite(v) and v > 0]
        if len(rates) >= 2 and max(rates) > CLOCK_SPREAD * min(rates):
            out.append(ClockRange(clock, min(rates), max(rates)))
    return tuple(out)


@dataclass(frozen=True)
class Spread:
    """One quantity across the launches of a group that measured it (in the quantity's unit, see
    :data:`SPREAD_METRICS`).

    Attributes:
        min: smallest value.
        median: the median (the mean of the two middle values for an even count).
        max: largest value.
        measured: how many launches measured it (finite values only; the group's others did not).
    """

    min: float
    median: float
    max: float
    measured: int


@dataclass(frozen=True)
class Outlier:
    """A launch of a group that differs from the others beyond the spread.

    Attributes:
        index: the launch's index in its report (``KernelProfile.index``).
        duration_ratio: its duration / the group's median duration (a ratio) when that lies outside
            1/:data:`OUTLIER_FACTOR` .. :data:`OUTLIER_FACTOR`; None when its duration is within that band (or
            not measured).
        verdict: its bottleneck classes (``KernelDiagnosis.verdict``) when they differ from the representative's;
            None when they are the same.
        own_advice: the advice id (``finding:<id>``) of its first root cause worth acting on
            (``KernelDiagnosis.worthwhile_advice``) that the representative's worthwhile advice does not hold (a
            cause only this launch shows, e.g. the one misaligned launch of three); None when it has none.
    """

    index: int
    duration_ratio: float | None
    verdict: tuple[str, ...] | None
    own_advice: str | None = None


@dataclass(frozen=True)
class LaunchGroup:
    """The launches of one kernel with one launch shape.

    Attributes:
        name: the kernel's function name (``KernelProfile.name``).
        demangled_name: its full (demangled) name, which tells template instantiations apart; the grouping key.
        grid: blocks per grid (x, y, z), or None when not recorded.
        block: threads per block (x, y, z), or None when not recorded.
        launches: every launch of the group, report order.
        representative: the launch of median duration (the lower of the two middle ones for an even count, the
            first in report order among equal durations; the first launch when no duration was measured).
        count: launches the group stands for (a summary row counts its ``launch_count``).
        total_duration_s: summed duration of its launches with a measured duration, seconds.
        time_share: total_duration_s / the report's GPU time, fraction 0-1; None when unknown.
        spread: quantity id (:data:`SPREAD_METRICS`) -> its :class:`Spread`, or None when no launch measured it.
        outliers: the launches that differ beyond the spread (duration outside the band around the median, another
            verdict than the representative, or a root cause worth acting on that it lacks), report order.
        clocks: the clocks whose rate differs across the launches beyond :data:`CLOCK_SPREAD` (their durations then
            differ by the clock's change too), :func:`clock_ranges`; empty when they ran at one clock or it is not
            measured.
    """

    name: str
    demangled_name: str
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    launches: tuple[KernelDiagnosis, ...]
    representative: KernelDiagnosis
    count: int
    total_duration_s: float
    time_share: float | None
    spread: Mapping[str, Spread | None]
    outliers: tuple[Outlier, ...]
    clocks: tuple[ClockRange, ...] = ()

    @property
    def indices(self) -> tuple[int, ...]:
        """The report indices of its launches, report order."""
        return tuple(d.kernel.index for d in self.launches)


def spread_of(values: Iterable[float | None]) -> Spread | None:
    """min / median / max of the finite values (None and NaN / infinite values are not measurements); None when
    there is none."""
    found = sorted(v for v in values if v is not None and math.isfinite(v))
    if not found:
        return None
    return Spread(min=found[0], median=statistics.median(found), max=found[-1], measured=len(found))


def _representative(launches: Sequence[KernelDiagnosis]) -> KernelDiagnosis:
    timed = [d for d in launches if d.kernel.duration_s is not None]
    if not timed:
        return launches[0]
    ranked = sorted(timed, key=lambda d: d.kernel.duration_s)  # stable: report order among equal durations
    return ranked[(len(ranked) - 1) // 2]


def _outliers(launches: Sequence[KernelDiagnosis], rep: KernelDiagnosis, median_s: float | None,
              factor: float) -> tuple[Outlier, ...]:
    out = []
    rep_verdict = rep.verdict
    rep_advice = {f.advice for f in rep.worthwhile_advice}
    for d in launches:
        ratio = None
        t = d.kernel.duration_s
        if t is not None and median_s:
            r = t / median_s
            ratio = r if (r > factor or r < 1.0 / factor) else None
        verdict = d.verdict
        verdict = verdict if verdict != rep_verdict else None
        # its first root cause worth acting on that the shown launch's advice does not hold (the one misaligned
        # launch of three, whose timing the median hides)
        other = next((f.advice for f in d.worthwhile_advice
                      if f.advice not in rep_advice and f.advice.startswith("finding:")), None)  # type: ignore[union-attr]
        if ratio is not None or verdict is not None or other is not None:
            out.append(Outlier(index=d.kernel.index, duration_ratio=ratio, verdict=verdict, own_advice=other))
    return tuple(out)


def group_launches(diagnoses: Sequence[KernelDiagnosis], factor: float = OUTLIER_FACTOR) -> tuple[LaunchGroup, ...]:
    """Group launches by (demangled kernel name, grid, block), the largest total duration first (ties: the group
    whose first launch comes first). ``factor``: the duration band around the median outside which a launch is
    called out (:data:`OUTLIER_FACTOR`)."""
    by_key: dict[tuple, list[KernelDiagnosis]] = {}
    for d in diagnoses:
        k = d.kernel
        by_key.setdefault((k.demangled_name or k.name, k.launch.grid, k.launch.block), []).append(d)
    groups = []
    for (full, grid, block), launches in by_key.items():
        rep = _representative(launches)
        spread = {key: spread_of(get(d) for d in launches) for key, get in SPREAD_METRICS.items()}
        timed = [d for d in launches if d.kernel.duration_s is not None]
        shares = [d.time_share for d in launches if d.time_share is not None]
        duration = spread["duration_s"]
        groups.append(LaunchGroup(
            name=rep.kernel.name, demangled_name=full, grid=grid, block=block, launches=tuple(launches),
            representative=rep, count=sum(d.kernel.launch_count for d in launches),
            total_duration_s=math.fsum(d.kernel.duration_s * d.kernel.launch_count for d in timed),  # type: ignore[operator]
            time_share=math.fsum(shares) if shares else None, spread=spread,
            outliers=_outliers(launches, rep, duration.median if duration is not None else None, factor),
            clocks=clock_ranges(launches),
        ))
    groups.sort(key=order_key)
    return tuple(groups)


def order_key(g: LaunchGroup) -> tuple[float, int]:
    """A group's place in :func:`group_launches`' order: the largest total duration first, then the group whose
    first launch comes first (the groups of parts of a selection, :func:`.scaling.linked`, sorted by it together
    are the whole selection's)."""
    return (-g.total_duration_s, g.launches[0].kernel.index)


def by_time(diagnoses: Sequence[KernelDiagnosis]) -> tuple[KernelDiagnosis, ...]:
    """The launches in the panels' one order, the groups' (:func:`group_launches`): most GPU time first (duration x
    the launches a row stands for; an unmeasured duration last), report index among equal times."""
    def key(d: KernelDiagnosis) -> tuple[float, int]:
        k = d.kernel
        return (-(k.duration_s * k.launch_count) if k.duration_s is not None else math.inf, k.index)
    return tuple(sorted(diagnoses, key=key))


def launch_groups(result: ReportDiagnosis, factor: float = OUTLIER_FACTOR) -> tuple[LaunchGroup, ...]:
    """The diagnosed launches of ``result`` (``result.kernels``: the selection) grouped (:func:`group_launches`)."""
    return group_launches(result.kernels, factor)

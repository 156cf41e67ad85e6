"""The launches of one kernel in one profile, as :mod:`.compare` matches them: grouped by name, grid and block, with
their median, total, spread and run-to-run noise (the rule of :mod:`.noise`). Pure, no I/O."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Iterable

from .diagnosis import KernelDiagnosis


@dataclass(frozen=True)
class LaunchSet:
    """The launches of one kernel (same name, grid and block) in one profile.

    Attributes:
        name: kernel name.
        grid / block: launch shape, or None when not recorded.
        launches: the diagnosed launches, report order.
        representative: the launch with the median duration (its metrics stand for the set).
    """

    name: str
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    launches: tuple[KernelDiagnosis, ...]

    @property
    def durations_s(self) -> tuple[float, ...]:
        """Measured durations (s), one per launch (a summary row counts once, with its average)."""
        return tuple(d.kernel.duration_s for d in self.launches if d.kernel.duration_s is not None)

    @property
    def count(self) -> int:
        """Launches this set stands for (summary rows count their ``launch_count``)."""
        return sum(d.kernel.launch_count for d in self.launches)

    @property
    def median_s(self) -> float | None:
        """Median duration in seconds, or None when no launch has one."""
        return statistics.median(self.durations_s) if self.durations_s else None

    @property
    def total_s(self) -> float:
        """Summed GPU time of the set in seconds (unmeasured launches count 0)."""
        return math.fsum(d.kernel.duration_s * d.kernel.launch_count for d in self.launches if d.kernel.duration_s is not None)

    @property
    def spread_s(self) -> tuple[float, float] | None:
        """(min, max) duration over the launches (s): of their durations with two or more measured, else the range
        a summary row records for the launches it stands for (``KernelProfile.duration_range_s``); None when
        neither is known."""
        durations = self.durations_s
        if len(durations) >= 2:
            return min(durations), max(durations)
        ranged = [d.kernel.duration_range_s for d in self.launches if d.kernel.duration_range_s is not None]
        if len(self.launches) == 1 and ranged and self.count >= 2:
            return ranged[0]
        return None

    @property
    def noise(self) -> float | None:
        """Relative run-to-run noise of the launch durations (a fraction; the rule of :mod:`.noise`): sample
        standard deviation / mean of two or more measured launches, else a summary row's recorded standard
        deviation / its mean, else half the range it records / its mean; None when none is known."""
        durations = self.durations_s
        if len(durations) >= 2:
            mean = statistics.fmean(durations)
            return statistics.stdev(durations) / mean if mean > 0 else None
        row = self.launches[0].kernel
        if len(self.launches) == 1 and self.count >= 2 and row.duration_std_s is not None and row.duration_s:
            return row.duration_std_s / row.duration_s  # a summary row's own standard deviation / its mean
        spread, mean = self.spread_s, self.median_s
        if spread is not None and mean:
            return (spread[1] - spread[0]) / 2.0 / mean
        return None

    @property
    def representative(self) -> KernelDiagnosis:
        """The launch whose duration is closest to the median (the first launch when none is measured)."""
        med = self.median_s
        if med is None:
            return self.launches[0]
        return min(self.launches, key=lambda d: abs((d.kernel.duration_s or math.inf) - med))


def launch_sets(diagnoses: Iterable[KernelDiagnosis]) -> list[LaunchSet]:
    """Group diagnosed launches by (name, grid, block), first appearance order."""
    groups: dict[tuple, list[KernelDiagnosis]] = {}
    for d in diagnoses:
        k = d.kernel
        groups.setdefault((k.name, k.launch.grid, k.launch.block), []).append(d)
    return [LaunchSet(name, grid, block, tuple(ds)) for (name, grid, block), ds in groups.items()]


def merged(sets: list[LaunchSet]) -> LaunchSet:
    """One launch set of several of one kernel name (the first one's shape stands for them)."""
    first = sets[0]
    return LaunchSet(first.name, first.grid, first.block, tuple(d for s in sets for d in s.launches))

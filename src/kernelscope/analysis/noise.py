"""The noise rule of ``kernelscope compare``'s gate: when a change between two measured sides is beyond their
run-to-run noise. Pure functions, no I/O.

For every figure the gate tests, a side's run-to-run noise is the relative standard deviation of its
launch durations (sample standard deviation / mean, as nvbench's "Noise" column); for a per-name summary row, its
own standard deviation / its mean (a timeline's rows compute it, ``nsys stats`` prints it), or where only a (min,
max) range is recorded, half that range / the mean (an upper bound of the standard deviation of any distribution on
the range). A change is beyond the noise when |after / before - 1| exceeds the larger of the two sides' noise
(nvbench's compare calls SLOW/FAST beyond the smaller one, which flags A/A runs of the same build, NVIDIA/nvbench#316);
with one side's noise unknown, a change within the other side's is within the noise and any larger one is of unknown
significance. The matched kernels' total carries each side's time-weighted mean of its kernels' noise (run-to-run
drift of the clocks moves every kernel together, so the relative noises do not average out), known when the kernels
of known noise hold at least half of that side's time (:func:`weighted_noise`); a program compared per
profiler step carries the relative standard deviation of each side's step times. The gate (:meth:`kernelscope.analysis.compare.Comparison.regressions`) fails on a figure slower by more than the threshold unless that change is within the noise.
"""

from __future__ import annotations

import math
import statistics
from typing import Sequence


def significance(before_noise: float | None, after_noise: float | None, change: float | None) -> tuple[float | None, bool | None]:
    """``(noise, beyond)`` of a relative change ``after / before - 1`` between two sides of relative noise
    ``before_noise`` / ``after_noise`` (fractions): noise = the larger of the two known; beyond = |change| > that
    noise with both known, False when |change| is within the one known, else None (module docstring)."""
    known = [x for x in (before_noise, after_noise) if x is not None]
    noise = max(known) if known else None
    if change is None or noise is None:
        return noise, None
    if abs(change) <= noise:
        return noise, False
    return noise, True if len(known) == 2 else None


#: The share of a side's matched time whose kernels must have a known noise for the total to carry one.
NOISE_COVERAGE = 0.5


def weighted_noise(values: Sequence[tuple[float | None, float]]) -> float | None:
    """The noise of a sum of kernel times: the time-weighted mean of the kernels' relative noise ``(noise, time_s)``
    over the kernels whose noise is known, when they hold at least :data:`NOISE_COVERAGE` of the time; else None
    (a total mostly of single launches has no known noise)."""
    total = math.fsum(t for _, t in values)
    known = [(n, t) for n, t in values if n is not None]
    weight = math.fsum(t for _, t in known)
    if total <= 0 or weight < NOISE_COVERAGE * total:
        return None
    return math.fsum(n * t for n, t in known) / weight


def step_noise(steps: Sequence[float]) -> float | None:
    """The relative standard deviation of step times (s), None with fewer than two steps or a zero mean."""
    if len(steps) < 2:
        return None
    mean = statistics.fmean(steps)
    return statistics.stdev(steps) / mean if mean > 0 else None

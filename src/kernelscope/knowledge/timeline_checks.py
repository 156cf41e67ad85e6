"""The thresholds of the program-level timeline checks (``data/timeline_rules.toml``), each table with its source.

Times in seconds, sizes in bytes, percentages 0-100. :func:`timeline_checks` returns the validated file; the
checks themselves are :mod:`kernelscope.analysis.timeline.checks` (rules of :mod:`kernelscope.analysis.engine`).
"""

from __future__ import annotations

import re

from typing import Annotated

from msgspec import Meta

from . import Model, NonNegative, NonNegativeInt, Positive, PositiveInt, NonEmpty, load


class Sourced(Model, kw_only=True):
    """A table of thresholds with the place they come from."""

    source: NonEmpty


class SyncMemcpy(Sourced, kw_only=True):
    """Copies issued by a synchronous API; host-to-device copies of at most ``max_small_htod_bytes`` are not
    flagged (the driver returns before they finish), nor device-to-device copies."""

    max_small_htod_bytes: NonNegativeInt


class PageableMemcpy(Sourced, kw_only=True):
    """Copies from or to pageable host memory, flagged when they take at least ``min_total_s`` in all."""

    min_total_s: NonNegative


class SyncMemset(Sourced, kw_only=True):
    """Memsets issued by a synchronous API (no threshold)."""


class GpuGaps(Sourced, kw_only=True):
    """A GPU idle for at least ``min_gap_s`` between its first and last operation."""

    min_gap_s: Positive


class LowUtilisation(Sourced, kw_only=True):
    """Busy time below ``threshold_pct`` of the span, overall or in one of ``chunks`` equal slices."""

    threshold_pct: Annotated[float, Meta(gt=0, le=100)]
    chunks: PositiveInt


class TinyKernels(Sourced, kw_only=True):
    """Kernels about as long as their launch cost: median at most the launch cost (capped at
    ``launch_cost_cap_s``), or at most ``max_duration_s`` without recorded launch calls, launched at least
    ``min_launches`` times."""

    max_duration_s: Positive
    min_launches: PositiveInt
    launch_cost_cap_s: Positive


class AmdahlFactors(Sourced, kw_only=True):
    """Speed-up factors of the Amdahl projections, besides "gone" (infinitely faster)."""

    factors: Annotated[tuple[float, ...], Meta(min_length=1)]

    def __post_init__(self) -> None:
        if any(not 1.0 < f < float("inf") for f in self.factors):
            raise ValueError("field 'amdahl.factors': every factor must be a finite number above 1")


class Ranks(Sourced, kw_only=True):
    """Kernel names matching ``communication_regex`` (case-insensitive) are communication, not computation."""

    communication_regex: NonEmpty

    def __post_init__(self) -> None:
        try:
            re.compile(self.communication_regex)
        except re.error as exc:
            raise ValueError(f"field 'ranks.communication_regex': not a regular expression: {exc}") from None

    @property
    def communication(self) -> re.Pattern[str]:
        """The compiled pattern (case-insensitive)."""
        return re.compile(self.communication_regex, re.IGNORECASE)


class TimelineChecks(Model, kw_only=True):
    """``timeline_rules.toml``: one table per check, plus the Amdahl factors and the rank comparison."""

    sync_memcpy: SyncMemcpy
    pageable_memcpy: PageableMemcpy
    sync_memset: SyncMemset
    gpu_gaps: GpuGaps
    low_utilisation: LowUtilisation
    tiny_kernels: TinyKernels
    amdahl: AmdahlFactors
    ranks: Ranks


def timeline_checks() -> TimelineChecks:
    """The validated ``timeline_rules.toml`` (loaded once)."""
    return load("timeline_rules.toml", TimelineChecks)

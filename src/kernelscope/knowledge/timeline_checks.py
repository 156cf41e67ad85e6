"""The thresholds of the program-level timeline checks (``data/timeline_rules.toml``), each table with its source.

Times in seconds, sizes in bytes, percentages 0-100. :func:`timeline_checks` returns the validated file; the
checks themselves are :mod:`kernelscope.analysis.timeline.checks` (rules of :mod:`kernelscope.analysis.engine`).
"""

from __future__ import annotations

import re

from pydantic import Field, NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt, field_validator

from . import Model, load


class Sourced(Model):
    """A table of thresholds with the place they come from."""

    source: str = Field(min_length=1)


class SyncMemcpy(Sourced):
    """Copies issued by a synchronous API; host-to-device copies of at most ``max_small_htod_bytes`` are not
    flagged (the driver returns before they finish), nor device-to-device copies."""

    max_small_htod_bytes: NonNegativeInt


class PageableMemcpy(Sourced):
    """Copies from or to pageable host memory, flagged when they take at least ``min_total_s`` in all."""

    min_total_s: NonNegativeFloat


class SyncMemset(Sourced):
    """Memsets issued by a synchronous API (no threshold)."""


class GpuGaps(Sourced):
    """A GPU idle for at least ``min_gap_s`` between its first and last operation."""

    min_gap_s: PositiveFloat


class LowUtilisation(Sourced):
    """Busy time below ``threshold_pct`` of the span, overall or in one of ``chunks`` equal slices."""

    threshold_pct: float = Field(gt=0, le=100)
    chunks: PositiveInt


class TinyKernels(Sourced):
    """Kernels about as long as their launch cost: median at most the launch cost (capped at
    ``launch_cost_cap_s``), or at most ``max_duration_s`` without recorded launch calls, launched at least
    ``min_launches`` times."""

    max_duration_s: PositiveFloat
    min_launches: PositiveInt
    launch_cost_cap_s: PositiveFloat


class AmdahlFactors(Sourced):
    """Speed-up factors of the Amdahl projections, besides "gone" (infinitely faster)."""

    factors: tuple[float, ...] = Field(min_length=1)

    @field_validator("factors")
    @classmethod
    def _above_one(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if any(not f > 1.0 or f == float("inf") for f in value):
            raise ValueError("every factor must be a finite number above 1")
        return value


class Ranks(Sourced):
    """Kernel names matching ``communication_regex`` (case-insensitive) are communication, not computation."""

    communication_regex: str = Field(min_length=1)

    @field_validator("communication_regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return value

    @property
    def communication(self) -> re.Pattern[str]:
        """The compiled pattern (case-insensitive)."""
        return re.compile(self.communication_regex, re.IGNORECASE)


class TimelineChecks(Model):
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

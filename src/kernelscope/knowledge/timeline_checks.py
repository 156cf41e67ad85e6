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


class HostGaps(Sourced, kw_only=True):
    """CPU-bound gaps: GPU idle stretches of at least ``min_gap_s`` between the device's operations, reported when
    they add up to at least ``min_share_pct`` of the rank's wall, with the host API call and the range that fill
    them most."""

    min_gap_s: Positive
    min_share_pct: Annotated[float, Meta(ge=0, le=100)]


class LaunchBound(Sourced, kw_only=True):
    """Launch-bound loops: kernel launches whose kernels run shorter than ``max_kernel_fraction`` of the per-launch
    cost (the median spacing of back-to-back launch calls, pairs further apart than ``max_spacing_s`` left out as
    host work; a summary: the launch call's own mean duration), at least ``min_launches`` of them; launches whose
kernel started within ``backlog_gap_s`` of the end of the work queued ahead of it are backlog, never launch-bound. ``launch_api_regex`` names the kernel launch calls of an ``nsys stats`` summary, which
    has no correlation ids to join on (a timeline joins on correlation ids, whatever the call's name)."""

    min_launches: PositiveInt
    max_kernel_fraction: Annotated[float, Meta(gt=0, le=1)]
    max_spacing_s: Positive
    backlog_gap_s: NonNegative
    launch_api_regex: NonEmpty

    def __post_init__(self) -> None:
        try:
            re.compile(self.launch_api_regex)
        except re.error as exc:
            raise ValueError(f"field 'launch_bound.launch_api_regex': not a regular expression: {exc}") from None

    @property
    def launch_api(self) -> re.Pattern[str]:
        """The compiled pattern (case-insensitive)."""
        return re.compile(self.launch_api_regex, re.IGNORECASE)


class GraphReplay(Sourced, kw_only=True):
    """What replaying ``n`` kernels as one CUDA graph costs: ``fixed_s + per_node_s * n`` seconds (host launch and
    GPU replay of ``n`` no-op kernel nodes, as measured on the machine the source names)."""

    fixed_s: NonNegative
    per_node_s: NonNegative


class AmdahlFactors(Sourced, kw_only=True):
    """Speed-up factors of the Amdahl projections, besides "gone" (infinitely faster)."""

    factors: Annotated[tuple[float, ...], Meta(min_length=1)]

    def __post_init__(self) -> None:
        if any(not 1.0 < f < float("inf") for f in self.factors):
            raise ValueError("field 'amdahl.factors': every factor must be a finite number above 1")


class Ranks(Sourced, kw_only=True):
    """Kernel names matching ``communication_regex`` (case-insensitive) are communication, not computation; a rank
    whose own work (wall minus collective wait, :mod:`kernelscope.analysis.timeline.collectives`) exceeds the
    median rank's by more than ``straggler_pct`` percent is a straggler."""

    communication_regex: NonEmpty
    straggler_pct: NonNegative

    def __post_init__(self) -> None:
        try:
            re.compile(self.communication_regex)
        except re.error as exc:
            raise ValueError(f"field 'ranks.communication_regex': not a regular expression: {exc}") from None

    @property
    def communication(self) -> re.Pattern[str]:
        """The compiled pattern (case-insensitive)."""
        return re.compile(self.communication_regex, re.IGNORECASE)


class ImpossibleRecords(Sourced, kw_only=True):
    """Interval readers leave out a record whose start or end lies further than ``max_distance_from_median_s``
    seconds from the median start of the records of its file (another clock; see
    :mod:`kernelscope.ingest.records`)."""

    max_distance_from_median_s: Positive


class OneOffCalls(Sourced, kw_only=True):
    """CUDA API calls of an ``nsys stats`` summary whose cost is paid once (context creation, module loading),
    shown apart from per-call costs. Every call of an API matching ``once_regex`` is one-off; for an API matching
    ``first_call_regex`` its longest call is, when at least ``min_ratio_to_median`` times the API's median (without
    a printed median: the mean of its other calls). Regexes compared without case."""

    once_regex: NonEmpty
    first_call_regex: NonEmpty
    min_ratio_to_median: Annotated[float, Meta(gt=1)]

    def __post_init__(self) -> None:
        for name in ("once_regex", "first_call_regex"):
            try:
                re.compile(getattr(self, name))
            except re.error as exc:
                raise ValueError(f"field 'one_off_calls.{name}': not a regular expression: {exc}") from None

    @property
    def once(self) -> re.Pattern[str]:
        """``once_regex`` compiled (case-insensitive)."""
        return re.compile(self.once_regex, re.IGNORECASE)

    @property
    def first_call(self) -> re.Pattern[str]:
        """``first_call_regex`` compiled (case-insensitive)."""
        return re.compile(self.first_call_regex, re.IGNORECASE)


class TimelineChecks(Model, kw_only=True):
    """``timeline_rules.toml``: one table per check, plus the Amdahl factors and the rank comparison."""

    sync_memcpy: SyncMemcpy
    pageable_memcpy: PageableMemcpy
    sync_memset: SyncMemset
    gpu_gaps: GpuGaps
    host_gaps: HostGaps
    low_utilisation: LowUtilisation
    tiny_kernels: TinyKernels
    launch_bound: LaunchBound
    graph_replay: GraphReplay
    amdahl: AmdahlFactors
    ranks: Ranks
    impossible_records: ImpossibleRecords
    one_off_calls: OneOffCalls


def timeline_checks() -> TimelineChecks:
    """The validated ``timeline_rules.toml`` (loaded once)."""
    return load("timeline_rules.toml", TimelineChecks)

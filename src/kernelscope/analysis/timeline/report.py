"""The result objects of the timeline analysis: what ``kernelscope timeline`` says about one program run.

Every time is in SECONDS (float), percentages 0-100 are named ``*_pct``, fractions 0-1 ``*_fraction``, file-clock
timestamps ``*_ns``. A value may be infinite where the mathematics says so (an Amdahl factor "gone", the speedup
when an item is the whole program, the open-ended last gap bin); the ``NON_FINITE`` class attribute of such a
dataclass says, per field, what an infinite value means (a JSON writer prints null with that reason).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Mapping

from ...notes import Note
from ...timeline_model import InvalidRecord
from ..engine import Finding

#: Seconds per nanosecond (the Timeline's integer unit).
NS = 1e-9

#: Gap histogram bin edges between consecutive kernels on one device, in seconds.
GAP_EDGES_S: tuple[float, ...] = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, math.inf)


@dataclass(frozen=True)
class Amdahl:
    """Amdahl projection for one item taking ``fraction`` of the program time.

    ``speedups[i]`` is the program speedup (x) if the item became ``factors[i]`` times faster (the last factor is
    ``inf``: the item gone); ``saved_fraction[i]`` the share of the program time that would be saved
    (``fraction * (1 - 1/s)``). The speedup is ``inf`` when the item is the whole program time and goes.
    """

    NON_FINITE: ClassVar[Mapping[str, str]] = {"factors": "gone", "speedups": "unbounded"}

    fraction: float
    factors: tuple[float, ...]
    speedups: tuple[float, ...]
    saved_fraction: tuple[float, ...]


@dataclass(frozen=True)
class LaunchShape:
    """The most common launch configuration of one kernel name (from the trace's launch args).

    Attributes:
        grid, block: ``(x, y, z)`` of that configuration.
        registers_per_thread: registers per thread, None when not recorded.
        launches: how many launches used it; ``recorded`` how many launches of the name have a recorded shape.
        shapes: how many distinct configurations the name was launched with.
    """

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    registers_per_thread: int | None
    launches: int
    recorded: int
    shapes: int


@dataclass(frozen=True)
class ItemStat:
    """One named item (kernel, copy kind, API call, annotation range) summed over its occurrences.

    Attributes:
        kind: interval kind name ("kernel", "memcpy", "memset", "runtime_api", "sync", "annotation").
        name: its name (a name cut by ``nsys stats`` keeps its ellipsis; ``truncated`` says so).
        count: launches / calls.
        total_s, mean_s, min_s, max_s, median_s: times in seconds (median None where not computed).
        share_pct: share of its category's total (kernels: of the summed kernel time, as nsys' "Time (%)").
        program_fraction: total / program wall time (0-1), the Amdahl fraction; None when there is no wall time.
        amdahl: the projection for ``program_fraction``.
        bytes: bytes moved (copies / memsets), None when not recorded.
        throughput_bytes_per_s: bytes / total time, for copies.
        truncated: the name was cut by the profiler.
        launch: for kernels, the most common launch shape when the trace records launch args, else None.
    """

    kind: str
    name: str
    count: int
    total_s: float
    mean_s: float | None
    min_s: float | None
    max_s: float | None
    median_s: float | None = None
    share_pct: float | None = None
    program_fraction: float | None = None
    amdahl: Amdahl | None = None
    bytes: int | None = None
    throughput_bytes_per_s: float | None = None
    truncated: bool = False
    launch: LaunchShape | None = None


@dataclass(frozen=True)
class CopyDirection:
    """Copies of one direction on one device (plain sums; copies on several streams may overlap)."""

    direction: str
    count: int
    total_s: float
    bytes: int | None
    throughput_bytes_per_s: float | None
    pageable_s: float
    pinned_s: float
    unknown_memory_s: float


@dataclass(frozen=True)
class GapHistogram:
    """Gaps between consecutive kernels on one device (a gap = next start - latest end so far).

    ``edges_s`` are the bin edges (the last one ``inf``: the last bin is open-ended); ``counts[i]`` /
    ``totals_s[i]`` the number and summed length of gaps in ``[edges_s[i], edges_s[i+1])``; ``overlapping``
    kernels that started before the previous ones ended.
    """

    NON_FINITE: ClassVar[Mapping[str, str]] = {"edges_s": "open_ended"}

    edges_s: tuple[float, ...]
    counts: tuple[int, ...]
    totals_s: tuple[float, ...]
    overlapping: int


@dataclass(frozen=True)
class TimeSplit:
    """Wall time of one device (``stream`` None) or one stream split into kernel / copy / memset / idle time.

    Attributes:
        rank: distributed rank, None when not recorded.
        device: CUDA device id.
        stream: stream id, or None for the whole device.
        device_name: GPU name from the file, or None.
        start_ns, end_ns: the span (first to last GPU operation), file clock.
        span_s: ``end - start`` in seconds.
        busy_s: union of kernel, memcpy and memset intervals.
        kernel_s: time at least one kernel ran (union of kernels).
        memcpy_s: time copies ran while no kernel did.
        memset_s: time memsets ran while no kernel or copy did.
        idle_s: ``span - busy``.
        utilisation_pct: ``busy / span`` (0-100, never above 100).
        sum_over_streams_s: plain sum of all busy intervals (counts overlapping streams twice: NOT wall time).
        overlap_s: ``sum_over_streams - busy``: time counted more than once by that sum (inter-stream overlap).
        kernel_sum_s, memcpy_sum_s, memset_sum_s: plain sums per kind.
        copy_compute_overlap_s: copy time hidden under kernels.
        copies: per direction.
        sync_s: host time spent in synchronisation records of this device (union); overlaps the split.
        kernel_count, memcpy_count, memset_count: interval counts.
        gaps: kernel-to-kernel gap histogram (devices only).
        largest_gap_s, largest_gap_start_ns: the longest idle gap between busy intervals.
    """

    rank: int | None
    device: int
    stream: int | None
    device_name: str | None
    start_ns: int
    end_ns: int
    span_s: float
    busy_s: float
    kernel_s: float
    memcpy_s: float
    memset_s: float
    idle_s: float
    utilisation_pct: float
    sum_over_streams_s: float
    overlap_s: float
    kernel_sum_s: float
    memcpy_sum_s: float
    memset_sum_s: float
    copy_compute_overlap_s: float
    copies: tuple[CopyDirection, ...]
    sync_s: float
    kernel_count: int
    memcpy_count: int
    memset_count: int
    gaps: GapHistogram | None = None
    largest_gap_s: float = 0.0
    largest_gap_start_ns: int | None = None


@dataclass(frozen=True)
class LaunchOverhead:
    """API call -> kernel start latency, joined on correlation id (within a rank).

    Attributes:
        matched: kernels whose launch call was found; ``unmatched`` those without.
        latency_*_s: kernel start - API call start.
        api_median_s: median host duration of the launch calls.
    """

    matched: int
    unmatched: int
    latency_mean_s: float | None
    latency_median_s: float | None
    latency_p95_s: float | None
    latency_max_s: float | None
    api_median_s: float | None


@dataclass(frozen=True)
class TinyKernel:
    """A kernel name whose launches are about as long as their launch cost: a CUDA Graphs / fusion candidate.

    Attributes:
        name: kernel name. launches: how many. median_s: its median duration. total_s: its total.
        launch_cost_s: median host time of its launch call, None when the launch calls were not recorded.
        savings_s: GPU idle time just before its launches, each capped at the launch cost (what Graphs or fusion
            could save).
    """

    name: str
    launches: int
    median_s: float
    total_s: float
    launch_cost_s: float | None
    savings_s: float


@dataclass(frozen=True)
class BlackHole:
    """The single largest place the time goes: ``category`` ("kernel", "memcpy", "memset", "gpu_idle") and the
    item ``name``; ``time_s`` and its ``program_fraction`` with the Amdahl projection. For "gpu_idle" (time in the
    program wall with no GPU work at all), ``host_api`` / ``host_api_s`` name the CUDA API call that covers most
    of that idle time on the host (None when no API call was recorded)."""

    category: str
    name: str
    time_s: float
    program_fraction: float | None
    amdahl: Amdahl | None
    host_api: str | None = None
    host_api_s: float | None = None


@dataclass(frozen=True)
class RankRow:
    """One rank side by side with the others (sums over its devices)."""

    rank: int | None
    wall_s: float
    busy_s: float
    kernel_s: float
    memcpy_s: float
    memset_s: float
    idle_s: float
    utilisation_pct: float | None
    communication_s: float
    computation_s: float


@dataclass(frozen=True)
class TimelineReport:
    """Everything ``kernelscope timeline`` says about one program run.

    Attributes:
        path, format, tool_version: the input.
        source: "intervals" (a Timeline) or "summary" (``nsys stats`` per-name summaries).
        title: extra label (e.g. "run 2 of 6" for a file with several captures), or None.
        wall_s: program wall time (None for a summary); ``program_time_s`` the time Amdahl fractions are of
            (= wall time, or for a summary the summed GPU kernel + copy + memset time, stated in ``notes``).
        devices: per device split (empty for a summary); ``streams`` per stream.
        host_api_s: union of host-side CUDA API time (None when not recorded).
        kernels, copies, memsets, api_calls, syncs, annotations: ranked by total time, largest first.
        launch: launch overhead, None when not computable.
        tiny_kernels: CUDA Graphs / fusion candidates.
        black_hole: the largest single item.
        ranks: per-rank rows (more than one only for multi-rank traces); ``slowest_rank`` the straggler.
        findings: the expert checks that fired (:mod:`.checks`), as :class:`~kernelscope.analysis.engine.Finding`.
        not_computable: quantities the input cannot give (e.g. "idle", "overlap" for a summary).
        notes: other statements (Notes).
        invalid: records found but not usable; ``problems``: data problems.
        devices_named: (id, name) of the GPUs recorded.
        gap_edges_s: the bin edges of the gap histograms (the last one ``inf``).
    """

    NON_FINITE: ClassVar[Mapping[str, str]] = {"gap_edges_s": "open_ended"}

    path: str
    format: str
    source: str
    wall_s: float | None
    program_time_s: float | None
    devices: tuple[TimeSplit, ...]
    streams: tuple[TimeSplit, ...]
    host_api_s: float | None
    kernels: tuple[ItemStat, ...]
    copies: tuple[ItemStat, ...]
    memsets: tuple[ItemStat, ...]
    api_calls: tuple[ItemStat, ...]
    syncs: tuple[ItemStat, ...]
    annotations: tuple[ItemStat, ...]
    launch: LaunchOverhead | None
    tiny_kernels: tuple[TinyKernel, ...]
    black_hole: BlackHole | None
    ranks: tuple[RankRow, ...]
    slowest_rank: int | None
    findings: tuple[Finding, ...]
    not_computable: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    invalid: tuple[InvalidRecord, ...] = ()
    problems: tuple[str, ...] = ()
    tool_version: str | None = None
    title: str | None = None
    devices_named: tuple[tuple[int, str], ...] = ()
    gap_edges_s: tuple[float, ...] = GAP_EDGES_S

    @property
    def kernel_time_s(self) -> float:
        """Summed kernel time (all kernels, plain sum)."""
        return float(sum(k.total_s for k in self.kernels))

"""The ``ranks`` section of the ``kernelscope.timeline/1`` document: ``timeline --as-ranks`` (the files are the
ranks of one program, each read alone, reduced from small per-rank summaries)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc


class RankLineDoc(Doc):
    """one rank of `timeline --as-ranks` (its own file, read alone)"""

    rank: Annotated[int, Meta(description="rank: the one the trace records, or the file's position (see rank_source)")]
    path: Annotated[str, Meta(description="the rank's trace file, as given")]
    wall_s: Annotated[float, Meta(description="the rank's wall time, seconds")]
    busy_s: Annotated[float, Meta(description="GPU busy time (union per device, summed over its devices), seconds")]
    kernel_s: Annotated[float, Meta(description="time at least one kernel ran (per device, summed), seconds")]
    share_pct: Annotated[float | None, Meta(description=(
        "kernel_s over the summed kernel_s of all ranks, percent 0-100; null: no kernel time"))]
    vs_median_pct: Annotated[float | None, Meta(description=(
        "compared_s above (+) or below (-) the median rank's, percent; null: the median is 0"))]
    straggler: Annotated[bool, Meta(description="compared_s exceeds the median rank's by more than straggler_pct")]
    computation_s: Annotated[float, Meta(description="union of its non-communication kernels, seconds")]
    communication_s: Annotated[float, Meta(description="union of its communication kernels, seconds")]
    overlap_s: Annotated[float, Meta(description="time computation and communication both ran, seconds")]
    exposed_s: Annotated[float, Meta(description="communication not hidden under computation, seconds")]
    wait_s: Annotated[float, Meta(description=(
        "time it waited in collectives for other ranks (a call's duration minus the shortest duration of the same "
        "call over the ranks, its part not under computation), seconds"))]
    own_s: Annotated[float, Meta(description="wall_s - wait_s: the time its own work takes, seconds")]
    steps: Annotated[int, Meta(description="ProfilerStep#N ranges in its trace (count; 0: none)")]
    median_step_s: Annotated[float | None, Meta(description="median ProfilerStep duration, seconds; null: no step")]
    compared_s: Annotated[float, Meta(description=(
        "what the ranks are compared by (see compared_by): own_s, or own_s per step, seconds"))]
    member: Annotated[str | None, Meta(description=(
        "the rank's trace file inside the archive or directory at path; null: path is the trace file"))] = None


class KernelImbalanceDoc(Doc):
    """one top kernel across the ranks: its total time on each rank (0 on a rank that never ran it)"""

    name: Annotated[str, Meta(description="kernel name (user data)")]
    total_s: Annotated[float, Meta(description="summed over ranks, seconds")]
    count: Annotated[int, Meta(description="launches over all ranks (count)")]
    ranks_with: Annotated[int, Meta(description="ranks that ran it (count)")]
    min_s: Annotated[float, Meta(description="smallest per-rank total, seconds")]
    median_s: Annotated[float, Meta(description="median per-rank total, seconds")]
    max_s: Annotated[float, Meta(description="largest per-rank total, seconds")]
    max_over_median: Annotated[float | None, Meta(description="max_s / median_s (ratio); null: the median is 0")]
    max_rank: Annotated[int, Meta(description="the rank with max_s (the first in rank order on a tie)")]
    projected_s: Annotated[list[float], Meta(description=(
        "program wall if the kernel became factors[i] times faster on every rank (the last: gone), beyond the "
        "collective waits, seconds (a prediction when one rank arrives last at every collective, else an upper "
        "bound of the speedup)"))]
    speedups: Annotated[list[float | None], Meta(description=(
        "wall_s / projected_s for each factor (ratio); null: unbounded"))]


class RanksDoc(Doc):
    """`timeline --as-ranks`: the files are the ranks of ONE program, each read alone; reduced from small per-rank
    summaries"""

    rank_source: Annotated[Literal["recorded", "file_order"], Meta(description=(
        "recorded: the ranks the traces record (Kineto distributedInfo.rank); file_order: a trace records none or "
        "two record the same, so ranks are the files' positions (0-based)"))]
    wall_s: Annotated[float, Meta(description="program wall = the slowest rank's wall, seconds")]
    median_wall_s: Annotated[float, Meta(description="median rank wall, seconds")]
    busy_s: Annotated[float, Meta(description="GPU busy time summed over ranks, seconds")]
    kernel_s: Annotated[float, Meta(description="kernel time summed over ranks, seconds")]
    slowest_rank: Annotated[int, Meta(description=(
        "the straggler: the rank with the largest compared_s (own work: wall minus collective wait; the first on a "
        "tie)"))]
    stragglers: Annotated[list[int], Meta(description=(
        "ranks whose compared_s exceeds the median rank's by more than straggler_pct"))]
    straggler_pct: Annotated[float, Meta(description=(
        "the straggler threshold, percent above the median rank's compared_s (data/timeline_rules.toml [ranks])"))]
    compared_by: Annotated[Literal["own", "own_per_step"], Meta(description=(
        "own: ranks compared by own work per trace; own_per_step: by own work per ProfilerStep (the traces hold "
        "different step counts, so whole walls are not comparable)"))]
    factors: Annotated[list[float | None], Meta(description=(
        "the factors of kernels[].projected_s (ratio); the last null: gone"))]
    balanced_wall_s: Annotated[float | None, Meta(description=(
        "program wall if every rank's own work took the median rank's (the straggler fixed), seconds"))]
    hidden_wall_s: Annotated[float | None, Meta(description=(
        "program wall if every rank's exposed communication beyond its wait were hidden, seconds"))]
    exposed_s: Annotated[float, Meta(description="exposed communication summed over ranks, seconds")]
    wait_s: Annotated[float, Meta(description="collective wait summed over ranks, seconds")]
    ranks: Annotated[list[RankLineDoc], Meta(description="per rank, in rank order")]
    kernels: Annotated[list[KernelImbalanceDoc], Meta(description=(
        "the top kernels by summed total time, largest first, with their imbalance across ranks"))]

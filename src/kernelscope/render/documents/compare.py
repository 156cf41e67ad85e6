"""``kernelscope.compare/1``: the JSON document of ``kernelscope compare --format json``."""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Class, Doc, Lang, NoteDoc, NullReason, Version

__all__ = ["CompareDoc", "ComparedKernelDoc", "FindingEstimateDoc", "SideDoc"]


class SideDoc(Doc):
    """one side (before or after) of a compared kernel, from its median launch"""

    duration_s: Annotated[float | None, Meta(description="median duration of the kernel's launches, seconds")]
    spread_s: Annotated[tuple[float, float] | None, Meta(description=(
        "[min, max] duration over the launches, seconds; null with fewer than two measured launches"))]
    launches: Annotated[int, Meta(description="launches on this side (count)")]
    bandwidth_bytes_per_s: Annotated[float | None, Meta(description="effective DRAM bandwidth = DRAM bytes / duration, bytes/s")]
    bandwidth_pct_of_peak: Annotated[float | None, Meta(description="that bandwidth, percent of the GPU's DRAM peak (0-100)")]
    achieved_flops_per_s: Annotated[float | None, Meta(description="achieved FLOP/s from the roofline")]
    efficiency: Annotated[float | None, Meta(description="achieved / attainable FLOP/s, fraction 0-1")]
    sol_compute_pct: Annotated[float | None, Meta(description="Speed-of-Light SM throughput, percent of peak (0-100)")]
    sol_memory_pct: Annotated[float | None, Meta(description="Speed-of-Light memory throughput, percent of peak (0-100)")]
    classes: Annotated[list[Class], Meta(description="bottleneck classes")]
    achieved_occupancy_pct: Annotated[float | None, Meta(description="achieved occupancy, percent (0-100)")]
    theoretical_occupancy_pct: Annotated[float | None, Meta(description="theoretical occupancy, percent (0-100)")]
    stall_shares: Annotated[dict[str, float], Meta(description="stall reason -> share of stall cycles, fraction 0-1")]


class StallShiftDoc(Doc):
    """how one stall reason's share moved"""

    reason: Annotated[str, Meta(description="stall reason id")]
    share_before: Annotated[float, Meta(description="share of stall cycles before, fraction 0-1")]
    share_after: Annotated[float, Meta(description="share of stall cycles after, fraction 0-1")]


class PredictionDoc(Doc):
    """an estimate of the BEFORE profile next to the measured result"""

    rule_id: Annotated[str, Meta(description="Nsight Compute rule of the BEFORE profile")]
    estimated_speedup_pct: Annotated[float, Meta(description="the rule's estimated reduction of the kernel's time, percent")]
    measured_reduction_pct: Annotated[float | None, Meta(description="the measured reduction of the kernel's time, percent")]


class FindingEstimateDoc(Doc):
    """kernelscope's estimate for one finding of the BEFORE kernel"""

    finding_id: Annotated[str, Meta(description="the finding's id (a table [finding.<id>] of kernelscope/data/findings.toml, or a bottleneck-class rule)")]
    estimated_speedup: Annotated[float, Meta(ge=1.0, description=(
        "the kernel's estimated speedup if that cause were removed: time before / time after (ratio >= 1)"))]


class ComparedKernelDoc(Doc):
    """one kernel before and after"""

    before_name: Annotated[str, Meta(description="BEFORE kernel name (user data)")]
    after_name: Annotated[str, Meta(description="AFTER kernel name (user data)")]
    matched_by: Annotated[Literal["name+shape", "name", "hand"], Meta(description="how the two were paired")]
    speedup: Annotated[float | None, Meta(description="before duration / after duration (ratio, > 1 is faster)")]
    beyond_noise: Annotated[bool | None, Meta(description=(
        "true when the duration ranges do not overlap; null: spread unknown (fewer than two launches on a side)"))]
    program_speedup: Annotated[float | None, Meta(description="whole-program speedup if only this kernel had changed (Amdahl; ratio)")]
    before: SideDoc
    after: SideDoc
    stall_shift: Annotated[list[StallShiftDoc], Meta(description="the reasons that moved most, largest move first")]
    predictions: Annotated[list[PredictionDoc], Meta(description="the BEFORE profile's own estimates next to what was measured")]
    predicted: Annotated[list[FindingEstimateDoc], Meta(description=(
        "kernelscope's own prediction from the BEFORE kernel's findings (its median launch): every finding with an "
        "estimated speedup, largest first; compare the first with speedup"))]
    explanation: Annotated[list[NoteDoc], Meta(description="what moved")]
    not_measured: Annotated[list[NullReason], Meta(description="the reason for every null field of this kernel")]


class CompareDoc(Doc):
    """Output of `kernelscope compare --format json`: durations in seconds, bandwidth in bytes/s, `_pct` fields percent
    0-100, shares fractions 0-1. A value that was not measured is null; each compared kernel's `not_measured` gives the
    reason for every null field."""

    schema: Annotated[Literal["kernelscope.compare/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    total_before_s: Annotated[float, Meta(description=(
        "total GPU time of all BEFORE kernels, seconds (0 when the sides are kernels picked inside one report)"))]
    total_after_s: Annotated[float, Meta(description="total GPU time of all AFTER kernels, seconds (0 as above)")]
    speedup: Annotated[float | None, Meta(description="total_before_s / total_after_s (ratio); null when a total is 0")]
    unmatched_before: Annotated[list[str], Meta(description="BEFORE kernel names with no partner")]
    unmatched_after: Annotated[list[str], Meta(description="AFTER kernel names with no partner")]
    fail_if_slower_pct: Annotated[float | None, Meta(description="the --fail-if-slower threshold, percent; null: not given")]
    regressions: Annotated[list[str], Meta(description='kernel names (and "total") slower than the threshold')]
    kernels: Annotated[list[ComparedKernelDoc], Meta(description="compared kernels, largest BEFORE time first")]

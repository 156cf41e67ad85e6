"""``kernelscope.roofline/1``: the JSON document of ``kernelscope roofline --format json``: the numbers the roofline
chart of the same options draws (``-o FILE.svg``), without the drawing: the GPU's compute ceilings, the memory
bandwidth slopes, their ridge points, and per selected launch its points (arithmetic intensity, achieved FLOP/s)
or why it has none; with ``--levels`` a point per memory level of one launch (hierarchical roofline).
"""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Class, Doc, Lang, Version

__all__ = ["ComputeRoofDoc", "LevelPointDoc", "MemoryRoofDoc", "RidgeDoc", "RooflineChartDoc", "RooflineLaunchDoc",
           "RooflinePointDoc"]

Level = Annotated[Literal["l1", "l2", "dram"], Meta(description="memory level")]


class ComputeRoofDoc(Doc):
    """one compute ceiling (a horizontal line of the chart)"""

    pipes: Annotated[list[str], Meta(description="the pipes with this peak (fp64, fp32, fp16_tensor, ...), drawn as one line")]
    peak_flops_per_s: Annotated[float, Meta(description=(
        "their dense peak, FLOP/s (OP/s for int8_tensor): the GPU's datasheet peak; with --levels the peak the "
        "launch's roofline used (scaled to the profiled SM clock when it is known)"))]
    used: Annotated[bool, Meta(description="true when a plotted launch's main pipe is one of them (the line is drawn bold)")]


class MemoryRoofDoc(Doc):
    """one bandwidth ceiling (a slope of the chart)"""

    level: Level
    peak_bytes_per_s: Annotated[float, Meta(description="its peak bandwidth, bytes/s")]
    source: Annotated[Literal["gpu_spec", "report"], Meta(description=(
        "gpu_spec: the GPU spec's DRAM bandwidth; report: the level's peak as the report measures it (--levels)"))]


class RidgeDoc(Doc):
    """where a bandwidth slope meets a compute ceiling"""

    pipes: Annotated[list[str], Meta(description="the compute ceiling's pipes")]
    level: Level
    arithmetic_intensity_flop_per_byte: Annotated[float, Meta(description="peak FLOP/s / peak bytes/s, FLOP/byte")]


class RooflinePointDoc(Doc):
    """one point of a launch on the chart"""

    pipe: Annotated[str, Meta(description="the pipe whose FLOPs the point counts")]
    arithmetic_intensity_flop_per_byte: Annotated[float, Meta(description="FLOPs / DRAM bytes, FLOP/byte (x of the point)")]
    achieved_flops_per_s: Annotated[float, Meta(description="FLOPs / duration, FLOP/s (y of the point)")]
    peak_flops_per_s: Annotated[float | None, Meta(description=(
        "the pipe's ceiling the diagnosis used, FLOP/s (clock-scaled when the profiled clock is known); null: no GPU"))]
    attainable_flops_per_s: Annotated[float | None, Meta(description=(
        "min(peak, intensity x DRAM bandwidth), FLOP/s; null: no GPU ceilings"))]
    efficiency_pct: Annotated[float | None, Meta(description=(
        "achieved / attainable, percent (above 100 only when a ceiling is wrong); null: no GPU ceilings"))]


class LevelPointDoc(Doc):
    """one memory level of the hierarchical roofline (--levels)"""

    level: Level
    bytes: Annotated[float | None, Meta(description="bytes moved at that level; null: not measured")]
    bytes_metric: Annotated[str | None, Meta(description="the Nsight counter(s) the bytes (and the peak) come from; null: no bytes")]
    arithmetic_intensity_flop_per_byte: Annotated[float | None, Meta(description=(
        "the launch's FLOPs / bytes at this level, FLOP/byte (x of the level's point; its y is the launch's "
        "achieved FLOP/s); null: no point (not measured, or no bytes moved)"))]
    peak_bytes_per_s: Annotated[float | None, Meta(description=(
        "the level's peak bandwidth as the report measures it, bytes/s; null: not measured, or bytes summed from two "
        "counters of different peaks (no slope drawn)"))]
    bandwidth_pct: Annotated[float | None, Meta(description=(
        "bytes / duration as percent (0-100) of peak_bytes_per_s: how close the point is to its ceiling; null: no peak"))]
    limiting: Annotated[bool, Meta(description=(
        "true for the level closest to its ceiling, where the launch is not closer to its compute roof and is at "
        "60 % (latency_sol_pct) or more of that ceiling: the limiting level (all false: the compute roof binds, no "
        "roof does, or no level has a peak)"))]


class RooflineLaunchDoc(Doc):
    """one selected launch"""

    index: Annotated[int, Meta(description="0-based position of the launch in its report (the [N] of the chart)")]
    name: Annotated[str, Meta(description="kernel function name (user data: escape before display)")]
    demangled_name: Annotated[str, Meta(description="full demangled signature, or the name when none is recorded")]
    duration_s: Annotated[float | None, Meta(description="duration of one launch, seconds; null: not measured")]
    gpu_time_share_pct: Annotated[float | None, Meta(description=(
        "its part of the report's GPU time, percent 0-100 (a report chart sizes the point by it); null: unknown"))]
    bound: Annotated[Class | None, Meta(description="its bottleneck class (the point's colour); null: no verdict")]
    pipe: Annotated[str | None, Meta(description="the pipe of its main roofline point; null: no roofline")]
    points: Annotated[list[RooflinePointDoc], Meta(description=(
        "its points as drawn, the main pipe's first (a launch chart draws every pipe it used, a report chart the "
        "main one); empty: not plotted"))]
    not_plotted: Annotated[str | None, Meta(description="why it has no point, in the document's language; null: it has one")]
    levels: Annotated[list[LevelPointDoc], Meta(description=(
        "with --levels: L1, L2, DRAM as the diagnosis measured them; empty otherwise"))]


class RooflineChartDoc(Doc):
    """Output of `kernelscope roofline --format json`: the numbers behind the roofline chart of the same options,
    log-log arithmetic intensity (FLOP/byte) vs FLOP/s. Every ceiling is a number the diagnosis used; a value that is
    not measured is null, never Infinity or NaN."""

    schema: Annotated[Literal["kernelscope.roofline/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    report: Annotated[str, Meta(description="the REPORT as given (user data: escape before display)")]
    chart: Annotated[Literal["report", "launch", "levels"], Meta(description=(
        "the chart these numbers are: report (every selected launch at its main pipe), launch (one launch, a point "
        "per pipe it used; --launch N or a selection of one), levels (one launch's hierarchical roofline, --levels)"))]
    gpu: Annotated[str | None, Meta(description="the GPU whose ceilings are drawn; null: none known (the points are drawn without ceilings)")]
    compute_roofs: Annotated[list[ComputeRoofDoc], Meta(description=(
        "compute ceilings, highest first: the GPU spec's dense peaks x clock_scale (the ceilings the points' "
        "efficiencies are of, the same the chart and the table show)"))]
    clock_scale: Annotated[float | None, Meta(description=(
        "the profiled SM clock / the spec's boost clock applied to every compute ceiling; null: the datasheet "
        "peaks (no clock known, the launches at different clocks, or a hierarchical roofline's own ceiling)"))]
    memory_roofs: Annotated[list[MemoryRoofDoc], Meta(description="bandwidth ceilings (slopes)")]
    ridge_points: Annotated[list[RidgeDoc], Meta(description="each compute ceiling where each slope meets it")]
    launches: Annotated[list[RooflineLaunchDoc], Meta(description="the selected launches, in report order")]

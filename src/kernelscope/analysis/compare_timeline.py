"""Program timelines as sides of a comparison (``kernelscope compare`` of a timeline with a timeline or a profile).

A timeline (:class:`~kernelscope.analysis.timeline.TimelineReport`) becomes a profile with one summary row per
kernel name (:func:`timeline_profile`): ``duration_s`` its mean (total / count), ``launch_count`` its count,
``duration_range_s`` its (min, max), its most common grid and block; so that the kernels of two timelines, or of a
timeline and an Nsight Compute report, are matched and compared like those of two profiles
(:func:`kernelscope.analysis.compare.compare`). Its wall time and split are kept as a
:class:`~kernelscope.analysis.compare.ProgramSide` (:func:`program_side`). Pure: no I/O.
"""

from __future__ import annotations

import math

from ..model import DeviceInfo, KernelProfile, LaunchConfig, Measurement, ProfileReport
from .compare_program import ProgramSide
from .timeline.report import ItemStat, TimelineReport


def timeline_profile(report: TimelineReport, measurement: Measurement | None = None) -> ProfileReport:
    """The kernels of one timeline as summary rows, one per kernel name, in its ranking order (largest total first).

    Args:
        report: the analysed timeline.
        measurement: how the timeline measured (``kernelscope.ingest.measurement.timeline_measurement``).
    """
    names = {name for _, name in report.devices_named if name}
    device = DeviceInfo(display_name=next(iter(names)) if len(names) == 1 else None)
    kernels = tuple(_row(i, item, device) for i, item in enumerate(report.kernels) if item.count > 0)
    return ProfileReport(path=report.path, format=report.format, kernels=kernels, tool_version=report.tool_version,
                         measurement=measurement)


def _row(index: int, item: ItemStat, device: DeviceInfo) -> KernelProfile:
    shape = item.launch
    launch = LaunchConfig(grid=shape.grid, block=shape.block, registers_per_thread=shape.registers_per_thread) \
        if shape is not None else LaunchConfig()
    mean = item.total_s / item.count
    spread = (item.min_s, item.max_s) if item.count >= 2 and item.min_s is not None and item.max_s is not None \
        else None
    return KernelProfile(index=index, name=item.name, demangled_name=item.name, device=device, launch=launch,
                         duration_s=mean if math.isfinite(mean) else None, launch_count=item.count,
                         duration_range_s=spread, duration_std_s=item.std_s if item.count >= 2 else None)


def program_side(report: TimelineReport) -> ProgramSide:
    """The program wall of one timeline and its split (see :class:`~kernelscope.analysis.compare.ProgramSide`): of
    the rank whose wall is the program's (the longest), or for an ``nsys stats`` summary the plain sums; with its
    profiler steps (``TimelineReport.steps``: the slowest rank's)."""
    steps = report.steps.durations_s if report.steps is not None else ()
    if report.ranks and report.wall_s is not None:
        row = max(report.ranks, key=lambda r: r.wall_s)
        idle = row.no_gpu_s if row.no_gpu_s is not None else max(row.wall_s - row.busy_s, 0.0)
        return ProgramSide(path=report.path, format=report.format, wall_s=report.wall_s, kernel_s=row.kernel_s,
                           memcpy_s=row.memcpy_s, memset_s=row.memset_s, gpu_idle_s=idle,
                           host_api_s=row.host_api_s if row.host_api_s is not None else report.host_api_s,
                           steps_s=steps)
    return ProgramSide(path=report.path, format=report.format, wall_s=report.wall_s,
                       kernel_s=math.fsum(k.total_s for k in report.kernels),
                       memcpy_s=math.fsum(k.total_s for k in report.copies),
                       memset_s=math.fsum(k.total_s for k in report.memsets), gpu_idle_s=None,
                       host_api_s=report.host_api_s, steps_s=steps)

"""The JSON documents of ``kernelscope occupancy``, ``gpus`` and ``roofline`` (``--format json``):
``kernelscope.occupancy/1``, ``kernelscope.gpus/1`` and ``kernelscope.roofline/1`` (types in
:mod:`kernelscope.render.documents`; ``banks`` has its own in :mod:`kernelscope.render.banks`). No analysis here:
they lay out what the analysis computed (occupancy, the catalogue, the roofline data of :mod:`.roofline_data`),
with units in the field names and null (never Infinity or NaN) for what is not measured.
"""

from __future__ import annotations

import math
from typing import Iterable

from ..analysis.occupancy import ArchLimits, NextStep, Occupancy
from ..model import GpuSpec
from ..version import __version__
from .common import Fmt
from .documents import encode
from .documents.gpus import GpuEntryDoc, GpusDoc
from .documents.occupancy import (
    ArchLimitsDoc, BlockLimitDoc, KernelOccupancyDoc, LaunchOccupancyDoc, NextStepDoc, OccupancyReportDoc,
    OccupancyResultDoc, SourceOccupancyDoc, StepResultDoc, WhatIfDoc, WhatIfRowDoc,
)
from .documents.roofline import (
    ComputeRoofDoc, LevelPointDoc, MemoryRoofDoc, RidgeDoc, RooflineChartDoc, RooflineLaunchDoc, RooflinePointDoc,
)
from .occupancy import KernelOccupancy, Launch, SourceFile, _result_line, _step_text
from .roofline_data import LaunchPoints, RooflineData

__all__ = ["GPUS_SCHEMA", "OCCUPANCY_SCHEMA", "ROOFLINE_SCHEMA", "gpus_doc", "gpus_json", "occupancy_doc",
           "occupancy_json", "roofline_doc", "roofline_json"]

OCCUPANCY_SCHEMA = "kernelscope.occupancy/1"
GPUS_SCHEMA = "kernelscope.gpus/1"
ROOFLINE_SCHEMA = "kernelscope.roofline/1"


def _finite(value: float | None) -> float | None:
    """A number for JSON: None for None, an infinity or NaN (the document says null = not measured)."""
    return value if value is not None and math.isfinite(value) else None


# ------------------------------------------------------------------------------------------ occupancy


def _limits_doc(a: ArchLimits) -> ArchLimitsDoc:
    return ArchLimitsDoc(
        warp_size=a.warp_size, max_threads_per_block=a.max_threads_per_block, max_warps_per_sm=a.max_warps_per_sm,
        max_blocks_per_sm=a.max_blocks_per_sm, registers_per_sm=a.registers_per_sm,
        max_registers_per_block=a.max_registers_per_block, max_registers_per_thread=a.max_registers_per_thread,
        register_allocation_unit=a.register_allocation_unit, sub_partitions=a.sub_partitions,
        shared_mem_per_sm_bytes=a.shared_mem_per_sm_bytes, shared_mem_per_block_bytes=a.shared_mem_per_block_bytes,
        shared_mem_per_block_optin_bytes=a.shared_mem_per_block_optin_bytes,
        shared_mem_allocation_unit_bytes=a.shared_mem_allocation_unit_bytes,
        shared_mem_reserved_per_block_bytes=a.shared_mem_reserved_per_block_bytes,
        shared_mem_carveouts_bytes=list(a.shared_mem_carveouts_bytes), max_barriers_per_block=a.max_barriers_per_block,
        block_barriers_per_sm=a.block_barriers_per_sm,
    )


def _result_doc(o: Occupancy, f: Fmt, limits: ArchLimits | None = None) -> OccupancyResultDoc:
    return OccupancyResultDoc(
        threads_per_block=o.threads_per_block, warps_per_block=o.warps_per_block,
        registers_per_thread=o.registers_per_thread, registers_per_thread_allocated=o.registers_per_thread_allocated,
        registers_per_block_allocated=o.registers_per_block_allocated,
        shared_mem_per_block_bytes=o.shared_mem_per_block_bytes,
        shared_mem_per_block_allocated_bytes=o.shared_mem_per_block_allocated_bytes,
        shared_mem_config_bytes=o.shared_mem_config_bytes,
        shared_mem_config_requested_bytes=o.shared_mem_config_requested_bytes,
        barriers_per_block=o.barriers_per_block,
        block_limits=[BlockLimitDoc(resource=k, blocks_per_sm=v, limiter=k in o.limiters)  # type: ignore[arg-type]
                      for k, v in o.block_limits.items()],
        active_blocks_per_sm=o.active_blocks_per_sm, active_warps_per_sm=o.active_warps_per_sm,
        max_warps_per_sm=o.max_warps_per_sm, occupancy_pct=o.occupancy_pct, limiters=list(o.limiters),  # type: ignore[arg-type]
        can_launch=o.active_blocks_per_sm > 0, summary=_result_line(o, f, limits).plain,
    )


def _step_doc(s: NextStep, f: Fmt) -> NextStepDoc:
    r = s.result
    return NextStepDoc(
        parameter=s.parameter, current=s.current, proposed=s.proposed,  # type: ignore[arg-type]
        result=StepResultDoc(active_blocks_per_sm=r.active_blocks_per_sm, active_warps_per_sm=r.active_warps_per_sm,
                             occupancy_pct=r.occupancy_pct, limiters=list(r.limiters)),  # type: ignore[arg-type]
        text=_step_text(s, f),
    )


def _launch_doc(launch: Launch, f: Fmt) -> LaunchOccupancyDoc:
    return LaunchOccupancyDoc(
        occupancy=_result_doc(launch.occupancy, f, launch.limits), next_steps=[_step_doc(s, f) for s in launch.next_steps],
        what_if=[WhatIfDoc(parameter=vary, rows=[  # type: ignore[arg-type]
            WhatIfRowDoc(value=v, active_blocks_per_sm=o.active_blocks_per_sm, active_warps_per_sm=o.active_warps_per_sm,
                         occupancy_pct=o.occupancy_pct, limiters=list(o.limiters))  # type: ignore[arg-type]
            for v, o in rows]) for vary, rows in launch.what_if.items()],
    )


def _kernel_doc(row: KernelOccupancy, f: Fmt) -> KernelOccupancyDoc:
    k = row.kernel
    return KernelOccupancyDoc(
        name=k.name, demangled_name=k.demangled_name, registers_per_thread=k.registers_per_thread,
        shared_mem_static_bytes=k.shared_mem_static_bytes, barriers=k.barriers, stack_frame_bytes=k.stack_frame_bytes,
        spill_stores_bytes=k.spill_stores_bytes, spill_loads_bytes=k.spill_loads_bytes, spills=k.spills,
        ptxas_warnings=list(k.warnings),
        occupancy=None if row.occupancy is None else _result_doc(row.occupancy, f),
        error=None if row.error is None else str(row.error),
        next_steps=[_step_doc(s, f) for s in row.next_steps],
    )


def occupancy_doc(what: Launch | SourceFile, lang: str = "en") -> OccupancyReportDoc:
    """The ``kernelscope.occupancy/1`` document of one launch configuration or of a ``.cu`` file's kernels."""
    f = Fmt(lang)
    source = None
    if isinstance(what, SourceFile):
        source = SourceOccupancyDoc(
            path=what.path, nvcc_arch=what.nvcc_arch, threads_per_block=what.threads_per_block,
            threads_defaulted=what.threads_defaulted, dynamic_shared_mem_bytes=what.dynamic_shared_mem_bytes,
            kernels=[_kernel_doc(k, f) for k in what.kernels], ptxas_warnings=list(what.ptxas_warnings))
    return OccupancyReportDoc(
        schema=OCCUPANCY_SCHEMA, kernelscope_version=__version__, lang=f.lang,  # type: ignore[arg-type]
        compute_capability=what.compute_capability, architecture=what.limits.architecture,
        limits=_limits_doc(what.limits), launch=_launch_doc(what, f) if isinstance(what, Launch) else None,
        source=source,
    )


def occupancy_json(what: Launch | SourceFile, lang: str = "en") -> str:
    """:func:`occupancy_doc` as JSON text."""
    return encode(occupancy_doc(what, lang))


# ------------------------------------------------------------------------------------------ gpus


def _gpu_doc(g: GpuSpec) -> GpuEntryDoc:
    return GpuEntryDoc(
        name=g.name, aliases=list(g.aliases), architecture=g.architecture, compute_capability=g.compute_capability,
        sm_count=g.sm_count, boost_clock_hz=_finite(g.boost_clock_hz), dram_bandwidth_bytes_per_s=g.dram_bandwidth_bytes_per_s,
        l2_cache_bytes=g.l2_cache_bytes, peak_flops_per_s=dict(g.peak_flops_per_s), sources=dict(g.sources),
    )


def gpus_doc(gpus: Iterable[GpuSpec], lang: str = "en") -> GpusDoc:
    """The ``kernelscope.gpus/1`` document of catalogue GPUs."""
    f = Fmt(lang)
    return GpusDoc(schema=GPUS_SCHEMA, kernelscope_version=__version__, lang=f.lang,  # type: ignore[arg-type]
                   gpus=[_gpu_doc(g) for g in gpus])


def gpus_json(gpus: Iterable[GpuSpec], lang: str = "en") -> str:
    """:func:`gpus_doc` as JSON text."""
    return encode(gpus_doc(gpus, lang))


# ------------------------------------------------------------------------------------------ roofline


def _point_doc(r) -> RooflinePointDoc:
    eff = _finite(r.efficiency)
    return RooflinePointDoc(
        pipe=r.pipe, arithmetic_intensity_flop_per_byte=r.arithmetic_intensity_flop_per_byte,
        achieved_flops_per_s=r.achieved_flops_per_s, peak_flops_per_s=_finite(r.peak_flops_per_s),
        attainable_flops_per_s=_finite(r.attainable_flops_per_s), efficiency_pct=None if eff is None else eff * 100.0,
    )


def _launch_points_doc(lp: LaunchPoints, data: RooflineData) -> RooflineLaunchDoc:
    d, k = lp.diag, lp.diag.kernel
    levels = [] if data.chart != "levels" else [
        LevelPointDoc(level=lv.level, bytes=_finite(lv.bytes), bytes_metric=lv.bytes_metric,  # type: ignore[arg-type]
                      arithmetic_intensity_flop_per_byte=_finite(lv.arithmetic_intensity_flop_per_byte),
                      peak_bytes_per_s=_finite(lv.peak_bytes_per_s), bandwidth_pct=_finite(lv.bandwidth_pct),
                      limiting=limiting)
        for lv, limiting in data.levels]
    return RooflineLaunchDoc(
        index=k.index, name=k.name, demangled_name=k.demangled_name or k.name, duration_s=_finite(k.duration_s),
        gpu_time_share_pct=None if lp.share is None else _finite(lp.share * 100.0), bound=d.bound,  # type: ignore[arg-type]
        pipe=None if d.roofline is None else d.roofline.pipe, points=[_point_doc(r) for r in lp.points],
        not_plotted=lp.not_plotted, levels=levels,
    )


def roofline_doc(data: RooflineData, report: str, lang: str = "en") -> RooflineChartDoc:
    """The ``kernelscope.roofline/1`` document of one chart's data (``report``: the REPORT as given)."""
    f = Fmt(lang)
    ridges = [RidgeDoc(pipes=list(pipes), level=level, arithmetic_intensity_flop_per_byte=peak / bw)  # type: ignore[arg-type]
              for peak, pipes in data.ceilings for level, bw, _ in data.memory]
    return RooflineChartDoc(
        schema=ROOFLINE_SCHEMA, kernelscope_version=__version__, lang=f.lang,  # type: ignore[arg-type]
        report=report, chart=data.chart, gpu=None if data.gpu is None else data.gpu.name, clock_scale=data.clock_scale,
        compute_roofs=[ComputeRoofDoc(pipes=list(pipes), peak_flops_per_s=peak, used=bool(data.used_pipes & set(pipes)))
                       for peak, pipes in data.ceilings],
        memory_roofs=[MemoryRoofDoc(level=level, peak_bytes_per_s=bw, source=source)  # type: ignore[arg-type]
                      for level, bw, source in data.memory],
        ridge_points=ridges, launches=[_launch_points_doc(lp, data) for lp in data.launches],
    )


def roofline_json(data: RooflineData, report: str, lang: str = "en") -> str:
    """:func:`roofline_doc` as JSON text."""
    return encode(roofline_doc(data, report, lang))

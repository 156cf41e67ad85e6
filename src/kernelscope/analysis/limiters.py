"""Which unit limits a kernel: compute by pipe, memory by level.

Speed-of-Light compute and memory throughput are each the maximum of a breakdown of per-unit sub-metrics
(``KernelProfile.compute_breakdown_pct`` / ``memory_breakdown_pct``; the units they measure are
``data/units.toml``). The busiest unit of each side names what limits the kernel: "compute-bound" on the FMA pipe
is an arithmetic limit, "compute-bound" on the LSU pipe is a memory-instruction limit (too many load/store
instructions), and the same LSU pipe on both sides is ONE unit, not a balanced kernel.

The memory hierarchy by level (L1/TEX, shared memory, L2, DRAM): each level's throughput (% of its peak), the
bytes it moved, its hit rate, and the arithmetic intensity against it (the hierarchical roofline: FLOP per byte
at each level; Nsight Compute Kernel Profiling Guide, "Roofline Charts", hierarchical roofline), with the level's
peak bandwidth as the report itself measures it, so that each level has a ceiling (:data:`TRAFFIC`). A level's
bytes and its peak always come from ONE counter (a point and its ceiling measure the same traffic):

    bytes             counter x bytes per count                                    [B]
    peak bandwidth    counter.peak_sustained x bytes per count x the unit's clock  [B/s]
                      (or, without those, bytes / duration / (counter.pct_of_peak_sustained_elapsed / 100))
    bandwidth %       bytes / duration / peak bandwidth x 100   (how close the level's point is to its ceiling)

The counters are those of Nsight Compute's own hierarchical roofline sections where a report holds them
(``SpeedOfLight_Hierarchical{Single,Double,Half,Tensor}RooflineChart.section``: L1 = LSU writeback cycles x 128 B
with ``l1tex__cycles_elapsed.avg.per_second``; DRAM = ``dram__bytes.sum.peak_sustained`` x
``dram__cycles_elapsed.avg.per_second``), and the L2 tag-stage sectors x 32 B (``lts__t_bytes``, the L2 level of
the NERSC hierarchical roofline: Yang, Kurth & Williams, "Hierarchical Roofline analysis for GPUs", CCPE 2020).
Sectors are 32 B (Nsight Compute Kernel Profiling Guide, "Memory Workload Analysis").

Pure functions over :class:`~kernelscope.model.KernelProfile`; metrics are read by exact name (:data:`INPUTS`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from ..knowledge.units import by_metric, unit_of
from ..model import KernelProfile
from ..notes import quick_init

#: Bytes per L1/L2/DRAM sector.
SECTOR_BYTES = 32

L1_SECTORS = tuple(f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}.sum"
                   for space, ops in (("global", ("ld", "st", "atom", "red")), ("local", ("ld", "st"))) for op in ops)
LEVEL_METRICS = {
    "l1": {"pct": "l1tex__throughput.avg.pct_of_peak_sustained_active", "hit": "l1tex__t_sector_hit_rate.pct"},
    "shared": {"pct": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"},
    "l2": {"pct": "lts__throughput.avg.pct_of_peak_sustained_elapsed", "hit": "lts__t_sector_hit_rate.pct",
           "sectors": "lts__t_sectors.sum"},
}


@dataclass(frozen=True)
class Traffic:
    """One Nsight Compute counter of a level's traffic, with what turns it into bytes and a peak bandwidth.

    Attributes:
        counter: the count, e.g. ``"l1tex__lsu_writeback_active_mem_lg.sum"`` (cycles), ``"lts__t_sectors.sum"``.
        bytes_per_count: bytes per unit of the count (128 per L1 writeback cycle, 32 per sector, 1 per byte).
        clock: the unit's clock (``<unit>__cycles_elapsed.avg.per_second``, Hz) that turns the per-cycle peak
            ``<counter>.peak_sustained`` into bytes per second.
        same_pct: other metrics equal to the counter's % of peak, tried after its own (L2: the average over the
            L2 slices, ``lts__t_sectors.avg.pct_of_peak_sustained_elapsed``: every slice has the same peak, so the
            average's % is the sum's %; equal to it in every corpus report that holds both).
    """

    counter: str
    bytes_per_count: float
    clock: str
    same_pct: tuple[str, ...] = ()

    @property
    def peak(self) -> str:
        """The counter's sustained peak per cycle of its unit (``<counter>.peak_sustained``)."""
        return self.counter + ".peak_sustained"

    @property
    def pcts(self) -> tuple[str, ...]:
        """The counter as % of that peak over the elapsed cycles (``<counter>.pct_of_peak_sustained_elapsed``),
        then ``same_pct``."""
        return (self.counter + ".pct_of_peak_sustained_elapsed", *self.same_pct)


#: The traffic counter of each level, best first; the first one the report counts gives the level's bytes and peak.
#: L1: the LSU writeback data path, 128 B per active cycle, local/global (+ distributed shared, ``_mem_lgds``, in
#: Nsight Compute 2024+): the L1 level of Nsight Compute's hierarchical roofline (``derived__l1tex__lsu_writeback_
#: bytes_mem_lg.sum.peak_sustained = l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained * 128``); it counts the
#: data returned to the SM (loads, atomics), not stores. L2: tag-stage sectors (every L2 access) x 32 B. DRAM:
#: ``dram__bytes`` (read + write), the DRAM level of Nsight Compute's roofline sections.
TRAFFIC: dict[str, tuple[Traffic, ...]] = {
    "l1": (Traffic("l1tex__lsu_writeback_active_mem_lgds.sum", 128.0, "l1tex__cycles_elapsed.avg.per_second"),
           Traffic("l1tex__lsu_writeback_active_mem_lg.sum", 128.0, "l1tex__cycles_elapsed.avg.per_second")),
    "l2": (Traffic("lts__t_sectors.sum", float(SECTOR_BYTES), "lts__cycles_elapsed.avg.per_second",
                   ("lts__t_sectors.avg.pct_of_peak_sustained_elapsed",)),),
    "dram": (Traffic("dram__bytes.sum", 1.0, "dram__cycles_elapsed.avg.per_second"),),
}
#: What the L1 bytes are when the report has no writeback counter (no peak is measured for these sectors).
L1_SECTORS_NAME = "l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_*.sum"
#: The global sectors LDGSTS (``cp.async``, CC 8.0+) moves through the L1 into shared memory, L1-cached and
#: bypassing (Nsight Compute's Memory Workload Analysis tables). The LSU writeback counter never sees them: the data
#: goes to shared memory, not back to registers. Where a launch's copies went this way its L1 bytes are the
#: writeback's plus these sectors x 32 B (a flash-attention forward: 4.6 MB of writeback beside 805 MB of LDGSTS
#: sectors), and, two counters of different peaks summed, the level has no measured peak.
L1_ASYNC_SECTORS = ("sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
                    "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum")
L1_ASYNC_NAME = "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_{access,bypass}.sum"
#: Warp instructions of TMA loads (Hopper and later): they too write shared memory, never registers, and no counter
#: read here measures their L1 traffic, so a launch that issues them has its L1 bytes not measured (the writeback's
#: alone would overstate the L1 intensity by as much as the copies outweigh the register loads).
L1_TMA_LOADS = ("smsp__inst_executed_op_tma_ld.sum", "smsp__sass_inst_executed_op_tma_ld.sum")
#: Every metric name this module reads from ``KernelProfile.metrics``.
INPUTS: tuple[str, ...] = (
    *L1_SECTORS, *L1_ASYNC_SECTORS, *L1_TMA_LOADS, *(m for level in LEVEL_METRICS.values() for m in level.values()),
    *(n for ts in TRAFFIC.values() for t in ts for n in (t.counter, t.peak, *t.pcts, t.clock)),
)


@dataclass(frozen=True)
class UnitLoad:
    """How busy one hardware unit was.

    Attributes:
        unit: the unit's id in ``data/units.toml`` (``"lsu"``, ``"fma"``, ``"l2"`` ...), or None for a breakdown
            metric the file does not know (a newer Nsight Compute): ``metric`` names it then.
        side: ``"compute"`` or ``"memory"``.
        kind: what a limit there means (``math``, ``memory_instructions``, ``issue``, ``control``, ``l1``, ``l2``,
            ``dram``, ``interconnect``), or None for an unknown metric.
        metric: the busiest sub-metric of that unit.
        pct: its value, % of peak (0-100).
    """

    unit: str | None
    side: str
    kind: str | None
    metric: str
    pct: float


@quick_init
@dataclass(frozen=True)
class MemoryLevel:
    """One level of the memory hierarchy for one launch. None = not measured (the report lacks the metrics).

    Attributes:
        level: ``"l1"``, ``"shared"``, ``"l2"`` or ``"dram"``.
        throughput_pct: the level's throughput, % of its peak (0-100), Nsight Compute's Speed-of-Light value.
        bytes: bytes moved at that level, from the counter ``bytes_metric`` (:data:`TRAFFIC`): L1 = LSU writeback
            cycles x 128 B (plus the LDGSTS sectors x 32 B of a launch that copies with ``cp.async``; else global +
            local sectors x 32 B), L2 = L2 sectors x 32 B, DRAM = read + write bytes.
        hit_rate_pct: cache hit rate (L1, L2), % (0-100).
        arithmetic_intensity_flop_per_byte: the launch's FLOPs / ``bytes`` (hierarchical roofline).
        peak_bytes_per_s: the level's peak bandwidth for that same counter, bytes/s, from the report's own
            metrics (``peak_from`` says how); None when the report does not measure it (never a datasheet guess).
        bandwidth_pct: bytes / duration / ``peak_bytes_per_s`` x 100 (0-100): how close the level's point on the
            hierarchical roofline is to its bandwidth ceiling; None without bytes, duration or peak.
        bytes_metric: the Nsight Compute counter ``bytes`` (and the peak) stand for, or None without bytes.
        peak_from: ``"peak_sustained"`` (counter.peak_sustained x bytes per count x the unit's clock) or
            ``"pct_of_peak"`` (bytes / duration / counter.pct_of_peak_sustained_elapsed); None without a peak.
    """

    level: str
    throughput_pct: float | None
    bytes: float | None
    hit_rate_pct: float | None
    arithmetic_intensity_flop_per_byte: float | None
    peak_bytes_per_s: float | None = None
    bandwidth_pct: float | None = None
    bytes_metric: str | None = None
    peak_from: str | None = None


def unit_loads(breakdown: Mapping[str, float], side: str) -> tuple[UnitLoad, ...]:
    """The units of one side, busiest first: each unit's load is the largest of its sub-metrics."""
    known = by_metric()
    best: dict[str, UnitLoad] = {}
    for metric, pct in breakdown.items():
        u = known.get(metric)
        key = u.id if u is not None else metric
        if key not in best or pct > best[key].pct:
            best[key] = UnitLoad(u.id if u else None, side, u.kind if u else None, metric, pct)
    return tuple(sorted(best.values(), key=lambda x: -x.pct))


@quick_init
@dataclass(frozen=True)
class Limiters:
    """The busiest units of a launch, each side busiest first (empty when the breakdown was not collected)."""

    compute: tuple[UnitLoad, ...]
    memory: tuple[UnitLoad, ...]

    @property
    def top_compute(self) -> UnitLoad | None:
        """The busiest compute unit, or None."""
        return self.compute[0] if self.compute else None

    @property
    def top_memory(self) -> UnitLoad | None:
        """The busiest memory unit, or None."""
        return self.memory[0] if self.memory else None

    def same_unit(self) -> bool:
        """True when the busiest compute and memory units are the same hardware (the LSU pipe on both sides)."""
        c, m = self.top_compute, self.top_memory
        return c is not None and m is not None and c.unit is not None and c.unit == m.unit


#: The whole L1/TEX cache's throughput, % of its peak over its ACTIVE cycles (Nsight's "L1/TEX Cache Throughput").
L1_TOTAL = "l1tex__throughput.avg.pct_of_peak_sustained_active"
#: Active and elapsed cycles that bring it to the elapsed time: the L1's own, else the SMs', else the SMs' active
#: cycles over the GPCs' elapsed ones (Speed of Light's "SM Active Cycles" and "Elapsed Cycles", which every report
#: with that section holds; the SMs run on the GPC clock: sm__cycles_elapsed.avg is 0.988-1.000 of
#: gpc__cycles_elapsed.max in the corpus reports that hold both, and where a report lacks the first two pairs this
#: one brings l1tex__throughput to within 0.2 points of the busiest L1 sub-metric of a complete breakdown).
L1_CYCLES = (("l1tex__cycles_active.avg", "l1tex__cycles_elapsed.avg"), ("sm__cycles_active.avg", "sm__cycles_elapsed.avg"),
             ("sm__cycles_active.avg", "gpc__cycles_elapsed.max"))


def l1_total_elapsed(kernel: KernelProfile) -> tuple[float, float | None] | None:
    """(average, busiest SM) of the whole L1/TEX cache's throughput as % of its peak over the ELAPSED cycles: Nsight
    Compute's ``l1tex__throughput`` (the busiest of all its stages, the tag stage of uncoalesced accesses and the data
    banks of conflicting shared accesses among them, which the Speed-of-Light breakdown does not all list) measured
    over the L1's active cycles, times active / elapsed cycles (:data:`L1_CYCLES`); the busiest SM from its ``.max``
    twin likewise (None when absent). None when the throughput or the cycles were not measured."""
    m = kernel.metrics
    pct = m.get(L1_TOTAL)
    if pct is None or not math.isfinite(pct):
        return None
    for active_name, elapsed_name in L1_CYCLES:
        active, elapsed = m.get(active_name), m.get(elapsed_name)
        if active is not None and elapsed and elapsed > 0 and math.isfinite(active):
            ratio = min(1.0, max(0.0, active / elapsed))
            hot = m.get(L1_TOTAL.replace(".avg.", ".max."))
            return pct * ratio, (hot * ratio if hot is not None and math.isfinite(hot) else None)
    return None


def limiters(kernel: KernelProfile) -> Limiters:
    """The launch's busiest units on both sides; on the memory side the whole L1/TEX cache over the elapsed cycles
    (:func:`l1_total_elapsed`) counts as the L1 unit's load when it is the busier figure, so that the L1 shows one
    figure everywhere."""
    memory = dict(kernel.memory_breakdown_pct)
    total = l1_total_elapsed(kernel)
    if total is not None and memory:  # (without a breakdown the Speed-of-Light memory figure stands for the side)
        memory[L1_TOTAL] = total[0]
    return Limiters(unit_loads(kernel.compute_breakdown_pct, "compute"), _with_l2_total(unit_loads(memory, "memory"), kernel))


def _with_l2_total(loads: tuple[UnitLoad, ...], kernel: KernelProfile) -> tuple[UnitLoad, ...]:
    """The L2 unit's load as its whole throughput (``lts__throughput``, the busiest of all its stages: the figure the
    memory-levels line prints for the L2) when that is the busier figure, so that the L2 shows one figure everywhere
    (like the L1, :func:`limiters`); the loads re-sorted, busiest first. Unchanged without an L2 breakdown entry."""
    pct = kernel.metrics.get(LEVEL_METRICS["l2"]["pct"])
    if pct is None or not math.isfinite(pct):
        return loads
    out = tuple(UnitLoad(x.unit, x.side, x.kind, LEVEL_METRICS["l2"]["pct"], pct)
                if x.unit == "l2" and pct > x.pct else x for x in loads)
    return tuple(sorted(out, key=lambda x: -x.pct))


def _l1_elapsed_pct(kernel: KernelProfile) -> float | None:
    """The L1's % of peak over the elapsed cycles without the cycles to convert its active-cycle throughput: its
    busiest Speed-of-Light breakdown sub-metric (:func:`_l1_sub_metrics_pct`); the active-cycle figure only when the
    breakdown has none (it overstates an L1 active part of the time)."""
    subs = _l1_sub_metrics_pct(kernel)
    return subs if subs is not None else kernel.metrics.get(LEVEL_METRICS["l1"]["pct"])


def _l1_sub_metrics_pct(kernel: KernelProfile) -> float | None:
    """The busiest Speed-of-Light breakdown sub-metric of the L1 unit (``data/units.toml``; all over the elapsed
    cycles), None when the breakdown has none: the L1's figure in the Busiest-units row where it is the busier one."""
    known = by_metric()  # the L1's own sub-metrics: not its LSU input requests, the LSU pipe's load (unit "lsu")
    elapsed = [v for name, v in kernel.memory_breakdown_pct.items() if name.startswith("l1tex__") and math.isfinite(v)
               and (name not in known or known[name].id == "l1")]
    return max(elapsed) if elapsed else None


def memory_levels(kernel: KernelProfile, flops: float | None) -> tuple[MemoryLevel, ...]:
    """L1, shared, L2 and DRAM, each with what the profile measured of it; ``flops`` (FLOP, or None) gives the
    arithmetic intensity per level. Levels with nothing measured are left out.

    Bytes and peak bandwidth per level come from one counter of :data:`TRAFFIC` (the first the report counts);
    L1 without a writeback counter falls back to the global + local sectors x 32 B, which have no measured peak; L1
    of a launch whose LDGSTS copies moved sectors adds them to the writeback's bytes (:data:`L1_ASYNC_SECTORS`, no
    measured peak either); L1 of a launch that issues TMA loads has no bytes (:data:`L1_TMA_LOADS`).
    A level shown for its throughput % alone still gets the peak its counter's ``.peak_sustained`` x clock gives
    (DRAM without byte counts); the %-of-peak route needs the bytes. All values in SI units (bytes, bytes/s); pure.
    """
    m = kernel.metrics
    l1_sectors = [m[n] for n in L1_SECTORS if n in m]
    l1 = _traffic(kernel, TRAFFIC["l1"])
    if l1 is None and l1_sectors:
        l1 = (SECTOR_BYTES * sum(l1_sectors), L1_SECTORS_NAME, None)
    elif l1 is not None:
        async_sectors = sum(v for n in L1_ASYNC_SECTORS if (v := _value(kernel, n, "count")) is not None and v > 0)
        if async_sectors > 0:
            l1 = (l1[0] + SECTOR_BYTES * async_sectors,
                  f"{l1[1]} x {l1[2].bytes_per_count:g} B + {L1_ASYNC_NAME} x {SECTOR_BYTES} B", None)
    if any((v := _value(kernel, n, "count")) is not None and v > 0 for n in L1_TMA_LOADS):
        l1 = None
    l2 = _traffic(kernel, TRAFFIC["l2"])
    dram_t = TRAFFIC["dram"][0]
    dram = (kernel.dram_bytes, None if kernel.dram_bytes is None else _dram_name(kernel), dram_t)
    total = l1_total_elapsed(kernel)
    subs = _l1_sub_metrics_pct(kernel)
    # (the L1 unit's load as the Busiest-units row takes it: the whole cache over the elapsed cycles when it is the
    # busier figure, else its busiest sub-metric; without the cycles, :func:`_l1_elapsed_pct`)
    l1_pct = _l1_elapsed_pct(kernel) if total is None else max(total[0], subs if subs is not None else total[0])
    raw = (
        ("l1", l1_pct, l1, m.get(LEVEL_METRICS["l1"]["hit"])),
        ("shared", None if kernel.launch.no_shared_memory else m.get(LEVEL_METRICS["shared"]["pct"]), None, None),
        ("l2", m.get(LEVEL_METRICS["l2"]["pct"]), l2, m.get(LEVEL_METRICS["l2"]["hit"])),
        ("dram", kernel.dram_throughput_pct, dram, None),
    )
    out = []
    for level, pct, traffic, hit in raw:
        nbytes, name, source = traffic if traffic is not None else (None, None, None)
        if pct is None and nbytes is None:
            continue
        ai = flops / nbytes if flops is not None and nbytes else None
        peak = _peak(kernel, source, nbytes) if source is not None else None
        d = kernel.duration_s
        share = nbytes / d / peak[0] * 100.0 if peak is not None and nbytes is not None and d and d > 0 else None
        out.append(MemoryLevel(level, pct, nbytes, hit, ai, None if peak is None else peak[0], share, name,
                               None if peak is None else peak[1]))
    return tuple(out)


def nearest_ceiling(levels: tuple[MemoryLevel, ...]) -> MemoryLevel | None:
    """The level whose point on the hierarchical roofline is closest to its bandwidth ceiling (highest
    ``bandwidth_pct``): the memory level that limits the launch there; None when no level has a measured peak.

    A level's point is (FLOP / bytes, FLOP / duration) and its ceiling at that intensity is FLOP / bytes x peak, so
    the point's height over its ceiling is bytes / duration / peak: ``bandwidth_pct`` / 100, whatever the FLOPs.
    """
    measured = [lv for lv in levels if lv.bandwidth_pct is not None]
    return max(measured, key=lambda lv: lv.bandwidth_pct) if measured else None  # type: ignore[arg-type,return-value]


def binding_roof(levels: tuple[MemoryLevel, ...], compute_pct: float | None,
                 near_pct: float) -> tuple[str | None, MemoryLevel | None]:
    """The roof of a launch's hierarchical roofline that binds it: ``("memory", level)`` for the level nearest its
    ceiling (:func:`nearest_ceiling`) where the launch is at least as near it as to its compute roof
    (``compute_pct``: achieved FLOP/s, % of the pipe's peak), ``("compute", level)`` where the compute roof is the
    nearer; either only where the nearer roof is at ``near_pct`` % or more (Nsight Compute's SOLBottleneck rule: both
    below 60 % indicate latency issues, ``latency_sol_pct``). Else ``(None, level)``: no roof binds (a latency- or
    launch-bound launch), the nearest level given for its figure. ``level``: None without a measured peak."""
    near = nearest_ceiling(levels)
    memory = near.bandwidth_pct if near is not None else None
    top = max((v for v in (memory, compute_pct) if v is not None), default=None)
    if top is None or top < near_pct:
        return None, near
    return ("memory" if memory is not None and memory >= (compute_pct or 0.0) else "compute"), near


# ----------------------------------------------------------------------------------------- units of the counters

_PREFIX = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
#: Clock units, lower-case, to Hz (Nsight Compute stores "hz"; ``ncu --csv`` prints "Ghz", "cycle/nsecond" ...).
_HZ = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9, "cycle/second": 1.0, "cycle/msecond": 1e3,
       "cycle/usecond": 1e6, "cycle/nsecond": 1e9}
_COUNT_UNIT = re.compile(r"([KkMGT]?)(byte|sector|cycle)s?")


def _count_factor(unit: str, per_cycle: bool) -> float | None:
    """The factor of a count unit ("cycle", "sector", "Kbyte", none; with ``per_cycle`` also "byte/cycle") to
    plain counts (decimal prefixes, as Nsight Compute prints them), or None for a unit it does not know."""
    u = unit.strip()
    if per_cycle and u.endswith("/cycle"):
        u = u[: -len("/cycle")]
    if u == "":
        return 1.0
    match = _COUNT_UNIT.fullmatch(u)
    return _PREFIX[match.group(1)] if match else None


def _value(kernel: KernelProfile, name: str, kind: str) -> float | None:
    """A metric as a plain count (``kind`` "count"), count per cycle ("per_cycle"), Hz ("hz") or % ("pct"); None
    when absent, not finite or in a unit not known for that kind (a wrong scale is never applied)."""
    v = kernel.metrics.get(name)
    if v is None or not math.isfinite(v):
        return None
    unit = kernel.metric_units.get(name, "").strip()
    if kind == "hz":
        factor = _HZ.get(unit.lower())
    elif kind == "pct":
        factor = 1.0 if unit in ("%", "") else None
    else:
        factor = _count_factor(unit, kind == "per_cycle")
    return None if factor is None else v * factor


def _traffic(kernel: KernelProfile, sources: tuple[Traffic, ...]) -> tuple[float, str, Traffic] | None:
    """(bytes, counter name, the counter) of the first of ``sources`` the report counts, or None."""
    for t in sources:
        count = _value(kernel, t.counter, "count")
        if count is not None and count >= 0:
            return count * t.bytes_per_count, t.counter, t
    return None


def _peak(kernel: KernelProfile, t: Traffic, nbytes: float | None) -> tuple[float, str] | None:
    """The peak bandwidth (bytes/s) of counter ``t`` and how it was found: its ``.peak_sustained`` per cycle x
    bytes per count x the unit's clock (Nsight Compute's roofline ceilings), else ``nbytes`` / duration / (its
    ``.pct_of_peak_sustained_elapsed`` / 100) (the same peak: the % is the count over peak x elapsed cycles;
    needs the bytes)."""
    per_cycle, clock = _value(kernel, t.peak, "per_cycle"), _value(kernel, t.clock, "hz")
    if per_cycle is not None and clock is not None and per_cycle > 0 and clock > 0:
        return per_cycle * t.bytes_per_count * clock, "peak_sustained"
    d = kernel.duration_s
    pct = next((v for n in t.pcts if (v := _value(kernel, n, "pct")) is not None), None)
    if pct is not None and pct > 0 and nbytes is not None and nbytes > 0 and d is not None and d > 0:
        return nbytes / d / (pct / 100.0), "pct_of_peak"
    return None


def _dram_name(kernel: KernelProfile) -> str:
    """The counter(s) ``KernelProfile.dram_bytes`` stands for."""
    if kernel.dram_bytes_read is not None and kernel.dram_bytes_write is not None:
        return "dram__bytes_read.sum + dram__bytes_write.sum"
    return "dram__bytes.sum"


def limiting_level(levels: tuple[MemoryLevel, ...]) -> MemoryLevel | None:
    """The level closest to its peak (highest throughput %), or None when no level's throughput was measured."""
    measured = [lv for lv in levels if lv.throughput_pct is not None]
    return max(measured, key=lambda lv: lv.throughput_pct) if measured else None  # type: ignore[arg-type,return-value]


def _shown_id(u: UnitLoad) -> str:
    """The unit a load is shown as: its unit, else the unit its counter belongs to, else the counter."""
    if u.unit:
        return u.unit
    named = unit_of(u.metric, u.side)
    return named.id if named is not None else u.metric


def _once(loads: tuple[UnitLoad, ...]) -> tuple[UnitLoad, ...]:
    """One load per shown unit (the larger figure: the L1's sub-metric and its whole throughput), busiest first."""
    best: dict[str, UnitLoad] = {}
    for u in loads:
        key = _shown_id(u)
        if key not in best or u.pct > best[key].pct:
            best[key] = u
    return tuple(sorted(best.values(), key=lambda x: -x.pct))


def ranking(lim: Limiters, units: Any = None) -> tuple[tuple[UnitLoad, ...], tuple[UnitLoad, ...]]:
    """(compute, memory): the busiest units of each side as the panel prints them, busiest first, one load per unit.
    The compute side gets the model's busiest tensor data path counter (``sm__ops_path_tensor_src_*``, what a
    tensor-bound finding names) when the Speed-of-Light breakdown leaves it out, also when the profile has no
    breakdown at all (a console report: that counter is then the only unit measured, the one the advice names). A
    unit both sides measure (the LSU pipe: its issue on the compute side, the L1's LSU input requests on the memory
    side; the L1: its internal activity and its throughput) is shown once, on the side where its load is the larger
    (the compute side on a tie), so that an idle figure of a unit never hides its busy one; a side left with nothing
    keeps its units."""
    compute = tuple(lim.compute)
    tensor = max(units.of("tensor"), key=lambda c: c.busy, default=None) if units is not None else None
    if tensor is not None and not any(u.unit == "tensor" and u.pct >= 100 * tensor.busy for u in compute):
        compute += (UnitLoad(unit="tensor", side="compute", kind="math", metric=tensor.metric, pct=100 * tensor.busy),)
    compute, memory = _once(compute), _once(tuple(lim.memory))
    load = {side: {_shown_id(u): u.pct for u in loads} for side, loads in (("compute", compute), ("memory", memory))}
    compute = tuple(u for u in compute if load["memory"].get(_shown_id(u), -1.0) <= u.pct) or compute
    memory = tuple(u for u in memory if load["compute"].get(_shown_id(u), -1.0) < u.pct) or memory
    return compute, memory


def busiest_shown(lim: Limiters, units: Any = None) -> UnitLoad | None:
    """The busiest unit of either side of :func:`ranking` (the first unit of the busier side), or None."""
    tops = [side[0] for side in ranking(lim, units) if side]
    return max(tops, key=lambda x: x.pct) if tops else None

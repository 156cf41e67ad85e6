"""Which unit limits a kernel: compute by pipe, memory by level.

Speed-of-Light compute and memory throughput are each the maximum of a breakdown of per-unit sub-metrics
(``KernelProfile.compute_breakdown_pct`` / ``memory_breakdown_pct``; the units they measure are
``data/units.toml``). The busiest unit of each side names what limits the kernel: "compute-bound" on the FMA pipe
is an arithmetic limit, "compute-bound" on the LSU pipe is a memory-instruction limit (too many load/store
instructions), and the same LSU pipe on both sides is ONE unit, not a balanced kernel.

The memory hierarchy by level (L1/TEX, shared memory, L2, DRAM): each level's throughput (% of its peak), the
bytes it moved, its hit rate, and the arithmetic intensity against it (the hierarchical roofline: FLOP per byte
at each level; Nsight Compute Kernel Profiling Guide, "Roofline Charts", hierarchical roofline). Bytes come from
sector counts (32 B per sector: Nsight Compute Kernel Profiling Guide, "Memory Workload Analysis", sectors).

Pure functions over :class:`~kernelscope.model.KernelProfile`; metrics are read by exact name (:data:`INPUTS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..knowledge.units import by_metric
from ..model import KernelProfile

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
#: Every metric name this module reads from ``KernelProfile.metrics``.
INPUTS: tuple[str, ...] = (*L1_SECTORS, *(m for level in LEVEL_METRICS.values() for m in level.values()))


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


@dataclass(frozen=True)
class MemoryLevel:
    """One level of the memory hierarchy for one launch. None = not measured.

    Attributes:
        level: ``"l1"``, ``"shared"``, ``"l2"`` or ``"dram"``.
        throughput_pct: the level's throughput, % of its peak (0-100).
        bytes: bytes moved at that level (sectors x 32 B; DRAM: read + write bytes).
        hit_rate_pct: cache hit rate (L1, L2), % (0-100).
        arithmetic_intensity_flop_per_byte: the launch's FLOPs / ``bytes`` (hierarchical roofline).
    """

    level: str
    throughput_pct: float | None
    bytes: float | None
    hit_rate_pct: float | None
    arithmetic_intensity_flop_per_byte: float | None


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


def limiters(kernel: KernelProfile) -> Limiters:
    """The launch's busiest units on both sides."""
    return Limiters(unit_loads(kernel.compute_breakdown_pct, "compute"),
                    unit_loads(kernel.memory_breakdown_pct, "memory"))


def memory_levels(kernel: KernelProfile, flops: float | None) -> tuple[MemoryLevel, ...]:
    """L1, shared, L2 and DRAM, each with what the profile measured of it; ``flops`` (FLOP, or None) gives the
    arithmetic intensity per level. Levels with nothing measured are left out."""
    m = kernel.metrics
    l1_sectors = [m[n] for n in L1_SECTORS if n in m]
    l2_sectors = m.get(LEVEL_METRICS["l2"]["sectors"])
    raw = (
        ("l1", m.get(LEVEL_METRICS["l1"]["pct"]), SECTOR_BYTES * sum(l1_sectors) if l1_sectors else None,
         m.get(LEVEL_METRICS["l1"]["hit"])),
        ("shared", m.get(LEVEL_METRICS["shared"]["pct"]), None, None),
        ("l2", m.get(LEVEL_METRICS["l2"]["pct"]), None if l2_sectors is None else SECTOR_BYTES * l2_sectors,
         m.get(LEVEL_METRICS["l2"]["hit"])),
        ("dram", kernel.dram_throughput_pct, kernel.dram_bytes, None),
    )
    out = []
    for level, pct, nbytes, hit in raw:
        if pct is None and nbytes is None:
            continue
        ai = flops / nbytes if flops is not None and nbytes else None
        out.append(MemoryLevel(level, pct, nbytes, hit, ai))
    return tuple(out)


def limiting_level(levels: tuple[MemoryLevel, ...]) -> MemoryLevel | None:
    """The level closest to its peak (highest throughput %), or None when no level's throughput was measured."""
    measured = [lv for lv in levels if lv.throughput_pct is not None]
    return max(measured, key=lambda lv: lv.throughput_pct) if measured else None  # type: ignore[arg-type,return-value]

"""The performance model behind every estimate: a launch as units with busy shares, a finding as a change of work.

Every estimated speedup kernelscope prints comes from this module, never from a formula of its own rule, so that no
fix can look bigger than the kernel's own bounds allow.

**Units.** A launch is described by the hardware units the report measured, each with the share of the kernel's
elapsed time it was busy (:class:`Counter`, 0-1): every sub-metric of the Speed-of-Light breakdowns (instruction
issue and each SM pipe; L1/TEX, the L1-L2 interconnect, L2, the L2 atomic unit, DRAM: ``data/units.toml``), the
shared-memory part of the L1 data pipe (``l1tex__data_pipe_lsu_wavefronts_mem_shared``), and for each the busiest
instance (SM, L2 slice, DRAM channel) where the report holds the ``.max`` twin of the ``.avg`` metric, the whole
L1/TEX cache (``l1tex__throughput``, brought to the elapsed cycles) and the tensor cores per data path
(``sm__ops_path_tensor_src_*``, each against its own peak); without a
breakdown, the Speed-of-Light compute or memory throughput itself (the maximum over that side's units). Plus the
idle SM time (share of SM cycles with no warp resident: 1 - ``sm__cycles_active`` / ``sm__cycles_elapsed``), and the
warp-cycle shares of the stall reasons (:mod:`.stalls`). All from what the report measured; a unit it did not
measure is absent, never guessed.

**A finding is a change** (:class:`Change`): the fraction of each unit's work it removes (bank conflicts: the
conflict wavefronts of shared memory; uncoalescing: the excess sectors at L1 and L2; spills: the local sectors and
their instructions; ...), the idle SM time it recovers (tail, imbalance, a small grid: one pool), or the waiting it
hides (a stall reason's share of the warp cycles, more resident warps). The model turns a change into the new time
T' (as a share of the measured time T):

    busy after    b'_c = b_c x (1 - f_c) for every counter c (its busiest instance likewise)
    floor         F = max_c b'_c    (no unit can be busier than the whole time; the busiest instance when the work
                                     stays where it is, the average when the change spreads it over the instances)
    time saved    s = what the busiest unit loses, or what another unit loses x (1 - the busiest unit's share),
                  whichever is larger (of the busiest instances) + idle recovered + waiting hidden
                  (Nsight Compute's model for a unit: the waste's share of the unit's work x how busy the unit is,
                  e.g. its SharedMemoryConflicts and ThreadDivergence rules; a unit less busy than the busiest one
                  overlaps with it, so only the time the busiest leaves uncovered can shrink; hidden waiting after
                  Little's law: with the same warps, a warp that waits a share w less of its cycles issues
                  1 / (1 - w) times as often)
    new time      T' / T = max(1 - s, F)         speedup = T / T'

so every estimate respects 100 / the busiest unit the change does not relieve (and what is left of the units it
does). An estimate is a **prediction** when the change is a definite one whose work the report counts (pad the
array: the conflict wavefronts go) or an **upper bound** when it is an ideal (all idle SM time recovered, a stall
reason hidden completely, every lane of every warp used): :data:`PREDICTION`, :data:`UPPER_BOUND`.

**Findings that remove the same work share it.** :func:`.advice_order.rank_and_share` orders a launch's findings by a
conservative value (an upper bound counts by its geometric midpoint between no gain and the bound, so it never
outranks a prediction it cannot beat; gains below ``min_worthwhile_speedup`` go last) and gives each finding its
marginal gain after the ones ranked above it (the model applied to their changes together): the first line is the
finding's own estimate, the gains multiply to what doing all of them gives, and the kernel time they save sums to
at most that, never more than the kernel's share of the GPU time.

Pure functions over frozen dataclasses; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from ..knowledge.metrics import hottest_twin
from ..knowledge.units import by_metric
from ..model import KernelProfile
from .limiters import L1_CYCLES, L1_TOTAL, l1_total_elapsed

#: An estimate of a definite change whose work the report counts.
PREDICTION = "prediction"
#: An estimate of an ideal change: the most it can give ("at most 1.50x").
UPPER_BOUND = "upper_bound"
#: The smallest share of the measured time a change can leave (an estimate never claims the kernel vanishes).
MIN_TIME_SHARE = 0.05

#: The shared-memory part of the L1 data pipe (wavefronts of shared loads, stores and atomics), % of the pipe's peak.
SHARED_PCT = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"
#: The whole L1 data pipe (shared and global/local wavefronts): the sub-metric of the L1 unit the shared part is of.
DATA_PIPE_PCT = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"
SHARED_UNIT = "shared"
#: Stall reasons that are a wait on a latency, which more resident warps overlap (Nsight Compute Kernel Profiling
#: Guide, "Warp Stall Reasons"): not the issuing or ready ones (selected, not selected), not the full queues or busy
#: pipes (MIO / LG / TEX throttle, math pipe throttle, dispatch), not the end of the kernel (drain) or a sleep.
HIDEABLE = frozenset({"long_scoreboard", "short_scoreboard", "wait", "barrier", "membar", "no_instruction", "imc_miss",
                      "branch_resolving"})
#: The tensor cores' work per data path, % of that path's peak (``sm__ops_path_tensor_src_*``).
TENSOR_PATHS = "sm__ops_path_tensor_src_"
SOL_COMPUTE = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
SOL_MEMORY = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
#: SM cycles with at least one warp resident, and all SM cycles (per SM: .avg; over the SMs: .sum).
#: The tensor pipe's utilisation over the elapsed and over the SMs' active cycles (:func:`_fallback_counters`).
TENSOR_ELAPSED = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
TENSOR_ACTIVE = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"
#: DRAM throughput derived from the DRAM bytes, the duration and the spec's bandwidth (the roofline point's).
DRAM_DERIVED = "dram__bytes.sum / gpu__time_duration.sum / dram_bandwidth (derived)"
SM_ACTIVE = ("sm__cycles_active.avg", "sm__cycles_active.sum")
SM_ELAPSED = ("sm__cycles_elapsed.avg", "sm__cycles_elapsed.sum")
#: Every metric this module reads besides the Speed-of-Light breakdowns (and their ``.max`` twins).
INPUTS: tuple[str, ...] = (SHARED_PCT, L1_TOTAL, TENSOR_ELAPSED, TENSOR_ACTIVE,
                           "l1tex__throughput.max.pct_of_peak_sustained_active", "l1tex__cycles_active.avg",
                           "l1tex__cycles_elapsed.avg", "gpc__cycles_elapsed.max", *SM_ACTIVE, *SM_ELAPSED)


@dataclass(frozen=True)
class Counter:
    """One measured sub-metric of a unit.

    Attributes:
        metric: the Nsight Compute metric, a throughput as % of the unit's peak over the elapsed cycles.
        unit: the unit's id (``data/units.toml``: ``"issue"``, ``"lsu"``, ``"fma"``, ``"l1"``, ``"l2"``,
            ``"l2_atomics"``, ``"dram"`` ...; ``"shared"`` for the shared-memory part of the L1 data pipe), or the
            metric itself for a sub-metric the file does not know.
        busy: the share of the elapsed time the unit was busy, averaged over its instances (0-1).
        hottest: the busiest instance's share (the metric's ``.max`` twin; ``busy`` when not measured).
        part_of: the counters whose work includes this one's (the shared part of the L1 data pipe and of the whole
            L1/TEX cache), empty for none.
    """

    metric: str
    unit: str
    busy: float
    hottest: float
    part_of: tuple[str, ...] = ()


@dataclass(frozen=True)
class Units:
    """What the model knows of one launch.

    Attributes:
        counters: every measured counter, busiest first.
        idle_sm: the share of the SM time with no warp resident (1 - sm__cycles_active / sm__cycles_elapsed), or
            None when not measured.
        stall_shares: stall reason -> its share of all warp cycles (0-1, issuing included), empty when not measured.
        selected_share: the share of the warp cycles spent issuing (``selected``), or None.
        min_share: the smallest share of the measured time any change can leave: a kernel gets no shorter than its
            launch overhead (``short_kernel_s`` / duration), and no estimate claims it vanishes (:data:`MIN_TIME_SHARE`).
    """

    counters: tuple[Counter, ...] = ()
    idle_sm: float | None = None
    stall_shares: Mapping[str, float] = field(default_factory=dict)
    selected_share: float | None = None
    min_share: float = MIN_TIME_SHARE

    @property
    def hideable(self) -> float | None:
        """The share of all warp cycles spent waiting on a latency that more resident warps can overlap (the stall
        reasons of :data:`HIDEABLE`), or None without stall data: more warps cannot remove more than that (a warp
        ready but not selected, or waiting for a full queue, gains nothing from more warps)."""
        if not self.stall_shares:
            return None
        return min(1.0, sum(v for r, v in self.stall_shares.items() if r in HIDEABLE))

    def of(self, unit: str) -> tuple[Counter, ...]:
        """The counters of one unit."""
        return tuple(c for c in self.counters if c.unit == unit)

    def busy(self, unit: str) -> float | None:
        """The unit's busy share (its busiest counter's average), or None when not measured."""
        found = [c.busy for c in self.of(unit)]
        return max(found) if found else None

    def counter(self, metric: str) -> Counter | None:
        """The counter of one metric, or None."""
        return next((c for c in self.counters if c.metric == metric), None)

    @property
    def busiest(self) -> Counter | None:
        """The busiest counter (by its busiest instance), or None when nothing was measured."""
        return max(self.counters, key=lambda c: c.hottest, default=None)


def _pct(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else min(1.0, max(0.0, value / 100.0))


def units_of(kernel: KernelProfile, stall_shares: Mapping[str, float] | None = None,
             selected_share: float | None = None, launch_overhead_s: float = 0.0,
             derived_dram_pct: float | None = None) -> Units:
    """The units of one launch from what its report measured (see the module docstring); ``stall_shares`` (reason ->
    share of all warp cycles) and ``selected_share`` from :func:`.stalls.stall_breakdown`; ``launch_overhead_s`` (s):
    the time no kernel gets below (``short_kernel_s``); ``derived_dram_pct``: DRAM throughput, % of the spec's
    bandwidth, derived from the DRAM bytes and the duration (the roofline point's), for a report without a memory
    figure (:func:`_fallback_counters`)."""
    known = by_metric()
    m = kernel.metrics
    counters: list[Counter] = []
    for metric, pct in {**kernel.compute_breakdown_pct, **kernel.memory_breakdown_pct}.items():
        busy = _pct(pct)
        if busy is None:  # (the keys of one dict: each metric once)
            continue
        twin = hottest_twin(metric)
        hot = _pct(m.get(twin)) if twin else None
        u = known.get(metric)
        counters.append(Counter(metric, u.id if u is not None else metric, busy, max(busy, hot or 0.0)))
    # without a breakdown, the Speed-of-Light figure stands for its side: it is the maximum over that side's units
    for pct, metric, side, breakdown in ((kernel.sol_compute_pct, SOL_COMPUTE, "sm", kernel.compute_breakdown_pct),
                                         (kernel.sol_memory_pct, SOL_MEMORY, "memory", kernel.memory_breakdown_pct)):
        busy = _pct(pct)
        if busy is not None and not breakdown:
            counters.append(Counter(metric, side, busy, busy))
    # the tensor cores by data path (sm__ops_path_tensor_src_<in>[_dst_<acc>]: % of THAT path's peak, e.g. FP16 with
    # FP32 accumulation at half the FP16-accumulate rate on GeForce Ada, which sm__pipe_tensor_cycles_active measures
    # against): the busiest tensor path is the tensor unit's real load
    for metric in _tensor_paths(tuple(m)):
        value = m[metric]
        if value:
            busy = _pct(value)
            if busy:
                hot = _pct(m.get(metric.replace(".avg.", ".max.")))
                counters.append(Counter(metric, "tensor", busy, max(busy, hot or 0.0)))
    total = _l1_total(kernel)
    if total is not None:
        counters.append(Counter(L1_TOTAL, "l1", *total))
    shared = None if kernel.launch.no_shared_memory else _pct(m.get(SHARED_PCT))
    if shared is not None:
        pipe = next((c for c in counters if c.metric == DATA_PIPE_PCT), None)
        # the shared part's busiest SM: at the data pipe's ratio of busiest to average SM (not measured on its own)
        scale = pipe.hottest / pipe.busy if pipe is not None and pipe.busy > 0 else 1.0
        wholes = tuple(n for n in (DATA_PIPE_PCT, L1_TOTAL) if any(c.metric == n for c in counters))
        counters.append(Counter(SHARED_PCT, SHARED_UNIT, shared, min(1.0, shared * scale), wholes))
    counters.extend(_fallback_counters(kernel, counters, derived_dram_pct))
    counters.sort(key=lambda c: -c.hottest)
    d = kernel.duration_s
    floor = min(1.0, launch_overhead_s / d) if d and d > 0 and launch_overhead_s > 0 else 0.0
    return Units(tuple(counters), idle_sm_share(kernel), dict(stall_shares or {}), selected_share,
                 max(MIN_TIME_SHARE, floor))


@lru_cache(maxsize=1024)
def _tensor_paths(names: tuple[str, ...]) -> tuple[str, ...]:
    """The tensor data paths' loads (``sm__ops_path_tensor_src_*.avg.pct_of_peak_sustained_elapsed``) among a launch's
    metric names, in their order: found once per list of names (the launches of a kernel have the same), not per
    launch."""
    return tuple(n for n in names if n.startswith(TENSOR_PATHS) and n.endswith(".avg.pct_of_peak_sustained_elapsed"))


def _fallback_counters(kernel: KernelProfile, counters: list[Counter], derived_dram_pct: float | None) -> list[Counter]:
    """Units a report without their Speed-of-Light breakdown measured another way (an ``ncu`` console print or CSV
    of chosen metrics): the tensor pipe from ``sm__pipe_tensor_cycles_active`` (over the elapsed cycles, or over the
    SMs' active cycles times active / elapsed when those are measured; without them the active-cycle share stands,
    an over-estimate of the elapsed one, so that a bound sized against it errs low) and DRAM from its bytes over the
    duration against the spec's bandwidth. Each only where no counter of that unit (nor, for DRAM, the memory
    Speed-of-Light) was measured."""
    out: list[Counter] = []
    have = {c.unit for c in counters}
    m = kernel.metrics
    if "tensor" not in have:
        elapsed, active = _pct(m.get(TENSOR_ELAPSED)), _pct(m.get(TENSOR_ACTIVE))
        if elapsed:
            out.append(Counter(TENSOR_ELAPSED, "tensor", elapsed, elapsed))
        elif active:
            idle = idle_sm_share(kernel)
            out.append(Counter(TENSOR_ACTIVE, "tensor", active * (1.0 - idle) if idle is not None else active, active))
    dram = _pct(derived_dram_pct)
    if dram and not have & {"dram", "memory"}:
        out.append(Counter(DRAM_DERIVED, "dram", dram, dram))
    return out


def _l1_total(kernel: KernelProfile) -> tuple[float, float] | None:
    """(busy, busiest SM) of the whole L1/TEX cache over the elapsed time, 0-1 (:func:`.limiters.l1_total_elapsed`)."""
    total = l1_total_elapsed(kernel)
    if total is None:
        return None
    busy = _pct(total[0]) or 0.0
    hot = _pct(total[1]) if total[1] is not None else None
    return busy, max(busy, hot or 0.0)


def idle_sm_share(kernel: KernelProfile) -> float | None:
    """The share of the SM time with no warp resident: 1 - sm__cycles_active / sm__cycles_elapsed (per-SM averages,
    else the sums over the SMs, else the SMs' average active cycles over the GPCs' elapsed ones: Speed of Light's "SM
    Active Cycles" / "Elapsed Cycles", :data:`.limiters.L1_CYCLES`); None when not measured."""
    m = kernel.metrics
    for active_name, elapsed_name in (*zip(SM_ACTIVE, SM_ELAPSED), L1_CYCLES[-1]):
        active, elapsed = m.get(active_name), m.get(elapsed_name)
        if active is not None and elapsed and elapsed > 0 and math.isfinite(active):
            return min(1.0, max(0.0, 1.0 - active / elapsed))
    return None


@dataclass(frozen=True)
class Change:
    """What a finding's remedy changes, in the model's terms.

    Attributes:
        work: unit id or counter metric -> the fraction (0-1) of its work the change removes. A unit id applies to
            every counter of that unit; a metric to that counter only (it wins over its unit's entry).
        idle: the share of the elapsed time (0-1) of idle SM time the change recovers (the work spread over SMs that
            sat idle: a partial last wave, uneven blocks, fewer blocks than SMs).
        waiting: the share of all warp cycles (0-1) the change stops waiting (a stall reason hidden).
        warps: the factor by which the change multiplies the resident warps (occupancy), >= 1; it removes at most
            1 - 1 / warps of the time, and at most the warp cycles spent on a latency more warps can overlap
            (:attr:`Units.hideable`).
        spreads: the change moves work between instances (SMs, slices): floors use the average instance, not the
            busiest.
        pools: what the change draws on that others may draw on too (for the joint model): ``"idle_sm"``,
            ``"waiting"``; work fractions of one counter add up, capped at all of it.
        kind: :data:`PREDICTION` or :data:`UPPER_BOUND`.
        what: how the change was sized, in words with its numbers (part of the estimate's note).
    """

    work: Mapping[str, float] = field(default_factory=dict)
    idle: float = 0.0
    waiting: float = 0.0
    warps: float = 1.0
    spreads: bool = False
    kind: str = PREDICTION
    what: str = ""

    def __post_init__(self) -> None:
        if self.kind not in (PREDICTION, UPPER_BOUND):
            raise ValueError(f"kind must be {PREDICTION!r} or {UPPER_BOUND!r}, got {self.kind!r}")
        for key, f in self.work.items():
            if not (0.0 <= f <= 1.0):
                raise ValueError(f"work fraction of {key!r} must be within 0..1, got {f!r}")
        if not (0.0 <= self.idle <= 1.0 and 0.0 <= self.waiting <= 1.0 and self.warps >= 1.0):
            raise ValueError(f"idle and waiting must be within 0..1 and warps >= 1, got {self.idle}, {self.waiting}, "
                             f"{self.warps}")

    @property
    def empty(self) -> bool:
        """True when the change removes nothing."""
        return not any(self.work.values()) and not self.idle and not self.waiting and self.warps <= 1.0


@dataclass(frozen=True)
class Estimate:
    """The model's answer for one change.

    Attributes:
        speedup: T / T', a factor >= 1.
        kind: :data:`PREDICTION` or :data:`UPPER_BOUND`.
        time_share: T' / T (0-1).
        saved: the share of T the change saves directly (before the floor), 0-1.
        floor: F, the busiest unit after the change (share of T), 0-1.
        limiter: the counter metric of that floor (or ``"idle_sm"`` / ``"issue"``), or None without one.
        bound: 1 / F, what no version of this change can beat (>= speedup).
    """

    speedup: float
    kind: str
    time_share: float
    saved: float
    floor: float
    limiter: str | None
    bound: float

    @property
    def limited(self) -> bool:
        """True when the floor, not the change's own saving, decides the estimate."""
        return self.floor >= 1.0 - self.saved - 1e-12


def _fraction(change: Change, c: Counter) -> float:
    if c.metric in change.work:
        return change.work[c.metric]
    return change.work.get(c.unit, 0.0)


def predict(units: Units, change: Change) -> Estimate:
    """The new time of the launch after ``change`` (module docstring): T'/T = max(1 - saved, floor), speedup T/T'. A
    prediction the floor decides (the busiest unit after the change at its peak, not the saving) is an upper bound."""
    after: dict[str, tuple[float, float]] = {}
    for c in units.counters:
        f = _fraction(change, c)
        after[c.metric] = (c.busy * (1.0 - f), c.hottest * (1.0 - f))
    # a part's removed work leaves its whole too (the shared wavefronts are wavefronts of the L1 data pipe), on top of
    # what the change removes of the whole's other work (its own fraction, e.g. the global part's excess sectors)
    for c in units.counters:
        removed_avg, removed_hot = c.busy - after[c.metric][0], c.hottest - after[c.metric][1]
        for name in c.part_of:
            if name in after:
                whole = after[name]
                after[name] = (max(after[c.metric][0], whole[0] - removed_avg),
                               max(after[c.metric][1], whole[1] - removed_hot))
    pick = 0 if change.spreads else 1
    floor, limiter = 0.0, None
    for c in units.counters:
        now = after[c.metric][pick]
        if now > floor:
            floor, limiter = now, c.metric
    saved_work = _saved(units.counters, {m: a[1] for m, a in after.items()})
    waiting = change.waiting
    if change.warps > 1.0:  # Little's law: k times the warps issue k times as often, until a unit saturates
        by_warps = 1.0 - 1.0 / change.warps
        hideable = units.hideable
        waiting = max(waiting, by_warps if hideable is None else min(by_warps, hideable))
    saved = min(1.0, saved_work + change.idle + waiting)
    if units.min_share > floor:
        floor, limiter = units.min_share, "launch_overhead"
    share = max(1.0 - saved, floor)
    # a definite change whose time the floor decides is only as good as that unit running at its peak: an ideal
    kind = UPPER_BOUND if floor >= 1.0 - saved - 1e-12 else change.kind
    return Estimate(1.0 / share, kind, share, saved, floor, limiter, 1.0 / floor)


def _saved(counters: Sequence[Counter], after_hottest: Mapping[str, float]) -> float:
    """The time a change of work saves directly, as a share of the measured time: what the busiest counter (by its
    busiest instance) loses, or what another counter loses times the share of the time the busiest one leaves
    uncovered (1 - its busy share), whichever is larger. A unit less busy than the busiest one overlaps with it:
    only the time outside the busiest unit's can shrink when it does less (in a kernel whose DRAM runs at 85 %,
    fewer FP32 instructions save at most a share of the other 15 %); with every unit far from its peak (a
    latency-bound kernel) the two readings meet Nsight Compute's waste x unit-throughput."""
    if not counters:
        return 0.0
    top = max(counters, key=lambda c: c.hottest)
    own = top.hottest - after_hottest.get(top.metric, top.hottest)
    others = max((c.hottest - after_hottest.get(c.metric, c.hottest) for c in counters if c is not top), default=0.0)
    return max(0.0, own, others * (1.0 - top.hottest))


def merged(changes: Iterable[Change], units: Units) -> Change:
    """All ``changes`` made together: work fractions of one counter add (capped at all of it: the findings' work
    is disjoint by construction, e.g. bank-conflict and other excess wavefronts), recovered idle time adds (capped
    at the idle SM time measured), hidden waiting adds (capped at the warp cycles not spent issuing), warps take the
    largest factor; the kind is a prediction only when every change is one."""
    work: dict[str, float] = {}
    idle = waiting = 0.0
    warps = 1.0
    spreads = False
    kinds = set()
    for ch in changes:
        for key, f in ch.work.items():
            work[key] = min(1.0, work.get(key, 0.0) + f)
        idle += ch.idle
        waiting += ch.waiting
        warps = max(warps, ch.warps)
        spreads = spreads or ch.spreads
        kinds.add(ch.kind)
    idle_cap = units.idle_sm if units.idle_sm is not None else 1.0
    waiting_cap = 1.0 - (units.selected_share or 0.0)
    return Change(work, min(idle, idle_cap), min(waiting, waiting_cap), warps, spreads,
                  UPPER_BOUND if UPPER_BOUND in kinds else PREDICTION, "together")


def conservative_value(speedup: float | None, kind: str | None) -> float | None:
    """The value advice is ranked by: a prediction's speedup; an upper bound's geometric midpoint between no gain
    and the bound (sqrt(bound): where in that range the fix lands is unknown, and a bound never outranks a
    prediction it cannot beat); None without an estimate."""
    if speedup is None:
        return None
    return math.sqrt(speedup) if kind == UPPER_BOUND else speedup


def relieves(change: Change | None, unit: str, units: Units) -> bool:
    """Whether ``change`` removes some of ``unit``'s work (its id, or one of its counters)."""
    if change is None:
        return False
    metrics = {c.metric for c in units.of(unit)}
    return any(f > 0 and (key == unit or key in metrics) for key, f in change.work.items())


def measured_share(change: Change | None, evidence: Iterable[object], units: Units) -> float | None:
    """The largest measured share a finding's own evidence covers, 0-1, to order findings without an estimate
    (:func:`.advice_order.rank_and_share`): a stall reason's share of the stall cycles (evidence ``stall_share.<reason>``, unit
    ``"share"``; ``stall_value.<reason>`` from the launch's stall shares, issuing left out), the waiting or idle SM
    time its change removes (share of the warp cycles / of the elapsed time), or the busy time its change removes of a
    measured unit (fraction x the unit's busiest instance). None when its evidence measures no such share (a finding
    sized on a unit the report did not measure): it then comes after the measured ones."""
    shares: list[float] = []
    issuing = units.selected_share or 0.0
    for e in evidence:
        metric, value = getattr(e, "metric", ""), getattr(e, "value", None)
        if metric.startswith("stall_share.") and getattr(e, "unit", "") == "share" and value is not None:
            shares.append(value)
        elif metric.startswith("stall_value."):
            s = units.stall_shares.get(metric.split(".", 1)[1])
            if s is not None and issuing < 1.0:
                shares.append(s / (1.0 - issuing))
    if change is not None:
        shares += [x for x in (change.waiting, change.idle) if x > 0]
        shares += [_fraction(change, c) * c.hottest for c in units.counters if _fraction(change, c) > 0]
    found = [min(1.0, max(0.0, x)) for x in shares if math.isfinite(x)]
    return max(found) if found else None


def describe(estimate: Estimate, units: Units) -> str:
    """How the estimate was computed, with its numbers: "T'/T = max(1 - 0.42 saved, 0.55 DRAM) = 0.58"."""
    limiter = estimate.limiter or "-"
    unit = next((c.unit for c in units.counters if c.metric == limiter), limiter)
    return (f"T'/T = max(1 - {estimate.saved:.3f} saved, {estimate.floor:.3f} busiest unit after the change "
            f"({unit}: {limiter})) = {estimate.time_share:.3f}; speedup = {estimate.speedup:.3f}, bound "
            f"{estimate.bound:.3f}")


def scaled(change: Change, factor: float) -> Change:
    """``change`` with its work, idle and waiting multiplied by ``factor`` (0-1): a change that removes part of what
    it names."""
    return replace(change, work={k: v * factor for k, v in change.work.items()}, idle=change.idle * factor,
                   waiting=change.waiting * factor)


@dataclass(frozen=True)
class WorkChange:
    """How one unit's work changed between two profiles of the same kernel.

    Attributes:
        unit: the unit id (its busiest counter on the BEFORE side).
        metric: that counter.
        before_s / after_s: the unit's work as busy time at its peak, busy share x duration (s).
        ratio: after_s / before_s (0.06 = 94 % of the work gone; > 1: work added).
    """

    unit: str
    metric: str
    before_s: float
    after_s: float

    @property
    def ratio(self) -> float:
        """after_s / before_s."""
        return self.after_s / self.before_s if self.before_s > 0 else math.inf


@dataclass(frozen=True)
class PostHoc:
    """The model checked against a measured before/after pair: which units' work actually changed, and the speedup
    the model gives for exactly that change.

    Attributes:
        changes: per unit measured on both sides, the largest change of busy time first.
        speedup: T_before / T'_model, where T'_model / T_before = max(1 - saved, floor) with saved = the largest
            busy time a unit lost (share of T_before) and floor = the busiest unit's AFTER work (share of T_before);
            None when no unit was measured on both sides.
    """

    changes: tuple[WorkChange, ...]
    speedup: float | None


def posthoc(before: Units, before_s: float | None, after: Units, after_s: float | None) -> PostHoc:
    """The work each unit did before and after (busy share x duration, at the same peaks: the same GPU and
    clocks), and the model's speedup for that change of work (:class:`PostHoc`). A unit's work is its busiest
    counter's on the BEFORE side, the same counter on the AFTER side."""
    if not before_s or not after_s or before_s <= 0 or after_s <= 0:
        return PostHoc((), None)
    found: dict[str, WorkChange] = {}
    for c in before.counters:
        a = after.counter(c.metric)
        if a is None or c.hottest <= 0:
            continue
        w = WorkChange(c.unit, c.metric, c.hottest * before_s, a.hottest * after_s)
        if c.unit not in found or c.hottest * before_s > found[c.unit].before_s:
            found[c.unit] = w
    if not found:
        return PostHoc((), None)
    top = max(found.values(), key=lambda w: w.before_s)
    others = max((w.before_s - w.after_s for w in found.values() if w is not top), default=0.0)
    saved = max(0.0, top.before_s - top.after_s, others * (1.0 - top.before_s / before_s)) / before_s
    floor = max(w.after_s for w in found.values()) / before_s
    share = max(MIN_TIME_SHARE, 1.0 - saved, floor)
    ordered = sorted(found.values(), key=lambda w: -abs(w.after_s - w.before_s))
    return PostHoc(tuple(ordered), 1.0 / share)

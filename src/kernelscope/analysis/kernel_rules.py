"""Kernel rules: one small rule per concern, each with the metrics it reads, one criterion of ``verdicts.toml``
(with its source, overridable with ``--criteria FILE``) and the :class:`~.engine.Finding` it returns.

The Speed-of-Light rule is the parent: it states Nsight Compute's own SOLBottleneck class for the launch; the
bottleneck-class rules (several may hold at once, "memory-bound + latency-bound"), the occupancy notes and the
stall-reason advice follow. A rule whose inputs were not measured does not fire and says nothing: it never
guesses. :data:`KERNEL_RULES` is the set :func:`kernelscope.analysis.diagnosis.diagnose` runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping

from ..knowledge.criteria import criteria as default_criteria
from ..knowledge.criteria import source
from ..knowledge.findings import findings
from ..knowledge.remedies import applicable, holds
from ..knowledge.text import class_remedies
from ..model import GpuSpec, KernelProfile
from ..notes import (BALANCED, COMPUTE_BOUND, LATENCY_BOUND, LAUNCH_BOUND, MEMORY_BOUND, OCCUPANCY_BOUND, SMALL_GRID, Note,
                     quick_init)
from .engine import Done, Evidence, Finding, Rule
from .design import Design, remedy_values
from .limiters import Limiters, MemoryLevel, limiting_level
from .math_floor import reuse_change
from .occupancy import Occupancy, next_step
from .performance import L1_TOTAL, UPPER_BOUND, Change, Units, describe, predict
from .roofline import RooflinePoint
from .stalls import StallBreakdown

#: Order in which classes are listed when several hold.
CLASS_ORDER = (LAUNCH_BOUND, SMALL_GRID, MEMORY_BOUND, COMPUTE_BOUND, LATENCY_BOUND, OCCUPANCY_BOUND)
#: Stall reasons that mean the warps are busy issuing or waiting on a saturated pipe (lesson 2).
BUSY_REASONS = ("math_pipe_throttle", "not_selected")

SOL_COMPUTE = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
SOL_MEMORY = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_PCT = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
#: evidence name of the DRAM % derived from bytes and duration (:func:`.roofline.derived_dram_throughput_pct`)
DRAM_PCT_DERIVED = "dram__bytes.sum / gpu__time_duration.sum / dram_bandwidth (derived)"
WAVES = "launch__waves_per_multiprocessor"
DURATION = "gpu__time_duration.sum"
ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


@quick_init
@dataclass(frozen=True)
class SolVerdict:
    """Speed-of-Light bottleneck class of one kernel.

    Attributes:
        bound: ``"compute-bound"``, ``"memory-bound"``, ``"latency-bound"``, ``"balanced"`` or
            ``"small-grid"``; None when the SOL section was not measured.
        compute_pct: SM throughput, % of peak, or None.
        memory_pct: memory throughput, % of peak, or None.
        waves_per_sm: ``launch__waves_per_multiprocessor``, or None.
        evidence: the measured values and thresholds that decided the class.
    """

    bound: str | None
    compute_pct: float | None
    memory_pct: float | None
    waves_per_sm: float | None
    evidence: tuple[Note, ...]


def grid_is_small(waves_per_sm: float | None, crit: Mapping[str, float], blocks: int | None = None,
                  sm_count: int | None = None) -> bool:
    """A grid too small to fill the GPU: fewer blocks than SMs (some SMs idle for the whole kernel) when both are
    known; otherwise fewer than ``small_grid_waves`` full waves (Nsight's "Small Grid"). A partial last wave with a
    block on every SM is a tail effect, not a small grid."""
    if blocks is not None and sm_count:
        return blocks < sm_count
    return waves_per_sm is not None and waves_per_sm < crit["small_grid_waves"]


def classify_sol(compute_pct: float | None, memory_pct: float | None, waves_per_sm: float | None,
                 crit: Mapping[str, float] | None = None) -> SolVerdict:
    """Speed-of-Light class from SM and memory throughput (% of peak) and waves per SM, exactly as Nsight Compute's
    own SOLBottleneck rule decides it (kernelscope's bottleneck classes, :data:`KERNEL_RULES`, refine it: a small
    grid there means fewer blocks than SMs, and two throughputs of one unit are not "balanced").

    Rules, in the order Nsight Compute's SOLBottleneck rule applies them (its rule file; thresholds from
    ``verdicts.toml`` ``[criteria]``): compute above ``compute_high_pct`` or memory above ``memory_high_pct`` ->
    the higher one's class (ties go to compute); both below ``latency_sol_pct`` -> small-grid with fewer than
    ``small_grid_waves`` waves ("Small Grid"), else latency-bound; otherwise the higher one's class, or balanced
    when they are within ``balanced_margin_pct`` points. A grid below one wave with a unit at 60-80 % of its peak
    is that unit's class, not small-grid (a kernel of 275 blocks on 68 SMs with DRAM at 79.7 % is memory-bound).
    Without the two throughputs, fewer than ``small_grid_waves`` waves alone gives small-grid.
    """
    t = crit if crit is not None else default_criteria()
    c, m = compute_pct, memory_pct

    def verdict(bound: str | None, key: str, **values: Any) -> SolVerdict:
        return SolVerdict(bound, c, m, waves_per_sm, (Note(key, {"c": c, "m": m, **values}),))

    measured = c is not None and m is not None
    higher = COMPUTE_BOUND if measured and c >= m else MEMORY_BOUND
    if measured and (c > t["compute_high_pct"] or m > t["memory_high_pct"]):
        limit = t["compute_high_pct"] if higher == COMPUTE_BOUND else t["memory_high_pct"]
        return verdict(higher, "sol_high", top=max(c, m), limit=limit)
    if not measured:
        if grid_is_small(waves_per_sm, t):
            return verdict(SMALL_GRID, "small_grid", waves=waves_per_sm, limit=t["small_grid_waves"])
        return verdict(None, "sol_not_measured")
    if max(c, m) < t["latency_sol_pct"]:
        if grid_is_small(waves_per_sm, t):  # Nsight's "Small Grid" is a latency-band verdict only
            return verdict(SMALL_GRID, "small_grid", waves=waves_per_sm, limit=t["small_grid_waves"])
        return verdict(LATENCY_BOUND, "sol_latency", limit=t["latency_sol_pct"])
    if abs(c - m) < t["balanced_margin_pct"]:
        return verdict(BALANCED, "sol_balanced", margin=t["balanced_margin_pct"])
    return verdict(higher, "sol_mid", low=t["latency_sol_pct"], high=t["memory_high_pct"])


@quick_init
@dataclass(frozen=True)
class KernelContext:
    """What the kernel rules may look at for one launch.

    Attributes:
        kernel: the measured launch.
        gpu: the ceilings in use, or None.
        sol: its Speed-of-Light class (:func:`classify_sol`).
        occupancy: theoretical occupancy from the launch configuration, or None when not computable.
        stalls: the stall breakdown, or None.
        waves_per_sm: full waves of blocks across all SMs (measured, or blocks / (blocks per SM x SMs)), or None.
        headline: the class to advise when no class rule fires (the SOL class, else the roofline's), or None.
        criteria: thresholds (``verdicts.toml`` ``[criteria]`` with user overrides).
        limiters: the busiest units of each side (:mod:`.limiters`).
        levels: the memory levels the profile measured.
        roofline: the roofline point of the pipe the kernel uses most, or None.
        units: the busy shares of its units, for the performance model (:mod:`.performance`).
        design: what the report shows of the kernel itself (:func:`.design.design_of`), or None.
        facts: the facts the remedies' preconditions name (:func:`.design.facts_of`).
    """

    kernel: KernelProfile
    gpu: GpuSpec | None
    sol: SolVerdict
    occupancy: Occupancy | None
    stalls: StallBreakdown | None
    waves_per_sm: float | None
    headline: str | None
    criteria: Mapping[str, float]
    limiters: Limiters = Limiters((), ())
    levels: tuple[MemoryLevel, ...] = ()
    roofline: RooflinePoint | None = None
    units: Units = Units()
    design: Design | None = None
    facts: frozenset[str] = frozenset()

    def sized(self, change: Change) -> dict:
        """The keyword arguments of a :class:`~.engine.Finding` for the estimate of ``change`` by the performance
        model (:func:`.performance.predict`): ``estimated_speedup``, ``speedup_note`` (the change, then how the
        model sized it), ``estimate_kind``, ``change``. Without any measured unit the model has nothing to size
        against: no estimate, and the note says so."""
        if not self.units.counters:
            return {"estimated_speedup": None, "change": change,
                    "speedup_note": "not estimated: no unit's throughput was measured (Speed-of-Light breakdown)"}
        e = predict(self.units, change)
        what = f"{change.what}; " if change.what else ""
        kind = "upper bound" if e.kind == UPPER_BOUND else "prediction"
        return {"estimated_speedup": max(1.0, e.speedup), "estimate_kind": e.kind, "change": change,
                "speedup_note": f"{kind}: {what}{describe(e, self.units)}"}

    @property
    def limiting_level(self) -> MemoryLevel | None:
        """The memory level closest to its peak, or None."""
        return limiting_level(self.levels)

    @property
    def sm_count(self) -> int | None:
        """SMs of the device: the report's, else the spec's."""
        return self.kernel.device.sm_count or (self.gpu.sm_count if self.gpu is not None else None)

    @property
    def theoretical_pct(self) -> float | None:
        """Theoretical occupancy %: the profiler's when measured, else ours, else None."""
        if self.kernel.theoretical_occupancy_pct is not None:
            return self.kernel.theoretical_occupancy_pct
        return self.occupancy.occupancy_pct if self.occupancy is not None else None

    @property
    def dram(self) -> Evidence | None:
        """DRAM throughput, % of peak, as evidence: ``gpu__dram_throughput`` when measured, else derived from DRAM
        bytes / duration / the spec's bandwidth (the roofline point's ``derived_dram_throughput_pct``), else None."""
        if self.kernel.dram_throughput_pct is not None:
            return Evidence(DRAM_PCT, self.kernel.dram_throughput_pct, "%")
        derived = self.roofline.derived_dram_throughput_pct if self.roofline is not None else None
        return Evidence(DRAM_PCT_DERIVED, derived, "%") if derived is not None else None

    def stall_share(self, *reason_ids: str) -> float | None:
        """Summed share of stall cycles (selected excluded) of ``reason_ids``, or None without stall data."""
        if self.stalls is None or not self.stalls.shares:
            return None
        return sum(s.share_of_stalls for s in self.stalls.shares if s.reason in reason_ids)

    @property
    def compute_capability(self) -> tuple[int, int] | None:
        """The device's compute capability: the report's, else the spec's, else None."""
        return self.kernel.device.compute_capability or (self.gpu.compute_capability if self.gpu is not None else None)

    def remedies(self, ids: tuple[str, ...]) -> tuple[str, ...]:
        """The remedies of ``ids`` whose preconditions hold for this launch (:func:`~kernelscope.knowledge.remedies.applicable`)."""
        return applicable(ids, self.facts, self.compute_capability)

    def first_remedy(self, finding_id: str) -> tuple[str, ...]:
        """The first of finding ``finding_id``'s candidate remedies (``findings.toml`` ``remedies``) that holds for this
        launch, as a one-element tuple (the action's ``{remedy}``); empty when it has none or none holds."""
        text = findings().get(finding_id)
        return self.remedies(text.remedies)[:1] if text is not None else ()

    def class_advice(self, bound: str) -> dict:
        """The keyword arguments of a finding that gives class ``bound``'s paragraph: ``advice="class:<bound>"`` and
        the class's remedies that hold for this launch (``verdicts.toml`` ``remedies``, ``data/remedies.toml``)."""
        return {"advice": f"class:{bound}", "remedies": self.remedies(class_remedies(bound))}

    def admit(self, finding: Finding) -> Finding | None:
        """A finding as this kernel may be told it (the ``admit`` hook of :func:`~.engine.run_rules`): dropped when
        its preconditions (``findings.toml`` ``requires``) do not hold; for a library kernel or a device-debug build
        (``library`` / ``debug_build`` facts) a code-level remedy (``level = "code"``) loses its advice and stays as
        evidence: there is no code to edit, or the code measured is not the program's; an address-level one
        (``level = "address"``: which addresses the threads touch) keeps it in a debug build, whose addresses are the
        program's."""
        text = findings().get(finding.id)
        if text is None:
            return finding
        if text.requires and not holds(text.requires, self.facts, self.compute_capability):
            return None
        blocked = {"code": {"library", "debug_build"}, "address": {"library"}}.get(text.level, set())
        if finding.advice is not None and finding.advice.startswith("finding:") and self.facts & blocked:
            return finding.but(advice=None)
        return finding

    def bound(self, rule_id: str, bound: str, note: Note, *evidence: Evidence, key: str) -> Finding:
        """A bottleneck-class finding of ``rule_id`` citing criterion ``key`` (with the occupancy figures its
        paragraph's remedies state: :func:`.design.remedy_values`)."""
        advice = self.class_advice(bound)
        note = Note(note.key, {**note.values, **remedy_values(advice["remedies"], self.occupancy)})
        return Finding(rule_id, "bound", note, evidence, bound=bound, source=source(key), **advice)


# --------------------------------------------------------------------------------------------- Speed-of-Light


def speed_of_light(ctx: KernelContext, done: Done) -> Finding:
    """The Speed-of-Light class, as Nsight Compute's SOLBottleneck rule decides it (:func:`classify_sol`)."""
    s = ctx.sol
    return Finding("speed_of_light", "info", s.evidence[0],
                   (Evidence(SOL_COMPUTE, s.compute_pct, "%"), Evidence(SOL_MEMORY, s.memory_pct, "%"),
                    Evidence(WAVES, s.waves_per_sm)),
                   bound=s.bound, source=source("compute_high_pct"))


# ---------------------------------------------------------------------------------------- bottleneck classes


def small_grid(ctx: KernelContext, done: Done) -> Finding | None:
    """Fewer blocks than SMs (or, without the block and SM counts, fewer than ``small_grid_waves`` waves):
    the small-grid class (Nsight's "Small Grid", not launch overhead) when no measured unit reaches ``latency_sol_pct``
    (Speed-of-Light compute and memory, else the busiest unit measured, the tensor pipe included); with a unit that
    busy the throughput verdict stands and the idle SMs are an optimization. Estimate (upper bound): SMs / blocks, the work spread over
    every SM."""
    blocks, sms = ctx.kernel.launch.blocks, ctx.sm_count
    if not grid_is_small(ctx.waves_per_sm, ctx.criteria, blocks, sms):
        return None
    if blocks is None or not sms:
        limit = ctx.criteria["small_grid_waves"]
        return ctx.bound("small_grid", SMALL_GRID, Note("small_grid", {"waves": ctx.waves_per_sm, "limit": limit}),
                         Evidence(WAVES, ctx.waves_per_sm), key="small_grid_waves")
    note = Note("f_small_grid", {"blocks": blocks, "sms": sms, "idle_sms": sms - blocks})
    evidence = (Evidence("launch__grid_size", blocks, "block"), Evidence("device__attribute_multiprocessor_count", sms, "SM"))
    busy = _busiest_pct(ctx)
    severity, bound = ("optimization", None) if busy is not None and busy >= ctx.criteria["latency_sol_pct"] \
        else ("bound", SMALL_GRID)
    idle = 1.0 - blocks / sms  # SM time of the SMs without a block
    if ctx.units.idle_sm is not None:
        idle = min(idle, ctx.units.idle_sm)
    # split into more blocks, the work also fills the busy SMs' empty warp slots (up to the theoretical occupancy)
    achieved, theoretical = ctx.kernel.achieved_occupancy_pct, ctx.theoretical_pct
    gap = achieved and theoretical and achieved < ctx.criteria["occupancy_gap_ratio"] * theoretical
    warps = theoretical / achieved if gap else 1.0
    change = Change(idle=max(0.0, idle), warps=warps, spreads=True, kind=UPPER_BOUND,
                    what=f"the work spread over all {sms} SMs: {idle:.3f} of the elapsed SM time was idle"
                         + (f", and {warps:.1f}x the resident warps on each (achieved {achieved:.0f}% of "
                            f"{theoretical:.0f}% occupancy)" if warps > 1.0 else ""))
    return Finding("small_grid", severity, note, evidence, bound=bound, advice="finding:small_grid",
                   source=source("small_grid_waves"), remedies=ctx.first_remedy("small_grid"),  # a library's: its call
                   **ctx.sized(change))


def _busiest_pct(ctx: KernelContext) -> float | None:
    """The busiest measured unit, % of its peak: the Speed-of-Light figures when measured, else the busiest unit of
    the breakdowns and the tensor pipe's activity (a Blackwell FP8 GEMM's console print has only the pipe); None when
    nothing was measured."""
    sol = [v for v in (ctx.sol.compute_pct, ctx.sol.memory_pct) if v is not None]
    if len(sol) == 2:
        return max(sol)
    tops = (ctx.limiters.top_compute, ctx.limiters.top_memory)
    found = sol + [u.pct for u in tops if u is not None] + [v for v in (ctx.kernel.tensor_pipe_active_pct,)
                                                             if v is not None]
    return max(found, default=None)


def short_kernel(ctx: KernelContext, done: Done) -> Finding | None:
    """launch-bound: shorter than ``short_kernel_s``, i.e. comparable to the launch overhead itself."""
    d, limit = ctx.kernel.duration_s, ctx.criteria["short_kernel_s"]
    if d is None or d >= limit:
        return None
    return ctx.bound("short_kernel", LAUNCH_BOUND, Note("short_kernel", {"us": d * 1e6, "limit_us": limit * 1e6}),
                     Evidence(DURATION, d, "s"), key="short_kernel_s")


def memory_throughput(ctx: KernelContext, done: Done) -> Finding | None:
    """memory-bound: memory throughput above ``memory_high_pct`` of peak. Without the memory SOL value, DRAM
    throughput stands in for it (memory SOL is the maximum over the memory units, DRAM among them), else the busiest
    memory unit measured (nvprof's utilisation levels): any unit above the threshold puts the maximum above it. The
    whole L1/TEX cache above it counts too (``l1tex__throughput`` over the elapsed cycles, the performance model's
    L1 counter): its busiest stage can be one the Speed-of-Light breakdown leaves out, and the headline must name
    the unit that limits the kernel (a 32-way-conflicting transpose: SOL memory 55 %, L1/TEX 96 %)."""
    m, limit = ctx.sol.memory_pct, ctx.criteria["memory_high_pct"]
    top = ctx.limiters.top_memory
    c = ctx.sol.compute_pct
    if ctx.limiters.same_unit() and c is not None and m is not None and c >= m:
        return None  # both throughputs are the same unit (the LSU pipe): one class, named by compute_throughput
    if m is not None and m > limit and top is not None:
        note = Note("rule_memory_unit", {"m": m, "c": ctx.sol.compute_pct, "limit": limit, "unit": top.unit or top.metric,
                                         "unit_pct": top.pct})
        return ctx.bound("memory_throughput", MEMORY_BOUND, note, Evidence(SOL_MEMORY, m, "%"),
                         Evidence(top.metric, top.pct, "%"), Evidence(SOL_COMPUTE, ctx.sol.compute_pct, "%"),
                         key="memory_high_pct")
    if m is not None and m > limit:
        return ctx.bound("memory_throughput", MEMORY_BOUND, Note("rule_memory", {"m": m, "c": ctx.sol.compute_pct, "limit": limit}),
                         Evidence(SOL_MEMORY, m, "%"), Evidence(SOL_COMPUTE, ctx.sol.compute_pct, "%"), key="memory_high_pct")
    dram = ctx.dram
    if m is None and dram is not None and dram.value > limit:
        return ctx.bound("memory_throughput", MEMORY_BOUND, Note("rule_memory_dram", {"dram": dram.value, "limit": limit}),
                         dram, key="memory_high_pct")
    if m is None and top is not None and top.pct > limit:  # one unit measured (nvprof utilisation levels)
        note = Note("rule_memory_unit_only", {"unit": top.unit or top.metric, "unit_pct": top.pct, "limit": limit})
        return ctx.bound("memory_throughput", MEMORY_BOUND, note, Evidence(top.metric, top.pct, "%"),
                         key="memory_high_pct")
    l1 = ctx.units.counter(L1_TOTAL)
    if l1 is not None and 100 * l1.busy > limit and (m is None or 100 * l1.busy > m):
        # the L1/TEX cache's busiest stage, which the Speed-of-Light breakdown does not list (the tag stage of
        # uncoalesced accesses, the data banks of conflicting shared accesses): memory-bound on L1, whatever SOL says
        note = Note("rule_memory_l1", {"pct": 100 * l1.busy, "m": m, "limit": limit})
        return ctx.bound("memory_throughput", MEMORY_BOUND, note, Evidence(L1_TOTAL, 100 * l1.busy, "%"),
                         Evidence(SOL_MEMORY, m, "%"), key="memory_high_pct")
    return None


def compute_throughput(ctx: KernelContext, done: Done) -> Finding | None:
    """compute-bound: SM throughput above ``compute_high_pct`` of peak; without the SM SOL value, the busiest compute
    unit measured above it (nvprof's utilisation levels: SM throughput is the maximum over its units). A tensor data
    path (``sm__ops_path_tensor_src_*``, against its own peak) busier than the SOL figure counts in its place, with
    Nsight's bands: above ``latency_sol_pct`` and ``balanced_margin_pct`` points above memory, or above the limit
    (FlashAttention's FP16 -> FP32 path at 61.5 % while SOL compute says 35 %)."""
    c, limit = ctx.sol.compute_pct, ctx.criteria["compute_high_pct"]
    top = ctx.limiters.top_compute
    tensor = max(ctx.units.of("tensor"), key=lambda x: x.busy, default=None)
    m = ctx.sol.memory_pct
    t = None if tensor is None else 100 * tensor.busy
    if t is not None and t > (c or 0.0) and t >= ctx.criteria["latency_sol_pct"] \
            and (t > limit or m is None or t - m >= ctx.criteria["balanced_margin_pct"]):
        # a tensor data path busier than the SM throughput shows (the pipe-cycle counter is measured against the
        # fastest path's peak): compute-bound on the tensor cores, as Nsight's bands would say of that figure
        note = Note("rule_compute_tensor", {"pct": t, "c": c, "m": m, "limit": limit,
                                            "headroom": 1.0 / max(tensor.hottest, 1e-9)})
        return ctx.bound("compute_throughput", COMPUTE_BOUND, note, Evidence(tensor.metric, t, "%"),
                         Evidence(SOL_COMPUTE, c, "%"), Evidence(SOL_MEMORY, m, "%"), key="compute_high_pct")
    if c is None and top is not None and top.pct > limit:
        note = Note("rule_compute_unit_only", {"unit": top.unit or top.metric, "unit_pct": top.pct, "limit": limit})
        return ctx.bound("compute_throughput", COMPUTE_BOUND, note, Evidence(top.metric, top.pct, "%"),
                         key="compute_high_pct")
    if c is None or c <= limit:
        return None
    if top is None:
        return ctx.bound("compute_throughput", COMPUTE_BOUND,
                         Note("rule_compute", {"c": c, "m": ctx.sol.memory_pct, "limit": limit}),
                         Evidence(SOL_COMPUTE, c, "%"), Evidence(SOL_MEMORY, ctx.sol.memory_pct, "%"), key="compute_high_pct")
    note = Note("rule_compute_unit", {"c": c, "m": ctx.sol.memory_pct, "limit": limit, "unit": top.unit or top.metric,
                                      "unit_pct": top.pct, "unit_kind": top.kind})
    return ctx.bound("compute_throughput", COMPUTE_BOUND, note, Evidence(SOL_COMPUTE, c, "%"),
                     Evidence(top.metric, top.pct, "%"), Evidence(SOL_MEMORY, ctx.sol.memory_pct, "%"),
                     key="compute_high_pct")


def latency_from_throughput(ctx: KernelContext, done: Done) -> Finding | None:
    """latency-bound: compute and memory both below ``latency_sol_pct`` with at least one full wave. Its ceiling
    (upper bound): every wait hidden, the busiest measured unit then at its peak (:func:`.performance.predict` of a
    change that hides all the waiting); the diagnosis keeps it only where no root cause is sized
    (:data:`.diagnosis.CEILING_FINDINGS`)."""
    c, m, limit = ctx.sol.compute_pct, ctx.sol.memory_pct, ctx.criteria["latency_sol_pct"]
    if c is None or m is None or max(c, m) >= limit or done.get("memory_throughput") or done.get("compute_throughput"):
        return None  # (memory-bound on the L1/TEX cache, compute-bound on a tensor path, with low SOL figures)
    if grid_is_small(ctx.waves_per_sm, ctx.criteria, ctx.kernel.launch.blocks, ctx.sm_count):
        return None  # a grid that does not fill the GPU explains the low throughput better
    f = ctx.bound("latency_from_throughput", LATENCY_BOUND, Note("sol_latency", {"c": c, "m": m, "limit": limit}),
                  Evidence(SOL_COMPUTE, c, "%"), Evidence(SOL_MEMORY, m, "%"), key="latency_sol_pct")
    hidden = Change({}, waiting=1.0, kind=UPPER_BOUND, what="all the latency hidden")
    return f.but(**ctx.sized(hidden))


def latency_from_grid(ctx: KernelContext, done: Done) -> Finding | None:
    """latency-bound: the grid itself gives each SM fewer than ``grid_warps_share`` of its warp slots (blocks x warps
    per block / SMs: a persistent or tiny grid), while the busiest measured unit stays below ``latency_sol_pct``.
    Without the Speed-of-Light section the compute figure is the busiest pipe of the breakdown."""
    blocks, sms, threads = ctx.kernel.launch.blocks, ctx.sm_count, ctx.kernel.launch.threads_per_block
    occ = ctx.occupancy
    if not blocks or not sms or not threads or occ is None or blocks < sms:
        return None
    grid_warps = blocks * math.ceil(threads / 32) / sms
    if grid_warps >= ctx.criteria["grid_warps_share"] * occ.max_warps_per_sm:
        return None
    c = ctx.sol.compute_pct if ctx.sol.compute_pct is not None else (
        ctx.limiters.top_compute.pct if ctx.limiters.top_compute else None)
    m = ctx.sol.memory_pct if ctx.sol.memory_pct is not None else (
        ctx.limiters.top_memory.pct if ctx.limiters.top_memory else (ctx.dram.value if ctx.dram else None))
    limit = ctx.criteria["latency_sol_pct"]
    if c is None or c >= limit or (m is not None and m >= limit):
        return None
    note = Note("rule_latency_grid", {"warps": grid_warps, "max_warps": occ.max_warps_per_sm, "c": c, "m": m,
                                      "limit": limit, "blocks": blocks, "sms": sms})
    return ctx.bound("latency_from_grid", LATENCY_BOUND, note, Evidence("grid_warps_per_sm", grid_warps, "warp"),
                     Evidence(SOL_COMPUTE if ctx.sol.compute_pct is not None else "compute_breakdown.max", c, "%"),
                     key="grid_warps_share")


def latency_from_long_scoreboard(ctx: KernelContext, done: Done) -> Finding | None:
    """latency-bound: Long Scoreboard above ``long_scoreboard_share`` of stalls while achieved occupancy is
    below ``occupancy_gap_ratio`` of theoretical (without a theoretical value: of the SM maximum, 100%)."""
    share = ctx.stall_share("long_scoreboard")
    achieved = ctx.kernel.achieved_occupancy_pct
    if share is None or achieved is None or share <= ctx.criteria["long_scoreboard_share"]:
        return None
    theoretical = ctx.theoretical_pct
    ratio = ctx.criteria["occupancy_gap_ratio"]
    reference = 100.0 if theoretical is None else theoretical
    if achieved >= ratio * reference:
        return None
    key = "rule_latency_ls" if theoretical is not None else "rule_latency_ls_no_theoretical"
    note = Note(key, {"share": share, "achieved": achieved, "theoretical": theoretical, "ratio": ratio})
    return ctx.bound("latency_from_long_scoreboard", LATENCY_BOUND, note,
                     Evidence("stall_share.long_scoreboard", share, "share"), Evidence(ACHIEVED, achieved, "%"),
                     Evidence(THEORETICAL, theoretical, "%"), key="long_scoreboard_share")


def occupancy_limited(ctx: KernelContext, done: Done) -> Finding | None:
    """occupancy-bound: registers or shared memory limit the resident blocks (the lesson's limiter), or the
    blocks-per-SM limit does (blocks too small to fill the warp slots: 32-thread blocks reach 32 of 64 warps), the
    warps are not busy (see :func:`occupancy_busy`; nor is Not Selected the top stall reason: ready warps already
    wait for an issue slot), and either
    (a) achieved occupancy is below ``occupancy_gap_ratio`` of theoretical with at least one full wave (a
        smaller grid explains the gap by itself), or
    (b) theoretical occupancy is at most ``occupancy_low_pct`` and the kernel shows latency: compute and memory
        both below ``latency_sol_pct`` and no unit of the performance model above it either (a tensor data path at
        61 % is busy, not waiting), or Long Scoreboard above ``long_scoreboard_share`` of stalls.
    Low occupancy alone is not a bottleneck (lesson 2: tuned GEMMs run at 30-50%)."""
    occ = ctx.occupancy
    if occ is None:
        return None
    limiters = [name for name in occ.limiters if name in ("registers", "shared_mem", "blocks")]
    if not limiters or done.get("occupancy_busy"):
        return None
    if ctx.stalls is not None and ctx.stalls.shares and ctx.stalls.shares[0].reason == "not_selected":
        return None  # the schedulers already have ready warps to pick from: more of them is not the remedy
    cr = ctx.criteria
    theoretical = occ.occupancy_pct
    achieved = ctx.kernel.achieved_occupancy_pct
    if ctx.waves_per_sm is not None and ctx.waves_per_sm < cr["small_grid_waves"]:
        return None  # fewer blocks than the SMs can hold: the grid, not registers or shared memory, caps occupancy
    gap = achieved is not None and achieved < cr["occupancy_gap_ratio"] * theoretical
    c, m = ctx.sol.compute_pct, ctx.sol.memory_pct
    ls = ctx.stall_share("long_scoreboard")
    busiest = max((x.busy for x in ctx.units.counters), default=None)
    latency = (c is not None and m is not None and max(c, m) < cr["latency_sol_pct"]
               and (busiest is None or 100 * busiest < cr["latency_sol_pct"])) or (
        ls is not None and ls > cr["long_scoreboard_share"]
    )
    low = theoretical <= cr["occupancy_low_pct"] and latency
    if not (low or gap):
        return None
    # the parameters that lift the limit: registers / shared memory, or for a block-count limit the block size
    params = ("threads_per_block",) if limiters == ["blocks"] else ("registers_per_thread", "shared_mem_per_block_bytes")
    steps = [st for st in next_step(occ, driver_carveout=True) if st.parameter in params]
    note = Note("rule_occupancy", {
        "limiter": limiters[0], "theoretical": theoretical, "achieved": achieved,
        "warps": occ.active_warps_per_sm, "max_warps": occ.max_warps_per_sm,
        "step_parameter": steps[0].parameter if steps else None, "step_current": steps[0].current if steps else None,
        "step_proposed": steps[0].proposed if steps else None,
        "step_warps": steps[0].result.active_warps_per_sm if steps else None,
    })
    found = ctx.bound("occupancy_limited", OCCUPANCY_BOUND, note, Evidence("occupancy.theoretical_pct", theoretical, "%"),
                      Evidence(ACHIEVED, achieved, "%"), key="occupancy_low_pct" if low else "occupancy_gap_ratio")
    if not steps or not occ.active_warps_per_sm:  # the class holds, but no remedy: the other findings advise
        return replace(found, advice=None, remedies=(), speedup_note="not estimated: no single change of registers "
                       "or shared memory raises the warps per SM")
    k = steps[0].result.active_warps_per_sm / occ.active_warps_per_sm
    change = Change(warps=max(1.0, k), kind=UPPER_BOUND,
                    what=f"{steps[0].result.active_warps_per_sm} instead of {occ.active_warps_per_sm} warps per SM "
                         f"({k:.2f}x: Little's law, until a unit saturates)")
    return replace(found, advice="finding:occupancy_limited", remedies=(), **ctx.sized(change))


def one_unit_not_balanced(ctx: KernelContext, done: Done) -> Finding | None:
    """compute-bound (on that unit): Nsight calls the kernel "balanced" (compute and memory within
    ``balanced_margin_pct`` points), but both figures are the same unit, the LSU pipe issuing the L1 requests:
    one unit is busy, not two."""
    if ctx.sol.bound != BALANCED or not ctx.limiters.same_unit() or any(
            f.bound for rule_id in _CLASS_RULES for f in done.get(rule_id, ())):
        return None
    top = ctx.limiters.top_compute
    note = Note("rule_one_unit", {"c": ctx.sol.compute_pct, "m": ctx.sol.memory_pct, "unit": top.unit,  # type: ignore[union-attr]
                                  "unit_pct": top.pct})  # type: ignore[union-attr]
    return ctx.bound("one_unit_not_balanced", COMPUTE_BOUND, note, Evidence(SOL_COMPUTE, ctx.sol.compute_pct, "%"),
                     Evidence(SOL_MEMORY, ctx.sol.memory_pct, "%"), Evidence(top.metric, top.pct, "%"),  # type: ignore[union-attr]
                     key="balanced_margin_pct")


def headline_advice(ctx: KernelContext, done: Done) -> Finding | None:
    """When no class rule fired: the advice of the headline class (the Speed-of-Light class, else the roofline's),
    with its ideal's ceiling (:func:`.math_floor.reuse_change`, ``everything``: only the math left; kept as
    :data:`.diagnosis.CEILING_FINDINGS` are)."""
    if any(f.bound for rule_id in (*_CLASS_RULES, "one_unit_not_balanced") for f in done.get(rule_id, ())) \
            or ctx.headline is None:
        return None
    f = Finding("headline_advice", "info", Note("headline_advice", {"bound": ctx.headline}), bound=None,
                source=source("latency_sol_pct"), **ctx.class_advice(ctx.headline))
    ideal = reuse_change(ctx.units, ctx.roofline, ctx.compute_capability, ctx.kernel.metrics, everything=True)
    return f if ideal is None else f.but(**ctx.sized(ideal))


# ----------------------------------------------------------------------------------------- occupancy notes


def occupancy_busy(ctx: KernelContext, done: Done) -> Finding | None:
    """The occupancy trade-off: when Math Pipe Throttle + Not Selected reach ``busy_share`` of the stall
    cycles the warps already keep the schedulers busy, and more occupancy would not help."""
    share = ctx.stall_share(*BUSY_REASONS)
    if share is None or share < ctx.criteria["busy_share"]:
        return None
    return Finding("occupancy_busy", "info", Note("occupancy_busy", {"share": share, "achieved": ctx.kernel.achieved_occupancy_pct}),
                   (Evidence("stall_share.math_pipe_throttle+not_selected", share, "share"),), source=source("busy_share"))


def tail_effect(ctx: KernelContext, done: Done) -> Finding | None:
    """A partial last wave after at least one full one that leaves more than ``tail_idle_share`` of the SM time
    idle: (ceil(waves) - waves) / ceil(waves). Change (upper bound): that idle SM time, at most the SM time the
    report measured idle (sm__cycles_active: SMs busy 93 % of the time cannot gain more than 1 / 0.93)."""
    w = ctx.waves_per_sm
    if w is None or w < 1.0:
        return None  # one partial wave: every SM runs the whole kernel; a low block count per SM is occupancy
    waves = math.ceil(w)
    idle = (waves - w) / waves  # share of SM time left idle by the partial last wave
    if idle <= ctx.criteria["tail_idle_share"]:
        return None
    measured = ctx.units.idle_sm
    recovered = idle if measured is None else min(idle, measured)
    change = Change(idle=recovered, spreads=True, kind=UPPER_BOUND,
                    what=f"the last wave's idle SM time: {idle:.3f} from the waves"
                         + (f", {measured:.3f} of the SM time measured idle" if measured is not None else ""))
    return Finding("tail_effect", "optimization", Note("tail_effect", {"waves": w, "last_pct": (w - int(w)) * 100,
                                                                     "idle": idle, "measured_idle": measured}),
                   (Evidence(WAVES, w), Evidence("sm__cycles_active / sm__cycles_elapsed", measured, "share")),
                   advice="finding:tail_effect", source=source("tail_idle_share"),
                   remedies=ctx.first_remedy("tail_effect"), **ctx.sized(change))  # a library's: its call, not its grid


def occupancy_gap(ctx: KernelContext, done: Done) -> Finding | None:
    """Achieved occupancy below ``occupancy_gap_ratio`` of theoretical (a partial wave, uneven blocks, a short kernel;
    a grid too small to fill the GPU, where it is one, named as the cause). Over ``w`` waves a partial last wave
    holds the SMs below theoretical for at most one wave in ceil(w): it lowers the average by at most theoretical /
    ceil(w); a larger gap is not its doing, and the note says so (``occupancy_gap_waves``)."""
    achieved, theoretical = ctx.kernel.achieved_occupancy_pct, ctx.theoretical_pct
    if achieved is None or not theoretical or achieved >= ctx.criteria["occupancy_gap_ratio"] * theoretical:
        return None
    waves = ctx.waves_per_sm
    small = grid_is_small(waves, ctx.criteria, ctx.kernel.launch.blocks, ctx.sm_count)  # (its cause)
    tail_points = theoretical / math.ceil(waves) if waves is not None and waves > 0 else None
    many = not small and tail_points is not None and theoretical - achieved > tail_points
    values = {"achieved": achieved, "theoretical": theoretical, "waves": waves, **({"tail_points": tail_points} if many else {})}
    note = Note("occupancy_gap_grid" if small else "occupancy_gap_waves" if many else "occupancy_gap", values)
    return Finding("occupancy_gap", "info", note, (Evidence(ACHIEVED, achieved, "%"), Evidence(THEORETICAL, theoretical, "%")),
                   source=source("occupancy_gap_ratio"))


# ------------------------------------------------------------------------------------------- stall reasons


_CLASS_RULES = ("small_grid", "short_kernel", "memory_throughput", "compute_throughput", "latency_from_throughput",
                "latency_from_grid",
                "latency_from_long_scoreboard", "occupancy_limited")

#: Every kernel rule, in the order their findings are listed.
KERNEL_RULES: tuple[Rule[KernelContext], ...] = (
    Rule("speed_of_light", speed_of_light, inputs=(SOL_COMPUTE, SOL_MEMORY, WAVES)),
    Rule("small_grid", small_grid, parents=("speed_of_light",), inputs=(WAVES,)),
    Rule("short_kernel", short_kernel, parents=("speed_of_light",), inputs=(DURATION,)),
    Rule("memory_throughput", memory_throughput, parents=("speed_of_light",), inputs=(SOL_MEMORY, DRAM_PCT)),
    Rule("compute_throughput", compute_throughput, parents=("speed_of_light",), inputs=(SOL_COMPUTE,)),
    Rule("latency_from_throughput", latency_from_throughput,
         parents=("speed_of_light", "memory_throughput", "compute_throughput"),
         inputs=(SOL_COMPUTE, SOL_MEMORY)),
    Rule("latency_from_grid", latency_from_grid, parents=("speed_of_light",), inputs=("launch__grid_size",)),
    Rule("latency_from_long_scoreboard", latency_from_long_scoreboard, parents=("speed_of_light",),
         inputs=(STALL_METRIC.format("long_scoreboard"), ACHIEVED, THEORETICAL)),
    Rule("occupancy_busy", occupancy_busy, inputs=tuple(STALL_METRIC.format(r) for r in BUSY_REASONS)),
    Rule("occupancy_limited", occupancy_limited, parents=("speed_of_light", "occupancy_busy"),
         inputs=("launch__registers_per_thread", "launch__shared_mem_per_block_static", ACHIEVED)),
    Rule("one_unit_not_balanced", one_unit_not_balanced, parents=_CLASS_RULES),
    Rule("headline_advice", headline_advice, parents=(*_CLASS_RULES, "one_unit_not_balanced")),
    Rule("tail_effect", tail_effect, inputs=(WAVES,)),
    Rule("occupancy_gap", occupancy_gap, inputs=(ACHIEVED, THEORETICAL)),
)


"""Bottleneck-class rules: one small function per concern, each with its metrics and threshold.

In the style of Nsight Compute's rule files: every rule reads a few measured values from a
:class:`RuleContext`, compares them with one criterion of ``verdicts.toml`` ``[criteria]`` (each with its
source, overridable with ``--criteria FILE``) and returns a :class:`Finding` (a class and the evidence that
triggered it) or None. :func:`classify` runs them all; several classes may hold at once ("memory + latency").
A rule whose inputs were not measured does not fire and says nothing: it never guesses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from typing import TYPE_CHECKING

from . import knowledge
from .model import KernelProfile
from .notes import COMPUTE_BOUND, LATENCY_BOUND, LAUNCH_BOUND, MEMORY_BOUND, OCCUPANCY_BOUND, Note
from .stalls import StallBreakdown

if TYPE_CHECKING:
    from .diagnosis import SolVerdict
    from .occupancy import Occupancy
#: Order in which classes are listed when several hold.
CLASS_ORDER = (LAUNCH_BOUND, MEMORY_BOUND, COMPUTE_BOUND, LATENCY_BOUND, OCCUPANCY_BOUND)
#: Stall reasons that mean the warps are busy issuing or waiting on a saturated pipe (lesson 2).
BUSY_REASONS = ("math_pipe_throttle", "not_selected")


@dataclass(frozen=True)
class RuleContext:
    """What the rules may look at for one launch.

    Attributes:
        kernel: the measured launch.
        sol: its Speed-of-Light numbers.
        occupancy: theoretical occupancy from the launch configuration, or None when not computable.
        stalls: the stall breakdown, or None.
        waves_per_sm: full waves of blocks across all SMs (measured, or blocks / (blocks per SM x SMs)), or None.
        criteria: thresholds (``verdicts.toml`` ``[criteria]`` with user overrides).
    """

    kernel: KernelProfile
    sol: SolVerdict
    occupancy: Occupancy | None
    stalls: StallBreakdown | None
    waves_per_sm: float | None
    criteria: Mapping[str, Any]

    @property
    def theoretical_pct(self) -> float | None:
        """Theoretical occupancy %: the profiler's when measured, else ours, else None."""
        if self.kernel.theoretical_occupancy_pct is not None:
            return self.kernel.theoretical_occupancy_pct
        return self.occupancy.occupancy_pct if self.occupancy is not None else None

    def stall_share(self, *reasons: str) -> float | None:
        """Summed share of stall cycles (selected excluded) of ``reasons``, or None without stall data."""
        if self.stalls is None or not self.stalls.shares:
            return None
        return sum(s.share_of_stalls for s in self.stalls.shares if s.reason in reasons)


@dataclass(frozen=True)
class Finding:
    """A rule that fired: the class it supports and the measured values that triggered it."""

    bound: str
    evidence: Note


def small_grid(ctx: RuleContext) -> Finding | None:
    """launch-bound: fewer than ``small_grid_waves`` full waves (Nsight's "Small Grid")."""
    w, limit = ctx.waves_per_sm, ctx.criteria["small_grid_waves"]
    if w is not None and w < limit:
        return Finding(LAUNCH_BOUND, Note("small_grid", {"waves": w, "limit": limit}))
    return None


def short_kernel(ctx: RuleContext) -> Finding | None:
    """launch-bound: shorter than ``short_kernel_s``, i.e. comparable to the launch overhead itself."""
    d, limit = ctx.kernel.duration_s, ctx.criteria["short_kernel_s"]
    if d is not None and d < limit:
        return Finding(LAUNCH_BOUND, Note("short_kernel", {"us": d * 1e6, "limit_us": limit * 1e6}))
    return None


def memory_throughput(ctx: RuleContext) -> Finding | None:
    """memory-bound: memory throughput above ``memory_high_pct`` of peak. Without the memory SOL value, DRAM
    throughput stands in for it (memory SOL is the maximum over the memory units, DRAM among them)."""
    m, limit = ctx.sol.memory_pct, ctx.criteria["memory_high_pct"]
    if m is not None and m > limit:
        return Finding(MEMORY_BOUND, Note("rule_memory", {"m": m, "c": ctx.sol.compute_pct, "limit": limit}))
    dram = ctx.kernel.dram_throughput_pct
    if m is None and dram is not None and dram > limit:
        return Finding(MEMORY_BOUND, Note("rule_memory_dram", {"dram": dram, "limit": limit}))
    return None


def compute_throughput(ctx: RuleContext) -> Finding | None:
    """compute-bound: SM throughput above ``compute_high_pct`` of peak."""
    c, limit = ctx.sol.compute_pct, ctx.criteria["compute_high_pct"]
    if c is not None and c > limit:
        return Finding(COMPUTE_BOUND, Note("rule_compute", {"c": c, "m": ctx.sol.memory_pct, "limit": limit}))
    return None


def latency_from_throughput(ctx: RuleContext) -> Finding | None:
    """latency-bound: compute and memory both below ``latency_sol_pct`` with at least one full wave."""
    c, m, limit = ctx.sol.compute_pct, ctx.sol.memory_pct, ctx.criteria["latency_sol_pct"]
    if c is None or m is None or max(c, m) >= limit:
        return None
    if ctx.waves_per_sm is not None and ctx.waves_per_sm < ctx.criteria["small_grid_waves"]:
        return None  # a grid that does not fill the GPU explains the low throughput better
    return Finding(LATENCY_BOUND, Note("sol_latency", {"c": c, "m": m, "limit": limit}))


def latency_from_long_scoreboard(ctx: RuleContext) -> Finding | None:
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
    return Finding(LATENCY_BOUND, Note(key, {"share": share, "achieved": achieved, "theoretical": theoretical, "ratio": ratio}))


def occupancy_limited(ctx: RuleContext) -> Finding | None:
    """occupancy-bound: registers or shared memory limit the resident blocks (the lesson's limiter), the
    warps are not busy (see :func:`busy_warps`), and either
    (a) achieved occupancy is below ``occupancy_gap_ratio`` of theoretical with at least one full wave (a
        smaller grid explains the gap by itself), or
    (b) theoretical occupancy is below ``occupancy_low_pct`` and the kernel shows latency: compute and memory
        both below ``latency_sol_pct``, or Long Scoreboard above ``long_scoreboard_share`` of stalls.
    Low occupancy alone is not a bottleneck (lesson 2: tuned GEMMs run at 30-50%)."""
    occ = ctx.occupancy
    if occ is None:
        return None
    limiters = [l for l in occ.limiters if l in ("registers", "shared_mem")]
    if not limiters or busy_warps(ctx) is not None:
        return None
    cr = ctx.criteria
    theoretical = occ.occupancy_pct
    achieved = ctx.kernel.achieved_occupancy_pct
    full_waves = ctx.waves_per_sm is None or ctx.waves_per_sm >= cr["small_grid_waves"]
    gap = full_waves and achieved is not None and achieved < cr["occupancy_gap_ratio"] * theoretical
    c, m = ctx.sol.compute_pct, ctx.sol.memory_pct
    ls = ctx.stall_share("long_scoreboard")
    latency = (c is not None and m is not None and max(c, m) < cr["latency_sol_pct"]) or (
        ls is not None and ls > cr["long_scoreboard_share"]
    )
    low = theoretical < cr["occupancy_low_pct"] and latency
    if not (low or gap):
        return None
    return Finding(OCCUPANCY_BOUND, Note("rule_occupancy", {
        "limiter": limiters[0], "theoretical": theoretical, "achieved": achieved,
        "warps": occ.active_warps_per_sm, "max_warps": occ.max_warps_per_sm,
    }))


RULES: tuple[Callable[[RuleContext], Finding | None], ...] = (
    small_grid,
    short_kernel,
    memory_throughput,
    compute_throughput,
    latency_from_throughput,
    latency_from_long_scoreboard,
    occupancy_limited,
)


def busy_warps(ctx: RuleContext) -> Note | None:
    """The occupancy trade-off: when Math Pipe Throttle + Not Selected reach ``busy_share`` of the stall
    cycles the warps already keep the schedulers busy, and more occupancy would not help."""
    share = ctx.stall_share(*BUSY_REASONS)
    if share is None or share < ctx.criteria["busy_share"]:
        return None
    return Note("occupancy_busy", {"share": share, "achieved": ctx.kernel.achieved_occupancy_pct})


def occupancy_notes(ctx: RuleContext) -> tuple[Note, ...]:
    """Why achieved occupancy can sit far below theoretical (tail effect, short kernel, imbalance), and the
    trade-off note when the warps are busy."""
    notes: list[Note] = []
    busy = busy_warps(ctx)
    if busy is not None:
        notes.append(busy)
    achieved, theoretical = ctx.kernel.achieved_occupancy_pct, ctx.theoretical_pct
    w = ctx.waves_per_sm
    if w is not None and w >= ctx.criteria["small_grid_waves"]:
        waves = math.ceil(w)
        idle = (waves - w) / waves  # share of SM time left idle by the partial last wave
        if idle > ctx.criteria["tail_idle_share"]:
            notes.append(Note("tail_effect", {"waves": w, "last_pct": (w - int(w)) * 100, "idle": idle}))
    if achieved is not None and theoretical and achieved < ctx.criteria["occupancy_gap_ratio"] * theoretical:
        notes.append(Note("occupancy_gap", {"achieved": achieved, "theoretical": theoretical}))
    return tuple(notes)


def waves_per_sm(kernel: KernelProfile, occupancy: Occupancy | None, sm_count: int | None) -> float | None:
    """Full waves of the grid: Nsight's ``launch__waves_per_multiprocessor`` when measured, else
    blocks / (active blocks per SM x SM count). None when neither is known."""
    if kernel.launch.waves_per_sm is not None:
        return kernel.launch.waves_per_sm
    blocks = kernel.launch.blocks
    if blocks is None or occupancy is None or not sm_count or occupancy.active_blocks_per_sm == 0:
        return None
    return blocks / (occupancy.active_blocks_per_sm * sm_count)


def criteria(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The thresholds of ``verdicts.toml`` ``[criteria]`` with ``overrides`` applied.

    Raises:
        KeyError: an override names no known criterion; ValueError: an override is not a positive number.
    """
    table = {k: v for k, v in knowledge.verdicts()["criteria"].items() if not k.endswith("_source")}
    for key, value in (overrides or {}).items():
        if key not in table:
            raise KeyError(f"unknown criterion '{key}'; expected one of {', '.join(sorted(table))}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"criterion '{key}' must be a positive number, got {value!r}")
        table[key] = float(value)
    return table


def classify(ctx: RuleContext) -> tuple[tuple[str, ...], tuple[Note, ...]]:
    """Run every rule; return the classes that hold (in :data:`CLASS_ORDER`) and their evidence."""
    findings = [f for rule in RULES if (f := rule(ctx)) is not None]
    classes = tuple(c for c in CLASS_ORDER if any(f.bound == c for f in findings))
    return classes, tuple(f.evidence for f in findings)

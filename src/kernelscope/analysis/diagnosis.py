"""Per-kernel diagnosis: roofline position, Speed-of-Light class, warp stalls, the kernel rules' findings and
the advice they point to; and a whole report's diagnosis with its "where GPU time goes" groups.

Pure functions over :class:`kernelscope.model.KernelProfile` and :class:`kernelscope.model.GpuSpec`; no I/O
and no printing. Thresholds come from ``data/verdicts.toml`` (each with its source). Findings carry
:class:`~kernelscope.notes.Note` values (a template key plus its numbers), so that every renderer can word
them in the user's language (templates in ``data/labels.toml``, table ``[note]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from ..errors import UnknownGpuError
from ..knowledge.criteria import criteria as default_criteria
from ..knowledge.criteria import source
from ..knowledge.findings import findings as finding_texts
from ..knowledge.remedies import applicable
from ..knowledge.gpus import DERIVED_ORIGIN, derived_spec, find_gpu, find_typed_gpu
from ..knowledge.plausibility import screen
from ..model import GpuSpec, KernelProfile, ProfileReport
from ..notes import (BALANCED, COMPUTE_BOUND, LATENCY_BOUND, LAUNCH_BOUND, MEMORY_BOUND, OCCUPANCY_BOUND, SMALL_GRID,
                     Listed, Note, cached, quick_init)
from .engine import Evidence, Finding, by_gain, run_rules
from .advice_order import rank_and_share
from .performance import Units, conservative_value, measured_share, units_of
from .causes import CAUSE_RULES, limiter_unit, program_gain
from .design import Design, design_of, facts_of
from .design_rules import DESIGN_RULES, GATE_FINDINGS
from .kernel_rules import CLASS_ORDER, KERNEL_RULES, KernelContext, SolVerdict, classify_sol
from .limiters import Limiters, MemoryLevel, limiters, limiting_level, memory_levels
from .nsight import NsightMatch, match_nsight
from .occupancy import Occupancy, occupancy_of, waves_per_sm
from .plausible import screen_against_gpu
from .roofline import RooflinePoint, kernel_points, useful_point
from .scaling import same_traffic, serialised_blocks
from .selection import select_kernels
from .stalls import StallBreakdown, stall_breakdown

__all__ = [
    "BALANCED", "COMPUTE_BOUND", "LATENCY_BOUND", "LAUNCH_BOUND", "MEMORY_BOUND", "OCCUPANCY_BOUND", "SMALL_GRID",
    "KernelDiagnosis", "KernelGroup", "Note", "ReportDiagnosis", "SolVerdict", "classify_sol", "diagnose",
    "diagnose_report", "group_by_name", "ReportDiagnoser",
]

#: Every rule a launch's diagnosis runs: what the kernel is, the bottleneck classes, then the root causes.
RULES = DESIGN_RULES + KERNEL_RULES + CAUSE_RULES
#: Findings that do not replace the bottleneck class's generic paragraph (they say what the report lacks).
FALLBACK_FINDINGS = ("not_collected", "waste_not_collected")
#: Stall families whose values are sample counts (a share of few samples is noise).
SAMPLED_FAMILIES = ("pc_sampling", "warp_id_sampling")
#: Findings shown as occupancy notes, in this order.
OCCUPANCY_NOTES = ("occupancy_busy", "tail_effect", "occupancy_gap")


@quick_init
@dataclass(frozen=True)
class KernelDiagnosis:
    """Everything kernelscope concludes about one kernel launch.

    Attributes:
        kernel: the profile it was derived from.
        gpu: the spec whose ceilings were used, or None when the profile names no GPU and none was given
            (then there is no roofline; everything else is still diagnosed).
        provenance: where the peaks came from (catalogue datasheet, spec file, measured), and the report's
            own device attributes next to the spec's when the report records them.
        roofline: the point for the pipe the kernel uses most, or None when no ceiling applies.
        roofline_by_pipe: one point per pipe with FLOPs > 0 in the profile (e.g. fp64, fp32, fp16).
        notes: how the pipe was chosen, why quantities are missing, and consistency warnings.
        sol: the Speed-of-Light class, as Nsight Compute's own SOLBottleneck rule decides it.
        occupancy: theoretical occupancy from the launch configuration (our calculator), or None.
        waves_per_sm: full waves of blocks across the SMs, or None.
        stalls: warp-stall breakdown, or None when no stall metrics were collected.
        findings: every finding of the kernel rules (:data:`RULES`: bottleneck classes, then root causes), in
            rule order.
        limiters: the busiest hardware units of each side (compute pipes, memory units).
        levels: the memory hierarchy as measured (L1, shared, L2, DRAM: throughput, bytes, hit rate, intensity).
        time_share: this launch's share of its report's GPU time (0-1), or None when unknown (a launch diagnosed
            alone, or durations not measured).
        locations: finding id -> its top instructions (:class:`kernelscope.analysis.source.Location`), set by
            :func:`kernelscope.api.diagnose_file` when the report holds per-instruction data; empty otherwise.
        useful_roofline: the launch's point for the USEFUL FLOPs (``KernelProfile.useful_flops``, given by the user)
            on the same pipe, ceilings, bytes and duration as ``roofline`` (whose FLOPs are the executed ones); None
            when no useful count was given or there is no roofline (:func:`.roofline.useful_point`).
        units: the busy shares of the launch's units, as the performance model sees them (:mod:`.performance`).
        design: what the report shows of the kernel itself (library, asynchronous copies, tensor instructions, debug
            build, persistent grid: :func:`.design.design_of`), or None for a launch built without it.
        facts: the facts its remedies' preconditions were checked against (:func:`.design.facts_of`).
    """

    kernel: KernelProfile
    gpu: GpuSpec | None
    provenance: tuple[Note, ...]
    roofline: RooflinePoint | None
    roofline_by_pipe: tuple[RooflinePoint, ...]
    notes: tuple[Note, ...]
    sol: SolVerdict
    occupancy: Occupancy | None
    waves_per_sm: float | None
    stalls: StallBreakdown | None
    findings: tuple[Finding, ...]
    limiters: Limiters = Limiters((), ())
    levels: tuple[MemoryLevel, ...] = ()
    time_share: float | None = None
    locations: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    useful_roofline: RooflinePoint | None = None
    units: Units = Units()
    design: Design | None = None
    facts: frozenset[str] = frozenset()

    @cached
    def classes(self) -> tuple[str, ...]:
        """kernelscope's bottleneck classes, several when several hold (e.g. memory-bound + latency-bound), in
        :data:`kernelscope.analysis.kernel_rules.CLASS_ORDER`."""
        found = {f.bound for f in self.findings if f.severity == "bound"}
        return tuple(c for c in CLASS_ORDER if c in found)

    @property
    def evidence(self) -> tuple[Note, ...]:
        """The measured values that triggered each class (one note per class finding)."""
        return tuple(f.message for f in self.findings if f.severity == "bound")

    @property
    def occupancy_notes(self) -> tuple[Note, ...]:
        """The occupancy trade-off (busy warps), the tail effect and why achieved sits below theoretical."""
        return tuple(f.message for i in OCCUPANCY_NOTES for f in self.findings if f.id == i)

    @cached
    def advice_findings(self) -> tuple[Finding, ...]:
        """The findings whose advice to give, most important first: the specific ones (``finding:<id>``: a root
        cause with its one action) in the performance model's ranking (``Finding.rank``: by conservative value,
        then those without an estimate, then the negligible ones; by estimate for findings without a rank); the generic class and stall-reason paragraphs
        (``class:<bound>``, ``stall:<reason>``) only when no specific finding applies. One finding per advice id."""
        if any(f.rank is not None for f in self.findings):
            ranked = sorted((f for f in self.findings if f.advice), key=lambda f: (f.rank is None, f.rank or 0))
        else:
            ranked = [f for f in by_gain(self.findings) if f.advice]
        specific = [f for f in ranked if f.advice.startswith("finding:")]  # type: ignore[union-attr]
        if specific and all(f.negligible or f.id in FALLBACK_FINDINGS for f in specific):
            # nothing worth it, or only what the report cannot tell: the generic paragraph first
            specific = [f for f in ranked if not f.advice.startswith("finding:")][:1] + specific  # type: ignore[union-attr]
        chosen: dict[str, Finding] = {}
        for f in specific or ranked:
            chosen.setdefault(f.advice, f)  # type: ignore[arg-type]
        return tuple(chosen.values())

    @property
    def worthwhile_advice(self) -> tuple[Finding, ...]:
        """The advice findings worth acting on, the ones the short report lists (``--details``: every one):
        :attr:`advice_findings` without the negligible ones (a gain below ``min_worthwhile_speedup``, the one
        threshold, in ``verdicts.toml`` with its reason)."""
        shown = self.advice_findings
        if any(f.id == "nothing_worthwhile" for f in shown):  # not worth tuning: what else to collect is moot
            shown = tuple(f for f in shown if f.id not in FALLBACK_FINDINGS)
        return tuple(f for f in shown if not f.negligible)

    @property
    def advice(self) -> tuple[str, ...]:
        """Advice ids, most important first (see :attr:`advice_findings`): ``"finding:<id>"``, or as a fallback
        ``"class:<bound>"`` (its sentences: the finding's ``remedies``) and ``"stall:<reason>"``."""
        return tuple(f.advice for f in self.advice_findings)  # type: ignore[misc]

    def program_gain(self, finding: Finding) -> float | None:
        """The share of the report's GPU time saved if ``finding``'s cause were removed (Amdahl): time_share x the
        share of the launch's time it saves after the findings ranked above it (``Finding.saved_share``), so that
        the savings of one launch's findings add up to at most its share; without a ranking, time_share x
        (1 - 1 / its estimate). None when either is unknown."""
        if finding.saved_share is not None and self.time_share is not None:
            return self.time_share * finding.saved_share
        return program_gain(self.time_share, finding.gain)

    @property
    def limiting_level(self) -> MemoryLevel | None:
        """The memory level closest to its peak (highest throughput %), or None when none was measured."""
        return limiting_level(self.levels)

    @property
    def nsight_matches(self) -> tuple[NsightMatch, ...]:
        """Nsight Compute's stored rule findings beside kernelscope's (:func:`.nsight.match_nsight`): agreements,
        causes only one of them saw; empty when the report stores no rule results."""
        return match_nsight(self.kernel.rules, self.findings)

    @property
    def ncu_bottleneck(self) -> str | None:
        """The class Nsight Compute's own SOLBottleneck rule stored (same vocabulary as ``sol.bound``), or None."""
        return self.kernel.nsight_sol_class

    @property
    def ncu_bottleneck_title(self) -> str | None:
        """That rule result's title, e.g. ``"High Memory Throughput"``, or None."""
        return self.kernel.nsight_sol_title

    @property
    def bound(self) -> str | None:
        """The headline class: the first of ``classes``; when no rule fired, the SOL class; else the
        roofline's memory/compute verdict; None when nothing was measured."""
        if self.classes:
            return self.classes[0]
        if self.sol.bound is not None:
            return self.sol.bound
        return self.roofline.bound if self.roofline is not None else None

    @property
    def verdict(self) -> tuple[str, ...]:
        """Every class that holds (``classes``), or the single headline class when no rule fired."""
        return self.classes or ((self.bound,) if self.bound is not None else ())


def provenance(gpu: GpuSpec, kernel: KernelProfile) -> tuple[Note, ...]:
    """Where the ceilings come from, and the report's own device attributes next to the spec's; first, when the
    report names another GPU than the one whose ceilings are used (``--gpu``), that (its clocks, SMs and durations
    are of the GPU it ran on)."""
    dev = kernel.device
    notes = [Note("device_named_differ", {"report": dev.display_name, "gpu": gpu.name})] if (
        gpu.origin == "catalogue" and _names_other_gpu(dev.display_name, gpu)) else []
    if gpu.origin == "catalogue":
        notes.append(Note("peaks_catalogue", {"gpu": gpu.name}))
    else:
        notes.append(Note("peaks_measured" if gpu.measured else "peaks_given", {"gpu": gpu.name, "origin": gpu.origin}))
    if dev.sm_count is not None:
        same = gpu.sm_count is None or gpu.sm_count == dev.sm_count
        notes.append(Note("device_sms" if same else "device_sms_differ", {"sms": dev.sm_count, "spec_sms": gpu.sm_count}))
    if dev.max_sm_clock_hz is not None:
        spec = gpu.boost_clock_hz
        same = spec is None or abs(spec - dev.max_sm_clock_hz) <= 0.01 * spec
        notes.append(Note(
            "device_clock" if same else "device_clock_differ",
            {"ghz": dev.max_sm_clock_hz / 1e9, "spec_ghz": None if spec is None else spec / 1e9},
        ))
    return tuple(notes)


def _names_other_gpu(display_name: str | None, gpu: GpuSpec) -> bool:
    """Whether the report's device name is a GPU of the catalogue other than ``gpu`` (a name the catalogue does not
    know, or none, says nothing either way)."""
    if not display_name:
        return False
    try:
        return find_gpu(display_name).name != gpu.name
    except UnknownGpuError:
        return False


def consistency_notes(kernel: KernelProfile, roofline: RooflinePoint | None, sol: SolVerdict,
                      efficiency_warning: float) -> tuple[Note, ...]:
    """Warnings where measurements contradict each other or a ceiling, and where the DRAM roofline and the
    Speed-of-Light verdict point at different units (both are right: the roofline sees only DRAM traffic)."""
    notes: list[Note] = []
    limit = efficiency_warning
    if roofline is not None and roofline.efficiency is not None and roofline.efficiency > limit:
        notes.append(Note("efficiency_above_roof", {"efficiency": roofline.efficiency}))
    a, t = kernel.achieved_occupancy_pct, kernel.theoretical_occupancy_pct
    if a is not None and t is not None and a > t + 1.0:
        notes.append(Note("occupancy_above_theoretical", {"achieved": a, "theoretical": t}))
    if (
        roofline is not None and roofline.bound is not None
        and sol.bound in (COMPUTE_BOUND, MEMORY_BOUND) and sol.bound != roofline.bound
    ):
        notes.append(Note("roofline_vs_sol", {
            "roofline": roofline.bound, "ai": roofline.arithmetic_intensity_flop_per_byte,
            "ridge": roofline.ridge_point_flop_per_byte, "sol": sol.bound,
            "pipe": roofline.pipe,  # the kind of work: OP/B for an integer pipe (INT8 tensor cores)
        }))
    return tuple(notes)


def diagnose(kernel: KernelProfile, gpu: GpuSpec | None, criteria: Mapping[str, Any] | None = None) -> KernelDiagnosis:
    """Diagnose one kernel launch against one GPU spec.

    Args:
        kernel: the measured launch (SI units).
        gpu: the ceilings to use (catalogue entry, spec file, or measured ceilings); None when unknown: the
            roofline is then not drawn and says why.
        criteria: rule thresholds (:func:`kernelscope.knowledge.criteria.criteria`); None = the defaults.

    Returns:
        A :class:`KernelDiagnosis`; anything the profile did not measure is None with a stated reason.
    """
    crit = criteria if criteria is not None else default_criteria()
    if kernel.duration_s is not None and not kernel.duration_s > 0:
        # a reader should never hand this on; if one does, it is not a measurement
        kernel = replace(kernel, duration_s=None, problems=kernel.problems + (f"duration {kernel.duration_s} s is not a measurement",))
    # values that cannot be real are kept out (a hand-built profile too), then those above this GPU's roofs
    kernel = screen_against_gpu(screen(kernel), gpu, crit["efficiency_warning"])
    main, by_pipe, notes = kernel_points(kernel, gpu, crit["tensor_pipe_active_pct"], crit)
    sm_count = kernel.device.sm_count or (gpu.sm_count if gpu is not None else None)
    limits = limiters(kernel)
    sol = classify_sol(kernel.sol_compute_pct, kernel.sol_memory_pct, kernel.launch.waves_per_sm, crit)
    stalls = None
    if kernel.stall_values:
        stalls = stall_breakdown(kernel.stall_values, kernel.stall_family, kernel.cycles_per_issued_instruction)
    sample_notes: tuple[Note, ...] = ()
    if stalls is not None and stalls.family in SAMPLED_FAMILIES and stalls.total < crit["min_stall_samples"]:
        # too few samples for shares: +-1/sqrt(n) of noise (10 samples: +-30 points); not a measurement
        sample_notes = (Note("stall_samples_too_few", {"samples": stalls.total, "limit": crit["min_stall_samples"]}),)
        stalls = None
    occ = occupancy_of(kernel, gpu.compute_capability if gpu is not None else None)
    waves = waves_per_sm(kernel, occ, sm_count)
    useful, useful_notes = useful_point(kernel, main)
    headline = sol.bound if sol.bound is not None else (main.bound if main is not None else None)
    levels = memory_levels(kernel, main.flops if main is not None else None)
    units = units_of(kernel, {s.reason: s.share for s in stalls.shares} if stalls is not None else None,
                     stalls.selected_value / stalls.total if stalls is not None and stalls.selected_value is not None
                     and stalls.total else None, crit["short_kernel_s"],
                     main.derived_dram_throughput_pct if main is not None else None)
    design = design_of(kernel, occ, sm_count)
    facts = facts_of(design, kernel, gpu, occ, stalls, units, notes, crit, sm_count, waves)
    ctx = KernelContext(kernel, gpu, sol, occ, stalls, waves, headline, crit, limits, levels, main, units, design, facts)
    found = ranked(run_rules(RULES, ctx, ctx.admit), units, crit["min_worthwhile_speedup"], kernel.duration_s,
                   crit["not_worth_tuning_s"], facts)
    return KernelDiagnosis(
        kernel=kernel,
        gpu=gpu,
        provenance=provenance(gpu, kernel) if gpu is not None else (Note("no_gpu"),),
        roofline=main,
        roofline_by_pipe=by_pipe,
        notes=_unique((*notes, *useful_notes, *sample_notes,
                       *consistency_notes(kernel, main, sol, crit["efficiency_warning"]))),
        sol=sol,
        occupancy=occ,
        waves_per_sm=waves,
        stalls=stalls,
        findings=found,
        limiters=limits,
        levels=levels,
        useful_roofline=useful,
        units=units,
        design=design,
        facts=facts,
    )


#: Gate findings whose advice is a menu with no size of its own (a library's ways to call it): the launch's sized
#: gains decide whether anything is worth tuning, and when nothing is, the verdict comes before the menu.
UNSIZED_MENUS = ("library_kernel",)


#: Class findings whose estimate is the launch's ceiling (every wait hidden: at most the busiest unit at its peak):
#: it sizes the class paragraph only where no root cause is sized worth it (conservative value below
#: ``min_worthwhile_speedup``), so that it never takes the gain of a root cause it contains (a hidden Long Scoreboard
#: wait is part of every wait hidden), and only where it is worth stating itself (a ceiling that leaves nothing to
#: gain is the "nothing worth tuning" verdict's, not an estimate of 1.00x).
CEILING_FINDINGS = ("latency_from_throughput", "headline_advice")


def _ceilings_kept(findings: tuple[Finding, ...], worthwhile: float) -> tuple[Finding, ...]:
    """``findings`` with the estimate of each :data:`CEILING_FINDINGS` finding kept only where it is worth stating
    and no other advised finding's is (conservative value at least ``worthwhile``); else cleared (not estimated)."""
    def worth(f: Finding) -> bool:
        return (conservative_value(f.estimated_speedup, f.estimate_kind) or 0.0) >= worthwhile

    ceilings = [f for f in findings if f.advice and f.id in CEILING_FINDINGS and f.estimated_speedup is not None]
    if all(worth(f) for f in ceilings) and not any(f.advice and f.id not in CEILING_FINDINGS and worth(f)
                                                   for f in findings):
        return findings
    return tuple(f.but(estimated_speedup=None, estimate_kind=None, change=None, speedup_note=None)
                 if f.id in CEILING_FINDINGS else f for f in findings)


def ranked(findings: tuple[Finding, ...], units: Units, worthwhile: float,
           duration_s: float | None = None, small_s: float = 0.0,
           facts: frozenset[str] = frozenset()) -> tuple[Finding, ...]:
    """The findings (rule order) with the advice order (``rank``), the marginal gains, the saved shares and the
    negligible mark set: the performance model's ranking (:func:`.advice_order.rank_and_share`) of the findings that
    carry advice, after the findings that say what the kernel is (:data:`.design_rules.GATE_FINDINGS`: a debug build,
    a library kernel), which come first. Findings without an estimate follow the measured share of their own
    evidence (:func:`.performance.measured_share`: a stall reason's share of the stall cycles ...), never rule order;
    a low-rank note (:attr:`.engine.Finding.low_rank`) comes last, marked negligible. When every advised root cause is estimated and negligible on a launch shorter
    than ``small_s`` (a few launch overheads: the class paragraph of a longer one may still hold its headroom), or
    whose busiest unit leaves no 1.05x to any change, a ``nothing_worthwhile`` finding says so first (``duration_s``:
    the launch's), worded for the launch's ``facts`` (its ``{remedy}``: a library kernel's is how it is called); a
    library's menu (:data:`UNSIZED_MENUS`, not sized) does not hold the verdict back, and follows it, negligible."""
    findings = _ceilings_kept(tuple(f for f in findings if f.id != "nothing_worthwhile"), worthwhile)
    advised = [(i, f) for i, f in enumerate(findings) if f.advice]
    order = rank_and_share([(i, f.change, f.estimated_speedup, f.estimate_kind, limiter_unit(f)) for i, f in advised],
                           units, worthwhile, [_measured(f, units) for _, f in advised],
                           [f.low_rank for _, f in advised])
    order = sorted(order, key=lambda o: findings[o[0]].id not in GATE_FINDINGS)  # (stable: the model's order after)
    out = list(findings)
    for rank, (i, marginal, saved, tier) in enumerate(order):
        f = out[i]  # type: ignore[index]
        gain = min(marginal, f.estimated_speedup) if marginal is not None and f.estimated_speedup is not None else None
        out[i] = f.but(rank=rank, marginal_speedup=gain, saved_share=saved,  # type: ignore[index]
                       negligible=tier in ("negligible", "note"))
    out = tuple(out)
    specific = [f for f in out if f.advice and f.advice.startswith("finding:")
                and f.id not in FALLBACK_FINDINGS + UNSIZED_MENUS]
    busiest = units.busiest
    small = (duration_s is not None and duration_s < small_s) or (
        busiest is not None and busiest.hottest * worthwhile >= 1.0)
    if small and specific and all(f.negligible and f.estimated_speedup is not None for f in specific):
        best = max(specific, key=lambda f: f.estimated_speedup or 1.0)
        text = finding_texts().get("nothing_worthwhile")
        out = tuple(f.but(negligible=True) if f.id in UNSIZED_MENUS and f.advice else f for f in out)
        note = Note("f_nothing_worthwhile", {"limit": worthwhile, "best": best.estimated_speedup, "best_id": best.id,
                                             "us": duration_s * 1e6 if duration_s is not None else None})
        verdict = Finding("nothing_worthwhile", "info", note, (Evidence("estimated_speedup.max", best.estimated_speedup),),
                          advice="finding:nothing_worthwhile", source=source("min_worthwhile_speedup"),
                          remedies=applicable(text.remedies, facts, None)[:1] if text is not None else (),
                          speedup_note="not estimated: every estimated gain is below min_worthwhile_speedup")
        # first (rank 0), the others after it in their order: it has no change, so no gain of theirs moves
        return tuple(f.but(rank=f.rank + 1) if f.rank is not None else f for f in out) + (verdict.but(rank=0),)
    return out


def _measured(f: Finding, units: Units) -> float | None:
    """The measured share a root cause's evidence covers (:func:`.performance.measured_share`), its place among the
    findings without an estimate; None for a generic paragraph (``class:`` / ``stall:`` advice, given only where no
    root cause applies: they keep rule order, the class paragraph, which names the top stall, first)."""
    if not (f.advice or "").startswith("finding:"):
        return None
    return measured_share(f.change, f.evidence, units)  # type: ignore[arg-type]


def _unique(notes: Iterable[Note]) -> tuple[Note, ...]:
    seen: dict[tuple, Note] = {}
    for n in notes:
        seen.setdefault((n.key, tuple(sorted(n.values.items()))), n)
    return tuple(seen.values())


@dataclass(frozen=True)
class KernelGroup:
    """Launches of one kernel name, for the "where does GPU time go" summary.

    Attributes:
        name: kernel name.
        launches: number of launches.
        total_duration_s: summed duration of launches with a measured duration.
        share: total_duration_s / total of all groups (0..1), or None when no launch of the group (or of the
            report) has a measured duration: a launch whose duration is NaN is "not measured", not 0 %.
        unmeasured_launches: launches without a measured duration (not counted in the total).
    """

    name: str
    launches: int
    total_duration_s: float
    share: float | None
    unmeasured_launches: int


def group_by_name(kernels: Iterable[KernelProfile]) -> tuple[KernelGroup, ...]:
    """Group launches by kernel name, largest total duration first (ties keep report order). A profile that
    stands for N launches (``launch_count``, summary rows) counts N times its average duration."""
    order: dict[str, list[KernelProfile]] = {}
    for k in kernels:
        order.setdefault(k.name, []).append(k)
    totals = {
        name: math.fsum(k.duration_s * k.launch_count for k in ks if k.duration_s is not None)
        for name, ks in order.items()
    }
    grand = math.fsum(totals.values())
    groups = [
        KernelGroup(
            name=name,
            launches=sum(k.launch_count for k in ks),
            total_duration_s=totals[name],
            share=(totals[name] / grand) if grand > 0 and any(k.duration_s is not None for k in ks) else None,
            unmeasured_launches=sum(k.launch_count for k in ks if k.duration_s is None),
        )
        for name, ks in order.items()
    ]
    groups.sort(key=lambda g: -g.total_duration_s)
    return tuple(groups)


@dataclass(frozen=True)
class ReportDiagnosis:
    """Diagnosis of one input file.

    Attributes:
        report: what was read (every launch, report order).
        groups: launches grouped by kernel name, largest total GPU time first (all launches of the file).
        kernels: diagnoses of the selected launches (``--kernel`` / ``top``), in report order.
    """

    report: ProfileReport
    groups: tuple[KernelGroup, ...]
    kernels: tuple[KernelDiagnosis, ...]


def diagnose_report(
    report: ProfileReport,
    gpu: GpuSpec | str | None = None,
    kernel_regex: str | None = None,
    top: int | None = None,
    criteria: Mapping[str, Any] | None = None,
    kernel: str | None = None,
) -> ReportDiagnosis:
    """Diagnose every selected launch of a report.

    Args:
        report: a report from :func:`kernelscope.ingest.load`.
        gpu: ceilings to use for every kernel (a spec, or a catalogue name); None looks each kernel's
            device up in the catalogue.
        kernel_regex: keep launches whose name or demangled name matches (``re.search``).
        kernel: keep launches this names as Nsight Compute's ``-k`` does (``--kernel``): an exact function or
            demangled name (a unique part of one), or ``regex:PATTERN``
            (:func:`kernelscope.analysis.selection.match`).
        top: keep the N longest launches.
        criteria: rule thresholds (:func:`kernelscope.knowledge.criteria.criteria`).

    Raises:
        InputError: bad selection arguments (an ambiguous ``kernel`` name lists the candidates). A kernel whose profile names no device (CSV exports, console
            text), or a device the catalogue lacks, is diagnosed without roofline ceilings when ``gpu`` is None
            (its provenance says so: ``no_gpu``, or ``gpu_not_in_catalogue`` with the closest catalogue names and
            the hint to pass ``--gpu`` / ``--spec``); a device the catalogue lacks whose report holds its SM count,
            clocks, compute capability and bus width gets ceilings derived from them instead
            (:func:`kernelscope.knowledge.gpus.derived_spec`; provenance ``gpu_derived``).
    """
    return ReportDiagnoser(report, gpu, kernel_regex, top, criteria, kernel).diagnose()


class ReportDiagnoser:
    """What the diagnoses of one report's launches share, made once: the selected launches (``chosen``, as
    :func:`diagnose_report` takes them), the criteria, the ceilings per device name, the report's GPU time.
    :meth:`diagnose` diagnoses them all, or a part of them: a part that holds every launch its launches are
    compared with (:func:`.scaling.linked`) gets the diagnoses the whole report gives them, so the parts of a
    whole model's profile can be diagnosed apart (``diagnose --format json``'s worker processes)."""

    def __init__(self, report: ProfileReport, gpu: GpuSpec | str | None = None, kernel_regex: str | None = None,
                 top: int | None = None, criteria: Mapping[str, Any] | None = None,
                 kernel: str | None = None) -> None:
        self.report, self.gpu = report, find_typed_gpu(gpu) if isinstance(gpu, str) else gpu
        self.specs: dict[str, GpuSpec] = {}
        self.unknown: dict[str, Note] = {}
        self.crit = criteria if criteria is not None else default_criteria()
        self.chosen = select_kernels(report.kernels, kernel_regex, top, kernel=kernel, source=report.path)
        self.total = math.fsum(k.duration_s * k.launch_count for k in report.kernels if k.duration_s is not None)
        self.groups = group_by_name(report.kernels)  # (of every launch: once for all the parts)

    def diagnose(self, positions: Iterable[int] | None = None) -> ReportDiagnosis:
        """The diagnosis of the chosen launches at ``positions`` (indices into :attr:`chosen`, ascending; None:
        all), in report order, with the findings that compare launches with each other among them."""
        chosen = self.chosen if positions is None else [self.chosen[i] for i in positions]
        crit = self.crit
        kernels = tuple(map(self._diagnosed, chosen))
        for pairwise in (serialised_blocks, same_traffic):  # findings that need two launches: added, the advice ranked again
            extra = pairwise(kernels, crit)
            kernels = tuple(replace(d, findings=ranked(d.findings + (extra[d.kernel.index],), d.units,
                                                       crit["min_worthwhile_speedup"], d.kernel.duration_s,
                                                       crit["not_worth_tuning_s"], d.facts))
                            if d.kernel.index in extra else d for d in kernels)
        return ReportDiagnosis(report=self.report, groups=self.groups, kernels=kernels)

    def _gpu_for(self, kernel: KernelProfile) -> GpuSpec | None:
        if self.gpu is not None:
            return self.gpu
        specs, unknown = self.specs, self.unknown
        name = kernel.device.display_name
        if name and name in specs:
            return specs[name]  # a catalogue entry, or ceilings derived from the report (note in unknown[name])
        if not name or name in unknown:
            return None  # diagnosed without roofline ceilings; the diagnosis says to pass --gpu / --spec
        try:
            specs[name] = find_gpu(name)
        except UnknownGpuError as exc:  # named but not in the catalogue: ceilings from the report's own attributes
            derived = derived_spec(kernel.device)
            if derived is not None:
                specs[name] = derived
                unknown[name] = Note("gpu_derived", {
                    "gpu": name, "sms": derived.sm_count, "ghz": derived.boost_clock_hz / 1e9,  # type: ignore[operator]
                    "cc": ".".join(map(str, derived.compute_capability or ())),
                    "tflops": derived.peak_flops_per_s["fp32"] / 1e12,
                    "gbps": derived.dram_bandwidth_bytes_per_s / 1e9})
                return derived
            # nothing to derive them from (no SM count, clock, compute capability or bus width): as an unnamed GPU
            closest = Listed(exc.closest)
            unknown[name] = Note("gpu_not_in_catalogue_closest" if closest else "gpu_not_in_catalogue",
                                 {"gpu": name, "closest": closest})
            return None
        return specs[name]

    def _diagnosed(self, k: KernelProfile) -> KernelDiagnosis:
        d = diagnose(k, self._gpu_for(k), self.crit)
        note = self.unknown.get(k.device.display_name or "")
        if note is None:
            provenance = d.provenance
        elif d.gpu is None:
            provenance = (note,)
        elif d.gpu.origin == DERIVED_ORIGIN:  # the derived note replaces "peaks of X from <origin>"
            provenance = (note, *(n for n in d.provenance if n.key != "peaks_given"))
        else:
            provenance = d.provenance
        total = self.total
        share = k.duration_s * k.launch_count / total if k.duration_s is not None and total > 0 else None
        return replace(d, time_share=share, provenance=provenance)

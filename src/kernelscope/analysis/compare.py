"""Verify an optimisation: compare the kernels of two diagnosed profiles (before / after).

Pure functions over :class:`kernelscope.analysis.diagnosis.KernelDiagnosis`; no I/O. Kernels are matched by name and
launch configuration (grid, block), then by name alone, or paired by hand. Per pair: duration speedup with the
run-to-run spread when a kernel has several launches, effective DRAM bandwidth (bytes moved / time) and its %
of peak, achieved FLOP/s and % of attainable, Speed-of-Light and class changes, the shift of the stall mix,
occupancy, and an explanation of what moved. For the whole program: total GPU time and the overall speedup,
with each kernel's Amdahl-consistent share of it (Amdahl, "Validity of the single processor approach to
achieving large scale computing capabilities", AFIPS 1967: S = T_before / (T_before - t_before + t_after)).

The gate's noise rule is :mod:`.noise`; what a change resolved, :mod:`.resolved`; what it introduced (and the
launch-configuration fields that changed with it), :mod:`.introduced`; the program figure of two
timelines, :mod:`.compare_program`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..errors import InputError
from ..model import Measurement
from ..notes import Listed, Note
from .diagnosis import KernelDiagnosis
from .engine import by_gain
from .compare_launches import LaunchSet, launch_sets, merged
from .compare_checks import METHOD_FIELDS, ClockChange, clock_change, clock_warning, method_warnings
from .compare_program import ProgramFigure, ProgramSide, program_figure
from ..knowledge.names import generated_pairs, generated_stem, signature
from .noise import significance, weighted_noise
from .performance import PostHoc, posthoc
from .introduced import (Introduction, LaunchChange, WorkGrowth, grown_work, introductions, launch_changes,
                         model_disagrees, removed_work)
from .resolved import Resolution, resolutions
from .estimates import BeforeEstimate, before_estimates
from .selection import kernel_names, match, select

__all__ = ["METHOD_FIELDS", "Comparison", "KernelComparison", "LaunchSet", "Prediction", "Side", "compare",
           "compare_sets", "launch_sets", "method_warnings", "predicted_speedups"]

#: The matched kernels' share of a side's GPU time below which the headline is every kernel's time
#: (:attr:`Comparison.headline`): below half, the unmatched kernels dominate what the program spends.
HEADLINE_SHARE = 0.5


@dataclass(frozen=True)
class Side:
    """One side (before or after) of a compared kernel, from its representative launch.

    Attributes:
        duration_s: median duration (s).
        spread_s: (min, max) duration over the launches, or None with fewer than two measured launches.
        bandwidth_bytes_per_s: effective DRAM bandwidth = DRAM bytes / duration, or None.
        bandwidth_pct_of_peak: that bandwidth as % of the GPU's DRAM peak, or None.
        achieved_flops_per_s / efficiency: from the roofline (None when not measured).
        sol_compute_pct / sol_memory_pct: Speed-of-Light %.
        classes: bottleneck classes.
        achieved_occupancy_pct / theoretical_occupancy_pct: occupancy %.
        stall_shares: reason -> share of stall cycles (0..1).
        total_s: summed time of the launches (s); mean_s: total / launches (s), None when none is measured.
        grid / block: launch shape, or None when not recorded.
    """

    duration_s: float | None
    spread_s: tuple[float, float] | None
    launches: int
    bandwidth_bytes_per_s: float | None
    bandwidth_pct_of_peak: float | None
    achieved_flops_per_s: float | None
    efficiency: float | None
    sol_compute_pct: float | None
    sol_memory_pct: float | None
    classes: tuple[str, ...]
    achieved_occupancy_pct: float | None
    theoretical_occupancy_pct: float | None
    stall_shares: dict[str, float]
    total_s: float = 0.0
    mean_s: float | None = None
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    noise: float | None = None


@dataclass(frozen=True)
class Prediction:
    """An estimate the BEFORE profile made (Nsight Compute rule), next to what was measured.

    Attributes:
        rule_id: the rule (e.g. ``"UncoalescedGlobalAccess"``).
        estimated_speedup_pct: the rule's estimated reduction of the kernel's time, %.
        measured_reduction_pct: the measured reduction of the kernel's time, %.
    """

    rule_id: str
    estimated_speedup_pct: float
    measured_reduction_pct: float | None


@dataclass(frozen=True)
class KernelComparison:
    """One kernel before and after.

    Attributes:
        before_name / after_name: kernel names (differ for hand-made pairs).
        matched_by: ``"name+shape"``, ``"name"``, ``"signature"`` (the same demangled signature spelled differently,
            e.g. by Nsight Compute and a timeline), ``"generated"`` (the same name up to the ordinal or hash its
            generator appends, the same grid and block, the nearest duration) or ``"hand"``.
        before / after: the two sides.
        speedup: before duration / after duration (> 1 is faster), or None.
        beyond_noise: whether the change of the median is beyond the run-to-run noise (:func:`significance`:
            True / False, None when it cannot be told).
        noise: the larger of the two sides' relative noise (a fraction), None when neither is known.
        generator: for ``matched_by == "generated"``, the generator whose ordinal or hash was set aside
            (:func:`kernelscope.knowledge.names.generated_stem`), else None.
        resolved: what became of the BEFORE findings in AFTER (:func:`resolutions`).
        program_speedup: whole-program speedup if only this kernel had changed (Amdahl), or None.
        stall_shift: (reason, share before, share after) for the reasons that moved most, largest move first.
        predictions: the BEFORE profile's own estimates next to the measured result.
        explanation: what moved, as notes.
        predicted: kernelscope's own prediction from the BEFORE side's findings (its representative launch):
            ``(finding id, estimated speedup factor >= 1)`` for every finding that carries an estimate, largest
            first (see :func:`predicted_speedups`); empty when no finding has one. Compare ``predicted[0][1]`` with
            ``speedup`` to see how the model did.
        shape_differs: the two sides' grid or block differ (both recorded): a pair matched by name, or by hand, is
            then not the same work on both sides.
        posthoc: the performance model checked against the pair (:func:`.performance.posthoc`): which units' work
            actually changed between the representatives, and the speedup the model gives for exactly that change;
            None when no unit was measured on both sides.
        clocks: the two representatives' SM and memory clocks and SM cycles (:mod:`.compare_checks`), None when
            neither side records a clock.
        introduced: the AFTER root-cause findings that BEFORE lacks or has less of (:func:`.introduced.introductions`,
            sized by the AFTER finding's own estimate).
        launch_changes: the launch-configuration fields that changed (:func:`.introduced.launch_changes`), for
            every pair where a field changed.
        grown_work: the work a slower AFTER does materially more of (:func:`.introduced.grown_work`: requests,
            instructions, sectors, bytes, pipe work), largest factor first; empty for a faster one.
        removed_work: the work a faster AFTER does materially less of (:func:`.introduced.removed_work`).
        estimates: BEFORE's estimates, its "What to do" lead first (:func:`.estimates.before_estimates`).
        model_disagrees: the post-hoc model's speedup and the measured one differ by at least
            :data:`.introduced.MODEL_DISAGREES` times (:func:`.introduced.model_disagrees`).
    """

    before_name: str
    after_name: str
    matched_by: str
    before: Side
    after: Side
    speedup: float | None
    beyond_noise: bool | None
    program_speedup: float | None
    stall_shift: tuple[tuple[str, float, float], ...]
    predictions: tuple[Prediction, ...]
    explanation: tuple[Note, ...]
    predicted: tuple[tuple[str, float], ...] = ()
    shape_differs: bool = False
    posthoc: PostHoc | None = None
    noise: float | None = None
    generator: str | None = None
    resolved: tuple[Resolution, ...] = ()
    clocks: ClockChange | None = None
    introduced: tuple[Introduction, ...] = ()
    launch_changes: tuple[LaunchChange, ...] = ()
    grown_work: tuple[WorkGrowth, ...] = ()
    model_disagrees: bool = False
    removed_work: tuple[WorkGrowth, ...] = ()
    estimates: tuple[BeforeEstimate, ...] = ()

    @property
    def regressed(self) -> bool:
        """AFTER is slower: a speedup that rounds below 1.00x and is not within the run-to-run noise."""
        return _regressed(self.speedup, self.beyond_noise)

    @property
    def predicted_top(self) -> tuple[str, float] | None:
        """The BEFORE side's largest estimate, ``(finding id, speedup factor)``, or None when no finding has one."""
        return self.predicted[0] if self.predicted else None

    def slower_by(self) -> float | None:
        """Fractional slowdown (after / before - 1; negative = faster), or None."""
        return None if self.speedup is None else 1.0 / self.speedup - 1.0


@dataclass(frozen=True)
class Comparison:
    """Two profiles compared.

    Attributes:
        pairs: compared kernels, largest BEFORE time first.
        unmatched_before / unmatched_after: kernel names with no partner.
        total_before_s / total_after_s: total GPU time of all kernels of each profile (s), matched or not; 0 when
            the sides are kernels picked inside one report (no program totals).
        matched_before_s / matched_after_s: GPU time of the matched kernels (s); the AFTER side's at the BEFORE
            side's launch counts (each pair's after time x before launches / after launches), so that a profile
            of fewer launches (``ncu -c``) or a shorter capture compares per launch. 0 as above.
        unmatched_before_s / unmatched_after_s: GPU time of the kernels without a partner (s), shown apart.
        speedup: matched_before_s / matched_after_s (the matched kernels only), or None.
        before_method / after_method: how each side measured its durations, None when not recorded.
        warnings: what makes the comparison less than like for like (Notes), e.g. ``cmp_method`` when the sides
            measured differently.
        programs: ``(before, after)`` program timelines (wall time and its split) when both sides are timelines.
        by_hand: the kernels were paired by hand (``--pair``, ``--before-kernel/--after-kernel``): only those pairs
            are compared, the other kernels are neither matched nor listed as unmatched.
        clocks: the two profiles' clocks over all their kernels (time-weighted) and SM cycles, None when not recorded
            or without program totals; a ``cmp_clocks`` warning says when they differ.
    """

    pairs: tuple[KernelComparison, ...]
    unmatched_before: tuple[str, ...]
    unmatched_after: tuple[str, ...]
    total_before_s: float
    total_after_s: float
    matched_before_s: float = 0.0
    matched_after_s: float = 0.0
    unmatched_before_s: float = 0.0
    unmatched_after_s: float = 0.0
    before_method: Measurement | None = None
    after_method: Measurement | None = None
    warnings: tuple[Note, ...] = ()
    programs: tuple[ProgramSide, ProgramSide] | None = None
    by_hand: bool = False
    clocks: ClockChange | None = None

    @property
    def headline(self) -> str:
        """Which figure leads: ``"program"`` for two timelines with a program figure (:attr:`program`: the wall or
        the median step, what the program's user waits for, whatever its kernels do); ``"all"`` (every kernel,
        :attr:`total_speedup`) when the matched kernels are under :data:`HEADLINE_SHARE` of either side's GPU time
        (the unmatched kernels then dominate the time and the matched ratio says little about the program), else
        ``"matched"`` (:attr:`speedup`, like for like); ``"none"`` without program totals."""
        figure = self.program
        if figure is not None and figure.basis != "none":
            return "program"
        if self.total_before_s <= 0 or self.total_after_s <= 0:
            return "none"
        share_b, share_a = self.matched_shares
        return "all" if min(share_b, share_a) < HEADLINE_SHARE else "matched"

    @property
    def matched_shares(self) -> tuple[float, float]:
        """The matched kernels' share of each side's GPU time, (before, after) fractions 0-1 (the AFTER side's at its
        own launch counts); (0, 0) without program totals."""
        if self.total_before_s <= 0 or self.total_after_s <= 0:
            return 0.0, 0.0
        after = math.fsum(p.after.total_s for p in self.pairs)
        return min(1.0, self.matched_before_s / self.total_before_s), min(1.0, after / self.total_after_s)

    @property
    def noise(self) -> tuple[float | None, bool | None]:
        """``(noise, beyond)`` of the matched kernels' total (:func:`significance`); each side's noise is
        :func:`weighted_noise` of its kernels."""
        nb = weighted_noise([(p.before.noise, p.before.total_s) for p in self.pairs])
        na = weighted_noise([(p.after.noise, p.after.total_s * p.before.launches / p.after.launches)
                             for p in self.pairs if p.after.launches])
        s = self.speedup
        return significance(nb, na, None if s is None else 1.0 / s - 1.0)

    @property
    def program(self) -> ProgramFigure | None:
        """The program figure when both sides are timelines (:func:`program_figure`), else None."""
        return program_figure(self.programs)

    @property
    def unmatched_growth(self) -> float | None:
        """(after-only time - before-only time) / the BEFORE side's total kernel time (a fraction; > 0: the kernels
        found only AFTER take more time than those found only BEFORE), None without program totals."""
        if self.total_before_s <= 0:
            return None
        return (self.unmatched_after_s - self.unmatched_before_s) / self.total_before_s

    @property
    def speedup(self) -> float | None:
        """Speedup of the matched kernels' GPU time (unmatched time apart), or None."""
        b, a = self.matched_before_s, self.matched_after_s
        return b / a if a > 0 and b > 0 else None

    @property
    def total_speedup(self) -> float | None:
        """total_before_s / total_after_s: every kernel, matched or not (not like for like when some are
        unmatched), or None."""
        return self.total_before_s / self.total_after_s if self.total_after_s > 0 and self.total_before_s > 0 else None

    def regressions(self, threshold: float) -> tuple[str, ...]:
        """What the gate fails on at ``threshold`` (a fraction, 0.05 = 5 %), each slower by more than it and not
        within the run-to-run noise (:mod:`.noise`): the AFTER names of kernels; ``"total"`` for the matched
        kernels together; ``"program"`` for the program figure of two timelines (per step, or the walls); and
        ``"unmatched"`` when the kernels found only AFTER take more time than those found only BEFORE by more than
        the threshold of the BEFORE side's kernel time (:attr:`unmatched_growth`; the names are
        ``unmatched_after``)."""
        out = [
            p.after_name for p in self.pairs
            if (s := p.slower_by()) is not None and s > threshold and p.beyond_noise is not False
        ]
        if self.speedup is not None and 1.0 / self.speedup - 1.0 > threshold and self.noise[1] is not False:
            out.append("total")
        figure = self.program
        if figure is not None and (s := figure.slower_by()) is not None and s > threshold \
                and figure.beyond_noise is not False:
            out.append("program")
        growth = self.unmatched_growth
        if growth is not None and growth > threshold and self.unmatched_after:
            out.append("unmatched")
        return tuple(out)


def predicted_speedups(diagnosis: KernelDiagnosis) -> tuple[tuple[str, float], ...]:
    """What one diagnosed launch's findings predict: ``(finding id, estimated speedup)`` for each finding with an
    estimate (a factor >= 1: kernel time before / after removing that cause, the finding's own estimate, not its
    marginal gain in a list), largest first (:func:`.engine.by_gain`; ties keep rule order). A finding id that occurs
    twice keeps its largest estimate. Empty when no finding has one."""
    out: dict[str, float] = {}
    for f in by_gain(diagnosis.findings):
        if f.estimated_speedup is not None:
            out.setdefault(f.id, f.estimated_speedup)
    return tuple(out.items())


def _side(s: LaunchSet) -> Side:
    d = s.representative
    k = d.kernel
    durations = s.durations_s
    med = s.median_s
    bw = bw_pct = None
    if k.dram_bytes is not None and k.duration_s:
        bw = k.dram_bytes / k.duration_s
        if d.gpu is not None:
            bw_pct = 100.0 * bw / d.gpu.dram_bandwidth_bytes_per_s
    r = d.roofline
    return Side(
        duration_s=med,
        spread_s=s.spread_s,
        launches=s.count,
        bandwidth_bytes_per_s=bw,
        bandwidth_pct_of_peak=bw_pct,
        achieved_flops_per_s=r.achieved_flops_per_s if r else None,
        efficiency=r.efficiency if r else None,
        sol_compute_pct=d.sol.compute_pct,
        sol_memory_pct=d.sol.memory_pct,
        classes=d.verdict,
        achieved_occupancy_pct=k.achieved_occupancy_pct,
        theoretical_occupancy_pct=k.theoretical_occupancy_pct,
        stall_shares={x.reason: x.share_of_stalls for x in d.stalls.shares} if d.stalls else {},
        total_s=s.total_s,
        mean_s=s.total_s / s.count if durations and s.count else None,
        grid=s.grid,
        block=s.block,
        noise=s.noise,
    )


def _regressed(speedup: float | None, beyond: bool | None) -> bool:
    """A speedup that reads as a slowdown ("0.98x"), not within the noise."""
    return speedup is not None and round(speedup, 2) < 1.0 and beyond is not False


def _explain(b: Side, a: Side, speedup: float | None, shift, beyond: bool | None = None) -> tuple[Note, ...]:
    notes: list[Note] = []
    if speedup is not None and round(speedup, 2) == 1.0:  # "1.00x faster" would claim a change it cannot show
        notes.append(Note("cmp_unchanged", {"before_s": b.duration_s, "after_s": a.duration_s}))
    elif speedup is not None and beyond is False:  # within the run-to-run noise: neither faster nor slower
        notes.append(Note("cmp_within_noise", {"speedup": speedup, "before_s": b.duration_s, "after_s": a.duration_s}))
    elif speedup is not None and speedup < 1.0:  # a regression reads as one
        notes.append(Note("cmp_slower", {"speedup": speedup, "slower_pct": 100.0 * (1.0 / speedup - 1.0),
                                         "before_s": b.duration_s, "after_s": a.duration_s}))
    elif speedup is not None:
        notes.append(Note("cmp_speedup", {"speedup": speedup, "before_s": b.duration_s, "after_s": a.duration_s}))
    if b.classes != a.classes and b.classes and a.classes:  # a side without a class (a timeline) moved nowhere
        notes.append(Note("cmp_class", {"before": " + ".join(b.classes) or None, "after": " + ".join(a.classes) or None}))
    if b.bandwidth_pct_of_peak is not None and a.bandwidth_pct_of_peak is not None:
        notes.append(Note("cmp_bandwidth", {"before": b.bandwidth_pct_of_peak, "after": a.bandwidth_pct_of_peak}))
    elif b.sol_memory_pct is not None and a.sol_memory_pct is not None:
        notes.append(Note("cmp_memory", {"before": b.sol_memory_pct, "after": a.sol_memory_pct}))
    if b.sol_compute_pct is not None and a.sol_compute_pct is not None:
        notes.append(Note("cmp_compute", {"before": b.sol_compute_pct, "after": a.sol_compute_pct}))
    for reason, sb, sa in shift[:2]:
        notes.append(Note("cmp_stall", {"reason": reason, "before": sb, "after": sa}))
    if b.achieved_occupancy_pct is not None and a.achieved_occupancy_pct is not None and abs(b.achieved_occupancy_pct - a.achieved_occupancy_pct) >= 5:
        notes.append(Note("cmp_occupancy", {"before": b.achieved_occupancy_pct, "after": a.achieved_occupancy_pct}))
    return tuple(notes)


def compare_sets(before: LaunchSet, after: LaunchSet, matched_by: str, total_before_s: float,
                 generator: str | None = None) -> KernelComparison:
    """Compare one kernel's launches before and after (see :class:`KernelComparison`)."""
    b, a = _side(before), _side(after)
    speedup = b.duration_s / a.duration_s if b.duration_s and a.duration_s else None
    noise_level, noise = significance(b.noise, a.noise, None if speedup is None else 1.0 / speedup - 1.0)
    program = None
    if total_before_s > 0 and b.duration_s and a.duration_s:
        t_b = before.total_s
        t_a = after.total_s * (before.count / after.count) if after.count else 0.0  # same launch count as before
        denominator = total_before_s - t_b + t_a
        program = total_before_s / denominator if denominator > 0 else None
    reasons = set(b.stall_shares) | set(a.stall_shares)
    shift = sorted(
        ((r, b.stall_shares.get(r, 0.0), a.stall_shares.get(r, 0.0)) for r in reasons),
        key=lambda t: (-abs(t[2] - t[1]), t[0]),
    )
    shift = tuple(t for t in shift if abs(t[2] - t[1]) >= 0.02)[:5] if b.stall_shares and a.stall_shares else ()
    reduction = 100.0 * (1.0 - a.duration_s / b.duration_s) if b.duration_s and a.duration_s else None
    predictions: dict[str, Prediction] = {}  # a rule reported twice (e.g. for two cache levels): its largest estimate
    for r in before.representative.kernel.rules:
        if r.estimated_speedup_pct is not None and r.estimated_speedup_pct > 0:
            rule = r.rule_id or r.title
            if rule not in predictions or r.estimated_speedup_pct > predictions[rule].estimated_speedup_pct:
                predictions[rule] = Prediction(rule, r.estimated_speedup_pct, reduction)
    slower = _regressed(speedup, noise)
    introduced = introductions(before.representative, after.representative, slower)
    check = _posthoc(before, after)
    grown = grown_work(before.representative, after.representative, check, before.median_s, slower)
    faster = speedup is not None and round(speedup, 2) > 1.0 and noise is not False
    removed = removed_work(before.representative, after.representative, check, before.median_s, faster)
    return KernelComparison(
        before_name=before.name,
        after_name=after.name,
        matched_by=matched_by,
        before=b,
        after=a,
        speedup=speedup,
        beyond_noise=noise,
        program_speedup=program,
        stall_shift=shift,
        predictions=tuple(sorted(predictions.values(), key=lambda p: -p.estimated_speedup_pct)),
        explanation=_explain(b, a, speedup, shift, noise),
        predicted=predicted_speedups(before.representative),
        shape_differs=matched_by in ("name", "signature", "sole") and _shape_differs(before, after),
        posthoc=check,
        noise=noise_level,
        generator=generator,
        resolved=resolutions(before.representative, after.representative),
        clocks=clock_change([(before.representative.kernel, b.duration_s or 0.0)],
                            [(after.representative.kernel, a.duration_s or 0.0)]),
        introduced=introduced,
        launch_changes=launch_changes(before.representative, after.representative),
        grown_work=grown,
        model_disagrees=model_disagrees(check.speedup if check is not None else None, speedup),
        removed_work=removed,
        estimates=before_estimates(before.representative, after.representative),
    )


def _posthoc(before: LaunchSet, after: LaunchSet) -> PostHoc | None:
    """The model's post-hoc check of a pair, from the two representatives' units and median durations."""
    check = posthoc(before.representative.units, before.median_s, after.representative.units, after.median_s)
    return check if check.speedup is not None else None


def _shape_differs(before: LaunchSet, after: LaunchSet) -> bool:
    """Whether the grid or the block of the two sets differ, both recorded."""
    pairs = ((before.grid, after.grid), (before.block, after.block))
    return any(x is not None and y is not None and x != y for x, y in pairs)


def compare(
    before: Sequence[KernelDiagnosis],
    after: Sequence[KernelDiagnosis],
    pairs: Sequence[tuple[str, str]] = (),
    program: bool = True,
    pair_rule: str = "regex",
    methods: tuple[Measurement | None, Measurement | None] = (None, None),
    programs: tuple[ProgramSide, ProgramSide] | None = None,
) -> Comparison:
    """Match and compare the kernels of two profiles.

    Args:
        before / after: diagnosed launches of each profile (every launch, so totals are the program's).
        pairs: hand-made pairs ``(before regex, after regex)``; each regex must select exactly one kernel
            name on its side (``re.search`` on the name and the demangled name). Matched first.
        program: whether the two sides are whole programs (two profiles); False for kernels picked inside
            one report, where totals and per-kernel program speedups mean nothing and are left out.
        pair_rule: how ``pairs`` name kernels: ``"regex"`` regular expressions (as above), ``"name"`` as Nsight
            Compute's ``-k`` (``compare --pair``): an exact function or demangled name (a unique part of one), or
            ``regex:PATTERN`` (:func:`kernelscope.analysis.selection.match`).
        methods: how each side measured its durations (``ProfileReport.measurement``); sides measured differently
            get the warning ``cmp_method`` (:func:`method_warnings`).
        programs: the two sides' program timelines, when both are timelines (kept as they are).

    Matching, after the hand-made pairs: by name and launch shape, then by name, then by demangled signature
    (the same kernel spelled differently by two tools, :func:`kernelscope.knowledge.names.signature`).

    Returns:
        A :class:`Comparison`; kernels without a partner are listed (and their time summed apart), not compared.

    Raises:
        InputError: a pair's regex is invalid, a name is ambiguous, or a pair's side does not select exactly one
            kernel name; an unknown ``pair_rule``.
    """
    if pair_rule not in ("regex", "name"):
        raise InputError("pair_rule", key="bad_pair_rule", values={"pair_rule": pair_rule})
    sets_b, sets_a = launch_sets(before), launch_sets(after)
    total_b = math.fsum(s.total_s for s in sets_b) if program else 0.0
    total_a = math.fsum(s.total_s for s in sets_a) if program else 0.0
    free_b, free_a = list(sets_b), list(sets_a)
    matched: list[KernelComparison] = []

    def take(pool: list[LaunchSet], pattern: str, side: str) -> list[LaunchSet]:
        if pair_rule == "name":
            chosen = match(pool, pattern, lambda s: s.launches[0].kernel, f"--pair ({side})", f"--pair ({side})",
                           one=True)
        else:
            chosen = select(pool, pattern, lambda s: kernel_names(s.launches[0].kernel), f"--pair ({side})")
        names = sorted({s.name for s in chosen})
        if len(names) != 1:
            found = Listed(names) if names else "none"
            raise InputError(f"--pair ({side})", key="pattern_not_one_kernel",
                values={"pattern": pattern, "found": found})
        for s in chosen:
            pool.remove(s)
        return chosen

    for pb, pa in pairs:
        sb, sa = take(free_b, pb, "before"), take(free_a, pa, "after")
        matched.append(compare_sets(merged(sb), merged(sa), "hand", total_b))
    if pairs:  # the user named what to compare: just that, nothing else matched or listed
        free_b, free_a = [], []
    else:
        _match_by_names(free_b, free_a, total_b, matched)
    sole = not matched and _sole_pair(free_b, free_a, methods)
    if sole:  # one kernel a side, different names: what --pair would compare
        matched.append(compare_sets(merged(free_b), merged(free_a), "sole", total_b))
        free_b, free_a = [], []
    matched.sort(key=lambda p: -(p.before.duration_s or 0.0) * p.before.launches)
    clocks = clock_change(((d.kernel, (d.kernel.duration_s or 0.0) * d.kernel.launch_count) for d in before),
                          ((d.kernel, (d.kernel.duration_s or 0.0) * d.kernel.launch_count) for d in after))
    warnings = method_warnings(*methods) + clock_warning(clocks)
    if sole:
        warnings += (Note("cmp_sole_pair", {"before": matched[0].before_name, "after": matched[0].after_name}),)
    return _result(matched, free_b, free_a, (total_b, total_a), program, warnings, methods, programs,
                   by_hand=bool(pairs), clocks=clocks)


def _sole_pair(free_b: list[LaunchSet], free_a: list[LaunchSet],
               methods: tuple[Measurement | None, Measurement | None]) -> bool:
    """Whether the one kernel of each side is what the user compares (a before/after profile of one kernel renamed):
    each side holds exactly one kernel name (in one or more launch shapes), both measured by the same tool with
    durations, on the same GPU where both name it. Two unrelated reports (another tool, another GPU, nothing timed)
    are not paired: nothing in common is refused, never a gate passed on nothing."""
    if len({s.name for s in free_b}) != 1 or len({s.name for s in free_a}) != 1:
        return False
    tools = {m.tool if m is not None else None for m in methods}
    if len(tools) != 1:  # (a hand-written profile records none: two of them are alike)
        return False
    if not all(s.durations_s for s in free_b) or not all(s.durations_s for s in free_a):
        return False
    gpus = {d.kernel.device.display_name for s in (*free_b, *free_a) for d in s.launches if d.kernel.device.display_name}
    return len(gpus) <= 1


def _result(matched: list[KernelComparison], free_b: list[LaunchSet], free_a: list[LaunchSet],
            totals: tuple[float, float], program: bool, warnings: tuple[Note, ...],
            methods: tuple[Measurement | None, Measurement | None],
            programs: tuple[ProgramSide, ProgramSide] | None, by_hand: bool,
            clocks: ClockChange | None) -> Comparison:
    """The :class:`Comparison` of the compared pairs and the sets left without a partner."""
    matched_b = math.fsum(p.before.total_s for p in matched) if program else 0.0
    matched_a = math.fsum(p.after.total_s * p.before.launches / p.after.launches for p in matched
                          if p.after.launches) if program else 0.0
    counts = sum(1 for p in matched if p.before.launches != p.after.launches)
    if program and counts:
        warnings += (Note("cmp_counts", {"n": counts}),)
    return Comparison(
        pairs=tuple(matched),
        unmatched_before=tuple(dict.fromkeys(s.name for s in free_b)),
        unmatched_after=tuple(dict.fromkeys(s.name for s in free_a)),
        total_before_s=totals[0],
        total_after_s=totals[1],
        matched_before_s=matched_b,
        matched_after_s=matched_a,
        unmatched_before_s=math.fsum(s.total_s for s in free_b) if program else 0.0,
        unmatched_after_s=math.fsum(s.total_s for s in free_a) if program else 0.0,
        before_method=methods[0],
        after_method=methods[1],
        warnings=warnings,
        programs=programs,
        by_hand=by_hand,
        clocks=clocks,
    )


def _match_by_names(free_b: list[LaunchSet], free_a: list[LaunchSet], total_b: float,
                    matched: list[KernelComparison]) -> None:
    """Pair the sets left in ``free_b`` / ``free_a`` (removed from them as they pair, appended to ``matched``): by
    name and launch shape, then by name, then by demangled signature (first partner in order each time), then by
    generated name (:func:`_match_generated`)."""
    stages = [((lambda s: (s.name, s.grid, s.block)), "name+shape"), ((lambda s: s.name), "name"),
              (_signature_key, "signature")]
    for key, how in stages:
        if not free_b or not free_a:
            return
        index: dict = {}
        for s in free_a:
            index.setdefault(key(s), []).append(s)
        for s in list(free_b):
            partners = index.get(key(s))
            if partners:
                partner = partners.pop(0)
                free_b.remove(s)
                free_a.remove(partner)
                matched.append(compare_sets(s, partner, how, total_b))
    _match_generated(free_b, free_a, total_b, matched)


def _match_generated(free_b: list[LaunchSet], free_a: list[LaunchSet], total_b: float,
                     matched: list[KernelComparison]) -> None:
    """Pair sets whose names differ only by the ordinal or hash their generator appends (Inductor renumbers
    ``..._16`` to ``..._17`` when the graph changes: :func:`kernelscope.knowledge.names.generated_stem`), with the same
    grid and block; among several candidates of one stem and shape, the nearest median durations pair first."""
    pairs = generated_pairs(free_b, free_a, lambda s: s.name, lambda s: (s.grid, s.block), lambda s: s.median_s)
    for i, j in pairs:
        b = free_b[i]
        matched.append(compare_sets(b, free_a[j], "generated", total_b, generator=generated_stem(b.name)[0]))
    for i in sorted((i for i, _ in pairs), reverse=True):
        del free_b[i]
    for j in sorted((j for _, j in pairs), reverse=True):
        del free_a[j]


def _signature_key(s: LaunchSet) -> str:
    return signature(s.launches[0].kernel.demangled_name or s.name)

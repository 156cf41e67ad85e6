"""Per-kernel diagnosis: roofline position, Speed-of-Light class, warp stalls and the advice that matters.

Pure functions over :class:`kernelscope.model.KernelProfile` and :class:`kernelscope.model.GpuSpec`;
no I/O and no printing. Thresholds and texts come from ``data/verdicts.toml`` (each with its source).
Findings are :class:`Note` values (a template key plus its numbers), so that every renderer can word them
in the user's language (templates in ``data/labels.toml``, table ``[note]``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping

from . import knowledge, rules
from .model import GpuSpec, KernelProfile
from .notes import BALANCED, COMPUTE_BOUND, LATENCY_BOUND, LAUNCH_BOUND, MEMORY_BOUND, OCCUPANCY_BOUND, Note
from .occupancy import Occupancy, occupancy_of
from .roofline import RooflinePoint, roofline_point
from .stalls import StallBreakdown, describe, reasons, stall_breakdown

__all__ = [
    "BALANCED", "COMPUTE_BOUND", "LATENCY_BOUND", "LAUNCH_BOUND", "MEMORY_BOUND", "OCCUPANCY_BOUND",
    "KernelDiagnosis", "Note", "SolVerdict", "classify_sol", "diagnose",
]

#: MMA instruction kinds Nsight Compute reports tensor-pipe activity for, and their pipe keys.
TENSOR_KIND = {"fp16_tensor": "HMMA", "int8_tensor": "IMMA", "fp64_tensor": "DMMA"}


@dataclass(frozen=True)
class SolVerdict:
    """Speed-of-Light bottleneck class of one kernel.

    Attributes:
        bound: ``"compute-bound"``, ``"memory-bound"``, ``"latency-bound"``, ``"balanced"`` or
            ``"launch-bound"``; None when the SOL section was not measured.
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
        classes: kernelscope's bottleneck classes (:mod:`kernelscope.rules`), several when several hold
            (e.g. memory-bound + latency-bound), in :data:`kernelscope.rules.CLASS_ORDER`.
        evidence: the measured values that triggered each class.
        occupancy: theoretical occupancy from the launch configuration (our calculator), or None.
        occupancy_notes: the occupancy trade-off (busy warps) and why achieved can sit below theoretical.
        waves_per_sm: full waves of blocks across the SMs, or None.
        stalls: warp-stall breakdown, or None when no stall metrics were collected.
        advice: advice ids, most important first: ``"class:<bound>"`` (``"class:<bound>:no_tensor"`` for a
            GPU without tensor cores) and ``"stall:<reason>"``.
        ncu_bottleneck: the class Nsight Compute's own SOLBottleneck rule stored (same vocabulary as
            ``sol.bound``), or None when the report has no such rule result or it failed.
        ncu_bottleneck_title: that rule result's title, e.g. ``"High Memory Throughput"``.
    """

    kernel: KernelProfile
    gpu: GpuSpec | None
    provenance: tuple[Note, ...]
    roofline: RooflinePoint | None
    roofline_by_pipe: tuple[RooflinePoint, ...]
    notes: tuple[Note, ...]
    sol: SolVerdict
    classes: tuple[str, ...]
    evidence: tuple[Note, ...]
    occupancy: Occupancy | None
    occupancy_notes: tuple[Note, ...]
    waves_per_sm: float | None
    stalls: StallBreakdown | None
    advice: tuple[str, ...]
    ncu_bottleneck: str | None = None
    ncu_bottleneck_title: str | None = None

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

    def _repr_html_(self) -> str:
        """Jupyter display: this launch's HTML card (verdict, evidence, occupancy, charts, advice)."""
        from .render.html import kernel_fragment

        return kernel_fragment(self)


def classify_sol(compute_pct: float | None, memory_pct: float | None, waves_per_sm: float | None) -> SolVerdict:
    """Speed-of-Light class from SM and memory throughput (% of peak) and waves per SM.

    Rules, in order (thresholds from ``verdicts.toml``, in the order Nsight Compute's SOLBottleneck rule
    applies them in the corpus reports): either throughput above ``high_throughput_pct`` -> the higher one's
    class (ties go to compute); fewer than ``small_grid_waves`` waves -> launch-bound; both below
    ``latency_pct`` -> latency-bound; otherwise the higher one's class, or balanced when they are within
    ``balanced_margin_pct`` points.
    """
    t = knowledge.verdicts()["sol"]
    c, m = compute_pct, memory_pct

    def verdict(bound: str | None, key: str, **values: Any) -> SolVerdict:
        return SolVerdict(bound, c, m, waves_per_sm, (Note(key, {"c": c, "m": m, **values}),))

    measured = c is not None and m is not None
    higher = COMPUTE_BOUND if measured and c >= m else MEMORY_BOUND
    if measured and max(c, m) > t["high_throughput_pct"]:
        return verdict(higher, "sol_high", top=max(c, m), limit=t["high_throughput_pct"])
    if waves_per_sm is not None and waves_per_sm < t["small_grid_waves"]:
        return verdict(LAUNCH_BOUND, "small_grid", waves=waves_per_sm, limit=t["small_grid_waves"])
    if not measured:
        return verdict(None, "sol_not_measured")
    if max(c, m) < t["latency_pct"]:
        return verdict(LATENCY_BOUND, "sol_latency", limit=t["latency_pct"])
    if abs(c - m) < t["balanced_margin_pct"]:
        return verdict(BALANCED, "sol_balanced", margin=t["balanced_margin_pct"])
    return verdict(higher, "sol_mid", low=t["latency_pct"], high=t["high_throughput_pct"])


def choose_pipe(kernel: KernelProfile, gpu: GpuSpec | None) -> tuple[str, float | None, tuple[Note, ...]]:
    """The pipe whose ceiling applies to the kernel, its FLOPs (or None) and notes on the choice.

    The pipe with the most FLOPs in ``kernel.flop_counts`` wins. Profiles measure FLOPs with the SASS FP
    counters (fp64/fp32/fp16), which do not count tensor-core work. Tensor use is read, best first, from
    ``kernel.tensor_ops_pct`` (per input type, any value > 0), ``kernel.tensor_pipe_op_active_pct`` (per MMA
    kind) or ``kernel.tensor_pipe_active_pct`` (FP16 assumed), the last two above
    ``roofline.tensor_pipe_active_pct``. A tensor kernel gets the ceiling of its busiest tensor type and
    FLOPs "not measured". With no FLOP counts at all: fp32 and "not measured".
    """
    counts = dict(kernel.flop_counts)
    threshold = knowledge.verdicts()["roofline"]["tensor_pipe_active_pct"]
    tensor: tuple[str, Note] | None = None
    if not any("_tensor" in p for p in counts):
        ops = {p: v for p, v in kernel.tensor_ops_pct.items() if v > 0}
        kinds = {p: v for p, v in kernel.tensor_pipe_op_active_pct.items() if v > threshold}
        active = kernel.tensor_pipe_active_pct
        if ops:
            p = max(ops, key=ops.get)
            tensor = p, Note("tensor_ops", {"pct": ops[p], "pipe": p})
        elif kinds and not kernel.tensor_ops_pct:
            p = max(kinds, key=kinds.get)
            tensor = p, Note("tensor_pipe_kind", {"pct": kinds[p], "kind": TENSOR_KIND.get(p, p)})
        elif not kernel.tensor_ops_pct and not kernel.tensor_pipe_op_active_pct and active is not None and active > threshold:
            tensor = "fp16_tensor", Note("tensor_pipe_assumed", {"pct": active})
    if tensor is not None:
        pipe, note = tensor
        if gpu is not None and pipe not in gpu.peak_flops_per_s:
            fallback = "fp16_tensor" if "fp16_tensor" in gpu.peak_flops_per_s else "fp32"
            return fallback, None, (note, Note("no_peak_fallback", {"pipe": pipe, "gpu": gpu.name, "used": fallback}))
        return pipe, None, (note,)
    if not counts:
        rates = any(n.startswith("smsp__sass_thread_inst_executed_op_") and n.endswith(".per_cycle_elapsed") for n in kernel.metrics)
        return "fp32", None, (Note("fp_rates_no_duration" if rates else "no_fp_counters"),)
    pipe = max(counts, key=lambda p: (counts[p], p == "fp32"))
    if counts[pipe] == 0:
        return "fp32", 0.0, (Note("no_fp_work"),)
    return pipe, counts[pipe], ()


def provenance(gpu: GpuSpec, kernel: KernelProfile) -> tuple[Note, ...]:
    """Where the ceilings come from, and the report's own device attributes next to the spec's."""
    if gpu.origin == "catalogue":
        notes = [Note("peaks_catalogue", {"gpu": gpu.name})]
    else:
        notes = [Note("peaks_measured" if gpu.measured else "peaks_given", {"gpu": gpu.name, "origin": gpu.origin})]
    dev = kernel.device
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


def ncu_bottleneck(kernel: KernelProfile) -> tuple[str | None, str | None]:
    """Translate Nsight Compute's stored SOLBottleneck rule result into kernelscope's class vocabulary.

    Returns ``(class, title)``; ``(None, None)`` when the rule is absent, and ``(None, title)`` when it
    ran with an error or gave no class.
    """
    for rule in kernel.rules:
        if rule.rule_id != "SOLBottleneck":
            continue
        title = rule.title or ""
        text = f"{title} {rule.message}".lower()
        if "small grid" in text or "too small to fill" in text:
            return LAUNCH_BOUND, title
        if "latency issue" in text:
            return LATENCY_BOUND, title
        if "balanced" in text:
            return BALANCED, title
        if "memory is more heavily utilized" in text or "high memory throughput" in text:
            return MEMORY_BOUND, title
        if "compute is more heavily utilized" in text or "high compute throughput" in text:
            return COMPUTE_BOUND, title
        if "high throughput" in text:
            # "Start by analyzing DRAM / L1 / L2 ... in Memory Workload Analysis" vs "workloads in Compute ..."
            if re.search(r"start by analyzing (dram|l1|l2|fb|shared|memory)", text):
                return MEMORY_BOUND, title
            if "compute workload analysis" in text:
                return COMPUTE_BOUND, title
        return None, title or None
    return None, None


def choose_advice(classes: Iterable[str], stalls: StallBreakdown | None, gpu: GpuSpec | None = None) -> tuple[str, ...]:
    """Advice ids, most important first: each class's advice, then the top unhealthy stall reasons.

    A compute-bound kernel on a GPU without tensor cores (no ``*_tensor`` peak) gets the variant that does
    not suggest tensor cores.
    """
    limits = knowledge.verdicts()["stalls"]
    advice: list[str] = []
    no_tensor = gpu is not None and not any("_tensor" in p for p in gpu.peak_flops_per_s)
    for bound in classes:
        variant = f"class:{bound}:no_tensor"
        advice.append(variant if no_tensor and knowledge.has_class_variant(bound, "no_tensor") else f"class:{bound}")
    if stalls is not None:
        picked = [
            s for s in stalls.shares
            if s.reason in reasons() and not describe(s.reason).healthy
            and s.share_of_stalls >= limits["advice_min_share"]
        ]
        advice.extend(f"stall:{s.reason}" for s in picked[: limits["advice_max_reasons"]])
    return tuple(advice)


def consistency_notes(kernel: KernelProfile, roofline: RooflinePoint | None, sol: SolVerdict) -> tuple[Note, ...]:
    """Warnings where measurements contradict each other or a ceiling, and where the DRAM roofline and the
    Speed-of-Light verdict point at different units (both are right: the roofline sees only DRAM traffic)."""
    notes: list[Note] = []
    limit = knowledge.verdicts()["roofline"]["efficiency_warning"]
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
        }))
    return tuple(notes)


def diagnose(kernel: KernelProfile, gpu: GpuSpec | None, criteria: Mapping[str, Any] | None = None) -> KernelDiagnosis:
    """Diagnose one kernel launch against one GPU spec.

    Args:
        kernel: the measured launch (SI units).
        gpu: the ceilings to use (catalogue entry, spec file, or measured ceilings); None when unknown: the
            roofline is then not drawn and says why.
        criteria: bottleneck-class thresholds (see :func:`kernelscope.rules.criteria`); None = defaults.

    Returns:
        A :class:`KernelDiagnosis`; anything the profile did not measure is None with a stated reason.
    """
    notes: list[Note] = []
    if kernel.duration_s is not None and not kernel.duration_s > 0:
        # a reader should never hand this on; if one does, it is not a measurement
        kernel = replace(kernel, duration_s=None, problems=kernel.problems + (f"duration {kernel.duration_s} s is not a measurement",))
    pipe, flops, pipe_notes = choose_pipe(kernel, gpu)
    notes.extend(pipe_notes)

    def point(p: str, f: float | None) -> RooflinePoint | None:
        if gpu is None:  # no ceilings: intensity, achieved FLOP/s and bandwidth only
            return roofline_point(p, None, None, f, kernel.dram_bytes, kernel.duration_s)
        peak = gpu.peak_flops_per_s.get(p)
        if peak is None:
            notes.append(Note("no_peak", {"pipe": p, "gpu": gpu.name}))
            return None
        return roofline_point(p, peak, gpu.dram_bandwidth_bytes_per_s, f, kernel.dram_bytes, kernel.duration_s)

    main = point(pipe, flops)
    by_pipe = tuple(
        pt for p, f in kernel.flop_counts.items()
        if f > 0 and (pt := (main if p == pipe else point(p, f))) is not None
    )
    sol = classify_sol(kernel.sol_compute_pct, kernel.sol_memory_pct, kernel.launch.waves_per_sm)
    stalls = None
    if kernel.stall_values:
        stalls = stall_breakdown(kernel.stall_values, kernel.stall_family, kernel.cycles_per_issued_instruction)
    occ = occupancy_of(kernel)
    waves = rules.waves_per_sm(kernel, occ, kernel.device.sm_count or (gpu.sm_count if gpu is not None else None))
    ctx = rules.RuleContext(kernel, sol, occ, stalls, waves, criteria if criteria is not None else rules.criteria())
    classes, evidence = rules.classify(ctx)
    headline = classes or tuple(b for b in (sol.bound if sol.bound is not None else (main.bound if main else None),) if b)
    ncu_class, ncu_title = ncu_bottleneck(kernel)
    notes.extend(consistency_notes(kernel, main, sol))
    return KernelDiagnosis(
        kernel=kernel,
        gpu=gpu,
        provenance=provenance(gpu, kernel) if gpu is not None else (Note("no_gpu"),),
        roofline=main,
        roofline_by_pipe=by_pipe,
        notes=_unique(notes),
        sol=sol,
        classes=classes,
        evidence=evidence,
        occupancy=occ,
        occupancy_notes=rules.occupancy_notes(ctx),
        waves_per_sm=waves,
        stalls=stalls,
        advice=choose_advice(headline, stalls, gpu),
        ncu_bottleneck=ncu_class,
        ncu_bottleneck_title=ncu_title,
    )


def _unique(notes: Iterable[Note]) -> tuple[Note, ...]:
    seen: dict[tuple, Note] = {}
    for n in notes:
        seen.setdefault((n.key, tuple(sorted(n.values.items()))), n)
    return tuple(seen.values())


def diagnose_all(
    kernels: Iterable[KernelProfile], gpu_for: Callable[[KernelProfile], GpuSpec]
) -> tuple[KernelDiagnosis, ...]:
    """Diagnose kernels in order; ``gpu_for`` picks the spec of each (e.g. a catalogue lookup).

    Raises:
        whatever ``gpu_for`` raises (e.g. :class:`kernelscope.errors.UnknownGpuError`).
    """
    return tuple(diagnose(k, gpu_for(k)) for k in kernels)


@dataclass(frozen=True)
class KernelGroup:
    """Launches of one kernel name, for the "where does GPU time go" summary.

    Attributes:
        name: kernel name.
        launches: number of launches.
        total_duration_s: summed duration of launches with a measured duration.
        share: total_duration_s / total of all groups (0..1), or None when no durations were measured.
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
            share=(totals[name] / grand) if grand > 0 else None,
            unmeasured_launches=sum(k.launch_count for k in ks if k.duration_s is None),
        )
        for name, ks in order.items()
    ]
    groups.sort(key=lambda g: -g.total_duration_s)
    return tuple(groups)

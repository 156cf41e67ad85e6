"""Per-kernel diagnosis: roofline position, Speed-of-Light class, warp stalls and the advice that matters.

Pure functions over :class:`kernelscope.model.KernelProfile` and :class:`kernelscope.model.GpuSpec`;
no I/O and no printing. Thresholds and texts come from ``data/verdicts.toml`` (each with its source).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable

from . import knowledge
from .model import GpuSpec, KernelProfile
from .roofline import RooflinePoint, roofline_point
from .stalls import StallBreakdown, describe, reasons, stall_breakdown

COMPUTE_BOUND = "compute-bound"
MEMORY_BOUND = "memory-bound"
LATENCY_BOUND = "latency-bound"
BALANCED = "balanced"
LAUNCH_BOUND = "launch-bound"


@dataclass(frozen=True)
class SolVerdict:
    """Speed-of-Light bottleneck class of one kernel.

    Attributes:
        bound: ``"compute-bound"``, ``"memory-bound"``, ``"latency-bound"``, ``"balanced"`` or
            ``"launch-bound"``; None when the SOL section was not measured.
        compute_pct: SM throughput, % of peak, or None.
        memory_pct: memory throughput, % of peak, or None.
        waves_per_sm: ``launch__waves_per_multiprocessor``, or None.
        evidence: the measured values and thresholds that decided the class, one string each.
    """

    bound: str | None
    compute_pct: float | None
    memory_pct: float | None
    waves_per_sm: float | None
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class KernelDiagnosis:
    """Everything kernelscope concludes about one kernel launch.

    Attributes:
        kernel: the profile it was derived from.
        gpu: the spec whose ceilings were used.
        peaks_source: where the peaks came from, in words (datasheet catalogue, spec file...), with the
            report's own device attributes next to the catalogue's when they are recorded.
        roofline: the point for the pipe the kernel uses most, or None when no ceiling applies.
        roofline_by_pipe: one point per pipe with FLOPs > 0 in the profile (e.g. fp64, fp32, fp16).
        roofline_notes: why roofline quantities are missing or how the pipe was chosen.
        sol: the Speed-of-Light class.
        stalls: warp-stall breakdown, or None when no stall metrics were collected.
        advice: advice ids, most important first: ``"class:<bound>"`` and ``"stall:<reason>"``.
        ncu_bottleneck: the class Nsight Compute's own SOLBottleneck rule stored (same vocabulary as
            ``sol.bound``), or None when the report has no such rule result.
        ncu_bottleneck_title: that rule result's title, e.g. ``"High Memory Throughput"``.
    """

    kernel: KernelProfile
    gpu: GpuSpec
    peaks_source: str
    roofline: RooflinePoint | None
    roofline_by_pipe: tuple[RooflinePoint, ...]
    roofline_notes: tuple[str, ...]
    sol: SolVerdict
    stalls: StallBreakdown | None
    advice: tuple[str, ...]
    ncu_bottleneck: str | None = None
    ncu_bottleneck_title: str | None = None

    @property
    def bound(self) -> str | None:
        """The headline class: the SOL class when measured, else the roofline's memory/compute verdict."""
        if self.sol.bound is not None:
            return self.sol.bound
        return self.roofline.bound if self.roofline is not None else None


def classify_sol(compute_pct: float | None, memory_pct: float | None, waves_per_sm: float | None) -> SolVerdict:
    """Speed-of-Light class from SM and memory throughput (% of peak) and waves per SM.

    Rules, in order (thresholds from ``verdicts.toml``, in the order Nsight Compute's SOLBottleneck rule
    applies them in the corpus reports): either throughput above ``high_throughput_pct`` -> the higher one's
    class (ties go to compute); fewer than ``small_grid_waves`` waves -> launch-bound; both below
    ``latency_pct`` -> latency-bound; otherwise the higher one's class, or balanced when they are within
    ``balanced_margin_pct`` points.
    """
    t = knowledge.verdicts()["sol"]
    evidence: list[str] = []
    c, m = compute_pct, memory_pct
    measured = c is not None and m is not None
    if measured and max(c, m) > t["high_throughput_pct"]:
        bound = COMPUTE_BOUND if c >= m else MEMORY_BOUND
        evidence.append(f"compute {c:.1f}%, memory {m:.1f}%: {max(c, m):.1f}% > {t['high_throughput_pct']:g}% of peak")
        return SolVerdict(bound, c, m, waves_per_sm, tuple(evidence))
    if waves_per_sm is not None and waves_per_sm < t["small_grid_waves"]:
        evidence.append(f"{waves_per_sm:.2f} waves per SM < {t['small_grid_waves']:g}")
        return SolVerdict(LAUNCH_BOUND, c, m, waves_per_sm, tuple(evidence))
    if not measured:
        return SolVerdict(None, c, m, waves_per_sm, ("Speed-of-Light throughput not measured",))
    pair = f"compute {c:.1f}%, memory {m:.1f}%"
    higher = COMPUTE_BOUND if c >= m else MEMORY_BOUND
    if max(c, m) < t["latency_pct"]:
        bound = LATENCY_BOUND
        evidence.append(f"{pair}: both < {t['latency_pct']:g}% of peak")
    elif abs(c - m) < t["balanced_margin_pct"]:
        bound = BALANCED
        evidence.append(f"{pair}: within {t['balanced_margin_pct']:g} points of each other")
    else:
        bound = higher
        evidence.append(f"{pair}: higher one in {t['latency_pct']:g}-{t['high_throughput_pct']:g}% of peak")
    return SolVerdict(bound, c, m, waves_per_sm, tuple(evidence))


def choose_pipe(kernel: KernelProfile, gpu: GpuSpec) -> tuple[str, float | None, tuple[str, ...]]:
    """The pipe whose ceiling applies to the kernel, its FLOPs (or None) and notes on the choice.

    The pipe with the most FLOPs in ``kernel.flop_counts`` wins. Profiles measure FLOPs with the SASS FP
    counters (fp64/fp32/fp16), which do not count tensor-core work. Tensor use is read from
    ``kernel.tensor_ops_pct`` (per input type) when the report has it, else from the tensor pipe being
    active above ``roofline.tensor_pipe_active_pct``; a tensor kernel gets the ceiling of its busiest tensor
    type (FP16 tensor when only the pipe activity is known) and FLOPs "not measured". With no FLOP counts
    at all, fp32 and "not measured".
    """
    counts = dict(kernel.flop_counts)
    if not any(p.endswith("_tensor") or "_tensor_" in p for p in counts):
        used = {p: v for p, v in kernel.tensor_ops_pct.items() if v > 0}
        tensor = kernel.tensor_pipe_active_pct
        threshold = knowledge.verdicts()["roofline"]["tensor_pipe_active_pct"]
        if used:
            pipe = max(used, key=used.get)
            why = f"tensor cores at {used[pipe]:.1f}% of the {pipe} peak (sm__ops_path_tensor_*)"
        elif not kernel.tensor_ops_pct and tensor is not None and tensor > threshold:
            pipe = "fp16_tensor"
            why = f"tensor pipe {tensor:.1f}% active"
        else:
            pipe = None
        if pipe is not None:
            if pipe not in gpu.peak_flops_per_s:
                pipe = "fp16_tensor" if "fp16_tensor" in gpu.peak_flops_per_s else "fp32"
            return pipe, None, (
                f"{why}: tensor-core FLOPs are not counted by the SASS FP counters, so FLOPs and "
                "achieved FLOP/s are not measured",
            )
    if not counts:
        return "fp32", None, ("FP instruction counters not collected",)
    pipe = max(counts, key=lambda p: (counts[p], p == "fp32"))
    if counts[pipe] == 0:
        return "fp32", 0.0, ("no floating-point instructions executed",)
    return pipe, counts[pipe], ()


def peaks_source(gpu: GpuSpec, kernel: KernelProfile) -> str:
    """Say where the ceilings come from and how the report's own device attributes compare."""
    where = {
        "catalogue": f"datasheet peaks of {gpu.name} (kernelscope catalogue)",
    }.get(gpu.origin, f"{'measured' if gpu.measured else 'given'} peaks of {gpu.name} ({gpu.origin})")
    dev = kernel.device
    seen = []
    if dev.sm_count is not None:
        ref = f" (spec: {gpu.sm_count})" if gpu.sm_count is not None and gpu.sm_count != dev.sm_count else ""
        seen.append(f"{dev.sm_count} SMs{ref}")
    if dev.max_sm_clock_hz is not None:
        ref = ""
        if gpu.boost_clock_hz is not None and abs(gpu.boost_clock_hz - dev.max_sm_clock_hz) > 0.01 * gpu.boost_clock_hz:
            ref = f" (spec boost: {gpu.boost_clock_hz / 1e9:.3g} GHz)"
        seen.append(f"max SM clock {dev.max_sm_clock_hz / 1e9:.3g} GHz{ref}")
    if seen:
        where += "; report's device: " + ", ".join(seen)
    return where


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


def choose_advice(bound: str | None, stalls: StallBreakdown | None) -> tuple[str, ...]:
    """Advice ids, most important first: the class's advice, then the top unhealthy stall reasons."""
    limits = knowledge.verdicts()["stalls"]
    advice: list[str] = []
    if bound is not None:
        advice.append(f"class:{bound}")
    if stalls is not None:
        picked = [
            s for s in stalls.shares
            if s.reason in reasons() and not describe(s.reason).healthy
            and s.share_of_stalls >= limits["advice_min_share"]
        ]
        advice.extend(f"stall:{s.reason}" for s in picked[: limits["advice_max_reasons"]])
    return tuple(advice)


def diagnose(kernel: KernelProfile, gpu: GpuSpec) -> KernelDiagnosis:
    """Diagnose one kernel launch against one GPU spec.

    Args:
        kernel: the measured launch (SI units).
        gpu: the ceilings to use (catalogue entry, spec file, or measured ceilings).

    Returns:
        A :class:`KernelDiagnosis`; anything the profile did not measure is None with a stated reason.
    """
    bandwidth = gpu.dram_bandwidth_bytes_per_s
    pipe, flops, notes = choose_pipe(kernel, gpu)
    notes = list(notes)

    def point(p: str, f: float | None) -> RooflinePoint | None:
        peak = gpu.peak_flops_per_s.get(p)
        if peak is None:
            notes.append(f"no {p} peak for {gpu.name}: that roofline is not drawn")
            return None
        return roofline_point(p, peak, bandwidth, f, kernel.dram_bytes, kernel.duration_s)

    main = point(pipe, flops)
    by_pipe = tuple(
        pt for p, f in kernel.flop_counts.items()
        if f > 0 and (pt := (main if p == pipe else point(p, f))) is not None
    )
    sol = classify_sol(kernel.sol_compute_pct, kernel.sol_memory_pct, kernel.launch.waves_per_sm)
    stalls = None
    if kernel.stall_values:
        stalls = stall_breakdown(kernel.stall_values, kernel.stall_family, kernel.cycles_per_issued_instruction)
    headline = sol.bound if sol.bound is not None else (main.bound if main is not None else None)
    ncu_class, ncu_title = ncu_bottleneck(kernel)
    return KernelDiagnosis(
        kernel=kernel,
        gpu=gpu,
        peaks_source=peaks_source(gpu, kernel),
        roofline=main,
        roofline_by_pipe=by_pipe,
        roofline_notes=tuple(dict.fromkeys(notes)),
        sol=sol,
        stalls=stalls,
        advice=choose_advice(headline, stalls),
        ncu_bottleneck=ncu_class,
        ncu_bottleneck_title=ncu_title,
    )


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
    """Group launches by kernel name, largest total duration first (ties keep report order)."""
    order: dict[str, list[KernelProfile]] = {}
    for k in kernels:
        order.setdefault(k.name, []).append(k)
    totals = {
        name: math.fsum(k.duration_s for k in ks if k.duration_s is not None) for name, ks in order.items()
    }
    grand = math.fsum(totals.values())
    groups = [
        KernelGroup(
            name=name,
            launches=len(ks),
            total_duration_s=totals[name],
            share=(totals[name] / grand) if grand > 0 else None,
            unmeasured_launches=sum(k.duration_s is None for k in ks),
        )
        for name, ks in order.items()
    ]
    groups.sort(key=lambda g: -g.total_duration_s)
    return tuple(groups)

"""The roofline model: arithmetic intensity, ridge point, attainable and achieved FLOP/s.

Pure functions over numbers in SI units. Formulas (Williams, Waterman & Patterson, "Roofline: an insightful
visual performance model for multicore architectures", CACM 52(4), 2009; Nsight Compute Kernel Profiling
Guide, "Roofline Charts"):

    arithmetic intensity  AI = FLOP / DRAM bytes                       [FLOP/byte]
    ridge point           AI* = peak FLOP/s / peak DRAM bytes/s        [FLOP/byte]
    attainable            P = min(peak FLOP/s, AI x peak bytes/s)      [FLOP/s]
    achieved              FLOP / duration                              [FLOP/s]
    efficiency            achieved / attainable                        [0..1]
    bound                 memory-bound if AI < AI*, else compute-bound

A kernel that executed no floating-point work (0 FLOP) is not on the roofline: it has no bound, attainable or
efficiency (``roofline_not_applicable``); its achieved FLOP/s (0) and bandwidth are still given.

:func:`kernel_points` places a profiled launch: the FLOP/s ceilings at the SM clock the launch ran at (Nsight
Compute locks clocks to base by default; the compute peaks scale with the SM clock, DRAM bandwidth does not),
tensor-core FLOPs estimated from the tensor pipe's utilisation where the profile does not count them, the DRAM
throughput derived from bytes and duration where the profile lacks it, and notes where the DRAM intensity is
distorted (data that stayed in L2, register-spill traffic):

    ceiling at the SM clock   peak x f_SM / f_boost                        [FLOP/s]   (DRAM bytes/s unscaled)
    estimated tensor FLOP     utilisation % / 100 x that ceiling x duration [FLOP]    (utilisation over elapsed cycles)
    derived DRAM throughput   DRAM bytes / duration / peak bytes/s x 100   [%]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping

from ..knowledge.criteria import criteria as default_criteria
from ..model import GpuSpec, KernelProfile
from ..notes import COMPUTE_BOUND, MEMORY_BOUND, Note, quick_init

__all__ = ["COMPUTE_BOUND", "INTENSITY_INPUTS", "MEMORY_BOUND", "RooflinePoint", "choose_pipe", "clock_scale",
           "counted_flops", "derived_dram_throughput_pct", "estimate_tensor_flops", "intensity_notes",
           "kernel_points", "ridge_point", "roofline_point", "useful_point"]


@quick_init
@dataclass(frozen=True)
class RooflinePoint:
    """Where one kernel sits on the roofline of one pipe. None = not measured (see ``not_measured``).

    Attributes:
        pipe: the ceiling used (a key of :data:`kernelscope.model.PIPES`).
        flops: floating-point operations executed (FLOP), or None.
        dram_bytes: DRAM bytes read + written, or None.
        duration_s: kernel duration in seconds, or None.
        peak_flops_per_s: the pipe's dense peak used as the ceiling (FLOP/s): the datasheet peak x ``clock_scale``
            when that is known, else the datasheet peak; None when no GPU ceilings are known.
        peak_bandwidth_bytes_per_s: peak DRAM bandwidth (bytes/s), or None likewise (never clock-scaled: DRAM
            bandwidth does not follow the SM clock).
        ridge_point_flop_per_byte: peak_flops_per_s / peak_bandwidth_bytes_per_s, or None without ceilings.
        arithmetic_intensity_flop_per_byte: flops / dram_bytes (``inf`` when bytes are 0 and flops > 0).
        attainable_flops_per_s: min(peak, AI x bandwidth).
        achieved_flops_per_s: flops / duration_s.
        achieved_bytes_per_s: effective DRAM bandwidth, dram_bytes / duration_s.
        efficiency: achieved / attainable, 0..1 (can exceed 1 only if a ceiling is wrong).
        bound: ``"memory-bound"`` or ``"compute-bound"``, or None when AI is unknown or there is no FP work.
        not_measured: why quantities are missing, as note keys (templates in ``labels.toml`` ``[note]``):
            ``flops_not_measured``, ``dram_bytes_not_measured``, ``duration_not_measured``, ``no_work`` (no FLOPs
            and no DRAM bytes), ``roofline_not_applicable`` (0 FLOP: no bound, attainable or efficiency; given
            with ``efficiency_undefined``).
        datasheet_peak_flops_per_s: the spec's dense peak of the pipe before clock scaling (FLOP/s), or None
            without GPU ceilings (set by :func:`kernel_points`).
        clock_scale: profiled SM clock / the spec's boost clock, the factor applied to the FLOP/s peak; None when
            not applied (a clock unknown, or measured ceilings) (set by :func:`kernel_points`).
        flops_estimated: True when ``flops`` is not a count but an estimate from the tensor pipe's utilisation
            (:func:`estimate_tensor_flops`).
        derived_dram_throughput_pct: DRAM throughput, % of the spec's peak bandwidth, derived as dram_bytes /
            duration_s / peak x 100 when the profile has no ``gpu__dram_throughput`` value; None otherwise.
    """

    pipe: str
    peak_flops_per_s: float | None
    peak_bandwidth_bytes_per_s: float | None
    ridge_point_flop_per_byte: float | None
    flops: float | None = None
    dram_bytes: float | None = None
    duration_s: float | None = None
    arithmetic_intensity_flop_per_byte: float | None = None
    attainable_flops_per_s: float | None = None
    achieved_flops_per_s: float | None = None
    achieved_bytes_per_s: float | None = None
    efficiency: float | None = None
    bound: str | None = None
    not_measured: tuple[str, ...] = ()
    datasheet_peak_flops_per_s: float | None = None
    clock_scale: float | None = None
    flops_estimated: bool = False
    derived_dram_throughput_pct: float | None = None


def ridge_point(peak_flops_per_s: float, peak_bandwidth_bytes_per_s: float) -> float:
    """Ridge point in FLOP/byte: the arithmetic intensity where the bandwidth slope meets the compute roof.

    Raises:
        ValueError: if either peak is not a positive finite number.
    """
    _check_positive("peak_flops_per_s", peak_flops_per_s)
    _check_positive("peak_bandwidth_bytes_per_s", peak_bandwidth_bytes_per_s)
    return peak_flops_per_s / peak_bandwidth_bytes_per_s


def roofline_point(
    pipe: str,
    peak_flops_per_s: float | None,
    peak_bandwidth_bytes_per_s: float | None,
    flops: float | None,
    dram_bytes: float | None,
    duration_s: float | None,
) -> RooflinePoint:
    """Place a kernel on the roofline of one pipe.

    Args:
        pipe: which ceiling (e.g. ``"fp32"``); only used as a label.
        peak_flops_per_s: dense peak of that pipe, FLOP/s (> 0), or None when the GPU is unknown: then only
            arithmetic intensity, achieved FLOP/s and achieved bandwidth are computed.
        peak_bandwidth_bytes_per_s: DRAM peak bandwidth, bytes/s (> 0), or None likewise.
        flops: FLOP executed, >= 0, or None if not measured.
        dram_bytes: DRAM bytes read + written, >= 0, or None if not measured.
        duration_s: kernel duration in seconds, > 0, or None if not measured.

    Returns:
        A :class:`RooflinePoint`; quantities that cannot be derived are None with a reason. With 0 FLOP (and DRAM
        bytes not 0) the roofline does not apply: AI is 0 and achieved 0 FLOP/s, but bound, attainable and
        efficiency are None (``roofline_not_applicable``, ``efficiency_undefined``).

    Raises:
        ValueError: on a non-positive peak or a negative / NaN measurement.
    """
    ceilings = peak_flops_per_s is not None and peak_bandwidth_bytes_per_s is not None
    ridge = ridge_point(peak_flops_per_s, peak_bandwidth_bytes_per_s) if ceilings else None
    for name, value in (("flops", flops), ("dram_bytes", dram_bytes)):
        if value is not None and (math.isnan(value) or value < 0):
            raise ValueError(f"{name} must be >= 0, got {value!r}")
    if duration_s is not None and (math.isnan(duration_s) or duration_s <= 0):
        raise ValueError(f"duration_s must be > 0, got {duration_s!r}")

    missing: list[str] = []
    if flops is None:
        missing.append("flops_not_measured")
    if dram_bytes is None:
        missing.append("dram_bytes_not_measured")
    if duration_s is None:
        missing.append("duration_not_measured")

    ai = attainable = achieved = efficiency = bound = None
    if flops == 0 and dram_bytes != 0:
        missing += ["roofline_not_applicable", "efficiency_undefined"]  # no FP work: no roof applies
    if flops is not None and dram_bytes is not None:
        if dram_bytes > 0:
            ai = flops / dram_bytes
        elif flops > 0:
            ai = math.inf
        else:
            missing.append("no_work")
        if ai is not None and ceilings and flops > 0:
            attainable = min(peak_flops_per_s, ai * peak_bandwidth_bytes_per_s)
            bound = MEMORY_BOUND if ai < ridge else COMPUTE_BOUND
    if flops is not None and duration_s is not None:
        achieved = flops / duration_s
    achieved_bw = dram_bytes / duration_s if dram_bytes is not None and duration_s is not None else None
    if achieved is not None and attainable is not None and attainable > 0:
        efficiency = achieved / attainable

    return RooflinePoint(
        pipe=pipe,
        peak_flops_per_s=peak_flops_per_s,
        peak_bandwidth_bytes_per_s=peak_bandwidth_bytes_per_s,
        ridge_point_flop_per_byte=ridge,
        flops=flops,
        dram_bytes=dram_bytes,
        duration_s=duration_s,
        arithmetic_intensity_flop_per_byte=ai,
        attainable_flops_per_s=attainable,
        achieved_flops_per_s=achieved,
        achieved_bytes_per_s=achieved_bw,
        efficiency=efficiency,
        bound=bound,
        not_measured=tuple(missing),
    )


def _check_positive(name: str, value: float) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


# ----------------------------------------------------------------------------------------- a kernel's points

#: MMA instruction kinds Nsight Compute reports tensor-pipe activity for, and their pipe keys.
TENSOR_KIND = {"fp16_tensor": "HMMA", "int8_tensor": "IMMA", "fp64_tensor": "DMMA"}
#: Tensor pipe busy cycles as % of the peak over the SMs' active cycles and over the elapsed cycles: their ratio
#: is the share of the elapsed cycles the SMs were active, which turns an ``..._active`` % into an elapsed one.
TENSOR_ACTIVE_PCT = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"
TENSOR_ELAPSED_PCT = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
#: L2 sector traffic (all L2 tag lookups: L1 requests and the DRAM fills / write-backs).
L2_SECTORS = "lts__t_sectors.sum"
#: L1 sectors of global and of local (thread-private: register spills, large local arrays) loads and stores.
L1_GLOBAL_SECTORS = ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
L1_LOCAL_SECTORS = ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum")
#: Every metric name :func:`intensity_notes` and :func:`estimate_tensor_flops` read from ``KernelProfile.metrics``
#: (each is requested in ``data/metrics.toml`` ``[request]``, by name or by prefix).
INTENSITY_INPUTS = (L2_SECTORS, *L1_GLOBAL_SECTORS, *L1_LOCAL_SECTORS, TENSOR_ACTIVE_PCT, TENSOR_ELAPSED_PCT)
#: Bytes per L1 / L2 sector (Nsight Compute Kernel Profiling Guide, "Memory Workload Analysis": a sector is 32 B).
SECTOR_BYTES = 32.0


@dataclass(frozen=True)
class _TensorUse:
    """The tensor work choose_pipe found: pipe, % of that pipe's peak, whether the % counts only the SMs' active
    cycles (``..._active`` metrics) rather than the elapsed ones, and the note that says where it came from."""

    pipe: str
    pct: float
    active_based: bool
    note: Note


def _tensor_use(kernel: KernelProfile, threshold: float) -> _TensorUse | None:
    """Tensor-core work the SASS FP counters miss: None when ``flop_counts`` already counts tensor pipes or no
    tensor metric shows work (see :func:`choose_pipe` for the order)."""
    if any("_tensor" in p for p in kernel.flop_counts):
        return None
    ops = {p: v for p, v in kernel.tensor_ops_pct.items() if v > 0}
    kinds = {p: v for p, v in kernel.tensor_pipe_op_active_pct.items() if v > threshold}
    active = kernel.tensor_pipe_active_pct
    if ops:  # sm__ops_path_tensor_src_*.sum.pct_of_peak_sustained_elapsed
        p = max(ops, key=ops.get)  # type: ignore[arg-type]
        return _TensorUse(p, ops[p], False, Note("tensor_ops", {"pct": ops[p], "pipe": p}))
    if kinds and not kernel.tensor_ops_pct:  # sm__pipe_tensor_op_<kind>_cycles_active...pct_of_peak_sustained_active
        p = max(kinds, key=kinds.get)  # type: ignore[arg-type]
        return _TensorUse(p, kinds[p], True, Note("tensor_pipe_kind", {"pct": kinds[p], "kind": TENSOR_KIND.get(p, p)}))
    if not kernel.tensor_ops_pct and not kernel.tensor_pipe_op_active_pct and active is not None and active > threshold:
        # the reader takes the _active form first; only the _elapsed one recorded means it is elapsed-based
        elapsed_only = TENSOR_ACTIVE_PCT not in kernel.metrics and kernel.metrics.get(TENSOR_ELAPSED_PCT) == active
        return _TensorUse("fp16_tensor", active, not elapsed_only, Note("tensor_pipe_assumed", {"pct": active}))
    return None


def choose_pipe(kernel: KernelProfile, gpu: GpuSpec | None, tensor_pipe_active_pct: float = 5.0
                ) -> tuple[str, float | None, tuple[Note, ...]]:
    """The pipe whose ceiling applies to the kernel, its FLOPs (or None) and notes on the choice.

    The pipe with the most FLOPs in ``kernel.flop_counts`` wins. Profiles measure FLOPs with the SASS FP
    counters (fp64/fp32/fp16), which do not count tensor-core work; tensor pipes are counted only where the
    profile holds ``sm__ops_path_tensor_src_*.sum`` (then they are keys of ``flop_counts`` and compete like any
    pipe). Otherwise tensor use is read, best first, from ``kernel.tensor_ops_pct`` (per input type, any value
    > 0), ``kernel.tensor_pipe_op_active_pct`` (per MMA kind) or ``kernel.tensor_pipe_active_pct`` (FP16
    assumed), the last two above ``tensor_pipe_active_pct`` (criterion of ``verdicts.toml``). A tensor kernel
    gets the ceiling of its busiest tensor type and FLOPs None here (:func:`kernel_points` estimates them). With
    no FLOP counts at all: fp32 and None; with only zero counts: fp32, 0 and ``no_fp_work``.
    """
    counts = dict(kernel.flop_counts)
    tensor = _tensor_use(kernel, tensor_pipe_active_pct)
    if tensor is not None:
        pipe, note = tensor.pipe, tensor.note
        if gpu is not None and pipe not in gpu.peak_flops_per_s:
            fallback = "fp16_tensor" if "fp16_tensor" in gpu.peak_flops_per_s else "fp32"
            return fallback, None, (note, Note("no_peak_fallback", {"pipe": pipe, "gpu": gpu.name, "used": fallback}))
        return pipe, None, (note,)
    if not counts:
        return "fp32", None, (Note("fp_rates_no_duration" if kernel.has_flop_rates else "no_fp_counters"),)
    pipe = max(counts, key=lambda p: (counts[p], p == "fp32"))
    if counts[pipe] == 0:
        return "fp32", 0.0, (Note("no_fp_work"),)
    return pipe, counts[pipe], ()


def clock_scale(kernel: KernelProfile, gpu: GpuSpec | None) -> float | None:
    """Profiled SM clock / the spec's boost clock: the factor the FLOP/s peaks take at the clock the launch ran at.

    A dense peak is SMs x FLOP per SM per cycle x clock, so it scales with the SM clock; Nsight Compute locks the
    clocks to base by default (``--clock-control base``) and its own roofline uses the measured clock
    (Nsight Compute Kernel Profiling Guide, "Roofline Charts" and "Clock Control"). The clock is
    ``KernelProfile.sm_frequency_hz`` (``smsp__cycles_elapsed.avg.per_second``). None, and no scaling, when
    either clock is unknown or the spec's ceilings were measured on the device (they already hold its clock).
    """
    if gpu is None or gpu.measured:
        return None
    f, boost = kernel.sm_frequency_hz, gpu.boost_clock_hz
    if f is None or boost is None or not (math.isfinite(f) and f > 0 and math.isfinite(boost) and boost > 0):
        return None
    return f / boost


def derived_dram_throughput_pct(kernel: KernelProfile, gpu: GpuSpec | None) -> float | None:
    """DRAM throughput, % of the spec's peak bandwidth, from bytes and duration: dram_bytes / duration_s /
    dram_bandwidth_bytes_per_s x 100. Only when the profile has no ``gpu__dram_throughput`` % of its own
    (``KernelProfile.dram_throughput_pct`` None) and bytes, duration and the GPU are known; else None."""
    if kernel.dram_throughput_pct is not None or gpu is None:
        return None
    dram, d = kernel.dram_bytes, kernel.duration_s
    if dram is None or d is None or not d > 0:
        return None
    return dram / d / gpu.dram_bandwidth_bytes_per_s * 100.0


def estimate_tensor_flops(kernel: KernelProfile, peak_flops_per_s: float, tensor_pipe_active_pct: float = 5.0
                          ) -> tuple[float, Note] | None:
    """Tensor-core FLOPs the profile does not count, estimated from the tensor pipe's utilisation.

    FLOP = utilisation (% of the pipe's peak over the launch's elapsed cycles) / 100 x ``peak_flops_per_s`` (that
    pipe's peak at the profiled clock, :func:`clock_scale`) x ``duration_s``. The utilisation is the busiest
    tensor type's % as :func:`choose_pipe` picks it. ``sm__ops_path_tensor_*`` values are already over elapsed
    cycles; the ``..._cycles_active...pct_of_peak_sustained_active`` ones count only the SMs' active cycles and
    are converted with the ratio of ``sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed`` to its
    ``_active`` form (same busy cycles, so the ratio is the active share of the elapsed cycles). Without that pair
    the active-cycle % is used as it is: an upper bound (note ``flops_estimated_active``). It also assumes the
    busy pipe runs its densest MMA, so the estimate is labelled as one (``RooflinePoint.flops_estimated``).

    Returns:
        (FLOP, note ``flops_estimated`` / ``flops_estimated_active``), or None when no tensor work is seen or the
        duration is unknown.
    """
    use = _tensor_use(kernel, tensor_pipe_active_pct)
    d = kernel.duration_s
    if use is None or d is None or not d > 0:
        return None
    pct, key = use.pct, "flops_estimated"
    if use.active_based:
        a, e = kernel.metrics.get(TENSOR_ACTIVE_PCT), kernel.metrics.get(TENSOR_ELAPSED_PCT)
        if a is not None and e is not None and a > 0 and 0 <= e <= a:
            pct = use.pct * e / a
        else:
            key = "flops_estimated_active"
    flops = pct / 100.0 * peak_flops_per_s * d
    return flops, Note(key, {"pct": pct, "pipe": use.pipe, "tflops": peak_flops_per_s / 1e12, "duration_s": d,
                             "gflop": flops / 1e9})


def _sectors(kernel: KernelProfile, names: tuple[str, ...]) -> float | None:
    """Sum of sector counts of ``names`` (None when none is recorded, or one is in a unit other than sectors)."""
    present = [n for n in names if n in kernel.metrics]
    if not present or any(kernel.metric_units.get(n, "sector") not in ("sector", "") for n in present):
        return None
    return math.fsum(kernel.metrics[n] for n in present)


def intensity_notes(kernel: KernelProfile, point: RooflinePoint | None, crit: Mapping[str, float]) -> tuple[Note, ...]:
    """Where the DRAM arithmetic intensity of ``point`` (FLOP > 0, DRAM bytes > 0) does not describe the algorithm.

    * ``intensity_l2_resident``: DRAM bytes below ``l2_resident_dram_share`` of the L2 traffic
      (``lts__t_sectors.sum`` x 32 B): the data stayed in L2 and the intensity is too high;
    * ``intensity_no_dram_writes`` (when the first does not hold): DRAM writes 0 B while reads were not: the output
      stayed in the write-back L2 and only the reads count;
    * ``intensity_local_memory``: local-memory sectors (register spills) above ``local_memory_share`` of the L1
      global + local sectors: spill traffic inflates the bytes and the intensity is too low.

    ``crit``: thresholds of ``verdicts.toml`` (:func:`kernelscope.knowledge.criteria.criteria`).
    """
    if point is None or not point.flops or not point.dram_bytes:
        return ()
    notes: list[Note] = []
    dram = point.dram_bytes
    l2 = _sectors(kernel, (L2_SECTORS,))
    limit = crit["l2_resident_dram_share"]
    if l2 is not None and l2 > 0 and dram / (l2 * SECTOR_BYTES) < limit:
        notes.append(Note("intensity_l2_resident", {"dram_mb": dram / 1e6, "l2_mb": l2 * SECTOR_BYTES / 1e6,
                                                    "share": dram / (l2 * SECTOR_BYTES), "limit": limit}))
    elif kernel.dram_bytes_write == 0 and kernel.dram_bytes_read:
        notes.append(Note("intensity_no_dram_writes", {"read_mb": kernel.dram_bytes_read / 1e6}))
    local, glob = _sectors(kernel, L1_LOCAL_SECTORS), _sectors(kernel, L1_GLOBAL_SECTORS)
    limit = crit["local_memory_share"]
    if local and local / (local + (glob or 0.0)) > limit:
        notes.append(Note("intensity_local_memory", {"share": local / (local + (glob or 0.0)),
                                                     "local_mb": local * SECTOR_BYTES / 1e6, "limit": limit}))
    return tuple(notes)


def kernel_points(kernel: KernelProfile, gpu: GpuSpec | None, tensor_pipe_active_pct: float = 5.0,
                  criteria: Mapping[str, float] | None = None
                  ) -> tuple[RooflinePoint | None, tuple[RooflinePoint, ...], tuple[Note, ...]]:
    """A launch's roofline: ``(point of the pipe it uses most, one point per pipe with FLOPs > 0, notes)``.

    * Ceilings: each pipe's datasheet peak x :func:`clock_scale` when the profiled SM clock and the boost clock
      are known (note ``peaks_at_sm_clock``; the points keep ``datasheet_peak_flops_per_s`` and ``clock_scale``);
      the DRAM bandwidth is never scaled.
    * Tensor work the profile does not count: FLOPs estimated by :func:`estimate_tensor_flops` (the main point's
      ``flops_estimated`` is True); the per-pipe points hold the profile's counts only.
    * No FP work: the main point has no bound (``roofline_not_applicable``, instead of ``no_fp_work``).
    * ``gpu__dram_throughput`` not measured: :func:`derived_dram_throughput_pct`, in every point's
      ``derived_dram_throughput_pct`` and a ``dram_throughput_derived`` note (value ``pct``), so that the
      diagnosis can use it as the DRAM %.
    * FLOPs counted by instruction counters (or estimated from a pipe's utilisation) are EXECUTED FLOPs, padding,
      masked lanes and tensor-tile waste included: note ``flops_executed`` (the useful count, when the user gives
      it, is a second point: :func:`useful_point`).
    * :func:`intensity_notes` for the main point, with ``criteria`` (None: the ``verdicts.toml`` defaults).

    Without ``gpu`` only arithmetic intensity, achieved FLOP/s and bandwidth are computed (no estimate, no
    scaling, no derived %); a pipe the GPU has no peak for gives no point and a ``no_peak`` note.
    """
    crit = criteria if criteria is not None else default_criteria()
    pipe, flops, notes = choose_pipe(kernel, gpu, tensor_pipe_active_pct)
    out_notes = list(notes)
    scale = clock_scale(kernel, gpu)
    dram_pct = derived_dram_throughput_pct(kernel, gpu)
    if gpu is not None and scale is not None:
        out_notes.append(Note("peaks_at_sm_clock", {
            "ghz": scale * gpu.boost_clock_hz / 1e9, "boost_ghz": gpu.boost_clock_hz / 1e9,  # type: ignore[operator]
            "scale": scale}))
    if gpu is not None and dram_pct is not None:
        out_notes.append(Note("dram_throughput_derived", {
            "pct": dram_pct, "gbps": dram_pct / 100.0 * gpu.dram_bandwidth_bytes_per_s / 1e9,
            "peak_gbps": gpu.dram_bandwidth_bytes_per_s / 1e9}))

    def point(p: str, f: float | None, estimate: bool = False) -> RooflinePoint | None:
        if gpu is None:
            return roofline_point(p, None, None, f, kernel.dram_bytes, kernel.duration_s)
        peak = gpu.peak_flops_per_s.get(p)
        if peak is None:
            out_notes.append(Note("no_peak", {"pipe": p, "gpu": gpu.name}))
            return None
        used = peak * scale if scale is not None else peak
        estimated = False
        if estimate and f is None and (e := estimate_tensor_flops(kernel, used, tensor_pipe_active_pct)) is not None:
            f, estimated = e[0], True
            out_notes.append(e[1])
        pt = roofline_point(p, used, gpu.dram_bandwidth_bytes_per_s, f, kernel.dram_bytes, kernel.duration_s)
        return replace(pt, datasheet_peak_flops_per_s=peak, clock_scale=scale, flops_estimated=estimated,
                       derived_dram_throughput_pct=dram_pct)

    # estimate only for the chosen tensor pipe itself, never for a fallback ceiling of another type
    main = point(pipe, flops, estimate=not any(n.key == "no_peak_fallback" for n in notes))
    by_pipe = tuple(
        pt for p, f in kernel.flop_counts.items()
        if f > 0 and (pt := (main if p == pipe else point(p, f))) is not None
    )
    if main is not None and "roofline_not_applicable" in main.not_measured:
        out_notes = [n for n in out_notes if n.key != "no_fp_work"]  # the point says it
    if main is not None and main.flops and (counted_flops(kernel) or main.flops_estimated):
        out_notes.append(Note("flops_executed" if kernel.useful_flops is None else "flops_executed_vs_useful"))
    out_notes.extend(intensity_notes(kernel, main, crit))
    return main, by_pipe, tuple(out_notes)


#: Metric-name prefixes of the instruction counters FLOPs are counted from (SASS FP instructions, tensor-path ops,
#: nvprof's flop_count_*): counts of EXECUTED work.
COUNTER_PREFIXES = ("sm__sass_thread_inst_executed_op_", "smsp__sass_thread_inst_executed_op_",
                    "sm__ops_path_tensor_", "flop_count_")


def counted_flops(kernel: KernelProfile) -> bool:
    """Whether ``kernel``'s FLOPs come from instruction counters (executed FLOPs: padding, masked lanes and
    tensor-tile waste included), not from a number the user typed in."""
    return any(name.startswith(COUNTER_PREFIXES) for name in kernel.metrics)


def useful_point(kernel: KernelProfile, main: RooflinePoint | None) -> tuple[RooflinePoint | None, tuple[Note, ...]]:
    """The launch's roofline point for its USEFUL FLOPs (``kernel.useful_flops``, the algorithm's count the user
    gives) beside ``main`` (the executed FLOPs): same pipe, ceilings, DRAM bytes and duration, so that both
    points show how much of the executed work is useful. (None, ()) without a useful count or a main point; a note
    ``useful_above_executed`` when the useful count exceeds the executed one (counted another way)."""
    useful = kernel.useful_flops
    if useful is None or main is None:
        return None, ()
    pt = roofline_point(main.pipe, main.peak_flops_per_s, main.peak_bandwidth_bytes_per_s, useful, main.dram_bytes,
                        main.duration_s)
    pt = replace(pt, datasheet_peak_flops_per_s=main.datasheet_peak_flops_per_s, clock_scale=main.clock_scale,
                 derived_dram_throughput_pct=main.derived_dram_throughput_pct)
    executed = main.flops
    notes = ()
    if executed is not None and useful > executed * 1.000001:
        notes = (Note("useful_above_executed", {"useful": useful, "executed": executed}),)
    return pt, notes

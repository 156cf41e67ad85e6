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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model import GpuSpec, KernelProfile
from ..notes import COMPUTE_BOUND, MEMORY_BOUND, Note

__all__ = ["COMPUTE_BOUND", "MEMORY_BOUND", "RooflinePoint", "choose_pipe", "kernel_points", "ridge_point",
           "roofline_point"]


@dataclass(frozen=True)
class RooflinePoint:
    """Where one kernel sits on the roofline of one pipe. None = not measured (see ``not_measured``).

    Attributes:
        pipe: the ceiling used (a key of :data:`kernelscope.model.PIPES`).
        flops: floating-point operations executed (FLOP), or None.
        dram_bytes: DRAM bytes read + written, or None.
        duration_s: kernel duration in seconds, or None.
        peak_flops_per_s: the pipe's dense peak (FLOP/s), or None when no GPU ceilings are known.
        peak_bandwidth_bytes_per_s: peak DRAM bandwidth (bytes/s), or None likewise.
        ridge_point_flop_per_byte: peak_flops_per_s / peak_bandwidth_bytes_per_s, or None without ceilings.
        arithmetic_intensity_flop_per_byte: flops / dram_bytes (``inf`` when bytes are 0 and flops > 0).
        attainable_flops_per_s: min(peak, AI x bandwidth).
        achieved_flops_per_s: flops / duration_s.
        achieved_bytes_per_s: effective DRAM bandwidth, dram_bytes / duration_s.
        efficiency: achieved / attainable, 0..1 (can exceed 1 only if a ceiling is wrong).
        bound: ``"memory-bound"`` or ``"compute-bound"``, or None when AI is unknown.
        not_measured: why quantities are missing, as note keys (templates in ``labels.toml`` ``[note]``):
            ``flops_not_measured``, ``dram_bytes_not_measured``, ``duration_not_measured``, ``no_work`` (no FLOPs
            and no DRAM bytes), ``efficiency_undefined`` (attainable is 0).
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
        A :class:`RooflinePoint`; quantities that cannot be derived are None with a reason.

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
    if flops is not None and dram_bytes is not None:
        if dram_bytes > 0:
            ai = flops / dram_bytes
        elif flops > 0:
            ai = math.inf
        else:
            missing.append("no_work")
        if ai is not None and ceilings:
            attainable = min(peak_flops_per_s, ai * peak_bandwidth_bytes_per_s)
            bound = MEMORY_BOUND if ai < ridge else COMPUTE_BOUND
    if flops is not None and duration_s is not None:
        achieved = flops / duration_s
    achieved_bw = dram_bytes / duration_s if dram_bytes is not None and duration_s is not None else None
    if achieved is not None and attainable is not None:
        if attainable > 0:
            efficiency = achieved / attainable
        else:
            missing.append("efficiency_undefined")

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


def choose_pipe(kernel: KernelProfile, gpu: GpuSpec | None, tensor_pipe_active_pct: float = 5.0
                ) -> tuple[str, float | None, tuple[Note, ...]]:
    """The pipe whose ceiling applies to the kernel, its FLOPs (or None) and notes on the choice.

    The pipe with the most FLOPs in ``kernel.flop_counts`` wins. Profiles measure FLOPs with the SASS FP
    counters (fp64/fp32/fp16), which do not count tensor-core work. Tensor use is read, best first, from
    ``kernel.tensor_ops_pct`` (per input type, any value > 0), ``kernel.tensor_pipe_op_active_pct`` (per MMA
    kind) or ``kernel.tensor_pipe_active_pct`` (FP16 assumed), the last two above ``tensor_pipe_active_pct``
    (criterion of ``verdicts.toml``). A tensor kernel gets the ceiling of its busiest tensor type and FLOPs
    "not measured". With no FLOP counts at all: fp32 and "not measured".
    """
    counts = dict(kernel.flop_counts)
    threshold = tensor_pipe_active_pct
    tensor: tuple[str, Note] | None = None
    if not any("_tensor" in p for p in counts):
        ops = {p: v for p, v in kernel.tensor_ops_pct.items() if v > 0}
        kinds = {p: v for p, v in kernel.tensor_pipe_op_active_pct.items() if v > threshold}
        active = kernel.tensor_pipe_active_pct
        if ops:
            p = max(ops, key=ops.get)  # type: ignore[arg-type]
            tensor = p, Note("tensor_ops", {"pct": ops[p], "pipe": p})
        elif kinds and not kernel.tensor_ops_pct:
            p = max(kinds, key=kinds.get)  # type: ignore[arg-type]
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
        return "fp32", None, (Note("fp_rates_no_duration" if kernel.has_flop_rates else "no_fp_counters"),)
    pipe = max(counts, key=lambda p: (counts[p], p == "fp32"))
    if counts[pipe] == 0:
        return "fp32", 0.0, (Note("no_fp_work"),)
    return pipe, counts[pipe], ()


def kernel_points(kernel: KernelProfile, gpu: GpuSpec | None, tensor_pipe_active_pct: float = 5.0
                  ) -> tuple[RooflinePoint | None, tuple[RooflinePoint, ...], tuple[Note, ...]]:
    """A launch's roofline: ``(point of the pipe it uses most, one point per pipe with FLOPs > 0, notes)``.

    Without ``gpu`` only arithmetic intensity, achieved FLOP/s and bandwidth are computed; a pipe the GPU has
    no peak for gives no point and a ``no_peak`` note.
    """
    pipe, flops, notes = choose_pipe(kernel, gpu, tensor_pipe_active_pct)
    out_notes = list(notes)

    def point(p: str, f: float | None) -> RooflinePoint | None:
        if gpu is None:
            return roofline_point(p, None, None, f, kernel.dram_bytes, kernel.duration_s)
        peak = gpu.peak_flops_per_s.get(p)
        if peak is None:
            out_notes.append(Note("no_peak", {"pipe": p, "gpu": gpu.name}))
            return None
        return roofline_point(p, peak, gpu.dram_bandwidth_bytes_per_s, f, kernel.dram_bytes, kernel.duration_s)

    main = point(pipe, flops)
    by_pipe = tuple(
        pt for p, f in kernel.flop_counts.items()
        if f > 0 and (pt := (main if p == pipe else point(p, f))) is not None
    )
    return main, by_pipe, tuple(out_notes)

"""Plain-numbers API, exactly as the specification's lessons use it.

``diagnose_kernel_profile(hw_specs, kernel_metrics)`` is the API of lesson 2 (Nsight Compute bottleneck
attribution) and ``KernelReport`` / ``roofline_position`` the example of the Nsight toolkit lesson. Both are
thin wrappers over :mod:`kernelscope.analysis.roofline` and the stall taxonomy (:mod:`kernelscope.knowledge.stalls`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .analysis.roofline import COMPUTE_BOUND, roofline_point
from .errors import InputError
from .knowledge import check_lang
from .knowledge.stalls import canonical_reason, reasons
from .knowledge.remedies import applicable, remedy
from .knowledge.text import class_remedies


def _number(source: str, mapping: Any, field: str, expected: str, *, positive: bool = False) -> float:
    if not isinstance(mapping, Mapping):
        raise InputError(source, key="expected_dict", values={"name": type(mapping).__name__})
    if field not in mapping:
        raise InputError(source, key="field_missing", values={"field": field, "expected": expected})
    value = mapping[field]
    try:
        # numbers.Real admits Python and NumPy scalars; bool is an int subclass but never a measurement.
        number = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else math.nan
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or number < 0 or (positive and number == 0):
        raise InputError(source, key="field_bad", values={"field": field, "value": value, "expected": expected})
    return number


def _only(source: str, mapping: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = [k for k in mapping if k not in allowed]
    if unknown:
        raise InputError(source, key="field_unknown", values={"unknown": unknown[0], "allowed": ', '.join(allowed)})


def diagnose_kernel_profile(hw_specs: Mapping[str, Any], kernel_metrics: Mapping[str, Any], lang: str = "zh") -> dict:
    """Roofline verdict and warp-stall root cause of one kernel from plain numbers.

    Args:
        hw_specs: ``{"peak_tflops": float > 0 (dense peak of the precision used, TFLOP/s),
            "peak_bandwidth_gb_s": float > 0 (DRAM bandwidth, GB/s = 1e9 bytes/s)}``.
        kernel_metrics: ``{"flops": FLOP >= 0, "bytes": DRAM bytes >= 0, "duration_us": > 0 (microseconds),
            "stall_breakdown": optional {reason display name: share in % (sums to ~100)}}``. Reason names are
            Nsight's display names (``"Long Scoreboard"``) or ids (``"long_scoreboard"``).
        lang: language of ``optimization_advice``: ``"zh"`` (default, as in the lesson) or ``"en"``.

    Returns:
        ``{"arithmetic_intensity": FLOP/byte, "hardware_ridge_point": FLOP/byte,
        "bound_type": "memory-bound" | "compute-bound", "achieved_tflops": TFLOP/s,
        "top_stall_reason": the input's key with the largest share, "Selected" excluded (None if no stalls),
        "optimization_advice": str}``.

    Raises:
        InputError: a missing, unknown, non-numeric or negative field (message names it), or an unknown
            stall reason.
    """
    peak = _number("hw_specs", hw_specs, "peak_tflops", "peak TFLOP/s > 0", positive=True) * 1e12
    _only("hw_specs", hw_specs, ("peak_tflops", "peak_bandwidth_gb_s"))
    _only("kernel_metrics", kernel_metrics, ("flops", "bytes", "duration_us", "stall_breakdown"))
    bandwidth = _number("hw_specs", hw_specs, "peak_bandwidth_gb_s", "bandwidth in GB/s > 0", positive=True) * 1e9
    flops = _number("kernel_metrics", kernel_metrics, "flops", "a FLOP count >= 0")
    dram_bytes = _number("kernel_metrics", kernel_metrics, "bytes", "a DRAM byte count >= 0")
    duration_s = _number("kernel_metrics", kernel_metrics, "duration_us", "a duration in microseconds > 0", positive=True) * 1e-6
    stalls = kernel_metrics.get("stall_breakdown") or {}
    if not isinstance(stalls, Mapping):
        raise InputError("kernel_metrics", key="stall_breakdown_not_dict")
    ids = {}
    for key in stalls:
        _number("kernel_metrics.stall_breakdown", stalls, key, "a share in percent >= 0")
        ids[key] = canonical_reason(str(key))

    point = roofline_point("given", peak, bandwidth, flops, dram_bytes, duration_s)
    stalling = [k for k in stalls if ids[k] != "selected"]
    top = max(stalling, key=lambda k: stalls[k]) if stalling else None

    # plain numbers say nothing of the kernel's design or GPU: the class's remedies that need no fact of it
    chosen = applicable(class_remedies(point.bound), frozenset(), None) if point.bound else ()
    advice = ("" if check_lang(lang) == "zh" else " ").join(remedy(i).text(lang) for i in chosen)
    if top is not None:
        advice = f"{advice} {getattr(reasons()[ids[top]], f'advice_{check_lang(lang)}')}".strip()
    return {
        "arithmetic_intensity": point.arithmetic_intensity_flop_per_byte,
        "hardware_ridge_point": point.ridge_point_flop_per_byte,
        "bound_type": point.bound,
        "achieved_tflops": point.achieved_flops_per_s / 1e12,
        "top_stall_reason": top,
        "optimization_advice": advice,
    }


@dataclass
class KernelReport:
    """A kernel's measured work, as in the Nsight toolkit lesson.

    Attributes:
        name: kernel name.
        flops: floating-point operations (FLOP). Without ``duration_s`` the lesson treats this number as the
            achieved rate (FLOP/s) when computing efficiency.
        bytes_moved: DRAM bytes read + written.
        duration_s: optional kernel duration (s); when given, efficiency uses flops / duration_s.
    """

    name: str
    flops: float
    bytes_moved: float
    duration_s: float | None = None

    def __post_init__(self) -> None:
        fields = {"flops": self.flops, "bytes_moved": self.bytes_moved}
        if self.duration_s is not None:
            fields["duration_s"] = self.duration_s
        for field, value in fields.items():
            _number("KernelReport", fields, field, "a finite number >= 0" if field != "duration_s" else "seconds > 0",
                    positive=field == "duration_s")

    def arithmetic_intensity(self) -> float:
        """FLOP per byte moved; bytes below 1 count as 1 (the lesson's guard against division by zero)."""
        return self.flops / max(self.bytes_moved, 1.0)


def roofline_position(kernel: KernelReport, peak_flops: float, peak_bw: float) -> tuple[str, float]:
    """Memory- or compute-bound, and efficiency against the attainable roof.

    Args:
        kernel: the measured kernel.
        peak_flops: dense peak of the pipe used, FLOP/s.
        peak_bw: DRAM bandwidth, bytes/s.

    Returns:
        ``("memory_bound" | "compute_bound", efficiency)`` with efficiency = achieved / min(peak, AI x bw),
        achieved = flops / duration_s when a duration is given, else ``flops`` as in the lesson.

    Raises:
        ValueError: if a peak is not positive.
    """
    point = roofline_point("given", peak_flops, peak_bw, kernel.flops, max(kernel.bytes_moved, 1.0), kernel.duration_s)
    achieved = kernel.flops if kernel.duration_s is None else point.achieved_flops_per_s
    bound = "compute_bound" if point.bound == COMPUTE_BOUND else "memory_bound"
    return bound, achieved / point.attainable_flops_per_s

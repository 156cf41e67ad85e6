"""Measured ceilings (``kernelscope ceilings``): the rates the device-side measurement timed, as a spec file for
``--spec``, and next to the datasheet figures of the catalogue entry of the same GPU. Pure: the timing itself, which
touches the GPU, is :mod:`kernelscope.measure.ceilings`; this module only does arithmetic on the times it returns.

Quantities: ``dram_bandwidth`` (a large device-to-device copy; the bytes of one copy are read once and written
once, so the work is twice the buffer) and the dense matrix-multiply rates of the pipes of
:data:`~kernelscope.model.PIPES` it can drive (``fp32``, ``tf32_tensor``, ``fp16_tensor``, ``bf16_tensor``,
``fp8_tensor``: an ``n x n x n`` GEMM is ``2 n^3`` FLOP). Each rate is the work of one operation over the MEDIAN of
the repeated samples' per-operation times.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ..errors import UnknownGpuError
from ..knowledge.gpus import entry_from, find_gpu
from ..model import GpuSpec

#: What ``kernelscope ceilings`` measures, in the order it is shown: the DRAM bandwidth, then the GEMM pipes.
BANDWIDTH = "dram_bandwidth"
GEMM_PIPES: tuple[str, ...] = ("fp32", "tf32_tensor", "fp16_tensor", "bf16_tensor", "fp8_tensor")
QUANTITIES: tuple[str, ...] = (BANDWIDTH, *GEMM_PIPES)


def gemm_flops(n: int) -> float:
    """FLOPs of one ``n x n x n`` matrix multiply: ``2 n^3`` (one multiply and one add per term)."""
    return 2.0 * float(n) ** 3


def copy_bytes(buffer_bytes: int) -> float:
    """Bytes a device-to-device copy of ``buffer_bytes`` moves through DRAM: each byte read once and written once."""
    return 2.0 * float(buffer_bytes)


@dataclass(frozen=True)
class Measurement:
    """One measured quantity.

    Attributes:
        quantity: ``"dram_bandwidth"`` or a pipe of :data:`GEMM_PIPES`.
        work: per operation: bytes read + written (bandwidth) or FLOPs (a GEMM).
        seconds: device time of ONE operation, one value per repeated sample (each sample may time several
            back-to-back operations between its two events and divide).
        method: how it was measured, e.g. ``"torch.mm float32 8192x8192x8192 (TF32 off)"``.
        per_sample: operations timed between the two events of each sample.
    """

    quantity: str
    work: float
    seconds: tuple[float, ...]
    method: str
    per_sample: int = 1

    def __post_init__(self) -> None:
        if not self.seconds or any(not (s > 0) for s in self.seconds):
            raise ValueError(f"{self.quantity}: expected positive sample times, got {self.seconds!r}")

    @property
    def median_s(self) -> float:
        """The median per-operation time of the samples, seconds."""
        return float(statistics.median(self.seconds))

    @property
    def rate(self) -> float:
        """``work / median_s``: bytes/s for the bandwidth, FLOP/s for a pipe."""
        return self.work / self.median_s


@dataclass(frozen=True)
class Skipped:
    """A quantity that was not measured, and why (e.g. no FP8 tensor cores before sm_89)."""

    quantity: str
    reason: str


@dataclass(frozen=True)
class CeilingsRun:
    """What one ``kernelscope ceilings`` run measured on one device.

    Attributes:
        device_name: the name the device reports (``"NVIDIA H200"``).
        backend: the library and its version that drove it (``"torch 2.5.1+cu124"``, ``"cupy 13.3.0"``).
        date: the day it ran, ISO 8601 (``"2025-06-01"``).
        repeats: samples per quantity (the median is taken over them).
        measurements: the measured quantities, in :data:`QUANTITIES` order.
        skipped: the quantities not measured, with the reason.
        compute_capability: ``(major, minor)``, or None when unknown.
        sm_count: streaming multiprocessors, or None.
    """

    device_name: str
    backend: str
    date: str
    repeats: int
    measurements: tuple[Measurement, ...]
    skipped: tuple[Skipped, ...] = ()
    compute_capability: tuple[int, int] | None = None
    sm_count: int | None = None

    @property
    def source(self) -> str:
        """The citation every measured number carries: ``"kernelscope ceilings, <date>, <GPU name>, <backend>"``."""
        return f"kernelscope ceilings, {self.date}, {self.device_name}, {self.backend}"

    def get(self, quantity: str) -> Measurement | None:
        """The measurement of ``quantity``, or None when it was not measured."""
        return next((m for m in self.measurements if m.quantity == quantity), None)

    def reason(self, quantity: str) -> str | None:
        """Why ``quantity`` was not measured, or None."""
        return next((s.reason for s in self.skipped if s.quantity == quantity), None)


# ------------------------------------------------------------------------------------------ the spec file


def spec_fields(run: CeilingsRun) -> dict:
    """The content of the spec file ``kernelscope ceilings -o`` writes (the fields :func:`kernelscope.ingest.settings.
    read_spec` reads): ``name``, ``measured = true``, ``source`` (:attr:`CeilingsRun.source`), ``compute_capability``
    and ``sm_count`` where known, ``dram_bandwidth_bytes_per_s``, ``peak_flops_per_s`` (the measured pipes only:
    a pipe that was not measured is absent rather than filled in from a datasheet), and ``sources`` citing each number
    with how it was measured.

    Raises:
        ValueError: the bandwidth or every pipe is missing (a spec needs both).
    """
    bandwidth = run.get(BANDWIDTH)
    pipes = [m for m in run.measurements if m.quantity in GEMM_PIPES]
    if bandwidth is None or not pipes:
        missing = "the DRAM bandwidth" if bandwidth is None else "any matrix rate"
        raise ValueError(f"no spec file: {missing} was not measured")
    data: dict = {"name": run.device_name, "measured": True, "source": run.source}
    if run.compute_capability is not None:
        data["compute_capability"] = f"{run.compute_capability[0]}.{run.compute_capability[1]}"
    if run.sm_count is not None:
        data["sm_count"] = run.sm_count
    data["dram_bandwidth_bytes_per_s"] = bandwidth.rate
    data["peak_flops_per_s"] = {m.quantity: m.rate for m in pipes}
    data["sources"] = {
        "dram_bandwidth_bytes_per_s": _cite(run, bandwidth),
        "peak_flops_per_s": {m.quantity: _cite(run, m) for m in pipes},
    }
    return data


def _cite(run: CeilingsRun, m: Measurement) -> str:
    times = "operation" if m.per_sample == 1 else f"{m.per_sample} back-to-back operations"
    return (f"{run.source}: {m.method}; median of {len(m.seconds)} samples of {times} timed with device events "
            f"after warm-up: {m.median_s * 1e3:.4g} ms per operation")


def measured_spec(run: CeilingsRun, origin: str = "kernelscope ceilings") -> GpuSpec:
    """The measured ceilings as the :class:`GpuSpec` ``--spec`` would read from :func:`spec_fields` (``measured``)."""
    return entry_from(spec_fields(run), origin).to_spec(origin=origin)


# ------------------------------------------------------------------------------------------ next to the datasheet


@dataclass(frozen=True)
class CeilingRow:
    """One quantity, measured next to the datasheet.

    Attributes:
        quantity: a key of :data:`QUANTITIES`.
        unit: ``"bytes/s"`` or ``"FLOP/s"``.
        measured: the measured rate, or None (``reason`` says why).
        datasheet: the catalogue's figure for the same quantity of the same GPU, or None.
        ratio: ``measured / datasheet`` (a fraction; 0.9 = 90% of the datasheet), or None.
        reason: why it was not measured, or None.
    """

    quantity: str
    unit: str
    measured: float | None
    datasheet: float | None
    ratio: float | None
    reason: str | None = None


def datasheet_for(name: str) -> GpuSpec | None:
    """The catalogue entry of the GPU a device reports as ``name``, or None when the catalogue lacks it."""
    try:
        return find_gpu(name)
    except UnknownGpuError:
        return None


def compare_with_datasheet(run: CeilingsRun, datasheet: GpuSpec | None) -> tuple[CeilingRow, ...]:
    """Every quantity of :data:`QUANTITIES`: measured, the datasheet figure (``datasheet``'s bandwidth or the
    pipe's dense peak; None without a catalogue entry or where it gives none) and their ratio."""
    rows = []
    for quantity in QUANTITIES:
        m = run.get(quantity)
        measured = None if m is None else m.rate
        if datasheet is None:
            sheet = None
        elif quantity == BANDWIDTH:
            sheet = datasheet.dram_bandwidth_bytes_per_s
        else:
            sheet = datasheet.peak_flops_per_s.get(quantity)
        ratio = measured / sheet if measured is not None and sheet else None
        unit = "bytes/s" if quantity == BANDWIDTH else "FLOP/s"
        rows.append(CeilingRow(quantity, unit, measured, sheet, ratio, None if m is not None else run.reason(quantity)))
    return tuple(rows)

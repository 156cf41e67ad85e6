"""Measured ceilings: the achievable DRAM bandwidth (a large device-to-device copy) and the dense matrix-multiply rate
of each precision, timed on the device with its events.

How one quantity is timed (:func:`time_operation`): one untimed call (allocation, library set-up), one timed probe
call, a warm-up of about :attr:`Timing.warmup_s` of back-to-back calls (clocks up, caches and heuristics settled),
then :attr:`Timing.repeats` samples, each a pair of device events around enough back-to-back calls to last about
:attr:`Timing.sample_s` (so launch gaps and event resolution do not count); a sample's time over its calls is the
time of one call, and the rate is the work of one call over the MEDIAN sample (:mod:`kernelscope.analysis.ceilings`).

The device is reached only through a :class:`Backend` (:mod:`.backends`: PyTorch or CuPy), so a test gives a fake one
whose events return known times.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from typing import Callable, Protocol

from ..analysis.ceilings import (
    BANDWIDTH, GEMM_PIPES, CeilingsRun, Measurement, Skipped, copy_bytes, gemm_flops,
)
from ..errors import KernelscopeError, one_line

#: Default buffer of the bandwidth copy: 2 GiB (40x the 50 MiB L2 of an H200; read once and written once per copy).
COPY_BYTES = 2 * 2**30
#: Default GEMM size: 8192 x 8192 x 8192 (1.1 TFLOP per call: enough tiles to fill 132 SMs many times over).
GEMM_N = 8192

NO_GPU_MESSAGE = ("no CUDA GPU visible ({reason}): kernelscope ceilings needs an NVIDIA GPU and PyTorch (with CUDA) "
                  "or CuPy; install one of them on a machine with a GPU (pip install torch, or pip install "
                  "cupy-cuda12x), or use the datasheet figures (--gpu NAME); nothing was measured or written")


class NoGpuError(KernelscopeError, RuntimeError):
    """No CUDA device can be driven: neither PyTorch nor CuPy is installed, or the one installed sees no device.

    Args:
        reason: which (one of the fixed phrases of :mod:`.backends`, translated by ``messages.toml`` ``[phrase]``).
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.key = "no_cuda_gpu"
        self.values = {"reason": reason}
        super().__init__(NO_GPU_MESSAGE.format(reason=reason))


class Unsupported(Exception):
    """The backend cannot drive this quantity on this device (e.g. FP8 before sm_89); the message says why."""


class Event(Protocol):
    """A device event (``torch.cuda.Event(enable_timing=True)``, ``cupy.cuda.Event()``)."""

    def record(self) -> None: ...

    def synchronize(self) -> None: ...

    def elapsed_ms(self, end: "Event") -> float:
        """Device time from this event to ``end``, milliseconds."""
        ...


@dataclass(frozen=True)
class Device:
    """The device a backend drives: its reported name, compute capability, SMs and free memory (bytes; None:
    unknown)."""

    name: str
    compute_capability: tuple[int, int] | None = None
    sm_count: int | None = None
    free_bytes: int | None = None


class Backend(Protocol):
    """What the measurements need from PyTorch or CuPy.

    Attributes:
        name: ``"torch"`` or ``"cupy"``.
        version: the library's version.
    """

    name: str
    version: str

    def device(self) -> Device: ...

    def event(self) -> Event: ...

    def synchronize(self) -> None: ...

    def copy_op(self, buffer_bytes: int) -> tuple[Callable[[], object], str]:
        """A call that copies a buffer of random non-zero data of ``buffer_bytes`` to another (device to device),
        and how it does it (one line)."""
        ...

    def gemm_op(self, pipe: str, n: int) -> tuple[Callable[[], object], str]:
        """A call that multiplies two ``n x n`` matrices of random non-zero values on ``pipe`` (a key of
        :data:`~kernelscope.analysis.ceilings.GEMM_PIPES`), and how it does it.

        Raises:
            Unsupported: this device or library cannot.
        """
        ...

    def release(self) -> None:
        """Free the memory of the operations made so far and restore any library setting they changed."""
        ...


@dataclass(frozen=True)
class Timing:
    """How each quantity is timed: ``repeats`` samples of about ``sample_s`` seconds each, after ``warmup_s``
    seconds of warm-up; at most ``max_calls`` calls per sample or warm-up."""

    repeats: int = 10
    warmup_s: float = 0.2
    sample_s: float = 0.02
    max_calls: int = 1000

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise ValueError(f"repeats: expected at least 1, got {self.repeats}")


def device_time_ms(backend: Backend, fn: Callable[[], object], calls: int) -> float:
    """Device time of ``calls`` back-to-back calls of ``fn``, milliseconds: an event recorded before and one after
    them, the second waited for."""
    start, end = backend.event(), backend.event()
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_ms(end)


def time_operation(backend: Backend, fn: Callable[[], object], timing: Timing) -> tuple[tuple[float, ...], int]:
    """The per-call device time of ``fn`` in each of ``timing.repeats`` samples (seconds), and the calls per sample
    (see the module: first call, probe, warm-up, samples)."""
    fn()
    backend.synchronize()
    probe_s = max(device_time_ms(backend, fn, 1) / 1e3, 1e-9)
    per_sample = max(1, min(timing.max_calls, math.ceil(timing.sample_s / probe_s)))
    warmup = max(1, min(timing.max_calls, math.ceil(timing.warmup_s / probe_s)))
    device_time_ms(backend, fn, warmup)
    samples = tuple(device_time_ms(backend, fn, per_sample) / 1e3 / per_sample for _ in range(timing.repeats))
    return samples, per_sample


def measure_bandwidth(backend: Backend, buffer_bytes: int = COPY_BYTES, timing: Timing = Timing()) -> Measurement:
    """The DRAM bandwidth a device-to-device copy of ``buffer_bytes`` achieves: 2 x ``buffer_bytes`` (read + written)
    over the median per-copy time."""
    fn, method = backend.copy_op(buffer_bytes)
    samples, per_sample = time_operation(backend, fn, timing)
    return Measurement(BANDWIDTH, copy_bytes(buffer_bytes), samples, method, per_sample)


def measure_gemm(backend: Backend, pipe: str, n: int = GEMM_N, timing: Timing = Timing()) -> Measurement:
    """The dense rate of ``pipe``: ``2 n^3`` FLOP of an ``n x n x n`` GEMM over the median per-call time.

    Raises:
        Unsupported: the backend cannot drive ``pipe`` here.
    """
    fn, method = backend.gemm_op(pipe, n)
    samples, per_sample = time_operation(backend, fn, timing)
    return Measurement(pipe, gemm_flops(n), samples, method, per_sample)


def sizes(device: Device, buffer_bytes: int | None = None, n: int | None = None) -> tuple[int, int]:
    """The copy buffer and the GEMM size for ``device``: the defaults (2 GiB, 8192), smaller where its free memory
    is short (two buffers within 40% of it; 8192^2 matrices need about 1 GiB with temporaries, else 4096)."""
    if buffer_bytes is None:
        buffer_bytes = COPY_BYTES
        if device.free_bytes is not None and 2 * buffer_bytes > 0.8 * device.free_bytes:
            buffer_bytes = max(2**20, int(0.4 * device.free_bytes) // 2**20 * 2**20)
    if n is None:
        n = GEMM_N if device.free_bytes is None or device.free_bytes >= 4 * 2**30 else 4096
    return buffer_bytes, n


def measure_ceilings(backend: Backend, timing: Timing = Timing(), *, buffer_bytes: int | None = None,
                     n: int | None = None, today: datetime.date | None = None) -> CeilingsRun:
    """Measure every quantity on the backend's device: the bandwidth, then each pipe of
    :data:`~kernelscope.analysis.ceilings.GEMM_PIPES`. A quantity the backend cannot drive, or whose measurement
    fails (out of memory, a library error), is skipped with the reason; the others are still measured."""
    device = backend.device()
    buffer_bytes, n = sizes(device, buffer_bytes, n)
    measurements: list[Measurement] = []
    skipped: list[Skipped] = []
    jobs: list[tuple[str, Callable[[], Measurement]]] = [
        (BANDWIDTH, lambda: measure_bandwidth(backend, buffer_bytes, timing)),
        *((p, lambda p=p: measure_gemm(backend, p, n, timing)) for p in GEMM_PIPES),  # type: ignore[misc]
    ]
    for quantity, job in jobs:
        try:
            measurements.append(job())
        except Unsupported as exc:
            skipped.append(Skipped(quantity, one_line(str(exc))))
        except Exception as exc:  # noqa: BLE001 -- a library error on one quantity must not lose the others
            skipped.append(Skipped(quantity, _failure(exc)))
        finally:
            backend.release()
    return CeilingsRun(
        device_name=device.name, backend=f"{backend.name} {backend.version}",
        date=(today or datetime.date.today()).isoformat(), repeats=timing.repeats,
        measurements=tuple(measurements), skipped=tuple(skipped),
        compute_capability=device.compute_capability, sm_count=device.sm_count,
    )


def _failure(exc: BaseException) -> str:
    """A failed measurement's reason on one short line: the exception's type and the first line of its message."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = one_line(text)
    return f"failed: {type(exc).__name__}" + (f": {text[:200]}" if text else "")

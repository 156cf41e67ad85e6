"""The PyTorch and CuPy backends of :mod:`.ceilings`, and how one is chosen (:func:`find_backend`). Both libraries are
imported here, lazily, and only here; neither is a dependency of kernelscope.

Inputs are random and non-zero (magnitudes in [0.5, 1.5), random signs): zeros would let the hardware skip work
and draw less power, so a rate measured on them could exceed what real data gets. Matrices are square, row-major,
on the current device; the copy is a device-to-device ``cudaMemcpyAsync`` of one buffer into another.
"""

from __future__ import annotations

from typing import Any, Callable

from .ceilings import Device, NoGpuError, Unsupported

#: The reasons :class:`~.ceilings.NoGpuError` gives (fixed phrases: ``messages.toml`` ``[phrase]`` words them in
#: Chinese).
NOT_INSTALLED = {"torch": "PyTorch is not installed", "cupy": "CuPy is not installed"}
NO_DEVICE = {"torch": "PyTorch is installed but sees no CUDA device", "cupy": "CuPy is installed but sees no CUDA device"}
NEITHER = "neither PyTorch nor CuPy is installed"
BACKENDS = ("torch", "cupy")

#: The lowest compute capability whose tensor cores run each pipe (FP32 runs on the CUDA cores of any GPU).
_FIRST_CC = {"tf32_tensor": (8, 0), "fp16_tensor": (7, 0), "bf16_tensor": (8, 0), "fp8_tensor": (8, 9)}


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**30:g} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:g} MiB"


def _check_cc(pipe: str, cc: tuple[int, int] | None) -> None:
    first = _FIRST_CC.get(pipe)
    if first is not None and cc is not None and cc < first:
        raise Unsupported(f"{pipe}: needs sm_{first[0]}{first[1]} or newer; this GPU is sm_{cc[0]}{cc[1]}")


class TorchEvent:
    """``torch.cuda.Event(enable_timing=True)`` as an :class:`~.ceilings.Event`."""

    def __init__(self, torch: Any) -> None:
        self.event = torch.cuda.Event(enable_timing=True)

    def record(self) -> None:
        self.event.record()

    def synchronize(self) -> None:
        self.event.synchronize()

    def elapsed_ms(self, end: "TorchEvent") -> float:  # type: ignore[override]
        return float(self.event.elapsed_time(end.event))


class TorchBackend:
    """PyTorch on its current CUDA device: ``Tensor.copy_``, ``torch.mm`` (TF32 switched by
    ``torch.backends.cuda.matmul.allow_tf32``, restored by :meth:`release`) and ``torch._scaled_mm`` for FP8."""

    name = "torch"

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.version = str(torch.__version__)
        self.dev = torch.device("cuda", torch.cuda.current_device())
        self._tf32 = torch.backends.cuda.matmul.allow_tf32

    def device(self) -> Device:
        props = self.torch.cuda.get_device_properties(self.dev)
        free, _ = self.torch.cuda.mem_get_info(self.dev)
        return Device(str(props.name), (int(props.major), int(props.minor)), int(props.multi_processor_count), int(free))

    def event(self) -> TorchEvent:
        return TorchEvent(self.torch)

    def synchronize(self) -> None:
        self.torch.cuda.synchronize(self.dev)

    def _random(self, n: int, dtype: Any) -> Any:
        t = self.torch
        x = t.empty((n, n), device=self.dev, dtype=t.float32).uniform_(0.5, 1.5)
        x = t.where(t.rand((n, n), device=self.dev) < 0.5, -x, x)
        return x.to(dtype)

    def copy_op(self, buffer_bytes: int) -> tuple[Callable[[], object], str]:
        t = self.torch
        src = t.empty(buffer_bytes // 4, device=self.dev, dtype=t.float32).uniform_(0.5, 1.5)
        dst = t.empty_like(src)
        size = _size(buffer_bytes)
        return (lambda: dst.copy_(src)), f"torch Tensor.copy_ device to device of a {size} buffer (read + written)"

    def gemm_op(self, pipe: str, n: int) -> tuple[Callable[[], object], str]:
        t = self.torch
        _check_cc(pipe, self.device().compute_capability)
        shape = f"{n}x{n}x{n}"
        if pipe in ("fp32", "tf32_tensor"):
            a, b = self._random(n, t.float32), self._random(n, t.float32)
            c = t.empty_like(a)
            tf32 = pipe == "tf32_tensor"
            t.backends.cuda.matmul.allow_tf32 = tf32  # for this pipe's calls; release() restores it
            return (lambda: t.mm(a, b, out=c)), f"torch.mm float32 {shape}, TF32 {'on' if tf32 else 'off'}"
        if pipe in ("fp16_tensor", "bf16_tensor"):
            dtype = t.float16 if pipe == "fp16_tensor" else t.bfloat16
            a, b = self._random(n, dtype), self._random(n, dtype)
            c = t.empty_like(a)
            return (lambda: t.mm(a, b, out=c)), f"torch.mm {str(dtype).removeprefix('torch.')} {shape} (FP32 accumulate)"
        if pipe == "fp8_tensor":
            return self._fp8(n, shape)
        raise Unsupported(f"{pipe}: not measured by kernelscope ceilings")

    def _fp8(self, n: int, shape: str) -> tuple[Callable[[], object], str]:
        t = self.torch
        if not (hasattr(t, "_scaled_mm") and hasattr(t, "float8_e4m3fn")):
            raise Unsupported(f"fp8_tensor: torch {self.version} has no torch._scaled_mm")
        a = self._random(n, t.float8_e4m3fn)
        b = self._random(n, t.float8_e4m3fn).t()  # column-major, as _scaled_mm wants its second operand
        one = t.ones((), device=self.dev, dtype=t.float32)

        def mm() -> object:
            return t._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=t.bfloat16, use_fast_accum=True)

        return mm, f"torch._scaled_mm float8_e4m3fn {shape} -> bfloat16, per-tensor scales, use_fast_accum"

    def release(self) -> None:
        self.torch.backends.cuda.matmul.allow_tf32 = self._tf32
        self.torch.cuda.synchronize(self.dev)
        self.torch.cuda.empty_cache()


class CupyEvent:
    """``cupy.cuda.Event()`` as an :class:`~.ceilings.Event`."""

    def __init__(self, cupy: Any) -> None:
        self.cupy = cupy
        self.event = cupy.cuda.Event()

    def record(self) -> None:
        self.event.record()

    def synchronize(self) -> None:
        self.event.synchronize()

    def elapsed_ms(self, end: "CupyEvent") -> float:  # type: ignore[override]
        return float(self.cupy.cuda.get_elapsed_time(self.event, end.event))


class CupyBackend:
    """CuPy on its current device: a ``cudaMemcpyAsync`` device to device, ``cupy.matmul`` (cuBLAS) with the
    compute type set per dtype (FP32 or TF32 for float32, FP32 accumulation for float16; restored by
    :meth:`release`). CuPy has no bfloat16 or FP8 arrays: those pipes are skipped."""

    name = "cupy"

    def __init__(self, cupy: Any) -> None:
        from cupy._core import _routines_linalg as linalg  # the compute-type switch CuPy's own tests use

        self.cupy = cupy
        self.linalg = linalg
        self.version = str(cupy.__version__)
        self._saved = {d: linalg.get_compute_type(d) for d in (cupy.float16, cupy.float32)}

    def device(self) -> Device:
        rt = self.cupy.cuda.runtime
        props = rt.getDeviceProperties(self.cupy.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        free, _ = rt.memGetInfo()
        return Device(name, (int(props["major"]), int(props["minor"])), int(props["multiProcessorCount"]), int(free))

    def event(self) -> CupyEvent:
        return CupyEvent(self.cupy)

    def synchronize(self) -> None:
        self.cupy.cuda.Device().synchronize()

    def _random(self, n: int, dtype: Any) -> Any:
        cp = self.cupy
        x = cp.random.uniform(0.5, 1.5, (n, n), dtype=cp.float32)
        return cp.where(cp.random.random((n, n)) < 0.5, -x, x).astype(dtype)

    def copy_op(self, buffer_bytes: int) -> tuple[Callable[[], object], str]:
        cp = self.cupy
        src = cp.random.uniform(0.5, 1.5, buffer_bytes // 4, dtype=cp.float32)
        dst = cp.empty_like(src)
        nbytes = src.nbytes

        def copy() -> object:
            return dst.data.copy_from_device_async(src.data, nbytes, cp.cuda.get_current_stream())

        return copy, f"cupy cudaMemcpyAsync device to device of a {_size(buffer_bytes)} buffer (read + written)"

    def gemm_op(self, pipe: str, n: int) -> tuple[Callable[[], object], str]:
        cp, linalg = self.cupy, self.linalg
        if pipe in ("bf16_tensor", "fp8_tensor"):
            raise Unsupported(f"{pipe}: CuPy has no {'bfloat16' if pipe == 'bf16_tensor' else 'FP8'} matrices; "
                              "use --backend torch")
        _check_cc(pipe, self.device().compute_capability)
        dtype = cp.float16 if pipe == "fp16_tensor" else cp.float32
        compute = linalg.COMPUTE_TYPE_TF32 if pipe == "tf32_tensor" else linalg.COMPUTE_TYPE_FP32
        a, b = self._random(n, dtype), self._random(n, dtype)
        c = cp.empty_like(a)

        linalg.set_compute_type(dtype, compute)  # for this pipe's calls; release() restores it
        what = {"fp32": "float32, FP32 compute", "tf32_tensor": "float32, TF32 compute",
                "fp16_tensor": "float16 (FP32 accumulate)"}[pipe]
        return (lambda: cp.matmul(a, b, out=c)), f"cupy.matmul {what} {n}x{n}x{n}"

    def release(self) -> None:
        for dtype, compute in self._saved.items():
            self.linalg.set_compute_type(dtype, compute)
        self.synchronize()
        self.cupy.get_default_memory_pool().free_all_blocks()


def _torch() -> tuple[Any | None, str | None]:
    """(a TorchBackend, None), or (None, why not)."""
    try:
        import torch
    except Exception:  # noqa: BLE001 -- an install that cannot be imported is as good as none
        return None, NOT_INSTALLED["torch"]
    try:
        if torch.cuda.is_available() and torch.cuda.device_count() > 0:
            return TorchBackend(torch), None
    except Exception:  # noqa: BLE001 -- a driver error: no device
        pass
    return None, NO_DEVICE["torch"]


def _cupy() -> tuple[Any | None, str | None]:
    """(a CupyBackend, None), or (None, why not)."""
    try:
        import cupy
    except Exception:  # noqa: BLE001
        return None, NOT_INSTALLED["cupy"]
    try:
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return CupyBackend(cupy), None
    except Exception:  # noqa: BLE001 -- CUDARuntimeError without a driver
        pass
    return None, NO_DEVICE["cupy"]


def find_backend(choice: str = "auto", loaders: dict[str, Callable[[], tuple[Any | None, str | None]]] | None = None):
    """The backend to measure with: ``"torch"``, ``"cupy"``, or ``"auto"`` (PyTorch, else CuPy).

    Args:
        loaders: the functions that try each library (tests replace them).

    Raises:
        NoGpuError: the one asked for (``auto``: either) is not installed or sees no CUDA device.
    """
    loaders = loaders or {"torch": _torch, "cupy": _cupy}
    if choice != "auto":
        backend, reason = loaders[choice]()
        if backend is None:
            raise NoGpuError(reason or NO_DEVICE[choice])
        return backend
    reasons = []
    for name in BACKENDS:
        backend, reason = loaders[name]()
        if backend is not None:
            return backend
        reasons.append(reason)
    installed = [r for r in reasons if r not in NOT_INSTALLED.values()]
    raise NoGpuError(installed[0] if installed else NEITHER)

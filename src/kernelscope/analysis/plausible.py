"""Values that cannot be real on the GPU the diagnosis uses: achieved above its roofs.

The screen every reader's output goes through (:func:`kernelscope.knowledge.plausibility.screen`) knows no GPU; this
one checks a launch against the ceilings of its :class:`~kernelscope.model.GpuSpec`, before the roofline is drawn:

* DRAM bytes / duration above ``tolerance`` x the peak DRAM bandwidth, when the profile has no DRAM throughput % of
  its own (the bytes are then the only DRAM figure): the bytes are not DRAM traffic (the data was served from L2,
  a working set that fits in L2 replayed by a benchmark, or they are the algorithm's bytes, not counted ones). They
  leave ``dram_bytes_*`` (reason ``implausible_dram_above_peak``): no DRAM throughput is derived from them, no
  memory-bound verdict and no roofline efficiency above 100 % rests on them. (With the profile's own DRAM %,
  counted bytes above the datasheet peak mean the ceilings are not this GPU's: the ``efficiency_above_roof`` note.)
* FLOPs / duration above ``tolerance`` x the pipe's peak at the profiled SM clock (the roofline's compute roof,
  :func:`.roofline.clock_scale`): the count, the duration or the GPU is wrong; the pipe's count leaves
  ``flop_counts`` (reason ``implausible_flops_above_peak``). The same for ``useful_flops`` on the pipe the kernel
  uses most.

``tolerance`` is the ``efficiency_warning`` criterion of ``verdicts.toml`` (1.05: achieved above 105 % of a roof).
Moved values keep their raw value and reason in ``KernelProfile.implausible`` (:func:`.plausibility.flag`).
"""

from __future__ import annotations

from typing import Any

from ..knowledge.plausibility import BYTE_FIELDS, flag
from ..model import GpuSpec, Implausible, KernelProfile
from .roofline import clock_scale


def screen_against_gpu(kernel: KernelProfile, gpu: GpuSpec | None, tolerance: float) -> KernelProfile:
    """``kernel`` with its DRAM bytes and FLOP counts above ``tolerance`` x ``gpu``'s roofs moved into
    ``implausible`` (see the module docstring); ``kernel`` itself when none is, or without a GPU or duration."""
    d = kernel.duration_s
    if gpu is None or d is None or not d > 0:
        return kernel
    found: list[Implausible] = []
    changes: dict[str, Any] = {}
    bw = gpu.dram_bandwidth_bytes_per_s
    dram = kernel.dram_bytes
    if kernel.dram_throughput_pct is None and dram is not None and dram / d > tolerance * bw:
        metric = next((n for names in BYTE_FIELDS.values() for n in names if n in kernel.metrics), "dram_bytes")
        found.append(Implausible(metric, dram, "byte", "implausible_dram_above_peak", bw, dram / d))
        changes.update(dram_bytes_read=None, dram_bytes_write=None, dram_bytes_total=None)
    scale = clock_scale(kernel, gpu) or 1.0
    bad = {}
    for pipe, flops in kernel.flop_counts.items():
        peak = gpu.peak_flops_per_s.get(pipe)
        if peak is not None and flops / d > tolerance * peak * scale:
            bad[pipe] = flops
            found.append(Implausible(f"flop_counts.{pipe}", flops, "FLOP", "implausible_flops_above_peak",
                                     peak * scale, flops / d))
    if bad:
        changes["flop_counts"] = {p: v for p, v in kernel.flop_counts.items() if p not in bad}
    useful = kernel.useful_flops
    top = max(kernel.flop_counts, key=kernel.flop_counts.get, default="fp32")  # type: ignore[arg-type]
    peak = gpu.peak_flops_per_s.get(top)
    if useful is not None and peak is not None and useful / d > tolerance * peak * scale:
        found.append(Implausible("useful_flops", useful, "FLOP", "implausible_flops_above_peak", peak * scale,
                                 useful / d))
        changes["useful_flops"] = None
    return flag(kernel, found, **changes) if found else kernel

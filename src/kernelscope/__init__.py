"""kernelscope: why is this CUDA kernel slow, and what to do about it.

Read profiler output (Nsight Compute reports and exports, nvprof, Nsight Systems exports, PyTorch profiler
traces, plain numbers), place each kernel on the roofline of the pipe it uses, classify its Speed-of-Light
bottleneck, attribute its warp stalls, run the kernel rules and give advice (en / zh); split a program's time
into kernels, copies, launch gaps and idle.

Main entry points (see :mod:`kernelscope.api`):
    :func:`load`, :func:`diagnose_file`, :func:`diagnose_report`: Nsight Compute (and other kernel) reports;
    :func:`launch_groups`: their repeated launches grouped (same kernel, grid and block).
    :func:`load_timeline`, :func:`timeline_file`: program timelines.
    :func:`diagnose_kernel_profile`, :class:`KernelReport`, :func:`roofline_position`: plain numbers (the
    specification's own API).

The names are imported on first use (PEP 562), so ``kernelscope.cli`` starts without loading what a command does
not need. Reaching any of them also gives the diagnosis types their Jupyter display (:mod:`kernelscope.notebook`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

#: Public name -> module that defines it.
_EXPORTS = {
    "KernelDiagnosis": "analysis.diagnosis", "ReportDiagnosis": "analysis.diagnosis", "diagnose": "analysis.diagnosis",
    "diagnose_report": "analysis.diagnosis", "LaunchGroup": "analysis.groups", "launch_groups": "analysis.groups",
    "RooflinePoint": "analysis.roofline", "roofline_point": "analysis.roofline",
    "diagnose_file": "api", "load": "api", "load_criteria": "api", "load_timeline": "api", "resolve_gpu": "api",
    "timeline_file": "api", "locate_findings": "api", "source_file": "api", "source_for": "api", "to_arrow": "api", "to_pandas": "api", "InputError": "errors", "KernelscopeError": "errors", "UnknownGpuError": "errors",
    "load_spec": "ingest.settings", "find_gpu": "knowledge.gpus", "GpuSpec": "model", "KernelProfile": "model",
    "ProfileReport": "model", "KernelReport": "simple", "diagnose_kernel_profile": "simple",
    "roofline_position": "simple",
}
_RENAMED = {"load_spec": "read_spec"}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kernelscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), _RENAMED.get(name, name))
    importlib.import_module(".notebook", __name__).register()
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names come from __getattr__
    from .analysis.diagnosis import KernelDiagnosis, ReportDiagnosis, diagnose, diagnose_report
    from .analysis.groups import LaunchGroup, launch_groups
    from .analysis.roofline import RooflinePoint, roofline_point
    from .api import (
        diagnose_file, load, load_criteria, load_timeline, locate_findings, resolve_gpu, source_file, source_for,
        timeline_file, to_arrow, to_pandas,
    )
    from .errors import InputError, KernelscopeError, UnknownGpuError
    from .ingest.settings import read_spec as load_spec
    from .knowledge.gpus import find_gpu
    from .model import GpuSpec, KernelProfile, ProfileReport
    from .simple import KernelReport, diagnose_kernel_profile, roofline_position

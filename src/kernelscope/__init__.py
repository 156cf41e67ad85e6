"""kernelscope: why is this CUDA kernel slow, and what to do about it.

Read profiler output (Nsight Compute reports and exports, nvprof, Nsight Systems exports, PyTorch profiler
traces, plain numbers), place each kernel on the roofline of the pipe it uses, classify its Speed-of-Light
bottleneck, attribute its warp stalls, run the kernel rules and give advice (en / zh); split a program's time
into kernels, copies, launch gaps and idle.

Main entry points (see :mod:`kernelscope.api`):
    :func:`load`, :func:`diagnose_file`, :func:`diagnose_report`: Nsight Compute (and other kernel) reports.
    :func:`load_timeline`, :func:`timeline_file`: program timelines.
    :func:`diagnose_kernel_profile`, :class:`KernelReport`, :func:`roofline_position`: plain numbers (the
    specification's own API).
"""

from . import notebook
from .analysis.diagnosis import KernelDiagnosis, ReportDiagnosis, diagnose, diagnose_report
from .analysis.roofline import RooflinePoint, roofline_point
from .api import diagnose_file, load, load_criteria, load_timeline, resolve_gpu, timeline_file
from .errors import InputError, KernelscopeError, UnknownGpuError
from .ingest.settings import read_spec as load_spec
from .knowledge.gpus import find_gpu
from .model import GpuSpec, KernelProfile, ProfileReport
from .simple import KernelReport, diagnose_kernel_profile, roofline_position
from .version import __version__

notebook.register()

__all__ = [
    "GpuSpec",
    "InputError",
    "KernelDiagnosis",
    "KernelProfile",
    "KernelReport",
    "KernelscopeError",
    "ProfileReport",
    "ReportDiagnosis",
    "RooflinePoint",
    "UnknownGpuError",
    "__version__",
    "diagnose",
    "diagnose_file",
    "diagnose_kernel_profile",
    "diagnose_report",
    "find_gpu",
    "load",
    "load_criteria",
    "load_spec",
    "load_timeline",
    "resolve_gpu",
    "roofline_point",
    "roofline_position",
    "timeline_file",
]

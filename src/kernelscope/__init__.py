"""kernelscope: why is this CUDA kernel slow, and what to do about it.

Read profiler output (Nsight Compute ``.ncu-rep``), place each kernel on the roofline of the pipe it
uses, classify its Speed-of-Light bottleneck, attribute its warp stalls and give advice (en / zh).

Main entry points:
    :func:`diagnose_file` / :func:`diagnose_report`: a whole report.
    :func:`diagnose_kernel_profile`, :class:`KernelReport`, :func:`roofline_position`: plain numbers.
"""

from .api import ReportDiagnosis, diagnose_file, diagnose_report
from .diagnosis import KernelDiagnosis, diagnose
from .errors import InputError, KernelscopeError, UnknownGpuError
from .hardware import find_gpu, load_spec
from .ingest import load
from .model import GpuSpec, KernelProfile, ProfileReport
from .roofline import RooflinePoint, roofline_point
from .simple import KernelReport, diagnose_kernel_profile, roofline_position

__version__ = "0.1.0"

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
    "diagnose",
    "diagnose_file",
    "diagnose_kernel_profile",
    "diagnose_report",
    "find_gpu",
    "load",
    "load_spec",
    "roofline_point",
    "roofline_position",
]

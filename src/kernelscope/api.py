"""The library's entry points: read -> model -> analyse, with no rendering.

A notebook user can live here (every name is also exported by :mod:`kernelscope`):

* :func:`load` -- one profiler file -> :class:`~kernelscope.model.ProfileReport` (kernel launches, SI units);
* :func:`diagnose_file` / :func:`diagnose_report` -> :class:`ReportDiagnosis` (per launch: roofline,
  Speed-of-Light, stalls, occupancy, findings and advice);
* :func:`load_timeline` / :func:`timeline_file` -> a :class:`~kernelscope.timeline_model.Timeline` (NumPy columns,
  integer ns) / its analysed :class:`~kernelscope.analysis.timeline.TimelineReport` (where the program's time goes);
* :func:`resolve_gpu` -- the ceilings for ``--gpu NAME`` / ``--spec FILE``; :func:`load_criteria` -- ``--criteria``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

from .analysis.diagnosis import KernelDiagnosis, ReportDiagnosis, diagnose, diagnose_report
from .errors import InputError
from .ingest import load, load_timeline
from .ingest.settings import read_criteria, read_spec
from .knowledge.gpus import find_gpu
from .model import GpuSpec

if TYPE_CHECKING:
    from .analysis.timeline import TimelineReport

__all__ = [
    "KernelDiagnosis", "ReportDiagnosis", "diagnose", "diagnose_file", "diagnose_report", "load",
    "load_criteria", "load_timeline", "resolve_gpu", "timeline_file",
]


def resolve_gpu(gpu: str | None = None, spec: str | os.PathLike | None = None) -> GpuSpec | None:
    """The ceilings a user asked for: a catalogue GPU by name (``--gpu``) or a spec file (``--spec``); None for
    neither (each kernel's own device is then looked up).

    Raises:
        InputError: both given, or a bad spec file; UnknownGpuError: a name the catalogue lacks.
    """
    if gpu is not None and spec is not None:
        raise InputError("--gpu/--spec", "give one of them, not both")
    if gpu is not None:
        return find_gpu(gpu)
    if spec is not None:
        return read_spec(spec)
    return None


def load_criteria(path: str | os.PathLike) -> dict[str, float]:
    """Rule thresholds with a user's overrides from a TOML ``[criteria]`` table (see
    :func:`kernelscope.ingest.settings.read_criteria`)."""
    return read_criteria(path)


def diagnose_file(
    path: str | os.PathLike,
    gpu: GpuSpec | str | None = None,
    kernel_regex: str | None = None,
    top: int | None = None,
    criteria: Mapping[str, Any] | None = None,
    input_format: str | None = None,
) -> ReportDiagnosis:
    """Read a profiler file and diagnose it: ``diagnose_report(load(path), ...)``.

    Raises:
        InputError, UnknownGpuError: see :func:`kernelscope.ingest.load` and
            :func:`kernelscope.analysis.diagnosis.diagnose_report`.
    """
    return diagnose_report(load(path, input_format), gpu=gpu, kernel_regex=kernel_regex, top=top, criteria=criteria)


def timeline_file(path: str | os.PathLike, input_format: str | None = None, top: int = 10) -> list["TimelineReport"]:
    """Load one program trace (Nsight Systems SQLite export, ``nsys stats`` output, PyTorch profiler trace; format
    detected, see :func:`kernelscope.ingest.load_timeline`) and analyse it: one report per run (a stats file may
    hold several).

    Raises:
        InputError: unreadable, unrecognised or unusable input.
    """
    from .analysis.timeline import analyse  # NumPy only for timelines

    return analyse(load_timeline(path, input_format), top)

"""The library's main entry points: read -> model -> analyse, with no rendering."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from . import hardware, rules
from .diagnosis import KernelDiagnosis, KernelGroup, diagnose, group_by_name
from .errors import InputError, UnknownGpuError
from .ingest import load
from .model import GpuSpec, KernelProfile, ProfileReport


@dataclass(frozen=True)
class ReportDiagnosis:
    """Diagnosis of one input file.

    Attributes:
        report: what was read (every launch, report order).
        groups: launches grouped by kernel name, largest total GPU time first (all launches of the file).
        kernels: diagnoses of the selected launches (``--kernel`` / ``top``), in report order.
    """

    report: ProfileReport
    groups: tuple[KernelGroup, ...]
    kernels: tuple[KernelDiagnosis, ...]

    def _repr_html_(self) -> str:
        """Jupyter display: the report as HTML (summary, charts, a card per launch), in English."""
        from .render.html import report_fragment

        return report_fragment(self)


def select_kernels(
    kernels: tuple[KernelProfile, ...], kernel_regex: str | None = None, top: int | None = None
) -> tuple[KernelProfile, ...]:
    """Launches whose name or demangled name matches ``kernel_regex`` (``re.search``), then the ``top``
    longest of those (launches without a duration last), returned in report order.

    Raises:
        InputError: an invalid regular expression or a non-positive ``top``.
    """
    chosen = kernels
    if kernel_regex is not None:
        try:
            rx = re.compile(kernel_regex)
        except re.error as exc:
            raise InputError("kernel_regex (--kernel)", f"invalid regular expression {kernel_regex!r}: {exc}") from None
        chosen = tuple(k for k in chosen if rx.search(k.name) or rx.search(k.demangled_name))
    if top is not None:
        if top < 1:
            raise InputError("top (--top)", f"expected a positive number of kernels, got {top}")
        longest = sorted(chosen, key=lambda k: -(k.duration_s if k.duration_s is not None else -1.0))[:top]
        keep = {k.index for k in longest}
        chosen = tuple(k for k in chosen if k.index in keep)
    return chosen


def load_criteria(path: str | os.PathLike) -> dict[str, Any]:
    """Bottleneck-class thresholds with a user's overrides: a TOML file with a ``[criteria]`` table whose
    keys are those of ``verdicts.toml`` ``[criteria]`` (e.g. ``memory_high_pct = 75``).

    Raises:
        InputError: unreadable file, not TOML, no [criteria] table, unknown key or non-positive value.
    """
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(source, "file not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(source, f"cannot read criteria as TOML: {' '.join(str(exc).split())}") from None
    table = data.get("criteria")
    if not isinstance(table, dict):
        raise InputError(source, "expected a [criteria] table, e.g. [criteria] memory_high_pct = 75")
    try:
        return rules.criteria(table)
    except (KeyError, ValueError) as exc:
        raise InputError(source, str(exc).strip("'\"")) from None


def diagnose_report(
    report: ProfileReport,
    gpu: GpuSpec | str | None = None,
    kernel_regex: str | None = None,
    top: int | None = None,
    criteria: Mapping[str, Any] | None = None,
) -> ReportDiagnosis:
    """Diagnose every selected launch of a report.

    Args:
        report: a report from :func:`kernelscope.ingest.load`.
        gpu: ceilings to use for every kernel (a spec, or a catalogue name); None looks each kernel's
            device up in the catalogue.
        kernel_regex: keep launches whose (demangled) name matches.
        top: keep the N longest launches.
        criteria: bottleneck-class thresholds (:func:`load_criteria` / :func:`kernelscope.rules.criteria`).

    Raises:
        UnknownGpuError: a device the catalogue lacks when ``gpu`` is None.
        InputError: bad selection arguments. A kernel whose profile names no device (CSV exports, console
            text) is diagnosed without roofline ceilings when ``gpu`` is None.
    """
    specs: dict[str | None, GpuSpec] = {}
    if isinstance(gpu, str):
        gpu = hardware.find_gpu(gpu)

    def gpu_for(kernel: KernelProfile) -> GpuSpec | None:
        if gpu is not None:
            return gpu
        name = kernel.device.display_name
        if name not in specs:
            if not name:
                return None  # diagnosed without roofline ceilings; the diagnosis says to pass --gpu / --spec
            try:
                specs[name] = hardware.find_gpu(name)
            except UnknownGpuError as exc:
                raise UnknownGpuError(name, exc.closest, source=report.path) from None
        return specs[name]

    chosen = select_kernels(report.kernels, kernel_regex, top)
    return ReportDiagnosis(
        report=report,
        groups=group_by_name(report.kernels),
        kernels=tuple(diagnose(k, gpu_for(k), criteria) for k in chosen),
    )


def diagnose_file(
    path: str | os.PathLike,
    gpu: GpuSpec | str | None = None,
    kernel_regex: str | None = None,
    top: int | None = None,
    criteria: Mapping[str, Any] | None = None,
) -> ReportDiagnosis:
    """Read a profiler file and diagnose it: ``diagnose_report(load(path), ...)``.

    Raises:
        InputError, UnknownGpuError: see :func:`kernelscope.ingest.load` and :func:`diagnose_report`.
    """
    return diagnose_report(load(path), gpu=gpu, kernel_regex=kernel_regex, top=top, criteria=criteria)

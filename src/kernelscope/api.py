"""The library's entry points: read -> model -> analyse, with no rendering.

A notebook user can live here (every name is also exported by :mod:`kernelscope`):

* :func:`load` -- one profiler file -> :class:`~kernelscope.model.ProfileReport` (kernel launches, SI units);
* :func:`diagnose_file` / :func:`diagnose_report` -> :class:`ReportDiagnosis` (per launch: roofline,
  Speed-of-Light, stalls, occupancy, findings and advice);
* :func:`load_timeline` / :func:`timeline_file` -> a :class:`~kernelscope.timeline_model.Timeline` (NumPy columns,
  integer ns) / its analysed :class:`~kernelscope.analysis.timeline.TimelineReport` (where the program's time goes);
* :func:`resolve_gpu` -- the ceilings for ``--gpu NAME`` / ``--spec FILE``; :func:`load_criteria` -- ``--criteria``;
* :func:`source_file` -> :class:`~kernelscope.analysis.source.SourceReport` (where in the code: the hottest
  instructions and source lines of a launch, from a ``.ncu-rep`` report's per-instruction data, each naming the
  diagnosis findings located there); :func:`source_for` -- the same for the launches of a diagnosis.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .analysis.diagnosis import KernelDiagnosis, ReportDiagnosis, diagnose, diagnose_report
from .errors import InputError
from .ingest import load, load_timeline
from .ingest.settings import read_criteria, read_spec
from .knowledge.gpus import find_gpu, find_typed_gpu
from .model import GpuSpec

if TYPE_CHECKING:
    from .analysis.source import SourceReport
    from .analysis.timeline import TimelineReport
    from .model import KernelProfile, ProfileReport

__all__ = [
    "KernelDiagnosis", "ReportDiagnosis", "diagnose", "diagnose_file", "diagnose_report", "load",
    "load_criteria", "load_timeline", "locate_findings", "no_kernel_matches", "resolve_gpu", "source_file",
    "source_for", "timeline_file", "to_arrow", "to_pandas", "with_useful_flops",
]


def resolve_gpu(gpu: str | None = None, spec: str | os.PathLike | None = None) -> GpuSpec | None:
    """The ceilings a user asked for: a catalogue GPU by name (``--gpu``) or a spec file (``--spec``); None for
    neither (each kernel's own device is then looked up).

    Raises:
        InputError: both given, a bad spec file, or a name that starts several catalogue GPUs' names (the
            candidates listed); UnknownGpuError: a name the catalogue lacks.
    """
    if gpu is not None and spec is not None:
        raise InputError("--gpu/--spec", key="gpu_and_spec")
    if gpu is not None:
        return find_typed_gpu(gpu)
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
    useful_flops: Mapping[str, float] | None = None,
    kernel: str | None = None,
) -> ReportDiagnosis:
    """Read a profiler file and diagnose it: ``diagnose_report(load(path), ...)``, with each finding pointed at its
    top instructions where the report holds per-instruction data (:func:`locate_findings`).

    ``kernel_regex``: only launches whose name or demangled name it matches (``re.search``). ``kernel``: only
    launches it names as Nsight Compute's ``-k`` does (``diagnose --kernel``): an exact function or demangled name
    (a unique part of one), or ``regex:PATTERN`` (:func:`kernelscope.analysis.selection.match`).

    ``useful_flops``: kernel name (its function name or full demangled name) -> the FLOPs its algorithm needs per
    launch (``diagnose --useful-flops NAME=COUNT``), set on every launch of that name (:func:`with_useful_flops`);
    each is then diagnosed with a second roofline point for the useful work beside the executed one.

    Raises:
        InputError, UnknownGpuError: see :func:`kernelscope.ingest.load` and
            :func:`kernelscope.analysis.diagnosis.diagnose_report`.
    """
    report = with_useful_flops(load(path, input_format), useful_flops or {})
    rd = diagnose_report(report, gpu=gpu, kernel_regex=kernel_regex, top=top, criteria=criteria, kernel=kernel)
    return locate_findings(rd)


def with_useful_flops(report: "ProfileReport", useful_flops: Mapping[str, float]) -> "ProfileReport":
    """``report`` with ``KernelProfile.useful_flops`` set on every launch whose name or demangled name is a key of
    ``useful_flops`` (FLOP per launch); ``report`` itself when none matches."""
    if not any(k.name in useful_flops or k.demangled_name in useful_flops for k in report.kernels):
        return report
    kernels = tuple(
        replace(k, useful_flops=useful_flops.get(k.name, useful_flops.get(k.demangled_name)))
        if k.name in useful_flops or k.demangled_name in useful_flops else k
        for k in report.kernels
    )
    return replace(report, kernels=kernels)


def locate_findings(rd: ReportDiagnosis, top: int = 3) -> ReportDiagnosis:
    """``rd`` with each launch's findings located (``KernelDiagnosis.locations``: finding id -> its ``top``
    instructions by the finding's per-instruction metric, ``data/findings.toml`` ``locate``). Only the metrics the
    findings need are read, the source lines of the chosen instructions only, and no SASS text (``kernelscope
    source`` shows that). Launches without per-instruction
    data, and other formats than ``.ncu-rep``, are returned as they are.

    Raises:
        InputError: the report cannot be read again (moved or damaged since it was loaded).
    """
    from .analysis.locations import locate_findings as locate, needed_metrics, with_lines

    wanted = {d.kernel.index: needed_metrics(d.findings, d.kernel.instruction_metrics)
              for d in rd.kernels if d.kernel.origin is not None}
    todo = [d for d in rd.kernels if wanted.get(d.kernel.index)]
    if not todo:
        return rd
    from .ingest.ncu_source import read_instruction_values, read_source_lines

    launches = [d.kernel for d in todo]
    values = read_instruction_values(rd.report.path, launches, [wanted[k.index] for k in launches])
    picked = [locate(d.findings, v, top) for d, v in zip(todo, values)]
    lines = read_source_lines(rd.report.path, launches, [{x.pc for xs in p.values() for x in xs} for p in picked])
    located = {d.kernel.index: with_lines(p, ln) for d, p, ln in zip(todo, picked, lines)}
    return replace(rd, kernels=tuple(replace(d, locations=located.get(d.kernel.index, {})) for d in rd.kernels))


def timeline_file(path: str | os.PathLike, input_format: str | None = None, top: int = 10) -> list["TimelineReport"]:
    """Load one program trace (Nsight Systems SQLite export, ``nsys stats`` output, PyTorch profiler trace; format
    detected, see :func:`kernelscope.ingest.load_timeline`) and analyse it: one report per run (a stats file may
    hold several).

    Raises:
        InputError: unreadable, unrecognised or unusable input.
    """
    from .analysis.timeline import analyse  # NumPy only for timelines

    _attach_timeline_methods()
    return analyse(load_timeline(path, input_format), top)


def source_file(
    path: str | os.PathLike,
    kernel_regex: str | None = None,
    launch: int | None = None,
    top: int = 10,
    sass: str = "top",
    kernel: str | None = None,
) -> "SourceReport":
    """Where in the code: the ``top`` hottest instructions and source lines of launches of an Nsight Compute report
    (``.ncu-rep``), from its per-instruction data (Source Counters, instruction sampling).

    Args:
        path: the report.
        kernel_regex: every launch whose name or demangled name matches (``re.search``) and that holds
            per-instruction data; None: see ``launch``.
        launch: only the launch with this index (0-based, report order); with ``kernel_regex`` or ``kernel`` it
            must match too.
            Neither given: the longest launch that holds per-instruction data.
        top: how many instructions and lines per launch.
        sass: which instructions to disassemble (:func:`kernelscope.ingest.ncu_source.read_instructions`):
            ``"top"`` the hottest ``top`` (about 0.4 ms each), ``"all"`` every one (the HTML SASS view).
        kernel: as ``kernel_regex``, the launches named as Nsight Compute's ``-k`` does (``source --kernel``): an
            exact function or demangled name (a unique part of one), or ``regex:PATTERN``
            (:func:`kernelscope.analysis.selection.match`).

    Returns:
        A :class:`~kernelscope.analysis.source.SourceReport`: the report and one
        :class:`~kernelscope.analysis.source.LaunchSource` per selected launch, in report order. Each launch is
        also diagnosed (:func:`diagnose_report`, each launch's own GPU from the catalogue) and its findings located
        in its per-instruction data (``LaunchSource.located``); every hot line and instruction names the findings
        located there (``findings``, most important first).

    Raises:
        InputError: not a ``.ncu-rep`` report, unreadable, no such launch, no match, an ambiguous ``kernel``
            name, or no selected launch holds
            per-instruction data (the message names the options that collect it), ``top`` < 1.
    """
    _check_top(top)
    report = load(path, None)
    chosen = _source_launches(report, kernel_regex, launch, kernel)
    wanted = {k.index for k in chosen}
    diagnosed = [d for d in diagnose_report(report).kernels if d.kernel.index in wanted]
    return _source_report(report, diagnosed, top, sass)


def source_for(rd: ReportDiagnosis, top: int = 10, sass: str | Iterable[int] = "top",
               launches: Iterable[int] | None = None) -> "SourceReport":
    """Where in the code, for the launches of a diagnosis (``diagnose --format html/markdown``): for every diagnosed
    launch of a ``.ncu-rep`` report that holds per-instruction data, its ``top`` hottest instructions and source
    lines with the findings of its diagnosis located in them (as :func:`source_file`). The report is read once for
    all of them; ``sass``: which instructions to disassemble (see
    :func:`kernelscope.ingest.ncu_source.read_instructions`): ``"top"`` each launch's ``top`` hottest (the first
    disassembly of a launch costs about 0.1 s), ``()`` none (a view without SASS text, e.g. the Markdown lines).
    ``launches``: only the launches with these indices (``KernelProfile.index``: the ones a view shows, e.g. the
    representatives of grouped launches); None: every one.

    Returns:
        A :class:`~kernelscope.analysis.source.SourceReport` of ``rd.report`` with one
        :class:`~kernelscope.analysis.source.LaunchSource` per such launch, in report order; no launch for another
        format or when no diagnosed launch holds per-instruction data (then nothing is read).

    Raises:
        InputError: ``top`` < 1, or the report cannot be read again (moved or damaged since it was loaded).
    """
    _check_top(top)
    only = None if launches is None else set(launches)
    with_data = [d for d in rd.kernels if d.kernel.instruction_metrics and d.kernel.origin is not None
                 and (only is None or d.kernel.index in only)]
    if rd.report.format != "ncu-rep":
        with_data = []
    return _source_report(rd.report, with_data, top, sass)


def no_kernel_matches(source: str, option: str, pattern: str, names: Iterable[str], shown: int = 5) -> InputError:
    """The error for a name selection that matches nothing (``--kernel``, ``--pair`` ...): one line naming the
    pattern and listing a few of the kernel names there are (table-shortened, report order, each once).

    Args:
        source: the report (or option) the message starts with.
        option: the option that selects, e.g. ``"--kernel"``.
        pattern: the name (or ``regex:PATTERN``, or regular expression) given.
        names: the kernel names it was matched against.
        shown: how many names to list.
    """
    from .render.common import short_name

    unique = list(dict.fromkeys(names))
    listed = ", ".join(short_name(n, 60) for n in unique[:shown])  # the whole identifier, to copy
    key = "no_kernel_matches" if listed else "no_kernel_matches_none"
    values = {"option": option, "pattern": pattern, "names": listed, "total": len(unique)}
    if len(unique) > shown:
        listed += f", ... ({len(unique)} names)"
        key = "no_kernel_matches_more"
    return InputError(source, f"no kernel matches {option} {pattern!r}; kernels there: {listed or 'none'}", key=key,
                      values=values)


def _check_top(top: int) -> None:
    """Raises InputError unless ``top`` (instructions and lines per launch) is at least 1."""
    if top < 1:
        raise InputError("--top", key="top_instructions_positive", values={"top": top})


def _source_report(report: "ProfileReport", diagnosed: list[KernelDiagnosis], top: int,
                   sass: str | Iterable[int]) -> "SourceReport":
    """One read of ``report``'s per-instruction data for the launches of ``diagnosed`` (none: no read), each
    analysed (:func:`kernelscope.analysis.source.analyse`) with its diagnosis's findings located in it."""
    from .analysis.locations import locate_in_table
    from .analysis.source import SourceReport, analyse

    if not diagnosed:
        return SourceReport(report=report, launches=())
    from .ingest.ncu_source import read_instructions

    located = {d.kernel.index: [x.pc for locs in d.locations.values() for x in locs] for d in diagnosed}
    tables = read_instructions(report.path, [d.kernel for d in diagnosed], sass=sass, top=top,
                               also=located if sass == "top" else None)
    return SourceReport(report=report, launches=tuple(
        analyse(d.kernel, t, top, located=locate_in_table(d.findings, t)) for d, t in zip(diagnosed, tables)))


def _source_launches(report: "ProfileReport", kernel_regex: str | None, launch: int | None,
                     kernel: str | None = None) -> list["KernelProfile"]:
    """The launches :func:`source_file` reads (see there); raises InputError when there are none to read."""
    from .analysis.selection import select_kernels
    from .ingest.ncu_source import HOW_TO_COLLECT, no_instruction_data

    path = report.path
    if report.format != "ncu-rep":
        raise InputError(path, key="source_needs_ncu_rep",
            values={"format": report.format, "how_to_collect": HOW_TO_COLLECT})
    selecting = kernel_regex is not None or kernel is not None
    kernels = select_kernels(report.kernels, kernel_regex, kernel=kernel, source=path) if selecting \
        else report.kernels
    if selecting and not kernels:
        pattern = kernel if kernel is not None else kernel_regex
        raise no_kernel_matches(path, "--kernel", pattern, (k.name for k in report.kernels))
    if launch is not None:
        one = [k for k in kernels if k.index == launch]
        if not one:
            shown = ", ".join(str(k.index) for k in kernels[:12]) + (", ..." if len(kernels) > 12 else "")
            raise InputError("--launch", f"no launch {launch} among the selected launches ({shown})",
                             key="no_launch_index", values={"launch": launch, "shown": shown})
        if not one[0].instruction_metrics:
            raise no_instruction_data(path, one[0])
        return one
    with_data = [k for k in kernels if k.instruction_metrics and k.origin is not None]
    if not with_data:
        if selecting:
            raise InputError(path, key="source_no_instruction_data_selected", values={"how_to_collect": HOW_TO_COLLECT})
        raise InputError(path, key="source_no_instruction_data", values={"how_to_collect": HOW_TO_COLLECT})
    if selecting:
        return with_data
    return [max(with_data, key=lambda k: (k.duration_s if k.duration_s is not None else -1.0, -k.index))]


def to_arrow(result: Any) -> Any:
    """Results as a ``pyarrow.Table`` with the same fields and units as the JSON (None -> null): a
    :class:`ReportDiagnosis` (or a list of them) -> one row per diagnosed launch; a
    :class:`~kernelscope.analysis.timeline.TimelineReport` (or a list) -> one row per kernel per device of a rank.
    Columns: :data:`kernelscope.render.arrow.LAUNCH_COLUMNS` / :data:`~kernelscope.render.arrow.TIMELINE_COLUMNS`.
    Also the methods ``ReportDiagnosis.to_arrow()`` and ``TimelineReport.to_arrow()``.

    Raises:
        InputError: pyarrow is not installed (``pip install 'kernelscope[dataset]'``), or not such a result.
    """
    from .render.arrow import diagnosis_table, timeline_table

    items = list(result) if isinstance(result, (list, tuple)) else [result]
    if all(isinstance(x, ReportDiagnosis) for x in items):
        return diagnosis_table(items)
    if all(type(x).__name__ == "TimelineReport" for x in items):
        return timeline_table(items)
    raise InputError("to_arrow", key="to_arrow_results")


def to_pandas(result: Any) -> Any:
    """:func:`to_arrow` as a pandas DataFrame (pandas must be installed)."""
    table = to_arrow(result)
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise InputError("pandas", key="pandas_missing") from None
    return table.to_pandas()


def _attach_methods(cls: type) -> None:
    """``cls.to_arrow()`` / ``cls.to_pandas()`` (the analysis types know nothing of rendering: the API adds them)."""
    if "to_arrow" not in cls.__dict__:
        cls.to_arrow = to_arrow  # type: ignore[attr-defined]
        cls.to_pandas = to_pandas  # type: ignore[attr-defined]


def _attach_timeline_methods() -> None:
    from .analysis.timeline.report import TimelineReport  # NumPy: only once timelines are used

    _attach_methods(TimelineReport)


_attach_methods(ReportDiagnosis)
if "kernelscope.analysis.timeline.report" in sys.modules:
    _attach_timeline_methods()

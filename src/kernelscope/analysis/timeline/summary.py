"""Rankings, Amdahl projections and the checks that per-name totals allow, from ``nsys stats`` summaries (a
:class:`~kernelscope.timeline_model.TimelineSummary`).

A summary has no intervals: idle time, utilisation, overlap, per-stream splits, launch latency and gaps are listed
in ``not_computable``. The Amdahl "program time" is the summed GPU kernel + copy + memset time (busy time
assuming no overlap), stated in ``notes``; with only host-side tables there is none.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...knowledge.plausibility import pct_reason
from ...knowledge.timeline_checks import timeline_checks
from ...notes import Listed, Note
from ...timeline_model import SummaryRow, TimelineSummary
from ..engine import run_rules
from .checks import TIMELINE_RULES, TimelineContext
from .graphs import summary_launch_bound
from .rankings import amdahl, black_hole
from .one_off import split_one_offs
from .report import ItemStat, OneOffCall, TimelineReport

#: What a summary cannot give.
NOT_COMPUTABLE = ("idle", "utilisation", "overlap", "per_stream", "launch_overhead", "gaps", "union")


def _file_pct(r: SummaryRow) -> float | None:
    """The row's own "Time (%)" when it can be real (0-100 within the plausibility tolerance), else None."""
    pct = r.time_pct
    return pct if pct is not None and math.isfinite(pct) and pct_reason("time_pct", pct) is None else None


def _ranked(rows: list[SummaryRow], kind: str, program: float | None) -> tuple[ItemStat, ...]:
    """The summary rows of one kind as ItemStats, largest total first; Amdahl fractions of ``program`` (None:
    no projection). A share is the file's own "Time (%)" when that can be real, else recomputed from the totals."""
    items = sorted(rows, key=lambda r: -(r.total_s or 0.0))
    grand = sum(r.total_s or 0.0 for r in items)
    fs = timeline_checks().amdahl.factors
    out = []
    for r in items:
        total = r.total_s or 0.0
        frac = (total / program) if program else None
        out.append(ItemStat(
            kind=kind, name=r.name, count=r.count or 0, total_s=total, mean_s=r.mean_s, min_s=r.min_s,
            max_s=r.max_s, median_s=r.median_s, std_s=r.stddev_s if (r.count or 0) > 1 else None,
            share_pct=pct if (pct := _file_pct(r)) is not None else ((100.0 * total / grand) if grand else None),
            program_fraction=min(frac, 1.0) if frac is not None else None,
            amdahl=amdahl(frac, fs, base_s=program) if frac is not None else None,  # serial: no intervals
            bytes=int(r.bytes) if r.bytes is not None else None,
            throughput_bytes_per_s=(r.bytes / total) if r.bytes is not None and total > 0 else None,
            truncated=r.truncated))
    return tuple(out)


def analyse_summary(summary: TimelineSummary, top: int = 10) -> TimelineReport:
    """Rankings, Amdahl projections and checks from ``nsys stats`` summaries (one capture). ``top`` is accepted
    for symmetry with the interval analysis (a summary carries its own medians)."""
    by_kind: dict[str, list[SummaryRow]] = {}
    for row in summary.rows:
        by_kind.setdefault(row.kind, []).append(row)
    gpu_total = sum((r.total_s or 0.0) for k in ("kernel", "memcpy", "memset") for r in by_kind.get(k, ()))
    program = gpu_total if gpu_total > 0 else None
    notes: list[Note] = [Note("tl_summary_program_time", {"time_s": program})] if program is not None else []
    bad_pct = [r.name for r in summary.rows if r.time_pct is not None and _file_pct(r) is None]
    if bad_pct:
        notes.append(Note("tl_summary_bad_pct", {"names": Listed(bad_pct[:3], more=len(bad_pct) > 3)}))
    kernels, copies, memsets = (_ranked(by_kind.get(k, []), k, program) for k in ("kernel", "memcpy", "memset"))
    api_rows, one_offs = split_one_offs(by_kind.get("runtime_api", []), timeline_checks().one_off_calls)
    notes += [_one_off_note(o) for o in one_offs]
    api_calls = _ranked(api_rows, "runtime_api", None)  # per-call costs only: one-off costs shown apart
    annotations = _ranked(by_kind.get("annotation", []), "annotation", None)
    bound = summary_launch_bound(api_calls, kernels, timeline_checks())
    findings = run_rules(TIMELINE_RULES, TimelineContext(timeline_checks(), program, api_calls=api_calls,
                                                         launch_bound=bound))
    black = black_hole(kernels, copies, memsets)
    if not (kernels or copies or memsets):
        notes.append(Note("tl_summary_no_gpu", {}))
    api_total = sum(a.total_s for a in api_calls)
    if api_calls and program and api_total > 2 * program:
        notes.append(Note("tl_summary_api_dominates", {"api_s": api_total, "gpu_s": program,
                                                       "name": api_calls[0].name, "top_s": api_calls[0].total_s}))
    return TimelineReport(
        path=summary.path, format=summary.format, source="summary", wall_s=None, program_time_s=program,
        devices=(), streams=(), host_api_s=None, kernels=kernels, copies=copies, memsets=memsets,
        api_calls=api_calls, syncs=(), annotations=annotations, launch=None, tiny_kernels=(), black_hole=black,
        ranks=(), slowest_rank=None, findings=findings, not_computable=NOT_COMPUTABLE,
        notes=tuple(notes), problems=summary.problems, tool_version=summary.tool_version,
        devices_named=tuple((i, nm) for i, nm in enumerate(summary.device_names)), launch_bound=bound,
        one_off_calls=one_offs,
    )


def _one_off_note(o: OneOffCall) -> Note:
    """The statement of one one-off API cost (:mod:`.one_off`)."""
    if o.why == "first_call":
        return Note("tl_one_off_first_call", {"name": o.name, "time_s": o.time_s, "calls": o.total_calls,
                                              "ratio": o.ratio_to_median, "rest": o.per_call_calls,
                                              "rest_s": o.per_call_s})
    return Note("tl_one_off_once", {"name": o.name, "calls": o.calls, "time_s": o.time_s})


def summary_runs(summary: TimelineSummary) -> int:
    """How many captures a summary file holds."""
    return summary.runs if summary.run_of_row else 1


def analyse_runs(summary: TimelineSummary, top: int = 10) -> list[TimelineReport]:
    """One report per capture of a summary file (titled "run i of n" when there are several)."""
    runs = max(summary_runs(summary), 1)
    if runs == 1:
        return [analyse_summary(summary, top)]
    out = []
    for i in range(runs):
        part = replace(summary, rows=tuple(r for r, k in zip(summary.rows, summary.run_of_row) if k == i),
                       runs=1, run_of_row=())
        out.append(replace(analyse_summary(part, top), title=f"run {i + 1} of {runs}"))
    return out

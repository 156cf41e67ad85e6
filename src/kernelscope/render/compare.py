"""Rendering of a before/after :class:`kernelscope.analysis.compare.Comparison` as table, Markdown or JSON."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..analysis.compare import Comparison, KernelComparison, Side
from ..version import __version__
from .common import Fmt, factor, safe, short_name
from .documents import encode
from .documents.compare import CompareDoc, ComparedKernelDoc, FindingEstimateDoc, PredictionDoc, SideDoc, StallShiftDoc
from .json import finite, notes, null_reasons

SCHEMA = "kernelscope.compare/1"

#: Null fields of a compared kernel that are computed from others (JSON Pointer -> note key); other nulls were
#: not recorded in that profile.
_DERIVED_NULLS = {
    f"/{side}/{field}": "not_derivable"
    for side in ("before", "after")
    for field in ("spread_s", "bandwidth_bytes_per_s", "bandwidth_pct_of_peak", "achieved_flops_per_s", "efficiency")
} | {"/speedup": "not_derivable", "/beyond_noise": "not_derivable", "/program_speedup": "not_derivable"}


def _pair_rows(p: KernelComparison, f: Fmt) -> list[tuple[str, str, str]]:
    """(label, before, after) rows of one compared kernel."""
    b, a = p.before, p.after

    def bw(s: Side) -> str:
        if s.bandwidth_bytes_per_s is None:
            return f.nm
        pct = f" ({s.bandwidth_pct_of_peak:.0f}%)" if s.bandwidth_pct_of_peak is not None else ""
        return f"{s.bandwidth_bytes_per_s / 1e9:.4g} GB/s{pct}"

    def spread(s: Side) -> str:
        return f.nm if s.spread_s is None else f"{f.time(s.spread_s[0])} .. {f.time(s.spread_s[1])}"

    return [
        (f.label("duration"), f"{f.time(b.duration_s)} x{b.launches}", f"{f.time(a.duration_s)} x{a.launches}"),
        (f.label("spread"), spread(b), spread(a)),
        (f.label("bandwidth"), bw(b), bw(a)),
        (f.label("achieved"), f"{f.flops(b.achieved_flops_per_s)} ({f.share(b.efficiency)})", f"{f.flops(a.achieved_flops_per_s)} ({f.share(a.efficiency)})"),
        ("SOL", f.label("sol_values", c=f.pct(b.sol_compute_pct), m=f.pct(b.sol_memory_pct)),
         f.label("sol_values", c=f.pct(a.sol_compute_pct), m=f.pct(a.sol_memory_pct))),
        (f.label("bound"), " + ".join(f.bound(c) for c in b.classes) or f.nm, " + ".join(f.bound(c) for c in a.classes) or f.nm),
        (f.label("occupancy"), f.pct(b.achieved_occupancy_pct), f.pct(a.achieved_occupancy_pct)),
    ]


def _verdict(p: KernelComparison, f: Fmt) -> str:
    speed = factor(p.speedup)
    noise = {True: "beyond_noise", False: "within_noise", None: "noise_unknown"}[p.beyond_noise]
    text = f"{f.label('speedup')} {speed} ({f.label(noise)})"
    if p.program_speedup is not None:
        text += f"; {f.label('program_effect')} {factor(p.program_speedup, 3)}"
    return text


def _title(p: KernelComparison) -> str:
    if p.before_name == p.after_name:
        return short_name(p.before_name)
    return f"{short_name(p.before_name)} -> {short_name(p.after_name)}"


def _summary(c: Comparison, f: Fmt) -> list[str]:
    if c.total_before_s == 0 and c.total_after_s == 0:
        return []  # kernels picked inside one report: no program totals
    lines = [
        f"{f.label('total_gpu_time')}: {f.time(c.total_before_s)} -> {f.time(c.total_after_s)}; "
        f"{f.label('overall')}: {factor(c.speedup)}"
    ]
    if c.unmatched_before or c.unmatched_after:
        lines.append(
            f"{f.label('unmatched')}: {f.label('before')}: {safe(', '.join(c.unmatched_before)) or '-'}; "
            f"{f.label('after')}: {safe(', '.join(c.unmatched_after)) or '-'}"
        )
    return lines


def _predictions(p: KernelComparison, f: Fmt) -> list[str]:
    return [
        f.label("predicted_value", rule=safe(x.rule_id), est=x.estimated_speedup_pct, got=x.measured_reduction_pct or 0.0)
        for x in p.predictions[:3]
    ]


def _estimates(p: KernelComparison, f: Fmt) -> str:
    """kernelscope's estimates from the BEFORE findings (largest first) next to the measured speedup."""
    items = ", ".join(f"{safe(i)} {factor(x)}" for i, x in p.predicted) or f.label("estimated_none")
    return f.label("estimated_items", items=items, got=factor(p.speedup))


def to_table(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> list:
    """rich renderables of a comparison: one :class:`rich.console.Group`, so that ``Console.print(*to_table(...))``
    puts each line on its own line (``print`` of several renderables joins them with spaces)."""
    f = Fmt(lang)
    out: list = [Text(line, style="bold") for line in _summary(c, f)]
    for p in c.pairs:
        t = Table(title=Text(f"{_title(p)}: {_verdict(p, f)}", style="bold cyan"), box=box.SIMPLE_HEAD, title_justify="left")
        t.add_column("", style="bold", no_wrap=True)
        t.add_column(f.label("before"), overflow="fold")
        t.add_column(f.label("after"), overflow="fold")
        for row in _pair_rows(p, f):
            t.add_row(*(Text(x) for x in row))
        out.append(t)
        out.append(Text(f"{f.label('what_moved')}: {f.notes(p.explanation)}"))
        out.append(Text(f"{f.label('estimated_by_findings')}: {_estimates(p, f)}"))
        for line in _predictions(p, f):
            out.append(Text(f"{f.label('predicted')}: {line}"))
    if threshold_pct is not None:
        out.append(Text(f"{f.label('regressions', pct=threshold_pct)}: {safe(', '.join(regressions)) or '-'}", style="bold"))
    return [Group(*out)]


def to_text(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None, width: int = 120) -> str:
    """Plain text (no colour codes) of :func:`to_table`."""
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(Group(*to_table(c, lang, regressions, threshold_pct)))
    return buf.getvalue()


def to_markdown(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> str:
    """Markdown for a pull-request comment: a summary table, then one before/after table per kernel."""
    f = Fmt(lang)
    cell = lambda s: safe(s).replace("|", "\\|")  # noqa: E731
    lines = [f"## {f.label('compare_title')}", ""] + [f"- {x}" for x in _summary(c, f)] + [""]
    lines += [f"| {f.label('kernel')} | {f.label('before')} | {f.label('after')} | {f.label('speedup')} | {f.label('spread')} |", "|---|---:|---:|---:|---|"]
    for p in c.pairs:
        noise = {True: "beyond_noise", False: "within_noise", None: "noise_unknown"}[p.beyond_noise]
        speed = factor(p.speedup)
        lines.append(f"| `{cell(_title(p))}` | {f.time(p.before.duration_s)} | {f.time(p.after.duration_s)} | {speed} | {f.label(noise)} |")
    lines.append("")
    for p in c.pairs:
        lines += [f"### `{cell(_title(p))}`", "", _verdict(p, f), "", f"| | {f.label('before')} | {f.label('after')} |", "|---|---|---|"]
        lines += [f"| {cell(a)} | {cell(b)} | {cell(x)} |" for a, b, x in _pair_rows(p, f)]
        lines += ["", f"{f.label('what_moved')}: {cell(f.notes(p.explanation))}"]
        lines += ["", f"{f.label('estimated_by_findings')}: {cell(_estimates(p, f))}"]
        lines += [f"\n{f.label('predicted')}: {cell(x)}" for x in _predictions(p, f)]
        lines.append("")
    if threshold_pct is not None:
        lines.append(f"**{f.label('regressions', pct=threshold_pct)}: {cell(', '.join(regressions)) or '-'}**")
    return "\n".join(lines) + "\n"


def to_json(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> str:
    """JSON document (schema ``kernelscope.compare/1``, types :mod:`kernelscope.render.documents.compare`, JSON Schema
    ``schemas/compare-1.schema.json``); durations in s, bandwidth in bytes/s, shares 0..1; each compared kernel's
    ``not_measured`` gives the reason for each null."""
    f = Fmt(lang)
    kernels = []
    for p in c.pairs:
        k = ComparedKernelDoc(
            before_name=p.before_name, after_name=p.after_name, matched_by=p.matched_by,  # type: ignore[arg-type]
            speedup=finite(p.speedup), beyond_noise=p.beyond_noise, program_speedup=finite(p.program_speedup),
            before=_side(p.before), after=_side(p.after),
            stall_shift=[StallShiftDoc(reason=r, share_before=b, share_after=a) for r, b, a in p.stall_shift],
            predictions=[PredictionDoc(rule_id=x.rule_id, estimated_speedup_pct=x.estimated_speedup_pct,
                                       measured_reduction_pct=finite(x.measured_reduction_pct)) for x in p.predictions],
            predicted=[FindingEstimateDoc(finding_id=i, estimated_speedup=x) for i, x in p.predicted],
            explanation=notes(p.explanation, f), not_measured=[],
        )
        k.not_measured = null_reasons(k, f, _DERIVED_NULLS, ("/explanation", "/predictions", "/not_measured"))
        kernels.append(k)
    return encode(CompareDoc(
        schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
        total_before_s=c.total_before_s, total_after_s=c.total_after_s, speedup=finite(c.speedup),
        unmatched_before=list(c.unmatched_before), unmatched_after=list(c.unmatched_after),
        fail_if_slower_pct=threshold_pct, regressions=list(regressions), kernels=kernels,
    ))


def _side(s: Side) -> SideDoc:
    return SideDoc(
        duration_s=s.duration_s, spread_s=s.spread_s, launches=s.launches,
        bandwidth_bytes_per_s=finite(s.bandwidth_bytes_per_s), bandwidth_pct_of_peak=finite(s.bandwidth_pct_of_peak),
        achieved_flops_per_s=finite(s.achieved_flops_per_s), efficiency=finite(s.efficiency),
        sol_compute_pct=s.sol_compute_pct, sol_memory_pct=s.sol_memory_pct, classes=list(s.classes),  # type: ignore[arg-type]
        achieved_occupancy_pct=s.achieved_occupancy_pct, theoretical_occupancy_pct=s.theoretical_occupancy_pct,
        stall_shares=dict(s.stall_shares),
    )

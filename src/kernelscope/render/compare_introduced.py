"""What a compared pair's change introduced, rendered: the lines of the terminal and Markdown section (AFTER findings
BEFORE lacks or has less of, then the launch configuration that changed) and the JSON documents
(:mod:`kernelscope.analysis.introduced`)."""

from __future__ import annotations

from ..analysis.compare import KernelComparison
from ..analysis.introduced import Introduction, LaunchChange, WorkGrowth
from ..analysis.performance import WorkChange
from ..knowledge.findings import findings
from .common import Fmt, si
from .documents.compare import IntroductionDoc, LaunchChangeDoc, WorkGrowthDoc
from .json import finite

#: Units the model check names at least (the largest changes of work), besides those the grown work lands on.
POSTHOC_SHOWN = 3


def introduced_lines(p: KernelComparison, f: Fmt) -> list[str]:
    """One line per AFTER finding the change introduced: "occupancy limited by a resource: new; AFTER: at most 1.55x
    this kernel", "uncoalesced global accesses: worse (58.7 M -> 73.4 M sectors); AFTER: est. 1.85x this kernel
    (BEFORE 2.19x)", then the launch configuration that changed ("registers/thread 117 -> 167; ..."); empty when
    the change introduced nothing. The work a slower AFTER does materially more of comes first ("global load
    requests 1.18 M -> 4.33 M (3.67x), on the load/store (LSU) pipe: its work 2.04x")."""
    out = [grown_work_text(g, f) for g in p.grown_work]
    for r in p.introduced:
        text = f.label("resolved_item", finding=f.finding_title(r.finding_id), status=f.label(f"status_{r.status}"))
        if r.measure:
            texts = findings()[r.finding_id]
            measured = f.label(f"resolved_{texts.verify_unit}", before=f.count(r.before_value), after=f.count(r.after_value))
            if r.before_per_work is not None and r.after_per_work is not None:
                measured += f.semi + f.label(f"per_{texts.verify_per_unit}", before=f"{r.before_per_work:.3g}",
                                             after=f"{r.after_per_work:.3g}")
            text += f.paren(measured)
        if r.estimated_speedup is not None:
            estimate = f.estimate(r.estimated_speedup, r.estimate_kind)
            if r.before_estimate is not None:
                estimate += f.paren(f.label("introduced_before_estimate", x=r.before_estimate))
            text += f.semi + f.label("introduced_estimate", estimate=estimate)
        out.append(text)
    if p.launch_changes:
        out.append(f.head(f.label("introduced_launch"), launch_changes_text(p.launch_changes, f)))
    return out


def _work_value(g: WorkGrowth, value: float, f: Fmt) -> str:
    """A counter of work in its unit: bytes as ``69.3 MB``, a pipe's busy time as a duration, counts as
    :meth:`Fmt.count`."""
    if g.count_unit == "bytes":
        return si(value, "B", 3)
    if g.count_unit == "seconds":
        return f.time(value)
    return f.count(value)


def grown_work_text(g: WorkGrowth, f: Fmt) -> str:
    """"global load requests 1.18 M -> 4.33 M (3.67x), on the load/store (LSU) pipe: its work 2.04x": the counter
    before and after with its factor, and the unit it lands on (a pipe's own work: only its busy time)."""
    what = f.label("work_pipe", unit=f.unit(g.unit)) if g.key == "pipe" and g.unit else f.label(f"work_{g.key}")
    where = ""
    if g.key != "pipe":
        where = f.label("work_on_unit", unit=f.unit(g.unit), factor=f.factor(g.unit_ratio)) if g.unit \
            else f.label("work_unit_not_measured")
    factor = f.factor(g.ratio)
    if g.per_request_before is not None and g.per_request_after is not None:
        factor += f.semi + f.label("work_per_request", before=f"{g.per_request_before:.3g}",
                                   after=f"{g.per_request_after:.3g}")
    return f.label("work_grew", what=what, before=_work_value(g, g.before, f), after=_work_value(g, g.after, f),
                   factor=factor, where=where)


def posthoc_order(p: KernelComparison) -> list[WorkChange]:
    """The units the model check names: those the grown work lands on first (so that it reads with what the change
    introduced), then the largest changes of work, :data:`POSTHOC_SHOWN` at least."""
    if p.posthoc is None:
        return []
    landing = {g.unit for g in p.grown_work if g.unit}
    first = [w for w in p.posthoc.changes if w.unit in landing]
    rest = [w for w in p.posthoc.changes if w.unit not in landing]
    return first + rest[:max(0, POSTHOC_SHOWN - len(first))]


def grown_work_doc(g: WorkGrowth) -> WorkGrowthDoc:
    """The JSON document of one :class:`WorkGrowth`."""
    return WorkGrowthDoc(metric=g.metric, key=g.key, count_unit=g.count_unit,  # type: ignore[arg-type]
                         before=g.before, after=g.after, unit=g.unit, unit_ratio=finite(g.unit_ratio),
                         unit_added_share=finite(g.unit_added_share),
                         per_request_before=finite(g.per_request_before),
                         per_request_after=finite(g.per_request_after))


def launch_changes_text(changes: tuple[LaunchChange, ...], f: Fmt) -> str:
    """"registers/thread 117 -> 167; static shared memory/block 8 KiB -> 16 KiB; ...": each changed field with its
    value before and after (a side that does not record it: "not measured")."""
    return f.semi.join(f.label("introduced_change", field=f.label(f"launch_{c.field}"), before=_launch_value(c.field, c.before, f),
                               after=_launch_value(c.field, c.after, f)) for c in changes)


def _launch_value(name: str, value: object, f: Fmt) -> str:
    """One launch field's value worded in its unit: bytes as KiB or B, dimensions ``16x16x1``, % and limiters."""
    if value is None:
        return f.nm
    if name.endswith("_bytes"):
        n = int(value)  # type: ignore[call-overload]
        return f"{n // 1024} KiB" if n and n % 1024 == 0 else f"{n} B"
    if name in ("block", "grid"):
        return ("×" if f.zh else "x").join(str(v) for v in value)  # type: ignore[attr-defined]
    if name.endswith("_pct"):
        return f.pct(value)  # type: ignore[arg-type]
    if name == "occupancy_limiters":
        return f.limiters(value)
    return str(value)


def introduction_doc(r: Introduction) -> IntroductionDoc:
    """The JSON document of one :class:`Introduction`."""
    return IntroductionDoc(finding_id=r.finding_id, status=r.status, measure=list(r.measure),  # type: ignore[arg-type]
                           before_value=finite(r.before_value), after_value=finite(r.after_value),
                           estimated_speedup=finite(r.estimated_speedup), estimate_kind=r.estimate_kind,  # type: ignore[arg-type]
                           before_estimate=finite(r.before_estimate), bound=r.bound,
                           before_per_work=finite(r.before_per_work), after_per_work=finite(r.after_per_work))


def _launch_json(value: object) -> float | list | None:
    """A launch field's value for JSON: a number (finite), a list for dimensions and limiters, None."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return list(value)
    return finite(float(value))  # type: ignore[arg-type]


def launch_change_doc(x: LaunchChange) -> LaunchChangeDoc:
    """The JSON document of one :class:`LaunchChange` (bytes, counts and % as numbers; dimensions and limiters as
    lists; null on a side that does not record the field)."""
    return LaunchChangeDoc(field=x.field, before=_launch_json(x.before), after=_launch_json(x.after))  # type: ignore[arg-type]

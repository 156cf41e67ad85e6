"""What a compared pair's change introduced and removed, rendered: the lines of the terminal and Markdown sections
(AFTER findings BEFORE lacks or has less of, the work AFTER does materially more or less of, the launch configuration
that changed), BEFORE's estimates next to the measured speedup, and the JSON documents
(:mod:`kernelscope.analysis.introduced`, :mod:`kernelscope.analysis.estimates`)."""

from __future__ import annotations

from ..analysis.compare import KernelComparison
from ..analysis.estimates import BeforeEstimate
from ..analysis.resolved import Resolution
from ..analysis.introduced import Introduction, LaunchChange, WorkGrowth
from ..analysis.performance import WorkChange
from ..knowledge.findings import findings
from .common import Fmt, data_size
from .documents.compare import BeforeEstimateDoc, IntroductionDoc, LaunchChangeDoc, WorkGrowthDoc
from .json import finite

#: Units the model check names at least (the largest changes of work), besides those the grown work lands on.
POSTHOC_SHOWN = 3


def introduced_lines(p: KernelComparison, f: Fmt) -> list[str]:
    """One line per AFTER finding the change introduced: "occupancy limited by a resource: new; AFTER: at most 1.55x
    this kernel", "uncoalesced global accesses: worse (58.7 M -> 73.4 M sectors); AFTER: est. 1.85x this kernel
    (BEFORE 2.19x)", then the launch configuration that changed ("registers/thread 117 -> 167; ..."); empty when
    the change introduced nothing. The work a slower AFTER does materially more of comes first ("global load
    requests 1.18 M -> 4.33 M (3.67x), on the load/store (LSU) pipe: its work 2.04x"). The launch configuration is
    part of it for a slower AFTER only; other pairs show it on a line of its own (:func:`launch_line`)."""
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
    if p.launch_changes and p.regressed:
        out.append(f.head(f.label("introduced_launch"), launch_changes_text(p.launch_changes, f)))
    return out


def removed_lines(p: KernelComparison, f: Fmt) -> list[str]:
    """One line per counter of work a faster AFTER does materially less of: "global load requests 4.33 M -> 1.18 M
    (0.27x; 4.85 -> 17.8 sectors per request), relieving the load/store (LSU) pipe: its work 0.81x"; empty when
    none."""
    return [grown_work_text(g, f, relieved=True) for g in p.removed_work]


def launch_line(p: KernelComparison, f: Fmt) -> str | None:
    """"Launch configuration: registers/thread 80 -> 95; ..." for a pair that is not slower and whose launch
    configuration changed (a slower one lists it with what the change introduced), else None."""
    if not p.launch_changes or p.regressed:
        return None
    return f.head(f.label("launch_title"), launch_changes_text(p.launch_changes, f))


def estimates_text(p: KernelComparison, f: Fmt, got: str) -> str:
    """BEFORE's estimates next to the measured speedup: "compute throughput near its peak (BEFORE's first advice: at
    most 1.44x), tail effect (partial last wave) (at most 1.06x); measured 1.41x", then those whose waste did not
    fall apart, as not what the change did: "...; not what the change did (the waste they size did not fall):
    shared-memory bank conflicts (1.31x; 33.6 M -> 33.6 M bank conflicts)" (not for a slower AFTER: no speedup to
    explain); an estimate of a part of its waste counter with that part. ``got``: the measured speedup, worded."""
    def item(e: BeforeEstimate) -> str:
        x = f.label("estimate_at_most", x=f.factor(e.estimated_speedup)) if e.estimate_kind == "upper_bound" \
            else f.factor(e.estimated_speedup)
        x = f.label("estimate_lead", x=x) if e.lead else x
        if (not e.explains and not p.regressed) or (e.measure and e.measure != findings()[e.finding_id].verify):
            x += f.semi + _sized(e, f)
        return titled(f.finding_title(e.finding_id), x, f)

    def explains(e: BeforeEstimate) -> bool:  # a slower AFTER: no speedup to explain, every estimate listed
        return e.explains or p.regressed

    shown = [item(e) for e in p.estimates if explains(e)]
    text = f.label("estimated_items", items=f.listing(shown) or f.label("estimated_none"), got=got)
    apart = [item(e) for e in p.estimates if not explains(e)]
    if apart:
        text += f.semi + f.label("estimated_not_explaining", items=f.listing(apart))
    return text


def titled(title: str, text: str, f: Fmt) -> str:
    """A finding's title with a figure of it: ``title (text)`` / ``title（text）``, after a colon where the title
    ends in a parenthesis of its own (never two pairs: ``tail effect (partial last wave): at most 1.06x``)."""
    return f.head(title, text) if title.endswith((")", "）")) else title + f.paren(text)


def _sized(e: BeforeEstimate, f: Fmt) -> str:
    """The part of its waste counter an estimate sizes, before -> after: "33.6 M -> 33.6 M bank conflicts"."""
    before, after = f.counts(e.before_value, e.after_value)
    return f.label(f"resolved_{findings()[e.finding_id].verify_unit}", before=before, after=after)


def sized_unchanged(p: KernelComparison, r: Resolution, f: Fmt) -> str | None:
    """For the resolved line of ``r``: "the part BEFORE's estimate sizes: 33.6 M -> 33.6 M bank conflicts,
    unchanged" when that estimate sizes a part of the counter the line shows and that part did not fall, else
    None."""
    for e in p.estimates:
        if e.finding_id == r.finding_id and e.estimated_speedup == r.estimated_speedup and not e.explains \
                and e.measure != findings()[r.finding_id].verify:
            return f.label("resolved_sized_part", measured=_sized(e, f), moved=f.label(f"waste_{e.waste}"))
    return None


def estimate_doc(e: BeforeEstimate) -> BeforeEstimateDoc:
    """The JSON document of one :class:`BeforeEstimate`."""
    return BeforeEstimateDoc(finding_id=e.finding_id, estimated_speedup=e.estimated_speedup,
                             estimate_kind=e.estimate_kind, lead=e.lead, measure=list(e.measure),  # type: ignore[arg-type]
                             before_value=finite(e.before_value), after_value=finite(e.after_value),
                             waste=e.waste, explains=e.explains)  # type: ignore[arg-type]


def _work_value(g: WorkGrowth, value: float, f: Fmt) -> str:
    """A counter of work in its unit: bytes as ``66.1 MiB``, a pipe's busy time as a duration, counts as
    :meth:`Fmt.count`."""
    if g.count_unit == "bytes":
        return data_size(value, 3)
    if g.count_unit == "seconds":
        return f.time(value)
    return f.count(value)


def grown_work_text(g: WorkGrowth, f: Fmt, relieved: bool = False) -> str:
    """"global load requests 1.18 M -> 4.33 M (3.67x), on the load/store (LSU) pipe: its work 2.04x": the counter
    before and after with its factor, and the unit it lands on (a pipe's own work: only its busy time); work that
    fell (``relieved``): the unit it relieved ("relieving the load/store (LSU) pipe: its work 0.81x")."""
    what = f.label("work_pipe", unit=f.unit(g.unit)) if g.key == "pipe" and g.unit else f.label(f"work_{g.key}")
    where = ""
    if g.key != "pipe":
        where = f.label("work_relieved_unit" if relieved else "work_on_unit", unit=f.unit(g.unit),
                        factor=f.factor(g.unit_ratio)) if g.unit \
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
    def pair(c: LaunchChange) -> list[str]:  # a percentage before and after in one precision (50.0% -> 41.7%)
        if c.field.endswith("_pct"):
            return f.pcts(c.before, c.after)  # type: ignore[arg-type]
        return [_launch_value(c.field, c.before, f), _launch_value(c.field, c.after, f)]
    return f.semi.join(f.label("introduced_change", field=f.label(f"launch_{c.field}"), before=b, after=a)
                       for c in changes for b, a in (pair(c),))


def _launch_value(name: str, value: object, f: Fmt) -> str:
    """One launch field's value worded in its unit: bytes as KiB or B, dimensions ``16x16x1``, % and limiters."""
    if value is None:
        return f.nm
    if name.endswith("_bytes"):
        n = int(value)  # type: ignore[call-overload]
        if n and n % 1024 == 0:
            return f"{n // 1024} KiB"
        return f"{n / 1024:.4g} KiB" if n >= 1024 else f"{n} B"  # 4.125 KiB, never 4224 B
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

"""What a compared pair's change introduced, rendered: the lines of the terminal and Markdown section (AFTER findings
BEFORE lacks or has less of, then the launch configuration that changed) and the JSON documents
(:mod:`kernelscope.analysis.introduced`)."""

from __future__ import annotations

from ..analysis.compare import KernelComparison
from ..analysis.introduced import Introduction, LaunchChange
from ..knowledge.findings import findings
from .common import Fmt
from .documents.compare import IntroductionDoc, LaunchChangeDoc
from .json import finite


def introduced_lines(p: KernelComparison, f: Fmt) -> list[str]:
    """One line per AFTER finding the change introduced: "occupancy limited by a resource: new; AFTER: at most 1.55x
    this kernel", "uncoalesced global accesses: worse (58.7 M -> 73.4 M sectors); AFTER: est. 1.85x this kernel
    (BEFORE 2.19x)", then the launch configuration that changed ("registers/thread 117 -> 167; ..."); empty when
    the change introduced nothing."""
    out = []
    for r in p.introduced:
        text = f.label("resolved_item", finding=f.finding_title(r.finding_id), status=f.label(f"status_{r.status}"))
        if r.measure:
            unit = findings()[r.finding_id].verify_unit
            text += f.paren(f.label(f"resolved_{unit}", before=f.count(r.before_value), after=f.count(r.after_value)))
        if r.estimated_speedup is not None:
            key = "est_kernel_bound" if r.estimate_kind == "upper_bound" else "est_kernel"
            estimate = f.label(key, x=r.estimated_speedup)
            if r.before_estimate is not None:
                estimate += f.paren(f.label("introduced_before_estimate", x=r.before_estimate))
            text += f.semi + f.label("introduced_estimate", estimate=estimate)
        out.append(text)
    if p.launch_changes:
        out.append(f.head(f.label("introduced_launch"), launch_changes_text(p.launch_changes, f)))
    return out


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
                           before_estimate=finite(r.before_estimate), bound=r.bound)


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

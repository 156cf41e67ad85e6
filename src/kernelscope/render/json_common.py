"""The JSON pieces every document shares (diagnoses, timelines, comparisons): finite numbers, notes, rule
findings; light, so that a timeline's document loads no diagnosis."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

from ..analysis.engine import Finding
from ..notes import Note
from .common import Fmt
from .documents.common import EvidenceDoc, FindingDoc, LocationDoc, NoteDoc

if TYPE_CHECKING:
    from ..analysis.diagnosis import KernelDiagnosis


def finite(value: float | None) -> float | None:
    """``value``, or None for a NaN or infinite float (JSON has no such numbers)."""
    return value if value is None or math.isfinite(value) else None


def notes(items: Iterable[Note | str], f: Fmt) -> list[NoteDoc]:
    """Notes as documents ``{key, text (in the output language), values}``; bare keys get empty values. A document
    is built once per distinct note (:attr:`.Note.memo`) and shared: launches repeat the same notes."""
    out = []
    built = f.note_docs
    for n in items:
        memo = n if isinstance(n, str) else n.memo
        doc = built.get(memo) if memo is not None else None
        if doc is None:
            key, values = (n, {}) if isinstance(n, str) else (n.key, dict(n.values))
            values = {k: finite(v) if isinstance(v, float) else v for k, v in values.items()}
            doc = NoteDoc(key=key, text=f.note(n), values=values)
            if memo is not None:
                built[memo] = doc
        out.append(doc)
    return out


def findings(items: Iterable[Finding], f: Fmt, d: KernelDiagnosis | None = None) -> list[FindingDoc]:
    """Rule findings as documents; with the launch's diagnosis ``d``, root causes get their title and program gain."""
    return [
        FindingDoc(
            id=x.id, severity=x.severity, message=notes((x.message,), f)[0],  # type: ignore[arg-type]
            evidence=[EvidenceDoc(metric=e.metric, value=finite(e.value), unit=e.unit) for e in x.evidence],
            bound=x.bound, advice=x.advice, estimated_speedup=x.estimated_speedup,  # type: ignore[arg-type]
            speedup_note=x.speedup_note, source=x.source, estimate_kind=x.estimate_kind,  # type: ignore[arg-type]
            marginal_speedup=x.marginal_speedup, kernel_time_saved_share=finite(x.saved_share),
            remedies=list(x.remedies),
            title=f.finding_title(x.id, x) if d is not None and (x.advice or "").startswith("finding:") else None,
            program_time_saved_share=None if d is None else finite(d.program_gain(x)),
            locations=[] if d is None else [
                LocationDoc(pc=loc.pc, offset=loc.offset, file=loc.file, line=loc.line or None, metric=loc.metric,
                            value=loc.value, share=loc.share) for loc in d.locations.get(x.id, ())],
        )
        for x in items
    ]

"""What a change resolved: each BEFORE finding of a compared pair followed into AFTER through its waste counter
(``data/findings.toml`` ``verify``), the "verify" step of measure -> locate -> change -> verify. Pure, no I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..knowledge.findings import findings as finding_texts
from .diagnosis import KernelDiagnosis


@dataclass(frozen=True)
class Resolution:
    """What became of one BEFORE finding in AFTER: the "verify" step, from the counters themselves.

    Attributes:
        finding_id: the BEFORE finding.
        status: ``"resolved"`` (its waste counter fell to at most :data:`RESOLVED_SHARE` of BEFORE's, or to 0),
            ``"reduced"`` (below :data:`UNCHANGED_BAND`), ``"unchanged"`` (within it), ``"worse"`` (above it, and
            where the finding's work is measured on both sides (``verify_per``), its waste per unit of work above it
            too), ``"with_work"`` (above it, but the waste per unit of work within it: it grew only with the work),
            ``"not_measured"`` (AFTER lacks the counter); for a finding without a waste counter ``"gone"`` (AFTER does
            not report it) or ``"still_reported"``.
        measure: the waste counter (``data/findings.toml`` ``verify``: signed terms), empty when none.
        before_value / after_value: the counter on each side (None: not measured or no counter).
        estimated_speedup / estimate_kind: the BEFORE finding's own estimate (a factor >= 1, ``"prediction"`` or
            ``"upper_bound"``), None when it has none.
        before_per_work / after_per_work: the waste per unit of the finding's work (``verify_per``), None when it
            names none or a side lacks it.
    """

    finding_id: str
    status: str
    measure: tuple[str, ...]
    before_value: float | None
    after_value: float | None
    estimated_speedup: float | None
    estimate_kind: str | None
    before_per_work: float | None = None
    after_per_work: float | None = None


#: A waste counter at or below this share of BEFORE's is resolved; within (1 -/+ UNCHANGED_BAND) it is unchanged.
#: Judgement: counters of one kernel re-profiled are reproducible to well under 10 % (corpus controls O7-O9).
RESOLVED_SHARE = 0.05
UNCHANGED_BAND = 0.10


def _waste(terms: tuple[str, ...], metrics) -> float | None:
    """The signed sum of ``terms`` (metric names, ``-name``, or numbers) over a launch's metrics; None when one is
    missing."""
    total = 0.0
    for term in terms:
        sign, name = (-1.0, term[1:]) if term.startswith("-") else (1.0, term)
        try:
            value = float(name)
        except ValueError:
            value = metrics.get(name)
            if value is None or not math.isfinite(value):
                return None
        total += sign * value
    return max(total, 0.0)


def waste_per_work(text, metrics) -> float | None:
    """A finding's waste counter (``verify``) per unit of its work (``verify_per``: signed terms, e.g. the ideal
    sectors of the same accesses), or None when the finding names no work, a side lacks a term, or the work is 0."""
    if text is None or not text.verify or not text.verify_per:
        return None
    waste, work = _waste(text.verify, metrics), _waste(text.verify_per, metrics)
    if waste is None or work is None or not work > 0:
        return None
    return waste / work


def resolutions(before: KernelDiagnosis, after: KernelDiagnosis) -> tuple[Resolution, ...]:
    """What became of each finding of the BEFORE launch in the AFTER launch (:class:`Resolution`): for a finding
    with a waste counter (``data/findings.toml`` ``verify``) from that counter on both sides, else from whether AFTER
    still reports it. Only root causes are followed: findings with an estimate, or with a waste counter; BEFORE's
    order."""
    texts = finding_texts()
    after_ids = {f.id for f in after.findings}
    out: list[Resolution] = []
    seen: set[str] = set()
    for f in before.findings:
        text = texts.get(f.id)
        terms = text.verify if text is not None else ()
        if f.id in seen or (not terms and f.estimated_speedup is None):
            continue
        seen.add(f.id)
        if not terms:
            status = "still_reported" if f.id in after_ids else "gone"
            out.append(Resolution(f.id, status, (), None, None, f.estimated_speedup, f.estimate_kind))
            continue
        vb, va = _waste(terms, before.kernel.metrics), _waste(terms, after.kernel.metrics)
        if va is None or vb is None:
            status = "not_measured"
        elif va <= RESOLVED_SHARE * vb or va == 0:
            status = "resolved"
        elif va < (1 - UNCHANGED_BAND) * vb:
            status = "reduced"
        elif va <= (1 + UNCHANGED_BAND) * vb:
            status = "unchanged"
        else:
            status = "worse"
        pb, pa = waste_per_work(text, before.kernel.metrics), waste_per_work(text, after.kernel.metrics)
        if status == "worse" and pb is not None and pa is not None and pa <= (1 + UNCHANGED_BAND) * pb:
            status = "with_work"  # the same waste per unit of work, more work: not a worse access pattern
        out.append(Resolution(f.id, status, terms, vb, va, f.estimated_speedup, f.estimate_kind, pb, pa))
    return tuple(out)

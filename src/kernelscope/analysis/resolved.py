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
            ``"reduced"`` (below :data:`UNCHANGED_BAND`), ``"unchanged"`` (within it), ``"worse"`` (above it),
            ``"not_measured"`` (AFTER lacks the counter); for a finding without a waste counter ``"gone"`` (AFTER does
            not report it) or ``"still_reported"``.
        measure: the waste counter (``data/findings.toml`` ``verify``: signed terms), empty when none.
        before_value / after_value: the counter on each side (None: not measured or no counter).
        estimated_speedup / estimate_kind: the BEFORE finding's own estimate (a factor >= 1, ``"prediction"`` or
            ``"upper_bound"``), None when it has none.
    """

    finding_id: str
    status: str
    measure: tuple[str, ...]
    before_value: float | None
    after_value: float | None
    estimated_speedup: float | None
    estimate_kind: str | None


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
        out.append(Resolution(f.id, status, terms, vb, va, f.estimated_speedup, f.estimate_kind))
    return tuple(out)

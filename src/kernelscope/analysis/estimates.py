"""BEFORE's own estimates of a compared pair, next to the measured speedup: every BEFORE finding with an estimate
(:func:`.compare.predicted_speedups`), led by the finding that leads BEFORE's "What to do" when it is sized (a
class paragraph's headroom: "nothing that keeps this work gains more than 1.44x"), and for a finding with a waste
counter whether the part of it the estimate sizes fell in AFTER: an estimate whose waste did not fall does not
explain the change. Pure, no I/O.

Units: estimates are factors >= 1 (kernel time before / after removing the cause); waste counters in the unit of
``data/findings.toml`` ``verify_unit``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..knowledge.findings import findings as finding_texts
from .diagnosis import KernelDiagnosis
from .engine import Finding, by_gain
from .resolved import UNCHANGED_BAND, _waste


@dataclass(frozen=True)
class BeforeEstimate:
    """One BEFORE estimate, and whether the waste it sizes moved.

    Attributes:
        finding_id: the BEFORE finding.
        estimated_speedup / estimate_kind: its estimate (a factor >= 1) and ``"prediction"`` or ``"upper_bound"``
            (a class paragraph's headroom is an upper bound).
        lead: the finding leads BEFORE's "What to do" (its first worthwhile advice).
        measure: the part of the finding's waste counter (``verify`` terms) its estimate sizes: the terms the
            finding's own evidence names (the shared loads of a load-conflict finding), else all of them; empty
            when the finding has no waste counter.
        before_value / after_value: that part on each side (None: not measured, or no counter).
        waste: ``"fell"`` (below :data:`.resolved.UNCHANGED_BAND` of BEFORE's), ``"unchanged"`` (within it),
            ``"grew"`` (above it), None (no counter, or a side lacks it: "not measured").
    """

    finding_id: str
    estimated_speedup: float
    estimate_kind: str | None
    lead: bool = False
    measure: tuple[str, ...] = ()
    before_value: float | None = None
    after_value: float | None = None
    waste: str | None = None

    @property
    def explains(self) -> bool:
        """Whether the estimate can stand for what the change did: False when the waste it sizes was measured on
        both sides and did not fall."""
        return self.waste not in ("unchanged", "grew")


def lead_estimate(d: KernelDiagnosis) -> tuple[Finding, float, str | None] | None:
    """The finding that leads a launch's "What to do" (:attr:`.diagnosis.KernelDiagnosis.worthwhile_advice`) with
    its estimate and kind: its own estimate, else the headroom its class paragraph states (``headroom``: 100 / the
    busiest unit's utilisation, an upper bound); None when it has neither."""
    shown = d.worthwhile_advice
    if not shown:
        return None
    first = shown[0]
    if first.estimated_speedup is not None:
        return first, first.estimated_speedup, first.estimate_kind
    headroom = first.message.values.get("headroom")
    if isinstance(headroom, (int, float)) and math.isfinite(headroom) and headroom > 1:
        return first, float(headroom), "upper_bound"
    return None


def sized_terms(finding: Finding, terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms of a waste counter (``verify``) that ``finding``'s estimate sizes: those its evidence names, when
    they are a part of a sum of counters (all added, not all of them); else all of ``terms``."""
    named = {e.metric for e in finding.evidence}
    part = tuple(t for t in terms if t in named)
    if part and len(part) < len(terms) and not any(t.startswith("-") for t in terms):
        return part
    return terms


def before_estimates(before: KernelDiagnosis, after: KernelDiagnosis) -> tuple[BeforeEstimate, ...]:
    """BEFORE's estimates (:class:`BeforeEstimate`): the lead of its "What to do" first (:func:`lead_estimate`),
    then every other finding with an estimate, largest first; one per finding id and sized part of its waste
    counter (:func:`sized_terms`: the load and the store conflicts of one finding id are two parts, each sized on
    its own), its largest estimate; each with that part on both sides."""
    texts = finding_texts()

    def sized(f: Finding) -> tuple[str, ...]:
        text = texts.get(f.id)
        return sized_terms(f, text.verify) if text is not None and text.verify else ()

    chosen: dict[tuple[str, tuple[str, ...]], tuple[float, str | None, bool]] = {}
    lead = lead_estimate(before)
    if lead is not None:
        chosen[(lead[0].id, sized(lead[0]))] = (lead[1], lead[2], True)
    for f in by_gain(before.findings):
        if f.estimated_speedup is not None:
            chosen.setdefault((f.id, sized(f)), (f.estimated_speedup, f.estimate_kind, False))
    out: list[BeforeEstimate] = []
    for (fid, terms), (x, kind, is_lead) in chosen.items():
        vb = _waste(terms, before.kernel.metrics) if terms else None
        va = _waste(terms, after.kernel.metrics) if terms else None
        out.append(BeforeEstimate(fid, x, kind, is_lead, terms, vb, va, _moved(vb, va)))
    return tuple(out)


def _moved(before: float | None, after: float | None) -> str | None:
    """``"fell"``, ``"unchanged"`` or ``"grew"`` by :data:`.resolved.UNCHANGED_BAND`; None when a side is None."""
    if before is None or after is None:
        return None
    if after < (1 - UNCHANGED_BAND) * before:
        return "fell"
    return "unchanged" if after <= (1 + UNCHANGED_BAND) * before else "grew"

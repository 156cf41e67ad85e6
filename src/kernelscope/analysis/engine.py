"""The rule engine: small rules, one per concern, each returning findings with their evidence.

In the style of Nsight Compute's rule files: a :class:`Rule` has a stable id, the rules it depends on
(``parents``: they run first and their findings are visible to it), the metrics it reads (``inputs``, Nsight
metric names: what a reader must collect for it, like Nsight's ``MetricRequest``) and an ``apply`` function.
:func:`run_rules` runs a set of rules over one context (a kernel launch, a program timeline) and returns every
:class:`Finding`. Kernel rules live in :mod:`.kernel_rules`, program-level checks in :mod:`.timeline`.

A finding carries what a renderer needs and nothing it must recompute: an id, a severity, the worded message
(a :class:`~kernelscope.notes.Note`, template + numbers, in any language), its evidence (values with the metric
they come from), the advice it points to, the bottleneck class it supports (if any) and an estimated speedup.
Advice is ordered by that estimate (:func:`by_gain`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, Callable, Generic, Iterable, Mapping, Sequence, TypeVar

from ..notes import Note, quick_init

C = TypeVar("C")

#: Severities, most important first: a bottleneck class, an optimisation opportunity, a warning about the data
#: or the measurement, plain information.
SEVERITIES: tuple[str, ...] = ("bound", "optimization", "warning", "info")


@quick_init
@dataclass(frozen=True)
class Evidence:
    """One measured value behind a finding.

    Attributes:
        metric: the Nsight metric name it was read from (``"dram__throughput.avg.pct_of_peak_sustained_elapsed"``),
            or a kernelscope quantity (``"waves_per_sm"``, ``"stall_share.long_scoreboard"``) when derived.
        value: the value, in ``unit``; None when not measured.
        unit: ``"%"`` (0-100), ``"s"``, ``"B"``, ``"share"`` (0-1), ``"ratio"``, ``""`` (a count).
    """

    metric: str
    value: float | None
    unit: str = ""


@quick_init
@dataclass(frozen=True)
class Finding:
    """What one rule concluded.

    Attributes:
        id: the rule's stable id (``"memory_throughput"``, ``"tail_effect"``, ``"sync_memcpy"``...).
        severity: one of :data:`SEVERITIES`.
        message: the finding worded by a template of ``labels.toml`` ``[note]`` with its numbers.
        evidence: the measured values that triggered it, with their metric names.
        bound: the bottleneck class this finding supports (``"memory-bound"`` ...), or None.
        advice: the advice id it points to (``"class:memory-bound"``, ``"stall:long_scoreboard"``), or None.
        estimated_speedup: how much faster the kernel (or program, for timeline checks) would be if the cause
            were removed, as a factor >= 1; None when not estimated (``speedup_note`` says why).
        speedup_note: how the estimate was made, or why there is none.
        source: where the threshold or the model comes from.
        estimate_kind: ``"prediction"`` (a definite change whose work the report counts) or ``"upper_bound"`` (an
            ideal: the most the change can give) for an estimated finding (:mod:`.performance`); None otherwise.
        change: the kernel finding's remedy in the performance model's terms (a :class:`.performance.Change`), or
            None (timeline checks, findings without a sized remedy).
        marginal_speedup: the finding's gain after the findings ranked above it are made (set by the diagnosis:
            :func:`.advice_order.rank_and_share`), a factor >= 1 no larger than ``estimated_speedup``; None when not
            set (then ``estimated_speedup`` stands alone).
        rank: the finding's place in its launch's advice order (0 first), set by the diagnosis; None when unranked.
        saved_share: the share (0-1) of its launch's measured time the finding saves after the findings ranked above
            it (set with ``marginal_speedup``); the saved shares of one launch add up to at most 1. None when not set.
        negligible: its gain is below ``min_worthwhile_speedup`` (set by the diagnosis): listed last.
        remedies: the remedies (``data/remedies.toml`` ids) whose preconditions hold for this launch, chosen by the
            rule: a class paragraph's sentences, or a root cause's ``{remedy}``; empty for none.
        low_rank: the rule's own counters show the finding is no root cause, only a note with its measured figures
            (predicated-off lanes in warps whose threads are all but all active): the diagnosis lists it after every
            other finding and marks it negligible (:func:`.advice_order.rank_and_share`, tier ``"note"``).
    """

    id: str
    severity: str
    message: Note
    evidence: tuple[Evidence, ...] = ()
    bound: str | None = None
    advice: str | None = None
    estimated_speedup: float | None = None
    speedup_note: str | None = None
    source: str = ""
    estimate_kind: str | None = None
    change: object = None
    marginal_speedup: float | None = None
    rank: int | None = None
    saved_share: float | None = None
    negligible: bool = False
    remedies: tuple[str, ...] = ()
    low_rank: bool = False

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {self.severity!r}")
        s = self.estimated_speedup
        if s is not None and not (math.isfinite(s) and s >= 1.0):
            raise ValueError(f"estimated_speedup must be a finite factor >= 1, got {s!r}")
        if self.estimate_kind not in (None, "prediction", "upper_bound"):
            raise ValueError(f"estimate_kind must be 'prediction', 'upper_bound' or None, got {self.estimate_kind!r}")
        g = self.marginal_speedup
        if g is not None and not (math.isfinite(g) and 1.0 <= g <= (s if s is not None else g) + 1e-9):
            raise ValueError(f"marginal_speedup must be a factor between 1 and estimated_speedup, got {g!r}")

    def but(self, **changes: Any) -> "Finding":
        """:func:`dataclasses.replace` of a finding, checked as a new one is (``__post_init__``), without replace's
        work per field (a report ranks tens of thousands of findings).

        Raises:
            TypeError: a name that is not a field; ValueError: see the class (a value it does not take).
        """
        unknown = changes.keys() - _FINDING_FIELDS
        if unknown:
            raise TypeError(f"Finding has no field {sorted(unknown)[0]!r}")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__, **changes)
        new.__post_init__()
        return new

    @property
    def gain(self) -> float | None:
        """The speedup this finding is credited with where findings are listed together: its marginal gain after
        the ones ranked above it when the diagnosis set one, else its own estimate; None when not estimated."""
        return self.marginal_speedup if self.marginal_speedup is not None else self.estimated_speedup


_FINDING_FIELDS = frozenset(f.name for f in fields(Finding))

#: What a rule's apply function gets besides the context: the findings of the rules that ran before it, by id.
Done = Mapping[str, tuple[Finding, ...]]


@dataclass(frozen=True)
class Rule(Generic[C]):
    """One rule.

    Attributes:
        id: stable id; its findings carry it.
        apply: ``(context, done) -> Finding | Iterable[Finding] | None``; ``done`` maps the id of every rule that
            already ran (its parents among them) to its findings.
        parents: ids of rules that must run first.
        inputs: the Nsight metric names the rule reads (documentation and the readers' request list).
        doc: one line on what it checks.
    """

    id: str
    apply: Callable[[C, Done], "Finding | Iterable[Finding] | None"]
    parents: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    doc: str = ""


@cache
def order(rules: tuple[Rule[C], ...]) -> tuple[Rule[C], ...]:
    """The rules with every parent before its children, otherwise in the given order (computed once per set).

    Raises:
        ValueError: a duplicate id, a parent that is not among the rules, or a dependency cycle.
    """
    by_id: dict[str, Rule[C]] = {}
    for rule in rules:
        if rule.id in by_id:
            raise ValueError(f"duplicate rule id {rule.id!r}")
        by_id[rule.id] = rule
    out: list[Rule[C]] = []
    state: dict[str, int] = {}  # 1 = visiting, 2 = placed

    def place(rule: Rule[C], path: tuple[str, ...]) -> None:
        if state.get(rule.id) == 2:
            return
        if state.get(rule.id) == 1:
            raise ValueError(f"rule dependency cycle: {' -> '.join(path + (rule.id,))}")
        state[rule.id] = 1
        for parent in rule.parents:
            if parent not in by_id:
                raise ValueError(f"rule {rule.id!r} depends on unknown rule {parent!r}")
            place(by_id[parent], path + (rule.id,))
        state[rule.id] = 2
        out.append(rule)

    for rule in rules:
        place(rule, ())
    return tuple(out)


#: The rule set :func:`run_rules` ran last and its (id, apply) pairs in order: a report runs the same set (one tuple)
#: for every launch.
_LAST_ORDER: list = []


def run_rules(rules: Sequence[Rule[C]], context: C,
              admit: Callable[[Finding], Finding | None] | None = None) -> tuple[Finding, ...]:
    """Run ``rules`` over one ``context`` (parents first) and return every finding, in rule order.

    ``admit`` (optional) sees each finding as its rule returns it and gives it back, changed (e.g. without its
    advice), or None to drop it: a finding whose preconditions do not hold for the kernel. Later rules see only what
    it admitted.

    Raises:
        ValueError: see :func:`order`; a rule returning something that is not a Finding.
    """
    done: dict[str, tuple[Finding, ...]] = {}
    out: list[Finding] = []
    rules = tuple(rules)
    last = _LAST_ORDER
    if last and last[0] is rules:  # (hashing 30 rules per launch adds up)
        plan = last[1]
    else:
        plan = tuple((rule.id, rule.apply) for rule in order(rules))
        _LAST_ORDER[:] = [rules, plan]
    for rule_id, apply in plan:
        result = apply(context, done)
        if result is None:  # (most rules find nothing for most launches)
            done[rule_id] = ()
            continue
        found = (result,) if isinstance(result, Finding) else tuple(result)
        for f in found:
            if not isinstance(f, Finding):
                raise ValueError(f"rule {rule_id!r} returned {type(f).__name__}, expected Finding")
        if admit is not None:
            found = tuple(a for f in found if (a := admit(f)) is not None)
        done[rule_id] = found
        out.extend(found)
    return tuple(out)


def by_gain(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Findings ordered by estimated speedup, largest first; those without an estimate keep their order after
    the estimated ones (a stable sort)."""
    return tuple(sorted(findings, key=lambda f: -(f.estimated_speedup or 0.0)))


def requested_metrics(rules: Iterable[Rule]) -> tuple[str, ...]:
    """Every metric name the rules declare as inputs, each once, in first-seen order."""
    return tuple(dict.fromkeys(name for rule in rules for name in rule.inputs))

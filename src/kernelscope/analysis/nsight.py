"""Nsight Compute's own findings beside kernelscope's: which causes both saw, and where they disagree.

A ``.ncu-rep`` stores the results of Nsight Compute's rules (``KernelProfile.rules``); an OPTIMIZATION or WARNING
result means the rule saw a problem. ``data/findings.toml`` names, for each kernelscope finding, the Nsight rules
that report the same cause (``nsight_rules``). Matching the two gives, per launch, each fired Nsight rule with the
kernelscope findings of the same cause (agreement), the fired rules kernelscope has no finding for, the rules
kernelscope has no counterpart of at all, and kernelscope findings whose Nsight rule ran but did not fire.

The Speed-of-Light verdict (``SOLBottleneck``) is compared on its own (``KernelDiagnosis.ncu_bottleneck``) and is
left out here. Pure functions; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal

from ..knowledge.findings import by_nsight_rule, findings
from ..model import RuleResult
from ..notes import quick_init
from .engine import Finding

__all__ = ["AGREE", "KERNELSCOPE_ONLY", "NO_COUNTERPART", "NSIGHT_ONLY", "NsightMatch", "match_nsight"]

#: Both name the cause.
AGREE = "agree"
#: Nsight's rule fired; kernelscope has findings for that cause, but none fired.
NSIGHT_ONLY = "nsight_only"
#: Nsight's rule fired; kernelscope has no finding for that kind of cause.
NO_COUNTERPART = "no_counterpart"
#: A kernelscope finding fired; the Nsight rule for the same cause ran and did not fire.
KERNELSCOPE_ONLY = "kernelscope_only"

Status = Literal["agree", "nsight_only", "no_counterpart", "kernelscope_only"]
#: Nsight message types that report a problem.
FIRED = ("OPTIMIZATION", "WARNING")
#: Compared elsewhere (the Speed-of-Light class).
SKIPPED = ("SOLBottleneck",)


@quick_init
@dataclass(frozen=True)
class NsightMatch:
    """One Nsight Compute rule set against kernelscope's findings for the same launch.

    Attributes:
        rule_id: the Nsight rule id (``"UncoalescedGlobalAccess"``).
        title: the rule result's title as Nsight shows it ('' when the rule did not fire and only ran).
        status: :data:`AGREE`, :data:`NSIGHT_ONLY`, :data:`NO_COUNTERPART` or :data:`KERNELSCOPE_ONLY`.
        nsight_speedup_pct: Nsight's estimated speedup, percent (0-100) of the runtime it expects to save, as stored;
            None when the rule gives none or did not fire.
        speedup_type: ``"local"`` / ``"global"`` as stored, or None.
        findings: the kernelscope finding ids of the same cause that fired (empty for ``nsight_only``).
    """

    rule_id: str
    title: str
    status: Status
    nsight_speedup_pct: float | None
    speedup_type: str | None
    findings: tuple[str, ...]


def match_nsight(rules: Iterable[RuleResult], ours: Iterable[Finding]) -> tuple[NsightMatch, ...]:
    """Nsight's rule results of one launch against kernelscope's findings for it.

    Args:
        rules: the launch's stored Nsight rule results (empty when the report stores none: nothing is compared).
        ours: kernelscope's findings for the same launch.

    Returns:
        One match per fired Nsight rule with an id (report order, ``SOLBottleneck`` excluded), then one per kernelscope finding
        whose Nsight rules all ran without firing; disagreements are the ``nsight_only`` and ``kernelscope_only``
        entries.
    """
    rules = [r for r in rules if r.rule_id and r.rule_id not in SKIPPED]  # (no id: an old console page names no
    # rule, and a message without its rule matches nothing: never listed as an empty name)
    if not rules:  # nothing stored: nothing fired, and no finding of ours has Nsight rules that all ran
        return ()
    fired_ids = {f.id for f in ours if f.severity != "info"}
    mapping = by_nsight_rule()
    out: list[NsightMatch] = []
    seen: set[str] = set()
    for r in rules:
        if r.message_type not in FIRED or r.rule_id in seen:
            continue
        seen.add(r.rule_id)
        ids = mapping.get(r.rule_id, ())
        same = tuple(i for i in ids if i in fired_ids)
        status: Status = AGREE if same else (NSIGHT_ONLY if ids else NO_COUNTERPART)
        out.append(NsightMatch(r.rule_id, r.title, status, r.estimated_speedup_pct, r.speedup_type, same))
    ran = {r.rule_id for r in rules}
    texts = findings()
    for fid in sorted(fired_ids):
        text = texts.get(fid)
        if text is None or not text.nsight_rules:
            continue
        if all(rule in ran and rule not in seen for rule in text.nsight_rules):
            out.append(NsightMatch(text.nsight_rules[0], "", KERNELSCOPE_ONLY, None, None, (fid,)))
    return tuple(out)

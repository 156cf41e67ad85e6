"""The stall breakdown of one kernel: ranked shares of stall cycles per reason, ``selected`` kept apart.

Pure functions over immutable data. The taxonomy (names, meaning, advice) is
:mod:`kernelscope.knowledge.stalls`; the readers resolve stall metric names into
``KernelProfile.stall_values`` / ``stall_family`` (:mod:`kernelscope.ingest.stall_metrics`).

Units. Nsight Compute's Warp State Statistics give, per reason ``r``,
``smsp__average_warps_issue_stalled_<r>_per_issue_active.ratio``: the average number of **cycles** a warp
spends in state ``r`` per issued instruction. Summed over all reasons (``selected`` included) they equal
"Warp Cycles Per Issued Instruction" (``smsp__average_warp_latency_per_inst_issued.ratio``). They are not
percentages and are never divided by 100; a share is value / sum of values.
Source: Nsight Compute Kernel Profiling Guide, "Warp State Statistics" and "Warp Stall Reasons"
(https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html); NVIDIA Developer Forums,
"Why is stall reason metric calculated based on issue active cycles in the Warp State Statistics?"
(https://forums.developer.nvidia.com/t/why-is-stall-reason-metric-calculated-based-on-issue-active-cycles-in-the-warp-state-statistics/259048).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from ..errors import InputError
from ..notes import Listed, quick_init
from ..knowledge.stalls import SELECTED, lookup, norm
from ..model import GIVEN_PERCENT, STALL_FAMILIES

#: Sum of per_issue_active ratios vs CPI: relative difference still called consistent.
CPI_TOLERANCE = 0.01


@quick_init
@dataclass(frozen=True)
class StallShare:
    """One stall reason's part of a breakdown.

    Attributes:
        reason: canonical id (or the raw spelling of a reason unknown to ``stalls.toml``).
        value: in the family's unit (per_issue_active: cycles per issued instruction; pc_sampling and
            warp_id_sampling: samples).
        share: value / :attr:`StallBreakdown.total` — fraction 0..1 of ALL warp cycles, ``selected`` included
            (this is Nsight's "x % of the total average of CPI cycles between issuing two instructions").
        share_of_stalls: value / :attr:`StallBreakdown.stall_total` — fraction 0..1 of stall cycles only,
            ``selected`` excluded.
    """

    reason: str
    value: float
    share: float
    share_of_stalls: float


@quick_init
@dataclass(frozen=True)
class StallBreakdown:
    """Ranked stall reasons of one kernel; ``selected`` (issuing, not stalling) is kept apart.

    Attributes:
        family: metric family of the values (see :data:`kernelscope.model.STALL_FAMILIES`), or None if unknown.
        shares: every reason except ``selected``, by value descending (ties by id).
        selected_value: the ``selected`` value, or None when absent.
        total: sum of all values, ``selected`` included (per_issue_active: should equal CPI).
        stall_total: sum of all values except ``selected``.
        cycles_per_issued_instruction: CPI given by the caller (cycles), or None.
        cpi_consistency: total / CPI for the per_issue_active family when both are known and CPI > 0, else
            None. Recorded, never enforced; 1.0 ± :data:`CPI_TOLERANCE` is consistent.
    """

    family: str | None
    shares: tuple[StallShare, ...]
    selected_value: float | None
    total: float
    stall_total: float
    cycles_per_issued_instruction: float | None = None
    cpi_consistency: float | None = None

    @property
    def cpi_consistent(self) -> bool | None:
        """True if the sum matches CPI within :data:`CPI_TOLERANCE`, None when not checkable."""
        if self.cpi_consistency is None:
            return None
        return abs(self.cpi_consistency - 1.0) <= CPI_TOLERANCE


def stall_breakdown(
    stall_values: Mapping[str, float],
    family: str | None,
    cycles_per_issued_instruction: float | None = None,
) -> StallBreakdown:
    """Normalise stall values into ranked shares, with ``selected`` shown apart.

    Args:
        stall_values: reason (canonical id, alias or display name; unknown spellings kept as-is) -> value
            in the family's unit. Per_issue_active values are cycles per issued instruction, not percent.
        family: one of :data:`kernelscope.model.STALL_FAMILIES`, :data:`GIVEN_PERCENT` (denominators max(sum, 100)) or None.
        cycles_per_issued_instruction: ``smsp__average_warp_latency_per_inst_issued.ratio`` in cycles, or None.

    Returns:
        A :class:`StallBreakdown`; empty input gives one with no shares and total 0 (shares of a zero
        total are 0.0).

    Raises:
        InputError: ``("stall_values", ...)`` for a negative or non-finite value or two keys naming one
            reason; ``("stall family", ...)`` for an unknown family.
    """
    if family is not None and family not in STALL_FAMILIES + (GIVEN_PERCENT,):
        raise InputError("stall family", key="unknown_stall_family",
            values={"family": family, "stall_families": Listed(STALL_FAMILIES + (GIVEN_PERCENT,))})
    values: dict[str, float] = {}
    for key, raw in stall_values.items():
        value = float(raw)
        if not math.isfinite(value) or value < 0:
            raise InputError("stall_values", key="stall_value_bad", values={"key": key, "raw": raw})
        reason = lookup().get(norm(key), key)
        if reason in values:
            raise InputError("stall_values", key="stall_reason_twice", values={"key": key, "reason": reason})
        values[reason] = value
    selected = values.pop(SELECTED, None)
    stall_total = sum(values.values())
    total = stall_total + (selected or 0.0)
    if family == GIVEN_PERCENT:  # percentages: what the user did not attribute stays unattributed
        stall_total, total = max(stall_total, 100.0), max(total, 100.0)
    shares = tuple(
        StallShare(
            reason=reason,
            value=value,
            share=value / total if total > 0 else 0.0,
            share_of_stalls=value / stall_total if stall_total > 0 else 0.0,
        )
        for reason, value in sorted(values.items(), key=lambda item: (-item[1], item[0]))
    )
    cpi = cycles_per_issued_instruction
    consistency = None
    if family == "per_issue_active" and cpi is not None and math.isfinite(cpi) and cpi > 0 and stall_values:
        consistency = total / cpi
    return StallBreakdown(
        family=family,
        shares=shares,
        selected_value=selected,
        total=total,
        stall_total=stall_total,
        cycles_per_issued_instruction=cpi,
        cpi_consistency=consistency,
    )


def top_stalls(breakdown: StallBreakdown, n: int = 3, min_share: float = 0.0) -> tuple[StallShare, ...]:
    """The ``n`` largest stall shares with value > 0 and ``share_of_stalls >= min_share`` (0..1).

    Raises:
        ValueError: if ``n`` is negative.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return tuple(s for s in breakdown.shares if s.value > 0 and s.share_of_stalls >= min_share)[:n]

"""Warp-stall reasons: the taxonomy (``data/stalls.toml``) and the stall breakdown of one kernel.

Pure functions over immutable data; the only I/O is reading the packaged TOML once.

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
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping

from kernelscope.errors import InputError

#: Metric families, in order of preference, with the regular expression that extracts ``<r>``.
#: ``pc_sampling_not_issued`` (``..._not_issued``: only samples where the warp did not issue, so its
#: ``selected`` is always 0 in the corpus) is recognised but never chosen; ``pc_sampling`` counts every sample.
#: ``warp_latency`` does not occur in the corpus reports; its spelling is the one Nsight's metric list uses.
FAMILY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("per_issue_active", re.compile(r"^smsp__average_warps_issue_stalled_([a-z0-9_]+?)_per_issue_active\.ratio$")),
    ("pc_sampling_not_issued", re.compile(r"^smsp__pcsamp_warps_issue_stalled_([a-z0-9_]+?)_not_issued$")),
    ("pc_sampling", re.compile(r"^smsp__pcsamp_warps_issue_stalled_([a-z0-9_]+)$")),
    ("warp_latency", re.compile(r"^smsp__average_warp_latency_issue_stalled_([a-z0-9_]+?)(?:\.ratio)?$")),
)
#: Families :func:`stall_values_from_metrics` may return, best first.
FAMILIES: tuple[str, ...] = ("per_issue_active", "pc_sampling", "warp_latency")
#: Percentages typed in by a user (plain-numbers input, the lesson API): shares of stall cycles that may
#: leave a remainder unattributed, so the denominator is max(sum, 100).
GIVEN_PERCENT = "given_percent"
#: Sum of per_issue_active ratios vs CPI: relative difference still called consistent.
CPI_TOLERANCE = 0.01
SELECTED = "selected"


@dataclass(frozen=True)
class StallReason:
    """One canonical warp-stall reason (a ``[[reason]]`` of ``data/stalls.toml``).

    Attributes:
        id: canonical id, e.g. ``"long_scoreboard"`` (the ``<r>`` of the per_issue_active metric).
        display_name / display_name_zh: label as Nsight Compute shows it / in Chinese.
        aliases: other spellings (other metric families, Source-page columns without ``stall_``).
        category: ``memory``, ``sync``, ``execution``, ``instruction``, ``issue`` or ``other``.
        healthy: True when a large value usually means useful work (``selected``, ``not_selected``,
            ``math_pipe_throttle``); ``healthy_why_en/zh`` say why.
        hardware_en / hardware_zh: what happens in the hardware.
        advice_en / advice_zh: what to change in the kernel.
        source_document / source_url: where the meaning comes from.
    """

    id: str
    display_name: str
    display_name_zh: str
    aliases: tuple[str, ...]
    category: str
    healthy: bool
    hardware_en: str
    hardware_zh: str
    advice_en: str
    advice_zh: str
    source_document: str
    source_url: str
    healthy_why_en: str = ""
    healthy_why_zh: str = ""

    def text(self, field: str, lang: str) -> str:
        """``field`` (``"display_name"``, ``"hardware"``, ``"advice"``, ``"healthy_why"``) in ``"en"``/``"zh"``.

        Raises:
            ValueError: for another language or field.
        """
        if lang not in ("en", "zh") or field not in ("display_name", "hardware", "advice", "healthy_why"):
            raise ValueError(f"unknown stall text {field!r} / language {lang!r}")
        if field == "display_name":
            return self.display_name if lang == "en" else self.display_name_zh
        return getattr(self, f"{field}_{lang}")


def _norm(name: str) -> str:
    """Lower case, spaces/hyphens -> ``_``, without a leading ``stall``/``stall_`` or trailing ``(Not Issued)``."""
    key = re.sub(r"\s*\(not issued\)\s*$", "", name.strip().lower())
    key = re.sub(r"[\s\-]+", "_", key)
    return re.sub(r"^stall_", "", key)


@cache
def reasons() -> Mapping[str, StallReason]:
    """Every canonical stall reason by id, in the order of ``data/stalls.toml`` (read once).

    Raises:
        FileNotFoundError / tomllib.TOMLDecodeError / KeyError: the packaged data file is missing or
            malformed (a packaging bug, not user input).
    """
    text = resources.files("kernelscope").joinpath("data", "stalls.toml").read_text(encoding="utf-8")
    table: dict[str, StallReason] = {}
    for entry in tomllib.loads(text)["reason"]:
        entry = dict(entry)
        source = entry.pop("source")
        entry["aliases"] = tuple(entry["aliases"])
        reason = StallReason(source_document=source["document"], source_url=source["url"], **entry)
        if reason.id in table:
            raise KeyError(f"stalls.toml: duplicate reason id {reason.id!r}")
        table[reason.id] = reason
    return MappingProxyType(table)


@cache
def _lookup() -> Mapping[str, str]:
    """Normalised spelling -> canonical id (ids, display names in both languages, aliases)."""
    table: dict[str, str] = {}
    for reason in reasons().values():
        for spelling in (reason.id, reason.display_name, reason.display_name_zh, *reason.aliases):
            key = _norm(spelling)
            if table.setdefault(key, reason.id) != reason.id:
                raise KeyError(f"stalls.toml: spelling {spelling!r} names both {table[key]!r} and {reason.id!r}")
    return MappingProxyType(table)


def describe(reason_id: str) -> StallReason:
    """The :class:`StallReason` for a breakdown key: ``reasons()[reason_id]``, or for a spelling that
    ``stalls.toml`` does not know (kept by :func:`stall_values_from_metrics`) a placeholder named after it,
    category ``"other"``, not healthy, saying it is not in the taxonomy. Never raises."""
    known = reasons().get(reason_id)
    if known is not None:
        return known
    return StallReason(
        id=reason_id, display_name=reason_id, display_name_zh=reason_id, aliases=(), category="other",
        healthy=False,
        hardware_en=f"Stall reason '{reason_id}' is not in kernelscope's taxonomy (a newer Nsight Compute?).",
        hardware_zh=f"停顿原因“{reason_id}”不在 kernelscope 的分类表中（可能来自更新版本的 Nsight Compute）。",
        advice_en="See the Warp Stall Reasons table of the Nsight Compute Kernel Profiling Guide for this reason.",
        advice_zh="请查阅 Nsight Compute Kernel Profiling Guide 中的 Warp Stall Reasons 表了解该原因。",
        source_document="NVIDIA Nsight Compute Kernel Profiling Guide, Warp Stall Reasons",
        source_url="https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html",
    )


def canonical_reason(name: str) -> str:
    """Canonical id of a stall reason given by id, alias or display name.

    Accepts e.g. ``"long_scoreboard"``, ``"Long Scoreboard"``, ``"Stall Long Scoreboard"``, ``"stall_long_sb"``,
    ``"no_instructions"``, ``"warpgroup_arrive"``, ``"MIO Throttle (Not Issued)"``; case-insensitive.

    Raises:
        InputError: ``("stall reason", "unknown stall reason 'x'; expected one of ...")`` for anything else.
    """
    reason_id = _lookup().get(_norm(name))
    if reason_id is None:
        raise InputError("stall reason", f"unknown stall reason {name!r}; expected one of {', '.join(reasons())}")
    return reason_id


def stall_metric(name: str) -> tuple[str, str, str | None] | None:
    """Classify one Nsight metric name as a stall metric.

    Returns:
        ``(family, spelling, canonical id or None when the spelling is unknown)`` for a stall metric of a
        family in :data:`FAMILY_PATTERNS`, e.g. ``("pc_sampling", "no_instructions", "no_instruction")``;
        None for any other metric (including ``group:...`` entries).
    """
    for family, pattern in FAMILY_PATTERNS:
        match = pattern.match(name)
        if match:
            spelling = match.group(1)
            return family, spelling, _lookup().get(_norm(spelling))
    return None


def stall_values_from_metrics(metrics: Mapping[str, float]) -> tuple[str | None, dict[str, float]]:
    """Pick ONE stall metric family from all of a launch's metrics and return its values by reason.

    Families, best first (:data:`FAMILIES`):
      ``per_issue_active``  ``smsp__average_warps_issue_stalled_<r>_per_issue_active.ratio`` — cycles per issued
                            instruction (sum over reasons = CPI);
      ``pc_sampling``       ``smsp__pcsamp_warps_issue_stalled_<r>`` — PC-sampling sample counts (the
                            ``..._not_issued`` variants are ignored);
      ``warp_latency``      ``smsp__average_warp_latency_issue_stalled_<r>[.ratio]`` — warp cycles
                            (last resort; absent from every corpus report).
    The first family with at least one finite value wins; NaN (and infinite) values are ignored.

    Args:
        metrics: metric name -> value, in Nsight's units.

    Returns:
        ``(family, {canonical id: value})``, or ``(None, {})`` when no family has a value. A ``<r>`` that
        is not in ``stalls.toml`` is kept under its own spelling (so sums still match CPI): look keys up with :func:`describe`,
        not ``reasons()[key]``, and use :func:`stall_metric` to report such names. If two spellings of one reason appear in the same
        family, the first in sorted metric-name order is kept.
    """
    for wanted in FAMILIES:
        values: dict[str, float] = {}
        for name in sorted(metrics):
            parsed = stall_metric(name)
            if parsed is None or parsed[0] != wanted:
                continue
            value = float(metrics[name])
            if not math.isfinite(value):
                continue
            values.setdefault(parsed[2] or parsed[1], value)
        if values:
            return wanted, values
    return None, {}


@dataclass(frozen=True)
class StallShare:
    """One stall reason's part of a breakdown.

    Attributes:
        reason: canonical id (or the raw spelling of a reason unknown to ``stalls.toml``).
        value: in the family's unit (per_issue_active: cycles per issued instruction; pc_sampling: samples).
        share: value / :attr:`StallBreakdown.total` — fraction 0..1 of ALL warp cycles, ``selected`` included
            (this is Nsight's "x % of the total average of CPI cycles between issuing two instructions").
        share_of_stalls: value / :attr:`StallBreakdown.stall_total` — fraction 0..1 of stall cycles only,
            ``selected`` excluded.
    """

    reason: str
    value: float
    share: float
    share_of_stalls: float


@dataclass(frozen=True)
class StallBreakdown:
    """Ranked stall reasons of one kernel; ``selected`` (issuing, not stalling) is kept apart.

    Attributes:
        family: metric family of the values (see :data:`FAMILIES`), or None if unknown.
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
        family: one of :data:`FAMILIES`, :data:`GIVEN_PERCENT` (denominators max(sum, 100)) or None.
        cycles_per_issued_instruction: ``smsp__average_warp_latency_per_inst_issued.ratio`` in cycles, or None.

    Returns:
        A :class:`StallBreakdown`; empty input gives one with no shares and total 0 (shares of a zero
        total are 0.0).

    Raises:
        InputError: ``("stall_values", ...)`` for a negative or non-finite value or two keys naming one
            reason; ``("stall family", ...)`` for an unknown family.
    """
    if family is not None and family not in FAMILIES + (GIVEN_PERCENT,):
        raise InputError("stall family", f"unknown stall family {family!r}; expected one of {', '.join(FAMILIES + (GIVEN_PERCENT,))}")
    values: dict[str, float] = {}
    for key, raw in stall_values.items():
        value = float(raw)
        if not math.isfinite(value) or value < 0:
            raise InputError("stall_values", f"value of {key!r} must be a finite number >= 0, got {raw!r}")
        reason = _lookup().get(_norm(key), key)
        if reason in values:
            raise InputError("stall_values", f"{key!r} names reason {reason!r} twice")
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

"""Warp-stall metrics by Nsight Compute name -> one stall family of values per canonical reason.

The readers resolve the metric names here, so the analysis gets ``KernelProfile.stall_values`` keyed by
canonical reason (``data/stalls.toml``) and ``stall_family`` naming the unit. Families and their name
patterns are data (``data/metrics.toml`` ``[[stall_family]]``).

Units. Nsight Compute's Warp State Statistics give, per reason ``r``,
``smsp__average_warps_issue_stalled_<r>_per_issue_active.ratio``: the average number of **cycles** a warp
spends in state ``r`` per issued instruction (summed over every reason, ``selected`` included, they equal
``smsp__average_warp_latency_per_inst_issued.ratio``). PC sampling and warp-ID sampling give sample counts. None is a
percentage. Source: Nsight Compute Kernel Profiling Guide, "Warp State Statistics" and "Warp Stall Reasons".
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping

from ..knowledge.metrics import stall_families
from ..knowledge.stalls import lookup, norm


@lru_cache(maxsize=4096)
def stall_metric(name: str) -> tuple[str, str, str | None] | None:
    """Classify one Nsight metric name as a stall metric.

    Returns:
        ``(family, spelling, canonical id or None when the spelling is unknown)`` for a stall metric of a
        family of ``data/metrics.toml``, e.g. ``("pc_sampling", "no_instructions", "no_instruction")``;
        None for any other metric (including ``group:...`` entries).
    """
    for family in stall_families():
        match = family.regex.match(name)
        if match:
            spelling = match.group(1)
            return family.name, spelling, lookup().get(norm(spelling))
    return None


def stall_values_from_metrics(metrics: Mapping[str, float]) -> tuple[str | None, dict[str, float]]:
    """Pick ONE stall metric family from a launch's metrics and return its values by reason.

    Families, best first (``data/metrics.toml``): ``per_issue_active`` (cycles per issued instruction, sum
    over reasons = CPI), ``pc_sampling`` (PC sampling, sample counts), ``warp_id_sampling`` (warp-ID sampling,
    sample counts), ``warp_latency`` (warp cycles; last resort, absent from every corpus report); the
    ``..._not_issued`` variants of both sampling families are recognised but never chosen. The first family
    with at least one finite value wins; NaN (and infinite) values are ignored.

    Args:
        metrics: metric name -> value, in Nsight's units.

    Returns:
        ``(family, {canonical id: value})``, or ``(None, {})`` when no family has a value. A ``<r>`` that is
        not in ``stalls.toml`` is kept under its own spelling (so sums still match CPI); if two spellings of
        one reason appear in the same family, the first in sorted metric-name order is kept.
    """
    parsed = _stall_metrics(tuple(metrics))
    for family in stall_families():
        if not family.chosen:
            continue
        values: dict[str, float] = {}
        for name, (fam, spelling, reason) in parsed:
            value = float(metrics[name])
            if fam == family.name and math.isfinite(value):
                values.setdefault(reason or spelling, value)
        if values:
            return family.name, values
    return None, {}


@lru_cache(maxsize=1024)
def _stall_metrics(names: tuple[str, ...]) -> tuple[tuple[str, tuple[str, str, str | None]], ...]:
    """The stall metrics among ``names`` with their :func:`stall_metric`, in sorted name order: the same for every
    launch of a kernel, so worked out once per list of names, not per launch."""
    return tuple((name, p) for name in sorted(names) if "stall" in name and (p := stall_metric(name)) is not None)

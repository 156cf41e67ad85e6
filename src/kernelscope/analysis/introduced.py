"""What a change introduced: the root-cause findings of a compared pair's AFTER launch that BEFORE does not report (or
reports materially less), and the launch-configuration fields that changed with them (registers/thread, shared
memory/block, block, grid, occupancy and its limiter). The mirror of :mod:`.resolved`: a regression is explained by
what it added, not only by what it removed. Pure, no I/O; only what the two profiles record (a field one side lacks
is None there, "not measured", never inferred).

Units: registers per thread (count), shared memory in bytes, block and grid as (x, y, z) dimensions, occupancy in %
(0-100), blocks per SM (count) from Nsight Compute's own ``launch__occupancy_limit_*`` metrics (the smallest limit;
the occupancy limiters are the resources whose limit equals it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from ..knowledge.criteria import criteria
from ..knowledge.findings import findings as finding_texts
from .diagnosis import KernelDiagnosis
from .resolved import UNCHANGED_BAND, _waste

#: Achieved occupancy (percentage points) that must move before it counts as changed: the launch-to-launch drift of a
#: re-profiled kernel is a few points (the same threshold as the ``cmp_occupancy`` note of :mod:`.compare`).
ACHIEVED_OCCUPANCY_POINTS = 5.0

#: A finding without a waste counter is introduced when the share of its launch's time the model gives it grew by at
#: least this much (a fraction, 0.01 = 1 % of the kernel time) and beyond :data:`.resolved.UNCHANGED_BAND`: smaller
#: moves are the model's own rounding.
MIN_GAIN_GROWTH = 0.01

#: The resources of Nsight Compute's ``launch__occupancy_limit_<resource>`` metrics (blocks per SM each allows).
LIMIT_RESOURCES = ("warps", "registers", "shared_mem", "blocks", "barriers")


@dataclass(frozen=True)
class Introduction:
    """One root-cause finding of AFTER that BEFORE lacks or has less of.

    Attributes:
        finding_id: the AFTER finding.
        status: ``"new"`` (BEFORE does not report it) or ``"worse"`` (BEFORE reports it, less): see
            :func:`introductions`.
        measure: the waste counter (``data/findings.toml`` ``verify``: signed terms), empty when none.
        before_value / after_value: the counter on each side (None: not measured, or no counter).
        estimated_speedup / estimate_kind: the AFTER finding's own estimate from the performance model (a factor
            >= 1: what removing the cause would give AFTER, ``"prediction"`` or ``"upper_bound"``), None without one.
        before_estimate: BEFORE's estimate of the same finding (status ``"worse"``), else None.
        bound: the bottleneck class the finding supports (e.g. ``"occupancy-bound"``), or None.
    """

    finding_id: str
    status: str
    measure: tuple[str, ...]
    before_value: float | None
    after_value: float | None
    estimated_speedup: float | None
    estimate_kind: str | None
    before_estimate: float | None = None
    bound: str | None = None


@dataclass(frozen=True)
class LaunchChange:
    """One launch-configuration field that differs between BEFORE and AFTER.

    Attributes:
        field: ``"registers_per_thread"`` (count), ``"shared_mem_static_bytes"`` / ``"shared_mem_dynamic_bytes"``
            (bytes per block), ``"shared_mem_config_bytes"`` (the SM's shared-memory carveout, bytes), ``"block"`` /
            ``"grid"`` ((x, y, z)), ``"theoretical_occupancy_pct"`` / ``"achieved_occupancy_pct"`` (%),
            ``"blocks_per_sm"`` (count) or ``"occupancy_limiters"`` (resource names, :data:`LIMIT_RESOURCES`).
        before / after: the value on each side; None on a side that does not record it (then the other side's value
            alone is known: "not measured", not a change).
    """

    field: str
    before: object
    after: object


def _root_causes(d: KernelDiagnosis) -> dict:
    """The launch's root-cause findings (an estimate or a waste counter, as :func:`.resolved.resolutions` follows),
    by id, the first of each id."""
    texts = finding_texts()
    out: dict = {}
    for f in d.findings:
        text = texts.get(f.id)
        if f.id not in out and (f.estimated_speedup is not None or (text is not None and text.verify)):
            out[f.id] = f
    return out


def introductions(before: KernelDiagnosis, after: KernelDiagnosis, slower: bool = False) -> tuple[Introduction, ...]:
    """The root-cause findings of the AFTER launch absent from BEFORE, or materially worse there
    (:class:`Introduction`), in AFTER's order.

    A finding with a waste counter (``data/findings.toml`` ``verify``) is judged by its counter, the fact both sides
    can hold: introduced when the counter grew beyond :data:`.resolved.UNCHANGED_BAND` of BEFORE's (``"new"`` when
    BEFORE does not report the finding, ``"worse"`` when it does), or when BEFORE does not measure the counter and
    does not report the finding (``"new"``, BEFORE's value None: not measured).

    A finding without a counter (a stall share, a bound) is judged by the share of its launch's time the performance
    model gives it, ``1 - 1 / estimate``, and only when AFTER is ``slower``: in a faster kernel a share that grows is
    the bottleneck moving, not something the change added (and a time that grows with a slower kernel is no
    evidence either). It is introduced when that share grew by at least :data:`MIN_GAIN_GROWTH` and beyond the band
    (BEFORE's share 0 when it does not report the finding).

    An AFTER finding whose own estimate is below ``min_worthwhile_speedup`` (``data/verdicts.toml``: within the
    run-to-run spread) is left out either way: the model gives it no time to explain a change."""
    texts = finding_texts()
    worthwhile = criteria()["min_worthwhile_speedup"]
    before_found = _root_causes(before)
    before_ids = {f.id for f in before.findings}
    out: list[Introduction] = []
    for fid, f in _root_causes(after).items():
        if f.estimated_speedup is not None and f.estimated_speedup < worthwhile:  # too small to explain a change
            continue
        text = texts.get(fid)
        terms = text.verify if text is not None else ()
        reported = fid in before_ids
        vb = _waste(terms, before.kernel.metrics) if terms else None
        va = _waste(terms, after.kernel.metrics) if terms else None
        if terms:
            grew = vb is not None and va is not None and va > (1 + UNCHANGED_BAND) * vb and va > 0
            if not (grew or (not reported and vb is None)):
                continue
        elif not (slower and _share_grew(before_found.get(fid), f)):
            continue
        old = before_found.get(fid)
        status = "worse" if reported else "new"
        out.append(Introduction(fid, status, terms, vb, va, f.estimated_speedup, f.estimate_kind,
                                old.estimated_speedup if old is not None and reported else None, f.bound))
    return tuple(out)


def _share(finding) -> float:
    """The share (0-1) of its launch's time the performance model gives a finding: ``1 - 1 / estimate``; 0 without
    an estimate."""
    if finding is None or finding.estimated_speedup is None or not finding.estimated_speedup > 1:
        return 0.0
    return 1.0 - 1.0 / finding.estimated_speedup


def _share_grew(old, new) -> bool:
    """Whether ``new`` (AFTER) takes a materially larger share of its launch's time than ``old`` (BEFORE's same
    finding, or None: 0)."""
    s_old, s_new = _share(old), _share(new)
    return s_new - s_old >= MIN_GAIN_GROWTH and s_new > (1 + UNCHANGED_BAND) * s_old


def occupancy_limits(metrics: Mapping[str, float]) -> dict[str, int]:
    """Blocks per SM each resource allows, as Nsight Compute records it (``launch__occupancy_limit_<resource>``);
    only the resources the profile holds."""
    out: dict[str, int] = {}
    for name in LIMIT_RESOURCES:
        value = metrics.get(f"launch__occupancy_limit_{name}")
        if value is not None and math.isfinite(value):
            out[name] = int(value)
    return out


def _limits(metrics: Mapping[str, float]) -> tuple[int | None, tuple[str, ...] | None]:
    """(blocks per SM, limiters) from the profile's occupancy limits, (None, None) when it records none; the
    warps and blocks limits are needed too, or the smallest of those recorded would not be the whole story."""
    limits = occupancy_limits(metrics)
    if not limits or not {"warps", "registers", "shared_mem", "blocks"} <= set(limits):
        return None, None
    least = min(limits.values())
    return least, tuple(n for n in LIMIT_RESOURCES if limits.get(n) == least)


def launch_changes(before: KernelDiagnosis, after: KernelDiagnosis) -> tuple[LaunchChange, ...]:
    """The launch-configuration fields that differ between the two launches (:class:`LaunchChange`), only those
    both sides record and that changed (achieved occupancy by at least :data:`ACHIEVED_OCCUPANCY_POINTS`), in a fixed
    order: registers, shared memory (static, dynamic, carveout), block, grid, theoretical and achieved occupancy,
    blocks per SM, limiters. Fields one side alone records come last, with None on the other side."""
    kb, ka = before.kernel, after.kernel
    lb, la = kb.launch, ka.launch
    blocks_b, limiters_b = _limits(kb.metrics)
    blocks_a, limiters_a = _limits(ka.metrics)
    fields = [
        ("registers_per_thread", lb.registers_per_thread, la.registers_per_thread),
        ("shared_mem_static_bytes", lb.shared_mem_static_bytes, la.shared_mem_static_bytes),
        ("shared_mem_dynamic_bytes", lb.shared_mem_dynamic_bytes, la.shared_mem_dynamic_bytes),
        ("shared_mem_config_bytes", lb.shared_mem_config_bytes, la.shared_mem_config_bytes),
        ("block", lb.block, la.block),
        ("grid", lb.grid, la.grid),
        ("theoretical_occupancy_pct", kb.theoretical_occupancy_pct, ka.theoretical_occupancy_pct),
        ("achieved_occupancy_pct", kb.achieved_occupancy_pct, ka.achieved_occupancy_pct),
        ("blocks_per_sm", blocks_b, blocks_a),
        ("occupancy_limiters", limiters_b, limiters_a),
    ]
    changed, one_sided = [], []
    for name, b, a in fields:
        if b is None and a is None:
            continue
        if b is None or a is None:
            one_sided.append(LaunchChange(name, b, a))
        elif _differs(name, b, a):
            changed.append(LaunchChange(name, b, a))
    return tuple(changed + one_sided) if changed else ()


def _differs(name: str, b, a) -> bool:
    if name == "achieved_occupancy_pct":
        return abs(a - b) >= ACHIEVED_OCCUPANCY_POINTS
    if name == "theoretical_occupancy_pct":
        return round(a, 1) != round(b, 1)
    return b != a

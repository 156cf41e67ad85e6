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
from dataclasses import dataclass, replace
from typing import Mapping

from ..knowledge.criteria import criteria
from ..knowledge.findings import findings as finding_texts
from .diagnosis import KernelDiagnosis
from .performance import PostHoc, WorkChange
from .resolved import UNCHANGED_BAND, _waste, waste_per_work

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
        before_per_work / after_per_work: the waste per unit of its work (``data/findings.toml`` ``verify_per``:
            e.g. excess sectors per ideal sector), None when the finding has no such measure or a side lacks it.
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
    before_per_work: float | None = None
    after_per_work: float | None = None


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
    does not report the finding (``"new"``, BEFORE's value None: not measured). Where both sides measure the
    finding's work (``verify_per``), the waste per unit of that work must have grown beyond the band too: a waste
    count that grew only with the work (the same sectors per request, twice the requests) is not a worse access
    pattern, and the work that grew is what :func:`grown_work` lists.

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
        pb = waste_per_work(text, before.kernel.metrics) if terms else None
        pa = waste_per_work(text, after.kernel.metrics) if terms else None
        if terms:
            grew = vb is not None and va is not None and va > (1 + UNCHANGED_BAND) * vb and va > 0
            if grew and pb is not None and pa is not None and not pa > (1 + UNCHANGED_BAND) * pb:
                grew = False  # the waste grew with the work only: the grown work says it (grown_work)
            if not (grew or (not reported and vb is None)):
                continue
        elif not (slower and _share_grew(before_found.get(fid), f)):
            continue
        old = before_found.get(fid)
        status = "worse" if reported else "new"
        out.append(Introduction(fid, status, terms, vb, va, f.estimated_speedup, f.estimate_kind,
                                old.estimated_speedup if old is not None and reported else None, f.bound,
                                pb, pa))
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


#: A counter of work has grown when AFTER's is at least this many times BEFORE's. Judgement: well beyond the
#: re-profiling spread (:data:`.resolved.UNCHANGED_BAND`, 10 %), and a quarter more of the work a unit does is the
#: smallest growth that can by itself explain a slowdown the gate flags (a kernel bound by that unit, 1.25x its
#: time: 0.80x).
WORK_GROWTH = 1.25

#: ... and large enough to matter in the model: the busiest unit it lands on (of :data:`WORK_COUNTERS`' path, measured
#: on both sides) did at least this much more busy time at its peak, as a share of BEFORE's duration (0.05 = 5 % of
#: the kernel time). Less could not explain a slowdown beyond the run-to-run spread even if the unit limited the
#: kernel; a counter that doubles on an idle unit (0.1 % -> 0.2 % busy) is not what made the kernel slower.
MIN_ADDED_BUSY = 0.05

#: The counters of work compare follows (metric, what it counts: the ``work_<key>`` label, its unit: the
#: ``work_unit_<unit>`` label, the units of ``data/units.toml`` it loads, nearest first). Memory requests are the
#: instructions of the LSU pipe as the L1 takes them (``l1tex__t_requests``: one per warp-wide instruction), sectors
#: the 32-byte pieces the L1 and L2 move, DRAM bytes what the memory read and wrote.
WORK_COUNTERS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global_load_requests", "requests", ("lsu", "l1")),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global_store_requests", "requests", ("lsu", "l1")),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "global_atomic_requests", "requests",
     ("lsu", "l1", "l2_atomics")),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "global_reduction_requests", "requests",
     ("lsu", "l1", "l2_atomics")),
    ("l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "local_load_requests", "requests", ("lsu", "l1")),
    ("l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", "local_store_requests", "requests", ("lsu", "l1")),
    ("smsp__sass_inst_executed_op_shared_ld.sum", "shared_load_instructions", "instructions", ("lsu", "shared", "l1")),
    ("smsp__sass_inst_executed_op_shared_st.sum", "shared_store_instructions", "instructions",
     ("lsu", "shared", "l1")),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global_load_sectors", "sectors", ("l1", "xbar", "l2")),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global_store_sectors", "sectors", ("l1", "xbar", "l2")),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "local_load_sectors", "sectors", ("l1", "xbar", "l2")),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "local_store_sectors", "sectors", ("l1", "xbar", "l2")),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "shared_wavefronts", "wavefronts", ("shared", "l1")),
    ("lts__t_sectors.sum", "l2_sectors", "sectors", ("l2", "xbar")),
    ("dram__bytes_read.sum", "dram_read", "bytes", ("dram", "l2")),
    ("dram__bytes_write.sum", "dram_write", "bytes", ("dram", "l2")),
    ("smsp__inst_executed.sum", "instructions", "instructions", ("issue",)),
)

#: The SM pipes whose work (busy share x duration, :class:`.performance.WorkChange`) stands for the instructions they
#: executed where the report counts no instructions of them: a pipe whose work grew is listed as such.
PIPE_UNITS = ("fma", "alu", "fp64", "fp16", "tensor", "shared_pipe", "xu", "adu", "cbu", "uniform", "tex", "tma")

#: The model's speedup for the measured change of work (:class:`.performance.PostHoc`) disagrees with the measured one
#: when either is at least this many times the other. Judgement: many times the re-profiling spread (10 %) and more
#: than the smallest slowdown the gate flags; stricter than the "within 1.5x" of ``docs/calibration.md`` on purpose,
#: so that a check giving 1.19x for a kernel measured 0.85x does not read as agreement: the busy units the model
#: prices do not explain that change (a latency the grown work added, say).
MODEL_DISAGREES = 1.25


@dataclass(frozen=True)
class WorkGrowth:
    """A counter of work the AFTER launch does materially more of (:func:`grown_work`), or less of
    (:func:`removed_work`: ``ratio`` < 1).

    Attributes:
        metric: the counter (a :data:`WORK_COUNTERS` metric; for a pipe of :data:`PIPE_UNITS`, its busiest
            throughput sub-metric).
        key: what it counts (``work_<key>`` label): ``"global_load_requests"``, ... or ``"pipe"``.
        count_unit: the counter's unit: ``"requests"``, ``"instructions"``, ``"sectors"``, ``"wavefronts"``,
            ``"bytes"``, or ``"seconds"`` (a pipe's busy time at its peak).
        before / after: the counter on each side (both measured).
        unit: the busiest unit it lands on (work that fell: relieves; ``data/units.toml`` id, measured on both
            sides), None when none of its units was measured on both sides (then its size in the model is not
            known).
        unit_ratio: that unit's work after / before (busy time at its peak), None with ``unit``.
        unit_added_share: the busy time that unit added, as a share of BEFORE's duration (0-1; negative: the busy
            time it removed), None with ``unit``.
        per_request_before / per_request_after: for memory requests, the sectors each moved (the same space and op's
            ``l1tex__t_sectors`` / ``l1tex__t_requests``: 4 for a warp of 4-byte loads of consecutive addresses, 16
            for float4), None when a side lacks the sectors: whether the accesses got narrower or only more.
    """

    metric: str
    key: str
    count_unit: str
    before: float
    after: float
    unit: str | None
    unit_ratio: float | None
    unit_added_share: float | None
    per_request_before: float | None = None
    per_request_after: float | None = None

    @property
    def ratio(self) -> float:
        """after / before (inf when BEFORE did none of it)."""
        return self.after / self.before if self.before > 0 else math.inf


def _landing(path: tuple[str, ...], changes: Mapping[str, WorkChange], grew: bool = True) -> WorkChange | None:
    """The unit of ``path`` the moved work lands on: for work that grew, of the units measured on both sides whose
    work grew, the busiest AFTER (its largest AFTER work: the one that may now limit the kernel); for work that fell
    (``grew`` False), of those whose work fell, the one relieved most (the largest fall of its busy time). Without
    one that moved so, the busiest of them (which then moved nothing); None when none is measured on both sides."""
    found = [changes[u] for u in path if u in changes]
    if grew:
        return max([w for w in found if w.after_s > w.before_s] or found, key=lambda w: w.after_s, default=None)
    fell = [w for w in found if w.after_s < w.before_s]
    return max(fell, key=lambda w: w.before_s - w.after_s) if fell else max(found, key=lambda w: w.after_s, default=None)


def grown_work(before: KernelDiagnosis, after: KernelDiagnosis, check: PostHoc | None, before_s: float | None,
               slower: bool) -> tuple[WorkGrowth, ...]:
    """The work the AFTER launch does materially more of (:class:`WorkGrowth`), only when AFTER is ``slower`` (in
    a faster kernel the work it added was paid for by more it saved: the trade the change made, not what explains
    the result). A counter of :data:`WORK_COUNTERS` both profiles measured that grew at least :data:`WORK_GROWTH`
    times, landing on a unit that did at least :data:`MIN_ADDED_BUSY` of BEFORE's time more work (or on no unit
    measured on both sides: then listed, its size not known); a pipe of :data:`PIPE_UNITS` whose own work grew as
    much. ``check`` is the pair's :class:`.performance.PostHoc` (the units' work on both sides), ``before_s`` BEFORE's
    duration (s). Largest factor first."""
    return _moved_work(before, after, check, before_s, grew=True) if slower else ()


def removed_work(before: KernelDiagnosis, after: KernelDiagnosis, check: PostHoc | None, before_s: float | None,
                 faster: bool) -> tuple[WorkGrowth, ...]:
    """The mirror of :func:`grown_work`: the work the AFTER launch does materially less of, only when AFTER is
    ``faster`` (in a slower kernel the work it saved is not what explains the result). The same counters and
    thresholds: BEFORE's counter at least :data:`WORK_GROWTH` times AFTER's, relieving a unit (the busiest of its
    path whose work fell) of at least :data:`MIN_ADDED_BUSY` of BEFORE's time (or no unit measured on both sides);
    a pipe of :data:`PIPE_UNITS` whose own work fell as much. Each :class:`WorkGrowth` then has ``ratio`` < 1 and a
    negative ``unit_added_share`` (the busy time it removed). Largest fall first."""
    return _moved_work(before, after, check, before_s, grew=False) if faster else ()


def _moved_work(before: KernelDiagnosis, after: KernelDiagnosis, check: PostHoc | None, before_s: float | None,
                grew: bool) -> tuple[WorkGrowth, ...]:
    """The counters of work that grew (``grew``) or fell materially: the one rule of :func:`grown_work` and
    :func:`removed_work`."""
    changes = {w.unit: w for w in (check.changes if check is not None else ())}
    mb, ma = before.kernel.metrics, after.kernel.metrics
    out: list[WorkGrowth] = []

    def material(w: WorkChange | None) -> bool:
        if w is None:
            return True
        moved = w.after_s - w.before_s if grew else w.before_s - w.after_s
        return bool(before_s) and moved >= MIN_ADDED_BUSY * before_s

    def much(b: float, a: float) -> bool:
        return a > 0 and a >= WORK_GROWTH * b if grew else b > 0 and b >= WORK_GROWTH * a

    for metric, key, count_unit, path in WORK_COUNTERS:
        b, a = mb.get(metric), ma.get(metric)
        if b is None or a is None or not (math.isfinite(b) and math.isfinite(a)) or not much(b, a):
            continue
        w = _landing(path, changes, grew)
        if not material(w):
            continue
        g = _growth(metric, key, count_unit, b, a, w, before_s)
        if count_unit == "requests":
            sectors = metric.replace("l1tex__t_requests_", "l1tex__t_sectors_")
            g = replace(g, per_request_before=_per(mb.get(sectors), b), per_request_after=_per(ma.get(sectors), a))
        out.append(g)
    out = _comparable(out)
    for unit in PIPE_UNITS:
        w = changes.get(unit)
        if w is None or not much(w.before_s, w.after_s) or not material(w):
            continue
        out.append(_growth(w.metric, "pipe", "seconds", w.before_s, w.after_s, w, before_s))
    return tuple(sorted(out, key=lambda g: -g.ratio if grew else g.ratio))


#: Counters of one kind of work on a unit (:func:`_comparable`): the instructions the LSU takes (requests and
#: instructions), the data the L1 / L2 move (sectors and wavefronts), bytes.
WORK_KINDS = {"requests": "instructions", "instructions": "instructions", "sectors": "data", "wavefronts": "data",
              "bytes": "bytes"}


def _comparable(found: list[WorkGrowth]) -> list[WorkGrowth]:
    """``found`` without the counters that moved less than :data:`MIN_ADDED_BUSY` of the largest move (the
    absolute change of the counter) of their kind of work (:data:`WORK_KINDS`) on the same unit: beside 7.5 G
    fewer global-load sectors, 131 k fewer shared wavefronts are not what moved the L1."""
    def group(g: WorkGrowth) -> tuple:
        return g.unit, WORK_KINDS.get(g.count_unit, g.count_unit)

    largest: dict[tuple, float] = {}
    for g in found:
        largest[group(g)] = max(largest.get(group(g), 0.0), abs(g.after - g.before))
    return [g for g in found if abs(g.after - g.before) >= MIN_ADDED_BUSY * largest[group(g)]]


def _per(value: float | None, count: float) -> float | None:
    """``value / count``, None when ``value`` is missing or not finite or ``count`` is 0."""
    if value is None or not math.isfinite(value) or not count > 0:
        return None
    return value / count


def _growth(metric: str, key: str, count_unit: str, b: float, a: float, w: WorkChange | None,
            before_s: float | None) -> WorkGrowth:
    if w is None or not before_s:
        return WorkGrowth(metric, key, count_unit, b, a, None, None, None)
    return WorkGrowth(metric, key, count_unit, b, a, w.unit, w.ratio, (w.after_s - w.before_s) / before_s)


def model_disagrees(model_speedup: float | None, measured_speedup: float | None) -> bool:
    """Whether the model's speedup for the measured change of work and the measured speedup differ by at least
    :data:`MODEL_DISAGREES` times either way (False when either is not known)."""
    if not model_speedup or not measured_speedup or model_speedup <= 0 or measured_speedup <= 0:
        return False
    return max(model_speedup / measured_speedup, measured_speedup / model_speedup) >= MODEL_DISAGREES

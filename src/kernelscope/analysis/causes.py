"""Root-cause rules: the specific fault behind a verdict, measured, with its one action and its estimated gain.

One small rule per cause, in the style of Nsight Compute's rule files: each reads a few metrics by exact name
(declared in its ``inputs``), compares them with a criterion of ``verdicts.toml`` (with its source), and returns a
:class:`~.engine.Finding` with the evidence (values and metric names), the advice ``"finding:<id>"`` (the action text
is ``data/findings.toml``) and its remedy as a change of work (:class:`~.performance.Change`: which units' work it
removes and how much, the idle SM time it recovers, or the waiting it hides).

No rule computes a speedup of its own: every estimate is the performance model's (:mod:`.performance`), through
:meth:`~.kernel_rules.KernelContext.sized`, so each respects what the kernel's busiest unrelieved unit allows and
says whether it is a prediction or an upper bound. A rule whose inputs were not measured does not fire; a finding
whose remedy the report cannot size has no estimate and says why.
"""

from __future__ import annotations

import math
from typing import Iterator

from ..knowledge.criteria import source
from ..knowledge.stalls import describe, reasons
from ..notes import Note
from .design import ACTIVE_THREADS, ASYNC_COUNTERS, block_lanes, remedy_values
from .engine import Done, Evidence, Finding, Rule
from .kernel_rules import KernelContext
from .math_floor import reuse_change
from .memory_causes import (
    DATA_PIPE_PCT, GLOBAL_SECTORS, L2_WRITES, LOCAL_INSTRUCTIONS, LOCAL_MISSES, LOCAL_SECTORS, LSUIN_PCT, M_INST,
    M_L1_HIT, M_L2_HIT, M_L2_SECTORS, M_LDSM, M_SECTORS, M_SECTORS_IDEAL, M_SECTORS_LOCAL, M_SHARED_IDEAL,
    M_SHARED_WAVEFRONTS, REQUESTS, SHARED_OPS, WAVEFRONT_FINDINGS, cause, excess_l1_wavefronts, register_spills,
    shared_bank_conflicts, uncoalesced_global, uncoalesced_shared,
)
from .performance import PREDICTION, UPPER_BOUND, Change, predict, relieves

M_L2_PCT = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
M_L2_READS = "lts__t_sectors_srcunit_tex_op_read.sum"
M_THREADS = ACTIVE_THREADS
M_THREADS_PRED = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
M_ISSUE = "sm__issue_active.avg.pct_of_peak_sustained_elapsed"
M_ATOMIC = "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"
M_ATOMIC_MAX = "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed"
M_DRAM = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
#: FP32 add / multiply / fused multiply-add thread instructions (the roofline section's per-cycle rates).
FP32_OPS = tuple(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed" for op in ("fadd", "fmul", "ffma"))
M_FMA_PIPE = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"
IMBALANCE = ("sm__cycles_active.avg", "sm__cycles_active.max", "sm__cycles_active.sum", "sm__cycles_elapsed.sum")
#: The SM pipes (units.toml ids) whose work is instructions: a change that removes instructions relieves them all.
INSTRUCTION_UNITS = ("issue", "lsu", "fma", "alu", "fp64", "fp16", "xu", "adu", "cbu", "uniform", "tex", "mio", "tensor",
                     "shared_pipe")


# --------------------------------------------------------------------------------------------- memory levels


def l2_bound(ctx: KernelContext, done: Done) -> Finding | None:
    """L2 is the busiest memory level and at least ``latency_sol_pct`` of its peak."""
    lv = ctx.limiting_level
    if lv is None or lv.level != "l2" or lv.throughput_pct < ctx.criteria["latency_sol_pct"]:  # type: ignore[operator]
        return None
    return cause(ctx, "l2_bound", {"pct": lv.throughput_pct}, (Evidence(M_L2_PCT, lv.throughput_pct, "%"),),
                 "latency_sol_pct", note="not estimated: the gain depends on the reuse the change achieves")


def low_l2_hit_rate(ctx: KernelContext, done: Done) -> Finding | None:
    """L2 hit rate below ``l2_hit_low_pct`` while DRAM is busy (at least ``l2_hit_dram_pct`` of its peak), unless the
    launch reads each sector once: when the L1's read sectors at L2 (``lts__t_sectors_srcunit_tex_op_read``) are no
    more than 1.1x the sectors DRAM delivered, every miss is compulsory and no reordering can raise the hit rate (a
    transpose: reads miss once, writes hit, 50 %)."""
    hit, dram = ctx.kernel.metrics.get(M_L2_HIT), ctx.dram
    if hit is None or dram is None or hit >= ctx.criteria["l2_hit_low_pct"] or dram.value < ctx.criteria["l2_hit_dram_pct"]:
        return None
    reads, from_dram = ctx.kernel.metrics.get(M_L2_READS), ctx.kernel.dram_bytes_read
    if reads and from_dram and reads * 32.0 <= 1.1 * from_dram:
        return None
    return cause(ctx, "low_l2_hit_rate", {"hit": hit, "dram": dram.value}, (Evidence(M_L2_HIT, hit, "%"), dram),
                 "l2_hit_low_pct", note="not estimated: the gain depends on the hit rate the change achieves")


def dram_bandwidth_bound(ctx: KernelContext, done: Done) -> Finding | None:
    """DRAM at ``memory_high_pct`` of its peak or more: only moving fewer bytes helps, in proportion to the bytes
    not moved; anything else can win at most 100 / DRAM % (stated in the text, not an estimate of this remedy)."""
    dram = ctx.dram
    if dram is None or dram.value < ctx.criteria["memory_high_pct"]:
        return None
    headroom = 100.0 / dram.value
    return cause(ctx, "dram_bandwidth_bound", {"pct": dram.value, "headroom": headroom}, (dram,), "memory_high_pct",
                 note=f"not estimated: the gain is in proportion to the bytes not moved; any change that moves the "
                      f"same bytes can win at most 100 / DRAM % = {headroom:.2f}x")


def atomic_contention(ctx: KernelContext, done: Done) -> Finding | None:
    """The L2 atomic unit at ``atomic_unit_pct`` of its peak or more, in its busiest slice (``.max``: atomics on one
    address all go to one L2 slice, so the average over the slices hides them).

    Change (prediction: one atomic per warp instead of per thread, after a warp reduction): 31/32 of the atomic
    unit's work; where the busiest L2 slice is at least twice the average one, the same share of its excess over
    the average (the concentrated atomic traffic) leaves the L2 too."""
    avg = ctx.kernel.memory_breakdown_pct.get(M_ATOMIC)
    hot = ctx.kernel.metrics.get(M_ATOMIC_MAX, avg)
    if hot is None or hot < ctx.criteria["atomic_unit_pct"]:
        return None
    f = 31 / 32
    work: dict[str, float] = {"l2_atomics": f}
    for c in ctx.units.of("l2"):
        if c.busy > 0 and c.hottest >= 2.0 * c.busy:
            work[c.metric] = f * (1.0 - c.busy / c.hottest)
    change = Change(work, kind=PREDICTION, what="one atomic per warp instead of per thread: 31/32 of the atomic work")
    return cause(ctx, "atomic_contention", {"pct": hot, "avg": avg},
                 (Evidence(M_ATOMIC_MAX, hot, "%"), Evidence(M_ATOMIC, avg, "%")), "atomic_unit_pct", change)


def hot_l2_slice(ctx: KernelContext, done: Done) -> Finding | None:
    """One L2 slice far busier than the average one: its busiest counter at ``hot_slice_ratio`` x the average or more
    and at ``latency_sol_pct`` of its peak or more, so that slice alone bounds the kernel, and not an atomic
    hot spot (:func:`atomic_contention` covers that one). The addresses concentrate in one slice (the same address,
    or a stride that maps to one slice). Change (upper bound: the traffic spread evenly): the slice's excess over the
    average."""
    if done.get("atomic_contention"):
        return None
    hot = max(ctx.units.of("l2"), key=lambda c: c.hottest, default=None)
    if hot is None or hot.busy <= 0 or hot.hottest < ctx.criteria["hot_slice_ratio"] * hot.busy \
            or 100 * hot.hottest < ctx.criteria["latency_sol_pct"]:
        return None
    f = 1.0 - hot.busy / hot.hottest
    change = Change({c.metric: 1.0 - c.busy / c.hottest for c in ctx.units.of("l2") if c.hottest > 0},
                    kind=UPPER_BOUND, what=f"the busiest L2 slice down to the average: {f:.3f} of its work")
    atomics = ctx.units.of("l2_atomics")
    atomic_ratio = atomics[0].hottest / atomics[0].busy if atomics and atomics[0].busy > 0 else None
    return cause(ctx, "hot_l2_slice", {"hot": 100 * hot.hottest, "avg": 100 * hot.busy, "ratio": hot.hottest / hot.busy,
                                       "atomic_ratio": atomic_ratio},
                 (Evidence(hot.metric.replace(".avg.", ".max."), 100 * hot.hottest, "%"),
                  Evidence(hot.metric, 100 * hot.busy, "%"),
                  Evidence(M_ATOMIC_MAX, 100 * atomics[0].hottest if atomics else None, "%")), "hot_slice_ratio", change)


# ------------------------------------------------------------------------------------------------- compute


#: Active threads per executed instruction (of 32) from which a warp counts as full: the threads of a warp that
#: diverges take a path of their own, so that a warp with a branch whose threads part average far below 32 (half the
#: warp on each side: 16); at 30 of 32 or more (94 %, fewer than one branch in 16 instructions splitting off one
#: thread) the warps do not diverge, and lanes idle only through predication (a guarded instruction executed by the
#: whole warp, ``smsp__thread_inst_executed_pred_on`` below ``smsp__thread_inst_executed``). Nsight Compute's
#: ThreadDivergence rule fires on either figure; kernelscope reports predication in near-full warps as a low-rank
#: note with its figures (:attr:`.engine.Finding.low_rank`), not as a root cause (an expert review of a tree reduction
#: in global memory, 31.5 of 32 threads active, 20.4 predicated on: the cause was its global-memory latency and
#: barriers, the fix shared memory, 1.5x).
NEAR_FULL_WARP_THREADS = 30.0


def thread_divergence(ctx: KernelContext, done: Done) -> Finding | None:
    """Fewer than ``divergence_threads`` threads active, or predicated on, per executed instruction, of 32 (Nsight
    Compute's ThreadDivergence rule: it fires on either and sizes the fix with the smaller). The text gives both
    figures, so that predication (all threads active, some predicated off) is not called divergence; with at least
    :data:`NEAR_FULL_WARP_THREADS` threads active (the warps do not diverge, only predicate) the finding is a low-rank
    note (listed after every other finding, negligible).

    Change (upper bound: every lane of every warp used): the idle lanes' share of the instructions, 1 - used / 32,
    leaves instruction issue and every SM pipe; memory traffic stays."""
    m = ctx.kernel.metrics
    threads, pred = m.get(M_THREADS), m.get(M_THREADS_PRED)
    if threads is None:
        return None
    used = min(threads, pred if pred is not None else threads)
    if used >= ctx.criteria["divergence_threads"]:
        return None
    e = 1.0 - used / 32.0
    by = "predication" if pred is not None and pred < threads and threads >= ctx.criteria["divergence_threads"] \
        else "divergence"
    change = Change({u: e for u in INSTRUCTION_UNITS}, kind=UPPER_BOUND,
                    what=f"{32 - used:.1f} idle lanes of 32: {e:.3f} of the instructions")
    block = ctx.kernel.launch.threads_per_block
    found = cause(ctx, "thread_divergence", {"threads": threads, "threads_pred": pred if pred is not None else threads,
                                             "used": used, "by": by, "block": block,
                                             "lanes": block_lanes(block) if block else None},
                  (Evidence(M_THREADS, threads, "thread"), Evidence(M_THREADS_PRED, pred, "thread")),
                  "divergence_threads", change)
    return found.but(low_rank=True) if threads >= NEAR_FULL_WARP_THREADS else found


def busiest_pipe(ctx: KernelContext, done: Done) -> Finding | None:
    """The busiest SM unit at ``memory_instructions_pct`` or more: a memory-instruction pipe (LSU, MIO, TEX) is a
    memory-access problem, sized at its ideal by :func:`reuse_change` (upper bound: the kernel's math roof); an
    arithmetic pipe at ``compute_high_pct`` or more is at its limit (any change that keeps its instructions can win at
    most 100 / its %, stated in the text; not estimated)."""
    top = ctx.limiters.top_compute
    if top is None or top.unit is None:
        return None
    ev = (Evidence(top.metric, top.pct, "%"),)
    if top.kind == "memory_instructions" and top.pct >= ctx.criteria["memory_instructions_pct"]:
        return cause(ctx, "memory_instructions_bound", {"unit": top.unit, "pct": top.pct}, ev, "memory_instructions_pct",
                     reuse_change(ctx.units, ctx.roofline, ctx.compute_capability, ctx.kernel.metrics))
    if top.kind == "math" and top.pct >= ctx.criteria["compute_high_pct"]:
        headroom = 100.0 / top.pct
        return cause(ctx, "compute_pipe_bound", {"unit": top.unit, "pct": top.pct, "headroom": headroom}, ev,
                     "compute_high_pct", note=f"not estimated: the gain is in proportion to the instructions the pipe "
                                              f"no longer executes; any other change can win at most {headroom:.2f}x")
    return None


def tensor_cores_unused(ctx: KernelContext, done: Done) -> Finding | None:
    """FP16 or FP32 math on CUDA cores, compute-bound on the roofline (arithmetic intensity above the ridge point:
    matrix-like work, not element-wise), with the pipe at ``tensor_unused_pipe_pct`` of its peak or more, while the
    GPU has tensor cores for it (FP16/BF16 tensor, TF32 tensor) and the tensor pipe is idle.

    Change (upper bound: all of the pipe's work as matrix products): 1 - CUDA-core peak / tensor peak of that pipe."""
    gpu, r = ctx.gpu, ctx.roofline
    if gpu is None or r is None or r.pipe not in ("fp16", "fp32") or not r.flops or r.bound != "compute-bound":
        return None
    tensor = {"fp16": "fp16_tensor", "fp32": "tf32_tensor"}[r.pipe]
    unit = {"fp16": "fp16", "fp32": "fma"}[r.pipe]
    pct = max((load.pct for load in ctx.limiters.compute if load.unit == unit), default=None)
    busy_tensor = ctx.kernel.tensor_pipe_active_pct or 0.0
    cuda_peak, tensor_peak = gpu.peak_flops_per_s.get(r.pipe), gpu.peak_flops_per_s.get(tensor)
    if pct is None or not cuda_peak or not tensor_peak or tensor_peak <= cuda_peak \
            or pct < ctx.criteria["tensor_unused_pipe_pct"] or busy_tensor >= ctx.criteria["tensor_pipe_active_pct"]:
        return None
    f = 1.0 - cuda_peak / tensor_peak
    change = Change({unit: f}, kind=UPPER_BOUND, what=f"the {unit} pipe's work at the tensor peak: {f:.3f} of it")
    return cause(ctx, "tensor_cores_unused", {"pipe": r.pipe, "tensor_pipe": tensor, "pct": pct,
                                              "tensor_pct": busy_tensor, "ratio": tensor_peak / cuda_peak},
                 (Evidence("flops." + r.pipe, r.flops, "FLOP"), Evidence("pipe." + unit, pct, "%"),
                  Evidence("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", busy_tensor, "%")),
                 "tensor_unused_pipe_pct", change)


def fp64_on_consumer_gpu(ctx: KernelContext, done: Done) -> Finding | None:
    """FP64 work on a GPU whose FP64 peak is at most 1/``fp64_slow_ratio`` of its FP32 peak, with the FP64 pipe at
    ``fp64_pipe_pct`` of its peak or more (the pipe's utilisation is the evidence; the FP64 FLOP count, from the
    roofline section, is shown when the report has it). Change (upper bound: all of it in FP32): 1 - FP64 / FP32 peak
    of the FP64 pipe's work."""
    gpu = ctx.gpu
    if gpu is None:
        return None
    fp64, fp32 = gpu.peak_flops_per_s.get("fp64"), gpu.peak_flops_per_s.get("fp32")
    pct = max((load.pct for load in ctx.limiters.compute if load.unit == "fp64"), default=None)
    if not fp64 or not fp32 or fp32 / fp64 < ctx.criteria["fp64_slow_ratio"] or pct is None \
            or pct < ctx.criteria["fp64_pipe_pct"]:
        return None
    f = 1.0 - fp64 / fp32
    change = Change({"fp64": f}, kind=UPPER_BOUND, what=f"the FP64 pipe's work at the FP32 rate: {f:.3f} of it")
    return cause(ctx, "fp64_on_consumer_gpu", {"ratio": fp32 / fp64, "pct": pct},
                 (Evidence("flops.fp64", ctx.kernel.flop_counts.get("fp64"), "FLOP"), Evidence("pipe.fp64", pct, "%")),
                 "fp64_slow_ratio", change)


def unfused_fp32(ctx: KernelContext, done: Done) -> Finding | None:
    """Separate FP32 multiplies and adds that could be one fused multiply-add: at most min(FADD, FMUL) pairs fuse,
    each saving one instruction. Reported when those pairs are ``fusable_share`` of the FP32 instructions or more
    (Nsight Compute's FPInstructions rule counts every non-fused instruction as fusable; an add without a multiply
    to pair with cannot fuse). Change (prediction): pairs / (FADD + FMUL + FFMA) of the FMA pipe's work."""
    m = ctx.kernel.metrics
    fadd, fmul, ffma = (m.get(n) for n in FP32_OPS)
    if fadd is None or fmul is None or ffma is None or not fadd + fmul + ffma:
        return None
    e = min(fadd, fmul) / (fadd + fmul + ffma)
    if e < ctx.criteria["fusable_share"]:
        return None
    change = Change({"fma": e}, kind=PREDICTION, what=f"one FFMA per FMUL + FADD pair: {e:.3f} of the FP32 instructions")
    return cause(ctx, "unfused_fp32", {"fusable_pct": 100 * e},
                 (*(Evidence(n, v, "inst/cycle") for n, v in zip(FP32_OPS, (fadd, fmul, ffma))),
                  Evidence(M_FMA_PIPE, ctx.kernel.compute_breakdown_pct.get(M_FMA_PIPE), "%")),
                 "fusable_share", change)


def workload_imbalance(ctx: KernelContext, done: Done) -> Finding | None:
    """The busiest SM active much longer than the average one (Nsight Compute's WorkloadImbalance model: the SM
    time between the average SM going idle and the busiest one finishing, (max - avg) / elapsed cycles per SM,
    reported from ``imbalance_min_share``). Change (upper bound: the work spread evenly): that idle SM time, drawn
    from the same idle SM time as the tail effect and a small grid."""
    m = ctx.kernel.metrics
    if not all(m.get(n) for n in IMBALANCE):
        return None
    blocks, sms = ctx.kernel.launch.blocks, ctx.sm_count
    if blocks is not None and sms and blocks < sms:
        return None  # SMs without a block: the small grid, not uneven work (the small_grid finding)
    avg, peak, active, elapsed = (m[n] for n in IMBALANCE)
    per_sm = elapsed * avg / active  # elapsed cycles per SM (every SM elapses the same cycles)
    idle = (peak - avg) / per_sm
    if ctx.units.idle_sm is not None:
        idle = min(idle, ctx.units.idle_sm)
    if idle < ctx.criteria["imbalance_min_share"]:
        return None
    change = Change(idle=min(1.0, idle), spreads=True, kind=UPPER_BOUND,
                    what=f"the idle SM time after the average SM finishes: {idle:.3f} of the elapsed time")
    return cause(ctx, "workload_imbalance", {"above_pct": 100 * (peak / avg - 1.0), "idle": idle},
                 tuple(Evidence(n, m[n], "cycle") for n in IMBALANCE), "imbalance_min_share", change)


# -------------------------------------------------------------------------------------------------- stalls

#: Stall reason -> (finding id, criterion of its share of stall cycles).
STALL_CAUSES = {
    "long_scoreboard": ("long_scoreboard_latency", "long_scoreboard_share"),
    "mio_throttle": ("mio_throttle", "mio_throttle_share"),
    "lg_throttle": ("lg_throttle", "lg_throttle_share"),
    "barrier": ("barrier_stall", "barrier_share"),
}


def stall_causes(ctx: KernelContext, done: Done) -> Iterator[Finding]:
    """A stall reason at its criterion's share of the stall cycles or more. Change (upper bound: the stall hidden
    completely): the reason's share of all warp cycles stops waiting (Little's law: the same warps issue
    1 / (1 - share) times as often, until a unit saturates: the model's floor). Sized only when instruction issue
    was measured (``sm__issue_active``): without it nothing bounds how often the warps could issue."""
    if ctx.stalls is None:
        return
    issue = ctx.kernel.compute_breakdown_pct.get(M_ISSUE)
    for s in ctx.stalls.shares:
        if s.reason not in STALL_CAUSES:
            continue
        finding_id, key = STALL_CAUSES[s.reason]
        if s.share_of_stalls < ctx.criteria[key]:
            continue
        values = {"reason": s.reason, "share": s.share_of_stalls}
        remedy = ctx.first_remedy(finding_id)
        if s.reason == "long_scoreboard":
            values["prefetches"] = ctx.design.async_copies if ctx.design is not None else None
            values.update(remedy_values(remedy, ctx.occupancy))
        evidence = (Evidence(f"stall_share.{s.reason}", s.share_of_stalls, "share"), Evidence(M_ISSUE, issue, "%"))
        if issue is None:
            yield Finding(finding_id, "optimization", Note("f_stall", values), evidence, advice=f"finding:{finding_id}",
                          speedup_note="not estimated: sm__issue_active was not measured", source=source(key),
                          remedies=remedy)
            continue
        change = Change(waiting=min(1.0, s.share), kind=UPPER_BOUND,
                        what=f"{describe(s.reason).display_name} hidden: {s.share:.3f} of all warp cycles")
        values.update(stall_cap(ctx, change, done))
        yield Finding(finding_id, "optimization", Note(f"f_{finding_id}", {**values, "idle": 1.0 - issue / 100.0}),
                      evidence, advice=f"finding:{finding_id}", source=source(key), remedies=remedy,
                      **ctx.sized(change))


def stall_cap(ctx: KernelContext, change: Change, done: Done) -> dict:
    """What caps the estimate of hiding a stall, for the finding's text: when the model's floor (a unit the hiding
    leaves as it is, at its busiest instance) and not the hidden waiting decides the estimate, ``cap_unit`` (its
    unit id), ``cap_pct`` (the floor, % of the elapsed time), ``cap_mean_pct`` (the unit's average over its
    instances, % of the elapsed time, where the floor is its busiest instance's load; else None), ``cap_x`` (the
    bound, 1 / floor) and ``relief_id``:
    of the findings reported before this one that remove some of that unit's work (or of a part of it: the
    shared-memory wavefronts of the L1 data pipe) or name it as the launch's limiter (:func:`limiter_unit`), the
    one with the largest estimate (one without an estimate last), or None (``relief_bound``: the class of a fallback
    paragraph's, whose title it is). Empty when the hiding itself decides the
    estimate (or only the launch overhead caps it). Hiding a stall moves the same work faster; only a change of that
    unit's work (less traffic, fewer accesses) gains beyond the cap, and the text points there instead of promising
    it."""
    if not ctx.units.counters:
        return {}
    e = predict(ctx.units, change)
    counter = ctx.units.counter(e.limiter) if e.limiter else None
    if counter is None or not e.limited:
        return {}
    # the unit's own work, or a part of it (the shared-memory wavefronts are wavefronts of the L1 data pipe)
    wholes = {c.metric for c in ctx.units.of(counter.unit)}
    units = {counter.unit, *(c.unit for c in ctx.units.counters if wholes & set(c.part_of))}
    relief = [f for found in done.values() for f in found
              if f.advice is not None and (limiter_unit(f) in units or f.change is not None
                                           and any(relieves(f.change, u, ctx.units) for u in units))]
    best = max(relief, key=lambda f: f.estimated_speedup or 0.0, default=None)
    # the floor is the unit's busiest instance (SM, L2 slice, DRAM channel) when the change does not spread the work:
    # its average, which the Busiest-units row prints, beside it
    hottest = abs(e.floor - counter.hottest) < 1e-12 and counter.hottest > counter.busy
    out = {"cap_unit": counter.unit, "cap_pct": 100.0 * e.floor, "cap_x": e.speedup,
           "cap_mean_pct": 100.0 * counter.busy if hottest else None,
           "relief_id": best.id if best is not None else None}
    if best is not None and best.id == "headline_advice":  # (a class paragraph, titled by its class)
        out["relief_bound"] = best.message.values.get("bound")
    return out


def stall_reasons(ctx: KernelContext, done: Done) -> Iterator[Finding]:
    """The top unhealthy stall reasons (at most ``advice_max_reasons``, each at least ``advice_min_share`` of the
    stall cycles) that no specific stall finding (:func:`stall_causes`) covers, each with the generic paragraph of
    its reason (``stall:<reason>``; given only when no specific finding applies): where the reason's paragraph is
    made of remedies (``data/stalls.toml`` ``remedies``), those whose preconditions hold for the launch."""
    if ctx.stalls is None:
        return
    covered = {f.message.values.get("reason") for f in done.get("stall_causes", ())}
    picked = [
        s for s in ctx.stalls.shares
        if s.reason in reasons() and not describe(s.reason).healthy and s.share_of_stalls >= ctx.criteria["advice_min_share"]
    ]
    for s in picked[: int(ctx.criteria["advice_max_reasons"])]:
        if s.reason in covered:
            continue
        yield Finding("stall_reasons", "info", Note("stall_share", {"reason": s.reason, "share": s.share_of_stalls}),
                      (Evidence(f"stall_value.{s.reason}", s.value, ctx.stalls.family or ""),),
                      advice=f"stall:{s.reason}", source=source("advice_min_share"),
                      remedies=ctx.remedies(describe(s.reason).remedies))


#: Nsight Compute sections that decide a root cause, and the metrics by which a report shows it collected them (any
#: one: the names differ between Nsight Compute versions and GPUs).
SECTIONS = (("WarpStateStats", ("stalls",)), ("SourceCounters", (M_SECTORS,)),
            ("MemoryWorkloadAnalysis", (GLOBAL_SECTORS[0], "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                                        M_L2_HIT, M_L1_HIT)))


def not_collected(ctx: KernelContext, done: Done) -> Finding | None:
    """What the profile cannot tell: the sections of :data:`SECTIONS` a launch with Speed-of-Light figures lacks
    (a ``--set basic`` report), with the ``ncu`` options that would collect them, instead of remedies no metric
    supports. Only for an Nsight Compute report (its Launch Statistics, ``launch__grid_size``, are there). Not
    estimated; listed after the bottleneck class's paragraph."""
    m = ctx.kernel.metrics
    if ctx.sol.compute_pct is None and ctx.sol.memory_pct is None or "launch__grid_size" not in m:
        return None  # (an Nsight Compute report: its Launch Statistics; a plain-numbers file collects no sections)
    missing = [name for name, probes in SECTIONS
               if (not ctx.kernel.stall_values if probes == ("stalls",) else not any(p in m for p in probes))]
    pipe = _saturated_pipe(ctx)
    if pipe is not None:  # the limiter is settled: only the per-instruction counters can still change the advice
        missing = [name for name in missing if name == "SourceCounters"]
    if not missing:
        return None
    flags = " ".join(f"--section {name}" for name in missing)
    values = {"sections": " ".join(missing), "flags": flags}
    if pipe is not None:
        return cause(ctx, "waste_not_collected", {**values, "unit": pipe.unit or pipe.metric, "pct": pipe.pct},
                     (Evidence(pipe.metric, pipe.pct, "%"),), "compute_high_pct",
                     note="not estimated: the report does not hold what would size the waste", severity="info")
    return cause(ctx, "not_collected", values, (), "latency_sol_pct",
                 note="not estimated: the report does not hold what would size a cause", severity="info")


def _saturated_pipe(ctx: KernelContext):
    """The busiest compute unit when it is a math pipe at ``compute_high_pct`` of its peak or more and no memory unit
    is at ``memory_high_pct``: the launch's limiter, measured; else None."""
    top, mem = ctx.limiters.top_compute, ctx.limiters.top_memory
    if top is None or top.kind != "math" or top.pct < ctx.criteria["compute_high_pct"]:
        return None
    return top if mem is None or mem.pct < ctx.criteria["memory_high_pct"] else None


#: The root-cause rules, run after the class rules (:data:`kernelscope.analysis.kernel_rules.KERNEL_RULES`).
CAUSE_RULES: tuple[Rule[KernelContext], ...] = (
    Rule("uncoalesced_global", uncoalesced_global,
         inputs=(M_SECTORS, M_SECTORS_IDEAL, M_L2_SECTORS, M_L2_HIT, M_L1_HIT, *GLOBAL_SECTORS, *LOCAL_SECTORS,
                 *REQUESTS.values(), *L2_WRITES)),
    Rule("shared_bank_conflicts", shared_bank_conflicts, inputs=(*(n for t in SHARED_OPS.values() for n in t), M_LDSM)),
    Rule("uncoalesced_shared", uncoalesced_shared, parents=("shared_bank_conflicts",),
         inputs=(M_SHARED_WAVEFRONTS, M_SHARED_IDEAL)),
    Rule("excess_l1_wavefronts", excess_l1_wavefronts, parents=WAVEFRONT_FINDINGS, inputs=(DATA_PIPE_PCT, LSUIN_PCT)),
    Rule("register_spills", register_spills,
         inputs=LOCAL_SECTORS + GLOBAL_SECTORS + LOCAL_MISSES + (M_SECTORS_LOCAL, M_INST, *LOCAL_INSTRUCTIONS)),
    Rule("l2_bound", l2_bound, inputs=(M_L2_PCT,)),
    Rule("low_l2_hit_rate", low_l2_hit_rate, inputs=(M_L2_HIT, M_DRAM, M_L2_READS, "dram__bytes_read.sum")),
    Rule("dram_bandwidth_bound", dram_bandwidth_bound, inputs=(M_DRAM,)),
    Rule("atomic_contention", atomic_contention, inputs=(M_ATOMIC, M_ATOMIC_MAX)),
    Rule("hot_l2_slice", hot_l2_slice, parents=("atomic_contention",)),
    Rule("thread_divergence", thread_divergence, inputs=(M_THREADS, M_THREADS_PRED)),
    Rule("busiest_pipe", busiest_pipe, inputs=(M_ISSUE,)),
    Rule("tensor_cores_unused", tensor_cores_unused, inputs=("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",)),
    Rule("fp64_on_consumer_gpu", fp64_on_consumer_gpu, inputs=("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",)),
    Rule("unfused_fp32", unfused_fp32, inputs=(*FP32_OPS, M_FMA_PIPE)),
    Rule("workload_imbalance", workload_imbalance, inputs=IMBALANCE),
    Rule("stall_causes", stall_causes, inputs=(M_ISSUE, *ASYNC_COUNTERS)),
    Rule("stall_reasons", stall_reasons, parents=("stall_causes",)),
    Rule("not_collected", not_collected, inputs=("launch__grid_size",)),
)


def limiter_unit(finding: Finding) -> str | None:
    """The unit a limiter finding names as the launch's limiter (DRAM at its roof, an arithmetic pipe at its limit,
    a memory-instruction pipe), or None for any other finding: its remedy is the only one that relieves that unit."""
    if finding.id == "dram_bandwidth_bound":
        return "dram"
    if finding.id in ("compute_pipe_bound", "memory_instructions_bound"):
        return finding.message.values.get("unit")
    return None


def program_gain(time_share: float | None, speedup: float | None) -> float | None:
    """The share of the program's GPU time saved if a kernel taking ``time_share`` (0-1) became ``speedup`` times
    faster (Amdahl): time_share x (1 - 1 / speedup); None when either is unknown."""
    if time_share is None or speedup is None or not math.isfinite(speedup):
        return None
    return time_share * (1.0 - 1.0 / speedup)

"""Root-cause rules: the specific fault behind a verdict, measured, with its one action and its estimated gain.

One small rule per cause, in the style of Nsight Compute's rule files: each reads a few metrics by exact name
(declared in its ``inputs``), compares them with a criterion of ``verdicts.toml`` (with its source), and returns a
:class:`~.engine.Finding` with the evidence (values and metric names), the advice ``"finding:<id>"`` (the action text
is ``data/findings.toml``) and an estimated speedup of the kernel.

The estimate model (``data/findings.toml`` header; after Nsight Compute's own rules, e.g. SharedMemoryConflicts:
bank-conflict share x L1/TEX throughput): the kernel time saved is r = e x u, where e is the waste's share of the
affected unit's work and u how close that unit is to its peak (0-1); estimated speedup = 1 / (1 - r). Waste in a
unit that is not the limiter is therefore worth little. Upper bounds (a headroom, a tail, idle SMs) say so in
``speedup_note``. A rule whose inputs were not measured does not fire.
"""

from __future__ import annotations

import math
from typing import Iterator

from ..knowledge.criteria import source
from ..knowledge.stalls import describe, reasons
from ..notes import Note
from .engine import Done, Evidence, Finding, Rule
from .kernel_rules import KernelContext

#: The largest share of the time an estimate may remove (an estimate never claims the kernel vanishes).
MAX_SAVED = 0.95

M_SECTORS = "memory_l2_theoretical_sectors_global"
M_SECTORS_IDEAL = "memory_l2_theoretical_sectors_global_ideal"
M_SHARED_WAVEFRONTS = "memory_l1_wavefronts_shared"
M_SHARED_IDEAL = "memory_l1_wavefronts_shared_ideal"
M_L1_PCT = "l1tex__throughput.avg.pct_of_peak_sustained_active"
M_L2_PCT = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
M_L2_HIT = "lts__t_sector_hit_rate.pct"
M_THREADS = "smsp__thread_inst_executed_per_inst_executed.ratio"
M_THREADS_PRED = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
M_ISSUE = "sm__issue_active.avg.pct_of_peak_sustained_elapsed"
M_ATOMIC = "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"
M_DRAM = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
SHARED_OPS = {
    "ld": ("smsp__sass_inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    "st": ("smsp__sass_inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
}
M_LDSM = "smsp__inst_executed_op_ldsm.sum"
LOCAL_SECTORS = ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum")
GLOBAL_SECTORS = ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
#: FP32 add / multiply / fused multiply-add thread instructions (the roofline section's per-cycle rates).
FP32_OPS = tuple(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed" for op in ("fadd", "fmul", "ffma"))
M_FMA_PIPE = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"
IMBALANCE = ("sm__cycles_active.avg", "sm__cycles_active.max", "sm__cycles_active.sum", "sm__cycles_elapsed.sum")


def estimate(e: float, u: float | None, what: str) -> tuple[float | None, str]:
    """``(speedup, note)`` of the r = e x u model; None with the reason when u was not measured."""
    if u is None:
        return None, f"not estimated: {what} was not measured"
    r = min(MAX_SAVED, max(0.0, e) * min(1.0, max(0.0, u)))
    return 1.0 / (1.0 - r), f"r = {e:.3f} x {u:.3f} ({what}) = {r:.3f} of the time; speedup = 1 / (1 - r)"


def headroom(ctx: KernelContext) -> float | None:
    """How much faster the kernel can get while its busiest unit does the same work: 100 / the higher of the
    Speed-of-Light compute and memory %, or None when neither was measured. A change that only hides latency
    (more warps, asynchronous copies) cannot beat it."""
    busiest = max((v for v in (ctx.sol.compute_pct, ctx.sol.memory_pct) if v is not None), default=None)
    return 100.0 / busiest if busiest else None


def _pct(value: float | None) -> float | None:
    return None if value is None else value / 100.0


def cause(ctx: KernelContext, finding_id: str, values: dict, evidence: tuple[Evidence, ...], speedup: float | None,
          note: str, key: str, severity: str = "optimization") -> Finding:
    """A root-cause finding: message ``f_<id>`` of labels.toml, advice ``finding:<id>``, criterion ``key``'s source."""
    return Finding(finding_id, severity, Note(f"f_{finding_id}", values), evidence, advice=f"finding:{finding_id}",
                   estimated_speedup=speedup, speedup_note=note, source=source(key))


# --------------------------------------------------------------------------------------------- memory access


def uncoalesced_global(ctx: KernelContext, done: Done) -> Finding | None:
    """Global loads/stores that touch more 32-byte sectors than the addresses need (Nsight's
    ``memory_l2_theoretical_sectors_global`` vs ``..._ideal``)."""
    m = ctx.kernel.metrics
    sectors, ideal = m.get(M_SECTORS), m.get(M_SECTORS_IDEAL)
    if not sectors or ideal is None or sectors <= ideal:
        return None
    e = (sectors - ideal) / sectors
    if e < ctx.criteria["uncoalesced_excess_share"]:
        return None
    # the excess sectors pass through L1/TEX and L2: the busier of the two bounds what removing them saves
    l1, l2 = m.get(M_L1_PCT), m.get(M_L2_PCT)
    busier = max((v for v in (l1, l2) if v is not None), default=ctx.sol.memory_pct)
    s, note = estimate(e, _pct(busier), "the busier of L1/TEX and L2 throughput")
    return cause(ctx, "uncoalesced_global", {"excess_pct": 100 * e, "excess": sectors - ideal, "sectors": sectors,
                                             "ideal": ideal},
                 (Evidence(M_SECTORS, sectors, "sector"), Evidence(M_SECTORS_IDEAL, ideal, "sector"),
                  Evidence(M_L1_PCT, l1, "%"), Evidence(M_L2_PCT, l2, "%")), s, note, "uncoalesced_excess_share")


def uncoalesced_shared(ctx: KernelContext, done: Done) -> Finding | None:
    """Shared-memory requests that need more wavefronts than ideal (``memory_l1_wavefronts_shared[_ideal]``)."""
    m = ctx.kernel.metrics
    wavefronts, ideal = m.get(M_SHARED_WAVEFRONTS), m.get(M_SHARED_IDEAL)
    if not wavefronts or ideal is None or wavefronts <= ideal:
        return None
    e = (wavefronts - ideal) / wavefronts
    if e < ctx.criteria["uncoalesced_excess_share"]:
        return None
    s, note = estimate(e, _pct(m.get(M_L1_PCT)), "L1/TEX throughput")
    return cause(ctx, "uncoalesced_shared", {"excess_pct": 100 * e, "wavefronts": wavefronts, "ideal": ideal},
                 (Evidence(M_SHARED_WAVEFRONTS, wavefronts, "wavefront"), Evidence(M_SHARED_IDEAL, ideal, "wavefront"),
                  Evidence(M_L1_PCT, m.get(M_L1_PCT), "%")), s, note, "uncoalesced_excess_share")


def shared_bank_conflicts(ctx: KernelContext, done: Done) -> Iterator[Finding]:
    """Shared loads / stores whose bank conflicts are at least ``shared_conflict_share`` of their wavefronts;
    n-way = wavefronts / requests (Nsight Compute's SharedMemoryConflicts rule)."""
    m = ctx.kernel.metrics
    for op, (requests_name, wavefronts_name, conflicts_name) in SHARED_OPS.items():
        requests = m.get(requests_name, 0.0) + (m.get(M_LDSM, 0.0) if op == "ld" else 0.0)
        wavefronts, conflicts = m.get(wavefronts_name), m.get(conflicts_name)
        if not requests or not wavefronts or conflicts is None:
            continue
        e = conflicts / wavefronts
        if e < ctx.criteria["shared_conflict_share"]:
            continue
        s, note = estimate(e, _pct(m.get(M_L1_PCT)), "L1/TEX throughput")
        yield cause(ctx, "shared_bank_conflicts",
                    {"op": op, "nway": wavefronts / requests, "conflict_pct": 100 * e, "wavefronts": wavefronts},
                    (Evidence(conflicts_name, conflicts, "conflict"), Evidence(wavefronts_name, wavefronts, "wavefront"),
                     Evidence(requests_name, requests, "request"), Evidence(M_L1_PCT, m.get(M_L1_PCT), "%")),
                    s, note, "shared_conflict_share")


def register_spills(ctx: KernelContext, done: Done) -> Finding | None:
    """Local-memory traffic (register spills, dynamically indexed per-thread arrays) as a share of L1 sectors."""
    m = ctx.kernel.metrics
    if not all(n in m for n in LOCAL_SECTORS + GLOBAL_SECTORS):
        return None
    local = sum(m[n] for n in LOCAL_SECTORS)
    total = local + sum(m[n] for n in GLOBAL_SECTORS)
    if not total or local / total < ctx.criteria["spill_local_share"]:
        return None
    e = local / total
    s, note = estimate(e, _pct(ctx.sol.memory_pct), "memory throughput")
    return cause(ctx, "register_spills", {"local_pct": 100 * e, "local": local, "total": total},
                 tuple(Evidence(n, m[n], "sector") for n in LOCAL_SECTORS + GLOBAL_SECTORS), s, note,
                 "spill_local_share")


# --------------------------------------------------------------------------------------------- memory levels


def l2_bound(ctx: KernelContext, done: Done) -> Finding | None:
    """L2 is the busiest memory level and at least ``latency_sol_pct`` of its peak."""
    lv = ctx.limiting_level
    if lv is None or lv.level != "l2" or lv.throughput_pct < ctx.criteria["latency_sol_pct"]:  # type: ignore[operator]
        return None
    return cause(ctx, "l2_bound", {"pct": lv.throughput_pct}, (Evidence(M_L2_PCT, lv.throughput_pct, "%"),),
                 None, "not estimated: the gain depends on the reuse the change achieves", "latency_sol_pct")


def low_l2_hit_rate(ctx: KernelContext, done: Done) -> Finding | None:
    """L2 hit rate below ``l2_hit_low_pct`` while DRAM is busy (at least ``l2_hit_dram_pct`` of its peak)."""
    hit, dram = ctx.kernel.metrics.get(M_L2_HIT), ctx.dram
    if hit is None or dram is None or hit >= ctx.criteria["l2_hit_low_pct"] or dram.value < ctx.criteria["l2_hit_dram_pct"]:
        return None
    return cause(ctx, "low_l2_hit_rate", {"hit": hit, "dram": dram.value}, (Evidence(M_L2_HIT, hit, "%"), dram),
                 None, "not estimated: the gain depends on the hit rate the change achieves", "l2_hit_low_pct")


def dram_bandwidth_bound(ctx: KernelContext, done: Done) -> Finding | None:
    """DRAM at ``memory_high_pct`` of its peak or more: only moving fewer bytes helps; the headroom of anything
    else is 100 / DRAM %."""
    dram = ctx.dram
    if dram is None or dram.value < ctx.criteria["memory_high_pct"]:
        return None
    headroom = 100.0 / dram.value
    return cause(ctx, "dram_bandwidth_bound", {"pct": dram.value, "headroom": headroom}, (dram,),
                 max(1.0, headroom), "upper bound of any change that moves the same bytes: 100 / DRAM %",
                 "memory_high_pct")


def atomic_contention(ctx: KernelContext, done: Done) -> Finding | None:
    """The L2 atomic unit at ``atomic_unit_pct`` of its peak or more."""
    pct = ctx.kernel.memory_breakdown_pct.get(M_ATOMIC)
    if pct is None or pct < ctx.criteria["atomic_unit_pct"]:
        return None
    s, note = estimate(31 / 32, pct / 100, "L2 atomic-unit throughput; one atomic per warp instead of per thread")
    return cause(ctx, "atomic_contention", {"pct": pct}, (Evidence(M_ATOMIC, pct, "%"),), s, note, "atomic_unit_pct")


# ------------------------------------------------------------------------------------------------- compute


def thread_divergence(ctx: KernelContext, done: Done) -> Finding | None:
    """Fewer than ``divergence_threads`` threads active (or predicated on) per executed instruction, of 32
    (Nsight Compute's ThreadDivergence threshold)."""
    m = ctx.kernel.metrics
    threads, pred = m.get(M_THREADS), m.get(M_THREADS_PRED)
    if threads is None:
        return None
    used = min(threads, pred if pred is not None else threads)
    if used >= ctx.criteria["divergence_threads"]:
        return None
    s, note = estimate(1.0 - used / 32.0, _pct(ctx.sol.compute_pct), "compute (SM) throughput")
    return cause(ctx, "thread_divergence", {"threads": threads, "threads_pred": pred if pred is not None else threads},
                 (Evidence(M_THREADS, threads, "thread"), Evidence(M_THREADS_PRED, pred, "thread")), s, note,
                 "divergence_threads")


def busiest_pipe(ctx: KernelContext, done: Done) -> Finding | None:
    """The busiest SM unit at ``memory_instructions_pct`` or more: a memory-instruction pipe (LSU, MIO, TEX) is a
    memory-access problem; an arithmetic pipe at ``compute_high_pct`` or more is at its limit (headroom 100 / %)."""
    top = ctx.limiters.top_compute
    if top is None or top.unit is None:
        return None
    ev = (Evidence(top.metric, top.pct, "%"),)
    if top.kind == "memory_instructions" and top.pct >= ctx.criteria["memory_instructions_pct"]:
        return cause(ctx, "memory_instructions_bound", {"unit": top.unit, "pct": top.pct}, ev, None,
                     "not estimated: the gain depends on the reuse the change achieves", "memory_instructions_pct")
    if top.kind == "math" and top.pct >= ctx.criteria["compute_high_pct"]:
        headroom = 100.0 / top.pct
        return cause(ctx, "compute_pipe_bound", {"unit": top.unit, "pct": top.pct, "headroom": headroom}, ev,
                     max(1.0, headroom), "upper bound of any change that keeps the instructions: 100 / pipe %",
                     "compute_high_pct")
    return None


def tensor_cores_unused(ctx: KernelContext, done: Done) -> Finding | None:
    """FP16 or FP32 math on CUDA cores, compute-bound on the roofline (arithmetic intensity above the ridge point:
    matrix-like work, not element-wise), with the pipe at ``tensor_unused_pipe_pct`` of its peak or more, while the
    GPU has tensor cores for it (FP16/BF16 tensor, TF32 tensor) and the tensor pipe is idle."""
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
    s, note = estimate(1.0 - cuda_peak / tensor_peak, pct / 100, f"{unit} pipe utilisation (upper bound)")
    return cause(ctx, "tensor_cores_unused", {"pipe": r.pipe, "tensor_pipe": tensor, "pct": pct,
                                              "tensor_pct": busy_tensor, "ratio": tensor_peak / cuda_peak},
                 (Evidence("flops." + r.pipe, r.flops, "FLOP"), Evidence("pipe." + unit, pct, "%"),
                  Evidence("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", busy_tensor, "%")),
                 s, note, "tensor_unused_pipe_pct")


def fp64_on_consumer_gpu(ctx: KernelContext, done: Done) -> Finding | None:
    """FP64 work on a GPU whose FP64 peak is at most 1/``fp64_slow_ratio`` of its FP32 peak, with the FP64 pipe at
    ``fp64_pipe_pct`` of its peak or more."""
    gpu = ctx.gpu
    if gpu is None or not ctx.kernel.flop_counts.get("fp64"):
        return None
    fp64, fp32 = gpu.peak_flops_per_s.get("fp64"), gpu.peak_flops_per_s.get("fp32")
    pct = max((load.pct for load in ctx.limiters.compute if load.unit == "fp64"), default=None)
    if not fp64 or not fp32 or fp32 / fp64 < ctx.criteria["fp64_slow_ratio"] or pct is None \
            or pct < ctx.criteria["fp64_pipe_pct"]:
        return None
    s, note = estimate(1.0 - fp64 / fp32, pct / 100, "FP64 pipe utilisation (upper bound)")
    return cause(ctx, "fp64_on_consumer_gpu", {"ratio": fp32 / fp64, "pct": pct},
                 (Evidence("flops.fp64", ctx.kernel.flop_counts["fp64"], "FLOP"), Evidence("pipe.fp64", pct, "%")),
                 s, note, "fp64_slow_ratio")


def unfused_fp32(ctx: KernelContext, done: Done) -> Finding | None:
    """Separate FP32 multiplies and adds that could be one fused multiply-add: at most min(FADD, FMUL) pairs fuse,
    each saving one instruction. Reported when those pairs are ``fusable_share`` of the FP32 instructions or more.
    Estimate r = pairs / (FADD + FMUL + FFMA) x FMA pipe utilisation (Nsight Compute's FPInstructions rule counts
    every non-fused instruction as fusable; an add without a multiply to pair with cannot fuse)."""
    m = ctx.kernel.metrics
    fadd, fmul, ffma = (m.get(n) for n in FP32_OPS)
    if fadd is None or fmul is None or ffma is None or not fadd + fmul + ffma:
        return None
    e = min(fadd, fmul) / (fadd + fmul + ffma)
    if e < ctx.criteria["fusable_share"]:
        return None
    s, note = estimate(e, _pct(ctx.kernel.compute_breakdown_pct.get(M_FMA_PIPE)), "FMA pipe utilisation")
    return cause(ctx, "unfused_fp32", {"fusable_pct": 100 * e},
                 (*(Evidence(n, v, "inst/cycle") for n, v in zip(FP32_OPS, (fadd, fmul, ffma))),
                  Evidence(M_FMA_PIPE, ctx.kernel.compute_breakdown_pct.get(M_FMA_PIPE), "%")),
                 s, note, "fusable_share")


def workload_imbalance(ctx: KernelContext, done: Done) -> Finding | None:
    """The busiest SM active much longer than the average one (Nsight Compute's WorkloadImbalance model:
    r = (1 - avg / max) x active / elapsed cycles, reported from ``imbalance_min_share``)."""
    m = ctx.kernel.metrics
    if not all(m.get(n) for n in IMBALANCE):
        return None
    avg, peak, active, elapsed = (m[n] for n in IMBALANCE)
    r = (1.0 - avg / peak) * active / elapsed
    if r < ctx.criteria["imbalance_min_share"]:
        return None
    return cause(ctx, "workload_imbalance", {"above_pct": 100 * (peak / avg - 1.0)},
                 tuple(Evidence(n, m[n], "cycle") for n in IMBALANCE), 1.0 / (1.0 - min(MAX_SAVED, r)),
                 f"r = (1 - avg/max) x active/elapsed = {r:.3f}; speedup = 1 / (1 - r)", "imbalance_min_share")


# -------------------------------------------------------------------------------------------------- stalls

#: Stall reason -> (finding id, criterion of its share of stall cycles).
STALL_CAUSES = {
    "long_scoreboard": ("long_scoreboard_latency", "long_scoreboard_share"),
    "mio_throttle": ("mio_throttle", "mio_throttle_share"),
    "lg_throttle": ("lg_throttle", "lg_throttle_share"),
    "barrier": ("barrier_stall", "barrier_share"),
}


def stall_causes(ctx: KernelContext, done: Done) -> Iterator[Finding]:
    """A stall reason at its criterion's share of the stall cycles or more. Estimate: hiding it removes its share
    of all warp cycles, when the SM had nothing to issue: r = share of all cycles x (1 - issue active)."""
    if ctx.stalls is None:
        return
    issue = ctx.kernel.compute_breakdown_pct.get(M_ISSUE)
    cap = headroom(ctx)
    for s in ctx.stalls.shares:
        if s.reason not in STALL_CAUSES:
            continue
        finding_id, key = STALL_CAUSES[s.reason]
        if s.share_of_stalls < ctx.criteria[key]:
            continue
        idle = None if issue is None else 1.0 - issue / 100.0
        speedup, note = estimate(s.share, idle, "share of cycles with no instruction issued")
        if speedup is not None and cap is not None and speedup > cap:
            speedup, note = max(1.0, cap), f"{note}; capped at the busiest unit's headroom 100 / {100 / cap:.1f}%"
        values = {"reason": s.reason, "share": s.share_of_stalls}
        message_key = "f_stall" if idle is None else f"f_{finding_id}"
        yield Finding(finding_id, "optimization", Note(message_key, values if idle is None else {**values, "idle": idle}),
                      (Evidence(f"stall_share.{s.reason}", s.share_of_stalls, "share"), Evidence(M_ISSUE, issue, "%")),
                      advice=f"finding:{finding_id}", estimated_speedup=speedup, speedup_note=note, source=source(key))


def stall_reasons(ctx: KernelContext, done: Done) -> Iterator[Finding]:
    """The top unhealthy stall reasons (at most ``advice_max_reasons``, each at least ``advice_min_share`` of the
    stall cycles) that no specific stall finding (:func:`stall_causes`) covers, each with the generic paragraph of
    its reason (``stall:<reason>``; given only when no specific finding applies)."""
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
                      advice=f"stall:{s.reason}", source=source("advice_min_share"))


#: The root-cause rules, run after the class rules (:data:`kernelscope.analysis.kernel_rules.KERNEL_RULES`).
CAUSE_RULES: tuple[Rule[KernelContext], ...] = (
    Rule("uncoalesced_global", uncoalesced_global, inputs=(M_SECTORS, M_SECTORS_IDEAL, M_L1_PCT, M_L2_PCT)),
    Rule("uncoalesced_shared", uncoalesced_shared, inputs=(M_SHARED_WAVEFRONTS, M_SHARED_IDEAL, M_L1_PCT)),
    Rule("shared_bank_conflicts", shared_bank_conflicts, inputs=(*(n for t in SHARED_OPS.values() for n in t), M_LDSM)),
    Rule("register_spills", register_spills, inputs=LOCAL_SECTORS + GLOBAL_SECTORS),
    Rule("l2_bound", l2_bound, inputs=(M_L2_PCT,)),
    Rule("low_l2_hit_rate", low_l2_hit_rate, inputs=(M_L2_HIT, M_DRAM)),
    Rule("dram_bandwidth_bound", dram_bandwidth_bound, inputs=(M_DRAM,)),
    Rule("atomic_contention", atomic_contention, inputs=(M_ATOMIC,)),
    Rule("thread_divergence", thread_divergence, inputs=(M_THREADS, M_THREADS_PRED)),
    Rule("busiest_pipe", busiest_pipe, inputs=(M_ISSUE,)),
    Rule("tensor_cores_unused", tensor_cores_unused, inputs=("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",)),
    Rule("fp64_on_consumer_gpu", fp64_on_consumer_gpu, inputs=("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",)),
    Rule("unfused_fp32", unfused_fp32, inputs=(*FP32_OPS, M_FMA_PIPE)),
    Rule("workload_imbalance", workload_imbalance, inputs=IMBALANCE),
    Rule("stall_causes", stall_causes, inputs=(M_ISSUE,)),
    Rule("stall_reasons", stall_reasons, parents=("stall_causes",)),
)


def program_gain(time_share: float | None, speedup: float | None) -> float | None:
    """The share of the program's GPU time saved if a kernel taking ``time_share`` (0-1) became ``speedup`` times
    faster (Amdahl): time_share x (1 - 1 / speedup); None when either is unknown."""
    if time_share is None or speedup is None or not math.isfinite(speedup):
        return None
    return time_share * (1.0 - 1.0 / speedup)

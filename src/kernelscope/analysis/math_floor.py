"""The floor the math sets under every change that removes other work: what the arithmetic a kernel does needs of
its pipes and of instruction issue, and the change of an ideal remedy that leaves only that math (the memory-instruction
limit's, every value loaded once and reused; a bottleneck class paragraph's, every access and every instruction the
math does not need gone). Pure functions over the performance model's units (:mod:`.performance`); no I/O."""

from __future__ import annotations

from typing import Mapping

from ..knowledge.metrics import flop_ops
from ..knowledge.units import fma_split
from .performance import SHARED_UNIT, UPPER_BOUND, Change, Units
from .roofline import RooflinePoint

#: The SM-side units of memory instructions (data/units.toml): their work goes with the instructions.
MEMORY_INSTRUCTION_UNITS = ("lsu", "mio", "tex", "idc", "l1", SHARED_UNIT)
#: The arithmetic pipes whose instructions stay when memory instructions go (reuse keeps the math).
MATH_UNITS = ("fma", "fp16", "fp64", "tensor", "shared_pipe", "xu")


def reuse_change(units: Units, roofline: RooflinePoint | None, cc: tuple[int, int] | None,
                 metrics: Mapping[str, float], everything: bool = False) -> Change | None:
    """The change of the memory-instruction limit's remedy, at its ideal (upper bound: every value loaded once and
    reused from registers or shared memory): the work of the SM-side memory units (LSU, MIO, TEX, L1, shared memory)
    goes, and so does the share of instruction issue (and, for FP32 work, of the FMA pipe, which also runs the
    address arithmetic's integer multiply-adds) that the math does not need: the math needs its executed FLOPs at the
    pipe's peak (the roofline's achieved / peak FLOP/s); without a FLOP count, the FP32 floor of the FMA pipes
    (:func:`fp32_floor`) or, where the report cannot bound it, none from the FMA pipe, beside the busiest other
    arithmetic pipe; L2 and DRAM stay. So the bound is the kernel's own math roof (register tiling of a tiled SGEMM
    at 12 % of the FP32 peak, LSU pipe 88 %: up to ~8x; the same author's register-tiled kernel ran 6.8x faster).

    The floor is the FLOPs, not the FP instructions as they are: an FMUL or FADD beside each FFMA takes a whole lane
    slot for one FLOP, but the rewrite may drop it (that SGEMM's FMUL by alpha per product: the register-tiled kernel
    applies alpha once per output, its FMULs are gone, and it ran faster than a floor of one slot per FMUL allows:
    6.8x against 6.3x). The slots the instructions take now (:func:`fp_slot_share`) are stated beside the bound.
    Nor is the FMA pipe's busy share a floor: a coalesced but untiled SGEMM (A10G, no FLOP count, FMAheavy 23.9 %,
    LSU 91 %) was bounded at 4.18x by it, and the same author's tiled kernels ran 5.2-7.2x faster, cuBLAS 9.3x.

    ``everything``: the ideal of a bottleneck class's paragraph instead (fewer instructions, fewer and fuller memory
    accesses): the work of every measured unit but the arithmetic pipes goes, memory traffic at L2 and DRAM too, every
    wait with it, and only the floating-point math is left (upper bound); None where the kernel has none to keep. ``units``: the launch's (:func:`.performance.units_of`); ``roofline``: the
    point of the pipe it uses most, or None; ``cc``: its compute capability, or None; ``metrics``: its raw metrics."""
    r = roofline
    flops = None
    if r is not None and r.achieved_flops_per_s and r.peak_flops_per_s and not r.flops_estimated:
        flops = min(1.0, r.achieved_flops_per_s / r.peak_flops_per_s)
    # (a class paragraph's ideal also drops the XU pipe's work: it runs integer and conversion instructions beside
    # the transcendentals, and a rewrite can drop them all: the divergent reduction's modulo, 42 % of the XU pipe, was
    # gone in the next version, which ran 1.84x faster)
    kept = tuple(u for u in MATH_UNITS if not (everything and u == "xu"))
    pipes = {u: b for u in kept if (b := units.busy(u)) is not None}
    if not pipes and flops is None:
        return None
    fma = pipes.pop("fma", None)
    fp32 = fp32_floor(units, cc) if flops is None and fma else None
    if flops is not None:
        math_busy = flops
    else:
        math_busy = max([*pipes.values(), *((fp32,) if fp32 is not None else ())], default=0.0)
    work = {u: 1.0 for u in MEMORY_INSTRUCTION_UNITS}
    # what the math itself needs of issue and of its pipe: the executed FLOPs at the pipe's peak, else the FP32 floor
    # (the FMA pipe also runs the integer multiply-adds of the address arithmetic, which go with the loads)
    reduced = ["issue"]
    if fma and (flops is None or (r is not None and r.pipe == "fp32")):
        reduced.append("fma")
    for unit in reduced:
        busy = units.busy(unit)
        if busy:
            floor = (fp32 or 0.0) if unit == "fma" and flops is None else math_busy
            work[unit] = max(0.0, 1.0 - floor / busy)
    slots = fp_slot_share(metrics, r.pipe, flops) if flops is not None and r is not None else None
    slots_note = f"; {100 * slots:.1f}% of its instruction slots while each FP instruction stays" \
        if slots is not None and slots > 1.05 * flops else ""  # type: ignore[operator]
    if flops is not None:
        why = f" of the FP32 peak: the executed FLOPs{slots_note})" if "fma" in reduced else ")"
    elif fp32 is not None:
        heavy = units.counter(fma_split().heavy).busy  # type: ignore[union-attr]
        why = (f"; the FP32 work at the two FMA pipes' peak, at least the FMA-lite pipe's {200 * fp32:.1f}%: the "
               f"FMA-heavy pipe's {100 * heavy:.1f}% also holds the address arithmetic's integer multiply-adds)")
    elif fma:
        why = (f"; no FLOP count, and the FMA pipe's {100 * fma:.1f}% also holds the address arithmetic's integer "
               "multiply-adds: no floor from it)")
    else:
        why = ")"
    if not everything:
        return Change(work, kind=UPPER_BOUND, what="every value loaded once and reused: the LSU, MIO, L1 and "
                                                   f"shared-memory work go, issue down to what the math needs "
                                                   f"({100 * math_busy:.1f}%" + why)
    # a class paragraph's ideal: every other unit's work goes too (memory traffic at every level, integer and control
    # instructions) and so does every wait (a rewrite changes the structure, not only the units' work: the in-place
    # reduction's fourth version ran 4.24x faster where the saving rule, the busiest unit's 66.9 %, allowed 3.02x), so
    # only the math bounds it; with less floating-point work to keep than the launch's own floor (units.min_share),
    # nothing the report measured does, and it is not sized
    if math_busy <= units.min_share or not units.busy("issue"):  # (issue carries the floor into the model: without
        return None  # it no measured unit would, and the launch's own floor would stand in for the math)
    work.update({c.unit: 1.0 for c in units.counters if c.unit not in kept and c.unit not in work})
    return Change(work, waiting=1.0, kind=UPPER_BOUND,
                  what="every access ideal, every instruction the math does not need and every wait gone: the "
                       f"floating-point math left at its peak ({100 * math_busy:.1f}%" + why)


def fp32_floor(units: Units, cc: tuple[int, int] | None) -> float | None:
    """Without a FLOP count: the least share of the elapsed time (0-1) the FP32 math takes of the FMA pipes once the
    address arithmetic's integer multiply-adds are gone, or None where the report cannot bound it. Where the FMA pipe
    is FMAheavy (FP32 and IMAD) beside FMAlite (FP32 only) (``data/units.toml`` ``[fma_split]``, with its sources),
    the FP32 work is at least the lite pipe's, lite = 2 x fma - heavy, and spread over both pipes at their peak it
    takes half that: lite / 2 of the time (and of instruction issue: one FP32 warp instruction per issue slot is the
    two pipes' peak). Elsewhere one pipe runs IMAD and FP32 alike: None."""
    split = fma_split()
    if cc is None or f"{cc[0]}.{cc[1]}" not in split.compute_capabilities:
        return None
    logical, heavy = units.counter(split.logical), units.counter(split.heavy)
    if logical is None or heavy is None:
        return None
    lite = 2.0 * logical.busy - heavy.busy
    if not -1e-9 <= lite <= 1.0 + 1e-9:  # (not the mean of the two pipes: the report is not of such a GPU)
        return None
    return max(0.0, lite) / 2.0


def fp_slot_share(m, pipe: str, flop_share: float) -> float | None:
    """The share of the ``pipe``'s (``"fp32"``, ``"fp16"``, ``"fp64"``) instruction slots its FP instructions take,
    from the share of its FLOP peak they reach (``flop_share``, 0-1): each add, multiply or fused multiply-add is one
    slot per thread, the peak is the fused one's FLOPs per slot (``data/metrics.toml`` ``[flop]``), so slots =
    ``flop_share`` x max weight x instructions / FLOPs. From the instruction counts (``sm__``/``smsp__`` ``.sum``),
    else the per-cycle rates; None when any of the three is not measured or they are all 0."""
    ops = flop_ops().get(pipe)
    if not ops:
        return None
    stems = [f"sass_thread_inst_executed_op_{op}_pred_on" for op, _ in ops]
    for names in ([f"sm__{s}.sum" for s in stems], [f"smsp__{s}.sum" for s in stems],
                  [f"smsp__{s}.sum.per_cycle_elapsed" for s in stems]):
        counts = [m.get(n) for n in names]
        if all(c is not None for c in counts):
            fl = sum(c * w for c, (_, w) in zip(counts, ops))
            return flop_share * max(w for _, w in ops) * sum(counts) / fl if fl > 0 else None
    return None

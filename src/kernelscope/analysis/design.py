"""What the kernel is, before advising it: its design, its build and its origin, as its report shows them.

A performance engineer looks at the kernel before proposing a remedy: a persistent grid sized to the GPU has one
block per SM by design (occupancy advice does not apply), a kernel that already copies with cp.async / TMA needs a
deeper pipeline rather than "add a double buffer", a kernel already on the tensor cores needs feeding rather than
"use tensor cores", a library kernel (cuBLAS, cuDNN, ATen, a generated Triton kernel) has no code to edit, and a
device-debug build (``nvcc -G``) measures the debugger's code, not the program's. :func:`design_of` derives that once
per launch from what the report holds: the SASS opcode mix (Instruction Statistics, ``sass__inst_executed_per_opcode``,
when collected), the asynchronous-copy and tensor counters, the launch geometry and occupancy, the compute
capability and the kernel's name; :func:`facts_of` turns it, with the rest of the launch's diagnosis, into the facts
the remedies' preconditions name (:data:`kernelscope.knowledge.remedies.FACTS`). Pure functions; no I/O.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Mapping

from ..knowledge.gpus import DERIVED_ORIGIN
from ..knowledge.libraries import Family, family_of
from ..knowledge.remedies import remedy
from ..knowledge.units import MEMORY_PREFIXES, by_metric
from ..model import GpuSpec, KernelProfile
from ..notes import Note, quick_init
from .occupancy import Occupancy, block_size_step, stage_cost, stage_costs_occupancy
from .performance import Units
from .stalls import StallBreakdown

#: Opcodes of asynchronous global -> shared copies: cp.async (LDGSTS) and the TMA / bulk copies (Hopper and later).
ASYNC_OPCODES = ("LDGSTS", "UTMALDG", "UBLKCP", "UTMAPF")
#: Opcodes of the tensor cores: warp-level MMA (HMMA, IMMA, DMMA, BMMA), warpgroup MMA (Hopper: HGMMA, IGMMA, QGMMA,
#: BGMMA) and the tcgen05 MMAs of Blackwell (UTC*MMA).
TENSOR_OPCODES = ("HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA", "UTCHMMA", "UTCIMMA", "UTCQMMA",
                  "UTCOMMA", "UTCMMA")
#: Counters of the same, for reports without the opcode table (warp instructions).
ASYNC_COUNTERS = ("smsp__inst_executed_op_ldgsts.sum", "smsp__inst_executed_op_tma_ld.sum",
                  "smsp__sass_inst_executed_op_tma_ld.sum")
#: Global memory opcodes as compiled code spells them, and the generic ones device-debug code uses instead.
GLOBAL_OPCODES = ("LDG", "STG")
GENERIC_OPCODES = ("LD", "ST")
#: Share of the memory instructions that generic accesses reach in a device-debug build (``nvcc -G`` keeps every
#: pointer generic: LD.E / ST.E, no LDG / STG), and share of all instructions its register moves and branches reach
#: (``MOV R5, R5``, a BRA to the next instruction around every statement). Optimised code has neither: the shared
#: corpus' optimised kernels issue LDG / STG for their global accesses, and MOV + BRA below 15 % of their instructions.
DEBUG_GENERIC_SHARE = 0.5
DEBUG_MOVE_BRANCH_SHARE = 0.3
#: Global loads per warp below which a kernel makes one pass over its data (a reduction, an element-wise kernel:
#: each warp loads its few elements once) rather than looping over tiles: a double buffer has no next tile to
#: prefetch. The tiled GEMMs of the shared corpus issue 64-1024 LDG (or LDGSTS) per warp, its reductions 1-4.
SINGLE_PASS_LOADS = 8.0
#: Global load requests (one per warp-level load instruction), for reports without the opcode mix.
LOAD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"


@quick_init
@dataclass(frozen=True)
class Design:
    """What one launch's report shows of the kernel itself.

    Attributes:
        library: the library family the kernel's name belongs to (``data/libraries.toml``), or None for user code.
        async_copies: asynchronous global -> shared copies executed (cp.async / TMA, warp instructions), or None
            when the report counted neither the opcodes nor the counters.
        tensor_instructions: tensor-core MMA instructions executed (warp instructions), or None when not counted.
        warpgroup_mma: the kernel issues Hopper warpgroup MMAs (HGMMA ...), or None when not counted.
        debug_build: True when the opcode mix is a device-debug build's (generic loads and stores instead of
            LDG / STG, register moves and branches everywhere: :data:`DEBUG_GENERIC_SHARE`,
            :data:`DEBUG_MOVE_BRANCH_SHARE`), False when it is not, None without the opcode mix.
        persistent: the grid is sized to the GPU rather than to the data: at least as many blocks as SMs and no
            more than fit at once (one wave, ``blocks <= SMs x resident blocks per SM``), each block looping over
            work: occupancy is the design's choice, not a limit to lift. None when not known.
        evidence: the figures behind the flags (``"generic_share"``, ``"move_branch_share"``, ``"blocks"``,
            ``"global_loads_per_warp"`` ...).
    """

    library: Family | None
    async_copies: float | None
    tensor_instructions: float | None
    warpgroup_mma: bool | None
    debug_build: bool | None
    persistent: bool | None
    evidence: Mapping[str, float]


def _sum(counts: Mapping[str, float], names: tuple[str, ...]) -> float:
    return sum(v for k, v in counts.items() if k in names)


def design_of(kernel: KernelProfile, occupancy: Occupancy | None, sm_count: int | None) -> Design:
    """The :class:`Design` of one launch (see the module docstring)."""
    ops, m = kernel.opcode_counts, kernel.metrics
    evidence: dict[str, float] = {}
    counted = [v for n in ASYNC_COUNTERS if (v := m.get(n)) is not None]
    if ops:
        async_copies: float | None = _sum(ops, ASYNC_OPCODES)
        tensor: float | None = _sum(ops, TENSOR_OPCODES)
        wgmma: bool | None = any(ops.get(op) for op in ("HGMMA", "IGMMA", "QGMMA", "BGMMA"))
    else:
        async_copies = sum(counted) if counted else None
        tensor, wgmma = None, None
    debug = None
    if ops:
        total = sum(ops.values())
        generic, global_ = _sum(ops, GENERIC_OPCODES), _sum(ops, GLOBAL_OPCODES)
        moves = ops.get("MOV", 0.0) + ops.get("BRA", 0.0)
        if total > 0 and generic + global_ > 0:
            evidence["generic_share"] = generic / (generic + global_)
            evidence["move_branch_share"] = moves / total
            debug = evidence["generic_share"] >= DEBUG_GENERIC_SHARE and \
                evidence["move_branch_share"] >= DEBUG_MOVE_BRANCH_SHARE
        elif total > 0:
            debug = False
    blocks = kernel.launch.blocks
    threads = kernel.launch.threads_per_block
    requests = m.get(LOAD_REQUESTS)
    if blocks and threads and (ops or requests is not None):
        warps = blocks * -(-threads // 32)
        loads = ops.get("LDG", 0.0) + ops.get("LDGSTS", 0.0) + ops.get("LD", 0.0) if ops else requests
        evidence["global_loads_per_warp"] = loads / warps  # type: ignore[operator]
    persistent = None
    if blocks and sm_count and occupancy is not None and occupancy.active_blocks_per_sm:
        evidence["blocks"], evidence["sms"] = float(blocks), float(sm_count)
        persistent = sm_count <= blocks <= sm_count * occupancy.active_blocks_per_sm and blocks % sm_count == 0
    return Design(family_of(kernel.demangled_name or kernel.name), async_copies, tensor, wgmma, debug, persistent,
                  evidence)


#: Pairs of counters that show how a launch's accesses use the L1/TEX cache: the requests and sectors of its global
#: loads (sectors per request; Nsight Compute's MemoryWorkloadAnalysis tables) and its shared-memory wavefronts
#: against the ideal (SourceCounters). Without one whole pair, a busy L1 is not known to be caused by its accesses'
#: shape (the ``l1_access_measured`` fact).
L1_ACCESS_MEASURED = (
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("memory_l1_wavefronts_shared", "memory_l1_wavefronts_shared_ideal"),
)

#: Units of the performance model that are math pipes of the CUDA cores.
MATH_UNITS = ("fma", "fp16", "fp64")


#: Nsight Compute's blocks-per-SM limits (Occupancy section): an SM holds the smallest of them.
OCCUPANCY_LIMITS = ("launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                    "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps")


def _fills_sms(kernel: KernelProfile, occupancy: Occupancy | None, sm_count: int | None,
               waves: float | None) -> bool:
    """Whether the grid has at least as many blocks as the GPU has SMs: from ``sm_count`` (the diagnosis's: the
    device's, else the GPU's), else from ``waves`` (:func:`.occupancy.waves_per_sm`) x the blocks an SM holds
    (blocks / SMs = waves x blocks per SM, so a report that names no SM count still tells: 0.27 waves of 6 blocks per
    SM is 1.6 blocks per SM). False when neither is known."""
    blocks = kernel.launch.blocks
    if blocks is not None and sm_count:
        return blocks >= sm_count
    per_sm = occupancy.active_blocks_per_sm if occupancy is not None else None
    if per_sm is None:  # (no occupancy of ours: Nsight's own block limits, the smallest of them)
        limits = [kernel.metrics[n] for n in OCCUPANCY_LIMITS if n in kernel.metrics]
        per_sm = min(limits) if limits else None
    return bool(waves and per_sm) and waves * per_sm >= 1.0


def remedy_values(remedies: tuple[str, ...], occupancy: Occupancy | None) -> dict[str, int]:
    """The occupancy figures that the texts of ``remedies`` (``data/remedies.toml``) name, for the finding that offers
    them: ``stage_*`` fields, what a second pipeline stage costs (:func:`.occupancy.stage_cost`); ``block_*`` fields,
    the block size that fits more warps (:func:`.occupancy.block_size_step`). Empty without an occupancy."""
    fields = {name for r in remedies for _, name, _, _ in string.Formatter().parse(remedy(r).text_en) if name}
    out: dict[str, int] = {}
    if occupancy is not None and any(f.startswith("stage_") for f in fields):
        out.update(stage_cost(occupancy))
    if occupancy is not None and any(f.startswith("block_") for f in fields):
        out.update(block_size_step(occupancy) or {})
    return out


def memory_side(metric: str) -> bool:
    """Whether a counter's metric measures a memory-side unit (``data/units.toml``; a sub-metric the file does not
    list, such as the derived DRAM throughput, by its unit's prefix: :data:`~kernelscope.knowledge.units.MEMORY_PREFIXES`)."""
    unit = by_metric().get(metric)
    return unit.side == "memory" if unit is not None else metric.startswith(tuple(MEMORY_PREFIXES))


def facts_of(design: Design, kernel: KernelProfile, gpu: GpuSpec | None, occupancy: Occupancy | None,
             stalls: StallBreakdown | None, units: Units, notes: tuple[Note, ...],
             criteria: Mapping[str, float], sm_count: int | None = None,
             waves: float | None = None) -> frozenset[str]:
    """The facts of one launch that the remedies' preconditions name (:data:`kernelscope.knowledge.remedies.FACTS`):
    from its design, its occupancy (``occupied``: achieved occupancy >= ``occupied_pct``; ``more_warps_possible``:
    theoretical below 100 % with registers or shared memory the limit), its grid (``grid_fills_sms``,
    :func:`_fills_sms`), its stalls (``ready_warps``: Not Selected
    first), its busiest unit (``busiest:<unit>``), the GPU's tensor cores, the roofline's notes
    (``l2_resident_intensity``) and what a second pipeline stage costs (``stage_costs_blocks``: a grid of at least one
    full wave whose next register step or doubled shared memory loses ``stage_block_loss_share`` of its resident
    blocks, :func:`.occupancy.stage_costs_occupancy`). A fact the report cannot show is absent."""
    out: set[str] = set()
    if design.async_copies:
        out.add("async_copies")
    tensor_pct = kernel.tensor_pipe_active_pct
    if design.tensor_instructions or (tensor_pct is not None and tensor_pct >= criteria["tensor_pipe_active_pct"]):
        out.add("tensor_instructions")
    for fact, flag in (("warpgroup_mma", design.warpgroup_mma), ("library", design.library is not None),
                       ("debug_build", design.debug_build), ("persistent", design.persistent)):
        if flag:
            out.add(fact)
    la = kernel.launch
    if (la.shared_mem_static_bytes or 0) + (la.shared_mem_dynamic_bytes or 0) > 0:
        out.add("shared_memory")
    if la.no_shared_memory:
        out.add("no_shared_memory")
    if stalls is not None and stalls.shares:
        out.add("stalls")
        if stalls.shares[0].reason == "not_selected":
            out.add("ready_warps")
    achieved = kernel.achieved_occupancy_pct
    if achieved is not None and achieved >= criteria["occupied_pct"]:
        out.add("occupied")
    if occupancy is not None and occupancy.occupancy_pct < 100.0 - 1e-9 and occupancy.limiters \
            and set(occupancy.limiters) <= {"registers", "shared_mem"}:  # (a block-size limit tied with them stays)
        out.add("more_warps_possible")
    if gpu is not None and gpu.origin != DERIVED_ORIGIN:  # (derived ceilings have no tensor peaks to tell)
        out.add("tensor_cores" if any("_tensor" in p for p in gpu.peak_flops_per_s) else "no_tensor_cores")
        peaks = gpu.peak_flops_per_s
        if peaks.get("fp16_tensor_fp16acc", 0.0) > 1.01 * peaks.get("fp16_tensor", float("inf")):
            out.add("fp16_accumulate_faster")
    if occupancy is not None and "shared_memory" in out and not design.async_copies and waves is not None \
            and waves >= 1.0 and stage_costs_occupancy(occupancy, criteria["stage_block_loss_share"]):
        # (only a grid that fills the resident slots loses time with them)
        out.add("stage_costs_blocks")
    if occupancy is not None and block_size_step(occupancy) is not None:
        out.add("more_warps_by_block_size")
    if kernel.sol_memory_pct is None and not any(memory_side(c.metric) for c in units.counters):
        out.add("memory_not_measured")
    if _fills_sms(kernel, occupancy, sm_count, waves):
        out.add("grid_fills_sms")
    busiest = units.busiest
    if busiest is not None:
        out.add(f"busiest:{busiest.unit}")
        if busiest.unit in MATH_UNITS:
            out.add("math_busiest")
    loads = design.evidence.get("global_loads_per_warp")
    if loads is not None and not design.async_copies and loads < SINGLE_PASS_LOADS:
        out.add("single_pass")
    if any(n.key == "intensity_l2_resident" for n in notes):
        out.add("l2_resident_intensity")
    m = kernel.metrics
    if any(all(k in m for k in pair) for pair in L1_ACCESS_MEASURED):
        out.add("l1_access_measured")
    out.update(_counted_absent(kernel))
    return frozenset(out)


#: Counters whose zero rules a remedy out (shared with :mod:`.memory_causes`): the shared-memory bank conflicts of
#: loads and stores, the local-memory sectors of loads and stores (register spills, per-thread arrays), the XU pipe
#: (special-function math, MUFU: its Speed-of-Light breakdown figure); and the ldmatrix loads a kernel already issues.
BANK_CONFLICTS = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
LOCAL_SECTORS = ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum")
XU_PIPE = "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"
LDSM = "smsp__inst_executed_op_ldsm.sum"


def _counted_absent(kernel: KernelProfile) -> set[str]:
    """The facts of what the kernel measurably does not do (``no_bank_conflicts``, ``no_local_memory``,
    ``no_mufu``) or already does (``ldmatrix``), and of its block (``one_warp_blocks``, ``partial_warps``,
    ``partial_warps_only``). Each needs its counters in the report: an absent one decides nothing."""
    m, ops = kernel.metrics, kernel.opcode_counts
    out = set()
    for fact, names in (("no_bank_conflicts", BANK_CONFLICTS), ("no_local_memory", LOCAL_SECTORS)):
        if all(n in m for n in names) and not any(m[n] > 0 for n in names):
            out.add(fact)
    if (ops and not _sum(ops, ("MUFU",))) or kernel.compute_breakdown_pct.get(XU_PIPE) == 0.0:
        out.add("no_mufu")
    if m.get(LDSM, 0.0) > 0 or _sum(ops, ("LDSM",)) > 0:
        out.add("ldmatrix")
    block = kernel.launch.threads_per_block
    if block and block <= 32:
        out.add("one_warp_blocks")
    if block and block % 32:
        out.add("partial_warps")
        active = m.get(ACTIVE_THREADS)
        if active is not None and active >= block_lanes(block) - PARTIAL_WARP_SLACK:
            out.add("partial_warps_only")
    return out


#: Threads active per executed warp instruction (of 32).
ACTIVE_THREADS = "smsp__thread_inst_executed_per_inst_executed.ratio"
#: Lanes per warp below the block's own by which the active threads still count as the block size's doing (the
#: average over a launch's instructions is not exactly the block's: warps of one block need not execute alike).
PARTIAL_WARP_SLACK = 0.5


def block_lanes(threads: int) -> float:
    """The lanes a block of ``threads`` fills per warp on average: threads / ceil(threads / 32) (its last warp
    partial), for warps that execute alike."""
    return threads / -(-threads // 32)

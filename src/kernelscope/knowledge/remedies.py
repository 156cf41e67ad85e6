"""Remedies with their preconditions (``data/remedies.toml``): the sentences advice is built from, each offered only
when what it needs holds for the launch (an architecture, what the kernel must not already do, the unit that must
limit it). The facts a precondition may name are :data:`FACTS`; the analysis derives them per launch
(:func:`kernelscope.analysis.design.facts_of`)."""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import AbstractSet, Iterable

from . import Model, NonEmpty, check_lang, load

#: The facts a precondition may name, with what each means. ``busiest:<unit>`` names the performance model's busiest
#: unit (``data/units.toml`` ids: issue, fma, tensor, lsu, l1, shared, l2, dram ...).
FACTS: dict[str, str] = {
    "async_copies": "the kernel executes asynchronous global -> shared copies (cp.async / TMA: LDGSTS, UTMALDG ...)",
    "tensor_instructions": "the kernel executes tensor-core MMAs (HMMA, IMMA, HGMMA, UTC*MMA), or its tensor pipe "
                           "was active",
    "warpgroup_mma": "the kernel issues Hopper warpgroup MMAs (HGMMA ...)",
    "library": "the kernel belongs to a library (data/libraries.toml): no code of it to edit",
    "debug_build": "the opcode mix is a device-debug build's (nvcc -G)",
    "persistent": "the grid is one wave of blocks sized to the GPU (a persistent kernel)",
    "shared_memory": "the kernel allocates shared memory",
    "no_shared_memory": "the launch is known to allocate no shared memory (static and dynamic both recorded as 0)",
    "stalls": "the report holds the warp-stall breakdown",
    "occupied": "achieved occupancy is at least the occupied_pct criterion",
    "ready_warps": "Not Selected is the top stall reason (ready warps wait for an issue slot)",
    "more_warps_possible": "theoretical occupancy is below 100 % and only registers or shared memory limit it (no "
                           "block-size or blocks-per-SM limit tied with them)",
    "tensor_cores": "the GPU has tensor cores",
    "no_tensor_cores": "the GPU is known and has no tensor cores",
    "math_busiest": "the busiest unit is a math pipe of CUDA cores (FMA, FP16, FP64)",
    "l2_resident_intensity": "the DRAM arithmetic intensity is distorted by data that stayed in L2",
    "single_pass": "the opcode mix shows few global loads per warp (fewer than 8): one pass over the data, no loop "
                   "over tiles to prefetch",
    "fp16_accumulate_faster": "the GPU's FP16-accumulate MMA peak is above its FP32-accumulate one (GeForce parts)",
    "stage_costs_blocks": "a second pipeline stage may cost a large share of the resident blocks: the grid fills at "
                          "least one wave of the resident slots, and the next register step (registers the limit) or "
                          "twice the block's shared memory loses stage_block_loss_share of them "
                          "(analysis.occupancy.stage_costs_occupancy)",
    "more_warps_by_block_size": "whole blocks leave warp slots empty (the warps- or blocks-per-SM limit is a limiter) "
                                "and another block size fits more warps per SM (analysis.occupancy.block_size_step)",
    "memory_not_measured": "the report measured no memory throughput: no Speed-of-Light memory figure and no counter of "
                           "a memory-side unit (data/units.toml side = \"memory\")",
    "grid_fills_sms": "the grid has at least as many blocks as the GPU has SMs (every SM gets a block)",
    "l1_access_measured": "the report measured how the L1/TEX accesses are made: the requests and sectors of global "
                          "loads (MemoryWorkloadAnalysis) or the shared-memory wavefronts, so a claim about their "
                          "sectors or wavefronts rests on data",
    "no_bank_conflicts": "the report counted the shared-memory bank conflicts of loads and stores, and both are 0",
    "no_local_memory": "the report counted the local-memory sectors of loads and stores, and both are 0 (no register "
                       "spills, no per-thread arrays in local memory)",
    "no_mufu": "the kernel executes no special-function (MUFU) instruction: none in the opcode mix, or the XU pipe "
               "measured idle",
    "ldmatrix": "the kernel already loads its tensor-core fragments with ldmatrix (LDSM)",
    "partial_warps": "the block's threads are not a multiple of 32: its last warp runs with idle lanes",
    "one_warp_blocks": "the block has 32 threads or fewer: one warp, which no smaller block shape splits",
    "partial_warps_only": "partial_warps, and the block's lanes per warp (threads / ceil(threads / 32)) account for "
                          "the active threads per instruction measured (smsp__thread_inst_executed_per_inst_executed)",
}
_CC = re.compile(r"^cc(>=|<)(\d+)\.(\d+)$")


class Remedy(Model, kw_only=True):
    """One ``[remedy.<id>]``: its text (en, zh; format fields are the finding's numbers), its preconditions
    (``requires``, see :func:`holds`) and the source of the remedy and its preconditions."""

    text_en: NonEmpty
    text_zh: NonEmpty
    requires: tuple[str, ...] = ()
    source: NonEmpty

    def __post_init__(self) -> None:
        for condition in self.requires:
            name = condition.removeprefix("!")
            if not (_CC.match(name) or name in FACTS or name.startswith("busiest:")):
                raise ValueError(f"field 'requires': unknown condition {condition!r} (facts: {', '.join(FACTS)})")

    def text(self, lang: str) -> str:
        """The text in ``lang``."""
        return self.text_zh if check_lang(lang) == "zh" else self.text_en


class _RemediesFile(Model, kw_only=True):
    remedy: dict[str, Remedy]


@cache
def remedies() -> dict[str, Remedy]:
    """Every remedy by id, in file order."""
    return load("remedies.toml", _RemediesFile).remedy


def remedy(remedy_id: str) -> Remedy:
    """A remedy by id. Raises KeyError for an unknown id."""
    return remedies()[remedy_id]


def holds(requires: Iterable[str], facts: AbstractSet[str], cc: tuple[int, int] | None) -> bool:
    """Whether every condition holds: a fact is in ``facts``; ``"!fact"`` is not; ``"cc>=X.Y"`` / ``"cc<X.Y"``
    compare the compute capability ``cc`` (false when it is unknown; their negation ``"!cc>=X.Y"`` is then true)."""
    if type(requires) is tuple and type(facts) is frozenset and (cc is None or type(cc) is tuple):
        return _holds(requires, facts, cc)  # (launches of one kernel ask the same)
    return _holds.__wrapped__(requires, facts, cc)


@lru_cache(maxsize=8192)
def _holds(requires: Iterable[str], facts: AbstractSet[str], cc: tuple[int, int] | None) -> bool:
    for condition in requires:
        negated = condition.startswith("!")
        name = condition.removeprefix("!")
        m = _CC.match(name)
        if m:
            want = (int(m.group(2)), int(m.group(3)))
            value = cc is not None and (cc >= want if m.group(1) == ">=" else cc < want)
        else:
            value = name in facts
        if value == negated:
            return False
    return True


def applicable(ids: Iterable[str], facts: AbstractSet[str], cc: tuple[int, int] | None) -> tuple[str, ...]:
    """The ids (in their order) whose remedies' preconditions hold. Raises KeyError for an unknown id."""
    if type(ids) is tuple and type(facts) is frozenset and (cc is None or type(cc) is tuple):
        return _applicable(ids, facts, cc)  # (launches of one kernel ask the same)
    return _applicable.__wrapped__(ids, facts, cc)


@lru_cache(maxsize=8192)
def _applicable(ids: Iterable[str], facts: AbstractSet[str], cc: tuple[int, int] | None) -> tuple[str, ...]:
    return tuple(i for i in ids if holds(remedy(i).requires, facts, cc))

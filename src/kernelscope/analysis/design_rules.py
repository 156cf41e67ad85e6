"""Rules about what the kernel and its profile are, before any remedy (:mod:`.design`): a failed collection (nothing
measured: profile again), a device-debug build, whose timing measures the debugger's code (the first advice must be
to rebuild without ``-G``), and a library kernel, whose code nobody edits (its advice is how it is called). They are
"gates", with the diagnosis' ``nothing_worthwhile``: ranked first (:data:`GATE_FINDINGS`); and
:meth:`.kernel_rules.KernelContext.admit` withholds code-level remedies from a debug build or a library kernel."""

from __future__ import annotations

from ..notes import Note
from .design import DEBUG_GENERIC_SHARE, DEBUG_MOVE_BRANCH_SHARE
from .engine import Done, Evidence, Finding, Rule
from .kernel_rules import KernelContext
from .limiters import busiest_shown

#: Findings that say what the kernel (or its profile) is and so come before every remedy.
GATE_FINDINGS = ("profile_failed", "debug_build", "library_kernel", "nothing_worthwhile")


def debug_build(ctx: KernelContext, done: Done) -> Finding | None:
    """A device-debug build (``nvcc -G``): generic loads and stores instead of LDG / STG for at least
    :data:`.design.DEBUG_GENERIC_SHARE` of the global-memory instructions, and register moves plus branches at least
    :data:`.design.DEBUG_MOVE_BRANCH_SHARE` of all instructions (the SASS opcode mix, Instruction Statistics). Not
    estimated: the measurement is of debug code."""
    d = ctx.design
    if d is None or not d.debug_build:
        return None
    generic, moves = d.evidence["generic_share"], d.evidence["move_branch_share"]
    note = Note("f_debug_build", {"generic_pct": 100 * generic, "moves_pct": 100 * moves})
    return Finding("debug_build", "warning", note,
                   (Evidence("sass__inst_executed_per_opcode: LD+ST / (LD+ST+LDG+STG)", generic, "share"),
                    Evidence("sass__inst_executed_per_opcode: (MOV+BRA) / all", moves, "share")),
                   advice="finding:debug_build", speedup_note="not estimated: the measurement is of debug code",
                   source=f"kernelscope: generic share >= {DEBUG_GENERIC_SHARE}, moves and branches >= "
                          f"{DEBUG_MOVE_BRANCH_SHARE} (nvcc -G keeps pointers generic and every statement separate)")


def library_kernel(ctx: KernelContext, done: Done) -> Finding | None:
    """A kernel of a library family (``data/libraries.toml``, by its demangled name): the family's advice (another
    algorithm, configuration, precision, fusion or version), filled with the launch's busiest unit. Not estimated."""
    d = ctx.design
    if d is None or d.library is None:
        return None
    busiest = busiest_shown(ctx.limiters, ctx.units)  # the panel's own ranking: the unit it prints first is the one named here
    k = ctx.kernel
    runs = {p for p, v in {**k.flop_counts, **k.tensor_ops_pct}.items() if v}  # pipes with counted work
    values = {"family": d.library.name, "family_id": d.library.id,
              "limiter": (busiest.unit or busiest.metric) if busiest else None,
              "limiter_pct": busiest.pct if busiest else None,
              "precision_step": not runs & set(d.library.precision_done)}  # not already at that precision
    return Finding("library_kernel", "info", Note("f_library_kernel", values),
                   (Evidence("kernel_name", None),), advice="finding:library_kernel",
                   speedup_note="not estimated: what another algorithm or configuration gains depends on it",
                   source=d.library.source)


def profile_failed(ctx: KernelContext, done: Done) -> Finding | None:
    """A collection that failed: no duration, no Speed-of-Light figures, and every one of Nsight Compute's stored rules
    returned an error (its own record that the metrics it needed are missing). Not estimated: nothing was measured."""
    k = ctx.kernel
    failed = [r for r in k.rules if r.message_type.upper() == "ERROR"]
    if k.duration_s is not None or ctx.sol.compute_pct is not None or ctx.sol.memory_pct is not None \
            or not k.rules or len(failed) < len(k.rules):
        return None
    note = Note("f_profile_failed", {"rules_failed": len(failed), "rules": len(k.rules)})
    return Finding("profile_failed", "warning", note,
                   (Evidence("gpu__time_duration.sum", None, "s"), Evidence("nsight_rules_failed", float(len(failed)))),
                   advice="finding:profile_failed", speedup_note="not estimated: nothing was measured",
                   source="Nsight Compute rule results (message type ERROR: the metrics a rule needs were not "
                          "collected)")


DESIGN_RULES: tuple[Rule[KernelContext], ...] = (
    Rule("profile_failed", profile_failed, doc="a failed collection: nothing to diagnose, profile again"),
    Rule("debug_build", debug_build, inputs=("sass__inst_executed_per_opcode",),
         doc="a device-debug build (nvcc -G): rebuild before measuring"),
    Rule("library_kernel", library_kernel, doc="a library kernel: library-level advice, no code-level remedies"),
)

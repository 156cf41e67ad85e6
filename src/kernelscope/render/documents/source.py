"""``kernelscope.source/1``: the JSON document of ``kernelscope source --format json``.

Per selected launch of one Nsight Compute report: the hottest instructions and source lines, from the report's
per-instruction data (Source Counters and instruction sampling). Counts are plain numbers (samples, executed warp
instructions, sectors, wavefronts), shares and efficiencies fractions 0-1, ratios >= 1, PCs and offsets in bytes. A
value the report does not hold for an instruction or line is null.
"""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, NoteDoc, Version

__all__ = [
    "CountersDoc", "InstructionDoc", "LaunchSourceDoc", "LineDoc", "MarkerDoc", "SourceDoc", "SourceInputDoc",
    "StallSamplesDoc",
]


class StallSamplesDoc(Doc):
    """warp samples of one state at an instruction or line"""

    reason: Annotated[str, Meta(description="canonical stall reason id (kernelscope/data/stalls.toml)")]
    name: Annotated[str, Meta(description="its display name in the document's language")]
    samples: Annotated[float, Meta(description="warp samples in that state (count)")]
    share: Annotated[float, Meta(description="of the instruction's or line's samples, fraction 0-1")]
    share_of_reason: Annotated[float, Meta(description="of all the launch's samples in that state, fraction 0-1")]


class CountersDoc(Doc):
    """per-instruction counters of one instruction, or summed over a source line's instructions"""

    samples: Annotated[float | None, Meta(description="warp samples (smsp__pcsamp_sample_count, count); null: not sampled")]
    share: Annotated[float | None, Meta(description=(
        "samples / the launch's samples (or, ranked by executed instructions, executed / the launch's), fraction 0-1"))]
    stalls: Annotated[list[StallSamplesDoc], Meta(description="unhealthy stall reasons with samples, most first")]
    not_stalls: Annotated[list[StallSamplesDoc], Meta(description=(
        "healthy states with samples (selected, not selected, math pipe throttle), most first"))]
    inst_executed: Annotated[float | None, Meta(description="executed warp instructions (count)")]
    thread_efficiency: Annotated[float | None, Meta(description=(
        "share of the 32 thread slots of the executed instructions a thread used, fraction 0-1 "
        "(thread_inst_executed / (32 x inst_executed), else derived__avg_thread_executed / 32)"))]
    sectors: Annotated[float | None, Meta(description="global L2 sectors fetched (memory_l2_theoretical_sectors_global, count)")]
    excess_sectors: Annotated[float | None, Meta(description="sectors beyond the ideal (count)")]
    sector_ratio: Annotated[float | None, Meta(description="sectors fetched / sectors needed (ratio >= 1)")]
    wavefronts: Annotated[float | None, Meta(description="shared-memory wavefronts (memory_l1_wavefronts_shared, count)")]
    excess_wavefronts: Annotated[float | None, Meta(description="wavefronts beyond the ideal (count)")]
    wavefront_ratio: Annotated[float | None, Meta(description="wavefronts taken / wavefronts needed (ratio >= 1)")]
    nway: Annotated[float | None, Meta(description=(
        "n-way shared bank conflict (derived__memory_l1_conflicts_shared_nway; a line: its worst instruction's); "
        "null: not a shared-memory access"))]


class MarkerDoc(Doc):
    """a mark one of Nsight Compute's rules put on an instruction"""

    rule_id: Annotated[str, Meta(description='the rule, e.g. "UncoalescedGlobalAccess"')]
    pc: Annotated[int, Meta(description="the instruction's address")]
    message_type: Annotated[str, Meta(description='"OPTIMIZATION", "WARNING", "INFO" or "ERROR"')]
    message: Annotated[str, Meta(description="the rule's text (English in every --lang, as Nsight Compute stores it)")]


class InstructionDoc(Doc):
    """one of the hottest instructions"""

    pc: Annotated[int, Meta(description="the instruction's address")]
    offset: Annotated[int | None, Meta(description="pc minus the function's first PC, bytes; null: not recorded")]
    file: Annotated[str | None, Meta(description="source file (nvcc -lineinfo); null: no line information")]
    line: Annotated[int | None, Meta(description="1-based source line; null: no line information")]
    sass: Annotated[str | None, Meta(description="SASS text; null: not disassembled")]
    counters: CountersDoc
    markers: Annotated[list[MarkerDoc], Meta(description="Nsight Compute's marks on it")]
    findings: Annotated[list[str], Meta(description=(
        "ids of the findings of the launch's diagnosis (kernelscope/data/findings.toml) located at this instruction "
        "(one of each finding's top instructions by its per-instruction metric), most important first"))]


class AtInstructionDoc(Doc):
    """a finding located at one instruction of a hot line whose own samples do not show it (a top MIO Throttle
    instruction on a line dominated by Long Scoreboard): named as that instruction's, not the line's"""

    pc: Annotated[int, Meta(description="the instruction's address")]
    offset: Annotated[int | None, Meta(description="pc minus the function's first PC, bytes; null: not recorded")]
    finding: Annotated[str, Meta(description="the finding's id (kernelscope/data/findings.toml)")]


class LineDoc(Doc):
    """one of the hottest source lines: the instructions compiled from it, summed"""

    file: Annotated[str, Meta(description="source file as the report records it")]
    line: Annotated[int, Meta(description="1-based line")]
    text: Annotated[str | None, Meta(description="the line's source text; null: the report does not embed the file")]
    pcs: Annotated[list[int], Meta(description="addresses of its instructions, ascending")]
    counters: CountersDoc
    statement: Annotated[list[NoteDoc], Meta(description=(
        "its dominant stall and what its own counters show, as findings (keys src_line_* of labels.toml)"))]
    markers: Annotated[list[MarkerDoc], Meta(description="Nsight Compute's marks on its instructions")]
    findings: Annotated[list[str], Meta(description=(
        "ids of the findings of the launch's diagnosis (kernelscope/data/findings.toml) located at one of its "
        "instructions that the line's own counters show (a stall finding: the line's dominant stall), most "
        "important first"))]
    at_instructions: Annotated[list[AtInstructionDoc], Meta(description=(
        "the other findings located at one of its instructions, each named as that instruction's"))] = []


class LaunchSourceDoc(Doc):
    """one launch: its hottest instructions and lines"""

    index: Annotated[int, Meta(description="0-based position of the launch in the report")]
    name: Annotated[str, Meta(description="function name")]
    demangled_name: Annotated[str, Meta(description="demangled signature")]
    duration_s: Annotated[float | None, Meta(description="duration, seconds; null: not measured")]
    range: Annotated[int, Meta(description="range index of the result in the .ncu-rep file")]
    result: Annotated[int, Meta(description="result (action) index within its range")]
    function_pc: Annotated[int | None, Meta(description="the function's first PC; null: not recorded")]
    instructions_with_data: Annotated[int, Meta(description="instructions a per-instruction metric covers (count)")]
    ranked_by: Annotated[Literal["smsp__pcsamp_sample_count", "inst_executed"] | None, Meta(description=(
        "the metric instructions and lines are ranked by; null: neither recorded"))]
    total_samples: Annotated[float | None, Meta(description="the launch's warp samples (count); null: not sampled")]
    total_executed: Annotated[float | None, Meta(description="its executed warp instructions (count); null: not recorded")]
    has_lines: Annotated[bool, Meta(description="instructions map to source lines (compiled with nvcc -lineinfo)")]
    embedded_sources: Annotated[list[str], Meta(description="source files the report embeds (ncu --import-source yes)")]
    instructions: Annotated[list[InstructionDoc], Meta(description="the hottest instructions, hottest first")]
    lines: Annotated[list[LineDoc], Meta(description="the hottest source lines, hottest first; empty without line information")]
    notes: Annotated[list[str], Meta(description="what the report lacks for this view, in the document's language")]


class SourceInputDoc(Doc):
    """the report read"""

    path: Annotated[str, Meta(description="the file as given")]
    format: Annotated[Literal["ncu-rep"], Meta(description="input format id")]
    tool_version: Annotated[str | None, Meta(description="Nsight Compute version that wrote it, as the input records it (user data); null: not recorded")]
    launches: Annotated[int, Meta(description="launches in the report (count)")]


class SourceDoc(Doc):
    """Output of `kernelscope source --format json`: where in the code each selected launch spends its time (Nsight
    Compute Source Counters and instruction sampling), the hottest instructions and source lines with the stall
    reasons and memory counters at each."""

    schema: Annotated[Literal["kernelscope.source/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    input: SourceInputDoc
    launches: Annotated[list[LaunchSourceDoc], Meta(description="the selected launches, in report order")]

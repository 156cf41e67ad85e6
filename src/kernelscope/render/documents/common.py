"""Pieces every kernelscope JSON document shares: the document base, worded findings (notes), null reasons,
rule findings, class ids.

The document types are msgspec Structs: they are encoded with msgspec (one encoder for every command) and the
JSON Schemas in ``schemas/`` are generated from them (:mod:`kernelscope.render.documents.schemas`), so a schema
cannot drift from what is written. Units are in field names (``_s`` seconds, ``_hz`` hertz, ``_bytes`` bytes,
``_flops_per_s`` FLOP/s, ``_pct`` percent 0-100) or in the field's description; a value not measured is null.
"""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

Class = Annotated[
    Literal["compute-bound", "memory-bound", "latency-bound", "occupancy-bound", "launch-bound", "small-grid",
            "balanced"],
    Meta(description="bottleneck class id"),
]
Lang = Annotated[Literal["en", "zh"], Meta(description="language of every `text` and display name")]
Version = Annotated[str, Meta(description="version of kernelscope that wrote the document")]


class Doc(Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of every document object: keyword construction, unknown fields rejected when decoding."""


class NoteDoc(Doc):
    """a finding: template key, text and its numbers"""

    key: Annotated[str, Meta(description="template id of the finding (table [note] of kernelscope/data/labels.toml)")]
    text: Annotated[str, Meta(description="the finding worded in the document's language; units are written in the text")]
    values: Annotated[dict[str, Any], Meta(description=(
        "the numbers that fill the template, by name; units as the template states them (``*_s`` seconds, ``*_pct`` "
        "percent 0-100, ``share``/``efficiency`` fractions 0-1, ``ghz`` GHz, ``ai``/``ridge`` FLOP/byte, ``waves`` "
        "waves per SM); a non-finite number is null (the text says what it is); a name or id among them is as the input "
        "or kernelscope's data gives it (user data, English in every --lang: the worded text is `text`)"))]


class NullReason(Doc):
    """why a field is null"""

    field: Annotated[str, Meta(description="JSON Pointer (RFC 6901) of the null field, relative to the object holding this list")]
    key: Annotated[str, Meta(description=(
        "reason id (table [note] of kernelscope/data/labels.toml): not_in_profile, not_derivable, no_gpu, no_verdict, "
        "sol_not_measured, no_stall_metrics, ..."))]
    text: Annotated[str, Meta(description="the reason in the document's language")]


class EvidenceDoc(Doc):
    """one measured value behind a finding"""

    metric: Annotated[str, Meta(description=(
        "the Nsight metric name the value was read from, or a kernelscope quantity (waves_per_sm, stall_share.<reason>, "
        "occupancy.theoretical_pct, ...)"))]
    value: Annotated[float | None, Meta(description="the value, in `unit`; null: not measured")]
    unit: Annotated[str, Meta(description='"%" percent 0-100, "s" seconds, "B" bytes, "share" fraction 0-1, "ratio", a stall family, or "" (a count)')]


class LocationDoc(Doc):
    """one instruction behind a finding (Nsight Compute Source Counters / warp sampling)"""

    pc: Annotated[int, Meta(description="the instruction's address")]
    offset: Annotated[int | None, Meta(description="pc minus the function's first PC, bytes; null: not recorded")]
    file: Annotated[str | None, Meta(description="source file (compiled with -lineinfo); null: no line information")]
    line: Annotated[int | None, Meta(description="1-based source line; null: no line information")]
    metric: Annotated[str, Meta(description=(
        "the per-instruction metric that locates the finding (Nsight name, or idle_thread_slots = 32 x inst_executed "
        "- thread_inst_executed)"))]
    value: Annotated[float, Meta(description="its value at this instruction, in the metric's unit (a count)")]
    share: Annotated[float, Meta(description="value / the metric's total over all instructions, fraction 0-1")]


class FindingDoc(Doc):
    """what one rule concluded"""

    id: Annotated[str, Meta(description="stable rule id (speed_of_light, memory_throughput, tail_effect, stall_reasons, ...)")]
    severity: Annotated[Literal["bound", "optimization", "warning", "info"], Meta(
        description="bound: supports a bottleneck class; optimization: an opportunity; warning: about the data; info")]
    message: NoteDoc
    evidence: Annotated[list[EvidenceDoc], Meta(description="the measured values that triggered it")]
    bound: Annotated[Class | None, Meta(description="the bottleneck class it supports; null: none")]
    advice: Annotated[str | None, Meta(description=(
        "the advice id it points to (finding:<id>, class:<bound>, stall:<reason>); null: none (a code-level finding of "
        "a library kernel or a debug build is kept as evidence only)"))]
    estimated_speedup: Annotated[float | None, Meta(description=(
        "how many times faster the kernel (the program, for timeline checks) would be without the cause, a factor >= 1; "
        "null: not estimated (speedup_note says why)"))]
    speedup_note: Annotated[str | None, Meta(description=(
        "how the estimate was made, or why there is none; English in every --lang (a machine field: "
        "the worded advice is `message.text` and `title`)"))]
    source: Annotated[str, Meta(description=(
        "where the rule's threshold or model comes from: a citation, English in every --lang"))]
    estimate_kind: Annotated[Literal["prediction", "upper_bound"] | None, Meta(description=(
        "prediction: a definite change whose work the report counts; upper_bound: an ideal change, the most it can "
        "give ('at most'); null: not estimated, or a timeline check"))] = None
    marginal_speedup: Annotated[float | None, Meta(description=(
        "the finding's gain after the findings ranked above it in the advice are made (the performance model on "
        "their changes together), a factor >= 1 no larger than estimated_speedup; the gains of one launch's "
        "findings multiply to what making all of them gives. null: not estimated, or no ranking"))] = None
    kernel_time_saved_share: Annotated[float | None, Meta(description=(
        "the share of the launch's measured time the finding saves after the findings ranked above it, fraction "
        "0-1; the shares of one launch add up to what all of them save together. null: not estimated, or no "
        "ranking"))] = None
    title: Annotated[str | None, Meta(description=(
        "the root cause's title in the document's language (kernelscope/data/findings.toml); null: a class or data "
        "rule without one"))] = None
    program_time_saved_share: Annotated[float | None, Meta(description=(
        "share of the report's GPU time saved if the cause were removed after the findings ranked above it (Amdahl: "
        "the launch's share of GPU time x kernel_time_saved_share; without a ranking x (1 - 1/estimated_speedup)), "
        "fraction 0-1; the shares of one launch's findings add up to at most its share. null: no estimate, or the "
        "launch's share of time unknown"))] = None
    remedies: Annotated[list[str], Meta(description=(
        "the remedies whose preconditions hold for this launch (kernelscope/data/remedies.toml ids): a class "
        "paragraph's sentences, or the one remedy of a root cause's action"))] = []
    locations: Annotated[list[LocationDoc], Meta(description=(
        "the instructions behind the finding, largest first; empty when the report holds no per-instruction data "
        "for it"))] = []

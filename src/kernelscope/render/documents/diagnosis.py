"""``kernelscope.diagnosis/1``: the JSON document of ``kernelscope diagnose --format json``."""

from typing import Annotated, Literal

from msgspec import Meta

from ...analysis.groups import OUTLIER_FACTOR
from .common import Class, Doc, EvidenceDoc, FindingDoc, Lang, NoteDoc, NullReason, Version

__all__ = ["DiagnosisDoc", "EvidenceDoc", "FindingDoc", "GroupSpreadDoc", "ImplausibleDoc", "InputDoc", "LaunchDoc",
           "LaunchGroupDoc", "MemoryLevelDoc", "NoteDoc", "NsightMatchDoc", "NullReason", "OutlierDoc", "RooflineDoc",
           "SpreadDoc", "UnitLoadDoc"]

_BAND = f"1/{OUTLIER_FACTOR:g} .. {OUTLIER_FACTOR:g}"

Pct = Annotated[float | None, Meta(description="percent of peak (0-100); null: not measured")]
Triple = Annotated[tuple[int, int, int] | None, Meta(description="[x, y, z]; null: not recorded")]


class RooflineDoc(Doc):
    """where one kernel sits on the roofline of one pipe"""

    pipe: Annotated[str, Meta(description="the ceiling used: a pipe/precision id (fp64, fp32, fp16, fp16_tensor, ...)")]
    peak_flops_per_s: Annotated[float | None, Meta(description=(
        "dense peak of that pipe, FLOP/s (OP/s for int8_tensor); null: no GPU ceilings known (the profile names no GPU)"))]
    peak_bandwidth_bytes_per_s: Annotated[float | None, Meta(description="peak DRAM bandwidth, bytes/s; null: no GPU ceilings known")]
    ridge_point_flop_per_byte: Annotated[float | None, Meta(description=(
        "peak_flops_per_s / peak_bandwidth_bytes_per_s, FLOP/byte; null: no GPU ceilings known"))]
    flops: Annotated[float | None, Meta(description=(
        "floating-point operations executed, FLOP (count), or estimated from the tensor pipe's utilisation when "
        "flops_estimated is true; null: not measured (tensor-core work is not counted by the SASS FP counters) and "
        "not estimable"))]
    dram_bytes: Annotated[float | None, Meta(description="DRAM bytes read + written, bytes; null: not measured")]
    duration_s: Annotated[float | None, Meta(description="kernel duration, seconds; null: not measured")]
    arithmetic_intensity_flop_per_byte: Annotated[float | None, Meta(description=(
        "flops / dram_bytes, FLOP/byte; null: not measured, or unbounded when no DRAM bytes moved (see not_measured)"))]
    attainable_flops_per_s: Annotated[float | None, Meta(description=(
        "min(peak, AI x bandwidth), FLOP/s; null: not measured or no GPU ceilings"))]
    achieved_flops_per_s: Annotated[float | None, Meta(description="flops / duration_s, FLOP/s; null: not measured")]
    achieved_bytes_per_s: Annotated[float | None, Meta(description=(
        "effective DRAM bandwidth dram_bytes / duration_s, bytes/s; null: not measured"))]
    efficiency: Annotated[float | None, Meta(description=(
        "achieved / attainable, fraction 0-1 (above 1 only when a ceiling is wrong); null: not measured or no ceilings"))]
    bound: Annotated[Literal["memory-bound", "compute-bound"] | None, Meta(description=(
        "memory-bound if AI < ridge point else compute-bound; null when AI is not measured or there are no GPU ceilings"))]
    not_measured: Annotated[list[NoteDoc], Meta(description=(
        "why the null quantities above are null (keys flops_not_measured, dram_bytes_not_measured, duration_not_measured, "
        "no_work, roofline_not_applicable, efficiency_undefined, intensity_unbounded)"))]
    datasheet_peak_flops_per_s: Annotated[float | None, Meta(description=(
        "the spec's dense peak of the pipe before clock scaling, FLOP/s; peak_flops_per_s = this x clock_scale; "
        "null: no GPU ceilings known"))]
    clock_scale: Annotated[float | None, Meta(description=(
        "profiled SM clock / the spec's boost clock, the factor applied to the FLOP/s peak (ratio); null: not "
        "applied (a clock unknown, or measured ceilings)"))]
    flops_estimated: Annotated[bool, Meta(description=(
        "true when flops is an estimate from the tensor pipe's utilisation (tensor-core work the profile does not count)"))]
    derived_dram_throughput_pct: Annotated[float | None, Meta(description=(
        "DRAM throughput derived as dram_bytes / duration_s / peak bandwidth, percent 0-100; null: the profile "
        "measured it (speed_of_light.dram_pct) or bytes, duration or ceilings are missing"))]


class DeviceDoc(Doc):
    """the device as the profile records it; null fields: not recorded"""

    display_name: Annotated[str | None, Meta(description="device name the profile records (device__attribute_display_name; user data)")]
    compute_capability: Annotated[tuple[int, int] | None, Meta(description="[major, minor]")]
    sm_count: Annotated[int | None, Meta(description="streaming multiprocessors (count)")]
    max_sm_clock_hz: Annotated[float | None, Meta(description="maximum SM clock, Hz")]
    max_mem_clock_hz: Annotated[float | None, Meta(description="maximum memory clock, Hz")]
    memory_bus_width_bits: Annotated[int | None, Meta(description="memory bus width, bits")]
    l2_cache_bytes: Annotated[int | None, Meta(description="L2 cache size, bytes")]


class LaunchConfigDoc(Doc):
    """launch configuration; null fields: not recorded"""

    grid: Annotated[tuple[int, int, int] | None, Meta(description="grid dimensions [x, y, z] in blocks")]
    block: Annotated[tuple[int, int, int] | None, Meta(description="block dimensions [x, y, z] in threads")]
    registers_per_thread: Annotated[int | None, Meta(description="registers per thread (count)")]
    shared_mem_static_bytes: Annotated[int | None, Meta(description="static shared memory per block, bytes")]
    shared_mem_dynamic_bytes: Annotated[int | None, Meta(description="dynamic shared memory per block, bytes")]
    shared_mem_config_bytes: Annotated[int | None, Meta(description="shared-memory size configured per SM (carveout), bytes")]
    waves_per_sm: Annotated[float | None, Meta(description=(
        "launch__waves_per_multiprocessor: full waves of blocks across the SMs (waves)"))]


class GpuDoc(Doc):
    """the GPU spec used for the ceilings"""

    name: Annotated[str, Meta(description="GPU whose peaks were used as ceilings (its product name, English in every --lang)")]
    origin: Annotated[str, Meta(description="catalogue, spec file <path>, or arguments")]
    measured: Annotated[bool, Meta(description="true when the peaks were measured on the device rather than taken from a datasheet")]
    provenance: list[NoteDoc]


class SolDoc(Doc):
    """Speed-of-Light throughputs and class"""

    compute_pct: Annotated[float | None, Meta(description="SM throughput, percent of peak (0-100)")]
    memory_pct: Annotated[float | None, Meta(description="memory throughput, percent of peak (0-100)")]
    dram_pct: Annotated[float | None, Meta(description="DRAM throughput, percent of peak (0-100)")]
    waves_per_sm: Annotated[float | None, Meta(description="full waves of blocks across the SMs (waves)")]
    bound: Annotated[Class | None, Meta(description=(
        "Speed-of-Light class as Nsight Compute's SOLBottleneck rule decides it; null: SOL not measured"))]
    evidence: list[NoteDoc]


class CalculatedOccupancyDoc(Doc):
    """occupancy computed from the launch configuration"""

    theoretical_pct: Annotated[float, Meta(description="theoretical occupancy from kernelscope's calculator, percent (0-100)")]
    active_blocks_per_sm: Annotated[int, Meta(description="resident blocks per SM (count)")]
    active_warps_per_sm: Annotated[int, Meta(description="resident warps per SM (count)")]
    max_warps_per_sm: Annotated[int, Meta(description="warp slots per SM (count)")]
    block_limits: Annotated[dict[str, int], Meta(description="resource -> blocks per SM that resource allows (count)")]
    limiters: Annotated[list[str], Meta(description="resources whose limit equals the active blocks")]


class OccupancyDoc(Doc):
    """occupancy, achieved vs theoretical"""

    achieved_pct: Annotated[float | None, Meta(description="achieved occupancy, percent of the SM's warp slots (0-100)")]
    theoretical_pct: Annotated[float | None, Meta(description="theoretical occupancy as the profile reports it, percent (0-100)")]
    calculated: Annotated[CalculatedOccupancyDoc | None, Meta(description=(
        "occupancy computed from the launch configuration; null: not computable (reason in not_measured)"))]
    waves_per_sm: Annotated[float | None, Meta(description="full waves of blocks across the SMs (waves)")]
    notes: list[NoteDoc]


class StallReasonDoc(Doc):
    """one stall reason's part of the breakdown"""

    reason: Annotated[str, Meta(description=(
        "canonical stall reason id (kernelscope/data/stalls.toml), or the raw spelling of an unknown one"))]
    display_name: Annotated[str, Meta(description="reason name in the document's language")]
    value: Annotated[float, Meta(description="value in the stalls object's `unit`")]
    share_of_all: Annotated[float, Meta(description="value / total, fraction 0-1 of all warp cycles")]
    share_of_stalls: Annotated[float, Meta(description="value / (total - selected), fraction 0-1 of stall cycles")]
    healthy: Annotated[bool, Meta(description=(
        "true when a large value usually means useful work (Selected, Not Selected, Math Pipe Throttle)"))]


class StallsDoc(Doc):
    """warp-stall breakdown"""

    family: Annotated[Literal["per_issue_active", "pc_sampling", "warp_id_sampling", "warp_latency", "given_percent"]
                      | None,
                      Meta(description="metric family the values come from")]
    unit: Annotated[str, Meta(description=(
        "unit of total, selected and each reason's value: cycles per issued instruction, samples, percent of stall "
        "cycles, or cycles (identifiers: English in every --lang; each reason's `display_name` is worded)"))]
    total: Annotated[float, Meta(description="sum of all values, selected included, in `unit`")]
    selected: Annotated[float | None, Meta(description="the Selected (issuing) value, in `unit`")]
    cycles_per_issued_instruction: Annotated[float | None, Meta(description="warp cycles per issued instruction (cycles)")]
    cpi_consistency: Annotated[float | None, Meta(description="total / cycles_per_issued_instruction (ratio; 1.0 = consistent)")]
    reasons: Annotated[list[StallReasonDoc], Meta(description="every reason except Selected, largest first")]


class AdviceDoc(Doc):
    """one piece of advice"""

    id: Annotated[str, Meta(description="advice id: class:<bound>[:variant] or stall:<reason>")]
    text: Annotated[str, Meta(description="the advice in the document's language")]


class SolBottleneckDoc(Doc):
    """Nsight Compute's own Speed-of-Light verdict"""

    bound: Annotated[Class | None, Meta(description="the class Nsight Compute's own SOLBottleneck rule stored")]
    title: Annotated[str | None, Meta(description="that rule result's title (English in every --lang, as Nsight Compute stores it)")]


class RuleDoc(Doc):
    """one stored rule result of Nsight Compute"""

    rule_id: Annotated[str, Meta(description="Nsight Compute rule id")]
    title: Annotated[str, Meta(description="rule title (English in every --lang, as Nsight Compute stores it)")]
    message_type: Annotated[str, Meta(description="OPTIMIZATION, WARNING, INFO, ERROR or OK")]
    message: Annotated[str, Meta(description="the rule's text (English in every --lang, as Nsight Compute stores it)")]
    estimated_speedup_pct: Annotated[float | None, Meta(description=(
        "Nsight's estimated speedup, percent (0-100); null: the rule gives none"))]
    speedup_type: Annotated[str | None, Meta(description="local or global; null: not given")]


class NsightDoc(Doc):
    """what Nsight Compute itself concluded"""

    sol_bottleneck: SolBottleneckDoc
    rules: Annotated[list[RuleDoc], Meta(description="Nsight Compute's stored rule results, as recorded")]


class UnitLoadDoc(Doc):
    """how busy one hardware unit was (a Speed-of-Light breakdown sub-metric)"""

    unit: Annotated[str | None, Meta(description=(
        "unit id (kernelscope/data/units.toml: lsu, fma, alu, l1, l2, dram, ...); null: a sub-metric the file does not know"))]
    name: Annotated[str, Meta(description="the unit's name in the document's language, or the metric name")]
    side: Annotated[Literal["compute", "memory"], Meta(description="which Speed-of-Light throughput it is part of")]
    kind: Annotated[str | None, Meta(description=(
        "what a limit there means: math, memory_instructions, issue, control, l1, l2, dram, interconnect; null: unknown"))]
    metric: Annotated[str, Meta(description="the busiest Nsight sub-metric of that unit")]
    pct: Annotated[float, Meta(description="its value, percent of peak (0-100)")]


class MemoryLevelDoc(Doc):
    """one level of the memory hierarchy (hierarchical roofline)"""

    level: Annotated[Literal["l1", "shared", "l2", "dram"], Meta(description="memory level")]
    throughput_pct: Annotated[float | None, Meta(description="the level's throughput, percent of its peak (0-100)")]
    bytes: Annotated[float | None, Meta(description=(
        "bytes moved at that level, from the counters `bytes_metric` names: L1 = LSU writeback cycles x 128 B (plus "
        "the LDGSTS sectors x 32 B of cp.async copies), L2 = sectors x 32 B, DRAM = read + write"))]
    hit_rate_pct: Annotated[float | None, Meta(description="cache hit rate, percent (0-100); null for shared and DRAM")]
    arithmetic_intensity_flop_per_byte: Annotated[float | None, Meta(description=(
        "the launch's FLOPs / bytes at this level, FLOP/byte (hierarchical roofline)"))]
    bytes_metric: Annotated[str | None, Meta(description="the Nsight counter(s) `bytes` (and the peak) come from")]
    peak_bytes_per_s: Annotated[float | None, Meta(description=(
        "the level's peak bandwidth as the report measures it, bytes/s; null: the report does not measure it (also "
        "for bytes summed from two counters of different peaks)"))]
    bandwidth_pct: Annotated[float | None, Meta(description=(
        "bytes / duration as percent (0-100) of peak_bytes_per_s: how close the level's roofline point is to its ceiling"))]


class NsightMatchDoc(Doc):
    """one of Nsight Compute's stored rule findings set against kernelscope's"""

    rule_id: Annotated[str, Meta(description="Nsight Compute rule id")]
    status: Annotated[Literal["agree", "nsight_only", "no_counterpart", "kernelscope_only"], Meta(description=(
        "agree: both name the cause; nsight_only: Nsight's rule fired, kernelscope's findings for that cause did not; "
        "no_counterpart: kernelscope has no rule for it; kernelscope_only: a kernelscope finding fired, the Nsight "
        "rule for the same cause ran and did not"))]
    nsight_speedup_pct: Annotated[float | None, Meta(description=(
        "Nsight's estimated speedup, percent (0-100) of runtime saved, as stored; null: none given or not fired"))]
    speedup_type: Annotated[str | None, Meta(description="local or global, as stored; null: not given")]
    findings: Annotated[list[str], Meta(description="kernelscope finding ids of the same cause that fired")]


class ImplausibleDoc(Doc):
    """a value the input holds that cannot be real, kept out of every field and verdict"""

    metric: Annotated[str, Meta(description=(
        "the metric it was read as: an Nsight metric name, the input's own name (nvprof metric, console label, "
        "plain-numbers field) or flop_counts.<pipe> (user data: escape before display)"))]
    value: Annotated[float, Meta(description="the raw value as read, in `unit`")]
    unit: Annotated[str, Meta(description="its unit: % (0-100), byte, FLOP, hz, or the profiler's own unit")]
    reason: Annotated[Literal[
        "implausible_occupancy", "implausible_hit_rate", "implausible_pct", "implausible_negative", "implausible_bytes",
        "implausible_flops", "implausible_clock", "implausible_dram_above_peak", "implausible_flops_above_peak",
    ], Meta(description="why it cannot be real (a key of kernelscope/data/labels.toml [note])")]
    text: Annotated[str, Meta(description="the reason in the document's language")]
    limit: Annotated[float | None, Meta(description=(
        "the bound it broke, in `unit` (100 for a percentage; for *_above_peak the peak, bytes/s or FLOP/s); null "
        "for a value below 0"))]
    rate: Annotated[float | None, Meta(description=(
        "for *_above_peak: the rate the value implies over the launch's duration (bytes/s or FLOP/s); else null"))]


class DesignDoc(Doc):
    """what the report shows of the kernel itself, before any remedy (kernelscope.analysis.design)"""

    library: Annotated[str | None, Meta(description=(
        "the library family its name belongs to (kernelscope/data/libraries.toml: cublas, cudnn, cutlass, "
        "flash_attention, nccl, pytorch, triton, cub, reference); null: user code"))]
    async_copies: Annotated[float | None, Meta(description=(
        "asynchronous global -> shared copies executed (cp.async LDGSTS, TMA UTMALDG / UBLKCP), warp instructions; "
        "null: neither the opcode mix nor the counters were collected"))]
    tensor_instructions: Annotated[float | None, Meta(description=(
        "tensor-core MMA instructions executed (HMMA, IMMA, HGMMA, UTC*MMA), warp instructions; null: no opcode mix"))]
    warpgroup_mma: Annotated[bool | None, Meta(description="issues Hopper warpgroup MMAs (HGMMA ...); null: no opcode mix")]
    debug_build: Annotated[bool | None, Meta(description=(
        "the opcode mix is a device-debug build's (nvcc -G: generic LD/ST, register moves and branches); null: no "
        "opcode mix"))]
    persistent: Annotated[bool | None, Meta(description=(
        "the grid is one wave of blocks sized to the GPU (a multiple of the SM count, all resident at once); null: "
        "block count, SM count or occupancy unknown"))]
    facts: Annotated[list[str], Meta(description=(
        "the facts the remedies' preconditions were checked against (kernelscope.knowledge.remedies.FACTS, "
        "busiest:<unit>)"))]


class LaunchDoc(Doc):
    """one diagnosed kernel launch"""

    index: Annotated[int, Meta(description="0-based position of the launch in its report")]
    name: Annotated[str, Meta(description="kernel function name as the profiler shows it (user data: escape before display)")]
    demangled_name: Annotated[str, Meta(description="full demangled signature, or the name when none is recorded")]
    mangled_name: Annotated[str | None, Meta(description="mangled symbol; null: not recorded")]
    launch_count: Annotated[int, Meta(description=(
        "launches this entry stands for: 1 for a profiled launch, N for a summary row averaging N launches (its "
        "values are per-launch averages)"))]
    device: DeviceDoc
    launch: LaunchConfigDoc
    duration_s: Annotated[float | None, Meta(description="kernel duration, seconds (gpu__time_duration.sum); null: not measured")]
    sm_frequency_hz: Annotated[float | None, Meta(description="measured SM clock during the launch, Hz")]
    gpu: Annotated[GpuDoc | None, Meta(description="the GPU spec used for the ceilings; null: the profile names no GPU and none was given")]
    provenance: Annotated[list[NoteDoc], Meta(description="where the ceilings come from, and the report's own device attributes")]
    bound: Annotated[Class | None, Meta(description="headline bottleneck class; null: nothing measured to decide it")]
    classes: Annotated[list[Class], Meta(description="every bottleneck class that holds, most important first")]
    evidence: Annotated[list[NoteDoc], Meta(description="the measured values that triggered each class")]
    speed_of_light: SolDoc
    roofline: Annotated[RooflineDoc | None, Meta(description=(
        "the roofline of the pipe the kernel uses most; null: no ceiling applies (reason in not_measured)"))]
    roofline_by_pipe: Annotated[list[RooflineDoc], Meta(description="one point per pipe with FLOPs > 0")]
    notes: Annotated[list[NoteDoc], Meta(description="how the pipe was chosen, why quantities are missing, consistency warnings")]
    flop_counts: Annotated[dict[str, float], Meta(description=(
        "FLOP (count) executed per pipe, from the SASS FP counters (FMA = 2 FLOP); only measured pipes"))]
    dram_bytes_read: Annotated[float | None, Meta(description="bytes read from DRAM")]
    dram_bytes_write: Annotated[float | None, Meta(description="bytes written to DRAM")]
    tensor_pipe_active_pct: Annotated[float | None, Meta(description="tensor pipe utilisation, percent of peak (0-100)")]
    tensor_ops_pct: Annotated[dict[str, float], Meta(description=(
        "tensor-core work per input type, percent of that type's peak (0-100); empty when not collected"))]
    occupancy: OccupancyDoc
    stalls: Annotated[StallsDoc | None, Meta(description="warp-stall breakdown; null: no stall metrics (reason in not_measured)")]
    busiest_units: Annotated[list[UnitLoadDoc], Meta(description=(
        "the units of the Speed-of-Light breakdowns, compute side then memory side, each busiest first; empty when "
        "the breakdown was not collected"))]
    memory_levels: Annotated[list[MemoryLevelDoc], Meta(description=(
        "L1, shared, L2, DRAM as measured (levels with nothing measured left out)"))]
    limiting_level: Annotated[Literal["l1", "shared", "l2", "dram"] | None, Meta(description=(
        "the memory level closest to its peak; null: no level's throughput measured"))]
    findings: Annotated[list[FindingDoc], Meta(description=(
        "every finding of kernelscope's kernel rules, in rule order (Speed-of-Light first), each with its evidence, "
        "advice and estimated speedup"))]
    advice: Annotated[list[AdviceDoc], Meta(description="what to do, most important (largest estimated gain) first")]
    design: Annotated[DesignDoc | None, Meta(description="what the report shows of the kernel itself; null: not derived")]
    nsight_compute: Annotated[NsightDoc, Meta(description="what Nsight Compute itself concluded")]
    nsight_comparison: Annotated[list[NsightMatchDoc], Meta(description=(
        "Nsight Compute's fired rules (SOLBottleneck apart) beside kernelscope's findings, then kernelscope findings "
        "whose Nsight rule ran without firing; empty when the report stores no rule results"))]
    problems: Annotated[list[str], Meta(description="data problems found while reading, in --lang")]
    implausible: Annotated[list[ImplausibleDoc], Meta(description=(
        "values the input holds that cannot be real (a percentage above 100 or below 0, a negative or absurd count, "
        "DRAM bytes above the GPU's peak bandwidth, FLOP/s above its roof ...), each with its raw value and reason; "
        "the fields they would have filled are null and no verdict or advice rests on them"))]
    useful_flops: Annotated[float | None, Meta(description=(
        "the FLOPs the algorithm needs, FLOP per launch, as the user gave them (plain-numbers useful_flops, diagnose "
        "--useful-flops); flop_counts and roofline.flops are the EXECUTED FLOPs (padding, masked lanes and "
        "tensor-tile waste included); null: not given"))]
    useful_roofline: Annotated[RooflineDoc | None, Meta(description=(
        "the roofline point of useful_flops on the same pipe, ceilings, bytes and duration as roofline; null: no "
        "useful count given, or no roofline"))]
    not_measured: Annotated[list[NullReason], Meta(description=(
        "the reason for every null field of this launch (roofline objects explain their own nulls)"))]


class KernelGroupDoc(Doc):
    """launches of one kernel name"""

    name: Annotated[str, Meta(description="kernel name")]
    launches: Annotated[int, Meta(description="launches of that name (count)")]
    total_duration_s: Annotated[float, Meta(description="summed duration of its measured launches, seconds")]
    share: Annotated[float | None, Meta(description=(
        "total_duration_s / total of all kernels, fraction 0-1; null: no duration measured"))]
    unmeasured_launches: Annotated[int, Meta(description="launches without a measured duration (not in the total)")]


class SpreadDoc(Doc):
    """one quantity across the launches of a group that measured it, in the unit its name in `spread` gives"""

    min: Annotated[float, Meta(description="smallest value")]
    median: Annotated[float, Meta(description="median (the mean of the two middle values for an even count)")]
    max: Annotated[float, Meta(description="largest value")]
    measured: Annotated[int, Meta(description="launches that measured it (count); the group's others did not")]


GroupSpread = Annotated[SpreadDoc | None, Meta(description="null: no launch of the group measured it")]


class GroupSpreadDoc(Doc):
    """min / median / max across a group's launches of the quantities its panel shows"""

    duration_s: Annotated[GroupSpread, Meta(description="kernel duration, seconds")]
    sol_compute_pct: Annotated[GroupSpread, Meta(description="Speed-of-Light compute (SM) throughput, percent of peak 0-100")]
    sol_memory_pct: Annotated[GroupSpread, Meta(description="Speed-of-Light memory throughput, percent of peak 0-100")]
    achieved_occupancy_pct: Annotated[GroupSpread, Meta(description="achieved occupancy, percent 0-100")]
    dram_bytes: Annotated[GroupSpread, Meta(description="DRAM bytes read + written, bytes")]
    arithmetic_intensity_flop_per_byte: Annotated[GroupSpread, Meta(description=(
        "FLOP per DRAM byte of the roofline's pipe (finite values only)"))]
    achieved_flops_per_s: Annotated[GroupSpread, Meta(description="achieved FLOP/s of the roofline's pipe")]


class OutlierDoc(Doc):
    """a launch of a group that differs from the others beyond the spread"""

    index: Annotated[int, Meta(description="the launch's index (launches[].index)")]
    duration_ratio: Annotated[float | None, Meta(description=(
        f"its duration / the group's median duration (ratio) when outside {_BAND}; null: within that band"))]
    classes: Annotated[list[Class] | None, Meta(description=(
        "its bottleneck classes when they differ from the representative's; null: the same"))]
    text: Annotated[str, Meta(description="why it is called out, in the document's language")]


class ClockRangeDoc(Doc):
    """a clock whose rate differs across a group's launches by more than 5 % (their durations differ by it too)"""

    clock: Annotated[Literal["sm", "dram"], Meta(description=(
        "sm: smsp__cycles_elapsed.avg.per_second; dram: dram__cycles_elapsed.avg.per_second"))]
    min_hz: Annotated[float, Meta(description="its lowest rate over the group's launches, Hz")]
    max_hz: Annotated[float, Meta(description="its highest rate over the group's launches, Hz")]


class GroupSavingDoc(Doc):
    """the GPU time one of the representative's findings saves across the whole group"""

    finding_id: Annotated[str, Meta(description="the finding (launches[].findings[].id of the representative)")]
    program_time_saved_share: Annotated[float, Meta(description=(
        "the group's share of the report's GPU time x the finding's kernel_time_saved_share (without a ranking: "
        "x (1 - 1/estimated_speedup)), fraction 0-1: what the panel of the group shows"))]


class LaunchGroupDoc(Doc):
    """the diagnosed launches of one kernel with one grid and block (what the other formats show as one panel)"""

    name: Annotated[str, Meta(description="kernel function name (launches[].name)")]
    demangled_name: Annotated[str, Meta(description="the full kernel name the launches share (the grouping key)")]
    grid: Triple
    block: Triple
    launches: Annotated[list[int], Meta(description="indices of its launches (launches[].index), report order")]
    representative: Annotated[int, Meta(description="index of the launch of median duration, whose panel is shown")]
    count: Annotated[int, Meta(description="launches the group stands for (a summary entry counts its launch_count)")]
    total_s: Annotated[float, Meta(description="summed duration of its launches with a measured duration, seconds")]
    share: Annotated[float | None, Meta(description="total_s / the report's GPU time, fraction 0-1; null: unknown")]
    spread: GroupSpreadDoc
    outliers: Annotated[list[OutlierDoc], Meta(description=(
        f"launches whose duration lies outside {_BAND} x the median or whose bottleneck classes differ from the "
        "representative's, report order"))]
    savings: Annotated[list[GroupSavingDoc], Meta(description=(
        "the representative's findings with an estimate and the GPU time each saves across the group, in advice "
        "order; empty when the group's share of GPU time is unknown"))] = []
    clocks: Annotated[list[ClockRangeDoc], Meta(description=(
        "the clocks whose rate differs across the launches by more than 5 % (max / min); empty: one clock, or not "
        "measured"))] = []


class InputDoc(Doc):
    """one input file"""

    path: Annotated[str, Meta(description="the input file as given (user data)")]
    format: Annotated[str, Meta(description="input format id (ncu-rep, ncu-csv, ncu-text, nvprof, plain)")]
    tool_version: Annotated[str | None, Meta(description="version of the profiler that wrote it, as the input records it (user data); null: not recorded")]
    launch_count: Annotated[int, Meta(description="launches (entries) in the file, selected or not")]
    summary: Annotated[list[KernelGroupDoc], Meta(description=(
        "where GPU time goes: launches grouped by kernel name, largest total first"))]
    launches: Annotated[list[LaunchDoc], Meta(description="the diagnosed (selected) launches, report order")]
    groups: Annotated[list[LaunchGroupDoc], Meta(description=(
        "the diagnosed launches grouped by kernel (demangled name), grid and block, largest total time first"))] = []


class DiagnosisDoc(Doc):
    """Output of `kernelscope diagnose --format json`. Units: every quantity is in SI base units named in the field
    (``_s`` seconds, ``_hz`` hertz, ``_bytes`` bytes, ``_flops_per_s`` FLOP/s, ``_flop_per_byte`` FLOP/byte), ``_pct``
    fields are percent 0-100, ``share``/``efficiency`` fields are fractions 0-1; other fields state their unit in their
    description. A value that was not measured is null, never 0; each launch's `not_measured` list gives the reason
    for every null field. A non-finite number is never written: it is null with its reason."""

    schema: Annotated[Literal["kernelscope.diagnosis/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    inputs: Annotated[list[InputDoc], Meta(description="one entry per input file, in the order given")]

"""``kernelscope.timeline/1``: the JSON document of ``kernelscope timeline --format json``.

One report per program run (a file of ``nsys stats`` output may hold several captures). Times are in seconds
(``_s``), file-clock timestamps in nanoseconds (``_ns``), sizes in bytes, ``_pct`` fields percent 0-100,
``*fraction`` fields fractions 0-1. A value that is infinite (an Amdahl factor "gone", the speedup when an item is
the whole program time, the open-ended last gap bin) or NaN is written as null, and the object holding it gets
``<field>_null_reason`` (present only then).
"""

from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from .fusion import FusionDoc
from .common import Class, Doc, EvidenceDoc, FindingDoc, Lang, NoteDoc, Version
from .timeline_ranks import KernelImbalanceDoc, RankLineDoc, RanksDoc

__all__ = [
    "AbsentKernelDoc", "AmdahlDoc", "BlackHoleDoc", "CopyDirectionDoc", "EvidenceDoc", "GapHistogramDoc", "GraphUseDoc", "InvalidRecordDoc",
    "ItemStatDoc", "KernelImbalanceDoc", "RankLineDoc", "RanksDoc", "JoinedKernelDoc", "KernelsJoinedDoc", "LaunchBoundDoc", "NcuKernelDoc", "LaunchOverheadDoc", "LaunchShapeDoc", "OneOffCallDoc", "RankRowDoc",
    "RepairedRecordDoc", "ScopeShareDoc", "TimeSplitDoc", "TimelineDoc",
    "TimelineFindingDoc", "TimelineReportDoc", "TinyKernelDoc",
]

_ONLY = "; present only when one is null"
GoneReason = Annotated[Literal["gone", "not_a_number"] | UnsetType, Meta(
    description='why a factor is null: "gone" (infinite factor: the item removed) or "not_a_number"' + _ONLY)]
UnboundedReason = Annotated[Literal["unbounded", "not_a_number"] | UnsetType, Meta(
    description='why a speedup is null: "unbounded" (infinite) or "not_a_number"' + _ONLY)]
OpenEndedReason = Annotated[Literal["open_ended", "not_a_number"] | UnsetType, Meta(
    description='why an edge is null: "open_ended" (infinite last edge: the last bin is open-ended) or "not_a_number"' + _ONLY)]



AmdahlScope = Annotated[Literal["program", "device", "rank"], Meta(description=(
    "whose time is projected: program (the program wall: the longest rank wall, the slowest rank / device ends it; "
    "each rank's wall shrinks by the least time the item takes from any of its devices), device (one GPU: its "
    "rank's wall) or rank (one rank as a whole: its wall)"))]
AmdahlBasis = Annotated[Literal["exclusive", "serial", "host", "no_gpu_work", "exposed_communication"],
                        Meta(description=(
    "which of the item's time goes: exclusive (the time it adds to its device's busy union, i.e. covered by it "
    "alone: overlapped time gains nothing), serial (its summed time, assuming serial execution: an nsys stats "
    "summary has no intervals), host (the union of its host intervals on each rank, assuming the rank waits for "
    "them), no_gpu_work (GPU idle time: no GPU work at all) or exposed_communication (communication not hidden under "
    "computation, beyond the ranks' collective waits)"))]


class AmdahlDoc(Doc, kw_only=True):
    """Amdahl projection of one item: what its scope's time becomes if the item gets faster (`scope` says whose
    time, `basis` which of the item's time), assuming that time is on the critical path"""

    fraction: Annotated[float, Meta(description=(
        "share of the scope's time saved if the item were gone, fraction 0-1 (one device or rank: the removed time / "
        "its time)"))]
    factors: Annotated[list[float | None], Meta(description=(
        "how many times faster the item is assumed to become (ratio); the last one is null: the item gone "
        "(factors_null_reason \"gone\")"))]
    factors_null_reason: GoneReason = UNSET
    speedups: Annotated[list[float | None], Meta(description=(
        "program speedup for each factor (ratio, >= 1); null when unbounded (the item is the whole program time "
        "and goes)"))]
    speedups_null_reason: UnboundedReason = UNSET
    saved_fraction: Annotated[list[float], Meta(description=(
        "share of the scope's time saved for each factor = 1 - 1/speedup (one device or rank: fraction * "
        "(1 - 1/factor)), fraction 0-1"))]
    scope: AmdahlScope
    basis: AmdahlBasis
    base_s: Annotated[float | None, Meta(description=(
        "the scope's time before, seconds; null: a projection of a bare fraction"))]
    projected_s: Annotated[list[float], Meta(description=(
        "the scope's time after, for each factor, seconds (empty when base_s is null)"))]


class ScopeShareDoc(Doc):
    """one item on one device (kernels, copies, memsets) or on one rank as a whole (host items, GPU idle), against
    that device's time: its rank's wall"""

    rank: Annotated[int | None, Meta(description="distributed rank; null: not recorded (single process)")]
    device: Annotated[int | None, Meta(description=(
        "CUDA device id; null: the rank as a whole (its host for API calls, syncs and annotations; all its GPUs "
        "for GPU idle)"))]
    count: Annotated[int, Meta(description="intervals there (count)")]
    total_s: Annotated[float, Meta(description="their plain sum, seconds")]
    busy_s: Annotated[float, Meta(description=(
        "union of the item's own intervals there (the time it runs), seconds; <= time_s"))]
    exclusive_s: Annotated[float | None, Meta(description=(
        "kernels, copies, memsets: time only this item covers on the device = the device's busy union minus the "
        "busy union without it (what its absence removes), seconds; null for host items and GPU idle"))]
    time_s: Annotated[float, Meta(description="the device's time the share is of: its rank's wall, seconds")]
    share_pct: Annotated[float, Meta(description="busy_s / time_s, percent 0-100 (never above 100)")]
    amdahl: Annotated[AmdahlDoc | None, Meta(description=(
        "projection of this device's (rank's) time, scope device (rank); null: that time is 0"))]


class LaunchShapeDoc(Doc):
    """the most common launch configuration of one kernel name (from the trace's launch arguments)"""

    grid: Annotated[tuple[int, int, int], Meta(description="grid dimensions [x, y, z] in blocks")]
    block: Annotated[tuple[int, int, int], Meta(description="block dimensions [x, y, z] in threads")]
    registers_per_thread: Annotated[int | None, Meta(description="registers per thread (count); null: not recorded")]
    launches: Annotated[int, Meta(description="launches with this configuration (count)")]
    recorded: Annotated[int, Meta(description="launches of the name with a recorded configuration (count)")]
    shapes: Annotated[int, Meta(description="distinct configurations the name was launched with (count)")]


class ItemStatDoc(Doc):
    """one named item (kernel, copy kind, API call, annotation range) summed over its occurrences"""

    kind: Annotated[str, Meta(description=(
        'interval kind: "kernel", "memcpy", "memset", "runtime_api", "sync", "annotation", "gpu_idle" (the GPU '
        'idle row: time with no GPU work) or "communication" (the exposed communication row)'))]
    name: Annotated[str, Meta(description="its name (user data); a name cut by nsys stats keeps its ellipsis")]
    count: Annotated[int, Meta(description="launches / calls / ranges (count)")]
    total_s: Annotated[float, Meta(description="summed duration, seconds")]
    mean_s: Annotated[float | None, Meta(description="mean duration, seconds; null: not recorded")]
    min_s: Annotated[float | None, Meta(description="shortest duration, seconds; null: not recorded")]
    max_s: Annotated[float | None, Meta(description="longest duration, seconds; null: not recorded")]
    median_s: Annotated[float | None, Meta(description=(
        "median duration, seconds; null: not computed (only the top items of each ranking get one) or not recorded"))]
    share_pct: Annotated[float | None, Meta(description=(
        "share of its category's total time, percent 0-100 (kernels: of the summed kernel time, as nsys' Time (%); "
        "gpu_idle: of the summed walls of the ranks with GPU work)"))]
    program_fraction: Annotated[float | None, Meta(description=(
        "share of the program time saved if the item were gone, fraction 0-1 (= amdahl.fraction; never above 1): a "
        "timeline: of the program wall, each device losing the time the item adds to its busy union (one device, no "
        "overlap: total_s / wall); a summary: total_s / the summed GPU time; null: no program time"))]
    amdahl: Annotated[AmdahlDoc | None, Meta(description=(
        "program projection (scope program); null: no program time"))]
    bytes: Annotated[int | None, Meta(description="bytes moved (copies, memsets); null: not recorded or not a copy")]
    throughput_bytes_per_s: Annotated[float | None, Meta(description="bytes / total_s, bytes/s (copies, memsets); null otherwise")]
    truncated: Annotated[bool, Meta(description="the profiler cut the name")]
    launch: Annotated[LaunchShapeDoc | None, Meta(description=(
        "kernels: the most common launch configuration; null: the trace records no launch arguments for it"))]
    graph_launches: Annotated[int | None, Meta(description=(
        "kernels of a timeline: how many of its runs were nodes of a CUDA graph (count, 0: none); null: not known "
        "(an nsys stats summary, or not a kernel)"))]
    exclusive_s: Annotated[float | None, Meta(description=(
        "kernels, copies, memsets of a timeline: the time it adds to the busy union of its devices (covered by it "
        "alone), summed over devices, seconds; null otherwise"))]
    devices: Annotated[list[ScopeShareDoc], Meta(description=(
        "a timeline: the item on each device (kernels, copies, memsets) or each rank (host items, GPU idle) where "
        "it occurs, with its share of that device's time and the per-device projection; empty for a summary"))]


class CopyDirectionDoc(Doc):
    """copies of one direction on one device or stream (plain sums: copies on several streams may overlap)"""

    direction: Annotated[str, Meta(description='copy direction: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP" or "unknown"')]
    count: Annotated[int, Meta(description="copies (count)")]
    total_s: Annotated[float, Meta(description="summed copy time, seconds")]
    bytes: Annotated[int | None, Meta(description="bytes copied; null: not recorded for every copy")]
    throughput_bytes_per_s: Annotated[float | None, Meta(description="bytes / total_s, bytes/s; null: bytes not recorded")]
    pageable_s: Annotated[float, Meta(description="time of copies involving pageable host memory, seconds")]
    pinned_s: Annotated[float, Meta(description="time of copies with pinned or device memory only, seconds")]
    unknown_memory_s: Annotated[float, Meta(description="time of copies whose host memory kind is not recorded, seconds")]


class GapHistogramDoc(Doc, kw_only=True):
    """gaps between consecutive kernels on one device (a gap = next start - latest end so far)"""

    edges_s: Annotated[list[float | None], Meta(description=(
        "bin edges, seconds; the last one is null: the last bin is open-ended (edges_s_null_reason \"open_ended\")"))]
    edges_s_null_reason: OpenEndedReason = UNSET
    counts: Annotated[list[int], Meta(description="gaps in [edges_s[i], edges_s[i+1]) (count per bin)")]
    totals_s: Annotated[list[float], Meta(description="summed length of the gaps of each bin, seconds")]
    overlapping: Annotated[int, Meta(description="kernels that started before the previous ones ended (count)")]


class TimeSplitDoc(Doc):
    """wall time of one device (`stream` null) or one stream split into kernel / copy / memset / idle time"""

    rank: Annotated[int | None, Meta(description="distributed rank; null: not recorded (single process)")]
    device: Annotated[int, Meta(description="CUDA device id")]
    stream: Annotated[int | None, Meta(description="stream id; null: the whole device")]
    device_name: Annotated[str | None, Meta(description="GPU name from the file (user data); null: not recorded")]
    start_ns: Annotated[int, Meta(description="start of the span (first GPU operation), file clock, nanoseconds")]
    end_ns: Annotated[int, Meta(description="end of the span (end of the last GPU operation), file clock, nanoseconds")]
    span_s: Annotated[float, Meta(description="end_ns - start_ns, seconds")]
    busy_s: Annotated[float, Meta(description="union of kernel, memcpy and memset intervals, seconds")]
    kernel_s: Annotated[float, Meta(description="time at least one kernel ran (union of kernels), seconds")]
    memcpy_s: Annotated[float, Meta(description="time copies ran while no kernel did, seconds")]
    memset_s: Annotated[float, Meta(description="time memsets ran while no kernel or copy did, seconds")]
    idle_s: Annotated[float, Meta(description="span_s - busy_s, seconds (kernel_s + memcpy_s + memset_s + idle_s = span_s)")]
    utilisation_pct: Annotated[float | None, Meta(description=(
        "busy_s / span_s, percent 0-100 (never above 100); null: the span is zero (not measurable)"))]
    sum_over_streams_s: Annotated[float, Meta(description=(
        "plain sum of all busy intervals, seconds (counts overlapping streams twice: not wall time)"))]
    overlap_s: Annotated[float, Meta(description="sum_over_streams_s - busy_s: time counted more than once by that sum, seconds")]
    kernel_sum_s: Annotated[float, Meta(description="plain sum of kernel durations, seconds")]
    memcpy_sum_s: Annotated[float, Meta(description="plain sum of copy durations, seconds")]
    memset_sum_s: Annotated[float, Meta(description="plain sum of memset durations, seconds")]
    copy_compute_overlap_s: Annotated[float, Meta(description="copy time hidden under kernels, seconds")]
    copies: Annotated[list[CopyDirectionDoc], Meta(description="copies per direction")]
    sync_s: Annotated[float, Meta(description=(
        "host time in synchronisation calls of this device (union), seconds; overlaps the split"))]
    kernel_count: Annotated[int, Meta(description="kernel intervals (count)")]
    memcpy_count: Annotated[int, Meta(description="copy intervals (count)")]
    memset_count: Annotated[int, Meta(description="memset intervals (count)")]
    gaps: Annotated[GapHistogramDoc | None, Meta(description="kernel-to-kernel gap histogram; null for a stream")]
    largest_gap_s: Annotated[float, Meta(description="longest idle gap between busy intervals, seconds (0: none)")]
    largest_gap_start_ns: Annotated[int | None, Meta(description="start of that gap, file clock, nanoseconds; null: no gap")]


class LaunchOverheadDoc(Doc):
    """API call -> kernel start latency, joined on rank + correlation id whatever the call's name (cudaLaunchKernel,
    cudaGraphLaunch ...): one latency per launch call, to the start of the FIRST kernel it launched (later graph
    nodes queue behind the earlier ones: not launch latency)"""

    matched: Annotated[int, Meta(description="kernels whose launch call was found (count)")]
    unmatched: Annotated[int, Meta(description="kernels without a launch call found (count)")]
    latency_mean_s: Annotated[float | None, Meta(description=(
        "mean of first kernel start - API call start over the launch calls into an empty stream queue (launch "
        "latency), seconds; null: none"))]
    latency_median_s: Annotated[float | None, Meta(description=(
        "median of first kernel start - API call start over the launch calls into an empty stream queue, seconds"))]
    latency_p95_s: Annotated[float | None, Meta(description=(
        "95th percentile of first kernel start - API call start over the launch calls into an empty stream queue, "
        "seconds"))]
    latency_max_s: Annotated[float | None, Meta(description=(
        "largest first kernel start - API call start over the launch calls into an empty stream queue, seconds"))]
    api_median_s: Annotated[float | None, Meta(description=(
        "median host duration of the launch calls (a graph launch counted once), seconds"))]
    launches: Annotated[int | None, Meta(description=(
        "launch calls joined to at least one kernel (count); null: not computed"))]
    graph_launches: Annotated[int, Meta(description="how many of those launch calls launched CUDA graphs (count)")]
    idle_queue_launches: Annotated[int | None, Meta(description=(
        "launch calls whose kernel found its stream's queue empty: the latency_* fields are over these (count); "
        "null: not computed"))]
    queued_launches: Annotated[int, Meta(description=(
        "launch calls whose kernel found earlier work queued or running on its stream (count): their time is queue "
        "wait (GPU backlog), not launch latency"))]
    queue_wait_median_s: Annotated[float | None, Meta(description=(
        "median of first kernel start - API call start over the queued launch calls, seconds; null: none queued"))]
    queue_wait_max_s: Annotated[float | None, Meta(description=(
        "largest first kernel start - API call start over the queued launch calls, seconds; null: none queued"))]
    queue_depth_min: Annotated[int | None, Meta(description=(
        "fewest operations of its stream ahead of a queued launch call (count); null: none queued"))]
    queue_depth_max: Annotated[int | None, Meta(description=(
        "most operations of its stream ahead of a queued launch call (count); null: none queued"))]


class GraphUseDoc(Doc):
    """the kernels that ran as nodes of CUDA graphs (the profiler's graph node id where recorded, else inferred from
    the launch calls: a graph launch, or one call that started several kernels)"""

    launches: Annotated[int, Meta(description="graph launch calls joined to their kernels (count)")]
    kernels: Annotated[int, Meta(description="kernel runs that were graph nodes (count)")]
    kernel_s: Annotated[float, Meta(description="their summed GPU time, seconds")]
    total_kernel_s: Annotated[float, Meta(description="summed time of all kernels, seconds")]
    kernel_pct: Annotated[float, Meta(description="kernel_s / total_kernel_s, percent 0-100")]
    host_s: Annotated[float | None, Meta(description=(
        "host time of the graph launch calls, each counted once per launch (not per node), seconds; null: no call "
        "recorded"))]
    recorded: Annotated[bool, Meta(description=(
        "true: the file marks graph nodes itself (Nsight Systems graphNodeId); false: inferred from the launch calls"))]


class LaunchBoundDoc(Doc):
    """the host's cost per kernel launch, whether the kernels run shorter than it (launch-bound), and what replaying
    the launch-bound launches as one CUDA graph would save by the measured cost model in timeline_rules.toml
    [graph_replay]"""

    cost_source: Annotated[Literal["spacing", "call_duration"], Meta(description=(
        "spacing: median spacing (start to next start) of consecutive kernel launch calls of one host thread; "
        "call_duration: the launch call's own mean duration (an nsys stats summary has no timestamps)"))]
    per_launch_s: Annotated[float, Meta(description="the host's cost per launch, seconds")]
    spacings: Annotated[int, Meta(description="consecutive launch-call pairs measured (count; 0 for call_duration)")]
    launches: Annotated[int, Meta(description="kernel launch calls considered, graph launches excluded (count)")]
    bound_launches: Annotated[int, Meta(description=(
        "n: launches whose kernels ran shorter than max_kernel_fraction of per_launch_s (count)"))]
    kernel_s: Annotated[float | None, Meta(description="kernel time per launch: median (a summary: mean), seconds")]
    bound_kernel_s: Annotated[float | None, Meta(description=(
        "summed kernel time of the n launch-bound launches, seconds"))]
    launch_bound: Annotated[bool, Meta(description="kernel_s is below max_kernel_fraction of per_launch_s")]
    replay_fixed_s: Annotated[float, Meta(description="graph replay cost model: fixed part, seconds")]
    replay_per_node_s: Annotated[float, Meta(description="graph replay cost model: per node, seconds")]
    replay_s: Annotated[float, Meta(description="replay_fixed_s + replay_per_node_s * n, seconds")]
    predicted_saving_s: Annotated[float, Meta(description=(
        "n * per_launch_s - max(replay_s, bound_kernel_s) (the loop then takes the longer of the replay and its "
        "kernels' own time), at most the trace's GPU idle time; summed over the ranks ranks, seconds (<= 0: a graph "
        "would not pay)"))]
    ranks: Annotated[int, Meta(description=(
        "ranks the launches and predicted_saving_s are summed over (count; 1: one rank or a summary)"))]
    program_saving_s: Annotated[float | None, Meta(description=(
        "the most the program's wall could shorten: predicted_saving_s, at most the wall less the longest of the "
        "ranks' GPU-busy times (rank wall - rank GPU idle), so never above the wall; seconds; null: a summary "
        "(no wall) or no saving"))]
    break_even_nodes: Annotated[int | None, Meta(description=(
        "ceil(replay_fixed_s / (per_launch_s - replay_per_node_s)): the fewest nodes a graph needs to pay for itself "
        "(count); null: a node costs at least a launch"))]
    model_source: Annotated[str, Meta(description="where the graph replay cost model comes from: a citation, English in every --lang")]


class TinyKernelDoc(Doc):
    """a kernel name whose launches are about as long as their launch cost: a CUDA Graphs / fusion candidate"""

    name: Annotated[str, Meta(description="kernel name (user data)")]
    launches: Annotated[int, Meta(description="launches (count)")]
    median_s: Annotated[float, Meta(description="median duration, seconds")]
    total_s: Annotated[float, Meta(description="summed duration, seconds")]
    launch_cost_s: Annotated[float | None, Meta(description=(
        "median host time of its launch call, seconds; null: launch calls not recorded"))]
    savings_s: Annotated[float, Meta(description=(
        "GPU idle time just before its launches, each capped at the launch cost, seconds (what Graphs or fusion "
        "could save)"))]


class BlackHoleDoc(Doc):
    """the single largest place the time goes: the row (see `row`) whose absence saves the largest share of the
    program time, with that row's own figures"""

    category: Annotated[Literal["kernel", "memcpy", "memset", "gpu_idle", "communication"], Meta(description=(
        "what it is: the top kernel, copy or memset, GPU idle time (no GPU work at all) or the exposed "
        "communication (not hidden under computation)"))]
    name: Annotated[str, Meta(description='item name (user data), "GPU idle" for gpu_idle')]
    time_s: Annotated[float, Meta(description="its time, seconds")]
    program_fraction: Annotated[float | None, Meta(description="time_s / program time, fraction 0-1; null: no program time")]
    amdahl: Annotated[AmdahlDoc | None, Meta(description="Amdahl projection for program_fraction; null: no program time")]
    host_api: Annotated[str | None, Meta(description=(
        "gpu_idle: the CUDA API call covering most of the idle time on the host; null: none recorded or not gpu_idle"))]
    host_api_s: Annotated[float | None, Meta(description="host time of host_api during the idle time, seconds")]
    row: Annotated[Literal["kernels", "copies", "memsets", "gpu_idle", "communication"], Meta(description=(
        "where its row is in this report: every figure here is that row's own (name, total_s = time_s, "
        "program_fraction, amdahl)"))]
    lane: Annotated[ScopeShareDoc | None, Meta(description=(
        "the row's device (rank) where it takes the largest share of that device's time; null: none (a summary)"))]
    lanes: Annotated[int, Meta(description="on how many devices (ranks) the row occurs (count)")]


class RankRowDoc(Doc):
    """one rank side by side with the others (sums over its devices)"""

    rank: Annotated[int | None, Meta(description="distributed rank; null: not recorded")]
    wall_s: Annotated[float, Meta(description="wall time of the rank, seconds")]
    busy_s: Annotated[float, Meta(description="busy time summed over its devices, seconds")]
    kernel_s: Annotated[float, Meta(description="kernel time (split) summed over its devices, seconds")]
    memcpy_s: Annotated[float, Meta(description="copy time (split) summed over its devices, seconds")]
    memset_s: Annotated[float, Meta(description="memset time (split) summed over its devices, seconds")]
    idle_s: Annotated[float, Meta(description="idle time summed over its devices, seconds")]
    utilisation_pct: Annotated[float | None, Meta(description="busy / span, percent 0-100; null: no span")]
    communication_s: Annotated[float, Meta(description=(
        "union of its communication kernels (NCCL ...) over its devices and streams (wall-clock), seconds"))]
    computation_s: Annotated[float, Meta(description="union of its other kernels (wall-clock), seconds")]
    host_api_s: Annotated[float | None, Meta(description=(
        "union of this rank's host CUDA API intervals, seconds (<= wall_s); null: none recorded"))]
    no_gpu_s: Annotated[float | None, Meta(description=(
        "time of this rank's wall with no GPU work on any of its devices, seconds; null: no GPU work"))]
    overlap_s: Annotated[float, Meta(description="time computation and communication both ran, seconds")]
    exposed_communication_s: Annotated[float, Meta(description=(
        "communication not hidden under computation, seconds"))]
    collective_wait_s: Annotated[float, Meta(description=(
        "time it waited in collectives for other ranks (0 with one rank), seconds"))]
    own_s: Annotated[float, Meta(description="wall_s - collective_wait_s: its own work, seconds")]
    communication_sum_s: Annotated[float, Meta(description=(
        "plain sum of its communication kernels' durations (concurrent ones counted twice: not wall time), seconds"))]


class InvalidRecordDoc(Doc):
    """records found but not usable (counted and named, never used in the breakdown)"""

    kind: Annotated[str, Meta(description='interval kind name, e.g. "kernel"')]
    name: Annotated[str, Meta(description="the records' name (user data)")]
    reason: Annotated[str, Meta(description="why they are unusable")]
    count: Annotated[int, Meta(description="how many records (count)")]
    correlation_ids: Annotated[list[int], Meta(description="their correlation ids, where recorded (a few dozen at most)")]


class RepairedRecordDoc(Doc):
    """records kept after a repair by the reader (e.g. an end past the start of the next operation on its own
    stream, clipped there)"""

    kind: Annotated[str, Meta(description='interval kind name, e.g. "kernel"')]
    name: Annotated[str, Meta(description="the records' name (user data)")]
    reason: Annotated[str, Meta(description="what was wrong and what was done")]
    device: Annotated[int, Meta(description="device id; -1: not recorded")]
    stream: Annotated[int, Meta(description="stream id; -1: not recorded")]
    count: Annotated[int, Meta(description="how many records (count)")]
    removed_ns: Annotated[int, Meta(description="time removed from them in all, nanoseconds")]
    max_removed_ns: Annotated[int, Meta(description="the most removed from one record, nanoseconds")]
    correlation_ids: Annotated[list[int], Meta(description="their correlation ids, where recorded (a few dozen at most)")]


class OneOffCallDoc(Doc):
    """a CUDA API cost paid once (context creation in the first call, module loading), shown apart from the
    per-call costs (`api_calls` hold the other calls only)"""

    name: Annotated[str, Meta(description="the API call")]
    why: Annotated[Literal["first_call", "once"], Meta(description=(
        '"first_call": its longest call took at least the rule\'s ratio times the median (context creation); '
        '"once": a call made once per process or module (every call of it)'))]
    calls: Annotated[int, Meta(description="one-off calls (count)")]
    time_s: Annotated[float, Meta(description="their time, seconds")]
    total_calls: Annotated[int, Meta(description="all calls of the API in the file (count)")]
    per_call_calls: Annotated[int, Meta(description="calls left in the per-call ranking (count)")]
    per_call_s: Annotated[float, Meta(description="their summed time, seconds")]
    median_s: Annotated[float | None, Meta(description="the API's median call as printed, seconds; null: not printed")]
    ratio_to_median: Annotated[float | None, Meta(description="one-off time / median (ratio); null: no median")]


class TimelineFindingDoc(FindingDoc, kw_only=True):
    """what one expert check concluded: the common finding plus the time and count it concerns (and the keys of
    earlier timeline documents)"""

    rule: Annotated[str, Meta(description="the check's id: the same as `id` (kept for readers of earlier timeline documents)")]
    note: Annotated[NoteDoc, Meta(description="the finding worded: the same as `message` (kept for earlier readers)")]
    time_s: Annotated[float | None, Meta(description="the time the finding concerns (its first evidence in seconds), seconds")]
    count: Annotated[int | None, Meta(description="how many intervals it counts (its first evidence counted); null: none")]


class NcuKernelDoc(Doc):
    """the Nsight Compute launch a timeline kernel was joined to, and the summary of its diagnosis"""

    report: Annotated[str, Meta(description="the Nsight Compute report, as given (user data)")]
    index: Annotated[int, Meta(description="the launch's position in the report, 0-based (diagnose's launches[].index)")]
    name: Annotated[str, Meta(description="the launch's function name (user data)")]
    demangled_name: Annotated[str, Meta(description="its demangled signature (user data)")]
    launches: Annotated[int, Meta(description=(
        "the report's launches that matched (after the grid/block narrowing); the one shown is their median-duration "
        "launch (the lower middle for an even count)"))]
    duration_s: Annotated[float | None, Meta(description="the launch's duration, seconds; null: not measured")]
    grid: Annotated[tuple[int, int, int] | None, Meta(description="its grid [x, y, z] in blocks; null: not recorded")]
    block: Annotated[tuple[int, int, int] | None, Meta(description="its block [x, y, z] in threads; null: not recorded")]
    match: Annotated[Literal["exact", "signature", "function"], Meta(description=(
        "how the names matched: exact (the whole normalised demangled signature), signature (without the parameter "
        "list and return type) or function (the function name without template arguments, naming one kernel of the "
        "report)"))]
    shape: Annotated[Literal["same", "different", "not_recorded"], Meta(description=(
        "grid/block against the timeline kernel's most common launch shape: same, different (matched by name "
        "alone) or not_recorded (one side has none)"))]
    bound: Annotated[Class | None, Meta(description="the headline bottleneck class; null: nothing measured")]
    verdict: Annotated[list[Class], Meta(description="every bottleneck class that holds, headline first")]
    top_finding: Annotated[FindingDoc | None, Meta(description=(
        "the finding diagnose leads its advice with (its program_time_saved_share is of the report's GPU time); "
        "null: no finding with advice"))]
    top_finding_title: Annotated[str | None, Meta(description=(
        "its title in the document's language, or its rule id when it has no title; null: no finding"))]
    estimated_speedup: Annotated[float | None, Meta(description=(
        "the top finding's estimated kernel speedup, a factor >= 1; null: not estimated"))]
    estimated_speedup_pct: Annotated[float | None, Meta(description=(
        "the share of the kernel's time it would save = 100 * (1 - 1/estimated_speedup), percent 0-100 (Nsight "
        "Compute's Est. Speedup convention); null: not estimated"))]


class JoinedKernelDoc(Doc):
    """one of the timeline's top kernels with its Nsight Compute diagnosis and the program speedup fixing it gives"""

    position: Annotated[int, Meta(description="its place in the timeline's kernel ranking (1: the largest total time)")]
    name: Annotated[str, Meta(description="the timeline's kernel name (user data)")]
    count: Annotated[int, Meta(description="launches in the timeline (count)")]
    total_s: Annotated[float, Meta(description="their summed duration, seconds")]
    share_pct: Annotated[float | None, Meta(description="share of the summed kernel time, percent 0-100")]
    program_fraction: Annotated[float | None, Meta(description=(
        "share of the program time saved if the kernel were gone, fraction 0-1 (the ranking's program_fraction)"))]
    grid: Annotated[tuple[int, int, int] | None, Meta(description=(
        "its most common grid in the timeline [x, y, z]; null: not recorded"))]
    block: Annotated[tuple[int, int, int] | None, Meta(description=(
        "its most common block in the timeline [x, y, z]; null: not recorded"))]
    ncu: Annotated[NcuKernelDoc | None, Meta(description=(
        "the Nsight Compute launch it was joined to; null: no Nsight Compute data (no launch of the reports "
        "matched: not guessed)"))]
    amdahl: Annotated[AmdahlDoc | None, Meta(description=(
        "program projection for the kernel ncu.estimated_speedup times faster (factors[0]) and gone; null: no "
        "estimate or no program time"))]
    program_speedup: Annotated[float | None, Meta(description=(
        "program speedup if the top finding's cause were fixed: 1 / ((1 - program_fraction) + program_fraction / "
        "ncu.estimated_speedup) (ratio); null: not estimated or no Nsight Compute data"))]


class AbsentKernelDoc(Doc):
    """a kernel of a Nsight Compute report that no kernel of the timeline matched"""

    report: Annotated[str, Meta(description="the Nsight Compute report, as given (user data)")]
    name: Annotated[str, Meta(description="function name (user data)")]
    demangled_name: Annotated[str, Meta(description="demangled signature (user data)")]
    launches: Annotated[int, Meta(description="its launches in the report (count)")]
    total_s: Annotated[float | None, Meta(description="their summed duration, seconds; null: not measured")]


class KernelsJoinedDoc(Doc):
    """the timeline's top kernels joined with their Nsight Compute diagnoses (timeline --kernels)"""

    reports: Annotated[list[str], Meta(description=(
        "the Nsight Compute reports, in the order given (the first holding a match wins)"))]
    program_time_s: Annotated[float | None, Meta(description=(
        "the time program fractions and speedups are of, seconds (the report's program_time_s)"))]
    basis: Annotated[AmdahlBasis | None, Meta(description=(
        "which of each kernel's time counts (exclusive for a timeline, serial for a summary); null: no projection"))]
    matched: Annotated[int, Meta(description="top kernels with Nsight Compute data (count)")]
    kernels: Annotated[list[JoinedKernelDoc], Meta(description="the top kernels, in ranking order")]
    absent: Annotated[list[AbsentKernelDoc], Meta(description=(
        "report kernels matched by no kernel of the timeline (all its kernels, not only the top ones)"))]


class StepsDoc(Doc):
    """training steps: the ProfilerStep#N ranges of one rank"""

    rank: Annotated[int | None, Meta(description="the rank they are of; null: not recorded")]
    count: Annotated[int, Meta(description="steps (count)")]
    first: Annotated[int, Meta(description="first step number N")]
    last: Annotated[int, Meta(description="last step number N")]
    median_s: Annotated[float, Meta(description="median step time, seconds")]
    slowest_s: Annotated[float, Meta(description="longest step, seconds")]
    slowest_step: Annotated[int, Meta(description="its step number N")]
    fastest_s: Annotated[float, Meta(description="shortest step, seconds")]
    spread_pct: Annotated[float, Meta(description="(slowest - fastest) / median, percent")]


class TimelineReportDoc(Doc, kw_only=True):
    """everything `kernelscope timeline` says about one program run"""

    path: Annotated[str, Meta(description="the input file as given (user data)")]
    format: Annotated[str, Meta(description="input format id (nsys-sqlite, nsys-stats, kineto)")]
    source: Annotated[Literal["intervals", "summary"], Meta(description=(
        "intervals: a timeline of events; summary: nsys stats per-name summaries (no split, no idle time)"))]
    wall_s: Annotated[float | None, Meta(description=(
        "program wall time: the longest rank wall (the slowest rank / device ends the program), seconds; null for a "
        "summary"))]
    program_time_s: Annotated[float | None, Meta(description=(
        "the time program Amdahl fractions are of, seconds: the wall time, or for a summary the summed GPU kernel + "
        "copy + memset time (stated in notes)"))]
    devices: Annotated[list[TimeSplitDoc], Meta(description="per device split (empty for a summary)")]
    streams: Annotated[list[TimeSplitDoc], Meta(description="per stream split (empty for a summary)")]
    host_api_s: Annotated[float | None, Meta(description=(
        "union of the host-side CUDA API time of one rank, host_api_rank (whose wall is the program wall), seconds; "
        "never summed over ranks (each rank's in ranks[].host_api_s); null: not recorded"))]
    host_api_rank: Annotated[int | None, Meta(description="the rank host_api_s is of; null: not recorded (one process)")]
    kernels: Annotated[list[ItemStatDoc], Meta(description="kernels by name, largest total time first")]
    copies: Annotated[list[ItemStatDoc], Meta(description="copies by kind, largest total time first")]
    memsets: Annotated[list[ItemStatDoc], Meta(description="memsets, largest total time first")]
    api_calls: Annotated[list[ItemStatDoc], Meta(description="CUDA API calls by name, largest total time first")]
    syncs: Annotated[list[ItemStatDoc], Meta(description="synchronisation calls by name, largest total time first")]
    annotations: Annotated[list[ItemStatDoc], Meta(description="annotation ranges (NVTX, user annotations), largest first")]
    launch: Annotated[LaunchOverheadDoc | None, Meta(description="launch overhead; null: not computable")]
    tiny_kernels: Annotated[list[TinyKernelDoc], Meta(description="CUDA Graphs / fusion candidates")]
    graphs: Annotated[GraphUseDoc | None, Meta(description="GPU time that ran from CUDA graphs; null: no kernel did")]
    launch_bound: Annotated[LaunchBoundDoc | None, Meta(description=(
        "per-launch cost, launch-bound or not, and the predicted CUDA graph saving; null: not measurable"))]
    black_hole: Annotated[BlackHoleDoc | None, Meta(description="the largest single item; null: nothing recorded")]
    ranks: Annotated[list[RankRowDoc], Meta(description="per-rank rows (more than one only for multi-rank traces)")]
    slowest_rank: Annotated[int | None, Meta(description="the straggler rank; null: one rank or not recorded")]
    findings: Annotated[list[TimelineFindingDoc], Meta(description="the expert checks that fired, in rule order")]
    not_computable: Annotated[list[str], Meta(description=(
        "quantities the input cannot give (ids: gpu_split, idle, utilisation, overlap, per_stream, launch_overhead, "
        "gaps, union, host_api)"))]
    notes: Annotated[list[NoteDoc], Meta(description="other statements")]
    invalid: Annotated[list[InvalidRecordDoc], Meta(description="records found but not usable")]
    repaired: Annotated[list[RepairedRecordDoc], Meta(description="records kept after a repair by the reader")]
    one_off_calls: Annotated[list[OneOffCallDoc], Meta(description=(
        "CUDA API costs paid once (summaries), shown apart from the per-call api_calls"))]
    problems: Annotated[list[str], Meta(description="data problems found while reading")]
    tool_version: Annotated[str | None, Meta(description="version of the profiler that wrote the input, as the input records it (user data); null: not recorded")]
    title: Annotated[str | None, Meta(description='extra label (e.g. "run 2 of 6"); null: none')]
    devices_named: Annotated[list[tuple[int, str]], Meta(description="[device id, GPU name] of the GPUs recorded (user data)")]
    gap_edges_s: Annotated[list[float | None], Meta(description=(
        "bin edges of the gap histograms, seconds; the last one is null: open-ended (gap_edges_s_null_reason)"))]
    gap_edges_s_null_reason: OpenEndedReason = UNSET
    kernel_time_s: Annotated[float, Meta(description="summed kernel time (all kernels, plain sum), seconds")]
    black_hole_text: Annotated[str | None, Meta(description="the black hole worded in the document's language; null: none")]
    gpu_idle: Annotated[ItemStatDoc | None, Meta(description=(
        "time with no GPU work as a row (kind gpu_idle): summed over ranks, each rank in devices, with its program "
        "projection; null: none"))]
    communication: Annotated[ItemStatDoc | None, Meta(description=(
        "exposed communication (not hidden under computation) as a row (kind communication): summed over ranks, each "
        "rank in devices, with its program projection if hidden on every rank beyond the collective waits; null: no "
        "communication kernel"))] = None
    balanced_wall_s: Annotated[float | None, Meta(description=(
        "program wall if every rank's own work (wall minus collective wait) took the median rank's (the straggler "
        "fixed), seconds; null: one rank or no collective wait"))] = None
    steps: Annotated[StepsDoc | None, Meta(description="the ProfilerStep#N ranges; null: none recorded")] = None
    kernels_joined: Annotated[KernelsJoinedDoc | None, Meta(description=(
        "the top kernels joined with their Nsight Compute diagnoses (timeline --kernels REPORT...); null: no "
        "report given"))] = None
    fusion: Annotated[list[FusionDoc], Meta(description=(
        "fusion candidates: chains of memory-bound kernels and what fusing each would save, largest first"))] = []


class TimelineDoc(Doc, kw_only=True):
    """Output of `kernelscope timeline --format json`: one report per program run. Times in seconds (`_s`),
    file-clock timestamps in nanoseconds (`_ns`), sizes in bytes, `_pct` fields percent 0-100, `*fraction` fields
    fractions 0-1. An infinite or NaN value is null and the object holding it has `<field>_null_reason`."""

    schema: Annotated[Literal["kernelscope.timeline/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    reports: Annotated[list[TimelineReportDoc], Meta(description="one report per program run, in input order")]
    ranks: Annotated[RanksDoc | UnsetType, Meta(description=(
        "present only with --as-ranks: the inputs are the ranks of one program, each read alone, reduced from "
        "per-rank summaries (reports is then empty)"))] = UNSET

"""The result objects of the timeline analysis: what ``kernelscope timeline`` says about one program run.

Every time is in SECONDS (float), percentages 0-100 are named ``*_pct``, fractions 0-1 ``*_fraction``, file-clock
timestamps ``*_ns``. A value may be infinite where the mathematics says so (an Amdahl factor "gone", the speedup
when an item is the whole program, the open-ended last gap bin); the ``NON_FINITE`` class attribute of such a
dataclass says, per field, what an infinite value means (a JSON writer prints null with that reason).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Mapping

from ...notes import Note, quick_init
from ...timeline_model import InvalidRecord, RepairedRecord
from ..engine import Finding
from ..fusion import FusionEstimate

#: Seconds per nanosecond (the Timeline's integer unit).
NS = 1e-9

#: Gap histogram bin edges between consecutive kernels on one device, in seconds.
GAP_EDGES_S: tuple[float, ...] = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, math.inf)


@quick_init
@dataclass(frozen=True)
class Amdahl:
    """Amdahl projection for one item: what its ``scope``'s time becomes if the item gets faster.

    ``speedups[i]`` is the speedup (x) of the scope's time if the item became ``factors[i]`` times faster (the last
    factor is ``inf``: the item gone); ``saved_fraction[i]`` the share of the scope's time that would be saved
    (``1 - 1/speedup``; for one device or one rank ``fraction * (1 - 1/factor)``); ``fraction`` is the saved share
    when the item is gone. The speedup is ``inf`` when the item is the whole time and goes.

    Attributes:
        scope: whose time: ``"program"`` (the program wall: the longest rank wall, the slowest device ends it),
            ``"device"`` (one GPU: its rank's wall) or ``"rank"`` (one rank: its wall).
        basis: which of the item's time goes: ``"exclusive"`` (the time it adds to its device's busy union: covered
            by it alone, so overlapped time does not count), ``"serial"`` (its summed time, assuming serial
            execution: an ``nsys stats`` summary has no intervals), ``"host"`` (the union of its host intervals on
            each rank, assuming the rank waits for them) or ``"no_gpu_work"`` (GPU idle time: no GPU work at all).
        base_s: the scope's time before, seconds (None: a projection of a bare fraction).
        projected_s: the scope's time after, per factor, seconds (empty when ``base_s`` is None).
    """

    NON_FINITE: ClassVar[Mapping[str, str]] = {"factors": "gone", "speedups": "unbounded"}

    fraction: float
    factors: tuple[float, ...]
    speedups: tuple[float, ...]
    saved_fraction: tuple[float, ...]
    scope: str = "program"
    basis: str = "serial"
    base_s: float | None = None
    projected_s: tuple[float, ...] = ()


@dataclass(frozen=True)
class LaunchShape:
    """The most common launch configuration of one kernel name (from the trace's launch args).

    Attributes:
        grid, block: ``(x, y, z)`` of that configuration.
        registers_per_thread: registers per thread, None when not recorded.
        launches: how many launches used it; ``recorded`` how many launches of the name have a recorded shape.
        shapes: how many distinct configurations the name was launched with.
    """

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    registers_per_thread: int | None
    launches: int
    recorded: int
    shapes: int


@quick_init
@dataclass(frozen=True)
class ScopeShare:
    """One item on one device (GPU items: kernels, copies, memsets) or on one rank as a whole (host items: API calls,
    synchronisation, annotations; GPU idle), against that device's time: its rank's wall.

    Attributes:
        rank: distributed rank, None when not recorded.
        device: CUDA device id; None: the rank as a whole (its host, or all its GPUs for GPU idle).
        count: intervals there.
        total_s: their plain sum, seconds.
        busy_s: the union of the item's own intervals there (the time it runs), seconds; <= ``time_s``.
        exclusive_s: GPU items: the time only it covers on the device (the device's busy union minus the busy union
            without it: what its absence removes), seconds; None for host items and GPU idle.
        time_s: the device's (rank's) time the share is of: its rank's wall, seconds.
        share_pct: ``busy_s / time_s``, percent 0-100.
        amdahl: the projection of this device's time (``scope`` "device", or "rank" when ``device`` is None);
            None when that time is 0.
    """

    rank: int | None
    device: int | None
    count: int
    total_s: float
    busy_s: float
    exclusive_s: float | None
    time_s: float
    share_pct: float
    amdahl: Amdahl | None


@quick_init
@dataclass(frozen=True)
class ItemStat:
    """One named item (kernel, copy kind, API call, annotation range) summed over its occurrences.

    Attributes:
        kind: interval kind name ("kernel", "memcpy", "memset", "runtime_api", "sync", "annotation"), or
            "gpu_idle" for the GPU idle row (``TimelineReport.gpu_idle``: its count, mean, min and max are of the
            stretches without GPU work, its share of the summed rank walls).
        name: its name (a name cut by ``nsys stats`` keeps its ellipsis; ``truncated`` says so).
        count: launches / calls.
        total_s, mean_s, min_s, max_s, median_s: times in seconds (median None where not computed).
        std_s: the sample standard deviation of the occurrences' durations, seconds (None with fewer than two, or
            where the input does not give it).
        share_pct: share of its category's total (kernels: of the summed kernel time, as nsys' "Time (%)").
        program_fraction: the share of the program time saved if the item were gone (0-1, never above 1): a
            timeline: the program wall (the longest rank wall) minus what remains when each device loses the time
            the item adds to its busy union (``amdahl.basis`` "exclusive"; host items: "host"); one device and no
            overlap: total / wall. A summary: total / the summed GPU time ("serial"). None when there is no time.
        amdahl: the program projection (``scope`` "program") whose ``fraction`` is ``program_fraction``.
        bytes: bytes moved (copies / memsets), None when not recorded.
        throughput_bytes_per_s: bytes / total time, for copies.
        truncated: the name was cut by the profiler.
        launch: for kernels, the most common launch shape when the trace records launch args, else None.
        graph_launches: for kernels of a timeline, how many of its ``count`` runs were nodes of a CUDA graph
            (0: none); None where not known (a summary, or not a kernel).
        exclusive_s: GPU items of a timeline: the time it adds to the busy union of its devices (covered by it
            alone), summed over devices, seconds; None otherwise.
        devices: a timeline: the item on each device (GPU items) or each rank (host items, GPU idle) where it
            occurs, with its share of that device's time and the per-device Amdahl projection.
    """

    kind: str
    name: str
    count: int
    total_s: float
    mean_s: float | None
    min_s: float | None
    max_s: float | None
    median_s: float | None = None
    share_pct: float | None = None
    program_fraction: float | None = None
    amdahl: Amdahl | None = None
    bytes: int | None = None
    throughput_bytes_per_s: float | None = None
    truncated: bool = False
    launch: LaunchShape | None = None
    graph_launches: int | None = None
    exclusive_s: float | None = None
    devices: tuple[ScopeShare, ...] = ()
    std_s: float | None = None


@dataclass(frozen=True)
class CopyDirection:
    """Copies of one direction on one device (plain sums; copies on several streams may overlap)."""

    direction: str
    count: int
    total_s: float
    bytes: int | None
    throughput_bytes_per_s: float | None
    pageable_s: float
    pinned_s: float
    unknown_memory_s: float


@dataclass(frozen=True)
class GapHistogram:
    """Gaps between consecutive kernels on one device (a gap = next start - latest end so far).

    ``edges_s`` are the bin edges (the last one ``inf``: the last bin is open-ended); ``counts[i]`` /
    ``totals_s[i]`` the number and summed length of gaps in ``[edges_s[i], edges_s[i+1])``; ``overlapping``
    kernels that started before the previous ones ended.
    """

    NON_FINITE: ClassVar[Mapping[str, str]] = {"edges_s": "open_ended"}

    edges_s: tuple[float, ...]
    counts: tuple[int, ...]
    totals_s: tuple[float, ...]
    overlapping: int


@dataclass(frozen=True)
class TimeSplit:
    """Wall time of one device (``stream`` None) or one stream split into kernel / copy / memset / idle time.

    Attributes:
        rank: distributed rank, None when not recorded.
        device: CUDA device id.
        stream: stream id, or None for the whole device.
        device_name: GPU name from the file, or None.
        start_ns, end_ns: the span (first to last GPU operation), file clock.
        span_s: ``end - start`` in seconds.
        busy_s: union of kernel, memcpy and memset intervals.
        kernel_s: time at least one kernel ran (union of kernels).
        memcpy_s: time copies ran while no kernel did.
        memset_s: time memsets ran while no kernel or copy did.
        idle_s: ``span - busy``.
        utilisation_pct: ``busy / span`` (0-100, never above 100); None when the span is zero (all the GPU
            records at one instant: not measurable, never 100 %).
        sum_over_streams_s: plain sum of all busy intervals (counts overlapping streams twice: NOT wall time).
        overlap_s: ``sum_over_streams - busy``: time counted more than once by that sum (inter-stream overlap).
        kernel_sum_s, memcpy_sum_s, memset_sum_s: plain sums per kind.
        copy_compute_overlap_s: copy time hidden under kernels.
        copies: per direction.
        sync_s: host time spent in synchronisation records of this device (union); overlaps the split.
        kernel_count, memcpy_count, memset_count: interval counts.
        gaps: kernel-to-kernel gap histogram (devices only).
        largest_gap_s, largest_gap_start_ns: the longest idle gap between busy intervals.
    """

    rank: int | None
    device: int
    stream: int | None
    device_name: str | None
    start_ns: int
    end_ns: int
    span_s: float
    busy_s: float
    kernel_s: float
    memcpy_s: float
    memset_s: float
    idle_s: float
    utilisation_pct: float | None
    sum_over_streams_s: float
    overlap_s: float
    kernel_sum_s: float
    memcpy_sum_s: float
    memset_sum_s: float
    copy_compute_overlap_s: float
    copies: tuple[CopyDirection, ...]
    sync_s: float
    kernel_count: int
    memcpy_count: int
    memset_count: int
    gaps: GapHistogram | None = None
    largest_gap_s: float = 0.0
    largest_gap_start_ns: int | None = None


@dataclass(frozen=True)
class LaunchOverhead:
    """API call -> kernel start latency, joined on rank + correlation id, whatever the call's name (cudaLaunchKernel,
    cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch ...).

    One time per launch CALL, to the start of the FIRST kernel it launched: the later nodes of a CUDA graph
    queue behind the earlier ones, which is not launch latency. Split by the queue its kernel found on its stream
    (:func:`.correlation.launch_queue`, case N20): into an empty queue it is launch latency; behind earlier work it
    is queue wait (GPU backlog), never launch latency.

    Attributes:
        matched: kernels whose launch call was found; ``unmatched`` those without.
        latency_*_s: first kernel start - API call start, over the launch calls into an empty queue (None: none).
        api_median_s: median host duration of the launch calls (a graph launch counted once).
        launches: launch calls joined to at least one kernel (None: not computed).
        graph_launches: how many of them launched CUDA graphs.
        idle_queue_launches: launch calls whose kernel found its stream's queue empty (their time is latency).
        queued_launches: launch calls whose kernel found earlier work queued or running on its stream.
        queue_wait_median_s, queue_wait_max_s: first kernel start - API call start over the queued calls, seconds
            (None: none queued).
        queue_depth_min, queue_depth_max: the fewest and most operations ahead of a queued call (None: none).
    """

    matched: int
    unmatched: int
    latency_mean_s: float | None
    latency_median_s: float | None
    latency_p95_s: float | None
    latency_max_s: float | None
    api_median_s: float | None
    launches: int | None = None
    graph_launches: int = 0
    idle_queue_launches: int | None = None
    queued_launches: int = 0
    queue_wait_median_s: float | None = None
    queue_wait_max_s: float | None = None
    queue_depth_min: int | None = None
    queue_depth_max: int | None = None


@dataclass(frozen=True)
class GraphUse:
    """The kernels that ran as nodes of CUDA graphs (Nsight Systems' ``graphNodeId``; otherwise those launched by a
    graph launch call, or by a call that started several kernels, joined on correlation id).

    Attributes:
        launches: graph launch calls joined to their kernels (0 when the file marks graph nodes but records no call).
        kernels: kernel runs that were graph nodes (count).
        kernel_s: their summed GPU time, seconds.
        total_kernel_s: summed time of all kernels, seconds.
        kernel_pct: ``kernel_s / total_kernel_s``, percent 0-100.
        host_s: host time of the graph launch calls, each counted once per launch (not per node), seconds; None
            when no call was recorded.
        recorded: True when the file marks graph nodes itself (``graphNodeId``), False when inferred from the calls.
    """

    launches: int
    kernels: int
    kernel_s: float
    total_kernel_s: float
    kernel_pct: float
    host_s: float | None
    recorded: bool


@dataclass(frozen=True)
class LaunchBound:
    """Is the program launch-bound (kernels shorter than the host's time per launch), and what would replaying
    those launches as one CUDA graph save? The cost model and its source: ``timeline_rules.toml`` ``[graph_replay]``.

    Attributes:
        cost_source: how ``per_launch_s`` was found: ``"spacing"`` (median spacing, start to next start, of
            back-to-back kernel launch calls of one host thread: a timeline) or ``"call_duration"`` (the launch
            call's own mean duration: an ``nsys stats`` summary has no timestamps).
        per_launch_s: the host's cost per launch, seconds.
        spacings: back-to-back launch pairs measured (0 for ``"call_duration"``).
        launches: kernel launch calls considered (graph launches excluded).
        bound_launches: ``n``: those whose kernels ran shorter than ``max_kernel_fraction`` of ``per_launch_s``.
        kernel_s: median kernel time per launch (a summary: the mean kernel duration), seconds.
        bound_kernel_s: summed kernel time of the ``n`` launch-bound launches, seconds.
        launch_bound: True when ``kernel_s`` is below ``max_kernel_fraction`` of ``per_launch_s``.
        replay_fixed_s, replay_per_node_s: the graph replay cost model, seconds and seconds per node.
        replay_s: ``replay_fixed_s + replay_per_node_s * n``, seconds.
        predicted_saving_s: ``n * per_launch_s - max(replay_s, bound_kernel_s)`` (the loop then takes the longer of
            the replay and its kernels' own time), at most the GPU idle time of the trace (a graph removes only time
            the GPU waits), seconds (<= 0: a graph would not pay). On a trace of several ranks it is summed over
            ``ranks`` ranks.
        ranks: how many ranks the launches and ``predicted_saving_s`` are summed over (1: one rank).
        program_saving_s: the most the program's wall could shorten: ``predicted_saving_s``, at most the program
            wall less the longest of the ranks' GPU-busy times (``wall - max(rank wall - rank GPU idle)``; on one
            rank its GPU idle time), so never above the program wall; None until the report sets it, seconds.
        break_even_nodes: ``ceil(replay_fixed_s / (per_launch_s - replay_per_node_s))``: the fewest nodes a graph
            needs to pay for itself; None when a node costs at least a launch.
        model_source: where the cost model comes from.
    """

    cost_source: str
    per_launch_s: float
    spacings: int
    launches: int
    bound_launches: int
    kernel_s: float | None
    bound_kernel_s: float | None
    launch_bound: bool
    replay_fixed_s: float
    replay_per_node_s: float
    replay_s: float
    predicted_saving_s: float
    break_even_nodes: int | None
    model_source: str
    ranks: int = 1
    program_saving_s: float | None = None


@dataclass(frozen=True)
class TinyKernel:
    """A kernel name whose launches are about as long as their launch cost: a CUDA Graphs / fusion candidate.

    Attributes:
        name: kernel name. launches: how many. median_s: its median duration. total_s: its total.
        launch_cost_s: median host time of its launch call, None when the launch calls were not recorded.
        savings_s: GPU idle time just before its launches, each capped at the launch cost (what Graphs or fusion
            could save).
    """

    name: str
    launches: int
    median_s: float
    total_s: float
    launch_cost_s: float | None
    savings_s: float


@dataclass(frozen=True)
class BlackHole:
    """The single largest place the time goes: the row of the rankings (or the GPU idle row) whose absence would
    save the largest share of the program time. Every figure is that row's own (one computation feeds both):
    ``category`` ("kernel", "memcpy", "memset", "gpu_idle"), ``name``, ``time_s`` (the row's total),
    ``program_fraction`` and ``amdahl`` (the row's program projection). For "gpu_idle" (time in a rank's wall with
    no GPU work at all), ``host_api`` / ``host_api_s`` name the CUDA API call that covers most of that idle time on
    the host of the rank in ``lane`` (None when no API call was recorded); ``host_api_once``: most of that time is
    one call of an API whose first call creates the CUDA context or that runs once per process (``timeline_rules.toml``
    ``[one_off_calls]``): initialisation, not work to hide.

    Attributes:
        row: where the row is in the report: ``"kernels"``, ``"copies"``, ``"memsets"`` or ``"gpu_idle"``.
        lane: the row's device (or rank) where it takes the largest share of that device's time, None when the
            row has none (a summary).
        lanes: on how many devices (ranks) the row occurs.
    """

    category: str
    name: str
    time_s: float
    program_fraction: float | None
    amdahl: Amdahl | None
    host_api: str | None = None
    host_api_s: float | None = None
    host_api_once: bool = False
    row: str = "kernels"
    lane: ScopeShare | None = None
    lanes: int = 0


@dataclass(frozen=True)
class OneOffCall:
    """A CUDA API cost paid once (CUDA context creation in the first ``cudaMalloc`` / ``cudaFree``, module loading
    such as ``cuModuleGetLoadingMode``), from an ``nsys stats`` summary: shown apart from the per-call costs, and
    left out of the ``api_calls`` ranking and of per-call advice. The rule and its source: ``timeline_rules.toml``
    ``[one_off_calls]``.

    Attributes:
        name: the API call.
        why: ``"first_call"`` (its longest call took at least the rule's ratio times the API's median: the call
            that created the context) or ``"once"`` (a call made once per process or module: every call of it).
        calls: how many of its calls are one-off; ``time_s`` their time, seconds.
        total_calls: all its calls in the file; ``per_call_calls`` / ``per_call_s`` the calls left for the per-call
            ranking and their summed time, seconds (0 / 0.0 for ``"once"``).
        median_s: the API's median call as printed (None: not printed); ``ratio_to_median`` = one-off / median.
    """

    name: str
    why: str
    calls: int
    time_s: float
    total_calls: int
    per_call_calls: int
    per_call_s: float
    median_s: float | None = None
    ratio_to_median: float | None = None


@dataclass(frozen=True)
class RankRow:
    """One rank side by side with the others (split times: sums over its devices).

    ``communication_s`` / ``computation_s``: the UNION over all its devices and streams of its communication
    kernels (names matching ``[ranks] communication_regex``) and of its other kernels, seconds (wall-clock time,
    never a sum over concurrent streams, :mod:`.collectives`); ``overlap_s``: time both ran;
    ``exposed_communication_s``: communication not hidden under computation; ``communication_sum_s``: the plain sum
    of its communication kernels' durations (concurrent ones counted twice: not wall time); ``collective_wait_s``:
    the part of it spent waiting in collectives
    for other ranks (0 with one rank); ``own_s``: ``wall_s - collective_wait_s``, the time its own work takes (the
    straggler has the largest). ``host_api_s``: the union of this rank's host CUDA API intervals, seconds
    (<= ``wall_s``; None when none was recorded); ``no_gpu_s``: the time of its wall with no GPU work on any of its
    devices, seconds (None without GPU work)."""

    rank: int | None
    wall_s: float
    busy_s: float
    kernel_s: float
    memcpy_s: float
    memset_s: float
    idle_s: float
    utilisation_pct: float | None
    communication_s: float
    computation_s: float
    host_api_s: float | None = None
    no_gpu_s: float | None = None
    overlap_s: float = 0.0
    exposed_communication_s: float = 0.0
    collective_wait_s: float = 0.0
    own_s: float = 0.0
    communication_sum_s: float = 0.0


@dataclass(frozen=True)
class Steps:
    """Training steps: the ``ProfilerStep#N`` ranges (PyTorch profiler) of one rank, the unit a training engineer
    reads (whole-trace walls of traces holding different step counts are not comparable).

    Attributes:
        rank: the rank they are of (None: not recorded); several ranks: the straggler's, else the first.
        count: how many steps.
        first, last: the first and last step number N.
        median_s: the median step time, seconds.
        slowest_s, slowest_step: the longest step (seconds) and its number N.
        fastest_s: the shortest step, seconds.
        spread_pct: ``(slowest - fastest) / median``, percent (step-to-step spread).
        durations_s: each step's time, seconds, in step order (what ``compare`` takes the step noise from).
    """

    rank: int | None
    count: int
    first: int
    last: int
    median_s: float
    slowest_s: float
    slowest_step: int
    fastest_s: float
    spread_pct: float
    durations_s: tuple[float, ...] = ()


@dataclass(frozen=True)
class TimelineReport:
    """Everything ``kernelscope timeline`` says about one program run.

    Attributes:
        path, format, tool_version: the input.
        source: "intervals" (a Timeline) or "summary" (``nsys stats`` per-name summaries).
        title: extra label (e.g. "run 2 of 6" for a file with several captures), or None.
        wall_s: program wall time: the longest rank wall (the slowest rank / device ends the program); None for a
            summary. ``program_time_s`` the time program Amdahl fractions are of (= wall time, or for a summary the
            summed GPU kernel + copy + memset time, stated in ``notes``).
        devices: per device split (empty for a summary); ``streams`` per stream.
        host_api_s: union of host-side CUDA API time of ONE rank, ``host_api_rank`` (the rank whose wall is the
            program wall; never summed over ranks: each rank's is in ``ranks``); None when not recorded.
        kernels, copies, memsets, api_calls, syncs, annotations: ranked by total time, largest first.
        launch: launch overhead, None when not computable.
        tiny_kernels: CUDA Graphs / fusion candidates.
        graphs: the GPU time that ran from CUDA graphs, None when no kernel did.
        launch_bound: per-launch cost, launch-bound or not, and the predicted CUDA graph saving; None when the
            per-launch cost cannot be measured.
        black_hole: the largest single item.
        ranks: per-rank rows (more than one only for multi-rank traces); ``slowest_rank`` the straggler.
        findings: the expert checks that fired (:mod:`.checks`), as :class:`~kernelscope.analysis.engine.Finding`.
        not_computable: quantities the input cannot give (e.g. "idle", "overlap" for a summary).
        notes: other statements (Notes).
        invalid: records found but not usable; ``problems``: data problems.
        repaired: records kept after a repair by the reader (an end clipped at the next start on its stream).
        one_off_calls: CUDA API costs paid once (summaries), shown apart from ``api_calls``.
        devices_named: (id, name) of the GPUs recorded.
        gap_edges_s: the bin edges of the gap histograms (the last one ``inf``).
        gpu_idle: the time with no GPU work at all, as a row (kind "gpu_idle": summed over ranks, per rank in
            ``devices``, with its program projection); None when there is none or no interval.
        host_api_rank: the rank ``host_api_s`` is of (None: not recorded, or a single process).
        communication: the exposed communication (not hidden under computation) as a row (kind "communication":
            summed over ranks, per rank in ``devices``, with its program projection: the communication hidden, or
            the collectives faster, beyond the collective waits); None without communication kernels.
        balanced_wall_s: several ranks with collective waits: the program wall if every rank's own work took the
            median rank's (the straggler fixed; a prediction under the one-barrier model of :mod:`.collectives`);
            None otherwise.
        steps: the ``ProfilerStep#N`` ranges of the trace (:class:`Steps`); None when it records none.
        fusion: fusion candidates (chains of memory-bound kernels) with what fusing each would save
            (:mod:`.fusion`), largest total saving first.
    """

    NON_FINITE: ClassVar[Mapping[str, str]] = {"gap_edges_s": "open_ended"}

    path: str
    format: str
    source: str
    wall_s: float | None
    program_time_s: float | None
    devices: tuple[TimeSplit, ...]
    streams: tuple[TimeSplit, ...]
    host_api_s: float | None
    kernels: tuple[ItemStat, ...]
    copies: tuple[ItemStat, ...]
    memsets: tuple[ItemStat, ...]
    api_calls: tuple[ItemStat, ...]
    syncs: tuple[ItemStat, ...]
    annotations: tuple[ItemStat, ...]
    launch: LaunchOverhead | None
    tiny_kernels: tuple[TinyKernel, ...]
    black_hole: BlackHole | None
    ranks: tuple[RankRow, ...]
    slowest_rank: int | None
    findings: tuple[Finding, ...]
    not_computable: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    invalid: tuple[InvalidRecord, ...] = ()
    problems: tuple[str, ...] = ()
    tool_version: str | None = None
    title: str | None = None
    devices_named: tuple[tuple[int, str], ...] = ()
    gap_edges_s: tuple[float, ...] = GAP_EDGES_S
    graphs: GraphUse | None = None
    launch_bound: LaunchBound | None = None
    gpu_idle: ItemStat | None = None
    host_api_rank: int | None = None
    repaired: tuple[RepairedRecord, ...] = ()
    one_off_calls: tuple[OneOffCall, ...] = ()
    communication: ItemStat | None = None
    balanced_wall_s: float | None = None
    steps: Steps | None = None
    fusion: tuple[FusionEstimate, ...] = ()

    @property
    def kernel_time_s(self) -> float:
        """Summed kernel time (all kernels, plain sum)."""
        return float(sum(k.total_s for k in self.kernels))

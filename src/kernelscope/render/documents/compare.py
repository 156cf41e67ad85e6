"""``kernelscope.compare/2``: the JSON document of ``kernelscope compare --format json``.

Version 2 (``schemas/compare-2.schema.json``): ``speedup`` is of the MATCHED kernels only (it was of all kernels,
now ``total_speedup``), with the unmatched time apart (``unmatched_before_s`` / ``unmatched_after_s``); each side's
measurement method (``before_method`` / ``after_method``) and ``warnings``; program timelines (``programs``); per
side ``total_s``, ``mean_s``, ``grid``, ``block``; per pair ``shape_differs``; ``matched_by`` may be ``signature``.
Additive since: run-to-run ``noise`` per side, per pair and for the matched total (the gate's noise rule), pairs
``matched_by`` ``generated`` (with ``generator``), per pair ``resolved`` (what became of the BEFORE findings), the
program figure per profiler step (``programs.figure``), ``unmatched_growth`` and ``by_hand``; ``headline`` (which
total leads), ``clocks`` (each side's measured SM and memory clocks and SM cycles, for the document and per pair) and
``matched_by`` ``sole`` (one kernel a side, paired as ``--pair`` would), per pair ``introduced`` (the AFTER findings
BEFORE lacks or has less of) and ``launch_changes`` (the launch-configuration fields that changed: every pair where
one did), ``grown_work`` / ``removed_work`` (the work a slower AFTER does materially more of, a faster one less of) and
``estimates`` (BEFORE's estimates, its "What to do" lead first, each with whether the waste it sizes fell).
"""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Class, Doc, Lang, NoteDoc, NullReason, Version

__all__ = ["BeforeEstimateDoc", "ClockChangeDoc", "ClocksDoc", "CompareDoc", "ComparedKernelDoc", "FindingEstimateDoc", "IntroductionDoc",
           "LaunchChangeDoc", "MethodDoc", "ProgramDoc", "ProgramFigureDoc", "ProgramsDoc",
           "ResolutionDoc", "SideDoc"]

Dim3 = Annotated[tuple[int, int, int] | None, Meta(description="[x, y, z]; null when not recorded")]


class SideDoc(Doc):
    """one side (before or after) of a compared kernel, from its median launch"""

    duration_s: Annotated[float | None, Meta(description="median duration of the kernel's launches, seconds")]
    spread_s: Annotated[tuple[float, float] | None, Meta(description=(
        "[min, max] duration over the launches, seconds; null with fewer than two measured launches"))]
    launches: Annotated[int, Meta(description="launches on this side (count)")]
    bandwidth_bytes_per_s: Annotated[float | None, Meta(description="effective DRAM bandwidth = DRAM bytes / duration, bytes/s")]
    bandwidth_pct_of_peak: Annotated[float | None, Meta(description="that bandwidth, percent of the GPU's DRAM peak (0-100)")]
    achieved_flops_per_s: Annotated[float | None, Meta(description="achieved FLOP/s from the roofline")]
    efficiency: Annotated[float | None, Meta(description="achieved / attainable FLOP/s, fraction 0-1")]
    sol_compute_pct: Annotated[float | None, Meta(description="Speed-of-Light SM throughput, percent of peak (0-100)")]
    sol_memory_pct: Annotated[float | None, Meta(description="Speed-of-Light memory throughput, percent of peak (0-100)")]
    classes: Annotated[list[Class], Meta(description="bottleneck classes")]
    achieved_occupancy_pct: Annotated[float | None, Meta(description="achieved occupancy, percent (0-100)")]
    theoretical_occupancy_pct: Annotated[float | None, Meta(description="theoretical occupancy, percent (0-100)")]
    stall_shares: Annotated[dict[str, float], Meta(description="stall reason -> share of stall cycles, fraction 0-1")]
    total_s: Annotated[float, Meta(description="summed time of the kernel's launches on this side, seconds")]
    mean_s: Annotated[float | None, Meta(description="total_s / launches, seconds")]
    grid: Dim3
    block: Dim3
    noise: Annotated[float | None, Meta(description=(
        "run-to-run noise: sample standard deviation / mean of the launch durations, or half the recorded range / "
        "the mean for a summary row (fraction); null without two measured launches or a recorded spread"))] = None


class ClocksDoc(Doc):
    """the clocks one side ran at (measured), time-weighted over its launches"""

    sm_hz: Annotated[float | None, Meta(description="SM clock (smsp__cycles_elapsed.avg.per_second), Hz; null: not recorded")]
    mem_hz: Annotated[float | None, Meta(description="memory clock (dram__cycles_elapsed.avg.per_second), Hz; null: not recorded")]
    time_s: Annotated[float, Meta(description="time of the launches the SM clock was read from, seconds")]
    cycles: Annotated[float, Meta(description="SM cycles of those launches: duration x launches x SM clock (cycles)")]


class ClockChangeDoc(Doc):
    """the two sides' clocks; a cmp_clocks warning says when they differ"""

    before: ClocksDoc
    after: ClocksDoc
    differs: Annotated[bool, Meta(description="the SM or the memory clocks differ by more than 2 %")]
    cycle_speedup: Annotated[float | None, Meta(description=(
        "SM cycles before / after: the speedup at equal SM clocks (ratio); null without both"))]


class ResolutionDoc(Doc):
    """what became of one BEFORE finding in AFTER, from its waste counter"""

    finding_id: Annotated[str, Meta(description="the BEFORE finding (a table [finding.<id>] of kernelscope/data/findings.toml)")]
    status: Annotated[Literal["resolved", "reduced", "unchanged", "worse", "with_work", "not_measured", "gone",
                              "still_reported"],
                      Meta(description=(
                          "resolved: its waste counter fell to <= 5 % of BEFORE's; reduced: below 90 %; unchanged: "
                          "within 10 %; worse: above 110 % (and per unit of its work too, where both sides measure "
                          "that work); with_work: above 110 %, but per unit of its work within 10 % (it grew only "
                          "with the work); not_measured: a side lacks the counter; for a finding "
                          "without a waste counter, gone (AFTER does not report it) or still_reported"))]
    measure: Annotated[list[str], Meta(description="the waste counter: signed terms (metric, -metric, number), summed")]
    before_value: Annotated[float | None, Meta(description="the counter BEFORE (in the metric's unit)")]
    after_value: Annotated[float | None, Meta(description="the counter AFTER")]
    estimated_speedup: Annotated[float | None, Meta(description="the BEFORE finding's own estimate (ratio >= 1)")]
    estimate_kind: Annotated[Literal["prediction", "upper_bound"] | None, Meta(description="what the estimate is")]
    before_per_work: Annotated[float | None, Meta(description=(
        "the waste counter BEFORE per unit of the finding's work (kernelscope/data/findings.toml verify_per; "
        "ratio); null: no such measure, or not measured"))] = None
    after_per_work: Annotated[float | None, Meta(description="the same AFTER")] = None


class IntroductionDoc(Doc):
    """one AFTER root-cause finding that BEFORE does not report, or has less of"""

    finding_id: Annotated[str, Meta(description="the AFTER finding (a finding id of kernelscope/data/findings.toml or a rule)")]
    status: Annotated[Literal["new", "worse"], Meta(description=(
        "new: BEFORE does not report it; worse: BEFORE does, with less (its waste counter above 110 % of BEFORE's, "
        "or, without a counter and AFTER slower, a share of the kernel time larger by >= 1 point and 10 %)"))]
    measure: Annotated[list[str], Meta(description="the waste counter: signed terms (metric, -metric, number), summed; empty: none")]
    before_value: Annotated[float | None, Meta(description="the counter BEFORE (in the metric's unit); null: not measured or no counter")]
    after_value: Annotated[float | None, Meta(description="the counter AFTER; null: not measured or no counter")]
    estimated_speedup: Annotated[float | None, Meta(description=(
        "the AFTER finding's own estimate from the performance model (ratio >= 1: removing the cause from AFTER)"))]
    estimate_kind: Annotated[Literal["prediction", "upper_bound"] | None, Meta(description="what the estimate is")]
    before_estimate: Annotated[float | None, Meta(description="BEFORE's estimate of the same finding (status worse), else null")] = None
    bound: Annotated[str | None, Meta(description="the bottleneck class the finding supports, or null")] = None
    before_per_work: Annotated[float | None, Meta(description=(
        "the waste counter BEFORE per unit of the finding's work (kernelscope/data/findings.toml verify_per, e.g. "
        "excess sectors per ideal sector; ratio); null: no such measure, or not measured"))] = None
    after_per_work: Annotated[float | None, Meta(description=(
        "the same AFTER; a worse status needs it above 110 % of BEFORE's where both are measured"))] = None


class WorkGrowthDoc(Doc):
    """a counter of work a slower AFTER does materially more of (>= 1.25x, on a unit that did >= 5 % of the BEFORE
    time more work), or in removed_work a faster AFTER materially less of (BEFORE >= 1.25x AFTER, relieving a unit of
    >= 5 % of the BEFORE time)"""

    metric: Annotated[str, Meta(description="the Nsight Compute counter (for a pipe: its busiest throughput sub-metric)")]
    key: Annotated[str, Meta(description=(
        "what it counts: global_load_requests, global_store_requests, shared_load_instructions, global_load_sectors, "
        "l2_sectors, dram_read, dram_write, instructions, ... or pipe"))]
    count_unit: Annotated[Literal["requests", "instructions", "sectors", "wavefronts", "bytes", "seconds"], Meta(
        description="the counter's unit (seconds: a pipe's busy time at its peak)")]
    before: Annotated[float, Meta(description="the counter BEFORE")]
    after: Annotated[float, Meta(description="the counter AFTER")]
    unit: Annotated[str | None, Meta(description=(
        "the busiest unit it lands on (removed work: the unit it relieved most; kernelscope/data/units.toml id); null: "
        "none of its units measured on both sides"))]
    unit_ratio: Annotated[float | None, Meta(description="that unit's work after / before (busy time at its peak; ratio)")]
    unit_added_share: Annotated[float | None, Meta(description=(
        "the busy time that unit added, as a share of the BEFORE duration (fraction; negative: the busy time removed)"))]
    per_request_before: Annotated[float | None, Meta(description=(
        "for memory requests: the sectors per request BEFORE (the same space and op); null otherwise or not measured"))] = None
    per_request_after: Annotated[float | None, Meta(description="the same AFTER")] = None


class BeforeEstimateDoc(Doc):
    """one BEFORE estimate next to the measured speedup, and whether the waste it sizes fell"""

    finding_id: Annotated[str, Meta(description="the BEFORE finding (kernelscope/data/findings.toml id or rule id)")]
    estimated_speedup: Annotated[float, Meta(description="its estimate (ratio >= 1: kernel time before / after the fix)")]
    estimate_kind: Annotated[Literal["prediction", "upper_bound"] | None, Meta(description=(
        "prediction, or upper_bound (an ideal; a class paragraph's headroom); null: not stated"))]
    lead: Annotated[bool, Meta(description="true for the finding that leads BEFORE's What to do")]
    measure: Annotated[list[str], Meta(description=(
        "the part of the finding's waste counter its estimate sizes (signed terms); empty: no waste counter"))]
    before_value: Annotated[float | None, Meta(description="that part BEFORE (in the finding's verify_unit); null: not measured")]
    after_value: Annotated[float | None, Meta(description="that part AFTER; null: not measured")]
    waste: Annotated[Literal["fell", "unchanged", "grew"] | None, Meta(description=(
        "how that part moved (beyond 10 % of BEFORE's); null: no counter or a side lacks it"))]
    explains: Annotated[bool, Meta(description=(
        "false when the waste it sizes was measured on both sides and did not fall: not what the change did"))]


class LaunchChangeDoc(Doc):
    """one launch-configuration field that changed between BEFORE and AFTER (null on a side that does not record it)"""

    field: Annotated[Literal["registers_per_thread", "shared_mem_static_bytes", "shared_mem_dynamic_bytes",
                             "shared_mem_config_bytes", "block", "grid", "theoretical_occupancy_pct",
                             "achieved_occupancy_pct", "blocks_per_sm", "occupancy_limiters"], Meta(description=(
        "registers per thread (count); static / dynamic shared memory per block and the SM's shared-memory carveout "
        "(bytes); block and grid ([x, y, z]); theoretical and achieved occupancy (%, 0-100); blocks per SM (count) "
        "and the occupancy limiters (resources whose launch__occupancy_limit_* equals it), from Nsight Compute's "
        "launch__occupancy_limit_* metrics"))]
    before: Annotated[float | list[int | str] | None, Meta(description="the value BEFORE; null: not recorded")]
    after: Annotated[float | list[int | str] | None, Meta(description="the value AFTER; null: not recorded")]


class StallShiftDoc(Doc):
    """how one stall reason's share moved"""

    reason: Annotated[str, Meta(description="stall reason id")]
    share_before: Annotated[float, Meta(description="share of stall cycles before, fraction 0-1")]
    share_after: Annotated[float, Meta(description="share of stall cycles after, fraction 0-1")]


class PredictionDoc(Doc):
    """an estimate of the BEFORE profile next to the measured result"""

    rule_id: Annotated[str, Meta(description="Nsight Compute rule of the BEFORE profile")]
    estimated_speedup_pct: Annotated[float, Meta(description="the rule's estimated reduction of the kernel's time, percent")]
    measured_reduction_pct: Annotated[float | None, Meta(description="the measured reduction of the kernel's time, percent")]


class FindingEstimateDoc(Doc):
    """kernelscope's estimate for one finding of the BEFORE kernel"""

    finding_id: Annotated[str, Meta(description="the finding's id (a table [finding.<id>] of kernelscope/data/findings.toml, or a bottleneck-class rule)")]
    estimated_speedup: Annotated[float, Meta(ge=1.0, description=(
        "the kernel's estimated speedup if that cause were removed: time before / time after (ratio >= 1)"))]


class WorkChangeDoc(Doc):
    """how one unit's work changed between the two sides (busy share x duration, at the unit's peak)"""

    unit: Annotated[str, Meta(description="the unit (kernelscope/data/units.toml id, or 'shared')")]
    metric: Annotated[str, Meta(description="the Nsight Compute counter its work is read from")]
    before_s: Annotated[float, Meta(description="its work before: busy share x duration, seconds at its peak")]
    after_s: Annotated[float, Meta(description="its work after, seconds at its peak")]


class PostHocDoc(Doc):
    """the performance model checked against the pair: which units' work actually changed and the speedup the model
    gives for exactly that change of work"""

    changes: Annotated[list[WorkChangeDoc], Meta(description="per unit measured on both sides, the largest change of busy time first")]
    speedup: Annotated[float, Meta(ge=1.0e-9, description=(
        "the model's speedup for that change of work: 1 / max(1 - the largest busy time a unit lost, the busiest "
        "unit's AFTER work), both as shares of the BEFORE time (ratio)"))]
    disagrees: Annotated[bool, Meta(description=(
        "true when that speedup and the measured one differ by 1.25 times or more either way: the units' busy time "
        "does not explain the change"))] = False


class ComparedKernelDoc(Doc):
    """one kernel before and after"""

    before_name: Annotated[str, Meta(description="BEFORE kernel name (user data)")]
    after_name: Annotated[str, Meta(description="AFTER kernel name (user data)")]
    matched_by: Annotated[Literal["name+shape", "name", "signature", "generated", "hand", "sole"], Meta(description=(
        "how the two were paired: name and grid/block, name, demangled signature (the same kernel spelled "
        "differently by two tools), generated name (the same up to the ordinal or hash its generator appends, same "
        "grid and block, nearest duration), by hand, or sole (each side holds one kernel, of different names)"))]
    shape_differs: Annotated[bool, Meta(description=(
        "true when a pair matched by name or signature has a different grid or block on the two sides (both "
        "recorded): not the same launch"))]
    speedup: Annotated[float | None, Meta(description="before duration / after duration (ratio, > 1 is faster)")]
    beyond_noise: Annotated[bool | None, Meta(description=(
        "true when |after median / before median - 1| exceeds the larger of the two sides' noise; false when it is "
        "within the noise of a side; null: cannot be told (a side's noise unknown)"))]
    program_speedup: Annotated[float | None, Meta(description="whole-program speedup if only this kernel had changed (Amdahl; ratio)")]
    before: SideDoc
    after: SideDoc
    stall_shift: Annotated[list[StallShiftDoc], Meta(description="the reasons that moved most, largest move first")]
    predictions: Annotated[list[PredictionDoc], Meta(description="the BEFORE profile's own estimates next to what was measured")]
    predicted: Annotated[list[FindingEstimateDoc], Meta(description=(
        "kernelscope's own prediction from the BEFORE kernel's findings (its median launch): every finding with an "
        "estimated speedup, largest first; compare the first with speedup"))]
    explanation: Annotated[list[NoteDoc], Meta(description="what moved")]
    not_measured: Annotated[list[NullReason], Meta(description="the reason for every null field of this kernel")]
    posthoc: Annotated[PostHocDoc | None, Meta(description=(
        "the performance model's post-hoc check of the pair; null: no unit was measured on both sides"))] = None
    noise: Annotated[float | None, Meta(description="the larger of the two sides' noise (fraction); null when neither is known")] = None
    generator: Annotated[str | None, Meta(description=(
        "for matched_by generated: the generator whose suffix was set aside (inductor, triton, xla, hash)"))] = None
    resolved: Annotated[list[ResolutionDoc], Meta(description="what became of the BEFORE findings in AFTER")] = []
    introduced: Annotated[list[IntroductionDoc], Meta(description=(
        "the AFTER root-cause findings BEFORE lacks or has less of (the terminal lists them first for a slower AFTER)"))] = []
    launch_changes: Annotated[list[LaunchChangeDoc], Meta(description=(
        "the launch-configuration fields that changed (every pair where one did; the terminal lists them with what "
        "the change introduced for a slower AFTER, on a line of their own otherwise)"))] = []
    grown_work: Annotated[list[WorkGrowthDoc], Meta(description=(
        "the work a slower AFTER does materially more of (requests, instructions, sectors, bytes, pipe work), "
        "largest factor first; empty for a faster AFTER"))] = []
    removed_work: Annotated[list[WorkGrowthDoc], Meta(description=(
        "the work a faster AFTER does materially less of (the same counters and thresholds), largest fall first; "
        "empty for an AFTER not faster"))] = []
    estimates: Annotated[list[BeforeEstimateDoc], Meta(description=(
        "BEFORE's estimates next to the measured speedup: the lead of its What to do first, then every finding with "
        "an estimate, largest first"))] = []
    clocks: Annotated[ClockChangeDoc | None, Meta(description=(
        "the two median launches' clocks and SM cycles; null when neither records a clock"))] = None


class MethodDoc(Doc):
    """how one side measured its durations (Nsight Compute replays each kernel serialised, by default with caches
    flushed and clocks locked at base; a timeline measures kernels in flight); a setting not recorded is null"""

    tool: Annotated[Literal["ncu", "nvprof", "nsys", "pytorch"] | None, Meta(description="the profiler")]
    replay_mode: Annotated[str | None, Meta(description=(
        'Nsight Compute --replay-mode: "kernel", "application", "range", "app-range"; "none" for a timeline '
        "(measured in flight)"))]
    cache_control: Annotated[str | None, Meta(description='"flush-all" (caches flushed before each pass) or "none"')]
    clock_control: Annotated[str | None, Meta(description='"base" (SM clocks locked at base) or "none" (not locked)')]


class ProgramDoc(Doc):
    """one side's program timeline: its wall time and where it went, seconds"""

    wall_s: Annotated[float | None, Meta(description=(
        "program wall time, first to last recorded interval (the slowest rank's); null for nsys stats summaries"))]
    kernel_s: Annotated[float, Meta(description="time with at least one kernel running (summed over devices), seconds")]
    memcpy_s: Annotated[float, Meta(description="time with copies and no kernel, seconds")]
    memset_s: Annotated[float, Meta(description="time with memsets only, seconds")]
    gpu_idle_s: Annotated[float | None, Meta(description="time of the wall with no GPU work, seconds; null for a summary")]
    host_api_s: Annotated[float | None, Meta(description="union of host-side CUDA API time, seconds; null when not recorded")]
    steps_s: Annotated[list[float], Meta(description="duration of each profiler step (ProfilerStep#N), seconds; empty: none marked")] = []


class ProgramFigureDoc(Doc):
    """the program figure the gate tests: per profiler step when both sides mark steps, else the walls"""

    basis: Annotated[Literal["steps", "wall", "none"], Meta(description=(
        "steps: median step time of each side; wall: neither side marks steps; none: one side marks steps and "
        "the other does not (walls of captures holding different numbers of steps are not comparable)"))]
    before_s: Annotated[float | None, Meta(description="the BEFORE time compared, seconds")]
    after_s: Annotated[float | None, Meta(description="the AFTER time compared, seconds")]
    steps_before: Annotated[int, Meta(description="profiler steps BEFORE (count)")]
    steps_after: Annotated[int, Meta(description="profiler steps AFTER (count)")]
    speedup: Annotated[float | None, Meta(description="before_s / after_s (ratio); null for basis none")]
    noise: Annotated[float | None, Meta(description="the larger step-time noise of the two sides (fraction); null for walls")]
    beyond_noise: Annotated[bool | None, Meta(description="whether the change is beyond that noise; null: cannot be told")]


class ProgramsDoc(Doc):
    """the two program timelines (both sides are timelines)"""

    before: ProgramDoc
    after: ProgramDoc
    wall_speedup: Annotated[float | None, Meta(description="before wall_s / after wall_s (ratio); null when a wall is unknown")]
    figure: Annotated[ProgramFigureDoc | None, Meta(description="the program figure the gate tests")] = None


class CompareDoc(Doc):
    """Output of `kernelscope compare --format json`: durations in seconds, bandwidth in bytes/s, `_pct` fields percent
    0-100, shares fractions 0-1. A value that was not measured is null; each compared kernel's `not_measured` gives the
    reason for every null field."""

    schema: Annotated[Literal["kernelscope.compare/2"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    total_before_s: Annotated[float, Meta(description=(
        "GPU time of all BEFORE kernels, matched or not, seconds (0 when the sides are kernels picked inside one "
        "report)"))]
    total_after_s: Annotated[float, Meta(description="GPU time of all AFTER kernels, matched or not, seconds (0 as above)")]
    total_speedup: Annotated[float | None, Meta(description=(
        "total_before_s / total_after_s (ratio; not like for like when some kernels are unmatched); null when a total is 0"))]
    matched_before_s: Annotated[float, Meta(description="GPU time of the matched BEFORE kernels, seconds (0 as above)")]
    matched_after_s: Annotated[float, Meta(description=(
        "GPU time of the matched AFTER kernels at the BEFORE launch counts (each pair's after time x before launches "
        "/ after launches), seconds (0 as above)"))]
    speedup: Annotated[float | None, Meta(description=(
        "matched_before_s / matched_after_s: the matched kernels only (ratio, > 1 is faster); null when a total is 0"))]
    unmatched_before: Annotated[list[str], Meta(description="BEFORE kernel names with no partner")]
    unmatched_after: Annotated[list[str], Meta(description="AFTER kernel names with no partner")]
    unmatched_before_s: Annotated[float, Meta(description="GPU time of the BEFORE kernels with no partner, seconds")]
    unmatched_after_s: Annotated[float, Meta(description="GPU time of the AFTER kernels with no partner, seconds")]
    before_method: Annotated[MethodDoc | None, Meta(description="how BEFORE measured; null when the input does not say")]
    after_method: Annotated[MethodDoc | None, Meta(description="how AFTER measured; null when the input does not say")]
    warnings: Annotated[list[NoteDoc], Meta(description=(
        "what makes the comparison less than like for like: cmp_method (the sides measured differently; values "
        "before_<field> / after_<field> of MethodDoc and differ, the fields that differ), cmp_counts (launch "
        "counts differ), cmp_clocks (the SM or memory clocks differ: sm_/mem_before_hz, sm_/mem_after_hz, the time "
        "ratio speedup and the SM-cycle ratio cycle_speedup), cmp_sole_pair (one kernel a side, different names, "
        "paired)"))]
    programs: Annotated[ProgramsDoc | None, Meta(description="program wall and split of each side; null unless both are timelines")]
    fail_if_slower_pct: Annotated[float | None, Meta(description="the --fail-if-slower threshold, percent; null: not given")]
    regressions: Annotated[list[str], Meta(description=(
        'what the gate fails on: AFTER kernel names, "total" (matched kernels), "program" (the program figure) and '
        '"unmatched" (after-only time grew beyond the threshold of the BEFORE kernel time: the names are '
        "unmatched_after), each slower than the threshold and not within the run-to-run noise"))]
    kernels: Annotated[list[ComparedKernelDoc], Meta(description="compared kernels, largest BEFORE time first")]
    noise: Annotated[float | None, Meta(description=(
        "the matched total's noise: the larger of the two sides' time-weighted mean kernel noise (fraction)"))] = None
    beyond_noise: Annotated[bool | None, Meta(description="whether the matched total's change is beyond that noise")] = None
    unmatched_growth: Annotated[float | None, Meta(description=(
        "(unmatched_after_s - unmatched_before_s) / total_before_s (fraction); null without program totals"))] = None
    by_hand: Annotated[bool, Meta(description="kernels paired by hand: only those pairs compared, nothing else listed")] = False
    headline: Annotated[Literal["program", "matched", "all", "none"], Meta(description=(
        "which total leads the report: program (programs.figure) for two timelines with a program figure; else "
        "matched (speedup), or all (total_speedup) when the matched kernels are under half of either side's GPU "
        "time; none without program totals"))] = "none"
    clocks: Annotated[ClockChangeDoc | None, Meta(description=(
        "both profiles' clocks over all their kernels and SM cycles; null when not recorded"))] = None

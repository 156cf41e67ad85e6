"""Domain objects shared by every reader, the analysis core and the renderers.

Everything here is an immutable value. Inside these objects quantities are in SI base units
(seconds, bytes, hertz, FLOP, FLOP/s, bytes/s); percentages are 0-100 and named ``*_pct``.
A quantity the profile did not measure is ``None`` (never 0): the renderers print "not measured".

Readers (``kernelscope.ingest``) produce :class:`ProfileReport` / :class:`KernelProfile`;
the analysis core (``kernelscope.roofline``, ``kernelscope.stalls``, ``kernelscope.diagnosis``)
consumes them and produces its own frozen results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from .errors import InputError

if TYPE_CHECKING:  # NumPy is imported only where per-instruction data is read (it costs ~70 ms to import)
    import numpy as np

#: Compute pipes / precisions a GPU spec can give a dense peak for. Keys of ``GpuSpec.peak_flops_per_s``
#: and of ``KernelProfile.flop_counts``. "int8_tensor" is in integer OP/s.
PIPES: tuple[str, ...] = (
    "fp64",  # FP64 on CUDA cores (DFMA/DADD/DMUL)
    "fp64_tensor",  # FP64 DMMA on tensor cores (A100, H100, ...)
    "fp32",  # FP32 on CUDA cores (FFMA/FADD/FMUL)
    "fp16",  # FP16 on CUDA cores (HFMA2/HADD2/HMUL2), where the datasheet gives it
    "tf32_tensor",
    "fp16_tensor",  # FP16 inputs, FP32 accumulate
    "fp16_tensor_fp16acc",  # FP16 inputs, FP16 accumulate (GeForce parts differ from FP32 acc)
    "bf16_tensor",  # BF16 inputs, FP32 accumulate
    "fp8_tensor",
    "int8_tensor",
)


#: Units of ``KernelProfile.stall_values``, by the metric family they came from: ``per_issue_active`` (cycles per
#: issued instruction), ``pc_sampling`` and ``warp_id_sampling`` (sample counts), ``warp_latency`` (warp cycles).
STALL_FAMILIES: tuple[str, ...] = ("per_issue_active", "pc_sampling", "warp_id_sampling", "warp_latency")
#: Stall values typed in by a user as percentages of stall cycles (plain-numbers input, the lesson API).
GIVEN_PERCENT = "given_percent"


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


def _positive_finite(value: object) -> bool:
    """Whether ``value`` is a real number (not a bool), finite and > 0."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


@dataclass(frozen=True)
class GpuSpec:
    """Peak capabilities of one GPU model, used as roofline ceilings.

    Attributes:
        name: canonical marketing name, e.g. ``"NVIDIA A100-SXM4-80GB"``.
        aliases: other names profilers report for it (``device__attribute_display_name``, nvidia-smi).
        architecture: e.g. ``"Ampere"``.
        compute_capability: ``(major, minor)`` or None if unknown.
        sm_count: streaming multiprocessors, or None.
        boost_clock_hz: boost SM clock in Hz, or None.
        dram_bandwidth_bytes_per_s: peak DRAM bandwidth in bytes/s (datasheet, decimal GB).
        l2_cache_bytes: L2 size in bytes, or None.
        peak_flops_per_s: DENSE peak per pipe (keys from :data:`PIPES`) in FLOP/s (OP/s for int8).
            Never the "with sparsity" figures.
        sources: field name -> citation (datasheet / whitepaper) for every number above.
        origin: where this spec came from: ``"catalogue"``, ``"spec file <path>"``, ``"arguments"``.
        measured: True when the numbers were measured on the device rather than taken from a datasheet.

    Raises:
        InputError: on construction, when the DRAM bandwidth is missing or not a positive finite number, or a peak
            is not a positive finite number (the catalogue and spec files are checked the same way when read:
            :class:`kernelscope.knowledge.gpus.GpuEntry`); a spec built in Python gets the same one-line error
            instead of failing later inside a roofline.
    """

    name: str
    dram_bandwidth_bytes_per_s: float
    peak_flops_per_s: Mapping[str, float]
    aliases: tuple[str, ...] = ()
    architecture: str | None = None
    compute_capability: tuple[int, int] | None = None
    sm_count: int | None = None
    boost_clock_hz: float | None = None
    l2_cache_bytes: int | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    origin: str = "catalogue"
    measured: bool = False

    def __post_init__(self) -> None:
        where = f"gpu spec {self.name}"
        if not _positive_finite(self.dram_bandwidth_bytes_per_s):
            raise InputError(where, key="spec_bandwidth_bad",
                values={"dram_bandwidth_bytes_per_s": self.dram_bandwidth_bytes_per_s})
        for pipe, peak in dict(self.peak_flops_per_s or {}).items():
            if not _positive_finite(peak):
                raise InputError(where, key="spec_peak_bad", values={"pipe": pipe, "peak": peak})
        object.__setattr__(self, "peak_flops_per_s", _frozen(self.peak_flops_per_s))
        object.__setattr__(self, "sources", _frozen(self.sources))

    def peak(self, pipe: str) -> float:
        """The dense peak of ``pipe`` (a key of :data:`PIPES`) in FLOP/s (OP/s for int8).

        Raises:
            InputError: the spec has no peak for ``pipe`` (the message lists the pipes it has).
        """
        peak = self.peak_flops_per_s.get(pipe)
        if peak is None:
            raise InputError(f"gpu spec {self.name}", key="spec_no_pipe",
                values={"pipe": pipe, "peak_flops_per_s": ', '.join(self.peak_flops_per_s)})
        return peak


@dataclass(frozen=True)
class DeviceInfo:
    """What a profile says about the device it ran on (``device__attribute_*`` in Nsight Compute).

    All fields may be None when the profile does not record them.
    Clocks in Hz, sizes in bytes, bus width in bits.
    """

    display_name: str | None = None
    compute_capability: tuple[int, int] | None = None
    sm_count: int | None = None
    max_sm_clock_hz: float | None = None
    max_mem_clock_hz: float | None = None
    memory_bus_width_bits: int | None = None
    l2_cache_bytes: int | None = None


@dataclass(frozen=True)
class LaunchConfig:
    """Launch configuration and per-launch resources (``launch__*`` metrics). None = not recorded."""

    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    registers_per_thread: int | None = None
    shared_mem_static_bytes: int | None = None
    shared_mem_dynamic_bytes: int | None = None
    shared_mem_config_bytes: int | None = None
    waves_per_sm: float | None = None

    @property
    def threads_per_block(self) -> int | None:
        """Threads in one block, or None if the block shape is unknown."""
        if self.block is None:
            return None
        x, y, z = self.block
        return x * y * z

    @property
    def no_shared_memory(self) -> bool:
        """True when the launch is known to allocate no shared memory (static and dynamic both recorded as 0): shared
        wavefronts it is said to issue are not its own (a counter of another use of the L1 data pipe)."""
        return self.shared_mem_static_bytes == 0 and self.shared_mem_dynamic_bytes == 0

    @property
    def blocks(self) -> int | None:
        """Blocks in the grid, or None if the grid shape is unknown."""
        if self.grid is None:
            return None
        x, y, z = self.grid
        return x * y * z


@dataclass(frozen=True)
class RuleResult:
    """One result of Nsight Compute's own rules, as stored in the report (kept to compare with ours).

    Attributes:
        rule_id: e.g. ``"SOLBottleneck"``.
        title: rule title as shown by Nsight Compute.
        message_type: ``"OPTIMIZATION"``, ``"WARNING"``, ``"INFO"``, ``"ERROR"`` or ``"OK"``.
        message: the rule's text.
        estimated_speedup_pct: Nsight's estimated speedup (0-100) or None when not given.
        speedup_type: ``"local"`` / ``"global"`` or None.
    """

    rule_id: str
    title: str
    message_type: str
    message: str
    estimated_speedup_pct: float | None = None
    speedup_type: str | None = None


@dataclass(frozen=True)
class Implausible:
    """A value a profile holds that cannot be a measurement of the launch, kept out of the analysed fields.

    Readers and the diagnosis move such values here (:mod:`kernelscope.knowledge.plausibility`) instead of using
    them: the field they would have filled is None ("not measured") and no verdict or advice rests on them.

    Attributes:
        metric: the Nsight metric name (or the input's own name: an nvprof metric, a console label, a plain-numbers
            field) the value was read as, e.g. ``"sm__warps_active.avg.pct_of_peak_sustained_active"``.
        value: the raw value as read, in ``unit``.
        unit: its unit (``"%"`` 0-100, ``"byte"``, ``"FLOP"``, ``"hz"``, ``"byte/second"``...).
        reason: why it cannot be real, a key of ``data/labels.toml`` ``[note]`` (``implausible_occupancy``,
            ``implausible_hit_rate``, ``implausible_pct``, ``implausible_negative``, ``implausible_bytes``,
            ``implausible_flops``, ``implausible_clock``, ``implausible_dram_above_peak``,
            ``implausible_flops_above_peak``).
        limit: the bound it broke, in ``unit`` (100 for a percentage, the peak for an above-the-roof value), or
            None for a sign (below 0).
        rate: for the above-the-peak reasons, the rate the value implies (bytes/s, FLOP/s) next to ``limit``;
            None otherwise.
    """

    metric: str
    value: float
    unit: str
    reason: str
    limit: float | None = None
    rate: float | None = None


@dataclass(frozen=True)
class KernelProfile:
    """One profiled kernel launch, in SI units. None = the profile did not measure it.

    Attributes:
        index: 0-based position of the launch in its report (report order).
        name: function name as profilers show it (e.g. ``"sgemm_naive"``).
        demangled_name: full demangled signature, or ``name`` when none is recorded.
        mangled_name: the mangled symbol, or None.
        device: the device as recorded by the profile.
        launch: grid/block shape and per-launch resources.
        duration_s: kernel duration in seconds (``gpu__time_duration.sum``).
        sm_frequency_hz: measured SM clock during the launch (``smsp__cycles_elapsed.avg.per_second``).
        sol_compute_pct: Speed-of-Light compute (SM) throughput, % of peak (``sm__throughput.avg.pct_of_peak_sustained_elapsed``).
        sol_memory_pct: Speed-of-Light memory throughput, % of peak
            (``gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed``).
        dram_throughput_pct: DRAM throughput, % of peak (``gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed``).
        dram_bytes_read: bytes read from DRAM (``dram__bytes_read.sum``).
        dram_bytes_write: bytes written to DRAM (``dram__bytes_write.sum``).
        dram_bytes_total: bytes read + written (``dram__bytes.sum``) when only the total is recorded.
        flop_counts: FLOPs executed per pipe key of :data:`PIPES` (only the ones measured): fp64/fp32/fp16 from
            the SASS counters ``sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum`` with FMA = 2
            FLOP; tensor pipes from ``sm__ops_path_tensor_src_<type>[_dst_<acc>].sum`` (dense only) where recorded.
        compute_breakdown_pct: the sub-metrics of Speed-of-Light compute throughput, % of peak, by Nsight name (the
            busiest names the unit that limits the SM; ``data/units.toml`` says which unit each measures).
        memory_breakdown_pct: the same for memory throughput (L1, L2, DRAM, interconnect units).
        tensor_pipe_active_pct: tensor pipe utilisation, % of peak (``sm__pipe_tensor_cycles_active...``), or None.
        tensor_ops_pct: tensor-core work per input type, % of that type's peak, keyed by tensor pipe of
            :data:`PIPES` (``sm__ops_path_tensor_src_<type>[_dst_<acc>][_sparsity_on|off].sum.pct_of_peak_sustained_elapsed``,
            the largest variant). Empty when the report has no such metrics; 0 values mean "measured, unused".
        tensor_pipe_op_active_pct: tensor pipe activity per MMA instruction kind, % of peak, keyed by tensor pipe
            of :data:`PIPES`: hmma -> fp16_tensor, imma -> int8_tensor, dmma -> fp64_tensor
            (``sm__pipe_tensor_op_<kind>_cycles_active.avg.pct_of_peak_sustained_active``, else
            ``sm__inst_executed_pipe_tensor_op_<kind>.avg.pct_of_peak_sustained_active``); empty when not collected.
        achieved_occupancy_pct: ``sm__warps_active.avg.pct_of_peak_sustained_active``.
        theoretical_occupancy_pct: ``sm__maximum_warps_per_active_cycle_pct``.
        stall_values: canonical stall reason (see ``data/stalls.toml``) -> value in ``stall_family`` units.
        stall_family: which metric family ``stall_values`` came from: ``"per_issue_active"`` (average
            cycles per issued instruction), ``"pc_sampling"`` or ``"warp_id_sampling"`` (sample counts) or
            ``"warp_latency"``.
        cycles_per_issued_instruction: ``smsp__average_warp_latency_per_inst_issued.ratio`` (cycles).
        rules: Nsight Compute's stored rule results.
        nsight_sol_class: the class Nsight Compute's own SOLBottleneck rule stored, in kernelscope's vocabulary
            (``"compute-bound"``, ``"memory-bound"``, ``"latency-bound"``, ``"balanced"``, ``"small-grid"``;
            :mod:`kernelscope.notes`), resolved by the reader; None when absent or when the rule gave no class.
        nsight_sol_title: that rule result's title (e.g. ``"High Memory Throughput"``), or None.
        has_flop_rates: the profile holds per-cycle SASS FP instruction rates
            (``smsp__sass_thread_inst_executed_op_*.sum.per_cycle_elapsed``, the roofline sections' form), which
            give FLOP counts only with a duration or cycle count.
        metrics: the launch's numeric metrics by Nsight name, in Nsight's own units (see ``metric_units``): for
            ``.ncu-rep`` the metrics kernelscope requests (``data/metrics.toml`` ``[request]``), for text
            exports every metric the file holds.
        metric_units: Nsight unit string per metric name.
        origin: (range index, action index) of the launch in its ``.ncu-rep`` file, so that its per-instruction data
            can be read later (:func:`kernelscope.ingest.ncu_source.read_instructions`); None for other formats.
        instruction_metrics: the per-instruction (Source Counters / instruction sampling) metrics the report holds
            for this launch, by Nsight name (e.g. ``inst_executed``, ``smsp__pcsamp_sample_count``); empty when it
            holds none (they are read only on request: tens of ms per launch).
        problems: data problems found while reading (e.g. "all metric values are NaN").
        launch_count: how many launches this profile stands for: 1 for one profiled launch; N for a summary
            row averaging N launches (nvprof's Calls / Invocations, ``ncu --print-summary`` Invocations), whose
            ``duration_s`` and other values are then per-launch averages.
        implausible: values the input holds that cannot be real (a percentage above 100 or below 0, a negative
            byte count, DRAM bytes above the GPU's peak bandwidth ...), each with its raw value and reason; the
            fields and ``metrics`` entries they would have filled are left unmeasured (:class:`Implausible`).
        useful_flops: the FLOPs the algorithm needs (FLOP per launch), when the user gives them (plain-numbers
            ``useful_flops``, ``diagnose --useful-flops NAME=COUNT``); ``flop_counts`` are the EXECUTED FLOPs
            (instruction counters count padding, masked lanes and tensor-tile waste too). None: not given.
        duration_range_s: ``(min, max)`` duration (s) of the launches a summary row stands for
            (``launch_count`` > 1), when its source records them (a timeline's per-name minimum and maximum);
            None otherwise. ``duration_std_s``: the sample standard deviation (s) of those launches' durations, when
            the source records or computes it (a timeline's per-name rows, ``nsys stats`` "StdDev"); None otherwise.
        opcode_counts: SASS opcode -> warp-level instructions executed (Nsight Compute's Instruction Statistics,
            ``sass__inst_executed_per_opcode``: ``"LDGSTS"``, ``"HMMA"``, ``"LDG"``, ...); empty when not collected.
    """

    index: int
    name: str
    demangled_name: str
    device: DeviceInfo = field(default_factory=DeviceInfo)
    launch: LaunchConfig = field(default_factory=LaunchConfig)
    mangled_name: str | None = None
    duration_s: float | None = None
    sm_frequency_hz: float | None = None
    sol_compute_pct: float | None = None
    sol_memory_pct: float | None = None
    dram_throughput_pct: float | None = None
    dram_bytes_read: float | None = None
    dram_bytes_write: float | None = None
    dram_bytes_total: float | None = None
    flop_counts: Mapping[str, float] = field(default_factory=dict)
    tensor_pipe_active_pct: float | None = None
    compute_breakdown_pct: Mapping[str, float] = field(default_factory=dict)
    memory_breakdown_pct: Mapping[str, float] = field(default_factory=dict)
    tensor_ops_pct: Mapping[str, float] = field(default_factory=dict)
    tensor_pipe_op_active_pct: Mapping[str, float] = field(default_factory=dict)
    achieved_occupancy_pct: float | None = None
    theoretical_occupancy_pct: float | None = None
    stall_values: Mapping[str, float] = field(default_factory=dict)
    stall_family: str | None = None
    cycles_per_issued_instruction: float | None = None
    rules: tuple[RuleResult, ...] = ()
    nsight_sol_class: str | None = None
    nsight_sol_title: str | None = None
    has_flop_rates: bool = False
    metrics: Mapping[str, float] = field(default_factory=dict)
    metric_units: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    launch_count: int = 1
    origin: tuple[int, int] | None = None
    instruction_metrics: tuple[str, ...] = ()
    implausible: tuple[Implausible, ...] = ()
    useful_flops: float | None = None
    duration_range_s: tuple[float, float] | None = None
    duration_std_s: float | None = None
    opcode_counts: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (
            "flop_counts", "tensor_ops_pct", "tensor_pipe_op_active_pct", "stall_values", "metrics", "metric_units",
            "compute_breakdown_pct", "memory_breakdown_pct", "opcode_counts",
        ):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @property
    def dram_bytes(self) -> float | None:
        """DRAM bytes read + written (read + write when both are known, else ``dram_bytes_total``), or None."""
        if self.dram_bytes_read is not None and self.dram_bytes_write is not None:
            return self.dram_bytes_read + self.dram_bytes_write
        return self.dram_bytes_total


@dataclass(frozen=True)
class Measurement:
    """How a profile measured its durations: durations measured differently are not comparable. Nsight Compute
    replays each kernel serialised, by default with caches flushed before each pass and SM clocks locked at base;
    a timeline (Nsight Systems, the PyTorch profiler) measures each kernel once, in flight among the others, with
    warm caches and the clocks the GPU chose. Every field is None when the input does not record it
    (:mod:`kernelscope.ingest.measurement` says where each is read).

    Attributes:
        tool: ``"ncu"``, ``"nvprof"``, ``"nsys"`` or ``"pytorch"``.
        replay_mode: Nsight Compute's ``--replay-mode``: ``"kernel"``, ``"application"``, ``"range"``,
            ``"app-range"``; ``"none"`` for a timeline (measured in flight, no replay).
        cache_control: ``"flush-all"`` (caches flushed before each replay pass) or ``"none"``.
        clock_control: ``"base"`` (SM clocks locked at base) or ``"none"`` (not locked).
    """

    tool: str | None = None
    replay_mode: str | None = None
    cache_control: str | None = None
    clock_control: str | None = None

    def settings(self) -> dict[str, str | None]:
        """``replay_mode``, ``cache_control`` and ``clock_control`` by name."""
        return {"replay_mode": self.replay_mode, "cache_control": self.cache_control,
                "clock_control": self.clock_control}


@dataclass(frozen=True)
class ProfileReport:
    """One input file: its kernels in report order.

    Attributes:
        path: the file as given by the user.
        format: input format id, e.g. ``"ncu-rep"``.
        tool_version: profiler version that wrote it, or None.
        kernels: every profiled launch, in report order.
        measurement: how its durations were measured, or None when the input does not say (plain numbers).
    """

    path: str
    format: str
    kernels: tuple[KernelProfile, ...]
    tool_version: str | None = None
    measurement: Measurement | None = None


@dataclass(frozen=True)
class SourceMarker:
    """A mark Nsight Compute's own rule put on one instruction (``IAction.source_markers``).

    Attributes:
        rule_id: the rule that placed it (``"UncoalescedGlobalAccess"``, ``"CPIStall"``).
        pc: the instruction's address.
        message: the rule's text for that instruction.
        message_type: ``"OPTIMIZATION"``, ``"WARNING"``, ``"INFO"`` or ``"ERROR"``.
    """

    rule_id: str
    pc: int
    message: str
    message_type: str


@dataclass(frozen=True)
class InstructionValues:
    """Chosen per-instruction metrics of one launch, as read (plain Python, no NumPy: what locating a finding needs,
    read in the diagnosis path where NumPy's import would cost more than the data).

    Attributes:
        function_pc: the function's first PC (``launch__function_pcs``), or None.
        values: Nsight metric name -> {PC: value}; PCs the metric has no value at are absent.
    """

    function_pc: int | None
    values: Mapping[str, Mapping[int, float]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", _frozen({k: _frozen(v) for k, v in self.values.items()}))


@dataclass(frozen=True)
class InstructionTable:
    """Per-instruction metrics of one launch (Nsight Compute's Source Counters and instruction sampling), as
    columns of equal length: one row per SASS instruction that a per-instruction metric covers, in PC order.

    Attributes:
        function_pc: the function's first PC (``launch__function_pcs``), or None; a row's offset is pc - function_pc.
        pc: instruction addresses, ``uint64`` array (n,).
        columns: Nsight metric name -> ``float64`` array (n,), NaN where the metric has no value at that PC (e.g.
            ``inst_executed``, ``smsp__pcsamp_sample_count``, ``smsp__pcsamp_warps_issue_stalled_long_scoreboard``,
            ``derived__memory_l2_theoretical_sectors_global_excessive``); a metric not read or not in the report is
            absent.
        file: per row, the source file the instruction was compiled from (``-lineinfo``), or None.
        line: per row, its 1-based source line, ``int64`` array (n,), 0 where unknown.
        sass: PC -> SASS text, for the PCs it was read for (``ncu_report`` disassembles per call, ~0.4 ms a PC).
        sources: file -> its text, when the report embeds the source (``--import-source yes``).
        markers: the source markers of Nsight's own rules.
    """

    function_pc: int | None
    pc: "np.ndarray"
    columns: Mapping[str, "np.ndarray"]
    file: tuple[str | None, ...]
    line: "np.ndarray"
    sass: Mapping[int, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    markers: tuple[SourceMarker, ...] = ()

    def __post_init__(self) -> None:
        for name in ("columns", "sass", "sources"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        n = len(self.pc)
        if len(self.file) != n or len(self.line) != n or any(len(c) != n for c in self.columns.values()):
            raise ValueError("InstructionTable columns must have one value per PC")

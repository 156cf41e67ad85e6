"""Nsight Compute metrics (by metric name) -> :class:`~kernelscope.model.KernelProfile`, shared by every
reader whose input carries Nsight Compute metric names: ``.ncu-rep`` (:mod:`.ncu_rep`), ``ncu --csv --page raw``
(:mod:`.ncu_csv`) and the details page once its display names are mapped back to metric names
(:mod:`.ncu_details`).

Only extraction and unit conversion happen here. Units are checked against Nsight Compute's unit tables
(:mod:`.units`; Nsight Compute stores base units such as "ns", "byte", "hz", and the scaled spellings are
accepted too): a unit that is not in the table of the quantity it feeds raises
:class:`~kernelscope.errors.InputError` naming the file, the kernel, the metric and the unit; a wrong scale is
never applied silently.
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache
from typing import Iterable, Mapping, Sequence

from ..errors import InputError
from ..knowledge.metrics import flop_ops, tensor_op_kinds, tensor_pipes
from ..knowledge.units import BREAKDOWNS, by_metric
from ..model import DeviceInfo, KernelProfile, LaunchConfig, RuleResult
from .nsight_rules import sol_verdict
from .stall_metrics import stall_values_from_metrics
from .units import (NCU_BYTES, NCU_COUNT, NCU_CYCLES, NCU_FREQ_HZ, NCU_PERCENT, NCU_PER_CYCLE, NCU_TIME_S,
                    ncu_bytes_per_second)


class MetricSet:
    """The finite numeric metrics of one launch (by Nsight name, with their unit strings), with
    unit-checked accessors.

    Args:
        source: the file, for error messages.
        label: the kernel, for error messages (e.g. ``"kernel 3 (sgemm)"``).
        values: metric name -> finite value, in the unit of ``units[name]``.
        units: metric name -> Nsight unit string ("" = no unit).
        locations: metric name -> where it was read (e.g. ``"line 12"``), put in front of unit errors.
    """

    def __init__(
        self,
        source: str,
        label: str,
        values: Mapping[str, float],
        units: Mapping[str, str],
        locations: Mapping[str, str] | None = None,
    ) -> None:
        self.source = source
        self.label = label
        self.values = dict(values)
        self.units = {name: units.get(name, "") for name in self.values}
        self.locations: Mapping[str, str] = {} if locations is None else locations  # (read only: not copied)

    def _bad_unit(self, name: str, unit: str, expected: str) -> InputError:
        where = self.locations.get(name)
        prefix = f"{where}: " if where else ""
        return InputError(
            self.source,
            key="metric_unit_unknown",
                values={"prefix": prefix, "label": self.label, "name": name, "unit": unit, "expected": expected},
        )

    def scaled(self, name: str, table: Mapping[str, float], expected: str, lower: bool = False) -> float | None:
        """Value times the factor of its unit in ``table``; None when absent; InputError on an unknown unit."""
        if name not in self.values:
            return None
        unit = self.units[name].strip()
        factor = table.get(unit.lower() if lower else unit)
        if factor is None:
            raise self._bad_unit(name, unit, expected)
        return self.values[name] * factor

    def first(
        self, names: tuple[str, ...], table: Mapping[str, float], expected: str, lower: bool = False
    ) -> float | None:
        """:meth:`scaled` of the first of ``names`` that is present."""
        values = self.values
        for name in names:
            if name in values:  # (most are not: no call for them)
                return self.scaled(name, table, expected, lower)
        return None

    def count(self, name: str) -> int | None:
        """An integral count (launch / device attribute), whatever its storage kind; None if absent."""
        if name not in self.values:
            return None
        value = self.values[name]
        rounded = round(value)
        if abs(value - rounded) > 1e-6 * max(1.0, abs(value)):
            return None
        return int(rounded)

    def size_bytes(self, name: str) -> int | None:
        """A size in bytes; ``byte/block``-style units are accepted, an empty unit means bytes."""
        if name not in self.values:
            return None
        unit = self.units[name].strip()
        base = unit.split("/", 1)[0] if unit else "byte"
        factor = NCU_BYTES.get(base)
        if factor is None:
            raise self._bad_unit(name, unit, "a byte unit such as byte, Kbyte, KiB")
        value = self.values[name] * factor
        if not math.isfinite(value):
            where = self.locations.get(name)
            raise InputError(self.source, key="metric_size_bad", values={"where": where + ': ' if where else '',
                                                                         "label": self.label, "name": name,
                                                                         "values": self.values[name], "unit": unit})
        return int(round(value))

    def khz_attribute(self, name: str) -> float | None:
        """``device__attribute_*_khz``: kHz when the unit is empty (the attribute's name says so)."""
        if name not in self.values:
            return None
        unit = self.units[name].strip()
        if unit == "":
            return self.values[name] * 1e3
        return self.scaled(name, NCU_FREQ_HZ, "a frequency unit such as hz, khz, cycle/second", lower=True)


def derive_dram_bytes(values: dict[str, float], units: dict[str, str], precision: str | None = None,
                      where: str = "the report") -> str | None:
    """Add ``dram__bytes.sum`` (bytes) = ``dram__bytes.sum.per_second`` x ``gpu__time_duration`` to ``values`` /
    ``units`` (in place) when they hold no DRAM byte count: Nsight's rate is that sum over the duration (the
    Speed-of-Light section's "Memory Throughput", bytes/s), so the product is the count, to the rate's digits.
    Returns the problem line that says so (``precision``: how exact the two values are, e.g. as printed; ``where``:
    what lacks the count), or None when nothing was derived (a count present, the rate or a duration above 0 absent,
    or a unit not a bandwidth / time unit: the field readers report the unit)."""
    if any(n in values for n in ("dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes_op_read.sum",
                                 "dram__bytes_op_write.sum", "dram__bytes.sum")):
        return None
    rate_name = "dram__bytes.sum.per_second"
    duration_name = next((n for n in ("gpu__time_duration.sum", "gpu__time_duration.avg") if n in values), None)
    if rate_name not in values or duration_name is None or not values[duration_name] > 0:
        return None  # (a duration of 0 or below is not a measurement: profile_from_metrics says so)
    rate_factor = ncu_bytes_per_second(units.get(rate_name, ""))
    time_factor = NCU_TIME_S.get(units.get(duration_name, "").strip())
    if rate_factor is None or time_factor is None:
        return None
    values["dram__bytes.sum"] = values[rate_name] * rate_factor * values[duration_name] * time_factor
    units["dram__bytes.sum"] = "byte"
    how = f", {precision}" if precision else ""
    return (f"DRAM bytes derived as DRAM bandwidth x duration (dram__bytes.sum.per_second x gpu__time_duration.sum"
            f"{how}): {where} has no DRAM byte count")


def profile_from_metrics(
    index: int,
    name: str,
    demangled: str,
    mangled: str | None,
    metrics: Mapping[str, float],
    units: Mapping[str, str],
    rules: Sequence[RuleResult],
    source: str,
    problems: Sequence[str] = (),
    *,
    strings: Mapping[str, str] | None = None,
    locations: Mapping[str, str] | None = None,
    partial_flops: bool = False,
) -> KernelProfile:
    """One launch's Nsight Compute metrics -> :class:`KernelProfile` in SI units.

    Args:
        index: 0-based position of the launch in its file.
        name: function name (``"sgemm"``); ``demangled``: full signature; ``mangled``: symbol or None.
        metrics: metric name -> finite value in the unit ``units[name]`` (Nsight's own units, any scale the
            tables of this module know). Non-finite values must be left out by the caller (and reported in
            ``problems``).
        units: metric name -> unit string; a missing or empty unit means "no unit".
        rules: Nsight Compute's own rule results, as stored.
        source: the input file, named by every error.
        problems: data problems the reader found (kept, in order, in ``KernelProfile.problems``).
        strings: string-valued metrics (``device__attribute_display_name`` names the device).
        locations: metric name -> where it was read (``"line 12"``), named by unit errors.
        partial_flops: count a precision's FLOPs from whichever of its add / mul / fma counters were collected
            (a problem then names the missing ones). Off for ``.ncu-rep`` reports, whose roofline sections
            always collect all three; on for CSV exports of hand-picked ``--metrics``.

    Field sources: ``duration_s`` from ``gpu__time_duration.sum`` (else ``.avg``); ``sm_frequency_hz``
    from ``smsp__cycles_elapsed.avg.per_second`` (else ``sm__...``); SOL from ``sm__throughput`` /
    ``gpu__compute_memory_throughput`` ``.avg.pct_of_peak_sustained_elapsed``; DRAM % from
    ``gpu__dram_throughput`` (else ``dram__throughput``); DRAM bytes from ``dram__bytes_read.sum`` /
    ``dram__bytes_write.sum`` (else ``dram__bytes_op_read.sum`` / ``dram__bytes_op_write.sum``, their names
    on GPUs such as sm_120 that lack the former) and the total from ``dram__bytes.sum``; a block / grid given only as
    ``launch__block_size`` / ``launch__grid_size`` (no per-axis dims) becomes ``(n, 1, 1)``. FLOPs, tensor
    and stall fields: see :func:`kernelscope.ingest.ncu_rep.read_ncu_rep`; tensor-pipe FLOPs
    (``flop_counts["bf16_tensor"]`` ...) from the ``sm__ops_path_tensor_src_*.sum`` counts
    (:func:`tensor_flop_counts`). A duration of 0 or below is not a measurement: ``duration_s`` is None and
    ``problems`` says so ("duration 0 ns is not a measurement (line 7)"). Per-cycle FP rates without a
    duration or cycle count to multiply them by give no FLOP count, said in ``problems``.

    Raises:
        InputError: a metric read into a field has a unit the matching table lacks (the message names
            the file, where the metric was read when known, the kernel, the metric and the unit).
    """
    if "dram__bytes.sum.per_second" in metrics and "dram__bytes.sum" not in metrics:
        metrics, units = dict(metrics), dict(units)  # (a copy: the caller's metrics stay as read)
        derived = derive_dram_bytes(metrics, units)
        problems = (*problems, derived) if derived else problems
    m = MetricSet(source, f"kernel {index} ({name})", metrics, units, locations)
    device, launch = _device(m, strings or {}), _launch(m)  # read first: of several bad units, theirs is named
    out_problems = list(problems)
    duration_s = _duration(m, out_problems)
    sm_frequency_hz = m.first(
        ("smsp__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second",
         "gpc__cycles_elapsed.avg.per_second"),
        NCU_FREQ_HZ, "a frequency unit such as hz or cycle/nsecond", lower=True,
    )
    flop_counts = _flop_counts(m, duration_s, partial_flops, out_problems)
    stall_family, stall_values = stall_values_from_metrics(m.values)
    sol_class, sol_title = sol_verdict(rules)
    compute_breakdown, memory_breakdown = (_breakdown(m, strings or {}, side) for side in ("compute", "memory"))

    def percent(*names: str) -> float | None:
        return m.first(names, NCU_PERCENT, "%")

    byte_units = "a byte unit such as byte, Kbyte, Mbyte"
    return KernelProfile(
        index=index,
        name=name,
        demangled_name=demangled,
        mangled_name=mangled,
        device=device,
        launch=launch,
        duration_s=duration_s,
        sm_frequency_hz=sm_frequency_hz,
        sol_compute_pct=percent("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        sol_memory_pct=percent("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
        dram_throughput_pct=percent(
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        ),
        dram_bytes_read=m.first(("dram__bytes_read.sum", "dram__bytes_op_read.sum"), NCU_BYTES, byte_units),
        dram_bytes_write=m.first(("dram__bytes_write.sum", "dram__bytes_op_write.sum"), NCU_BYTES, byte_units),
        dram_bytes_total=m.scaled("dram__bytes.sum", NCU_BYTES, byte_units),
        flop_counts=flop_counts,
        tensor_pipe_active_pct=percent(
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ),
        compute_breakdown_pct=compute_breakdown,
        memory_breakdown_pct=memory_breakdown,
        tensor_ops_pct=_tensor_ops(m.values),
        tensor_pipe_op_active_pct=_tensor_pipe_ops(m),
        achieved_occupancy_pct=percent("sm__warps_active.avg.pct_of_peak_sustained_active"),
        theoretical_occupancy_pct=percent("sm__maximum_warps_per_active_cycle_pct"),
        stall_values=stall_values,
        stall_family=stall_family,
        cycles_per_issued_instruction=m.scaled("smsp__average_warp_latency_per_inst_issued.ratio", NCU_CYCLES,
                                               "cycle"),
        rules=tuple(rules),
        nsight_sol_class=sol_class,
        nsight_sol_title=sol_title,
        has_flop_rates=_has_flop_rates(m.values),
        metrics=m.values,
        metric_units=m.units,
        problems=tuple(out_problems),
    )


def _has_flop_rates(names: Iterable[str]) -> bool:
    """Whether any of ``names`` is a per-cycle FP instruction rate (``smsp__sass_thread_inst_executed_op_*
    .per_cycle_elapsed``)."""
    return _by_name(tuple(names))[1]


@lru_cache(maxsize=1024)
def _by_name(names: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """What a launch's metric names alone say, the same for every launch of a kernel (so worked out once per list
    of names, not per launch): the tensor-pipe metrics among them (``sm__ops_path_tensor_*``, in their order), and
    whether one is a per-cycle FP instruction rate (:func:`_has_flop_rates`)."""
    return (tuple(n for n in names if n.startswith(_TENSOR_PREFIX)),
            any(n.startswith("smsp__sass_thread_inst_executed_op_") and n.endswith(".per_cycle_elapsed") for n in names))


def _breakdown(m: MetricSet, strings: Mapping[str, str], side: str) -> dict[str, float]:
    """The sub-metrics of one Speed-of-Light throughput (% of peak) by name: those the report's breakdown string
    lists (``breakdown:sm__throughput...``), else the ones of ``data/units.toml`` for that side the input holds."""
    listed = strings.get(BREAKDOWNS[side])
    if listed:
        names = [n.strip() for n in listed.split(",") if n.strip()]
    else:
        names = [n for n in _side_metrics(side) if n in m.values]  # (most are not measured)
    out = {}
    for name in names:
        value = m.scaled(name, NCU_PERCENT, "%")
        if value is not None:
            out[name] = value
    return out


@cache
def _side_metrics(side: str) -> tuple[str, ...]:
    """The sub-metric names of ``data/units.toml`` for one side ("compute" / "memory"), in the file's order."""
    return tuple(n for n, u in by_metric().items() if u.side == side)


def _device(m: MetricSet, strings: Mapping[str, str]) -> DeviceInfo:
    """The ``device__attribute_*`` metrics (the name from the string metric ``device__attribute_display_name``); the
    SM count also from ``launch__sm_count`` (Launch Statistics "# SMs") when the device attribute is absent."""
    return DeviceInfo(
        display_name=strings.get("device__attribute_display_name") or None,
        compute_capability=_pair(
            m.count("device__attribute_compute_capability_major"),
            m.count("device__attribute_compute_capability_minor"),
        ),
        sm_count=m.count("device__attribute_multiprocessor_count") or m.count("launch__sm_count"),
        max_sm_clock_hz=m.khz_attribute("device__attribute_max_gpu_frequency_khz"),
        max_mem_clock_hz=m.khz_attribute("device__attribute_max_mem_frequency_khz"),
        memory_bus_width_bits=m.count("device__attribute_global_memory_bus_width"),
        l2_cache_bytes=m.size_bytes("device__attribute_l2_cache_size"),
    )


def _launch(m: MetricSet) -> LaunchConfig:
    """The ``launch__*`` metrics; a block / grid given only as a total becomes ``(n, 1, 1)``."""
    return LaunchConfig(
        grid=_triple(m, "launch__grid_dim_") or _flat(m, "launch__grid_size"),
        block=_triple(m, "launch__block_dim_") or _flat(m, "launch__block_size"),
        registers_per_thread=m.count("launch__registers_per_thread"),
        shared_mem_static_bytes=m.size_bytes("launch__shared_mem_per_block_static"),
        shared_mem_dynamic_bytes=m.size_bytes("launch__shared_mem_per_block_dynamic"),
        shared_mem_config_bytes=m.size_bytes("launch__shared_mem_config_size"),
        waves_per_sm=m.values.get("launch__waves_per_multiprocessor"),
    )


def _duration(m: MetricSet, problems: list[str]) -> float | None:
    """``gpu__time_duration.sum`` (else ``.avg``) in seconds; None, with a problem, when it is 0 or below."""
    time_units = "a time unit such as ns, us, ms, s"
    duration_s = m.first(("gpu__time_duration.sum", "gpu__time_duration.avg"), NCU_TIME_S, time_units)
    if duration_s is not None and not duration_s > 0:
        # 0 (a launch too short for the timer, or a placeholder) or negative: not a measurement
        problems.append(duration_problem(duration_s, m.locations.get(
            "gpu__time_duration.sum" if "gpu__time_duration.sum" in m.values else "gpu__time_duration.avg")))
        return None
    return duration_s


def _flop_counts(m: MetricSet, duration_s: float | None, partial: bool, problems: list[str]) -> dict[str, float]:
    """FLOPs per pipe: the instruction counts (:func:`flop_counts_from`), then the tensor pipes' own counts
    (:func:`tensor_flop_counts`) where those left a pipe out; their problems are added to ``problems``."""
    flop_counts, partial_problems = flop_counts_from(m, duration_s, partial)
    problems.extend(partial_problems)
    tensor_flops, tensor_problems = tensor_flop_counts(m)
    for pipe, count in tensor_flops.items():
        flop_counts.setdefault(pipe, count)
    problems.extend(tensor_problems)
    return flop_counts


# sm__ops_path_tensor_[op_<kind>_]src_<type>[_dst_<acc>]... -> tensor pipe: data/metrics.toml [tensor]. Blackwell
# (SM 10.x) names the counters per UTC MMA kind (sm__ops_path_tensor_op_utcqmma_src_fp8_dst_fp32.sum, NVIDIA/DCGM#251).
# The % of peak: "<name>.sum.pct_of_peak_sustained_elapsed" (the roofline sections' form), else the
# ".avg.pct_of_peak_sustained_active" / ".sum.pct_of_peak_sustained_active" forms a --metrics list may ask for.
_TENSOR_PREFIX = "sm__ops_path_tensor_"
_TENSOR_OPS = re.compile(
    r"^sm__ops_path_tensor_(?:op_[a-z0-9]+_)?src_([a-z0-9]+?)(?:_dst_([a-z0-9]+?))?(?:_sparsity_o(?:n|ff))?"
    r"\.(?:sum|avg)\.pct_of_peak_sustained_(elapsed|active)$"
)


def _tensor_ops(metrics: Mapping[str, float]) -> dict[str, float]:
    """Tensor-core work per pipe (% of peak, largest variant), from ``sm__ops_path_tensor_src_*`` metrics: the
    ``...pct_of_peak_sustained_elapsed`` forms, else (for a pipe without one) the ``..._active`` forms."""
    by_kind: dict[str, dict[str, float]] = {"elapsed": {}, "active": {}}
    for name in _by_name(tuple(metrics))[0]:
        value = metrics[name]
        mt = _TENSOR_OPS.match(name)
        pipe = mt and tensor_pipes().get((mt.group(1), mt.group(2)))
        if pipe and math.isfinite(value):
            out = by_kind[mt.group(3)]
            out[pipe] = max(out.get(pipe, 0.0), value)
    return {**by_kind["active"], **by_kind["elapsed"]}


# Tensor-core FLOPs: ``sm__ops_path_tensor_src_<in>[_dst_<acc>][_sparsity_on|off].sum`` counts FLOPs (sources in
# data/metrics.toml [tensor]). The total (no "_sparsity" suffix) is taken, else "_sparsity_off"; a pipe
# with sparse work (a "_sparsity_on" count > 0) is not counted: the datasheet dense peaks do not apply to it.
_TENSOR_COUNT = re.compile(
    r"^sm__ops_path_tensor_(?:op_([a-z0-9]+)_)?src_([a-z0-9]+?)(?:_dst_([a-z0-9]+?))?(?:_sparsity_(on|off))?\.sum$")


def tensor_flop_counts(m: MetricSet) -> tuple[dict[str, float], list[str]]:
    """FLOPs per tensor pipe (keys of model.PIPES) from ``sm__ops_path_tensor_[op_<kind>_]src_*.sum`` counts, and
    problems. Counts of different MMA kinds (Blackwell's ``op_utcqmma`` / ``op_utchmma`` ...) on one pipe add up."""
    found: dict[tuple[str, str, str | None], dict[str, float]] = {}
    for name in _by_name(tuple(m.values))[0]:
        mt = _TENSOR_COUNT.match(name)
        if mt is None or tensor_pipes().get((mt.group(2), mt.group(3))) is None:
            continue
        value = m.scaled(name, NCU_COUNT, "a count (no unit)")
        if value is not None and math.isfinite(value):
            found.setdefault((mt.group(1) or "", mt.group(2), mt.group(3)), {})[mt.group(4) or ""] = value
    by_kind: dict[tuple[str, str], float] = {}
    problems: list[str] = []
    for (kind, src, dst), variants in found.items():
        pipe = tensor_pipes()[(src, dst)]
        if variants.get("on", 0.0) > 0:
            problems.append(f"{pipe} tensor work uses sparsity (sm__ops_path_tensor_{'op_' + kind + '_' if kind else ''}"
                            f"src_{src}{'_dst_' + dst if dst else ''}_sparsity_on.sum > 0): its FLOPs are not counted")
            continue
        count = variants.get("", variants.get("off"))
        if count is not None:
            by_kind[(pipe, kind)] = max(by_kind.get((pipe, kind), 0.0), count)
    counts: dict[str, float] = {}
    for (pipe, _kind), count in by_kind.items():
        counts[pipe] = counts.get(pipe, 0.0) + count
    return counts, problems


def _tensor_pipe_ops(m: MetricSet) -> dict[str, float]:
    """Tensor pipe activity per MMA instruction kind (% of peak), keyed by tensor pipe of model.PIPES."""
    out: dict[str, float] = {}
    for pipe, names in _tensor_op_names():
        value = m.first(names, NCU_PERCENT, "%")
        if value is not None:
            out[pipe] = value
    return out


@cache
def _tensor_op_names() -> tuple[tuple[str, tuple[str, str]], ...]:
    """(tensor pipe, the two metrics of its activity) per MMA kind of :func:`tensor_op_kinds`, named once."""
    return tuple((pipe, (f"sm__pipe_tensor_op_{kind}_cycles_active.avg.pct_of_peak_sustained_active",
                         f"sm__inst_executed_pipe_tensor_op_{kind}.avg.pct_of_peak_sustained_active"))
                 for kind, pipe in tensor_op_kinds().items())


def _pair(a: int | None, b: int | None) -> tuple[int, int] | None:
    return None if a is None or b is None else (a, b)


def _triple(m: MetricSet, prefix: str) -> tuple[int, int, int] | None:
    values = [m.count(prefix + axis) for axis in "xyz"]
    if any(v is None for v in values):
        return None
    return (values[0], values[1], values[2])  # type: ignore[return-value]


def _flat(m: MetricSet, name: str) -> tuple[int, int, int] | None:
    """``launch__block_size`` / ``launch__grid_size`` (a total) as ``(n, 1, 1)`` when no per-axis dims exist."""
    n = m.count(name)
    return None if n is None or n <= 0 else (n, 1, 1)


def duration_problem(duration_s: float, where: str | None = None) -> str:
    """The problem a reader records for a duration of 0 or below (left unmeasured): "duration 0 ns is not a
    measurement (line 7)". ``where``: where it was read ("line 7", "line 7 (unit from ...)"), or None."""
    ns = duration_s * 1e9
    text = f"{ns:.0f}" if math.isfinite(ns) and abs(ns - round(ns)) < 1e-6 else f"{ns:g}"
    line = re.match(r"line \d+", where or "")
    return f"duration {text} ns is not a measurement" + (f" ({line.group(0)})" if line else "")


@cache
def _flop_names() -> tuple[tuple[str, tuple[tuple[str, float], ...], tuple[tuple[tuple[str, str], str], ...]], ...]:
    """:func:`flop_ops` with the counters of each op: (precision, ops, ((``sm__`` and ``smsp__`` counts), the
    ``smsp__`` per-cycle rate) per op), named once rather than for every launch."""
    out = []
    for pipe, ops in flop_ops().items():
        stems = [f"sass_thread_inst_executed_op_{op}_pred_on" for op, _ in ops]
        out.append((pipe, ops, tuple(((f"sm__{st}.sum", f"smsp__{st}.sum"), f"smsp__{st}.sum.per_cycle_elapsed")
                                     for st in stems)))
    return tuple(out)


def flop_counts_from(m: MetricSet, duration_s: float | None, partial: bool = False) -> tuple[dict[str, float], list[str]]:
    """FLOP per precision (weights: ``data/metrics.toml`` ``[flop]``) and the problems to report.

    Without ``partial``, a precision is left out unless its three counters (add, mul, fma) are all measured.
    With it, a precision with at least one measured counter is counted from those, and a problem names the
    counters that were not collected.
    """
    counts: dict[str, float] = {}
    problems: list[str] = []
    cycles = m.scaled("smsp__cycles_elapsed.avg", NCU_CYCLES, "cycle")
    if cycles is None and duration_s is not None:
        per_second = m.scaled("smsp__cycles_elapsed.avg.per_second", NCU_FREQ_HZ, "a frequency unit", lower=True)
        if per_second is not None:
            cycles = per_second * duration_s
    uncounted_rates: list[str] = []
    for pipe, ops, names in _flop_names():
        total = 0.0
        missing: list[str] = []
        for (op, weight), (count_names, rate_name) in zip(ops, names):
            count = m.first(count_names, NCU_COUNT, "inst")
            if count is None:
                rate = m.scaled(rate_name, NCU_PER_CYCLE, "inst/cycle")
                if rate is not None and cycles is None:
                    uncounted_rates.append(op.upper())
                count = None if rate is None or cycles is None else rate * cycles
            if count is None:
                missing.append(op)
                if not partial:
                    break
                continue
            total += weight * count
        if not missing:
            counts[pipe] = total
        elif partial and len(missing) < len(ops):
            counts[pipe] = total
            problems.append(
                f"{pipe.upper()} FLOPs count only {', '.join(op.upper() for op, _ in ops if op not in missing)} "
                f"instructions: the {'/'.join(op.upper() for op in missing)} counters were not collected"
            )
    if uncounted_rates:
        # per-cycle rates (roofline section exports) x SM frequency would be a FLOP rate, not a count
        problems.insert(0, f"FLOP rates present but no duration/cycle count: FLOPs not counted "
                           f"({'/'.join(uncounted_rates)} instructions per cycle were measured)")
    return counts, problems

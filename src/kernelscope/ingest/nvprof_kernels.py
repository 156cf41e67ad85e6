"""nvprof rows -> :class:`~kernelscope.model.KernelProfile`: values in nvprof's units, one entry per kernel
merged across the tables of a file, and the mapping of nvprof metric names to kernelscope's quantities.

The rows come from :mod:`.nvprof`, which finds the tables and splits their rows into cells. Values carry nvprof's
units (binary prefixes: :data:`.units.NVPROF_UNITS`, see :mod:`.nvprof`); a unit outside them is an
:class:`~kernelscope.errors.InputError` naming it. ``[CUDA memcpy ...]`` / ``[CUDA memset]`` rows are memory
operations, not kernels: skipped (and counted, for the message of a file without kernels).

nvprof metric names are mapped to kernelscope's quantities by ``data/nvprof_metrics.toml`` (sources: the CUDA
Profiler User's Guide metrics reference and Nsight Compute's "nvprof metric comparison" table).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal, Mapping


from ..errors import InputError
from ..notes import Listed
from ..knowledge import Model, load
from ..knowledge.stalls import reasons
from ..knowledge.units import by_metric
from ..model import PIPES, DeviceInfo, KernelProfile, LaunchConfig
from .ncu_metrics import duration_problem
from .ncu_printed import function_name
from .units import NVPROF_UNITS

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_VALUE = re.compile(rf"^({_NUMBER})\s*([A-Za-z%/]*)$")
_LEVEL = re.compile(r"^(Idle|Low|Mid|High|Max)\s*\((\d+)\)$")  # utilization levels, e.g. "Low (2)"
_NOT_AVAILABLE = {"-", "", "n/a", "N/A", "<OVERFLOW>", "nan", "NaN", "-nan", "inf", "-inf"}
_DIM3 = re.compile(r"^\(\s*(\d+)\s+(\d+)\s+(\d+)\s*\)$")
_CORRELATION = re.compile(r"\s+\[\d+\]$")
_DEVICE_INDEX = re.compile(r"\s*\(\d*\)?$")  # " (0)", or " (0" where the trace cut the column


# ---------------------------------------------------------------------------------------------------------
# Metric mapping (data/nvprof_metrics.toml).


_KINDS = ("fraction", "percent", "bytes", "throughput", "count", "ratio", "level")
_FIELDS = ("achieved_occupancy_pct", "dram_bytes_read", "dram_bytes_write")


class _Mapping(Model, kw_only=True):
    """One ``[metric.<nvprof name>]`` table of ``data/nvprof_metrics.toml`` (keys documented there)."""

    ncu: str | None = None
    also: str | tuple[str, ...] | None = None
    kind: Literal[_KINDS]  # type: ignore[valid-type]
    field: Literal[_FIELDS] | None = None  # type: ignore[valid-type]
    scale: float = 1.0
    fallback: bool = False
    flop: Literal[PIPES] | None = None  # type: ignore[valid-type]
    stall: str | None = None
    breakdown: str | None = None

    def __post_init__(self) -> None:
        if self.stall is not None and self.stall not in reasons():
            raise ValueError(f"field 'stall': unknown stall reason {self.stall!r}")
        if self.breakdown is not None and self.breakdown not in by_metric():
            raise ValueError(f"field 'breakdown': {self.breakdown!r} is no sub-metric of data/units.toml")


class _NvprofMetrics(Model, kw_only=True):
    metric: dict[str, _Mapping]


def metric_mappings() -> Mapping[str, _Mapping]:
    """nvprof metric name -> how it fills a KernelProfile (``data/nvprof_metrics.toml``, validated once).

    Raises:
        InputError: the packaged data file is malformed (a packaging bug).
    """
    return load("nvprof_metrics.toml", _NvprofMetrics).metric


# ---------------------------------------------------------------------------------------------------------
# Values.


@dataclass(frozen=True)
class _Value:
    value: float | None  # in SI (see NVPROF_UNITS); None = not available
    unit: str  # SI unit name ("second", "byte", "byte/second", "%", "", "level")
    printed_unit: str  # as nvprof printed it
    overflow: bool = False


def _split_value(text: str) -> tuple[str, str] | None:
    m = _VALUE.match(text.strip())
    return (m.group(1), m.group(2)) if m else None


# ---------------------------------------------------------------------------------------------------------
# Per-kernel accumulation.


@dataclass
class _Entry:
    signature: str
    device: str | None = None
    duration_s: float | None = None
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    registers: int | None = None
    ssmem: int | None = None
    dsmem: int | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class Kernels:
    """The kernel entries of one nvprof file as its tables give them: one per kernel signature (and device) from
    summaries and metric / event tables, one per launch from a GPU trace; the rows skipped, by what they were."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.by_signature: dict[tuple[str | None, str], _Entry] = {}
        self.order: list[_Entry] = []
        self.trace: list[_Entry] = []
        self.skipped: dict[str, int] = {}  # what non-kernel rows were seen, e.g. {"memory copy": 2}

    def error(self, number: int, problem: str) -> InputError:
        return InputError(self.source, key="line_problem", values={"number": number, "problem": problem})

    # ------------------------------------------------------------------------------------------ values
    def value(self, number: int, text: str, what: str, column_unit: str = "") -> _Value:
        """Parse one nvprof value; ``column_unit`` is the unit a CSV units row gives the column."""
        raw = text.strip()
        if raw in _NOT_AVAILABLE:
            return _Value(None, "", "", overflow=raw == "<OVERFLOW>")
        level = _LEVEL.match(raw)
        if level:
            return _Value(float(level.group(2)), "level", "level")
        parts = _split_value(raw)
        if parts is None:
            raise self.error(number, f"{what}: cannot read the value {raw!r} (expected a number, optionally with a unit)")
        number_text, unit = parts
        if unit and column_unit:
            raise self.error(number, f"{what}: value {raw!r} carries a unit although its column's unit is {column_unit!r}")
        unit = unit or column_unit
        known = NVPROF_UNITS.get(unit)
        if known is None:
            raise self.error(
                number,
                f"{what}: unknown unit {unit!r} in {raw!r} (kernelscope reads nvprof's units "
                f"{', '.join(u for u in NVPROF_UNITS if u)} and unit-less numbers)",
            )
        si_unit, factor = known
        return _Value(float(number_text) * factor, si_unit, unit)

    def duration(self, number: int, text: str, what: str, column_unit: str = "") -> float | None:
        v = self.value(number, text, what, column_unit)
        if v.value is not None and v.unit != "second":
            raise self.error(number, f"{what}: expected a time (ns, us, ms, s), got {text.strip()!r}")
        return v.value

    # ----------------------------------------------------------------------------------------- entries
    def entry(self, signature: str, device: str | None) -> _Entry:
        """The kernel entry for a signature (merging a device-less one with a device-ful one)."""
        key = (device, signature)
        found = self.by_signature.get(key)
        if found is None and device is not None:
            found = self.by_signature.pop((None, signature), None)
            if found is not None:
                found.device = device
                self.by_signature[key] = found
        if found is None and device is None:
            found = next((e for (d, s), e in self.by_signature.items() if s == signature), None)
        if found is None:
            found = _Entry(signature=signature, device=device)
            self.by_signature[key] = found
            self.order.append(found)
        return found

    def skip_row(self, what: str) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + 1

    # -------------------------------------------------------------------------------------------- rows
    def add_metric(self, number: int, entry: _Entry, name: str, avg: str, invocations: int | None) -> None:
        v = self.value(number, avg, f"metric {name} of {entry.signature[:60]}")
        if v.overflow:
            entry.problems.append(f"nvprof printed <OVERFLOW> for {name} (counter overflow): left unmeasured")
        if v.value is not None:
            entry.metrics[name] = v.value
            entry.units[name] = v.unit
        if invocations is not None:
            entry.metrics["invocations"] = float(invocations)
            entry.units["invocations"] = ""

    def summary_row(self, number: int, name: str, device: str | None, pct: str, total: str, calls: str, avg: str,
                    low: str, high: str, units: Mapping[str, str] | None = None) -> None:
        """A row of a summary of GPU activities: a kernel's Avg duration, total time, calls, min / max, share."""
        units = units or {}
        if _is_memory_operation(name):
            self.skip_row("memory operation")
            return
        entry = self.entry(name, device)
        where = f"summary row of {name[:60]}"
        entry.duration_s = _measured(entry, number, self.duration(number, avg, f"{where}, Avg", units.get("avg", "")))
        for key, text, unit_key in (("time_total", total, "time"), ("duration_min", low, "min"),
                                    ("duration_max", high, "max")):
            seconds = self.duration(number, text, f"{where}, {unit_key}", units.get(unit_key, ""))
            if seconds is not None:
                entry.metrics[key] = seconds
                entry.units[key] = "second"
        share = self.value(number, pct, f"{where}, Time(%)", units.get("pct", ""))
        if share.value is not None:
            entry.metrics["time_pct"] = share.value
            entry.units["time_pct"] = "%"
        try:
            entry.metrics["calls"] = float(int(calls))
        except ValueError:
            raise self.error(number, f"{where}: Calls {calls!r} is not a whole number") from None
        entry.units["calls"] = ""

    def trace_row(self, number: int, cells: Mapping[str, str], units: Mapping[str, str]) -> None:
        """A GPU-trace row (cells keyed "name", "duration", "grid", ... as :data:`.nvprof.TRACE_COLUMNS` names
        them): one kernel launch, or a skipped activity."""
        name = _CORRELATION.sub("", cells.get("name", "").strip())
        if not name:
            raise self.error(number, "GPU-trace row without a Name")
        grid = self.dim3(number, cells, "grid")
        if grid is None or _is_memory_operation(name):
            self.skip_row("memory operation" if _is_memory_operation(name) else "non-kernel activity")
            return
        where = f"GPU-trace row of {name[:60]}"
        entry = _Entry(signature=name, device=device_name(cells["device"]) if cells.get("device") else None)
        seconds = self.duration(number, cells.get("duration", "-"), f"{where}, Duration", units.get("duration", ""))
        entry.duration_s = _measured(entry, number, seconds)
        entry.grid = grid
        entry.block = self.dim3(number, cells, "block")
        regs = cells.get("regs", "-").strip()
        if regs not in _NOT_AVAILABLE:
            if not regs.isdigit():
                raise self.error(number, f"{where}: registers per thread {regs!r} is not a whole number")
            entry.registers = int(regs)
        for key in ("ssmem", "dsmem"):
            text = cells.get(key, "-")
            v = self.value(number, text, f"{where}, shared memory", units.get(key, ""))
            if v.value is None:
                continue
            if v.unit not in ("byte", "") or not math.isfinite(v.value):
                raise self.error(number, f"{where}: expected a size in bytes, got {text.strip()!r}")
            setattr(entry, key, int(round(v.value)))
        # extra columns named after nvprof metrics (--print-gpu-trace together with --metrics)
        for column, text in cells.items():
            if column in metric_mappings():
                self.add_metric(number, entry, column, text, None)
        self.trace.append(entry)

    def dim3(self, number: int, cells: Mapping[str, str], key: str) -> tuple[int, int, int] | None:
        if key in cells:  # text: "(74 16 1)" or "-"
            text = cells[key].strip()
            if text in _NOT_AVAILABLE:
                return None
            m = _DIM3.match(text)
            if m is None:
                raise self.error(number, f"{key} size {text!r} is not of the form '(x y z)'")
            return int(m.group(1)), int(m.group(2)), int(m.group(3))
        parts = [cells.get(f"{key}_{axis}", "").strip() for axis in "xyz"]
        if all(p in _NOT_AVAILABLE for p in parts):
            return None
        if not all(p.isdigit() for p in parts):
            raise self.error(number, f"{key} dimensions {parts} are not whole numbers")
        return int(parts[0]), int(parts[1]), int(parts[2])

    # ----------------------------------------------------------------------------------------- result
    def profiles(self, tables: int) -> tuple[KernelProfile, ...]:
        """The kernels found, as profiles (``tables``: how many nvprof tables the file held, for the message when
        none is a kernel)."""
        if self.trace:
            # per-launch rows; what summaries / metric tables say about the same kernel is added to each launch
            entries = self.trace
            for launch in entries:
                info = self.by_signature.get((launch.device, launch.signature)) or next(
                    (e for (d, s), e in self.by_signature.items() if s == launch.signature), None
                )
                if info is not None:
                    for k, v in info.metrics.items():
                        if k not in ("calls", "time_total", "time_pct", "duration_min", "duration_max"):
                            launch.metrics.setdefault(k, v)
                            launch.units.setdefault(k, info.units[k])
                    launch.problems.extend(p for p in info.problems if p not in launch.problems)
        else:
            entries = self.order
        if not entries:
            if tables == 0:
                raise InputError(
                    self.source,
                    key="nvprof_no_data",
                )
            seen = Listed(f"{n} {what} row(s)" for what, n in sorted(self.skipped.items())) or "no rows"
            raise InputError(self.source, key="nvprof_no_kernels", values={"seen": seen})
        return tuple(_profile(self.source, i, e) for i, e in enumerate(entries))


def _measured(entry: _Entry, number: int, seconds: float | None) -> float | None:
    """A duration as read, or None (with a problem on the entry) when it is 0 or below: nvprof prints ``0ns`` for
    launches shorter than its timer resolves, which is not a measurement."""
    if seconds is not None and not seconds > 0:
        problem = duration_problem(seconds, f"line {number}")
        if problem not in entry.problems:
            entry.problems.append(problem)
        return None
    return seconds


def device_name(text: str) -> str | None:
    """A Device column / ``Device "..."`` line without nvprof's ``" (0)"`` index (or its cut ``" (0"``)."""
    name = _DEVICE_INDEX.sub("", text.strip()).strip()
    return name or None


def _is_memory_operation(name: str) -> bool:
    """``[CUDA memcpy HtoD]``, ``[CUDA memset]``, ``[CUDA memcpy PtoP]``... (bracketed activity names)."""
    return name.startswith("[") and name.endswith("]")


def _profile(source: str, index: int, entry: _Entry) -> KernelProfile:
    mappings = metric_mappings()
    fields: dict[str, float] = {}
    fallback_fields: dict[str, float] = {}
    flops: dict[str, float] = {}
    stalls: dict[str, float] = {}
    breakdown: dict[str, dict[str, float]] = {"compute": {}, "memory": {}}
    levels: list[str] = []
    for name, value in entry.metrics.items():
        m = mappings.get(name)
        if m is None:
            continue
        converted = _convert(source, entry, name, m, value)
        if m.field is not None:
            (fallback_fields if m.fallback else fields)[m.field] = converted * m.scale
        if m.flop is not None:
            flops[m.flop] = converted
        if m.stall is not None:
            stalls[m.stall] = converted
        if m.breakdown is not None:
            side = breakdown[by_metric()[m.breakdown].side]
            side[m.breakdown] = max(side.get(m.breakdown, 0.0), converted * LEVEL_PCT)
            levels.append(f"{name} {converted:g}")
    for k, v in fallback_fields.items():
        fields.setdefault(k, v)
    problems = list(entry.problems)
    if levels:
        problems.append(
            f"nvprof utilisation levels (0-10) read as level x {LEVEL_PCT:g}% of peak, an approximation (nvprof "
            f"prints only the level and its band: Idle, Low, Mid, High, Max): {', '.join(levels)}"
        )
    return KernelProfile(
        index=index,
        name=function_name(entry.signature) or entry.signature,
        demangled_name=entry.signature,
        device=DeviceInfo(display_name=entry.device),
        launch=LaunchConfig(grid=entry.grid, block=entry.block, registers_per_thread=entry.registers,
                            shared_mem_static_bytes=entry.ssmem, shared_mem_dynamic_bytes=entry.dsmem),
        duration_s=entry.duration_s,
        dram_bytes_read=fields.get("dram_bytes_read"),
        dram_bytes_write=fields.get("dram_bytes_write"),
        flop_counts=flops,
        compute_breakdown_pct=breakdown["compute"],
        memory_breakdown_pct=breakdown["memory"],
        achieved_occupancy_pct=fields.get("achieved_occupancy_pct"),
        stall_values=stalls,
        stall_family="given_percent" if stalls else None,
        metrics=entry.metrics,
        metric_units=entry.units,
        problems=tuple(problems),
        launch_count=int(entry.metrics.get("calls") or entry.metrics.get("invocations") or 1),
    )


_KIND_UNITS = {
    "fraction": ("", "%"), "percent": ("%", ""), "bytes": ("byte", ""), "throughput": ("byte/second",),
    "count": ("",), "ratio": ("", "level"), "level": ("level",),
}
#: Percent of peak per nvprof utilisation level (a level of the 0-10 scale x 10: an approximation).
LEVEL_PCT = 10.0


def _convert(source: str, entry: _Entry, name: str, m: _Mapping, value: float) -> float:
    """A mapped metric's value in the unit of the field it fills (fraction -> percent)."""
    unit = entry.units.get(name, "")
    if unit not in _KIND_UNITS[m.kind]:
        raise InputError(
            source,
            key="nvprof_bad_unit", values={"signature": entry.signature[:60], "name": name, "value": unit or 'none',
                                           "value2": ' or '.join((repr(u or 'none') for u in _KIND_UNITS[m.kind])),
                                           "kind": m.kind},
        )
    if m.kind == "fraction" and unit == "":
        return value * 100.0
    return value



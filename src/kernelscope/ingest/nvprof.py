"""Reader for nvprof output (text and ``--csv``): summaries, GPU traces and metric / event tables.

Only extraction and unit conversion happen here (no analysis). The file is read line by line (streaming);
everything that is not one of the tables below (application output, ``==PID==`` messages, compiler logs,
legends) is skipped. Variants read, all found in real files:

* ``--metrics`` text::

      Invocations       Metric Name        Metric Description         Min         Max         Avg
      Device "GeForce GTX 1070 (0)"
          Kernel: GOL(int, int*, int*)
                2  dram_read_throughput  Device Memory Read Throughput  64.607GB/s  65.245GB/s  64.923GB/s

* ``--metrics --csv`` (quoted strings, unquoted numbers, units or ``%`` inside the values)::

      "Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"
      "Tesla K20c (0)","kern(float*)",3,"achieved_occupancy","Achieved Occupancy",0.348148,0.348174,0.348164

* ``--events`` text / CSV (``Invocations Event Name Min Max Avg Total``): kept in ``metrics`` only.
* ``--print-gpu-trace`` text (fixed-width columns, units inside the values, the Device column cut to its
  width, e.g. ``Quadro GP100 (0``) and CSV (a second row gives each column's unit); one launch per row.
* The default summary, text (``Time(%) Time Calls Avg Min Max Name``, with or without the ``Type`` column
  ``GPU activities:`` / ``API calls:``) and CSV (``Time(%),Time,Calls,Avg,Min,Max,Name`` with units inside the
  values, or ``"Type","Time(%)",...`` followed by a row of units).

Rows named ``[CUDA memcpy ...]`` / ``[CUDA memset]`` and the like are memory operations, not kernels, and
API-call rows are host calls: both are skipped. A kernel seen in several tables (e.g. a summary and a metric
table) becomes one :class:`~kernelscope.model.KernelProfile`.

Units. nvprof prints sizes and throughputs with binary prefixes: ``1 KB = 1024 B``, ``GB/s = 2**30 B/s``
(checked on ``ieee2017_nvprof_gputrace_gp100.log`` of the corpus: a copy of ``256.00MB`` in ``31.545ms`` is
printed as ``7.9251GB/s``, i.e. 268435456 B / 0.031545 s / 2**30). Times: ``ns``, ``us``, ``ms``, ``s``.
A unit outside these is an :class:`~kernelscope.errors.InputError` naming it: a scale is never guessed.

nvprof metric names are mapped to kernelscope's quantities by ``data/nvprof_metrics.toml`` (sources: the CUDA
Profiler User's Guide metrics reference and Nsight Compute's "nvprof metric comparison" table).
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from typing import Literal, Mapping

from pydantic import field_validator

from ..errors import InputError
from ..knowledge import Model, load
from ..knowledge.stalls import reasons
from ..model import PIPES, DeviceInfo, KernelProfile, LaunchConfig, ProfileReport
from .ncu_csv import open_text
from .ncu_details import function_name
from .ncu_metrics import duration_problem

FORMAT = "nvprof"

# ---------------------------------------------------------------------------------------------------------
# Units (nvprof's own spellings). Binary prefixes for bytes, see the module docstring.
_TIME_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_BYTES = {"B": 1.0, "KB": 1024.0, "MB": 1024.0**2, "GB": 1024.0**3, "TB": 1024.0**4}
_THROUGHPUT = {f"{prefix}/s": factor for prefix, factor in _BYTES.items()}
#: unit printed by nvprof -> (SI unit kept in KernelProfile.metric_units, factor)
_UNITS: dict[str, tuple[str, float]] = {
    "": ("", 1.0),
    "%": ("%", 1.0),
    **{u: ("second", f) for u, f in _TIME_S.items()},
    **{u: ("byte", f) for u, f in _BYTES.items()},
    **{u: ("byte/second", f) for u, f in _THROUGHPUT.items()},
}
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_VALUE = re.compile(rf"^({_NUMBER})\s*([A-Za-z%/]*)$")
_LEVEL = re.compile(r"^(Idle|Low|Mid|High|Max)\s*\((\d+)\)$")  # utilization levels, e.g. "Low (2)"
_NOT_AVAILABLE = {"-", "", "n/a", "N/A", "<OVERFLOW>", "nan", "NaN", "-nan", "inf", "-inf"}

# ---------------------------------------------------------------------------------------------------------
# Line patterns.
_PID = re.compile(r"^(?:==\d+==|========)\s*(.*)$")  # "==31850== ..." or "======== ..." (nvprof -i)
_DEVICE_LINE = re.compile(r'^\s*(?:==\d+==\s*)?Device\s+"(.*)"\s*$')
_KERNEL_LINE = re.compile(r"^\s*Kernel:\s*(.*?)\s*$")
_METRICS_HEADER = re.compile(r"^\s*Invocations\s+Metric Name\s+Metric Description\s+Min\s+Max\s+Avg\s*$")
_EVENTS_HEADER = re.compile(r"^\s*Invocations\s+Event Name\s+Min\s+Max\s+Avg\s+Total\s*$")
_SUMMARY_HEADER = re.compile(r"^\s*(?:Type\s+)?Time\(%\)\s+Time\s+Calls\s+Avg\s+Min\s+Max\s+Name\s*$")
_TRACE_HEADER = re.compile(r"^\s*Start\s+Duration\s+.*\bName\s*$")
_SUMMARY_ROW = re.compile(
    r"^\s*(?:(?P<type>[A-Za-z][A-Za-z ()/]*?):)?\s*(?P<pct>\S+%)\s+(?P<time>\S+)\s+(?P<calls>\d+)\s+"
    r"(?P<avg>\S+)\s+(?P<min>\S+)\s+(?P<max>\S+)\s+(?P<name>\S.*?)\s*$"
)
_METRIC_VALUE = r"(?:(?:Idle|Low|Mid|High|Max)\s*\(\d+\)|\S+)"
_METRIC_ROW = re.compile(
    rf"^\s*(?P<inv>\d+)\s+(?P<name>[A-Za-z_]\w*)\s+(?P<desc>\S.*?)\s+(?P<min>{_METRIC_VALUE})\s+"
    rf"(?P<max>{_METRIC_VALUE})\s+(?P<avg>{_METRIC_VALUE})\s*$"
)
_EVENT_ROW = re.compile(r"^\s*(?P<inv>\d+)\s+(?P<name>[A-Za-z_]\w*)\s+(?P<min>\S+)\s+(?P<max>\S+)\s+(?P<avg>\S+)\s+(?P<total>\S+)\s*$")
_DIM3 = re.compile(r"^\(\s*(\d+)\s+(\d+)\s+(\d+)\s*\)$")
_CORRELATION = re.compile(r"\s+\[\d+\]$")
_DEVICE_INDEX = re.compile(r"\s*\(\d*\)?$")  # " (0)", or " (0" where the trace cut the column
_UNITS_ROW_CELL = re.compile(r"^(?:%|[KMGT]?B(?:/s)?|ns|us|ms|s|)$")

# Trace columns: text header name / CSV header name -> key.
_TRACE_COLUMNS = {
    "Start": "start", "Duration": "duration", "Grid Size": "grid", "Block Size": "block",
    "Regs*": "regs", "Registers Per Thread": "regs", "SSMem*": "ssmem", "Static SMem": "ssmem",
    "DSMem*": "dsmem", "Dynamic SMem": "dsmem", "Device": "device", "Name": "name",
    "Grid X": "grid_x", "Grid Y": "grid_y", "Grid Z": "grid_z",
    "Block X": "block_x", "Block Y": "block_y", "Block Z": "block_z",
    "Context": "context", "Stream": "stream", "Size": "size", "Throughput": "throughput",
    "SrcMemType": "src", "DstMemType": "dst", "Correlation_ID": "correlation",
}


def read_nvprof(path: str | os.PathLike) -> ProfileReport:
    """Read the kernels of an nvprof output file (text or ``--csv``; summary, GPU trace, metrics, events).

    Args:
        path: the file (nvprof's stdout/stderr or ``--log-file``; other text around the tables is skipped).

    Returns:
        A :class:`ProfileReport` with ``format="nvprof"`` and ``tool_version=None`` (nvprof does not print
        it). Kernels in order of first appearance; with a GPU trace, one per launch (trace order). In SI units:

        * ``duration_s``: a trace row's Duration; from a summary, the **Avg** column (mean duration per launch
          over the ``Calls`` launches; ``metrics`` keeps ``calls``, ``time_total`` (s), ``time_pct`` (% of GPU
          time), ``duration_min`` / ``duration_max`` (s)).
        * metric tables give Min / Max / Avg over a kernel's invocations: every value taken is the **Avg**
          column (``metrics["invocations"]`` says how many launches it averages).
        * ``launch``: grid, block, registers and static / dynamic shared memory from a trace row (bytes).
        * ``device.display_name``: the Device column / ``Device "..."`` line without nvprof's ``" (0)"``
          index (a trace cuts long names to its column width: the name is then as printed, cut).
        * fields mapped in ``data/nvprof_metrics.toml``: ``achieved_occupancy`` (0-1) -> ``achieved_occupancy_pct``
          (x100), ``dram_read_bytes`` / ``dram_write_bytes`` (else ``dram_*_transactions`` x 32 B),
          ``flop_count_sp/dp/hp`` -> ``flop_counts`` fp32 / fp64 / fp16, ``stall_*`` -> ``stall_values`` by
          canonical reason with ``stall_family="given_percent"`` (nvprof gives percentages of stalls).
        * ``metrics``: every metric / event value under its nvprof name, converted to ``second``, ``byte``,
          ``byte/second``, ``%`` or unit-less (``metric_units``); utilization levels ("Low (2)") as the level
          0-10 (unit ``level``).
        * ``problems``: values nvprof could not give (``<OVERFLOW>``).

    Raises:
        InputError: the file is missing or unreadable; it holds no nvprof table, or only memory copies / API
            calls ("holds no ... data (...)"); a line inside a table cannot be parsed (the message gives its
            line number); a value carries a unit kernelscope does not know (the message names it).
    """
    source = os.fspath(path)
    if not os.path.exists(source):
        raise InputError(source, "file not found")
    if os.path.isdir(source):
        raise InputError(source, "is a directory, not an nvprof output file")
    parser = _Parser(source)
    try:
        with open_text(source) as fh:
            for number, line in enumerate(fh, start=1):
                parser.feed(number, line.rstrip("\r\n"))
    except OSError as exc:
        raise InputError(source, f"cannot read the file ({exc.strerror or exc})") from None
    except UnicodeError as exc:
        raise InputError(source, f"cannot decode the file as UTF-16 ({exc})") from None
    return ProfileReport(path=source, format=FORMAT, kernels=parser.kernels(), tool_version=None)


# ---------------------------------------------------------------------------------------------------------
# Metric mapping (data/nvprof_metrics.toml).


_KINDS = ("fraction", "percent", "bytes", "throughput", "count", "ratio")
_FIELDS = ("achieved_occupancy_pct", "dram_bytes_read", "dram_bytes_write")


class _Mapping(Model):
    """One ``[metric.<nvprof name>]`` table of ``data/nvprof_metrics.toml`` (keys documented there)."""

    ncu: str | None = None
    also: str | tuple[str, ...] | None = None
    kind: Literal[_KINDS]  # type: ignore[valid-type]
    field: Literal[_FIELDS] | None = None  # type: ignore[valid-type]
    scale: float = 1.0
    fallback: bool = False
    flop: Literal[PIPES] | None = None  # type: ignore[valid-type]
    stall: str | None = None

    @field_validator("stall")
    @classmethod
    def _known_reason(cls, value: str | None) -> str | None:
        if value is not None and value not in reasons():
            raise ValueError(f"unknown stall reason {value!r}")
        return value


class _NvprofMetrics(Model):
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
    value: float | None  # in SI (see _UNITS); None = not available
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


class _Parser:
    """Line-by-line state machine over one nvprof file."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.mode: str | None = None  # table being read: metrics_text, events_text, summary_text, trace_text, csv
        self.section = "gpu"  # "gpu" rows are kernels/memcpy; "api" / "other" sections are skipped
        self.device: str | None = None
        self.kernel: str | None = None
        self.trace_columns: list[tuple[str, int, int]] = []  # (header name, start, end) of a text trace
        self.csv_kind: str | None = None
        self.csv_header: list[str] = []
        self.csv_units: list[str] | None = None
        self.csv_expect_units = False
        self.by_signature: dict[tuple[str | None, str], _Entry] = {}
        self.order: list[_Entry] = []
        self.trace: list[_Entry] = []
        self.tables = 0
        self.skipped: dict[str, int] = {}  # what non-kernel rows were seen, e.g. {"memory copy": 2}

    # ------------------------------------------------------------------------------------------- errors
    def error(self, number: int, problem: str) -> InputError:
        return InputError(self.source, f"line {number}: {problem}")

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
        known = _UNITS.get(unit)
        if known is None:
            raise self.error(
                number,
                f"{what}: unknown unit {unit!r} in {raw!r} (kernelscope reads nvprof's units "
                f"{', '.join(u for u in _UNITS if u)} and unit-less numbers)",
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

    # ---------------------------------------------------------------------------------------- dispatch
    def feed(self, number: int, line: str) -> None:
        stripped = line.strip()
        pid = _PID.match(stripped)
        if pid:
            self.marker(pid.group(1))
            return
        device = _DEVICE_LINE.match(line)
        if device and self.mode in (None, "metrics_text", "events_text", "summary_text"):
            self.device = _device_name(device.group(1))
            self.kernel = None
            return
        if self.header(number, line, stripped):
            return
        if self.mode is None:
            return
        if not stripped:
            if self.mode in ("trace_text", "summary_text", "csv"):
                self.mode = None
            return
        if self.mode == "metrics_text":
            self.metrics_text(number, line)
        elif self.mode == "events_text":
            self.events_text(number, line)
        elif self.mode == "summary_text":
            self.summary_text(number, line)
        elif self.mode == "trace_text":
            self.trace_text(number, line)
        elif self.mode == "csv":
            self.csv_row(number, line)

    def marker(self, text: str) -> None:
        """A ``==PID== ...`` line: ends the current table; some name the section that follows."""
        self.mode = None
        lowered = text.lower()
        if lowered.endswith("result:") or lowered.startswith("api calls"):
            self.device = None  # a new table: a Device named before belongs to the previous one
        if lowered.startswith("profiling result") or lowered.startswith("metric result") or lowered.startswith(
            "event result"
        ):
            self.section = "gpu"
        elif lowered.startswith("api calls"):
            self.section = "api"
        elif lowered.endswith("result:") or lowered.startswith("unified memory") or lowered.startswith("openacc"):
            self.section = "other"
        device = _DEVICE_LINE.match(text)
        if device:
            self.device = _device_name(device.group(1))

    def header(self, number: int, line: str, stripped: str) -> bool:
        """Start a table when ``line`` is one of nvprof's table headers."""
        if _METRICS_HEADER.match(line):
            self.start("metrics_text")
            return True
        if _EVENTS_HEADER.match(line):
            self.start("events_text")
            return True
        if _SUMMARY_HEADER.match(line):
            self.start("summary_text")
            return True
        if _TRACE_HEADER.match(line) and "," not in line:
            self.start("trace_text")
            self.trace_columns = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", line)]
            return True
        if stripped.startswith(('"', "Time(%)", "Start,")) and "," in stripped:
            cells = _csv_cells(stripped)
            kind = _csv_kind(cells)
            if kind is not None:
                self.start("csv")
                self.csv_kind = kind
                self.csv_header = cells
                self.csv_units = None
                self.csv_expect_units = True
                return True
        return False

    def start(self, mode: str) -> None:
        self.mode = mode
        self.tables += 1
        self.kernel = None
        if mode in ("metrics_text", "events_text"):
            self.device = None

    # ------------------------------------------------------------------------------- text metric tables
    def metrics_text(self, number: int, line: str) -> None:
        kernel = _KERNEL_LINE.match(line)
        if kernel:
            self.kernel = kernel.group(1)
            return
        m = _METRIC_ROW.match(line)
        if m is None:
            raise self.error(
                number,
                "cannot read this row of the nvprof metric table (expected: invocations, metric name, "
                f"description, Min, Max, Avg): {line.strip()[:120]!r}",
            )
        if self.kernel is None:
            raise self.error(number, "metric row before any 'Kernel:' line")
        self.add_metric(number, self.entry(self.kernel, self.device), m.group("name"), m.group("avg"),
                        int(m.group("inv")))

    def events_text(self, number: int, line: str) -> None:
        kernel = _KERNEL_LINE.match(line)
        if kernel:
            self.kernel = kernel.group(1)
            return
        m = _EVENT_ROW.match(line)
        if m is None:
            raise self.error(
                number,
                "cannot read this row of the nvprof event table (expected: invocations, event name, Min, Max, "
                f"Avg, Total): {line.strip()[:120]!r}",
            )
        if self.kernel is None:
            raise self.error(number, "event row before any 'Kernel:' line")
        self.add_metric(number, self.entry(self.kernel, self.device), m.group("name"), m.group("avg"),
                        int(m.group("inv")))

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

    # ------------------------------------------------------------------------------------ text summary
    def summary_text(self, number: int, line: str) -> None:
        m = _SUMMARY_ROW.match(line)
        if m is None:
            raise self.error(
                number,
                "cannot read this row of the nvprof summary (expected: Time(%), Time, Calls, Avg, Min, Max, "
                f"Name): {line.strip()[:120]!r}",
            )
        if m.group("type") is not None:
            self.section = "gpu" if m.group("type").strip().lower() == "gpu activities" else "api"
        self.summary_row(number, m.group("name"), m.group("pct"), m.group("time"), m.group("calls"),
                         m.group("avg"), m.group("min"), m.group("max"))

    def summary_row(self, number: int, name: str, pct: str, total: str, calls: str, avg: str, low: str,
                    high: str, units: Mapping[str, str] | None = None) -> None:
        units = units or {}
        if self.section != "gpu":
            self.skip_row("API call")
            return
        if _is_memory_operation(name):
            self.skip_row("memory operation")
            return
        entry = self.entry(name, self.device)
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

    # -------------------------------------------------------------------------------------- text trace
    def trace_text(self, number: int, line: str) -> None:
        names = [c[0] for c in self.trace_columns]
        chunks = re.split(r"\s{2,}", line.strip())
        if len(chunks) > len(names):  # a name holding two spaces: the extra chunks belong to the last column
            chunks = chunks[: len(names) - 1] + ["  ".join(chunks[len(names) - 1:])]
        if len(chunks) != len(names):
            chunks = self.fixed_width(number, line)
        cells = dict(zip(names, chunks))
        self.trace_row(number, {_TRACE_COLUMNS.get(k, k): v for k, v in cells.items()}, {})

    def fixed_width(self, number: int, line: str) -> list[str]:
        """Cells by the header's column ends (columns are right-aligned to their header, Name left-aligned)."""
        cells = []
        previous = 0
        for i, (name, start, end) in enumerate(self.trace_columns):
            if i == len(self.trace_columns) - 1:
                cells.append(line[previous:].strip())
                break
            if end < len(line) and not line[end].isspace():
                raise self.error(
                    number,
                    f"cannot split this GPU-trace row into the header's columns (the {name!r} value runs past its "
                    f"column): {line.strip()[:120]!r}",
                )
            cells.append(line[previous:end].strip())
            previous = end
        return cells

    def trace_row(self, number: int, cells: Mapping[str, str], units: Mapping[str, str]) -> None:
        name = _CORRELATION.sub("", cells.get("name", "").strip())
        if not name:
            raise self.error(number, "GPU-trace row without a Name")
        grid = self.dim3(number, cells, "grid")
        if grid is None or _is_memory_operation(name):
            self.skip_row("memory operation" if _is_memory_operation(name) else "non-kernel activity")
            return
        where = f"GPU-trace row of {name[:60]}"
        entry = _Entry(signature=name, device=_device_name(cells["device"]) if cells.get("device") else None)
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
            if v.unit not in ("byte", ""):
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

    # ------------------------------------------------------------------------------------------- CSV
    def csv_row(self, number: int, line: str) -> None:
        cells = _csv_cells(line)
        if self.csv_expect_units:
            self.csv_expect_units = False
            if len(cells) == len(self.csv_header) and all(_UNITS_ROW_CELL.match(c.strip()) for c in cells) and not line.lstrip().startswith('"'):
                self.csv_units = [c.strip() for c in cells]
                return
        if len(cells) > len(self.csv_header):
            cells = _merge_unquoted_name(cells, self.csv_header)
        if len(cells) != len(self.csv_header):
            raise self.error(
                number,
                f"this CSV row has {len(cells)} fields but the table's header has {len(self.csv_header)}: "
                f"{line.strip()[:120]!r}",
            )
        row = dict(zip(self.csv_header, cells))
        units = dict(zip(self.csv_header, self.csv_units)) if self.csv_units else {}
        kind = self.csv_kind
        if kind in ("metrics", "events"):
            name_col = "Metric Name" if kind == "metrics" else "Event Name"
            try:
                invocations = int(row["Invocations"])
            except ValueError:
                raise self.error(number, f"Invocations {row['Invocations']!r} is not a whole number") from None
            entry = self.entry(row["Kernel"], _device_name(row["Device"]))
            self.add_metric(number, entry, row[name_col], row["Avg"], invocations)
        elif kind == "summary":
            if "Type" in row:
                self.section = "gpu" if row["Type"].strip().lower() == "gpu activities" else "api"
            self.summary_row(
                number, row["Name"], row["Time(%)"], row["Time"], row["Calls"], row["Avg"], row["Min"], row["Max"],
                {"pct": units.get("Time(%)", ""), "time": units.get("Time", ""), "avg": units.get("Avg", ""),
                 "min": units.get("Min", ""), "max": units.get("Max", "")},
            )
        else:  # trace
            keyed = {_TRACE_COLUMNS.get(k, k): v for k, v in row.items()}
            keyed_units = {_TRACE_COLUMNS.get(k, k): v for k, v in units.items()}
            self.trace_row(number, keyed, keyed_units)

    # ----------------------------------------------------------------------------------------- result
    def kernels(self) -> tuple[KernelProfile, ...]:
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
            if self.tables == 0:
                raise InputError(
                    self.source,
                    "holds no nvprof data (no summary, GPU trace, metric or event table found; expected nvprof's "
                    "text or --csv output)",
                )
            seen = ", ".join(f"{n} {what} row(s)" for what, n in sorted(self.skipped.items())) or "no rows"
            raise InputError(self.source, f"holds no kernel data (its nvprof tables list {seen}, no kernel)")
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


def _csv_cells(line: str) -> list[str]:
    try:
        return next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return []


def _merge_unquoted_name(cells: list[str], header: list[str]) -> list[str]:
    """Rejoin a kernel signature that nvprof wrote unquoted (``red_sor(float*, float*)``) and the CSV split.

    Only the column holding the kernel (``Name`` or ``Kernel``) can contain commas; the extra fields are put
    back into it, with the commas they were split at.
    """
    column = next((i for i, h in enumerate(header) if h.strip() in ("Name", "Kernel")), None)
    if column is None:
        return cells
    extra = len(cells) - len(header)
    return cells[:column] + [",".join(cells[column:column + extra + 1])] + cells[column + extra + 1:]


def _csv_kind(cells: list[str]) -> str | None:
    names = [c.strip() for c in cells]
    if names[:4] == ["Device", "Kernel", "Invocations", "Metric Name"] and "Avg" in names:
        return "metrics"
    if names[:4] == ["Device", "Kernel", "Invocations", "Event Name"] and "Avg" in names:
        return "events"
    core = ["Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"]
    if names[:7] == core or names[:8] == ["Type", *core]:
        return "summary"
    if names[:2] == ["Start", "Duration"] and "Name" in names:
        return "trace"
    return None


def _device_name(text: str) -> str | None:
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
    for k, v in fallback_fields.items():
        fields.setdefault(k, v)
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
        achieved_occupancy_pct=fields.get("achieved_occupancy_pct"),
        stall_values=stalls,
        stall_family="given_percent" if stalls else None,
        metrics=entry.metrics,
        metric_units=entry.units,
        problems=tuple(entry.problems),
        launch_count=int(entry.metrics.get("calls") or entry.metrics.get("invocations") or 1),
    )


_KIND_UNITS = {
    "fraction": ("", "%"), "percent": ("%", ""), "bytes": ("byte", ""), "throughput": ("byte/second",),
    "count": ("",), "ratio": ("", "level"),
}


def _convert(source: str, entry: _Entry, name: str, m: _Mapping, value: float) -> float:
    """A mapped metric's value in the unit of the field it fills (fraction -> percent)."""
    unit = entry.units.get(name, "")
    if unit not in _KIND_UNITS[m.kind]:
        raise InputError(
            source,
            f"{entry.signature[:60]}: metric {name} has unit {unit or 'none'!r}, expected "
            f"{' or '.join(repr(u or 'none') for u in _KIND_UNITS[m.kind])} for a {m.kind}",
        )
    if m.kind == "fraction" and unit == "":
        return value * 100.0
    return value



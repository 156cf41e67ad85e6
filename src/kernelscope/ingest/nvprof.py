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

This module finds the tables and splits their rows into cells; :mod:`.nvprof_kernels` reads the values (in the
units above: :data:`.units.NVPROF_UNITS`), merges the kernels seen in several tables and maps nvprof metric
names to kernelscope's quantities (``data/nvprof_metrics.toml``).
"""

from __future__ import annotations

import csv
import os
import re
from typing import Mapping

from ..model import Measurement, ProfileReport
from .columns import Columns, split_on_gaps
from .files import check_file, open_text, reading
from .nvprof_kernels import Kernels, device_name
from .units import NVPROF_UNITS

FORMAT = "nvprof"

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

#: Trace columns: text header name / CSV header name -> key.
TRACE_COLUMNS = {
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
        * ``compute_breakdown_pct`` / ``memory_breakdown_pct``: each utilisation level mapped in
          ``data/nvprof_metrics.toml`` (``breakdown``: ``l1_shared_utilization``, ``dram_utilization``, the
          ``*_fu_utilization`` pipes ...) as level x 10 % of its unit's peak, an approximation stated in ``problems``.
        * ``problems``: values nvprof could not give (``<OVERFLOW>``).

    Raises:
        InputError: the file is missing or unreadable; it holds no nvprof table, or only memory copies / API
            calls ("holds no ... data (...)"); a line inside a table cannot be parsed (the message gives its
            line number); a value carries a unit kernelscope does not know (the message names it).
    """
    source = os.fspath(path)
    check_file(source, "an nvprof output file")
    parser = _Parser(source)
    with reading(source), open_text(source) as fh:
        for number, line in enumerate(fh, start=1):
            parser.feed(number, line.rstrip("\r\n"))
    return ProfileReport(path=source, format=FORMAT, kernels=parser.kernels.profiles(parser.tables), tool_version=None,
                         measurement=Measurement(tool="nvprof"))


class _Parser:
    """Line-by-line state machine over one nvprof file."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.mode: str | None = None  # table being read: metrics_text, events_text, summary_text, trace_text, csv
        self.section = "gpu"  # "gpu" rows are kernels/memcpy; "api" / "other" sections are skipped
        self.device: str | None = None
        self.kernel: str | None = None
        self.trace_columns = Columns([])  # the columns of a text trace, under its header's names
        self.csv_kind: str | None = None
        self.csv_header: list[str] = []
        self.csv_units: list[str] | None = None
        self.csv_expect_units = False
        self.tables = 0
        self.kernels = Kernels(source)  # what the rows say, by kernel
        self.error = self.kernels.error

    # ---------------------------------------------------------------------------------------- dispatch
    def feed(self, number: int, line: str) -> None:
        stripped = line.strip()
        pid = _PID.match(stripped)
        if pid:
            self.marker(pid.group(1))
            return
        device = _DEVICE_LINE.match(line)
        if device and self.mode in (None, "metrics_text", "events_text", "summary_text"):
            self.device = device_name(device.group(1))
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
            self.device = device_name(device.group(1))

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
            self.trace_columns = Columns.under_names(line)
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
        self.kernels.add_metric(number, self.kernels.entry(self.kernel, self.device), m.group("name"),
                                m.group("avg"), int(m.group("inv")))

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
        self.kernels.add_metric(number, self.kernels.entry(self.kernel, self.device), m.group("name"),
                                m.group("avg"), int(m.group("inv")))

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

    def summary_row(self, number: int, name: str, *cells: str, units: Mapping[str, str] | None = None) -> None:
        """A summary row (text or CSV): kernels and memory operations of the GPU-activities section; API calls
        and other sections are skipped."""
        if self.section != "gpu":
            self.kernels.skip_row("API call")
            return
        self.kernels.summary_row(number, name, self.device, *cells, units=units)

    # -------------------------------------------------------------------------------------- text trace
    def trace_text(self, number: int, line: str) -> None:
        names = self.trace_columns.names or ()
        chunks = split_on_gaps(line, len(names), min_gap=2)  # a name holding two spaces stays one cell (the last)
        if len(chunks) != len(names):
            chunks = self.fixed_width(number, line)
        cells = dict(zip(names, chunks))
        self.kernels.trace_row(number, {TRACE_COLUMNS.get(k, k): v for k, v in cells.items()}, {})

    def fixed_width(self, number: int, line: str) -> list[str]:
        """Cells by the header's column ends (columns are right-aligned to their header, Name left-aligned)."""
        crossed = self.trace_columns.crossing(line)
        if crossed is not None:
            name = (self.trace_columns.names or ())[crossed]
            raise self.error(
                number,
                f"cannot split this GPU-trace row into the header's columns (the {name!r} value runs past its "
                f"column): {line.strip()[:120]!r}",
            )
        return self.trace_columns.cut(line)

    # ------------------------------------------------------------------------------------------- CSV
    def csv_row(self, number: int, line: str) -> None:
        cells = _csv_cells(line)
        if self.csv_expect_units:
            self.csv_expect_units = False
            if (len(cells) == len(self.csv_header) and all(c.strip() in NVPROF_UNITS for c in cells)
                    and not line.lstrip().startswith('"')):
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
            entry = self.kernels.entry(row["Kernel"], device_name(row["Device"]))
            self.kernels.add_metric(number, entry, row[name_col], row["Avg"], invocations)
        elif kind == "summary":
            if "Type" in row:
                self.section = "gpu" if row["Type"].strip().lower() == "gpu activities" else "api"
            self.summary_row(
                number, row["Name"], row["Time(%)"], row["Time"], row["Calls"], row["Avg"], row["Min"], row["Max"],
                units={"pct": units.get("Time(%)", ""), "time": units.get("Time", ""), "avg": units.get("Avg", ""),
                       "min": units.get("Min", ""), "max": units.get("Max", "")},
            )
        else:  # trace
            keyed = {TRACE_COLUMNS.get(k, k): v for k, v in row.items()}
            keyed_units = {TRACE_COLUMNS.get(k, k): v for k, v in units.items()}
            self.kernels.trace_row(number, keyed, keyed_units)


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

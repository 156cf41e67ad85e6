"""Reader for the human-readable console output of ``ncu`` (Nsight Compute CLI without ``--csv``).

The file is read line by line (streaming). What it understands, as the CLI prints it (2019.x .. 2025.x)::

    ==PROF== Connected to process 5341 (/path/app)
    ==PROF== Profiling "row_sums" - 0: 0%....50%....100% - 9 passes      <- app output may be spliced in here
    [5341] app@127.0.0.1                                                  <- process block
      row_sums(const float *, float *, unsigned long), 2022-Jun-02 19:46:33, Context 1, Stream 7
      kern(float *) (32, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 8.6      <- newer header
        NVTX Start/End Ranges:                                            <- skipped (indented block)
          <default domain>
        Section: GPU Speed Of Light Throughput
        ---------------------------------------------------------------------- --------------- ---------------
        Metric Name                                                            Metric Unit     Metric Value   <- newer
        ---------------------------------------------------------------------- --------------- ---------------
        DRAM Frequency                                                           cycle/nsecond            5.96
        ---------------------------------------------------------------------- --------------- ---------------
        WRN   Memory is more heavily utilized than Compute: Look at the ... (wrapped over several lines,
              continuation lines indented further)
        OPT   Est. Speedup: 26.08%                                        <- newer: speedup on the first line
              This kernel's theoretical occupancy ...

Each table row is ``(section, label, unit, value)`` as printed; columns are cut at the separator line's
column boundaries (they fit the widest cell of each column), shifted for a table whose rows sit a few columns right
of its separator (each table finds its own layout on its first row). Rows go to
:func:`kernelscope.ingest.ncu_details.profile_from_details`, which maps display labels back to Nsight metric
names (``data/ncu_details.toml``) and reads ``--metrics`` printouts (section "Command line profiler metrics",
labels = metric names) by metric name, with the unit checks of the ``.ncu-rep`` reader. ``--print-summary``
tables (Minimum / Maximum / Average columns) give their Average column.

Rule messages (``WRN`` / ``INF`` / ``OPT`` / ``ERR``) become :class:`~kernelscope.model.RuleResult`. The console
does not print rule identifiers: the Speed-of-Light bottleneck and roofline rules are recognised by their
fixed wording (as stored by Nsight Compute 2021.2 .. 2025.1 in the corpus reports) and get their identifier
(``SOLBottleneck`` / ``SOLFPRoofline``) and title; every other rule keeps an empty identifier and title.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..model import KernelProfile, Measurement, ProfileReport, RuleResult
from .columns import Columns
from .files import check_file, open_text, reading
from .ncu_details import MetricRow, profile_from_details
from .nsight_rules import message_type

FORMAT = "ncu-text"

_ATTR = r"(?:\d{4}-[A-Za-z]{3}-\d{1,2} \d{1,2}:\d{2}:\d{2}|Context \d+|Stream \d+|Device \d+|CC \d+\.\d+|Invocations \d+)"
_KERNEL_HEADER = re.compile(
    r"^ {2,4}(?P<sig>\S.*?)"
    r"(?: \((?P<grid>\d+, \d+, \d+)\)x\((?P<block>\d+, \d+, \d+)\))?"
    rf"(?P<attrs>(?:, {_ATTR})+)\s*$"
)
_DEVICE_GROUP = re.compile(r"^ {2}Device (?P<device>\d+), CC (?P<cc>\d+\.\d+)\s*$")  # --print-summary grouping
_CC = re.compile(r", CC (\d+\.\d+)")
_INVOCATIONS = re.compile(r"Invocations (\d+)")
_PROCESS = re.compile(r"^\[\d+\] \S.*$")
_TOOL_LINE = re.compile(r"^==(PROF|ERROR|WARNING|WARN|INFO)==\s*(.*)$")
_SECTION = re.compile(r"^ {4,6}Section: (?P<name>.+?)\s*$")
_SEPARATOR = re.compile(r"^\s*-{3,}(?: +-{3,})*\s*$")
_RULE = re.compile(r"^(?P<indent> {4,6})(?P<type>WRN|INF|OPT|ERR|WARN|INFO|ERROR)(?: +(?P<text>\S.*?))?\s*$")
_RULE_SPEEDUP = re.compile(r"^Est\. (?:(?P<kind>Local|Global) )?Speedup: (?P<value>[\d.,]+)%\s*(?P<rest>.*)$")
_NVTX = re.compile(r"^ {4,6}NVTX\b.*:\s*$")
#: The most columns a table's rows may sit right of its separator (C22: two).
_MAX_TABLE_SHIFT = 8

# The Speed-of-Light rules, recognised by the fixed start of their messages: (rule id, title, prefixes).
_KNOWN_RULES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("SOLBottleneck", "High Memory Throughput", ("Memory is more heavily utilized than Compute",)),
    ("SOLBottleneck", "High Compute Throughput", ("Compute is more heavily utilized than Memory",)),
    ("SOLBottleneck", "Small Grid", ("This kernel grid is too small to fill", "This workload grid is too small")),
    ("SOLBottleneck", "High Throughput", ("The kernel is utilizing greater than", "This workload is utilizing greater than")),
    ("SOLBottleneck", "Latency Issue", ("This kernel exhibits low compute throughput and memory bandwidth",
                                        "This workload exhibits low compute throughput and memory bandwidth")),
    ("SOLBottleneck", "Balanced Throughput", ("Compute and Memory are well-balanced",)),
    ("SOLFPRoofline", "Roofline Analysis", ("The ratio of peak float",)),
)
_SOL_SECTIONS = {"gpu speed of light throughput", "gpu speed of light", "speedoflight"}


def read_ncu_text(path: str | os.PathLike) -> ProfileReport:
    """Read every kernel result of an ``ncu`` console printout (the default, non-CSV output).

    Args:
        path: the file (``ncu ... > out.txt``; application output and ``==PROF==`` lines around the results
            are skipped).

    Returns:
        A :class:`ProfileReport` with ``format="ncu-text"``, ``tool_version=None`` (the printout does not say)
        and one :class:`KernelProfile` per kernel result, in file order; the fields as
        :func:`~kernelscope.ingest.ncu_details.profile_from_details` reads them (SI units, None = not
        printed), grid / block / compute capability from the kernel line when it has them. The console
        prints no device name: ``device.display_name`` is None unless a ``device__attribute_display_name``
        row gives it. For a ``--print-summary`` printout the values are the Average over the kernel's
        invocations (said in ``problems``).

    Raises:
        InputError: the file is missing or unreadable; it holds no kernel result (the message quotes what
            ``ncu`` said, e.g. ``==WARNING== No kernels were profiled.``); a table row cannot be split into
            the table's columns, or a mapped value has a unit or text kernelscope cannot convert (the message
            gives the line number).
    """
    source = os.fspath(path)
    check_file(source, "an Nsight Compute console output file")
    parser = _Parser(source)
    kernels: list[KernelProfile] = []
    with reading(source), open_text(source) as fh:
        for number, line in enumerate(fh, start=1):
            done = parser.feed(number, line.rstrip("\r\n"))
            if done is not None:
                kernels.append(_profile(source, len(kernels), done))
    last = parser.finish(at_end=True)
    if last is not None:
        kernels.append(_profile(source, len(kernels), last))
    if not kernels:
        said = f"; ncu said: {' / '.join(parser.tool_messages[-3:])}" if parser.tool_messages else ""
        raise InputError(
            source,
            key="ncu_text_no_kernels", values={"said": said},
        )
    return ProfileReport(path=source, format=FORMAT, kernels=tuple(kernels), tool_version=None,
                         measurement=Measurement(tool="ncu"))


@dataclass
class _Rule:
    section: str
    type: str
    lines: list[str]
    line: int
    indent: int = 4


@dataclass
class _Kernel:
    signature: str
    line: int
    grid: str | None = None
    block: str | None = None
    cc: str | None = None
    invocations: int | None = None
    rows: list[MetricRow] = field(default_factory=list)
    rules: list[_Rule] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class _Parser:
    """Line-by-line state machine; :meth:`feed` returns a kernel when its block is complete."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.kernel: _Kernel | None = None
        self.section = ""
        self.table: Columns | None = None  # the columns of the open table
        self.table_layout: str | None = None  # "value" (3 columns), "summary" (min/max/avg) or "skip"
        self.table_rows = 0
        self.table_shift = 0  # columns the open table's rows sit right of its separator (found on its first row)
        self.header_seen = False  # the table's "Metric Name / Metric Unit / ..." row was read
        self.header_pending = False  # ... and the separator under it is still to come
        self.rule: _Rule | None = None
        self.in_nvtx = False
        self.nvtx_indent = 4
        self.group_cc: str | None = None  # CC of a "  Device 0, CC 9.0" group line (--print-summary)
        self.tool_messages: list[str] = []

    def error(self, number: int, problem: str) -> InputError:
        return InputError(self.source, key="line_problem", values={"number": number, "problem": problem})

    def finish(self, at_end: bool = False) -> _Kernel | None:
        self.end_rule()
        if at_end and self.kernel is not None and self.table is not None:
            self.kernel.problems.append(
                f"the file ends inside the table of section '{self.section or '?'}' (cut short?): its rows after "
                "the cut are missing"
            )
        self.table = None
        kernel, self.kernel = self.kernel, None
        return kernel

    def feed(self, number: int, line: str) -> _Kernel | None:
        tool = _TOOL_LINE.match(line)
        if tool:
            if tool.group(1) != "PROF":
                self.tool_messages.append(line.strip()[:160])
            if self.table is not None:
                raise self.error(number, f"an ncu message interrupts the table of section '{self.section}'")
            return self.finish()
        if self.table is None:
            group = _DEVICE_GROUP.match(line)
            if group:
                done = self.finish()
                self.group_cc = group.group("cc")
                return done
            header = _kernel_header(line)
            if header is not None:
                done = self.finish()
                self.start_kernel(number, header)
                return done
            if _PROCESS.match(line):
                self.group_cc = None
                return self.finish()
        if self.kernel is None:
            return None  # application output, process lines, anything before a kernel result
        return self.kernel_line(number, line)

    def start_kernel(self, number: int, m: re.Match[str]) -> None:
        attrs = m.group("attrs")
        cc = _CC.search(attrs)
        self.kernel = _Kernel(signature=m.group("sig").strip(), line=number, grid=m.group("grid"),
                              block=m.group("block"), cc=cc.group(1) if cc else self.group_cc)
        invocations = _INVOCATIONS.search(attrs)
        if invocations:
            self.kernel.invocations = int(invocations.group(1))
        self.section = ""
        self.table = None
        self.rule = None
        self.in_nvtx = False

    # ----------------------------------------------------------------------------------- kernel block
    def kernel_line(self, number: int, line: str) -> _Kernel | None:
        kernel = self.kernel
        assert kernel is not None
        stripped = line.strip()
        if self.table is not None:
            self.table_line(number, line, stripped)
            return None
        if not stripped:
            self.end_rule()
            return None
        indent = len(line) - len(line.lstrip(" "))
        section = _SECTION.match(line)
        if section:
            self.end_rule()
            self.in_nvtx = False
            self.section = section.group("name")
            return None
        if _SEPARATOR.match(line):
            self.end_rule()
            self.in_nvtx = False
            columns = Columns.under_dashes(line)
            if len(columns) >= 3:  # a metric table; 2-column separators sit between rule messages
                self.table = columns
                self.table_layout = "value" if len(columns) == 3 else None
                self.table_rows = 0
                self.table_shift = 0
                self.header_seen = self.header_pending = False
            return None
        if _NVTX.match(line):
            self.end_rule()
            self.in_nvtx = True
            self.nvtx_indent = indent
            return None
        if self.in_nvtx and indent > self.nvtx_indent:
            return None
        self.in_nvtx = False
        rule = _RULE.match(line)
        if rule:
            self.end_rule()
            self.rule = _Rule(self.section, rule.group("type"), [rule.group("text") or ""], number,
                              len(rule.group("indent")))
            return None
        if self.rule is not None and indent > self.rule.indent:
            self.rule.lines.append(stripped)
            return None
        if indent < 2:  # text at the margin: application output after the results, the block is over
            return self.finish()
        return None  # other indented text (e.g. rule tables of newer versions): not read

    def end_rule(self) -> None:
        if self.rule is not None and self.kernel is not None:
            self.kernel.rules.append(self.rule)
        self.rule = None

    # ------------------------------------------------------------------------------------------ tables
    def table_line(self, number: int, line: str, stripped: str) -> None:
        kernel = self.kernel
        columns = self.table
        assert kernel is not None and columns is not None
        if _SEPARATOR.match(line):
            if self.header_pending:  # the separator under the header row: the table goes on
                self.header_pending = False
                return
            self.table = None
            return
        if not stripped:
            return
        cells = self.cells(number, line, columns)
        if self.table_rows == 0 and not self.header_seen and _is_header(cells):
            self.table_layout = _layout(cells)
            self.header_seen = self.header_pending = True
            return
        self.table_rows += 1
        if self.table_layout not in ("value", "summary"):
            if self.table_rows == 1:
                kernel.problems.append(
                    f"line {number}: a {len(columns)}-column table of section '{self.section or '?'}' was not read "
                    "(kernelscope reads name / unit / value tables and --print-summary min / max / average tables)"
                )
            return
        name, unit = cells[0], cells[1]
        value = cells[4] if self.table_layout == "summary" else cells[2]
        kernel.rows.append(MetricRow(self.section, name, unit, value, number))

    def cells(self, number: int, line: str, columns: Columns) -> list[str]:
        """Split a row at the separator's column boundaries (:class:`.columns.Columns`).

        Labels are left-aligned, units and values right-aligned in their column; two columns are parted by
        the space between the separator's dash runs. Each table finds its own layout: when its first row is
        indented past the separator and ends as far past the last column (the whole table printed a few columns
        to the right, as some ncu versions print the rows of a section), every row of that table is cut with
        the boundaries shifted by that much. A label longer than its column pushes the rest of the row to the
        right: the boundaries after the first column are then tried shifted by the overflow. A row whose text
        still crosses a boundary (or that stops before its last column) cannot be split without guessing:
        InputError with its line.
        """
        first = columns.marks[0][0]
        if line[:first].strip() or not line[first:].strip():
            raise self.error(
                number,
                f"expected a row of the table of section '{self.section or '?'}' (indented like its separator), "
                f"got {line.strip()[:120]!r}",
            )
        overflow = len(line.rstrip()) - columns.marks[-1][1]
        indent = len(line) - len(line.lstrip(" ")) - first
        if self.table_rows == 0 and 0 < indent == overflow <= _MAX_TABLE_SHIFT:
            self.table_shift = indent  # the first row: the table's rows sit this far right of its separator
        shifts = dict.fromkeys(s for s in (self.table_shift, 0, overflow) if s >= 0 and (s == 0 or s <= overflow))
        for shift in shifts:
            if len(line) > columns.boundaries[-1] + shift and columns.crossing(line, shift) is None:
                return columns.cut(line, shift)
        raise self.error(
            number,
            f"cannot split this row of section '{self.section or '?'}' into the table's {len(columns)} columns "
            f"(text crosses a column boundary): {line.strip()[:120]!r}",
        )


def _kernel_header(line: str) -> re.Match[str] | None:
    """The kernel result line, or None. Its attributes must name the launch (Context + Stream) or a
    ``--print-summary`` group (Invocations), so that application output is not taken for a kernel."""
    m = _KERNEL_HEADER.match(line)
    if m is None:
        return None
    attrs = m.group("attrs")
    if ("Context " in attrs and "Stream " in attrs) or "Invocations " in attrs:
        return m
    return None


def _is_header(cells: list[str]) -> bool:
    return len(cells) >= 3 and cells[0] == "Metric Name" and cells[1] == "Metric Unit"


def _layout(cells: list[str]) -> str:
    """Layout of a table from its header row."""
    if len(cells) == 3 and cells[2] == "Metric Value":
        return "value"
    if len(cells) == 5 and [c.lower() for c in cells[2:]] == ["minimum", "maximum", "average"]:
        return "summary"
    return "skip"


def _rule_result(rule: _Rule) -> RuleResult | None:
    text = " ".join(" ".join(rule.lines).split())
    speedup = speedup_type = None
    m = _RULE_SPEEDUP.match(text)
    if m:
        try:
            speedup = float(m.group("value").replace(",", ""))
        except ValueError:
            speedup = None
        speedup_type = (m.group("kind") or "").lower() or None
        text = m.group("rest").strip()
    if not text:
        return None
    rule_id = title = ""
    if rule.section.strip().lower() in _SOL_SECTIONS:
        for known_id, known_title, prefixes in _KNOWN_RULES:
            if text.startswith(prefixes):
                rule_id, title = known_id, known_title
                break
    return RuleResult(rule_id=rule_id, title=title, message_type=message_type(rule.type), message=text,
                      estimated_speedup_pct=speedup, speedup_type=speedup_type)


def _profile(source: str, index: int, kernel: _Kernel) -> KernelProfile:
    rules = tuple(r for r in (_rule_result(rule) for rule in kernel.rules) if r is not None)
    problems = list(kernel.problems)
    if kernel.invocations is not None:
        problems.append(
            f"values are averages over {kernel.invocations} invocations (ncu --print-summary), not one launch"
        )
    return profile_from_details(
        index, kernel.signature, kernel.rows, source, cc=kernel.cc, grid=kernel.grid, block=kernel.block,
        extra={"rules": rules, "problems": problems, "launch_count": kernel.invocations or 1},
    )

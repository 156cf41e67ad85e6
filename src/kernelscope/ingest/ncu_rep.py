"""Reader for Nsight Compute report files (``.ncu-rep``), through NVIDIA's ``ncu_report`` module.

Only extraction and unit conversion happen here (no roofline, no classification): every profiled
result of the report becomes one :class:`~kernelscope.model.KernelProfile` in SI units.

Facts about the file format this reader relies on (checked on the 22 reports of the shared corpus,
Nsight Compute 2021.2 .. 2026.2):

* ``ncu_report.load_report`` does not raise on an empty, truncated or foreign file: it returns a context
  with 0 ranges, or for a cut file whatever it managed to parse, which depends on where the cut falls (none
  at all when a source block is cut, even with complete results before it; sometimes the complete results
  plus a nameless, metric-less partial one). So a truncated file is never handed to it. A ``.ncu-rep`` is
  ``b"NVR\\0"``, a little-endian ``uint32`` length and a ``FileHeader`` protobuf message, then blocks of
  ``uint32 length + BlockHeader`` (protobuf: field 1 = number of sources, 2 = number of results,
  5 = payload size) each followed by its payload. Walking those headers tells an intact file (the walk ends
  exactly at end of file) from a truncated one, without reading the payloads. Each result has a block of
  its own, so the results complete before a cut are those whose block ends before it.
* Corrupted bytes inside a payload are not detected by ``ncu_report``: it loads the file and hands over
  what it parsed, e.g. metric names that are not valid UTF-8 (as strings with lone surrogates, which its
  own ``metric_by_name`` then rejects with a TypeError). Such metrics are skipped and counted in
  ``problems``; any other failure while reading a result makes the whole file an InputError.
* The version of Nsight Compute that wrote the report is not exposed by ``ncu_report``
  (``IContext.get_version()`` is the version of the ``ncu_report`` module itself). It is stored as text,
  ``"2023.1.1.0 (build 32678585) (public-release)"``, in one of the block headers.
* Launch metrics (``launch__*``) are doubles in older reports and integers in newer ones; they are read
  by value kind.
* A result whose measurement failed stores NaN for its hardware metrics (e.g.
  ``bwd29__self-join-MiSTIC__profileHIGGS.out.ncu-rep``, 486 of 678 metrics NaN); sections not collected
  (``--set`` / ``--section``) simply have no metrics.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from ..errors import InputError
from ..knowledge.metrics import instructions, request
from ..model import KernelProfile, ProfileReport, RuleResult

from .files import check_file, native_name
from .measurement import ncu_rep_measurement
from .ncu_metrics import profile_from_metrics
from .ncu_rep_file import scan_container
from .ncu_rep_probe import await_probe
from .nsight_rules import message_type as _message_type

FORMAT = "ncu-rep"


_SPEEDUP_TYPES = {1: "local", 2: "global"}



def read_ncu_rep(path: str | os.PathLike) -> ProfileReport:
    """Read every profiled kernel of an Nsight Compute report (``.ncu-rep``).

    Args:
        path: the report file.

    Returns:
        A :class:`ProfileReport` with ``format="ncu-rep"``, ``tool_version`` = the Nsight Compute version
        that wrote the file (e.g. ``"2023.1.1"``; None when the file does not say), ``measurement`` = how it
        measured (replay mode, cache and clock control, from its command line, settings and clock status:
        :func:`kernelscope.ingest.measurement.ncu_rep_measurement`) and one
        :class:`KernelProfile` per profiled result, in report order (ranges, then results). In SI units:
        ``duration_s`` (s, from ``gpu__time_duration.sum``), ``sm_frequency_hz`` (Hz), DRAM bytes (bytes),
        device clocks (Hz, from the ``*_khz`` attributes), L2 / shared-memory sizes (bytes), bus width
        (bits); percentages 0-100.

        ``flop_counts`` (FLOP) holds "fp64" / "fp32" / "fp16" only when the three counters (add, mul, fma)
        of that precision were collected: from ``sm__sass_thread_inst_executed_op_*_pred_on.sum``, or, as
        the roofline sections store them, from ``smsp__sass_thread_inst_executed_op_*_pred_on.sum.
        per_cycle_elapsed`` x ``smsp__cycles_elapsed.avg`` (or x ``smsp__cycles_elapsed.avg.per_second``
        x duration). These are thread-level SASS instruction counts; FMA = 2 FLOP; FP16 follows Nsight
        Compute's own roofline (SpeedOfLight_HierarchicalHalfRooflineChart section): HADD2 / HMUL2 = 2 and
        HFMA2 = 4 FLOP per thread instruction (two half lanes).

        ``tensor_pipe_active_pct`` is ``sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active``,
        else ``sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active``, else
        ``sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed``. ``tensor_pipe_op_active_pct``
        splits it by MMA instruction kind: hmma -> "fp16_tensor" (HMMA also runs the BF16 / TF32 MMAs),
        imma -> "int8_tensor", dmma -> "fp64_tensor", from ``sm__pipe_tensor_op_<kind>_cycles_active.avg.
        pct_of_peak_sustained_active``, else ``sm__inst_executed_pipe_tensor_op_<kind>.avg.
        pct_of_peak_sustained_active`` (Hopper's warpgroup MMAs, counted together as ``..._op_gmma``, are
        not split). ``stall_values`` /
        ``stall_family`` come from :func:`kernelscope.stalls.stall_values_from_metrics`.

        ``metrics`` holds the finite numeric values of the metrics kernelscope requests (``data/metrics.toml``
        ``[request]``: exact names and name prefixes; not the per-instance values) in Nsight's own units
        (``metric_units``); the rest of the report's metrics are not read. NaN / infinite values are left out and counted in ``problems``; a field
        whose metric is NaN or absent (section not collected) is None, never 0. ``rules`` holds the stored
        rule results with Nsight's link markup (``@section:Id:text@``, ``@url:text:link@``) turned into
        plain text; results that carry no message at all are left out. Metrics that ``ncu_report`` cannot
        read (a corrupted report: e.g. names that are not valid UTF-8) are skipped and counted in
        ``problems``; text with bytes that are not valid UTF-8 gets U+FFFD in their place.

    Raises:
        InputError: the file does not exist; ``ncu_report`` is not installed; the file is empty, truncated
            (the message gives the number of results complete before the cut) or not an Nsight Compute
            report; ``ncu_report`` fails on it (a corrupted report; the message says what failed); it holds
            no profiled kernels; a metric the reader converts has a unit it does not know (the message
            names the metric and the unit).
    """
    source = os.fspath(path)
    check_file(source, "an Nsight Compute report (.ncu-rep) file")
    try:
        import ncu_report  # noqa: PLC0415 - optional dependency, imported only when a report is read
    except ImportError:
        raise InputError(source, key="ncu_report_missing") from None

    try:
        container = scan_container(source, clock_status=True)
    except OSError as exc:
        raise InputError(source, key="ncu_rep_cannot_read", values={"value": exc.strerror or exc}) from None
    if container.empty:
        raise InputError(source, key="ncu_rep_empty")

    if container.truncated:
        # Not handed to ncu_report: what it returns for a cut file varies with where the cut falls (nothing
        # when a source block is cut, sometimes the complete results plus a nameless partial one), so the
        # count comes from the block walk: results whose block lies wholly before the cut.
        raise InputError(
            source,
            key="ncu_rep_truncated_after" if container.complete_results else "ncu_rep_truncated_none",
                values={"truncated": container.truncated, "complete_results": container.complete_results},
        )
    context, actions, native_said = _load(ncu_report, source)
    origins = _origins(context)
    if not actions:
        if container.foreign:
            raise InputError(source, key="ncu_rep_foreign", values={"foreign": container.foreign})
        if container.intact and container.results == 0:
            raise InputError(
                source,
                key="ncu_rep_zero_results",
            )
        found = f"its block headers announce {container.results} result(s) but " if container.results else ""
        said = f"; the reader said: {native_said}" if native_said else ""
        raise InputError(
            source, key="ncu_rep_no_results", values={"found": found, "said": said}
        )

    req = _Request()
    kernels = tuple(_read_result(source, index, action, req, origins[index] if index < len(origins) else None)
                    for index, action in enumerate(actions))
    if len(origins) == len(actions):
        _RECENT[:] = [(_identity(source), context, dict(zip(origins, actions)))]
    measurement = ncu_rep_measurement(container.cmdline, container.settings, container.clock_status,
                                      container.range_results)
    return ProfileReport(path=source, format=FORMAT, kernels=kernels, tool_version=container.version,
                         measurement=measurement)


#: The report read last: (file identity, its ncu_report context, origin -> parsed action). Kept so that the
#: per-instruction data of its launches (``kernelscope.ingest.ncu_source``) is read without parsing the file and
#: its results again (~2 ms per result); one report at a time.
_RECENT: list[tuple[tuple, Any, dict[tuple[int, int], Any]]] = []


def _identity(source: str) -> tuple:
    """What identifies a file's content cheaply: its resolved path, size and modification time."""
    st = os.stat(source)
    return (os.path.realpath(source), st.st_size, st.st_mtime_ns)


def recent_actions(source: str) -> tuple[Any, dict[tuple[int, int], Any]] | None:
    """``(context, origin -> action)`` of the report last read by :func:`read_ncu_rep` when ``source`` is that
    same file, unchanged; else None."""
    if not _RECENT:
        return None
    try:
        identity = _identity(source)
    except OSError:
        return None
    key, context, actions = _RECENT[0]
    return (context, actions) if key == identity else None


# ---------------------------------------------------------------------------------------------------------
# Loading through ncu_report.


@contextmanager
def _native_output_captured() -> Iterator[list[str]]:
    """Send what native code writes to fd 1 / fd 2 into a temporary file; the list gets it on exit."""
    captured: list[str] = []
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    try:
        saved = (os.dup(1), os.dup(2))
    except OSError:  # no standard descriptors to protect
        yield captured
        return
    with tempfile.TemporaryFile() as sink:
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield captured
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            captured.append(sink.read(4000).decode("utf-8", "replace"))


def _load(ncu_report: Any, source: str) -> tuple[Any, list[Any], str]:
    """``(context, actions in report order, what the native reader printed)``. A report on which NVIDIA's reader
    would abort the process is an InputError instead (see :func:`probe_reports`)."""
    await_probe(source)
    try:
        with _native_output_captured() as said:
            context = ncu_report.load_report(native_name(source))
            actions = []
            for r in range(context.num_ranges()):
                rng = context.range_by_idx(r)
                for j in range(rng.num_actions()):
                    actions.append(rng.action_by_idx(j))
    except Exception as exc:  # noqa: BLE001 - native loader: any failure means an unreadable file
        detail = " ".join(str(exc).split())[:200]
        raise InputError(
            source, key="ncu_rep_reader_failed", values={"name": type(exc).__name__, "detail": detail}
        ) from exc
    native = " ".join("".join(said).split())
    native = re.sub(r"^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR ", "",
                    native)
    return context, actions, native[:200]


def _origins(context: Any) -> list[tuple[int, int]]:
    """``(range index, action index)`` of every action, in the order :func:`_load` lists them."""
    try:
        return [(r, j) for r in range(context.num_ranges()) for j in range(context.range_by_idx(r).num_actions())]
    except Exception:  # noqa: BLE001 - _load walked the same ranges; without origins nothing is read per instruction
        return []


# ---------------------------------------------------------------------------------------------------------
# One result -> KernelProfile.


class _Request:
    """The metrics read of each result (``data/metrics.toml`` ``[request]``), and the unit of every metric name
    seen so far in this report: a metric's unit is fixed by its definition in the report, so it is read once per
    report, not once per result (checked on every metric of the 22 corpus reports, Nsight Compute 2021.2 .. 2026.2:
    no name has two units within one report)."""

    def __init__(self) -> None:
        req = request()
        self.opcodes = OPCODES in req.names  # a table (one instance per opcode): read by _opcodes, not as a value
        self.names = frozenset(req.names) - {OPCODES}
        self.prefixes = tuple(req.prefixes)
        self.units: dict[str, str] = {}
        self._wanted: dict[tuple[str, ...], list[str]] = {}  # results of one report mostly share their metric list
        self._per_instruction: dict[tuple[str, ...], tuple[str, ...]] = {}

    def per_instruction(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The per-instruction metrics among ``names`` (``data/metrics.toml`` ``[instructions]``), in their order;
        empty without an anchor (``inst_executed``, ``smsp__pcsamp_sample_count``). Names only: no value is read."""
        found = self._per_instruction.get(names)
        if found is None:
            found = self._per_instruction[names] = instructions().held(names)
        return found

    def wanted(self, names: tuple[str, ...]) -> list[str]:
        """The requested names among ``names``, in their order."""
        found = self._wanted.get(names)
        if found is None:
            found = self._wanted[names] = [n for n in names if n in self.names or n.startswith(self.prefixes)]
        return found


class _Metrics:
    """The requested metrics of one action as read through ``ncu_report`` (values, units, strings, and what could
    not be read); their conversion into a KernelProfile is :func:`.ncu_metrics.profile_from_metrics`."""

    def __init__(self, action: Any, req: _Request) -> None:
        self.values: dict[str, float] = {}
        self.units: dict[str, str] = {}
        self.nonfinite: list[str] = []
        self.strings: dict[str, str] = {}
        self.unreadable: list[tuple[str, str]] = []  # (name made printable, why) of metrics that failed to read
        names = tuple(action.metric_names())
        self.names = names  # every metric the result holds (the per-instruction ones are listed from these)
        try:
            "".join(names).encode("utf-8")  # one check for all names; per name only when one is corrupted
        except UnicodeEncodeError:
            bad = [n for n in names if not _is_utf8(n)]
            self.unreadable += [(_printable(n), "UnicodeError: the metric name is not valid UTF-8") for n in bad]
            names = tuple(n for n in names if _is_utf8(n))
            self.names = names
        kinds: tuple[set[int], set[int], set[int]] | None = None
        for name in req.wanted(names):
            try:
                metric = action.metric_by_name(name)
                if metric is None or not metric.has_value():
                    continue
                if kinds is None:
                    cls = type(metric)
                    kinds = (_kind_set(cls, "ValueKind_UINT32", "ValueKind_UINT64"),
                             _kind_set(cls, "ValueKind_DOUBLE", "ValueKind_FLOAT"),
                             _kind_set(cls, "ValueKind_STRING"))
                integer_kinds, float_kinds, string_kinds = kinds
                kind = metric.kind()
                if kind in integer_kinds:
                    value = float(metric.as_uint64())
                elif kind in float_kinds:
                    value = float(metric.as_double())
                else:
                    if kind in string_kinds:
                        text = metric.as_string()
                        if text is not None:
                            self.strings[name] = _printable(str(text))
                    continue
                if not math.isfinite(value):
                    self.nonfinite.append(name)
                    continue
                unit = req.units.get(name)
                if unit is None:
                    unit = req.units[name] = _printable(metric.unit() or "")
            except Exception as exc:  # noqa: BLE001 - a corrupted metric: skipped and reported, never fatal
                self.unreadable.append((_printable(str(name)), f"{type(exc).__name__}: {_one_line(exc)}"))
                continue
            self.values[name] = value
            self.units[name] = unit


def _is_utf8(text: str) -> bool:
    """False for a string holding lone surrogates (how SWIG hands over bytes that are not valid UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable(text: str) -> str:
    """``text`` with bytes that were not valid UTF-8 replaced by U+FFFD (safe to print and to write as JSON)."""
    if _is_utf8(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that does not stand for one byte
        raw = text.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def _one_line(exc: BaseException) -> str:
    return _printable(" ".join(str(exc).split()))[:200]


def _kind_set(metric_cls: Any, *names: str) -> set[int]:
    return {getattr(metric_cls, n) for n in names if metric_cls is not None and hasattr(metric_cls, n)}


def _read_result(source: str, index: int, action: Any, req: _Request | None = None,
                 origin: tuple[int, int] | None = None) -> KernelProfile:
    """:func:`_kernel`, with any failure of ``ncu_report`` on a corrupted result turned into an InputError."""
    try:
        return _kernel(source, index, action, req or _Request(), origin)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - native reader on a corrupted result: any failure, one clean error
        raise InputError(
            source,
            key="ncu_rep_result_failed", values={"index": index, "name": type(exc).__name__, "exc": _one_line(exc)},
        ) from None


def _kernel(source: str, index: int, action: Any, req: _Request | None = None,
            origin: tuple[int, int] | None = None) -> KernelProfile:
    name = _name(action, None)
    demangled = _name(action, "NameBase_DEMANGLED") or name
    mangled = _name(action, "NameBase_MANGLED")
    req = req or _Request()
    m = _Metrics(action, req)
    if name is None and demangled is None and not m.values:  # what ncu_report hands over for a damaged result
        raise InputError(source, key="ncu_rep_result_damaged", values={"index": index})
    name = name or f"kernel_{index}"
    demangled = demangled or name

    problems: list[str] = []
    if m.nonfinite:
        total = len(m.nonfinite) + len(m.values)
        shown = ", ".join(sorted(m.nonfinite)[:3])
        problems.append(
            f"{len(m.nonfinite)} of {total} numeric metrics are NaN (not measured, e.g. {shown}); "
            "the fields read from them are left unmeasured"
        )
    if m.unreadable:
        if all(why.startswith("UnicodeError") for _, why in m.unreadable):
            problems.append(f"{len(m.unreadable)} metrics could not be read (corrupted names)")
        else:
            name_, why = next((n, w) for n, w in m.unreadable if not w.startswith("UnicodeError"))
            problems.append(
                f"{len(m.unreadable)} metrics could not be read (corrupted names or values, e.g. {name_}: {why})"
            )
    workload = _workload_kind(action)
    if workload is not None:
        problems.append(f"this result profiles a {workload}, not a single kernel launch")
    rules, bad_rules = _rules(action)
    if bad_rules:
        problems.append(f"{bad_rules} stored rule result(s) could not be read (corrupted data)")

    # Metric name -> KernelProfile fields (units, FLOPs, tensor pipes, stalls): shared with the CSV readers.
    profile = profile_from_metrics(
        index, name, demangled, mangled, m.values, m.units, rules, source, problems, strings=m.strings
    )
    # where the launch is in the file, and which per-instruction metrics it holds (names only: read on request). Set
    # on the profile just built, before anyone sees it: dataclasses.replace would copy its eight mappings again.
    object.__setattr__(profile, "origin", origin)
    object.__setattr__(profile, "instruction_metrics", req.per_instruction(m.names))
    if req.opcodes and OPCODES in m.names:
        object.__setattr__(profile, "opcode_counts", _opcodes(action))
    return profile


#: Instruction Statistics: warp instructions executed per SASS opcode, one instance per opcode.
OPCODES = "sass__inst_executed_per_opcode"


def _opcodes(action: Any) -> dict[str, float]:
    """SASS opcode -> warp instructions executed (:data:`OPCODES`, its instances keyed by the opcode); empty when the
    table cannot be read (a corrupted result keeps the rest of its metrics)."""
    try:
        metric = action.metric_by_name(OPCODES)
        ids = metric.correlation_ids()
        out = {}
        for i in range(metric.num_instances()):
            name, value = _printable(str(ids.as_string(i))), float(metric.as_double(i))
            if name and math.isfinite(value):
                out[name] = out.get(name, 0.0) + value
        return out
    except Exception:  # noqa: BLE001 - a damaged table: no opcode mix, never a failed read
        return {}


def _name(action: Any, base: str | None) -> str | None:
    try:
        text = action.name() if base is None else action.name(getattr(action, base))
    except Exception:  # noqa: BLE001 - missing name base in an old ncu_report
        return None
    text = _printable(str(text or "")).strip()
    return text or None


def _workload_kind(action: Any) -> str | None:
    """None for a kernel launch; otherwise what the result covers (range, graph, command list)."""
    try:
        kind = action.workload_type()
    except Exception:  # noqa: BLE001 - older ncu_report without workload types: kernels only
        return None
    names = {"WorkloadType_RANGE": "range of launches", "WorkloadType_GRAPH": "CUDA graph",
             "WorkloadType_CMDLIST": "command list", "WorkloadType_SUBGRID_SCHEDULE": "subgrid schedule"}
    for attr, text in names.items():
        if hasattr(action, attr) and kind == getattr(action, attr):
            return text
    return None


# ---------------------------------------------------------------------------------------------------------
# Rule results.

_LINK_URL = re.compile(r"@url:([^:@]*):([^@\s]+)@")
_LINK_SOURCE = re.compile(r"@source:[^@]*?:\d+:([^@]*)@")
_LINK_OTHER = re.compile(r"@(?:section|sass|metric|table|chart):[^:@]*:([^@]*)@")


def _plain(text: str) -> str:
    """Nsight's rule markup -> plain text (as ``ncu --csv`` prints it)."""
    text = _printable(text)
    text = _LINK_URL.sub(lambda mt: f"{mt.group(1)} ({mt.group(2)})" if mt.group(1) else mt.group(2), text)
    text = _LINK_SOURCE.sub(r"\1", text)
    text = _LINK_OTHER.sub(r"\1", text)
    return " ".join(text.split())


def _rules(action: Any) -> tuple[tuple[RuleResult, ...], int]:
    """(the stored rule results, how many could not be read)."""
    try:
        if hasattr(action, "rule_results_as_dicts"):
            dicts = list(action.rule_results_as_dicts())
        else:
            dicts = [_rule_dict(r) for r in action.rule_results()]
    except Exception:  # noqa: BLE001 - a report without rule data
        return (), 0
    out: list[RuleResult] = []
    bad = 0
    for d in dicts:
        try:
            out.extend(_rule_results(d))
        except Exception:  # noqa: BLE001 - a corrupted rule result: skipped and counted
            bad += 1
    return tuple(out), bad


def _rule_results(d: Mapping[str, Any]) -> list[RuleResult]:
    """The RuleResults of one stored rule (one per message); raises on malformed data."""
    out: list[RuleResult] = []
    rule_id = _printable(str(d.get("rule_identifier") or ""))
    rule_name = _printable(str(d.get("name") or rule_id))
    speedup, speedup_type = _speedup(d.get("speedup_estimation"))
    messages = d.get("rule_message")
    if isinstance(messages, Mapping) or messages is None:
        messages = [messages or {}]
    tables = d.get("result_tables") or []
    if isinstance(tables, Mapping):
        tables = [tables]
    for msg in messages:
        text = _plain(str(msg.get("message") or ""))
        if not text and tables:
            text = _plain("; ".join(
                " ".join(str(t.get(k) or "") for k in ("title", "description")).strip()
                for t in tables if isinstance(t, Mapping)
            ))
        if not text:
            continue  # the rule ran but stored nothing to say
        out.append(
            RuleResult(
                rule_id=rule_id,
                title=_plain(str(msg.get("title") or "")) or rule_name,
                message_type=_message_type(msg.get("type")),
                message=text,
                estimated_speedup_pct=speedup,
                speedup_type=speedup_type,
            )
        )
    return out


def _rule_dict(rule: Any) -> dict[str, Any]:
    """Fallback for ``ncu_report`` versions without ``rule_results_as_dicts``."""
    d: dict[str, Any] = {
        "rule_identifier": rule.rule_identifier(),
        "name": rule.name(),
        "rule_message": rule.rule_message(),
    }
    if rule.has_speedup_estimation():
        d["speedup_estimation"] = rule.speedup_estimation()
    return d


def _speedup(estimation: Any) -> tuple[float | None, str | None]:
    if not isinstance(estimation, Mapping):
        return None, None
    value = estimation.get("speedup")
    try:
        value = float(value) if value is not None else None
    except (TypeError, ValueError):
        value = None
    if value is not None and not math.isfinite(value):
        value = None
    kind = estimation.get("type")
    if isinstance(kind, int):
        speedup_type = _SPEEDUP_TYPES.get(kind)
    else:
        text = str(kind or "").lower()
        speedup_type = "local" if "local" in text else "global" if "global" in text else None
    return value, speedup_type

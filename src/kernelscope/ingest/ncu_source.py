"""Per-instruction data of ``.ncu-rep`` launches (Nsight Compute's Source page), read on request.

:func:`~kernelscope.ingest.ncu_rep.read_ncu_rep` lists which per-instruction metrics each launch holds
(``KernelProfile.instruction_metrics``, names only) and where the launch is in its file (``KernelProfile.origin``);
:func:`read_instructions` reads their values into one :class:`~kernelscope.model.InstructionTable` per launch.

Facts about the data this reader relies on (checked on the 10 corpus reports that hold it, Nsight Compute 2023.1 ..
2026.2, through ``ncu_report``):

* A per-instruction metric has one instance per SASS instruction it covers, and correlation ids: instance ``i``'s
  ``correlation_ids().as_uint64(i)`` is the instruction's PC, ``as_double(i)`` its value. Each metric covers its own
  set of PCs (memory metrics only the memory instructions, sampling metrics only the sampled ones), so the table's
  rows are the union. A read costs about 1.7 us per instance (value + PC): only the metrics asked for are read.
* ``source_info(pc)`` gives the file and line the instruction was compiled from (None without ``nvcc -lineinfo``;
  about 2 us); ``source_files()`` maps file -> text when the report embeds it (``ncu --import-source yes``).
* ``sass_by_pc(pc)`` disassembles: about 0.4 ms a PC, and the first call of a report loads its module's SASS
  (up to 0.4 s), so only the PCs that will be shown are disassembled.
* ``source_markers()`` lists the marks Nsight's rules put on instructions (dicts with ``rule_identifier``,
  ``message``, ``message_type`` 1 INFO / 2 OPTIMIZATION / 3 WARNING / 4 ERROR, and ``source_address``, the PC, as
  an integer or its text).
* ``launch__function_pcs`` instance 0 is the function's first PC.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, TypeVar

from ..errors import InputError
from ..model import InstructionTable, InstructionValues, KernelProfile, SourceMarker
from .files import check_file, native_name
from .ncu_rep import _name, _native_output_captured, _one_line, _plain, _printable, recent_actions
from .ncu_rep_file import scan_container
from .nsight_rules import message_type

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

#: How to collect per-instruction data (the options a message names).
HOW_TO_COLLECT = (
    "collect it with `ncu --section SourceCounters` (or `--set full`; both include the instruction sampling), add "
    "`--import-source yes` to embed the source text, and compile with `nvcc -lineinfo` for file and line"
)
#: The per-instruction metrics that rank instructions for ``sass="top"``, best first.
RANKING = ("smsp__pcsamp_sample_count", "inst_executed")


def no_instruction_data(source: str, kernel: KernelProfile) -> InputError:
    """The error for a launch without per-instruction data: which launch, and the options that collect it."""
    return InputError(source, key="no_instruction_data",
                      values={"index": kernel.index, "name": kernel.name, "how_to_collect": HOW_TO_COLLECT})


def read_instructions(
    path: str | os.PathLike,
    launches: Iterable[KernelProfile],
    metrics: Iterable[str] | None = None,
    sass: str | Iterable[int] = "top",
    top: int = 10,
    also: Mapping[int, Iterable[int]] | None = None,
) -> list[InstructionTable]:
    """Read the per-instruction metrics of launches of one ``.ncu-rep`` file (opened once for all of them).

    Args:
        path: the report the launches were read from (:func:`~kernelscope.ingest.ncu_rep.read_ncu_rep`).
        launches: the launches, each with its ``origin`` and ``instruction_metrics``.
        metrics: the per-instruction metrics to read (Nsight names); None: every one the launch holds
            (``instruction_metrics``). A name the launch does not hold is left out of its table.
        sass: which instructions to disassemble: ``"top"`` the ``top`` rows with the most
            ``smsp__pcsamp_sample_count`` samples (else the most ``inst_executed``, else the first ``top`` rows; ties
            by PC), ``"all"`` every row, or an iterable of PCs (``()``: none). About 0.4 ms per instruction.
        top: how many rows ``sass="top"`` disassembles.
        also: with ``sass="top"``, per launch index, PCs disassembled besides the top rows (the instructions a
            diagnosis's findings point to, whose rows a view shows too).

    Returns:
        One :class:`~kernelscope.model.InstructionTable` per launch, in the given order: rows = the union of the
        PCs the read metrics cover, in PC order; ``columns`` float64 arrays in Nsight's units (counts: samples,
        instructions, thread instructions, sectors, wavefronts; ``derived__avg_thread_executed`` threads per
        instruction), NaN where a metric has no value at a PC; ``file``/``line`` from ``-lineinfo`` for every row;
        SASS text (whitespace stripped) for the rows asked for; the embedded source files; Nsight's source markers.

    Raises:
        InputError: a launch has no ``origin`` or no per-instruction metrics (the message names it and the
            collection options: ``--section SourceCounters`` or ``--set full``, ``--import-source yes``,
            ``nvcc -lineinfo``); the file is missing, empty, truncated, not a report or no longer holds the launch
            where it was; ``ncu_report`` is not installed or fails on the file (one line saying what failed).
        ValueError: ``sass`` is a string other than ``"top"`` / ``"all"``.
    """
    source = os.fspath(path)
    if isinstance(sass, str) and sass not in ("top", "all"):
        raise ValueError(f"sass must be 'top', 'all' or PCs, got {sass!r}")
    wanted = None if metrics is None else tuple(dict.fromkeys(metrics))

    def table(kernel: KernelProfile, action: Any) -> InstructionTable:
        names = kernel.instruction_metrics if wanted is None else [n for n in wanted if n in kernel.instruction_metrics]
        return _table(action, names, sass, top, (also or {}).get(kernel.index, ()))

    return _each(source, list(launches), table)


def read_instruction_values(path: str | os.PathLike, launches: Sequence[KernelProfile],
                            metrics: Sequence[Iterable[str]]) -> list[InstructionValues]:
    """Chosen per-instruction metrics of launches of one ``.ncu-rep`` file, as plain {PC: value} maps (no NumPy, no
    source lines, no SASS: the cheap read behind locating a diagnosis's findings).

    Args:
        path: the report the launches were read from.
        launches: the launches, each with its ``origin``.
        metrics: per launch (same order), the metrics to read; a name the launch does not hold is left out.

    Raises:
        InputError: as :func:`read_instructions`.
    """
    wanted = dict(zip((k.index for k in launches), (tuple(m) for m in metrics)))

    def values(kernel: KernelProfile, action: Any) -> InstructionValues:
        names = [n for n in wanted[kernel.index] if n in kernel.instruction_metrics]
        read = _instances(action, names)
        return InstructionValues(_function_pc(action), {n: dict(zip(pcs, vals)) for n, (pcs, vals) in read.items()})

    return _each(os.fspath(path), list(launches), values)


def read_source_lines(path: str | os.PathLike, launches: Sequence[KernelProfile],
                      pcs: Sequence[Iterable[int]]) -> list[dict[int, tuple[str | None, int | None]]]:
    """The source file and 1-based line of chosen instructions of launches of one ``.ncu-rep`` file (``-lineinfo``;
    ``(None, None)`` where the report has none).

    Args:
        path: the report; launches: the launches (each with its ``origin``); pcs: per launch, the PCs.

    Raises:
        InputError: as :func:`read_instructions`.
    """
    wanted = dict(zip((k.index for k in launches), (tuple(p) for p in pcs)))

    def lines(kernel: KernelProfile, action: Any) -> dict[int, tuple[str | None, int | None]]:
        out: dict[int, tuple[str | None, int | None]] = {}
        for pc in wanted[kernel.index]:
            where = action.source_info(pc)
            name = None if where is None else where.file_name()
            out[pc] = (_printable(str(name)), max(int(where.line() or 0), 0) or None) if name else (None, None)
        return out

    return _each(os.fspath(path), list(launches), lines)


def _each(source: str, launches: list[KernelProfile], read: Callable[[KernelProfile, Any], T]) -> list[T]:
    """``read(launch, its ncu_report result)`` for each launch, from the report just loaded when it is still in
    memory (:func:`~kernelscope.ingest.ncu_rep.recent_actions`), else from the file opened once; a failure of
    ``ncu_report`` on a corrupted result becomes one InputError line."""
    for k in launches:
        if k.origin is None or not k.instruction_metrics:
            raise no_instruction_data(source, k)
    if not launches:
        return []
    recent = recent_actions(source)  # the report just loaded: its results are parsed already
    context, parsed = recent if recent is not None else (_open(source), {})
    out = []
    for k in launches:
        try:
            out.append(read(k, _action(source, context, k, parsed.get(k.origin))))  # type: ignore[arg-type]
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - native reader on a corrupted result: any failure, one clean error
            raise InputError(
                source,
                key="ncu_rep_source_launch_failed",
                    values={"index": k.index, "name": type(exc).__name__, "exc": _one_line(exc)},
            ) from None
    del context  # the actions are views into it: keep it alive until here
    return out


def _open(source: str) -> Any:
    """The ``ncu_report`` context of an intact report.

    Raises:
        InputError: see :func:`read_instructions`.
    """
    check_file(source, "an Nsight Compute report (.ncu-rep) file")
    try:
        import ncu_report  # noqa: PLC0415 - optional dependency, imported only when a report is read
    except ImportError:
        raise InputError(source, key="ncu_report_missing") from None
    try:
        container = scan_container(source)
    except OSError as exc:
        raise InputError(source, key="ncu_rep_cannot_read", values={"value": exc.strerror or exc}) from None
    if container.empty:
        raise InputError(source, key="ncu_rep_empty")
    if container.truncated:
        raise InputError(source, key="ncu_rep_truncated", values={"truncated": container.truncated})
    if container.foreign:
        raise InputError(source, key="ncu_rep_foreign", values={"foreign": container.foreign})
    try:  # only the context: ncu_report parses a result when it is first asked for (action_by_idx, ~2 ms each)
        with _native_output_captured():
            return ncu_report.load_report(native_name(source))
    except Exception as exc:  # noqa: BLE001 - native loader: any failure means an unreadable file
        raise InputError(source, key="ncu_rep_source_failed",
            values={"name": type(exc).__name__, "exc": _one_line(exc)}) from None


def _action(source: str, context: Any, kernel: KernelProfile, action: Any = None) -> Any:
    """The launch's result in the report (``action``: already parsed), checked to still be that launch."""
    assert kernel.origin is not None
    r, j = kernel.origin
    if action is None and r < context.num_ranges() and j < context.range_by_idx(r).num_actions():
        action = context.range_by_idx(r).action_by_idx(j)
    found = None if action is None else _name(action, None)
    if action is None or (found is not None and found != kernel.name):
        raise InputError(source, key="ncu_rep_launch_moved",
            values={"index": kernel.index, "name": kernel.name, "r": r, "j": j})
    return action


def _table(action: Any, names: Sequence[str], sass: str | Iterable[int], top: int,
           also: Iterable[int] = ()) -> InstructionTable:
    import numpy as np  # noqa: PLC0415 - NumPy only where per-instruction data is read

    read = {name: (np.array(pcs, dtype=np.uint64), np.array(values, dtype=np.float64))
            for name, (pcs, values) in _instances(action, names).items()}
    pc = np.unique(np.concatenate([p for p, _ in read.values()])) if read else np.empty(0, dtype=np.uint64)
    columns = {}
    for name, (pcs, values) in read.items():
        column = np.full(len(pc), np.nan)
        column[np.searchsorted(pc, pcs)] = values
        columns[name] = column
    files, lines = _lines(action, pc)
    return InstructionTable(
        function_pc=_function_pc(action), pc=pc, columns=columns, file=files, line=lines,
        sass=_sass(action, _sass_pcs(pc, columns, sass, top, also)), sources=_sources(action), markers=_markers(action),
    )


def _instances(action: Any, names: Sequence[str]) -> dict[str, tuple[list[int], list[float]]]:
    """Metric name -> (PCs, values) of the metrics in ``names`` that have correlation ids."""
    out = {}
    for name in names:
        metric = action.metric_by_name(name)
        if metric is None or not metric.has_correlation_ids():
            continue
        n = metric.num_instances()
        ids = metric.correlation_ids()
        out[name] = (list(map(ids.as_uint64, range(n))), list(map(metric.as_double, range(n))))
    return out


def _lines(action: Any, pc: "np.ndarray") -> tuple[tuple[str | None, ...], "np.ndarray"]:
    """Per PC: its source file (None when unknown) and 1-based line (0 when unknown)."""
    import numpy as np  # noqa: PLC0415

    files: list[str | None] = []
    lines = np.zeros(len(pc), dtype=np.int64)
    info = action.source_info
    names: dict[str, str] = {}  # one printable copy per file name
    for i, address in enumerate(pc.tolist()):
        where = info(address)
        name = None if where is None else where.file_name()
        if not name:
            files.append(None)
            continue
        files.append(names.setdefault(name, _printable(str(name))))
        lines[i] = max(int(where.line() or 0), 0)
    return tuple(files), lines


def _function_pc(action: Any) -> int | None:
    metric = action.metric_by_name("launch__function_pcs")
    if metric is None:
        return None
    if metric.has_correlation_ids() and metric.num_instances() > 0:
        return int(metric.as_uint64(0))
    return int(metric.as_uint64()) if metric.has_value() else None


def _sass_pcs(pc: "np.ndarray", columns: dict[str, "np.ndarray"], sass: str | Iterable[int], top: int,
              also: Iterable[int] = ()) -> list[int]:
    """The PCs to disassemble (see :func:`read_instructions`; ``also``: more with ``"top"``)."""
    import numpy as np  # noqa: PLC0415

    if sass == "all":
        return pc.tolist()
    have = set(pc.tolist())
    if isinstance(sass, str):  # "top", then the PCs of ``also`` it does not hold
        rank = next((columns[m] for m in RANKING if m in columns), None)
        order = np.arange(len(pc)) if rank is None else np.lexsort((pc, -np.nan_to_num(rank, nan=-np.inf)))
        chosen = pc[order[:top]].tolist()
        return chosen + [int(p) for p in dict.fromkeys(also) if int(p) in have and int(p) not in chosen]
    return [int(p) for p in sass if int(p) in have]


def _sass(action: Any, pcs: list[int]) -> dict[int, str]:
    out = {}
    for p in pcs:
        text = action.sass_by_pc(p)
        if text:
            out[p] = _printable(" ".join(str(text).split()))
    return out


def _sources(action: Any) -> dict[str, str]:
    try:
        files = action.source_files()
    except Exception:  # noqa: BLE001 - an ncu_report without embedded sources
        return {}
    return {_printable(str(k)): _printable(str(v)) for k, v in dict(files).items() if v}  # "": not imported


def _markers(action: Any) -> tuple[SourceMarker, ...]:
    """Nsight's source markers; a malformed one is skipped."""
    try:
        raw = list(action.source_markers())
    except Exception:  # noqa: BLE001 - an ncu_report without source markers
        return ()
    out = []
    for d in raw:
        try:
            kind = d.get("message_type")
            kind = int(kind) if isinstance(kind, str) and kind.strip().isdigit() else kind
            out.append(SourceMarker(rule_id=_printable(str(d.get("rule_identifier") or "")),
                                    pc=int(str(d.get("source_address")), 0), message=_plain(str(d.get("message") or "")),
                                    message_type=message_type(kind)))
        except (TypeError, ValueError, AttributeError):
            continue
    return tuple(out)

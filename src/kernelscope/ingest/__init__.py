"""Readers: one module per input format, each producing :class:`kernelscope.model.ProfileReport`.

:func:`load` detects the format of a file and calls its reader. No analysis happens here.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
from pathlib import Path

from ..errors import InputError
from ..notes import Listed
from ..knowledge.plausibility import screen
from ..model import ProfileReport
from .files import check_file, read_head

#: First bytes of every Nsight Compute report file.
NCU_REP_MAGIC = b"NVR\x00"

#: Input format ids, as ``--input-format`` takes them ("auto" = detect).
FORMATS: tuple[str, ...] = ("ncu-rep", "ncu-csv", "ncu-text", "nvprof", "plain")

#: How much of a text file detection reads.
SNIFF_BYTES = 256 * 1024

_NCU_MESSAGES = ("==PROF==", "==ERROR==", "==WARNING==", "==WARN==", "==INFO==")


def detect_format(path: str | os.PathLike) -> str:
    """Input format id of a file, from its first bytes (then its extension).

    ``.ncu-rep``: the ``NVR`` signature (or the extension). ``ncu-csv``: a CSV header row whose first field
    is ``ID`` with a "Kernel Name" column, anywhere in the first 256 KiB (ncu's messages and the
    application's output may precede it); also a file of ncu messages only (a failed run, e.g. only
    ``==ERROR==`` lines), or a ``.csv`` file with ncu messages, so that its reader says why it holds no
    data. ``ncu-text``: ncu console output (indented ``Section:`` lines with ``==PROF==``,
    ``[pid] process@host`` or kernel header lines). ``nvprof``: ``==pid== NVPROF is profiling`` /
    ``Profiling result:`` lines (also ``========`` from ``nvprof -i``), or an nvprof ``--csv`` header
    (``Time(%)`` ... ``Name``; ``Device,Kernel,Invocations``; ``Start,Duration`` traces). ``plain``:
    ``.toml`` / ``.json``. ``input_format`` / ``--input-format`` overrides detection.

    Raises:
        InputError: file missing, unreadable, empty, or of a format kernelscope does not recognise.
    """
    p = Path(path)
    head = read_head(path, SNIFF_BYTES, "a profiler report (an Nsight Compute .ncu-rep or CSV export, ncu or nvprof "
                                        "output, or a plain-numbers .toml/.json file)")
    if head[:4] == NCU_REP_MAGIC or p.suffix == ".ncu-rep":
        return "ncu-rep"
    timeline = _timeline_kind(p, head)
    if timeline is not None:
        raise InputError(str(path), f"is {timeline}, a program timeline: use `kernelscope timeline`",
                         key="is_timeline", values={"kind": timeline})
    if p.suffix.lower() in (".toml", ".json"):
        return "plain"
    encoding = "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"  # UTF-16: PowerShell's ">"
    kind = _sniff_text(head, encoding)
    binary = encoding == "utf-8" and b"\x00" in head
    if kind in (None, "ncu-messages") and len(head) == SNIFF_BYTES and not binary:
        kind = _sniff_further(p, encoding) or kind  # a long application output before the export
    if kind in ("ncu-csv-header", "ncu-messages-only"):
        return "ncu-csv"
    if kind in ("ncu-text", "nvprof"):
        return kind
    if kind == "ncu-messages" and p.suffix.lower() == ".csv":
        return "ncu-csv"
    from .nsys_stats import looks_like_nsys_stats

    if looks_like_nsys_stats(head):
        raise InputError(str(path), "is `nsys stats` output, a program timeline: use `kernelscope timeline`",
                         key="is_nsys_stats")
    raise InputError(
        str(path),
        "unrecognised input format; expected an Nsight Compute report (.ncu-rep, starting with 'NVR'), an "
        "`ncu --csv` export (a header row starting with \"ID\"), ncu console text, nvprof output, or a "
        "plain-numbers .toml/.json file; if it is one of these, name its format with --input-format",
        key="unrecognised_format",
    )


def _timeline_kind(p: Path, head: bytes) -> str | None:
    """What a program timeline given to ``diagnose`` is ("an Nsight Systems SQLite export", ...), or None when the
    file is not one (by its first bytes and name: SQLite, Nsight Systems reports, PyTorch profiler traces)."""
    name = p.name.lower()
    if head.startswith(_SQLITE_MAGIC):
        return "an Nsight Systems SQLite export"
    if p.suffix.lower() in (".nsys-rep", ".qdrep"):
        return "an Nsight Systems report (export it with `nsys export --type sqlite FILE`)"
    if head[:2] == b"\x1f\x8b" or head[257:262] == b"ustar" or name.endswith((".json.gz", ".tar.gz", ".tgz", ".tar")):
        return "a compressed trace or an archive (PyTorch profiler traces)"
    if _JSON_START.match(head) and b'"traceEvents"' in head:
        return "a PyTorch profiler (Chrome) trace"
    return None


_NCU_SECTION = re.compile(r"^\s+Section: \S")
_NCU_PROCESS = re.compile(r"^\s*\[\d+\] \S+@\S+\s*$")
_NVPROF_LINE = re.compile(r"^(?:==\d+==|========) (?:NVPROF is profiling|Profiling application:|Profiling result:|"
                          r"Metric result:|Event result:)")
# An ncu kernel header line: "name(args), <date>, Context 1, Stream 7" or "name (grid)x(block), Device 0, CC 8.6[, Invocations N]".
_NCU_KERNEL_LINE = re.compile(r"^\s{0,4}\S.*(?:, Context \d+, Stream \d+|, Device \d+, CC \d+\.\d+(?:, Invocations \d+)?)\s*$")


#: How far detection reads on when the first SNIFF_BYTES of a text file show nothing it knows.
SNIFF_FURTHER_BYTES = 64 * 1024 * 1024


def _sniff_further(p: Path, encoding: str) -> str | None:
    """Detection past the first SNIFF_BYTES (an export after a long application output), up to
    SNIFF_FURTHER_BYTES, chunk by chunk: the first chunk that shows an ncu CSV header, ncu console text or
    nvprof output names the format."""
    carry = b""
    try:
        with p.open("rb") as fh:
            fh.seek(SNIFF_BYTES)
            while fh.tell() < SNIFF_FURTHER_BYTES:
                chunk = fh.read(SNIFF_BYTES)
                if not chunk:
                    return None
                kind = _sniff_text(carry + chunk, encoding, cut=len(chunk) == SNIFF_BYTES)
                if kind in ("ncu-csv-header", "ncu-text", "nvprof"):
                    return kind
                if kind == "ncu-messages" and p.suffix.lower() == ".csv":
                    return kind
                cut = chunk.rfind(b"\n")
                carry = chunk[cut + 1:] if cut >= 0 and encoding == "utf-8" else b""
    except OSError:
        return None
    return None


def _sniff_text(head: bytes, encoding: str = "utf-8", cut: bool | None = None) -> str | None:
    """What the first bytes of a text file look like: "ncu-csv-header" (a row whose first field is ``ID`` with a
    "Kernel Name" column), "ncu-text" (ncu console output: indented ``Section:`` lines with ``==PROF==`` or
    ``[pid] process@host`` lines), "nvprof" (``==pid== NVPROF is profiling`` ..., or an nvprof ``--csv`` header),
    "ncu-messages-only" (nothing but ncu's ``==PROF==`` / ``==ERROR==`` ... lines), "ncu-messages" (such lines
    among other text) or None."""
    text = head.decode(encoding, "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if (len(head) == SNIFF_BYTES if cut is None else cut) and lines:
        lines = lines[:-1]  # the last line may be cut
    messages = other = sections = processes = kernel_lines = 0
    nvprof = False
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(_NCU_MESSAGES):
            messages += 1
            continue
        other += 1
        if stripped.startswith(('"ID"', "ID,", '"Process ID"', "Process ID,")):
            fields = _csv_fields(line)
            if fields and fields[0] == "ID" and "Kernel Name" in fields:
                return "ncu-csv-header"
            if "Kernel Name" in fields and "Metric Name" in fields and "Average" in fields:
                return "ncu-csv-header"  # ncu --csv --print-summary per-kernel
        elif _NCU_SECTION.match(line):
            sections += 1
        elif _NCU_KERNEL_LINE.match(line):
            kernel_lines += 1
        elif _NCU_PROCESS.match(line):
            processes += 1
        elif _NVPROF_LINE.match(stripped):
            nvprof = True
        elif stripped.startswith(('"Time(%)"', "Time(%),", '"Type","Time(%)"', "Type,Time(%)",
                                  '"Device","Kernel","Invocations"', "Device,Kernel,Invocations",
                                  '"Start","Duration"', "Start,Duration")):
            nvprof = nvprof or "Name" in _csv_fields(line) or "Invocations" in _csv_fields(line)
    if sections and (messages or processes or kernel_lines):
        return "ncu-text"
    if nvprof:
        return "nvprof"
    if messages and not other:
        return "ncu-messages-only"
    return "ncu-messages" if messages else None


def _csv_fields(line: str) -> list[str]:
    import csv  # (only for text inputs)

    try:
        return [f.strip() for f in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        return []


def recognised(path: str | os.PathLike, timeline: bool = False) -> bool:
    """Whether a file's first bytes are a format kernelscope reads (:func:`detect_format`, or with ``timeline``
    :func:`detect_timeline_format`): False only when it is in none of them (a README.txt among the reports); a
    report of the other kind, an empty or an unreadable file count as recognised (their reader says what is wrong).
    Used to leave such files of a directory out."""
    try:
        (detect_timeline_format if timeline else detect_format)(path)
    except InputError as exc:
        return exc.key not in ("unrecognised_format", "unrecognised_timeline")
    return True


def probe_reports(paths) -> None:
    """Trial-load the Nsight Compute reports among ``paths`` (any others are skipped) in one forked child: a report
    on which NVIDIA's reader would abort the process is an InputError instead (see
    :func:`kernelscope.ingest.ncu_rep.probe_reports`). Commands call it once for all their inputs."""
    from .ncu_rep_probe import probe_reports as probe

    probe(paths)


def load(path: str | os.PathLike, input_format: str | None = None) -> ProfileReport:
    """Read one profiler file into a :class:`ProfileReport`.

    Args:
        path: the file.
        input_format: one of :data:`FORMATS` to skip detection, or None / ``"auto"`` to detect.

    Every launch is screened for values that cannot be real (:func:`screened`).

    Raises:
        InputError: unreadable, unrecognised or malformed input (message names the file and problem).
    """
    fmt = detect_format(path) if input_format in (None, "auto") else input_format
    if fmt in _READERS:
        return screened(_reader(fmt)(path))
    raise InputError(str(path), key="unknown_input_format", values={"fmt": fmt, "formats": Listed(FORMATS)})


def screened(report: ProfileReport) -> ProfileReport:
    """``report`` with every launch screened for values that cannot be real (one screen for every reader,
    :func:`kernelscope.knowledge.plausibility.screen`): a percentage above 100 or below 0, a negative or absurd
    byte / FLOP count, an impossible SM clock is moved into ``KernelProfile.implausible`` with its reason."""
    kernels = tuple(screen(k) for k in report.kernels)
    if all(a is b for a, b in zip(kernels, report.kernels)):
        return report
    return dataclasses.replace(report, kernels=kernels)


# ----------------------------------------------------------------------------------- program-level timelines
#: Timeline input format ids (``kernelscope timeline --input-format``; "auto" = detect).
TIMELINE_FORMATS: tuple[str, ...] = ("nsys-sqlite", "nsys-stats", "kineto")

_SQLITE_MAGIC = b"SQLite format 3\x00"
#: The start of a JSON trace: an object, or Chrome's array format (``[`` then an event object or ``]``).
_JSON_START = re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:\{|\[\s*(?:\{|\]|$))")


def detect_timeline_format(path: str | os.PathLike) -> str:
    """Timeline input format id of a path: ``"nsys-sqlite"`` (an SQLite database; the reader checks its tables),
    ``"kineto"`` (``.json``, ``.json.gz``, ``.tar.gz``/``.tgz``/``.tar`` or a directory of traces), or
    ``"nsys-stats"`` (``nsys stats`` console text, ``--format csv`` / ``--format table`` output, found from any of
    its lines: an ``[3/8] Executing '...' stats report`` line, a report title or a table header).

    Raises:
        InputError: missing, unreadable or empty file, or not one of these formats.
    """
    p = Path(path)
    if p.is_dir():
        return "kineto"
    expected = "an Nsight Systems export or a PyTorch profiler trace"
    check_file(path, expected)
    name = p.name.lower()
    if name.endswith((".json", ".json.gz", ".tar.gz", ".tgz", ".tar")):
        return "kineto"
    head = read_head(path, SNIFF_BYTES, expected)
    if head.startswith(_SQLITE_MAGIC):
        return "nsys-sqlite"
    if head[:4] == NCU_REP_MAGIC or p.suffix.lower() == ".ncu-rep":
        raise InputError(str(path), "is an Nsight Compute report (kernel profiles), not a program timeline: use "
                                    "`kernelscope diagnose`", key="is_ncu_report")
    if head[:2] == b"\x1f\x8b" or _JSON_START.match(head):  # not "[3/8] Executing ..." of nsys stats (case N05)
        return "kineto"
    if p.suffix.lower() in (".nsys-rep", ".qdrep"):
        raise InputError(str(path), "is an Nsight Systems report file; export it first with "
                                    "`nsys export --type sqlite FILE` (or run `nsys stats FILE`) and give that file",
                         key="is_nsys_rep")
    from .nsys_stats import looks_like_nsys_stats

    if looks_like_nsys_stats(head):
        return "nsys-stats"
    kernels = _kernel_profile_kind(p, head)
    if kernels is not None:
        raise InputError(str(path), f"is {kernels} (kernel profiles), not a program timeline: use `kernelscope diagnose`",
                         key="is_kernel_profile", values={"kind": kernels})
    raise InputError(
        str(path),
        "unrecognised timeline input; expected an Nsight Systems SQLite export (`nsys export --type sqlite`), "
        "`nsys stats` output (console text or --format csv/table), or a PyTorch profiler trace "
        "(.json, .json.gz, a directory or .tar.gz of per-rank traces)",
        key="unrecognised_timeline",
    )


def _kernel_profile_kind(p: Path, head: bytes) -> str | None:
    """What a kernel profile given to ``timeline`` is ("an `ncu --csv` export", ...), or None."""
    if p.suffix.lower() == ".toml":
        return "a plain-numbers file"
    encoding = "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
    kind = _sniff_text(head, encoding)
    return {"ncu-csv-header": "an `ncu --csv` export", "ncu-messages-only": "Nsight Compute output",
            "ncu-text": "Nsight Compute console output", "nvprof": "nvprof output"}.get(kind or "")


def load_timeline(path: str | os.PathLike, input_format: str | None = None):
    """Read one program-level trace: a :class:`kernelscope.timeline_model.Timeline` (intervals) for Nsight Systems
    SQLite exports and Kineto traces, or a :class:`kernelscope.timeline_model.TimelineSummary` for ``nsys stats``
    output (per-name summaries only).

    Args:
        path: file, directory (Kineto per-rank traces) or archive.
        input_format: one of :data:`TIMELINE_FORMATS`, or None / ``"auto"`` to detect.

    Raises:
        InputError: unreadable, unrecognised or unusable input (one line naming the file and the problem).
    """
    fmt = detect_timeline_format(path) if input_format in (None, "auto") else input_format
    if fmt in _TIMELINE_READERS:
        return _reader(fmt)(path)
    raise InputError(str(path), key="unknown_timeline_format",
        values={"fmt": fmt, "timeline_formats": Listed(TIMELINE_FORMATS)})


#: Format id -> "module:function" of its reader (imported on first use, so that a missing optional
#: dependency such as ncu-report only matters for its own format).
_READERS = {
    "ncu-rep": "ncu_rep:read_ncu_rep",
    "ncu-csv": "ncu_csv:read_ncu_csv",
    "ncu-text": "ncu_text:read_ncu_text",
    "nvprof": "nvprof:read_nvprof",
    "plain": "plain:read_plain",
}
_TIMELINE_READERS = {
    "nsys-sqlite": "nsys_sqlite:read_nsys_sqlite",
    "nsys-stats": "nsys_stats:read_nsys_stats",
    "kineto": "kineto:read_kineto",
}


def _reader(fmt: str):
    module, _, function = (_READERS | _TIMELINE_READERS)[fmt].partition(":")
    return getattr(importlib.import_module(f".{module}", __name__), function)

"""Reader for PyTorch profiler / Kineto Chrome traces into a :class:`~kernelscope.timeline_model.Timeline`.

Extraction only (no analysis). Inputs:

* one trace: ``.json`` or ``.json.gz`` (gzip is recognised by its magic bytes, whatever the name);
* a directory of per-rank traces (``*.json`` / ``*.json.gz`` below it, sorted by path);
* a ``.tar`` / ``.tar.gz`` / ``.tgz`` of per-rank traces. Members are read straight from the archive as a stream
  (nothing is extracted to disk), and the archive is refused (:class:`InputError`) when any member has an
  absolute path or a ``..`` component, is a symbolic / hard link, a device or a FIFO, or when the member count or
  the (declared or decompressed) sizes pass the limits below.

Each trace file is one rank: its ``distributedInfo.rank`` goes into the ``rank`` column. A single trace without
``distributedInfo`` gets rank -1 and ``meta["rank"] = "not recorded"`` (case C21); several such files in a
directory or archive are numbered 0, 1, ... in path order, which is stated in ``problems``.

Event categories (``cat``, compared without case, so both the current and the 2021 spellings), kinds of
:mod:`kernelscope.timeline_model`:

* ``kernel`` / ``Kernel`` -> kernel (busy);
* ``gpu_memcpy`` / ``Memcpy`` -> memcpy (busy; direction and pageable flag from the name, e.g.
  ``Memcpy HtoD (Pageable -> Device)``); ``gpu_memset`` / ``Memset`` -> memset (busy);
* ``cuda_sync`` -> sync (CUPTI synchronisation records);
* ``cuda_runtime`` / ``Runtime`` and ``cuda_driver`` -> runtime_api (host-side API calls);
* ``gpu_user_annotation`` -> gpu_annotation: it encloses GPU work and is NEVER busy time (case C17);
* ``user_annotation`` (``ProfilerStep#N`` ...) -> annotation (host side);
* ``cpu_op`` / ``Operator``, ``python_function`` -> cpu_op; any other ``"ph": "X"`` category -> other;
* not kept: flow events (``ac2g``, ``fwdbwd``, ``async``), ``cuda_profiler_range`` (CUPTI range-profiler
  counters, no real timing), ``M`` / ``i`` / other phases; the ``Trace`` span (the profiler's own window) goes
  to ``meta["profiler_window_ns"]``.

GPU rows take the device from ``args.device`` (else ``pid``) and the stream from ``args.stream`` (else ``tid``:
an integer, or a string such as ``"stream 7"``); host rows keep the thread id (integer or numeric string) in
``stream``. Correlation ids come from ``args.correlation``; byte counts from ``args.bytes``.

Time. Chrome traces store ``ts`` / ``dur`` in MICROSECONDS, always: ``displayTimeUnit`` ("ms" or "ns") only tells
a viewer how to print them (the Trace Event Format says so; the HolisticTraceAnalysis "ns resolution" test trace
says "ns", and ``hta_nccl_data`` says "ms" with the same 3-decimal timestamps). What marks a ns-resolution trace
is fractional microseconds with three decimals (``"ts": 1712195495505582.988``). Such a value has 19
significant digits, more than a float64 holds (0.25 µs steps at 1.7e15 µs), so numbers are never parsed as
floats: floats reach this reader as their JSON text and are converted to integer nanoseconds exactly (digits
beyond the third decimal are rounded half-even); integers are multiplied by 1000. ``meta["time_resolution"]`` says
which kind the trace is.

Unusable records. A GPU record (kernel, copy, memset) with ``ts`` 0 / missing or a missing / negative ``dur`` is
not a row: it is counted in ``invalid`` with its name, correlation ids and reason (``"no GPU timing (ts 0, dur
0); launch seen"`` when a runtime / driver call with the same correlation id was recorded, case C03). Host rows
with no timing are counted the same way. A kernel with a real ``ts`` and ``dur`` 0 is a real kernel shorter than
the trace's resolution (integer-µs traces) and is kept.

Speed and memory. The file is never held whole: it is read in chunks of :data:`CHUNK_BYTES`, each chunk cut at an
event boundary (``}`` ``,`` ``{``; a cut that is not a real boundary -- inside a string or a nested object --
fails to decode and the next candidate is tried) and decoded by ``msgspec`` into small typed structs that skip
every field the timeline does not use (``Input Dims`` ...), then turned into NumPy columns. Peak memory is the
columns plus a few chunks, whatever the input size. The garbage collector is paused while reading (nothing here
makes reference cycles; its passes over millions of fresh tuples cost more than the decoding). The files of a
directory are parsed by one process per CPU (``fork``; see ``jobs``) when they are large enough to pay for it.
"""

from __future__ import annotations

import concurrent.futures
import gc
import gzip
import io
import multiprocessing
import os
import re
import tarfile
import threading
import zlib
from collections import Counter
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

import msgspec
import numpy as np

from ..errors import InputError
from ..timeline_model import (
    ANNOTATION,
    COPY_DTOD,
    COPY_DTOH,
    COPY_HTOD,
    COPY_HTOH,
    COPY_PTOP,
    COPY_UNKNOWN,
    CPU_OP,
    GPU_ANNOTATION,
    KERNEL,
    KIND_NAMES,
    MEMCPY,
    MEMSET,
    OTHER,
    RUNTIME_API,
    SYNC,
    InvalidRecord,
    LaunchArgs,
    Timeline,
    merge_timelines,
)

FORMAT = "kineto"

#: Bytes of JSON decoded at a time.
CHUNK_BYTES = 16 << 20
#: How far into a file the top-level ``"traceEvents"`` key is looked for.
HEAD_LIMIT = 256 << 20
#: Most bytes one input may decompress to (a file, or all members of an archive together).
MAX_INPUT_BYTES = 64 << 30
#: Most bytes one archive member may hold (declared in its header, and as decompressed).
MAX_MEMBER_BYTES = 16 << 30
#: Most entries (files, directories) an archive may hold, and most trace files a directory may hold.
MAX_MEMBERS = 10_000
#: Correlation ids kept per invalid-record group.
MAX_INVALID_IDS = 32

_SKIP = -1  # category not kept
_WINDOW = -2  # the profiler's own "Trace" span

#: ``cat`` (lower case) -> kind code, or _SKIP / _WINDOW.
_CATEGORIES: dict[str, int] = {
    "kernel": KERNEL,
    "gpu_memcpy": MEMCPY,
    "memcpy": MEMCPY,
    "gpu_memset": MEMSET,
    "memset": MEMSET,
    "cuda_sync": SYNC,
    "cuda_runtime": RUNTIME_API,
    "runtime": RUNTIME_API,
    "cuda_driver": RUNTIME_API,
    "gpu_user_annotation": GPU_ANNOTATION,
    "user_annotation": ANNOTATION,
    "cpu_op": CPU_OP,
    "operator": CPU_OP,
    "python_function": CPU_OP,
    "trace": _WINDOW,
    "ac2g": _SKIP,
    "fwdbwd": _SKIP,
    "async": _SKIP,
    "flow": _SKIP,
    "cuda_profiler_range": _SKIP,
}
#: Kinds whose rows are on a GPU (device from args.device / pid, stream from args.stream / tid).
_GPU_KIND = [False] * len(KIND_NAMES)
for _k in (KERNEL, MEMCPY, MEMSET, SYNC, GPU_ANNOTATION):
    _GPU_KIND[_k] = True
_BUSY = (KERNEL, MEMCPY, MEMSET)

_COPY_DIRECTIONS = {
    "HtoD": COPY_HTOD, "HtoA": COPY_HTOD, "DtoH": COPY_DTOH, "AtoH": COPY_DTOH, "DtoD": COPY_DTOD,
    "AtoD": COPY_DTOD, "DtoA": COPY_DTOD, "AtoA": COPY_DTOD, "HtoH": COPY_HTOH, "PtoP": COPY_PTOP,
}
_COPY_NAME = re.compile(r"Memcpy\s+(\w+)(?:\s*\(([^)]*)\))?")

_CUT = re.compile(rb"\}\s*,\s*\{")
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_STREAM_TEXT = re.compile(r"(-?\d+)\s*$")
_GZIP_MAGIC = b"\x1f\x8b"


# ------------------------------------------------------------------------------------------------- JSON schema
class _Args(msgspec.Struct, gc=False):
    """The ``args`` keys the timeline uses (every other key is skipped by the decoder)."""

    device: Any = None
    stream: Any = None
    correlation: Any = None
    bytes: Any = None
    grid: Any = None
    block: Any = None
    registers: Any = msgspec.field(default=None, name="registers per thread")
    shared_memory: Any = msgspec.field(default=None, name="shared memory")
    warps_per_sm: Any = msgspec.field(default=None, name="warps per SM")
    name: Any = None  # "M" events: process_name / thread_name
    labels: Any = None  # "M" process_labels: "GPU 0" / "CPU"


class _Event(msgspec.Struct, gc=False):
    ph: Any = None
    cat: Any = None
    name: Any = None
    pid: Any = None
    tid: Any = None
    ts: Any = None
    dur: Any = None
    args: Any = None


class _EventTyped(_Event, gc=False):
    args: _Args | None = None  # type: ignore[assignment]


class _Top(msgspec.Struct):
    """Top-level keys of a Kineto trace that the timeline reports."""

    schemaVersion: Any = None
    deviceProperties: Any = None
    computeProperties: Any = None  # 2021 traces (tb_plugin samples)
    distributedInfo: Any = None
    displayTimeUnit: Any = None
    baseTimeNanoseconds: Any = None
    traceName: Any = None
    cupti_version: Any = None
    cuda_runtime_version: Any = None
    cuda_driver_version: Any = None


class _TopTail(_Top):
    traceEvents: list[_EventTyped] = []


# float_hook=str: JSON floats arrive as their text, so that timestamps convert to ns exactly.
_EVENTS = msgspec.json.Decoder(list[_EventTyped], float_hook=str)
_EVENTS_ANY = msgspec.json.Decoder(list[Any], float_hook=str)
_TAIL = msgspec.json.Decoder(_TopTail, float_hook=str)
_TAIL_ANY = msgspec.json.Decoder(dict[str, Any], float_hook=str)
_HEAD = msgspec.json.Decoder(_Top)



# ---------------------------------------------------------------------------------------------------- reading
def read_kineto(
    path: str | os.PathLike,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_members: int = MAX_MEMBERS,
    jobs: int | None = None,
) -> Timeline:
    """Read a PyTorch profiler / Kineto trace (file, directory of per-rank files, or tar archive) into one
    Timeline; several files are merged with their ranks in the ``rank`` column.

    Args:
        path: ``.json``, ``.json.gz``, a directory, or a ``.tar`` / ``.tar.gz`` / ``.tgz`` archive.
        max_bytes: most decompressed bytes the whole input may hold.
        max_member_bytes: most bytes one archive member may hold.
        max_members: most entries an archive (or trace files a directory) may hold.
        jobs: processes that parse the files of a directory side by side (None: one per CPU; used only for
            directories of at least :data:`PARALLEL_MIN_BYTES`, where ``fork`` exists). 1: in this process.

    Raises:
        InputError: missing or unreadable input, not a Chrome trace, malformed JSON, an unsafe or oversized
            archive, or a trace that recorded no GPU activity at all (the message says why that usually happens).
    """
    p = Path(path)
    src = str(path)
    if not p.exists():
        raise InputError(src, "file not found")
    # The decoded structs are untracked by the garbage collector, but the tuples and lists built from them are
    # not: a collection pass every few thousand allocations would walk millions of them. Nothing here makes
    # cycles, so the collector is paused while reading (and restored as it was).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _read(p, src, max_bytes, max_member_bytes, max_members, jobs)
    finally:
        if gc_was_enabled:
            gc.enable()


def _read(p: Path, src: str, max_bytes: int, max_member_bytes: int, max_members: int, jobs: int | None) -> Timeline:
    budget = _Budget(src, max_bytes)
    if p.is_dir():
        parsed = _read_directory(p, src, budget, max_members, jobs)
    else:
        try:
            with p.open("rb") as fh:
                head = fh.read(600)
                fh.seek(0)
                if not head:
                    raise InputError(src, "file is empty; expected a PyTorch profiler trace (.json / .json.gz)")
                if _is_tar(fh, head, p.name):
                    parsed = _read_tar(fh, src, budget, max_member_bytes, max_members)
                else:
                    stream = _decompressed(fh, head, src, budget, max_bytes)
                    parsed = [_parse_trace(stream, src, p.name)]
        except OSError as exc:
            raise InputError(src, f"cannot read file ({exc.strerror or exc})") from None
    return _build(parsed, src)


def _is_tar(fh: BinaryIO, head: bytes, name: str = "") -> bool:
    """A tar archive, plain or gzip-compressed ("ustar" at offset 257 of the first block, or the name says so)."""
    if name.lower().endswith((".tar", ".tar.gz", ".tgz")):
        return True
    if head[:2] == _GZIP_MAGIC:
        try:
            block = gzip.GzipFile(fileobj=fh, mode="rb").read(512)
        except (OSError, EOFError, zlib.error):
            block = b""
        fh.seek(0)
        return block[257:262] == b"ustar"
    return head[257:262] == b"ustar"


class _Budget:
    """Counts decompressed bytes against a limit (zip bombs, oversized inputs)."""

    def __init__(self, source: str, limit: int) -> None:
        self.source = source
        self.limit = limit
        self.used = 0

    def take(self, n: int, what: str) -> None:
        self.used += n
        if self.used > self.limit:
            raise InputError(self.source, f"{what} holds more than {_size(self.limit)} of data once decompressed "
                                          "(the reader's limit; refusing, as it may be a decompression bomb)")


class _Counted(io.RawIOBase):
    """A read-only stream that charges every byte it returns to a :class:`_Budget` (and a per-member limit)."""

    def __init__(self, inner: BinaryIO, budget: _Budget, member_limit: int, what: str) -> None:
        self.inner = inner
        self.budget = budget
        self.member_limit = member_limit
        self.what = what
        self.count = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = self.inner.read(n)
        self.count += len(data)
        if self.count > self.member_limit:
            raise InputError(self.budget.source, f"{self.what} holds more than {_size(self.member_limit)} "
                                                 "once decompressed (the reader's limit; refusing)")
        self.budget.take(len(data), self.what)
        return data


def _decompressed(fh: BinaryIO, head: bytes, source: str, budget: _Budget, member_limit: int,
                  what: str = "the trace") -> BinaryIO:
    inner: BinaryIO = gzip.GzipFile(fileobj=fh, mode="rb") if head[:2] == _GZIP_MAGIC else fh
    return _Counted(inner, budget, member_limit, what)  # type: ignore[return-value]


def _trace_name(name: str) -> bool:
    low = name.lower()
    return low.endswith((".json", ".json.gz"))


def _read_directory(p: Path, src: str, budget: _Budget, max_members: int, jobs: int | None) -> list["_Parsed"]:
    files = []
    for f in sorted(p.rglob("*")):
        rel = f.relative_to(p)
        if any(part.startswith(".") for part in rel.parts) or not f.is_file() or not _trace_name(f.name):
            continue
        files.append(f)
        if len(files) > max_members:
            raise InputError(src, f"directory holds more than {max_members} trace files (the reader's limit)")
    if not files:
        raise InputError(src, "directory holds no PyTorch profiler traces (*.json / *.json.gz)")
    labels = [str(f.relative_to(p)) for f in files]
    workers = _workers(jobs, files)
    if workers > 1:
        ctx = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            results = list(pool.map(_parse_file_job, [(str(f), src, lab, budget.limit) for f, lab in zip(files, labels)]))
    else:
        results = [_parse_file_job((str(f), src, lab, budget.limit), budget) for f, lab in zip(files, labels)]
    out = []
    for res in results:
        if isinstance(res, tuple):  # an InputError raised in a worker: (source, problem)
            raise InputError(*res)
        budget.take(res.input_bytes, "the directory")
        out.append(res)
    return out


#: Least bytes (on disk) of a directory's traces before they are parsed by several processes at once.
PARALLEL_MIN_BYTES = 32 << 20


def _workers(jobs: int | None, files: list[Path]) -> int:
    """Processes to parse a directory's files with: one file each at a time, at most ``jobs`` (None: the CPUs).
    Only on platforms with ``fork`` (no re-import), from a single-threaded process (forking a process with other
    threads can deadlock), and for inputs big enough to pay for the processes."""
    if jobs is None:
        jobs = os.cpu_count() or 1
    jobs = min(jobs, len(files))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    try:
        size = sum(f.stat().st_size for f in files)
    except OSError:
        return 1
    return jobs if size >= PARALLEL_MIN_BYTES else 1


def _parse_file_job(job: tuple[str, str, str, int], budget: "_Budget | None" = None):
    """Parse one file of a directory (in a worker process or in this one). Returns the ``_Parsed`` or, for a
    refusal, the InputError's ``(source, problem)`` (exceptions with extra constructor arguments do not pickle)."""
    path, src, label, limit = job
    own = budget if budget is not None else _Budget(src, limit)
    before = own.used
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            stream = _decompressed(fh, head, src, own, limit, what=label)
            parsed = _parse_trace(stream, src, label, optional=True)
    except OSError as exc:
        return (src, f"{label}: cannot read file ({exc.strerror or exc})")
    except InputError as exc:
        return (exc.source, exc.problem)
    finally:
        if gc_was_enabled:
            gc.enable()
    parsed.input_bytes = own.used - before if budget is None else 0
    return parsed


def _unsafe_member(m: tarfile.TarInfo) -> str | None:
    """Why an archive member is refused, or None when it is a plain file or directory inside the archive."""
    name = m.name
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "has an absolute path"
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if ".." in parts:
        return "has a '..' component (would escape the destination)"
    if m.issym() or m.islnk():
        return f"is a {'symbolic' if m.issym() else 'hard'} link (to '{m.linkname}')"
    if m.ischr() or m.isblk():
        return "is a device file"
    if m.isfifo():
        return "is a FIFO"
    if not (m.isfile() or m.isdir()):
        return "is not a regular file or directory"
    return None


def _read_tar(fh: BinaryIO, src: str, budget: _Budget, max_member_bytes: int, max_members: int) -> list["_Parsed"]:
    out: list[_Parsed] = []
    skipped: list[str] = []
    declared = 0
    count = 0
    try:
        with tarfile.open(fileobj=fh, mode="r|*") as tar:
            for m in tar:
                count += 1
                if count > max_members:
                    raise InputError(src, f"archive holds more than {max_members} entries (the reader's limit)")
                why = _unsafe_member(m)
                if why:
                    raise InputError(src, f"unsafe archive: member '{m.name}' {why}; refusing the archive")
                if m.isdir():
                    continue
                if m.size > max_member_bytes:
                    raise InputError(src, f"archive member '{m.name}' is {_size(m.size)}, over the reader's "
                                          f"{_size(max_member_bytes)} limit; refusing the archive")
                declared += m.size
                if declared > budget.limit:
                    raise InputError(src, f"archive members hold more than {_size(budget.limit)} in all "
                                          "(the reader's limit); refusing the archive")
                if not _trace_name(m.name):
                    skipped.append(m.name)
                    continue
                member = tar.extractfile(m)
                if member is None:  # pragma: no cover - isfile() members always have one
                    continue
                head = member.read(2)
                body = _Prefixed(head, member)
                stream = _decompressed(body, head, src, budget, max_member_bytes, what=f"member '{m.name}'")
                out.append(_parse_trace(stream, src, m.name, optional=True))
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise InputError(src, f"corrupt or truncated archive ({exc})") from None
    except gzip.BadGzipFile as exc:
        raise InputError(src, f"corrupt gzip data in the archive ({exc})") from None
    if not out:
        raise InputError(src, "archive holds no PyTorch profiler traces (*.json / *.json.gz)"
                              + (f"; it holds: {', '.join(skipped[:5])}" if skipped else ""))
    if skipped:
        out[0].problems.append(f"archive members that are not traces were ignored: {', '.join(skipped[:5])}"
                               + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""))
    return out


class _Prefixed(io.RawIOBase):
    """``head`` followed by the rest of ``inner`` (for streams that cannot seek back)."""

    def __init__(self, head: bytes, inner: BinaryIO) -> None:
        self.head = head
        self.inner = inner

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if self.head:
            if n is None or n < 0:
                data, self.head = self.head + self.inner.read(), b""
                return data
            data, self.head = self.head[:n], self.head[n:]
            if len(data) < n:
                data += self.inner.read(n - len(data))
            return data
        return self.inner.read(n)


# ------------------------------------------------------------------------------------------------ one trace file
@dataclass
class _Parsed:
    """One trace file's columns and facts."""

    label: str
    top: _Top = field(default_factory=_Top)
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    launch: dict[str, np.ndarray] | None = None
    invalid: list[InvalidRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    window_ns: tuple[int, int] | None = None
    fractional_us: bool = False
    events: int = 0
    skipped: Counter = field(default_factory=Counter)
    not_trace: str | None = None
    input_bytes: int = 0


def _parse_trace(stream: BinaryIO, source: str, label: str, optional: bool = False) -> _Parsed:
    """Parse one Chrome-trace JSON stream. ``optional``: a JSON file that is not a trace is returned marked
    ``not_trace`` (directories / archives skip it) instead of being refused."""
    builder = _Builder(label)
    try:
        _split_events(stream, source, label, builder)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(source, f"{_where(source, label)}corrupt or truncated gzip data ({exc})") from None
    except _NotTrace as exc:
        if not optional:
            raise InputError(source, str(exc)) from None
        parsed = _Parsed(label)
        parsed.not_trace = str(exc)
        return parsed
    return builder.finish()


def _where(source: str, label: str) -> str:
    return "" if Path(source).name == label else f"{label}: "


class _NotTrace(Exception):
    pass


def _split_events(stream: BinaryIO, source: str, label: str, builder: "_Builder") -> None:
    """Read the stream in chunks, decode the ``traceEvents`` array piece by piece and feed the builder."""
    where = _where(source, label)
    buf = bytearray()
    eof = False

    def fill(n: int) -> None:
        nonlocal eof
        data = stream.read(n)
        if not data:
            eof = True
        else:
            buf.extend(data)

    # --- the head: up to and including '[' of the top-level traceEvents array
    fill(1 << 20)
    lead = 0
    if buf[:3] == b"\xef\xbb\xbf":
        lead = 3
    while lead < len(buf) and buf[lead] in b" \t\r\n":
        lead += 1
    first = buf[lead:lead + 1]
    if first not in (b"{", b"["):
        raise _NotTrace(f"{where}not JSON (starts with {bytes(buf[lead:lead + 20])!r}); "
                        "expected a PyTorch profiler trace")
    if first == b"[":  # Chrome's "JSON array format": a bare list of events
        start = lead + 1
        array_mode = True
    else:
        array_mode = False
        searched = 0
        while True:
            found = None
            for m in _KEY.finditer(buf, max(0, searched - 64)):
                head = bytes(buf[:m.start()]).rstrip()
                if head.endswith(b","):
                    head = head[:-1] + b"}"
                elif head.endswith(b"{"):
                    head = head + b"}"
                else:
                    continue
                try:
                    builder.top = _HEAD.decode(head)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    continue
                found = m
                break
            if found is not None:
                start = found.end()
                break
            searched = len(buf)
            if eof or len(buf) > HEAD_LIMIT:
                keys = _top_keys(bytes(buf)) if eof else None
                raise _NotTrace(f"{where}not a Chrome trace: no top-level \"traceEvents\" array"
                                + (f" (top-level keys: {', '.join(keys[:8])})" if keys else ""))
            fill(1 << 22)

    # --- the body: cut at event boundaries, decode each piece (buf[start-1] is always '[', ',' or whitespace)
    while True:
        if not eof and len(buf) - start < CHUNK_BYTES:
            fill(CHUNK_BYTES)
            continue
        if eof:
            break
        pos = start + (len(buf) - start) // 2
        done = 0
        for m in _CUT.finditer(buf, pos):
            cut = m.start() + 1  # just after '}'
            saved_open, saved_close = buf[start - 1], buf[cut]
            buf[start - 1] = 0x5B  # '['
            buf[cut] = 0x5D  # ']'
            mv = memoryview(buf)
            piece = mv[start - 1:cut + 1]
            try:
                events = _decode_piece(piece, where)
            except msgspec.DecodeError:
                events = None
            finally:
                piece.release()
                mv.release()
            if events is None:  # not a real boundary (inside a string or a nested object): try the next one
                buf[start - 1], buf[cut] = saved_open, saved_close
                continue
            builder.add(events)
            done = m.end() - 1  # the '{' of the next event
            break
        if done:  # (the finditer scanner holds a view of buf: resize only after the loop)
            del buf[:done - 1]
            start = 1
        else:
            fill(CHUNK_BYTES)
    # --- the tail: the last events, the closing ']' and the rest of the top-level object
    rest = bytes(buf[start:])
    del buf[:]
    if array_mode:
        try:
            events = _decode_piece(b"[" + rest, where)
        except msgspec.DecodeError as exc:
            raise InputError(source, f"{where}malformed JSON in the event list ({_json_error(exc)})") from None
        builder.add(events)
        return
    text = b'{"traceEvents":[' + rest
    try:
        tail = _TAIL.decode(text)
    except msgspec.ValidationError:
        try:
            loose = _TAIL_ANY.decode(text)
        except msgspec.DecodeError as exc:
            raise InputError(source, f"{where}malformed JSON at the end of the trace ({_json_error(exc)})") from None
        builder.add(_loose_events(loose.get("traceEvents") or [], where))
        tail = _TopTail(**{k: loose.get(k) for k in _Top.__struct_fields__})
    except msgspec.DecodeError as exc:
        raise InputError(source, f"{where}malformed JSON at the end of the trace ({_json_error(exc)}); "
                                 "was the file cut short while it was written?") from None
    else:
        builder.add(tail.traceEvents)
    top = builder.top
    for key in _Top.__struct_fields__:
        if getattr(tail, key) is not None and getattr(top, key) is None:
            setattr(top, key, getattr(tail, key))


def _decode_piece(data, where: str) -> list:
    try:
        return _EVENTS.decode(data)
    except msgspec.ValidationError:
        return _loose_events(_EVENTS_ANY.decode(data), where)


def _loose_events(items: list, where: str) -> list:
    """Events of a piece whose shape the typed decoder refused (e.g. ``args`` that is not an object)."""
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        args = item.get("args")
        typed_args = None
        if isinstance(args, dict):
            try:
                typed_args = msgspec.convert(args, _Args, strict=False)
            except msgspec.ValidationError:
                typed_args = None
        out.append(_EventTyped(ph=item.get("ph"), cat=item.get("cat"), name=item.get("name"), pid=item.get("pid"),
                               tid=item.get("tid"), ts=item.get("ts"), dur=item.get("dur"), args=typed_args))
    return out


def _top_keys(data: bytes) -> list[str] | None:
    try:
        obj = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    return [str(k) for k in obj] if isinstance(obj, dict) else None


def _json_error(exc: Exception) -> str:
    msg = str(exc)
    return "the file ends early" if "truncated" in msg.lower() else msg


# --------------------------------------------------------------------------------------------- events -> columns
class _Builder:
    """Turns decoded events into NumPy column chunks."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.top = _Top()
        self.name_ids: dict[Any, int] = {}
        self.names: list[str] = []
        self.categories = dict(_CATEGORIES)
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in (
            "start_ns", "end_ns", "kind", "name_id", "device", "stream", "correlation_id", "bytes")}
        self.launch_parts: list[tuple[np.ndarray, dict]] = []  # (row index in the file, launch columns)
        self.rows = 0
        self.invalid: dict[tuple[str, str, str], list] = {}
        self.invalid_gpu_corr: list[tuple[tuple[str, str, str], int]] = []
        self.window: tuple[int, int] | None = None
        self.fractional = False
        self.events = 0
        self.skipped: Counter = Counter()
        self.zero_dur_kernels = 0
        self.problems: list[str] = []

    def _name_id(self, name: Any) -> int:
        text = name if isinstance(name, str) else ("" if name is None else str(name))
        nid = self.name_ids.get(text)
        if nid is None:
            nid = len(self.names)
            self.names.append(text)
            self.name_ids[text] = nid
        try:
            self.name_ids[name] = nid
        except TypeError:  # unhashable name (a list ...)
            pass
        return nid

    def _category(self, cat: Any) -> int:
        key = cat.lower() if isinstance(cat, str) else ""
        code = _CATEGORIES.get(key, OTHER)
        try:
            self.categories[cat] = code
        except TypeError:  # unhashable category (a list ...)
            pass
        return code

    def add(self, events: list) -> None:
        """Columns of one decoded piece: one tuple per kept event, transposed at the end. (A plain loop: on this
        project's 2-core machines it beat a column-wise ``attrgetter`` / ``map`` extraction by 2-3x, the
        events being scattered objects that every extra pass walks again.)"""
        self.events += len(events)
        categories = self.categories
        name_ids = self.name_ids
        gpu_kind = _GPU_KIND
        rows: list[tuple] = []
        kernels: list[tuple] = []
        append = rows.append
        for e in events:
            ph = e.ph
            if ph != "X":  # metadata ("M"), flows ("s"/"f"), instants ("i"), counters ...: nothing to keep
                self.skipped[ph if isinstance(ph, str) else "?"] += 1
                continue
            cat = e.cat
            try:
                code = categories[cat]
            except (KeyError, TypeError):
                code = self._category(cat)
            if code < 0:
                if code == _WINDOW:
                    self._trace_window(e)
                else:
                    self.skipped[cat] += 1
                continue
            name = e.name
            try:
                nid = name_ids[name]
            except (KeyError, TypeError):
                nid = self._name_id(name)
            a = e.args
            if a is None:
                append((code, nid, e.ts, e.dur, e.pid if gpu_kind[code] else -1, e.tid, None, None))
            elif gpu_kind[code]:
                dev = a.device
                if dev is None:
                    dev = e.pid
                st = a.stream
                if st is None:
                    st = e.tid
                if code == KERNEL:
                    kernels.append((len(rows), a.grid, a.block, a.registers, a.shared_memory, a.warps_per_sm))
                append((code, nid, e.ts, e.dur, dev, st, a.correlation, a.bytes))
            else:
                append((code, nid, e.ts, e.dur, -1, e.tid, a.correlation, None))
        if rows:
            self._store(rows, kernels)

    def _store(self, rows: list[tuple], kernels: list[tuple]) -> None:
        kinds, nids, tss, durs, devs, streams, corrs, nbytes = zip(*rows)
        launch = _launch_chunk(kernels) if kernels else None
        self._store_arrays(np.array(kinds, dtype=np.uint8), np.array(nids, dtype=np.int32), tss, durs,
                           _int_column(devs, -1, np.int16), _int_column(streams, -1, np.int64, text=True),
                           _int_column(corrs, -1, np.int64), _int_column(nbytes, -1, np.int64), launch)

    def _store_arrays(self, kind, name_id, tss, durs, device, stream, corr, byt, launch) -> None:
        """Keep the rows with usable timing (count the others as invalid) and append the columns."""
        n = kind.shape[0]
        start, start_ok, frac1 = _ns_column(tss)
        dur, dur_ok, frac2 = _ns_column(durs)
        self.fractional = self.fractional or frac1 or frac2
        ok = start_ok & dur_ok & (start > 0) & (dur >= 0)
        all_ok = bool(ok.all())
        if not all_ok:
            self._invalid(np.flatnonzero(~ok), kind, name_id, tss, durs, start, start_ok, dur, dur_ok, corr)
        zero = (kind == KERNEL) & (dur == 0) & ok
        if zero.any():
            self.zero_dur_kernels += int(zero.sum())
        keep = None if all_ok else np.flatnonzero(ok)
        cols = {"start_ns": start, "end_ns": start + dur, "kind": kind, "name_id": name_id, "device": device,
                "stream": stream, "correlation_id": corr, "bytes": byt}
        for key, arr in cols.items():
            self.parts[key].append(arr if keep is None else arr[keep])
        if launch is not None:
            launch = dict(launch)
            rows_idx = launch.pop("row")
            if keep is not None:
                new_index = np.full(n, -1, dtype=np.int64)
                new_index[keep] = np.arange(keep.shape[0])
                mapped = new_index[rows_idx]
                sel = mapped >= 0
                launch = {k: v[sel] for k, v in launch.items()}
                rows_idx = mapped[sel]
            self.launch_parts.append((rows_idx + self.rows, launch))
        self.rows += n if keep is None else int(keep.shape[0])

    def _invalid(self, bad, kind, name_id, tss, durs, start, start_ok, dur, dur_ok, corr) -> None:
        for i in bad.tolist():
            code = int(kind[i])
            ts_v, dur_v = tss[i], durs[i]
            if not start_ok[i] or not dur_ok[i]:
                if ts_v is None or not start_ok[i]:
                    reason = "no start time" if ts_v is None else f"unreadable ts {ts_v!r}"
                else:
                    reason = "no duration" if dur_v is None else f"unreadable dur {dur_v!r}"
            elif start[i] <= 0 and dur[i] <= 0:
                reason = ("no GPU timing" if code in _BUSY else "no timing") + f" (ts {ts_v}, dur {dur_v})"
            elif start[i] <= 0:
                reason = f"no start time (ts {ts_v})"
            else:
                reason = f"negative duration (dur {dur_v})"
            key = (KIND_NAMES[code], self.names[int(name_id[i])], reason)
            entry = self.invalid.setdefault(key, [0, []])
            entry[0] += 1
            c = int(corr[i])
            if c >= 0:
                if len(entry[1]) < MAX_INVALID_IDS:
                    entry[1].append(c)
                if code in _BUSY:
                    self.invalid_gpu_corr.append((key, c))

    def _trace_window(self, e) -> None:
        start, ok1, _ = _ns_column([e.ts])
        dur, ok2, _ = _ns_column([e.dur])
        if ok1[0] and ok2[0] and start[0] > 0:
            lo, hi = int(start[0]), int(start[0] + dur[0])
            if self.window is None:
                self.window = (lo, hi)
            else:
                self.window = (min(lo, self.window[0]), max(hi, self.window[1]))

    def finish(self) -> _Parsed:
        parsed = _Parsed(self.label, top=self.top)
        if self.rows:
            parsed.columns = {k: np.concatenate(v) for k, v in self.parts.items()}
        else:
            parsed.columns = {k: np.zeros(0, dtype=_DTYPES[k]) for k in self.parts}
        self.parts = {}
        parsed.names = self.names
        if self.launch_parts:
            parsed.launch = _launch_columns(self.launch_parts, self.rows)
        runtime_corr = parsed.columns["correlation_id"][parsed.columns["kind"] == RUNTIME_API]
        launched: set = set()
        if self.invalid_gpu_corr:
            ids = np.array([c for _, c in self.invalid_gpu_corr], dtype=np.int64)
            seen = np.isin(ids, runtime_corr)
            launched = {key for (key, _), s in zip(self.invalid_gpu_corr, seen) if s}
        for key, (count, ids) in self.invalid.items():
            kind, name, reason = key
            if kind in ("kernel", "memcpy", "memset") and ids:
                reason += "; launch seen" if key in launched else "; no launch recorded"
            parsed.invalid.append(InvalidRecord(kind, name, reason, count, tuple(ids)))
        if self.zero_dur_kernels:
            parsed.problems.append(f"{self.zero_dur_kernels} kernel(s) with dur 0 (shorter than the trace's "
                                   "time resolution) kept as zero-length")
        parsed.window_ns = self.window
        parsed.fractional_us = self.fractional
        parsed.events = self.events
        parsed.skipped = self.skipped
        parsed.problems.extend(self.problems)
        return parsed


_DTYPES = {"start_ns": np.int64, "end_ns": np.int64, "kind": np.uint8, "name_id": np.int32, "device": np.int16,
           "stream": np.int64, "correlation_id": np.int64, "bytes": np.int64}
_INT64_US_MAX = (2**63 - 1) // 1000


def _ns_column(values: list) -> tuple[np.ndarray, np.ndarray, bool]:
    """Microsecond values (ints, float text, None) -> (int64 ns, readable mask, any fractional µs)."""
    n = len(values)
    try:
        us = np.fromiter(values, dtype=np.int64, count=n)
    except (TypeError, ValueError, OverflowError):
        pass
    else:
        if n == 0 or int(np.abs(us).max()) <= _INT64_US_MAX:
            return us * 1000, np.ones(n, dtype=bool), False
    out = np.zeros(n, dtype=np.int64)
    ok = np.ones(n, dtype=bool)
    frac = False
    conv = _us_to_ns
    for i, v in enumerate(values):
        if type(v) is int:
            if -_INT64_US_MAX <= v <= _INT64_US_MAX:
                out[i] = v * 1000
            else:
                ok[i] = False
            continue
        r = conv(v)
        if r is None:
            ok[i] = False
        else:
            out[i] = r
            if r % 1000:
                frac = True
    return out, ok, frac


def _us_to_ns(v: Any) -> int | None:
    """Exact ns of a µs value given as JSON float text (or int / float); None when unreadable."""
    if isinstance(v, str):
        whole, dot, fraction = v.partition(".")
        if dot and len(fraction) <= 3 and fraction.isdigit() and (whole.isdigit() or
                                                                  (whole[:1] == "-" and whole[1:].isdigit())):
            ns = int(whole + fraction.ljust(3, "0"))
        else:
            try:
                d = Decimal(v)
            except InvalidOperation:
                return None
            if not d.is_finite():
                return None
            ns = int((d * 1000).to_integral_value(rounding=ROUND_HALF_EVEN))
    elif isinstance(v, bool) or v is None:
        return None
    elif isinstance(v, int):
        ns = v * 1000
    elif isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return None
        ns = int(Decimal(repr(v)) * 1000)
    else:
        return None
    if not -(2**63) < ns < 2**63:
        return None
    return ns


def _as_int(v: Any, text: bool = False) -> int | None:
    if type(v) is int:
        return v
    if isinstance(v, str):
        s = v.strip()
        try:
            return int(s)
        except ValueError:
            pass
        if text:  # "stream 7"
            m = _STREAM_TEXT.search(s)
            if m:
                return int(m.group(1))
        try:
            f = float(s)
        except ValueError:
            return None
        return int(f) if f == f and f not in (float("inf"), float("-inf")) and f == int(f) else None
    if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")) and v == int(v):
        return int(v)
    return None


def _int_column(values, fill: int, dtype, text: bool = False) -> np.ndarray:
    """Integers (with None = ``fill``; numeric strings, and "stream 7" when ``text``) -> a column of ``dtype``.
    Values that are unreadable or out of the dtype's range become ``fill``."""
    n = len(values)
    info = np.iinfo(dtype)
    try:
        arr = np.fromiter(values, dtype=np.int64, count=n)
    except (TypeError, ValueError, OverflowError):
        # most often: None among ints (fast, vectorised over an object array)
        obj = np.array(values, dtype=object)
        missing = np.equal(obj, None)
        obj[missing] = fill
        try:
            arr = obj.astype(np.int64)  # int() of each: numeric strings too (a float would be truncated)
        except (TypeError, ValueError, OverflowError):
            arr = None
        if arr is None:
            out = np.full(n, fill, dtype=np.int64)
            for i, v in enumerate(values):
                if v is None:
                    continue
                iv = _as_int(v, text)
                if iv is not None and info.min <= iv <= info.max:
                    out[i] = iv
            arr = out
    if dtype is not np.int64 and n and (arr.min() < info.min or arr.max() > info.max):
        arr = np.where((arr < info.min) | (arr > info.max), fill, arr)
    return arr.astype(dtype, copy=False)


_LAUNCH_INT = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread",
               "shared_mem_bytes", "dynamic_shared_mem_bytes")


def _dims(values: tuple) -> np.ndarray:
    """[x, y, z] lists -> (n, 3) int32, -1 where missing or malformed."""
    n = len(values)
    try:
        arr = np.array(values, dtype=np.int64)
        if arr.shape != (n, 3):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        arr = np.full((n, 3), -1, dtype=np.int64)
        for i, v in enumerate(values):
            if isinstance(v, (list, tuple)) and len(v) == 3:
                for j in range(3):
                    iv = _as_int(v[j])
                    if iv is not None:
                        arr[i, j] = iv
    i32 = np.iinfo(np.int32)
    return np.where((arr < i32.min) | (arr > i32.max), -1, arr).astype(np.int32)


def _floats(values: tuple) -> np.ndarray:
    obj = np.array(values, dtype=object)
    missing = np.equal(obj, None)
    obj[missing] = "nan"
    try:
        return obj.astype(np.float64)
    except (TypeError, ValueError):
        out = np.full(len(values), np.nan)
        for i, v in enumerate(values):
            try:
                out[i] = float(v)
            except (TypeError, ValueError):
                pass
        return out


def _launch_chunk(kernels: list[tuple]) -> dict[str, np.ndarray]:
    """Launch args of the kernel rows of one piece: ``row`` (index in the piece) and the LaunchArgs columns."""
    rows, grids, blocks, regs, smem, warps = zip(*kernels)
    g = _dims(grids)
    b = _dims(blocks)
    n = len(rows)
    return {
        "row": np.array(rows, dtype=np.int64),
        "grid_x": g[:, 0], "grid_y": g[:, 1], "grid_z": g[:, 2],
        "block_x": b[:, 0], "block_y": b[:, 1], "block_z": b[:, 2],
        "registers_per_thread": _int_column(regs, -1, np.int32),
        "shared_mem_bytes": _int_column(smem, -1, np.int32),
        "dynamic_shared_mem_bytes": np.full(n, -1, dtype=np.int32),
        "warps_per_sm": _floats(warps),
    }


def _launch_columns(parts: list[tuple[np.ndarray, dict]], n: int) -> dict[str, np.ndarray]:
    """LaunchArgs columns for all ``n`` rows of a file (-1 / NaN on rows that are not kernels)."""
    cols = {name: np.full(n, -1, dtype=np.int32) for name in _LAUNCH_INT}
    cols["warps_per_sm"] = np.full(n, np.nan)
    for rows, vals in parts:
        for name, arr in vals.items():
            cols[name][rows] = arr
    return cols


def _copy_attrs(name: str) -> tuple[int, int]:
    """(copy_kind code, pageable flag) of a Kineto memcpy name such as ``Memcpy HtoD (Pageable -> Device)``."""
    m = _COPY_NAME.match(name)
    if not m:
        return COPY_UNKNOWN, -1
    kind = _COPY_DIRECTIONS.get(m.group(1), COPY_UNKNOWN)
    ends = m.group(2)
    if ends is None:
        return kind, -1
    return kind, 1 if "pageable" in ends.lower() else 0


# ---------------------------------------------------------------------------------------------------- timeline
def _build(parsed: list[_Parsed], src: str) -> Timeline:
    notes: list[str] = []
    traces = [p for p in parsed if p.not_trace is None]
    for p in parsed:
        if p.not_trace is not None:
            notes.append(f"{p.not_trace}: skipped")
    if not traces:
        raise InputError(src, "no PyTorch profiler trace found: " + "; ".join(p.not_trace or "" for p in parsed))
    ranks = _ranks(traces, notes)
    multi = len(traces) > 1
    timelines = []
    for p, rank in zip(traces, ranks):
        timelines.append(_timeline(p, src, rank, multi))
    busy = sum(int(np.isin(tl.kind, _BUSY).sum()) for tl in timelines)
    invalid_busy = sum(r.count for tl in timelines for r in tl.invalid if r.kind in ("kernel", "memcpy", "memset"))
    if busy == 0 and invalid_busy == 0:
        raise InputError(src, _no_gpu_message(traces))
    if not multi:
        tl = timelines[0]
        if notes:
            tl = _with(tl, problems=tuple(notes) + tl.problems)
        return tl
    merged = merge_timelines(timelines, path=src, format=FORMAT)
    meta = dict(merged.meta)
    meta.pop("file", None)
    meta["ranks"] = str(len(traces))
    meta["rank"] = ", ".join(str(r) for r in ranks)
    meta["files"] = ", ".join(p.label for p in traces)
    return _with(merged, meta=meta, problems=tuple(notes) + merged.problems)


def _with(tl: Timeline, **changes) -> Timeline:
    from dataclasses import replace

    return replace(tl, **changes)


def _ranks(traces: list[_Parsed], notes: list[str]) -> list[int]:
    recorded: list[int | None] = []
    for p in traces:
        info = p.top.distributedInfo
        rank = _as_int(info.get("rank")) if isinstance(info, dict) else None
        recorded.append(rank)
    if len(traces) == 1:
        return [recorded[0] if recorded[0] is not None else -1]
    ranks: list[int] = []
    used = {r for r in recorded if r is not None}
    claimed: set[int] = set()
    nxt = 0
    for p, r in zip(traces, recorded):
        if r is not None and r not in claimed:  # the first file naming a rank keeps it
            ranks.append(r)
            claimed.add(r)
            continue
        while nxt in used:
            nxt += 1
        if r is None:
            notes.append(f"{p.label}: rank not recorded (no distributedInfo); numbered {nxt} by file order")
        else:
            notes.append(f"{p.label}: rank {r} is recorded by several files; numbered {nxt} by file order")
        ranks.append(nxt)
        used.add(nxt)
    return ranks


def _timeline(p: _Parsed, src: str, rank: int, multi: bool) -> Timeline:
    cols = dict(p.columns)
    n = cols["kind"].shape[0]
    names = tuple(p.names) if p.names else ("",)
    copy_kind = np.zeros(n, dtype=np.uint8)
    pageable = np.full(n, -1, dtype=np.int8)
    is_copy = cols["kind"] == MEMCPY
    if is_copy.any():
        ids = np.unique(cols["name_id"][is_copy])
        lut_kind = np.zeros(len(names), dtype=np.uint8)
        lut_page = np.full(len(names), -1, dtype=np.int8)
        for i in ids.tolist():
            lut_kind[i], lut_page[i] = _copy_attrs(names[i])
        copy_kind[is_copy] = lut_kind[cols["name_id"][is_copy]]
        pageable[is_copy] = lut_page[cols["name_id"][is_copy]]
    launch = LaunchArgs(**p.launch) if p.launch is not None else None
    top = p.top
    problems = list(p.problems)
    devices = _devices(top, p, cols, problems)
    meta: dict[str, str] = {"file": p.label}
    if rank >= 0:
        meta["rank"] = str(rank)
    else:
        meta["rank"] = "not recorded"  # (the analysis states it: "the trace records no rank ...")
    info = top.distributedInfo if isinstance(top.distributedInfo, dict) else {}
    for key in ("world_size", "backend"):
        if info.get(key) is not None:
            meta[key] = str(info[key])
    meta["time_resolution"] = "ns (fractional µs)" if p.fractional_us else "µs"
    if isinstance(top.displayTimeUnit, str):
        meta["displayTimeUnit"] = top.displayTimeUnit
    if p.window_ns is not None:
        meta["profiler_window_ns"] = f"{p.window_ns[0]}-{p.window_ns[1]}"
    if isinstance(top.traceName, str):
        meta["trace_name"] = top.traceName
    meta["events"] = str(p.events)
    if multi:
        problems = [f"{p.label}: {x}" for x in problems]
    invalid = p.invalid
    if multi:
        invalid = [InvalidRecord(r.kind, r.name, f"{r.reason} ({p.label})", r.count, r.correlation_ids)
                   for r in invalid]
    return Timeline(
        path=src, format=FORMAT, names=names, start_ns=cols["start_ns"], end_ns=cols["end_ns"], kind=cols["kind"],
        name_id=cols["name_id"], device=cols["device"], stream=cols["stream"],
        correlation_id=cols["correlation_id"], bytes=cols["bytes"], copy_kind=copy_kind, pageable=pageable,
        rank=np.full(n, rank, dtype=np.int32), devices=devices, invalid=tuple(invalid), problems=tuple(problems),
        launch=launch, capture_ns=None, tool_version=_tool_version(top), meta=meta,
    )


def _devices(top: _Top, p: _Parsed, cols: dict[str, np.ndarray], problems: list[str]) -> tuple[tuple[int, str], ...]:
    props = top.deviceProperties if isinstance(top.deviceProperties, list) else (
        top.computeProperties if isinstance(top.computeProperties, list) else None)
    devices: list[tuple[int, str]] = []
    if props:
        for i, d in enumerate(props):
            if isinstance(d, dict):
                did = _as_int(d.get("id"))
                devices.append((did if did is not None else i, str(d.get("name") or "")))
    used = sorted(set(np.unique(cols["device"][np.isin(cols["kind"], _BUSY)]).tolist()) - {-1})
    known = {d for d, _ in devices}
    if not props:
        problems.append("deviceProperties not recorded: the GPU model is not named in the trace")
    for d in used:
        if d not in known:
            devices.append((d, ""))
    return tuple(devices)


def _tool_version(top: _Top) -> str | None:
    parts = []
    if top.schemaVersion is not None:
        parts.append(f"Kineto trace schema {top.schemaVersion}")
    if top.cupti_version is not None:
        parts.append(f"CUPTI {top.cupti_version}")
    if top.cuda_runtime_version is not None:
        parts.append(f"CUDA runtime {top.cuda_runtime_version}")
    if top.cuda_driver_version is not None:
        parts.append(f"CUDA driver {top.cuda_driver_version}")
    return ", ".join(parts) or None


def _no_gpu_message(traces: list[_Parsed]) -> str:
    skipped: Counter = Counter()
    events = 0
    for p in traces:
        skipped.update(p.skipped)
        events += p.events
    if skipped.get("cuda_profiler_range"):
        return (f"recorded no GPU activity: no kernel, memcpy or memset events among its {events} events; it holds "
                f"{skipped['cuda_profiler_range']} CUPTI range-profiler records ('cuda_profiler_range': per-kernel "
                "hardware counters without real timing), written when torch.profiler runs with "
                "experimental_config(profiler_metrics=...). Record a timeline with "
                "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] and no profiler_metrics")
    return (f"recorded no GPU activity: no kernel, memcpy or memset events among its {events} events (usually: "
            "the profiler ran without ProfilerActivity.CUDA, or no CUDA work ran in the profiled steps)")


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} bytes"

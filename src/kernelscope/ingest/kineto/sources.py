"""Opening the inputs of the Kineto reader: one trace file, a directory of per-rank traces, or a tar archive.

* one trace: ``.json`` or ``.json.gz`` (gzip is recognised by its magic bytes, whatever the name);
* a directory of per-rank traces (``*.json`` / ``*.json.gz`` below it, sorted by path; hidden paths skipped),
  parsed in this process or by a pool of forked processes, one file each at a time;
* a ``.tar`` / ``.tar.gz`` / ``.tgz`` of per-rank traces. Members are read straight from the archive as a stream
  (nothing is extracted to disk), and the archive is refused (:class:`InputError`) when any member has an
  absolute path or a ``..`` component, is a symbolic / hard link, a device or a FIFO, or when the member count or
  the (declared or decompressed) sizes pass the reader's limits.

Every decompressed byte is charged to a :class:`_Budget` (zip bombs, oversized inputs). Each stream is parsed by
:func:`~kernelscope.ingest.kineto.columns._parse_trace`; the result is one :class:`_Parsed` per trace file.
"""

from __future__ import annotations

import gc
import gzip
import io
import os
import re
import tarfile
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ...errors import InputError
from ..inflate import GZIP_ERRORS, GZIP_MAGIC, gzip_reader
from ..limits import InflateLimits, size_text
from .columns import _Parsed, _parse_trace

_GZIP_MAGIC = GZIP_MAGIC


# ---------------------------------------------------------------------------------------------------- one file
def _read_file(p: Path, src: str, budget: _Budget, limits: InflateLimits, max_member_bytes: int, max_members: int,
               chunk_bytes: int) -> list[_Parsed]:
    """A file: one trace (plain or gzip), or a tar archive of traces. A compressed file (and every archive: its
    members may be gzip files) may inflate to at most ``limits.for_compressed`` of its size on disk."""
    try:
        with p.open("rb") as fh:
            head = fh.read(600)
            fh.seek(0)
            if not head:
                raise InputError(src, "file is empty; expected a PyTorch profiler trace (.json / .json.gz)",
                                 key="file_empty", values={"expected": "a PyTorch profiler trace (.json / .json.gz)"})
            tar = _is_tar(fh, head, p.name)
            if tar or head[:2] == _GZIP_MAGIC:
                budget.narrow(*limits.for_compressed(os.fstat(fh.fileno()).st_size))
            if tar:
                return _read_tar(fh, src, budget, max_member_bytes, max_members, chunk_bytes)
            stream = _decompressed(fh, head, src, budget, budget.limit)
            return [_parse_trace(stream, src, p.name, chunk_bytes)]
    except OSError as exc:
        raise InputError(src, key="kineto_cannot_read", values={"value": exc.strerror or exc}) from None


def _is_tar(fh: BinaryIO, head: bytes, name: str = "") -> bool:
    """A tar archive, plain or gzip-compressed ("ustar" at offset 257 of the first block, or the name says so)."""
    if name.lower().endswith((".tar", ".tar.gz", ".tgz")):
        return True
    if head[:2] == _GZIP_MAGIC:
        try:
            block = gzip_reader(fh).read(512)
        except (OSError, *GZIP_ERRORS):
            block = b""
        fh.seek(0)
        return block[257:262] == b"ustar"
    return head[257:262] == b"ustar"


# ------------------------------------------------------------------------------------------------- size limits
class _Budget:
    """Counts decompressed bytes against a limit (zip bombs, oversized inputs); ``why`` names the limit."""

    def __init__(self, source: str, limit: int, why: str = "the reader's limit") -> None:
        self.source = source
        self.limit = limit
        self.why = why
        self.used = 0

    def narrow(self, limit: int, why: str) -> None:
        """Lower the limit to ``limit`` (named ``why``) when it is below the current one."""
        if limit < self.limit:
            self.limit, self.why = limit, why

    def take(self, n: int, what: str) -> None:
        """Charge ``n`` more bytes of ``what`` (a trace, an archive member); InputError past the limit."""
        self.used += n
        if self.used > self.limit:
            raise InputError(self.source, key="decompression_bomb",
                values={"what": what, "limit": _size(self.limit), "why": self.why})


class _Counted(io.RawIOBase):
    """A read-only stream that charges every byte it returns to a :class:`_Budget` (and to a per-stream limit,
    named ``why``)."""

    def __init__(self, inner: BinaryIO, budget: _Budget, member_limit: int, what: str,
                 why: str = "the reader's limit", compressed: bool = False) -> None:
        self.inner = inner
        self.budget = budget
        self.member_limit = member_limit
        self.what = what
        self.why = why
        self.count = 0
        self.compressed = compressed  # byte offsets in messages are of decompressed data

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = self.inner.read(n)
        self._take(len(data))
        return data

    def readinto(self, b) -> int:
        n = self.inner.readinto(b)
        self._take(n)
        return n

    def _take(self, n: int) -> None:
        self.count += n
        self.budget.take(n, self.what)
        if self.count > self.member_limit:
            raise InputError(self.budget.source, key="decompression_bomb_member",
                values={"what": self.what, "member_limit": _size(self.member_limit), "why": self.why})


def _decompressed(fh: BinaryIO, head: bytes, source: str, budget: _Budget, member_limit: int,
                  what: str = "the trace", why: str = "the reader's limit") -> BinaryIO:
    compressed = head[:2] == _GZIP_MAGIC
    inner: BinaryIO = gzip_reader(fh) if compressed else fh
    return _Counted(inner, budget, member_limit, what, why, compressed)  # type: ignore[return-value]


_size = size_text


# --------------------------------------------------------------------------------------------------- directory
def _trace_name(name: str) -> bool:
    low = name.lower()
    return low.endswith((".json", ".json.gz"))


def _trace_files(p: Path, src: str, max_members: int) -> list[Path]:
    """The trace files below directory ``p``, sorted by path (hidden files and directories skipped)."""
    files = []
    for f in sorted(p.rglob("*")):
        rel = f.relative_to(p)
        if any(part.startswith(".") for part in rel.parts) or not f.is_file() or not _trace_name(f.name):
            continue
        files.append(f)
        if len(files) > max_members:
            raise InputError(src, key="dir_too_many_traces", values={"max_members": max_members})
    if not files:
        raise InputError(src, key="dir_no_kineto")
    return files


def _read_directory(p: Path, files: list[Path], src: str, budget: _Budget, limits: InflateLimits, workers: int,
                    chunk_bytes: int) -> list[_Parsed]:
    """Parse the trace ``files`` of directory ``p``: in this process, or by ``workers`` forked processes."""
    labels = [str(f.relative_to(p)) for f in files]
    if workers > 1:
        import concurrent.futures  # (the pool's modules: only for a directory parsed in parallel)
        import multiprocessing

        global _SLOTS
        ctx = multiprocessing.get_context("fork")
        _SLOTS = _Slots.of(files)  # (before the pool forks its workers: they inherit the map)
        try:
            with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                                        initializer=_start_worker) as pool:
                results = list(pool.map(_parse_file_job, [(str(f), src, lab, budget.limit, limits, chunk_bytes, i)
                                                          for i, (f, lab) in enumerate(zip(files, labels))]))
            slots, _SLOTS = _SLOTS, None
            results = [slots.load(r) if isinstance(r, _InSlot) else r for r in results]
        finally:
            _SLOTS = None
    else:
        shapes: dict = {}
        results = [_parse_file_job((str(f), src, lab, budget.limit, limits, chunk_bytes, i), budget, shapes)
                   for i, (f, lab) in enumerate(zip(files, labels))]
    out = []
    for res in results:
        if isinstance(res, tuple):  # an InputError raised in a worker: its parts()
            raise InputError.restored(res)
        budget.take(res.input_bytes, "the directory")
        out.append(res)
    return out


#: In a worker process: the operator shapes decoded from the files it parsed (see :func:`_parse_trace`).
_WORKER_SHAPES: dict = {}


class _InSlot(tuple):
    """What a worker returns for a file whose parse it wrote into its slot of :class:`_Slots`: the (start, end)
    byte spans there of the pickle and of its out-of-band buffers."""


class _Slots:
    """One shared anonymous memory map that the workers of a directory's pool inherit (``fork``), one slot per
    file, as large as the file on disk (four times for gzip, whose parse can be larger than the compressed
    bytes). A worker writes its file's parse there (pickle protocol 5, the NumPy columns as out-of-band buffers)
    and returns only where; the parent rebuilds it with the columns as views of the map, no copy. Through the
    pool's pipe instead (pickled, sent through a 64 KiB pipe while both CPUs parse, unpickled), handing back the
    7.5 MB parse of a 25 MB trace took a worker 15-20 ms on this project's 2-core machine: 0.61 s for the 8 files
    of the 189 MB benchmark directory, 0.53-0.58 s this way. A parse that does not fit its slot (or a map the
    system refuses) goes through the pipe as before."""

    __slots__ = ("map", "starts")

    def __init__(self, size: int, starts: list[int]) -> None:
        import mmap

        self.map = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        self.starts = starts

    @classmethod
    def of(cls, files: list[Path]) -> "_Slots | None":
        """Slots for ``files`` (None where the platform or the system does not give the map)."""
        starts = [0]
        try:
            for f in files:
                with open(f, "rb") as fh:
                    size = os.fstat(fh.fileno()).st_size
                    size *= 4 if fh.read(2) == _GZIP_MAGIC else 1
                starts.append(starts[-1] + size)
            return cls(starts[-1], starts)
        except (OSError, ValueError, AttributeError):  # (no shared anonymous maps, no memory, a file gone)
            return None

    def put(self, i: int, parsed: _Parsed) -> _InSlot | None:
        """Write ``parsed`` into slot ``i`` (in a worker); None when it does not fit."""
        import pickle

        buffers: list = []
        head = pickle.dumps(parsed, protocol=5, buffer_callback=buffers.append)
        parts = [memoryview(head)] + [b.raw() for b in buffers]
        pos, end = self.starts[i], self.starts[i + 1]
        if pos + sum(b.nbytes for b in parts) > end:
            return None
        spans = []
        with memoryview(self.map) as mv:
            for b in parts:
                mv[pos:pos + b.nbytes] = b
                spans.append((pos, pos + b.nbytes))
                pos += b.nbytes
        return _InSlot(spans)

    def load(self, spans: _InSlot) -> _Parsed:
        """The parse written at ``spans`` (in the parent): its columns are views of the map."""
        import pickle

        mv = memoryview(self.map)
        (a, b), rest = spans[0], spans[1:]
        return pickle.loads(mv[a:b], buffers=[mv[x:y] for x, y in rest])


#: In the parent, while a directory's pool runs: the slots its workers write their parses into.
_SLOTS: _Slots | None = None


def _start_worker() -> None:
    """A worker process starts with no shapes of its own (not those of the process it was forked from)."""
    global _WORKER_SHAPES
    _WORKER_SHAPES = {}


def _parse_file_job(job: tuple[str, str, str, int, InflateLimits, int, int], budget: _Budget | None = None,
                    shapes: dict | None = None):
    """Parse one file of a directory (in a worker process, with the worker's shapes, or in this one, with
    ``shapes``). Returns the ``_Parsed`` (from a worker, where it fits: an :class:`_InSlot` saying where in the
    :class:`_Slots` it is) or, for a refusal, the InputError's ``parts()`` (exceptions with extra constructor
    arguments do not pickle). A gzip file may inflate to at most ``limits.for_compressed`` of its size on disk."""
    path, src, label, limit, limits, chunk_bytes, index = job
    own = budget if budget is not None else _Budget(src, limit, limits.absolute())
    before = own.used
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            cap, why = (limits.for_compressed(os.fstat(fh.fileno()).st_size) if head[:2] == _GZIP_MAGIC
                        else (limit, own.why))
            stream = _decompressed(fh, head, src, own, cap, what=label, why=why)
            parsed = _parse_trace(stream, src, label, chunk_bytes, optional=True,
                                  shapes=_WORKER_SHAPES if budget is None else shapes)
    except OSError as exc:
        return InputError(src, key="kineto_member_cannot_read",
                          values={"label": label, "value": exc.strerror or exc}).parts()
    except InputError as exc:
        return exc.parts()
    finally:
        if gc_was_enabled:
            gc.enable()
    parsed.input_bytes = own.used - before if budget is None else 0
    if budget is None and _SLOTS is not None:
        return _SLOTS.put(index, parsed) or parsed
    return parsed


# ------------------------------------------------------------------------------------------------- tar archive
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


def _read_tar(fh: BinaryIO, src: str, budget: _Budget, max_member_bytes: int, max_members: int,
              chunk_bytes: int) -> list[_Parsed]:
    out: list[_Parsed] = []
    skipped: list[str] = []
    shapes: dict = {}  # (the members share their decoded operator shapes)
    declared = 0
    count = 0
    try:
        gz = fh.read(2) == _GZIP_MAGIC
        fh.seek(0)
        with tarfile.open(fileobj=gzip_reader(fh), mode="r|") if gz else tarfile.open(fileobj=fh, mode="r|*") as tar:
            for m in tar:
                count += 1
                if count > max_members:
                    raise InputError(src, key="archive_too_many_members", values={"max_members": max_members})
                why = _unsafe_member(m)
                if why:
                    raise InputError(src, key="archive_unsafe_member", values={"name": m.name, "why": why})
                if m.isdir():
                    continue
                if m.size > max_member_bytes:
                    raise InputError(src, key="archive_member_too_big",
                        values={"name": m.name, "size": _size(m.size), "max_member_bytes": _size(max_member_bytes)})
                declared += m.size
                if declared > budget.limit:
                    raise InputError(src, key="archive_too_big",
                        values={"limit": _size(budget.limit), "why": budget.why})
                if not _trace_name(m.name):
                    skipped.append(m.name)
                    continue
                member = tar.extractfile(m)
                if member is None:  # pragma: no cover - isfile() members always have one
                    continue
                head = member.read(2)
                body = _Prefixed(head, member)
                stream = _decompressed(body, head, src, budget, max_member_bytes, what=f"member '{m.name}'",
                                      why="the reader's limit per archive member")
                out.append(_parse_trace(stream, src, m.name, chunk_bytes, optional=True, shapes=shapes))
    except gzip.BadGzipFile as exc:
        raise InputError(src, key="bad_gzip_in_archive", values={"exc": exc}) from None
    except (tarfile.TarError, *GZIP_ERRORS) as exc:
        raise InputError(src, key="bad_archive", values={"exc": exc}) from None
    if not out:
        raise InputError(src, key="archive_no_kineto",
            values={"value": f"; it holds: {', '.join(skipped[:5])}" if skipped else ''})
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

    def readinto(self, b) -> int:  # (isal's gzip reader fills buffers)
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)

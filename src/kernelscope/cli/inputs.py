"""Input files that are streams: ``-`` (standard input), ``/dev/stdin``, ``/dev/fd/N`` (a shell's process
substitution, ``<(zcat trace.json.gz)``), FIFOs and character devices.

The readers need a file they can open by name, read twice (detection, then reading) and seek in (SQLite and
``ncu_report`` need a path). So every stream input is read once, to its end, into a temporary file (a private
folder, deleted when the command ends); its name carries the extension its first bytes call for (``.ncu-rep``,
``.sqlite``, ``.json``, ``.toml``, ``.tar``) so that detection by name works as it does for files. What the
command prints names the input as the user gave it (``-`` as ``<stdin>``), never the temporary file.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
import tomllib
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from ..errors import InputError, KernelscopeError

#: Most bytes one stream input may hold (it is copied to a temporary file).
MAX_SPOOL_BYTES = 16 << 30
#: How a stream that is standard input is named in messages and reports.
STDIN_LABEL = "<stdin>"
#: Names of an open descriptor: /dev/stdin, /dev/fd/N, /proc/self/fd/N.
_FD_NAME = re.compile(r"^/(?:dev/stdin|dev/fd/(\d+)|proc/self/fd/(\d+))$")
_CHUNK = 1 << 20


class Spools:
    """The stream inputs of one command, each copied to a temporary file (see the module): :meth:`path` gives the
    file a reader opens, :meth:`label` the name to show, :meth:`relabel` a result with the shown names."""

    def __init__(self) -> None:
        self.folder: str | None = None  # made for the first stream input
        self.labels: dict[str, str] = {}  # temporary file -> the input as the user named it
        self.given: dict[str, str] = {}  # temporary file -> the stream it copies (each stream is copied once)

    def path(self, given: str | None) -> str | None:
        """The file to read for the input ``given`` (``given`` itself unless it is a stream, which is copied on the
        first call and the same copy returned after)."""
        if given is None or not _is_stream(given):
            return given
        for tmp, was in self.given.items():
            if was == given:
                return tmp
        label = STDIN_LABEL if given == "-" else given
        if self.folder is None:
            try:
                self.folder = tempfile.mkdtemp(prefix="kernelscope-stdin-")
            except OSError as exc:
                raise InputError(label, key="cannot_copy_stream", values={"strerror": exc.strerror}) from None
        tmp = _spool(given, label, self.folder, len(self.labels))
        self.labels[tmp] = label
        self.given[tmp] = given
        return tmp

    def label(self, path: str) -> str:
        """The name to show for a path :meth:`path` returned (escaped as :func:`shown`)."""
        return self.labels.get(path, shown(path))

    def text(self, text: str) -> str:
        """``text`` with every temporary file name replaced by the input's name."""
        for tmp, label in self.labels.items():
            text = text.replace(tmp, label)
        return text

    def relabel(self, result: Any) -> Any:
        """A result (``ReportDiagnosis``, ``SourceReport``, ``TimelineReport``) naming its input as the user gave
        it: its ``report.path`` / ``path`` mapped back from the temporary file."""
        report = getattr(result, "report", None)
        path = getattr(report, "path", None)
        if isinstance(path, str) and self.label(path) != path:
            return dataclasses.replace(result, report=dataclasses.replace(report, path=self.label(path)))
        path = getattr(result, "path", None)
        if isinstance(path, str) and self.label(path) != path:
            return dataclasses.replace(result, path=self.label(path))
        return result


def shown(path: str) -> str:
    """A file name as it is shown and written in reports: itself, or, when it holds bytes that are not UTF-8 (which
    Python hands over as lone surrogates, e.g. ``b"r\\xff.ncu-rep"`` as ``"r\\udcff.ncu-rep"``), those bytes
    escaped as ``\\xff`` (every output is UTF-8 text; a surrogate cannot be encoded in it)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@contextmanager
def spooled(inputs: Sequence[str | None]) -> Iterator[Spools]:
    """The stream inputs among ``inputs``, checked (standard input at most once, no stream twice) and then copied
    on demand (:meth:`Spools.path`); the temporary files are deleted when the block ends. An error raised inside
    names the inputs as the user gave them.

    Raises:
        InputError: standard input (or one stream) named twice, or standard input is a terminal.
    """
    _check_streams(inputs)
    spools = Spools()
    try:
        yield spools
    except InputError as exc:
        if not spools.labels:
            raise
        raise exc.relabelled(spools.text(exc.source), spools.text) from None
    except KernelscopeError as exc:
        if spools.labels and exc.args and isinstance(exc.args[0], str):
            exc.args = (spools.text(exc.args[0]), *exc.args[1:])
        raise
    except OSError as exc:
        if isinstance(exc.filename, str):
            exc.filename = spools.label(exc.filename)
        raise
    finally:
        if spools.folder is not None:
            shutil.rmtree(spools.folder, ignore_errors=True)


def _descriptor(given: str) -> int | None:
    """The descriptor an input names (``-``: 0, ``/dev/stdin``: 0, ``/dev/fd/N``), or None."""
    if given == "-":
        return 0
    m = _FD_NAME.match(given)
    if m is None:
        return None
    return int(m.group(1) or m.group(2) or 0)


def _is_stream(given: str) -> bool:
    """Whether an input is read as a stream: ``-`` or a descriptor's name, or a FIFO / character device / socket."""
    if _descriptor(given) is not None:
        return True
    try:
        mode = os.stat(given).st_mode
    except OSError:
        return False  # the reader says what is wrong with it
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def _check_streams(inputs: Sequence[str | None]) -> None:
    """Standard input and every other stream can be read once: refuse one named twice (``-`` twice, ``-`` and
    ``/dev/stdin``, one FIFO twice), and standard input on a terminal (it would wait for typing)."""
    seen: dict[object, str] = {}
    for given in inputs:
        if given is None or not _is_stream(given):
            continue
        fd = _descriptor(given)
        if fd == 0 and os.isatty(0):
            raise InputError(given, "standard input is a terminal; pipe a file into it "
                                    "(kernelscope COMMAND - < FILE) or name the file", key="stdin_is_terminal")
        key: object = ("fd", fd)
        if fd is None:
            try:
                st = os.stat(given)
                key = (st.st_dev, st.st_ino)
            except OSError:
                key = given
        if key in seen:
            what = "standard input" if fd == 0 else "the same stream"
            raise InputError(given, key="stream_named_twice", values={"what": what, "seen": seen[key]})
        seen[key] = given


def _spool(given: str, label: str, folder: str, n: int) -> str:
    """Copy the stream ``given`` to a file in ``folder``, named for what its first bytes are; returns its path.

    Raises:
        InputError: it cannot be read, holds nothing, or more than :data:`MAX_SPOOL_BYTES`; the temporary folder
            is full.
    """
    base = os.path.join(folder, f"input{n}")
    total = 0
    head = b""
    try:
        src = sys.stdin.buffer if _descriptor(given) == 0 else open(given, "rb")
    except OSError as exc:
        raise InputError(label, key="cannot_read_stream", values={"strerror": exc.strerror}) from None
    try:
        with open(base, "wb") as out:
            while chunk := src.read(_CHUNK):
                if len(head) < 4096:
                    head += chunk[:4096]
                total += len(chunk)
                if total > MAX_SPOOL_BYTES:
                    raise InputError(label, key="stream_too_big", values={"max_spool_bytes": MAX_SPOOL_BYTES >> 30})
                out.write(chunk)
    except OSError as exc:
        where = "write a temporary copy" if exc.filename == base or exc.errno == errno.ENOSPC else "read the stream"
        raise InputError(label, key="cannot_spool", values={"where": where, "strerror": exc.strerror}) from None
    finally:
        if src is not sys.stdin.buffer:
            src.close()
    if total == 0:
        raise InputError(label, "is empty (nothing was written into it); expected a profiler file's content",
                         key="stream_empty")
    path = base + _suffix(head, base)
    os.replace(base, path)
    return path


_JSON_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*[\[{]")


def _suffix(head: bytes, path: str) -> str:
    """The extension a spooled input's name gets, from its first bytes (and, for TOML, its whole text)."""
    if head.startswith(b"NVR\x00"):
        return ".ncu-rep"
    if head.startswith(b"SQLite format 3\x00"):
        return ".sqlite"
    if head[257:262] == b"ustar":
        return ".tar"
    if head[:2] == b"\x1f\x8b":
        return ".gz"
    if _JSON_START.match(head):
        return ".json"
    try:
        if os.path.getsize(path) <= 16 << 20:
            with open(path, "rb") as fh:
                if tomllib.loads(fh.read().decode("utf-8-sig")):
                    return ".toml"
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        pass
    return ""

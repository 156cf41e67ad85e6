"""The ``.ncu-rep`` container: its framing, walked without reading the payloads, to tell an intact report from a
truncated or foreign file before NVIDIA's ``ncu_report`` sees it, and to find the version of Nsight Compute that
wrote it and how it measured (facts in the docstring of :mod:`.ncu_rep`).

How it measured (message and field numbers of NVIDIA's ``ProfilerReport.proto``, package ``NV.Profiler.Messages``,
whose descriptor ``ncu_report``'s ``_ncu_report.so`` embeds): a block header (``BlockHeader``) may hold the session
(field 3, ``ReportSessionDetails``) with ``ProfilerCmdline`` (11, the ``ncu`` command line, written by the command
line tool) and ``ProfilerSettings`` (10, written by the GUI: ``ClockControlMode`` 8 and ``ReplayMode`` 11, strings);
every kernel result (``ProfileResult``, a payload message of a block with results) holds ``ClockStatus`` (field 25:
``RequestedLock`` 1, ``ExecutedLocked`` 2). Cache control is recorded only on the command line. ``ncu_report``
exposes none of these.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field

from .files import starts_with

_VERSION_RE = re.compile(rb"(20\d\d\.\d+\.\d+)(?:\.(\d+))? \(build \d+\)")
_KNOWN_FILE_VERSIONS = {7}  # FileHeader.Version of every report in the corpus (Nsight Compute 2021.2 .. 2026.2)


@dataclass
class Container:
    """What the framing walk of one file found (see :func:`scan_container`)."""

    empty: bool = False
    foreign: str | None = None  # set when the file lacks the "NVR" signature: what it looks like instead
    truncated: str | None = None  # set when the block walk proves the file is cut short
    intact: bool = False  # the block walk ended exactly at end of file
    results: int = 0  # results announced by the block headers walked
    complete_results: int = 0  # of those, the ones whose block payload lies wholly inside the file
    version: str | None = None
    cmdline: str | None = None  # the ncu command line the session recorded (ReportSessionDetails.ProfilerCmdline)
    settings: dict[str, str] = field(default_factory=dict)  # ProfilerSettings strings: "ClockControlMode", "ReplayMode"
    clock_status: tuple[bool, bool] | None = None  # first kernel result's (RequestedLock, ExecutedLocked), when read
    range_results: int = 0  # range results (range replay) announced by the block headers walked


def scan_container(path: str, clock_status: bool = False) -> Container:
    """Check the ``.ncu-rep`` framing without reading payloads (see the module docstring), and read the session's
    command line and settings from the block headers.

    Gives a verdict only when sure: an unknown container version or framing yields no verdict, and
    ``ncu_report`` alone decides. ``clock_status``: also read the first kernel result's payload message for its
    ``ClockStatus`` (``Container.clock_status``).
    """
    out = Container()
    size = os.path.getsize(path)
    if size == 0:
        out.empty = True
        return out
    with open(path, "rb") as f:
        head = f.read(8)
        if head[:4] != b"NVR\0":
            out.foreign = _describe_start(head + f.read(56))
            return out
        if len(head) < 8:
            out.truncated = "the file ends inside its file header"
            return out
        (n,) = struct.unpack_from("<I", head, 4)
        file_header = f.read(n) if 8 + n <= size else b""  # a corrupted length: no huge read
        if len(file_header) < n:
            out.truncated = "the file ends inside its file header"
            return out
        fh = _pb_varints(file_header)
        if fh is None or fh.get(1) not in _KNOWN_FILE_VERSIONS:
            return out
        pos = 8 + n
        block = 0
        while pos < size:
            raw = f.read(4)
            if len(raw) < 4:
                out.truncated = f"the file ends inside the header of block {block}"
                return out
            (n,) = struct.unpack_from("<I", raw)
            header = f.read(n) if pos + 4 + n <= size else b""
            if len(header) < n:
                out.truncated = f"the file ends inside the header of block {block}"
                return out
            fields = _pb_varints(header)
            if fields is None:
                return out
            if out.version is None:
                m = _VERSION_RE.search(header)
                if m:
                    out.version = _version_text(m)
            _session(header, out)
            announced = int(fields.get(2, 0))
            out.results += announced
            out.range_results += int(fields.get(7, 0))
            payload = int(fields.get(5, 0))
            kernels_only = announced and not any(fields.get(k) for k in (1, 7, 8, 9))  # no sources, ranges, ...
            if clock_status and out.clock_status is None and kernels_only and pos + 4 + n + payload <= size:
                out.clock_status = _clock_status(f, payload)
            pos += 4 + n + payload
            if pos > size:
                out.truncated = (
                    f"it ends {pos - size} bytes before the end of block {block}, whose header announces "
                    f"a {payload}-byte payload"
                )
                return out
            out.complete_results += announced
            f.seek(pos)
            block += 1
        if block == 0:  # every report holds its session's block at least (one with 0 results too)
            out.truncated = "the file ends after its file header, before its first block"
            return out
        out.intact = True
    return out


def _session(header: bytes, out: Container) -> None:
    """The command line and profiler settings of a block header's session details, into ``out`` (first found)."""
    for number, value in _pb_fields(header) or ():
        if number != 3 or not isinstance(value, bytes):
            continue
        for key, item in _pb_fields(value) or ():
            if key == 11 and isinstance(item, bytes) and out.cmdline is None:
                out.cmdline = item.decode("utf-8", "replace")
            elif key == 10 and isinstance(item, bytes):
                for k, v in _pb_fields(item) or ():
                    name = {8: "ClockControlMode", 11: "ReplayMode"}.get(k)
                    if name and isinstance(v, bytes):
                        out.settings.setdefault(name, v.decode("utf-8", "replace"))


#: Largest first result message read for its clock status (a bigger one is left unread: no verdict).
_MAX_RESULT_BYTES = 256 * 1024 * 1024


def _clock_status(f, payload: int) -> tuple[bool, bool] | None:
    """``(RequestedLock, ExecutedLocked)`` of the first message of a result block's payload (the file positioned
    at the payload), or None when it is not there; the file position is restored by the caller's seek."""
    raw = f.read(4) if payload >= 4 else b""
    if len(raw) < 4:
        return None
    (n,) = struct.unpack_from("<I", raw)
    if n > payload - 4 or n > _MAX_RESULT_BYTES:
        return None
    for number, value in _pb_fields(f.read(n)) or ():
        if number == 25 and isinstance(value, bytes):
            status = dict((k, v) for k, v in (_pb_fields(value) or ()) if isinstance(v, int))
            if 1 in status and 2 in status:
                return bool(status[1]), bool(status[2])
    return None


def _pb_fields(data: bytes) -> list[tuple[int, int | bytes]] | None:
    """Top-level fields of a protobuf message: (number, varint value or length-delimited bytes); fixed-width
    fields skipped; None if malformed."""
    out: list[tuple[int, int | bytes]] = []
    i, n = 0, len(data)
    try:
        while i < n:
            key, i = _varint(data, i)
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, i = _varint(data, i)
                out.append((number, value))
            elif wire == 2:
                length, i = _varint(data, i)
                if i + length > n:
                    return None
                out.append((number, data[i:i + length]))
                i += length
            elif wire in (1, 5):
                i += 8 if wire == 1 else 4
            else:
                return None
    except IndexError:
        return None
    return out if i == n else None


def _version_text(m: re.Match[bytes]) -> str:
    """``b"2023.1.1.0 (build ...)"`` -> ``"2023.1.1"``; a non-zero 4th component is kept."""
    base = m.group(1).decode("ascii")
    build = m.group(2)
    return base if build in (None, b"0") else f"{base}.{build.decode('ascii')}"


def _pb_varints(data: bytes) -> dict[int, int] | None:
    """Top-level varint fields of a protobuf message (other wire types skipped); None if malformed."""
    out: dict[int, int] = {}
    i, n = 0, len(data)
    try:
        while i < n:
            key, i = _varint(data, i)
            field, wire = key >> 3, key & 7
            if wire == 0:
                value, i = _varint(data, i)
                out.setdefault(field, value)
            elif wire == 2:
                length, i = _varint(data, i)
                i += length
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            else:
                return None
    except IndexError:
        return None
    return out if i == n else None


def _varint(data: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, i
        if shift > 63:
            raise IndexError("varint too long")


def _describe_start(data: bytes) -> str:
    text, shown = starts_with(data)
    if text:
        return f"it is text starting with {shown}, not a file with the 'NVR' signature of .ncu-rep"
    return f"it starts with the bytes {shown}, not the 'NVR' signature of .ncu-rep"



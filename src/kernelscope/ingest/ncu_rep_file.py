"""The ``.ncu-rep`` container: its framing, walked without reading the payloads, to tell an intact report from a
truncated or foreign file before NVIDIA's ``ncu_report`` sees it, and to find the version of Nsight Compute that
wrote it (facts in the docstring of :mod:`.ncu_rep`).
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass

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


def scan_container(path: str) -> Container:
    """Check the ``.ncu-rep`` framing without reading payloads (see the module docstring).

    Gives a verdict only when sure: an unknown container version or framing yields no verdict, and
    ``ncu_report`` alone decides.
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
            announced = int(fields.get(2, 0))
            out.results += announced
            payload = int(fields.get(5, 0))
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
        out.intact = True
    return out


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
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and all(c.isprintable() or c in "\r\n\t" for c in text):
        snippet = " ".join(text.split())[:40]
        return f"it is text starting with {snippet!r}, not a file with the 'NVR' signature of .ncu-rep"
    return f"it starts with the bytes {data[:8].hex(' ')}, not the 'NVR' signature of .ncu-rep"



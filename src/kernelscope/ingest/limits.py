"""How much one input may make a reader hold: limits on decompressed size and on JSON nesting.

Compressed inputs (a ``.json.gz`` trace, a ``.tar.gz`` archive, gzip members inside an archive) are refused once
their decompressed bytes pass either limit, checked while they are read (a decompression bomb is stopped after
reading at most the limit, never inflated whole):

* relative: :data:`ENV_RATIO` (``KERNELSCOPE_MAX_INFLATE_RATIO``, default :data:`DEFAULT_RATIO`) times the
  file's size on disk, but never below :data:`RATIO_FLOOR_BYTES` (a small file may always inflate that far);
* absolute: :data:`ENV_BYTES` (``KERNELSCOPE_MAX_INFLATE_BYTES``, default :data:`DEFAULT_BYTES`), which also
  bounds what one uncompressed input (a file, a directory or archive of traces) may hold in all.

Real traces compress 8x to 26x (the shared corpus); gzip cannot exceed about 1030x, so a bomb is stopped at
the relative limit. Both variables take a number; the byte limit also takes a binary unit (``512MiB``, ``16G``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from ..errors import InputError

#: Environment variable: most decompressed bytes per byte on disk.
ENV_RATIO = "KERNELSCOPE_MAX_INFLATE_RATIO"
#: Environment variable: most bytes one input may hold once decompressed.
ENV_BYTES = "KERNELSCOPE_MAX_INFLATE_BYTES"
#: Default of :data:`ENV_RATIO` (the corpus' most compressible trace: 26x).
DEFAULT_RATIO = 100.0
#: Default of :data:`ENV_BYTES`.
DEFAULT_BYTES = 16 << 30
#: A compressed file may always inflate to this many bytes, whatever its ratio.
RATIO_FLOOR_BYTES = 64 << 20

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\s*([kmgtKMGT]?)(?:i?[bB])?\s*$")


@dataclass(frozen=True)
class InflateLimits:
    """The decompression limits in force (see the module docstring)."""

    max_bytes: int = DEFAULT_BYTES
    max_ratio: float = DEFAULT_RATIO

    def for_compressed(self, compressed_bytes: int) -> tuple[int, str]:
        """The most bytes a compressed input of ``compressed_bytes`` on disk may inflate to, and which limit
        that is, worded for a message ("100x its 2 MiB on disk (KERNELSCOPE_MAX_INFLATE_RATIO)")."""
        relative = max(int(min(self.max_ratio * max(compressed_bytes, 0), 2.0 ** 62)), RATIO_FLOOR_BYTES)
        if relative < self.max_bytes:
            return relative, (f"{self.max_ratio:g}x its {size_text(compressed_bytes)} on disk "
                              f"(the limit: {ENV_RATIO}={self.max_ratio:g})")
        return self.max_bytes, self.absolute()

    def absolute(self) -> str:
        """The absolute limit, worded for a message."""
        return f"the limit ({ENV_BYTES}={self.max_bytes})"


def inflate_limits() -> InflateLimits:
    """The limits set by the environment (:data:`ENV_RATIO`, :data:`ENV_BYTES`), defaults where unset or empty.

    Raises:
        InputError: a variable that is not a positive number (named, with the value).
    """
    ratio = os.environ.get(ENV_RATIO, "").strip()
    size = os.environ.get(ENV_BYTES, "").strip()
    return InflateLimits(max_bytes=parse_size(size, ENV_BYTES) if size else DEFAULT_BYTES,
                         max_ratio=_parse_ratio(ratio) if ratio else DEFAULT_RATIO)


def _parse_ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 1:
        raise InputError(ENV_RATIO, key="bad_ratio_limit", values={"text": text})
    return value


def parse_size(text: str, name: str) -> int:
    """A byte count as an environment variable gives it: ``1073741824``, ``512MiB``, ``16G`` (binary units).

    Raises:
        InputError: not a positive size (``name`` is the variable).
    """
    m = _SIZE.match(text)
    value = float(m.group(1)) * _UNITS[m.group(2).lower()] if m else math.nan
    if not math.isfinite(value) or value < 1:
        raise InputError(name, key="bad_byte_limit", values={"text": text})
    return int(min(value, 2.0 ** 62))


def size_text(n: int) -> str:
    """A byte count for a message: ``2 MiB``, ``16 GiB``, ``512 bytes``."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"

"""gzip streams for the readers: python-isal's ``igzip`` when it is installed, else the standard library's ``gzip``.

Intel ISA-L's inflate (python-isal, https://github.com/pycompression/python-isal, a dependency of this package) is
about twice zlib's speed: 26.2 MB of Kineto JSON in 0.030 s of CPU against 0.064 s (this project's 2-core machine,
``kineto_tbplugin_resnet50`` of the shared corpus). Both read the same format; only the error types differ, and
:data:`GZIP_ERRORS` holds both sets.
"""

from __future__ import annotations

import gzip
import zlib
from typing import BinaryIO

try:  # pragma: no branch - one of the two is taken on a given installation
    from isal import igzip as _gzip
    from isal.isal_zlib import error as _IsalError
except ImportError:  # pragma: no cover - python-isal is a dependency; the standard library is the fallback
    _gzip = gzip  # type: ignore[assignment]
    _IsalError = zlib.error  # type: ignore[assignment,misc]

#: What reading a corrupt or truncated gzip stream raises (``EOFError``: the stream ends early).
GZIP_ERRORS: tuple[type[BaseException], ...] = (EOFError, zlib.error, gzip.BadGzipFile, _IsalError)
#: The first two bytes of every gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"
#: Which implementation inflates: "isal" or "zlib".
BACKEND = "zlib" if _gzip is gzip else "isal"


def gzip_reader(fh: BinaryIO) -> BinaryIO:
    """A binary stream of the decompressed bytes of the gzip stream ``fh`` (read lazily, chunk by chunk)."""
    return _gzip.GzipFile(fileobj=fh, mode="rb")  # type: ignore[return-value]

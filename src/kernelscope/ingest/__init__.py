"""Readers: one module per input format, each producing :class:`kernelscope.model.ProfileReport`.

:func:`load` detects the format of a file and calls its reader. No analysis happens here.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from ..model import ProfileReport

#: First bytes of every Nsight Compute report file.
NCU_REP_MAGIC = b"NVR\x00"

FORMATS: tuple[str, ...] = ("ncu-rep", "plain")


def detect_format(path: str | os.PathLike) -> str:
    """Input format id of a file, from its first bytes (then its extension).

    Raises:
        InputError: file missing, unreadable, empty, or of a format kernelscope does not read.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(str(path), "file not found")
    if p.is_dir():
        raise InputError(str(path), "is a directory; expected a profiler report file")
    try:
        with p.open("rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise InputError(str(path), f"cannot read file ({exc.strerror})") from None
    if not head:
        raise InputError(str(path), "file is empty; expected an Nsight Compute report (.ncu-rep)")
    if head == NCU_REP_MAGIC or p.suffix == ".ncu-rep":
        return "ncu-rep"
    if p.suffix.lower() in (".toml", ".json"):
        return "plain"
    raise InputError(
        str(path),
        "unrecognised input format; expected an Nsight Compute report (.ncu-rep, starting with 'NVR') "
        "or a plain-numbers .toml/.json file",
    )


def load(path: str | os.PathLike, input_format: str | None = None) -> ProfileReport:
    """Read one profiler file into a :class:`ProfileReport`.

    Args:
        path: the file.
        input_format: one of :data:`FORMATS` to skip detection, or None to detect.

    Raises:
        InputError: unreadable, unrecognised or malformed input (message names the file and problem).
    """
    fmt = input_format or detect_format(path)
    if fmt == "ncu-rep":
        from .ncu_rep import read_ncu_rep

        return read_ncu_rep(path)
    if fmt == "plain":
        from .plain import read_plain

        return read_plain(path)
    raise InputError(str(path), f"unknown input format '{fmt}'; expected one of: {', '.join(FORMATS)}")

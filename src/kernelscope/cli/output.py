"""Output of the commands: files written atomically (all or nothing), rich renderables on standard output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from ..errors import InputError


def write_atomic(path: str, text: str | bytes) -> None:
    """Write ``text`` (str as UTF-8, or bytes) to ``path`` via a temporary file in the same folder and a rename,
    so an interrupted run never leaves a half-written file.

    Raises:
        InputError: the folder is not writable (nothing is left behind).
    """
    write_atomic_files({path: text})


def write_atomic_files(files: dict[str, str | bytes]) -> None:
    """Write several files all or nothing: every one goes to a temporary file beside its target first; only
    when all are written are they renamed into place (a file it replaces is kept as a hard link until then).
    On a failure every temporary file is removed, the targets already renamed are put back as they were, and
    nothing is left behind.

    Raises:
        InputError: a target is a directory or its folder is not writable.
    """
    staged: list[tuple[str, Path]] = []
    done: list[tuple[Path, str | None]] = []  # renamed targets and the backup of what they replaced
    umask = os.umask(0)
    os.umask(umask)
    try:
        for path, data in files.items():
            target = Path(path)
            if target.is_dir():
                raise InputError(path, "is a directory; expected an output file name")
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            except OSError as exc:
                raise InputError(path, f"cannot write the output file ({exc.strerror})") from None
            staged.append((tmp, target))
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~umask
                os.chmod(tmp, mode)  # mkstemp creates 0600; give the file the mode a plain open() would
            except OSError as exc:
                raise InputError(path, f"cannot write the output file ({exc.strerror})") from None
        for tmp, target in staged:
            backup = None
            try:
                if target.exists() and len(staged) > 1:
                    backup = f"{tmp}.old"
                    os.link(target, backup)
                os.replace(tmp, target)
            except OSError as exc:
                if backup is not None:
                    Path(backup).unlink(missing_ok=True)
                raise InputError(str(target), f"cannot write the output file ({exc.strerror})") from None
            done.append((target, backup))
    except BaseException:
        for target, backup in reversed(done):  # undo the renames already made
            try:
                if backup is not None:
                    os.replace(backup, target)
                else:
                    target.unlink(missing_ok=True)
            except OSError:
                pass
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for _, backup in done:
        if backup is not None:
            Path(backup).unlink(missing_ok=True)


def show(renderables: Iterable[object]) -> None:
    """Print rich renderables on standard output, each with its own ``print`` (consecutive texts stay on their own
    lines), without soft wrapping."""
    from rich.console import Console

    console = Console(soft_wrap=False)
    for item in renderables:
        console.print(item)

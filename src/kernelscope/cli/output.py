"""Output of the commands: files written atomically (all or nothing), rich renderables on standard output.

What ``-o`` names decides how it is written:

* a regular file or a new path: a temporary file beside it, then a rename (an interrupted run leaves the old file
  or none, never half a file); a symbolic link is written THROUGH: its target is replaced, the link kept;
* a FIFO or a character device (``/dev/null``, a terminal): opened and written directly, in place;
* ``-``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``: written to that open file
  descriptor itself (where a shell redirect put it, appending when it appends);
* a directory, a block device or a socket: refused.

A write error (no space left, broken pipe, permission denied, a read-only file) is an
:class:`~kernelscope.errors.InputError` naming the output: one line, exit 2, and no temporary file left behind.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable

from ..errors import InputError

#: Paths that name an open file descriptor of this process: group 1 the number, group 2 a /dev/std* stream.
_FD_PATH = re.compile(r"^/(?:dev/fd/(\d+)|dev/std(in|out|err)|proc/self/fd/(\d+)|proc/(\d+)/fd/(\d+))$")
_STD_FD = {"in": 0, "out": 1, "err": 2}


def descriptor(path: str) -> int | None:
    """The file descriptor an output path names (``-`` and ``/dev/stdout``: 1, ``/dev/fd/N``, ``/proc/self/fd/N``),
    or None for any other path."""
    if path == "-":
        return 1
    m = _FD_PATH.match(os.path.normpath(path)) if path.startswith("/") else None
    if m is None:
        return None
    if m.group(4) is not None:  # /proc/PID/fd/N: only this process's own
        return int(m.group(5)) if int(m.group(4)) == os.getpid() else None
    if m.group(2) is not None:
        return _STD_FD[m.group(2)]
    return int(m.group(1) or m.group(3))


def is_stream(path: str) -> bool:
    """Whether ``-o path`` is written as a stream, in place (standard output, a descriptor, a FIFO, a character
    device) rather than as a file that can have files beside it (a Markdown report's charts)."""
    return _kind(path)[0] in ("fd", "stream")


def _kind(path: str) -> tuple[str, str]:
    """("fd" | "stream" | "file" | "new", the path to write): links followed to the file they point to.

    Raises:
        InputError: a directory, a block device, a socket, or a file that cannot be written.
    """
    if descriptor(path) is not None:
        return "fd", path
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "new", os.path.realpath(path)  # a dangling link: its target is created, the link kept
    except OSError as exc:
        raise _cannot(path, exc) from None
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise InputError(path, "is a directory; expected an output file name", key="output_is_directory")
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream", path
    if not stat.S_ISREG(mode):
        what = "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise InputError(path, f"is {what}; expected an output file name", key="output_not_file", values={"what": what})
    if not mode & 0o222:
        raise _cannot(path, reason="it is read-only")
    if not os.access(path, os.W_OK):
        raise _cannot(path, reason="Permission denied")
    return "file", os.path.realpath(path)


def refuse_inputs(outputs: Iterable[str | None], inputs: Iterable[str | None]) -> None:
    """Refuse to write over an input: an output that is the same file as an input (same device and inode, links
    followed; ``-`` for standard input/output) raises before anything is read or written.

    Raises:
        InputError: naming the output and the input it would destroy.
    """
    seen: dict[tuple[int, int], str] = {}
    for name in inputs:
        st = _stat(name, 0)
        if st is not None and stat.S_ISREG(st.st_mode):
            seen.setdefault((st.st_dev, st.st_ino), "<stdin>" if name == "-" else name)  # type: ignore[arg-type]
    for out in outputs:
        st = _stat(out, 1)
        if st is not None and (st.st_dev, st.st_ino) in seen:
            same = seen[(st.st_dev, st.st_ino)]
            raise InputError(out, f"the output is the input file {same} (the same file): "  # type: ignore[arg-type]
                                  "writing it would destroy the input; name another output file",
                             key="output_is_input", values={"input": same})


def _stat(path: str | None, std: int) -> os.stat_result | None:
    """The status of a file (links followed; ``-`` is descriptor ``std``), None when there is none."""
    if path is None:
        return None
    try:
        return os.fstat(std) if path == "-" else os.stat(path)
    except (OSError, ValueError):
        return None


def write_atomic(path: str, text: str | bytes) -> None:
    """Write ``text`` (str as UTF-8, or bytes) to ``path``: a regular file via a temporary file in the same folder
    and a rename, so an interrupted run never leaves a half-written file; a stream in place (see the module).

    Raises:
        InputError: the output cannot be written (nothing is left behind).
    """
    write_atomic_files({path: text})


def write_atomic_files(files: dict[str, str | bytes | list[bytes]]) -> None:
    """Write several files all or nothing: every regular file goes to a temporary file beside its target (the target
    of a link) first; then the streams are written; only when all that succeeded are the files renamed into place
    (a file it replaces is kept as a hard link until then). On a failure every temporary file is removed, the
    targets already renamed are put back as they were, and nothing is left behind. A file's bytes may come in
    pieces, written one after the other (a large document and its last newline: never copied into one).

    Raises:
        InputError: a target is a directory (or a block device, a socket), read-only, its folder is not writable,
            or a write fails (no space left, broken pipe ...).
    """
    plan = [(path, [data.encode("utf-8")] if isinstance(data, str) else [data] if isinstance(data, bytes) else data,
             *_kind(path)) for path, data in files.items()]
    staged: list[tuple[str, Path, str]] = []
    done: list[tuple[Path, str | None]] = []  # renamed targets and the backup of what they replaced
    try:
        for path, data, kind, real in plan:
            if kind in ("file", "new"):
                staged.append((_stage(path, Path(real), data), Path(real), path))
        for path, data, kind, real in plan:
            if kind in ("fd", "stream"):
                _write_stream(path, kind, data)
        for tmp, target, path in staged:
            done.append((target, _rename(tmp, target, path, len(staged) > 1)))
    except BaseException:
        for target, backup in reversed(done):  # undo the renames already made
            try:
                if backup is not None:
                    os.replace(backup, target)
                else:
                    target.unlink(missing_ok=True)
            except OSError:
                pass
        for tmp, _, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for _, backup in done:
        if backup is not None:
            Path(backup).unlink(missing_ok=True)


def _cannot(path: str, exc: OSError | None = None, reason: str = "") -> InputError:
    """The error for an output file that cannot be written, for ``exc`` (else ``reason``)."""
    if exc is not None:
        reason = str(exc.strerror or exc)
    return InputError(path, f"cannot write the output file ({reason})", key="cannot_write", values={"reason": reason})


def _stage(path: str, target: Path, data: list[bytes]) -> str:
    """A temporary file beside ``target`` holding the pieces of ``data``, with the mode the target has (a new file: what a plain
    ``open()`` would give it)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        if exc.errno == errno.ENOENT and target.parent.is_dir():  # e.g. /proc: a folder that takes no new files
            raise InputError(path, key="output_dir_read_only", values={"parent": target.parent}) from None
        raise _cannot(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.writelines(data)
        umask = os.umask(0)
        os.umask(umask)
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~umask
        os.chmod(tmp, mode)  # mkstemp creates 0600; give the file the mode a plain open() would
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _cannot(path, exc) from None
    return tmp


def _rename(tmp: str, target: Path, path: str, keep_backup: bool) -> str | None:
    """Rename ``tmp`` onto ``target``; returns the hard-link backup of the file it replaced (when several files
    are written together), or None."""
    backup = None
    try:
        if keep_backup and target.exists():
            backup = f"{tmp}.old"
            os.link(target, backup)
        os.replace(tmp, target)
    except OSError as exc:
        if backup is not None:
            Path(backup).unlink(missing_ok=True)
        raise _cannot(path, exc) from None
    return backup


def _write_stream(path: str, kind: str, data: list[bytes]) -> None:
    """Write the pieces of ``data`` into a stream in place: an open descriptor (``-``, ``/dev/stdout``, ``/dev/fd/N``) or a FIFO /
    character device (opened for writing, neither created nor truncated)."""
    try:
        if kind == "fd":
            fd = descriptor(path)
            assert fd is not None
            if fd in (1, 2):
                (sys.stdout if fd == 1 else sys.stderr).flush()
            _write_all(fd, data)
        else:
            fd = os.open(path, os.O_WRONLY)
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
    except OSError as exc:
        raise _cannot(path, exc) from None


def _write_all(fd: int, data: list[bytes]) -> None:
    for piece in data:
        view = memoryview(piece)
        while view:
            view = view[os.write(fd, view):]


def chart_font_note(lang: str, fmt: str) -> None:
    """Say on standard error, in one line, when ``fmt`` charts asked for in Chinese are labelled in English because
    no CJK font is installed: PNG only (an SVG keeps its Chinese text for the reader's browser to draw)."""
    if lang == "en":
        return
    from ..knowledge.messages import frame
    from ..render.charts import chart_lang

    if chart_lang(lang, fmt) != lang:
        print(frame("note", lang, message=frame("png_font_fallback", lang)), file=sys.stderr)


def show(renderables: Iterable[object]) -> None:
    """Print rich renderables on standard output, each with its own ``print`` (consecutive texts stay on their own
    lines), without soft wrapping, as wide as the terminal, else ``$COLUMNS``, else 80 columns (piped): every table
    cut to that width by :func:`kernelscope.render.fit.fit_tables` (its least important columns dropped first,
    never its name column). Piped (not a terminal), the lines are written without the blanks that pad them to the
    width (what ``-o`` text files get too)."""
    from ..render.cjk_console import CJKConsole
    from ..render.rich_text import print_blocks, to_plain

    console = CJKConsole(soft_wrap=False)
    if not console.is_terminal:
        sys.stdout.write(to_plain(renderables))  # the same text as -o FILE.txt
        return
    print_blocks(renderables, console)  # one blank line around each table and heading (rich_text.blocks)


def emit(output: str | None, text: str) -> int:
    """Write ``text`` to ``-o output`` (atomically, as :func:`write_atomic`), or to standard output when there is
    none. Returns the exit code, 0."""
    if output:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)
    return 0


def emit_tables(output: str | None, renderables: list, fmt: str, width: int | None = None) -> int:
    """A command's rich tables and lines: ``markdown`` as Markdown; ``table`` on standard output as :func:`show`
    prints them, with ``-o`` as plain text ``width`` (else $COLUMNS, else 80) columns wide. Returns the exit code, 0."""
    from ..render.rich_text import to_markdown, to_plain

    if fmt == "markdown":
        return emit(output, to_markdown(renderables))
    if output:
        return emit(output, to_plain(renderables, width))
    show(renderables)
    return 0

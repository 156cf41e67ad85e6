"""Opening the readers' input files: one check that a path names a readable file, one wording for every way a
file cannot be read, and the text encodings profiler output comes in.

Every message names the path as the user gave it (:class:`~kernelscope.errors.InputError`'s ``source``).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, TextIO

from ..errors import InputError


def check_file(path: str | os.PathLike, expected: str) -> Path:
    """The path of an existing, readable file that is not a directory.

    Args:
        path: the input as the user named it.
        expected: what the reader takes, for the message ("an nvprof output file").

    Raises:
        InputError: "file not found"; "is a directory; expected <expected>"; "cannot read the file (Permission
            denied)".
    """
    source = os.fspath(path)
    if not os.path.exists(source):
        raise InputError(source, "file not found", key="file_not_found")
    if os.path.isdir(source):
        raise InputError(source, f"is a directory; expected {expected}", key="is_directory",
                         values={"expected": expected})
    if not os.access(source, os.R_OK):
        raise InputError(source, "cannot read the file (Permission denied)", key="cannot_read_file",
                         values={"reason": "Permission denied"})
    return Path(source)


def unreadable(source: str, exc: OSError) -> InputError:
    """The error for a file that fails while being read (after :func:`check_file`)."""
    reason = str(exc.strerror or exc)
    return InputError(source, f"cannot read the file ({reason})", key="cannot_read_file", values={"reason": reason})


def empty(source: str, expected: str) -> InputError:
    """The error for a file without a byte."""
    return InputError(source, f"file is empty; expected {expected}", key="file_empty", values={"expected": expected})


@contextmanager
def reading(source: str) -> Iterator[None]:
    """Turn an OSError (:func:`unreadable`) or a UTF-16 decoding error while reading ``source`` into InputError."""
    try:
        yield
    except OSError as exc:
        raise unreadable(source, exc) from None
    except UnicodeError as exc:
        raise InputError(source, key="bad_utf16", values={"exc": exc}) from None


def read_head(path: str | os.PathLike, size: int, expected: str) -> bytes:
    """The first ``size`` bytes of a file (:func:`check_file` first).

    Raises:
        InputError: missing, a directory, unreadable or empty.
    """
    p = check_file(path, expected)
    source = os.fspath(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(size)
    except OSError as exc:
        raise unreadable(source, exc) from None
    if not head:
        raise empty(source, expected)
    return head


def starts_with(head: bytes, chars: int = 40) -> tuple[bool, str]:
    """How a file that is not what a reader takes begins, for its error: (True, its first ``chars`` characters of
    text, blanks folded, quoted as ``'hello world'``) when ``head`` is printable UTF-8, else (False, its first 8 bytes
    in hex, ``"1f 8b 08 00 ..."``)."""
    try:
        text = " ".join(head.decode("utf-8").split())
    except UnicodeDecodeError:
        text = None
    if text and text.isprintable():
        return True, repr(text[:chars])
    return False, head[:8].hex(" ")


def text_encoding(head: bytes) -> str:
    """The encoding to read a text file with, from its first bytes: ``"utf-16"`` for a UTF-16 byte-order mark
    (FF FE / FE FF, what Windows PowerShell writes), else ``"utf-8-sig"`` (UTF-8, a BOM dropped)."""
    return "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"


def open_text(source: str | os.PathLike) -> TextIO:
    """Open a profiler text file for reading by lines (:func:`text_encoding`; undecodable UTF-8 bytes replaced,
    line ends kept as written)."""
    with open(source, "rb") as fh:
        head = fh.read(2)
    encoding = text_encoding(head)
    return open(source, encoding=encoding, errors="strict" if encoding == "utf-16" else "replace", newline="")


_NATIVE_LINKS: dict[str, str] = {}


def native_name(path: str) -> str:
    """A name of ``path`` that a native reader taking a UTF-8 ``char *`` accepts (NVIDIA's ``ncu_report``: a name
    holding bytes that are not UTF-8, which Python hands over as lone surrogates, is a ``TypeError`` there).
    ``path`` itself when it is valid UTF-8; else a symbolic link to it, with an ASCII name and the same extension,
    in a private temporary folder of this process (made once per path, removed when the process ends)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    if path not in _NATIVE_LINKS:
        import atexit
        import shutil
        import tempfile

        folder = tempfile.mkdtemp(prefix="kernelscope-name-")
        atexit.register(shutil.rmtree, folder, True)
        suffix = "".join(Path(path).suffixes[-1:]).encode("ascii", "replace").decode("ascii").replace("?", "_")
        link = os.path.join(folder, "report" + suffix)
        os.symlink(os.path.abspath(path), link)
        _NATIVE_LINKS[path] = link
    return _NATIVE_LINKS[path]

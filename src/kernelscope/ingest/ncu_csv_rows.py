"""The rows of an ``ncu --csv`` export after its header, each with the file line it starts on: ncu's own message
lines (``==PROF==``, ``==WARNING==`` ..., never CSV) dropped and noted, blank rows skipped. Used by
:mod:`.ncu_csv`."""

from __future__ import annotations

import csv
import re
from bisect import bisect_left
from typing import Iterator, TextIO

from ..errors import InputError


#: An ncu message line: ``==PROF==``, ``==WARNING==``, ``==ERROR==``, ``==INFO==`` ... (never CSV, even with commas).
NCU_MESSAGE = re.compile(r"^\s*==([A-Za-z]+)==")


def note_message(line: str, lineno: int, messages: list[str]) -> bool:
    """True for an ncu message line; a warning or error is added to ``messages``."""
    m = NCU_MESSAGE.match(line)
    if m is None:
        return False
    if m.group(1).upper() in ("WARNING", "WARN", "ERROR"):
        messages.append(f"line {lineno}: ncu printed: {clip(line)}")
    return True


def clip(text: str, n: int = 160) -> str:
    """``text`` on one line (runs of white space made one space), cut to ``n`` characters with "..."."""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def row_source(source: str, fh: TextIO, header_line: int, messages: list[str]) -> "Rows":
    """The rows after the header (line ``header_line`` of the file); ncu message lines dropped (noted in
    ``messages``), how many lines were handed on before each kept for the line numbers of the rows."""
    dropped: list[int] = []

    def lines() -> Iterator[str]:
        for n, line in enumerate(fh, header_line + 1):
            # (a line opening with a quote, as every quoted CSV row does, is never an ncu message)
            if line[:1] == '"' or not note_message(line, n, messages):
                yield line
            else:
                dropped.append(n - header_line - 1 - len(dropped))  # (the lines handed on before it)

    return Rows(source, csv.reader(lines(), strict=True), header_line, dropped)


class Rows:
    """(line number, fields) of every CSV row after the header; blank rows skipped. The details reader walks
    ``reader`` itself (:meth:`.ncu_csv._Details.read`) and numbers the lines with :meth:`line`."""

    def __init__(self, source: str, reader, base: int, dropped: list[int]) -> None:
        self.source = source
        self.reader = reader
        self.base = base  # the header's line
        self.dropped = dropped  # per line not handed to the reader (an ncu message): how many were before it

    def __iter__(self) -> "Rows":
        return self

    def __next__(self) -> tuple[int, list[str]]:
        reader = self.reader
        while True:
            done = reader.line_num
            try:
                fields = next(reader)
            except csv.Error as exc:
                raise self.bad_line(self.line(done + 1), exc) from None
            if fields and (fields[0].strip() or not all(not f.strip() for f in fields)):
                return self.line(done + 1), fields

    def line(self, k: int) -> int:
        """The file line of the ``k``-th line (1-based) handed to the reader."""
        return self.base + k + bisect_left(self.dropped, k)  # (+ the lines dropped before it)

    def bad_line(self, line: int, exc: csv.Error) -> InputError:
        """The error for a malformed CSV record starting on ``line``."""
        return InputError(self.source, key="csv_bad_line", values={"value": line, "exc": exc})

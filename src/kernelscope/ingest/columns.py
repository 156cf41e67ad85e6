"""Splitting console tables into columns: one splitter for the readers of console text (ncu, nvprof, nsys stats).

Console tables align each column under a *mark* on a header or separator line: a run of dashes (ncu's and
``nsys stats``' separator lines, ``----- -----``) or the column's name (nvprof's GPU-trace header, names of
words joined by single spaces). Two neighbouring columns are parted at a *boundary*, the first position after the
left column's mark: labels are left-aligned and numbers right-aligned in their column, so a row has a space there
unless a cell runs over its column. A cell is the text between two boundaries, stripped; the last column runs to
the end of the line (a name may be longer than its mark).

Tables without fixed widths (``nsys stats`` rows, nvprof rows whose cells are parted by two spaces) are split on
runs of whitespace instead (:func:`split_on_gaps`).
"""

from __future__ import annotations

import re
from typing import Sequence

_DASHES = re.compile(r"-+")
_NAMES = re.compile(r"\S+(?: \S+)*")


class Columns:
    """The columns of one console table, from the marks of its header or separator line.

    Args:
        marks: ``(start, end)`` of each column's mark, left to right.
        names: the column names (header marks), or None.
    """

    def __init__(self, marks: Sequence[tuple[int, int]], names: Sequence[str] | None = None) -> None:
        self.marks = tuple(marks)
        self.names = tuple(names) if names is not None else None
        self.boundaries = tuple(end for _, end in self.marks[:-1])

    @classmethod
    def under_dashes(cls, separator: str) -> "Columns":
        """The columns of a separator line: one per run of dashes."""
        return cls([(m.start(), m.end()) for m in _DASHES.finditer(separator)])

    @classmethod
    def under_names(cls, header: str) -> "Columns":
        """The columns of a header line: one per name (words joined by single spaces; two spaces part names)."""
        found = list(_NAMES.finditer(header))
        return cls([(m.start(), m.end()) for m in found], [m.group(0) for m in found])

    def __len__(self) -> int:
        return len(self.marks)

    def crossing(self, line: str, shift: int = 0) -> int | None:
        """Index of the first column whose text runs over its boundary (shifted right by ``shift``), or None."""
        for i, boundary in enumerate(self.boundaries):
            at = boundary + shift
            if at < len(line) and not line[at].isspace():
                return i
        return None

    def cut(self, line: str, shift: int = 0) -> list[str]:
        """The cells of a row, cut at the boundaries shifted right by ``shift`` (a row pushed right by a label
        longer than its column), stripped; the last cell runs to the end of the line."""
        cuts = [0, *(b + shift for b in self.boundaries), len(line)]
        return [line[a:b].strip() for a, b in zip(cuts, cuts[1:])]


def split_on_gaps(line: str, count: int, min_gap: int = 1) -> list[str]:
    """The cells of a row parted by runs of at least ``min_gap`` whitespace characters (no fixed widths): at
    most ``count``, the last keeping the rest of the line as written (a name holding spaces); whitespace before
    the first and after the last cell is no part of them."""
    text = line.strip()
    if not text or count <= 1:
        return [text] if text else []
    return re.split(rf"\s{{{min_gap},}}", text, maxsplit=count - 1)

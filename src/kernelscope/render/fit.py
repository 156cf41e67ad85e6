"""Tables that fit the width they are printed in (a terminal, ``$COLUMNS``, or 80 columns when piped): a table
whose narrowest layout is wider than that loses its least important columns first, the rightmost ones, until it
fits (a renderer may name other columns to go first: :func:`drop_first`); the name column (the first whose header
names a kernel, a name, a GPU, a line or an instruction, else the first) is never dropped and keeps its longest word
or at least :data:`NAME_MIN` cells (rich wraps or abbreviates it with "…" beyond). A table is also cut while the
layout rich would give it loses characters (:func:`_squeezed`). No analysis here."""

from __future__ import annotations

from typing import Iterable

from rich.console import Console, Group
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .cjk import CJKText, has_cjk, header

#: Cells the name column keeps at least when the other columns are dropped to fit.
NAME_MIN = 20
#: Cells a column other than the name is counted at, at most, when deciding what fits (longer texts wrap).
CELL_MAX = 24
#: Cells a Chinese header is counted at, at most: up to that it stays on one line (a header folded between two
#: characters, "优化前中 / 位数", reads badly); a longer one wraps at its break opportunities.
HEADER_MAX = 12
#: Words of a header that make its column the table's name column (English and Chinese).
_NAME_WORDS = ("kernel", "name", "gpu", "source", "line", "sass", "instruction", "range", "名称", "内核", "Kernel")


def drop_first(table: Table, *columns: int) -> Table:
    """Say which columns of ``table`` (indices, least important first) go before the rightmost ones when it does
    not fit; returns the table."""
    table._drop_first = tuple(table.columns[i] for i in columns)  # type: ignore[attr-defined]
    return table


def fit_tables(renderables: Iterable[object], console: Console) -> list[object]:
    """``renderables`` with every rich :class:`~rich.table.Table` among them (also inside a Group or a Panel) cut to
    ``console.width`` columns (see the module). The tables are changed in place and returned in the list."""
    out = list(renderables)
    for item in out:
        _fit_any(item, console, console.width)
    return out


def _fit_any(item: object, console: Console, width: int) -> None:
    if isinstance(item, Table):
        _fit(item, console, width)
    elif isinstance(item, Group):
        for part in item.renderables:
            _fit_any(part, console, width)
    elif isinstance(item, Padding):
        _fit_any(item.renderable, console, width - item.left - item.right)
    elif isinstance(item, Panel):
        _fit_any(item.renderable, console, width - 4)  # two borders, one cell of padding each side


def _name_column(table: Table) -> int:
    for i, column in enumerate(table.columns):
        header = column.header.plain if isinstance(column.header, Text) else str(column.header)
        if any(word in header.lower() or word in header for word in _NAME_WORDS):
            return i
    return 0


def _minimum(table: Table, console: Console, width: int) -> int:
    return Measurement.get(console, console.options.update_width(width), table).minimum


def _fit(table: Table, console: Console, width: int) -> None:
    """Drop the rightmost columns other than the name column while the table, each column at the width its cells
    need on one line (at most :data:`CELL_MAX`: longer texts wrap; headers wrap) and the name column at its
    longest word (at most :data:`NAME_MIN`), is wider than ``width``."""
    if width <= 0 or len(table.columns) < 2:
        return
    _cjk_cells(table)
    name = _name_column(table)
    sizes = [_column_sizes(c, console, width) for c in table.columns]
    overhead = _minimum(table, console, 1 << 20) - sum(low for low, _ in sizes)  # borders and padding (unclamped)
    need = [min(high, CELL_MAX) for _, high in sizes]  # a longer word is folded or abbreviated by rich
    need[name] = min(NAME_MIN, sizes[name][0])  # its longest word, up to NAME_MIN (rich wraps or abbreviates it)
    while len(table.columns) > 1 and (overhead + sum(need) > width or _squeezed(table, console, width)):
        first = [i for i, c in enumerate(table.columns) if c in getattr(table, "_drop_first", ()) and i != name]
        drop = next(iter(sorted(first, key=lambda i: table._drop_first.index(table.columns[i]))), None)  # type: ignore[attr-defined]
        if drop is None:
            drop = max(i for i in range(len(table.columns)) if i != name)  # the rightmost: the least important
        table.columns.pop(drop)
        overhead -= _per_column(table)
        need.pop(drop)
        if drop < name:
            name -= 1
    refit = getattr(table, "_refit", None)  # a title that says what the columns shown are of
    if refit is not None:
        refit(table)


def _squeezed(table: Table, console: Console, width: int) -> bool:
    """Whether the layout rich gives ``table`` in ``width`` cells loses characters: wider than ``width`` (a
    column's ``min_width`` and the columns that do not wrap kept; the console then crops every line, the title's
    among them), or a column that does not wrap (its header included) narrower than its widest cell (cut with
    "…")."""
    extra = table._extra_width
    widths = table._calculate_column_widths(console, console.options.update_width(width - extra))
    if sum(widths) + extra > width:
        return True
    unbounded = console.options.update_width(1 << 20)
    return any(c.no_wrap and w < table._measure_column(console, unbounded, c).maximum
               for w, c in zip(widths, table.columns))


def _cjk_cells(table: Table) -> None:
    """Each ``Text`` cell and header holding CJK characters as a :class:`~.cjk.CJKText`, measured at its break
    opportunities: rich measures a Chinese sentence as one word (it has no spaces), far wider than the column it
    is printed in, and the other columns would be dropped for it."""
    def cjk(cell: object) -> object:
        return CJKText.of(cell) if isinstance(cell, Text) and not isinstance(cell, CJKText) and has_cjk(cell.plain) else cell

    for column in table.columns:
        column.header = header(column.header)  # type: ignore[assignment]
        column._cells = [cjk(cell) for cell in column._cells]  # type: ignore[attr-defined]


def _per_column(table: Table) -> int:
    """Cells one more column adds besides its content: its padding and, in a box, one separator."""
    left, right = table.padding[3], table.padding[1]
    return left + right + (1 if table.box is not None and table.show_edge is not None else 0)


def _column_sizes(column: object, console: Console, width: int) -> tuple[int, int]:
    """(narrowest, widest on one line) of a column's cells; its header counts at its narrowest (it wraps), except
    in a column that does not wrap (its header is cut, not wrapped: it counts whole) and a Chinese header (whole,
    up to :data:`HEADER_MAX` cells)."""
    options = console.options.update_width(width)
    low = high = 1
    for i, cell in enumerate((column.header, *column.cells)):  # type: ignore[attr-defined]
        if cell is None or cell == "":
            continue
        m = Measurement.get(console, options, cell)
        if i == 0:
            text = cell.plain if isinstance(cell, Text) else str(cell)
            whole = m.maximum if column.no_wrap else min(m.maximum, max(m.minimum, HEADER_MAX)) if has_cjk(text) \
                else m.minimum  # type: ignore[attr-defined]
            low, high = max(low, m.minimum), max(high, whole)
            continue
        low, high = max(low, m.minimum), max(high, m.maximum)
    cap = getattr(column, "max_width", None)
    return (min(low, cap), min(high, cap)) if cap else (low, high)

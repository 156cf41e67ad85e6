"""Tables that fit the width they are printed in (a terminal, ``$COLUMNS``, or 80 columns when piped): a table
whose narrowest layout is wider than that loses its least important columns first, the rightmost ones, until it
fits (a renderer may name other columns to go first: :func:`drop_first`) and says below it which columns it
left out and how to see them (:func:`left_out_note`); the name column (the first whose header
names a kernel, a name, a GPU, a line or an instruction, else the first) is never dropped and keeps its longest word
or at least :data:`NAME_MIN` cells (rich wraps or abbreviates it with "…" beyond). A table is also cut while the
layout rich would give it loses characters (:func:`_squeezed`). No analysis here."""

from __future__ import annotations

from typing import Callable, Iterable

from rich.cells import cell_len
from rich.console import Console, Group
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .cjk import _segments, has_cjk

from .cjk_console import CJKText, LabelsText, NarrowHeader, header

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


def with_previous(table: Table, column: int) -> Table:
    """Say that ``column`` of ``table`` (an index) reads only beside the column before it (a percentage against
    the median of the value on its left): a split (:func:`split_parts`) puts the two on one part; returns the
    table."""
    table.columns[column]._with_previous = True  # type: ignore[attr-defined]
    return table


def _together(table: Table, groups: list[list[int]]) -> list[list[int]]:
    """``groups`` (the columns of each part of a split table) with no column that reads only beside the one before
    it (:func:`with_previous`) on another part than that one: the column before moves on to its part, or, where
    that would leave its own part empty, the column back to the part before."""
    bound = {i for i, c in enumerate(table.columns) if getattr(c, "_with_previous", False)}
    groups = [list(g) for g in groups]
    for _ in range(len(table.columns)):
        split = next((n for n in range(1, len(groups)) if groups[n] and groups[n][0] in bound
                      and groups[n - 1] and groups[n - 1][-1] == groups[n][0] - 1), None)
        if split is None:
            break
        if len(groups[split - 1]) > 1:
            groups[split].insert(0, groups[split - 1].pop())
        elif len(groups[split]) > 1:
            groups[split - 1].append(groups[split].pop(0))
        else:
            groups[split - 1:split + 1] = [groups[split - 1] + groups[split]]
    return groups


#: Cells the name column of a compact table (:func:`compact`) keeps at least.
NAME_COMPACT = 12


#: A column that wants room (:func:`wants`) is given at most the width divided by this ...
WANT_SHARE = 4
#: ... and half of the cells a terminal has beyond this many (at 120 columns a quarter, 30, and 20 more: the stall
#: names of the hottest instructions on one line, the short counts beside them moved to a part of their own).
WANT_WIDE = 80


def _want_cap(width: int) -> int:
    """Cells a column that wants room is given at most in ``width`` cells (:data:`WANT_SHARE`, :data:`WANT_WIDE`)."""
    return width // WANT_SHARE + max(0, width - WANT_WIDE) // 2


def wants(table: Table, column: int, cells: int) -> Table:
    """Say that a wrapping column of ``table`` (its long sentences: the stall reasons of the hottest instructions)
    reads badly narrower than ``cells``: fitted, it counts at ``cells`` (at most a quarter of the width and half of
    the cells beyond 80: :func:`_want_cap`, and no more than its widest cell), the rightmost columns dropped (or moved
    to a part of their own: :func:`split_parts`) for it, and rich gives it that width; returns the table."""
    table.columns[column]._want = cells  # type: ignore[attr-defined]
    return table


#: A column of code (:func:`code`) counts at most at the width divided by this (26 cells at 80 columns, 40 at 120).
CODE_SHARE = 3


def code(table: Table, column: int) -> Table:
    """Say that a column of ``table`` holds code (SASS instructions, :class:`~.cjk_console.CodeText`): where the table does
    not fit on one line it counts at its widest cell (at most the width divided by :data:`CODE_SHARE`), before the
    columns of prose beside it are given their room (:func:`wants`) and the rightmost columns dropped (or moved to a
    part of their own) for it, and rich gives it that width: an instruction is never wrapped where a sentence
    could be; wider, it wraps between operands only; returns the table."""
    table.columns[column]._code = True  # type: ignore[attr-defined]
    return table


def compact(table: Table) -> Table:
    """Say that ``table`` keeps its columns by wrapping them: where it does not fit, each column that wraps counts
    at its narrowest piece (a number with its unit, a word) and the name column at :data:`NAME_COMPACT` cells,
    not at the width of their cells on one line; returns the table."""
    table._compact = True  # type: ignore[attr-defined]
    return table


def tight(table: Table) -> Table:
    """Say that ``table``, where it does not fit, first wraps the Chinese headers of its columns that do not wrap
    and sits its columns one cell closer (:func:`_tighten`), before any column is dropped; returns the table."""
    table._tight = True  # type: ignore[attr-defined]
    return table


#: Cells each other wrapping column keeps beside a column that fills the width (:func:`fills`), at most its widest.
FILL_OTHERS = 16


def fills(table: Table, column: int) -> Table:
    """Say that a wrapping column of ``table`` (the fusion table's chains of kernel names) takes the width the other
    columns leave: each number whole, each other wrapping column :data:`FILL_OTHERS` cells or an eighth of the width
    (or what its longest piece needs), the rest to it, up to its widest cell; never one or two names a line. Returns the table."""
    table.columns[column]._fill = True  # type: ignore[attr-defined]
    return table


def _fill(table: Table, console: Console, width: int, overhead: int) -> None:
    """The width of a column that fills (:func:`fills`) in ``width`` cells, set for rich."""
    i = next((i for i, c in enumerate(table.columns) if getattr(c, "_fill", False)), None)
    if i is None:
        return
    sizes = [_column_sizes(c, console, width) for c in table.columns]
    if overhead + sum(high for _, high in sizes) <= width:
        return  # every cell on one line: rich gives each column its room
    others = [high if c.no_wrap else min(high, max(low, FILL_OTHERS, width // 8)) for c, (low, high) in zip(table.columns, sizes)]
    room = width - overhead - sum(o for j, o in enumerate(others) if j != i)
    if room >= NAME_COMPACT:  # (its narrowest piece, a long name, is folded as in any column)
        table.columns[i].width = min(room, sizes[i][1])


def narrow_form(table: Table, parts: Callable[[], list[Table]]) -> Table:
    """Say what ``table`` is printed as where it would lose a column: ``parts()``, tables that together hold each
    of its columns (each fitted in turn); returns the table."""
    table._narrow = parts  # type: ignore[attr-defined]
    return table


def fit_tables(renderables: Iterable[object], console: Console) -> list[object]:
    """``renderables`` with every rich :class:`~rich.table.Table` among them (also inside a Group or a Panel) cut to
    ``console.width`` columns (see the module). The tables are changed in place and returned in the list."""
    out = [_narrowed(item, console, console.width) for item in renderables]
    for item in out:
        _fit_any(item, console, console.width)
    return [_noted(item) for item in out]


def _noted(item: object) -> object:
    """``item``, followed by the line saying which of its columns were left out (:func:`left_out_note`) where
    :func:`_fit` left some out: a line of its own, as wide as the terminal, not as the table."""
    note = getattr(item, "_left_out", None)
    if note is None:
        return item
    item._left_out = None  # type: ignore[attr-defined]
    return Group(item, Text(note))


def _narrowed(item: object, console: Console, width: int) -> object:
    """``item``, or the parts of its narrow form (:func:`narrow_form`; a table without one and with a header:
    :func:`split_parts`) as one Group where it would lose a column."""
    if not isinstance(item, Table) or width <= 0 or not _loses_columns(item, console, width):
        return item
    parts = getattr(item, "_narrow", None)
    if parts is not None:  # one blank line between two parts, not the edges of both
        shown = parts()
        for p in shown[1:]:
            if isinstance(p, Table) and p.show_edge and not p.title:
                p.show_edge = False
        return Group(shown[0], *(Padding(p, (0, 0, 1, 1)) if isinstance(p, Table) and not p.show_edge else p
                                 for p in shown[1:]))
    if not item.show_header or len(item.columns) < 3:
        return item
    split = split_parts(item, console, width)
    if len(split) < 2:  # every column in one part: the table with its name column narrowed (_no_lone_column)
        return split[0] if split and len(split[0].columns) == len(item.columns) else item
    # a part without edge aligned as one with, and a blank line below it as the first part has (its edge): never a
    # part's header glued to the rows above, nor the next heading to the last part's rows
    group = Group(split[0], *(p if p.show_edge else Padding(p, (0, 0, int(item.show_edge), 1)) for p in split[1:]))
    group._split = split  # type: ignore[attr-defined]  # (its name column one width once fitted: _same_name_width)
    return group


def _part(table: Table, columns: list[int], first: bool, narrow: bool = False,
          before: list[str] | None = None) -> Table:
    """A table of ``table``'s ``columns`` (indices), its rows, box and padding; the title on the ``first`` part
    only, unless the title says what the columns shown are of (a ``_refit``: each part gets its own, a part after
    the first told the headers shown before it, ``before``, so that it says "(continued)" and no more of the
    caption than its new columns need; a part with no title has no edge either: one blank line, not two, after
    the part before it); ``narrow``: compact (:func:`compact`)."""
    from copy import copy

    refit = getattr(table, "_refit", None)
    part = Table(title=table.title if first or refit else None, box=table.box, title_justify=table.title_justify,
                 show_header=table.show_header, show_edge=table.show_edge and (first or refit is not None),
                 padding=table.padding,
                 pad_edge=table.pad_edge, expand=False, header_style=table.header_style,
                 title_style=table.title_style)
    for i in columns:
        column = copy(table.columns[i])
        column._cells = list(table.columns[i]._cells)  # type: ignore[attr-defined]
        part.columns.append(column)
    part.rows = list(table.rows)
    if refit is not None:
        part._refit = refit  # type: ignore[attr-defined]
        part._before = None if first else list(before or [])  # type: ignore[attr-defined]
        refit(part)
    if getattr(table, "_drop_first", None):
        part._drop_first = table._drop_first  # type: ignore[attr-defined]
    if getattr(table, "_tight", False):
        tight(part)
    return compact(part) if narrow or getattr(table, "_compact", False) else part


def split_parts(table: Table, console: Console, width: int) -> list[Table]:
    """``table`` as tables that each fit ``width`` cells side by side and together hold every column: each starts
    with the first column (the key of its rows), then as many of the next columns, in their order, as fit each
    on one line (a part that does not fit so is made compact: :func:`compact`). A column too wide even beside the name column alone goes on a part of its own
    (cut there as any table, and said: :func:`left_out_note`). No analysis here."""
    _cjk_cells(table)
    name = 0  # the first column names the rows (a launch, a rank, a kernel), whatever the name column
    others = [i for i in range(len(table.columns)) if i != name]
    groups: list[list[int]] = []
    current: list[int] = []
    for i in others:  # each part checked as it is printed: the first with the table's edge and title, a part after
        part = _part(table, [name, *current, i], not groups)  # it without an edge inset by one cell (_narrowed)
        inset = 1 if groups and not part.show_edge else 0
        if current and _loses_columns(part, console, width - inset):
            groups.append(current)
            current = []
        current.append(i)
    if current:
        groups.append(current)
    groups, narrowed = _no_lone_column(table, console, width, name, groups)
    groups = _together(table, groups)
    parts = []
    for n, g in enumerate(groups):
        before = [_head(table.columns[i]) for h in groups[:n] for i in h]
        part = _part(table, sorted([name, *g]), n == 0, before=before)
        part._narrow_name = narrowed and n == len(groups) - 1  # type: ignore[attr-defined]
        inner = width - (1 if n and not part.show_edge else 0)
        parts.append(_part(table, sorted([name, *g]), n == 0, True, before) if _loses_columns(part, console, inner)
                     else part)
    return parts


def _head(column: object) -> str:
    header = column.header  # type: ignore[attr-defined]
    return header.plain if isinstance(header, Text) else str(header)


def _no_lone_column(table: Table, console: Console, width: int, name: int,
                    groups: list[list[int]]) -> tuple[list[list[int]], bool]:
    """``groups`` (the columns of each part of a split table) with no part holding one column alone: it joins
    the part before it where that part, its name column narrowed to :data:`NAME_COMPACT` cells (the name wraps),
    still fits (then True: the last part's name column narrowed); else the part before gives it its last column
    (``提速 10× 后`` beside ``完全消除后``, not one column on a table of its own)."""
    if len(groups) < 2 or len(groups[-1]) != 1:
        return groups, False
    merged = groups[-2] + groups[-1]
    n = len(groups) - 2
    part = _part(table, sorted([name, *merged]), n == 0)
    part._narrow_name = True  # type: ignore[attr-defined]
    inset = 1 if n and not part.show_edge else 0
    merges = not table.columns[name].no_wrap and not _loses_columns(part, console, width - inset) \
        and _name_lines(part, console, width - inset) <= NAME_LINES
    if merges and not _name_folds(part, console, width - inset):
        return groups[:-2] + [merged], True
    moved = (groups[-2][:-1], [groups[-2][-1], *groups[-1]]) if len(groups[-2]) > 1 else None
    if moved is not None:
        last = _part(table, sorted([name, *moved[1]]), False)
        if not _loses_columns(last, console, width - (0 if last.show_edge else 1)):
            return groups[:-2] + [list(moved[0]), list(moved[1])], False
    if merges:  # a name folded inside a word, where no other layout keeps the lone column beside others
        return groups[:-2] + [merged], True
    return groups, False


#: Lines a name may wrap onto in a part whose name column was narrowed to take a lone column in
#: (:func:`_no_lone_column`): more ("cudaDevice" / "GetStream" / "Priority" / "Range"), and the part is split.
NAME_LINES = 3


def _name_lines(part: Table, console: Console, width: int) -> int:
    """The most lines a cell of ``part``'s name column (the first) wraps onto in the width rich gives it in
    ``width`` cells."""
    w = part._calculate_column_widths(console, console.options.update_width(width - part._extra_width))[0] \
        - _padding(part, 0)
    cells = [c for c in part.columns[0]._cells if isinstance(c, Text)]  # type: ignore[attr-defined]
    return max((len(c.wrap(console, max(1, w))) for c in cells), default=1)


def _name_folds(part: Table, console: Console, width: int) -> bool:
    """Whether a cell of ``part``'s name column (the first), in the width rich gives it in ``width`` cells, is
    folded inside a word: a line of it ends where its text has no break (``cudaLaunch`` / ``Kernel``,
    ``cudaGetDevice`` / ``Properties_v2``: an identifier cut with no marker), not between its tokens."""
    w = part._calculate_column_widths(console, console.options.update_width(width - part._extra_width))[0] \
        - _padding(part, 0)
    for cell in part.columns[0]._cells:  # type: ignore[attr-defined]
        if not isinstance(cell, CJKText) or "\n" in cell.plain:
            continue
        text = cell.plain
        if cell_len(text) <= w:
            continue
        allowed = {a for a, _ in _segments(text, cell.strict, cell.name, code=cell.code, model=cell.model)}
        lines = cell.wrap(console, max(1, w))
        ends, at = [], 0
        for line in lines[:-1]:
            at = text.index(line.plain.strip(), at) + len(line.plain.strip())
            while at < len(text) and text[at] == " ":
                at += 1
            ends.append(at)
        if any(e not in allowed for e in ends):
            return True
    return False


def _same_name_width(parts: list[Table], console: Console, width: int) -> None:
    """The name column (the first) of every part of a split table (each fitted already) no wider than in the
    narrowest of them, where the parts would give it different widths: a name wrapped on one part is wrapped the same way on the others,
    not printed whole on one and broken on the next."""
    if any(part.columns[0].no_wrap for part in parts):
        return  # a name kept on one line keeps its widest cell on every part (never cut: _squeezed)
    widths = []
    for n, part in enumerate(parts):
        inner = width - (1 if n and not part.show_edge else 0)
        extra = part._extra_width
        widths.append(part._calculate_column_widths(console, console.options.update_width(inner - extra))[0]
                      - _padding(part, 0))
    if len(set(widths)) > 1:
        for part in parts:  # (rich clamps a column at its max_width and the padding it counts: _padding)
            part.columns[0].max_width = min(widths) + _padding(part, 0) - part._get_padding_width(0)


def _padding(table: Table, column: int) -> int:
    """Cells of padding rich prints beside the cells of ``table``'s ``column`` (index), left and right: as its
    cells are laid out (``Table._get_cells``), not as ``Table._get_padding_width`` counts them, which under
    ``collapse_padding`` leaves out the first column's left padding (a width set from it would cut a cell by one)."""
    _, right, _, left = table.padding
    if table.collapse_padding and column > 0:
        left = max(0, left - right)
    if not table.pad_edge:
        left = 0 if column == 0 else left
        right = 0 if column == len(table.columns) - 1 else right
    return left + right


def left_out_note(headers: list[str]) -> str:
    """The line printed below a table whose columns ``headers`` did not fit: how many, which, and how to see them
    (a wider terminal, ``--format markdown``); in Chinese where a header is."""
    from .common import label

    lang = "zh" if any(has_cjk(h) for h in headers) else "en"
    return label("fit_left_out", lang).format(n=len(headers), cols=label("fit_cols_sep", lang).join(headers))


def _fit_any(item: object, console: Console, width: int) -> None:
    if isinstance(item, Table):
        _fit(item, console, width)
    elif isinstance(item, Group):
        shown = item.renderables
        for i, part in enumerate(shown):
            shown[i] = _narrowed(part, console, width)
            _fit_any(shown[i], console, width)
            shown[i] = _noted(shown[i])
        if getattr(item, "_split", None):
            _same_name_width(item._split, console, width)  # type: ignore[attr-defined]
    elif isinstance(item, Padding):  # the note on columns left out below the inset part, flush left (the Group's)
        _fit_any(item.renderable, console, width - item.left - item.right)
        item._left_out = getattr(item.renderable, "_left_out", None)  # type: ignore[attr-defined]
        item.renderable._left_out = None  # type: ignore[union-attr]
    elif isinstance(item, Panel):
        _fit_any(item.renderable, console, width - 4)  # two borders, one cell of padding each side
        item.renderable = _noted(item.renderable)


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
    _tighten(table, console, width)
    name, overhead, need = _needs(table, console, width)
    for c in table.columns:  # a column that wants room (wants) gets it from rich too: a set width, which rich does
        if getattr(c, "_set", None) is not None:  # not narrow to the other wrapping columns' width
            c.width = c._set  # type: ignore[attr-defined]
    dropped: list[str] = []
    while len(table.columns) > 1 and (overhead + sum(need) > width or _squeezed(table, console, width)):
        first = [i for i, c in enumerate(table.columns) if c in getattr(table, "_drop_first", ()) and i != name]
        drop = next(iter(sorted(first, key=lambda i: table._drop_first.index(table.columns[i]))), None)  # type: ignore[attr-defined]
        if drop is None:
            drop = max(i for i in range(len(table.columns)) if i != name)  # the rightmost: the least important
        gone = table.columns.pop(drop)
        dropped.insert(0, gone.header.plain if isinstance(gone.header, Text) else str(gone.header))
        overhead -= _per_column(table)
        need.pop(drop)
        if drop < name:
            name -= 1
    _fill(table, console, width, overhead)
    _two_line_headers(table, console, width, overhead, need, name)
    _whole_labels(table, console, width)
    refit = getattr(table, "_refit", None)  # a title that says what the columns shown are of
    if refit is not None:
        refit(table)
    if dropped and table.show_header:  # never silently: the columns left out, and how to see them (_noted)
        table._left_out = left_out_note([" ".join(h.split()) for h in dropped])  # type: ignore[attr-defined]


def _whole_labels(table: Table, console: Console, width: int) -> None:
    """Each wrapping column of ``table`` holding lists of labels (:class:`~.cjk_console.LabelsText`: a roofline
    ceiling's pipes) at least as wide as its widest label where the table still fits ``width`` cells so (then it
    wraps between labels, never inside one: ``FP16 Tensor Core，FP16 累加 /`` / ``FP8 Tensor Core``)."""
    options = console.options.update_width(width)
    for i, column in enumerate(table.columns):
        if column.no_wrap or column.width is not None:
            continue
        labels = [cell_len(c.plain[a:b].strip()) for c in column._cells if isinstance(c, LabelsText)  # type: ignore[attr-defined]
                  for a, b in _segments(c.plain, labels=c.labels)]
        given = table._calculate_column_widths(console, options.update_width(width - table._extra_width))[i] \
            - _padding(table, i)
        lows = [table._measure_column(console, options, c).minimum for c in table.columns]
        for widest in sorted({n for n in labels if n > given}, reverse=True):  # the widest label that fits
            if column.max_width is not None and widest > column.max_width:
                continue
            column.width = widest  # (a set width: rich narrows the other wrapping columns, not this one, to fit)
            widths = table._calculate_column_widths(console, options.update_width(width - table._extra_width))
            if not _squeezed(table, console, width) and all(w >= low for j, (w, low) in enumerate(zip(widths, lows))
                                                            if j != i):
                break  # (no other column narrower than its longest word for it)
            column.width = None


def _header_lines(header: object, lines: int) -> int:
    """Cells a header needs to wrap onto ``lines`` lines (1 or 2) at most, at its strong breaks (a space, a
    punctuation mark, between a CJK and an ASCII run: ``运行 Rank`` / ``数``, ``Ranks running`` / ``it``)."""
    text = " ".join((header.plain if isinstance(header, Text) else str(header)).split())
    if lines == 1:
        return cell_len(text)
    points = [a for a, _ in _segments(text, strict=True)][1:]
    return min((max(cell_len(text[:i].rstrip()), cell_len(text[i:])) for i in points), default=cell_len(text))


def _two_line_headers(table: Table, console: Console, width: int, overhead: int, need: list[int], name: int) -> None:
    """In a compact or tight table (:func:`compact`, :func:`tight`) that fits ``width`` cells with room to spare,
    the columns whose header is wider than their values (a rank's number under ``运行 Rank 数``; in a tight one the
    columns of numbers only) are made wide enough for their header on one line, every one of them where the room allows, else on two lines at most, left to right while the room lasts;
    rich keeps them at least that wide, the name column keeping
    :data:`NAME_COMPACT` cells: a header of three or four lines over a one-character value reads badly."""
    if not (getattr(table, "_compact", False) or getattr(table, "_tight", False)) or not table.show_header:
        return
    room = width - overhead - sum(need)
    others = [i for i in range(len(table.columns)) if i != name  # (in a tight one, the columns of numbers)
              and (getattr(table, "_compact", False) or table.columns[i].no_wrap)]
    wants = {n: {i: max(0, _header_lines(table.columns[i].header, n) - need[i]) for i in others} for n in (1, 2)}
    for n in (1,) if sum(wants[1].values()) <= room else (2,):
        for i in others:
            extra = max(0, need[i] + wants[n][i] - max(need[i], table.columns[i].min_width or 0))
            if 0 < extra <= room:
                table.columns[i].min_width = need[i] + wants[n][i]
                room -= extra


def _needs(table: Table, console: Console, width: int) -> tuple[int, int, list[int]]:
    """(the name column, the cells of borders and padding, the cells each column needs) of ``table`` in
    ``width`` cells (see :func:`_fit`; a compact table's columns that wrap at their narrowest: :func:`compact`)."""
    _cjk_cells(table)
    name = _name_column(table)
    sizes = [_column_sizes(c, console, width) for c in table.columns]
    overhead = _minimum(table, console, 1 << 20) - sum(low for low, _ in sizes)  # borders and padding (unclamped)
    need = [min(high, CELL_MAX) for _, high in sizes]  # a longer word is folded or abbreviated by rich
    need[name] = min(NAME_MIN, sizes[name][0])  # its longest word, up to NAME_MIN (rich wraps or abbreviates it)
    if getattr(table, "_narrow_name", False) and not table.columns[name].no_wrap:  # (a part that takes a lone
        # column in: split_parts; a name kept on one line is not narrowed)
        need[name] = min(NAME_COMPACT, sizes[name][0])
    if getattr(table, "_compact", False):
        need = [low if not c.no_wrap else n for (low, _), n, c in zip(sizes, need, table.columns)]
        need[name] = min(NAME_COMPACT, sizes[name][0])
    wanted = [i for i, c in enumerate(table.columns) if getattr(c, "_want", None) is not None]
    coded = [i for i, c in enumerate(table.columns) if getattr(c, "_code", False)]
    for i in wanted + coded:
        table.columns[i]._set = None  # type: ignore[attr-defined]
    if (wanted or coded) and overhead + sum(high for _, high in sizes) <= width:
        wanted = coded = []  # every cell on one line: rich gives each column its room
    for i in coded:  # its whole instruction, up to a share of the width (code), the columns of prose beside it
        raised = max(need[i], min(sizes[i][1], width // CODE_SHARE))  # wrapping narrower for it first (by
        gain, need[i] = raised - need[i], raised  # the cells it gained at most: no more columns beside it)
        table.columns[i]._set = need[i]  # type: ignore[attr-defined]
        for j, c in enumerate(table.columns):
            over = min(gain, overhead + sum(need) - width)
            if over > 0 and j not in coded and j not in wanted and j != name and not c.no_wrap:
                need[j] -= min(over, need[j] - min(need[j], sizes[j][0]))
                gain -= over
    raised = [max(need[i], min(table.columns[i]._want, _want_cap(width), sizes[i][1])) for i in wanted]  # type: ignore[attr-defined]
    if any(r > need[i] for i, r in zip(wanted, raised)):  # room to give: each column that wants it is set
        for i, r in zip(wanted, raised):
            need[i] = r
            table.columns[i]._set = r  # type: ignore[attr-defined]
    return name, overhead, need


def _loses_columns(table: Table, console: Console, width: int) -> bool:
    """Whether :func:`_fit` would drop a column of ``table`` in ``width`` cells (a compact table tightened first:
    :func:`_tighten`)."""
    if len(table.columns) < 2:
        return False
    _tighten(table, console, width)
    _, overhead, need = _needs(table, console, width)
    return overhead + sum(need) > width or _squeezed(table, console, width)


def _too_wide(table: Table, console: Console, width: int) -> bool:
    _, overhead, need = _needs(table, console, width)
    return overhead + sum(need) > width or _squeezed(table, console, width)


def _tighten(table: Table, console: Console, width: int) -> None:
    """A compact or tight table (:func:`compact`, :func:`tight`) too wide for ``width`` cells: the Chinese headers of its columns that do not
    wrap wrap at their strong breaks (:class:`~.cjk_console.NarrowHeader`), then, still too wide, one cell of padding
    between two columns instead of two (rich's ``collapse_padding``)."""
    if not (getattr(table, "_compact", False) or getattr(table, "_tight", False)) or not _too_wide(table, console, width):
        return
    for column in table.columns:
        text = column.header.plain if isinstance(column.header, Text) else str(column.header)
        if column.no_wrap and has_cjk(text) and not isinstance(column.header, NarrowHeader):
            narrow = NarrowHeader.of(column.header if isinstance(column.header, Text) else Text(text))
            narrow.no_wrap = False
            column.header = narrow  # type: ignore[assignment]
    if _too_wide(table, console, width):
        table.collapse_padding = True


def _squeezed(table: Table, console: Console, width: int) -> bool:
    """Whether the layout rich gives ``table`` in ``width`` cells loses characters: wider than ``width`` (a
    column's ``min_width`` and the columns that do not wrap kept; the console then crops every line, the title's
    among them), or a column that does not wrap (its header included) narrower than its widest cell (cut with
    "…")."""
    extra = table._extra_width
    widths = table._calculate_column_widths(console, console.options.update_width(width - extra))
    if sum(widths) + extra > width:
        return True
    return any(c.no_wrap and w < _widest(table, console, c) for w, c in zip(widths, table.columns))


def _widest(table: Table, console: Console, column: object) -> int:
    """Cells the widest cell of ``table``'s ``column`` (its header included) takes on one line, with the padding
    rich prints beside it: not clamped at the column's ``max_width`` (a column that does not wrap, narrowed so,
    is cut)."""
    options = console.options.update_width(1 << 20)
    return max((Measurement.get(console, options, cell.renderable).maximum
                for cell in table._get_cells(console, column._index, column)), default=0)  # type: ignore[attr-defined]


def _cjk_cells(table: Table) -> None:
    """Each ``Text`` cell and header holding CJK characters as a :class:`~.cjk_console.CJKText`, measured at its break
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

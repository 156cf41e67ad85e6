"""Rich texts that wrap where Chinese text may break (:mod:`.cjk`), and the console that prints every table and text
of kernelscope with them (:class:`CJKConsole`). No analysis here."""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, OverflowMethod, RenderableType
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import DEFAULT_JUSTIFY, DEFAULT_OVERFLOW, Lines, Text

from .cjk import _segments, divide, hang, hangs
from .tokens import _CJK, has_cjk

__all__ = ["CJKConsole", "CJKText", "CodeText", "LabelsText", "labels_text", "ModelText", "HeaderText", "NameText", "NarrowHeader",
           "narrow_header", "header", "name_text", "path_text", "PATH"]


class CJKText(Text):
    """A rich ``Text`` that wraps (and measures its narrowest width) at :func:`break_opportunities`, the wrapped
    lines of an item hanging under its text (:func:`hang`); ``strict``: at :func:`strong_breaks` only (a header)."""

    strict = False
    #: Whether it wraps as a name (:class:`NameText`).
    name = False
    #: Whether its first line is a path, which wraps as a name (:func:`path_text`).
    path = False
    #: Whether it is code, which wraps between operands only (:class:`CodeText`).
    code = False
    #: Whether it is a product's name, which wraps outside its model only (:class:`ModelText`).
    model = False
    #: The separator between the labels of a list of labels (:class:`LabelsText`); "" for other text.
    labels = ""
    #: Cells its wrapped lines hang by at least (a sentence in a table's first column: its tail never reads as the
    #: next row, :func:`hanging`).
    hang_by = 0

    @classmethod
    def of(cls, text: Text) -> "CJKText":
        """``text`` (its characters, styles and settings) as a :class:`CJKText`."""
        out = cls(justify=text.justify, overflow=text.overflow, no_wrap=text.no_wrap, end=text.end,
                  tab_size=text.tab_size)
        from .inline import plain_code  # (a Chinese text: its code spans without backticks)
        out.append_text(plain_code(text))
        return out

    def wrap(self, console: Console, width: int, *, justify: Optional[JustifyMethod] = None,
             overflow: Optional[OverflowMethod] = None, tab_size: int = 8, no_wrap: Optional[bool] = None) -> Lines:
        """``Text.wrap`` with the breaks of :func:`divide`, wrapped lines hanging by :func:`hang`."""
        wrap_justify = justify or self.justify or DEFAULT_JUSTIFY
        wrap_overflow = overflow or self.overflow or DEFAULT_OVERFLOW
        no_wrap = bool(no_wrap if no_wrap is not None else self.no_wrap) or overflow == "ignore"
        lines = Lines()
        for number, line in enumerate(self.split(allow_blank=True)):
            if "\t" in line:
                line.expand_tabs(tab_size)
            if no_wrap:
                if overflow == "ignore":
                    lines.append(line)
                    continue
                new_lines = Lines([line])
            else:
                indent = max(hang(line.plain, width), self.hang_by if 2 * self.hang_by < width else 0)
                new_lines = line.divide(divide(line.plain, width, fold=wrap_overflow == "fold", rest=width - indent,
                                               strict=self.strict, name=self.name, path=self.path and not number,
                                               code=self.code, model=self.model, labels=self.labels))
                for n, part in enumerate(new_lines):
                    part.rstrip_end(width)
                    if cell_len(part.plain) > width:  # (rstrip_end counts characters, not cells: "累加 / " ends
                        part.rstrip()  # a line of width cells with a blank beyond it, never cut to "累加 …")
                    if n and indent:
                        part.pad_left(indent)
            if wrap_justify:
                new_lines.justify(console, width, justify=wrap_justify, overflow=wrap_overflow)
            for part in new_lines:
                part.truncate(width, overflow=wrap_overflow)
            lines.extend(new_lines)
        return lines

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        lines = self.plain.splitlines()
        widest = max(map(cell_len, lines), default=0)
        pieces = [(max(hang(line, 1 << 20), self.hang_by) if a else 0) + cell_len(line[a:b].strip())
                  for line in lines for a, b in _segments(line, self.strict, self.name, code=self.code,
                                                          model=self.model, labels=self.labels)]
        return Measurement(max(pieces, default=widest), widest)


class LabelsText(CJKText):
    """A list of labels in a table cell (a roofline ceiling's pipes: ``FP16 Tensor Core，FP16 累加 / FP8 Tensor
    Core``): it wraps between two labels, after their separator (:func:`~.cjk.label_breaks`), where each label fits
    a line, else also at a label's strong breaks, never inside a word of a label (``累`` / ``加``); it measures at
    its widest label, which a fitted table gives its column where the room allows (:func:`~.fit.fit_tables`)."""

    def __init__(self, text: str = "", separator: str = " / ", **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.labels = separator


def labels_text(labels: Iterable[str], separator: str = " / ", **kwargs: Any) -> CJKText:
    """``labels`` joined by ``separator`` as a :class:`LabelsText`."""
    return LabelsText(separator.join(labels), separator, **kwargs)


class CodeText(CJKText):
    """A line of code in a table cell (a SASS instruction): it wraps after the ``, `` between two operands only
    (:func:`code_breaks`), and measures at its narrowest piece (the opcode and its first operand) and its whole
    line; a table gives it its whole line first (:func:`~.fit.code`)."""

    code = True


class ModelText(CJKText):
    """A product's name in a table cell (a GPU's): it wraps before its model only (:func:`model_breaks`:
    ``NVIDIA GeForce`` / ``GTX 1070``), never inside it, and measures at its model (its narrowest piece)."""

    model = True


class HeaderText(CJKText):
    """A table header: it wraps only at :func:`strong_breaks` (a space, a punctuation mark, between a CJK and an
    ASCII run), never inside a word ("线程" / "数")."""

    strict = True


class NarrowHeader(HeaderText):
    """A table header that wraps at its strong breaks even in a column that does not wrap (a column of numbers
    kept whole): it measures at its narrowest piece, so a long header ("DRAM 峰值下（上限）") does not widen its
    column of short values; it is a :class:`HeaderText` already (:func:`header` leaves it as it is)."""

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        narrowest = super().__rich_measure__(console, options).minimum
        return Measurement(narrowest, narrowest)


def narrow_header(text: str) -> "NarrowHeader | str":
    """``text`` as a :class:`NarrowHeader` (set to wrap) when it holds CJK characters, else as it is."""
    return NarrowHeader(text, no_wrap=False) if has_cjk(text) else text


class NameText(CJKText):
    """A kernel or file name in a table cell: wraps between its tokens (:func:`name_breaks`), not mid-word. It
    measures as rich measures text (its narrowest width: its longest blank-separated word), so a table gives the
    name column the room it gave it before and the name is wrapped only when that room is short."""

    name = True

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Text.__rich_measure__(self, console, options)


def name_text(name: str, **kwargs: Any) -> CJKText:
    """``name`` (already shortened and made safe) as a :class:`NameText`, also with a Chinese suffix in full-width
    parentheses (``…（名称被分析器截断）``); a cell that is Chinese from its start (a label such as 程序空闲 in a name
    column) as a :class:`CJKText`, which breaks by the Chinese rules."""
    cjk = _CJK.search(name)
    if cjk is not None and not (cjk.start() > 0 and name[cjk.start()] == "（"):  # a name with a Chinese suffix
        return CJKText(name, **kwargs)  # a Chinese label ("程序空闲")
    return NameText(name, **kwargs)


#: A table cell holding a file's path or name (``a/b.json``, ``rank0.pt.trace.json``), not a ratio (``3/4``).
PATH = re.compile(r"(?![\d/.]+$)[\w.+~-]*(?:/[\w.+~-]+)+/?|[\w+~-]+(?:\.[\w+~-]+)*\.[A-Za-z][\w-]*")


class PathText(CJKText):
    """An input's path on its first line (wrapped as a name: at ``/``, ``_``, ``-``, ``.``), then what wrote it."""

    path = True


def path_text(text: str, **kwargs: Any) -> CJKText:
    """``text`` (a path, then lines about it: :meth:`~kernelscope.render.common.Fmt.input_head`) as a
    :class:`PathText`: a long path wraps between its parts, never leaving a letter alone on a line."""
    return PathText(text, **kwargs)


def hanging(cell: CJKText, cells: int = 2) -> CJKText:
    """``cell`` with its wrapped lines hanging by ``cells`` (a change worded in a table's first column: "所有 Rank 上
    … 提速 2×" wrapped, its tail indented under its start, not at the margin where the next row starts)."""
    cell.hang_by = cells
    return cell


def header(cell: object) -> object:
    """A table header holding CJK characters as a :class:`HeaderText` (a string or a ``Text``); others as they are
    (rich wraps text without CJK characters at spaces only: never inside a word already)."""
    if isinstance(cell, HeaderText) or not isinstance(cell, (str, Text)) or not has_cjk(str(cell)):
        return cell
    return HeaderText.of(Text(cell) if isinstance(cell, str) else cell)


def _headers(table: object) -> None:
    for column in getattr(table, "columns", ()):
        column.header = header(column.header)


class CJKConsole(Console):
    """A rich ``Console`` that wraps each text holding CJK characters as a :class:`CJKText` (strings, ``Text``
    objects, table cells and titles alike); other text as rich does. Console markup is off by default: every
    string we print is data or catalogue text (``tile[t][c]``, ``[n]``, a demangled ``[with T = float]``), never
    rich markup, so a bracket is printed as written instead of being taken for a style tag."""

    def __init__(self, *args: Any, markup: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, markup=markup, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        rendered = super().render_str(text, **kwargs)
        return CJKText.of(rendered) if has_cjk(rendered.plain) or hangs(rendered.plain) else rendered

    def render(self, renderable: RenderableType, options: Optional[ConsoleOptions] = None) -> Iterable[Segment]:
        if isinstance(renderable, Table):
            _headers(renderable)
            if renderable.title and renderable.title_justify == "left":  # the title wraps at the width printed
                return self._titled(renderable, options)  # in, not at the (often narrower) table's width
        if isinstance(renderable, Text) and not isinstance(renderable, CJKText) and (
                has_cjk(renderable.plain) or hangs(renderable.plain)):
            renderable = CJKText.of(renderable)
        return super().render(renderable, options)

    def _titled(self, table: Table, options: Optional[ConsoleOptions]) -> Iterable[Segment]:
        title = table.title
        text = self.render_str(title, style=table.title_style or "table.title", highlight=False) \
            if isinstance(title, str) else title
        yield from self.render(text, options)
        table.title = None
        try:
            yield from self.render(table, options)
        finally:
            table.title = title

    def on_broken_pipe(self) -> None:
        """A reader that closed the pipe (``| head``): stop writing and let the command line end quietly
        (:func:`kernelscope.cli.main`: exit 141), instead of rich's exit 1 (``compare``'s regression code)."""
        self.quiet = True
        raise BrokenPipeError(32, "Broken pipe")


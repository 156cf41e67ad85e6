"""Inline code in prose, one rule for every format: a command or an identifier in a message is written between
backticks (```ncu --set full```, ```__shared__ float tile[32][33]```); HTML shows each such span as an escaped
``<code>`` element (never the backticks themselves), Markdown keeps it a code span, and both put in one the
identifiers a message holds bare (:data:`BARE_CODE`: ``useful_flops``, ``dram__bytes_read.sum``, ``cp.async``,
``[32][33]``, ``__shared__`` that Markdown would read as bold, a kernel name such as ``triton_poi_fused_0``). The
terminal shows an English text as it is and a Chinese one without the backticks (:func:`terminal_prose`: ASCII
quote marks do not belong in Chinese prose; the spaces around the code mark it). Pure functions of the text; no
I/O."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (rich only where a terminal text is drawn: a JSON document never loads it)
    from rich.text import Text

from .common import md_cell, md_code, safe

#: A Chinese character: a text holding one is Chinese prose.
_HAN = re.compile(r"[\u3400-\u9fff]")
#: A code span: a run of backticks, the code, the same run (CommonMark).
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
#: An identifier written bare in prose that is code: a double-underscore word and the declaration it starts
#: (``__shared__ float tile[32][32]``), a subscripted array (``tile[t][c]``), a name with an underscore (a metric,
#: a field, a kernel: ``useful_flops``, ``l1tex__t_sectors.sum``, ``CUBLASLT_EPILOGUE_GELU_BIAS``,
#: ``pin_memory=True``), a dotted lower-case name (an instruction or a function: ``cp.async``, ``mma.sync``,
#: ``torch.compile``, ``s8_gemm.cu:286``; each part two characters or more, so never "e.g."), an array shape (``[32][33]``), an option and its
#: upper-case value (``--details``, ``--gpu NAME``, ``--cuda-graph-trace=node``). Never a
#: part of a path or a URL (a ``/`` or ``:`` before it), nor a piece of a longer name (``…elementwise_kernel<…>``,
#: ``[CUDAFunctor_add]``: a name is code as a whole or not at all).
BARE_CODE = re.compile(r"(?<![`\w/.:\\<>\[…-])(?:__[A-Za-z]\w*(?: [A-Za-z_]\w*)*(?:\[[^\]\s]*\])*"
                       r"|[A-Za-z_]\w*(?:\[[^\]\s]*\])+"
                       r"|[A-Za-z][A-Za-z0-9]*(?:__?[A-Za-z0-9]+)+(?:\.[A-Za-z0-9_]+)*(?:=\w+|:\d+)?"
                       r"|[a-z][a-z0-9_]+(?:\.[a-z][a-z0-9_]+)+(?::\d+)?"
                       r"|(?:\[\d+\]){2,}"
                       r"|(?<![\w-])--[a-z][a-z0-9-]+(?:=[\w.:,*/-]+| [A-Z][A-Z_]*(?:=[A-Z_]+)?(?![\w-]))?)(?![`\w/\\<(…]|\.\w|::)")


def spans(text: str) -> list[tuple[bool, str]]:
    """``text`` as (is code, piece) pairs, in order: the code spans between backticks and the prose around them."""
    out, at = [], 0
    for m in CODE_SPAN.finditer(text):
        if m.start() > at:
            out.append((False, text[at:m.start()]))
        out.append((True, m.group(2)))
        at = m.end()
    if at < len(text):
        out.append((False, text[at:]))
    return out


def code_pieces(text: str) -> list[tuple[bool, str]]:
    """:func:`spans`, with each bare identifier of the prose (:data:`BARE_CODE`) a code piece too."""
    out: list[tuple[bool, str]] = []
    for code, piece in spans(text):
        if code:
            out.append((True, piece))
            continue
        at = 0
        for m in BARE_CODE.finditer(piece):
            if m.start() > at:
                out.append((False, piece[at:m.start()]))
            out.append((True, m.group(0)))
            at = m.end()
        if at < len(piece):
            out.append((False, piece[at:]))
    return out


def html_code(text: str) -> str:
    """``text`` (a command, an instruction, an identifier) as an escaped ``<code>`` element."""
    return f"<code>{html.escape(safe(str(text)), quote=True)}</code>"


def html_prose(text: object) -> str:
    """Prose as HTML: escaped, each code span between backticks and each bare identifier (:data:`BARE_CODE`) a
    ``<code>`` element (no backticks shown)."""
    return "".join(html_code(piece) if code else html.escape(safe(piece), quote=True)
                   for code, piece in code_pieces(safe(str(text))))


def md_prose(text: object) -> str:
    """Prose as one Markdown line (:func:`~.common.md_cell`): its code spans kept, and each bare identifier
    (:data:`BARE_CODE`) put in a code span."""
    return "".join(md_code(piece) if code else piece for code, piece in code_pieces(md_cell(text)))


def terminal_prose(text: str) -> str:
    """A Chinese text for the terminal: each code span without its backticks ("用 `--details` 查看" -> "用
    --details 查看"); a text without a Chinese character as it is."""
    if "`" not in text or not _HAN.search(text):
        return text
    return CODE_SPAN.sub(lambda m: m.group(2), text)


def plain_code(text: "Text") -> "Text":
    """A Chinese ``text`` with each code span shown without its backticks, its styles kept
    (:func:`terminal_prose`: "用 `--details` 查看" -> "用 --details 查看"); other text as it is."""
    plain = text.plain
    if "`" not in plain or not _HAN.search(plain):
        return text
    offsets = [x for m in CODE_SPAN.finditer(plain)
               for x in (m.start(), m.start() + len(m.group(1)), m.end() - len(m.group(1)), m.end())]
    if not offsets:
        return text
    from rich.text import Text

    pieces = text.divide(offsets)  # prose, fence, code, fence, prose, ...: the fences at 1 and 3 of each 4
    return Text("").join(piece for i, piece in enumerate(pieces) if i % 4 not in (1, 3))


def md_label_line(label: str, value: str, colon: str, bullet: str = "- ") -> str:
    """One labelled Markdown line, the one rule for a bold label in every command: ``- **label**: value`` /
    ``- **标签**：值`` (``colon``: the output language's, :attr:`~.common.Fmt.colon`), never a bold label
    without its colon; a line without a label is its value alone."""
    return f"{bullet}**{label}**{colon}{value}" if label.strip("* ") else f"{bullet}{value}"


def md_labelled(rows, colon: str, semi: str, bullet: str = "- ") -> list[str]:
    """Labelled Markdown lines ``- **label**: value`` of (label, value) pairs already in Markdown, one rule for every
    command: a row with an empty label is the row above's continuation (a table's second line under one label),
    joined to its line with ``semi``; first of all, it is a line of its own without a label. Never an empty bold
    run (``- ****: ...``)."""
    lines: list[str] = []
    for label, value in rows:
        if label.strip("* "):
            lines.append(md_label_line(label, value, colon, bullet))
        elif lines:
            lines[-1] += f"{semi}{value}"
        else:
            lines.append(f"{bullet}{value}")
    return lines

"""Inline code in prose, one rule for every format: a command or an identifier in a message is written between
backticks (```ncu --set full```, ```__shared__ float tile[32][33]```); HTML shows each such span as an escaped
``<code>`` element (never the backticks themselves), Markdown keeps it a code span and puts in one the identifiers
a message holds bare (``__shared__`` outside backticks would read as bold). The terminal shows the text as it is.
Pure functions of the text; no I/O."""

from __future__ import annotations

import html
import re

from .common import md_cell, md_code, safe

#: A code span: a run of backticks, the code, the same run (CommonMark).
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
#: A bare C/C++ identifier Markdown would misread: a double-underscore word and the declaration it starts
#: (``__shared__ float tile[32][32]``), or a subscripted array (``tile[t][c]``).
BARE_CODE = re.compile(r"(?<![`\w])(?:__[A-Za-z]\w*(?: [A-Za-z_]\w*)*(?:\[[^\]\s]*\])*"
                       r"|[A-Za-z_]\w*(?:\[[^\]\s]*\])+)(?![`\w])")


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


def html_code(text: str) -> str:
    """``text`` (a command, an instruction, an identifier) as an escaped ``<code>`` element."""
    return f"<code>{html.escape(safe(str(text)), quote=True)}</code>"


def html_prose(text: object) -> str:
    """Prose as HTML: escaped, each code span between backticks a ``<code>`` element (no backticks shown)."""
    return "".join(html_code(piece) if code else html.escape(safe(piece), quote=True)
                   for code, piece in spans(safe(str(text))))


def md_prose(text: object) -> str:
    """Prose as one Markdown line (:func:`~.common.md_cell`): its code spans kept, and each bare identifier that
    Markdown would misread (:data:`BARE_CODE`) put in a code span."""
    out = []
    for code, piece in spans(md_cell(text)):
        out.append(md_code(piece) if code else BARE_CODE.sub(lambda m: md_code(m.group(0)), piece))
    return "".join(out)

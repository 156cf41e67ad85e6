"""Text for a table cell or a chart label: input text made safe for a terminal (:func:`safe`), kernel names
shortened where a reader still tells them apart (:func:`short_name`, :func:`short_names`). Re-exported by
:mod:`kernelscope.render.common`."""

from __future__ import annotations

import re
from typing import Sequence


_CONTROL = dict.fromkeys(range(32), "?") | {127: "?"}


def safe(text: str) -> str:
    """Text from an input file with control characters (ESC, newlines...) replaced, safe for a terminal."""
    return text if type(text) is str and text.isprintable() else str(text).translate(_CONTROL)  # (printable: none)


#: Widest kernel name a table cell shows whole (:func:`short_name`).
NAME_WIDTH = 60


def short_name(name: str, width: int = NAME_WIDTH) -> str:
    """A kernel name for a table cell (:func:`safe`): whole when it fits in ``width`` characters; else without a
    leading ``void``, each template argument list elided to ``<…>``, then the parameter list to ``(…)``; still too
    long, the qualifying scopes are cut from the left (``…::kernel<…>(…)``), a name without scopes in its middle.
    JSON keeps names whole."""
    text = safe(name)
    if len(text) <= width:
        return text
    text = text.removeprefix("void ")
    for opener, closer in (("<", ">"), ("(", ")")):
        if len(text) > width:
            text = _elide(text, opener, closer)
    if len(text) <= width:
        return text
    if "::" in text:  # keep the function, cut the scopes
        return "…" + text[_tail_start(text, len(text) - width + 1, scopes=True):]
    head = _head_end(text, (width - 1) // 2)
    return text[:head] + "…" + text[_tail_start(text, len(text) - (width - 1 - head)):]


def _token_cut(text: str, i: int) -> bool:
    """Whether ``text`` may be cut before index ``i``: between two tokens of a name (after ``_``, ``::``, ``,`` or
    a blank; before ``<``, ``(``, ``,``, ``:`` of ``::`` or a blank), never next to an ``…`` (no ``……``) and never
    before a closing ``>``/``)``."""
    if not 0 < i < len(text) or "…" in (text[i - 1], text[i]) or text[i] in ">)":
        return False
    before, ch = text[i - 1], text[i]
    return (before in "_, " or text[i - 2:i] == "::" or ch in "<(, " or
            (text[i:i + 2] == "::" and before != ":"))


def _tail_start(text: str, at: int, scopes: bool = False) -> int:
    """Where the kept end of ``text`` starts: the first ``::`` at or after ``at`` (``scopes``: ``…::kernel``), else
    the first token cut (:func:`_token_cut`) that keeps more than three characters; else ``at`` moved past an
    ``…`` (never two in a row)."""
    if scopes:
        cut = next((i for i in range(at, len(text) - 2) if text[i:i + 2] == "::" and _token_cut(text, i)), None)
        if cut is not None:
            return cut
    cut = next((i for i in range(at, len(text) - 3) if _token_cut(text, i)), None)  # keep a few characters
    if cut is not None:
        return cut
    while at < len(text) and text[at] == "…":
        at += 1
    return at


def _head_end(text: str, at: int) -> int:
    """The last token cut (:func:`_token_cut`) at or before ``at`` and within half of it; else ``at`` moved
    before an ``…``."""
    cut = next((i for i in range(at, at // 2, -1) if _token_cut(text, i)), None)
    if cut is not None:
        return cut
    while at > 1 and text[at - 1] == "…":
        at -= 1
    return at


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")


def short_names(names: Sequence[str], width: int = NAME_WIDTH) -> list[str]:
    """:func:`short_name` of each of ``names`` (a table's name column, a chain), kept apart: names that differ but
    shorten alike (``vectorized_elementwise_kernel<…>(…)`` for the add and the mul functor) each get the first word
    of the full name that the others of that set lack, ``… [AddFunctor]``; when none does (or two get the same one),
    a number, ``… [#1]``, ``… [#2]``. The same name twice stays the same; the JSON and --details keep names
    whole."""
    out = [short_name(n, width) for n in names]
    clashes: dict[str, list[int]] = {}
    for i, text in enumerate(out):
        clashes.setdefault(text, []).append(i)
    for text, where in clashes.items():
        distinct = list(dict.fromkeys(names[i] for i in where))
        if len(distinct) < 2:
            continue
        words = [_WORD.findall(n) for n in distinct]
        common = set.intersection(*(set(w) for w in words))
        tags = [next((w for w in ws if w not in common), None) for ws in words]
        if None in tags or len(set(tags)) < len(tags):
            tags = [f"#{k}" for k in range(1, len(distinct) + 1)]
        for full, tag in zip(distinct, tags):
            short = short_name(full, max(width - len(tag) - 3, 12))
            for i in where:
                if names[i] == full:
                    out[i] = f"{short} [{safe(tag)}]"
    return out


def _elide(text: str, opener: str, closer: str) -> str:
    """``text`` with each outermost ``opener``...``closer`` group replaced by ``opener…closer``; unchanged when
    the brackets do not balance (``operator<``, ``->``), except in a name the profiler cut short (it ends with
    ``…``): its open group is elided to the end."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == opener:
            if depth == 0:
                out.append(opener + "…" + closer)
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth < 0:
                return text
        elif depth == 0:
            out.append(ch)
    if depth > 0 and text.endswith(("…", "...")):  # a name the profiler cut inside the group: elided to its end
        return "".join(out)
    return "".join(out) if depth == 0 else text

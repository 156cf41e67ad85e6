"""What the command line says besides reports, in English and Chinese (``messages.toml``): the line an error is
printed in, the errors that carry a message key (:class:`kernelscope.errors.KernelscopeError` ``key`` /
``values``), argparse's usage errors, and the ``--help`` texts.

An error without a key, or whose key has no template, is shown as raised (English) in every language."""

from __future__ import annotations

import re
import string
from functools import cache
from typing import Any, Mapping

from ..errors import KernelscopeError, one_line
from ..notes import Listed
from . import Model, check_lang, load
from .text import Text, agree


class Pattern(Model, kw_only=True):
    """One argparse usage error: a regular expression on its English message and the Chinese replacement."""

    pattern: str
    zh: str
    #: the groups that are a list of options argparse parts with spaces (``--regs --cu``): Chinese joins them with
    #: 、 and the last with 或 (``--regs 或 --cu``), since "one of" a list reads as alternatives
    alternatives: list[int] = []
    #: the groups that are a list argparse joins with ", " (``--dtype, --tile``): Chinese joins them with 、
    lists: list[int] = []


class Help(Model, kw_only=True):
    """One ``--help`` text (a command's help or description, an option's help) in both languages."""

    en: str
    zh: str


class Messages(Model, kw_only=True):
    """``messages.toml``: see the module."""

    frame: dict[str, Text]
    error: dict[str, Text]
    phrase: dict[str, str] = {}
    argparse: list[Pattern] = []
    help: list[Help] = []


def messages() -> Messages:
    """The validated ``messages.toml``."""
    return load("messages.toml", Messages)


def frame(key: str, lang: str, **values: Any) -> str:
    """One line of the ``[frame]`` table in ``lang``, filled (e.g. ``frame("error", "zh", message=...)``)."""
    text = fill(messages().frame[key].get(lang), lang, values)
    return agree(text) if lang == "en" else text


#: A value quoted with ASCII single quotes (a Python repr, argparse's choices): Chinese quotes it “…”.
_QUOTED = re.compile(r"'([^'\n]*)'")
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def zh_notation(text: str) -> str:
    """``text`` (a value put into a Chinese message) in Chinese notation: each ``'x'`` quoted “x”, a ``, `` between
    two quoted values the list separator 、 (``'a', 'b'`` -> “a”、“b”)."""
    return _QUOTED.sub(r"“\1”", text).replace("”, “", "”、“")


def zh_list(text: str) -> str:
    """A list value (its items joined with ``, `` in English) as Chinese lists it: items parted by 、, a trailing
    ``...`` as 等 (``sm_60, sm_61, ...`` -> ``sm_60、sm_61 等``)."""
    items = [item.strip() for item in _split_items(zh_notation(text).replace("”、“", "”, “"))]
    more = bool(items) and items[-1] in ("...", "…")
    shown = "、".join(items[:-1] if more else items)
    return f"{shown} 等" if more else shown


def _split_items(text: str) -> list[str]:
    """``text`` split at each ``, `` outside brackets: a kernel name's template arguments (``f<float, 4>``) and
    parameters stay whole."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and depth:
            depth -= 1
        elif depth == 0 and text.startswith(", ", i):
            items.append(text[start:i])
            start = i + 2
    return items + [text[start:]]


class _Chinese(string.Formatter):
    """Fills a Chinese template: ``{x!r}`` quotes the value “x” (not Python's ``'x'``), ``{x:list}`` lists an
    English ``a, b, c`` text as ``a、b、c`` (:func:`zh_list`), ``{x:parser}`` prefixes a tomllib reason left in English
    ``TOML 解析器：``, ``{x:verbatim}`` is a tool's output as it wrote it; a :class:`~kernelscope.notes.Listed` value is listed so
    whatever its spec."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "r":  # a value quoted as given: Chinese quotes, the text itself (a number as written)
            return f"“{value if isinstance(value, str) else repr(value)}”"
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, format_spec: str) -> Any:
        if isinstance(value, Listed):
            return value.joined("zh")
        if format_spec == "list":
            return zh_list(str(value))
        if format_spec == "verbatim":  # quoted tool output: as the tool wrote it
            return str(value)
        if format_spec == "parser":  # a parser's own reason no [phrase] words: named as the TOML parser's
            return str(value) if _CJK.search(str(value)) else f"TOML 解析器：{value}"
        return super().format_field(value, format_spec)


def fill(template_text: str, lang: str, values: Mapping[str, Any]) -> str:
    """``template_text`` (an ``[error]`` or ``[frame]`` text in ``lang``) filled with ``values``; Chinese in its
    own notation (:class:`_Chinese`: “quotes”, 、 lists)."""
    if lang == "zh":
        return _Chinese().vformat(template_text, (), values)
    return template_text.format(**values)


def phrase(text: str, lang: str) -> str:
    """``text`` (a value of a message: what a file was expected to be, an OS reason; a data problem a reader
    found) in ``lang``: its ``[phrase]`` entry, else the first templated entry (English with ``{name}`` fields)
    that matches it whole, its Chinese filled with what the fields matched (each worded again, so a phrase may
    hold another); as given when none does (in English: its counts and nouns made to agree)."""
    if check_lang(lang) == "en" or not text:
        return agree(text) if text else text  # "1 row(s)" -> "1 row": the English plural rule (:func:`agree`)
    return _reword(text, 3)


def _reword(text: str, depth: int) -> str:
    found = messages().phrase.get(text)
    if found is None:
        found = _label_words().get(text)  # a UI label or note spliced in (why a launch has no roofline)
    if found is not None or depth == 0:
        return text if found is None else found
    for pattern, zh in _templated():
        m = pattern.fullmatch(text)
        if m is not None:
            return fill(zh, "zh", {k.removesuffix(_CODE): v if k.endswith(_CODE) else
                                   _QUOTED.sub(r"“\1”", v) if _QUOTED.fullmatch(v) else _reword(v, depth - 1)
                                   for k, v in m.groupdict().items()})  # a quoted value ('x', a repr): “x”
    return text


@cache
def _label_words() -> Mapping[str, str]:
    """English -> Chinese of every ``labels.toml`` ``[label]`` and ``[note]`` text without fields: the words an
    error may carry from the report's own vocabulary. A label that is a bare number (a table cell such as the
    occupancy table's "0" spills, 否 in Chinese) is not a word: a number in a message stays the number."""
    from .text import labels

    table = labels()
    return {t.en: t.zh for group in (table.label, table.note) for t in group.values()
            if "{" not in t.en and getattr(t, "zh", None) and not t.en.strip().isdigit()}


#: Suffix of a regular expression group that matches code (a field between backticks in the English).
_CODE = "__code"


@cache
def _templated() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The ``[phrase]`` entries with fields, as (regular expression on the English, Chinese), the most literal
    text first (the most specific wins: "line {line}: " before "{label}: {problem}"). A field right before another
    (``at byte {at}{of}``) matches a number: nothing else tells where the two part."""
    out = []
    for en, zh in sorted(messages().phrase.items(), key=lambda item: -len(re.sub(r"\{\w+\}", "", item[0]))):
        if "{" not in en:
            continue
        pieces = re.split(r"\{(\w+)\}", en)
        # a field right before another ("at byte {at}{of}") is a number: nothing else tells where the two part
        # a field the Chinese quotes (``field `{name}``` -> ``字段“{name}”``, ``section '{s}'`` -> ``Section “{s}”``)
        # is a key or name as written: kept, never worded
        regex = "".join(re.escape(piece) if i % 2 == 0 else
                        f"(?P<{piece}>[0-9][0-9.,]*)" if i + 2 < len(pieces) and pieces[i + 1] == "" else
                        f"(?P<{piece}{_CODE}>.*?)" if piece in _quoted_fields(zh) else
                        f"(?P<{piece}>.*?)" for i, piece in enumerate(pieces))
        out.append((re.compile(regex, re.S), zh))
    return tuple(out)


def template(key: str, lang: str) -> str | None:
    """The ``[error]`` template ``key`` in ``lang``, or None when there is none."""
    entry = messages().error.get(key)
    return None if entry is None else entry.get(lang)


def error_text(exc: BaseException, lang: str) -> str:
    """What an error says, in ``lang``, as one line (without the "kernelscope: error:" frame): the keyed template
    filled with the error's values (words among them from ``[phrase]``) after its source; an error without a key
    (a helper's or a library's text passed on), its problem's ``[phrase]`` wording; else the error's own (English)
    message."""
    keep = [getattr(exc, "source", None)]  # the file it names, printed whole
    english = one_line(str(exc), keep)
    if check_lang(lang) == "en" or not isinstance(exc, KernelscopeError):
        return english
    if exc.key is None:  # a library's or a helper's English text passed on: its [phrase] wording, if any
        problem = getattr(exc, "problem", None)
        worded = phrase(problem, lang) if problem else problem
        return english if worded == problem else frame("source", lang, source=exc.source,
                                                        problem=one_line(worded, keep))
    text = template(exc.key, lang)
    if text is None:
        return english
    verbatim = _verbatim_fields(text)  # a tool's own output (nvcc, DuckDB): byte-exact, unless a [phrase] entry whole
    quoted = _quoted_fields(text)  # a key, field, name or value quoted from the input: exactly as the input has it
    values = {k: str(v) if k in quoted and isinstance(v, (str, BaseException)) else
              v.joined(lang, lambda item: phrase(item, lang)) if isinstance(v, Listed) else
              messages().phrase.get(str(v), str(v)) if k in verbatim and isinstance(v, (str, BaseException)) else
              phrase(str(v), lang) if isinstance(v, (str, BaseException)) else v for k, v in exc.values.items()}
    try:
        problem = one_line(fill(text, lang, values), keep)
    except (KeyError, IndexError, ValueError):  # a template that does not fit its values: say it in English
        return english
    source = getattr(exc, "source", None)
    return frame("source", lang, source=source, problem=problem) if source else problem


def problem_text(exc: BaseException, lang: str) -> str:
    """What an error says in ``lang`` without the source it names (a table cell beside that source): the keyed
    template filled with its values (:func:`error_text`), else its problem as it is."""
    key, problem = getattr(exc, "key", None), getattr(exc, "problem", None)
    if key is None or check_lang(lang) == "en" or template(key, lang) is None:
        return one_line(str(problem if problem is not None else exc))
    return error_text(type(exc)("", key=key, values=dict(exc.values)), lang)  # type: ignore[attr-defined,call-arg]


@cache
def _quoted_fields(template_text: str) -> frozenset[str]:
    """The fields of ``template_text`` that it quotes (inside “…”, or ``{x!r}``): a field name, key, file name or
    value taken from the input, shown as the input writes it, never worded (``kernel`` is not the term Kernel)."""
    spans = "".join(re.findall(r"“[^“”]*”", template_text))
    return frozenset({name for _, name, _, _ in string.Formatter().parse(spans) if name} |
                     {name for _, name, _, conv in string.Formatter().parse(template_text) if name and conv == "r"})


@cache
def _verbatim_fields(template_text: str) -> frozenset[str]:
    """The fields of ``template_text`` written ``{x:verbatim}``: quoted tool output, shown as the tool wrote it."""
    return frozenset(name for _, name, spec, _ in string.Formatter().parse(template_text) if spec == "verbatim" and name)


def usage_error(message: str, lang: str) -> str:
    """An argparse usage error's message (without the frame) in ``lang``: the first ``[[argparse]]`` pattern that
    matches it, else as argparse wrote it."""
    if check_lang(lang) == "en":
        return message
    for entry in _patterns():
        m = entry[0].match(message)
        if m is not None:  # argparse's values ('x', choices 'a', 'b') in Chinese notation
            return re.sub(r"\\(\d)", lambda g: _group(m.group(int(g[1])) or "", int(g[1]) in entry[2],
                                                    int(g[1]) in entry[3]), entry[1])
    return message


def _group(value: str, alternatives: bool, listed: bool = False) -> str:
    """One matched group in Chinese notation; a list of alternative options (``--regs --cu``) as ``--regs 或 --cu``
    (three or more: ``-a、-b 或 -c``); a list argparse joins with ", " (``--dtype, --tile``) as ``--dtype、--tile``."""
    items = value.split()
    if alternatives and len(items) > 1:
        return zh_notation("、".join(items[:-1]) + " 或 " + items[-1])
    if listed:
        return zh_notation("、".join(part.strip() for part in value.split(", ")))
    return zh_notation(value)


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str, frozenset[int], frozenset[int]], ...]:
    return tuple((re.compile(p.pattern), p.zh, frozenset(p.alternatives), frozenset(p.lists))
                 for p in messages().argparse)


def help_texts(lang: str) -> Mapping[str, str]:
    """English ``--help`` text -> its text in ``lang`` (empty for English)."""
    if check_lang(lang) == "en":
        return {}
    return _help_zh()


@cache
def _help_zh() -> Mapping[str, str]:
    return {h.en: h.zh for h in messages().help}

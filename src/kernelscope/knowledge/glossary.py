"""The Chinese term of each concept (``data/glossary.toml``): one zh word per thing, its source, the variants that
must not appear, the stall reasons' "English（中文）" names, and the English words a zh output may keep.

:func:`misused` finds the forbidden variants in a text: tests/test_zh_terms.py runs it over every zh output."""

from __future__ import annotations

import re
from functools import cache

from . import Model, NonEmpty, load


class Term(Model, kw_only=True):
    """One ``[[term]]`` (see the header of ``data/glossary.toml``)."""

    en: NonEmpty
    zh: NonEmpty
    source: NonEmpty
    forbidden: tuple[str, ...] = ()
    forbidden_re: tuple[str, ...] = ()
    en_match: str | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        for pattern in (*self.forbidden_re, *((self.en_match,) if self.en_match else ())):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"field 'term.{self.en}': bad regular expression {pattern!r} ({exc})") from None
        for variant in self.forbidden:
            if variant in self.zh:
                raise ValueError(f"field 'term.{self.en}': the term {self.zh!r} contains its forbidden {variant!r}")


class _Words(Model, kw_only=True):
    words: tuple[str, ...] = ()


class Glossary(Model, kw_only=True):
    term: tuple[Term, ...]
    allow: _Words = _Words()
    breaks: _Words = _Words()


def glossary() -> Glossary:
    """The validated ``glossary.toml`` (read once)."""
    return load("glossary.toml", Glossary)


@cache
def stall_terms() -> dict[str, Term]:
    """Stall reason id -> its term ("Long Scoreboard（等待 L1/TEX 缓存的访存结果）")."""
    return {t.reason: t for t in glossary().term if t.reason is not None}


#: A term that glosses its Chinese word in English: "轮（waves）" -> ("轮（waves）", "轮").
_GLOSSED = re.compile(r"(?P<bare>[^（）\s]+)（[A-Za-z][A-Za-z -]*）")


@cache
def glossed_terms() -> tuple[tuple[str, str], ...]:
    """(the glossed term, its bare Chinese word) of each term whose ``zh`` adds an English gloss in brackets
    (``轮（waves）``): a text glosses it at its first occurrence only (stall names keep their Chinese gloss)."""
    return tuple((t.zh, m["bare"]) for t in glossary().term if (m := _GLOSSED.fullmatch(t.zh)))


@cache
def allowed_words() -> frozenset[str]:
    """English words a zh output may keep (``[allow] words``)."""
    return frozenset(glossary().allow.words)


#: The longest run of Chinese characters of a term that is kept whole on a line (a longer term is a phrase: its
#: words are in ``[breaks] words``).
WORD_MAX = 6


@cache
def unbroken_words() -> frozenset[str]:
    """Chinese words a line never breaks inside (render/cjk.py): ``[breaks] words`` and each run of 2 to
    :data:`WORD_MAX` Chinese characters of a term (加速比, 共享内存, 尾部效应)."""
    runs = {run for t in glossary().term for run in re.findall(r"[\u4e00-\u9fff]+", t.zh)
            if 2 <= len(run) <= WORD_MAX}
    return frozenset(runs | set(glossary().breaks.words))


def _literal(variant: str) -> re.Pattern[str]:
    """A forbidden literal as a pattern: whole-word where it starts or ends with an ASCII letter or digit."""
    head = r"(?<![A-Za-z0-9_])" if re.match(r"[A-Za-z0-9]", variant) else ""
    tail = r"(?![A-Za-z0-9_])" if re.search(r"[A-Za-z0-9]$", variant) else ""
    return re.compile(head + re.escape(variant) + tail)


@cache
def _patterns() -> tuple[tuple[Term, str, re.Pattern[str]], ...]:
    out = []
    for t in glossary().term:
        out += [(t, v, _literal(v)) for v in t.forbidden]
        out += [(t, v, re.compile(v)) for v in t.forbidden_re]
    return tuple(out)


def misused(text: str) -> list[tuple[str, str, str]]:
    """The forbidden variants found in a zh ``text``: (variant, the glossary's term, the matched text)."""
    return [(v, t.zh, m.group(0)) for t, v, p in _patterns() for m in p.finditer(text)]

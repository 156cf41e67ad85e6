"""Kernel families whose code the user does not edit (``data/libraries.toml``): library kernels recognised by their
demangled names, and the advice they get instead of code-level remedies."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from . import Model, NonEmpty, check_lang, load


class Family(Model, kw_only=True):
    """One ``[[family]]``: id, display name, name patterns (regular expressions), advice (en, zh), source; the
    precision step the advice's ``{precision}`` stands for (en, zh; empty: none) and the pipes (``model.PIPES``) after
    which it is not offered (``precision_done``: the kernel already runs one of them)."""

    id: NonEmpty
    name: NonEmpty
    patterns: tuple[str, ...]
    advice_en: NonEmpty
    advice_zh: NonEmpty
    source: NonEmpty
    precision_en: str = ""
    precision_zh: str = ""
    precision_done: tuple[str, ...] = ()
    name_zh: str = ""

    def title(self, lang: str) -> str:
        """The display name in ``lang`` (``name_zh`` where the name is English words, else the library's own name)."""
        return self.name_zh or self.name if check_lang(lang) == "zh" else self.name

    def advice(self, lang: str) -> str:
        """The advice template in ``lang`` (``{limiter}``: the launch's busiest unit)."""
        return self.advice_zh if check_lang(lang) == "zh" else self.advice_en

    def precision(self, lang: str) -> str:
        """The precision step in ``lang`` ("" when the family has none)."""
        return self.precision_zh if check_lang(lang) == "zh" else self.precision_en

    def __post_init__(self) -> None:
        from ..model import PIPES
        unknown = [p for p in self.precision_done if p not in PIPES]
        if unknown:
            raise ValueError(f"field 'precision_done': unknown pipes {unknown} (pipes: {', '.join(PIPES)})")
        if ("{precision}" in self.advice_en) != bool(self.precision_en) or bool(self.precision_en) != bool(self.precision_zh):
            raise ValueError(f"family {self.id!r}: '{{precision}}' in advice_en needs precision_en and precision_zh")


class _LibrariesFile(Model, kw_only=True):
    family: tuple[Family, ...]


@cache
def families() -> tuple[Family, ...]:
    """Every family, in file order."""
    return load("libraries.toml", _LibrariesFile).family


@cache
def _compiled() -> tuple[tuple[Family, tuple[re.Pattern[str], ...]], ...]:
    return tuple((f, tuple(re.compile(p) for p in f.patterns)) for f in families())


@lru_cache(maxsize=4096)
def family_of(name: str) -> Family | None:
    """The first family one of whose patterns occurs in ``name`` (a demangled kernel name), or None. Memoised: a
    report asks it for every launch of the same few hundred kernel names."""
    for family, patterns in _compiled():
        if any(p.search(name) for p in patterns):
            return family
    return None


def family(family_id: str) -> Family:
    """A family by id. Raises KeyError for an unknown id."""
    for f in families():
        if f.id == family_id:
            return f
    raise KeyError(family_id)

"""Kernel families for the fusion estimate (``data/fusion.toml``): memory-bound families (elementwise, activation,
normalisation, reduction, copy / cast) that a fusion chain is made of, and the compute-bound work it stops at."""

from __future__ import annotations

import re
from functools import cache

from . import Model, NonEmpty, load


class FusionFamily(Model, kw_only=True):
    """One ``[[family]]``: id, whether its kernels are memory-bound, name patterns (regular expressions in lower
    case: they are matched against the lower-cased name, case-insensitively in effect), source."""

    id: NonEmpty
    memory_bound: bool
    patterns: tuple[str, ...]
    source: NonEmpty

    def __post_init__(self) -> None:
        for p in self.patterns:
            if p != p.lower():  # (an upper-case escape such as \B or \W would change its meaning if lowered)
                raise ValueError(f"field 'patterns': {p!r} must be written in lower case (names are lower-cased "
                                 "before they are matched)")


class ChainRule(Model, kw_only=True):
    """``[chain]``: the longest GPU gap between two kernels of one chain, seconds, and its source."""

    max_gap_s: float
    source: NonEmpty


class _FusionFile(Model, kw_only=True):
    chain: ChainRule
    family: tuple[FusionFamily, ...]


@cache
def chain_rule() -> ChainRule:
    """The ``[chain]`` rule."""
    return load("fusion.toml", _FusionFile).chain


@cache
def fusion_families() -> tuple[FusionFamily, ...]:
    """Every family, in file order (compute families first)."""
    return load("fusion.toml", _FusionFile).family


@cache
def _compiled() -> tuple[tuple[FusionFamily, re.Pattern[str]], ...]:
    """Each family with its patterns as one alternation (one search per name and family), matched against the
    lower-cased name (a case-sensitive search of a lower-cased name is several times faster than an
    ``IGNORECASE`` one on the long demangled names of templated kernels)."""
    return tuple((f, re.compile("|".join(f"(?:{p})" for p in f.patterns))) for f in fusion_families())


def fusion_family(*names: str | None) -> FusionFamily | None:
    """The first family one of whose patterns occurs in one of ``names`` (a kernel name, then the host operator's
    name), tried name by name; None when no family matches any of them."""
    for name in names:
        if not name:
            continue
        name = name.lower()
        for family, pattern in _compiled():
            if pattern.search(name):
                return family
    return None

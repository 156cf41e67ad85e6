"""Kernel families for the fusion estimate (``data/fusion.toml``): memory-bound families (elementwise, activation,
normalisation, reduction, copy / cast) that a fusion chain is made of, and the compute-bound work it stops at."""

from __future__ import annotations

import re
from functools import cache

from . import Model, NonEmpty, load


class FusionFamily(Model, kw_only=True):
    """One ``[[family]]``: id, whether its kernels are memory-bound, name patterns (regular expressions), source."""

    id: NonEmpty
    memory_bound: bool
    patterns: tuple[str, ...]
    source: NonEmpty


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
    """Each family with its patterns as one alternation (one search per name and family)."""
    return tuple((f, re.compile("|".join(f"(?:{p})" for p in f.patterns), re.IGNORECASE)) for f in fusion_families())


def fusion_family(*names: str | None) -> FusionFamily | None:
    """The first family one of whose patterns occurs in one of ``names`` (a kernel name, then the host operator's
    name), tried name by name; None when no family matches any of them."""
    for name in names:
        if not name:
            continue
        for family, pattern in _compiled():
            if pattern.search(name):
                return family
    return None

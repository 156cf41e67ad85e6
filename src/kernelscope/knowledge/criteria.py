"""The thresholds of the kernel rules and the bottleneck classes they decide (``verdicts.toml``).

Each threshold is one ``[criteria.<key>]`` table with its value and its source (one table: the
Speed-of-Light class and the bottleneck-class rules read the same numbers). :func:`criteria` returns the
values with a user's overrides (``--criteria FILE``) applied.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Mapping

import msgspec

from . import Model, Positive, NonEmpty, load


class Criterion(Model, kw_only=True):
    """One threshold: its value (units in its key: ``_pct`` 0-100, ``_s`` seconds, ``_share`` / ``_ratio``
    0-1) and where it comes from."""

    value: Positive
    source: NonEmpty


class ClassText(Model, kw_only=True):
    """Title, meaning and remedies of one bottleneck class: its paragraph is every remedy of ``remedies``
    (``data/remedies.toml`` ids) whose preconditions hold for the launch, in this order."""

    title_en: str
    title_zh: str
    meaning_en: str
    meaning_zh: str
    remedies: tuple[str, ...]


class Verdicts(Model, kw_only=True):
    """``verdicts.toml``: ``criteria`` (key -> threshold with source) and ``class`` (bound -> texts)."""

    criteria: dict[str, Criterion]
    classes: dict[str, ClassText] = msgspec.field(name="class")


def verdicts() -> Verdicts:
    """The validated ``verdicts.toml``."""
    return load("verdicts.toml", Verdicts)


def criteria(overrides: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Every threshold of ``verdicts.toml`` by key, with ``overrides`` applied.

    Raises:
        KeyError: an override names no known criterion; ValueError: an override is not a positive number.
    """
    table = {key: c.value for key, c in verdicts().criteria.items()}
    for key, value in (overrides or {}).items():
        if key not in table:
            raise KeyError(f"unknown criterion '{key}'; expected one of {', '.join(sorted(table))}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            shown = repr(value)
            raise ValueError(f"criterion '{key}' must be a positive number, got "
                             f"{shown if len(shown) <= 60 else shown[:57] + '...'}")
        table[key] = float(value)
    return table


@cache
def source(key: str) -> str:
    """The citation of one criterion (looked up once per key: every finding cites one). Raises KeyError for an
    unknown key."""
    return verdicts().criteria[key].source

"""Vocabulary shared by the analysis modules: bottleneck class ids and :class:`Note`, a finding with its
numbers that every renderer words in the user's language (templates in ``data/labels.toml`` ``[note]``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

COMPUTE_BOUND = "compute-bound"
MEMORY_BOUND = "memory-bound"
LATENCY_BOUND = "latency-bound"
OCCUPANCY_BOUND = "occupancy-bound"
#: a kernel about as short as its own launch overhead (``short_kernel_s``): the launch, not the GPU, sets its time
LAUNCH_BOUND = "launch-bound"
#: a grid too small to fill the GPU (Nsight Compute's "Small Grid"): SMs without a block for the whole kernel, however
#: long it runs; not launch overhead
SMALL_GRID = "small-grid"
BALANCED = "balanced"


@dataclass(frozen=True)
class Note:
    """One finding with its numbers: ``key`` names a template in ``labels.toml`` ``[note]`` (en / zh),
    ``values`` fills it (numbers in the units the template states; None prints as "not measured")."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    @cached_property
    def memo(self) -> tuple | None:
        """A key that tells apart every note that could be worded differently (values by type, the sign of a zero),
        or None when a value is not a plain number, string or None (it is then worded every time); computed once
        per note (renderers word the same note in several places)."""
        items: list = [self.key]
        for k, v in self.values.items():
            if v is None or type(v) is str:  # (a Listed: worded every time)
                items.append((k, v))
            elif type(v) in (int, float, bool):
                items.append((k, type(v), v, math.copysign(1.0, v) if type(v) is float else 0))
            else:
                return None
        return tuple(items)


class Listed(str):
    """A list of names or numbers as one value of a :class:`Note` or an error: the English text (items joined with
    ``, ``; then `` ...`` when ``more``, or ``, ... (N names)`` when ``total`` counts more names than shown) as a
    string, its ``items`` kept for the other languages (:meth:`joined`: Chinese lists with 、 and 等)."""

    items: tuple[str, ...]
    more: bool
    total: int | None

    def __new__(cls, items: Iterable[Any], more: bool = False, total: int | None = None) -> Listed:
        shown = tuple(map(str, items))
        self = super().__new__(cls, _joined(shown, ", ", " ..." if more else f", ... ({total} names)" if total else ""))
        self.items, self.more, self.total = shown, more, total
        return self

    def __getnewargs__(self) -> tuple:
        return self.items, self.more, self.total

    def joined(self, lang: str, word: Callable[[str], str] = str) -> str:
        """The list in ``lang`` (``en`` / ``zh``), each item through ``word`` (its wording in ``lang``)."""
        items = tuple(map(word, self.items))
        if lang != "zh":
            return _joined(items, ", ", " ..." if self.more else f", ... ({self.total} names)" if self.total else "")
        return _joined(items, "、", " 等" if self.more else f" 等 {self.total} 个" if self.total else "")


def _joined(items: tuple[str, ...], comma: str, tail: str) -> str:
    return comma.join(items) + tail

"""Kernel families for the fusion estimate (``data/fusion.toml``): memory-bound families (elementwise, activation,
normalisation, reduction, copy / cast) that a fusion chain is made of, and the compute-bound work it stops at."""

from __future__ import annotations

import re
from functools import cache

from .names import function_name
from . import Model, NonEmpty, load


class FusionFamily(Model, kw_only=True):
    """One ``[[family]]``: id, whether its kernels are memory-bound, name patterns (regular expressions in lower
    case: they are matched against the lower-cased name, case-insensitively in effect), the function names its
    kernels must have as well where it gives them (``functions``: matched against :func:`own_function`), whether a
    fusion chain may hold its kernels (``fusible``: false for a library's layout transforms, memory-bound but
    launched inside the library's call), source."""

    id: NonEmpty
    memory_bound: bool
    patterns: tuple[str, ...]
    source: NonEmpty
    functions: tuple[str, ...] = ()
    fusible: bool = True

    @property
    def link(self) -> bool:
        """Whether its kernels can be links of a fusion chain: memory-bound and fusible."""
        return self.memory_bound and self.fusible

    def __post_init__(self) -> None:
        for p in (*self.patterns, *self.functions):
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


def _alternation(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


@cache
def _compiled() -> tuple[tuple[FusionFamily, re.Pattern[str], re.Pattern[str] | None], ...]:
    """Each family with its patterns and its ``functions`` as one alternation each (one search per name and
    family), matched against the lower-cased name (a case-sensitive search of a lower-cased name is several times
    faster than an ``IGNORECASE`` one on the long demangled names of templated kernels)."""
    return tuple((f, _alternation(f.patterns), _alternation(f.functions))  # type: ignore[misc]
                 for f in fusion_families())


def own_function(name: str) -> str:
    """The lower-cased function name of a kernel without its scopes, template arguments and parameters, what a
    family's ``functions`` are matched against: ``"void cudnn::ops::nhwcToNchwKernel<float>(float const*)"``
    -> ``"nhwctonchwkernel"``, ``"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64>(Params)"`` ->
    ``"kernel"`` (a CUTLASS kernel's template arguments say what it is, and may name converters and iterators)."""
    return function_name(name).rsplit("::", 1)[-1].lower()


def fusion_family(*names: str | None) -> FusionFamily | None:
    """The first family one of whose patterns occurs in one of ``names`` (a kernel name, then the host operator's
    name), tried name by name; None when no family matches any of them. A family with ``functions`` takes a kernel
    only when one of them matches its own function name (:func:`own_function`) as well: cuDNN's
    ``cudnn::ops::nhwcToNchwKernel`` is a layout transform (the ``layout`` family), its library's name
    notwithstanding, while ``cutlass::Kernel<...>`` is not whatever its template arguments hold."""
    for name in names:
        if not name:
            continue
        low = name.lower()
        own = None
        for family, pattern, functions in _compiled():
            if pattern.search(low):
                if functions is not None:
                    own = own_function(name) if own is None else own
                    if not functions.search(own):
                        continue
                return family
    return None

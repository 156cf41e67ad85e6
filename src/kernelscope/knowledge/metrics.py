"""Nsight Compute metric vocabulary the readers resolve (``data/metrics.toml``): FLOP weights of the SASS
counters, tensor-core input types -> pipes, the stall metric families, the metrics the ``.ncu-rep``
reader requests, and the per-instruction metrics (Source Counters, warp sampling). Facts and their sources are in
the data file."""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Iterable, Literal

from msgspec import Meta

from ..model import PIPES
from . import Model, load
from .units import BREAKDOWNS, by_metric

Pipe = Literal[PIPES]  # type: ignore[valid-type]


class _Flop(Model, kw_only=True):
    source: str
    fp64: dict[str, float]
    fp32: dict[str, float]
    fp16: dict[str, float]


class _TensorPipe(Model, kw_only=True):
    src: str
    dst: str | None = None
    pipe: Pipe


class _Tensor(Model, kw_only=True):
    source: str
    pipes: tuple[_TensorPipe, ...]
    op_kinds: dict[str, Pipe]


class StallFamily(Model, kw_only=True):
    """One stall metric family: its name, the pattern whose group 1 is the reason, and whether a launch's
    stall values may come from it."""

    name: str
    pattern: str
    chosen: bool

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled :attr:`pattern`."""
        return _compiled(self.pattern)


class Request(Model, kw_only=True):
    """What the ``.ncu-rep`` reader reads of each result: exact ``names`` and name ``prefixes``."""

    names: Annotated[tuple[str, ...], Meta(min_length=1)]
    prefixes: tuple[str, ...]


class Instructions(Model, kw_only=True):
    """The per-instruction metrics (Source Counters, warp sampling): exact ``names`` and name ``prefixes``, less the
    names ending in one of ``exclude_suffixes``; a launch holds them only with one of the ``anchors`` among its
    metrics; ``source`` says where the vocabulary comes from."""

    source: str
    names: Annotated[tuple[str, ...], Meta(min_length=1)]
    prefixes: tuple[str, ...]
    exclude_suffixes: tuple[str, ...] = ()
    anchors: Annotated[tuple[str, ...], Meta(min_length=1)]

    def covers(self, name: str) -> bool:
        """Whether the metric ``name`` is a per-instruction metric of this vocabulary."""
        if name in self.names:
            return True
        return name.startswith(self.prefixes) and not name.endswith(self.exclude_suffixes)

    def held(self, names: Iterable[str]) -> tuple[str, ...]:
        """The per-instruction metrics among a launch's metric ``names``, in their order; empty when no anchor is
        among them (names only: nothing is read)."""
        names = tuple(names)
        if not any(a in names for a in self.anchors):
            return ()
        exact = frozenset(self.names)
        return tuple(n for n in names if n in exact
                     or (n.startswith(self.prefixes) and not n.endswith(self.exclude_suffixes)))


class _MetricsFile(Model, kw_only=True):
    flop: _Flop
    tensor: _Tensor
    stall_family: tuple[StallFamily, ...]
    request: Request
    instructions: Instructions


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _file() -> _MetricsFile:
    return load("metrics.toml", _MetricsFile)


@cache
def flop_ops() -> dict[str, tuple[tuple[str, float], ...]]:
    """Precision (``"fp64"``, ``"fp32"``, ``"fp16"``) -> ``((op, FLOP per thread instruction), ...)`` in
    add, mul, fma order, for the counters ``sm__sass_thread_inst_executed_op_<op>_pred_on``."""
    f = _file().flop
    return {p: tuple(getattr(f, p).items()) for p in ("fp64", "fp32", "fp16")}


@cache
def tensor_pipes() -> dict[tuple[str, str | None], str]:
    """``(input type, accumulator type or None)`` of ``sm__ops_path_tensor_src_<in>[_dst_<acc>]`` -> pipe."""
    return {(t.src, t.dst): t.pipe for t in _file().tensor.pipes}


def tensor_op_kinds() -> dict[str, str]:
    """MMA instruction kind (``"hmma"``, ``"imma"``, ``"dmma"``) -> tensor pipe."""
    return dict(_file().tensor.op_kinds)


def stall_families() -> tuple[StallFamily, ...]:
    """Stall metric families, best first."""
    return _file().stall_family


@cache
def hottest_twin(metric: str) -> str | None:
    """The ``.max`` twin of an ``.avg`` (or ``.sum``) throughput metric, e.g.
    ``lts__t_sectors.max.pct_of_peak_sustained_elapsed`` for ``lts__t_sectors.avg.pct_of_peak_sustained_elapsed``:
    the busiest instance of the unit (SM, L2 slice, DRAM channel; Nsight Compute Kernel Profiling Guide, "Metrics
    Structure": .max is the maximum over the unit's instances); None for a metric without one."""
    for part in (".avg.", ".sum."):
        if part in metric:
            return metric.replace(part, ".max.", 1)
    return None


def request() -> Request:
    """The metrics the ``.ncu-rep`` reader requests: ``[request]`` of ``data/metrics.toml``, plus the Speed-of-Light
    breakdowns and every sub-metric of ``data/units.toml`` with its ``.max`` twin (:func:`hottest_twin`)."""
    req = _file().request
    units = tuple(by_metric())
    twins = tuple(t for t in map(hottest_twin, units) if t is not None)
    names = tuple(dict.fromkeys((*req.names, *BREAKDOWNS.values(), *units, *twins)))
    return Request(names=names, prefixes=req.prefixes)


@cache
def instructions() -> Instructions:
    """The per-instruction metric vocabulary: ``[instructions]`` of ``data/metrics.toml``."""
    return _file().instructions

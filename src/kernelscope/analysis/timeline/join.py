"""From the timeline to the kernel: the timeline's top kernels joined with their Nsight Compute diagnoses
(``kernelscope timeline TRACE --kernels REPORT...``), the two steps of the usual workflow (Nsight Systems first,
then Nsight Compute on the kernels that matter) in one view. Pure: no I/O.

Matching a timeline kernel name to the launches of the reports, in three tries (the first that finds one wins;
within a try, the first report in the given order holding a match):

1. ``exact``: the whole demangled signature, normalised (:func:`normalised`: whitespace removed, ``const T *``
   written ``T const*``, template literals written as c++filt does, ``(int)32`` -> ``32``, ``(unsigned int)5`` ->
   ``5u``, ``(bool)1`` -> ``true``), against the report's demangled name, its function name or its mangled name;
2. ``signature``: the same without the parameter list and the return type (:func:`signature`);
3. ``function``: the qualified function name without template arguments (:func:`function_name`), accepted only when
   it names one kernel of the report (after the grid/block narrowing below): never a guess among several.

Then by grid/block where both sides record them: the launches whose grid and block equal the timeline kernel's most
common launch shape are kept (``shape`` "same"); when none does, the name match stands and ``shape`` says
"different". Several launches left: the median-duration one (the lower middle for an even count) is the one shown.
A timeline kernel without a match has no Nsight Compute data (``ncu`` None: not guessed); report kernels matched
by no timeline kernel are listed apart (``absent``).

Program speedup: Amdahl ``1 / ((1 - f) + f / s)`` with ``f`` the kernel's program fraction (the timeline's own:
the share of the program time its absence would save, :attr:`~.report.ItemStat.program_fraction`; of the program
wall, the slowest rank ending it, or for an ``nsys stats`` summary of the summed GPU time, serial) and ``s`` the
estimated speedup of the kernel's top finding (:attr:`KernelDiagnosis.advice_findings`, the one ``diagnose``
leads its advice with). The projection is :func:`.rankings.amdahl` with the factor ``s`` (and "gone").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from ...notes import Listed
from ..engine import Finding
from ...knowledge.names import function_name, normalised, signature
from .rankings import amdahl
from .report import Amdahl, ItemStat, TimelineReport

if TYPE_CHECKING:  # (annotations only: analysing a timeline does not import the kernel diagnosis)
    from ..diagnosis import KernelDiagnosis, ReportDiagnosis

#: The tries, in order (see the module docstring).
MATCHES: tuple[str, ...] = ("exact", "signature", "function")

_KEYS: dict[str, Callable[[str], str]] = {"exact": normalised, "signature": signature, "function": function_name}


@dataclass(frozen=True)
class NcuKernel:
    """The Nsight Compute launch a timeline kernel was joined to, and the summary of its diagnosis.

    Attributes:
        report: path of the Nsight Compute report.
        diagnosis: the launch's diagnosis (``kernel.index`` its position in the report).
        launches: the report's launches that matched (after the grid/block narrowing); the median-duration one
            is ``diagnosis``.
        match: which try matched: ``"exact"``, ``"signature"`` or ``"function"`` (:data:`MATCHES`).
        shape: ``"same"`` (grid and block equal the timeline's most common launch shape), ``"different"`` (both
            recorded, none equal: matched by name alone) or ``"not_recorded"`` (one side has no shape).
        verdict: the bottleneck classes (:attr:`KernelDiagnosis.verdict`), headline first.
        top_finding: the finding ``diagnose`` leads its advice with (None: no finding with advice).
        estimated_speedup: that finding's estimated kernel speedup, a factor >= 1 (None: not estimated).
        estimated_speedup_pct: the share of the kernel's time it would save, ``100 * (1 - 1 / estimated_speedup)``
            percent (Nsight Compute's "Est. Speedup" convention); None when not estimated.
    """

    report: str
    diagnosis: KernelDiagnosis
    launches: int
    match: str
    shape: str
    verdict: tuple[str, ...]
    top_finding: Finding | None
    estimated_speedup: float | None
    estimated_speedup_pct: float | None

    @property
    def index(self) -> int:
        """The launch's position in its report (0-based)."""
        return self.diagnosis.kernel.index

    @property
    def top_finding_id(self) -> str | None:
        return None if self.top_finding is None else self.top_finding.id


@dataclass(frozen=True)
class JoinedKernel:
    """One of the timeline's top kernels with its Nsight Compute diagnosis.

    Attributes:
        position: its place in the timeline's kernel ranking (1: the largest total time).
        name, count, total_s: the timeline's kernel name, launches and summed time (seconds).
        share_pct: its share of the summed kernel time, percent (the timeline ranking's ``share_pct``).
        program_fraction: the share of the program time its absence would save, 0-1 (the ranking's own).
        grid, block: its most common launch shape in the timeline, None when not recorded.
        ncu: the Nsight Compute launch it was joined to; None: no Nsight Compute data (no report launch matched).
        amdahl: the program projection for the kernel ``ncu.estimated_speedup`` times faster (and gone); None
            without an estimate or a program fraction.
        program_speedup: ``amdahl.speedups[0]``: 1 / ((1 - f) + f / s), None when not computed.
    """

    position: int
    name: str
    count: int
    total_s: float
    share_pct: float | None
    program_fraction: float | None
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    ncu: NcuKernel | None
    amdahl: Amdahl | None
    program_speedup: float | None


@dataclass(frozen=True)
class AbsentKernel:
    """A kernel of a Nsight Compute report that no kernel of the timeline matched (by its demangled name)."""

    report: str
    name: str
    demangled_name: str
    launches: int
    total_s: float | None


@dataclass(frozen=True)
class KernelJoin:
    """The timeline's top kernels joined with the Nsight Compute reports.

    Attributes:
        reports: the reports' paths, in the order given (the first holding a match wins).
        program_time_s: the time program fractions and speedups are of (the timeline's ``program_time_s``).
        basis: which of each kernel's time counts (:attr:`~.report.Amdahl.basis`: ``"exclusive"`` for a timeline,
            ``"serial"`` for a summary); None when no kernel has a projection.
        kernels: the top kernels, in ranking order.
        absent: the report kernels matched by no kernel of the timeline (all of its kernels, not only the top).
    """

    reports: tuple[str, ...]
    program_time_s: float | None
    basis: str | None
    kernels: tuple[JoinedKernel, ...]
    absent: tuple[AbsentKernel, ...]

    @property
    def matched(self) -> int:
        """How many of the top kernels have Nsight Compute data."""
        return sum(k.ncu is not None for k in self.kernels)


class _Index:
    """One report's launches by each try's key (the demangled, function and mangled names)."""

    def __init__(self, rd: ReportDiagnosis) -> None:
        self.path = rd.report.path
        self.kernels = rd.kernels
        self.keys: dict[str, dict[str, list[KernelDiagnosis]]] = {m: {} for m in MATCHES}
        for d in rd.kernels:
            k = d.kernel
            names = {k.demangled_name, k.name} | ({k.mangled_name} if k.mangled_name else set())
            for match, key_of in _KEYS.items():
                for key in {key_of(n) for n in names if n} - {""}:
                    self.keys[match].setdefault(key, []).append(d)


def _shape_of(d: KernelDiagnosis) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    la = d.kernel.launch
    return None if la.grid is None or la.block is None else (tuple(la.grid), tuple(la.block))  # type: ignore[return-value]


def _narrowed(found: list[KernelDiagnosis], item: ItemStat) -> tuple[list[KernelDiagnosis], str]:
    """The launches whose grid/block equal the timeline kernel's most common shape, and the ``shape`` word."""
    shaped = [d for d in found if _shape_of(d) is not None]
    if item.launch is None or not shaped:
        return found, "not_recorded"
    same = [d for d in shaped if _shape_of(d) == (tuple(item.launch.grid), tuple(item.launch.block))]
    return (same, "same") if same else (found, "different")


def _median(launches: list[KernelDiagnosis]) -> KernelDiagnosis:
    """The median-duration launch (the lower middle for an even count); the first launch when none has one."""
    timed = sorted((d for d in launches if d.kernel.duration_s is not None),
                   key=lambda d: (d.kernel.duration_s, d.kernel.index))
    if not timed:
        return min(launches, key=lambda d: d.kernel.index)
    return timed[(len(timed) - 1) // 2]


def _find(name: str, item: ItemStat, indexes: Sequence[_Index]) -> tuple[_Index, str, list[KernelDiagnosis], str] | None:
    """(report, try, launches after narrowing, shape word) of the first try and report that match ``name``."""
    for match in MATCHES:
        key = _KEYS[match](name)
        if not key:
            continue
        for ix in indexes:
            found = ix.keys[match].get(key)
            if not found:
                continue
            kept, shape = _narrowed(list({d.kernel.index: d for d in found}.values()), item)
            if match == "function" and len({d.kernel.demangled_name for d in kept}) > 1:
                continue  # several kernels share the function name: not a guess
            return ix, match, kept, shape
    return None


def _ncu(ix: _Index, match: str, kept: list[KernelDiagnosis], shape: str) -> NcuKernel:
    d = _median(kept)
    top = d.advice_findings[0] if d.advice_findings else None
    s = None if top is None else top.estimated_speedup
    return NcuKernel(report=ix.path, diagnosis=d, launches=len(kept), match=match, shape=shape, verdict=d.verdict,
                     top_finding=top, estimated_speedup=s,
                     estimated_speedup_pct=None if s is None else 100.0 * (1.0 - 1.0 / s))


def _joined(position: int, item: ItemStat, ncu: NcuKernel | None, program_time_s: float | None) -> JoinedKernel:
    proj = None
    f = item.program_fraction
    if ncu is not None and ncu.estimated_speedup is not None and f is not None:
        basis = item.amdahl.basis if item.amdahl is not None else "serial"
        proj = amdahl(f, (ncu.estimated_speedup,), scope="program", basis=basis, base_s=program_time_s)
    shape = item.launch
    return JoinedKernel(
        position=position, name=item.name, count=item.count, total_s=item.total_s, share_pct=item.share_pct,
        program_fraction=f, grid=None if shape is None else tuple(shape.grid),  # type: ignore[arg-type]
        block=None if shape is None else tuple(shape.block),  # type: ignore[arg-type]
        ncu=ncu, amdahl=proj, program_speedup=None if proj is None else proj.speedups[0])


def _absent(indexes: Sequence[_Index], seen: set[tuple[str, int]]) -> tuple[AbsentKernel, ...]:
    """Per report, its kernels (by demangled name) none of whose launches any timeline kernel matched, largest
    total time first."""
    out: list[AbsentKernel] = []
    for ix in indexes:
        groups: dict[str, list[KernelDiagnosis]] = {}
        for d in ix.kernels:
            groups.setdefault(d.kernel.demangled_name, []).append(d)
        mine = []
        for demangled, ds in groups.items():
            if any((ix.path, d.kernel.index) in seen for d in ds):
                continue
            times = [d.kernel.duration_s for d in ds if d.kernel.duration_s is not None]
            mine.append(AbsentKernel(report=ix.path, name=ds[0].kernel.name, demangled_name=demangled,
                                     launches=len(ds), total_s=sum(times) if times else None))
        out += sorted(mine, key=lambda a: -(a.total_s or 0.0))  # largest first (stable: report order on ties)
    return tuple(out)


def other_gpus(rep: TimelineReport, diagnosed: Sequence[ReportDiagnosis]) -> tuple[tuple[str, str, str], ...]:
    """The reports profiled on a GPU the timeline did not run on: (report path, its GPU, the timeline's GPUs joined
    by ", "), for each report whose device name the file records and is none of the trace's recorded GPU names
    (spaces and case ignored); empty when either side records no name. Their durations and findings were measured
    on other hardware."""
    def key(name: str) -> str:
        return "".join(name.lower().split())

    trace = list(dict.fromkeys(n for _, n in rep.devices_named if n))
    if not trace:
        return ()
    out = []
    for rd in diagnosed:
        names = {k.device.display_name for k in rd.report.kernels if k.device.display_name}
        foreign = sorted(n for n in names if key(n) not in {key(t) for t in trace})
        if foreign and len(foreign) == len(names):
            out.append((rd.report.path, Listed(foreign), Listed(trace)))
    return tuple(out)


def join_kernels(rep: TimelineReport, diagnosed: Sequence[ReportDiagnosis], top: int = 10) -> KernelJoin:
    """Join the ``top`` kernels of the timeline ``rep`` with the launches of the Nsight Compute reports
    ``diagnosed`` (see the module docstring for the matching and the projection)."""
    indexes = [_Index(rd) for rd in diagnosed]
    seen: set[tuple[str, int]] = set()
    rows = []
    for position, item in enumerate(rep.kernels, start=1):
        hit = _find(item.name, item, indexes)
        if hit is not None:
            seen.update((hit[0].path, d.kernel.index) for d in hit[2])
        if position <= top:
            rows.append(_joined(position, item, None if hit is None else _ncu(*hit), rep.program_time_s))
    basis = next((k.amdahl.basis for k in rep.kernels if k.amdahl is not None), None)
    return KernelJoin(reports=tuple(ix.path for ix in indexes), program_time_s=rep.program_time_s, basis=basis,
                      kernels=tuple(rows), absent=_absent(indexes, seen))

"""``diagnose --format json`` of one report of many launches (a whole model's profile): its launches diagnosed and
encoded in worker processes, side by side.

The report is read here; its selected launches are then split into parts that can be diagnosed apart
(:func:`kernelscope.analysis.scaling.linked`: every launch of a kernel, and the launches one kernel's findings may
compare it with, in one part), the parts packed into a few jobs of about equal launches, and each job diagnosed
(:meth:`~kernelscope.analysis.diagnosis.ReportDiagnoser.diagnose`) and encoded into its JSON pieces
(:func:`kernelscope.render.json.encode_launches`) by a worker of the per-file map's process pool
(:func:`kernelscope.distributed.map.run_map`, with ``--jobs`` workers). The workers are forked from this process
once it holds the report: they inherit it (and the diagnoser) instead of receiving it, and send back only bytes.
The document spliced from the pieces is the one a single process writes, byte for byte.

The pool is used only where it saves time and is safe: ``--jobs`` above 1, at least :data:`MIN_LAUNCHES` selected
launches, and this process running one thread (a plain fork of a process with other threads, ``ncu_report``'s
native ones or a progress bar's, could deadlock): otherwise the same diagnosis and encoding run here. A refusal in a
worker (an InputError) is raised here as it would be in one process; a worker that ends abruptly has its jobs done
again here (the map's own rule), and Ctrl-C ends the workers.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..analysis.diagnosis import ReportDiagnosis, ReportDiagnoser
from ..analysis.scaling import linked
from ..distributed.map import forks, run_map
from ..render.common import Fmt
from ..render.json import EncodedLaunches, encode_launches, formatter

#: The fewest selected launches whose diagnosis goes to worker processes: about half a millisecond of work each, a
#: third of it saved with two workers, against the pool's start and its pieces sent back (measured on two cores:
#: even at 200 launches, 10 % faster at 500 and 1,000).
MIN_LAUNCHES = 400
#: Jobs per worker: enough that a worker done early takes another one (parts differ in size, and the machine may
#: be busy), few enough that sending the pieces back stays cheap.
JOBS_PER_WORKER = 8

#: What the workers share, set before the pool forks them (inherited, never pickled): the diagnoser and the
#: formatter of the output language (each worker's copy words the texts of its jobs once).
_SHARED: tuple[ReportDiagnoser, Fmt] | None = None


def diagnose_encoded(path: str, options: dict[str, Any], lang: str, jobs: int,
                     step: Callable[[], None] = lambda: None) -> tuple[ReportDiagnosis, EncodedLaunches]:
    """Read and diagnose the report at ``path`` (``options``: the keyword arguments of
    :func:`kernelscope.api.diagnose_file`) and encode its launches and groups in ``lang``: (its diagnosis without
    the launches, which are in the encoding; the encoding). ``jobs``: the processes that may diagnose side by side.

    Raises:
        InputError: as :func:`kernelscope.api.diagnose_file` (a worker's refusal too).
    """
    from ..api import load, with_useful_flops

    options = dict(options)
    report = with_useful_flops(load(path, options.pop("input_format")), options.pop("useful_flops") or {})
    diagnoser = ReportDiagnoser(report, options.pop("gpu"), None, options.pop("top"), options.pop("criteria"),
                                options.pop("kernel"))
    count = len(diagnoser.chosen)
    bins = _packed(linked(diagnoser.chosen, diagnoser.crit), jobs * JOBS_PER_WORKER)
    global _SHARED
    _SHARED = (diagnoser, formatter(lang))
    try:
        if jobs > 1 and count >= MIN_LAUNCHES and len(bins) > 1 and forks():
            parts = list(zip(bins, run_map(_encode_part, bins, jobs=jobs)))
            encoded = EncodedLaunches.joined(parts, count)
        else:
            encoded = _encode_part(range(count))
    finally:
        _SHARED = None
    step()
    return ReportDiagnosis(report=report, groups=diagnoser.groups, kernels=()), encoded


def _encode_part(positions: Sequence[int]) -> EncodedLaunches:
    """The map: the launches at ``positions`` of the shared diagnoser's selection diagnosed, located
    (:func:`kernelscope.api.locate_findings`) and encoded."""
    from ..api import locate_findings

    assert _SHARED is not None, "the shared diagnoser is set before the pool forks"
    diagnoser, f = _SHARED
    return encode_launches(locate_findings(diagnoser.diagnose(positions)), f.lang, f)


def _packed(parts: list[list[int]], count: int) -> list[list[int]]:
    """``parts`` (lists of positions) packed into at most ``count`` jobs of about equal launches (the largest part
    first, into the job with the fewest), each job's positions ascending; the largest job first (the pool hands
    them out in this order: a large one left for last would keep one worker busy alone)."""
    jobs: list[list[int]] = [[] for _ in range(max(1, min(count, len(parts))))]
    for part in sorted(parts, key=len, reverse=True):
        min(jobs, key=len).extend(part)
    return sorted((sorted(job) for job in jobs if job), key=len, reverse=True)

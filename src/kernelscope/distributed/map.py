"""The per-file map of ``kernelscope diagnose`` / ``timeline`` over many files, on an engine.

* :func:`expand` turns the command line's paths, directories and globs into the files to read (sorted, in input
  order; a glob is expanded by kernelscope so it works the same on every shell; one matching nothing is an
  InputError, exit 2).
* :func:`diagnose_one` / :func:`timeline_one` are the map: plain top-level functions of one picklable job that
  read and analyse one file alone and return its (small) result, so a worker's memory is about one file's.
* :func:`run_map` runs the map serially in this process (``jobs=1``: today's behaviour), on a local process pool
  (children forked from this process while it runs a single thread, as the command line's does: they start at
  once with its modules imported; else ``forkserver`` / ``spawn`` children, never a plain ``fork`` of a process
  with other threads: NVIDIA's ``ncu_report`` starts native threads that can deadlock a forked child; the server
  preloads kernelscope's modules), or as Ray tasks (``engine="ray"``,
  optional extra ``kernelscope[cluster]``). The results come back in input order and are identical whatever the
  engine. A pool worker is itself the guard against ``ncu_report`` aborting on a damaged report: it reads each
  report once, without a trial load in a child; when a worker ends abruptly the map is redone in this process,
  where every report is trial-loaded first (the one-line error of :mod:`kernelscope.ingest.ncu_rep_probe`).

Results cross process boundaries by pickle; the models hold read-only ``MappingProxyType`` views, which pickle
does not know: this module registers a reducer for them (a plain dict rebuilt into a proxy) when imported, in the
parent and in every worker (a worker imports this module to find the map function).
"""

from __future__ import annotations

import copyreg
import glob
import multiprocessing
import os
import types
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import InputError

#: Engines ``--engine`` accepts.
ENGINES = ("local", "ray")
#: The optional extra that brings Ray.
RAY_EXTRA = "pip install 'kernelscope[cluster]'"
#: Files a directory given to ``diagnose`` contributes (the formats the readers recognise).
DIAGNOSE_SUFFIXES = (".ncu-rep", ".csv", ".txt", ".toml", ".json", ".nvprof")
#: Files a directory of Nsight Systems results given to ``timeline`` contributes.
TIMELINE_SUFFIXES = (".sqlite", ".txt", ".csv", ".output", ".json", ".json.gz", ".tar.gz", ".tgz", ".tar")
_GLOB_CHARS = frozenset("*?[")
#: Extensions of both a profiler's text output and everyday notes (README.txt): such a file of a directory is read
#: only when its first bytes are a profiler format.
PROSE_SUFFIXES = (".txt",)


def _proxy(mapping: dict) -> types.MappingProxyType:
    return types.MappingProxyType(mapping)


def _reduce_proxy(proxy: types.MappingProxyType) -> tuple[Callable, tuple[dict]]:
    return _proxy, (dict(proxy),)


copyreg.pickle(types.MappingProxyType, _reduce_proxy)


def _is_kineto_dir(p: Path) -> bool:
    """A directory holding PyTorch profiler traces (*.json / *.json.gz): one multi-rank program, as the Kineto
    reader reads it (kept whole, not split into files)."""
    return any(f.is_file() and f.name.lower().endswith((".json", ".json.gz")) and not f.name.startswith(".")
               for f in p.rglob("*"))


def expand(items: Iterable[str], suffixes: Sequence[str], *, keep_kineto_dirs: bool = False,
           skipped: list[str] | None = None, unread: list[str] | None = None,
           recognise: Callable[[str], bool] | None = None, failed: list[InputError] | None = None) -> list[str]:
    """The files to read for ``items`` (paths, directories, globs), in input order, each group sorted.

    A path that exists is kept as given (``-`` for standard input too). A directory becomes the files directly in
    it whose names end with one of ``suffixes`` (sorted; none: an InputError); with ``keep_kineto_dirs``
    (``timeline``) a directory of PyTorch profiler traces stays one input, read as one multi-rank program. Any
    other item with ``*``, ``?`` or ``[`` is a glob (``**`` recursive), expanded here and sorted; one matching
    nothing is an InputError (exit 2). Anything else is kept for the reader to refuse with its own message.
    ``skipped``: the files of those directories that are not read (not hidden, another extension) are appended to
    it. ``recognise``: whether a directory's file is in a format the command reads (its first bytes), asked of the
    files whose extension also names everyday text (:data:`PROSE_SUFFIXES`: a README.txt beside the reports); one
    that is not is left out and appended to ``unread``. A file with a profiler's own extension (``.csv``,
    ``.sqlite``, ``.ncu-rep``...) that does not read is a damaged report: kept, for its reader to refuse. A file
    named on its own is always kept (its reader says what is wrong with it). ``failed`` (``--keep-going``): an item
    that gives no file to read (a directory holding none, a glob matching nothing) is appended to it as its
    InputError, and the others are expanded, instead of the first such item raising.
    """
    out: list[str] = []
    low = tuple(s.lower() for s in suffixes)
    for item in items:
        p = Path(item)
        if item == "-" or p.is_file():
            out.append(item)
        elif p.is_dir():
            if keep_kineto_dirs and _is_kineto_dir(p):
                out.append(item)
                continue
            try:
                shown = [f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")]
            except OSError as exc:  # a directory this user may not list
                _refuse(InputError(item, key="dir_cannot_read", values={"reason": exc.strerror or type(exc).__name__}),
                        failed)
                continue
            files = sorted(str(f) for f in shown if f.name.lower().endswith(low))
            if skipped is not None:
                skipped.extend(sorted(str(f) for f in shown if not f.name.lower().endswith(low)))
            if recognise is not None:  # a README.txt beside the reports: not a report, not a failure
                strangers = [f for f in files if f.lower().endswith(PROSE_SUFFIXES) and not recognise(f)]
                files = [f for f in files if f not in strangers]
                if unread is not None:
                    unread.extend(strangers)
            if not files:
                _refuse(InputError(item, key="dir_no_readable_file", values={"suffixes": ', '.join(suffixes)}),
                        failed)
            out.extend(files)
        elif _GLOB_CHARS & set(item):
            matches = sorted(m for m in glob.glob(item, recursive=True) if Path(m).is_file() or
                             (keep_kineto_dirs and Path(m).is_dir() and _is_kineto_dir(Path(m))))
            if not matches:
                _refuse(InputError(item, key="glob_no_match"), failed)
            out.extend(matches)
        else:
            out.append(item)
    return out


def _refuse(exc: InputError, failed: list[InputError] | None) -> None:
    """An item of :func:`expand` that gives no file: raised, or with ``--keep-going`` (``failed`` a list) kept in
    ``failed`` for the batch to list."""
    if failed is None:
        raise exc
    failed.append(exc)


def diagnose_one(job: tuple[str, dict[str, Any]]) -> Any:
    """Read and diagnose one report: ``job`` is (path, keyword arguments of :func:`kernelscope.api.diagnose_file`).
    Returns its :class:`~kernelscope.model.ReportDiagnosis`."""
    from ..api import diagnose_file

    path, kwargs = job
    return diagnose_file(path, **kwargs)


def diagnose_source_one(job: tuple[str, dict[str, Any], tuple[int, Any, str]]) -> tuple[Any, Any]:
    """:func:`diagnose_one`, then where in the code for the launches its view shows (``diagnose --format html /
    markdown``): ``job`` is (path, keyword arguments of :func:`kernelscope.api.diagnose_file`, (top, sass) of
    :func:`kernelscope.api.source_for` and the ``--launches`` view). Returns (its ReportDiagnosis, its SourceReport),
    both read from the one parse of the report this process just made (a report read elsewhere would be parsed
    again); the per-instruction data of a launch no panel shows (one of a group's repeats) is not read."""
    from ..api import source_for
    from ..render.launch_groups import panels

    path, kwargs, (top, sass, view) = job
    rd = diagnose_one((path, kwargs))
    return rd, source_for(rd, top, sass, [d.kernel.index for d, _ in panels(rd, view)[0]])


def timeline_one(job: tuple[str, str | None, int]) -> Any:
    """Read and analyse one program trace: ``job`` is (path, input format, top). Returns its timeline reports
    (:func:`kernelscope.api.timeline_file` without the API module, which loads the kernel diagnosis too)."""
    from ..analysis.timeline import analyse
    from ..ingest import load_timeline

    path, input_format, top = job
    return analyse(load_timeline(path, input_format), top)


def timeline_rank_one(job: tuple[str, str, str | None, int]) -> Any:
    """``timeline --as-ranks``: read and analyse one input alone and keep only the small
    :class:`~kernelscope.analysis.timeline.ranks.RankSummary` of each rank it holds (one per trace file; every rank
    of an archive or directory of traces): ``job`` is (path to read, path as given, input format, position in the
    input). Returns the list of summaries."""
    from ..analysis.timeline import analyse
    from ..analysis.timeline.ranks import summarize
    from ..ingest import load_timeline
    from ..timeline_model import Timeline

    path, label, input_format, order = job
    data = load_timeline(path, input_format)
    reports = analyse(data, 1)
    if len(reports) != 1:
        raise InputError(label, key="as_ranks_many_runs", values={"n_reports": len(reports)})
    try:
        return summarize(reports[0], label, order, data if isinstance(data, Timeline) else None)
    except ValueError as exc:
        raise InputError(label, str(exc)) from None


def _call(fn: Callable[[Any], Any], job: Any) -> tuple[bool, Any]:
    """Run ``fn(job)`` in a worker; an InputError comes back as (False, its :meth:`~kernelscope.errors.InputError.parts`): exceptions with
    keyword-only constructor arguments do not pickle."""
    try:
        return True, fn(job)
    except InputError as exc:
        return False, exc.parts()


def jobs_from(value: int | None) -> int:
    """The processes ``--jobs`` asks for: :func:`default_jobs` when it is not given; 0 or less is kept, for
    :func:`run_map` to refuse (``--jobs 0`` is an error, as ``--jobs -3`` is)."""
    return default_jobs() if value is None else value


def default_jobs() -> int:
    """``--jobs`` default: the number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: Modules the forkserver imports once, before it forks the workers (each worker would import them again
#: otherwise: ~0.3 s of interpreter work per worker). None of them loads ``ncu_report`` (imported by the reader
#: when it first reads a report), so no native thread runs in the server when it forks.
_PRELOAD = ["kernelscope.distributed.map", "kernelscope.api"]


def _one_thread() -> bool:
    """Whether this process runs one OS thread only (Linux: ``/proc/self/task``; elsewhere False): then a plain fork
    copies no lock that another thread holds, ``ncu_report``'s native threads included (they run only in a process
    that has loaded a report)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def forks() -> bool:
    """Whether :func:`run_map`'s workers are forked from this process (a plain fork: this process runs one thread,
    :func:`_one_thread`): then they inherit what it holds at the time the pool starts."""
    return "fork" in multiprocessing.get_all_start_methods() and _one_thread()


def _context() -> multiprocessing.context.BaseContext:
    """How pool workers start: forked from this process when it runs one thread (:func:`_one_thread`: workers start
    at once, with every module this process imported), else from a forkserver that preloads kernelscope (a plain
    fork of a process with native threads can deadlock), else spawned."""
    if forks():
        return multiprocessing.get_context("fork")
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def _worker_start() -> None:
    """Pool worker initialiser: the worker is the guard against ``ncu_report`` aborting (see
    :func:`kernelscope.ingest.ncu_rep_probe.expendable`), so its reports are parsed once."""
    from ..ingest.ncu_rep_probe import expendable

    expendable()


def in_process(jobs: int, count: int, engine: str = "local") -> bool:
    """Whether :func:`run_map` runs ``count`` jobs in this process (``jobs`` 1, or at most one job, locally)."""
    return engine == "local" and (jobs == 1 or count <= 1)


def run_map(fn: Callable[[Any], Any], jobs_in: Sequence[Any], *, jobs: int = 1, engine: str = "local",
            address: str | None = None, step: Callable[[], None] = lambda: None,
            failed: list[InputError] | None = None) -> list[Any]:
    """``[fn(job) for job in jobs_in]`` on ``engine``, in input order; ``step()`` once per file done.

    ``failed`` (``--keep-going``): an input a worker refuses is appended to it (its InputError, in input order) and
    left out of the results, the others go on; without it the first refusal raises.

    Raises:
        InputError: the first input (in input order) a worker refused (without ``failed``); Ray asked for but not
            installed.
    """
    if engine not in ENGINES:
        raise InputError("--engine", key="bad_engine", values={"engines": ', '.join(ENGINES), "engine": engine})
    if jobs < 1:
        raise InputError("--jobs", key="jobs_at_least_one", values={"jobs": jobs})
    if engine == "ray":
        results = _run_ray(fn, jobs_in, address, step)
    elif in_process(jobs, len(jobs_in)):
        results = []
        for job in jobs_in:
            if failed is None:
                results.append((True, fn(job)))  # in this process: errors raise as they always did
            else:
                try:
                    results.append((True, fn(job)))
                except InputError as exc:
                    results.append((False, exc))
            step()
    else:
        import concurrent.futures

        from concurrent.futures.process import BrokenProcessPool

        try:
            with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(jobs_in)), mp_context=_context(),
                                                        initializer=_worker_init) as pool:
                futures = [pool.submit(_call, fn, job) for job in jobs_in]
                try:
                    for fut in concurrent.futures.as_completed(futures):
                        fut.exception()  # wait; the result is taken in input order below
                        step()
                except KeyboardInterrupt:  # Ctrl-C: end the workers now rather than wait for their files
                    workers = list((getattr(pool, "_processes", None) or {}).values())
                    pool.shutdown(wait=False, cancel_futures=True)
                    for proc in workers:
                        proc.terminate()
                    raise
                results = [fut.result() for fut in futures]
        except BrokenProcessPool:  # a worker ended abruptly (ncu_report aborts on a damaged report): redo here,
            results = [(True, fn(job)) for job in jobs_in]  # where each report gets its trial load first
    out = []
    for ok, value in results:
        if ok:
            out.append(value)
            continue
        exc = value if isinstance(value, InputError) else InputError.restored(value)
        if failed is None:
            raise exc
        failed.append(exc)
    return out


def _worker_init() -> None:
    """Pool worker initialiser: the worker guards its own reads (:func:`_worker_start`) and ends quietly on Ctrl-C
    (:func:`_quiet_interrupt`)."""
    _worker_start()
    _quiet_interrupt()


def _quiet_interrupt() -> None:
    """A worker process's SIGINT (Ctrl-C reaches the whole process group): end at once, without the traceback the
    main process's one line replaces."""
    import signal

    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


def _run_ray(fn: Callable[[Any], Any], jobs_in: Sequence[Any], address: str | None,
             step: Callable[[], None]) -> list[tuple[bool, Any]]:
    try:
        import ray
    except ImportError:
        raise InputError("--engine ray", key="ray_missing", values={"ray_extra": RAY_EXTRA}) from None
    if not ray.is_initialized():
        import logging

        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
                 logging_level=logging.ERROR)
    task = ray.remote(_call)
    refs = [task.remote(fn, job) for job in jobs_in]
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for _ in done:
            step()
    return ray.get(refs)


def add_arguments(parser: Any) -> None:
    """``--jobs``, ``--engine``, ``--address`` on an argparse parser."""
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="processes that read and analyse the files side by side (default: the number of "
                        "cores; 1: one after the other in this process)")
    parser.add_argument("--engine", choices=ENGINES, default="local",
                        help="local (default): this machine's processes; ray: Ray tasks (optional extra: "
                        f"{RAY_EXTRA}) on a local Ray instance or the cluster at --address; every worker must see "
                        "the input paths")
    parser.add_argument("--keep-going", action="store_true",
                        help="an input that cannot be read does not stop the others: the rest are reported, then "
                        "every failed file, and every file of a directory that was skipped, is listed on standard "
                        "error with its reason; the exit code is 2 when any failed")
    parser.add_argument("--address", metavar="ADDRESS",
                        help="with --engine ray: the Ray cluster to join (e.g. ray://head:10001; default: start or "
                        "join a local one, or $RAY_ADDRESS)")

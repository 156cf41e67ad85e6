"""Reader for PyTorch profiler / Kineto Chrome traces into a :class:`~kernelscope.timeline_model.Timeline`.

Extraction only (no analysis). Inputs:

* one trace: ``.json`` or ``.json.gz`` (gzip is recognised by its magic bytes, whatever the name);
* a directory of per-rank traces (``*.json`` / ``*.json.gz`` below it, sorted by path);
* a ``.tar`` / ``.tar.gz`` / ``.tgz`` of per-rank traces. Members are read straight from the archive as a stream
  (nothing is extracted to disk), and the archive is refused (:class:`InputError`) when any member has an
  absolute path or a ``..`` component, is a symbolic / hard link, a device or a FIFO, or when the member count or
  the (declared or decompressed) sizes pass the limits below.

Each trace file is one rank: its ``distributedInfo.rank`` goes into the ``rank`` column. A single trace without
``distributedInfo`` gets rank -1 and ``meta["rank"] = "not recorded"`` (case C21); several such files in a
directory or archive are numbered 0, 1, ... in path order, which is stated in ``problems``.

Event categories (``cat``, compared without case, so both the current and the 2021 spellings), kinds of
:mod:`kernelscope.timeline_model`:

* ``kernel`` / ``Kernel`` -> kernel (busy);
* ``gpu_memcpy`` / ``Memcpy`` -> memcpy (busy; direction and pageable flag from the name, e.g.
  ``Memcpy HtoD (Pageable -> Device)``); ``gpu_memset`` / ``Memset`` -> memset (busy);
* ``cuda_sync`` -> sync (CUPTI synchronisation records);
* ``cuda_runtime`` / ``Runtime`` and ``cuda_driver`` -> runtime_api (host-side API calls);
* ``gpu_user_annotation`` -> gpu_annotation: it encloses GPU work and is NEVER busy time (case C17);
* ``user_annotation`` (``ProfilerStep#N`` ...) -> annotation (host side);
* ``cpu_op`` / ``Operator``, ``python_function`` -> cpu_op; any other ``"ph": "X"`` category -> other;
* not kept: flow events (``ac2g``, ``fwdbwd``, ``async``), ``cuda_profiler_range`` (CUPTI range-profiler
  counters, no real timing), ``M`` / ``i`` / other phases; the ``Trace`` span (the profiler's own window) goes
  to ``meta["profiler_window_ns"]``.

GPU rows take the device from ``args.device`` (else ``pid``) and the stream from ``args.stream`` (else ``tid``:
an integer, or a string such as ``"stream 7"``); host rows keep the thread id (integer or numeric string) in
``stream``. Correlation ids come from ``args.correlation``; byte counts from ``args.bytes``.

Time. Chrome traces store ``ts`` / ``dur`` in MICROSECONDS, always: ``displayTimeUnit`` ("ms" or "ns") only tells
a viewer how to print them (the Trace Event Format says so; the HolisticTraceAnalysis "ns resolution" test trace
says "ns", and ``hta_nccl_data`` says "ms" with the same 3-decimal timestamps). What marks a ns-resolution trace
is fractional microseconds with three decimals (``"ts": 1712195495505582.988``). Such a value has 19
significant digits, more than a float64 holds (0.25 µs steps at 1.7e15 µs), so numbers are never parsed as
floats: floats reach this reader as their JSON text and are converted to integer nanoseconds exactly (digits
beyond the third decimal are rounded half-even); integers are multiplied by 1000. ``meta["time_resolution"]`` says
which kind the trace is.

Unusable records. A GPU record (kernel, copy, memset) with ``ts`` 0 / missing or a missing / negative ``dur`` is
not a row: it is counted in ``invalid`` with its name, correlation ids and reason (``"no GPU timing (ts 0, dur
0); launch seen"`` when a runtime / driver call with the same correlation id was recorded, case C03). Host rows
with no timing are counted the same way. A kernel with a real ``ts`` and ``dur`` 0 is a real kernel shorter than
the trace's resolution in an integer-µs trace, and is kept; in a ns-resolution trace it is impossible. Each file's
Timeline then goes through :func:`kernelscope.ingest.records.screen_records`: ends at ``INT64_MAX`` (a ``dur`` that
puts the end past it is saturated), zero-length GPU work of ns-resolution traces and timestamps absurdly far from
the file's other records are left out and counted; an operation running past the start of the next one on its own
stream is clipped there and listed in ``repaired`` (case N01).

Speed and memory. The file is never held whole: it is read in chunks of :data:`CHUNK_BYTES`, each chunk cut at an
event boundary (``}`` ``,`` ``{``; a cut that is not a real boundary -- inside a string or a nested object --
fails to decode and the next candidate is tried) and decoded by ``msgspec`` into small typed structs that skip
every field the timeline does not use (``Input Strides``, ``Concrete Inputs`` ...), then turned into NumPy
columns. Host operators recorded with ``record_shapes`` keep their ``Input Dims`` / ``Input type``
(``Timeline.op_inputs``, :class:`~kernelscope.timeline_model.OperatorInputs`: the fusion estimate's bytes). Peak memory is the
columns plus a few chunks, whatever the input size. The garbage collector is paused while reading (nothing here
makes reference cycles; its passes over millions of fresh tuples cost more than the decoding). The files of a
directory are parsed by one process per CPU (``fork``; see ``jobs``) when they are large enough to pay for it.

Modules (each imports only the ones after it): :mod:`.sources` opens the inputs (files, directories, archives;
size limits and unsafe-archive guards; the process pool), :mod:`.assemble` turns the parsed files into one
Timeline, :mod:`.columns` turns one file's decoded events into NumPy columns (with :mod:`.values` for the value
conversions), and :mod:`.decode` decodes the JSON stream piece by piece.
"""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

from ...errors import InputError
from ...timeline_model import Timeline
from ..limits import DEFAULT_BYTES, InflateLimits, inflate_limits
from .assemble import FORMAT, _build
from .sources import _Budget, _read_directory, _read_file, _trace_files

__all__ = ["CHUNK_BYTES", "FORMAT", "MAX_INPUT_BYTES", "MAX_MEMBER_BYTES", "MAX_MEMBERS", "PARALLEL_MIN_BYTES",
           "read_kineto"]

# CHUNK_BYTES and PARALLEL_MIN_BYTES are read from this package at each call (and passed down), so that setting
# them here (``kineto.CHUNK_BYTES = ...``) takes effect.
#: Bytes of JSON decoded at a time.
CHUNK_BYTES = 16 << 20
#: Least bytes (on disk) of a directory's traces before they are parsed by several processes at once.
PARALLEL_MIN_BYTES = 32 << 20
#: Most bytes one input may decompress to (a file, or all members of an archive together), unless
#: ``KERNELSCOPE_MAX_INFLATE_BYTES`` says otherwise; a compressed file is also limited relative to its size on disk
#: (``KERNELSCOPE_MAX_INFLATE_RATIO``, :mod:`kernelscope.ingest.limits`).
MAX_INPUT_BYTES = DEFAULT_BYTES
#: Most bytes one archive member may hold (declared in its header, and as decompressed).
MAX_MEMBER_BYTES = 16 << 30
#: Most entries (files, directories) an archive may hold, and most trace files a directory may hold.
MAX_MEMBERS = 10_000


def read_kineto(
    path: str | os.PathLike,
    *,
    max_bytes: int | None = None,
    max_ratio: float | None = None,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_members: int = MAX_MEMBERS,
    jobs: int | None = None,
) -> Timeline:
    """Read a PyTorch profiler / Kineto trace (file, directory of per-rank files, or tar archive) into one
    Timeline; several files are merged with their ranks in the ``rank`` column.

    Args:
        path: ``.json``, ``.json.gz``, a directory, or a ``.tar`` / ``.tar.gz`` / ``.tgz`` archive.
        max_bytes: most decompressed bytes the whole input may hold (None: ``KERNELSCOPE_MAX_INFLATE_BYTES``,
            else :data:`MAX_INPUT_BYTES`).
        max_ratio: most decompressed bytes per byte of a compressed file on disk, above a floor of
            :data:`~kernelscope.ingest.limits.RATIO_FLOOR_BYTES` (None: ``KERNELSCOPE_MAX_INFLATE_RATIO``, else
            100; see :mod:`kernelscope.ingest.limits`).
        max_member_bytes: most bytes one archive member may hold.
        max_members: most entries an archive (or trace files a directory) may hold.
        jobs: processes that parse the files of a directory side by side (None: one per CPU this process may
            use, as ``--jobs`` counts them; used only for directories of at least :data:`PARALLEL_MIN_BYTES`,
            where ``fork`` exists). 1: in this process.

    Raises:
        InputError: missing or unreadable input, not a Chrome trace, malformed JSON (with its byte offset), an
            unsafe or oversized archive, a compressed input past the limits, or a trace that recorded no GPU
            activity at all (the message says why that usually happens).
    """
    p = Path(path)
    src = str(path)
    if not p.exists():
        raise InputError(src, "file not found", key="file_not_found")
    env = inflate_limits()
    limits = InflateLimits(max_bytes=env.max_bytes if max_bytes is None else max_bytes,
                           max_ratio=env.max_ratio if max_ratio is None else max_ratio)
    # The decoded structs are untracked by the garbage collector, but the tuples and lists built from them are
    # not: a collection pass every few thousand allocations would walk millions of them. Nothing here makes
    # cycles, so the collector is paused while reading (and restored as it was).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _read(p, src, limits, max_member_bytes, max_members, jobs)
    finally:
        if gc_was_enabled:
            gc.enable()


def _read(p: Path, src: str, limits: InflateLimits, max_member_bytes: int, max_members: int,
          jobs: int | None) -> Timeline:
    budget = _Budget(src, limits.max_bytes, limits.absolute())
    chunk_bytes = CHUNK_BYTES
    if p.is_dir():
        files = _trace_files(p, src, max_members)
        parsed = _read_directory(p, files, src, budget, limits, _workers(jobs, files), chunk_bytes)
    else:
        parsed = _read_file(p, src, budget, limits, max_member_bytes, max_members, chunk_bytes)
    return _build(parsed, src)


def _workers(jobs: int | None, files: list[Path]) -> int:
    """Processes to parse a directory's files with: one file each at a time, at most ``jobs`` (None: the CPUs this
    process may use: in a container limited to 2 of a host's 64 CPUs, 2). Only on platforms with ``fork`` (no
    re-import), from a single-threaded process (forking a process with other threads can deadlock), and for inputs
    big enough to pay for the processes."""
    import multiprocessing  # (a directory's pool only: a single trace does without the import)

    if jobs is None:
        try:
            jobs = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # (no affinity on macOS / Windows)
            jobs = os.cpu_count() or 1
    jobs = min(jobs, len(files))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    try:
        size = sum(f.stat().st_size for f in files)
    except OSError:
        return 1
    return jobs if size >= PARALLEL_MIN_BYTES else 1

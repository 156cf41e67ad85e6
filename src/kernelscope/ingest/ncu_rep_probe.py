"""A trial load of Nsight Compute reports in a forked child: NVIDIA's reader (``ncu_report``) calls abort() on a
report whose payload is damaged (bytes flipped inside a block fail a protobuf "Check failed"), which ends the
process with nothing said and cannot be caught in Python; a child that loads the report first turns that into an
InputError (found by ``benchmarks/fuzz.py``)."""

from __future__ import annotations

import os
import re
import select
import signal
import time
from typing import Sequence

from ..errors import InputError
from .files import native_name

#: Seconds the forked trial loads of :func:`probe_reports` may take before they are given up (the real loads then go
#: on as if they had passed).
PROBE_TIMEOUT_S = 60.0
#: Reports whose trial load passed: (real path, size, mtime_ns).
_PROBED: set[tuple[str, int, int]] = set()


def _key(path: str) -> tuple[str, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return os.path.realpath(path), st.st_size, st.st_mtime_ns


def _is_report(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"NVR\0"
    except OSError:
        return False


class _Probe:
    """A running trial-load child (see :func:`probe_reports`): its pid, the read end of its output pipe, the reports
    it loads in order (path, key), how many of them it has loaded, and what it printed."""

    def __init__(self, pid: int, fd: int, todo: list[tuple[str, tuple[str, int, int]]]) -> None:
        self.pid, self.fd, self.todo, self.done, self.said = pid, fd, todo, 0, bytearray()

    def wait_for(self, index: int) -> None:
        """Block until report ``index`` loaded in the child (or the child ended); raises InputError when the reader
        aborted on that report."""
        deadline = time.monotonic() + PROBE_TIMEOUT_S
        while self.fd >= 0 and self.done <= index:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                os.kill(self.pid, signal.SIGKILL)  # stuck: give the trial up, as if every report had passed
                self._finish(len(self.todo))
                return
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self._finish(None)
                break
            self.said += chunk
            self.done = self.said.count(b"\x00ok\x00")
            _PROBED.update(k for _, k in self.todo[:self.done])
            if len(self.said) > (1 << 20):
                del self.said[:len(self.said) - 65536]
        if self.done > index:
            return
        text = " ".join(bytes(self.said).rsplit(b"\x00ok\x00", 1)[-1].decode("utf-8", "replace").split())
        failed = re.search(r"Check failed: [^*]*", text)
        why = (failed.group(0).strip() if failed else text[-160:]) or "it ended the process"
        raise InputError(self.todo[index][0], key="ncu_rep_reader_aborts", values={"why": why[:160]})

    def _finish(self, passed: int | None) -> None:
        """Close the pipe and reap the child; ``passed``: how many reports count as loaded (None: as it reported,
        or all of them when it exited normally)."""
        os.close(self.fd)
        self.fd = -1
        _, status = os.waitpid(self.pid, 0)
        if passed is None:
            passed = len(self.todo) if not os.WIFSIGNALED(status) else self.done
        self.done = max(self.done, passed)
        _PROBED.update(k for _, k in self.todo[:self.done])


_PENDING: list[_Probe] = []
#: True in a process that is itself the guard (a worker of ``kernelscope.distributed.map``'s pool, whose parent
#: turns a worker's abort into a rerun in its own, probing, process): no trial load, the real read is the only one.
_EXPENDABLE: list[bool] = [False]


def expendable() -> None:
    """Declare this process expendable (a pool worker): reports are read without a trial load in a child, since
    an abort ends only this worker and its parent reruns the work with the trial loads (one parse, not two)."""
    _EXPENDABLE[0] = True


def probe_reports(paths: Sequence[str | os.PathLike]) -> None:
    """Start trial-loading the ``.ncu-rep`` reports among ``paths`` with NVIDIA's reader in ONE forked child, so that
    a damaged payload (bytes flipped inside a block fail a protobuf "Check failed" and the reader calls abort(),
    which no Python code can catch) is an InputError instead of the end of the process. Returns at once: the child
    runs ahead of the real reads, and :func:`read_ncu_rep` waits only for its own report's trial (about 2 ms; the
    fork about 3 ms). A command calls it once for all its inputs; :func:`read_ncu_rep` calls it for a report not
    probed yet. Files that are not reports, or already probed, are skipped; without ``fork``, or past
    :data:`PROBE_TIMEOUT_S`, a trial is given up (nothing raised)."""
    pending = {k for pr in _PENDING for _, k in pr.todo[pr.done:]}
    todo = [(str(p), k) for p in paths
            if (k := _key(str(p))) is not None and k not in _PROBED and k not in pending and _is_report(str(p))]
    if not todo or not hasattr(os, "fork"):
        return
    import ncu_report

    names = [native_name(path) for path, _ in todo]  # made before the fork: the child's links would not outlive it
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: load each report, say "ok" after each; an abort ends it by SIGABRT, its message after
        try:
            os.close(read_end)
            os.dup2(write_end, 1)
            os.dup2(write_end, 2)
            for name in names:
                ncu_report.load_report(name)
                os.write(write_end, b"\x00ok\x00")
        finally:
            os._exit(0)
    os.close(write_end)
    _PENDING.append(_Probe(pid, read_end, todo))


def await_probe(source: str) -> None:
    """Wait for the trial load of ``source`` (started now when none is pending); InputError when it aborted."""
    if _EXPENDABLE[0]:
        return
    key = _key(source)
    if key is None or key in _PROBED:
        return
    if not any(k == key for pr in _PENDING for _, k in pr.todo):
        probe_reports([source])
    for pr in list(_PENDING):
        for i, (_, k) in enumerate(pr.todo):
            if k == key:
                try:
                    pr.wait_for(i)
                finally:
                    if pr.fd < 0 and pr in _PENDING:
                        _PENDING.remove(pr)
                return

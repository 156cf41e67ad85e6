"""Running a command under Nsight Compute's ``ncu`` for ``kernelscope profile``: where ``ncu`` is, the command line
that collects what kernelscope reads, and what ncu's own output says went wrong.

What kernelscope reads of a report (``data/metrics.toml`` ``[request]`` and ``[instructions]``) comes from these
Nsight Compute sections: SpeedOfLight and its roofline charts (the hierarchical ones: each memory level's traffic and
peak), ComputeWorkloadAnalysis (pipe utilisation, tensor pipes), MemoryWorkloadAnalysis and its tables (DRAM / L2 /
L1 bytes, hit rates, shared-memory wavefronts and bank conflicts), LaunchStats and Occupancy (launch attributes),
SchedulerStats and WarpStateStats (the stall reasons), InstructionStats (the SASS FP counters the FLOPs come from)
and SourceCounters (the per-instruction data of ``kernelscope source``, with PC sampling). ``--set full`` holds them
all; with another ``--set`` they are added as one ``--section regex:`` (a regular expression, so that a section an
older ncu lacks is not an error). ``--import-source yes`` stores the CUDA source in the report (``source``'s line
view), ``--target-processes all`` follows the command into the processes it starts (a shell script, a Python
launcher), ``-f -o`` writes the report (to a temporary file beside the one asked for, renamed into place when ncu
succeeded: an interrupted or failed run leaves the old report or none).

ncu's output (its ``==PROF==`` lines and the command's own output) is streamed through to standard error as it
comes, and scanned for the messages that name a failure: ``ERR_NVGPUCTRPERM`` (the user may not read the
performance counters), ``No kernels were profiled``, and ``==ERROR==`` lines."""

from __future__ import annotations

import codecs
import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import IO, Sequence

from ..errors import InputError

#: Where ``ncu`` is looked for when it is not on PATH (globs, newest version last after sorting by version).
NCU_SEARCH: tuple[str, ...] = ("/usr/local/cuda*/bin", "/opt/nvidia/nsight-compute*", "/opt/nvidia/nsight-compute/*")

#: The sections kernelscope reads (see the module), as one ``--section`` regular expression for a set other than full.
SECTIONS_REGEX = (r"regex:^(SpeedOfLight.*|ComputeWorkloadAnalysis|MemoryWorkloadAnalysis.*|LaunchStats|Occupancy"
                  r"|SchedulerStats|WarpStateStats|InstructionStats|SourceCounters)$")

#: The set collected unless ``--set`` names another.
DEFAULT_SET = "full"

#: What ncu prints when the user may not read the GPU performance counters (the link is part of its message).
PERMISSION_TOKEN = "ERR_NVGPUCTRPERM"
PERMISSION_URL = "https://developer.nvidia.com/ERR_NVGPUCTRPERM"
#: What ncu prints when no kernel was profiled (``==WARNING== No kernels were profiled.``).
NO_KERNELS = "No kernels were profiled"
_ERROR_LINE = re.compile(r"^==ERROR==\s*(.*\S)")
#: A line only Nsight Compute prints (its prefixes).
_NCU_LINE = re.compile(r"^==(?:PROF|ERROR|WARNING|INFO)==")
#: ncu's ``==ERROR==`` lines kept for the message (the first ones say what happened).
_KEEP_ERRORS = 4


def find_ncu(given: str | None = None) -> str:
    """The ``ncu`` to run: ``given`` (``--ncu PATH``: a file, or a name looked up on PATH), else ``ncu`` on PATH,
    else the newest under :data:`NCU_SEARCH`.

    Raises:
        InputError: none found, or ``given`` is not an executable file.
    """
    if given is not None:
        path = given if os.sep in given else (shutil.which(given) or given)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise InputError(given, "is not an executable file; --ncu names Nsight Compute's command line profiler "
                             "(ncu)", key="ncu_not_executable")
        return path
    found = shutil.which("ncu")
    if found:
        return found
    candidates = [os.path.join(folder, "ncu") for pattern in NCU_SEARCH for folder in glob.glob(pattern)]
    runnable = [c for c in candidates if os.path.isfile(c) and os.access(c, os.X_OK)]
    if runnable:
        return max(runnable, key=_version_key)
    raise InputError("ncu", "Nsight Compute's command line profiler was not found on PATH, in /usr/local/cuda*/bin "
                     "or /opt/nvidia/nsight-compute*; install Nsight Compute (it comes with the CUDA Toolkit) or "
                     "name it with --ncu PATH", key="ncu_not_found")


def _version_key(path: str) -> tuple[int, ...]:
    """Sort key of an ncu path by the version numbers in it (``cuda-12.4`` after ``cuda-12.1``, ``2025.1`` after
    ``2024.3``)."""
    return tuple(int(n) for n in re.findall(r"\d+", path))


@dataclass(frozen=True)
class NcuOptions:
    """What ``kernelscope profile`` asks of ncu.

    Attributes:
        section_set: the ``--set`` (``full`` unless given).
        kernel: ``-k``: which kernels (ncu's syntax: a name, ``regex:...``), or None for all.
        count: ``-c``: how many kernel launches at most, or None.
        clock_control: ``--clock-control`` (``base``, ``none``), or None for ncu's default.
        extra: further ncu arguments, as given, before ``-o``.
    """

    section_set: str = DEFAULT_SET
    kernel: str | None = None
    count: int | None = None
    clock_control: str | None = None
    extra: tuple[str, ...] = ()


def ncu_command(ncu: str, options: NcuOptions, report: str, command: Sequence[str]) -> list[str]:
    """The ncu command line that profiles ``command`` into ``report`` (a path ending in ``.ncu-rep``)."""
    argv = [ncu, "--set", options.section_set]
    if options.section_set != "full":
        argv += ["--section", SECTIONS_REGEX]
    argv += ["--import-source", "yes", "--target-processes", "all"]
    if options.kernel is not None:
        argv += ["-k", options.kernel]
    if options.count is not None:
        argv += ["-c", str(options.count)]
    if options.clock_control is not None:
        argv += ["--clock-control", options.clock_control]
    return [*argv, *options.extra, "-f", "-o", report, *command]


@dataclass
class Outcome:
    """What an ncu run said.

    Attributes:
        returncode: ncu's exit status (negative: killed by that signal).
        permission: whether it printed ERR_NVGPUCTRPERM.
        no_kernels: whether it printed "No kernels were profiled".
        errors: its first ``==ERROR==`` lines, without the prefix.
        spoke: whether it printed any line of Nsight Compute's own (``==PROF==``, ``==ERROR==``, ``==WARNING==``):
            a program that never does is not ncu, and its failure is not the profiled command's.
    """

    returncode: int
    permission: bool = False
    no_kernels: bool = False
    errors: list[str] = field(default_factory=list)
    spoke: bool = False

    def scan(self, line: str) -> None:
        """Take note of one line of ncu's output."""
        if _NCU_LINE.match(line.strip()):
            self.spoke = True
        if PERMISSION_TOKEN in line:
            self.permission = True
        if NO_KERNELS in line:
            self.no_kernels = True
        m = _ERROR_LINE.match(line.strip())
        if m and len(self.errors) < _KEEP_ERRORS:
            self.errors.append(m.group(1))


def run_streaming(argv: Sequence[str], echo: IO[str] | None) -> Outcome:
    """Run ``argv`` with its standard output and error merged, copy what it prints to ``echo`` as it comes (None:
    nothing shown) and scan each line (:meth:`Outcome.scan`)."""
    outcome = Outcome(returncode=0)
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    try:
        fd = proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            text = decoder.decode(chunk, final=not chunk)
            if echo is not None and text:
                echo.write(text)  # progress ("0%....50%....100%") shows before its line ends
                echo.flush()
            pending += text
            *lines, pending = pending.split("\n")
            for line in lines:
                outcome.scan(line)
            pending = pending[-4096:]  # a line without end (a progress bar) is scanned by its last part
            if not chunk:
                break
        if pending:
            outcome.scan(pending)
    finally:
        proc.stdout.close()
        outcome.returncode = proc.wait()
    return outcome


def failure(outcome: Outcome, report_written: bool, report: str, command: Sequence[str],
            kernel: str | None) -> InputError | None:
    """The one-line error an ncu run ends in, or None when it profiled kernels into ``report``: counters not
    readable first (the cause of everything else then), then the command or ncu failing, no kernel profiled, no
    report written."""
    if outcome.permission:
        return InputError("ncu", f"{PERMISSION_TOKEN}: this user may not read the GPU performance counters; run as "
                          "root (sudo), or let every user profile: options nvidia "
                          "NVreg_RestrictProfilingToAdminUsers=0 in a file of /etc/modprobe.d, then reload the nvidia "
                          f"module or reboot (in a container: --cap-add=SYS_ADMIN); see {PERMISSION_URL}",
                          key="ncu_counters_denied", values={"url": PERMISSION_URL})
    label = _command_label(command)
    if outcome.returncode != 0 and not outcome.spoke and not report_written:
        return InputError("--ncu", f"the profiler exited with status {outcome.returncode} without a line of Nsight "
                          "Compute's (==PROF==, ==ERROR==): the command was not profiled; check that --ncu (or the "
                          "ncu on PATH) is Nsight Compute's ncu", key="ncu_not_ncu",
                          values={"status": outcome.returncode})
    if outcome.returncode != 0:
        detail = "; ".join(outcome.errors) or "see the output above"
        if report_written:
            return InputError(label, f"the command failed under ncu (exit status {outcome.returncode}: {detail}); "
                              f"the report of what was profiled is kept in {report}", key="profile_failed_kept",
                              values={"status": outcome.returncode, "detail": detail, "report": report})
        return InputError(label, f"the command failed under ncu (exit status {outcome.returncode}: {detail})",
                          key="profile_failed", values={"status": outcome.returncode, "detail": detail})
    if outcome.no_kernels or not report_written:
        if outcome.no_kernels and kernel is not None:
            return InputError(label, f"ncu profiled no kernel: no kernel launch matched -k {kernel}; check the name "
                              "(without -k every kernel is profiled)", key="profile_no_kernel_matches",
                              values={"kernel": kernel})
        if outcome.no_kernels:
            return InputError(label, "ncu profiled no kernel: the command launched no CUDA kernel (does it run on the "
                              "GPU? is CUDA_VISIBLE_DEVICES empty?)", key="profile_no_kernels")
        return InputError(report, "ncu exited with status 0 but wrote no report; see its output above",
                          key="profile_no_report")
    return None


def _command_label(command: Sequence[str]) -> str:
    """The command as the error's source: its program and, shortened, its arguments."""
    text = " ".join(command)
    return text if len(text) <= 80 else text[:77] + "..."


def echo_stream(quiet: bool) -> IO[str] | None:
    """Where ncu's output is copied: standard error, or nowhere with ``-q``."""
    return None if quiet else sys.stderr

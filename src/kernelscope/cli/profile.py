"""``kernelscope profile [OPTIONS] -- COMMAND...``: run COMMAND under Nsight Compute's ``ncu`` with what kernelscope
reads (:mod:`kernelscope.cli.ncu_run`), then diagnose the report as ``kernelscope diagnose REPORT`` would.

``-o REPORT`` names the report (``.ncu-rep`` added when missing, as ncu adds it; default
``kernelscope-profile-YYYYmmdd-HHMMSS.ncu-rep`` in the current folder): it is checked before anything runs as every
command's ``-o`` is (a directory, a read-only file, a folder that is not there, an input of the run: refused, exit 2),
written by ncu to a temporary file beside it and renamed into place. The diagnosis goes to standard output, or with
``--diagnosis FILE`` to FILE (atomically, as ``diagnose -o``); ncu's own output goes to standard error as it comes.

``--timeline`` (a Python command whose interpreter imports torch): a second run of the program, not under ncu,
inside the PyTorch profiler (:mod:`kernelscope.cli.torch_runner`, run by the program's own interpreter), writes a
Chrome trace beside the report (``REPORT-stem.trace.json``); the line that joins the two
(``kernelscope timeline TRACE --kernels REPORT``) is printed at the end."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from ..errors import InputError
from ..render import DIAGNOSE_FORMATS
from ..render.common import LAUNCH_VIEWS
from .diagnose import COMMAND as DIAGNOSE
from .ncu_run import DEFAULT_SET, NcuOptions, echo_stream, failure, find_ncu, ncu_command, run_streaming
from .options import GPU_HELP, Command, Shared
from .output import is_stream, refuse_inputs

#: How long checking that the program's Python imports torch may take (a cold import can take a while).
TORCH_CHECK_S = 300
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
#: Python options that take a value (``-W default``, ``-X dev``); the other options stand alone.
_PYTHON_VALUE_OPTIONS = ("-W", "-X")
_NOT_FILE = "is standard output, a stream or a device; ncu and the PyTorch profiler write files: name a file"


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND",  # not "command": the sub-command's dest
                   help="the program to profile and its arguments, after -- (everything after it is the program's)")
    p.add_argument("-o", "--output", metavar="REPORT",
                   help="the Nsight Compute report to write (.ncu-rep added when missing; default: "
                   "kernelscope-profile-TIMESTAMP.ncu-rep in the current folder)")
    p.add_argument("--set", dest="section_set", default=DEFAULT_SET, metavar="NAME",
                   help="ncu section set (default: full); with another set the sections kernelscope reads are added")
    p.add_argument("-k", "--kernel-name", metavar="KERNEL",
                   help="profile only the kernels KERNEL names (ncu -k: a function name, or regex:PATTERN)")
    p.add_argument("-c", "--launch-count", type=int, metavar="COUNT",
                   help="profile at most COUNT kernel launches (ncu -c)")
    p.add_argument("--clock-control", choices=("base", "none"),
                   help="ncu --clock-control: base locks the clocks to base (ncu's default), none leaves them as "
                   "they are")
    p.add_argument("--ncu", metavar="PATH",
                   help="the ncu to run (default: ncu on PATH, else under /usr/local/cuda*/bin or "
                   "/opt/nvidia/nsight-compute*)")
    p.add_argument("--ncu-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for ncu (repeatable), e.g. --ncu-arg=--cache-control=none")
    p.add_argument("--timeline", action="store_true",
                   help="a Python command: also record a PyTorch profiler trace of it (a second run) beside the "
                   "report, for kernelscope timeline TRACE --kernels REPORT")
    p.add_argument("--diagnosis", metavar="FILE",
                   help="write the diagnosis to FILE (atomically) instead of standard output")
    p.add_argument("--top", type=int, metavar="N", help="diagnose only the N longest launches")
    p.add_argument("--criteria", metavar="FILE",
                   help="TOML [criteria] table overriding the bottleneck-class thresholds")
    p.add_argument("--launches", choices=LAUNCH_VIEWS, default="grouped",
                   help="grouped (default): one panel per kernel, grid and block; all: one panel per launch")


def _profile(args: argparse.Namespace) -> int:
    command = _command(args.program)
    if args.launch_count is not None and args.launch_count < 1:
        raise InputError("-c", key="count_at_least_one", values={"launch_count": args.launch_count})
    report = _report_path(args.output)
    trace = _trace_path(report) if args.timeline else None
    _check_outputs(report, trace, args.diagnosis, [args.spec, args.criteria, *_files(command)])
    from ..api import load_criteria, resolve_gpu

    resolve_gpu(args.gpu, args.spec)  # a bad --gpu / --spec / --criteria before minutes of profiling, not after
    if args.criteria is not None:
        load_criteria(args.criteria)
    python = _timeline_python(command) if args.timeline else None
    ncu = find_ncu(args.ncu)
    options = NcuOptions(args.section_set, args.kernel_name, args.launch_count, args.clock_control,
                         tuple(args.ncu_arg))
    _run_ncu(ncu, options, report, command, args.quiet)
    if python is not None and trace is not None:
        _record_trace(python, trace, report, args.quiet)
    _note(args.lang, "profile_report", report=report)
    own = argparse.ArgumentParser(add_help=False)
    DIAGNOSE.add_arguments(own)  # diagnose's own defaults for every option profile does not pass on
    diagnose_args = own.parse_args([report])
    for name, value in dict(top=args.top, criteria=args.criteria, launches=args.launches, format=args.format,
                            lang=args.lang, quiet=args.quiet, gpu=args.gpu, spec=args.spec, output=args.diagnosis,
                            input_format="auto", jobs=1, details=args.details).items():
        setattr(diagnose_args, name, value)
    code = DIAGNOSE.run(diagnose_args)
    if trace is not None:
        join = shlex.join(["kernelscope", "timeline", trace, "--kernels", report])
        _note(args.lang, "profile_timeline", command=join)
    return code


def _command(words: Sequence[str]) -> list[str]:
    """The program to profile: what follows ``--`` (argparse keeps it first)."""
    command = list(words[1:] if words and words[0] == "--" else words)
    if not command:
        raise InputError("COMMAND", "give the program to profile after --, e.g. kernelscope profile -- ./app",
                         key="profile_no_command")
    return command


def _report_path(given: str | None) -> str:
    """The report's path: as given with ``.ncu-rep`` added when it lacks it (ncu would add it), or a new name in the
    current folder."""
    if given == "-":
        raise InputError(given, _NOT_FILE, key="profile_output_not_file")
    if given is None:
        return f"kernelscope-profile-{time.strftime('%Y%m%d-%H%M%S')}.ncu-rep"
    return given if given.endswith(".ncu-rep") else given + ".ncu-rep"


def _trace_path(report: str) -> str:
    """The PyTorch profiler trace beside ``report``."""
    return report.removesuffix(".ncu-rep") + ".trace.json"


def _files(command: Sequence[str]) -> list[str]:
    """The words of ``command`` that name existing files (the program, its script, its inputs): outputs must not be
    any of them."""
    return [w for w in command if not w.startswith("-") and os.path.isfile(w)]


def _check_outputs(report: str, trace: str | None, diagnosis: str | None, inputs: list[str | None]) -> None:
    """Refuse, before anything runs, the outputs that could not be written or would destroy an input: the report
    and the trace must be files (ncu and torch write them), the diagnosis may be a stream (as ``diagnose -o``)."""
    files = [p for p in (report, trace) if p is not None]
    for path in files:
        if is_stream(path):  # raises for a directory, a read-only file ...
            raise InputError(path, _NOT_FILE, key="profile_output_not_file")
        _check_folder(path)
    if diagnosis is not None:
        if not is_stream(diagnosis):
            _check_folder(diagnosis)
        for path in files:  # not there yet: compared by name
            if os.path.realpath(diagnosis) == os.path.realpath(path):
                raise InputError(diagnosis, f"the output is the input file {path} (the same file): writing it would "
                                 "destroy the input; name another output file", key="output_is_input",
                                 values={"input": path})
        refuse_inputs([diagnosis], [*inputs, *files])
    refuse_inputs(files, inputs)
    if trace is not None:
        refuse_inputs([trace], [report])


def _check_folder(path: str) -> None:
    """A new file can be created at ``path`` (links followed): its folder exists and is writable."""
    folder = Path(os.path.realpath(path)).parent
    reason = "No such file or directory" if not folder.is_dir() else (
        "Permission denied" if not os.access(folder, os.W_OK | os.X_OK) else None)
    if reason is not None:
        raise InputError(path, f"cannot write the output file ({reason})", key="cannot_write",
                         values={"reason": reason})


def _run_ncu(ncu: str, options: NcuOptions, report: str, command: Sequence[str], quiet: bool) -> None:
    """Profile ``command`` into ``report``: ncu writes a temporary file beside it, renamed into place when it holds
    a report (kept on a failure after profiling); a failure is the one-line error :func:`failure` words."""
    target = Path(os.path.realpath(report))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name.removesuffix('.ncu-rep')}.", suffix=".ncu-rep",
                               dir=target.parent)
    os.close(fd)
    try:
        outcome = run_streaming(ncu_command(ncu, options, tmp, command), echo_stream(quiet))
        written = os.path.getsize(tmp) > 0
        if written:
            _give_mode(tmp, target)
            os.replace(tmp, target)
        error = failure(outcome, written, report, command, options.kernel)
        if error is not None:
            raise error
    finally:
        Path(tmp).unlink(missing_ok=True)


def _give_mode(tmp: str, target: Path) -> None:
    """Give ``tmp`` the mode of the file it replaces, or the one a plain ``open()`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~umask
    os.chmod(tmp, mode)


def _note(lang: str, key: str, **values: str) -> None:
    """One ``kernelscope: note:`` line of ``[frame]`` ``key`` on standard error."""
    from ..knowledge.messages import frame

    print(frame("note", lang, message=frame(key, lang, **values)), file=sys.stderr)


def python_program(command: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """(the interpreter with its options, the program: ``SCRIPT ARGS`` / ``-m MODULE ARGS`` / ``-c CODE ARGS``) when
    ``command`` runs a Python program (``python[3[.12]] ...``, or a ``.py`` script: run by the Python its ``#!``
    line names, else this one), or None."""
    if _PYTHON.match(os.path.basename(command[0])):
        interpreter, i = [command[0]], 1
        while i < len(command) and command[i].startswith("-") and command[i] not in ("-", "-m", "-c"):
            takes_value = command[i] in _PYTHON_VALUE_OPTIONS
            interpreter += command[i:i + 1 + takes_value]
            i += 1 + takes_value
        rest = list(command[i:])
        if not rest or rest[0] == "-" or rest[0] in ("-m", "-c") and len(rest) < 2:
            return None  # the interactive interpreter, or a program read from standard input
        return interpreter, rest
    if command[0].endswith(".py"):
        return _shebang_python(command[0]), list(command)
    return None


def _shebang_python(script: str) -> list[str]:
    """The interpreter a script's ``#!`` line names when it is a Python (``/usr/bin/env python3`` included), else
    the Python running kernelscope."""
    try:
        with open(script, "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace")
    except OSError:
        return [sys.executable]
    words = first[2:].split() if first.startswith("#!") else []
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return words[:1] if words and _PYTHON.match(os.path.basename(words[0])) else [sys.executable]


def _timeline_python(command: Sequence[str]) -> tuple[list[str], list[str]]:
    """The Python program of a ``--timeline`` command, its interpreter checked to import torch.

    Raises:
        InputError: not a Python program, or its Python cannot import torch.
    """
    found = python_program(command)
    if found is None:
        raise InputError("--timeline", "the command is not a Python program (python SCRIPT, python -m MODULE, "
                         "python -c CODE or SCRIPT.py); the PyTorch profiler trace needs one",
                         key="timeline_not_python")
    interpreter = found[0]
    try:
        check = subprocess.run([interpreter[0], "-c", "import torch"], capture_output=True, timeout=TORCH_CHECK_S)
        ok = check.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        raise InputError("--timeline", f"{interpreter[0]} cannot import torch; install PyTorch for it, or profile "
                         "without --timeline", key="timeline_no_torch", values={"python": interpreter[0]})
    return found


def _record_trace(python: tuple[list[str], list[str]], trace: str, report: str, quiet: bool) -> None:
    """Run the program again inside the PyTorch profiler; its trace goes to a temporary file beside ``trace``,
    renamed into place when the program succeeded."""
    interpreter, program = python
    target = Path(os.path.realpath(trace))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".json", dir=target.parent)
    os.close(fd)
    runner = str(Path(__file__).with_name("torch_runner.py"))
    try:
        done = run_streaming([*interpreter, runner, tmp, *program], echo_stream(quiet))
        if done.returncode != 0 or os.path.getsize(tmp) == 0:
            raise InputError("--timeline", f"the program failed inside the PyTorch profiler (exit status "
                             f"{done.returncode}); no trace written; the Nsight Compute report is kept in {report}",
                             key="timeline_failed", values={"status": done.returncode, "report": report})
        _give_mode(tmp, target)
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)


COMMAND = Command(
    name="profile",
    help="run a program under Nsight Compute with what kernelscope reads, then diagnose the report",
    description="Run COMMAND under Nsight Compute's ncu (--set full, --import-source yes, --target-processes all: "
    "every section kernelscope reads, the per-instruction source counters of kernelscope source included), write "
    "the report (-o REPORT) and diagnose it as kernelscope diagnose REPORT would. ncu's own output goes to standard "
    "error as it comes; ncu missing, GPU performance counters not readable (ERR_NVGPUCTRPERM), no kernel profiled "
    "or the command failing: one line, exit 2. With --timeline, a Python command is also run inside the PyTorch "
    "profiler for a timeline trace of the same program.",
    shared=Shared(
        formats=DIAGNOSE_FORMATS,
        format_help="output format of the diagnosis (default: table), as kernelscope diagnose --format",
        lang=True,
        quiet_help="no progress bar, and ncu's own output not shown (its failures still are)",
        gpu_help=GPU_HELP,
        details=True,
    ),
    add_arguments=_add_arguments,
    run=_profile,
)

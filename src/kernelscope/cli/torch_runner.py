"""Runs a Python program inside the PyTorch profiler and writes its Chrome trace: ``kernelscope profile --timeline``.

Run as a script by the program's own Python interpreter (not imported by kernelscope, and importing nothing of it,
so it works in an environment where kernelscope is not installed)::

    PYTHON [PYTHON-OPTIONS] torch_runner.py TRACE.json SCRIPT [ARGS...]
    PYTHON [PYTHON-OPTIONS] torch_runner.py TRACE.json -m MODULE [ARGS...]
    PYTHON [PYTHON-OPTIONS] torch_runner.py TRACE.json -c CODE [ARGS...]

The program runs as ``__main__`` (``runpy``, ``sys.argv`` and ``sys.path[0]`` as Python would set them) inside
``torch.profiler.profile`` with CPU and, where ``torch.cuda.is_available()``, CUDA activities; when it ends (normally,
by ``sys.exit`` or by an exception) the CUDA work is synchronised and the trace exported with
``export_chrome_trace``, so a failing program still leaves its trace. Exit status: the program's.

Limits: the whole run is recorded (a long training run makes a large trace: give the program few steps); a program
that starts its own ``torch.profiler`` conflicts with this one; child processes (multiprocessing, DataLoader
workers) are not recorded.
"""

from __future__ import annotations

import os
import runpy
import sys

USAGE = "usage: torch_runner.py TRACE.json (SCRIPT | -m MODULE | -c CODE) [ARGS...]"


def _exit_code(code: object) -> int:
    """The exit status ``sys.exit(code)`` gives."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _run(target: list[str]) -> int:
    """Run the program ``target`` names as ``__main__``; returns its exit status."""
    try:
        if target[0] == "-m":
            sys.argv = [target[1], *target[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(target[1], run_name="__main__", alter_sys=True)
        elif target[0] == "-c":
            sys.argv = ["-c", *target[2:]]
            sys.path[0] = ""
            exec(compile(target[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
        else:
            sys.argv = list(target)
            sys.path[0] = os.path.dirname(os.path.abspath(target[0]))
            runpy.run_path(target[0], run_name="__main__")
    except SystemExit as exc:
        return _exit_code(exc.code)
    return 0


def main(argv: list[str]) -> int:
    """``argv``: TRACE then the program; returns the program's exit status (2 on a usage error)."""
    if len(argv) < 2 or argv[1] in ("-m", "-c") and len(argv) < 3:
        print(USAGE, file=sys.stderr)
        return 2
    trace, target = argv[0], argv[1:]
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.cuda.is_available()
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if cuda else [])]
    if not cuda:
        print("kernelscope: note: torch.cuda.is_available() is False: the trace holds CPU activity only",
              file=sys.stderr)
    prof = profile(activities=activities)
    prof.start()
    try:
        code = _run(target)
    finally:
        if cuda:
            torch.cuda.synchronize()
        prof.stop()
        prof.export_chrome_trace(trace)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A progress bar for long work (many kernels, many charts) on a terminal, silent everywhere else.

Shown on standard error only when it is a terminal, and, when the result goes to standard output, only when that
is a terminal too (``kernelscope diagnose r.ncu-rep | less`` stays quiet); never with ``--quiet``. The bar is
transient: it disappears when the work is done, so it never mixes with the output.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO


def wanted(quiet: bool, writes_file: bool, stdout: TextIO | None = None, stderr: TextIO | None = None) -> bool:
    """Whether a progress bar should be shown (see the module docstring)."""
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr

    def tty(stream: TextIO) -> bool:
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError):  # closed or replaced streams
            return False

    return not quiet and tty(stderr) and (writes_file or tty(stdout))


class Steps:
    """Stages of work with a bar each (``stage(...)`` returns the function to call once per step done), or a
    no-op when disabled. Use as a context manager."""

    def __init__(self, enabled: bool, stderr: TextIO | None = None) -> None:
        self._progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(file=sys.stderr if stderr is None else stderr, force_terminal=True)
            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=console, transient=True,
            )

    @property
    def enabled(self) -> bool:
        return self._progress is not None

    def __enter__(self) -> "Steps":
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def stage(self, description: str, total: int) -> Callable[[], None]:
        """Add a bar of ``total`` steps; returns the callback that advances it by one."""
        if self._progress is None:
            return lambda: None
        task = self._progress.add_task(description, total=max(total, 1))
        progress = self._progress
        return lambda: progress.advance(task)

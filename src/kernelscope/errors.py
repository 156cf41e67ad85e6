"""Errors kernelscope raises. The CLI turns :class:`KernelscopeError` into a one-line message and exit 2."""

from __future__ import annotations

import re

#: Longest run of non-space characters an error message shows whole (a value quoted from a damaged file can be
#: megabytes long: it is shortened to its start and end, with its length).
MAX_TOKEN_CHARS = 120
_LONG = re.compile(r"\S{%d,}" % (MAX_TOKEN_CHARS + 1))


def one_line(text: str) -> str:
    """``text`` as one bounded line: line breaks become spaces, and each run of non-space characters longer than
    :data:`MAX_TOKEN_CHARS` keeps its first 60 and last 20 characters around "...[N characters]..."."""
    text = " ".join(text.splitlines())
    return _LONG.sub(lambda m: f"{m[0][:60]}...[{len(m[0])} characters]...{m[0][-20:]}", text)


class KernelscopeError(Exception):
    """Base class of every error kernelscope raises on purpose (bad input, unknown GPU...)."""


class InputError(KernelscopeError, ValueError):
    """Bad input: names the file (or argument), the field and what was expected, on one line.

    Args:
        source: file path or argument name the problem is in (e.g. ``"report.ncu-rep"``, ``"kernel_metrics"``).
        problem: what is wrong, including the field and what was expected.
    """

    def __init__(self, source: str, problem: str) -> None:
        self.source = source
        self.problem = one_line(problem)
        super().__init__(f"{source}: {self.problem}")


class UnknownGpuError(KernelscopeError, LookupError):
    """A GPU name that the catalogue does not know.

    Args:
        name: the name that was looked up.
        closest: closest catalogue names, best first.
        source: the file that named the GPU, if any (it starts the message).
    """

    def __init__(self, name: str, closest: list[str], source: str | None = None) -> None:
        self.name = name
        self.closest = list(closest)
        self.source = source
        hint = f" Closest: {', '.join(self.closest)}." if self.closest else ""
        where = f"{source}: " if source else ""
        super().__init__(
            f"{where}GPU '{name}' is not in kernelscope's catalogue.{hint} "
            "Pick a catalogue GPU with --gpu NAME ('kernelscope gpus' lists them), or give its peaks with "
            "--spec FILE (TOML/JSON with peak_flops_per_s and dram_bandwidth_bytes_per_s)."
        )

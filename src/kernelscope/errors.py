"""Errors kernelscope raises. The CLI turns :class:`KernelscopeError` into a one-line message and exit 2."""

from __future__ import annotations


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
        self.problem = problem
        super().__init__(f"{source}: {problem}")


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

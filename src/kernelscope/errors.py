"""Errors kernelscope raises. The CLI turns :class:`KernelscopeError` into a one-line message and exit 2.

Every error's message is English (what the library raises and logs). An error may also carry a message ``key`` and
its ``values`` (like :class:`kernelscope.notes.Note`): the CLI then words it in the user's language from the
templates of ``data/messages.toml`` ``[error]``; an error without a key is shown in English in every language."""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Callable, Mapping

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
    """Base class of every error kernelscope raises on purpose (bad input, unknown GPU...).

    Attributes:
        key: the message's template in ``data/messages.toml`` ``[error]`` (its ``en`` filled with ``values`` is the
            English message), or None: the message has no translation.
        values: what fills the template.
    """

    key: str | None = None
    values: Mapping[str, Any] = MappingProxyType({})


class InputError(KernelscopeError, ValueError):
    """Bad input: names the file (or argument), the field and what was expected, on one line.

    Args:
        source: file path or argument name the problem is in (e.g. ``"report.ncu-rep"``, ``"kernel_metrics"``).
        problem: what is wrong, including the field and what was expected.
    """

    def __init__(self, source: str, problem: str, *, key: str | None = None,
                 values: Mapping[str, Any] | None = None) -> None:
        self.source = source
        self.problem = one_line(problem)
        self.key = key
        self.values = MappingProxyType(dict(values or {}))
        super().__init__(f"{source}: {self.problem}")

    def relabelled(self, source: str, text: Callable[[str], str] = str) -> "InputError":
        """The same error naming ``source`` instead, ``text`` applied to its problem and to its text values (e.g. a
        temporary file's name replaced by the input's), with its message key kept."""
        values = {k: text(v) if isinstance(v, str) else v for k, v in self.values.items()}
        return InputError(source, text(self.problem), key=self.key, values=values)


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
        self.key = "unknown_gpu_closest" if self.closest else "unknown_gpu"
        self.values = MappingProxyType({"name": name, "closest": ", ".join(self.closest)})
        super().__init__(
            f"{where}GPU '{name}' is not in kernelscope's catalogue.{hint} "
            "Pick a catalogue GPU with --gpu NAME ('kernelscope gpus' lists them), or give its peaks with "
            "--spec FILE (TOML/JSON with peak_flops_per_s and dram_bandwidth_bytes_per_s)."
        )

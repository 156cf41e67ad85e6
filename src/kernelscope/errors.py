"""Errors kernelscope raises. The CLI turns :class:`KernelscopeError` into a one-line message and exit 2.

Every error's message is English (what the library raises and logs). An error carries a message ``key`` and its
``values`` (like :class:`kernelscope.notes.Note`): its English message is the ``en`` template of ``data/messages.toml``
``[error]`` filled with them (:func:`english`), and the CLI words it in the user's language from the same entry. An
error without a key (kernelscope's own data files damaged: a packaging bug) is shown in English in every language."""

from __future__ import annotations

import argparse
import os
import re
from functools import cache
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

#: Longest run of non-space characters an error message shows whole (a value quoted from a damaged file can be
#: megabytes long: it is shortened to its start and end, with its length).
MAX_TOKEN_CHARS = 120
_LONG = re.compile(r"[^\s、]{%d,}" % (MAX_TOKEN_CHARS + 1))  # a Chinese list parts its items with 、


def one_line(text: str, keep: Iterable[str | None] = ()) -> str:
    """``text`` as one bounded line: line breaks become spaces, and each run of non-space characters longer than
    :data:`MAX_TOKEN_CHARS` keeps its first 60 and last 20 characters around "...[N characters]...", except a run
    that is part of one of ``keep`` (a file path the message names: it is printed whole, never cut in the
    middle). Any run that names an existing file or directory is kept whole as well."""
    text = " ".join(text.splitlines())
    kept = [k for k in keep if k]

    def short(m: re.Match) -> str:
        token = m[0]
        bare = token.strip("'\"`:,;()[]{}<>")
        if any(bare in k for k in kept) or _is_path(bare):
            return token
        return f"{token[:60]}...[{len(token)} characters]...{token[-20:]}"

    return _LONG.sub(short, text)


def _is_path(token: str) -> bool:
    """Whether ``token`` names an existing file or directory (a path too long for the OS is not one)."""
    if len(token) > 4096 or "\0" in token:
        return False
    try:
        return os.path.exists(token)
    except (OSError, ValueError):
        return False


@cache
def _templates() -> Mapping[str, str]:
    import tomllib  # (imported here, as knowledge.load does: a run that reports no error reads no message)
    from importlib import resources

    with resources.files("kernelscope.data").joinpath("messages.toml").open("rb") as fh:
        return {k: v["en"] for k, v in tomllib.load(fh)["error"].items()}


def english(key: str, values: Mapping[str, Any]) -> str:
    """The English message of ``[error]`` entry ``key`` of ``data/messages.toml`` filled with ``values`` (read here
    with tomllib: this module sits below :mod:`kernelscope.knowledge`).

    Raises:
        KeyError: no such entry, or a placeholder without a value (a programming error, caught by the tests).
    """
    return _templates()[key].format(**values)


class KernelscopeError(Exception):
    """Base class of every error kernelscope raises on purpose (bad input, unknown GPU...).

    Attributes:
        key: the message's template in ``data/messages.toml`` ``[error]`` (its ``en`` filled with ``values`` is the
            English message), or None: the message has no translation.
        values: what fills the template.
    """

    key: str | None = None
    values: Mapping[str, Any] = MappingProxyType({})


class ArgumentValueError(KernelscopeError, argparse.ArgumentTypeError):
    """A command-line value an argparse ``type=`` converter rejects, with its message ``key`` and ``values`` (its
    English text the ``en`` template, :func:`english`): the parser words it in the user's language
    (:meth:`kernelscope.cli._Parser._get_value`). Every converter raises this, never a bare
    :class:`argparse.ArgumentTypeError` with English text."""

    def __init__(self, key: str, values: Mapping[str, Any] | None = None) -> None:
        self.key = key
        self.values = MappingProxyType(dict(values or {}))
        super().__init__(english(key, self.values))


class InputError(KernelscopeError, ValueError):
    """Bad input: names the file (or argument), the field and what was expected, on one line.

    Args:
        source: file path or argument name the problem is in (e.g. ``"report.ncu-rep"``, ``"kernel_metrics"``).
        problem: what is wrong, including the field and what was expected; None: the ``en`` template of ``key``
            filled with ``values`` (:func:`english`), the usual way to raise one.
        key, values: the message's ``[error]`` entry and what fills it.
    """

    def __init__(self, source: str, problem: str | None = None, *, key: str | None = None,
                 values: Mapping[str, Any] | None = None) -> None:
        if problem is None:
            if key is None:
                raise TypeError("InputError needs a problem text or a message key")
            problem = english(key, values or {})
        self.source = source
        self.problem = one_line(problem, [source])
        self.key = key
        self.values = MappingProxyType(dict(values or {}))
        super().__init__(f"{source}: {self.problem}")

    def parts(self) -> tuple[str, str, str | None, dict[str, Any]]:
        """(source, problem, key, values) as plain data that pickles (a worker process sends them back: values
        that are not numbers or text become their text); :meth:`restored` makes the error again."""
        plain = (str, int, float, bool, type(None))
        return (self.source, self.problem, self.key,
                {k: v if isinstance(v, plain) else str(v) for k, v in self.values.items()})

    @classmethod
    def restored(cls, parts: tuple) -> "InputError":
        """The error of :meth:`parts` (a plain (source, problem) pair is taken too)."""
        source, problem, key, values = (*parts, None, None)[:4]
        return cls(source, problem, key=key, values=values)

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
            "Pick a catalogue GPU with --gpu NAME (`kernelscope gpus` lists them), or give its peaks with "
            "--spec FILE (TOML/JSON with peak_flops_per_s and dram_bandwidth_bytes_per_s)."
        )

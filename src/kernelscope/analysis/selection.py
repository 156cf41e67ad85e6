"""Selecting kernels by name: the one helper every command uses (``--kernel``, ``--top``, ``compare --pair``,
``--before-kernel`` / ``--after-kernel``).

A kernel is named as Nsight Compute's ``-k`` takes it (:func:`match`): a plain value is a NAME that must equal the
function name or the demangled name (whole, or without its parameter list, with or without its template
arguments); ``regex:PATTERN`` selects by regular expression. A NAME that equals none falls back to the kernels it is
part of, when they are all one kernel name; several are ambiguous (an error listing them)."""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence, TypeVar

from ..errors import InputError
from ..model import KernelProfile
from ..knowledge.names import strip_trailing, without_return_type

T = TypeVar("T")

#: The prefix of a ``--kernel`` value that is a regular expression (Nsight Compute's ``-k regex:PATTERN``).
REGEX_PREFIX = "regex:"


def select(items: Iterable[T], pattern: str, names: Callable[[T], Iterable[str]], source: str) -> list[T]:
    """The items one of whose ``names`` (e.g. the function name and the demangled signature) ``pattern``
    matches (``re.search``), in the given order.

    Raises:
        InputError: an invalid regular expression (the message starts with ``source``, e.g. ``"--kernel"``).
    """
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise InputError(source, key="bad_regex", values={"pattern": pattern, "exc": exc}) from None
    return [item for item in items if any(rx.search(n) for n in names(item))]


def kernel_names(kernel: KernelProfile) -> tuple[str, str]:
    """The names a kernel is selected by: its function name and its demangled signature."""
    return kernel.name, kernel.demangled_name


def exact_names(kernel: KernelProfile) -> tuple[str, ...]:
    """The names a plain ``--kernel NAME`` must equal to select ``kernel`` (each once): its function name, its
    demangled signature, that signature without its return type and parameter list (``void foo<int>(float *)``
    -> ``foo<int>``) and without its template arguments too (``foo``), and its mangled symbol."""
    qualified = without_return_type(strip_trailing(kernel.demangled_name.strip()))
    forms = [kernel.name, kernel.demangled_name, qualified, strip_trailing(qualified, "<", ">"),
             kernel.mangled_name or ""]
    return tuple(n for n in dict.fromkeys(forms) if n)


def match(items: Iterable[T], spec: str, kernel_of: Callable[[T], KernelProfile], source: str,
          option: str = "--kernel", one: bool = False) -> list[T]:
    """The items whose kernel ``spec`` names, as Nsight Compute's ``-k`` takes it, in the given order:

    * ``regex:PATTERN``: every item one of whose :func:`kernel_names` ``PATTERN`` matches (``re.search``);
    * a NAME: every item one of whose :func:`exact_names` equals it; when none does, every item NAME is part of
      (a substring of its function or demangled name), provided they are all one kernel (function) name.

    Args:
        items: kernels, or things that hold one (diagnoses, launch sets).
        spec: the NAME or ``regex:PATTERN``.
        kernel_of: the kernel of an item.
        source: what an error message starts with (the report, or the option).
        option: the option named in an error message, e.g. ``"--kernel"`` or ``"--pair (before)"``.
        one: whether the option wants one kernel name (``compare --pair``): an ambiguous NAME's message then
            suggests the exact name only, not ``regex:`` to select them all.

    Returns:
        The selected items; empty when nothing matches (the caller words that, e.g.
        :func:`kernelscope.api.no_kernel_matches`).

    Raises:
        InputError: an invalid regular expression, an empty NAME, or a NAME that matches no kernel exactly and is
            part of several kernel names (the message lists a few and suggests the exact name or ``regex:``).
    """
    items = list(items)
    if spec.startswith(REGEX_PREFIX):
        return select(items, spec[len(REGEX_PREFIX):], lambda i: kernel_names(kernel_of(i)), option)
    if not spec:
        raise InputError(source, key="kernel_spec_expected", values={"option": option, "regex_prefix": REGEX_PREFIX})
    exact = [i for i in items if spec in exact_names(kernel_of(i))]
    if exact:
        return exact
    near = [i for i in items if any(spec in n for n in kernel_names(kernel_of(i)))]
    candidates = list(dict.fromkeys(kernel_of(i).name for i in near))
    if len(candidates) > 1:
        hint = "" if one else f", or {option.split()[0]} {REGEX_PREFIX + re.escape(spec)!r} to select them all"
        raise InputError(source, key="kernel_spec_ambiguous", values={"option": option, "spec": spec,
                                                                      "n_candidates": len(candidates),
                                                                      "candidates": listed(candidates), "hint": hint})
    return near


def match_kernels(kernels: Iterable[KernelProfile], spec: str, source: str = "--kernel",
                  option: str = "--kernel") -> list[KernelProfile]:
    """The kernels ``spec`` (a NAME or ``regex:PATTERN``) names, in the given order: :func:`match`."""
    return match(kernels, spec, lambda k: k, source, option)


def listed(names: Iterable[str], shown: int = 5, width: int = 40) -> str:
    """A few ``names`` for a one-line message: each once (first-appearance order), control characters replaced,
    each cut to ``width`` characters around an ellipsis, the first ``shown`` and then the count; ``"none"``."""
    unique = list(dict.fromkeys(names))
    text = ", ".join(_shortened(n, width) for n in unique[:shown])
    if len(unique) > shown:
        text += f", ... ({len(unique)} names)"
    return text or "none"


_CONTROL = dict.fromkeys(range(32), "?") | {127: "?"}


def _shortened(name: str, width: int) -> str:
    """``name`` on one line, at most ``width`` characters: its start and end around an ellipsis."""
    text = name.translate(_CONTROL)
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def select_kernels(
    kernels: Sequence[KernelProfile], kernel_regex: str | None = None, top: int | None = None,
    kernel: str | None = None, source: str = "--kernel",
) -> tuple[KernelProfile, ...]:
    """Launches whose name or demangled name matches ``kernel_regex`` (``re.search``) and that ``kernel`` names
    (a NAME or ``regex:PATTERN``, :func:`match`), then the ``top`` longest of those (launches without a duration
    last), returned in report order. ``source``: what an error about ``kernel`` starts with (the report).

    Raises:
        InputError: an invalid regular expression, an ambiguous ``kernel`` name or a non-positive ``top``.
    """
    chosen: Sequence[KernelProfile] = kernels
    if kernel_regex is not None:
        chosen = select(chosen, kernel_regex, kernel_names, "--kernel")
    if kernel is not None:
        chosen = match_kernels(chosen, kernel, source)
    if top is not None:
        if top < 1:
            raise InputError("--top", key="top_kernels_positive", values={"top": top})
        longest = sorted(chosen, key=lambda k: -(k.duration_s if k.duration_s is not None else -1.0))[:top]
        keep = {k.index for k in longest}
        chosen = [k for k in chosen if k.index in keep]
    return tuple(chosen)


def longest_launch(items: Sequence[T], kernel_of: Callable[[T], KernelProfile]) -> T:
    """The item whose launch ran longest (``kernel_of(item).duration_s``; a launch without a duration counts as
    shortest, ties go to the lower index): the launch a one-launch view shows by default, never a warm-up that
    happens to come first.

    Raises:
        ValueError: no item.
    """
    if not items:
        raise ValueError("no launch to choose from")
    return max(items, key=lambda x: (kernel_of(x).duration_s if kernel_of(x).duration_s is not None else -1.0,
                                     -kernel_of(x).index))

"""Selecting kernels by name: the one helper every command uses (``--kernel``, ``--top``, ``compare --pair``,
``--before-kernel`` / ``--after-kernel``)."""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence, TypeVar

from ..errors import InputError
from ..model import KernelProfile

T = TypeVar("T")


def select(items: Iterable[T], pattern: str, names: Callable[[T], Iterable[str]], source: str) -> list[T]:
    """The items one of whose ``names`` (e.g. the function name and the demangled signature) ``pattern``
    matches (``re.search``), in the given order.

    Raises:
        InputError: an invalid regular expression (the message starts with ``source``, e.g. ``"--kernel"``).
    """
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise InputError(source, f"invalid regular expression {pattern!r}: {exc}") from None
    return [item for item in items if any(rx.search(n) for n in names(item))]


def kernel_names(kernel: KernelProfile) -> tuple[str, str]:
    """The names a kernel is selected by: its function name and its demangled signature."""
    return kernel.name, kernel.demangled_name


def select_kernels(
    kernels: Sequence[KernelProfile], kernel_regex: str | None = None, top: int | None = None
) -> tuple[KernelProfile, ...]:
    """Launches whose name or demangled name matches ``kernel_regex``, then the ``top`` longest of those
    (launches without a duration last), returned in report order.

    Raises:
        InputError: an invalid regular expression or a non-positive ``top``.
    """
    chosen: Sequence[KernelProfile] = kernels
    if kernel_regex is not None:
        chosen = select(chosen, kernel_regex, kernel_names, "kernel_regex (--kernel)")
    if top is not None:
        if top < 1:
            raise InputError("top (--top)", f"expected a positive number of kernels, got {top}")
        longest = sorted(chosen, key=lambda k: -(k.duration_s if k.duration_s is not None else -1.0))[:top]
        keep = {k.index for k in longest}
        chosen = [k for k in chosen if k.index in keep]
    return tuple(chosen)

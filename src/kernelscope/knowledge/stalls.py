"""The warp-stall taxonomy (``data/stalls.toml``): canonical reasons, their names in English and Chinese, what
happens in the hardware, the advice, and every spelling profilers use for them.

Sources: NVIDIA Nsight Compute Kernel Profiling Guide, "Warp Stall Reasons" tables
(https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html); each reason cites its own.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Annotated, Literal, Mapping

import msgspec
from msgspec import Meta

from ..errors import InputError
from ..notes import Listed
from . import Model, NonEmpty, check_lang, load
from .remedies import remedy

#: Reason id of the "issuing, not stalling" state, shown apart from the stalls.
SELECTED = "selected"


class _Source(Model, kw_only=True):
    document: NonEmpty
    url: Annotated[str, Meta(pattern=r"^https://")]


class StallReason(Model, kw_only=True):
    """One canonical warp-stall reason (a ``[[reason]]`` of ``data/stalls.toml``).

    Attributes:
        id: canonical id, e.g. ``"long_scoreboard"`` (the ``<r>`` of the per_issue_active metric).
        display_name / display_name_zh: label as Nsight Compute shows it / in Chinese.
        aliases: other spellings (other metric families, Source-page columns without ``stall_``).
        category: ``memory``, ``sync``, ``execution``, ``instruction``, ``issue`` or ``other``.
        healthy: True when a large value usually means useful work (``selected``, ``not_selected``,
            ``math_pipe_throttle``); ``healthy_why_en/zh`` say why.
        hardware_en / hardware_zh: what happens in the hardware.
        advice_en / advice_zh: what to change in the kernel; empty where ``remedies`` gives it.
        remedies: the remedies (``data/remedies.toml``) the reason's paragraph is made of where a clause depends on
            what the launch measured (every one whose preconditions hold, in order); empty where the advice is one text.
        source: where the meaning comes from (``source_document`` / ``source_url``).
    """

    id: Annotated[str, Meta(pattern=r"^[a-z0-9_]+$")]
    display_name: str
    display_name_zh: str
    aliases: tuple[str, ...] = ()
    category: Literal["memory", "sync", "execution", "instruction", "issue", "other"]
    healthy: bool
    hardware_en: str
    hardware_zh: str
    advice_en: str = ""
    advice_zh: str = ""
    remedies: tuple[str, ...] = ()
    source: _Source
    healthy_why_en: str = ""
    healthy_why_zh: str = ""

    def __post_init__(self) -> None:
        if bool(self.remedies) == bool(self.advice_en or self.advice_zh) or bool(self.advice_en) != bool(self.advice_zh):
            raise ValueError(f"reason {self.id!r}: either advice_en and advice_zh, or remedies")

    @property
    def source_document(self) -> str:
        """The document the meaning comes from."""
        return self.source.document

    @property
    def source_url(self) -> str:
        """Its address."""
        return self.source.url

    def text(self, field: str, lang: str) -> str:
        """``field`` (``"display_name"``, ``"hardware"``, ``"advice"``, ``"healthy_why"``) in ``"en"``/``"zh"``; the
        advice of a reason made of remedies is all of them (a launch's paragraph: those that hold for it).

        Raises:
            ValueError: for another language or field.
        """
        if lang not in ("en", "zh") or field not in ("display_name", "hardware", "advice", "healthy_why"):
            raise ValueError(f"unknown stall text {field!r} / language {lang!r}")
        if field == "display_name":
            return self.display_name if lang == "en" else self.display_name_zh
        if field == "advice" and self.remedies:  # (every remedy of the paragraph, whatever a launch rules out)
            return ("" if check_lang(lang) == "zh" else " ").join(remedy(r).text(lang) for r in self.remedies)
        return getattr(self, f"{field}_{check_lang(lang)}")


class _StallsFile(Model, kw_only=True):
    reason: tuple[StallReason, ...]


@lru_cache(maxsize=4096)
def norm(name: str) -> str:
    """Lower case, spaces/hyphens -> ``_``, without a leading ``stall``/``stall_`` or trailing ``(Not Issued)``."""
    key = re.sub(r"\s*\(not issued\)\s*$", "", name.strip().lower())
    key = re.sub(r"[\s\-]+", "_", key)
    return re.sub(r"^stall_", "", key)


@cache
def reasons() -> Mapping[str, StallReason]:
    """Every canonical stall reason by id, in the order of ``data/stalls.toml`` (read once).

    Raises:
        InputError: the packaged data file is malformed or names one id twice (a packaging bug).
    """
    table: dict[str, StallReason] = {}
    for reason in load("stalls.toml", _StallsFile).reason:
        if reason.id in table:
            raise InputError("kernelscope/data/stalls.toml", f"duplicate reason id {reason.id!r}")
        table[reason.id] = reason
    return MappingProxyType(table)


@cache
def lookup() -> Mapping[str, str]:
    """Normalised spelling (:func:`norm`) -> canonical id, for ids, display names in both languages and aliases."""
    table: dict[str, str] = {}
    for reason in reasons().values():
        for spelling in (reason.id, reason.display_name, reason.display_name_zh, *reason.aliases):
            key = norm(spelling)
            if table.setdefault(key, reason.id) != reason.id:
                raise InputError("kernelscope/data/stalls.toml",
                                 f"spelling {spelling!r} names both {table[key]!r} and {reason.id!r}")
    return MappingProxyType(table)


_PLACEHOLDER = StallReason(
    id="unknown", display_name="unknown", display_name_zh="unknown", category="other", healthy=False,
    hardware_en="", hardware_zh="",
    advice_en="See the Warp Stall Reasons table of the Nsight Compute Kernel Profiling Guide for this reason.",
    advice_zh="请查阅 Nsight Compute Kernel Profiling Guide 中的 Warp Stall Reasons 表了解该原因。",
    source=_Source(document="NVIDIA Nsight Compute Kernel Profiling Guide, Warp Stall Reasons",
                   url="https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html"),
)


def describe(reason_id: str) -> StallReason:
    """The :class:`StallReason` for a breakdown key: ``reasons()[reason_id]``, or for a spelling that
    ``stalls.toml`` does not know (kept by the readers) a placeholder named after it, category ``"other"``,
    not healthy, saying it is not in the taxonomy. Never raises."""
    known = reasons().get(reason_id)
    if known is not None:
        return known
    return msgspec.structs.replace(
        _PLACEHOLDER, id=reason_id, display_name=reason_id, display_name_zh=reason_id,
        hardware_en=f"Stall reason '{reason_id}' is not in kernelscope's taxonomy (a newer Nsight Compute?).",
        hardware_zh=f"停顿原因“{reason_id}”不在 kernelscope 的分类表中（可能来自更新版本的 Nsight Compute）。",
    )


def canonical_reason(name: str) -> str:
    """Canonical id of a stall reason given by id, alias or display name.

    Accepts e.g. ``"long_scoreboard"``, ``"Long Scoreboard"``, ``"Stall Long Scoreboard"``, ``"stall_long_sb"``,
    ``"no_instructions"``, ``"warpgroup_arrive"``, ``"MIO Throttle (Not Issued)"``; case-insensitive.

    Raises:
        InputError: ``("stall reason", "unknown stall reason 'x'; expected one of ...")`` for anything else.
    """
    reason_id = lookup().get(norm(name))
    if reason_id is None:
        raise InputError("stall reason", key="unknown_stall_reason",
            values={"name": name, "value": Listed(reasons())})
    return reason_id

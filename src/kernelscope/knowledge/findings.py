"""What each root-cause finding means and the one action that fixes it (``data/findings.toml``): titles and action
templates in en / zh, the change of work its estimate is made from, and the Nsight Compute rules that report the same
cause."""

from __future__ import annotations

from functools import cache
from typing import Literal

from . import Model, NonEmpty, check_lang, load


class FindingText(Model, kw_only=True):
    """One ``[finding.<id>]`` table: title / action templates (en, zh; ``capped_*``: the action of a stall finding
    whose estimate another unit caps), the change of work its estimate is made from
    (:mod:`kernelscope.analysis.performance`; documentation, the rule is the code), the Nsight rules that report the
    same cause, the per-instruction metrics that locate it (first one present wins), and the level of its remedy:
    ``"code"`` (edit the kernel: not advised for a library kernel nor for a device-debug build), ``"address"`` (edit
    which addresses the kernel's threads touch, its indexing or data layout: ``nvcc -G`` changes the instructions, not
    the addresses, so advised for a debug build too, not for a library kernel) or ``"call"`` (how and how often it is
    launched, what it is fused with, what the report collects: advised for any kernel), the preconditions under which the finding is reported at all
    (``requires``: :func:`kernelscope.knowledge.remedies.holds`) and the candidates of its action's ``{remedy}``
    (``remedies``, first that holds), and its waste counter (``verify``: signed terms, each a metric name, ``-name``
    or a number, summed; what ``compare`` follows from BEFORE to AFTER to say whether the change resolved it:
    :func:`kernelscope.analysis.compare.resolutions`) with what it counts (``verify_unit``: the ``resolved_<unit>``
    label that prints the two values with their unit), and the work that waste is of (``verify_per``: signed terms
    like ``verify``, e.g. the ideal sectors of the same accesses; ``verify_per_unit``: the ``per_<unit>`` label), so
    that a waste that grew only with the work is not read as worse."""

    title_en: NonEmpty
    title_zh: NonEmpty
    name_en: str = ""
    name_zh: str = ""
    action_en: NonEmpty
    action_zh: NonEmpty
    capped_en: str = ""
    capped_zh: str = ""
    unmeasured_en: str = ""
    unmeasured_zh: str = ""
    change: NonEmpty
    nsight_rules: tuple[str, ...] = ()
    locate: tuple[str, ...] = ()
    level: Literal["code", "address", "call"] = "code"
    requires: tuple[str, ...] = ()
    remedies: tuple[str, ...] = ()
    verify: tuple[str, ...] = ()
    verify_unit: Literal["sectors", "wavefronts", "conflicts", "idle_threads"] | None = None
    verify_per: tuple[str, ...] = ()
    verify_per_unit: Literal["ideal_sector", "ideal_wavefront", "shared_instruction", "instruction"] | None = None

    def __post_init__(self) -> None:
        if self.verify and self.verify_unit is None:
            raise ValueError(f"field 'verify_unit': a waste counter needs its unit ({self.title_en!r})")
        if bool(self.capped_en) != bool(self.capped_zh):
            raise ValueError(f"fields 'capped_en' / 'capped_zh': both or neither ({self.title_en!r})")
        if bool(self.unmeasured_en) != bool(self.unmeasured_zh):
            raise ValueError(f"fields 'unmeasured_en' / 'unmeasured_zh': both or neither ({self.title_en!r})")
        if self.verify_per and (not self.verify or self.verify_per_unit is None):
            raise ValueError(f"field 'verify_per': the work of a waste counter needs the counter and its unit "
                             f"({self.title_en!r})")

    def title(self, lang: str) -> str:
        """The finding's title in ``lang`` (a template: it may hold fields of the finding's values)."""
        return self.title_zh if check_lang(lang) == "zh" else self.title_en

    def name(self, lang: str) -> str:
        """The finding's title in ``lang`` without the finding's values (``name_en`` / ``name_zh``, for a title
        with fields; else the title): what names it where only its id is known (compare's estimates, badges)."""
        text = self.name_zh if check_lang(lang) == "zh" else self.name_en
        return text or self.title(lang)

    def action(self, lang: str, capped: bool = False, unmeasured: bool = False) -> str:
        """The action template in ``lang``; with ``capped``, the capped one where the finding has it (``capped_en``
        / ``capped_zh``: a stall finding whose estimate of hiding the stall another unit caps says so and points at
        reducing that unit's work, :func:`kernelscope.analysis.causes.stall_cap`); with ``unmeasured`` (a
        ``measured_*`` value of the finding is None), the ``unmeasured_*`` one where it has it, which never prints
        "measured: not measured"."""
        if unmeasured and self.unmeasured_en:
            return self.unmeasured_zh if check_lang(lang) == "zh" else self.unmeasured_en
        if capped and self.capped_en:
            return self.capped_zh if check_lang(lang) == "zh" else self.capped_en
        return self.action_zh if check_lang(lang) == "zh" else self.action_en


class _FindingsFile(Model, kw_only=True):
    finding: dict[str, FindingText]


def findings() -> dict[str, FindingText]:
    """Every finding's texts by id."""
    return load("findings.toml", _FindingsFile).finding


@cache
def by_nsight_rule() -> dict[str, tuple[str, ...]]:
    """Nsight Compute rule id -> the kernelscope findings that report the same cause."""
    out: dict[str, list[str]] = {}
    for finding_id, text in findings().items():
        for rule in text.nsight_rules:
            out.setdefault(rule, []).append(finding_id)
    return {k: tuple(v) for k, v in out.items()}

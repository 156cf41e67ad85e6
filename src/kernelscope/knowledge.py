"""Knowledge kept as data: packaged TOML files under ``kernelscope/data``, each loaded once.

``verdicts.toml`` holds the bottleneck classes (meaning and advice in English and Chinese) and the
thresholds that decide them, each with its source; ``labels.toml`` the report labels in both languages.
GPU specs live in ``gpus.toml`` (see :mod:`kernelscope.hardware`) and stall reasons in ``stalls.toml``
(see :mod:`kernelscope.stalls`).
"""

from __future__ import annotations

import string
import tomllib
from functools import cache
from importlib import resources
from typing import Any, Mapping

LANGUAGES: tuple[str, ...] = ("en", "zh")


@cache
def load_data(filename: str) -> Mapping[str, Any]:
    """Parse one packaged data file (e.g. ``"verdicts.toml"``) once and return its tables.

    Raises:
        FileNotFoundError: if the package was installed without its data files.
        tomllib.TOMLDecodeError: if a data file is malformed (a packaging bug, not user input).
    """
    text = resources.files("kernelscope").joinpath("data", filename).read_text(encoding="utf-8")
    return tomllib.loads(text)


def verdicts() -> Mapping[str, Any]:
    """The parsed ``verdicts.toml``: ``sol``, ``roofline``, ``stalls`` thresholds and ``class`` texts."""
    return load_data("verdicts.toml")


def check_lang(lang: str) -> str:
    """Return ``lang`` if supported (``"en"`` or ``"zh"``).

    Raises:
        ValueError: for any other language code.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return lang


def class_text(bound: str, field: str, lang: str, variant: str | None = None) -> str:
    """Text of one bottleneck class: ``field`` is ``"title"``, ``"meaning"`` or ``"advice"``; ``variant``
    (e.g. ``"no_tensor"``) picks ``<field>_<variant>_<lang>`` when the class has it.

    Raises:
        KeyError: for an unknown class; ValueError: for an unsupported language.
    """
    entry = verdicts()["class"][bound]
    lang = check_lang(lang)
    if variant is not None and f"{field}_{variant}_{lang}" in entry:
        return entry[f"{field}_{variant}_{lang}"]
    return entry[f"{field}_{lang}"]


def has_class_variant(bound: str, variant: str) -> bool:
    """Whether bottleneck class ``bound`` has advice text for ``variant`` (e.g. ``"no_tensor"``)."""
    return f"advice_{variant}_en" in verdicts()["class"].get(bound, {})


def note_text(key: str, values: Mapping[str, Any], lang: str) -> str:
    """A finding worded in ``lang`` from the ``[note]`` templates of ``labels.toml``.

    None values print as the language's "not measured". Raises KeyError for an unknown key.
    """
    template = load_data("labels.toml")["note"][key][check_lang(lang)]
    nm = label("not_measured", lang)
    return _NotMeasuredFormatter(nm).format(template, **values).replace(f"{nm}%", nm)


class _NotMeasuredFormatter(string.Formatter):
    """str.format that prints None as "not measured" whatever the field's format spec."""

    def __init__(self, not_measured: str) -> None:
        self.not_measured = not_measured

    def format_field(self, value: Any, format_spec: str) -> str:
        return self.not_measured if value is None else super().format_field(value, format_spec)


def label(key: str, lang: str) -> str:
    """A report label in the requested language, e.g. ``label("duration", "zh")``.

    Raises:
        KeyError: for an unknown label; ValueError: for an unsupported language.
    """
    return load_data("labels.toml")["label"][key][check_lang(lang)]

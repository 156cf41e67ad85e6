"""Knowledge kept as data: packaged TOML files under ``kernelscope/data``, each loaded once.

``verdicts.toml`` holds the bottleneck classes (meaning and advice in English and Chinese) and the
thresholds that decide them, each with its source; ``labels.toml`` the report labels in both languages.
GPU specs live in ``gpus.toml`` (see :mod:`kernelscope.hardware`) and stall reasons in ``stalls.toml``
(see :mod:`kernelscope.stalls`).
"""

from __future__ import annotations

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


def class_text(bound: str, field: str, lang: str) -> str:
    """Text of one bottleneck class: ``field`` is ``"title"``, ``"meaning"`` or ``"advice"``.

    Raises:
        KeyError: for an unknown class; ValueError: for an unsupported language.
    """
    return verdicts()["class"][bound][f"{field}_{check_lang(lang)}"]


def label(key: str, lang: str) -> str:
    """A report label in the requested language, e.g. ``label("duration", "zh")``.

    Raises:
        KeyError: for an unknown label; ValueError: for an unsupported language.
    """
    return load_data("labels.toml")["label"][key][check_lang(lang)]

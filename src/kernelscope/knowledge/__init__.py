"""Knowledge kept as data: the packaged TOML files under ``kernelscope/data``, each validated once by a
pydantic model and cached.

One loader, :func:`load` ``(filename, Model)``; the modules of this package hold the models and the lookups
built on them:

* :mod:`.text` -- report labels and finding templates in English and Chinese (``labels.toml``), the bottleneck
  classes' titles, meanings and advice (``verdicts.toml``);
* :mod:`.criteria` -- the thresholds of the kernel rules (``verdicts.toml`` ``[criteria]``), each with its
  source, overridable by a user's ``--criteria`` file;
* :mod:`.gpus` -- the GPU catalogue (``gpus.toml``): dense datasheet peaks with their citations;
* :mod:`.stalls` -- the warp-stall taxonomy (``stalls.toml``);
* :mod:`.occupancy` -- per-compute-capability SM resources (``occupancy.toml``);
* :mod:`.metrics` -- Nsight Compute metric vocabulary the readers resolve (``metrics.toml``: FLOP weights,
  tensor-pipe names, stall metric families, the metrics the analysis requests).

A data file that does not match its model is a packaging bug: :func:`load` raises
:class:`kernelscope.errors.InputError` naming the file and the field.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any, Mapping, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InputError

LANGUAGES: tuple[str, ...] = ("en", "zh")

M = TypeVar("M", bound=BaseModel)


class Model(BaseModel):
    """Base of every knowledge model: immutable, and unknown fields are an error (a typo in a data file
    must not pass silently)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@cache
def raw(filename: str) -> Mapping[str, Any]:
    """The parsed TOML of one packaged data file (``"verdicts.toml"``), read once.

    Raises:
        InputError: the file is missing from the installed package or is not valid TOML.
    """
    where = f"kernelscope/data/{filename}"
    try:
        text = resources.files("kernelscope").joinpath("data", filename).read_text(encoding="utf-8")
        return tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(where, f"cannot read packaged data ({' '.join(str(exc).split())})") from None


def load(filename: str, model: type[M]) -> M:
    """One packaged data file validated by ``model`` (a pydantic model), loaded and validated once.

    Args:
        filename: a file of ``kernelscope/data``, e.g. ``"stalls.toml"``.
        model: the pydantic model of the whole file.

    Raises:
        InputError: the file is missing, not TOML, or does not match ``model`` (names the field).
    """
    return _load(filename, model)


@cache
def _load(filename: str, model: type[M]) -> M:
    try:
        return model.model_validate(raw(filename))
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise InputError(f"kernelscope/data/{filename}", f"field '{field}': {err['msg']}") from None


def check_lang(lang: str) -> str:
    """Return ``lang`` if supported (``"en"`` or ``"zh"``).

    Raises:
        ValueError: for any other language code.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return lang

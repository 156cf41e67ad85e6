"""Knowledge kept as data: the packaged TOML files under ``kernelscope/data``, each validated once against a
typed model (a msgspec Struct with its constraints) and cached.

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
* :mod:`.glossary` -- the one Chinese term of each concept, its source and forbidden variants (``glossary.toml``).

A data file that does not match its model is a packaging bug: :func:`load` raises
:class:`kernelscope.errors.InputError` naming the file and the field.

Why msgspec and not pydantic: the data is validated on every start of every command, and importing pydantic alone
takes about 80 ms here (15 % of reading the whole 22-report corpus with ``ncu_report``); msgspec, already the
project's JSON layer, imports in a few ms and validates the same constraints. (A user's plain-numbers input file,
read only when given, is validated with pydantic: :mod:`kernelscope.ingest.plain`.)
"""

from __future__ import annotations

import os
import re
import zlib
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Mapping, TypeVar

import msgspec
from msgspec import Meta

from ..errors import InputError

LANGUAGES: tuple[str, ...] = ("en", "zh")

#: Constrained field types of the models.
Positive = Annotated[float, Meta(gt=0)]
NonNegative = Annotated[float, Meta(ge=0)]
PositiveInt = Annotated[int, Meta(gt=0)]
NonNegativeInt = Annotated[int, Meta(ge=0)]
NonEmpty = Annotated[str, Meta(min_length=1)]


class Model(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every knowledge model: immutable, keyword-built (each subclass says ``kw_only=True``: msgspec applies it
    per class), and unknown fields are an error (a typo in a data
    file must not pass silently). Cross-field checks live in ``__post_init__`` and raise ValueError naming the
    field: ``"field 'x.y': ..."``."""


M = TypeVar("M", bound=Model)

_AT = re.compile(r" - at `(?:key` in `)?\$(?P<path>[^`]*)`$")


def problem(exc: msgspec.ValidationError) -> str:
    """A msgspec validation error as ``"field 'a.b.0': <what was expected>"`` (the field path in dotted form);
    a message that already names its field (a model's own check) is returned as it is."""
    text = str(exc)
    if text.startswith("field '"):
        return text
    m = _AT.search(text)
    if m is None:
        unknown = re.match(r"Object contains unknown field `([^`]*)`", text)
        return f"field '{unknown.group(1)}': unknown field" if unknown else text
    path = re.sub(r"\[(\d+)\]", r".\1", m.group("path")).replace("[...]", "").lstrip(".")
    what = text[: m.start()]
    return f"field '{path}': {what}" if path else what


#: The packaged data files (installed as plain files beside the code; importlib.resources would add ~10 ms to every
#: start for zip-safety kernelscope does not need: ncu_report itself is a native extension).
DATA = Path(__file__).resolve().parent.parent / "data"


def cache_dir() -> Path:
    """Where parsed data files are cached between runs: ``$KERNELSCOPE_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/kernelscope``, else ``~/.cache/kernelscope``."""
    if os.environ.get("KERNELSCOPE_CACHE_DIR"):
        return Path(os.environ["KERNELSCOPE_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kernelscope"


@cache
def raw(filename: str) -> Mapping[str, Any]:
    """The parsed TOML of one packaged data file (``"verdicts.toml"``), read once per process.

    Parsing TOML in Python costs about 25 ms per start for the files a diagnosis needs; the parsed tables are kept
    in :func:`cache_dir` as MessagePack, keyed by the file's size and CRC-32 (an edited or upgraded file is parsed
    again). The cache is an optimisation only: an unreadable or unwritable cache is ignored.

    Raises:
        InputError: the file is missing from the installed package or is not valid TOML.
    """
    where = f"kernelscope/data/{filename}"
    try:
        data = (DATA / filename).read_bytes()
    except OSError as exc:
        raise InputError(where, f"cannot read packaged data ({' '.join(str(exc).split())})") from None
    cached = cache_dir() / f"{filename}.{len(data)}-{zlib.crc32(data):08x}.msgpack"
    try:
        return msgspec.msgpack.decode(cached.read_bytes())
    except (OSError, msgspec.DecodeError):
        pass
    import tomllib  # only when the cache misses (its import and parse cost ~30 ms)

    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(where, f"cannot read packaged data ({' '.join(str(exc).split())})") from None
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        tmp.write_bytes(msgspec.msgpack.encode(parsed))
        os.replace(tmp, cached)
        for old in cached.parent.glob(f"{filename}.*.msgpack"):  # earlier versions of the file
            if old != cached:
                old.unlink(missing_ok=True)
    except OSError:
        pass
    return parsed


def load(filename: str, model: type[M]) -> M:
    """One packaged data file validated by ``model``, loaded and validated once.

    Args:
        filename: a file of ``kernelscope/data``, e.g. ``"stalls.toml"``.
        model: the :class:`Model` of the whole file.

    Raises:
        InputError: the file is missing, not TOML, or does not match ``model`` (names the field).
    """
    return _load(filename, model)


@cache
def _load(filename: str, model: type[M]) -> M:
    return validate(raw(filename), model, f"kernelscope/data/{filename}")


def validate(data: Any, model: type[M], where: str) -> M:
    """``data`` (parsed TOML/JSON) checked against ``model``.

    Raises:
        InputError: one line starting with ``where`` that names the field and what was expected.
    """
    try:
        return msgspec.convert(data, model)
    except msgspec.ValidationError as exc:
        raise InputError(where, problem(exc)) from None


def check_lang(lang: str) -> str:
    """Return ``lang`` if supported (``"en"`` or ``"zh"``).

    Raises:
        ValueError: for any other language code.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return lang

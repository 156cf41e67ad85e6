"""GPU peak capabilities (roofline ceilings): the packaged catalogue, user spec files, lookups.

The catalogue (``kernelscope/data/gpus.toml``) holds datasheet/whitepaper numbers in human units
(GB/s, TFLOPS, MHz, MiB), each with its citation; this module turns them into
:class:`~kernelscope.model.GpuSpec` values in SI units (bytes/s, FLOP/s, Hz, bytes).
Every tensor peak is the DENSE figure; see the header of ``gpus.toml`` for units and conventions.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from .errors import InputError, UnknownGpuError
from .model import PIPES, GpuSpec

_CATALOGUE_FILE = "data/gpus.toml"
_CATALOGUE_WHERE = "kernelscope/data/gpus.toml"

# Optional scalar fields: file key -> (GpuSpec field, factor to SI, integer?).
_SCALARS: dict[str, tuple[str, float, bool]] = {
    "sm_count": ("sm_count", 1, True),
    "boost_clock_mhz": ("boost_clock_hz", 1e6, False),
    "boost_clock_hz": ("boost_clock_hz", 1, False),
    "l2_cache_mib": ("l2_cache_bytes", 2**20, True),
    "l2_cache_bytes": ("l2_cache_bytes", 1, True),
}
_BANDWIDTH = {"dram_bandwidth_bytes_per_s": 1.0, "dram_bandwidth_gb_s": 1e9}
_PEAKS = {"peak_flops_per_s": 1.0, "peak_tflops": 1e12}
_TEXT = ("name", "architecture", "source")
_KNOWN_FIELDS = set(_SCALARS) | set(_BANDWIDTH) | set(_PEAKS) | set(_TEXT) | {
    "aliases", "compute_capability", "measured", "sources",
}
# Keys of a [sources] table -> GpuSpec.sources key.
_SOURCE_KEYS = {k: v[0] for k, v in _SCALARS.items()} | dict.fromkeys(_BANDWIDTH, "dram_bandwidth_bytes_per_s") | {
    "compute_capability": "compute_capability",
}
_DROP_WORDS = {"nvidia", "geforce", "tesla", "gpu"}


# --------------------------------------------------------------------------------------- parsing


def _positive(value: Any, where: str, field: str, *, integer: bool = False) -> float:
    """Return ``value`` as a positive finite number, or raise InputError naming ``field``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    if not ok or (integer and float(value) != int(value)):
        kind = "a positive integer" if integer else "a positive number"
        raise InputError(where, f"field '{field}': expected {kind}, got {value!r}")
    return value


def _text(value: Any, where: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(where, f"field '{field}': expected a non-empty string, got {value!r}")
    return value.strip()


def _compute_capability(value: Any, where: str) -> tuple[int, int]:
    """Parse ``"8.0"`` or ``[8, 0]`` into ``(8, 0)``."""
    if isinstance(value, str) and re.fullmatch(r"\d+\.\d+", value.strip()):
        major, minor = value.strip().split(".")
        return int(major), int(minor)
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int and v >= 0 for v in value):
        return value[0], value[1]
    raise InputError(where, f"field 'compute_capability': expected \"major.minor\" like \"8.0\", got {value!r}")


def _one_of(data: Mapping, names: Mapping[str, float], where: str, required: bool) -> tuple[str, Any] | None:
    """The single key of ``names`` present in ``data`` (error if several, or none when required)."""
    present = [k for k in names if k in data]
    if len(present) > 1:
        raise InputError(where, f"field '{present[0]}': give only one of {', '.join(present)}")
    if not present:
        if required:
            first, second = names
            raise InputError(where, f"field '{first}': missing; expected a positive number (or '{second}')")
        return None
    return present[0], data[present[0]]


def _peaks(data: Mapping, where: str) -> tuple[str, dict[str, float]]:
    key, table = _one_of(data, _PEAKS, where, required=False) or ("peak_flops_per_s", None)
    if not isinstance(table, dict) or not table:
        raise InputError(
            where, f"field '{key}': expected a table of pipe -> peak with at least one of: {', '.join(PIPES)}"
        )
    peaks = {}
    for pipe, value in table.items():
        if pipe not in PIPES:
            raise InputError(where, f"field '{key}.{pipe}': unknown pipe; expected one of: {', '.join(PIPES)}")
        peaks[pipe] = _positive(value, where, f"{key}.{pipe}") * _PEAKS[key]
    return key, peaks


def _sources(data: Mapping, where: str, peak_key: str, pipes: Mapping[str, float]) -> dict[str, str]:
    """Per-field citation overrides from the ``sources`` table, keyed by GpuSpec field names."""
    raw = data.get("sources", {})
    if not isinstance(raw, dict):
        raise InputError(where, f"field 'sources': expected a table of field -> citation, got {raw!r}")
    out: dict[str, str] = {}
    for key, value in raw.items():
        if key in _PEAKS and isinstance(value, dict):
            for pipe, text in value.items():
                if pipe not in pipes:
                    raise InputError(where, f"field 'sources.{key}.{pipe}': no such peak in '{peak_key}'")
                out[f"peak_flops_per_s.{pipe}"] = _text(text, where, f"sources.{key}.{pipe}")
        elif key in _SOURCE_KEYS and key in data:
            out[_SOURCE_KEYS[key]] = _text(value, where, f"sources.{key}")
        else:
            raise InputError(where, f"field 'sources.{key}': not a numeric field of this entry")
    return out


def _build(data: Any, where: str, *, origin: str, default_name: str | None, default_source: str | None) -> GpuSpec:
    """Validate one entry (catalogue entry or spec file) and convert it to an SI GpuSpec."""
    if not isinstance(data, dict):
        raise InputError(where, f"expected a table of fields, got {type(data).__name__}")
    unknown = sorted(set(data) - _KNOWN_FIELDS)
    if unknown:
        raise InputError(where, f"field '{unknown[0]}': unknown; expected some of: {', '.join(sorted(_KNOWN_FIELDS))}")

    name = _text(data["name"], where, "name") if "name" in data else default_name
    if name is None:
        raise InputError(where, "field 'name': missing; expected the GPU's name")
    where = f"{where}: gpu '{name}'" if default_name is None else where

    bw_key, bw = _one_of(data, _BANDWIDTH, where, required=True)
    bandwidth = _positive(bw, where, bw_key) * _BANDWIDTH[bw_key]
    peak_key, peaks = _peaks(data, where)

    fields: dict[str, Any] = {}
    for key, (attr, factor, integer) in _SCALARS.items():
        if key in data:
            if attr in fields:
                raise InputError(where, f"field '{key}': given twice (in two units)")
            value = _positive(data[key], where, key, integer=key == "sm_count") * factor
            fields[attr] = int(round(value)) if integer else float(value)
    if "compute_capability" in data:
        fields["compute_capability"] = _compute_capability(data["compute_capability"], where)

    aliases = data.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
        raise InputError(where, "field 'aliases': expected a list of names")
    measured = data.get("measured", False)
    if not isinstance(measured, bool):
        raise InputError(where, f"field 'measured': expected true or false, got {measured!r}")

    source = _text(data["source"], where, "source") if "source" in data else default_source
    if source is None:
        raise InputError(where, "field 'source': missing; every number needs a citation")
    numeric = ["dram_bandwidth_bytes_per_s", *(f"peak_flops_per_s.{p}" for p in peaks), *fields]
    sources = dict.fromkeys(numeric, source) | _sources(data, where, peak_key, peaks)

    return GpuSpec(
        name=name,
        dram_bandwidth_bytes_per_s=float(bandwidth),
        peak_flops_per_s={p: float(v) for p, v in peaks.items()},
        aliases=tuple(a.strip() for a in aliases),
        architecture=_text(data["architecture"], where, "architecture") if "architecture" in data else None,
        sources=sources,
        origin=origin,
        measured=measured,
        **fields,
    )


# ------------------------------------------------------------------------------------- catalogue


@functools.cache
def catalogue() -> tuple[GpuSpec, ...]:
    """Every GPU of the packaged catalogue, in file order (loaded and validated once).

    Returns:
        ``GpuSpec`` values in SI units (bytes/s, FLOP/s, Hz, bytes) with ``origin="catalogue"``;
        ``sources`` maps every numeric field (``"dram_bandwidth_bytes_per_s"``,
        ``"peak_flops_per_s.<pipe>"``, ``"sm_count"``, ...) to its datasheet/whitepaper citation.

    Raises:
        InputError: the data file is malformed (names the entry and the field), or two entries
            share a name/alias.
    """
    text = resources.files("kernelscope").joinpath(_CATALOGUE_FILE).read_text(encoding="utf-8")
    try:
        entries = tomllib.loads(text).get("gpu", [])
    except tomllib.TOMLDecodeError as exc:
        raise InputError(_CATALOGUE_WHERE, f"not valid TOML: {exc}") from None
    specs = tuple(
        _build(e, _CATALOGUE_WHERE, origin="catalogue", default_name=None, default_source=None) for e in entries
    )
    owner: dict[str, str] = {}
    for spec in specs:
        for key in {_normalise(n) for n in (spec.name, *spec.aliases)}:
            if owner.setdefault(key, spec.name) != spec.name:
                raise InputError(_CATALOGUE_WHERE, f"gpu '{spec.name}': field 'aliases': '{key}' also names '{owner[key]}'")
    return specs


def _normalise(name: str) -> str:
    """Lookup key: lower case, without NVIDIA/GeForce/Tesla/GPU and without spaces, dashes, underscores."""
    words = re.split(r"[\s\-_]+", name.strip().lower())
    return "".join(w for w in words if w not in _DROP_WORDS)


@functools.cache
def _index() -> dict[str, GpuSpec]:
    return {_normalise(n): spec for spec in catalogue() for n in (spec.name, *spec.aliases)}


def find_gpu(name: str) -> GpuSpec:
    """Look up a GPU of the catalogue by name or alias.

    Matching ignores case, the words "NVIDIA", "GeForce", "Tesla" and "GPU", and spaces, dashes and
    underscores, so ``"NVIDIA A100-SXM4-80GB"``, ``"a100 sxm4 80gb"`` and ``"A100_SXM4_80GB"`` are
    equal. Only exact (normalised) matches count: a near name is never mapped to a different GPU.

    Args:
        name: a name as reported by Nsight Compute (``device__attribute_display_name``) or nvidia-smi,
            or a catalogue name/alias.

    Returns:
        The catalogue's ``GpuSpec`` (SI units, dense peaks, cited sources).

    Raises:
        UnknownGpuError: no entry has that name; ``closest`` lists up to 5 similar catalogue names.
    """
    key = _normalise(name)
    spec = _index().get(key)
    if spec is not None:
        return spec
    contains = [k for k in _index() if key and key in k]  # "a100" -> every A100 variant first
    matches = contains + difflib.get_close_matches(key, list(_index()), n=20, cutoff=0.6)
    closest = list(dict.fromkeys(_index()[m].name for m in matches))[:5]
    raise UnknownGpuError(name, closest)


# ------------------------------------------------------------------------------------ user specs


def load_spec(path: str | Path) -> GpuSpec:
    """Read a user GPU spec file (TOML or JSON, chosen by the file extension).

    Fields: ``name`` (optional, defaults to the file stem), ``dram_bandwidth_bytes_per_s`` (bytes/s)
    and ``peak_flops_per_s`` (table pipe -> FLOP/s, at least one pipe of :data:`~kernelscope.model.PIPES`)
    are required; optional ``compute_capability`` (``"8.0"``), ``sm_count``, ``measured`` (bool),
    ``source`` (citation text). The catalogue's human units are accepted too
    (``dram_bandwidth_gb_s``, ``[peak_tflops]``, ``boost_clock_mhz``, ``l2_cache_mib``, ``sources``),
    and so is a whole catalogue entry copied under ``[[gpu]]``/``[gpu]``.

    Args:
        path: the spec file (``.toml`` or ``.json``).

    Returns:
        A ``GpuSpec`` in SI units with ``origin = "spec file <path>"``; fields without their own
        citation are sourced to ``source`` or to the spec file.

    Raises:
        InputError: unreadable/unparseable file, missing field, non-positive number, unknown pipe
            or field; the message names the file and the field on one line.
    """
    where = str(path)
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise InputError(where, f"spec file: expected a .toml or .json file, got '{suffix or 'no extension'}'")
    try:
        text = file.read_bytes().decode("utf-8")
        data = tomllib.loads(text) if suffix == ".toml" else json.loads(text)
    except OSError as exc:
        raise InputError(where, f"cannot read spec file: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        kind = "TOML" if suffix == ".toml" else "JSON"
        raise InputError(where, f"cannot parse as {kind}: {' '.join(str(exc).split())}") from None
    if isinstance(data, dict) and set(data) == {"gpu"}:
        data = data["gpu"]
        if isinstance(data, list) and len(data) == 1:
            data = data[0]
    spec = _build(data, where, origin=f"spec file {where}", default_name=file.stem, default_source=f"spec file {where}")
    # Plausibility against a units mix-up (GB/s or TFLOP/s typed into the bytes/s or FLOP/s field):
    # every GPU since 2010 moves more than 1 GB/s and computes more than 1 GFLOP/s.
    if spec.dram_bandwidth_bytes_per_s < 1e9:
        raise InputError(where, f"field 'dram_bandwidth_bytes_per_s' = {spec.dram_bandwidth_bytes_per_s:g} is below 1 GB/s; "
                         "expected bytes/s (e.g. 2.039e12), or give dram_bandwidth_gb_s")
    for pipe, peak in spec.peak_flops_per_s.items():
        if peak < 1e9:
            raise InputError(where, f"field 'peak_flops_per_s.{pipe}' = {peak:g} is below 1 GFLOP/s; "
                             "expected FLOP/s (e.g. 19.5e12), or give [peak_tflops]")
    return spec


def spec_from_numbers(
    peak_flops_per_s: float, dram_bandwidth_bytes_per_s: float, pipe: str = "fp32", name: str = "custom"
) -> GpuSpec:
    """Build a spec from two plain numbers (e.g. command-line arguments or a measurement).

    Args:
        peak_flops_per_s: peak of ``pipe`` in FLOP/s (OP/s for ``int8_tensor``), > 0.
        dram_bandwidth_bytes_per_s: peak DRAM bandwidth in bytes/s, > 0.
        pipe: which pipe the peak is for, one of :data:`~kernelscope.model.PIPES`.
        name: the name to show.

    Returns:
        A ``GpuSpec`` with ``origin="arguments"``.

    Raises:
        InputError: a number is not positive and finite, or ``pipe`` is unknown.
    """
    if pipe not in PIPES:
        raise InputError("arguments", f"field 'pipe': unknown pipe '{pipe}'; expected one of: {', '.join(PIPES)}")
    data = {"dram_bandwidth_bytes_per_s": dram_bandwidth_bytes_per_s, "peak_flops_per_s": {pipe: peak_flops_per_s}}
    return _build(data, "arguments", origin="arguments", default_name=name, default_source="given as arguments")


def ridge_point(spec: GpuSpec, pipe: str) -> float:
    """The roofline ridge point: the arithmetic intensity where ``pipe`` stops being memory-bound.

    Args:
        spec: the GPU's ceilings.
        pipe: a key of ``spec.peak_flops_per_s`` (see :data:`~kernelscope.model.PIPES`).

    Returns:
        ``peak_flops_per_s[pipe] / dram_bandwidth_bytes_per_s`` in FLOP/byte.

    Raises:
        InputError: the spec has no peak for ``pipe`` (the message lists the pipes it has).
    """
    peak = spec.peak_flops_per_s.get(pipe)
    if peak is None:
        raise InputError(f"gpu spec {spec.name}", f"no peak for pipe '{pipe}'; has: {', '.join(spec.peak_flops_per_s)}")
    return peak / spec.dram_bandwidth_bytes_per_s

"""GPU peak capabilities (roofline ceilings): the packaged catalogue (``data/gpus.toml``) and its lookups.

The catalogue holds datasheet/whitepaper numbers in human units (GB/s, TFLOPS, MHz, MiB), each with its
citation; :class:`GpuEntry` validates one entry and :meth:`GpuEntry.to_spec` turns it into a
:class:`~kernelscope.model.GpuSpec` in SI units (bytes/s, FLOP/s, Hz, bytes). A user's spec file
(``--spec``) has the same fields (SI spellings accepted too) and is read by :mod:`kernelscope.ingest.spec`
through the same model. Every tensor peak is the DENSE figure; see the header of ``gpus.toml``.
"""

from __future__ import annotations

import difflib
import functools
import re
import math
from typing import Any, Mapping

import msgspec

from ..errors import InputError, UnknownGpuError
from ..model import PIPES, GpuSpec
from . import Model, Positive, PositiveInt, NonEmpty, problem, raw

_CATALOGUE_FILE = "gpus.toml"
_CATALOGUE_WHERE = "kernelscope/data/gpus.toml"
_DROP_WORDS = {"nvidia", "geforce", "tesla", "gpu"}


# Fields that have a human and an SI spelling: file key -> (GpuSpec field, factor to SI).
_UNITS: dict[str, tuple[str, float]] = {
    "dram_bandwidth_gb_s": ("dram_bandwidth_bytes_per_s", 1e9),
    "dram_bandwidth_bytes_per_s": ("dram_bandwidth_bytes_per_s", 1.0),
    "boost_clock_mhz": ("boost_clock_hz", 1e6),
    "boost_clock_hz": ("boost_clock_hz", 1.0),
    "l2_cache_mib": ("l2_cache_bytes", 2.0**20),
    "l2_cache_bytes": ("l2_cache_bytes", 1.0),
    "peak_tflops": ("peak_flops_per_s", 1e12),
    "peak_flops_per_s": ("peak_flops_per_s", 1.0),
    "sm_count": ("sm_count", 1.0),
    "compute_capability": ("compute_capability", 1.0),
}


class GpuEntry(Model, kw_only=True):
    """One GPU: a ``[[gpu]]`` entry of the catalogue, or a user's spec file.

    Bandwidth and peaks are required, in exactly one spelling each (``dram_bandwidth_gb_s`` or
    ``dram_bandwidth_bytes_per_s``; ``peak_tflops`` or ``peak_flops_per_s``, a table pipe -> peak with pipes
    of :data:`kernelscope.model.PIPES`); every number is positive and finite; ``compute_capability`` is
    ``"major.minor"`` or ``[major, minor]``; ``source`` cites every number, ``sources`` overrides it per field
    (``peak_tflops`` as a table per pipe).
    """

    name: NonEmpty | None = None
    aliases: tuple[str, ...] = ()
    architecture: NonEmpty | None = None
    compute_capability: str | tuple[int, int] | None = None
    sm_count: PositiveInt | None = None
    boost_clock_mhz: Positive | None = None
    boost_clock_hz: Positive | None = None
    l2_cache_mib: Positive | None = None
    l2_cache_bytes: PositiveInt | None = None
    dram_bandwidth_gb_s: Positive | None = None
    dram_bandwidth_bytes_per_s: Positive | None = None
    peak_tflops: dict[str, float] | None = None
    peak_flops_per_s: dict[str, float] | None = None
    measured: bool = False
    source: NonEmpty | None = None
    sources: dict[str, str | dict[str, str]] = {}

    def __post_init__(self) -> None:
        _check_cc(self.compute_capability)
        if not all(a.strip() for a in self.aliases):
            raise ValueError("field 'aliases': expected a list of names")
        for key in _UNITS:
            value = getattr(self, key)
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"field '{key}': expected a positive finite number, got {value!r}")
        for human, si in (("dram_bandwidth_gb_s", "dram_bandwidth_bytes_per_s"), ("peak_tflops", "peak_flops_per_s"),
                          ("boost_clock_mhz", "boost_clock_hz"), ("l2_cache_mib", "l2_cache_bytes")):
            if getattr(self, human) is not None and getattr(self, si) is not None:
                raise ValueError(f"field '{human}': give only one of {human}, {si}")
        if self.dram_bandwidth_gb_s is None and self.dram_bandwidth_bytes_per_s is None:
            raise ValueError("field 'dram_bandwidth_bytes_per_s': missing; expected a positive number (or 'dram_bandwidth_gb_s')")
        key = "peak_tflops" if self.peak_tflops is not None else "peak_flops_per_s"
        pipes = getattr(self, key) or {}
        if not pipes:
            raise ValueError(f"field '{key}': expected a table of pipe -> peak with at least one of: {', '.join(PIPES)}")
        for pipe, peak in pipes.items():
            if pipe not in PIPES:
                raise ValueError(f"field '{key}.{pipe}': unknown pipe; expected one of: {', '.join(PIPES)}")
            if not (math.isfinite(peak) and peak > 0):
                raise ValueError(f"field '{key}.{pipe}': expected a positive finite number, got {peak!r}")
        for name, value in self.sources.items():
            if name in ("peak_tflops", "peak_flops_per_s"):
                if not isinstance(value, dict) or any(p not in pipes for p in value):
                    raise ValueError(f"field 'sources.{name}': expected a table of pipe -> citation for the pipes given")
            elif name not in _UNITS or getattr(self, name, None) is None:
                raise ValueError(f"field 'sources.{name}': not a numeric field of this entry")

    def to_spec(self, *, origin: str, default_name: str | None = None, default_source: str | None = None,
                where: str = "") -> GpuSpec:
        """This entry as a :class:`GpuSpec` in SI units; every numeric field gets a citation (its own in
        ``sources``, else ``source``, else ``default_source``).

        Raises:
            InputError: no name and no ``default_name``, or no citation (``where`` starts the message).
        """
        name = self.name or default_name
        if name is None:
            raise InputError(where, "field 'name': missing; expected the GPU's name")
        cite = self.source or default_source
        if cite is None:
            raise InputError(f"{where}: gpu '{name}'", "field 'source': missing; every number needs a citation")
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for key, (field, factor) in _UNITS.items():
            value = getattr(self, key)
            if value is None:
                continue
            if field == "peak_flops_per_s":
                values[field] = {p: float(v) * factor for p, v in value.items()}
                own = self.sources.get(key, {})
                sources.update({f"peak_flops_per_s.{p}": own.get(p, cite) for p in value})  # type: ignore[union-attr]
                continue
            if field == "compute_capability":
                values[field] = _check_cc(value)
            else:
                si = value * factor
                values[field] = int(round(si)) if field in ("sm_count", "l2_cache_bytes") else float(si)
            sources[field] = self.sources.get(key, cite)  # type: ignore[assignment]
        return GpuSpec(name=name, aliases=self.aliases, architecture=self.architecture, sources=sources,
                       origin=origin, measured=self.measured, **values)


def _check_cc(value: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"8.0"`` or ``(8, 0)`` -> ``(8, 0)``; ValueError naming the field otherwise."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", value)
        if m is None:
            raise ValueError(f'field \'compute_capability\': expected "major.minor" like "8.0", got {value!r}')
        return int(m.group(1)), int(m.group(2))
    if value is not None and any(v < 0 for v in value):
        raise ValueError(f"field 'compute_capability': expected [major, minor], got {list(value)}")
    return value


def entry_from(data: Any, where: str) -> GpuEntry:
    """Validate one entry (a mapping of fields) into a :class:`GpuEntry`.

    Raises:
        InputError: one line starting with ``where`` and naming the field and what was expected.
    """
    if not isinstance(data, Mapping):
        raise InputError(where, f"expected a table of fields, got {type(data).__name__}")
    try:
        return msgspec.convert(data, GpuEntry)
    except msgspec.ValidationError as exc:
        text = problem(exc)
        if text.startswith("field '") and text.endswith("unknown field"):
            text += f"; expected some of: {', '.join(sorted(GpuEntry.__struct_fields__))}"
        raise InputError(where, text) from None


# ------------------------------------------------------------------------------------------------ catalogue


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
    specs = []
    for i, data in enumerate(raw(_CATALOGUE_FILE).get("gpu", [])):
        name = data.get("name", f"#{i}") if isinstance(data, Mapping) else f"#{i}"
        where = f"{_CATALOGUE_WHERE}: gpu '{name}'"
        specs.append(entry_from(data, where).to_spec(origin="catalogue", where=_CATALOGUE_WHERE))
    owner: dict[str, str] = {}
    for spec in specs:
        for key in {normalise(n) for n in (spec.name, *spec.aliases)}:
            if owner.setdefault(key, spec.name) != spec.name:
                raise InputError(_CATALOGUE_WHERE, f"gpu '{spec.name}': field 'aliases': '{key}' also names '{owner[key]}'")
    return tuple(specs)


def normalise(name: str) -> str:
    """Lookup key: lower case, without NVIDIA/GeForce/Tesla/GPU and without spaces, dashes, underscores."""
    words = re.split(r"[\s\-_]+", name.strip().lower())
    return "".join(w for w in words if w not in _DROP_WORDS)


@functools.cache
def _index() -> dict[str, GpuSpec]:
    return {normalise(n): spec for spec in catalogue() for n in (spec.name, *spec.aliases)}


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
    key = normalise(name)
    spec = _index().get(key)
    if spec is not None:
        return spec
    contains = [k for k in _index() if key and key in k]  # "a100" -> every A100 variant first
    matches = contains + difflib.get_close_matches(key, list(_index()), n=20, cutoff=0.6)
    closest = list(dict.fromkeys(_index()[m].name for m in matches))[:5]
    raise UnknownGpuError(name, closest)


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
    data = {"dram_bandwidth_bytes_per_s": dram_bandwidth_bytes_per_s, "peak_flops_per_s": {pipe: peak_flops_per_s}}
    return entry_from(data, "arguments").to_spec(origin="arguments", default_name=name,
                                                 default_source="given as arguments")

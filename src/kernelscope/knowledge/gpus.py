"""GPU peak capabilities (roofline ceilings): the packaged catalogue (``data/gpus.toml``) and its lookups.

The catalogue holds datasheet/whitepaper numbers in human units (GB/s, TFLOPS, MHz, MiB), each with its
citation; :class:`GpuEntry` validates one entry (pydantic) and :meth:`GpuEntry.to_spec` turns it into a
:class:`~kernelscope.model.GpuSpec` in SI units (bytes/s, FLOP/s, Hz, bytes). A user's spec file
(``--spec``) has the same fields (SI spellings accepted too) and is read by :mod:`kernelscope.ingest.spec`
through the same model. Every tensor peak is the DENSE figure; see the header of ``gpus.toml``.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import Annotated, Any, Literal, Mapping

from pydantic import Field, StrictBool, ValidationError, field_validator, model_validator

from ..errors import InputError, UnknownGpuError
from ..model import PIPES, GpuSpec
from . import Model, raw

_CATALOGUE_FILE = "gpus.toml"
_CATALOGUE_WHERE = "kernelscope/data/gpus.toml"
_DROP_WORDS = {"nvidia", "geforce", "tesla", "gpu"}

Pipe = Literal[PIPES]  # type: ignore[valid-type]
#: A positive finite number (an int is accepted; a string or a bool is not).
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False, strict=True)]
PositiveCount = Annotated[int, Field(gt=0, strict=True)]

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


class GpuEntry(Model):
    """One GPU: a ``[[gpu]]`` entry of the catalogue, or a user's spec file.

    Bandwidth and peaks are required, in exactly one spelling each (``dram_bandwidth_gb_s`` or
    ``dram_bandwidth_bytes_per_s``; ``peak_tflops`` or ``peak_flops_per_s``, a table pipe -> peak with pipes
    of :data:`kernelscope.model.PIPES`); ``source`` cites every number, ``sources`` overrides it per field
    (``peak_tflops`` as a table per pipe).
    """

    name: str | None = Field(default=None, min_length=1)
    aliases: tuple[str, ...] = ()
    architecture: str | None = Field(default=None, min_length=1)
    compute_capability: tuple[int, int] | None = None
    sm_count: PositiveCount | None = None
    boost_clock_mhz: Positive | None = None
    boost_clock_hz: Positive | None = None
    l2_cache_mib: Positive | None = None
    l2_cache_bytes: PositiveCount | None = None
    dram_bandwidth_gb_s: Positive | None = None
    dram_bandwidth_bytes_per_s: Positive | None = None
    peak_tflops: dict[Pipe, Positive] | None = None
    peak_flops_per_s: dict[Pipe, Positive] | None = None
    measured: StrictBool = False
    source: str | None = Field(default=None, min_length=1)
    sources: dict[str, str | dict[str, str]] = {}

    @field_validator("compute_capability", mode="before")
    @classmethod
    def _cc(cls, value: Any) -> Any:
        if isinstance(value, str):
            m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", value)
            if m is None:
                raise ValueError(f'expected "major.minor" like "8.0", got {value!r}')
            return int(m.group(1)), int(m.group(2))
        return value

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not all(a.strip() for a in value):
            raise ValueError("expected a list of names")
        return tuple(a.strip() for a in value)

    @model_validator(mode="after")
    def _spellings(self) -> "GpuEntry":
        for human, si in (("dram_bandwidth_gb_s", "dram_bandwidth_bytes_per_s"), ("peak_tflops", "peak_flops_per_s"),
                          ("boost_clock_mhz", "boost_clock_hz"), ("l2_cache_mib", "l2_cache_bytes")):
            if getattr(self, human) is not None and getattr(self, si) is not None:
                raise _FieldError(human, f"give only one of {human}, {si}")
        if self.dram_bandwidth_gb_s is None and self.dram_bandwidth_bytes_per_s is None:
            raise _FieldError("dram_bandwidth_bytes_per_s", "missing; expected a positive number (or 'dram_bandwidth_gb_s')")
        pipes = self.peak_tflops or self.peak_flops_per_s
        if not pipes:
            raise _FieldError("peak_flops_per_s", "expected a table of pipe -> peak with at least one of: " + ", ".join(PIPES))
        for key, value in self.sources.items():
            if key in ("peak_tflops", "peak_flops_per_s"):
                if not isinstance(value, dict) or any(p not in pipes for p in value):
                    raise _FieldError(f"sources.{key}", "expected a table of pipe -> citation for the pipes given")
            elif key not in _UNITS or getattr(self, key, None) is None:
                raise _FieldError(f"sources.{key}", "not a numeric field of this entry")
        return self

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
                values[field] = value
            else:
                si = value * factor
                values[field] = int(round(si)) if field in ("sm_count", "l2_cache_bytes") else float(si)
            sources[field] = self.sources.get(key, cite)  # type: ignore[assignment]
        return GpuSpec(name=name, aliases=self.aliases, architecture=self.architecture, sources=sources,
                       origin=origin, measured=self.measured, **values)


class _FieldError(ValueError):
    """A cross-field problem of a GpuEntry, naming the field it concerns."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field


def entry_from(data: Any, where: str) -> GpuEntry:
    """Validate one entry (a mapping of fields) into a :class:`GpuEntry`.

    Raises:
        InputError: one line starting with ``where`` and naming the field and what was expected.
    """
    if not isinstance(data, Mapping):
        raise InputError(where, f"expected a table of fields, got {type(data).__name__}")
    try:
        return GpuEntry.model_validate(data)
    except ValidationError as exc:
        raise InputError(where, _problem(exc)) from None


def _problem(exc: ValidationError) -> str:
    err = exc.errors()[0]
    cause = err.get("ctx", {}).get("error")
    if isinstance(cause, _FieldError):
        return f"field '{cause.field}': {cause}"
    loc = [str(p) for p in err["loc"] if p != "[key]"]
    field = ".".join(loc)
    if err["type"] == "extra_forbidden":
        known = ", ".join(sorted(GpuEntry.model_fields))
        return f"field '{field}': unknown; expected some of: {known}"
    if err["type"] == "literal_error" and len(loc) == 2:
        return f"field '{field}': unknown pipe; expected one of: {', '.join(PIPES)}"
    msg = err["msg"].removeprefix("Value error, ")
    return f"field '{field}': {msg}, got {err.get('input')!r}" if err["type"] != "missing" else f"field '{field}': missing"


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

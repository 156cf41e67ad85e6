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
from ..notes import Listed
from ..model import PIPES, DeviceInfo, GpuSpec
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


@functools.lru_cache(maxsize=1024)
def normalise(name: str) -> str:
    """Lookup key: lower case, without NVIDIA/GeForce/Tesla/GPU and without spaces, dashes, underscores (worked out
    once per name: every launch of a report names its device)."""
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


def find_typed_gpu(name: str) -> GpuSpec:
    """Look up a GPU name a user typed (``--gpu``): an exact catalogue name, or a name or alias that starts the
    names of one catalogue GPU only (``"h100 nvl"``). A name that starts the names of several GPUs is refused, even
    when it is also one GPU's alias (``"h100"``: the H100 SXM5's alias "NVIDIA H100", and the PCIe and NVL parts),
    naming the candidates: a typed family name never silently picks one of them. Reports' device names go through
    :func:`find_gpu` (exact only).

    Raises:
        InputError: ambiguous (key ``gpu_ambiguous``, the candidates listed); UnknownGpuError: no entry matches.
    """
    key = normalise(name)
    exact = _index().get(key)
    if exact is not None and normalise(exact.name) == key:
        return exact
    candidates = list(dict.fromkeys(spec.name for k, spec in _index().items() if key and k.startswith(key)))
    if len(candidates) == 1:
        return _index()[normalise(candidates[0])]
    if len(candidates) > 1:
        raise InputError("--gpu", key="gpu_ambiguous", values={"name": name, "candidates": Listed(candidates)})
    return find_gpu(name)


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


# ------------------------------------------------------------------------------------- derived from a report

#: The ``origin`` (and every ``sources`` entry) of a spec from :func:`derived_spec`.
DERIVED_ORIGIN = "derived from the report's SM count, clocks and bus width"

#: FP32 add/multiply/FMA results per clock per SM, by compute capability: CUDA C++ Programming Guide, "Arithmetic
#: Instructions", throughput table (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#arithmetic-instructions:
#: 192 on 3.x, 128 on 5.x, 64 on 6.0, 128 on 6.1/6.2, 64 on 7.x and 8.0, 128 on 8.6/8.7/8.9/9.0), and for the CCs the
#: table's older copies lack, NVIDIA/cuda-samples Common/helper_cuda.h ``_ConvertSMVer2Cores`` (128 on 9.0, 10.0,
#: 10.1, 10.3, 11.0, 12.0, 12.1). Checked against datasheet FP32 peaks = SMs x lanes x 2 FLOP x boost clock: H100 SXM5
#: 132 x 128 x 2 x 1.98 GHz = 66.9 (67), A100 108 x 64 x 2 x 1.41 GHz = 19.5 (19.5), V100 SXM2 80 x 64 x 2 x 1.53 GHz
#: = 15.7, RTX 4090 128 x 128 x 2 x 2.52 GHz = 82.6, Tesla K20c 13 x 192 x 2 x 0.706 GHz = 3.52; B200 with its report's
#: clock 148 x 128 x 2 x 1.965 GHz = 74.4 (75). tests/test_gpu_coverage.py checks every catalogue entry (within 1 %).
FP32_LANES_PER_SM: dict[tuple[int, int], int] = {
    (3, 0): 192, (3, 2): 192, (3, 5): 192, (3, 7): 192,
    (5, 0): 128, (5, 2): 128, (5, 3): 128,
    (6, 0): 64, (6, 1): 128, (6, 2): 128,
    (7, 0): 64, (7, 2): 64, (7, 5): 64,
    (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128,
    (9, 0): 128,
    (10, 0): 128, (10, 1): 128, (10, 3): 128, (11, 0): 128,
    (12, 0): 128, (12, 1): 128,
}

#: FP64 add/multiply/FMA results per clock per SM, from the same Programming Guide table, only where it is one
#: number for every GPU of the CC: 8 on 3.0/3.2, 4 on 5.x, 32 on 6.0, 4 on 6.1/6.2, 32 on 7.0, 2 on 7.5, 32 on 8.0,
#: 2 on 8.6/8.9, 64 on 9.0, 2 on 12.0; 64 on 10.0 (B200 datasheet: 37 TFLOPS FP64 = 148 x 64 x 2 x 1.965 GHz). Left
#: out, so that no FP64 ceiling is derived: 3.5/3.7 (64 on Tesla parts, 8 on GeForce ones: a footnote of the
#: table), 7.2, 8.7, 10.1, 10.3, 11.0 and 12.1 (no figure confirmed for them).
FP64_LANES_PER_SM: dict[tuple[int, int], int] = {
    (3, 0): 8, (3, 2): 8,
    (5, 0): 4, (5, 2): 4, (5, 3): 4,
    (6, 0): 32, (6, 1): 4, (6, 2): 4,
    (7, 0): 32, (7, 5): 2,
    (8, 0): 32, (8, 6): 2, (8, 9): 2,
    (9, 0): 64, (10, 0): 64, (12, 0): 2,
}


def derived_dram_bandwidth(device: DeviceInfo) -> float | None:
    """Peak DRAM bandwidth in bytes/s from the report's memory attributes: 2 (double data rate) x
    ``max_mem_clock_hz`` x ``memory_bus_width_bits`` / 8; None when either is missing or not positive.

    Nsight Compute's ``device__attribute_max_mem_frequency_khz`` is already the clock this formula wants for
    every memory type: for HBM2/HBM2e/HBM3/HBM3e it is the HBM clock (A100 1215 MHz x 5120 bit = 1555 GB/s), for
    GDDR6/GDDR6X/GDDR7 half the per-pin data rate (RTX 4090 10501 MHz x 384 bit = 1008 GB/s at 21 Gbps; RTX 5060
    Laptop 12001 MHz x 128 bit = 384 GB/s at 24 Gbps). Checked on the 19 GPUs of the corpus reports that the
    catalogue has: within 1 % of the datasheet figure for HBM2 (A100 40GB), HBM2e (A100 80GB PCIe 1935), HBM3 (GH200
    4023 vs 4000), HBM3e (B200 7672 vs 7700), GDDR6 (T4, RTX 2080 Ti, 4060 Ti, L20, ...), GDDR6X (RTX 3080, 4090) and
    GDDR7 (RTX 5060 Laptop) alike, so no memory type needs a correction factor. The one exception is a board
    variant, not the formula: the GTX 1650 report's device has 6001 MHz x 128 bit = 192 GB/s (the 12 Gbps GDDR6
    board) while the catalogue entry is the GDDR5 board's 128 GB/s (tests/test_gpu_coverage.py holds the figures).
    """
    clock, width = device.max_mem_clock_hz, device.memory_bus_width_bits
    if clock is None or width is None or not (math.isfinite(clock) and clock > 0 and width > 0):
        return None
    return 2.0 * clock * width / 8.0


def derived_spec(device: DeviceInfo) -> GpuSpec | None:
    """Roofline ceilings from a report's own device attributes, for a GPU the catalogue lacks.

    * DRAM bandwidth: :func:`derived_dram_bandwidth` (2 x max memory clock x bus width / 8).
    * FP32 peak: SMs x :data:`FP32_LANES_PER_SM` for the compute capability x 2 FLOP (an FMA) x max SM clock
      (``device__attribute_max_gpu_frequency_khz``, the device's maximum boost clock, so the peak is an upper bound).
    * FP64 peak: the same with :data:`FP64_LANES_PER_SM`, where that table has the compute capability.
    * No tensor-core, FP16 or INT8 peaks: their per-SM rate differs between GPUs of one compute capability
      (GeForce Ada and RTX Blackwell run FP16 with FP32 accumulate at half the rate of the datacenter parts), so
      it cannot be read from the report. A tensor kernel's roofline falls back to the FP32 ceiling and says so.

    Every number is cited ``"derived from the report's SM count, clocks and bus width"`` (:data:`DERIVED_ORIGIN`,
    also the spec's ``origin``) with its formula.

    Returns:
        The spec (named after the report's display name, ``measured=False``), or None when the SM count, the max
        SM clock or the compute capability is missing, the compute capability is not in
        :data:`FP32_LANES_PER_SM`, or the bandwidth cannot be derived (every roofline needs it).
    """
    sms, clock, cc = device.sm_count, device.max_sm_clock_hz, device.compute_capability
    if sms is None or clock is None or cc is None or sms <= 0 or not (math.isfinite(clock) and clock > 0):
        return None
    lanes = FP32_LANES_PER_SM.get(tuple(cc))  # type: ignore[arg-type]
    bandwidth = derived_dram_bandwidth(device)
    if lanes is None or bandwidth is None:
        return None
    ghz, cc_text, mem_mhz = clock / 1e9, f"{cc[0]}.{cc[1]}", device.max_mem_clock_hz / 1e6  # type: ignore[operator]
    peaks = {"fp32": sms * lanes * 2.0 * clock}
    sources = {
        "dram_bandwidth_bytes_per_s": f"{DERIVED_ORIGIN}: 2 (DDR) x {mem_mhz:g} MHz x "
                                      f"{device.memory_bus_width_bits}-bit / 8",
        "peak_flops_per_s.fp32": f"{DERIVED_ORIGIN}: {sms} SMs x {lanes} FP32/clk (CUDA C++ Programming Guide, "
                                 f"CC {cc_text}) x 2 FLOP x {ghz:g} GHz",
        "sm_count": f"{DERIVED_ORIGIN}: device__attribute_multiprocessor_count",
        "boost_clock_hz": f"{DERIVED_ORIGIN}: device__attribute_max_gpu_frequency_khz",
        "compute_capability": f"{DERIVED_ORIGIN}: device__attribute_compute_capability_major/minor",
    }
    fp64 = FP64_LANES_PER_SM.get(tuple(cc))  # type: ignore[arg-type]
    if fp64 is not None:
        peaks["fp64"] = sms * fp64 * 2.0 * clock
        sources["peak_flops_per_s.fp64"] = (f"{DERIVED_ORIGIN}: {sms} SMs x {fp64} FP64/clk (CUDA C++ Programming "
                                            f"Guide, CC {cc_text}) x 2 FLOP x {ghz:g} GHz")
    if device.l2_cache_bytes:
        sources["l2_cache_bytes"] = f"{DERIVED_ORIGIN}: device__attribute_l2_cache_size"
    name = device.display_name or f"GPU of compute capability {cc_text}"
    return GpuSpec(name=name, dram_bandwidth_bytes_per_s=bandwidth, peak_flops_per_s=peaks,
                   compute_capability=(int(cc[0]), int(cc[1])), sm_count=int(sms), boost_clock_hz=float(clock),
                   l2_cache_bytes=device.l2_cache_bytes or None, sources=sources, origin=DERIVED_ORIGIN)

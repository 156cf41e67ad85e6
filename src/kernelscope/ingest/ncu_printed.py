"""Values as Nsight Compute prints them on its details page and console: numbers with thousands separators
(``"292,928"``), launch identifiers (``"(256, 1, 1)"``, ``"8.6"``), kernel signatures, string-valued metrics, and
shared-memory sizes rounded to decimal Kbyte (:func:`exact_size_bytes`).

Used by the readers of the details page (:mod:`.ncu_details`, :mod:`.ncu_csv`, :mod:`.ncu_text`) and of nvprof
output (kernel names).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from functools import lru_cache
from typing import Mapping, Sequence

from ..errors import InputError
from ..knowledge.occupancy import arch_limits
from .units import NCU_BINARY_FACTORS, NCU_BYTES

# ---------------------------------------------------------------------------------------------------------
# Numbers and launch identifiers as printed.

_GROUPED = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?$")
_NOT_MEASURED = {"", "n/a", "na", "-", "--", "(n/a)", "not available"}
#: The mark Nsight Compute prints before a value it could not collect or had trouble with: ``(!) n/a``.
_ISSUE_MARK = "(!)"


def parse_number(text: str) -> float | None:
    """A number as Nsight Compute prints it: ``"292,928"``, ``"1,658.42"``, ``"20.23"``, ``"1e+06"``.

    Returns None for "not measured" (empty, ``n/a``, ``N/A``, ``-``, also after Nsight's ``(!)`` issue mark:
    ``"(!) n/a"``), never 0. NaN / inf are returned as such.

    Raises:
        ValueError: anything else, including a comma that is not a thousands separator (``"20,23"``: the
            scale would be a guess).
    """
    if "," not in text:  # (float() refuses every comma: a thousands separator is not tried, its error not raised)
        try:
            return float(text)  # the common case: a plain number (float() takes exactly what the end of this does)
        except ValueError:
            pass
    elif _GROUPED.match(text):  # the next common one, "1,856,390" (as the end of this reads it, unstripped)
        return float(text.replace(",", ""))
    t = text.strip()
    if t.startswith(_ISSUE_MARK):
        t = t[len(_ISSUE_MARK):].strip()
    if t.lower() in _NOT_MEASURED:
        return None
    if "," in t:
        if not _GROUPED.match(t):
            raise ValueError(f"{text!r} is not a number (a comma that is not a thousands separator)")
        t = t.replace(",", "")
    try:
        return float(t)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


_DIMS = re.compile(r"^\(?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)?$")


def parse_dims(text: str | Sequence[int] | None) -> tuple[int, int, int] | None:
    """``"(256, 1, 1)"`` (or a 3-sequence) -> ``(256, 1, 1)``; None for empty / unrecognised text."""
    if text is None:
        return None
    if not isinstance(text, str):
        vals = tuple(int(v) for v in text)
        return vals if len(vals) == 3 else None  # type: ignore[return-value]
    m = _DIMS.match(text.strip())
    return None if m is None else (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def parse_cc(text: str | Sequence[int] | None) -> tuple[int, int] | None:
    """Compute capability ``"8.6"`` (or ``(8, 6)``) -> ``(8, 6)``; None for empty / unrecognised text."""
    if text is None:
        return None
    if not isinstance(text, str):
        vals = tuple(int(v) for v in text)
        return vals if len(vals) == 2 else None  # type: ignore[return-value]
    m = re.match(r"^\s*(\d+)\.(\d+)\s*$", text)
    return None if m is None else (int(m.group(1)), int(m.group(2)))


@lru_cache(maxsize=4096)
def function_name(signature: str) -> str:
    """The bare function name of a demangled kernel signature, as ``.ncu-rep`` names kernels:
    ``"void ns::gemm<32>(const float *, int)"`` -> ``"gemm"``; ``"(anonymous namespace)::k(int)"`` -> ``"k"``.
    A name without a parameter list is returned without its template arguments and scopes."""
    text = signature.strip()
    if not text:
        return text
    # Drop the trailing top-level parameter list "( ... )" (and cv-qualifiers after it).
    end = len(text)
    tail = re.search(r"\)\s*(?:const|volatile|\s)*$", text)
    if tail:
        depth = 0
        for i in range(tail.start(), -1, -1):
            c = text[i]
            if c == ")":
                depth += 1
            elif c == "(":
                depth -= 1
                if depth == 0:
                    end = i
                    break
    head = text[:end]
    # Remove template arguments and parenthesised scopes at top level, split scopes and the return type.
    out: list[str] = []
    angle = paren = 0
    for c in head:
        if c == "<":
            angle += 1
            continue
        if c == ">":
            angle = max(0, angle - 1)
            continue
        if c == "(":
            paren += 1
        elif c == ")":
            paren = max(0, paren - 1)
        if angle == 0:
            out.append(" " if (c == " " and paren == 0) else (c if paren == 0 else "_"))
    words = "".join(out).split()
    last = words[-1] if words else head
    name = last.split("::")[-1].strip()
    return name or text


# ---------------------------------------------------------------------------------------------------------
# String-valued metrics and shared-memory sizes.

_NUMBER_LIKE = re.compile(r"^[+-]?[\d.]")


def is_string_value(metric: str, unit: str, text: str) -> bool:
    """Whether a value that :func:`parse_number` refuses is a string-valued metric (kept as text) rather than a
    number that cannot be read (an error).

    Nsight Compute's string metrics (``device__attribute_display_name`` "NVIDIA B200",
    ``launch__func_cache_config`` "CachePreferNone", ``launch__execution_model`` "SIMT", ...) have no unit, no
    rollup suffix (``.sum``, ``.avg``, ``.pct``...: those are counters, ratios and throughputs, numbers by
    construction) and do not start like a number. Anything else that is not a number (``"5,12"``, ``"abc"`` in
    ``ns``) cannot be read.
    """
    t = text.strip()
    return bool(t) and not unit.strip() and "." not in metric and not _NUMBER_LIKE.match(t)


#: Metric names of per-block / per-SM shared-memory sizes (``launch__shared_mem_per_block_static``,
#: ``launch__shared_mem_config_size``, ...): whole byte counts that ncu prints in decimal Kbyte.
SHARED_MEM_PREFIX = "launch__shared_mem"

_PRINTED_DECIMAL = re.compile(r"^\d+(?:\.(\d*))?$")


def exact_size_bytes(metric: str, text: str, unit: str, cc: tuple[int, int] | None) -> int | None:
    """The whole byte count behind a shared-memory size printed in decimal units, or None.

    Nsight Compute prints these sizes with decimal prefixes and two decimals ("24.58 Kbyte/block" for 24 KiB =
    24576 B; carveouts "8.19", "65.54", "102.40", "167.94 Kbyte"), so the printed text is a rounding of the true
    byte count: the bytes B with round(B / 1000, 2) == 24.58 are 24575 .. 24585. Of those, kernelscope takes the
    one the hardware can have: for the shared-memory configuration size (carveout) the compute capability's
    configurable size in that range (:func:`kernelscope.occupancy.arch_limits`), else the single multiple of
    128 B (the shared-memory allocation unit from CC 8.0; 256 B before) in it. None when the unit is not a
    decimal multiple of bytes or no single candidate exists (the printed value is then used as it is).
    """
    base = unit.strip().split("/", 1)[0]
    factor = NCU_BYTES.get(base)
    if factor is None or factor <= 1.0 or factor in NCU_BINARY_FACTORS:
        return None
    t = text.strip().replace(",", "")
    mt = _PRINTED_DECIMAL.match(t)
    if mt is None:
        return None
    decimals = len(mt.group(1) or "")
    half = Decimal(5) / Decimal(10) ** (decimals + 1)
    scale = Decimal(repr(factor))
    lo, hi = (Decimal(t) - half) * scale, (Decimal(t) + half) * scale
    if metric == "launch__shared_mem_config_size" and cc is not None:
        try:
            sizes = arch_limits(cc).shared_mem_carveouts_bytes
        except InputError:
            sizes = ()
        fits = [c for c in sizes if lo <= c <= hi]
        if len(fits) == 1:
            return fits[0]
    unit_bytes = 128
    first, last = math.ceil(lo / unit_bytes), math.floor(hi / unit_bytes)
    return first * unit_bytes if first == last and first >= 0 else None


def snap_shared_mem(values: dict[str, float], units: dict[str, str], printed: Mapping[str, tuple[str, str]]) -> None:
    """Replace shared-memory sizes printed in decimal Kbyte by their exact byte counts (:func:`exact_size_bytes`),
    with the compute capability in ``values`` (``device__attribute_compute_capability_*``)."""
    major = values.get("device__attribute_compute_capability_major")
    minor = values.get("device__attribute_compute_capability_minor")
    cc = (int(major), int(minor)) if major is not None and minor is not None else None
    for metric, (text, unit) in printed.items():
        exact = exact_size_bytes(metric, text, unit, cc)
        if exact is not None and metric in values:
            values[metric] = float(exact)
            units[metric] = "byte/block" if "/block" in unit else "byte"


def add_launch_identity(
    values: dict[str, float],
    units: dict[str, str],
    strings: dict[str, str],
    device_name: str | None,
    cc: str | Sequence[int] | None,
    grid: str | Sequence[int] | None,
    block: str | Sequence[int] | None,
) -> None:
    """Store a page's launch identifiers (device name, compute capability ``"8.6"``, grid / block ``"(x, y, z)"``)
    as the metrics a report stores them in (``device__attribute_display_name`` in ``strings``,
    ``device__attribute_compute_capability_*``, ``launch__grid_dim_*``, ``launch__block_dim_*``), unless the
    page already has those metrics. Empty / unparseable identifiers are skipped."""
    if device_name and device_name.strip() and "device__attribute_display_name" not in strings:
        strings["device__attribute_display_name"] = device_name.strip()
    pair = parse_cc(cc)
    if pair is not None and "device__attribute_compute_capability_major" not in values:
        for n, v in zip(("major", "minor"), pair):
            values[f"device__attribute_compute_capability_{n}"] = float(v)
            units[f"device__attribute_compute_capability_{n}"] = ""
    for prefix, dims in (("launch__grid_dim_", parse_dims(grid)), ("launch__block_dim_", parse_dims(block))):
        if dims is not None and prefix + "x" not in values:
            for axis, v in zip("xyz", dims):
                values[prefix + axis] = float(v)
                units[prefix + axis] = ""

"""Unit tables of the readers: a unit as a profiler spells it -> its factor to SI, one table per quantity and per
vocabulary. Every reader converts through these tables; a unit missing from the table of the quantity it feeds is
an :class:`~kernelscope.errors.InputError` in the reader (a wrong scale is never applied silently).

Three vocabularies, which do not agree on what a prefix means:

* Nsight Compute (``.ncu-rep``, ``ncu --csv`` pages, console output): ``NCU_*``. Decimal prefixes.
* nvprof (text and ``--csv`` output): ``NVPROF_*``. Binary prefixes.
* Nsight Systems (``nsys stats`` output): ``NSYS_*``.

(The Kineto reader, :mod:`.kineto`, keeps its own microsecond handling.)
"""

from __future__ import annotations

# ---------------------------------------------------------------------------------------------------------
# Nsight Compute. Source: the units ncu stores in reports ("ns", "byte", "hz", ...) and prints on the details
# page and console ("usecond", "Gbyte/second", "cycle/nsecond"); the scaled spellings are accepted too.
# Byte prefixes are decimal ("Kbyte" = 1000 bytes), as Nsight Compute prints them; "KiB" is binary.
NCU_TIME_S: dict[str, float] = {
    "ns": 1e-9, "nsecond": 1e-9, "nsec": 1e-9,
    "us": 1e-6, "usecond": 1e-6, "usec": 1e-6,
    "ms": 1e-3, "msecond": 1e-3, "msec": 1e-3,
    "s": 1.0, "second": 1.0, "sec": 1.0,
}
NCU_BYTES: dict[str, float] = {
    "byte": 1.0, "bytes": 1.0, "B": 1.0,
    "Kbyte": 1e3, "KB": 1e3, "kbyte": 1e3, "kB": 1e3,
    "Mbyte": 1e6, "MB": 1e6,
    "Gbyte": 1e9, "GB": 1e9,
    "Tbyte": 1e12, "TB": 1e12,
    "KiB": 1024.0, "Kibyte": 1024.0,
    "MiB": 1024.0**2, "Mibyte": 1024.0**2,
    "GiB": 1024.0**3, "Gibyte": 1024.0**3,
}
#: The binary factors of :data:`NCU_BYTES` (a size printed in them is not a rounded decimal).
NCU_BINARY_FACTORS: tuple[float, ...] = (1024.0, 1024.0**2, 1024.0**3)
# Frequencies, compared lower-case ("hz", "Hz", "MHz" ...), plus cycles per time unit.
NCU_FREQ_HZ: dict[str, float] = {
    "hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9,
    "cycle/second": 1.0, "cycle/s": 1.0, "cycle/sec": 1.0, "1/s": 1.0,
    "cycle/msecond": 1e3, "cycle/ms": 1e3,
    "cycle/usecond": 1e6, "cycle/us": 1e6,
    "cycle/nsecond": 1e9, "cycle/ns": 1e9,
}
NCU_PERCENT: dict[str, float] = {"%": 1.0, "": 1.0}
NCU_CYCLES: dict[str, float] = {"cycle": 1.0, "cycles": 1.0, "": 1.0}
NCU_COUNT: dict[str, float] = {"": 1.0, "inst": 1.0, "instruction": 1.0, "instructions": 1.0, "warp": 1.0,
                               "block": 1.0, "thread": 1.0, "register/thread": 1.0, "SM": 1.0}
NCU_PER_CYCLE: dict[str, float] = {"inst/cycle": 1.0, "instruction/cycle": 1.0, "/cycle": 1.0, "": 1.0}

# Details-page rows (``ncu --csv --page details``, console tables) print a few more unit names for counts,
# per-cycle rates and stall cycles (the quantity kinds of data/ncu_details.toml).
NCU_ROW_COUNT: dict[str, float] = {**NCU_COUNT, "register": 1.0, "cluster": 1.0, "sector": 1.0, "request": 1.0,
                                   "cycle": 1.0, "pass": 1.0}
NCU_ROW_PER_CYCLE: dict[str, float] = {**NCU_PER_CYCLE, "inst": 1.0}
NCU_ROW_STALL: dict[str, float] = {"": 1.0, "inst": 1.0, "cycle": 1.0, "cycles": 1.0, "cycle/inst": 1.0}

#: Quantity kind of ``data/ncu_details.toml`` -> the units it accepts, as the unit errors describe them.
NCU_EXPECTED: dict[str, str] = {
    "time": "a time unit such as ns, nsecond, us, usecond, msecond, second",
    "bytes": "a byte unit such as byte, Kbyte, Mbyte, Gbyte",
    "bytes_per_block": "a byte unit per block such as byte/block, Kbyte/block",
    "bytes_per_second": "a bandwidth unit such as byte/second, Mbyte/second, Gbyte/s",
    "bytes_per_cycle": "a byte unit per cycle such as byte/cycle",
    "frequency": "a frequency unit such as hz, Mhz, Ghz, cycle/nsecond, cycle/usecond",
    "percent": "%",
    "cycles": "cycle",
    "count": "a count unit such as inst, warp, block, thread, register/thread, or none",
    "per_cycle": "inst/cycle",
    "stall": "cycles per instruction (unit inst, cycle or none)",
    "ratio": "no unit",
}
#: Quantity kinds of ``data/ncu_details.toml``.
NCU_KINDS: tuple[str, ...] = tuple(NCU_EXPECTED)

# Kinds read with one table: kind -> (table, SI unit stored, compare lower-case).
_NCU_PLAIN_KINDS: dict[str, tuple[dict[str, float], str, bool]] = {
    "time": (NCU_TIME_S, "second", False),
    "bytes": (NCU_BYTES, "byte", False),
    "frequency": (NCU_FREQ_HZ, "hz", True),
    "percent": ({"%": 1.0}, "%", False),  # a details row's percentage always prints its "%"
    "cycles": (NCU_CYCLES, "cycle", False),
    "per_cycle": (NCU_ROW_PER_CYCLE, "inst/cycle", False),
    "stall": (NCU_ROW_STALL, "cycle", False),
    "ratio": ({"": 1.0}, "", False),
}


def ncu_bytes_per_second(unit: str) -> float | None:
    """Factor of an Nsight Compute bandwidth unit to bytes/s ("Gbyte/second" -> 1e9, "Mbyte/s" -> 1e6); None if
    not one."""
    num, sep, den = unit.strip().partition("/")
    if not sep:
        return None
    size, per = NCU_BYTES.get(num), NCU_TIME_S.get(den)
    return None if size is None or per is None else size / per


def ncu_quantity(kind: str, unit: str) -> tuple[float, str] | None:
    """``(factor to SI, SI unit)`` for a details-page value of quantity ``kind`` (:data:`NCU_KINDS`) printed with
    ``unit``; None when the unit does not fit the quantity (never a guessed scale). A count keeps its unit."""
    unit = unit.strip()
    plain = _NCU_PLAIN_KINDS.get(kind)
    if plain is not None:
        table, si_unit, lower = plain
        factor = table.get(unit.lower() if lower else unit)
        return None if factor is None else (factor, si_unit)
    if kind == "count":
        return (1.0, unit) if unit in NCU_ROW_COUNT else None
    if kind == "bytes_per_second":
        f = ncu_bytes_per_second(unit)
        return None if f is None else (f, "byte/second")
    if kind in ("bytes_per_block", "bytes_per_cycle"):
        base, sep, per = unit.partition("/")
        f = NCU_BYTES.get(base)
        if kind == "bytes_per_block":  # "Kbyte/block", or a bare byte unit
            return None if f is None or (sep and per != "block") else (f, "byte/block")
        return None if f is None or per != "cycle" else (f, "byte/cycle")
    raise ValueError(f"unknown quantity kind {kind!r} in ncu_details.toml")


# ---------------------------------------------------------------------------------------------------------
# nvprof. Source: the Units paragraph of :mod:`.nvprof`'s docstring. Binary prefixes for sizes and throughputs:
# 1 KB = 1024 B, GB/s = 2**30 B/s (checked on ieee2017_nvprof_gputrace_gp100.log of the corpus: a copy of
# 256.00MB in 31.545ms is printed as 7.9251GB/s). Times: ns, us, ms, s.
NVPROF_TIME_S: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NVPROF_BYTES: dict[str, float] = {"B": 1.0, "KB": 1024.0, "MB": 1024.0**2, "GB": 1024.0**3, "TB": 1024.0**4}
NVPROF_THROUGHPUT: dict[str, float] = {f"{prefix}/s": factor for prefix, factor in NVPROF_BYTES.items()}
#: Every unit nvprof prints -> (SI unit kept in KernelProfile.metric_units, factor).
NVPROF_UNITS: dict[str, tuple[str, float]] = {
    "": ("", 1.0),
    "%": ("%", 1.0),
    **{u: ("second", f) for u, f in NVPROF_TIME_S.items()},
    **{u: ("byte", f) for u, f in NVPROF_BYTES.items()},
    **{u: ("byte/second", f) for u, f in NVPROF_THROUGHPUT.items()},
}

# ---------------------------------------------------------------------------------------------------------
# Nsight Systems. Source: the units ``nsys stats`` prints in its column headers ("Total Time (ns)", "Avg (ns)")
# and report titles ("(nanoseconds)", "(KiB)", "(MB)") in the corpus files; KiB / MiB / GiB are binary, KB / MB /
# GB decimal. A table whose header names no unit: ns for times, MB for sizes (the reader's defaults).
NSYS_TIME_S: dict[str, float] = {"ns": 1e-9, "nsec": 1e-9, "nanoseconds": 1e-9, "us": 1e-6, "µs": 1e-6,
                                 "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "sec": 1.0}
NSYS_BYTES: dict[str, float] = {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024.0, "MiB": 1024.0**2,
                                "GiB": 1024.0**3}

"""A user's settings files: GPU ceilings (``--spec FILE``) and rule thresholds (``--criteria FILE``).

Reading and validation only; the spec's fields are those of the catalogue
(:class:`kernelscope.knowledge.gpus.GpuEntry`), the criteria's keys those of ``verdicts.toml``.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..knowledge.criteria import criteria
from ..knowledge.gpus import entry_from
from ..model import GpuSpec


def _parse(path: str | os.PathLike, what: str) -> Any:
    """A ``.toml`` or ``.json`` file's content (chosen by extension); InputError naming the file otherwise."""
    where = str(path)
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise InputError(where, key="settings_suffix", values={"what": what, "value": suffix or 'no extension'})
    try:
        text = file.read_bytes().decode("utf-8")
        return tomllib.loads(text) if suffix == ".toml" else json.loads(text)
    except OSError as exc:
        raise InputError(where, key="settings_cannot_read",
            values={"what": what, "value": exc.strerror or exc}) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError, RecursionError) as exc:
        kind = "TOML" if suffix == ".toml" else "JSON"
        raise InputError(where, key="settings_cannot_parse",
            values={"kind": kind, "exc": _parse_problem(exc)}) from None


def _parse_problem(exc: Exception) -> str:
    """A parse error on one line (a RecursionError: the nesting depth)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply (more than a few hundred levels of arrays or tables)"
    return " ".join(str(exc).split())


def read_spec(path: str | os.PathLike) -> GpuSpec:
    """Read a user GPU spec file (TOML or JSON, chosen by the file extension).

    Fields: ``name`` (optional, defaults to the file stem), ``dram_bandwidth_bytes_per_s`` (bytes/s)
    and ``peak_flops_per_s`` (table pipe -> FLOP/s, at least one pipe of :data:`~kernelscope.model.PIPES`)
    are required; optional ``compute_capability`` (``"8.0"``), ``sm_count``, ``measured`` (bool),
    ``source`` (citation text). The catalogue's human units are accepted too
    (``dram_bandwidth_gb_s``, ``[peak_tflops]``, ``boost_clock_mhz``, ``l2_cache_mib``, ``sources``),
    and so is a whole catalogue entry copied under ``[[gpu]]``/``[gpu]``.

    Returns:
        A ``GpuSpec`` in SI units with ``origin = "spec file <path>"``; fields without their own
        citation are sourced to ``source`` or to the spec file.

    Raises:
        InputError: unreadable/unparseable file, missing field, non-positive number, unknown pipe
            or field, or a value below 1 GB/s or 1 GFLOP/s (a unit mix-up); the message names the file and
            the field on one line.
    """
    where = str(path)
    data = _parse(path, "spec file")
    if isinstance(data, dict) and set(data) == {"gpu"}:
        data = data["gpu"]
        if isinstance(data, list) and len(data) == 1:
            data = data[0]
    spec = entry_from(data, where).to_spec(origin=f"spec file {where}", default_name=Path(path).stem,
                                           default_source=f"spec file {where}", where=where)
    # Plausibility against a units mix-up (GB/s or TFLOP/s typed into the bytes/s or FLOP/s field):
    # every GPU since 2010 moves more than 1 GB/s and computes more than 1 GFLOP/s.
    if spec.dram_bandwidth_bytes_per_s < 1e9:
        raise InputError(where, key="spec_bandwidth_too_low",
            values={"dram_bandwidth_bytes_per_s": spec.dram_bandwidth_bytes_per_s})
    for pipe, peak in spec.peak_flops_per_s.items():
        if peak < 1e9:
            raise InputError(where, key="spec_peak_too_low", values={"pipe": pipe, "peak": peak})
    return spec


def read_criteria(path: str | os.PathLike) -> dict[str, float]:
    """Rule thresholds with a user's overrides: a TOML file with a ``[criteria]`` table whose keys are those of
    ``verdicts.toml`` (e.g. ``memory_high_pct = 75``).

    Raises:
        InputError: unreadable file, not TOML, no [criteria] table, unknown key or non-positive value.
    """
    source = str(path)
    if not Path(path).exists():
        raise InputError(source, "file not found", key="file_not_found")
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(source, key="criteria_cannot_read", values={"value": exc.strerror or exc}) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise InputError(source, key="criteria_not_toml", values={"exc": _parse_problem(exc)}) from None
    table = data.get("criteria")
    if not isinstance(table, dict):
        raise InputError(source, key="criteria_table_expected")
    try:
        return criteria(table)
    except (KeyError, ValueError) as exc:
        raise InputError(source, str(exc).strip("'\"")) from None

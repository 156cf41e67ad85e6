"""JSON rendering: every diagnosed launch in report order, units in field names, None as null.

Schema id ``kernelscope.diagnosis/1`` (JSON Schema: ``schemas/diagnosis-1.schema.json`` in the repository).
Non-finite numbers (an infinite arithmetic intensity when a kernel moved no DRAM bytes) are written as the
strings ``"inf"`` / ``"nan"`` so the output stays valid JSON. A value that was not measured is null, and the
launch's ``not_measured`` list gives the reason for each null field (JSON Pointer, reason key and text); the
roofline objects carry their own ``not_measured`` reasons.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any, Sequence

from ..version import __version__
from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.roofline import RooflinePoint
from ..knowledge.stalls import describe
from .common import Fmt

SCHEMA = "kernelscope.diagnosis/1"


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _notes(notes, f: Fmt) -> list[dict]:
    """Notes as {"key", "text" (in the output language), "values"}; bare keys get empty values."""
    out = []
    for n in notes:
        key, values = (n, {}) if isinstance(n, str) else (n.key, dict(n.values))
        out.append({"key": key, "text": f.note(n), "values": values})
    return out


def _roofline(r: RooflinePoint | None, f: Fmt) -> dict | None:
    if r is None:
        return None
    d = asdict(r)
    d["not_measured"] = _notes(r.not_measured, f)
    return d


#: Null fields whose reason is more specific than "not recorded in the profile" (JSON Pointer -> note key).
_NULL_REASONS = {
    "/gpu": "no_gpu",
    "/bound": "no_verdict",
    "/speed_of_light/bound": "sol_not_measured",
    "/stalls": "no_stall_metrics",
    "/stalls/cpi_consistency": "cpi_not_comparable",
    "/occupancy/calculated": "occupancy_not_computed",
    "/occupancy/waves_per_sm": "not_derivable",
    "/nsight_compute/sol_bottleneck/bound": "no_ncu_verdict",
    "/nsight_compute/sol_bottleneck/title": "no_ncu_verdict",
}
#: Subtrees not walked for nulls: roofline objects explain their own, note values and Nsight's rule records
#: are quoted as they are.
_OWN_REASONS = ("/roofline", "/roofline_by_pipe", "/nsight_compute/rules", "/provenance", "/evidence", "/notes",
                "/speed_of_light/evidence", "/occupancy/notes", "/gpu/provenance", "/advice")


def null_reasons(doc: dict, f: Fmt, specific: dict | None = None, skip: tuple[str, ...] = (),
                 default: str = "not_in_profile") -> list[dict]:
    """Every null field of ``doc`` as ``{"field": JSON Pointer, "key": reason key, "text": reason}``."""
    specific = specific or {}
    out: list[dict] = []

    def walk(value, pointer: str) -> None:
        if any(pointer == s or pointer.startswith(s + "/") for s in skip):
            return
        if value is None:
            key = specific.get(pointer, default)
            out.append({"field": pointer, "key": key, "text": f.note(key)})
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{pointer}/{str(k).replace('~', '~0').replace('/', '~1')}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{pointer}/{i}")

    walk(doc, "")
    return out


def _roofline_reason(d: KernelDiagnosis) -> str | object:
    if d.gpu is None:
        return "no_gpu"
    peak = [n for n in d.notes if n.key in ("no_peak", "no_peak_fallback")]
    return peak[0] if peak else "no_roofline"


def launch_json(d: KernelDiagnosis, f: Fmt) -> dict:
    """One launch's diagnosis as a JSON-ready dict (with ``not_measured``: the reason for every null)."""
    doc = _launch_json(d, f)
    reasons = null_reasons(doc, f, _NULL_REASONS, _OWN_REASONS)
    if doc["roofline"] is None:
        why = _roofline_reason(d)
        key, text = (why, f.note(why)) if isinstance(why, str) else (why.key, f.note(why))
        reasons.insert(0, {"field": "/roofline", "key": key, "text": text})
    doc["not_measured"] = reasons
    return doc


def _launch_json(d: KernelDiagnosis, f: Fmt) -> dict:
    k = d.kernel
    stalls = None
    if d.stalls is not None:
        stalls = {
            "family": d.stalls.family,
            "unit": {"per_issue_active": "cycles per issued instruction", "pc_sampling": "samples",
                     "given_percent": "percent of stall cycles"}.get(d.stalls.family, "cycles"),
            "total": d.stalls.total,
            "selected": d.stalls.selected_value,
            "cycles_per_issued_instruction": k.cycles_per_issued_instruction,
            "cpi_consistency": d.stalls.cpi_consistency,
            "reasons": [
                {
                    "reason": s.reason,
                    "display_name": f.stall_name(s.reason),
                    "value": s.value,
                    "share_of_all": s.share,
                    "share_of_stalls": s.share_of_stalls,
                    "healthy": describe(s.reason).healthy,
                }
                for s in d.stalls.shares
            ],
        }
    return {
        "index": k.index,
        "name": k.name,
        "demangled_name": k.demangled_name,
        "mangled_name": k.mangled_name,
        "launch_count": k.launch_count,
        "device": asdict(k.device),
        "launch": asdict(k.launch),
        "duration_s": k.duration_s,
        "sm_frequency_hz": k.sm_frequency_hz,
        "gpu": None if d.gpu is None else {
            "name": d.gpu.name, "origin": d.gpu.origin, "measured": d.gpu.measured, "provenance": _notes(d.provenance, f),
        },
        "provenance": _notes(d.provenance, f),
        "bound": d.bound,
        "classes": list(d.verdict),
        "evidence": _notes(d.evidence, f),
        "speed_of_light": {
            "compute_pct": d.sol.compute_pct,
            "memory_pct": d.sol.memory_pct,
            "dram_pct": k.dram_throughput_pct,
            "waves_per_sm": d.sol.waves_per_sm,
            "bound": d.sol.bound,
            "evidence": _notes(d.sol.evidence, f),
        },
        "roofline": _roofline(d.roofline, f),
        "roofline_by_pipe": [_roofline(r, f) for r in d.roofline_by_pipe],
        "notes": _notes(d.notes, f),
        "flop_counts": dict(k.flop_counts),
        "dram_bytes_read": k.dram_bytes_read,
        "dram_bytes_write": k.dram_bytes_write,
        "tensor_pipe_active_pct": k.tensor_pipe_active_pct,
        "tensor_ops_pct": dict(k.tensor_ops_pct),
        "occupancy": {
            "achieved_pct": k.achieved_occupancy_pct,
            "theoretical_pct": k.theoretical_occupancy_pct,
            "calculated": None if d.occupancy is None else {
                "theoretical_pct": d.occupancy.occupancy_pct,
                "active_blocks_per_sm": d.occupancy.active_blocks_per_sm,
                "active_warps_per_sm": d.occupancy.active_warps_per_sm,
                "max_warps_per_sm": d.occupancy.max_warps_per_sm,
                "block_limits": dict(d.occupancy.block_limits),
                "limiters": list(d.occupancy.limiters),
            },
            "waves_per_sm": d.waves_per_sm,
            "notes": _notes(d.occupancy_notes, f),
        },
        "stalls": stalls,
        "advice": [{"id": a, "text": f.advice(a)} for a in d.advice],
        "nsight_compute": {
            "sol_bottleneck": {"bound": d.ncu_bottleneck, "title": d.ncu_bottleneck_title},
            "rules": [asdict(r) for r in k.rules],
        },
        "problems": list(k.problems),
    }


def to_json_data(results: Sequence[ReportDiagnosis], lang: str) -> dict:
    """The whole JSON document as a dict (see module docstring)."""
    f = Fmt(lang)
    return _clean({
        "schema": SCHEMA,
        "kernelscope_version": __version__,
        "lang": lang,
        "inputs": [
            {
                "path": res.report.path,
                "format": res.report.format,
                "tool_version": res.report.tool_version,
                "launch_count": len(res.report.kernels),
                "summary": [asdict(g) for g in res.groups],
                "launches": [launch_json(d, f) for d in res.kernels],
            }
            for res in results
        ],
    })


def to_json_text(results: Sequence[ReportDiagnosis], lang: str) -> str:
    """:func:`to_json_data` serialised with 2-space indentation, non-ASCII kept (Chinese advice)."""
    return json.dumps(to_json_data(results, lang), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

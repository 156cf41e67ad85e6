"""Results as Arrow tables: the rows of a Parquet dataset, of DuckDB queries and of notebook DataFrames.

Every value is taken from the JSON documents (:mod:`kernelscope.render.json`, :mod:`kernelscope.render.timeline`),
so a table holds the same fields in the same units as ``--format json``: seconds ``*_s``, percentages ``*_pct``
(0-100), fractions 0-1 ``*_share``, FLOP/s, bytes; a value that was not measured is null.

* :func:`diagnosis_table` -- one row per diagnosed launch (``diagnose``; the dataset's ``launches`` table);
* :func:`timeline_table` -- one row per kernel per device of a rank (``timeline``; ``timeline_kernels``), one row
  per kernel with rank and device null where the input holds no per-device intervals (an ``nsys stats`` summary).

pyarrow is the optional extra ``kernelscope[dataset]``: without it :func:`require_pyarrow` raises an
:class:`~kernelscope.errors.InputError` that says so.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import InputError
from ..version import __version__
from .common import Fmt

if TYPE_CHECKING:
    import pyarrow as pa

    from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
    from ..analysis.timeline import TimelineReport

#: The line a missing optional dependency gives.

#: The diagnose table: column -> Arrow type name (see :func:`_types`).
LAUNCH_COLUMNS: dict[str, str] = {
    "file": "string", "format": "string", "launch_index": "int64", "name": "string", "demangled_name": "string",
    "device_name": "string", "grid": "triple", "block": "triple", "registers_per_thread": "int64",
    "duration_s": "float64", "sm_frequency_hz": "float64", "gpu": "string", "bound": "string", "verdict": "strings",
    "sol_compute_pct": "float64", "sol_memory_pct": "float64", "sol_dram_pct": "float64", "sol_bound": "string",
    "roofline_pipe": "string", "flops": "float64", "dram_bytes": "float64",
    "arithmetic_intensity_flop_per_byte": "float64", "achieved_flops_per_s": "float64",
    "attainable_flops_per_s": "float64", "achieved_bytes_per_s": "float64", "roofline_efficiency": "float64",
    "roofline_bound": "string", "occupancy_theoretical_pct": "float64", "occupancy_achieved_pct": "float64",
    "waves_per_sm": "float64", "top_stall": "string", "top_stall_share": "float64", "top_finding": "string",
    "top_finding_estimated_speedup": "float64", "top_finding_estimated_speedup_pct": "float64",
    "top_finding_program_time_saved_share": "float64", "findings": "strings", "useful_flops": "float64",
    "kernelscope_version": "string",
}

#: The timeline table: column -> Arrow type name.
TIMELINE_COLUMNS: dict[str, str] = {
    "file": "string", "format": "string", "title": "string", "position": "int64", "name": "string",
    "rank": "int64", "device": "int64", "count": "int64", "total_s": "float64", "busy_s": "float64",
    "exclusive_s": "float64", "time_s": "float64", "share_pct": "float64", "kernel_count": "int64",
    "kernel_total_s": "float64", "kernel_share_pct": "float64", "kernel_mean_s": "float64",
    "kernel_min_s": "float64", "kernel_max_s": "float64", "kernel_median_s": "float64",
    "program_fraction": "float64", "graph_launches": "int64", "grid": "triple", "block": "triple",
    "truncated": "bool", "kernelscope_version": "string",
}


def require_pyarrow() -> Any:
    """The ``pyarrow`` module.

    Raises:
        InputError: pyarrow is not installed (it names the ``kernelscope[dataset]`` extra).
    """
    try:
        import pyarrow
    except ImportError:
        raise InputError("pyarrow", key="dataset_extra_missing") from None
    return pyarrow


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _triple(value: Any) -> list[int] | None:
    return None if value is None else [int(v) for v in value]


def _launch_row(res: ReportDiagnosis, d: KernelDiagnosis, f: Fmt) -> dict[str, Any]:
    from .json import launch_doc

    doc = launch_doc(d, f)
    r, occ, st = doc.roofline, doc.occupancy, doc.stalls
    top = d.advice_findings[0] if d.advice_findings else None  # the finding diagnose leads its advice with
    top_doc = None if top is None else next((x for x in doc.findings if x.id == top.id), None)
    speedup = None if top_doc is None else top_doc.estimated_speedup
    stall = st.reasons[0] if st is not None and st.reasons else None
    return {
        "file": res.report.path, "format": res.report.format, "launch_index": doc.index, "name": doc.name,
        "demangled_name": doc.demangled_name, "device_name": doc.device.display_name,
        "grid": _triple(doc.launch.grid), "block": _triple(doc.launch.block),
        "registers_per_thread": doc.launch.registers_per_thread, "duration_s": doc.duration_s,
        "sm_frequency_hz": doc.sm_frequency_hz, "gpu": None if doc.gpu is None else doc.gpu.name,
        "bound": doc.bound, "verdict": list(doc.classes),
        "sol_compute_pct": doc.speed_of_light.compute_pct, "sol_memory_pct": doc.speed_of_light.memory_pct,
        "sol_dram_pct": doc.speed_of_light.dram_pct, "sol_bound": doc.speed_of_light.bound,
        "roofline_pipe": None if r is None else r.pipe, "flops": None if r is None else r.flops,
        "dram_bytes": None if r is None else r.dram_bytes,
        "arithmetic_intensity_flop_per_byte": None if r is None else r.arithmetic_intensity_flop_per_byte,
        "achieved_flops_per_s": None if r is None else r.achieved_flops_per_s,
        "attainable_flops_per_s": None if r is None else r.attainable_flops_per_s,
        "achieved_bytes_per_s": None if r is None else r.achieved_bytes_per_s,
        "roofline_efficiency": None if r is None else r.efficiency, "roofline_bound": None if r is None else r.bound,
        "occupancy_theoretical_pct": occ.theoretical_pct, "occupancy_achieved_pct": occ.achieved_pct,
        "waves_per_sm": occ.waves_per_sm, "top_stall": None if stall is None else stall.reason,
        "top_stall_share": None if stall is None else stall.share_of_stalls,
        "top_finding": None if top is None else top.id, "top_finding_estimated_speedup": speedup,
        "top_finding_estimated_speedup_pct": None if not speedup else 100.0 * (1.0 - 1.0 / speedup),
        "top_finding_program_time_saved_share": None if top_doc is None else top_doc.program_time_saved_share,
        "findings": [x.id for x in doc.findings], "useful_flops": doc.useful_flops,
        "kernelscope_version": __version__,
    }


def diagnosis_rows(results: Sequence[ReportDiagnosis]) -> list[dict[str, Any]]:
    """One dict per diagnosed launch (keys: :data:`LAUNCH_COLUMNS`), in input then report order."""
    f = Fmt("en")
    return [{k: _finite(v) for k, v in _launch_row(res, d, f).items()} for res in results for d in res.kernels]


def _kernel_rows(rep: Any, item: Any, position: int) -> list[dict[str, Any]]:
    shape = item.launch
    base = {
        "file": rep.path, "format": rep.format, "title": rep.title, "position": position, "name": item.name,
        "kernel_count": item.count, "kernel_total_s": item.total_s, "kernel_share_pct": item.share_pct,
        "kernel_mean_s": item.mean_s, "kernel_min_s": item.min_s, "kernel_max_s": item.max_s,
        "kernel_median_s": item.median_s, "program_fraction": item.program_fraction,
        "graph_launches": item.graph_launches, "grid": None if shape is None else _triple(shape.grid),
        "block": None if shape is None else _triple(shape.block), "truncated": item.truncated,
        "kernelscope_version": __version__,
    }
    if not item.devices:  # a summary: the kernel as a whole
        return [{**base, "rank": None, "device": None, "count": item.count, "total_s": item.total_s, "busy_s": None,
                 "exclusive_s": item.exclusive_s, "time_s": None, "share_pct": None}]
    return [{**base, "rank": s.rank, "device": s.device, "count": s.count, "total_s": s.total_s, "busy_s": s.busy_s,
             "exclusive_s": s.exclusive_s, "time_s": s.time_s, "share_pct": s.share_pct} for s in item.devices]


def timeline_rows(reports: Sequence["TimelineReport"]) -> list[dict[str, Any]]:
    """One dict per kernel per device (keys: :data:`TIMELINE_COLUMNS`), each report's kernels largest first."""
    from .timeline import timeline_doc

    doc = timeline_doc(reports, "en")
    return [{k: _finite(v) for k, v in row.items()}
            for rep in doc.reports for i, item in enumerate(rep.kernels, 1) for row in _kernel_rows(rep, item, i)]


def _types(pa: Any) -> dict[str, Any]:
    return {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(),
            "strings": pa.list_(pa.string()), "triple": pa.list_(pa.int64())}


def schema(columns: dict[str, str]) -> "pa.Schema":
    """The Arrow schema of a table of ``columns`` (:data:`LAUNCH_COLUMNS`, :data:`TIMELINE_COLUMNS`)."""
    pa = require_pyarrow()
    types = _types(pa)
    return pa.schema([(name, types[kind]) for name, kind in columns.items()])


def _table(rows: list[dict[str, Any]], columns: dict[str, str]) -> "pa.Table":
    pa = require_pyarrow()
    return pa.Table.from_pylist(rows, schema=schema(columns))


def diagnosis_table(results: Sequence[ReportDiagnosis]) -> "pa.Table":
    """The diagnoses as an Arrow table: one row per launch (:func:`diagnosis_rows`).

    Raises:
        InputError: pyarrow is not installed.
    """
    require_pyarrow()
    return _table(diagnosis_rows(results), LAUNCH_COLUMNS)


def timeline_table(reports: Sequence["TimelineReport"]) -> "pa.Table":
    """The timeline reports' kernels as an Arrow table: one row per kernel per device (:func:`timeline_rows`).

    Raises:
        InputError: pyarrow is not installed.
    """
    require_pyarrow()
    return _table(timeline_rows(reports), TIMELINE_COLUMNS)

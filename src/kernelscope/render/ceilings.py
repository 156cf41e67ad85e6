"""What ``kernelscope ceilings`` shows and writes: the table of measured ceilings next to the datasheet figures (with
a line per quantity on how it was measured), the ``kernelscope.ceilings/1`` JSON document, and the text of the spec
file (TOML or JSON) that ``--spec`` reads. No measuring and no analysis here."""

from __future__ import annotations

import json
import math
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from ..analysis.ceilings import BANDWIDTH, CeilingRow, CeilingsRun
from ..model import GpuSpec
from ..version import __version__
from .common import Fmt
from .documents import encode
from .documents.ceilings import CeilingDoc, CeilingsDoc, MeasuredGpuDoc

__all__ = ["CEILINGS_SCHEMA", "ceilings_doc", "ceilings_json", "ceilings_renderables", "spec_text"]

CEILINGS_SCHEMA = "kernelscope.ceilings/1"


def quantity_name(quantity: str, f: Fmt) -> str:
    """``dram_bandwidth`` or a pipe, in the language of ``f``."""
    return f.label("ceilings_bandwidth") if quantity == BANDWIDTH else f.pipe(quantity)


def _value(value: float | None, unit: str) -> str:
    """A rate in the unit of its kind, as the catalogue gives it: GB/s for bandwidth, TFLOP/s for a pipe."""
    if value is None:
        return "-"
    return f"{value / 1e9:.4g} GB/s" if unit == "bytes/s" else f"{value / 1e12:.4g} TFLOP/s"


def ceilings_table(run: CeilingsRun, rows: tuple[CeilingRow, ...], f: Fmt) -> Table:
    """The measured ceilings, the datasheet figures and measured / datasheet, one row per quantity."""
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 0, 0, 1))
    t.add_column(f.label("ceilings_quantity"), overflow="fold")
    for key in ("ceilings_measured", "ceilings_datasheet", "ceilings_ratio"):
        t.add_column(f.label(key), justify="right", no_wrap=True)
    for r in rows:
        ratio = "-" if r.ratio is None else f"{r.ratio * 100:.1f}%"
        t.add_row(Text(quantity_name(r.quantity, f)), _value(r.measured, r.unit), _value(r.datasheet, r.unit), ratio)
    return t


def ceilings_lines(run: CeilingsRun, rows: tuple[CeilingRow, ...], datasheet: GpuSpec | None, f: Fmt,
                   spec_file: str | None = None) -> list[Text]:
    """The lines under the table: where the datasheet figures come from, how each quantity was measured (or why it
    was not), and the spec file written."""
    lines = [Text(f.label("ceilings_datasheet_of", gpu=datasheet.name) if datasheet is not None
                  else f.label("ceilings_no_datasheet", gpu=run.device_name))]
    for r in rows:
        m = run.get(r.quantity)
        name = quantity_name(r.quantity, f)
        if m is not None:
            lines.append(Text(f.label("ceilings_method", name=name, method=m.method, time=f.time(m.median_s))))
        else:
            lines.append(Text(f.label("ceilings_not_measured", name=name, reason=r.reason or "-")))
    if spec_file is not None:
        lines.append(Text(f.label("ceilings_spec_written", path=spec_file)))
    return lines


def ceilings_renderables(run: CeilingsRun, rows: tuple[CeilingRow, ...], datasheet: GpuSpec | None, lang: str,
                         spec_file: str | None = None) -> list[Any]:
    """The title line, the table and the lines under it, for the terminal or a plain-text file."""
    f = Fmt(lang)
    title = Text(f.label("ceilings_title", gpu=run.device_name, backend=run.backend, date=run.date,
                         repeats=run.repeats), style="bold")
    return [title, ceilings_table(run, rows, f), *ceilings_lines(run, rows, datasheet, f, spec_file)]


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def ceilings_doc(run: CeilingsRun, rows: tuple[CeilingRow, ...], datasheet: GpuSpec | None, lang: str = "en",
                 spec_file: str | None = None) -> CeilingsDoc:
    """The ``kernelscope.ceilings/1`` document."""
    f = Fmt(lang)
    items = []
    for r in rows:
        m = run.get(r.quantity)
        items.append(CeilingDoc(
            quantity=r.quantity, name=quantity_name(r.quantity, f), unit=r.unit,  # type: ignore[arg-type]
            measured=_finite(r.measured), datasheet=_finite(r.datasheet), ratio=_finite(r.ratio),
            median_s=None if m is None else m.median_s, work=None if m is None else m.work,
            samples_s=[] if m is None else list(m.seconds), operations_per_sample=None if m is None else m.per_sample,
            method=None if m is None else m.method, not_measured=r.reason if m is None else None,
        ))
    return CeilingsDoc(
        schema=CEILINGS_SCHEMA, kernelscope_version=__version__, lang=f.lang,  # type: ignore[arg-type]
        gpu=MeasuredGpuDoc(name=run.device_name, compute_capability=run.compute_capability, sm_count=run.sm_count),
        backend=run.backend, date=run.date, repeats=run.repeats, source=run.source,
        datasheet_gpu=None if datasheet is None else datasheet.name, spec_file=spec_file, ceilings=items,
    )


def ceilings_json(run: CeilingsRun, rows: tuple[CeilingRow, ...], datasheet: GpuSpec | None, lang: str = "en",
                  spec_file: str | None = None) -> str:
    """:func:`ceilings_doc` as JSON text."""
    return encode(ceilings_doc(run, rows, datasheet, lang, spec_file))


# ------------------------------------------------------------------------------------------ the spec file

_SPEC_HEADER = (
    "# GPU ceilings measured by kernelscope ceilings (not datasheet figures): give this file to --spec,\n"
    "# e.g. kernelscope diagnose REPORT --spec {name}. Peaks are dense rates in FLOP/s, the bandwidth in bytes/s;\n"
    "# a pipe that was not measured is absent.\n"
)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.6g}"
        return text if any(c in text for c in ".en") else text + ".0"
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a TOML basic string


def spec_text(fields: dict, fmt: str = "toml", name: str = "SPEC.toml") -> str:
    """The spec file's text: ``fields`` (:func:`kernelscope.analysis.ceilings.spec_fields`) as TOML (a comment, the
    plain fields, then one table per nested table) or as JSON (``fmt="json"``); ``name``: the file, for the comment."""
    if fmt == "json":
        return json.dumps(fields, indent=2, ensure_ascii=False) + "\n"
    lines = [_SPEC_HEADER.format(name=name)]
    tables: list[tuple[str, dict]] = []
    for key, value in fields.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {_toml_value(value)}\n")
    while tables:
        path, table = tables.pop(0)
        lines.append(f"\n[{path}]\n")
        for key, value in table.items():
            if isinstance(value, dict):
                tables.append((f"{path}.{key}", value))
            else:
                lines.append(f"{key} = {_toml_value(value)}\n")
    return "".join(lines)

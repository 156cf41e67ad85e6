"""Rendering of two compared datasets (:class:`kernelscope.analysis.compare_datasets.DatasetComparison`) as table,
Markdown or JSON, in the wording of :mod:`kernelscope.render.compare`."""

from __future__ import annotations


from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..analysis.compare_datasets import DatasetComparison, KernelAggregate, Key, key_text
from ..version import __version__
from .rich_text import md_spaced, to_plain
from .common import Fmt, md_cell, short_name
from .compare import _regressions_line, _speed, names_list, noise_text, speed_noise, unmatched_line
from .documents import encode
from .documents.compare_datasets import CompareDatasetsDoc, DatasetKernelDoc, DatasetSideDoc, KernelKeyDoc
from .fit import drop_first
from .json import finite

SCHEMA = "kernelscope.compare-datasets/1"


def _names(keys: tuple[tuple[Key, KernelAggregate], ...], f: Fmt) -> str:
    return names_list(tuple(k[0][0] for k in keys), f)


def _dims(d: tuple[int, ...] | None, f: Fmt) -> str:
    """A grid or block shape, ``256x1x1``; its grid and block are parted by " / " (not a range's "～")."""
    return f.nm if d is None else "x".join(str(v) for v in d)


def _summary(c: DatasetComparison, f: Fmt) -> list[str]:
    lines = [f.label("dsc_title", before=c.launches_before, after=c.launches_after),
             f.head(f.label("matched_kernels", n=len(c.kernels)), f.arrow.join(f.times(c.matched_before_s, c.matched_after_s)) + f.semi + speed_noise(c.speedup, noise_text(c.noise[1], c.noise[0], f), f,
                                                                                              c.noise[1] is False))]
    if c.unmatched_before or c.unmatched_after:
        lines.append(unmatched_line(c.unmatched_before_s, _names(c.unmatched_before, f) if c.unmatched_before else None,
                                    c.unmatched_after_s, _names(c.unmatched_after, f) if c.unmatched_after else None, f))
        lines.append(f.head(f.label("all_kernels"), f.arrow.join(f.times(c.total_before_s, c.total_after_s))))
    return lines


def _rows(c: DatasetComparison, f: Fmt) -> list[tuple[str, ...]]:
    return [(short_name(k.name) + (f.arrow + short_name(k.after_name) if k.after_name else ""), f"{_dims(k.grid, f)} / {_dims(k.block, f)}" if k.grid or k.block else f.nm,
             f"{k.before.count}{f.arrow}{k.after.count}", *f.times(k.before.median_s, k.after.median_s),
             _speed(k.speedup, f), f.arrow.join(f.times(k.before.total_s, k.after.total_s))) for k in c.kernels]


def _heads(f: Fmt) -> tuple[str, ...]:
    return (f.label("kernel"), f.label("dsc_shape"), f.label("dsc_launches"),
            f.spaced(f.label("before"), f.label("dsc_median")), f.spaced(f.label("after"), f.label("dsc_median")),
            f.label("speedup"), f.label("dsc_total"))


def to_table(c: DatasetComparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> list:
    """rich renderables: the summary lines, one table of the matched kernels, the regressions line last."""
    f = Fmt(lang)
    out: list = [Text(line, style="bold") for line in _summary(c, f)]
    t = Table(box=box.SIMPLE_HEAD)
    for i, head in enumerate(_heads(f)):
        t.add_column(head, overflow="fold", justify="left" if i < 2 else "right")
    for row in _rows(c, f):
        t.add_row(*(Text(x) for x in row))
    out.append(drop_first(t, 1, 3, 4))  # narrow: the speedup stays, shapes and medians go first
    if threshold_pct is not None:
        out += [Text(""), Text(_regressions_line(regressions, threshold_pct, f, c), style="bold")]
    return [Group(*out)]


def to_text(c: DatasetComparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None,
            width: int | None = None) -> str:
    """Plain text (no colour codes) of :func:`to_table`."""
    return to_plain(list(to_table(c, lang, regressions, threshold_pct)), width)


def to_markdown(c: DatasetComparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> str:
    """Markdown for a pull-request or nightly report: the summary, one table of the matched kernels, regressions."""
    f = Fmt(lang)
    cell = md_cell
    lines = [f"## {f.label('compare_title')}", ""] + [f"- {cell(x)}" for x in _summary(c, f)] + [""]
    lines += ["| " + " | ".join(_heads(f)) + " |", "|---|---|---:|---:|---:|---:|---:|"]
    lines += [f"| `{cell(r[0])}` | " + " | ".join(cell(x) for x in r[1:]) + " |" for r in _rows(c, f)]
    if threshold_pct is not None:
        lines += ["", f"**{cell(_regressions_line(regressions, threshold_pct, f, c))}**"]
    return md_spaced("\n".join(lines))


def _key_doc(key: Key, x: KernelAggregate) -> KernelKeyDoc:
    return KernelKeyDoc(name=key[0], grid=key[1], block=key[2], total_s=x.total_s)  # type: ignore[arg-type]


def to_json(c: DatasetComparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> str:
    """JSON document (schema ``kernelscope.compare-datasets/1``, ``schemas/compare-datasets-1.schema.json``)."""
    kernels = []
    for k in c.kernels:
        slower = k.slower_by()
        kernels.append(DatasetKernelDoc(
            name=k.name, grid=k.grid, block=k.block,  # type: ignore[arg-type]
            before=DatasetSideDoc(launches=k.before.count, median_s=k.before.median_s, total_s=k.before.total_s,
                                  noise=finite(k.before.noise)),
            after=DatasetSideDoc(launches=k.after.count, median_s=k.after.median_s, total_s=k.after.total_s,
                                 noise=finite(k.after.noise)),
            speedup=finite(k.speedup), slower_pct=finite(100.0 * slower) if slower is not None and slower > 0 else None,
            beyond_noise=k.significance[1], after_name=k.after_name))
    return encode(CompareDatasetsDoc(
        schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
        launches_before=c.launches_before, launches_after=c.launches_after,
        matched_before_s=c.matched_before_s, matched_after_s=c.matched_after_s, speedup=finite(c.speedup),
        unmatched_before_s=c.unmatched_before_s, unmatched_after_s=c.unmatched_after_s,
        unmatched_before=[_key_doc(k, x) for k, x in c.unmatched_before],
        unmatched_after=[_key_doc(k, x) for k, x in c.unmatched_after],
        fail_if_slower_pct=threshold_pct, regressions=list(regressions), kernels=kernels,
        noise=finite(c.noise[0]), beyond_noise=c.noise[1], unmatched_growth=finite(c.unmatched_growth),
    ))


__all__ = ["SCHEMA", "key_text", "to_json", "to_markdown", "to_table", "to_text"]

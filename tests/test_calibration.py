"""Calibration of kernelscope's estimated speedups: docs/calibration.md's table of predicted vs measured speedups is
recomputed here from the shared corpus, row by row, so the document cannot drift from what the code says; and the
prediction field of a compared kernel (``KernelComparison.predicted``) is checked on hand-made diagnoses."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, REPO, need
from kernelscope.analysis.compare import compare, predicted_speedups
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.engine import Finding
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.notes import Note

DOC = REPO / "docs" / "calibration.md"
#: A verdict is "close" when predicted and measured differ by at most this factor.
CLOSE = 1.05
_TICKS = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Row:
    """One row of the calibration table, as printed."""

    number: str
    reports: tuple[str, ...]  # one report, or BEFORE report and AFTER report
    before: str  # kernel name, or name#launch-index
    after: str
    findings: tuple[tuple[str, str], ...]  # (finding id, printed estimate "1.25x"), as printed
    change_finding: str | None  # the finding that corresponds to the change made, None for "none"
    predicted: str  # "1.25x" or "-"
    measured: str  # "7.71x"
    verdict: str


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_table(text: str) -> list[Row]:
    """The rows of the first Markdown table whose header starts with ``| # | report |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| # | report |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        c = _cells(line)
        reports = tuple(_TICKS.findall(c[1]))
        before, after = _TICKS.findall(c[2])
        findings = tuple(re.findall(r"`([a-z0-9_]+)` (\d+\.\d+x)", c[4]))
        change = _TICKS.findall(c[5])
        rows.append(Row(c[0], reports, before, after, findings, change[0] if change else None, c[6], c[7], c[8]))
    return rows


@cache
def _diagnosed(report: str):
    from kernelscope import diagnose_file

    return diagnose_file(need(CORPUS_NCU / report)).kernels


def _launches(report: str, spec: str):
    """The diagnosed launches of ``spec``: ``name`` (every launch of that name) or ``name#index`` (one launch)."""
    name, _, index = spec.partition("#")
    chosen = [d for d in _diagnosed(report) if d.kernel.name == name and (not index or d.kernel.index == int(index))]
    assert chosen, f"{spec} is not in {report}"
    return chosen


def recompute(row: Row):
    """(comparison of the pair, the BEFORE launches) as ``kernelscope compare`` computes it."""
    before = _launches(row.reports[0], row.before)
    after = _launches(row.reports[-1], row.after)
    result = compare(before, after, program=False) if before[0].kernel.name == after[0].kernel.name else \
        compare(before, after, [(f"^{row.before}$", f"^{row.after}$")], program=False)
    assert len(result.pairs) == 1
    return result.pairs[0], before


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def test_the_table_parses():
    """The document exists and its table has the rows the issue asks for (the ESMM ladder, naive vs tiled GEMM, the
    shared-memory reduction, divergence, misaligned reads)."""
    rows = parse_table(DOC.read_text(encoding="utf-8"))
    assert len(rows) >= 10
    pairs = {(r.before, r.after) for r in rows}
    assert {("basic", "gmem_coalesce"), ("naive_gemm", "matmul_tiled"), ("reduceGmem", "reduceSmem"),
            ("kernel1", "kernel2")} <= pairs
    assert [r.number for r in rows] == [str(i) for i in range(1, len(rows) + 1)]


_ROWS = parse_table(DOC.read_text(encoding="utf-8")) if DOC.exists() else []


@pytest.mark.parametrize("row", _ROWS, ids=[f"{r.number}:{r.before}->{r.after}" for r in _ROWS])
def test_row_matches_the_code(row: Row):
    """Each row's findings, predicted and measured speedups are what the code computes now, to the printed
    precision; the verdict's word agrees with the numbers."""
    if not CORPUS_NCU.is_dir():
        pytest.skip(f"shared corpus not available: {CORPUS_NCU} is absent")
    pair, before = recompute(row)
    assert tuple((i, _x(x)) for i, x in pair.predicted) == row.findings, "findings with estimates on BEFORE"
    assert _x(pair.speedup) == row.measured, "measured speedup (median duration ratio)"
    found = {f.id for d in before for f in d.findings}
    if row.change_finding is not None:
        assert row.change_finding in found, f"{row.change_finding} is not among the BEFORE findings"
    predicted = dict(pair.predicted).get(row.change_finding) if row.change_finding else None
    assert _x(predicted) == row.predicted, "predicted speedup of the finding for the change"
    _check_verdict(row, predicted, pair.speedup)


def _check_verdict(row: Row, predicted: float | None, measured: float | None) -> None:
    v = row.verdict.lower()
    if v.startswith(("not comparable", "control")):
        return
    if v.startswith("no finding"):
        assert row.change_finding is None
    elif v.startswith("no estimate"):
        assert row.change_finding is not None and predicted is None
    else:
        assert predicted is not None and measured is not None, row.verdict
        ratio = measured / predicted
        word = "close" if max(ratio, 1 / ratio) <= CLOSE else "under-predicted" if ratio > 1 else "over-predicted"
        assert v.startswith(word), f"verdict {row.verdict!r}, but predicted {predicted:.2f}x vs measured {measured:.2f}x is {word}"


def test_read_offsets_are_the_ones_the_document_names():
    """Rows 15-17 name readOffset's launches by their offsets 0, 11, 128: the ideal global sectors of the three
    arrays (A, B read, C written) are 3 x ceil((2^24 - offset) x 4 B / 32 B), and only offset 11 fetches excess."""
    ncu_report = pytest.importorskip("ncu_report")
    ctx = ncu_report.load_report(str(need(CORPUS_NCU / "Lashi0812__CudaProgramming__profile.ncu-rep")))
    rng = ctx.range_by_idx(0)
    got = []
    for i in range(rng.num_actions()):
        a = rng.action_by_idx(i)
        got.append((a["memory_l2_theoretical_sectors_global_ideal"].as_double(),
                    a["memory_l2_theoretical_sectors_global"].as_double()))
    ideal = [3 * math.ceil((2**24 - offset) * 4 / 32) for offset in (0, 11, 128)]
    assert [g[0] for g in got] == ideal == [6291456, 6291453, 6291408]
    assert [g[1] > g[0] for g in got] == [False, True, False]


# -- the prediction field on hand-made diagnoses (no corpus) -------------------------------------------------------

GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})


def _d(name: str, duration_s: float, findings: tuple[Finding, ...]):
    k = KernelProfile(index=0, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=(10, 1, 1), block=(256, 1, 1)), duration_s=duration_s)
    return replace(diagnose(k, GPU), findings=findings)


def _f(fid: str, est: float | None) -> Finding:
    return Finding(fid, "optimization", Note("x"), estimated_speedup=est, speedup_note=None if est else "not estimated")


def test_predicted_is_the_before_sides_estimates_largest_first():
    before = _d("k", 2e-3, (_f("tail_effect", 1.25), _f("l2_bound", None), _f("uncoalesced_global", 1.8),
                            _f("shared_bank_conflicts", 1.1), _f("uncoalesced_global", 1.3)))
    after = _d("k", 1e-3, (_f("tail_effect", 3.0),))  # the AFTER side's findings do not count
    p = compare([before], [after]).pairs[0]
    assert p.predicted == (("uncoalesced_global", 1.8), ("tail_effect", 1.25), ("shared_bank_conflicts", 1.1))
    assert p.predicted_top == ("uncoalesced_global", 1.8)
    assert p.speedup == pytest.approx(2.0)
    assert predicted_speedups(before) == p.predicted


def test_no_estimate_means_an_empty_prediction():
    before = _d("k", 2e-3, (_f("l2_bound", None),))
    p = compare([before], [_d("k", 1e-3, ())]).pairs[0]
    assert p.predicted == () and p.predicted_top is None


def test_prediction_rendered_in_every_format():
    import json

    from kernelscope.render.compare import to_json, to_markdown, to_text

    before = _d("k", 2e-3, (_f("tail_effect", 1.25),))
    c = compare([before], [_d("k", 1e-3, ())])
    assert "tail_effect 1.25x; measured 2.00x" in to_text(c, "en")
    assert "tail_effect 1.25×；实测 2.00×" in to_markdown(c, "zh")
    doc = json.loads(to_json(c, "en"))
    assert doc["kernels"][0]["predicted"] == [{"finding_id": "tail_effect", "estimated_speedup": 1.25}]
    empty = compare([_d("k", 2e-3, ())], [_d("k", 1e-3, ())])
    assert "no finding with an estimate" in to_text(empty, "en")


def test_the_verdict_check_can_fail():
    row = Row("1", ("r",), "a", "b", (), "tail_effect", "1.25x", "2.00x", "close")
    with pytest.raises(AssertionError):
        _check_verdict(row, 1.25, 2.0)
    _check_verdict(replace(row, verdict="under-predicted 1.25x vs 2.00x"), 1.25, 2.0)
    with pytest.raises(AssertionError):
        _check_verdict(replace(row, verdict="no finding for this cause"), 1.25, 2.0)
    assert math.isclose(CLOSE, 1.05)

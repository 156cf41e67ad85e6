"""``kernelscope compare DIR_BEFORE DIR_AFTER`` over two Parquet datasets: per-kernel aggregation, speedups, the
regression gate, and the one line for a dataset against a report."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from conftest import CORPUS_NCU, corpus_reports, need
from kernelscope.analysis.compare_datasets import compare_datasets
from kernelscope.cli import main

pa = pytest.importorskip("pyarrow", reason="pyarrow is the dataset extra: pip install '.[dataset]'")
pq = pytest.importorskip("pyarrow.parquet")


def _report():
    need(CORPUS_NCU)
    reports = corpus_reports()
    if not reports:
        pytest.skip("no .ncu-rep in the corpus")
    return reports[0]


def _table(directory):
    return pa.concat_tables([pq.read_table(f) for f in sorted((directory / "launches").glob("part-*.parquet"))])


def _slowed(src, dst, factor):
    """A copy of the dataset ``src`` at ``dst`` whose first kernel's launches take ``factor`` x as long."""
    table = _table(src)
    rows = table.to_pylist()
    first = rows[0]["demangled_name"] or rows[0]["name"]
    for r in rows:
        if (r["demangled_name"] or r["name"]) == first and r["duration_s"] is not None:
            r["duration_s"] *= factor
    (dst / "launches").mkdir(parents=True)
    (dst / "kernelscope-dataset.json").write_text(
        json.dumps({"schema": "kernelscope.dataset/1", "tables": ["launches", "timeline_kernels"]}) + "\n")
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), dst / "launches" / "part-0.parquet")
    return first


@pytest.fixture
def datasets(tmp_path):
    report = _report()
    before, after = tmp_path / "before", tmp_path / "after"
    assert main(["diagnose", str(report), "--format", "parquet", "-o", str(before), "--jobs", "1"]) == 0
    name = _slowed(before, after, 1.2)
    return before, after, name, report


def test_pure_aggregation_by_hand():
    t = pa.table({"name": ["k", "k", "k", "j"], "demangled_name": ["k()", "k()", "k()", None],
                  "grid": [[1, 1, 1]] * 4, "block": [[32, 1, 1]] * 4, "duration_s": [1.0, 3.0, 2.0, 5.0]})
    u = pa.table({"name": ["k", "k", "m"], "demangled_name": ["k()", "k()", None],
                  "grid": [[1, 1, 1]] * 3, "block": [[32, 1, 1]] * 3, "duration_s": [4.0, 2.0, 7.0]})
    c = compare_datasets(t, u)
    (k,) = c.kernels
    assert (k.name, k.before.count, k.before.median_s, k.before.total_s) == ("k()", 3, 2.0, 6.0)
    assert (k.after.count, k.after.median_s, k.after.total_s) == (2, 3.0, 6.0)
    assert math.isclose(k.speedup, 2.0 / 3.0)
    assert c.speedup == 1.0  # matched only: 6 s -> 6 s
    assert (c.unmatched_before_s, c.unmatched_after_s) == (5.0, 7.0)
    assert [key[0] for key, _ in c.unmatched_before] == ["j"] and [key[0] for key, _ in c.unmatched_after] == ["m"]
    # noise: before 1, 3, 2 s -> stdev 1 / mean 2 = 50 %; after 4, 2 -> sqrt(2) / 3 = 47.1 %; the median's +50 % is
    # within the larger (50 %): not a regression at any threshold
    assert math.isclose(k.before.noise, 0.5) and math.isclose(k.after.noise, math.sqrt(2) / 3)
    assert k.significance == (0.5, False)
    assert c.regressions(0.4) == ()
    # after-only 7 s vs before-only 5 s: +2 s of the BEFORE total 11 s = 18.2 % -> gated beyond 10 %, not 20 %
    assert math.isclose(c.unmatched_growth, 2 / 11)
    assert c.regressions(0.1) == ("unmatched",) and c.regressions(0.2) == ()


def test_json_speedups_match_a_hand_computation(datasets, capsys):
    before, after, name, _ = datasets
    assert main(["compare", str(before), str(after), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "kernelscope.compare-datasets/1"
    rows = _table(before).to_pylist()
    durations = [r["duration_s"] for r in rows if (r["demangled_name"] or r["name"]) == name]
    (k,) = [k for k in doc["kernels"] if k["name"] == name][:1]
    assert math.isclose(k["before"]["median_s"], statistics.median(durations))
    assert math.isclose(k["after"]["median_s"], 1.2 * statistics.median(durations))
    assert math.isclose(k["speedup"], 1 / 1.2) and math.isclose(k["slower_pct"], 20.0)
    total = math.fsum(r["duration_s"] for r in rows if r["duration_s"] is not None)
    assert math.isclose(doc["matched_before_s"], total)
    slowed = math.fsum(durations)
    assert math.isclose(doc["speedup"], total / (total + 0.2 * slowed))
    assert doc["unmatched_before"] == [] and doc["unmatched_after"] == []
    jsonschema = pytest.importorskip("jsonschema")
    from kernelscope.render.documents import schema
    jsonschema.validate(doc, schema("compare-datasets-1.schema.json"))


def test_gate_names_the_regressed_kernel(datasets, capsys):
    before, after, name, _ = datasets
    assert main(["compare", str(before), str(after), "--fail-if-slower", "5%", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    line = [x for x in out.splitlines() if x.startswith("**Regressions beyond 5%")][0]
    assert name.replace("|", "\\|")[:20] in line
    assert "% slower" in out and "Matched kernels" in out


def test_no_regression_exits_0(datasets, capsys):
    before, after, _, _ = datasets
    assert main(["compare", str(before), str(after), "--fail-if-slower", "25"]) == 0
    assert "Regressions beyond 25%: -" in capsys.readouterr().out
    assert main(["compare", str(after), str(before), "--fail-if-slower", "5", "--lang", "zh"]) == 0  # faster


def test_dataset_against_a_report_is_one_line_exit_2(datasets, capsys):
    before, _, _, report = datasets
    assert main(["compare", str(before), str(report)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "dataset" in err
    assert main(["compare", str(report), str(before)]) == 2

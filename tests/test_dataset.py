"""The results table and the query: Arrow tables with the JSON's values, the Parquet dataset the CLI writes
(``--format parquet -o DIR``, ``--dataset DIR``), DuckDB over it (``kernelscope query``), and the one line a
missing ``kernelscope[dataset]`` gives."""

from __future__ import annotations

import builtins
import json
import math

import pytest

from conftest import CORPUS_NCU, SHARED, corpus_reports, need
from kernelscope.cli import main

pa = pytest.importorskip("pyarrow", reason="pyarrow is the dataset extra: pip install '.[dataset]'")
pq = pytest.importorskip("pyarrow.parquet")

TRACE = SHARED / "corpus" / "torch_traces" / "hta_trace_filter_sampled_rank-0.json.gz"


def _report():
    need(CORPUS_NCU)
    reports = corpus_reports()
    if not reports:
        pytest.skip("no .ncu-rep in the corpus")
    return reports[0]


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)
    return a == b


def _dataset_rows(directory, table):
    files = sorted((directory / table).glob("part-*.parquet"))
    assert files, f"no part file under {directory / table}"
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def test_diagnose_dataset_rows_equal_the_json(tmp_path, capsys):
    report = _report()
    assert main(["diagnose", str(report), "--format", "json", "--dataset", str(tmp_path / "ds"), "--jobs", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    launches = [(i["path"], i["format"], la) for i in doc["inputs"] for la in i["launches"]]
    rows = _dataset_rows(tmp_path / "ds", "launches")
    assert len(rows) == len(launches) > 0
    for row, (path, fmt, la) in zip(rows, launches):
        roof = la["roofline"] or {}
        stall = (la["stalls"] or {}).get("reasons") or [{}]
        expected = {
            "file": path, "format": fmt, "launch_index": la["index"], "name": la["name"],
            "demangled_name": la["demangled_name"], "grid": la["launch"]["grid"], "block": la["launch"]["block"],
            "duration_s": la["duration_s"], "gpu": (la["gpu"] or {}).get("name"), "bound": la["bound"],
            "verdict": la["classes"], "sol_compute_pct": la["speed_of_light"]["compute_pct"],
            "sol_memory_pct": la["speed_of_light"]["memory_pct"],
            "arithmetic_intensity_flop_per_byte": roof.get("arithmetic_intensity_flop_per_byte"),
            "achieved_flops_per_s": roof.get("achieved_flops_per_s"),
            "occupancy_theoretical_pct": la["occupancy"]["theoretical_pct"],
            "occupancy_achieved_pct": la["occupancy"]["achieved_pct"],
            "top_stall": stall[0].get("reason"), "top_stall_share": stall[0].get("share_of_stalls"),
            "findings": [f["id"] for f in la["findings"]],
        }
        for key, value in expected.items():
            assert _same(row[key], value), (key, row[key], value)
        if row["top_finding"] is not None:
            top = next(f for f in la["findings"] if f["id"] == row["top_finding"])
            assert _same(row["top_finding_estimated_speedup"], top["estimated_speedup"])


def test_timeline_dataset_rows_equal_the_json(tmp_path, capsys):
    trace = need(TRACE)
    out = tmp_path / "ds"
    assert main(["timeline", str(trace), "--format", "parquet", "-o", str(out), "--jobs", "1"]) == 0
    assert main(["timeline", str(trace), "--format", "json", "--jobs", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = [(rep, k, d) for rep in doc["reports"] for k in rep["kernels"] for d in k["devices"]]
    rows = _dataset_rows(out, "timeline_kernels")
    assert len(rows) == len(expected) > 0
    for row, (rep, k, d) in zip(rows, expected):
        assert row["file"] == rep["path"] and row["name"] == k["name"]
        for key in ("rank", "device", "count", "total_s", "busy_s", "exclusive_s", "time_s", "share_pct"):
            assert _same(row[key], d[key]), key
        for key in ("count", "total_s", "share_pct", "mean_s", "median_s"):
            assert _same(row[f"kernel_{key}"], k[key]), key
        assert _same(row["program_fraction"], k["program_fraction"])


def test_query_counts_the_launches_and_appends(tmp_path, capsys):
    pytest.importorskip("duckdb", reason="duckdb is the dataset extra: pip install '.[dataset]'")
    report = _report()
    out = tmp_path / "ds"
    assert main(["diagnose", str(report), "--format", "parquet", "-o", str(out), "--jobs", "1"]) == 0
    assert capsys.readouterr().out == ""
    n = len(_dataset_rows(out, "launches"))
    assert main(["query", str(out), "select count(*) as n from launches", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": n}]
    # a second run appends one more part file to the same dataset
    assert main(["diagnose", str(report), "--format", "parquet", "-o", str(out), "--jobs", "1"]) == 0
    assert len(list((out / "launches").glob("part-*.parquet"))) == 2
    assert main(["query", str(out), "select count(*) as n from launches", "--format", "csv"]) == 0
    assert capsys.readouterr().out == f"n\n{2 * n}\n"
    assert main(["query", str(out), "select count(*) as n from timeline_kernels"]) == 0  # empty view, typed
    assert capsys.readouterr().out.split()[-1] == "0"


def test_a_folder_that_is_not_a_dataset_is_refused(tmp_path, capsys):
    report = _report()
    (tmp_path / "other.txt").write_text("x")
    assert main(["diagnose", str(report), "--format", "parquet", "-o", str(tmp_path), "--jobs", "1"]) == 2
    assert "not a kernelscope dataset" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.txt"]
    assert main(["diagnose", str(report), "--format", "parquet", "--jobs", "1"]) == 2
    assert "needs -o DIR" in capsys.readouterr().err


def test_to_arrow_and_to_pandas_from_the_library():
    import kernelscope

    report = _report()
    rd = kernelscope.diagnose_file(report)
    table = rd.to_arrow()
    assert table.num_rows == len(rd.kernels)
    assert table.equals(kernelscope.to_arrow([rd]))
    timeline = kernelscope.timeline_file(need(TRACE))
    assert timeline[0].to_arrow().num_rows == kernelscope.to_arrow(timeline).num_rows > 0
    pytest.importorskip("pandas", reason="pandas is not installed")
    frame = rd.to_pandas()
    assert list(frame.columns) == table.column_names and len(frame) == table.num_rows


def test_without_pyarrow_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    real = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow.") or name == "duckdb":
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    report = _report()
    assert main(["diagnose", str(report), "--format", "parquet", "-o", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err
    assert "install kernelscope[dataset]" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ds").exists()
    (tmp_path / "q").mkdir()
    assert main(["query", str(tmp_path / "q"), "select 1"]) == 2
    assert "install kernelscope[dataset]" in capsys.readouterr().err

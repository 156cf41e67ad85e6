"""Many files (issue 18): directories and globs for diagnose / timeline, and the per-file map serially, on a local
process pool (--jobs 2) and as Ray tasks (--engine ray, where Ray is installed): the same numbers, in input order."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, SHARED, need
from kernelscope.cli import main
from kernelscope.distributed.map import expand

#: Three small corpus reports (under 110 kB each).
REPORTS = ("LakshyaSingh354__CudaCode__report.ncu-rep", "DarrenLu666888__CUDATutorial__profile.ncu-rep",
           "yzwang2000__cudaCode__profile.ncu-rep")
NSYS = SHARED / "corpus" / "nsys"
TORCH = SHARED / "corpus" / "torch_traces"
HAS_RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("reports")
    for name in REPORTS:
        shutil.copy(need(CORPUS_NCU / name), d / name)
    (d / "notes.md").write_text("not a report: a directory gives only the files kernelscope reads\n")
    return d


def _json(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _per_file(doc: dict) -> list[tuple]:
    """Per report and launch: (file name, kernel, duration, bound)."""
    rows = []
    for rep in doc["inputs"]:
        for k in rep["launches"]:
            rows.append((Path(rep["path"]).name, k["name"], k["duration_s"], json.dumps(k["bound"])))
    return rows


def test_directory_same_numbers_serial_and_jobs(report_dir, capsys):
    serial = _json(capsys, ["diagnose", str(report_dir), "--format", "json", "--jobs", "1"])
    pooled = _json(capsys, ["diagnose", str(report_dir), "--format", "json", "--jobs", "2"])
    assert [Path(r["path"]).name for r in serial["inputs"]] == sorted(REPORTS)  # sorted, notes.md left out
    assert _per_file(serial) and _per_file(serial) == _per_file(pooled)
    assert serial["inputs"] == pooled["inputs"]


@pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed (pip install 'kernelscope[cluster]')")
def test_ray_engine_same_numbers(report_dir, capsys):
    import ray

    serial = _json(capsys, ["diagnose", str(report_dir), "--format", "json", "--jobs", "1"])
    try:
        on_ray = _json(capsys, ["diagnose", str(report_dir), "--format", "json", "--engine", "ray", "--quiet"])
    finally:
        ray.shutdown()
    assert serial["inputs"] == on_ray["inputs"]


def test_glob_expanded_sorted_in_input_order(report_dir, capsys):
    by_glob = _json(capsys, ["diagnose", str(report_dir / "*.ncu-rep"), "--format", "json", "--jobs", "2"])
    by_dir = _json(capsys, ["diagnose", str(report_dir), "--format", "json", "--jobs", "1"])
    assert by_glob["inputs"] == by_dir["inputs"]
    last = str(report_dir / REPORTS[-1])
    assert expand([last, str(report_dir / "*.ncu-rep")], (".ncu-rep",))[0] == last  # input order kept


def test_empty_glob_exit_2(tmp_path, capsys):
    assert main(["diagnose", str(tmp_path / "*.ncu-rep")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "matches no file" in err
    assert main(["timeline", str(tmp_path / "nothing*")]) == 2


def test_ray_missing_one_line(report_dir, monkeypatch, capsys):
    import builtins

    real = builtins.__import__

    def no_ray(name, *a, **k):
        if name == "ray":
            raise ImportError("no ray")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    assert main(["diagnose", str(report_dir), "--engine", "ray", "--format", "json"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "kernelscope[cluster]" in err


def test_timeline_directory_of_traces(tmp_path, capsys):
    """A directory of Nsight Systems exports: each file its own program, the same serially and on a pool."""
    d = tmp_path / "nsys"
    d.mkdir()
    for name in ("cts_rtx3070_array_inc_a.sqlite", "cudatutorial_rtx3060_fused_bias_fp16_report.sqlite"):
        shutil.copy(need(NSYS / name), d / name)
    serial = _json(capsys, ["timeline", str(d), "--format", "json", "--jobs", "1"])
    pooled = _json(capsys, ["timeline", str(d), "--format", "json", "--jobs", "2"])
    assert len(serial["reports"]) == 2 and serial == pooled


def test_timeline_kineto_directory_is_one_program(tmp_path, capsys):
    """A directory of PyTorch profiler rank traces keeps its meaning: one multi-rank program, not one per file."""
    d = tmp_path / "ranks"
    d.mkdir()
    for name in ("hta_trace_filter_sampled_rank-0.json.gz", "hta_trace_filter_sampled_rank-1.json.gz"):
        shutil.copy(need(TORCH / name), d / name)
    whole = _json(capsys, ["timeline", str(d), "--format", "json", "--jobs", "2"])
    assert len(whole["reports"]) == 1
    per_file = _json(capsys, ["timeline", str(d / "*.json.gz"), "--format", "json", "--jobs", "2"])
    assert len(per_file["reports"]) == 2

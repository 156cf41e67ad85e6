"""Issue 31: every Nsight Compute report is parsed once. A pool worker reads its reports without a trial load in
a child (the worker is the guard: when it aborts, the parent redoes the work in its own process, each report
trial-loaded first); ``--jobs 1`` keeps the trial load in a forked child. Both paths must give the same output,
byte for byte, on every file of the shared corpus, and the same one-line error on a report NVIDIA's reader aborts
on."""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys

import pytest

from conftest import CORPUS_NCU, SHARED, corpus_reports, need

from kernelscope.cli import main
from kernelscope.distributed.map import in_process
from kernelscope.ingest import ncu_rep_probe


def _diagnose(files, jobs, out):
    """(exit status, standard error) of ``kernelscope diagnose --format json FILES --jobs N -o OUT``."""
    env = dict(os.environ, KERNELSCOPE_LANG="en")
    proc = subprocess.run([sys.executable, "-m", "kernelscope", "diagnose", *map(str, files), "--format", "json",
                           "--jobs", str(jobs), "-o", str(out), "--quiet"], capture_output=True, text=True, env=env)
    return proc.returncode, proc.stderr


#: The hint a failure among several inputs ends with (the count of the others differs between the runs compared).
KEEP_GOING_HINT = re.compile(r" \(--keep-going reports the \d+ other inputs? and lists this one\)$", re.M)


def _same_line(result):
    """``result`` (exit status, standard error) without the --keep-going hint."""
    return result[0], KEEP_GOING_HINT.sub("", result[1])


def test_in_process_only_for_one_job_or_one_file_locally():
    assert in_process(1, 5) and in_process(4, 1) and in_process(2, 0)
    assert not in_process(2, 2) and not in_process(1, 5, "ray")


def test_an_expendable_process_does_no_trial_load(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(ncu_rep_probe, "probe_reports", lambda paths: calls.append(list(paths)))
    report = tmp_path / "x.ncu-rep"
    report.write_bytes(b"NVR\0" + b"\0" * 16)
    ncu_rep_probe.await_probe(str(report))
    assert calls == [[str(report)]]  # a plain process starts the trial load of a report not probed yet
    monkeypatch.setattr(ncu_rep_probe, "_EXPENDABLE", [True])
    ncu_rep_probe.await_probe(str(report))
    assert calls == [[str(report)]]  # a pool worker does not


def test_every_corpus_report_reads_the_same_in_a_pool_worker_and_in_process(tmp_path):
    reports = corpus_reports()
    if not reports:
        pytest.skip(f"shared inputs not available: {CORPUS_NCU} is absent (it lives beside the checkout in ../shared)")
    one, two = tmp_path / "jobs1.json", tmp_path / "jobs2.json"
    assert _diagnose(reports, 1, one) == (0, "")
    assert _diagnose(reports, 2, two) == (0, "")
    assert one.read_bytes() == two.read_bytes()
    assert one.read_text(encoding="utf-8").count('"path"') >= len(reports)  # every report is in the document


def test_every_other_corpus_file_diagnoses_the_same_in_a_pool_and_in_process(tmp_path):
    corpus = need(SHARED / "corpus")
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "README.md"
                   and p.parent.name != "ncu")
    good, bad = [], []
    for f in files:  # alone, a file is always read in process: which ones diagnose
        rc, err = _diagnose([f], 2, tmp_path / "alone.json")
        (good if rc == 0 else bad).append((f, rc, err))
    assert good and bad  # the corpus holds both kinds
    one, two = tmp_path / "jobs1.json", tmp_path / "jobs2.json"
    assert _diagnose([f for f, _, _ in good], 1, one) == (0, "")
    assert _diagnose([f for f, _, _ in good], 2, two) == (0, "")
    assert one.read_bytes() == two.read_bytes()
    first_good = good[0][0]
    for f, rc, err in bad[:6]:  # a refused file behind a good one: the same exit and line from the pool
        pair = _diagnose([first_good, f], 2, tmp_path / "pair.json")
        assert KEEP_GOING_HINT.search(pair[1]) and _same_line(pair) == (rc, err)
        assert not (tmp_path / "pair.json").exists()


def test_a_report_the_reader_aborts_on_is_the_same_line_from_a_pool_worker(tmp_path):
    data = bytearray(need(CORPUS_NCU / "LakshyaSingh354__CudaCode__report.ncu-rep").read_bytes())
    data[15785], data[33669] = 64, 20  # two flipped bytes in a payload: ncu_report calls abort()
    bad = tmp_path / "damaged.ncu-rep"
    bad.write_bytes(bytes(data))
    good = CORPUS_NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"
    out = tmp_path / "d.json"
    serial = _diagnose([good, bad], 1, out)
    pooled = _diagnose([good, bad, good], 2, out)  # the worker that reads it dies; the parent redoes the work
    assert serial[0] == 2 and "damaged Nsight Compute report" in serial[1] and "Check failed" in serial[1]
    assert _same_line(pooled) == _same_line(serial) and not out.exists()


def _counted_loads(monkeypatch):
    """Counter of NVIDIA's ``load_report`` calls in this process, by file name (a forked trial load counts in its
    child, not here)."""
    ncu_report = pytest.importorskip("ncu_report")
    counts = collections.Counter()
    real = ncu_report.load_report

    def counting(path, *args, **kwargs):
        counts[os.path.basename(str(path))] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ncu_report, "load_report", counting)
    return counts


def _with_instruction_data(count):
    """``count`` corpus reports whose launches hold per-instruction data (read before any counting starts)."""
    from kernelscope.api import load

    found = [p for p in corpus_reports() if any(k.instruction_metrics for k in load(p).kernels)][:count]
    if len(found) < count:
        pytest.skip(f"fewer than {count} corpus reports with per-instruction data in {CORPUS_NCU}")
    return found


def test_compare_of_two_reports_reads_each_once(monkeypatch, tmp_path):
    first, second = (need(CORPUS_NCU / f"EricccYang__cuda_operators__reduce_reduce_v{n}.ncu-rep") for n in (1, 2))
    counts = _counted_loads(monkeypatch)
    assert main(["compare", str(first), str(second), "--format", "json", "-o", str(tmp_path / "c.json")]) == 0
    assert counts == {first.name: 1, second.name: 1}


def test_diagnose_markdown_of_several_reports_in_process_reads_each_once(monkeypatch, capsys):
    reports = _with_instruction_data(2)  # where in the code: per-instruction data read for every launch shown
    counts = _counted_loads(monkeypatch)
    assert main(["diagnose", *map(str, reports), "--format", "markdown", "--jobs", "1", "--quiet"]) == 0
    assert counts == {p.name: 1 for p in reports}
    text = capsys.readouterr().out
    assert all(p.name in text for p in reports)

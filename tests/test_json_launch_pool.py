"""``diagnose --format json`` of one report of many launches, diagnosed and encoded by worker processes
(:mod:`kernelscope.cli.launch_pool`, issue 31): the document is the one a single process writes, byte for byte; a
refusal in a worker is the one-line error, with no output file; a worker that dies has its work done again here;
the parts the launches are split into keep together the launches a finding compares."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import REPO
from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import ReportDiagnoser
from kernelscope.analysis.scaling import MIN_TRAFFIC, linked
from kernelscope.cli import launch_pool, main
from kernelscope.distributed import map as distributed_map
from kernelscope.errors import InputError
from kernelscope.ingest import load
from kernelscope.knowledge.criteria import criteria as load_criteria
from kernelscope.render.json import encode_launches, to_json_bytes

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the pool forks this process")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A generated ``ncu --csv`` details page of 160 launches of 24 kernels (some with two grids, a few slow),
    under a name that holds the text of the document's splice mark (a path is user data: never taken for it)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import many_launches_bench as bench
    finally:
        sys.path.pop(0)
    path = tmp_path_factory.mktemp("pool") / 'model "\\' / 'kernelscope:encoded-apart\\' / '".csv'
    path.parent.mkdir(parents=True)
    assert '"\\/kernelscope:encoded-apart\\/"' in str(path)
    bench.generate(path, launches=160, kernels=24)
    return path


@pytest.fixture
def pooled(monkeypatch):
    """The pool used from 2 launches on; the jobs it ran (their function names) recorded. This test process is
    taken for one of one thread (as the command line's is: another test's numpy starts OpenBLAS's idle threads)."""
    ran: list[str] = []
    real = launch_pool.run_map

    def run_map(fn, jobs_in, **kw):
        ran.append(fn.__name__)
        return real(fn, jobs_in, **kw)

    monkeypatch.setattr(launch_pool, "MIN_LAUNCHES", 2)
    monkeypatch.setattr(launch_pool, "run_map", run_map)
    monkeypatch.setattr(distributed_map, "_one_thread", lambda: True)
    return ran


def _json(argv: list[str], capsysbinary) -> bytes:
    assert main(["diagnose", *argv, "--format", "json", "--quiet"]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_workers_document_is_the_one_process_document(page, pooled, capsysbinary, lang):
    alone = _json([str(page), "--jobs", "1", "--lang", lang], capsysbinary)
    assert pooled == []
    side_by_side = _json([str(page), "--jobs", "2", "--lang", lang], capsysbinary)
    assert pooled == ["_encode_part"]  # the launches went to the workers
    assert side_by_side == alone == to_json_bytes([diagnose_file(page)], lang)
    assert b'"path": "' + str(page).replace("\\", "\\\\").replace('"', '\\"').encode() + b'"' in alone


def test_a_selection_is_diagnosed_by_the_workers_as_alone(page, pooled, capsysbinary):
    for extra in (["--top", "50"], ["--kernel", "regex:gemm|elementwise"]):
        alone = _json([str(page), "--jobs", "1", *extra], capsysbinary)
        assert _json([str(page), "--jobs", "3", *extra], capsysbinary) == alone, extra


def test_each_part_is_diagnosed_apart_as_in_the_whole(page):
    diagnoser = ReportDiagnoser(load(page))
    whole = encode_launches(diagnoser.diagnose(), "en")
    parts = linked(diagnoser.chosen, diagnoser.crit)
    assert len(parts) > 1 and sorted(i for p in parts for i in p) == list(range(len(diagnoser.chosen)))
    groups = []
    for part in parts:
        enc = encode_launches(diagnoser.diagnose(part), "en")
        assert enc.launches == [whole.launches[i] for i in part]
        groups += enc.groups
    assert sorted(groups) == sorted(whole.groups)


def _profile(name: str, metrics: dict[str, float], duration_s: float = 1e-5) -> SimpleNamespace:
    return SimpleNamespace(name=name, demangled_name=name, metrics=metrics, duration_s=duration_s)


def test_linked_keeps_a_kernel_and_its_close_l2_traffic_together():
    crit = load_criteria()
    tol = crit["same_traffic_tolerance"]
    req = "lts__t_requests.sum"
    profiles = [
        _profile("a", {}), _profile("b", {}), _profile("a", {}),                       # one kernel: one part
        _profile("c", {req: 10 * MIN_TRAFFIC}), _profile("d", {req: 10 * MIN_TRAFFIC * (1 + tol / 2)}),  # close
        _profile("e", {req: 100 * MIN_TRAFFIC}),                                         # far from the others
        _profile("f", {req: MIN_TRAFFIC / 2}), _profile("g", {req: MIN_TRAFFIC / 2}),  # too little to compare
        _profile("h", {"lts__t_sectors.sum": 10 * MIN_TRAFFIC}),                         # another counter
    ]
    assert linked(profiles, crit) == [[0, 2], [1], [3, 4], [5], [6], [7], [8]]


def test_a_refusal_in_a_worker_is_one_line_and_no_output(page, pooled, monkeypatch, tmp_path, capsys):
    parent, marks = os.getpid(), tmp_path / "refused"
    real = ReportDiagnoser.diagnose

    def diagnose(self, positions=None):
        if positions is not None and os.getpid() != parent and 7 in positions:
            marks.write_text("in a worker")
            raise InputError(self.report.path, "launch 7 cannot be diagnosed")
        return real(self, positions)

    monkeypatch.setattr(ReportDiagnoser, "diagnose", diagnose)
    out = tmp_path / "out.json"
    assert main(["diagnose", str(page), "--format", "json", "--jobs", "2", "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert marks.read_text() == "in a worker" and pooled == ["_encode_part"]
    assert "launch 7 cannot be diagnosed" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and not out.exists() and list(tmp_path.iterdir()) == [marks]


def test_a_worker_that_dies_has_its_work_done_here(page, pooled, monkeypatch, capsysbinary):
    alone = _json([str(page), "--jobs", "1"], capsysbinary)
    parent = os.getpid()
    real = ReportDiagnoser.diagnose

    def diagnose(self, positions=None):
        if os.getpid() != parent:
            os._exit(9)  # a worker killed (out of memory, a signal): the pool breaks
        return real(self, positions)

    monkeypatch.setattr(ReportDiagnoser, "diagnose", diagnose)
    assert _json([str(page), "--jobs", "2"], capsysbinary) == alone and pooled == ["_encode_part"]


def test_a_process_with_other_threads_forks_no_workers(page, pooled, monkeypatch, capsysbinary):
    """A plain fork of a process with other threads (``ncu_report``'s native ones after reading a report, a
    progress bar's) could deadlock: its launches are diagnosed here, to the same document."""
    alone = _json([str(page), "--jobs", "1"], capsysbinary)
    monkeypatch.setattr(distributed_map, "_one_thread", lambda: False)
    assert _json([str(page), "--jobs", "2"], capsysbinary) == alone and pooled == []


def test_few_launches_stay_in_this_process(page, monkeypatch, capsysbinary):
    ran: list[str] = []
    monkeypatch.setattr(launch_pool, "run_map", lambda fn, jobs_in, **kw: ran.append(fn.__name__))
    assert launch_pool.MIN_LAUNCHES > 160
    _json([str(page), "--jobs", "2"], capsysbinary)
    assert ran == []


def test_the_pool_module_is_orchestration_only():
    """The fan-out is the command line's: analysis and render know nothing of processes."""
    for folder in ("analysis", "render"):
        for path in (Path(REPO) / "src" / "kernelscope" / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "multiprocessing" not in text and "run_map" not in text, path

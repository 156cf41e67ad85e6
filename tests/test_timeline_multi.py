"""Timelines of real programs: several GPUs (case N04), several ranks (the 8-rank DLRM trace, HTA's two sampled
ranks), per-device / per-rank shares and Amdahl projections for the device and for the whole program, per-kernel
projections on overlapping streams (the time a kernel adds to its device's busy union), the headline naming the
same figures as the table row it refers to, and every corpus timeline checked for shares above 100 %, headline vs
table, busy + idle = span and non-finite strings in its JSON."""

from __future__ import annotations

import json
import re
import random
import shutil
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import CASES, SHARED, need
from conftest import flat as flat_text
from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.analysis.timeline.intervals import item_times, union_length_ns
from kernelscope.api import timeline_file
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.render.timeline import render_timeline, to_json
from kernelscope.timeline_model import KERNEL, MEMCPY, RUNTIME_API
from test_schemas import non_finite_strings
from test_timeline import tl_from, validate

MS = 1_000_000  # ns
TRACES = SHARED / "corpus" / "torch_traces"
DLRM = TRACES / "param_dlrm_kineto_8rank_v100.tar.gz"


def build_n04(tmp_path: Path) -> Path:
    """``cat _nsys_min_schema.sql N04_nsys_multi_gpu.sql | sqlite3 N04.sqlite`` (Python's sqlite3 where the
    sqlite3 command is not installed: the same statements)."""
    sql = (need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
           + need(CASES / "N04_nsys_multi_gpu.sql").read_text(encoding="utf-8"))
    out = tmp_path / "N04.sqlite"
    if shutil.which("sqlite3"):
        subprocess.run(["sqlite3", str(out)], input=sql, text=True, check=True, cwd=tmp_path)
    else:
        con = sqlite3.connect(out)
        con.executescript(sql)
        con.commit()
        con.close()
    return out


def row(items, name):
    (it,) = [i for i in items if i.name == name]
    return it


def lane(item, device, rank=None):
    (s,) = [s for s in item.devices if s.device == device and s.rank == rank]
    return s


# ------------------------------------------------------------------------------------------------ N04: two GPUs
def test_n04_shares_are_per_device_and_the_wall_is_the_slowest_device(tmp_path):
    (rep,) = timeline_file(build_n04(tmp_path))
    assert rep.wall_s == pytest.approx(0.150) and rep.program_time_s == pytest.approx(0.150)
    gemm, nccl = row(rep.kernels, "gemm_fwd_kernel"), row(rep.kernels, "nccl_allreduce_kernel")
    expected = {(gemm, 0): (0.100, 66.7), (gemm, 1): (0.060, 40.0), (nccl, 0): (0.050, 33.3), (nccl, 1): (0.090, 60.0)}
    for (item, device), (time_s, pct) in expected.items():
        s = lane(item, device)
        assert (s.total_s, s.busy_s, s.exclusive_s) == pytest.approx((time_s,) * 3)
        assert s.time_s == pytest.approx(0.150) and s.share_pct == pytest.approx(pct, abs=0.05)
    everything = [s.share_pct for it in rep.kernels for s in it.devices] + [d.utilisation_pct for d in rep.devices]
    assert max(everything) <= 100.0
    assert all(0 <= it.program_fraction <= 1 for it in rep.kernels)


def test_n04_amdahl_per_device_and_for_the_program(tmp_path):
    (rep,) = timeline_file(build_n04(tmp_path))
    gemm, nccl = row(rep.kernels, "gemm_fwd_kernel"), row(rep.kernels, "nccl_allreduce_kernel")
    a = lane(gemm, 0).amdahl  # gemm gone on device 0: 150 -> 50 ms, 3x
    assert (a.scope, a.basis) == ("device", "exclusive")
    assert (a.base_s, a.projected_s[-1], a.speedups[-1]) == pytest.approx((0.150, 0.050, 3.0))
    assert lane(gemm, 1).amdahl.projected_s[-1] == pytest.approx(0.090)
    p = gemm.amdahl  # gemm gone everywhere: devices 50 and 90 ms -> program 90 ms: 1.67x, 40 % saved
    assert (p.scope, p.basis) == ("program", "exclusive")
    assert (p.base_s, p.projected_s[-1], p.speedups[-1]) == pytest.approx((0.150, 0.090, 150 / 90))
    assert gemm.program_fraction == pytest.approx(0.40) and p.fraction == gemm.program_fraction
    q = nccl.amdahl  # nccl gone: devices 100 and 60 ms -> program 100 ms: 1.5x
    assert (q.projected_s[-1], q.speedups[-1], nccl.program_fraction) == pytest.approx((0.100, 1.5, 1 / 3))
    assert gemm.amdahl.speedups[0] == pytest.approx(150 / 120)  # 2x faster: devices 100 and 120 ms -> 120 ms


def test_n04_headline_names_the_figures_of_its_table_row(tmp_path, capsys):
    path = build_n04(tmp_path)
    (rep,) = timeline_file(path)
    b, gemm = rep.black_hole, row(rep.kernels, "gemm_fwd_kernel")
    assert (b.row, b.name, b.category, b.lanes) == ("kernels", "gemm_fwd_kernel", "kernel", 2)
    assert (b.time_s, b.program_fraction, b.amdahl) == (gemm.total_s, gemm.program_fraction, gemm.amdahl)
    assert b.lane == lane(gemm, 0)  # where it weighs most: 66.7 % of device 0
    md = render_timeline([rep], "markdown", "en")
    head = next(line for line in md.splitlines() if "Largest time black hole" in line)
    assert not re.search(r"\b100(\.0)?% of the program", md) and "∞" not in head
    for text in ("160.0 ms on 2 devices", "on device 0 100.0 ms, 66.7% of its 150.0 ms", "150.0 ms -> 50.00 ms, 3.00x",
                 "150.0 ms -> 90.00 ms, 1.67x, 40% of the program time saved"):  # (review 11: four digits)
        assert text in head
    gemm_line = next(line for line in md.splitlines() if line.startswith("| `gemm_fwd_kernel` |"))
    # the table row says the same value, at its column's one precision (review 10: 40.0% beside 53.3%)
    assert "| 40.0% | 1.25x | 1.56x | 1.67x |" in gemm_line
    zh = render_timeline([rep], "table", "zh", width=220)
    flat = flat_text(zh)  # four significant digits, as in English: a pair never differs in precision
    assert "在 2 个设备上共耗时 160.0 ms" in flat and "150.0 ms → 90.00 ms" in flat  # (review 11: four digits)
    out = tmp_path / "n04.json"
    assert main(["timeline", str(path), "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    validate(doc)
    r = doc["reports"][0]
    assert r["black_hole"]["amdahl"] == r["kernels"][0]["amdahl"] and r["black_hole"]["row"] == "kernels"
    dev0 = r["kernels"][0]["devices"][0]
    assert (dev0["device"], dev0["amdahl"]["scope"], dev0["amdahl"]["projected_s"][-1]) == (0, "device", pytest.approx(0.05))


# ------------------------------------------------------------------------------------------------ overlapping streams
def test_kernel_projection_uses_the_time_it_adds_to_the_busy_union():
    names = ["a", "b", "hidden", "copy"]
    rows = [(0, 100 * MS, KERNEL, "a", 0, 7, 1), (50 * MS, 150 * MS, KERNEL, "b", 0, 8, 2),
            (60 * MS, 70 * MS, KERNEL, "hidden", 0, 9, 3),  # under a and b: adds nothing
            (20 * MS, 40 * MS, MEMCPY, "copy", 0, 10, 4)]  # under a: adds nothing, and keeps 20 ms of a busy
    rep = analyse_timeline(tl_from(rows, names))
    a, b, hidden = (row(rep.kernels, n) for n in ("a", "b", "hidden"))
    assert (a.exclusive_s, b.exclusive_s, hidden.exclusive_s) == pytest.approx((0.030, 0.050, 0.0))
    assert a.program_fraction == pytest.approx(30 / 150) and a.amdahl.basis == "exclusive"
    assert hidden.program_fraction == 0 and hidden.amdahl.speedups[-1] == pytest.approx(1.0)
    assert rep.copies[0].exclusive_s == 0 and rep.copies[0].program_fraction == 0
    assert lane(a, 0).busy_s == pytest.approx(0.100) and lane(a, 0).share_pct == pytest.approx(100 * 100 / 150)
    md = render_timeline([rep], "markdown", "en").splitlines()
    at = next(i for i, line in enumerate(md) if line.startswith("### Kernels by"))
    assert md[at] == "### Kernels by total time"  # the heading: the title alone, its caption below it
    title = md[at + 2]
    assert "program wall 150.0 ms" in title and "no other GPU work overlaps" in title  # the output says which


def test_same_kernel_on_overlapping_streams_never_exceeds_its_device():
    rows = [(0, 100 * MS, KERNEL, "k", 0, s, s) for s in range(4)]  # 4 x 100 ms, side by side on 4 streams
    rep = analyse_timeline(tl_from(rows, ["k"]))
    (k,) = rep.kernels
    assert k.total_s == pytest.approx(0.4) and lane(k, 0).busy_s == pytest.approx(0.1)
    assert lane(k, 0).share_pct == pytest.approx(100.0) and k.program_fraction == pytest.approx(1.0)
    assert rep.black_hole.amdahl.speedups[-1] == np.inf  # the whole program: unbounded, null in JSON
    text = render_timeline([rep], "json", "en")
    assert '"inf"' not in text and "Infinity" not in text


def test_item_times_match_unions_without_each_item():
    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(1, 50)
        s = np.array([rng.randint(0, 500) for _ in range(n)], dtype=np.int64)
        e = s + np.array([rng.randint(0, 80) for _ in range(n)], dtype=np.int64)
        key = np.array([rng.choice([2, 5, 9, 40_000]) for _ in range(n)], dtype=np.int64)
        t = item_times(key, s, e)
        whole = union_length_ns(s, e)
        for j, k in enumerate(t.keys.tolist()):
            m = key == k
            assert t.count[j] == m.sum() and t.total_ns[j] == (e[m] - s[m]).sum()
            assert t.busy_ns[j] == union_length_ns(s[m], e[m])
            assert t.exclusive_ns[j] == whole - union_length_ns(s[~m], e[~m])


def test_a_rank_shrinks_by_the_least_its_devices_lose():
    # one process, two GPUs: device 1 ends early; a kernel on both gains the program only what the slower keeps
    names = ["k", "other"]
    rows = [(0, 80 * MS, KERNEL, "k", 0, 7, 1), (80 * MS, 100 * MS, KERNEL, "other", 0, 7, 2),
            (0, 30 * MS, KERNEL, "k", 1, 7, 3)]
    rep = analyse_timeline(tl_from(rows, names))
    k = row(rep.kernels, "k")
    assert lane(k, 1).time_s == pytest.approx(0.100)  # a device's time: its rank's wall
    assert k.amdahl.projected_s[-1] == pytest.approx(0.070)  # min(80, 30) taken off the 100 ms wall
    assert k.amdahl.scope == "program" and lane(k, 0).amdahl.projected_s[-1] == pytest.approx(0.020)


def test_host_api_time_is_per_rank_never_summed():
    names = ["cudaLaunchKernel", "k"]
    rows = []
    for rank in range(3):
        rows += [(0, 60 * MS, RUNTIME_API, "cudaLaunchKernel", -1, 1, 1, -1, 0, -1, rank),
                 (60 * MS, 100 * MS, KERNEL, "k", 0, 7, 1, -1, 0, -1, rank)]
    rep = analyse_timeline(tl_from(rows, names))
    assert rep.host_api_s == pytest.approx(0.060) and rep.host_api_s <= rep.wall_s
    assert all(r.host_api_s == pytest.approx(0.060) and r.no_gpu_s == pytest.approx(0.060) for r in rep.ranks)
    api = rep.api_calls[0]
    assert api.total_s == pytest.approx(0.180) and api.program_fraction == pytest.approx(0.6)  # per rank, not 180 %
    assert {(s.rank, s.device) for s in api.devices} == {(0, None), (1, None), (2, None)}
    assert api.amdahl.basis == "host" and api.devices[0].amdahl.scope == "rank"
    idle = rep.gpu_idle
    # hidden under GPU work, the 60 ms of host work run beside the 40 ms of kernels: 100 -> 60 ms (0.4 saved), not
    # 100 -> 40 ms (only removing the host work would give that)
    assert idle.kind == "gpu_idle" and idle.program_fraction == pytest.approx(0.4) and idle.count == 3
    assert rep.black_hole.row == "gpu_idle" and rep.black_hole.host_api == "cudaLaunchKernel"
    assert rep.black_hole.amdahl == idle.amdahl and rep.black_hole.time_s == idle.total_s


# ------------------------------------------------------------------------------------------------ several ranks
def _check_ranks(rep) -> None:
    """Per rank: host API time within its wall; the program time the slowest rank's; headline = its row."""
    assert len(rep.ranks) > 1
    assert rep.wall_s == rep.program_time_s == pytest.approx(max(r.wall_s for r in rep.ranks))
    for r in rep.ranks:
        assert r.host_api_s is None or r.host_api_s <= r.wall_s + 1e-9
        assert r.no_gpu_s is None or 0 <= r.no_gpu_s <= r.wall_s + 1e-9
    longest = max(rep.ranks, key=lambda r: r.wall_s)
    assert rep.host_api_rank == longest.rank and rep.host_api_s == longest.host_api_s
    b = rep.black_hole
    table = {"kernels": rep.kernels, "copies": rep.copies, "memsets": rep.memsets,
             "gpu_idle": (rep.gpu_idle,) if rep.gpu_idle is not None else ()}[b.row]
    it = row(table, b.name)
    assert (b.time_s, b.program_fraction, b.amdahl) == (it.total_s, it.program_fraction, it.amdahl)
    assert b.program_fraction == max(i.program_fraction or 0 for t in (rep.kernels, rep.copies, rep.memsets)
                                     for i in t) or b.row == "gpu_idle"
    for item in rep.kernels + rep.copies + rep.memsets + rep.api_calls:
        assert item.program_fraction is None or 0 <= item.program_fraction <= 1
        for s in item.devices:
            assert 0 <= s.share_pct <= 100 + 1e-9 and s.amdahl.scope in ("device", "rank")
            assert abs(s.time_s - next(r.wall_s for r in rep.ranks if r.rank == s.rank)) < 1e-12


def test_dlrm_eight_ranks_shares_per_rank_and_the_headline_is_its_row():
    (rep,) = timeline_file(need(DLRM))
    _check_ranks(rep)
    assert rep.wall_s == pytest.approx(19.951e-3) and rep.host_api_s < rep.wall_s  # not 38.9 ms summed over ranks
    assert rep.host_api_rank == 1
    top = rep.kernels[0]
    assert top.program_fraction < 1 and top.amdahl.speedups[-1] < 10 and len(top.devices) == 8
    doc = to_json([rep])["reports"][0]
    table = doc[doc["black_hole"]["row"]]  # a ranking (a list, its first row) or a single row (GPU idle)
    assert doc["black_hole"]["program_fraction"] == (table[0] if isinstance(table, list) else table)["program_fraction"]
    text = render_timeline([rep], "table", "en", width=400)
    head = next(line for line in text.splitlines() if "Largest time black hole" in line)
    pct = f"{rep.black_hole.program_fraction * 100:.1f}%"
    assert pct in head and not re.search(r"\b100(\.0)?% of the program", head) and "∞" not in head


def test_hta_sampled_ranks_as_one_program(tmp_path):
    d = tmp_path / "ranks"
    d.mkdir()
    for name in ("hta_trace_filter_sampled_rank-0.json.gz", "hta_trace_filter_sampled_rank-1.json.gz"):
        shutil.copy(need(TRACES / name), d / name)
    (rep,) = timeline_file(d)
    _check_ranks(rep)
    assert {r.rank for r in rep.ranks} == {0, 1}


# ------------------------------------------------------------------------------------------------ the corpus
CORPUS = [p for sub in ("nsys", "torch_traces") if (SHARED / "corpus" / sub).is_dir()
          for p in sorted((SHARED / "corpus" / sub).iterdir()) if p.name != "README.md"]
#: Corpus files the CLI refuses (exit 2, one line), and why.
REFUSED = {
    "cardiac_rtx3060laptop_report1_no_cupti_tables.sqlite": "no GPU activity",
    "kmeans_2gpu_report1_no_cupti_tables.sqlite": "no GPU activity",
    "mineru_nsys2025_stats_format_csv_stdout.csv": "no GPU activity",
    "hta_cupti_profiler_a100.json.gz": "no GPU activity",
}
_ABSENT = f"shared corpus not available: {SHARED / 'corpus'} has no nsys/ or torch_traces/ (../shared is absent)"


def _pct_and_fractions(value, key=""):
    """Every (key, number) of a JSON document whose key says percent (``_pct``) or fraction (``fraction``)."""
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _pct_and_fractions(v, k)]
    if isinstance(value, list):
        return [x for v in value for x in _pct_and_fractions(v, key)]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and ("_pct" in key or "fraction" in key):
        return [(key, value)]
    return []


def _check_document(doc: dict) -> None:
    assert non_finite_strings(doc) == []
    for key, v in _pct_and_fractions(doc):
        assert v <= (100.0 + 1e-9 if key.endswith("_pct") else 1.0 + 1e-12), (key, v)
    for r in doc["reports"]:
        for d in r["devices"] + r["streams"]:
            assert abs(d["busy_s"] + d["idle_s"] - d["span_s"]) <= 1e-9
            assert abs(d["kernel_s"] + d["memcpy_s"] + d["memset_s"] + d["idle_s"] - d["span_s"]) <= 1e-9
        b = r["black_hole"]
        if b is None:
            continue
        rows = [r["gpu_idle"]] if b["row"] == "gpu_idle" else [i for i in r[b["row"]] if i["name"] == b["name"]]
        assert len(rows) == 1, b["name"]
        it = rows[0]
        assert (b["time_s"], b["program_fraction"], b["amdahl"]) == (it["total_s"], it["program_fraction"], it["amdahl"])
        assert b["category"] == it["kind"]
        if b["amdahl"] is not None and b["amdahl"]["fraction"] < 1:
            assert "∞" not in r["black_hole_text"]


@pytest.mark.parametrize("path", CORPUS or [pytest.param(None, marks=pytest.mark.skip(reason=_ABSENT))],
                         ids=lambda p: p.name if isinstance(p, Path) else "absent")
def test_corpus_timeline_json(path, capsys):
    """``kernelscope timeline --format json`` on every corpus timeline: shares <= 100 %, the headline the row it
    names, busy + idle = span per device, no "inf" anywhere; the files it refuses exit 2 with one line."""
    try:
        reports = timeline_file(path)
    except InputError:
        assert path.name in REFUSED, f"{path.name} refused unexpectedly"
        assert main(["timeline", str(path), "--format", "json"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and REFUSED[path.name] in err
        return
    assert path.name not in REFUSED
    for lang in ("en", "zh"):
        text = render_timeline(reports, "json", lang)
        assert "Infinity" not in text and "NaN" not in text and '"inf"' not in text.lower()
        _check_document(json.loads(text))
    if lang == "zh":
        validate(json.loads(text))

"""Impossible records in timelines (Kineto traces and Nsight Systems SQLite exports): case N01 (same-stream
overlap clipped and reported), ends at INT64_MAX, negative and zero durations, timestamps absurdly far from the
rest, zero spans; every analysis here runs with warnings turned into errors and its JSON holds no "inf"."""

from __future__ import annotations

import json
import re
import random
import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import CASES, REPO, need
from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.cli import main
from kernelscope.ingest import load_timeline
from kernelscope.ingest.kineto import read_kineto
from kernelscope.ingest.nsys_sqlite import read_nsys_sqlite
from kernelscope.ingest.records import INT64_MAX, screen_records
from kernelscope.render.timeline import render_timeline, to_json
from kernelscope.timeline_model import KERNEL, MEMCPY, Timeline

US = 1000  # ns


def strict(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with every warning (NumPy's included) raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np_err = np.seterr(all="raise")
        try:
            return fn(*args, **kwargs)
        finally:
            np.seterr(**np_err)


def analysed(path: Path):
    """Read and analyse with warnings as errors; also render every format (no warning there either)."""
    tl = strict(load_timeline, path)
    rep = strict(analyse_timeline, tl)
    for fmt in ("table", "json", "markdown"):
        strict(render_timeline, [rep], fmt, "en")
    return tl, rep


def no_inf(rep) -> dict:
    """The JSON document of ``rep``, checked against the schema and for non-finite numbers written as text."""
    text = render_timeline([rep], "json", "en")
    assert '"inf"' not in text and "Infinity" not in text and "NaN" not in text and '"-inf"' not in text
    doc = json.loads(text)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "timeline-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    return doc["reports"][0]


def ev(cat, name, ts, dur, *, tid=7, **args):
    """One Chrome-trace event (``ts`` / ``dur`` in µs, written as given)."""
    e = {"ph": "X", "cat": cat, "name": name, "pid": 0 if cat == "kernel" else 100, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def kineto(tmp_path: Path, events: list[dict], name: str = "t.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}), encoding="utf-8")
    return p


def kernels(tl: Timeline) -> dict[str, list[tuple[int, int]]]:
    """Kernel name -> [(start_ns, end_ns)] in start order."""
    out: dict[str, list[tuple[int, int]]] = {}
    for i in np.argsort(tl.start_ns, kind="stable"):
        if tl.kind[i] == KERNEL:
            out.setdefault(tl.names[tl.name_id[i]], []).append((int(tl.start_ns[i]), int(tl.end_ns[i])))
    return out


def reasons(tl: Timeline) -> dict[str, tuple[int, str]]:
    """Invalid record name -> (count, reason)."""
    return {r.name: (r.count, r.reason) for r in tl.invalid}


# ------------------------------------------------------------------------------------------------ case N01
def test_n01_same_stream_overflow_clipped_and_reported(capsys):
    tl, rep = analysed(need(CASES / "N01_kineto_same_stream_overflow.json"))
    assert kernels(tl)["fmha_bwd_kernel"] == [(1_000 * US, 1_100 * US), (1_300 * US, 1_500 * US)]  # clipped at 1100
    assert kernels(tl)["elementwise_kernel"] == [(1_100 * US, 1_200 * US), (1_600 * US, 1_700 * US)]
    (fix,) = tl.repaired
    assert (fix.kind, fix.name, fix.device, fix.stream, fix.count) == ("kernel", "fmha_bwd_kernel", 0, 7, 1)
    assert fix.removed_ns == fix.max_removed_ns == 4_900 * US and fix.correlation_ids == (1,)
    assert "next operation on its stream" in fix.reason and tl.invalid == ()
    by_name = {k.name: k for k in rep.kernels}
    assert rep.kernel_time_s == pytest.approx(500e-6, abs=1e-12)
    assert by_name["fmha_bwd_kernel"].total_s == pytest.approx(300e-6, abs=1e-12)
    assert by_name["elementwise_kernel"].total_s == pytest.approx(200e-6, abs=1e-12)
    (d,) = rep.devices
    assert (d.start_ns, d.end_ns) == (1_000 * US, 1_700 * US)
    assert d.span_s == pytest.approx(700e-6, abs=1e-12) and d.busy_s == pytest.approx(500e-6, abs=1e-12)
    assert d.idle_s == pytest.approx(200e-6, abs=1e-12) and d.overlap_s == 0.0
    assert d.utilisation_pct == pytest.approx(100 * 500 / 700) and round(d.utilisation_pct, 1) == 71.4
    assert all(s.utilisation_pct == pytest.approx(100 * 500 / 700) for s in rep.streams)
    assert rep.repaired == tl.repaired and any(n.key == "tl_repaired_records" for n in rep.notes)
    doc = no_inf(rep)
    assert [x["utilisation_pct"] for x in doc["devices"]] == [pytest.approx(71.43, abs=0.01)]
    assert doc["repaired"][0]["removed_ns"] == 4_900_000 and doc["repaired"][0]["name"] == "fmha_bwd_kernel"
    assert main(["timeline", str(CASES / "N01_kineto_same_stream_overflow.json")]) == 0
    out = capsys.readouterr().out
    assert "71.4%" in out and "Records repaired" in out and "4.900 ms removed" in out
    util_col = [line for line in out.splitlines() if line.strip().startswith("0 ")]
    assert util_col and all(not re.search(r"\b100(\.0)?%", line) for line in util_col)  # never 100 %


def test_graph_nodes_of_one_launch_are_not_clipped(tmp_path):
    """Kernels launched by one call (one correlation id: a CUDA graph's nodes) may overlap on their stream."""
    events = [ev("cuda_runtime", "cudaGraphLaunch", 990, 5, tid=1, correlation=1),
              ev("kernel", "branch_a", 1000, 100, device=0, stream=7, correlation=1),
              ev("kernel", "branch_b", 1010, 50, device=0, stream=7, correlation=1),
              ev("kernel", "next_launch", 1080, 10, device=0, stream=7, correlation=2)]
    tl, rep = analysed(kineto(tmp_path, events))
    # branch_a overlaps branch_b (same launch: kept) and the next launch (clipped at its start, 1080 µs)
    assert kernels(tl)["branch_a"] == [(1_000 * US, 1_080 * US)] and kernels(tl)["branch_b"] == [(1_010 * US, 1_060 * US)]
    assert [(r.name, r.removed_ns) for r in tl.repaired] == [("branch_a", 20 * US)]


def test_other_streams_may_overlap(tmp_path):
    events = [ev("kernel", "a", 1000, 500, device=0, stream=7, correlation=1),
              ev("kernel", "b", 1100, 100, device=0, stream=8, correlation=2),
              ev("kernel", "c", 1100, 100, device=1, stream=7, correlation=3)]
    tl, rep = analysed(kineto(tmp_path, events))
    assert tl.repaired == () and kernels(tl)["a"] == [(1_000 * US, 1_500 * US)]
    assert {d.device: round(d.overlap_s * 1e6) for d in rep.devices} == {0: 100, 1: 0}


def test_clipping_matches_plain_python_on_random_streams():
    rng = random.Random(7)
    rows = []
    for i in range(3000):
        s = rng.randrange(0, 2_000_000)
        rows.append((s, s + rng.randrange(1, 5_000), rng.choice((0, 1)), rng.choice((3, 7, 9)), i))
    rows[10] = (rows[10][0], rows[10][0] + 1, rows[10][2], -1, 10)  # an unknown stream is never clipped
    start, end, device, stream, corr = (np.array(c, dtype=np.int64) for c in zip(*rows))
    tl = Timeline(path="x", format="test", names=("k",), start_ns=start + 10**12, end_ns=end + 10**12,
                  kind=np.zeros(len(rows), np.uint8), name_id=np.zeros(len(rows), np.int32), device=device,
                  stream=stream, correlation_id=corr)
    got = strict(screen_records, tl, ns_clock=True)
    want = end.copy()
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (s, _e, d, st, _c) in enumerate(rows):
        if st >= 0:
            groups.setdefault((d, st), []).append(i)
    for idx in groups.values():
        idx.sort(key=lambda i: rows[i][0])
        for a, b in zip(idx, idx[1:]):
            want[a] = min(want[a], rows[b][0])
    assert np.array_equal(got.end_ns - 10**12, want)
    assert sum(r.count for r in got.repaired) == int((want != end).sum())
    assert sum(r.removed_ns for r in got.repaired) == int((end - want).sum())


# ------------------------------------------------------------------------------------- Kineto: each kind
def test_kineto_end_at_int64_max_is_left_out(tmp_path):
    big = INT64_MAX // 1000  # µs: the end lands past INT64_MAX ns
    events = [ev("kernel", "ok", 1000, 10, device=0, stream=7, correlation=1),
              ev("kernel", "ok", 1020, 10, device=0, stream=7, correlation=2),
              ev("kernel", "never_ended", 1040, big, device=0, stream=7, correlation=3),
              ev("kernel", "huge_dur", 1060, INT64_MAX, device=0, stream=7, correlation=4)]
    tl, rep = analysed(kineto(tmp_path, events))
    assert list(kernels(tl)) == ["ok"] and tl.end_ns.max() < INT64_MAX
    got = reasons(tl)
    assert got["never_ended"][0] == 1 and "INT64_MAX" in got["never_ended"][1]
    assert got["huge_dur"][0] == 1 and "INT64_MAX" in got["huge_dur"][1]
    (d,) = rep.devices
    assert d.span_s == pytest.approx(30e-6, abs=1e-12) and d.kernel_s == pytest.approx(20e-6, abs=1e-12)
    no_inf(rep)


def test_kineto_negative_duration_is_left_out(tmp_path):
    events = [ev("kernel", "ok", 1000, 10, device=0, stream=7, correlation=1),
              ev("kernel", "backwards", 1020, -5, device=0, stream=7, correlation=2)]
    tl, rep = analysed(kineto(tmp_path, events))
    assert list(kernels(tl)) == ["ok"] and "negative duration" in reasons(tl)["backwards"][1]
    assert rep.devices[0].utilisation_pct == pytest.approx(100.0)  # one 10 µs kernel over a 10 µs span
    no_inf(rep)


def test_kineto_zero_duration_depends_on_the_clock(tmp_path):
    # whole microseconds: dur 0 = shorter than 1 µs, a real kernel (kept, stated)
    us = [ev("kernel", "short", 1000, 0, device=0, stream=7), ev("kernel", "k", 1001, 10, device=0, stream=7)]
    tl, _ = analysed(kineto(tmp_path, us, "us.json"))
    assert kernels(tl)["short"] == [(1_000 * US, 1_000 * US)] and tl.invalid == ()
    assert any("with dur 0" in p for p in tl.problems)
    # a ns clock (fractional µs): zero-length GPU work is impossible (left out, counted)
    text = ('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "zero", "pid": 0, "tid": 7, "ts": 1000.250, '
            '"dur": 0.000}, {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1001.125, '
            '"dur": 10.500}]}')
    (tmp_path / "ns.json").write_text(text, encoding="utf-8")
    tl, rep = analysed(tmp_path / "ns.json")
    assert list(kernels(tl)) == ["k"] and reasons(tl)["zero"] == (1, reasons(tl)["zero"][1])
    assert "zero duration" in reasons(tl)["zero"][1]
    assert not any("with dur 0" in p for p in tl.problems)
    no_inf(rep)


def test_kineto_timestamp_far_from_the_rest_is_left_out(tmp_path):
    base = 1_700_000_000_000_000  # µs since the epoch
    events = [ev("kernel", "k", base + 100 * i, 50, device=0, stream=7, correlation=i) for i in range(8)]
    events += [ev("kernel", "other_clock", 5_000_000_000, 50, device=0, stream=7, correlation=99),
               ev("cuda_runtime", "cudaLaunchKernel", base - 10, 5, tid=1, correlation=0)]
    tl, rep = analysed(kineto(tmp_path, events))
    count, why = reasons(tl)["other_clock"]
    assert count == 1 and "from the median" in why
    (d,) = rep.devices
    assert d.start_ns == base * US and d.span_s == pytest.approx(750e-6, abs=1e-12)  # not ~54 years
    assert rep.wall_s == pytest.approx(760e-6, abs=1e-12)
    no_inf(rep)


def test_zero_span_is_not_measurable_never_100_percent(tmp_path, capsys):
    p = kineto(tmp_path, [ev("kernel", "instant", 1000, 0, device=0, stream=7)])
    tl, rep = analysed(p)
    (d,) = rep.devices
    assert d.span_s == 0.0 and d.utilisation_pct is None
    assert any(n.key == "tl_zero_span" for n in rep.notes)
    doc = no_inf(rep)
    assert doc["devices"][0]["utilisation_pct"] is None
    text = render_timeline([rep], "table", "en", width=200)  # wide enough for every column (default: $COLUMNS or 80)
    assert "not measurable (zero span)" in text and not re.search(r"\b100(\.0)?%", text)
    assert "利用率无法测量" in render_timeline([rep], "table", "zh", width=200)
    assert strict(main, ["timeline", str(p), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)["reports"][0]
    assert printed["devices"][0]["utilisation_pct"] is None


# -------------------------------------------------------------------------------- Nsight Systems SQLite
SCHEMA = """
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'good'), (2, 'never_ended'), (3, 'backwards'), (4, 'zero'), (5, 'other_clock'),
  (6, 'long'), (7, 'cudaLaunchKernel'), (8, 'next');
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3');
"""
T0 = 1_700_000_000_000_000_000  # ns


def sqlite_db(tmp_path: Path, kernel_rows: list[tuple], memcpy_rows: list[tuple] = ()) -> Path:
    """An export with the given kernel rows (start, end, device, stream, corr, name id) and copies."""
    p = tmp_path / "r.sqlite"
    con = sqlite3.connect(p)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [r + (r[-1],) for r in kernel_rows])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", list(memcpy_rows))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, 7)",
                    [(r[0] - 2_000, r[0] - 1_000, r[4]) for r in kernel_rows if 0 < r[0] < INT64_MAX])
    con.commit()
    con.close()
    return p


def test_sqlite_every_impossible_kind(tmp_path):
    rows = [(T0 + 1_000, T0 + 2_000, 0, 7, 1, 1),
            (T0 + 3_000, T0 + 4_000, 0, 7, 2, 1),
            (T0 + 5_000, INT64_MAX, 0, 7, 3, 2),  # never completed
            (T0 + 6_000, T0 + 5_500, 0, 7, 4, 3),  # end before start
            (T0 + 7_000, T0 + 7_000, 0, 7, 5, 4),  # zero length in a ns clock
            (5 * 86_400 * 10**9, 5 * 86_400 * 10**9 + 500, 0, 7, 6, 5),  # 5 days after the epoch: another clock
            (T0 + 8_000, T0 + 20_000, 0, 7, 7, 6),  # runs past the next start on stream 7: clipped at T0 + 9,000
            (T0 + 9_000, T0 + 10_000, 0, 7, 8, 8)]
    copies = [(T0 + 9_500, T0 + 9_800, 0, 8, 9, 1024, 1, 1, 3)]  # another stream: overlap allowed
    path = sqlite_db(tmp_path, rows, copies)
    tl, rep = analysed(path)
    got = reasons(tl)
    assert got["never_ended"][0] == 1 and "INT64_MAX" in got["never_ended"][1]
    assert got["backwards"][0] == 1 and "negative duration" in got["backwards"][1]
    assert got["zero"][0] == 1 and "zero duration" in got["zero"][1]
    assert got["other_clock"][0] == 1 and "from the median" in got["other_clock"][1]
    assert sorted(kernels(tl)) == ["good", "long", "next"]
    assert kernels(tl)["long"] == [(T0 + 8_000, T0 + 9_000)]
    (fix,) = tl.repaired
    assert (fix.name, fix.removed_ns, fix.stream, fix.correlation_ids) == ("long", 11_000, 7, (7,))
    assert any("impossible record(s) left out" in p for p in tl.problems)
    (d,) = rep.devices
    assert (d.start_ns, d.end_ns) == (T0 + 1_000, T0 + 10_000)
    assert d.kernel_s == pytest.approx(4_000e-9, abs=1e-15) and d.memcpy_s == 0.0  # the copy hides under "next"
    assert d.utilisation_pct == pytest.approx(100 * 4_000 / 9_000)
    assert rep.invalid == tl.invalid and any(n.key == "tl_invalid_records" for n in rep.notes)
    assert np.all(tl.end_ns >= tl.start_ns)
    no_inf(rep)


def test_sqlite_only_zero_length_gpu_work_says_it_cannot_measure(tmp_path, capsys):
    path = sqlite_db(tmp_path, [(T0 + 1_000, T0 + 1_000, 0, 7, 1, 4)])
    tl, rep = analysed(path)
    assert len(tl) == 1 and tl.kind.tolist() == [4]  # only the launch call is left
    assert reasons(tl)["zero"][0] == 1
    assert rep.devices == () and "utilisation" in rep.not_computable
    assert strict(main, ["timeline", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Utilisation" not in out  # no device split to print: none says 100 %
    assert "Not computable" in out and "utilisation" in out and "zero duration" in out
    no_inf(rep)


def test_sqlite_int64_max_end_reaches_no_numpy_warning(tmp_path):
    path = sqlite_db(tmp_path, [(T0, INT64_MAX, 0, 7, 1, 2), (T0 + 10, T0 + 30, 0, 7, 2, 1)])
    tl = strict(read_nsys_sqlite, path)
    rep = strict(analyse_timeline, tl)
    assert rep.devices[0].span_s == pytest.approx(20e-9) and reasons(tl)["never_ended"][0] == 1
    assert rep.wall_s < 1.0
    no_inf(rep)


def test_kineto_reader_stays_vectorised_on_a_large_trace(tmp_path):
    """100,000 kernels on 4 streams, each running 15 µs past the start of its successor on its stream: all
    clipped (the work is NumPy over the columns; a per-row Python loop would take seconds here)."""
    n = 100_000
    events = [ev("kernel", f"k{i % 3}", 1_000_000 + 10 * i, 55, device=0, stream=i % 4, correlation=i)
              for i in range(n)]
    tl = read_kineto(kineto(tmp_path, events))
    assert sum(r.count for r in tl.repaired) == n - 4  # every kernel but the last of each stream
    assert sum(r.removed_ns for r in tl.repaired) == (n - 4) * 15 * US
    assert len(tl.repaired) == 12  # 3 names x 4 streams
    assert tl.kind[tl.kind == MEMCPY].size == 0 and int((tl.end_ns - tl.start_ns).max()) == 55 * US


@pytest.mark.parametrize("cell", ["'x'", "1e308", "4611686018427387904 * 4"])
def test_sqlite_cell_that_is_not_a_64_bit_integer_is_one_line(tmp_path, cell):
    # found by the fuzzer: a TEXT 'x' start reached np.fromiter as ValueError, a REAL 1e308 as OverflowError
    from kernelscope.errors import InputError
    from kernelscope.ingest.nsys_sqlite import read_nsys_sqlite

    path = sqlite_db(tmp_path, [(T0 + 1_000, T0 + 2_000, 0, 7, 1, 1), (T0 + 3_000, T0 + 4_000, 0, 7, 2, 1)])
    con = sqlite3.connect(path)
    con.execute(f"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = {cell} WHERE correlationId = 2")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="not a 64-bit integer") as exc:
        read_nsys_sqlite(path)
    assert str(path) in str(exc.value) and "\n" not in str(exc.value)

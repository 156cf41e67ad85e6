"""Nsight Systems inputs: SQLite exports (cases C12, C14 and the corpus, checked against plain SQL and an
independent pure-Python union) and ``nsys stats`` output (case C20 and the corpus), read-only guarantee."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import CASES, SHARED, need
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.ingest import detect_timeline_format, load_timeline
from kernelscope.ingest import nsys_sqlite
from kernelscope.ingest.nsys_sqlite import read_nsys_sqlite
from kernelscope.ingest.nsys_stats import read_nsys_stats
from kernelscope.analysis.timeline import analyse, analyse_timeline
from kernelscope.timeline_model import KERNEL, MEMCPY, RUNTIME_API, SYNC, Timeline, TimelineSummary

CORPUS_NSYS = SHARED / "corpus" / "nsys"
MS = 1e-3


def build_case(name: str, tmp_path: Path) -> Path:
    """Build a case database from ``_nsys_min_schema.sql`` + the case file with Python's sqlite3 module."""
    schema = need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
    body = need(CASES / name).read_text(encoding="utf-8")
    out = tmp_path / (name.split("_")[0] + ".sqlite")
    con = sqlite3.connect(out)
    con.executescript(schema + body)
    con.commit()
    con.close()
    return out


def py_union(intervals: list[tuple[int, int]]) -> int:
    """Union length computed the plain way (sort, sweep), independent of kernelscope."""
    total = 0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


# ------------------------------------------------------------------------------------------------ case C12
def test_c12_union_not_sum(tmp_path):
    path = build_case("C12_nsys_util_overlap.sql", tmp_path)
    rep = analyse_timeline(read_nsys_sqlite(path))
    (d,) = rep.devices
    assert d.span_s == pytest.approx(2008.6 * MS, abs=1e-9)
    assert d.busy_s == pytest.approx(1978.3 * MS, abs=1e-9)
    assert d.kernel_s == pytest.approx(1978.3 * MS, abs=1e-9)
    assert d.idle_s == pytest.approx(30.3 * MS, abs=1e-9)
    assert round(d.utilisation_pct, 2) == 98.49
    assert d.utilisation_pct <= 100.0
    assert d.sum_over_streams_s == pytest.approx(2260.3 * MS, abs=1e-9)  # "sum over streams" only
    assert d.overlap_s == pytest.approx(282.0 * MS, abs=1e-9)
    assert d.largest_gap_s == pytest.approx(30.3 * MS, abs=1e-9)
    # per stream: 1626.1 / 627.5 / 6.7 ms
    per_stream = {s.stream: s.busy_s for s in rep.streams}
    assert per_stream == pytest.approx({7: 1626.1 * MS, 20: 627.5 * MS, 9: 6.7 * MS})
    # no "long idle gap" (30.3 ms < 500 ms) and utilisation is not low
    assert {f.id for f in rep.findings} == set()
    assert rep.devices_named == ((0, "NVIDIA H100 80GB HBM3"),)


def test_c12_cli_table_and_json(tmp_path, capsys):
    path = build_case("C12_nsys_util_overlap.sql", tmp_path)
    assert main(["timeline", str(path), "--format", "json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    d = doc["reports"][0]["devices"][0]
    assert round(d["utilisation_pct"], 2) == 98.49
    assert d["sum_over_streams_s"] == pytest.approx(2.2603)
    assert main(["timeline", str(path)]) == 0
    out = capsys.readouterr().out
    assert "98.5%" in out and "112.5" not in out


# ------------------------------------------------------------------------------------------------ case C14
def test_c14_copy_is_busy_time_not_idle(tmp_path):
    path = build_case("C14_nsys_memcpy_gap.sql", tmp_path)
    tl = read_nsys_sqlite(path)
    assert tl.invalid == ()  # a kernel starting at ts 0 with a real end is valid
    rep = analyse_timeline(tl)
    (d,) = rep.devices
    assert d.span_s == pytest.approx(1761.8 * MS, abs=1e-9)
    assert d.kernel_s == pytest.approx(1508.1 * MS, abs=1e-9)
    assert 100 * d.kernel_s / d.span_s == pytest.approx(85.6, abs=0.05)
    assert d.memcpy_s == pytest.approx(253.7 * MS, abs=1e-9)
    assert 100 * d.memcpy_s / d.span_s == pytest.approx(14.4, abs=0.05)
    assert d.idle_s == 0.0
    (htod,) = d.copies
    assert htod.direction == "HtoD" and htod.bytes == 5 * 2**30
    assert htod.throughput_bytes_per_s / 1e9 == pytest.approx(21.2, abs=0.05)
    assert htod.pageable_s == pytest.approx(253.7 * MS)
    rules = {f.id for f in rep.findings}
    assert "pageable_memcpy" in rules  # appropriate
    assert "gpu_gaps" not in rules and "low_utilisation" not in rules  # not appropriate
    # the case's srcKind 1 / dstKind 3 only make sense in CUPTI's numbering for an HtoD copy
    assert "CUPTI" in tl.meta["memory_kind_numbering"]


# ------------------------------------------------------------------------------------------------ read-only
def test_reading_never_changes_the_file(tmp_path):
    src = build_case("C12_nsys_util_overlap.sql", tmp_path)
    os.utime(src, (1_600_000_000, 1_600_000_000))
    before = src.read_bytes()
    mtime = src.stat().st_mtime_ns
    listing = sorted(p.name for p in tmp_path.iterdir())
    read_nsys_sqlite(src)
    analyse(load_timeline(src))
    assert src.read_bytes() == before
    assert src.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == listing  # no -journal / -wal / -shm left behind


def test_read_only_file_on_read_only_directory(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    src = build_case("C14_nsys_memcpy_gap.sql", d)
    src.chmod(0o444)
    d.chmod(0o555)
    try:
        tl = read_nsys_sqlite(src)
        assert len(tl) == 3
    finally:
        d.chmod(0o755)


# ------------------------------------------------------------------------------------------------ reader edge cases
def _make_db(path: Path, kernels, *, corr_big=False, gpu_table="TARGET_INFO_GPU", extra_sql: str = "") -> Path:
    con = sqlite3.connect(path)
    con.executescript(f"""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE {gpu_table} (id INTEGER, name TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
          contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
          globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
        INSERT INTO StringIds VALUES (1, 'k_a'), (2, 'k_b'), (3, 'cudaLaunchKernel_v7000');
        INSERT INTO {gpu_table} VALUES (0, 'NVIDIA A100-SXM4-80GB');
        {extra_sql}
    """)
    base = 2**40 if corr_big else 0
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,?,?,?)",
                    [(s, e, st, base + c, n) for (s, e, st, c, n) in kernels])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,7,?,3,0)",
                    [(s - 5000, s - 1000, base + c) for (s, e, st, c, n) in kernels])
    con.commit()
    con.close()
    return path


KERNELS = [(1_000_000 + 10_000 * i, 1_000_000 + 10_000 * i + 3_000 + (i % 7) * 100, 7 + (i % 3), 100 + i, 1 + (i % 2))
           for i in range(500)]


@pytest.mark.parametrize("corr_big", [False, True], ids=["packed", "unpacked"])
def test_chunked_fetch_and_both_sql_paths(tmp_path, monkeypatch, corr_big):
    """Small chunks exercise the chunk loop; correlation ids beyond 31 bits take the unpacked SQL path."""
    monkeypatch.setattr(nsys_sqlite, "CHUNK_ROWS", 7)
    path = _make_db(tmp_path / "k.sqlite", KERNELS, corr_big=corr_big, gpu_table="TARGET_INFO_CUDA_GPU")
    tl = read_nsys_sqlite(path)
    k = tl.kind == KERNEL
    assert int(k.sum()) == 500
    order = np.argsort(tl.start_ns[k])
    assert tl.start_ns[k][order].tolist() == [s for s, *_ in KERNELS]
    assert tl.stream[k][order].tolist() == [st for _, _, st, _, _ in KERNELS]
    base = 2**40 if corr_big else 0
    assert tl.correlation_id[k][order].tolist() == [base + c for *_, c, _ in KERNELS]
    assert [tl.names[i] for i in tl.name_id[k][order][:2]] == ["k_a", "k_b"]  # shortName when no demangledName
    api = tl.kind == RUNTIME_API
    assert set(tl.names[i] for i in tl.name_id[api]) == {"cudaLaunchKernel"}  # _v7000 removed
    assert tl.devices == ((0, "NVIDIA A100-SXM4-80GB"),)
    rep = analyse_timeline(tl)
    assert rep.launch is not None and rep.launch.matched == 500
    assert rep.launch.latency_median_s == pytest.approx(5e-6)
    assert rep.launch.api_median_s == pytest.approx(4e-6)


def test_tiny_kernels_from_sqlite(tmp_path):
    path = _make_db(tmp_path / "k.sqlite", KERNELS)
    rep = analyse_timeline(read_nsys_sqlite(path))
    # 3.0-3.6 us kernels launched by 4 us calls: about as long as their launch cost
    assert {t.name for t in rep.tiny_kernels} == {"k_a", "k_b"}
    assert all(t.launch_cost_s == pytest.approx(4e-6) for t in rep.tiny_kernels)
    # each launch follows a ~6.4-7 us gap, capped at the 4 us launch cost -> 4 us saved per launch but the first
    assert sum(t.savings_s for t in rep.tiny_kernels) == pytest.approx(499 * 4e-6, rel=1e-9)
    # one concern, one finding: the launch-bound finding (it prices the CUDA graph) stands for the tiny kernels
    ids = {f.id for f in rep.findings}
    assert "launch_bound" in ids and "tiny_kernels" not in ids


def test_sync_nvtx_memset_tables(tmp_path):
    extra = """
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
          contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (2000000, 2001000, 0, 1, 7, 9001, 4096);
        CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
          deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
          syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
        INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1000000, 1500000, 0, 1, 4294967295, 9002, 4, 0);
        CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
          textId INTEGER, globalTid INTEGER);
        INSERT INTO StringIds VALUES (4, 'step'), (5, 'cudaMemset_v3020');
        INSERT INTO NVTX_EVENTS VALUES (900000, 1900000, 59, NULL, 4, 7), (950000, NULL, 34, 'mark', NULL, 7);
    """
    path = _make_db(tmp_path / "k.sqlite", KERNELS[:3], extra_sql=extra)
    con = sqlite3.connect(path)
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1999000, 2002000, 0, 7, 9001, 5, 0)")
    con.commit()
    con.close()
    tl = read_nsys_sqlite(path)
    assert [tl.names[i] for i in tl.name_id[tl.kind == SYNC]] == ["Context sync"]
    assert tl.stream[tl.kind == SYNC].tolist() == [-1]
    rep = analyse_timeline(tl)
    assert [a.name for a in rep.annotations] == ["step"]  # the mark (no end) is not a range
    assert rep.memsets[0].bytes == 4096
    assert rep.devices[0].sync_s == pytest.approx(0.5e-3)
    assert "sync_memset" in {f.id for f in rep.findings}


def test_not_an_nsys_database_and_not_a_database(tmp_path):
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="without Nsight Systems tables"):
        read_nsys_sqlite(other)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(InputError) as e:
        read_nsys_sqlite(junk)
    assert "\n" not in str(e.value)


def test_empty_cuda_tables_are_no_gpu_activity(tmp_path):
    path = _make_db(tmp_path / "k.sqlite", [])
    with pytest.raises(InputError, match="recorded no GPU activity.*--trace=cuda"):
        read_nsys_sqlite(path)


# ------------------------------------------------------------------------------------------------ corpus
NSYS_FILES = sorted(CORPUS_NSYS.glob("*")) if CORPUS_NSYS.is_dir() else []
_ABSENT = f"shared corpus not available: {CORPUS_NSYS} is absent"
PARAMS = [p for p in NSYS_FILES if p.name != "README.md"] or [pytest.param(None, marks=pytest.mark.skip(reason=_ABSENT))]
REFUSED = {
    "cardiac_rtx3060laptop_report1_no_cupti_tables.sqlite": "recorded no GPU activity",
    "kmeans_2gpu_report1_no_cupti_tables.sqlite": "recorded no GPU activity",
    "mineru_nsys2025_stats_format_csv_stdout.csv": "recorded no GPU activity",
}


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if isinstance(p, Path) else "absent")
def test_every_corpus_file_analysed_or_refused(path, capsys):
    if path.name in REFUSED:
        with pytest.raises(InputError) as e:
            analyse(load_timeline(path))
        msg = str(e.value)
        assert REFUSED[path.name] in msg and "\n" not in msg and msg.startswith(str(path))
        assert "--trace=cuda" in msg
        assert main(["timeline", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "recorded no GPU activity" in err
        return
    reports = analyse(load_timeline(path))
    assert reports
    for rep in reports:
        assert rep.kernels or rep.copies or rep.annotations
        for d in rep.devices:
            assert 0.0 <= d.utilisation_pct <= 100.0
            assert d.kernel_s + d.memcpy_s + d.memset_s + d.idle_s == pytest.approx(d.span_s, abs=1e-9)
    for fmt in ("table", "json", "markdown"):
        for lang in ("en", "zh"):
            assert main(["timeline", str(path), "--format", fmt, "--lang", lang]) == 0
    capsys.readouterr()


def _sql(path: Path, q: str):
    con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


SQLITE_ANALYSED = ["cts_rtx3070_array_inc_a.sqlite", "cts_rtx3070_array_inc_d_uvm.sqlite",
                   "cudatutorial_rtx3060_fused_bias_fp16_report.sqlite"]


@pytest.mark.parametrize("name", SQLITE_ANALYSED)
def test_corpus_sqlite_breakdown_against_plain_sql(name):
    path = need(CORPUS_NSYS / name)
    rep = analyse_timeline(read_nsys_sqlite(path))
    (d,) = rep.devices
    ((k_sum, k_n),) = _sql(path, "SELECT SUM(end - start), COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    ((c_sum, c_n, c_bytes),) = _sql(path, "SELECT SUM(end - start), COUNT(*), SUM(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY")
    assert d.kernel_sum_s == pytest.approx(k_sum * 1e-9, abs=1e-12) and d.kernel_count == k_n
    assert d.memcpy_sum_s == pytest.approx(c_sum * 1e-9, abs=1e-12) and d.memcpy_count == c_n
    assert sum(c.bytes for c in d.copies) == c_bytes
    assert rep.kernel_time_s == pytest.approx(k_sum * 1e-9, abs=1e-12)
    # union and split computed independently in plain Python from the SQL rows
    kern = _sql(path, "SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL")
    copies = _sql(path, "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY")
    busy = py_union(kern + copies)
    span = max(e for _, e in kern + copies) - min(s for s, _ in kern + copies)
    assert d.busy_s == pytest.approx(busy * 1e-9, abs=1e-12)
    assert d.kernel_s == pytest.approx(py_union(kern) * 1e-9, abs=1e-12)
    assert d.idle_s == pytest.approx((span - busy) * 1e-9, abs=1e-12)
    # API time per name against SQL
    api = dict(_sql(path, "SELECT s.value, SUM(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                          "JOIN StringIds s ON s.id = r.nameId GROUP BY s.value"))
    for a in rep.api_calls:
        raw = [v for k, v in api.items() if re.sub(r"_v\d+$", "", k) == a.name]
        assert a.total_s == pytest.approx(sum(raw) * 1e-9, abs=1e-12)


def test_corpus_hand_read_values():
    a = analyse_timeline(read_nsys_sqlite(need(CORPUS_NSYS / "cts_rtx3070_array_inc_a.sqlite")))
    (k,) = a.kernels
    assert (k.name, k.count, k.total_s) == ("inc(int *, unsigned long)", 1, pytest.approx(883_936e-9))
    copies = {c.name: c.total_s for c in a.copies}
    assert copies == pytest.approx({"[CUDA memcpy DtoH]": 33_461_857e-9, "[CUDA memcpy HtoD]": 31_698_143e-9})
    assert {f.id for f in a.findings} >= {"sync_memcpy", "pageable_memcpy"}  # cudaMemcpy from malloc'd buffers
    assert a.black_hole.category == "gpu_idle" and a.black_hole.host_api == "cudaMalloc"
    d = analyse_timeline(read_nsys_sqlite(need(CORPUS_NSYS / "cts_rtx3070_array_inc_d_uvm.sqlite")))
    assert d.kernels[0].count == 10_000 and d.kernels[0].total_s == pytest.approx(8.694795789)
    assert {c.name for c in d.copies} == {"[CUDA Unified Memory memcpy HtoD]", "[CUDA Unified Memory memcpy DtoH]"}
    assert d.devices[0].sync_s == pytest.approx(915_910_216e-9)
    assert d.tiny_kernels == ()  # 0.87 ms kernels behind a full launch queue are not "tiny"
    assert d.black_hole.name == "inc(int *, unsigned long)"
    assert d.black_hole.amdahl.speedups[1] == pytest.approx(1 / (1 - 0.9 * d.black_hole.program_fraction))


def test_stats_text_agrees_with_its_sqlite_export():
    """cts_nsys_stats_console_...output was printed by nsys from the same capture as cts_rtx3070_array_inc_a.sqlite."""
    text = analyse(load_timeline(need(CORPUS_NSYS / "cts_nsys_stats_console_rtx3070_array_inc_a.output")))[0]
    db = analyse_timeline(read_nsys_sqlite(need(CORPUS_NSYS / "cts_rtx3070_array_inc_a.sqlite")))
    assert text.source == "summary" and text.kernels[0].total_s == pytest.approx(db.kernels[0].total_s)
    assert {c.name: c.total_s for c in text.copies} == pytest.approx({c.name: c.total_s for c in db.copies})
    calls = {a.name: a.count for a in text.api_calls}
    for o in text.one_off_calls:  # one-off costs (module loading ...) are shown apart in a summary
        calls[o.name] = calls.get(o.name, 0) + o.calls
    assert calls == {a.name: a.count for a in db.api_calls}
    assert "idle" in text.not_computable and "overlap" in text.not_computable


# ------------------------------------------------------------------------------------------------ nsys stats
def test_c20_locale_console_table():
    s = read_nsys_stats(need(CASES / "C20_nsys_stats_locale.txt"))
    assert s.locale == "comma-decimal"
    r1, r2 = s.rows
    assert r1.kind == "kernel" and r1.time_pct == pytest.approx(32.0)
    assert r1.total_s == pytest.approx(13_508_755_722e-9, abs=1e-12)
    assert r1.count == 2_929
    assert r1.mean_s == pytest.approx(4_612_070.0e-9, abs=1e-12)
    assert abs(r1.total_s / r1.count - r1.mean_s) <= 1e-9  # total/instances = 4,612,070.9 ns, within 1 ns
    assert r1.min_s == pytest.approx(356_703e-9) and r1.max_s == pytest.approx(74_678_548e-9)
    assert r1.name.endswith("…") and r1.truncated and r1.name.startswith("void cutlass::Kernel<")
    assert r2.total_s == pytest.approx(633_600_000e-9) and r2.count == 12_672
    assert r2.mean_s == pytest.approx(50_000.0e-9) and not r2.truncated
    rep = analyse(s)[0]
    assert rep.program_time_s == pytest.approx((13_508_755_722 + 633_600_000) * 1e-9)
    assert rep.kernels[0].truncated


def _stats(tmp_path, body: str) -> Path:
    p = tmp_path / "stats.txt"
    p.write_text(body, encoding="utf-8")
    return p


HEADER = (" Time(%)  Total Time (ns)  Instances  Average  Minimum  Maximum  Name\n"
          " -------  ---------------  ---------  -------  -------  -------  ----\n")


def test_ambiguous_number_format_names_the_line(tmp_path):
    p = _stats(tmp_path, HEADER + "   100  1,234  1  1,234  1,234  1,234  k\n")
    with pytest.raises(InputError, match=r"line 3: ambiguous number format"):
        read_nsys_stats(p)


def test_mixed_number_formats_are_refused(tmp_path):
    p = _stats(tmp_path, HEADER + "   60.5  1,234,567  3  411,522.3  1  2  a\n   39,5  1.234.567  3  411.522,3  1  2  b\n")
    with pytest.raises(InputError, match=r"line \d+: number format contradicts"):
        read_nsys_stats(p)


def test_c_locale_and_plain_numbers(tmp_path):
    s = read_nsys_stats(_stats(tmp_path, HEADER + "   100.0  1,234,567  3  411,522.3  1,000  2,000  k\n"))
    assert s.locale == "C" and s.rows[0].total_s == pytest.approx(1_234_567e-9)
    s = read_nsys_stats(_stats(tmp_path, HEADER + "   100.0  1234567  3  411522.3  1000  2000  k\n"))
    assert s.rows[0].total_s == pytest.approx(1_234_567e-9) and s.rows[0].mean_s == pytest.approx(411_522.3e-9)


def test_corpus_stats_generations():
    legacy = read_nsys_stats(need(CORPUS_NSYS / "ai4mat_nsys_legacy_stats_console_paddle_gcn.txt"))
    api = {r.name: r for r in legacy.rows if r.kind == "runtime_api"}
    assert api["cudaMalloc"].total_s == pytest.approx(1_709_124_966e-9) and api["cudaMalloc"].count == 195
    kern = [r for r in legacy.rows if r.kind == "kernel"]
    assert len(kern) == 27 and kern[0].total_s == pytest.approx(58_366e-9)
    assert kern[0].truncated  # cut to the column width without an ellipsis in this generation
    htod = next(r for r in legacy.rows if r.name == "[CUDA memcpy HtoD]")
    assert htod.count == 215 and htod.bytes == pytest.approx(1454.730 * 1024)
    new = read_nsys_stats(need(CORPUS_NSYS / "ai4mat_nsys_stats_console_paddle_gcn.txt"))
    assert new.reports == ("cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum")
    k0 = next(r for r in new.rows if r.kind == "kernel")
    assert (k0.total_s, k0.count, k0.median_s) == (pytest.approx(64_892e-9), 6, pytest.approx(10_815.5e-9))
    assert k0.name.endswith("…") and k0.truncated
    memset = next(r for r in new.rows if r.kind == "memset")
    assert memset.total_s == pytest.approx(2_432e-9) and memset.bytes == pytest.approx(0.009e6)
    mid = read_nsys_stats(need(CORPUS_NSYS / "cts_nsys_stats_console_rtx3070_array_inc_a.output"))
    assert mid.reports[:2] == ("CUDA API Statistics", "CUDA Kernel Statistics")


def test_corpus_locale_file_with_six_runs():
    s = read_nsys_stats(need(CORPUS_NSYS / "kmeans_nsys2021_console_rtx3080_locale_comma.txt"))
    assert s.locale == "comma-decimal" and s.runs == 6
    assert s.device_names == ("NVIDIA GeForce RTX 3080",)
    reports = analyse(s)
    assert len(reports) == 6 and reports[0].title == "run 1 of 6"
    k = reports[0].kernels[0]
    assert (k.name, k.count, k.total_s) == ("kmeans_235_gpu", 9, pytest.approx(744_226e-9))
    htod = next(c for c in reports[0].copies if c.name == "[CUDA memcpy HtoD]")
    assert htod.total_s == pytest.approx(48_290_314e-9) and htod.bytes == pytest.approx(291_600.0 * 1024)
    assert reports[1].kernels[0].count == 22


def test_corpus_nvtx_csv_and_table_agree():
    csv_s = read_nsys_stats(need(CORPUS_NSYS / "tienshen_nsys_stats_nvtx_sum_fp16.csv"))
    tab_s = read_nsys_stats(need(CORPUS_NSYS / "tienshen_nsys_stats_nvtx_sum_fp16_table.txt"))
    assert len(csv_s.rows) == len(tab_s.rows) == 64
    assert [r.total_s for r in csv_s.rows] == pytest.approx([r.total_s for r in tab_s.rows])
    assert csv_s.rows[0].name == "TensorRT:ExecutionContext::enqueueV3"
    assert csv_s.rows[0].total_s == pytest.approx(75_270_120e-9) and csv_s.rows[0].count == 60
    # the table was written in a Windows code page: byte 0x85 is the ellipsis of a cut name
    cut = [r for r in tab_s.rows if r.truncated]
    assert len(cut) == 6 and all(r.name.endswith("…") for r in cut)
    rep = analyse(tab_s)[0]
    assert rep.kernels == () and rep.annotations[0].name == "TensorRT:ExecutionContext::enqueueV3"
    assert any(n.key == "tl_summary_no_gpu" for n in rep.notes)


def test_detection_of_corpus_formats():
    expected = {".sqlite": "nsys-sqlite", ".txt": "nsys-stats", ".csv": "nsys-stats", ".output": "nsys-stats"}
    for p in NSYS_FILES:
        if p.suffix in expected:
            assert detect_timeline_format(p) == expected[p.suffix], p.name
    if not NSYS_FILES:
        pytest.skip(_ABSENT)

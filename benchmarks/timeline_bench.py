"""Benchmark (not a test) of ``kernelscope timeline`` on a large Nsight Systems SQLite export.

Scales a corpus export's kernel table up to at least ``--rows`` kernel rows (default 5,000,000) by replicating its
rows with shifted timestamps (and shifted correlation ids) into a TEMPORARY copy -- the corpus file is only read --
then, in one run and each in a fresh process:

* a bare ``SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL`` fetched to the end in Python (the floor any
  Python reader pays), and
* kernelscope: ``read_nsys_sqlite`` + ``analyse_timeline`` (the whole analysis: per-device and per-stream split,
  rankings, launch-overhead join, gaps, checks),

and prints wall times, the ratio, and peak memory (peak RSS of each process above an idle interpreter with NumPy
imported). Check: the summed kernel time from kernelscope equals ``SELECT SUM(end - start)``.

Usage::

    python benchmarks/timeline_bench.py [--source FILE.sqlite] [--rows N] [--keep]

Target (issue 5): kernelscope within 3x of the bare SELECT.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO.parent / "shared" / "corpus" / "nsys" / "cts_rtx3070_array_inc_d_uvm.sqlite"


def scale_up(source: Path, dest: Path, rows: int) -> int:
    """Copy ``source`` to ``dest`` and double its kernel table (timestamps shifted past the previous copy, correlation
    ids shifted past the largest) until it has at least ``rows`` rows. Returns the row count."""
    shutil.copyfile(source, dest)
    con = sqlite3.connect(dest)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    cols = [r[1] for r in con.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    n = con.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    if n == 0:
        raise SystemExit(f"{source}: no kernel rows to replicate")
    while n < rows:
        lo, hi, max_corr = con.execute(
            "SELECT MIN(start), MAX(end), MAX(correlationId) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
        shift = hi - lo + 1000
        select = ", ".join(
            f"{c} + {shift}" if c in ("start", "end") else f"{c} + {max_corr + 1}" if c == "correlationId" else c
            for c in cols)
        con.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)}) "
                    f"SELECT {select} FROM CUPTI_ACTIVITY_KIND_KERNEL")
        con.commit()
        n = con.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    con.close()
    return n


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def _idle(q) -> None:
    import numpy  # noqa: F401  (same imports as the measured children)

    import kernelscope.analysis.timeline  # noqa: F401
    q.put({"rss_mib": _rss_mib()})


def _bare(path: str, q) -> None:
    import numpy  # noqa: F401

    import kernelscope.analysis.timeline  # noqa: F401
    t0 = time.perf_counter()
    con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    cur = con.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL")
    n = 0
    while True:
        rows = cur.fetchmany(65536)
        if not rows:
            break
        n += len(rows)
    con.close()
    q.put({"wall_s": time.perf_counter() - t0, "rows": n, "rss_mib": _rss_mib()})


def _kernelscope(path: str, q) -> None:
    from kernelscope.ingest.nsys_sqlite import read_nsys_sqlite
    from kernelscope.analysis.timeline import analyse_timeline

    t0 = time.perf_counter()
    tl = read_nsys_sqlite(path)
    t1 = time.perf_counter()
    rep = analyse_timeline(tl)
    t2 = time.perf_counter()
    d = rep.devices[0]
    q.put({"wall_s": t2 - t0, "read_s": t1 - t0, "analyse_s": t2 - t1, "rows": len(tl), "rss_mib": _rss_mib(),
           "kernel_sum_s": rep.kernel_time_s, "busy_s": d.busy_s, "utilisation_pct": d.utilisation_pct,
           "launch_args": tl.launch is not None})


def _run(target, *args) -> dict:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(*args, q))
    p.start()
    out = q.get()
    p.join()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="corpus SQLite export to scale up")
    ap.add_argument("--rows", type=int, default=5_000_000, help="minimum kernel rows (default 5,000,000)")
    ap.add_argument("--keep", action="store_true", help="keep the scaled-up file (path printed)")
    args = ap.parse_args(argv)
    if not args.source.exists():
        print(f"source not found: {args.source}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="ks_bench_"))
    db = tmp / "scaled.sqlite"
    try:
        t0 = time.perf_counter()
        n = scale_up(args.source, db, args.rows)
        print(f"source: {args.source.name}; scaled kernel table: {n:,} rows, file {db.stat().st_size / 2**20:,.0f} MiB "
              f"(built in {time.perf_counter() - t0:.1f} s)")
        print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}")
        idle = _run(_idle)["rss_mib"]
        bare = _run(_bare, str(db))
        ks = _run(_kernelscope, str(db))
        con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
        sql_sum = con.execute("SELECT SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0] * 1e-9
        con.close()
        ratio = ks["wall_s"] / bare["wall_s"]
        print(f"bare SELECT start, end (fetch all rows):   {bare['wall_s']:7.2f} s   peak RSS +{bare['rss_mib'] - idle:7.0f} MiB")
        print(f"kernelscope read + analyse:                {ks['wall_s']:7.2f} s   peak RSS +{ks['rss_mib'] - idle:7.0f} MiB"
              f"   (read {ks['read_s']:.2f} s, analyse {ks['analyse_s']:.2f} s; {ks['rows']:,} intervals; "
              f"launch args read: {ks['launch_args']})")
        print(f"ratio kernelscope / bare SELECT: {ratio:.2f}x  (target: <= 3x)")
        print(f"idle interpreter (Python + NumPy + kernelscope imported): {idle:.0f} MiB")
        ok = abs(ks["kernel_sum_s"] - sql_sum) <= 1e-9 * max(1.0, sql_sum)
        print(f"check: kernel time {ks['kernel_sum_s']:.6f} s vs SQL SUM(end - start) {sql_sum:.6f} s -> "
              f"{'agree' if ok else 'DIFFER'}; utilisation {ks['utilisation_pct']:.2f}%")
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept: {db}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Benchmark (not a test): every issue-31 figure in one run, each as a ratio against its floor, side by side.

* ``diagnose`` of the corpus ``.ncu-rep`` reports (``--format json``) against a bare process that reads the same
  metrics and per-instruction data with NVIDIA's ``ncu_report`` (:mod:`ingest_bench`; target <= 2x);
* ``diagnose --format json`` of a 5,000-launch ``ncu --csv`` details export (:mod:`many_launches_bench`'s generated
  file) against a bare process that reads the same file with the standard library's ``csv`` module (every row, no
  conversion): what any reader of that file pays;
* with ``--with-hta``: the timeline of a 0.176 GiB PyTorch profiler trace against Meta's HolisticTraceAnalysis, by
  ``benchmarks/kineto_bench.py --size-gb 0.176 --work /tmp/kb_int --reuse --keep`` in a child process (HTA is the
  reference there, not a floor: the ratio is kernelscope / HTA, below 1 when kernelscope is faster).

Every side is timed as a whole process (interpreter start, imports, reading, analysis, output), kernelscope and its
floor alternately, ``--repeat`` times each after one warm-up run of each; medians are compared. The machine's load
average is printed before and after: on a shared machine the ratios move with it.

    python benchmarks/ratios.py                 # the corpus reports and 5,000 launches, 5 runs each
    python benchmarks/ratios.py --repeat 9 --with-hta
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ingest_bench  # noqa: E402 - a sibling script
import many_launches_bench  # noqa: E402

#: The bare read of a CSV file: every row through the standard library's reader, nothing converted.
CSV_FLOOR = r'''
import csv, sys
rows = 0
with open(sys.argv[1], newline="", encoding="utf-8") as fh:
    for row in csv.reader(fh):
        rows += 1
print(rows)
'''
KINETO_ARGS = ["--size-gb", "0.176", "--work", "/tmp/kb_int", "--reuse", "--keep"]


def _timed(cmd: list[str], stdout: Path | None = None) -> float:
    """Wall seconds of one whole process (its standard output into ``stdout``, else discarded)."""
    with open(stdout, "wb") if stdout else open(os.devnull, "wb") as out:
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=out, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def alternate(ks: list[str], floor: list[str], repeat: int, ks_out: Path | None = None) -> tuple[list, list]:
    """(kernelscope's, the floor's) wall seconds, ``repeat`` each, alternating, after one warm-up run of each."""
    _timed(ks, ks_out), _timed(floor)
    a, b = [], []
    for _ in range(repeat):
        b.append(_timed(floor))
        a.append(_timed(ks, ks_out))
    return a, b


def csv_floor(path: Path) -> list[str]:
    """The floor command of the 5,000-launch figure: ``many_launches_bench``'s own when it has one, else a whole
    process reading every row of ``path`` with the standard ``csv`` module."""
    own = getattr(many_launches_bench, "floor_command", None)
    return list(own(path)) if callable(own) else [sys.executable, "-c", CSV_FLOOR, str(path)]


def many_launches(repeat: int, launches: int) -> tuple[str, list, list, str]:
    """The 5,000-launch JSON figure: (name, kernelscope seconds, floor seconds, floor name)."""
    tmp = Path(tempfile.mkdtemp(prefix="ks_ratios_"))
    try:
        src = tmp / "model.details.csv"
        info = many_launches_bench.generate(src, launches, 200)
        exe = shutil.which("kernelscope", path=str(Path(sys.executable).parent))
        ks = [exe] if exe else [sys.executable, "-m", "kernelscope"]
        a, b = alternate([*ks, "diagnose", str(src), "--quiet", "--format", "json"], csv_floor(src), repeat,
                         tmp / "out.json")
        return (f"diagnose --format json, {info['launches']:,} launches ({info['bytes'] / 1e6:.0f} MB CSV)", a, b,
                "csv module read")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def kineto() -> tuple[str, float, float] | str:
    """The Kineto figure from ``kineto_bench.py`` (a child process): (name, kernelscope s, HTA s), or why not."""
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("kineto_bench.py")), *KINETO_ARGS],
                          capture_output=True, text=True)
    found = re.search(r"== speed: kernelscope ([\d.]+) s vs HTA ([\d.]+) s", proc.stdout)
    if not found:
        return f"kineto_bench.py gave no speed line (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
    return "timeline of a 0.176 GiB Kineto trace", float(found.group(1)), float(found.group(2))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each side (default 5; medians compared)")
    ap.add_argument("--launches", type=int, default=5000, help="launches of the generated CSV (default 5,000)")
    ap.add_argument("--with-hta", action="store_true", help="also the Kineto trace against HTA (minutes)")
    args = ap.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; nproc {os.cpu_count()}; "
          f"{args.repeat} runs each, alternating; medians (min-max)")
    rows = []
    reports = ingest_bench.corpus_reports()
    if reports:
        m = ingest_bench.measure(reports, args.repeat)
        rows.append((f"diagnose --format json, {len(reports)} .ncu-rep ({m['launches']} launches)", m["kernelscope"],
                     m["bare"], "bare ncu_report read", "<= 2x"))
    else:
        print(f"no .ncu-rep reports in {ingest_bench.CORPUS}: the diagnose figure is left out")
    name, a, b, floor = many_launches(args.repeat, args.launches)
    rows.append((name, a, b, floor, ""))
    print()
    print(f"{'figure':<58} {'kernelscope s':>20} {'floor s':>20}  {'floor':<22} {'ratio':>6}  target")
    for name, a, b, floor, target in rows:
        ks = f"{statistics.median(a):.3f} ({min(a):.2f}-{max(a):.2f})"
        fl = f"{statistics.median(b):.3f} ({min(b):.2f}-{max(b):.2f})"
        print(f"{name:<58} {ks:>20} {fl:>20}  {floor:<22} {statistics.median(a) / statistics.median(b):>5.2f}x  "
              f"{target}")
    if args.with_hta:
        k = kineto()
        if isinstance(k, str):
            print(k)
        else:
            print(f"{k[0]:<58} {k[1]:>20.2f} {k[2]:>20.2f}  {'HTA (one run each)':<22} {k[1] / k[2]:>5.2f}x")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

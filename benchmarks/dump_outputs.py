#!/usr/bin/env python3
"""Benchmark helper (not a test): dump kernelscope's JSON outputs for every file of ``../shared/corpus`` into a
folder, to compare two versions of the code byte for byte (issue 31: "no figure of any output changes").

For every corpus file: ``diagnose --format json FILE`` (and with ``--table`` the table, ``diagnose FILE``); for every timeline input (``nsys/``, ``torch_traces/``):
``timeline --format json FILE`` too; and ``compare --format json`` of corpus pairs. Each command runs as its own
process with the ``PYTHONPATH`` of the caller (so ``PYTHONPATH=/tmp/base/src`` dumps another checkout); its exit
status, standard output and standard error are written as ``NAME.rc``, ``NAME.json``, ``NAME.err``.

    PYTHONPATH=/tmp/base31/src python benchmarks/dump_outputs.py /tmp/dump_before
    PYTHONPATH=src python benchmarks/dump_outputs.py /tmp/dump_after
    python benchmarks/dump_outputs.py --diff /tmp/dump_before /tmp/dump_after

``--ncu-rep`` dumps the commands that read Nsight Compute reports instead: for every corpus ``.ncu-rep``
``diagnose`` as JSON and as the table, ``source`` and ``roofline`` as JSON; every report together (the process
pool) as JSON, as Markdown (grouped launches and ``--launches all``) and as HTML; ``compare`` of consecutive reports as JSON and as the table.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"

#: Corpus pairs given to ``compare`` (before, after), relative to the corpus.
PAIRS = (
    ("ncu_csv/olajide_rtx5070_saxpy.csv", "ncu_csv/olajide_rtx5070_gemm_tiled.csv"),
    ("torch_traces/hta_trace_filter_sampled_rank-0.json.gz", "torch_traces/hta_trace_filter_sampled_rank-1.json.gz"),
    ("nsys/cts_rtx3070_array_inc_a.sqlite", "nsys/cts_rtx3070_array_inc_d_uvm.sqlite"),
)


def commands(corpus: Path, table: bool = False) -> list[tuple[str, list[str]]]:
    """(output name, kernelscope arguments) for every dump; with ``table`` also the ``diagnose`` table of every
    corpus file; raises nothing (a missing corpus gives no commands)."""
    out: list[tuple[str, list[str]]] = []
    for f in sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "README.md"):
        rel = f.relative_to(corpus).as_posix()
        key = rel.replace("/", "__")
        out.append((f"diagnose__{key}", ["diagnose", "--format", "json", str(f)]))
        if table:
            out.append((f"table__{key}", ["diagnose", str(f)]))
        if rel.startswith(("nsys/", "torch_traces/")):
            out.append((f"timeline__{key}", ["timeline", "--format", "json", str(f)]))
    for a, b in PAIRS:
        key = f"{a}--{b}".replace("/", "__")
        out.append((f"compare__{key}", ["compare", "--format", "json", str(corpus / a), str(corpus / b)]))
    return out


def ncu_rep_commands(corpus: Path) -> list[tuple[str, list[str]]]:
    """(output name, kernelscope arguments) of the ``--ncu-rep`` dumps (see the module docstring)."""
    reports = sorted((corpus / "ncu").glob("*.ncu-rep"))
    out: list[tuple[str, list[str]]] = []
    for f in reports:
        out += [(f"diagnose__{f.name}", ["diagnose", "--format", "json", str(f)]),
                (f"table__{f.name}", ["diagnose", str(f)]),
                (f"source__{f.name}", ["source", "--format", "json", str(f)]),
                (f"roofline__{f.name}", ["roofline", "--format", "json", str(f)])]
    if reports:
        out += [("diagnose__all", ["diagnose", "--format", "json", *map(str, reports)]),
                ("markdown__all", ["diagnose", "--format", "markdown", *map(str, reports)]),
                ("markdown__all_launches", ["diagnose", "--format", "markdown", "--launches", "all", *map(str, reports)]),
                ("html__all", ["diagnose", "--format", "html", *map(str, reports)])]
    for a, b in zip(reports[::2], reports[1::2]):
        out += [(f"compare__{a.name}--{b.name}", ["compare", "--format", "json", str(a), str(b)]),
                (f"comparetable__{a.name}--{b.name}", ["compare", str(a), str(b)])]
    return out


def _run(job: tuple[str, list[str]], dest: Path) -> str:
    name, args = job
    env = dict(os.environ, KERNELSCOPE_LANG="en", COLUMNS="100")
    p = subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True, env=env, timeout=600)
    (dest / f"{name}.json").write_bytes(p.stdout)
    (dest / f"{name}.err").write_bytes(p.stderr)
    (dest / f"{name}.rc").write_text(str(p.returncode))
    return name


def diff(a: Path, b: Path) -> int:
    """Number of dump files that differ between folders ``a`` and ``b`` (printed by name)."""
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    bad = 0
    for n in names:
        pa, pb = a / n, b / n
        if not (pa.exists() and pb.exists()) or pa.read_bytes() != pb.read_bytes():
            print("DIFFERS:", n)
            bad += 1
    print(f"{len(names)} files compared, {bad} differ")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dest", type=Path)
    ap.add_argument("other", type=Path, nargs="?")
    ap.add_argument("--diff", action="store_true", help="compare two dump folders instead")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table", action="store_true", help="also the diagnose table of every corpus file")
    ap.add_argument("--ncu-rep", action="store_true", help="the commands that read .ncu-rep reports instead")
    ap.add_argument("--only", default="", help="only the dumps whose names start with this")
    ns = ap.parse_args()
    if ns.diff:
        return 1 if diff(ns.dest, ns.other) else 0
    ns.dest.mkdir(parents=True, exist_ok=True)
    jobs = [j for j in (ncu_rep_commands(CORPUS) if ns.ncu_rep else commands(CORPUS, ns.table))
            if j[0].startswith(ns.only)]
    with concurrent.futures.ThreadPoolExecutor(ns.jobs) as ex:
        for name in ex.map(lambda j: _run(j, ns.dest), jobs):
            pass
    print(f"{len(jobs)} outputs in {ns.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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

``--numbers`` dumps the terminal text (80 columns, English and Chinese) of the inputs of the native reviews' number
items (units by magnitude, one value one text, no fake precision), to read every changed number of a formatter
change: ``python benchmarks/dump_outputs.py --numbers /tmp/a`` before and after, then ``diff -r``.
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


def number_commands(corpus: Path) -> list[tuple[str, list[str]]]:
    """(output name, kernelscope arguments) of the ``--numbers`` dumps: each input in English and Chinese."""
    cases, ncu, tt, nsys = corpus.parent / "cases", corpus / "ncu", corpus / "torch_traces", corpus / "nsys"
    runs = {
        "n20": ["timeline", str(cases / "N20_kineto_queued_launches.json")],
        "n20md": ["timeline", "--format", "markdown", str(cases / "N20_kineto_queued_launches.json")],
        "n22": ["timeline", str(cases / "N22_kineto_exposed_comm_two_streams.json")],
        "n23": ["timeline", str(cases / "N23_nsys_stats_cuda_gpu_trace.csv")],
        "n14": ["timeline", "--as-ranks", str(cases / "N14_ranks_ddp_compute_straggler")],
        "n09": ["diagnose", str(cases / "N09_plain_bandwidth_above_dram_peak.toml")],
        "c05": ["diagnose", str(cases / "C05_ncu_console_hit_rates.txt")],
        "dlrm": ["timeline", str(tt / "param_dlrm_kineto_8rank_v100.tar.gz")],
        "alexnet": ["timeline", str(tt / "hta_alexnet_a100_rank0_trace.json.gz")],
        "resnet": ["timeline", str(tt / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz")],
        "fusion": ["fusion", str(tt / "hta_alexnet_a100_rank0_trace.json.gz")],
        "cmphta": ["compare", *(str(tt / f"hta_trace_filter_sampled_rank-{r}.json.gz") for r in (0, 1))],
        "kmeans": ["timeline", str(nsys / "kmeans_nsys2021_console_rtx3080_locale_comma.txt")],
        "cts": ["timeline", "--details", str(nsys / "cts_rtx3070_array_inc_a.sqlite")],
        "softmax": ["diagnose", str(ncu / "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep")],
        "feather": ["diagnose", "--details",
                    str(ncu / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep")],
        "sgemm": ["diagnose", "--top", "2", str(ncu / "ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep")],
        "reduce": ["diagnose", str(ncu / "EricccYang__cuda_operators__reduce_reduce_v1.ncu-rep")],
        "silu": ["diagnose", "--details",
                 str(ncu / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep")],
        "atopos": ["compare", *(str(ncu / f"Atopos0313__cuda_learning__reports_day08_{s}.ncu-rep")
                                for s in ("before", "after"))],
        "occ": ["occupancy", "--arch", "sm_80", "--regs", "64", "--threads", "256"],
    }
    return [(f"{name}.{lang}", [*args, "--lang", lang]) for name, args in runs.items() for lang in ("en", "zh")]


def _run(job: tuple[str, list[str]], dest: Path, columns: str = "100") -> str:
    name, args = job
    env = dict(os.environ, KERNELSCOPE_LANG="en", COLUMNS=columns)
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
    ap.add_argument("--numbers", action="store_true",
                    help="the terminal text (80 columns, en and zh) of the review inputs of number formats instead")
    ap.add_argument("--only", default="", help="only the dumps whose names start with this")
    ns = ap.parse_args()
    if ns.diff:
        return 1 if diff(ns.dest, ns.other) else 0
    ns.dest.mkdir(parents=True, exist_ok=True)
    jobs = [j for j in (number_commands(CORPUS) if ns.numbers else ncu_rep_commands(CORPUS) if ns.ncu_rep else
                        commands(CORPUS, ns.table)) if j[0].startswith(ns.only)]
    columns = "80" if ns.numbers else "100"
    with concurrent.futures.ThreadPoolExecutor(ns.jobs) as ex:
        for name in ex.map(lambda j: _run(j, ns.dest, columns), jobs):
            pass
    print(f"{len(jobs)} outputs in {ns.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Benchmark (not a test): the whole ``kernelscope diagnose --format json`` process over Nsight Compute reports,
against a bare process that only loads the same reports with NVIDIA's ``ncu_report`` and reads the same metrics.

Both are timed as whole processes (interpreter start, imports, reading, and for kernelscope the analysis and the
JSON), alternately, ``--repeat`` times each; the medians and their ratio are printed. The bare reader reads what
kernelscope's reader reads: for every result, the metric names of ``data/metrics.toml`` ``[request]`` (exact names
and prefixes), each metric's kind and value, its unit once per report, the three name bases and the stored rule
results; and for the launches whose findings kernelscope locates in the code, the same per-instruction metrics
(every instance's value and PC) and the source file and line of the top 3 PCs of each.

    python benchmarks/ingest_bench.py                      # ../shared/corpus/ncu/*.ncu-rep, 5 runs each
    python benchmarks/ingest_bench.py --repeat 9 a.ncu-rep b.ncu-rep

Target (issue 31): kernelscope at most 2x the bare read (issue "One-way architecture ..." asked for 1.5x).
``benchmarks/ratios.py`` prints this ratio beside the other issue-31 figures.

Both sides run from compiled bytecode, as an installed package does: kernelscope's modules are byte-compiled first
(``compileall``), since a checkout run with PYTHONDONTWRITEBYTECODE=1 (set on these machines) would otherwise compile
every module from source in every run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "ncu"

BARE = r'''
import json, sys
import ncu_report
req = json.loads(sys.argv[1])
names, prefixes = frozenset(req["names"]), tuple(req["prefixes"])
located = json.loads(sys.argv[2])
read = 0
for path in sys.argv[3:]:
    ctx = ncu_report.load_report(path)
    units = {}
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for j in range(rng.num_actions()):
            a = rng.action_by_idx(j)
            pcs = set()
            for n in located.get(f"{path}|{r}|{j}", ()):
                m = a.metric_by_name(n)
                cid = m.correlation_ids()
                values = {cid.as_uint64(i): m.as_double(i) for i in range(m.num_instances())}
                pcs.update(sorted(values, key=values.get, reverse=True)[:3])
            for pc in pcs:
                info = a.source_info(pc)
                if info is not None:
                    info.file_name(), info.line()
            a.name(); a.name(a.NameBase_DEMANGLED); a.name(a.NameBase_MANGLED)
            for n in a.metric_names():
                if n in names or n.startswith(prefixes):
                    m = a.metric_by_name(n)
                    if m is None or not m.has_value():
                        continue
                    k = m.kind()
                    m.as_string() if k == m.ValueKind_STRING else m.as_double()
                    if n not in units:
                        units[n] = m.unit()
                    read += 1
            a.rule_results_as_dicts()
print(read)
'''


LOCATED = r'''
import json, sys
from kernelscope.api import diagnose_report, load
from kernelscope.analysis.locations import needed_metrics
out = {}
for path in sys.argv[1:]:
    for d in diagnose_report(load(path)).kernels:
        if d.kernel.origin is not None:
            wanted = needed_metrics(d.findings, d.kernel.instruction_metrics)
            if wanted:
                out[f"{path}|{d.kernel.origin[0]}|{d.kernel.origin[1]}"] = list(wanted)
print(json.dumps(out))
'''


def run(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def commands(reports: list[str], out: str) -> tuple[list[str], list[str]]:
    """(the kernelscope command, the bare command) for ``reports``, the JSON written to ``out``. Byte-compiles
    kernelscope first and runs it once to find the launches it locates (what the bare side reads per instruction)."""
    exe = str(Path(sys.executable))
    package = subprocess.run([exe, "-c", "import kernelscope, os; print(os.path.dirname(kernelscope.__file__))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([exe, "-m", "compileall", "-q", package], check=True)
    # the metrics kernelscope's reader requests: data/metrics.toml [request] plus the Speed-of-Light breakdowns and
    # the units' sub-metrics (data/units.toml), so that both sides read the same metrics
    request = json.loads(subprocess.run(
        [exe, "-c", "import json; from kernelscope.knowledge.metrics import request; "
         "r = request(); print(json.dumps({'names': list(r.names), 'prefixes': list(r.prefixes)}))"],
        check=True, capture_output=True, text=True).stdout)
    # the per-instruction metrics kernelscope reads to locate each launch's findings (what diagnose_file reads)
    located = json.loads(subprocess.run([exe, "-c", LOCATED, *reports], check=True, capture_output=True,
                                        text=True).stdout)
    script = Path(exe).parent / "kernelscope"
    kernelscope = [str(script)] if script.exists() else [exe, "-m", "kernelscope"]
    ks_cmd = [*kernelscope, "diagnose", *reports, "--format", "json", "-o", out, "--quiet"]
    return ks_cmd, [exe, "-c", BARE, json.dumps(request), json.dumps(located), *reports]


def measure(reports: list[str], repeat: int) -> dict:
    """Both sides timed as whole processes, alternately, ``repeat`` times each after one warm-up run of each:
    ``{"bare": [s, ...], "kernelscope": [s, ...], "launches": n}``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "diagnosis.json")
        ks_cmd, bare_cmd = commands(reports, out)
        run(ks_cmd), run(bare_cmd)  # warm the page cache and the interpreter's bytecode caches
        ks, bare = [], []
        for _ in range(repeat):
            bare.append(run(bare_cmd))
            ks.append(run(ks_cmd))
        launches = sum(len(i["launches"]) for i in json.loads(Path(out).read_text(encoding="utf-8"))["inputs"])
    return {"bare": bare, "kernelscope": ks, "launches": launches}


def corpus_reports(given: list[Path] | None = None) -> list[str]:
    """The reports given, else every ``.ncu-rep`` of the shared corpus (sorted; empty when it is absent)."""
    return [str(r) for r in (given or sorted(CORPUS.glob("*.ncu-rep")))]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="*", type=Path, help="Nsight Compute reports (default: the shared corpus)")
    p.add_argument("--repeat", type=int, default=5, help="runs of each side (default 5; the medians are compared)")
    args = p.parse_args()
    reports = corpus_reports(args.reports)
    if not reports:
        print(f"no reports given and none in {CORPUS}", file=sys.stderr)
        return 2
    m = measure(reports, args.repeat)
    bare, ks = m["bare"], m["kernelscope"]
    b, k = statistics.median(bare), statistics.median(ks)
    print(f"reports: {len(reports)} files, {m['launches']} launches; {args.repeat} runs each, alternating")
    print(f"bare ncu_report read     median {b:6.3f} s  (min {min(bare):.3f}, max {max(bare):.3f})")
    print(f"kernelscope diagnose     median {k:6.3f} s  (min {min(ks):.3f}, max {max(ks):.3f})")
    print(f"ratio kernelscope / bare {k / b:6.2f}x  (target <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

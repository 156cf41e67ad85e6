#!/usr/bin/env python3
"""Benchmark helper (not a test): instruction counts of the timeline path (``load_timeline`` and
``analyse_timeline``) under ``valgrind --tool=callgrind``, for this tree and older ones side by side.

Wall time on a shared 2-core machine is noise; instruction counts are not (``PYTHONHASHSEED=0``; the same input
gives the same count to within a few hundred thousand). The child process calls ``os.getppid()`` between its
phases and callgrind runs with ``--dump-before=getppid``, so each phase is one dump file: imports, load,
analysis. The directory reader's process pool is switched off (``kineto.PARALLEL_MIN_BYTES``): the load count is
the work of all files, in one process. Python runs 50-100x slower under callgrind: one rank file of the 189 MB
``kineto_bench.py`` input (24 MB) takes about a minute and a half, the whole directory about ten.

``--steps`` also counts every step of ``analyse_timeline`` apart: each module-level function it calls, and the
``of`` constructors of the classes it calls, is wrapped with markers (a step's count leaves out the wrapped steps
it calls; the rest of ``analyse_timeline`` is its own line).

Usage::

    python benchmarks/instructions.py --tree this=src --tree base=/work/base0/src FILE_OR_DIR
    python benchmarks/instructions.py --steps --tree this=src /tmp/kb/scaled_0.176gb/rank-0.json
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: The child: imports | load | analysis, each phase ended by os.getppid() (argv: input, steps order file or "").
CHILD = r"""
import os, sys, types
import numpy as np
from kernelscope.ingest import load_timeline, kineto
import kernelscope.analysis.timeline as T
from kernelscope.analysis.timeline import analyse_timeline
kineto.PARALLEL_MIN_BYTES = 1 << 62  # (one process: the count of every file)
order = []
if sys.argv[2]:
    def wrap(name, f):
        def w(*a, **k):
            os.getppid(); order.append(name)
            try:
                return f(*a, **k)
            finally:
                os.getppid(); order.append("<")
        return w
    for n in analyse_timeline.__code__.co_names:
        v = T.__dict__.get(n)
        if isinstance(v, types.FunctionType):
            T.__dict__[n] = wrap(n, v)
        elif isinstance(v, type) and isinstance(v.__dict__.get("of"), classmethod):
            v.of = classmethod(wrap(n + ".of", v.__dict__["of"].__func__))
os.getppid()
tl = load_timeline(sys.argv[1])
os.getppid(); order.append("START")
rep = analyse_timeline(tl)
os.getppid(); order.append("END")
if sys.argv[2]:
    open(sys.argv[2], "w").write("\n".join(order))
"""


def _counts(prefix: Path) -> list[int]:
    """The instruction count of each dump file of one callgrind run (``prefix.1``, ``prefix.2`` ...), in order."""
    files = sorted(prefix.parent.glob(prefix.name + ".*"), key=lambda f: int(f.suffix[1:]))
    out = []
    for f in files:
        for line in f.read_text().splitlines():
            if line.startswith("summary:"):
                out.append(int(line.split()[1]))
                break
    return out


def run(src: str, path: str, work: Path, name: str, steps: bool) -> tuple[list[int], list[str]]:
    """Run the child under callgrind with ``PYTHONPATH=src``; (counts per dump, the steps' marker labels)."""
    order_file = work / f"{name}.order" if steps else None
    env = dict(os.environ, PYTHONPATH=src, PYTHONHASHSEED="0")
    out = work / f"{name}.cg"
    cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid", f"--callgrind-out-file={out}",
           sys.executable, "-c", CHILD, path, str(order_file or "")]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{name}: callgrind run failed:\n{p.stderr[-3000:]}")
    labels = order_file.read_text().split("\n") if order_file else []
    return _counts(out), labels


def step_counts(counts: list[int], labels: list[str]) -> collections.Counter:
    """Instructions per step from the dumps of a ``--steps`` run: dump ``k + 1`` is the interval after marker
    ``k``, charged to the innermost step open there (``(analyse_timeline)`` between steps)."""
    # markers: imports end (no label), then one per label; counts[i] is the interval before marker i + 1
    tot: collections.Counter = collections.Counter()
    stack = ["(analyse_timeline)"]
    for k, lab in enumerate(labels[:-1]):
        if lab == "<":
            stack.pop()
        elif lab != "START":
            stack.append(lab)
        tot[stack[-1]] += counts[k + 2]
    return tot


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="a trace file or directory (load_timeline's input)")
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=SRC",
                    help="a name and the src directory of a kernelscope tree (repeat for several)")
    ap.add_argument("--steps", action="store_true", help="also the count of every step of analyse_timeline")
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ks_instr_") as tmp:
        for spec in ns.tree:
            name, _, src = spec.partition("=")
            counts, labels = run(str(Path(src).resolve()), ns.input, Path(tmp), name, ns.steps)
            load = counts[1]
            analysis = sum(counts[2:]) if ns.steps else counts[2]
            print(f"{name:12s} imports {counts[0] / 1e6:8.1f} M  load {load / 1e6:9.1f} M  "
                  f"analysis {analysis / 1e6:8.1f} M  (million instructions)")
            if ns.steps:
                for step, n in step_counts(counts, labels).most_common():
                    print(f"    {step:32s} {n / 1e6:8.1f} M")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

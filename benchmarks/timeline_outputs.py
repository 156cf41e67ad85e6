#!/usr/bin/env python3
"""Benchmark helper (not a test): dump the outputs of the timeline path -- ``timeline`` (the terminal report at 120
columns and ``--format json``) and ``fusion`` (terminal and ``--format json``) -- for every trace of
``../shared/corpus/torch_traces`` and every ``../shared/cases/*.json``, ``timeline`` (terminal and JSON) of every
``../shared/corpus/nsys`` file, ``timeline --as-ranks`` (terminal and JSON) of every multi-rank input (an archive or
a directory) and all of it for each ``--extra`` input (e.g. the scaled directory of ``kineto_bench.py --keep``), to
compare two versions of the code byte for byte (issues 25, 31: a faster reader or fusion estimate must not change
any output).

Each command runs as its own process with the ``PYTHONPATH`` of the caller (``PYTHONPATH=/work/int/src`` dumps
another checkout); exit status, standard output and standard error go to ``NAME.rc``, ``NAME.out``, ``NAME.err``.

    PYTHONPATH=/work/int/src python benchmarks/timeline_outputs.py /tmp/tl_before
    PYTHONPATH=src python benchmarks/timeline_outputs.py /tmp/tl_after --extra /tmp/kb189/scaled_0.176gb
    python benchmarks/timeline_outputs.py --diff /tmp/tl_before /tmp/tl_after
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def inputs(shared: Path) -> list[Path]:
    """The traces compared: the torch_traces corpus files and the JSON cases."""
    return sorted(p for p in (shared / "corpus" / "torch_traces").iterdir() if p.is_file() and p.name != "README.md") \
        + sorted((shared / "cases").glob("*.json"))


def _multi_rank(f: Path) -> bool:
    """An input whose traces are ranks of one program: a directory or a tar archive."""
    return f.is_dir() or f.name.endswith((".tar", ".tar.gz", ".tgz"))


def commands(shared: Path, extra: list[Path] = ()) -> list[tuple[str, list[str]]]:
    """(output name, kernelscope arguments) of every dump."""
    out = []
    for f in inputs(shared) + list(extra):
        key = f"{f.parent.name}__{f.name}"
        for cmd in ("timeline", "fusion"):
            out.append((f"{cmd}__{key}", [cmd, str(f)]))
            out.append((f"{cmd}_json__{key}", [cmd, "--format", "json", str(f)]))
        if _multi_rank(f):
            out.append((f"ranks__{key}", ["timeline", "--as-ranks", str(f)]))
            out.append((f"ranks_json__{key}", ["timeline", "--as-ranks", "--format", "json", str(f)]))
    for f in sorted(p for p in (shared / "corpus" / "nsys").iterdir() if p.is_file() and p.name != "README.md"):
        key = f"{f.parent.name}__{f.name}"
        out.append((f"timeline__{key}", ["timeline", str(f)]))
        out.append((f"timeline_json__{key}", ["timeline", "--format", "json", str(f)]))
    return out


def _run(out_dir: Path, name: str, args: list[str]) -> None:
    env = dict(os.environ, COLUMNS="120", PYTHONHASHSEED="0")
    p = subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True, env=env, timeout=900)
    (out_dir / f"{name}.rc").write_text(f"{p.returncode}\n")
    (out_dir / f"{name}.out").write_bytes(p.stdout)
    (out_dir / f"{name}.err").write_bytes(p.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, nargs="+", help="folder to dump into (with --diff: two folders)")
    ap.add_argument("--diff", action="store_true", help="compare two dumps")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--extra", type=Path, nargs="*", default=[], help="more timeline inputs (files or directories)")
    a = ap.parse_args()
    if a.diff:
        x, y = a.out
        names = sorted({p.name for p in x.iterdir()} | {p.name for p in y.iterdir()})
        bad = [n for n in names if not (x / n).exists() or not (y / n).exists()
               or (x / n).read_bytes() != (y / n).read_bytes()]
        print(f"{len(names) - len(bad)} identical, {len(bad)} differ" + "".join(f"\n  {n}" for n in bad))
        return 1 if bad else 0
    out = a.out[0]
    out.mkdir(parents=True, exist_ok=True)
    cmds = commands(SHARED, a.extra)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        list(pool.map(lambda c: _run(out, *c), cmds))
    print(f"{len(cmds)} commands -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

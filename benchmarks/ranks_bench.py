"""Distributed-training traces: wall time and peak memory of ``kernelscope timeline --as-ranks`` (the per-rank map
and its reduce) over N synthetic FSDP/DDP-shaped PyTorch profiler (Kineto) rank traces, serially (--jobs 1), on a
local process pool (--jobs J) and as Ray tasks on a local Ray instance (--engine ray, where Ray is installed), side
by side in one run, with the straggler and the exposed-communication figures each mode finds (they must be equal).

    python benchmarks/ranks_bench.py --ranks 8 64 --steps 40 [--jobs 2] [--dir /tmp/ks_ranks]

Each rank trace holds ``--steps`` ``ProfilerStep#N`` ranges; per step a forward GEMM on stream 7 and a second
compute stream (stream 8, overlapping it), an all-gather on stream 20 and a reduce-scatter on stream 24 (concurrent
with each other, partly under the backward), and a DDP-style all-reduce at the end of the step (a barrier: every
rank waits there for the slowest). Rank ``N // 3`` is the straggler: its backward is 30 % longer, so the others wait
in the all-reduce. Expected: that rank is named, the others' wait is about the straggler's extra backward time.
Peak memory is the highest summed RSS of the child's process tree (polled from /proc every 20 ms).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_bench import run  # noqa: E402  (same folder)


def _k(name: str, ts: float, dur: float, stream: int) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": round(ts, 3), "dur": round(dur, 3),
            "args": {"device": 0, "stream": stream}}


def write_rank(path: Path, rank: int, ranks: int, steps: int) -> None:
    """One rank's trace (times in us): per step fwd 400 on stream 7 with an overlapping 150 on stream 8, bwd 600
    (780 on the straggler) on stream 7, all-gather and reduce-scatter of 200 each, concurrent, from 300 into the
    backward, then the all-reduce: it ends 50 us after the straggler's backward on every rank."""
    straggler = ranks // 3
    slow_bwd = 780.0
    t = 1_000_000.0
    ev = []
    for s in range(steps):
        bwd = slow_bwd if rank == straggler else 600.0
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1, "ts": t,
                   "dur": 400 + slow_bwd + 50})
        ev.append(_k("sm90_xmma_gemm_fwd", t, 400, 7))
        ev.append(_k("elementwise_kernel_fwd", t + 100, 150, 8))
        ev.append(_k("ncclDevKernel_AllGather_RING_LL", t + 300, 200, 20))
        ev.append(_k("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", t + 300, 200, 24))
        ev.append(_k("sm90_xmma_gemm_bwd", t + 400, bwd, 7))
        ar_start = t + 400 + bwd
        ev.append(_k("ncclDevKernel_AllReduce_Sum_f32_RING_LL", ar_start, t + 400 + slow_bwd + 50 - ar_start, 20))
        t += 400 + slow_bwd + 50 + 20
    doc = {"distributedInfo": {"rank": rank, "world_size": ranks, "backend": "nccl"},
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": ev}
    path.write_text(json.dumps(doc))


def figures(out: bytes) -> tuple:
    """(straggler, stragglers, summed exposed communication s, summed wait s, balanced wall s) of one run."""
    rr = json.loads(out)["ranks"]
    return (rr["slowest_rank"], tuple(rr["stragglers"]), round(rr["exposed_s"], 9), round(rr["wait_s"], 9),
            round(rr["balanced_wall_s"], 9))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[8, 64], help="rank counts N (default 8 64)")
    ap.add_argument("--steps", type=int, default=40, help="ProfilerStep ranges per rank trace (default 40)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="--jobs of the pooled run")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "kernelscope_ranks_bench")
    args = ap.parse_args(argv)
    exe = [sys.executable, "-m", "kernelscope", "timeline", "--as-ranks", "--format", "json"]
    has_ray = importlib.util.find_spec("ray") is not None
    print(f"{'ranks':>5} {'mode':<10} {'wall s':>8} {'peak RSS MiB':>13}  straggler  exposed comm s  wait s  "
          "balanced wall s  equal")
    for n in args.ranks:
        d = args.dir / f"n{n}_steps{args.steps}"
        d.mkdir(parents=True, exist_ok=True)
        for r in range(n):
            write_rank(d / f"rank-{r:04d}.json", r, n, args.steps)
        files = str(d / "rank-*.json")
        modes = [("serial", ["--jobs", "1"]), (f"jobs {args.jobs}", ["--jobs", str(args.jobs)])]
        if has_ray:
            modes.append(("ray", ["--engine", "ray"]))
        first = None
        for label, extra in modes:
            res = run(exe + [files] + extra)
            if res["rc"] != 0:
                print(f"{n:>5} {label:<10} failed (exit {res['rc']})", flush=True)
                continue
            fig = figures(res["out"])
            first = first or fig
            print(f"{n:>5} {label:<10} {res['wall_s']:>8.2f} {res['peak_rss'] / (1 << 20):>13.0f}  {fig[0]:>9}  "
                  f"{fig[2]:>14.6f}  {fig[3]:>6.4f}  {fig[4]:>15.6f}  {'yes' if fig == first else 'NO'}", flush=True)
    if not has_ray:
        print("ray: not installed (pip install 'kernelscope[cluster]'): the Ray row is skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Many rank traces: wall time and peak memory of ``kernelscope timeline`` over N synthetic PyTorch profiler
(Kineto) rank traces, serially (--jobs 1), on a local process pool (--jobs J) and as Ray tasks on a local Ray
instance (--engine ray, where Ray is installed), side by side in one run, with whether their results are equal.

    python benchmarks/scale_bench.py --ranks 8 --mib 16 [--jobs 2] [--dir /tmp/ks_scale]
    python benchmarks/scale_bench.py --mode ranks --ranks 4 8 --mib 16 [--jobs 2]

``--mode ranks``: the reduce from per-rank summaries (``kernelscope timeline --as-ranks 'DIR/rank-*.json'``,
serially and with --jobs J) against the whole-directory read (``kernelscope timeline DIR``): wall time, peak RSS
and the program wall each finds.

Each mode runs ``kernelscope timeline 'DIR/rank-*.json' --format json`` in a child process (the per-file map: each
rank file read and analysed alone); peak memory is the highest summed RSS of the child's process tree (polled from
/proc every 20 ms: the driver, pool workers, and for Ray its raylet, GCS and workers). "whole dir" is the same
traces read as ONE multi-rank program (``kernelscope timeline DIR``, the Kineto reader's meaning of a directory),
for comparison: its memory grows with the number of ranks, the per-file map's should not.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kineto_bench import _descendants, _rss  # noqa: E402  (same folder)

KERNELS = ("ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4>", "ncclKernel_AllReduce_RING",
           "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>", "softmax_warp_forward")


def write_rank(path: Path, rank: int, size_bytes: int, seed: int) -> None:
    """One rank's trace of about ``size_bytes``: per step a cpu_op, its cudaLaunchKernel / cudaMemcpyAsync runtime
    calls and the kernel / memcpy they launched (matched by correlation id), on two streams."""
    rng = random.Random(seed * 1000 + rank)
    t = 1_000_000.0
    corr = 0
    written = 0
    with open(path, "w") as fh:
        fh.write('{"distributedInfo": {"rank": %d, "world_size": 0}, "deviceProperties": [], "traceEvents": [\n' % rank)
        first = True
        while written < size_bytes:
            corr += 1
            ev = []
            dur = rng.uniform(5, 400) * (1.2 if rank == 0 else 1.0)  # rank 0 a little slower: a straggler
            name = KERNELS[corr % len(KERNELS)]
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100 + rank, "tid": 1, "ts": t,
                       "dur": 12.0, "args": {"External id": corr}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100 + rank, "tid": 1,
                       "ts": t + 2, "dur": 4.0, "args": {"correlation": corr, "External id": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7 + corr % 2, "ts": t + 8,
                       "dur": dur, "args": {"device": 0, "stream": 7 + corr % 2, "correlation": corr,
                                            "External id": corr, "grid": [128, 1, 1], "block": [256, 1, 1]}})
            if corr % 7 == 0:
                corr += 1
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100 + rank,
                           "tid": 1, "ts": t + 6, "dur": 3.0, "args": {"correlation": corr}})
                ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0,
                           "tid": 9, "ts": t + 9, "dur": 20.0, "args": {"device": 0, "stream": 9,
                                                                          "correlation": corr, "bytes": 1 << 20}})
            t += dur + rng.uniform(1, 30)
            text = ",\n".join(json.dumps(e) for e in ev)
            fh.write(text if first else ",\n" + text)
            first = False
            written += len(text) + 2
        fh.write("\n]}\n")


def run(cmd: list[str], timeout: float = 1800) -> dict:
    """Run ``cmd``; its wall time, peak summed RSS of its process tree and its stdout."""
    out = tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(_rss(p) for p in _descendants(proc.pid)))
        time.sleep(0.02)
        if time.perf_counter() - start > timeout:
            proc.kill()
            break
    wall = time.perf_counter() - start
    out.seek(0)
    return {"wall_s": wall, "peak_rss": peak, "rc": proc.returncode, "out": out.read()}


def _ranks_mode(exe: list[str], n: int, d: Path, files: str, jobs: int) -> None:
    """--as-ranks (serial, --jobs) vs the whole directory: wall, peak RSS, and the program wall each reports."""
    for label, extra in (("as-ranks 1", [files, "--as-ranks", "--jobs", "1"]),
                         (f"as-ranks {jobs}", [files, "--as-ranks", "--jobs", str(jobs)]),
                         ("whole dir", [str(d), "--jobs", "1"])):
        res = run([*exe, *extra, "--format", "json"])
        if res["rc"] != 0:
            verdict = f"FAILED rc={res['rc']}"
        else:
            doc = json.loads(res["out"])
            wall = doc["ranks"]["wall_s"] if "ranks" in doc else doc["reports"][0]["wall_s"]
            verdict = f"program wall {wall:.6f} s"
            if "ranks" in doc:
                verdict += f", slowest rank {doc['ranks']['slowest_rank']}, stragglers {doc['ranks']['stragglers']}"
        print(f"{n:>5} {label:<14} {res['wall_s']:>8.2f} {res['peak_rss'] / (1 << 20):>13.0f}  {verdict}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[8], help="rank counts N to run (default 8)")
    ap.add_argument("--mib", type=float, default=16, help="MiB per rank trace (default 16)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="--jobs of the pooled run")
    ap.add_argument("--mode", choices=("map", "ranks"), default="map",
                    help="map (default): one program per rank file; ranks: --as-ranks reduce vs the whole directory")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "kernelscope_scale_bench")
    args = ap.parse_args(argv)
    exe = [sys.executable, "-m", "kernelscope", "timeline"]
    has_ray = importlib.util.find_spec("ray") is not None
    print(f"{'ranks':>5} {'mode':<14} {'wall s':>8} {'peak RSS MiB':>13}  result")
    for n in args.ranks:
        d = args.dir / f"n{n}_mib{args.mib:g}"
        d.mkdir(parents=True, exist_ok=True)
        for r in range(n):
            f = d / f"rank-{r:04d}.json"
            if not f.exists() or abs(f.stat().st_size - args.mib * (1 << 20)) > (1 << 20):
                write_rank(f, r, int(args.mib * (1 << 20)), seed=n)
        files = str(d / "rank-*.json")
        if args.mode == "ranks":
            _ranks_mode(exe, n, d, files, args.jobs)
            continue
        modes = [("serial", [files, "--jobs", "1"]), (f"jobs {args.jobs}", [files, "--jobs", str(args.jobs)])]
        if has_ray:
            modes.append(("ray local", [files, "--engine", "ray"]))
        modes.append(("whole dir", [str(d), "--jobs", "1"]))
        reference = None
        for label, extra in modes:
            res = run([*exe, *extra, "--format", "json"])
            if res["rc"] != 0:
                verdict = f"FAILED rc={res['rc']}"
            elif label == "whole dir":
                verdict = "(one multi-rank program: not comparable)"
            else:
                reports = json.loads(res["out"])["reports"]
                if reference is None:
                    reference = reports
                verdict = "equal to serial" if reports == reference else "DIFFERENT from serial"
            print(f"{n:>5} {label:<14} {res['wall_s']:>8.2f} {res['peak_rss'] / (1 << 20):>13.0f}  {verdict}",
                  flush=True)
    if not has_ray:
        print("ray: not installed (pip install 'kernelscope[cluster]'): Ray-local row skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())

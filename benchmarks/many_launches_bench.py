#!/usr/bin/env python3
"""Benchmark (not a test): ``kernelscope diagnose`` of a whole model's ``ncu --csv`` export, every output format.

Generates into a temporary folder an ``ncu --csv`` details page (``--page details``, the default) of 5,000 launches
of 200 kernel names, then runs, each as a whole process (interpreter start, imports, reading, diagnosis, rendering):

* ``kernelscope diagnose FILE --format json``          (to standard output, captured)
* ``kernelscope diagnose FILE``                        (the table, to standard output, captured)
* ``kernelscope diagnose FILE --format markdown -o F``  (the Markdown and its charts beside it)
* ``kernelscope diagnose FILE --format html -o F``      (one self-contained page)

and prints, side by side, the wall time, the peak RSS of the process (``os.wait4``'s ``ru_maxrss``) and the size
of what it wrote (bytes, and lines for the table; chart files beside the Markdown counted in).

Beside them it runs the bare floor (issue 31): the same file read with the plain library, as a whole process with
interpreter start, ``python -c`` opening it and iterating the standard ``csv`` reader over every row (the rows
made, counted, not kept, no analysis): what reading the CSV costs. Every run of ``--repeat N`` runs the floor and
then each format once, alternating (so a busy machine slows both alike), and the table gives the median wall time
of the N runs and its ratio to the floor's median (``x floor``), and the same of the CPU time (user + system,
``os.wait4``), which other work on a shared machine sways less.

The generated file copies the layout of the corpus details export ``ncu_csv/llmperfopt_rtx5090_kernel0003_ncu.details.csv``
(Nsight Compute 2025: 20 columns, every field quoted, metric rows ending after "Metric Value" with a trailing comma,
rule rows with empty metric columns and section identifiers, values as printed with thousands separators and
``n/a``): per launch its "Command line profiler metrics" rows (``--metrics``: the GPU's name, DRAM bytes, FP32
instruction counts or tensor ops, warp-stall ratios), GPU Speed Of Light Throughput with its two rule rows, Launch
Statistics, Memory Workload Analysis, Scheduler Statistics and Occupancy with their rule rows. Kernel names are a
model's: cuBLAS / CUTLASS GEMMs, PyTorch elementwise, reduction, softmax and normalisation kernels, whose launch
counts fall off as in a profile of a whole model (the largest kernel several hundred launches, many only a few);
some kernels launch with two grid shapes, and about 1 % of launches take 3x their kernel's usual time. Values are
drawn from a fixed seed: every run writes the same file.

    python benchmarks/many_launches_bench.py                     # 5,000 launches, 200 kernels
    python benchmarks/many_launches_bench.py --launches 1000 --keep
    python benchmarks/many_launches_bench.py --only json,table   # a subset of the formats
    python benchmarks/many_launches_bench.py --only json --repeat 5   # JSON against the floor, 5 alternating runs

Targets (issue 16 "Everyday use"): HTML and Markdown of 5,000 launches under 10 s and under 5 MB, the table
readable (grouped), JSON under 3 s.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size",
          "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Name", "Rule Type",
          "Rule Description", "Estimated Speedup Type", "Estimated Speedup"]
GPU = "NVIDIA A100-SXM4-80GB"  # named by a --metrics device__attribute_display_name row; CC 8.0, 108 SMs
SMS, SM_GHZ, DRAM_GHZ, DRAM_BPS = 108, 1.41, 1.59, 2.039e12

_GEMM = ["ampere_sgemm_{t}x{u}_{o}", "ampere_bf16_s16816gemm_bf16_{t}x{u}_ldg8_f2f_stages_64x3_{o}",
         "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_{t}x{u}_32x3_{o}_align8>(Params)",
         "sm80_xmma_gemm_bf16bf16_bf16f32_f32_{o}_n_tilesize{t}x{u}x32_stage4_warpsize2x2x1_tensor16x8x16_kernel"]
_ELEMENTWISE = ["void at::native::vectorized_elementwise_kernel<4, at::native::{op}<{ty}>, at::detail::Array<char*, {n}> >"
                "(int, at::native::{op}<{ty}>, at::detail::Array<char*, {n}>)",
                "void at::native::unrolled_elementwise_kernel<at::native::{op}<{ty}>, at::detail::Array<char*, {n}> >"
                "(int, at::native::{op}<{ty}>, at::detail::Array<char*, {n}>)",
                "triton_poi_fused_{low}_{n}", "triton_red_fused_{low}_{ts}_{n}"]
_REDUCE = ["void at::native::reduce_kernel<512, 1, at::native::ReduceOp<{ty}, at::native::{op}<{ty}>, unsigned int, "
           "{ty}, 4> >(at::native::ReduceOp<{ty}, at::native::{op}<{ty}>, unsigned int, {ty}, 4>)",
           "void cunn_SoftMaxForward<4, {ty}, float, {ty}, cunn::{op}>({ty}*, {ty} const*, int)",
           "void at::native::(anonymous namespace)::{op}_kernel<{ty}, {ty}, float>(long, float, {ty} const*, {ty}*)"]
_OPS = ["MulFunctor", "AddFunctor", "GeluCUDAKernelImpl", "FillFunctor", "SiluFunctor", "CUDAFunctor_add",
        "BinaryFunctor", "sqrt_kernel_cuda", "MeanOps", "softmax_warp_forward", "layer_norm", "rms_norm",
        "cat_batched_copy", "index_elementwise", "DropoutFunctor", "where_kernel", "exp_kernel", "rsqrt_kernel"]
_TYPES = ["float", "c10::BFloat16", "c10::Half"]

_RULES = {
    "SOLBottleneck": ("SpeedOfLight", "OPT", "{what} is more heavily utilized than {other}: Look at the {section} "
                      "section to identify the {kind} bottleneck. Check the detailed breakdown of the pipelines or "
                      "memory units to see whether any of them limits the kernel."),
    "SOLFPRoofline": ("SpeedOfLight_RooflineChart", "INF", "The ratio of peak float (fp32) to double (fp64) "
                      "performance on this device is 64:1. The kernel achieved 0% of this device's fp32 peak "
                      "performance and 0% of its fp64 peak performance."),
    "IssueSlotUtilization": ("SchedulerStats", "OPT", "Every scheduler is capable of issuing one instruction per "
                             "cycle, but for this kernel each scheduler only issues an instruction every {every:.1f} "
                             "cycles. This might leave hardware resources underutilized and may lead to less optimal "
                             "performance."),
    "TheoreticalOccupancy": ("Occupancy", "OPT", "The {warps:.2f} theoretical warps per scheduler this kernel can "
                             "issue according to its occupancy are below the hardware maximum of 16. This kernel's "
                             "theoretical occupancy ({occ:.1f}%) is limited by the number of required registers."),
}


def kernel_names(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``count`` distinct (name, kind) pairs; kinds: gemm (tensor cores), elementwise, reduce."""
    out: dict[str, str] = {}
    while len(out) < count:
        roll = rng.random()
        if roll < 0.25:
            name = rng.choice(_GEMM).format(t=rng.choice([64, 128, 256]), u=rng.choice([32, 64, 128]),
                                            o=rng.choice(["nn", "nt", "tn"]))
            out.setdefault(name, "gemm")
        elif roll < 0.75:
            op, ty = rng.choice(_OPS), rng.choice(_TYPES)
            name = rng.choice(_ELEMENTWISE).format(op=op, ty=ty, n=rng.choice([2, 3, 4]), low=op.lower(),
                                                   ts={"float": "fp32", "c10::BFloat16": "bf16"}.get(ty, "fp16"))
            out.setdefault(name, "elementwise")
        else:
            name = rng.choice(_REDUCE).format(op=rng.choice(_OPS), ty=rng.choice(_TYPES))
            out.setdefault(name, "reduce")
    return list(out.items())


def launch_counts(kernels: int, launches: int) -> list[int]:
    """Launches per kernel, falling off like a whole model's (Zipf 1.1, every kernel at least once)."""
    weights = [1.0 / (i + 1) ** 1.1 for i in range(kernels)]
    scale = (launches - kernels) / sum(weights)
    counts = [1 + int(w * scale) for w in weights]
    counts[0] += launches - sum(counts)
    return counts


class _Kernel:
    """One kernel's usual launch: shape, duration and throughputs (each launch varies them a little)."""

    def __init__(self, name: str, kind: str, rng: random.Random) -> None:
        self.name, self.kind = name, kind
        self.block = rng.choice([128, 256, 256, 512, 1024]) if kind != "gemm" else rng.choice([128, 256])
        self.grids = [(rng.choice([54, 108, 216, 432, 1728, 6912]), rng.choice([1, 1, 4, 8]), 1)]
        if rng.random() < 0.1:  # a second shape (another batch size)
            self.grids.append((self.grids[0][0] * 2, self.grids[0][1], 1))
        self.registers = rng.choice([32, 40, 64, 96, 128, 168]) if kind == "gemm" else rng.choice([16, 24, 32, 40])
        self.smem = rng.choice([32768, 49152, 65536, 98304]) if kind == "gemm" else 0
        self.duration_us = math.exp(rng.uniform(math.log(2.0), math.log(800.0)))
        self.compute = rng.uniform(40, 92) if kind == "gemm" else rng.uniform(8, 45)
        self.memory = rng.uniform(20, 70) if kind == "gemm" else rng.uniform(50, 93)
        self.achieved = rng.uniform(10, 30) if kind == "gemm" else rng.uniform(40, 95)
        self.stalls = {r: rng.uniform(0.05, 4.0) for r in ("long_scoreboard", "barrier", "mio_throttle", "not_selected",
                                                           "math_pipe_throttle", "wait", "short_scoreboard")}
        self.stalls["selected"] = 1.0


def _q(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _num(value: float, digits: int = 2) -> str:
    """A value as ncu prints it: thousands separators, ``digits`` decimals (none for whole counts)."""
    return f"{value:,.{digits}f}" if digits else f"{round(value):,}"


def _bytes(value: float) -> tuple[str, str]:
    for scale, unit in ((1e9, "Gbyte"), (1e6, "Mbyte"), (1e3, "Kbyte")):
        if value >= scale:
            return unit, _num(value / scale)
    return "byte", _num(value, 0)


def _launch_rows(k: _Kernel, grid: tuple[int, int, int], rng: random.Random, slow: bool) -> tuple[list, list]:
    """(metric rows (section, name, unit, value), rule rows (section, rule, type, text, speedup type, speedup))."""
    jitter = lambda: rng.uniform(0.97, 1.03)  # noqa: E731
    us = k.duration_us * jitter() * (3.0 if slow else 1.0)
    comp, mem = min(99.0, k.compute * jitter()), min(99.0, k.memory * jitter())
    dram_pct = mem * rng.uniform(0.6, 0.95)
    dram = dram_pct / 100 * DRAM_BPS * us * 1e-6
    cycles = us * 1e-6 * SM_GHZ * 1e9
    cmd = "Command line profiler metrics"
    read_unit, read = _bytes(dram * 0.7)
    write_unit, write = _bytes(dram * 0.3)
    rows = [(cmd, "device__attribute_display_name", "", GPU), (cmd, "dram__bytes_read.sum", read_unit, read),
            (cmd, "dram__bytes_write.sum", write_unit, write),
            (cmd, "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", _num(dram_pct)),
            (cmd, "gpu__time_duration.sum", "us", _num(us))]
    if k.kind == "gemm":
        rows += [(cmd, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", _num(comp / 100 * 312e12 * us * 1e-6 * 0.9, 0)),
                 (cmd, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "", "0")]
    else:
        flops = dram * rng.uniform(0.05, 1.5)
        rows += [(cmd, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "n/a"),
                 (cmd, "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "", _num(flops * 0.3, 0)),
                 (cmd, "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "", _num(flops * 0.3, 0)),
                 (cmd, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "", _num(flops * 0.2, 0))]
    rows.append((cmd, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", _num(comp)))
    rows += [(cmd, f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio", "ratio", _num(v * jitter()))
             for r, v in list(k.stalls.items())[-4:]]
    sol = "GPU Speed Of Light Throughput"
    rows += [(sol, "DRAM Frequency", "Ghz", _num(DRAM_GHZ)), (sol, "SM Frequency", "Ghz", _num(SM_GHZ)),
             (sol, "Elapsed Cycles", "cycle", _num(cycles, 0)), (sol, "Memory Throughput", "%", _num(mem)),
             (sol, "DRAM Throughput", "%", _num(dram_pct)), (sol, "Duration", "us", _num(us)),
             (sol, "L1/TEX Cache Throughput", "%", _num(mem * 0.8)), (sol, "L2 Cache Throughput", "%", _num(mem * 0.9)),
             (sol, "SM Active Cycles", "cycle", _num(cycles * 0.93)), (sol, "Compute (SM) Throughput", "%", _num(comp))]
    what, other = ("Memory", "Compute") if mem > comp else ("Compute", "Memory")
    rules = [("SOLBottleneck", _RULES["SOLBottleneck"][2].format(
                  what=what, other=other, section=f"{what} Workload Analysis", kind=what.lower()), "", ""),
             ("SOLFPRoofline", _RULES["SOLFPRoofline"][2], "", "")]
    launch = "Launch Statistics"
    waves = grid[0] * grid[1] / (SMS * max(1, min(32, 2048 // k.block, 65536 // (k.registers * k.block))))
    rows += [(launch, "Block Size", "", _num(k.block, 0)), (launch, "Grid Size", "", _num(grid[0] * grid[1], 0)),
             (launch, "Registers Per Thread", "register/thread", _num(k.registers, 0)),
             (launch, "Dynamic Shared Memory Per Block", "byte/block", _num(k.smem, 0)),
             (launch, "Waves Per SM", "", _num(waves))]
    mwa = "Memory Workload Analysis"
    rows += [(mwa, "Memory Throughput", "Gbyte/s", _num(dram / (us * 1e-6) / 1e9)), (mwa, "Mem Busy", "%", _num(mem)),
             (mwa, "L1/TEX Hit Rate", "%", _num(rng.uniform(0, 60))),
             (mwa, "L2 Hit Rate", "%", _num(rng.uniform(40, 96)))]
    sched = "Scheduler Statistics"
    issued = min(0.95, comp / 100 * rng.uniform(0.5, 0.9))
    rows += [(sched, "One or More Eligible", "%", _num(issued * 100)), (sched, "Issued Warp Per Scheduler", "",
             _num(issued)), (sched, "Active Warps Per Scheduler", "warp", _num(k.achieved / 100 * 16)),
             (sched, "Eligible Warps Per Scheduler", "warp", _num(issued * 1.2))]
    rules.append(("IssueSlotUtilization", _RULES["IssueSlotUtilization"][2].format(every=1 / issued), "local",
                  _num(100 - issued * 100)))
    occ = "Occupancy"
    theo = min(100.0, k.achieved * rng.uniform(1.05, 1.6))
    rows += [(occ, "Block Limit Registers", "block",
             _num(max(1, 65536 // (k.registers * k.block)), 0)), (occ, "Block Limit Shared Mem", "block",
             _num(164 * 1024 // k.smem if k.smem else 32, 0)), (occ, "Block Limit Warps", "block",
             _num(2048 // k.block, 0)), (occ, "Theoretical Active Warps per SM", "warp", _num(theo / 100 * 64, 0)),
             (occ, "Theoretical Occupancy", "%", _num(theo)), (occ, "Achieved Occupancy", "%", _num(k.achieved * jitter()))]
    rules.append(("TheoreticalOccupancy", _RULES["TheoreticalOccupancy"][2].format(warps=theo / 100 * 16, occ=theo),
                  "global", _num(100 - theo)))
    return rows, rules


def generate(path: Path, launches: int = 5000, kernels: int = 200, seed: int = 16) -> dict[str, int]:
    """Write the details page; returns {"launches", "kernels", "bytes"}."""
    rng = random.Random(seed)
    ks = [_Kernel(name, kind, rng) for name, kind in kernel_names(kernels, rng)]
    counts = launch_counts(kernels, launches)
    # a model's order: steps through the layers, each kernel while it has launches left
    order: list[int] = []
    left = list(counts)
    while any(left):
        for i in range(kernels):
            if left[i]:
                order.append(i)
                left[i] -= 1
    sections = {"GPU Speed Of Light Throughput": ("SpeedOfLight", "SpeedOfLight_RooflineChart"),
                "Scheduler Statistics": ("SchedulerStats",), "Occupancy": ("Occupancy",)}
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(",".join(map(_q, HEADER)) + "\n")
        for launch_id, i in enumerate(order):
            k = ks[i]
            grid = k.grids[launch_id % len(k.grids)]
            head = ",".join(map(_q, [str(launch_id), "1741703", "python3.12", "127.0.0.1", k.name, "1", "7",
                                     f"({k.block}, 1, 1)", f"({grid[0]}, {grid[1]}, {grid[2]})", "0", "8.0"]))
            rows, rules = _launch_rows(k, grid, rng, slow=rng.random() < 0.01)
            lines = []
            for n, (section, name, unit, value) in enumerate(rows):
                # metric rows stop after "Metric Value" with a trailing comma, as ncu writes them
                lines.append(f"{head},{_q(section)},{_q(name)},{_q(unit)},{_q(value)},")
                last = n + 1 == len(rows) or rows[n + 1][0] != section
                for ident in sections.get(section, ()) if last else ():  # rule rows after their section's rows
                    for rule, text, stype, speedup in rules:
                        if _RULES[rule][0] == ident:
                            lines.append(",".join([head, _q(ident), '""', '""', '""', _q(rule), _q(_RULES[rule][1]),
                                                   _q(text), _q(stype), _q(speedup)]))
            fh.write("\n".join(lines) + "\n")
    return {"launches": len(order), "kernels": kernels, "bytes": path.stat().st_size}


def _run(argv: list[str], stdout_path: Path | None, pythonpath: str | None = None) -> tuple[float, int, int]:
    """(wall s, peak RSS bytes, exit status) of one whole process (``pythonpath``: its ``PYTHONPATH``, else the
    caller's); its CPU time (user + system, s) is added to :data:`CPU`."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    env = None if pythonpath is None else dict(os.environ, PYTHONPATH=pythonpath)
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        if proc.returncode:
            print(f"   exit {proc.returncode}: {err[-2000:]}", file=sys.stderr)
        CPU.append(usage.ru_utime + usage.ru_stime)
        return wall, usage.ru_maxrss * 1024, proc.returncode
    finally:
        if stdout_path:
            out.close()


#: CPU seconds (user + system) of every process :func:`_run` ran, in order (less swayed than wall time by other
#: work on a shared machine).
CPU: list[float] = []

#: The bare floor: the standard csv reader over every row of the file, in a process of its own.
FLOOR = ("import csv, sys\nn = 0\nwith open(sys.argv[1], newline='', encoding='utf-8') as fh:\n"
         "    for row in csv.reader(fh):\n        n += 1\nprint(n)\n")


def _size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.exists())


def _format_run(fmt: str, exe: str, src: Path, tmp: Path, extra: list[str],
                before: str | None = None) -> tuple[float, tuple]:
    """One whole process of ``fmt`` ("floor", a diagnose format, or one with " before": the code of ``before``, a
    ``src`` folder put first on ``PYTHONPATH``): (wall s, (peak RSS bytes, bytes written, lines written, files
    written, exit status))."""
    fmt, _, other = fmt.partition(" ")
    pythonpath = before if other else None
    run = lambda argv, out: _run(argv, out, pythonpath)  # noqa: E731
    tmp = tmp / "before" if other else tmp
    tmp.mkdir(exist_ok=True)
    base = [exe, "diagnose", str(src), "--quiet", *extra]
    if fmt == "floor":
        out = tmp / "out.floor"
        wall, rss, rc = run([sys.executable, "-c", FLOOR, str(src)], out)
        files = [out]
    elif fmt in ("json", "table"):
        out = tmp / f"out.{fmt}"
        cmd = base + (["--format", "json"] if fmt == "json" else [])
        wall, rss, rc = run(cmd, out)
        files = [out]
    else:
        out = tmp / f"report.{'md' if fmt == 'markdown' else 'html'}"
        wall, rss, rc = run(base + ["--format", fmt, "-o", str(out)], None)
        files = [out] + sorted(tmp.glob("report_*.svg")) if fmt == "markdown" else [out]
    lines = sum(1 for _ in open(out, "rb")) if out.exists() else 0
    return wall, (rss, _size(files), lines, len(files), rc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=5000)
    ap.add_argument("--kernels", type=int, default=200)
    ap.add_argument("--only", default="json,table,markdown,html", help="comma-separated formats to run")
    ap.add_argument("--extra", default="", help="extra arguments for every diagnose run, e.g. '--launches all'")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of the floor and each format, alternating; medians")
    ap.add_argument("--before", metavar="SRC", help="also run each format with PYTHONPATH=SRC (another checkout's "
                    "src folder, e.g. of `git archive`), alternating with this one, as 'FORMAT before'")
    args = ap.parse_args(argv)
    exe = shutil.which("kernelscope", path=str(Path(sys.executable).parent)) or "kernelscope"
    tmp = Path(tempfile.mkdtemp(prefix="ks_many_launches_"))
    try:
        src = tmp / "model.details.csv"
        t0 = time.perf_counter()
        info = generate(src, args.launches, args.kernels)
        print(f"== input: {src.name}: {info['launches']:,} launches of {info['kernels']} kernel names, "
              f"{info['bytes'] / 1e6:.1f} MB (written in {time.perf_counter() - t0:.1f} s)")
        print(f"   load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; nproc {os.cpu_count()}; "
              f"Python {sys.version.split()[0]}")
        chosen = [x.strip() for x in args.only.split(",") if x.strip()]
        formats = ["floor", *[f"{x} before" for x in chosen if args.before], *chosen]
        walls: dict[str, list[float]] = {fmt: [] for fmt in formats}
        cpus: dict[str, list[float]] = {fmt: [] for fmt in formats}
        results: dict[str, tuple] = {}
        for _ in range(max(1, args.repeat)):
            for fmt in formats:
                wall, result = _format_run(fmt, exe, src, tmp, args.extra.split(), args.before)
                walls[fmt].append(wall)
                cpus[fmt].append(CPU[-1])
                results[fmt] = result
        floor, floor_cpu = statistics.median(walls["floor"]), statistics.median(cpus["floor"])
        print()
        print(f"{'format':<13} {'wall s':>8} {'x floor':>8} {'runs s':>24} {'cpu s':>7} {'x floor':>8} {'peak RSS MB':>12} {'output MB':>10} "
              f"{'lines':>9} {'files':>6} {'exit':>5}")
        for fmt in formats:
            rss, size, lines, nfiles, rc = results[fmt]
            wall = statistics.median(walls[fmt])
            runs = " ".join(f"{w:.2f}" for w in walls[fmt])
            cpu = statistics.median(cpus[fmt])
            print(f"{fmt:<13} {wall:>8.2f} {wall / floor:>7.2f}x {runs:>24} {cpu:>7.2f} {cpu / floor_cpu:>7.2f}x {rss / 1e6:>12.0f} {size / 1e6:>10.2f} "
                  f"{lines:>9,} {nfiles:>6} {rc:>5}")
        if args.keep:
            print(f"\nkept: {tmp}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Benchmark (not a test): kernelscope vs Meta's HolisticTraceAnalysis on a PyTorch profiler trace scaled to >= 1 GiB.

What it does, in one run:

1. Scales a real corpus trace up: every rank file of ``../shared/corpus/torch_traces/param_dlrm_kineto_8rank_v100.tar.gz``
   (8 ranks, V100, integer-µs timestamps) is replicated with its timestamps shifted by one span (plus a 1 ms gap)
   per copy; correlation / external / flow ids are shifted too, so every copy is a distinct step. The copies are
   written as one ``rank-N.json`` per rank into one directory (the layout HTA reads), until the directory holds
   ``--size-gb`` of JSON. The single ``ProfilerStep#10`` annotation keeps its name in every copy: HTA then sees
   one profiler-step name and (as for the original) keeps every kernel instead of dropping the "last iteration".
2. Runs kernelscope (``load_timeline`` + the timeline analysis) and HTA (``TraceAnalysis(trace_dir)``,
   ``get_temporal_breakdown``, ``get_gpu_kernel_breakdown``) on that directory, each in its own child process.
3. Prints the quantities both compute, side by side (per rank: GPU span = HTA "kernel_time", idle, compute and
   non-compute time; the top kernels by total time), with their relative difference; wall time of each and the
   ratio; peak memory of each: ``ru_maxrss`` of the child (largest single process) and the peak of the summed RSS
   of the child's whole process tree (HTA parses ranks in a multiprocessing pool), sampled every 100 ms.

HTA's definitions (``hta/analyzers/breakdown_analysis.py``): GPU events are rows with a stream (kernels, copies,
memsets); "kernel_time" = last end - first start of them; idle = that span - the union of them; compute = the
union of kernels whose name is neither communication (``nccl``) nor memory (``Memcpy`` / ``Memset``);
non-compute = span - compute - idle. On kernelscope's side span and idle come from its analysis
(``analyse_timeline``: the per-device ``TimeSplit``), compute is the union of the kernels HTA's classifier calls
computation, on kernelscope's Timeline; its own kernel / busy / copy / communication split is printed as well.

Usage::

    python benchmarks/kineto_bench.py                      # 1 GiB, kernelscope and HTA
    python benchmarks/kineto_bench.py --size-gb 0.25       # a smaller side-by-side
    python benchmarks/kineto_bench.py --skip-hta           # kernelscope only
    python benchmarks/kineto_bench.py --keep               # keep the scaled input in --work ...
    python benchmarks/kineto_bench.py --reuse --keep       # ... and measure again without rewriting it
    python benchmarks/kineto_bench.py --size-gb 0.176 --reuse --keep --repeat 3 --baseline-src /tmp/old/src
                                       # the 189 MB side by side: this tree and an older one alternately (medians)

HTA is run with ``--hta-python`` (default ``/tmp/hta-venv/bin/python``; ``pip install holistictraceanalysis`` into
its own venv, or ``pip install -e .[bench]``). Machine facts (``nproc``, memory, CPU model) are printed first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO.parent / "shared" / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz"
GAP_US = 1000


# --------------------------------------------------------------------------------------------------- scaling
def _load_ranks(source: Path) -> list[tuple[str, dict]]:
    import msgspec

    out = []
    if source.is_dir():
        for f in sorted(source.glob("*.json")):
            out.append((f.name, msgspec.json.decode(f.read_bytes())))
        return out
    if tarfile.is_tarfile(source):
        with tarfile.open(source, "r:*") as tar:
            for m in sorted(tar.getmembers(), key=lambda m: m.name):
                if m.isfile() and m.name.endswith(".json"):
                    out.append((Path(m.name).name, msgspec.json.decode(tar.extractfile(m).read())))
        return out
    import gzip

    raw = source.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return [(source.name, msgspec.json.decode(raw))]


def scale(source: Path, out_dir: Path, size_bytes: int) -> dict:
    """Write ``out_dir/rank-N.json`` per rank: each rank's events replicated with shifted times until the files
    hold ``size_bytes`` in all. Returns facts about the result.

    The JSON is written with Kineto's own separators (``"key": value``, one event per line): HTA finds a file's
    rank with the regular expression ``"rank":\\s+(\\d+)``, so a file written without the space after the colon
    would be taken as rank 0 by HTA (and all but one rank silently dropped).
    """
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
    ranks = _load_ranks(source)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    # one span for all ranks, so that the copies of all ranks stay aligned
    timed = [e for _, d in ranks for e in d["traceEvents"] if isinstance(e.get("ts"), (int, float)) and e["ts"] > 0]
    lo = min(e["ts"] for e in timed)
    hi = max(e["ts"] + (e.get("dur") or 0) for e in timed)
    shift_us = int(hi - lo) + GAP_US
    id_shift = 10_000_000
    copies = None
    total = 0
    events_total = 0
    for idx, (name, doc) in enumerate(ranks):
        events = doc["traceEvents"]
        body = [e for e in events if e.get("ph") != "M"]
        meta_events = [e for e in events if e.get("ph") == "M"]
        header = {k: v for k, v in doc.items() if k != "traceEvents"}
        rank = (doc.get("distributedInfo") or {}).get("rank", idx)
        path = out_dir / f"rank-{rank}.json"
        if copies is None:
            one_copy = sum(len(dumps(e)) + 4 for e in body) * len(ranks)
            copies = max(1, -(-int(size_bytes) // one_copy))
        with path.open("w", encoding="utf-8") as fh:
            head = json.dumps(header, indent=2, ensure_ascii=False)
            fh.write(head[:-1].rstrip() + ',\n  "traceEvents": [\n')
            first = True
            for e in meta_events:
                fh.write(("" if first else ",\n") + "  " + dumps(e))
                first = False
            for k in range(copies):
                dt = k * shift_us
                di = k * id_shift
                lines = []
                for e in body:
                    c = dict(e)
                    ts = c.get("ts")
                    if isinstance(ts, (int, float)) and ts > 0:
                        c["ts"] = ts + dt
                    if k and isinstance(c.get("id"), int):
                        c["id"] = c["id"] + di
                    args = c.get("args")
                    if k and isinstance(args, dict):
                        args = dict(args)
                        for key in ("correlation", "External id", "external id"):
                            if isinstance(args.get(key), int) and args[key] > 0:
                                args[key] = args[key] + di
                        c["args"] = args
                    lines.append("  " + dumps(c))
                fh.write(("" if first else ",\n") + ",\n".join(lines))
                first = False
            fh.write("\n  ]\n}\n")
        events_total += len(meta_events) + copies * len(body)
        total += path.stat().st_size
    return {"files": len(ranks), "copies": copies, "bytes": total, "events": events_total, "shift_us": shift_us}


# ---------------------------------------------------------------------------------------------- measurement
def _descendants(root: int) -> list[int]:
    """``root`` and every process below it, from a scan of /proc (parent ids)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        children.setdefault(int(stat[stat.rfind(")") + 2:].split()[1]), []).append(int(entry))
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, []))
    return out


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def run_child(cmd: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run a child; return its JSON result (last stdout line), wall time, ru_maxrss and peak tree RSS."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        # RSS of the known processes every 100 ms; the process tree itself is re-scanned every second (a scan of
        # /proc costs ~15 ms here, too much to do 10 times a second next to the run being measured)
        pids: list[int] = [proc.pid]
        tick = 0
        while not done.is_set():
            try:
                if tick % 10 == 0:
                    pids = _descendants(proc.pid)
                peak[0] = max(peak[0], sum(_rss(p) for p in pids))
            except Exception:  # noqa: BLE001 - sampling is best effort
                pass
            tick += 1
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out_chunks: list[str] = []
    err_chunks: list[str] = []
    readers = [threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()), daemon=True),
               threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)]
    for r in readers:
        r.start()
    # the child's end, taken by a thread blocked in wait4 (a polling loop would round every wall up to its period)
    ended: dict = {}

    def reap() -> None:
        ended["wait4"] = os.wait4(proc.pid, 0)
        ended["at"] = time.perf_counter()

    reaper = threading.Thread(target=reap, daemon=True)
    reaper.start()
    reaper.join(timeout)
    timed_out = reaper.is_alive()
    if timed_out:
        proc.kill()
        reaper.join()
    _, status, usage = ended["wait4"]
    wall = ended["at"] - t0
    done.set()
    sampler.join()
    for r in readers:
        r.join(timeout=5)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = "".join(out_chunks)
    stderr = "".join(err_chunks)
    result = None
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                result = json.loads(line)
            except ValueError:
                pass
            break
    # CPU time of the child and the processes it waited for (its pool): less sensitive to other load than the wall
    cpu = usage.ru_utime + usage.ru_stime if usage else None
    return {"result": result, "wall_s": wall, "cpu_s": cpu, "maxrss_bytes": usage.ru_maxrss * 1024 if usage else None,
            "tree_peak_bytes": peak[0], "returncode": proc.returncode, "timed_out": timed_out,
            "stderr_tail": stderr[-3000:]}


KERNELSCOPE_CHILD = r"""
import json, re, sys, time
t0 = time.perf_counter()
import numpy as np
from kernelscope.ingest import load_timeline
from kernelscope.analysis.timeline import analyse_timeline, union_length_ns
from kernelscope.timeline_model import KERNEL
tl = load_timeline(sys.argv[1])
t_load = time.perf_counter()
rep = analyse_timeline(tl)
t_analysis = time.perf_counter()
# kernelscope's own per-device splits, summed per rank
ranks = {}
for d in rep.devices:
    r = ranks.setdefault(str(d.rank if d.rank is not None else 0), {"span_us": 0.0, "idle_us": 0.0, "busy_us": 0.0,
                                                                     "kernel_us": 0.0, "copy_memset_us": 0.0})
    r["span_us"] += d.span_s * 1e6
    r["idle_us"] += d.idle_s * 1e6
    r["busy_us"] += d.busy_s * 1e6
    r["kernel_us"] += d.kernel_s * 1e6
    r["copy_memset_us"] += (d.memcpy_s + d.memset_s) * 1e6
for row in rep.ranks:
    r = ranks.get(str(row.rank if row.rank is not None else 0))
    if r is not None:
        r["communication_sum_us"] = row.communication_s * 1e6
# HTA's "compute" = union of kernels HTA classifies as computation (hta/utils/utils.py: not ^nccl.*Kernel, not
# Memcpy/Memset, not ...Sync), computed on kernelscope's Timeline with kernelscope's union
comm = re.compile(r"^nccl.*Kernel")
memory = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
not_compute = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")
is_compute = np.array([not comm.match(n) and not memory.match(n) and not not_compute.match(n) for n in tl.names],
                      dtype=bool)
k = tl.kind == KERNEL
for rank, r in ranks.items():
    m = k & (tl.rank == (int(rank) if (tl.rank >= 0).any() else -1)) & is_compute[tl.name_id]
    r["compute_us"] = union_length_ns(tl.start_ns[m], tl.end_ns[m]) / 1e3
    r["non_compute_us"] = r["span_us"] - r["compute_us"] - r["idle_us"]
t_end = time.perf_counter()
print(json.dumps({"ranks": ranks, "top": [[x.name, x.total_s * 1e6] for x in rep.kernels[:5]],
                  "rows": len(tl), "kernels": int(k.sum()), "t_load": t_load - t0, "t_analysis": t_analysis - t_load,
                  "t_numbers": t_end - t_analysis}))
"""

HTA_CHILD = r"""
import json, sys, time, logging
logging.disable(logging.WARNING)
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
t_load = time.perf_counter()
tb = a.get_temporal_breakdown(visualize=False)
t_tb = time.perf_counter()
# every kernel (num_kernels large: no "others" grouping), kernels only (no Memcpy / Memset rows)
ktype, kdf = a.get_gpu_kernel_breakdown(visualize=False, num_kernels=1_000_000, duration_ratio=1.0,
                                        include_memory_kernels=False)
t_kb = time.perf_counter()
ranks = {}
for _, row in tb.iterrows():
    ranks[str(int(row["rank"]))] = {"span_us": float(row["kernel_time(us)"]), "idle_us": float(row["idle_time(us)"]),
                                     "compute_us": float(row["compute_time(us)"]),
                                     "non_compute_us": float(row["non_compute_time(us)"])}
tops = {}
for _, row in kdf.iterrows():
    tops[row["name"]] = tops.get(row["name"], 0.0) + float(row["sum (us)"])
top = sorted(tops.items(), key=lambda kv: -kv[1])[:5]
print(json.dumps({"ranks": ranks, "top": top, "top_all": tops, "t_load": t_load - t0, "t_temporal": t_tb - t_load,
                  "t_kernels": t_kb - t_tb}))
"""


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        mem = subprocess.run(["free", "-g"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    return f"nproc: {os.cpu_count()}\nCPU: {cpu}\nPython: {platform.python_version()}\nfree -g:\n{mem}"


def _gib(n: float | None) -> str:
    return "n/a" if n is None else f"{n / (1 << 30):.2f} GiB"


def compare(ks: dict, hta: dict) -> list[str]:
    lines = []
    worst = 0.0
    lines.append(f"{'rank':>4} {'quantity':<16} {'kernelscope (us)':>18} {'HTA (us)':>18} {'rel. diff':>10}")
    for rank in sorted(ks["ranks"], key=int):
        h = hta["ranks"].get(rank)
        for q in ("span_us", "idle_us", "compute_us", "non_compute_us"):
            kv = ks["ranks"][rank][q]
            hv = h[q] if h else float("nan")
            rel = abs(kv - hv) / abs(hv) if h and hv else (0.0 if h and kv == hv else float("nan"))
            if rel == rel:
                worst = max(worst, rel)
            lines.append(f"{rank:>4} {q[:-3]:<16} {kv:>18.1f} {hv:>18.1f} {rel:>10.2e}")
    lines.append(f"largest relative difference: {worst:.2e} ({'within' if worst <= 1e-3 else 'OUTSIDE'} 0.1%)")
    lines.append("top kernels by total time (all ranks):")
    htop = hta.get("top_all") or dict(hta["top"])
    for name, total in ks["top"]:
        hv = htop.get(name)
        short = name if len(name) <= 60 else name[:57] + "..."
        rel = f"{abs(total - hv) / hv:.2e}" if hv else "not in HTA top"
        lines.append(f"  {short:<60} kernelscope {total:>14.1f} us  HTA {hv if hv is not None else float('nan'):>14.1f} us  {rel}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="trace to scale (tar.gz, dir or json)")
    ap.add_argument("--size-gb", type=float, default=1.0, help="JSON size to scale to, in GiB")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kineto_bench"), help="where the scaled trace goes")
    ap.add_argument("--hta-python", default="/tmp/hta-venv/bin/python", help="python with holistictraceanalysis")
    ap.add_argument("--hta-timeout", type=float, default=1800.0, help="seconds before HTA is stopped")
    ap.add_argument("--skip-hta", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the scaled trace")
    ap.add_argument("--reuse", action="store_true", help="reuse a scaled trace kept by an earlier --keep run")
    ap.add_argument("--repeat", type=int, default=1, help="kernelscope runs (the median is compared; HTA runs once)")
    ap.add_argument("--baseline-src", type=Path, help="another kernelscope source tree (its src/ folder, e.g. a "
                    "worktree of an older commit) timed alternately with this one in the same run")
    args = ap.parse_args(argv)

    print("== machine")
    print(machine())
    size = int(args.size_gb * (1 << 30))
    out_dir = args.work / f"scaled_{args.size_gb:g}gb"
    facts_file = out_dir.with_name(out_dir.name + ".facts.json")  # beside the directory: HTA reads every *.json in it
    t0 = time.perf_counter()
    if args.reuse and out_dir.is_dir() and facts_file.exists():
        facts = json.loads(facts_file.read_text())
        how = "reused"
    else:
        facts = scale(args.source, out_dir, size)
        facts_file.write_text(json.dumps(facts))
        how = f"written in {time.perf_counter() - t0:.1f} s"
    print(f"\n== input: {args.source.name} scaled x{facts['copies']} -> {out_dir}: {facts['files']} files, "
          f"{facts['bytes'] / 1e9:.3f} GB ({_gib(facts['bytes'])}), {facts['events']:,} events ({how})")

    try:
        return _run(args, out_dir, facts)
    finally:
        if not args.keep:
            shutil.rmtree(out_dir, ignore_errors=True)
            facts_file.unlink(missing_ok=True)


def _load() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "n/a"


def _env(src: Path | None) -> dict | None:
    """The environment of a child importing kernelscope from ``src`` (None: this interpreter's own)."""
    if src is None:
        return None
    return {**os.environ, "PYTHONPATH": str(src)}


def _compile_kernelscope(env: dict | None) -> str:
    """Byte-compile the kernelscope package a child with ``env`` imports, as an installed package is (HTA's is, by
    pip): a checkout run with PYTHONDONTWRITEBYTECODE=1 (set on these machines) would otherwise compile every
    module from source in the measured run (about 0.3 s of its start). Returns the package's directory."""
    package = subprocess.run([sys.executable, "-c", "import kernelscope, os; print(os.path.dirname(kernelscope.__file__))"],
                             check=True, capture_output=True, text=True, env=env).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True, env=env)
    return package


def _kernelscope_runs(args, out_dir: Path) -> tuple[dict, dict | None]:
    """The kernelscope child, ``--repeat`` times (alternating with the ``--baseline-src`` tree when given, which of
    the two goes first swapped every repeat: a machine speeding up or slowing down over the runs favours
    neither): the run of median wall time of each tree, and with a baseline the median of the repeats' paired
    ratios (this tree's wall / the baseline's in the same repeat), which drift on the machine sways less than
    the ratio of the two medians."""
    trees = [("kernelscope", None)] + ([("baseline", _env(args.baseline_src))] if args.baseline_src else [])
    for label, env in trees:
        print(f"{label}: {_compile_kernelscope(env)}")
    runs: dict[str, list[dict]] = {label: [] for label, _ in trees}
    for i in range(args.repeat):
        for label, env in (trees if i % 2 == 0 else trees[::-1]):
            print(f"load average before {label}: {_load()}")
            res = run_child([sys.executable, "-c", KERNELSCOPE_CHILD, str(out_dir)], timeout=args.hta_timeout, env=env)
            if res["result"] is None:
                raise SystemExit(f"{label} failed: {res['returncode']} {res['stderr_tail']}")
            runs[label].append(res)
    median = {label: sorted(rs, key=lambda x: x["wall_s"])[len(rs) // 2] for label, rs in runs.items()}
    for label, rs in runs.items():
        cpus = sorted(x["cpu_s"] for x in rs)
        print(f"{label} walls (s): " + ", ".join(f"{x['wall_s']:.2f}" for x in rs)
              + "; CPU (s, user + system, with its workers): " + ", ".join(f"{x['cpu_s']:.2f}" for x in rs)
              + f" (median {cpus[len(cpus) // 2]:.2f})")
    if "baseline" in runs:
        paired = sorted(k["wall_s"] / b["wall_s"] for k, b in zip(runs["kernelscope"], runs["baseline"]))
        print("paired ratios (this tree / baseline, per repeat): " + ", ".join(f"{x:.3f}" for x in paired)
              + f"; median {statistics.median(paired):.3f}")
    return median["kernelscope"], median.get("baseline")


def _run(args, out_dir: Path, facts: dict) -> int:
    ks, base = _kernelscope_runs(args, out_dir)
    r = ks["result"]
    if base is not None:
        print(f"\n== baseline ({args.baseline_src}): median wall {base['wall_s']:.2f} s; this tree's median "
              f"{ks['wall_s']:.2f} s = {ks['wall_s'] / base['wall_s']:.2f}x the baseline's")
    print(f"\n== kernelscope: median wall {ks['wall_s']:.2f} s (load {r['t_load']:.2f} s, analysis {r['t_analysis']:.2f} s, "
          f"HTA-definition numbers {r['t_numbers']:.2f} s); {r['rows']:,} rows, {r['kernels']:,} kernels")
    print(f"   peak memory: max RSS {_gib(ks['maxrss_bytes'])} ({ks['maxrss_bytes'] / facts['bytes']:.2f}x the input), "
          f"process tree {_gib(ks['tree_peak_bytes'])} ({ks['tree_peak_bytes'] / facts['bytes']:.2f}x the input)")
    print("   kernelscope's own per-rank split (us): " + "; ".join(
        f"rank {k}: busy {v['busy_us']:.0f}, kernel {v['kernel_us']:.0f}, copy+memset only {v['copy_memset_us']:.0f}, "
        f"idle {v['idle_us']:.0f}, communication kernels (sum) {v.get('communication_sum_us', 0):.0f}"
        for k, v in sorted(r["ranks"].items(), key=lambda kv: int(kv[0]))))
    if args.skip_hta:
        return 0
    print(f"load average before HTA: {_load()}")
    hta = run_child([args.hta_python, "-c", HTA_CHILD, str(out_dir)], timeout=args.hta_timeout)
    if hta["result"] is None:
        why = f"timed out after {args.hta_timeout:.0f} s" if hta["timed_out"] else f"exit {hta['returncode']}"
        print(f"\n== HTA did not finish ({why}): wall {hta['wall_s']:.1f} s; peak memory: max RSS "
              f"{_gib(hta['maxrss_bytes'])}, process tree {_gib(hta['tree_peak_bytes'])}")
        print(hta["stderr_tail"][-1500:])
        return 2
    h = hta["result"]
    print(f"\n== HTA: wall {hta['wall_s']:.2f} s, CPU {hta['cpu_s']:.2f} s (TraceAnalysis load {h['t_load']:.2f} s, temporal breakdown "
          f"{h['t_temporal']:.2f} s, kernel breakdown {h['t_kernels']:.2f} s)")
    print(f"   peak memory: max RSS {_gib(hta['maxrss_bytes'])} ({hta['maxrss_bytes'] / facts['bytes']:.2f}x the input), "
          f"process tree {_gib(hta['tree_peak_bytes'])} ({hta['tree_peak_bytes'] / facts['bytes']:.2f}x the input)")
    print(f"load average after HTA: {_load()}")
    print("\n== side by side")
    for line in compare(r, h):
        print(line)
    print(f"\n== speed: kernelscope {ks['wall_s']:.2f} s vs HTA {hta['wall_s']:.2f} s -> "
          f"{hta['wall_s'] / ks['wall_s']:.1f}x faster")
    if base is not None:
        print(f"== speed: baseline {base['wall_s']:.2f} s vs HTA {hta['wall_s']:.2f} s -> "
              f"{hta['wall_s'] / base['wall_s']:.1f}x faster")
    print(f"== memory (process tree peak): kernelscope {_gib(ks['tree_peak_bytes'])} "
          f"({ks['tree_peak_bytes'] / facts['bytes']:.2f}x input) vs HTA {_gib(hta['tree_peak_bytes'])} "
          f"({hta['tree_peak_bytes'] / facts['bytes']:.2f}x input)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Theoretical occupancy (kernelscope.occupancy), ptxas ingest and the ``occupancy`` command.

Expected values come from outside kernelscope: the shared case C02 (computed with CUDA 13.0
``cuda_occupancy.h``), Nsight Compute's own ``launch__occupancy_limit_*`` metrics in the corpus reports, NVIDIA's
occupancy calculator header compiled as an oracle, and hand computations written out in the tests.
"""

from __future__ import annotations

import csv
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CASES, CORPUS_NCU, REPO, corpus_reports, need
from conftest import flat as flat_text
from kernelscope import InputError, load
from kernelscope.cli import main
from kernelscope.ingest.ptxas import compile_resource_usage, parse_ptxas
from kernelscope.analysis.occupancy import (
    arch_limits,
    next_step,
    occupancy,
    occupancy_of,
    parse_compute_capability,
    parse_size,
    supported_compute_capabilities,
    what_if,
)

DEMO_CU = REPO / "examples" / "kernels" / "occupancy_demo.cu"
INT_MAX = 2**31 - 1


# ----------------------------------------------------------------------------------- shared case C02


def _c02_rows():
    path = CASES / "C02_occupancy.tsv"
    if not path.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"shared inputs not available: {path} is absent"))]
    lines = [l for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")]
    return [pytest.param(r, id=r[0]) for r in csv.reader(lines, delimiter="\t")]


@pytest.mark.parametrize("row", _c02_rows())
def test_case_c02(row):
    need(CASES / "C02_occupancy.tsv")
    case, _source, cc, threads, regs, smem, blocks, warps, max_warps, pct, limiter = row
    major, minor = (int(p) for p in cc.split("."))
    expected_limiters = {"registers": {"registers"}, "warps+registers (tie)": {"warps", "registers"}}[limiter]
    # The case file was computed with cuda_occupancy.h's default device state: carveout = the SM's maximum
    # shared memory. Check that setting, and kernelscope's own carveout choice (same occupancy, same limiters).
    a = arch_limits((major, minor))
    for config in (a.shared_mem_carveouts_bytes[-1], None):
        o = occupancy((major, minor), int(threads), int(regs), int(smem), config)
        assert o.active_blocks_per_sm == int(blocks), (case, config)
        assert o.active_warps_per_sm == int(warps), (case, config)
        assert o.max_warps_per_sm == int(max_warps)
        assert o.occupancy_pct == pytest.approx(float(pct), abs=1e-9)
        assert set(o.limiters) == expected_limiters, (case, config, o.limiters)


def test_c02_register_granularity_by_hand():
    # README C02: 92 -> 96 regs/thread, 3072 regs/warp, 16384 // 3072 = 5 warps per sub-partition = 20 warps,
    # 20 // 7 warps per block = 2 blocks (a calculator without the granularity says 3).
    o = occupancy((8, 0), 224, 92)
    assert (o.registers_per_thread_allocated, o.block_limits["registers"]) == (96, 2)
    # 41 and 43 registers both allocate 48 (1536 regs/warp, 10 warps per sub-partition): 40 warps either way,
    # so the 41 -> 43 change cannot explain a slowdown through occupancy.
    a, b = occupancy((8, 0), 128, 41), occupancy((8, 0), 128, 43)
    assert (a.registers_per_thread_allocated, a.active_warps_per_sm) == (b.registers_per_thread_allocated, b.active_warps_per_sm) == (48, 40)


def test_seed_64_registers_is_half_occupancy():
    # 64 regs/thread x 32 = 2048 regs/warp; 65536 / 2048 = 32 warps of 64 -> 50 %.
    for threads in (256, 1024):
        o = occupancy((8, 0), threads, 64)
        assert (o.active_warps_per_sm, o.occupancy_pct, o.limiters) == (32, 50.0, ("registers",))


def test_hand_computed_limits():
    # CC 9.0, 256 threads, 64 regs, 48 KiB static: 8 warps/block -> 64 // 8 = 8 blocks by warps; 2048 regs/warp
    # -> 8 warps per sub-partition -> 32 warps -> 4 blocks; 48 KiB + 1 KiB reserved = 50176 B, 4 blocks need
    # 200704 B = 196 KiB, the smallest carveout holding them; even 228 KiB holds only 233472 // 50176 = 4.
    o = occupancy((9, 0), 256, 64, 48 * 1024)
    assert dict(o.block_limits) == {"warps": 8, "registers": 4, "shared_mem": 4, "blocks": 32, "barriers": 32}
    assert o.shared_mem_per_block_allocated_bytes == 50176
    assert o.shared_mem_config_bytes == 196 * 1024
    assert o.limiters == ("registers", "shared_mem")
    # CC 7.5 has no reserved shared memory and a 256 B unit: 816 B -> 1024 B, 32 KiB carveout -> 32 blocks.
    o = occupancy((7, 5), 128, 22, 816, 32 * 1024)
    assert (o.shared_mem_per_block_allocated_bytes, o.block_limits["shared_mem"]) == (1024, 32)
    # 1024 threads x 72 regs: 2304 regs/warp x 32 warps > 65536 regs per block: cannot launch.
    o = occupancy((8, 0), 1024, 72)
    assert (o.active_blocks_per_sm, o.limiters) == (0, ("registers",))


def test_next_step_by_hand():
    # CC 8.0, 256 threads, 64 regs: 4 blocks = 32 warps. 56 regs: 1792/warp -> 9 warps per sub-partition = 36 warps
    # -> still 4 blocks of 8 warps; 48 regs: 1536/warp -> 10 -> 40 warps -> 5 blocks = 40 warps (62.5 %).
    steps = {s.parameter: s for s in next_step(occupancy((8, 0), 256, 64))}
    r = steps["registers_per_thread"]
    assert (r.current, r.proposed, r.result.active_warps_per_sm, r.result.occupancy_pct) == (64, 48, 40, 62.5)
    assert "shared_mem_per_block_bytes" not in steps  # no shared memory to give back
    # 32-thread blocks hit the 32 blocks/SM limit at 32 warps; 64-thread blocks reach 64 warps (16 regs).
    steps = {s.parameter: s for s in next_step(occupancy((8, 0), 32, 16))}
    assert (steps["threads_per_block"].proposed, steps["threads_per_block"].result.active_warps_per_sm) == (64, 64)
    # CC 8.6, 256 threads, 16 regs, 40 KiB: 41984 B/block, 100 KiB holds 2 blocks = 16 of 48 warps; 3 blocks fit
    # 102400 // 3 = 34133 -> 34048 (128 B unit) - 1024 reserved = 33024 B.
    steps = {s.parameter: s for s in next_step(occupancy((8, 6), 256, 16, 40 * 1024))}
    s = steps["shared_mem_per_block_bytes"]
    assert (s.proposed, s.result.active_blocks_per_sm, s.result.active_warps_per_sm) == (33024, 3, 24)


def test_what_if_rows_and_steps():
    base = occupancy((8, 0), 256, 64)
    threads = what_if(base, "threads_per_block")
    assert [v for v, _ in threads] == list(range(32, 1025, 32))
    regs = [v for v, _ in what_if(base, "registers_per_thread")]
    assert regs[:3] == [8, 16, 24] and regs[-2:] == [248, 255]
    smem = dict(what_if(base, "shared_mem_per_block_bytes"))
    # 2 blocks in 164 KiB: 167936 // 2 = 83968 B - 1024 reserved = 82944 B per block at most; 0 and the
    # 163 KiB opt-in maximum are always rows.
    assert smem[82944].active_blocks_per_sm == 2 and smem[82944].block_limits["shared_mem"] == 2
    assert min(smem) == 0 and max(smem) == 166912
    with pytest.raises(InputError):
        what_if(base, "grid")


@pytest.mark.parametrize(
    "args, source",
    [
        (((8, 8), 256, 32), "compute_capability"),
        (((8, 0), 0, 32), "threads_per_block"),
        (((8, 0), 1025, 32), "threads_per_block"),
        (((8, 0), 256, 256), "registers_per_thread"),
        (((8, 0), 256, -1), "registers_per_thread"),
        (((8, 0), 256, 32, 166913), "shared_mem_per_block_bytes"),
        (((7, 5), 256, 32, 65537), "shared_mem_per_block_bytes"),
        (((8, 0), 256, 32, 0, 50 * 1024), "shared_mem_config_bytes"),
        (((8, 0), 256.0, 32), "threads_per_block"),
    ],
)
def test_bad_input_is_one_line_input_error(args, source):
    with pytest.raises(InputError) as exc:
        occupancy(*args)
    assert exc.value.source == source and "\n" not in str(exc.value)


def test_parsers():
    assert parse_compute_capability("sm_90") == (9, 0)
    assert parse_compute_capability("sm_90a") == (9, 0)
    assert parse_compute_capability("sm_100") == (10, 0)
    assert parse_compute_capability("sm_103") == (10, 3)
    assert parse_compute_capability("compute_86") == (8, 6)
    assert parse_compute_capability("12.0") == (12, 0)
    for bad in ("sm_95", "hopper", "9"):
        with pytest.raises(InputError):
            parse_compute_capability(bad)
    assert [parse_size(t, "x") for t in ("49152", "48K", "48KiB", "48 KB", "1MiB")] == [49152] * 4 + [1048576]
    for bad in ("4.5K", "-1", "48GB", ""):
        with pytest.raises(InputError):
            parse_size(bad, "x")


def test_data_file_has_a_source_for_every_number():
    for cc in supported_compute_capabilities():
        a = arch_limits(cc)
        for field in ("max_warps_per_sm", "max_blocks_per_sm", "registers_per_sm", "max_registers_per_thread",
                      "register_allocation_unit", "sub_partitions", "shared_mem_per_sm_bytes",
                      "shared_mem_per_block_optin_bytes", "shared_mem_allocation_unit_bytes",
                      "shared_mem_reserved_per_block_bytes", "shared_mem_carveouts_kib"):
            assert a.sources.get(field), (cc, field)
    required = {(7, 0), (7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0)}
    assert required <= set(supported_compute_capabilities())


# ------------------------------------------------------------------------------ Nsight Compute corpus

_LIMIT_METRICS = {
    "warps": "launch__occupancy_limit_warps",
    "registers": "launch__occupancy_limit_registers",
    "shared_mem": "launch__occupancy_limit_shared_mem",
    "blocks": "launch__occupancy_limit_blocks",
    "barriers": "launch__occupancy_limit_barriers",
}


def _ncu_occupancy(report, kernel):
    """Our occupancy for a profiled launch, with the carveout this Nsight Compute version used for its
    shared-memory limit: versions 2021.x divide the SM's maximum shared memory
    (device__attribute_max_shared_memory_per_multiprocessor), later ones the configured size
    (launch__shared_mem_config_size), which occupancy_of passes on."""
    if report.tool_version and report.tool_version.startswith("2021."):
        launch = kernel.launch
        smem = launch.shared_mem_static_bytes + launch.shared_mem_dynamic_bytes
        return occupancy(kernel.device.compute_capability, launch.threads_per_block, launch.registers_per_thread,
                         smem, int(kernel.metrics["device__attribute_max_shared_memory_per_multiprocessor"]))
    return occupancy_of(kernel)


def _corpus_kernels():
    out = []
    for path in corpus_reports():
        report = load(path)
        for k in report.kernels:
            if "launch__occupancy_limit_warps" in k.metrics and "sm__maximum_warps_per_active_cycle_pct" in k.metrics:
                out.append((path, report, k))
    return out


@pytest.fixture(scope="module")
def corpus_kernels():
    need(CORPUS_NCU)
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    kernels = _corpus_kernels()
    if not kernels:
        pytest.skip(f"no report in {CORPUS_NCU} has launch statistics")
    return kernels


def test_agrees_with_nsight_compute_on_every_corpus_kernel(corpus_kernels):
    disagreements = []
    for path, report, k in corpus_kernels:
        o = _ncu_occupancy(report, k)
        m = k.metrics
        where = f"{path.name} #{k.index} {k.name} (ncu {report.tool_version})"
        if o is None:
            disagreements.append(f"{where}: not computed")
            continue
        expected = {r: int(m[name]) for r, name in _LIMIT_METRICS.items() if name in m}
        ours = {r: o.block_limits.get(r) for r in expected}
        if ours != expected:
            disagreements.append(f"{where}: limits ours {ours} vs ncu {expected}")
        if o.occupancy_pct != pytest.approx(m["sm__maximum_warps_per_active_cycle_pct"], abs=1e-9):
            disagreements.append(f"{where}: {o.occupancy_pct} % vs ncu {m['sm__maximum_warps_per_active_cycle_pct']} %")
        plain = occupancy_of(k)  # the configured carveout: same occupancy whatever the Nsight version
        if plain is None or plain.occupancy_pct != pytest.approx(m["sm__maximum_warps_per_active_cycle_pct"], abs=1e-9):
            disagreements.append(f"{where}: occupancy_of gives {plain and plain.occupancy_pct} %")
        if "sm__maximum_warps_avg_per_active_cycle" in m and o.active_warps_per_sm != m["sm__maximum_warps_avg_per_active_cycle"]:
            disagreements.append(f"{where}: {o.active_warps_per_sm} warps vs ncu {m['sm__maximum_warps_avg_per_active_cycle']}")
        if "launch__shared_mem_per_block_allocated" in m and (
            o.shared_mem_per_block_allocated_bytes != m["launch__shared_mem_per_block_allocated"]
        ):
            disagreements.append(f"{where}: allocated smem {o.shared_mem_per_block_allocated_bytes} vs ncu "
                                 f"{m['launch__shared_mem_per_block_allocated']}")
    print(f"\nNsight Compute agreement: {len(corpus_kernels) - len(disagreements)}/{len(corpus_kernels)} launches")
    assert not disagreements, "\n".join(disagreements)


def test_data_file_matches_corpus_device_attributes(corpus_kernels):
    attrs = {
        "max_warps_per_sm": "device__attribute_max_warps_per_multiprocessor",
        "max_blocks_per_sm": "device__attribute_max_blocks_per_multiprocessor",
        "registers_per_sm": "device__attribute_max_registers_per_multiprocessor",
        "max_registers_per_block": "device__attribute_max_registers_per_block",
        "max_registers_per_thread": "device__attribute_max_registers_per_thread",
        "max_threads_per_block": "device__attribute_max_threads_per_block",
        "shared_mem_per_sm_bytes": "device__attribute_max_shared_memory_per_multiprocessor",
        "shared_mem_per_block_bytes": "device__attribute_max_shared_memory_per_block",
        "shared_mem_per_block_optin_bytes": "device__attribute_max_shared_memory_per_block_optin",
        "shared_mem_reserved_per_block_bytes": "device__attribute_reserved_shared_memory_per_block",
    }
    checked = set()
    for path, _report, k in corpus_kernels:
        a = arch_limits(k.device.compute_capability)
        for field, metric in attrs.items():
            if metric in k.metrics:
                assert getattr(a, field) == k.metrics[metric], (path.name, field)
                checked.add((k.device.compute_capability, field))
        if "launch__shared_mem_config_size" in k.metrics:
            assert int(k.metrics["launch__shared_mem_config_size"]) in a.shared_mem_carveouts_bytes, path.name
    assert len({cc for cc, _ in checked}) >= 5


# --------------------------------------------------------------------------------- cuda_occupancy.h oracle

_ORACLE_CPP = r"""
#include <cstdio>
#include <climits>
#include "cuda_occupancy.h"
int main() {
    int major, minor, maxThreadsPerBlock, maxThreadsPerSM, regsPerBlock, regsPerSM, warpSize;
    long smemPerBlock, smemPerSM, smemOptin, reserved, smem;
    int threads, regs, barriers, carveoutPct;
    while (scanf("%d %d %d %d %d %d %d %ld %ld %ld %ld %d %d %ld %d %d", &major, &minor, &maxThreadsPerBlock,
                 &maxThreadsPerSM, &regsPerBlock, &regsPerSM, &warpSize, &smemPerBlock, &smemPerSM, &smemOptin,
                 &reserved, &threads, &regs, &smem, &barriers, &carveoutPct) == 16) {
        cudaOccDeviceProp prop;
        prop.computeMajor = major; prop.computeMinor = minor;
        prop.maxThreadsPerBlock = maxThreadsPerBlock; prop.maxThreadsPerMultiprocessor = maxThreadsPerSM;
        prop.regsPerBlock = regsPerBlock; prop.regsPerMultiprocessor = regsPerSM; prop.warpSize = warpSize;
        prop.sharedMemPerBlock = smemPerBlock; prop.sharedMemPerMultiprocessor = smemPerSM; prop.numSms = 1;
        prop.sharedMemPerBlockOptin = smemOptin; prop.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = maxThreadsPerBlock; attr.numRegs = regs; attr.sharedSizeBytes = 0;
        attr.partitionedGCConfig = PARTITIONED_GC_OFF; attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        attr.maxDynamicSharedSizeBytes = smemOptin; attr.numBlockBarriers = barriers; attr.virtualResourceCount = 0;
        cudaOccDeviceState state;
        state.carveoutConfig = carveoutPct;
        cudaOccResult r;
        cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, threads, (size_t)smem);
        printf("%d %d %d %d %d %d %d %u %d %ld\n", (int)e, r.activeBlocksPerMultiprocessor, r.blockLimitWarps,
               r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitBlocks, r.blockLimitBarriers,
               r.limitingFactors, r.allocatedRegistersPerBlock, (long)r.allocatedSharedMemPerBlock);
    }
    return 0;
}
"""

_FACTORS = {0x01: "warps", 0x02: "registers", 0x04: "shared_mem", 0x08: "blocks", 0x10: "barriers"}


def _find_occupancy_header() -> Path | None:
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    candidates += sorted(str(p) for p in Path("/usr/local").glob("cuda-*"))
    for c in candidates:
        if c and (Path(c) / "include" / "cuda_occupancy.h").is_file():
            return Path(c) / "include"
    return None


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    include = _find_occupancy_header()
    if include is None:
        pytest.skip("cuda_occupancy.h not found (no CUDA toolkit: CUDA_HOME, /usr/local/cuda*, nvcc on PATH)")
    cxx = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler (g++, c++ or clang++) to build the cuda_occupancy.h oracle")
    tmp = tmp_path_factory.mktemp("occ_oracle")
    (tmp / "oracle.cpp").write_text(_ORACLE_CPP)
    build = subprocess.run([cxx, "-O1", "-w", f"-I{include}", "oracle.cpp", "-o", "oracle"], cwd=tmp,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    exe = tmp / "oracle"

    def run(rows: list[tuple]) -> list[dict]:
        lines = []
        for cc, threads, regs, smem, barriers, pct in rows:
            a = arch_limits(cc)
            lines.append(" ".join(str(v) for v in (
                cc[0], cc[1], a.max_threads_per_block, a.max_warps_per_sm * a.warp_size, a.max_registers_per_block,
                a.registers_per_sm, a.warp_size, a.shared_mem_per_block_bytes, a.shared_mem_per_sm_bytes,
                a.shared_mem_per_block_optin_bytes, a.shared_mem_reserved_per_block_bytes, threads, regs, smem,
                barriers, pct)))
        out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
        results = []
        for line in out.stdout.splitlines():
            e, active, warps, regs_l, smem_l, blocks, bars, factors, alloc_regs, alloc_smem = (int(v) for v in line.split())
            assert e == 0, line
            results.append({
                "active": active, "warps": warps, "registers": regs_l, "shared_mem": smem_l, "blocks": blocks,
                "barriers": bars, "limiters": {n for bit, n in _FACTORS.items() if factors & bit},
                "alloc_regs": alloc_regs, "alloc_smem": alloc_smem,
            })
        assert len(results) == len(rows)
        return results

    return run


def _carveout_pct(cc, config: int) -> int:
    """A carveout preference (percent of the maximum) that cuda_occupancy.h rounds up to ``config`` bytes."""
    a = arch_limits(cc)
    for pct in range(101):
        size = pct * a.shared_mem_per_sm_bytes // 100
        if min(c for c in a.shared_mem_carveouts_bytes if c >= size) == config:
            return pct
    raise AssertionError(f"no carveout percentage gives {config} on {cc}")


ORACLE_CCS = [(7, 0), (7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0)]
EXTRA_CCS = [cc for cc in supported_compute_capabilities() if cc not in ORACLE_CCS]
CONFIGS_PER_CC = 300


def _random_configs(cc, rng: random.Random):
    a = arch_limits(cc)
    for _ in range(CONFIGS_PER_CC):
        threads = rng.choice([rng.randrange(32, a.max_threads_per_block + 1, 32), rng.randint(1, a.max_threads_per_block)])
        regs = 0 if rng.random() < 0.05 else rng.randint(1, a.max_registers_per_thread)
        r = rng.random()
        smem = 0 if r < 0.3 else rng.randint(0, 48 * 1024) if r < 0.7 else rng.randint(0, a.shared_mem_per_block_optin_bytes)
        barriers = 0 if rng.random() < 0.5 else rng.randint(1, a.max_barriers_per_block)
        config = None if rng.random() < 0.5 else rng.choice(a.shared_mem_carveouts_bytes)
        yield threads, regs, smem, barriers, config


def _compare_with_oracle(oracle, cases):
    """cases: [(cc, threads, regs, smem, barriers, config)]; returns the list of disagreements."""
    ours = [occupancy(cc, t, r, s, c, barriers_per_block=b) for cc, t, r, s, b, c in cases]
    used = oracle([(cc, t, r, s, b, _carveout_pct(cc, o.shared_mem_config_bytes))
                   for (cc, t, r, s, b, c), o in zip(cases, ours)])
    at_max = oracle([(cc, t, r, s, b, 100) for cc, t, r, s, b, c in cases])
    bad = []
    for case, o, h, hmax in zip(cases, ours, used, at_max):
        cc, _t, _r, _s, _b, config = case
        max_blocks = arch_limits(cc).max_blocks_per_sm
        want = {k: (max_blocks if h[k] == INT_MAX else h[k]) for k in ("warps", "registers", "shared_mem", "blocks")}
        if "barriers" in o.block_limits:
            want["barriers"] = max_blocks if h["barriers"] == INT_MAX else h["barriers"]
        limiters = set(h["limiters"])
        others = min(v for k, v in h.items() if k in ("warps", "registers", "shared_mem", "blocks"))
        if h["barriers"] < others:
            # cuda_occupancy.h sets its limiting-factor bits before applying the barrier limit and keeps them
            # when barriers lower the blocks further; the limits it returns still say which resources bind.
            limiters = {k for k in _FACTORS.values() if h[k] != INT_MAX and h[k] == h["active"]}
        if config is None and hmax["shared_mem"] != INT_MAX and hmax["shared_mem"] > h["active"]:
            limiters.discard("shared_mem")  # carveout chosen by kernelscope: the largest one would hold more
        got = (o.active_blocks_per_sm, dict(o.block_limits), set(o.limiters), o.registers_per_block_allocated,
               o.shared_mem_per_block_allocated_bytes)
        expected = (h["active"], want, limiters, h["alloc_regs"], h["alloc_smem"])
        if got != expected:
            bad.append(f"{case}: ours {got} vs cuda_occupancy.h {expected}")
    return bad


@pytest.mark.parametrize("cc", ORACLE_CCS + EXTRA_CCS, ids=lambda cc: f"cc{cc[0]}{cc[1]}")
def test_agrees_with_cuda_occupancy_h(oracle, cc):
    rng = random.Random(f"kernelscope-occupancy-{cc[0]}.{cc[1]}")
    cases = [(cc, *c[:4], c[4]) for c in _random_configs(cc, rng)]
    bad = _compare_with_oracle(oracle, cases)
    assert not bad, f"{len(bad)}/{len(cases)} disagree:\n" + "\n".join(bad[:20])


def test_oracle_agrees_on_case_c02_and_edges(oracle):
    cases = [
        ((8, 0), 224, 92, 0, 0, None), ((7, 0), 64, 126, 8192, 0, None), ((6, 1), 768, 36, 0, 0, None),
        ((6, 0), 320, 176, 0, 0, None), ((6, 0), 1024, 64, 0, 0, None),  # CC 6.0 is checked as 6.1 too
        ((8, 0), 1024, 72, 0, 0, None), ((8, 0), 992, 66, 0, 0, None),  # per-block register checks
        ((9, 0), 32, 16, 0, 3, None), ((12, 0), 64, 16, 0, 2, None),  # barrier limits
        ((8, 0), 1, 0, 0, 0, None), ((7, 0), 1, 0, 0, 0, 0),  # nothing used
        ((8, 0), 256, 32, 166912, 0, 8192),  # carveout smaller than one block: the driver overrides it
    ]
    assert not _compare_with_oracle(oracle, cases)


def test_what_if_and_next_step_agree_with_oracle(oracle):
    base = occupancy((8, 6), 128, 72, 12 * 1024)
    cases = []
    for vary in ("threads_per_block", "registers_per_thread", "shared_mem_per_block_bytes"):
        for value, _ in what_if(base, vary):
            args = {"threads_per_block": 128, "registers_per_thread": 72, "shared_mem_per_block_bytes": 12 * 1024}
            args[vary] = value
            cases.append(((8, 6), args["threads_per_block"], args["registers_per_thread"],
                          args["shared_mem_per_block_bytes"], 0, None))
    assert not _compare_with_oracle(oracle, cases)
    # every proposed step reaches more warps per the oracle, and the value one step closer does not
    for step in next_step(base):
        kw = {"threads_per_block": 128, "registers_per_thread": 72, "shared_mem_per_block_bytes": 12 * 1024}
        kw[step.parameter] = step.proposed
        h = oracle([((8, 6), kw["threads_per_block"], kw["registers_per_thread"], kw["shared_mem_per_block_bytes"], 0,
                     _carveout_pct((8, 6), step.result.shared_mem_config_bytes))])[0]
        assert h["active"] * -(-kw["threads_per_block"] // 32) > base.active_warps_per_sm, step


# ------------------------------------------------------------------------------------------------ ptxas

PTXAS_SAMPLE = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z4heavyPf' for 'sm_80'
ptxas info    : Function properties for _Z6helperv
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Function properties for _Z4heavyPf
    96 bytes stack frame, 100 bytes spill stores, 120 bytes spill loads
ptxas info    : Used 32 registers, 16384 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_Z5lightPf' for 'sm_80'
ptxas info    : Function properties for _Z5lightPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 1 barriers, 360 bytes cmem[0]
"""


def test_parse_ptxas_sample():
    heavy, light = parse_ptxas(PTXAS_SAMPLE)
    assert (heavy.name, heavy.arch, heavy.registers_per_thread, heavy.shared_mem_static_bytes) == ("_Z4heavyPf", "sm_80", 32, 16384)
    assert (heavy.stack_frame_bytes, heavy.spill_stores_bytes, heavy.spill_loads_bytes, heavy.spills) == (96, 100, 120, True)
    assert heavy.barriers is None  # this ptxas did not print a barrier count
    assert (light.registers_per_thread, light.shared_mem_static_bytes, light.barriers, light.spills) == (8, 0, 1, False)
    with pytest.raises(InputError):
        parse_ptxas("ptxas info    : Compiling entry function '_Z1kv' for 'sm_80'\n")


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA toolkit) is not on PATH")


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_75", "sm_86", "sm_90"])
def test_compile_demo_kernels(arch):
    """Each demo kernel shows what its name says on every architecture from Turing on: register_spilling's
    __launch_bounds__(512, 2) caps it at 65536 / (512 x 2) = 64 registers (1024 threads fit every SM from sm_75:
    ptxas keeps the bound, no warning) and it spills; register_heavy needs more than 64."""
    report = compile_resource_usage(DEMO_CU, arch)
    k = {x.demangled_name.split("(")[0]: x for x in report.kernels}
    assert set(k) == {"register_heavy", "register_spilling", "shared_40k", "light"}
    assert k["shared_40k"].shared_mem_static_bytes == 40 * 1024 and k["shared_40k"].barriers == 1
    assert k["register_spilling"].registers_per_thread <= 64 and k["register_spilling"].spills
    assert k["register_heavy"].registers_per_thread > 64 and not k["register_heavy"].spills
    assert k["light"].registers_per_thread <= 32 and k["light"].shared_mem_static_bytes == 0
    assert not report.warnings and not any(x.warnings for x in report.kernels)


PTXAS_WARNED = """\
ptxas warning : Value of threads per SM for entry _Z17register_spillingPKfPfi is out of range. .minnctapersm will be ignored
ptxas warning : Too big maxrregcount value specified 300, will be ignored
ptxas info    : Compiling entry function '_Z17register_spillingPKfPfi' for 'sm_86'
ptxas info    : Function properties for _Z17register_spillingPKfPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 64 registers, used 0 barriers, 372 bytes cmem[0]
ptxas info    : Compiling entry function '_Z17register_spillingPKfPfiX' for 'sm_86'
ptxas info    : Used 8 registers, used 0 barriers, 372 bytes cmem[0]
"""


def test_ptxas_warnings_go_with_the_kernel_they_cite():
    """A warning citing a kernel's mangled name (as a whole word: not the longer '..PfiX') is that kernel's; one
    citing none is the file's; both are shown, the kernel's with its name."""
    from kernelscope.ingest.ptxas import ptxas_warnings
    kernels, rest = ptxas_warnings(PTXAS_WARNED, parse_ptxas(PTXAS_WARNED))
    assert [k.warnings for k in kernels] == [
        ("Value of threads per SM for entry _Z17register_spillingPKfPfi is out of range. .minnctapersm will be "
         "ignored",), ()]
    assert rest == ("Too big maxrregcount value specified 300, will be ignored",)
    from kernelscope.render.occupancy import KernelOccupancy, SourceFile, source_renderables
    from kernelscope.analysis.occupancy import arch_limits
    src = SourceFile(path="k.cu", nvcc_arch="sm_86", compute_capability=(8, 6), limits=arch_limits((8, 6)),
                     threads_per_block=256, threads_defaulted=True, dynamic_shared_mem_bytes=0,
                     kernels=[KernelOccupancy(kernel=k, occupancy=None) for k in kernels], ptxas_warnings=rest)
    texts = [" ".join(str(getattr(r, "plain", "")).split()) for r in source_renderables(src, "en")]
    assert ("ptxas warning for _Z17register_spillingPKfPfi: Value of threads per SM for entry "
            "_Z17register_spillingPKfPfi is out of range. .minnctapersm will be ignored") in texts
    assert "ptxas warning: Too big maxrregcount value specified 300, will be ignored" in texts
    zh = [" ".join(str(getattr(r, "plain", "")).split()) for r in source_renderables(src, "zh")]
    assert any(t.startswith("ptxas 对") and ".minnctapersm" in t for t in zh)


def test_no_fewer_registers_step_for_a_kernel_that_spills():
    """64 registers at 256 threads on sm_86: 65536 / (64 x 256) = 4 blocks = 32 of 48 warps; 48 registers would
    give 5 blocks = 40 warps, but a spilling kernel would spill more: that step is not offered."""
    from kernelscope.analysis.occupancy import next_step, occupancy
    o = occupancy((8, 6), 256, 64, 0)
    assert o.active_warps_per_sm == 32
    assert [s.parameter for s in next_step(o)][:1] == ["registers_per_thread"]
    assert "registers_per_thread" not in [s.parameter for s in next_step(o, spills=True)]


# -------------------------------------------------------------------------------------------------- CLI


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_hand_computed_case(capsys):
    # see test_hand_computed_limits: 4 blocks = 32 of 64 warps, registers and shared memory tie
    code, out, err = run(capsys, "occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "48KiB")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "Active: 4 blocks/SM = 32 of 64 warps/SM, theoretical occupancy 50.0%, limited by registers + shared memory" in flat  # review 8 §4: the tables' one-decimal form
    assert "196 KiB" in out and "49 KiB" in out
    rows = {l.split("│")[1].strip(): l.split("│")[2].strip() for l in out.splitlines() if l.count("│") == 4}
    assert (rows["warp slots"], rows["registers"], rows["shared memory"], rows["block slots"]) == ("8", "4", "4", "32")
    assert "What if: threads per block" in out and "What if: registers per thread" in out


def test_cli_next_step_and_size_forms(capsys):
    code, out, _ = run(capsys, "occupancy", "--arch", "8.0", "--threads", "256", "--regs", "64")
    assert code == 0
    assert "registers/thread 64 -> 48 gives 40 warps (62.5%)" in " ".join(out.split())
    outputs = []
    for size in ("49152", "48K", "48KiB"):
        code, out, _ = run(capsys, "occupancy", "--arch", "sm_80", "--threads", "128", "--regs", "32", "--smem", "40K",
                           "--dyn-smem", size)
        assert code == 0
        outputs.append(out)
    assert outputs[0] == outputs[1] == outputs[2]
    # 88 KiB + 1 KiB = 89 KiB per block: 164 KiB holds 1 block (hand computation)
    assert "Active: 1 block/SM = 4 of 64 warps/SM" in " ".join(outputs[0].split())


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--arch", "sm_95", "--threads", "256", "--regs", "32"], "--arch"),
        (["--arch", "sm_90", "--threads", "2000", "--regs", "32"], "--threads"),
        (["--arch", "sm_90", "--threads", "256", "--regs", "300"], "--regs"),
        (["--arch", "sm_90", "--threads", "256", "--regs", "32", "--smem", "300K"], "--smem"),
        (["--arch", "sm_90", "--threads", "256", "--regs", "32", "--smem", "4.5K"], "--smem"),
        (["--arch", "sm_90", "--threads", "256", "--regs", "32", "--carveout", "50"], "--carveout"),
        (["--arch", "sm_90", "--regs", "32"], "--threads"),
    ],
)
def test_cli_bad_input_exit_2_one_line(capsys, args, flag):
    code, out, err = run(capsys, "occupancy", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("kernelscope: error: ") and flag in err


def test_cli_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["occupancy", "--threads", "256", "--regs", "32"])  # no --arch
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cli_missing_nvcc(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = run(capsys, "occupancy", "--cu", str(DEMO_CU), "--arch", "sm_90")
    assert code == 2 and out == ""
    assert err == "kernelscope: error: nvcc: not found on PATH; install the CUDA Toolkit (or add its bin/ to PATH) to use --cu\n"


@needs_nvcc
def test_cli_cu_demo(capsys):
    code, out, err = run(capsys, "occupancy", "--cu", str(DEMO_CU), "--arch", "sm_90")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "256 threads per block (default; set with --threads)" in flat
    report = compile_resource_usage(DEMO_CU, "sm_90")
    spilling = [k.demangled_name.split("(")[0] for k in report.kernels if k.spills]
    assert spilling == ["register_spilling"]
    assert "SPILLS: register_spilling spills registers" in flat
    assert out.count("SPILLS") == 2  # the table cell and the note, for that kernel only
    # shared_40k at 256 threads: 40 KiB + 1 KiB = 41 KiB; 228 KiB // 41 KiB = 5 blocks = 40 warps (62.5 %)
    row = next(l for l in out.splitlines() if l.strip().startswith("shared_40k"))
    assert row.split()[-4:] == ["5", "40", "62.5%", "smem"]
    assert next(l for l in out.splitlines() if l.strip().startswith("register_spilling")).split()[5] == "SPILLS"
    code, out, _ = run(capsys, "occupancy", "--cu", str(DEMO_CU), "--arch", "sm_90", "--threads", "128")
    assert code == 0 and "(default" not in out


_NUMBERS = r"\d+(?:\.\d+)?%?"


def test_cli_chinese_labels_same_numbers(capsys):
    """--lang zh words every table in Chinese; the numbers, in the same order, are those of the English output."""
    args = ("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "48KiB")
    code, en, err = run(capsys, *args)
    assert code == 0, err
    code, zh, err = run(capsys, *args, "--lang", "zh")
    assert code == 0, err
    active = "活跃：每 SM 4 个 Block = 32 / 64 个 Warp，理论占用率 50.0%，受限于寄存器和共享内存"  # review 8 §4: one form with the tables
    assert active.replace(" ", "") in "".join(zh.split())  # a Chinese line may wrap between two characters
    for word in ("占用率", "寄存器", "共享内存", "Block 槽位", "Warp", "假设调整", "下一步", "← 当前"):
        assert word in zh, word
    for word in ("Active", "What if", "limited by", "registers", "warps", "Next step", "now"):
        assert word not in zh, word
    rows = {l.split("│")[1].strip(): l.split("│")[2].strip() for l in zh.splitlines() if l.count("│") == 4}
    assert (rows["Warp 槽位"], rows["寄存器"], rows["共享内存"], rows["Block 槽位"]) == ("8", "4", "4", "32")
    numbers = lambda text: [n.rstrip("%") for n in re.findall(_NUMBERS, text)]  # noqa: E731 - zh "6.2%～25.0%"
    assert numbers(zh) == numbers(en)
    code, zh, _ = run(capsys, "occupancy", "--arch", "8.0", "--threads", "256", "--regs", "64", "--lang", "zh")
    assert code == 0 and "下一步：每线程寄存器数 64 → 48，可达 40 个 Warp（62.5%）" in flat_text(zh)


def test_cli_chinese_errors_still_name_the_flag(capsys):
    code, out, err = run(capsys, "occupancy", "--arch", "sm_90", "--regs", "32", "--lang", "zh")
    assert code == 2 and out == "" and err.startswith("kernelscope：错误：--threads：")  # and worded in Chinese


@needs_nvcc
def test_cli_cu_demo_chinese(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # the Chinese table is a little wider than 80 columns
    code, en, err = run(capsys, "occupancy", "--cu", str(DEMO_CU), "--arch", "sm_90")
    assert code == 0, err
    code, zh, err = run(capsys, "occupancy", "--cu", str(DEMO_CU), "--arch", "sm_90", "--lang", "zh")
    assert code == 0, err
    flat = flat_text(zh)
    assert "各 Kernel 的理论占用率（ptxas 资源用量；Block、Warp：每个 SM 上驻留的数量）" in flat and "（默认值，可用 --threads 设置）" in flat
    assert "溢出：register_spilling 将寄存器溢出到本地内存" in flat and "SPILLS" not in zh
    row = next(l for l in zh.splitlines() if l.strip().startswith("shared_40k"))
    assert row.split()[-4:] == ["5", "40", "62.5%", "共享内存"]
    assert next(l for l in zh.splitlines() if l.strip().startswith("register_spilling")).split()[5] == "是"  # review 7: 是/否, never 0 beside 溢出
    assert re.findall(_NUMBERS, zh.replace("否", "0")) == re.findall(_NUMBERS, en)  # 否: no spill, "0" in English


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_every_column_has_a_header(capsys, monkeypatch, lang):
    """Each table's header row names every column (the limiter and "<- now" column is 备注 / note, not blank)."""
    monkeypatch.setenv("COLUMNS", "160")
    code, out, _ = run(capsys, "occupancy", "--lang", lang, "--arch", "sm_90", "--threads", "256", "--regs", "64",
                       "--smem", "48KiB")
    heads = [line for line in out.splitlines() if line.startswith("┃")]
    assert code == 0 and len(heads) >= 3
    blank = [h for h in heads if any(not c.strip() for c in h.strip("┃").split("┃"))]
    assert blank == []

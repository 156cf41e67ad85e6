"""The seeds' lessons as CUDA programs (``examples/kernels``): they compile for sm_90 without warnings, and
kernelscope's own tools read them -- ``occupancy --cu`` reports every kernel with the registers ptxas gives, and
``banks`` gives the bank conflicts the transposes are written to show (lesson 000, Q2).

Running the programs needs a GPU; here they are only compiled (nvcc needs no GPU). Expected values come from
outside kernelscope: ptxas' own ``-v`` report, parsed here, and the conflict degrees the seed states
(float [32][32] 32-way, [32][33] none; half [32][33] 2-way, [32][34] none; half [32][32] 16-way).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO
from kernelscope.cli import main

KERNELS = REPO / "examples" / "kernels"
ARCH = "sm_90"
THREADS = "256"  # every kernel of the example programs runs 256 threads per block

#: Each program and the kernels it defines (the names the GPU run selects with ``ncu -k``).
PROGRAMS = {
    "sgemm.cu": ["sgemm_naive", "sgemm_smem_tiled"],
    "layernorm.cu": ["layernorm_fp16", "gelu_fp16", "residual_add_fp16", "fused_gelu_residual_layernorm_fp16"],
    "transpose.cu": ["transpose_smem_f32_32x32", "transpose_smem_f32_32x33", "transpose_smem_f16_32x32",
                     "transpose_smem_f16_32x33", "transpose_smem_f16_32x34"],
    "gemm_cp_async.cu": ["gemm_tiled_sync_copy", "gemm_tiled_cp_async_double_buffer"],
    "vector_add.cu": ["vector_add_fp32"],
}
#: The timing helper of common.cuh, compiled into every program (not one of the lessons' kernels).
HELPER = "ks::l2_flush_read"

#: Bank conflict of the column read of each transpose tile: the seed's Q2 answer (half [32][32]: 16-way).
EXPECTED_N_WAY = {
    "transpose_smem_f32_32x32": 32,
    "transpose_smem_f32_32x33": 1,
    "transpose_smem_f16_32x32": 16,
    "transpose_smem_f16_32x33": 2,
    "transpose_smem_f16_32x34": 1,
}

NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(
    NVCC is None, reason="nvcc (CUDA toolkit) is not on PATH: the example kernels cannot be compiled here")

_ENTRY = re.compile(r"Compiling entry function '(\w+)' for '(sm_\w+)'")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")


def _ptxas_kernels(output: str) -> dict[str, dict[str, int]]:
    """{mangled name: {"registers", "smem"}} from ptxas' -v lines (each "Used" line follows its entry line)."""
    kernels: dict[str, dict[str, int]] = {}
    name = None
    for line in output.splitlines():
        if m := _ENTRY.search(line):
            name = m.group(1)
        elif (m := _USED.search(line)) and name is not None:
            kernels[name] = {"registers": int(m.group(1)), "smem": int(m.group(3) or 0)}
            name = None
    return kernels


def _demangle(names: list[str]) -> dict[str, str]:
    """Mangled -> plain function name (no parameters), with c++filt; the name itself when it is not mangled."""
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if tool is None:
        pytest.skip("c++filt is not on PATH: cannot demangle the kernel names")
    out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    return {n: d.split("(")[0] for n, d in zip(names, out.stdout.splitlines())}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """Every .cu of examples/kernels compiled as build.sh does (-O3 -arch=sm_90 -lineinfo), to an object, with
    ptxas -v and the host compiler's -Wall -Wextra; two at a time.
    {"files": {file name: (exit code, output, seconds)}, "cpu_s": the compilers' CPU seconds for all}."""
    if NVCC is None:
        pytest.skip("nvcc (CUDA toolkit) is not on PATH: the example kernels cannot be compiled here")
    out = tmp_path_factory.mktemp("example_kernels")

    def compile_one(src: Path) -> tuple[str, tuple[int, str, float]]:
        cmd = [NVCC, "-c", "-O3", f"-arch={ARCH}", "-lineinfo", "-Xptxas", "-v", "-Xcompiler", "-Wall,-Wextra",
               "-o", str(out / (src.stem + ".o")), str(src)]
        t0 = time.perf_counter()
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        return src.name, (run.returncode, run.stdout + run.stderr, time.perf_counter() - t0)

    import resource

    def cpu_s() -> float:  # the compilers' CPU time: on a loaded machine the wall time grows, this does not
        use = resource.getrusage(resource.RUSAGE_CHILDREN)
        return use.ru_utime + use.ru_stime

    t0 = cpu_s()
    with ThreadPoolExecutor(max_workers=2) as pool:
        files = dict(pool.map(compile_one, sorted(KERNELS.glob("*.cu"))))
    return {"files": files, "cpu_s": cpu_s() - t0}


@needs_nvcc
def test_every_example_compiles_for_sm90_without_warnings(compiled):
    files = compiled["files"]
    assert set(PROGRAMS) <= set(files), "an example program is missing"
    for name, (code, output, _seconds) in files.items():
        assert code == 0, f"{name} failed to compile:\n{output}"
        warnings = [l for l in output.splitlines() if "warning" in l.lower()]
        assert not warnings, f"{name}: {warnings}"
        assert _ptxas_kernels(output), f"{name}: ptxas compiled no kernel"
    assert compiled["cpu_s"] < 120, f"compiling the examples took {compiled['cpu_s']:.0f} s of CPU time"


@needs_nvcc
def test_kernel_names_are_the_documented_ones_and_distinct(compiled):
    per_file = {}
    for name in PROGRAMS:
        kernels = _ptxas_kernels(compiled["files"][name][1])
        plain = _demangle(list(kernels))
        per_file[name] = sorted(plain[k] for k in kernels)
        assert per_file[name] == sorted(PROGRAMS[name] + [HELPER]), name
    names = [k for ks in PROGRAMS.values() for k in ks]
    assert len(names) == len(set(names)), "two example kernels share a name: ncu -k could not tell them apart"
    readme = (KERNELS / "README.md").read_text(encoding="utf-8")
    for k in names:
        assert f"`{k}`" in readme, f"{k} is not described in examples/kernels/README.md"


@needs_nvcc
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_occupancy_reads_every_kernel(program, compiled, capsys):
    code = main(["occupancy", "--cu", str(KERNELS / program), "--arch", ARCH, "--threads", THREADS,
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    kernels = {k["demangled_name"].split("(")[0]: k for k in doc["source"]["kernels"]}
    assert set(PROGRAMS[program]) <= set(kernels)
    for name in PROGRAMS[program]:
        k = kernels[name]
        assert k["registers_per_thread"] > 0 and not k["spills"], name
        o = k["occupancy"]
        assert o is not None and o["threads_per_block"] == 256 and 0 < o["occupancy_pct"] <= 100, name
        assert o["active_warps_per_sm"] * 100 / o["max_warps_per_sm"] == pytest.approx(o["occupancy_pct"])
    # The same resources as ptxas' -v output of the build (-O3 -lineinfo -c) parsed here, kernel by kernel.
    ptxas = _ptxas_kernels(compiled["files"][program][1])
    for k in doc["source"]["kernels"]:
        assert k["name"] in ptxas, k["name"]
        assert (k["registers_per_thread"], k["shared_mem_static_bytes"]) == (
            ptxas[k["name"]]["registers"], ptxas[k["name"]]["smem"]), k["demangled_name"]


@needs_nvcc
def test_occupancy_of_the_tiled_sgemm_by_hand(compiled, capsys):
    """sgemm_smem_tiled: registers from ptxas -v (parsed here), 8 KiB of tiles; occupancy worked out by hand."""
    ptxas = _ptxas_kernels(compiled["files"]["sgemm.cu"][1])
    mangled = next(n for n, d in _demangle(list(ptxas)).items() if d == "sgemm_smem_tiled")
    regs, smem = ptxas[mangled]["registers"], ptxas[mangled]["smem"]
    assert smem == 2 * 32 * 32 * 4
    code = main(["occupancy", "--cu", str(KERNELS / "sgemm.cu"), "--arch", ARCH, "--threads", THREADS,
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    k = next(k for k in json.loads(out)["source"]["kernels"] if k["name"] == mangled)
    # sm_90: 65536 registers per SM, allocated per warp in units of 256; 64 warps, 32 blocks per SM at most;
    # shared memory is not the limit here (8 KiB + 1 KiB reserved per block against up to 228 KiB).
    per_warp = -(-regs * 32 // 256) * 256
    blocks = min(65536 // (per_warp * 8), 64 // 8, 32)
    assert k["registers_per_thread"] == regs
    assert k["occupancy"]["active_blocks_per_sm"] == blocks
    assert k["occupancy"]["occupancy_pct"] == pytest.approx(blocks * 8 * 100 / 64)


def _transpose_tiles() -> dict[str, tuple[str, int, int]]:
    """{kernel: (dtype for banks, rows, cols)} from the __shared__ declarations of transpose.cu."""
    src = (KERNELS / "transpose.cu").read_text(encoding="utf-8")
    found = re.findall(r"__global__[^{]*?\b(transpose_\w+)\([^)]*\)\s*\{\s*__shared__\s+(float|__half)\s+tile"
                       r"\[(\d+)\]\[(\d+)\];", src)
    return {name: ({"float": "float", "__half": "half"}[t], int(r), int(c)) for name, t, r, c in found}


def test_transpose_tiles_are_read_down_a_column():
    tiles = _transpose_tiles()
    assert set(tiles) == set(EXPECTED_N_WAY)
    assert {k: (t, r, c) for k, (t, r, c) in tiles.items()} == {
        "transpose_smem_f32_32x32": ("float", 32, 32), "transpose_smem_f32_32x33": ("float", 32, 33),
        "transpose_smem_f16_32x32": ("half", 32, 32), "transpose_smem_f16_32x33": ("half", 32, 33),
        "transpose_smem_f16_32x34": ("half", 32, 34)}
    src = (KERNELS / "transpose.cu").read_text(encoding="utf-8")
    # banks' "column" access is thread t reading tile[t][c]: the kernels' read, with t = threadIdx.x.
    assert "tile[threadIdx.x][threadIdx.y + j]" in src
    assert "tile[threadIdx.y + j][threadIdx.x]" in src  # the write goes along a row


@pytest.mark.parametrize("kernel", list(EXPECTED_N_WAY))
def test_banks_agrees_with_the_transposes(kernel, capsys):
    dtype, rows, cols = _transpose_tiles()[kernel]
    code = main(["banks", "--dtype", dtype, "--tile", f"{rows}x{cols}", "--access", "column", "--arch", ARCH,
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    declared = doc["declared"]
    assert declared["n_way"] == EXPECTED_N_WAY[kernel]
    assert declared["conflict_free"] == (EXPECTED_N_WAY[kernel] == 1)
    assert declared["wavefronts"] == EXPECTED_N_WAY[kernel]
    if EXPECTED_N_WAY[kernel] > 1:  # the padding banks suggests is the padded kernel of the same type
        padded = {"float": 33, "half": 34}[dtype]
        assert doc["padded"]["row_elements"] == padded and doc["padded"]["conflict_free"]


def test_build_script_is_ready():
    script = KERNELS / "build.sh"
    assert os.access(script, os.X_OK), "examples/kernels/build.sh is not executable"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    text = script.read_text(encoding="utf-8")
    assert "-O3" in text and "-lineinfo" in text and "sm_90" in text
    assert "/examples/kernels/build/" in (REPO / ".gitignore").read_text(encoding="utf-8")

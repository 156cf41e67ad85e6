"""occupancy --cu reads each kernel's __launch_bounds__ (native review 13, item 5): a block larger than its maximum
threads per block cannot launch (one line says so, no occupancy figure), no next step proposes such a block, and a
launch short of its minimum blocks per SM says so; en and zh."""

from __future__ import annotations

import json
import shutil

import pytest

from kernelscope.cli import main
from kernelscope.ingest.ptxas import parse_ptx_bounds

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA toolkit) is not on PATH")

SOURCE = """
__global__ void __launch_bounds__(128, 8) tile(float *a) {
    __shared__ float s[8192];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[threadIdx.x ^ 1];
}
__global__ void free_k(float *a) { a[threadIdx.x] += 1.f; }
"""


def test_ptx_directives_give_the_bounds():
    ptx = (".visible .entry _Z4tilePf(\n\t.param .u64 _Z4tilePf_param_0\n)\n.maxntid 16, 8, 1\n.minnctapersm 4\n{\n}\n"
           ".visible .entry _Z1fv()\n{\n}\n")
    assert parse_ptx_bounds(ptx) == {"_Z4tilePf": (128, 4)}


def _run(capsys, cu, *args):
    code = main(["occupancy", "--cu", str(cu), "--arch", "sm_80", *args])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


@needs_nvcc
@pytest.mark.parametrize("threads", [None, "512"])
def test_a_block_over_launch_bounds_cannot_launch(tmp_path, capsys, monkeypatch, threads):
    monkeypatch.setenv("COLUMNS", "400")
    cu = tmp_path / "lb.cu"
    cu.write_text(SOURCE)
    extra = () if threads is None else ("--threads", threads)
    n = threads or "256"
    for lang, words in (("en", ("cannot launch", f"{n} threads per block exceed", "__launch_bounds__ maximum of 128")),
                        ("zh", ("无法启动", f"每个 Block {n} 个线程", "__launch_bounds__ 上限 128"))):
        out = _run(capsys, cu, "--lang", lang, *extra)
        row = next(line for line in out.splitlines() if line.startswith("tile "))
        assert all(w in row for w in words), row
        assert "%" not in row, row  # no occupancy figure for a launch that cannot run
        free = next(line for line in out.splitlines() if line.startswith("free_k "))
        assert "100.0%" in free
    doc = json.loads(_run(capsys, cu, "--format", "json", *extra))
    kernels = {k["demangled_name"].split("(")[0]: k for k in doc["source"]["kernels"]}
    assert kernels["tile"]["occupancy"] is None and "__launch_bounds__" in kernels["tile"]["error"]
    assert kernels["free_k"]["occupancy"] is not None


@needs_nvcc
def test_min_blocks_per_sm_unmet_is_said_and_no_step_exceeds_the_bound(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    cu = tmp_path / "lb.cu"
    cu.write_text(SOURCE)
    out = _run(capsys, cu, "--threads", "128")
    assert "its __launch_bounds__ asks for at least 8 blocks per SM; this launch gets 4" in out
    assert "threads/block 128 ->" not in out  # the only larger block size is refused by __launch_bounds__(128)
    zh = _run(capsys, cu, "--threads", "128", "--lang", "zh")
    assert "要求每个 SM 至少驻留 8 个 Block，本次启动只有 4 个" in zh

"""Rooflines whose ceilings are incomplete: a GPU spec without the DRAM bandwidth or without the peak of the pipe a
kernel uses, and a GPU the catalogue lacks, through every command that computes or draws a roofline (``diagnose``
table / JSON / HTML, ``roofline`` chart / JSON / table / ``--levels``, ``compare``) and through the Python API.

Each command either works without the missing ceiling, saying so ("no GPU ceilings", "no <pipe> peak for <GPU>"), or
stops with one line and exit code 2; never a traceback.
"""

from __future__ import annotations

import json
import math

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.api import diagnose_file
from kernelscope.cli import main
from kernelscope.errors import InputError, UnknownGpuError
from kernelscope.knowledge.gpus import entry_from
from kernelscope.model import GpuSpec
from kernelscope.render import charts, render

#: An FP32 GEMM on an RTX 4060 Laptop GPU (launch 1: naive_matmul, with every memory level measured).
GEMM = CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"

#: Plain numbers of one FP32 kernel (4 GFLOP, 40 MB in 1 ms) and one without FP work, on the GPU named ``{device}``.
PLAIN = """
[[kernel]]
name = "fp32_kernel"
device = "{device}"
duration_us = 1000.0
flops = 4.0e9
dram_bytes = 4.0e7
sol_compute_pct = 40.0
sol_memory_pct = 20.0
[[kernel]]
name = "copy_kernel"
device = "{device}"
duration_us = 100.0
flops = 0
dram_bytes = 4.0e7
"""

UNKNOWN = "NVIDIA Imaginary GPU 9000"


def _plain(tmp_path, device: str):
    path = tmp_path / "kernels.toml"
    path.write_text(PLAIN.format(device=device))
    return path


def _spec(tmp_path, text: str):
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main([*args, "-q"] if args[0] != "compare" else list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ------------------------------------------------------------------------------ a spec without the DRAM bandwidth


@pytest.mark.parametrize("bandwidth", [None, math.nan, math.inf, 0.0, -1e12, "fast", True])
def test_a_gpu_spec_without_a_usable_bandwidth_is_one_line(bandwidth):
    # Before: GpuSpec took it, and the roofline failed later (TypeError in the plausibility screen, ValueError in the
    # chart's ridge points, ValueError in diagnose for NaN).
    with pytest.raises(InputError) as info:
        GpuSpec(name="my GPU", dram_bandwidth_bytes_per_s=bandwidth, peak_flops_per_s={"fp32": 19.5e12})
    text = str(info.value)
    assert text.startswith("gpu spec my GPU: field 'dram_bandwidth_bytes_per_s'") and "\n" not in text


@pytest.mark.parametrize("peak", [math.nan, 0.0, -5.0, None])
def test_a_gpu_spec_with_an_unusable_peak_is_one_line(peak):
    with pytest.raises(InputError) as info:
        GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 19.5e12, "fp64": peak})
    assert "field 'peak_flops_per_s.fp64'" in str(info.value) and "\n" not in str(info.value)


def test_a_catalogue_entry_or_spec_file_cannot_lack_the_bandwidth(tmp_path, capsys):
    entry = {"name": "copied", "architecture": "Ada Lovelace", "sm_count": 24, "source": "test",
             "peak_tflops": {"fp32": 14.56}}
    with pytest.raises(InputError, match="field 'dram_bandwidth_bytes_per_s': missing"):
        entry_from(entry, "kernelscope/data/gpus.toml: gpu 'copied'")
    spec = _spec(tmp_path, "[[gpu]]\nname = 'copied'\nsource = 'test'\n[gpu.peak_tflops]\nfp32 = 14.56\n")
    for args in (["diagnose"], ["roofline", "-o", str(tmp_path / "r.svg")], ["roofline", "--format", "json"]):
        code, out, err = _run(capsys, *args, "--spec", str(spec), str(_plain(tmp_path, UNKNOWN)))
        assert code == 2 and err.count("\n") == 1 and "dram_bandwidth_bytes_per_s" in err and not out
    assert not (tmp_path / "r.svg").exists()


def test_a_spec_without_peaks_draws_the_bandwidth_alone():
    gpu = GpuSpec(name="bandwidth only", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={})
    rd = diagnose_file(need(GEMM), gpu=gpu)
    assert all(d.roofline is None for d in rd.kernels)
    assert "no FP32 CUDA cores peak for bandwidth only" in render([rd], "table", "en")
    assert charts.report_roofline_chart(rd, "en", "svg").startswith(b"<?xml")


# ------------------------------------------------------------------------------ a spec without the kernel's pipe


FP64_ONLY = "name = 'fp64 only'\ndram_bandwidth_gb_s = 1500\n[peak_tflops]\nfp64 = 9.7\n"


def test_every_roofline_command_without_the_kernels_pipe(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the words, not the layout: no table cut to 80 columns
    plain = str(_plain(tmp_path, UNKNOWN))
    spec = str(_spec(tmp_path, FP64_ONLY))
    missing = "no FP32 CUDA cores peak for fp64 only"
    code, out, _ = _run(capsys, "diagnose", "--spec", spec, plain)
    assert code == 0 and missing in " ".join(out.split())
    code, out, _ = _run(capsys, "diagnose", "--format", "json", "--spec", spec, plain)
    launch = json.loads(out)["inputs"][0]["launches"][0]
    assert code == 0 and launch["roofline"] is None
    code, _, _ = _run(capsys, "diagnose", "--format", "html", "-o", str(tmp_path / "d.html"), "--spec", spec, plain)
    assert code == 0 and (tmp_path / "d.html").stat().st_size > 0
    code, _, _ = _run(capsys, "roofline", "-o", str(tmp_path / "r.svg"), "--spec", spec, plain)
    assert code == 0 and b"<svg" in (tmp_path / "r.svg").read_bytes()
    code, out, _ = _run(capsys, "roofline", "--format", "json", "--spec", spec, plain)
    doc = json.loads(out)
    assert code == 0 and [r["pipes"] for r in doc["compute_roofs"]] == [["fp64"]]
    assert doc["launches"][0]["points"] == [] and missing in doc["launches"][0]["not_plotted"]
    code, out, _ = _run(capsys, "roofline", "--format", "table", "--spec", spec, plain)
    assert code == 0 and missing in " ".join(out.split())
    code, out, _ = _run(capsys, "compare", plain, plain, "--spec", spec, "--format", "json")
    assert code == 0 and json.loads(out)


def test_levels_without_the_kernels_pipe_names_it(tmp_path, capsys):
    # Before: "no hierarchical roofline: no roofline for this launch", which does not say why.
    spec = str(_spec(tmp_path, FP64_ONLY))
    out = tmp_path / "levels.svg"
    code, _, err = _run(capsys, "roofline", str(need(GEMM)), "--levels", "--launch", "1", "-o", str(out), "--spec", spec)
    assert code == 2 and err.count("\n") == 1 and not out.exists()
    assert "launch 1 (naive_matmul): no hierarchical roofline: no FP32 CUDA cores peak for fp64 only" in err
    code, _, err = _run(capsys, "roofline", str(GEMM), "--levels", "--launch", "1", "--format", "json", "--spec", spec)
    assert code == 2 and "no FP32 CUDA cores peak for fp64 only" in err


# ------------------------------------------------------------------------------ a GPU the catalogue lacks


def test_every_roofline_command_on_a_gpu_the_catalogue_lacks(tmp_path, capsys):
    plain = str(_plain(tmp_path, UNKNOWN))
    code, out, _ = _run(capsys, "diagnose", "--format", "json", plain)
    fp32, copy = json.loads(out)["inputs"][0]["launches"]
    assert code == 0 and fp32["gpu"] is None
    assert fp32["roofline"]["arithmetic_intensity_flop_per_byte"] == pytest.approx(4.0e9 / 4.0e7)
    assert fp32["roofline"]["attainable_flops_per_s"] is None and fp32["roofline"]["ridge_point_flop_per_byte"] is None
    assert copy["roofline"]["attainable_flops_per_s"] is None
    code, out, _ = _run(capsys, "roofline", "--format", "json", plain)
    doc = json.loads(out)
    assert code == 0 and doc["gpu"] is None and doc["compute_roofs"] == [] and doc["memory_roofs"] == []
    fp32, copy = doc["launches"]  # the point without a roof over it; the copy has no FP work to place
    assert fp32["not_plotted"] is None and len(fp32["points"]) == 1
    assert fp32["points"][0]["arithmetic_intensity_flop_per_byte"] == pytest.approx(100.0)
    assert copy["points"] == [] and copy["not_plotted"] == "no floating-point instructions executed"
    code, _, _ = _run(capsys, "roofline", "-o", str(tmp_path / "r.svg"), plain)
    assert code == 0 and "no GPU ceilings" in (tmp_path / "r.svg").read_text()
    code, out, _ = _run(capsys, "compare", plain, plain, "--format", "json")
    assert code == 0 and json.loads(out)
    code, _, err = _run(capsys, "roofline", "--format", "json", "--gpu", UNKNOWN, plain)
    assert code == 2 and err.count("\n") == 1 and "is not in kernelscope's catalogue" in err


def test_levels_on_a_gpu_the_catalogue_lacks_draws_the_report_s_own_ceilings(tmp_path, capsys, monkeypatch):
    """The hierarchical roofline's bandwidths are measured in the report: without the GPU in the catalogue it is
    drawn with them and without a compute ceiling."""
    import kernelscope.analysis.diagnosis as diagnosis

    def unknown(name):
        raise UnknownGpuError(name, [])

    monkeypatch.setattr(diagnosis, "find_gpu", unknown)
    monkeypatch.setattr(diagnosis, "derived_spec", lambda device: None)  # (nor ceilings derived from the report)
    code, out, _ = _run(capsys, "roofline", str(need(GEMM)), "--levels", "--launch", "1", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["gpu"] is None and doc["compute_roofs"] == []
    assert {r["level"] for r in doc["memory_roofs"]} == {"l1", "l2", "dram"}
    assert {r["source"] for r in doc["memory_roofs"]} == {"report"}
    svg = tmp_path / "levels.svg"
    code, _, _ = _run(capsys, "roofline", str(GEMM), "--levels", "--launch", "1", "-o", str(svg))
    assert code == 0 and b"<svg" in svg.read_bytes()
    code, out, _ = _run(capsys, "diagnose", "--format", "json", str(GEMM))
    assert code == 0 and all(x["gpu"] is None for x in json.loads(out)["inputs"][0]["launches"])

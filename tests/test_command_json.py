"""Every command speaks JSON: ``occupancy``, ``gpus``, ``roofline`` and ``banks`` with ``--format json`` write a
document that validates against its schema in ``schemas/``, holds the numbers the table shows (and hand-computed
ones), never an Infinity or NaN, and ``-o`` writes the same document atomically (an input is never overwritten).

Hand computations:

* occupancy, sm_90, 256 threads, 32 registers/thread: 8 warps per block; warp slots 64 // 8 = 8 blocks; registers
  32 x 32 = 1024 per warp, 65536 / 4 sub-partitions / 1024 = 16 warps per sub-partition x 4 = 64 warps = 8 blocks:
  8 blocks = 64 of 64 warps, 100 %, limited by warp slots + registers (as test_occupancy's tables give).
* occupancy, sm_90, 256 threads, 64 registers, 48 KiB: registers 4 blocks, shared memory (48 + 1 KiB) -> 4 in
  196 KiB: 4 blocks = 32 warps, 50 %; sm_80, 256 threads, 64 registers: next step 64 -> 48 registers, 40 warps, 62.5 %.
* roofline (plain numbers, A100-SXM4-40GB: FP32 19.5 TFLOP/s, DRAM 1555 GB/s): triad 2e7 FLOP / 1.2e8 B in 100 us
  -> 1/6 FLOP/B, 200 GFLOP/s, attainable 1/6 x 1555e9 = 259.2 GFLOP/s (77.2 %); gemm 2e10 FLOP / 1e9 B in 2 ms ->
  20 FLOP/B, 10 TFLOP/s, attainable 19.5 TFLOP/s (51.3 %); FP32 ridge 19.5e12 / 1555e9 = 12.54 FLOP/B; no_dram moves
  no DRAM bytes: infinite intensity, not plotted, null (never Infinity) in JSON.
* banks float 32x32 column access: 32-way, 32 wavefronts against 1, one element of padding removes it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.cli import main
from kernelscope.knowledge.gpus import catalogue, find_gpu
from kernelscope.render.documents import schema_text
from kernelscope.render.numbers import peak_figure

REPO = Path(__file__).resolve().parents[1]
DEMO_CU = REPO / "examples" / "kernels" / "occupancy_demo.cu"
NAIVE = CORPUS_NCU / "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"
SILU = CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"

ROOFLINE_TOML = """
[[kernel]]
name = "triad"
device = "NVIDIA A100-SXM4-40GB"
duration_us = 100.0
flops = 20000000
pipe = "fp32"
dram_bytes = 120000000

[[kernel]]
name = "gemm"
device = "NVIDIA A100-SXM4-40GB"
duration_us = 2000.0
flops = 20000000000
pipe = "fp32"
dram_bytes = 1000000000

[[kernel]]
name = "no_dram"
device = "NVIDIA A100-SXM4-40GB"
duration_us = 10.0
flops = 100000000
pipe = "fp32"
dram_bytes = 0
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _reject(constant: str):
    raise AssertionError(f"non-finite number in JSON: {constant}")


def load_json(text: str) -> dict:
    """The document, refusing Infinity / NaN (JSON has none: a value not measured is null)."""
    return json.loads(text, parse_constant=_reject)


def validate(doc: dict, schema_file: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / schema_file).read_text(encoding="utf-8"))
    assert schema == json.loads(schema_text(schema_file))  # the checked-in file is the generated one
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def json_of(capsys, schema_file: str, *args: str) -> dict:
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    doc = load_json(out)
    validate(doc, schema_file)
    return doc


@pytest.fixture
def roofline_report(tmp_path) -> Path:
    path = tmp_path / "r.toml"
    path.write_text(ROOFLINE_TOML, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------ occupancy


def test_occupancy_json_of_a_full_occupancy_launch(capsys):
    doc = json_of(capsys, "occupancy-1.schema.json", "occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "32")
    assert (doc["schema"], doc["lang"], doc["compute_capability"], doc["architecture"]) == (
        "kernelscope.occupancy/1", "en", [9, 0], "Hopper")
    assert doc["source"] is None and doc["limits"]["max_warps_per_sm"] == 64
    o = doc["launch"]["occupancy"]
    assert (o["active_blocks_per_sm"], o["active_warps_per_sm"], o["max_warps_per_sm"]) == (8, 64, 64)
    assert o["occupancy_pct"] == 100.0 and o["limiters"] == ["warps", "registers"] and o["can_launch"]
    assert o["registers_per_block_allocated"] == 256 * 32
    limits = {b["resource"]: (b["blocks_per_sm"], b["limiter"]) for b in o["block_limits"]}
    assert limits["warps"] == (8, True) and limits["registers"] == (8, True) and limits["blocks"] == (32, False)
    assert doc["launch"]["next_steps"] == []  # nothing raises 100 %
    threads = next(w for w in doc["launch"]["what_if"] if w["parameter"] == "threads_per_block")
    assert [r["value"] for r in threads["rows"]] == list(range(32, 1025, 32))
    at_256 = next(r for r in threads["rows"] if r["value"] == 256)
    assert (at_256["active_warps_per_sm"], at_256["occupancy_pct"]) == (64, 100.0)
    assert {w["parameter"] for w in doc["launch"]["what_if"]} == {
        "threads_per_block", "registers_per_thread", "shared_mem_per_block_bytes"}


def test_occupancy_json_holds_the_numbers_of_the_table(capsys):
    args = ("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "48KiB")
    code, table, err = run(capsys, *args)
    assert code == 0, err
    doc = json_of(capsys, "occupancy-1.schema.json", *args)
    o = doc["launch"]["occupancy"]
    flat = " ".join(table.split())
    assert o["summary"] in flat  # the "Active: ..." line, word for word
    m = re.search(r"Active: (\d+) blocks/SM = (\d+) of (\d+) warps/SM, theoretical occupancy ([\d.]+)%", flat)
    assert m is not None
    assert (o["active_blocks_per_sm"], o["active_warps_per_sm"], o["max_warps_per_sm"]) == tuple(map(int, m.groups()[:3]))
    assert o["occupancy_pct"] == pytest.approx(float(m.group(4))) == 50.0
    rows = {l.split("│")[1].strip(): l.split("│")[2].strip() for l in table.splitlines() if l.count("│") == 4}
    limits = {b["resource"]: b["blocks_per_sm"] for b in o["block_limits"]}
    assert (rows["warp slots"], rows["registers"], rows["shared memory"], rows["block slots"]) == tuple(
        str(limits[k]) for k in ("warps", "registers", "shared_mem", "blocks"))
    assert o["limiters"] == ["registers", "shared_mem"]
    assert (o["shared_mem_per_block_bytes"], o["shared_mem_per_block_allocated_bytes"]) == (48 * 1024, 49 * 1024)
    assert o["shared_mem_config_bytes"] == 196 * 1024 and o["shared_mem_config_requested_bytes"] is None


def test_occupancy_json_next_step(capsys):
    doc = json_of(capsys, "occupancy-1.schema.json", "occupancy", "--arch", "8.0", "--threads", "256", "--regs", "64")
    step = doc["launch"]["next_steps"][0]
    assert (step["parameter"], step["current"], step["proposed"]) == ("registers_per_thread", 64, 48)
    assert (step["result"]["active_warps_per_sm"], step["result"]["occupancy_pct"]) == (40, 62.5)
    assert step["text"] == "registers/thread 64 -> 48 gives 40 warps (62.5%)"


def test_occupancy_chinese(capsys):
    """--lang zh: the tables in Chinese (labels.toml), the JSON's text too, its numbers those of the English one."""
    args = ("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "32")
    code, zh, err = run(capsys, *args, "--lang", "zh")
    assert code == 0, err
    for word in ("启动配置", "每 Block 线程数", "每线程寄存器数", "理论占用率 100.0%", "受限于", "限制因素", "假设调整"):
        assert word in zh, word
    assert "Active" not in zh and "threads/block" not in zh
    en_doc = json_of(capsys, "occupancy-1.schema.json", *args)
    zh_doc = json_of(capsys, "occupancy-1.schema.json", *args, "--lang", "zh")
    assert zh_doc["lang"] == "zh" and "理论占用率" in zh_doc["launch"]["occupancy"]["summary"]
    strip = lambda d: {k: v for k, v in d.items() if k != "summary"}  # noqa: E731
    assert strip(zh_doc["launch"]["occupancy"]) == strip(en_doc["launch"]["occupancy"])
    assert zh_doc["launch"]["what_if"] == en_doc["launch"]["what_if"]
    code, md, err = run(capsys, *args, "--lang", "zh", "--format", "markdown")
    assert code == 0, err
    assert "**启动配置（Hopper，计算能力 9.0）**" in md and "| Warp 槽位 | 8 | 限制因素 |" in md


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA toolkit) is not on PATH")
def test_occupancy_json_of_a_cu_file(capsys):
    doc = json_of(capsys, "occupancy-1.schema.json", "occupancy", "--cu", str(DEMO_CU), "--arch", "sm_90")
    assert doc["launch"] is None
    src = doc["source"]
    assert (src["nvcc_arch"], src["threads_per_block"], src["threads_defaulted"]) == ("sm_90", 256, True)
    k = {x["demangled_name"].split("(")[0]: x for x in src["kernels"]}
    assert set(k) == {"register_heavy", "register_spilling", "shared_40k", "light"}
    # shared_40k at 256 threads: 40 KiB + 1 KiB = 41 KiB; 228 KiB // 41 KiB = 5 blocks = 40 warps (62.5 %)
    o = k["shared_40k"]["occupancy"]
    assert (o["active_blocks_per_sm"], o["active_warps_per_sm"], o["occupancy_pct"], o["limiters"]) == (
        5, 40, 62.5, ["shared_mem"])
    assert k["shared_40k"]["shared_mem_static_bytes"] == 40 * 1024 and k["shared_40k"]["barriers"] == 1
    assert [name for name, x in k.items() if x["spills"]] == ["register_spilling"]


# ------------------------------------------------------------------------------------------ gpus


def test_gpus_json_is_the_catalogue_of_the_table(capsys):
    doc = json_of(capsys, "gpus-1.schema.json", "gpus")
    assert (doc["schema"], doc["lang"]) == ("kernelscope.gpus/1", "en")
    assert [g["name"] for g in doc["gpus"]] == [g.name for g in catalogue()]
    code, table, _ = run(capsys, "gpus")
    assert code == 0
    t4 = next(g for g in doc["gpus"] if g["name"] == "Tesla T4")
    row = next(line for line in table.splitlines() if line.startswith("Tesla T4")).split()
    assert row[-6] == peak_figure(t4["dram_bandwidth_bytes_per_s"] / 1e9)  # DRAM GB/s
    assert row[-4] == peak_figure(t4["peak_flops_per_s"]["fp32"] / 1e12)  # FP32 TF
    assert t4["compute_capability"] == [7, 5] and row[-8] == "7.5"
    assert t4["peak_flops_per_s"]["fp32"] == find_gpu("Tesla T4").peak_flops_per_s["fp32"]
    assert all(key in t4["sources"] for key in ("dram_bandwidth_bytes_per_s", "peak_flops_per_s.fp32"))
    code, md, _ = run(capsys, "gpus", "--format", "markdown", "--lang", "zh")
    assert code == 0 and "| 名称 | 架构 |" in md and "| Tesla T4 | Turing | 7.5 |" in md


# ------------------------------------------------------------------------------------------ roofline


def test_roofline_json_by_hand(capsys, roofline_report):
    doc = json_of(capsys, "roofline-1.schema.json", "roofline", str(roofline_report), "-q")
    gpu = find_gpu("NVIDIA A100-SXM4-40GB")
    bw, fp32 = gpu.dram_bandwidth_bytes_per_s, gpu.peak_flops_per_s["fp32"]
    assert (doc["schema"], doc["chart"], doc["gpu"]) == ("kernelscope.roofline/1", "report", gpu.name)
    assert doc["memory_roofs"] == [{"level": "dram", "peak_bytes_per_s": bw, "source": "gpu_spec"}]
    peaks = [r["peak_flops_per_s"] for r in doc["compute_roofs"]]
    assert peaks == sorted(set(gpu.peak_flops_per_s.values()), reverse=True)
    fp32_roof = next(r for r in doc["compute_roofs"] if "fp32" in r["pipes"])
    assert fp32_roof["used"] and fp32_roof["peak_flops_per_s"] == fp32
    ridge = next(r for r in doc["ridge_points"] if "fp32" in r["pipes"])
    assert ridge["arithmetic_intensity_flop_per_byte"] == pytest.approx(fp32 / bw) == pytest.approx(12.54, abs=0.01)
    triad, gemm, no_dram = doc["launches"]
    (p,) = triad["points"]
    assert p["arithmetic_intensity_flop_per_byte"] == pytest.approx(1 / 6)
    assert p["achieved_flops_per_s"] == pytest.approx(2e11)
    assert p["attainable_flops_per_s"] == pytest.approx(bw / 6) and p["efficiency_pct"] == pytest.approx(2e11 / (bw / 6) * 100)
    assert triad["bound"] == "memory-bound" and gemm["bound"] == "compute-bound"
    (p,) = gemm["points"]
    assert (p["arithmetic_intensity_flop_per_byte"], p["achieved_flops_per_s"]) == (pytest.approx(20.0), pytest.approx(1e13))
    assert p["efficiency_pct"] == pytest.approx(1e13 / fp32 * 100)
    assert gemm["gpu_time_share_pct"] == pytest.approx(2000 / 2110 * 100)
    assert no_dram["points"] == [] and "infinite" in no_dram["not_plotted"]
    assert all(lv["levels"] == [] for lv in doc["launches"])


def test_roofline_json_points_are_those_the_chart_draws(capsys, roofline_report, tmp_path):
    doc = json_of(capsys, "roofline-1.schema.json", "roofline", str(roofline_report), "-q")
    svg = tmp_path / "r.svg"
    code, _, err = run(capsys, "roofline", str(roofline_report), "-o", str(svg), "-q")
    assert code == 0, err
    drawn = set(re.findall(r'id="[^"]*-ks-kernel-(\d+)"', svg.read_text(encoding="utf-8")))
    assert drawn == {str(lv["index"]) for lv in doc["launches"] if lv["points"]} == {"0", "1"}
    one = json_of(capsys, "roofline-1.schema.json", "roofline", str(roofline_report), "--launch", "1", "-q")
    assert one["chart"] == "launch" and [lv["index"] for lv in one["launches"]] == [1]


def test_roofline_table_holds_the_json_numbers(capsys, roofline_report):
    doc = json_of(capsys, "roofline-1.schema.json", "roofline", str(roofline_report), "-q")
    code, table, err = run(capsys, "roofline", str(roofline_report), "--format", "table", "-q")
    assert code == 0, err
    for launch in doc["launches"]:
        # (a table too wide for the terminal prints as parts, each led by the launch: its rows, joined)
        row = " ".join(line for line in table.splitlines() if line.lstrip().startswith(f"[{launch['index']}] "))
        for p in launch["points"]:
            assert f"{p['arithmetic_intensity_flop_per_byte']:.3g}" in row.split()
            assert f"({p['efficiency_pct']:.1f}%)" in row
        assert f"{launch['gpu_time_share_pct']:.1f}%" in row
    assert "12.5 FLOP/B (DRAM)" in table  # the FP32 ridge point
    code, md, err = run(capsys, "roofline", str(roofline_report), "--format", "markdown", "-q", "--lang", "zh")
    assert code == 0, err
    assert "**上限**" in md and "| [1] gemm | FP32 CUDA 核心 | 20 | 10.0 TFLOP/s（51.3%） |" in md


def test_roofline_levels_json(capsys):
    report = need(NAIVE)
    doc = json_of(capsys, "roofline-1.schema.json", "roofline", str(report), "--levels", "--launch", "1", "-q")
    assert doc["chart"] == "levels" and [lv["index"] for lv in doc["launches"]] == [1]
    launch = doc["launches"][0]
    levels = {lv["level"]: lv for lv in launch["levels"]}
    # naive_gemm: the L1 nearest its ceiling (41.5 %), below latency_sol_pct like its FP32 (10.4 %): no roof binds
    assert set(levels) == {"l1", "l2", "dram"} and not any(lv["limiting"] for lv in launch["levels"])
    assert max(launch["levels"], key=lambda lv: lv["bandwidth_pct"] or -1)["level"] == "l1"
    silu = json_of(capsys, "roofline-1.schema.json", "roofline", str(need(SILU)), "--levels", "--launch", "0", "-q")
    assert [lv["level"] for lv in silu["launches"][0]["levels"] if lv["limiting"]] == ["dram"]  # (77 % of its ceiling)
    (compute,) = doc["compute_roofs"]
    (point,) = launch["points"]
    assert compute["pipes"] == [point["pipe"]] and compute["peak_flops_per_s"] == point["peak_flops_per_s"]
    assert {m["level"] for m in doc["memory_roofs"]} == set(levels) and {m["source"] for m in doc["memory_roofs"]} == {"report"}
    for m in doc["memory_roofs"]:
        assert m["peak_bytes_per_s"] == levels[m["level"]]["peak_bytes_per_s"]
        ridge = next(r for r in doc["ridge_points"] if r["level"] == m["level"])
        assert ridge["arithmetic_intensity_flop_per_byte"] == pytest.approx(compute["peak_flops_per_s"] / m["peak_bytes_per_s"])
    # the DRAM level's intensity is the roofline point's (FLOPs / DRAM bytes)
    assert levels["dram"]["arithmetic_intensity_flop_per_byte"] == pytest.approx(point["arithmetic_intensity_flop_per_byte"])


def test_roofline_chart_still_needs_a_chart_file(capsys, roofline_report, tmp_path):
    code, out, err = run(capsys, "roofline", str(roofline_report), "-q")
    assert code == 2 and out == "" and "-o/--output" in err and err.count("\n") == 1
    code, out, err = run(capsys, "roofline", str(roofline_report), "-o", str(tmp_path / "r.txt"), "-q")
    assert code == 2 and not (tmp_path / "r.txt").exists()  # the chart is .svg or .png
    code, out, err = run(capsys, "roofline", str(roofline_report), "-o", str(tmp_path / "r.json"), "-q")
    assert code == 0 and json.loads((tmp_path / "r.json").read_text())  # .json: the numbers, as --format json


# ------------------------------------------------------------------------------------------ banks


def test_banks_json_by_hand(capsys):
    doc = json_of(capsys, "banks-1.schema.json", "banks", "--dtype", "float", "--tile", "32x32", "--access", "column")
    d = doc["declared"]
    assert (doc["schema"], d["n_way"], d["wavefronts"], d["ideal_wavefronts"]) == ("kernelscope.banks/1", 32, 32, 1)
    assert doc["padding_elements"] == 1 and doc["padded"]["n_way"] == 1
    code, table, _ = run(capsys, "banks", "--dtype", "float", "--tile", "32x32", "--access", "column")
    assert code == 0 and "32-way" in table and "tile[32][33]" in table


# ------------------------------------------------------------------------------------------ -o


COMMANDS = {
    "occupancy": ("occupancy-1.schema.json", ["occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "32"]),
    "gpus": ("gpus-1.schema.json", ["gpus"]),
    "roofline": ("roofline-1.schema.json", ["roofline", "{report}", "-q"]),
    "banks": ("banks-1.schema.json", ["banks", "--dtype", "half", "--tile", "32x32", "--access", "column"]),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_file_is_the_same_document_written_atomically(capsys, command, roofline_report, tmp_path):
    schema_file, args = COMMANDS[command]
    args = [a.replace("{report}", str(roofline_report)) for a in args]
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "doc.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)
    code, printed, err = run(capsys, *args, "--format", "json", "-o", str(target))
    assert code == 0 and printed == "", err
    assert target.read_text(encoding="utf-8") == out  # the same document, byte for byte
    validate(load_json(out), schema_file)
    assert [p.name for p in folder.iterdir()] == ["doc.json"]  # renamed into place: no temporary file left
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file it replaced keeps its mode
    # a file that cannot be written: exit 2, one line naming it, nothing changed, nothing left behind
    target.chmod(0o444)
    code, printed, err = run(capsys, *args, "--format", "json", "-o", str(target))
    assert code == 2 and printed == "" and err.count("\n") == 1 and str(target) in err
    assert target.read_text(encoding="utf-8") == out and [p.name for p in folder.iterdir()] == ["doc.json"]
    # a directory is not an output file
    code, _, err = run(capsys, *args, "--format", "json", "-o", str(folder))
    assert code == 2 and "directory" in err


def test_output_never_overwrites_an_input(capsys, roofline_report, tmp_path):
    before = roofline_report.read_bytes()
    code, _, err = run(capsys, "roofline", str(roofline_report), "--format", "json", "-o", str(roofline_report), "-q")
    assert code == 2 and "the output is the input file" in err
    assert roofline_report.read_bytes() == before
    cu = tmp_path / "k.cu"
    shutil.copy(DEMO_CU, cu)
    code, _, err = run(capsys, "occupancy", "--cu", str(cu), "--arch", "sm_90", "--format", "json", "-o", str(cu))
    assert code == 2 and "the output is the input file" in err and cu.read_bytes() == DEMO_CU.read_bytes()


@pytest.mark.parametrize("command", ["occupancy", "gpus"])
def test_table_to_a_file_is_plain_text(capsys, command, tmp_path):
    _, args = COMMANDS[command]
    code, shown, _ = run(capsys, *args)
    assert code == 0
    path = tmp_path / "t.txt"
    code, printed, err = run(capsys, *args, "-o", str(path))
    assert code == 0 and printed == "", err
    text = path.read_text(encoding="utf-8")
    assert "\x1b" not in text
    first = next(line for line in shown.splitlines() if line.strip())
    assert first.split() == next(line for line in text.splitlines() if line.strip()).split()

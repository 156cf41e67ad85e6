"""The specification's own examples, run against kernelscope's public API."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import pytest

from conftest import SEEDS, need
from kernelscope import InputError, KernelReport, diagnose_kernel_profile, roofline_position


def _seed_test_block() -> str:
    text = need(SEEDS / "000_26dc5265f81e5144.txt").read_text(encoding="utf-8")
    start = text.index("检查与验证代码")
    block = text[start:].split("\n", 1)[1]
    block = block[: block.index("\n---")]
    assert "diagnose_kernel_profile(hw_a100, kernel_layernorm)" in block
    return block


def test_lesson2_test_block_passes_verbatim():
    code = _seed_test_block()
    out = io.StringIO()
    with redirect_stdout(out):
        exec(compile(code, "000_26dc5265f81e5144.txt", "exec"), {"diagnose_kernel_profile": diagnose_kernel_profile})
    assert "验证通过" in out.getvalue()


HW_A100 = {"peak_tflops": 312.0, "peak_bandwidth_gb_s": 2039.0}
LAYERNORM = {
    "flops": 2048 * 4096 * 5,
    "bytes": 2048 * 4096 * 2 * 3,
    "duration_us": 32.0,
    "stall_breakdown": {"Long Scoreboard": 54.2, "MIO Throttle": 15.1, "Math Pipe Throttle": 2.5, "Barrier": 8.2, "Not Selected": 20.0},
}


def test_lesson2_values_by_hand():
    res = diagnose_kernel_profile(HW_A100, LAYERNORM)
    assert res["arithmetic_intensity"] == pytest.approx(41943040 / 50331648)  # 0.8333
    assert res["hardware_ridge_point"] == pytest.approx(312e12 / 2039e9)  # 153.016
    assert res["bound_type"] == "memory-bound"
    assert res["achieved_tflops"] == pytest.approx(41943040 / 32e-6 / 1e12)  # 1.3107
    assert res["top_stall_reason"] == "Long Scoreboard"
    assert "融合" in res["optimization_advice"]
    en = diagnose_kernel_profile(HW_A100, LAYERNORM, lang="en")
    assert "fuse" in en["optimization_advice"].lower()


def test_compute_bound_top_stall_ignores_selected():
    res = diagnose_kernel_profile(
        HW_A100,
        {"flops": 1e12, "bytes": 1e9, "duration_us": 5000.0, "stall_breakdown": {"Selected": 60.0, "Math Pipe Throttle": 30.0, "Barrier": 10.0}},
    )
    assert res["bound_type"] == "compute-bound"  # AI 1000 > 153
    assert res["top_stall_reason"] == "Math Pipe Throttle"


@pytest.mark.parametrize(
    "hw, metrics, field",
    [
        ({"peak_bandwidth_gb_s": 2039.0}, LAYERNORM, "peak_tflops"),
        ({"peak_tflops": -1.0, "peak_bandwidth_gb_s": 2039.0}, LAYERNORM, "peak_tflops"),
        (HW_A100, {**LAYERNORM, "flops": -5}, "flops"),
        (HW_A100, {k: v for k, v in LAYERNORM.items() if k != "bytes"}, "bytes"),
        (HW_A100, {**LAYERNORM, "duration_us": 0}, "duration_us"),
        (HW_A100, {**LAYERNORM, "duration_us": "fast"}, "duration_us"),
        (HW_A100, {**LAYERNORM, "stall_breakdown": {"Long Scoreboard": -3.0}}, "Long Scoreboard"),
    ],
)
def test_lesson2_input_validation_names_the_field(hw, metrics, field):
    with pytest.raises(InputError, match=re.escape(field)):
        diagnose_kernel_profile(hw, metrics)


def test_unknown_stall_reason_is_an_error():
    with pytest.raises(InputError, match="Coffee Break"):
        diagnose_kernel_profile(HW_A100, {**LAYERNORM, "stall_breakdown": {"Coffee Break": 10.0}})


def test_toolkit_lesson_example_prints_same_classification_and_efficiencies():
    # The example of 003_0fc95ced349178b3.txt; expected lines computed by hand:
    # vector_add  AI 0.05 < ridge 7.85 -> memory, eff = 0.3e9 / (0.05 * 2e12)   = 0.30%
    # naive       AI 0.5              -> memory, eff = 2.0e9 / (0.5 * 2e12)    = 0.20%
    # tiled       AI 80 > 7.85        -> compute, eff = 200e9 / 15.7e12        = 1.27%
    peak_flops, peak_bw = 15.7e12, 2.0e12
    kernels = [
        KernelReport("vector_add", 0.3e9, 6.0e9),
        KernelReport("matmul_naive", 2.0e9, 4.0e9),
        KernelReport("matmul_tiled", 200.0e9, 2.5e9),
    ]
    lines = []
    for k in kernels:
        kind, eff = roofline_position(k, peak_flops, peak_bw)
        lines.append(f"{k.name:16s} {kind:14s} {eff:6.2%}")
    assert lines == [
        "vector_add       memory_bound    0.30%",
        "matmul_naive     memory_bound    0.20%",
        "matmul_tiled     compute_bound   1.27%",
    ]
    assert kernels[2].arithmetic_intensity() == pytest.approx(80.0)


def test_kernel_report_with_duration_uses_achieved_rate():
    k = KernelReport("k", flops=2.0e12, bytes_moved=1.0e9, duration_s=0.5)  # 4 TFLOP/s achieved, AI 2000
    bound, eff = roofline_position(k, 15.7e12, 2.0e12)
    assert bound == "compute_bound"
    assert eff == pytest.approx(4.0e12 / 15.7e12)

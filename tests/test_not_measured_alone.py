"""A value is measured and shown, or "not measured" alone (tryout item 10): never "0 FLOP/s (not measured)",
"4.98 TFLOP/s (not measured)", "DRAM not measured (50.3 MB, ...)", "achieved not measured of theoretical not
measured", nor "GPU not measured" / "Bottleneck not measured" for what a profile cannot measure (a GPU it does not
name, a verdict derived without peaks). Checked on every panel formatter's output, in both languages."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, CORPUS_NCU, REPO, need
from kernelscope.analysis.compare import compare
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.cli import main
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.render.common import Fmt
from kernelscope.render.compare import to_text

#: "not measured" qualified by a value, or a value qualified by "not measured", in either language.
CONTRADICTIONS = [
    re.compile(r"not measured \([^)]*\d"),  # DRAM not measured (50.3 MB)
    re.compile(r"\d[^;,()]*\(not measured\)"),  # 4.98 TFLOP/s (not measured)
    re.compile(r"not measured of "),  # achieved not measured of theoretical
    re.compile(r"未测量（[^）]*\d"),
    re.compile(r"\d[^；，（）]*（未测量）"),
    re.compile(r"实际\s*未测量\s*/\s*理论\s*未测量"),
    re.compile(r"^\s*(GPU|Bottleneck|瓶颈)\s+(not measured|未测量)\s*$", re.M),
]

INPUTS = [REPO / "examples" / "seed_kernels.toml", CASES / "C08_ncu_raw_units_row.csv",
          CASES / "C10_ncu_console_fp16_na.txt", CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep"]


def _contradictions(text: str) -> list[str]:
    return [m.group(0) for rx in CONTRADICTIONS for m in rx.finditer(text)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_diagnose_panels_never_qualify_not_measured(capsys, monkeypatch, path, lang):
    monkeypatch.setenv("COLUMNS", "400")  # one row a line: the patterns are not cut by wrapping
    main(["diagnose", str(need(path)), "-v", "--lang", lang])
    out = capsys.readouterr().out
    assert out and not _contradictions(out)


def test_the_patterns_catch_the_old_wordings():
    old = ["DRAM not measured (50.3 MB, 0.833 FLOP/B)", "Achieved 0 FLOP/s (not measured)",
           "achieved not measured of theoretical not measured", "  GPU                    not measured",
           "DRAM 未测量（8.39 MB，0.25 FLOP/B）", "实际未测量 / 理论未测量"]
    assert all(_contradictions(x) for x in old)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_occupancy_formatter(lang):
    f = Fmt(lang)
    assert f.occupancy(None, None) == f.nm
    assert "25.4%" in f.occupancy(25.4, None) and not _contradictions(f.occupancy(25.4, None))
    assert "50%" in f.occupancy(None, 50.0) and f.occupancy(25.4, 50.0).count("%") == 2  # a whole one: no ".0"


def _side(name, flops=None, duration_s=1e-3, **kw):
    gpu = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})
    k = KernelProfile(index=0, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=(10, 1, 1), block=(256, 1, 1)), duration_s=duration_s,
                      flop_counts=flops or {}, **kw)
    return diagnose(k, gpu)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_achieved_row_without_fp_work_or_efficiency(lang):
    zero = compare([_side("k", {"fp32": 0.0}, dram_bytes_total=1e6)], [_side("k", {"fp32": 0.0}, 5e-4, dram_bytes_total=1e6)])
    text = to_text(zero, lang, width=400)
    assert not _contradictions(text)
    assert ("not applicable (no floating-point instructions executed)" if lang == "en" else "不适用（没有执行浮点指令）") in text  # the wording diagnose uses


def test_html_report_never_qualifies_not_measured(tmp_path):
    out = tmp_path / "r.html"
    assert main(["diagnose", str(need(CASES / "C08_ncu_raw_units_row.csv")), "-o", str(out)]) == 0
    text = re.sub(r"<[^>]+>", " ", out.read_text())
    assert "not identified" in text and "compute capability 9.0" in text
    assert not _contradictions(" ".join(text.split()))

"""Term drift (native review 13): one name per concept, and each percentage names its peak; en and zh.

compare: its sentence names the table's row (Speed-of-Light compute, not "SM throughput"), the occupancy row is the
achieved occupancy, the DRAM bandwidth percentage says it is of the spec's peak, Nsight Compute's rule estimates are
one line (the measured reduction once); compare's -v help is its own; diagnose's -v help names the busiest unit, the
panel's label. The glossary forbids the old variants (tests/test_zh_terms.py checks them over every output)."""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU
from kernelscope.cli import main

BEFORE = CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep"
AFTER = CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_after.ncu-rep"


def _out(capsys, *argv) -> str:
    try:
        main(list(argv))
    except SystemExit:
        pass
    return capsys.readouterr().out


@pytest.mark.skipif(not BEFORE.exists(), reason="shared corpus absent")
@pytest.mark.parametrize("lang, words", [
    ("en", dict(occ="Achieved occupancy", sol="SOL compute 12.1% -> 15.2% of peak", old="SM throughput",
                dram="of the spec's peak", predicted="Nsight Compute rule estimate (BEFORE)", measured="measured")),
    ("zh", dict(occ="实际占用率", sol="Speed-of-Light 计算从峰值的 12.1% 变为 15.2%", old="SM 吞吐",
                dram="规格峰值的", predicted="Nsight Compute 规则的预估（优化前）", measured="实测减少")),
])
def test_compare_names_its_rows_and_peaks_once(capsys, monkeypatch, lang, words):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    monkeypatch.setenv("COLUMNS", "400")
    out = _out(capsys, "compare", str(BEFORE), str(AFTER), "--lang", lang)
    lines = out.splitlines()
    assert any(line.strip().startswith(words["occ"]) for line in lines), out
    assert words["sol"] in out and words["old"] not in out, out
    dram = [line for line in lines if "GB/s" in line and "%" in line]
    assert dram and all(words["dram"] in line for line in dram), dram
    predicted = [line for line in lines if line.startswith(words["predicted"])]
    assert len(predicted) == 1 and predicted[0].count(words["measured"]) == 1, predicted


@pytest.mark.parametrize("lang, busiest, old", [("en", "the busiest unit", "the limiter"),
                                                 ("zh", "最繁忙的单元", "限制单元")])
def test_details_help_is_each_commands_own(capsys, monkeypatch, lang, busiest, old):
    monkeypatch.setenv("COLUMNS", "2000")

    def details(cmd: str) -> str:
        text = _out(capsys, cmd, "--help", "--lang", lang)
        return next(line for line in text.splitlines() if line.strip().startswith("-v, --details"))

    diagnose, compare = details("diagnose"), details("compare")
    assert busiest in diagnose and old not in diagnose, diagnose
    assert compare != diagnose and old not in compare, compare

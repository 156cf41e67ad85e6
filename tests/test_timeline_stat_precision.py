"""Timeline statistics print at their source's resolution (native review 13, numbers): a median / p95 / max of
whole-µs Kineto stamps is a whole µs (never "6.500 µs" or "20.00 µs"), no p95 is printed for fewer than
MIN_P95_SAMPLES launches, a template of one gap says its length once, and an empty "more tables" clause is left out."""

from __future__ import annotations

import re

import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.render.timeline_overview import MIN_P95_SAMPLES, at_tick

CASES = SHARED / "cases"
ALEXNET = SHARED / "corpus" / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz"


def _out(capsys, *args: str) -> str:
    main(list(args))
    return re.sub(r"\s*\n\s*", "", capsys.readouterr().out)  # wrapped prose joined


def test_a_statistic_of_whole_us_stamps_is_rounded_to_the_stamp():
    assert at_tick(6.5e-6, 1e-6) == pytest.approx(7e-6) and at_tick(19.9996e-6, 1e-6) == pytest.approx(20e-6)
    assert at_tick(6.5e-6, None) == 6.5e-6 and at_tick(None, 1e-6) is None
    assert MIN_P95_SAMPLES == 20


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_launch_latency_statistics_print_at_whole_us(capsys, lang):
    out = _out(capsys, "timeline", str(need(CASES / "C03_kineto_ts0_kernel.json")), "--lang", lang)
    assert "6.500 µs" not in out and "29.50 µs" not in out
    assert "p95" not in out  # 2 launches: a median and a max, no p95
    out = _out(capsys, "timeline", str(need(ALEXNET)), "--lang", lang)
    assert "20.00 µs" not in out


@pytest.mark.parametrize("lang, one", [("en", "idle once"), ("zh", "有 1 段空闲")])
def test_one_gap_gives_its_length_once(capsys, lang, one):
    out = _out(capsys, "timeline", str(need(CASES / "C03_kineto_ts0_kernel.json")), "--lang", lang)
    assert one in out and "1 time(s)" not in out
    sentence = out[out.index(one):][:160]
    assert sentence.count("1.760 ms") == 1, sentence  # never "1.760 ms in all (longest 1.760 ms)"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("form", ["table", "markdown"])
def test_no_empty_more_tables_clause(capsys, lang, form):
    out = _out(capsys, "timeline", str(need(CASES / "C20_nsys_stats_locale.txt")), "--lang", lang, "--format", form)
    assert "--details" in out
    assert "更多表格（无）" not in out and "More tables (-)" not in out and "More tables (none)" not in out

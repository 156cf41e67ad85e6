"""Native review 11 of the numbers (issue 28, ``zh11_report.md`` section B items 4-13), each a KIND fixed in the
shared formatters (``render/numbers.py``, ``knowledge/text.py``) and checked by unit tests and over real outputs of
corpus / case inputs (skipped where ../shared is absent):

1. units by magnitude: every duration in its own natural unit, never a row's shared unit (``0.496 ms`` beside
   ``190 µs``);
2. one value, one text: a value reads the same in a table and in the prose, in four significant digits (no
   separate precision path: ``0.50 ms`` vs ``500 µs``, ``82.7 µs`` vs ``82.69 µs``, ``81%`` vs ``81.0%``); byte
   sizes binary (``64 MiB``, never ``67.1 MB``);
3. no fake precision: implausible percentages in three digits, waves in four digits and two decimals at most, a
   whole fusion bound whole (``16×``), rates in three digits, a whole count without ``.0``, a KiB column in one
   exact precision, a percentage that only rounds to 100 ``> 99.9%`` (never ``100.0%`` beside a true ``100%``).

Each test fails on the code before the fix. The rules hold in both languages."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, SHARED, flat, need
from kernelscope.knowledge.text import fill, label
from kernelscope.render.common import Fmt
from test_zh_review6a import _out

TRACES = SHARED / "corpus" / "torch_traces"
NSYS = SHARED / "corpus" / "nsys"
HTA = [TRACES / f"hta_trace_filter_sampled_rank-{r}.json.gz" for r in (0, 1)]
N09 = CASES / "N09_plain_bandwidth_above_dram_peak.toml"
N20 = CASES / "N20_kineto_queued_launches.json"
N22 = CASES / "N22_kineto_exposed_comm_two_streams.json"
C05 = CASES / "C05_ncu_console_hit_rates.txt"
KMEANS = NSYS / "kmeans_nsys2021_console_rtx3080_locale_comma.txt"
CTS = NSYS / "cts_rtx3070_array_inc_a.sqlite"
DLRM = TRACES / "param_dlrm_kineto_8rank_v100.tar.gz"
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
#: A duration below 1 ms written in ms, or below 1 µs... in µs ("0.496 ms", "0.089 ms", "0.50 ms").
BELOW_ITS_UNIT = re.compile(r"(?<![\d.])0\.\d+ (?:s|ms|µs)\b")


# ------------------------------------------------------------------------------------- 1. units by magnitude
@LANGS
def test_each_duration_takes_its_own_unit(lang):
    f = Fmt(lang)
    assert f.times(496e-6, 1.472e-3) == ["496 µs", "1.472 ms"]  # was "0.496 ms" beside "1.472 ms"
    assert f.times(327e-6, 4.526e-3, 4.199e-3) == ["327 µs", "4.526 ms", "4.199 ms"]  # was "0.327 ms"
    assert f.times(89e-6, 6.899e-3) == ["89 µs", "6.899 ms"]  # was "0.089 ms"
    assert f.times(29.18e-6, 972.8e-9) == ["29.18 µs", "972.8 ns"]  # was "0.973 µs"


def test_a_spread_of_durations_takes_units_by_magnitude():
    from kernelscope.analysis.groups import Spread
    from kernelscope.render.launch_groups import spread_values
    f = Fmt("en")
    assert spread_values("duration_s", Spread(980e-6, 1.02e-3, 1.1e-3, 3), f) == "980 µs / 1.020 ms / 1.100 ms"
    assert spread_values("duration_s", Spread(152e-6, 152.6e-6, 153.2e-6, 3), f) == "152.0 / 152.6 / 153.2 µs"


@LANGS
def test_no_duration_below_its_unit_in_a_timeline_or_compare(capsys, lang):
    need(N20)
    out = _out(capsys, "timeline", str(N20), "--lang", lang)
    assert not BELOW_ITS_UNIT.findall(out) and "500 µs" in out  # was "0.50 ms" in the table
    need(HTA[0])
    need(HTA[1])
    out = _out(capsys, "compare", *map(str, HTA), "--lang", lang, code=(0, 1))
    assert BELOW_ITS_UNIT.findall(out) == [] and "327 µs" in out and "496 µs" in out.replace("496.0 µs", "496 µs")


# ------------------------------------------------------------------------------- 2. one value, one text
@LANGS
def test_a_value_in_a_row_reads_as_it_reads_alone(lang):
    f = Fmt(lang)
    for row in ((744.2e-6, 82.69e-6, 82.40e-6, 83.33e-6), (9.309e-3, 4.6545e-3, 4.638e-3, 4.671e-3),
                (140.1e-3, 80.1e-3), (11.05e-3, 9.602e-3, -1.448e-3)):
        assert f.times(*row) == [f.time(s) for s in row], row  # was "82.7 µs", "4.65 ms", "80.1 ms", "9.60 ms"


@LANGS
def test_table_and_prose_print_a_value_one_way(capsys, lang):
    need(KMEANS)
    out = _out(capsys, "timeline", str(KMEANS), "--lang", lang)
    assert "82.69 µs" in out and "82.7 µs" not in out  # the prose's mean, as the table's
    need(N22)
    out = flat(_out(capsys, "timeline", str(N22), "--lang", lang))
    assert "80.10 ms" in out and not re.search(r"(?<![\d.])80\.1 ms", out)  # beside "80.00 ms"
    need(HTA[0])
    need(HTA[1])
    out = _out(capsys, "compare", *map(str, HTA), "--lang", lang, code=(0, 1))
    assert "4.655 ms" in out and not re.search(r"(?<![\d.])4\.65 ms|9\.60 ms|-1\.45 ms", out)


@LANGS
def test_a_metric_percentage_and_a_byte_size_read_one_way(capsys, lang):
    need(N09)
    out = flat(_out(capsys, "diagnose", str(N09), "--lang", lang, code=(0, 1)))
    assert "81.0%" in out and not re.search(r"(?<![\d.])81%", out)  # the advice as the note
    assert "5.383 µs" in out and "5.38 µs" not in out  # four digits for every duration of the column
    assert "64 MiB" in out and not re.search(r"\d MB\b", out)  # binary byte units, never "67.1 MB"


# ---------------------------------------------------------------------------------------- 3. fake precision
@LANGS
def test_an_implausible_percentage_in_three_digits(capsys, lang):
    text = _note("implausible_pct", lang, value=143.833, times=1.43833)
    assert "= 144%" in text and "143.833" not in text
    need(C05)
    out = flat(_out(capsys, "diagnose", str(C05), "--lang", lang, code=(0, 1)))
    assert "l2_hit_rate = 171%" in out and "171.46%" not in out


def _note(key: str, lang: str, **values) -> str:
    from kernelscope.knowledge.text import note_text
    return note_text(key, {"metric": "l1tex__throughput.max.pct_of_peak_sustained_active", "u": "%", "limit": None,
                           "rate": None, **values}, lang)


@LANGS
def test_waves_keep_four_digits_and_two_decimals_at_most(lang):
    assert Fmt(lang).label("waves", w=170.6667).startswith(("170.7", "每个 SM 170.7"))
    assert "0.44 " in Fmt(lang).label("waves", w=0.4444) and "9.48 " in Fmt(lang).label("waves", w=9.483)


@LANGS
def test_a_whole_fusion_bound_prints_whole(capsys, lang):
    f = Fmt(lang)
    assert f.factor(16.0, whole=True) in ("16x", "16×") and f.factor(16.0) in ("16.00x", "16.00×")
    assert f.factor(1.0) in ("1.00x", "1.00×")  # a measured ratio keeps its decimals
    need(DLRM)
    out = flat(_out(capsys, "timeline", str(DLRM), "--lang", lang))
    assert "16.00" not in out and ("至多 16×" in out if lang == "zh" else "at most 16x" in out)


@LANGS
def test_a_rate_in_three_digits(capsys, lang):
    from kernelscope.render.numbers import rate
    assert (rate(4.011e9), rate(36.24e9), rate(361.47e9), rate(149.7e6)) == (
        "4.01 GB/s", "36.2 GB/s", "361 GB/s", "150 MB/s")
    need(CTS)
    out = _out(capsys, "timeline", "--details", str(CTS), "--lang", lang)
    assert "4.01 GB/s" in out and "4.011 GB/s" not in out


@LANGS
def test_a_whole_count_drops_its_zero_decimal_beside_one_that_has_decimals(lang):
    text = fill("{a:.1f} / {b:.1f} / {c:.1f}", {"a": 16.5, "b": 32.0, "c": 4.0}, lang)
    assert text == "16.5 / 32 / 4"  # was "16.5 / 32.0 / 4.0" ("存储 32.0 个")


@LANGS
def test_a_kib_column_in_one_exact_precision(capsys, lang):
    out = _out(capsys, "occupancy", "--arch", "sm_80", "--regs", "64", "--threads", "256", "--lang", lang)
    assert "53.625 KiB" in out and "40.000 KiB" in out and "31.750 KiB" in out  # was 53.62 beside 40
    assert "53.62 KiB" not in out


@LANGS
def test_a_percentage_that_only_rounds_to_100_is_above_99_9(capsys, lang):
    f = Fmt(lang)
    above = label("pct_above", lang).format(x="99.9")
    assert (f.pct(99.97), f.pct(100), f.pct(99.94)) == (above, "100%", "99.9%")  # never "100.0%"
    need(CTS)
    out = _out(capsys, "timeline", str(CTS), "--lang", lang)
    assert "100.0%" not in out and above in out

"""Warp-stall taxonomy (data/stalls.toml) and the stall breakdown (kernelscope.stalls).

Expected numbers come from /work/shared/cases/README.md (case C04) and hand computation, not from the code.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from kernelscope.analysis import stalls as breakdown
from kernelscope.ingest import stall_metrics
from kernelscope.knowledge import stalls as taxonomy
from kernelscope.errors import InputError
from kernelscope.knowledge.remedies import remedies

SHARED = Path("/work/shared")
C04_TSV = SHARED / "cases" / "C04_stall_ratios.tsv"
NCU_CORPUS = SHARED / "corpus" / "ncu"
CPI_METRIC = "smsp__average_warp_latency_per_inst_issued.ratio"

ALL_IDS = {
    "barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle", "long_scoreboard",
    "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction", "not_selected", "selected",
    "short_scoreboard", "sleeping", "tex_throttle", "wait", "gmma",
}


# --- case C04: cycles per issued instruction, not percentages -------------------------------------------

def _c04() -> tuple[dict[str, float], float]:
    """(metric -> value, sum of all 18 ratios) from the case file; skip when /work/shared is absent."""
    if not C04_TSV.exists():
        pytest.skip(f"shared case file {C04_TSV} not available (needs /work/shared)")
    values: dict[str, float] = {}
    total = None
    for line in C04_TSV.read_text(encoding="utf-8").splitlines():
        found = re.search(r"sum of all 18 .* = ([0-9.]+)", line)
        if found:
            total = float(found.group(1))
        elif line and not line.startswith("#"):
            name, value = line.split("\t")
            values[name] = float(value)
    assert total is not None, "C04 file lost its 'sum of all 18' line"
    return values, total


def _c04_breakdown() -> breakdown.StallBreakdown:
    metrics, total18 = _c04()
    cpi = metrics.pop(CPI_METRIC)
    family, values = stall_metrics.stall_values_from_metrics(metrics)
    assert family == "per_issue_active"
    # The case gives five of the 18 ratios and the sum of all 18: the other 13 go in as one remainder.
    values["rest_of_18"] = total18 - sum(values.values())
    return breakdown.stall_breakdown(values, family, cpi)


def test_c04_shares_of_all_cycles():
    b = _c04_breakdown()
    pct = {s.reason: round(100 * s.share, 1) for s in b.shares}
    assert pct["long_scoreboard"] == 70.6
    assert pct["barrier"] == 20.8
    assert pct["lg_throttle"] == 4.9
    assert pct["mio_throttle"] == 1.7
    assert [s.reason for s in b.shares[:2]] == ["long_scoreboard", "barrier"]


def test_c04_selected_apart_and_share_of_stalls():
    b = _c04_breakdown()
    assert "selected" not in {s.reason for s in b.shares}
    assert b.selected_value == pytest.approx(1.0)
    long_sb = b.shares[0]
    assert round(100 * long_sb.share_of_stalls, 1) == 70.9  # 184.0839 / (260.6896 - 1.0)
    assert b.total == pytest.approx(260.6896, abs=1e-6)
    assert b.stall_total == pytest.approx(259.6896, abs=1e-6)


def test_c04_values_are_cycles_not_percent():
    b = _c04_breakdown()
    assert b.shares[0].value == pytest.approx(184.0839)  # kept in cycles: never divided by 100
    assert b.shares[0].share < 1.0


def test_c04_sum_matches_cpi_within_one_percent():
    b = _c04_breakdown()
    assert b.cycles_per_issued_instruction == pytest.approx(262.5227)
    assert b.cpi_consistency == pytest.approx(260.6896 / 262.5227, rel=1e-9)
    assert abs(b.cpi_consistency - 1) < 0.01
    assert b.cpi_consistent is True


def test_cpi_inconsistency_is_recorded_not_raised():
    b = breakdown.stall_breakdown({"long_scoreboard": 5.0, "selected": 1.0}, "per_issue_active", 10.0)
    assert b.cpi_consistency == pytest.approx(0.6)
    assert b.cpi_consistent is False
    # only per_issue_active ratios add up to CPI; sample counts do not
    assert breakdown.stall_breakdown({"wait": 300.0}, "pc_sampling", 10.0).cpi_consistency is None


# --- breakdown edge cases -----------------------------------------------------------------------------

def test_empty_breakdown_is_not_an_error():
    b = breakdown.stall_breakdown({}, None, 12.0)
    assert b.shares == () and b.total == 0 and b.selected_value is None and b.cpi_consistency is None
    assert breakdown.top_stalls(b, 3) == ()


def test_negative_or_nan_value_is_an_input_error():
    with pytest.raises(InputError, match="long_scoreboard"):
        breakdown.stall_breakdown({"long_scoreboard": -1.0}, "per_issue_active")
    with pytest.raises(InputError):
        breakdown.stall_breakdown({"wait": math.nan}, "per_issue_active")


def test_unknown_family_and_duplicate_reason_are_input_errors():
    with pytest.raises(InputError, match="family"):
        breakdown.stall_breakdown({"wait": 1.0}, "percent")
    with pytest.raises(InputError, match="twice"):
        breakdown.stall_breakdown({"Long Scoreboard": 1.0, "long_scoreboard": 2.0}, "per_issue_active")


def test_breakdown_accepts_display_names_and_ranks_by_value():
    b = breakdown.stall_breakdown({"Wait": 1.0, "MIO Throttle": 3.0, "Barrier": 3.0, "Selected": 1.0}, None)
    assert [s.reason for s in b.shares] == ["barrier", "mio_throttle", "wait"]  # ties by id
    assert b.shares[0].share == pytest.approx(3 / 8)
    assert b.shares[0].share_of_stalls == pytest.approx(3 / 7)
    assert [s.reason for s in breakdown.top_stalls(b, 2)] == ["barrier", "mio_throttle"]
    assert [s.reason for s in breakdown.top_stalls(b, 5, min_share=0.2)] == ["barrier", "mio_throttle"]


# --- picking a metric family --------------------------------------------------------------------------

def test_family_preference_nan_and_not_issued():
    metrics = {
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 7.0,
        "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": math.nan,
        "smsp__pcsamp_warps_issue_stalled_long_scoreboard": 900.0,
        "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued": 800.0,
        "smsp__pcsamp_warps_issue_stalled_no_instructions": 12.0,
        "group:smsp__pcsamp_warp_stall_reasons": 0.0,
    }
    assert stall_metrics.stall_values_from_metrics(metrics) == ("per_issue_active", {"long_scoreboard": 7.0})
    only_pc = {k: v for k, v in metrics.items() if "per_issue_active" not in k}
    assert stall_metrics.stall_values_from_metrics(only_pc) == (
        "pc_sampling", {"long_scoreboard": 900.0, "no_instruction": 12.0})
    nan_only = {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": math.nan}
    assert stall_metrics.stall_values_from_metrics(nan_only) == (None, {})
    latency = {"smsp__average_warp_latency_issue_stalled_barrier.ratio": 4.0}
    assert stall_metrics.stall_values_from_metrics(latency) == ("warp_latency", {"barrier": 4.0})


def test_warp_id_sampling_family_is_recognised_and_ranked_after_pc_sampling():
    # warp-ID sampling (Nsight Compute 2026.x): smsp__warpidsamp_warps_issue_stalled_<r>[_not_issued], sample counts
    ni = stall_metrics.stall_metric("smsp__warpidsamp_warps_issue_stalled_no_instructions_not_issued")
    assert ni == ("warp_id_sampling_not_issued", "no_instructions", "no_instruction")
    plain = stall_metrics.stall_metric("smsp__warpidsamp_warps_issue_stalled_long_scoreboard")
    assert plain == ("warp_id_sampling", "long_scoreboard", "long_scoreboard")
    assert stall_metrics.stall_metric("smsp__warpidsamp_warps_issue_stalled_selected_not_issued")[0] == (
        "warp_id_sampling_not_issued")  # the _not_issued twin is never read as the plain reason "selected_not"
    assert stall_metrics.stall_metric("smsp__warpidsamp_interval") is None  # the sampler's settings are not stalls
    warp_id = {
        "smsp__warpidsamp_warps_issue_stalled_long_scoreboard": 70.0,
        "smsp__warpidsamp_warps_issue_stalled_selected": 5.0,
        "smsp__warpidsamp_warps_issue_stalled_long_scoreboard_not_issued": 60.0,
        "group:smsp__warpidsamp_warp_stall_reasons": 0.0,
    }
    assert stall_metrics.stall_values_from_metrics(warp_id) == (
        "warp_id_sampling", {"long_scoreboard": 70.0, "selected": 5.0})
    both = {**warp_id, "smsp__pcsamp_warps_issue_stalled_long_scoreboard": 900.0}
    assert stall_metrics.stall_values_from_metrics(both) == ("pc_sampling", {"long_scoreboard": 900.0})
    with_latency = {**warp_id, "smsp__average_warp_latency_issue_stalled_barrier.ratio": 4.0}
    assert stall_metrics.stall_values_from_metrics(with_latency)[0] == "warp_id_sampling"
    only_not_issued = {k: v for k, v in warp_id.items() if k.endswith("_not_issued")}
    assert stall_metrics.stall_values_from_metrics(only_not_issued) == (None, {})
    b = breakdown.stall_breakdown({"long_scoreboard": 70.0, "selected": 5.0}, "warp_id_sampling")
    assert b.selected_value == 5.0 and b.shares[0].share == pytest.approx(70 / 75) and b.cpi_consistency is None


def test_unknown_reason_spelling_is_kept_not_dropped():
    metrics = {
        "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": 2.0,
        "smsp__average_warps_issue_stalled_future_thing_per_issue_active.ratio": 3.0,
    }
    assert stall_metrics.stall_values_from_metrics(metrics) == ("per_issue_active", {"wait": 2.0, "future_thing": 3.0})
    assert stall_metrics.stall_metric("smsp__average_warps_issue_stalled_future_thing_per_issue_active.ratio") == (
        "per_issue_active", "future_thing", None)
    placeholder = taxonomy.describe("future_thing")
    assert placeholder.display_name == "future_thing" and not placeholder.healthy
    assert taxonomy.describe("wait") is taxonomy.reasons()["wait"]


def test_hopper_spellings_map_to_one_reason():
    gmma = stall_metrics.stall_metric("smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio")
    arrive = stall_metrics.stall_metric("smsp__pcsamp_warps_issue_stalled_warpgroup_arrive")
    assert gmma == ("per_issue_active", "gmma", "gmma")
    assert arrive == ("pc_sampling", "warpgroup_arrive", "gmma")


def _corpus_reports() -> list[Path]:
    if not NCU_CORPUS.is_dir():
        pytest.skip(f"Nsight Compute corpus {NCU_CORPUS} not available (needs /work/shared)")
    ncu_report = pytest.importorskip("ncu_report", reason="NVIDIA's ncu_report module is not installed")
    del ncu_report
    return sorted(NCU_CORPUS.glob("*.ncu-rep"))


def _actions(path: Path):
    import ncu_report

    ctx = ncu_report.load_report(str(path))
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for i in range(rng.num_actions()):
            yield rng.action_by_idx(i)


def test_every_stall_metric_in_the_corpus_maps_to_a_canonical_reason():
    unmapped: set[str] = set()
    seen = 0
    for path in _corpus_reports():
        for action in _actions(path):
            for name in action.metric_names():
                if "stall" not in name or name.startswith("group:"):
                    continue
                seen += 1
                parsed = stall_metrics.stall_metric(name)
                if parsed is None or parsed[2] is None:
                    unmapped.add(f"{path.name}: {name}")
    assert seen > 0, "the corpus should contain stall metrics"
    assert not unmapped, "stall metrics without a canonical reason:\n" + "\n".join(sorted(unmapped))


def _launch_metrics(path: Path, index: int) -> dict[str, float]:
    action = list(_actions(path))[index]
    return {n: action[n].as_double() for n in action.metric_names()
            if stall_metrics.stall_metric(n) or n == CPI_METRIC}


def test_corpus_families():
    reports = {p.name: p for p in _corpus_reports()}
    # GH200 report: per_issue_active includes the Hopper gmma ratio; sum of ratios ~ CPI.
    gh200 = _launch_metrics(reports["AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"], 0)
    family, values = stall_metrics.stall_values_from_metrics(gh200)
    assert family == "per_issue_active" and "gmma" in values and len(values) == 19
    assert breakdown.stall_breakdown(values, family, gh200[CPI_METRIC]).cpi_consistent
    # Only PC-sampling counters were collected here.
    torch_linear = _launch_metrics(reports["Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep"], 0)
    assert stall_metrics.stall_values_from_metrics(torch_linear)[0] == "pc_sampling"
    # Every stall ratio of this launch is NaN: no family.
    higgs = _launch_metrics(reports["bwd29__self-join-MiSTIC__profileHIGGS.out.ncu-rep"], 0)
    assert higgs and stall_metrics.stall_values_from_metrics(higgs) == (None, {})


WARP_ID_REPORTS = ("Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
                   "Atopos0313__cuda_learning__reports_day08_after.ncu-rep")


@pytest.mark.parametrize("name", WARP_ID_REPORTS)
def test_corpus_warp_id_sampling_reports(name):
    """The Nsight Compute 2026.2 reports hold warp-ID samples (only _not_issued, keyed by SMSP:warp slot) beside the
    Warp State ratios and PC sampling: every warpidsamp name is classified, the launch's family stays per_issue_active
    (then pc_sampling without the ratios), never the _not_issued warp-ID samples, and the reader requests them."""
    from kernelscope.ingest.ncu_rep import read_ncu_rep

    path = {p.name: p for p in _corpus_reports()}[name]
    action = next(iter(_actions(path)))
    names = [n for n in action.metric_names() if n.startswith("smsp__warpidsamp_warps_issue_stalled_")]
    assert names, f"{name} should hold warp-ID sampling metrics"
    for n in names:
        family, _, reason = stall_metrics.stall_metric(n)
        assert family == "warp_id_sampling_not_issued" and reason is not None
        m = action[n]
        keys = {m.correlation_ids().as_string(i) for i in range(m.num_instances())}
        assert keys and all(k.count(":") == 1 for k in keys)  # <SMSP>:<warp slot>, not PCs
    metrics = _launch_metrics(path, 0)
    assert stall_metrics.stall_values_from_metrics(metrics)[0] == "per_issue_active"
    no_ratios = {k: v for k, v in metrics.items() if "per_issue_active" not in k}
    family, values = stall_metrics.stall_values_from_metrics(no_ratios)
    pc = "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
    assert family == "pc_sampling" and values["long_scoreboard"] == action[pc].as_double()
    only_warp_id = {k: v for k, v in metrics.items() if k.startswith("smsp__warpidsamp_")}
    assert stall_metrics.stall_values_from_metrics(only_warp_id) == (None, {})
    read = read_ncu_rep(path).kernels[0].metrics
    for n in names:
        assert read[n] == pytest.approx(action[n].as_double())


# --- names and the data file --------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Long Scoreboard", "long_scoreboard"),
        ("long scoreboard", "long_scoreboard"),
        ("Stall Long Scoreboard", "long_scoreboard"),
        ("long_scoreboard", "long_scoreboard"),
        ("stall_long_sb", "long_scoreboard"),
        ("MIO Throttle", "mio_throttle"),
        ("Math Pipe Throttle", "math_pipe_throttle"),
        ("Not Selected", "not_selected"),
        ("No Instruction", "no_instruction"),
        ("no_instructions", "no_instruction"),
        ("stall_no_inst", "no_instruction"),
        ("LG Throttle", "lg_throttle"),
        ("lg", "lg_throttle"),
        ("TEX Throttle", "tex_throttle"),
        ("stall_tex", "tex_throttle"),
        ("Dispatch Stall", "dispatch_stall"),
        ("warpgroup_arrive", "gmma"),
        ("Barrier (Not Issued)", "barrier"),
    ],
)
def test_canonical_reason(name, expected):
    assert taxonomy.canonical_reason(name) == expected


def test_unknown_reason_error():
    with pytest.raises(InputError) as err:
        taxonomy.canonical_reason("coffee break")
    assert err.value.source == "stall reason"
    assert "unknown stall reason 'coffee break'" in err.value.problem
    assert "long_scoreboard" in err.value.problem


def test_data_file_is_complete():
    table = taxonomy.reasons()
    assert set(table) == ALL_IDS
    cjk = re.compile(r"[\u4e00-\u9fff]")
    known = remedies()
    for reason in table.values():
        assert reason.id and reason.display_name, reason.id
        # the advice: one text, or remedies of data/remedies.toml (each known, its texts in both languages)
        advice = (reason.advice_en,) if not reason.remedies else tuple(known[r].text_en for r in reason.remedies)
        advice_zh = (reason.advice_zh,) if not reason.remedies else tuple(known[r].text_zh for r in reason.remedies)
        assert bool(reason.remedies) != bool(reason.advice_en), reason.id
        for text in (reason.hardware_en, " ".join(advice)):
            assert len(text) > 40 and not cjk.search(text), reason.id
        for text in (reason.display_name_zh, reason.hardware_zh, *advice_zh):
            assert cjk.search(text), reason.id
        assert reason.source_document and reason.source_url.startswith("https://"), reason.id
        assert taxonomy.canonical_reason(reason.display_name) == reason.id
        for alias in reason.aliases:
            assert taxonomy.canonical_reason(alias) == reason.id


def test_healthy_reasons_say_why():
    table = taxonomy.reasons()
    assert {r.id for r in table.values() if r.healthy} == {"not_selected", "math_pipe_throttle", "selected"}
    for reason in table.values():
        assert bool(reason.healthy_why_en) == reason.healthy == bool(reason.healthy_why_zh), reason.id


def test_memory_advice_in_chinese_names_fusion_and_coalescing():
    table = taxonomy.reasons()
    for rid in ("long_scoreboard", "lg_throttle"):
        assert "融合" in table[rid].text("advice", "zh") and "合并访存" in table[rid].text("advice", "zh"), rid
    assert table["long_scoreboard"].text("display_name", "en") == "Long Scoreboard"
    assert "访存" in table["long_scoreboard"].text("advice", "zh")

"""``nsys stats`` output from real programs: case N05 (console text starting with a ``[3/8] Executing`` line, a
complete long kernel name, the CUDA context created inside the first cudaMalloc, module loading), detection from
any one of its lines, header-only and negative-only ``--format csv`` files refused in one line."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import CASES, REPO, need
from kernelscope.analysis.timeline import analyse
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.ingest import detect_timeline_format, load_timeline
from kernelscope.ingest.nsys_stats import read_nsys_stats
from kernelscope.knowledge import raw
from kernelscope.knowledge import validate as validate_data
from kernelscope.knowledge.timeline_checks import TimelineChecks, timeline_checks
from kernelscope.render.timeline import render_timeline

NS = 1e-9
N05 = "N05_nsys_stats_context_init.txt"
VECTOR_ADD = "vectorAdd(const float *, const float *, float *, int)"
CSV_HEADER = "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"


def strict(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with every warning (NumPy's included) raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        old = np.seterr(all="raise")
        try:
            return fn(*args, **kwargs)
        finally:
            np.seterr(**old)


def n05_report():
    path = need(CASES / N05)
    summary = strict(load_timeline, path)  # detected, not forced
    (rep,) = strict(analyse, summary)
    return summary, rep


# ------------------------------------------------------------------------------------------------ case N05
def test_n05_is_detected_and_read():
    path = need(CASES / N05)
    assert detect_timeline_format(path) == "nsys-stats"
    s = read_nsys_stats(path)
    assert s.reports == ("nvtx_sum", "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum")
    rows = {(r.kind, r.name): r for r in s.rows}
    assert rows[("annotation", "Profile_Loop")].total_s == pytest.approx(3_481_709 * NS, abs=1e-12)
    assert rows[("annotation", "Warmup")].total_s == pytest.approx(182_472 * NS, abs=1e-12)
    launch = rows[("runtime_api", "cudaLaunchKernel")]
    assert launch.count == 1_010 and launch.total_s == pytest.approx(3_201_638 * NS, abs=1e-12)
    assert launch.mean_s == pytest.approx(3_169.9 * NS, abs=1e-13)
    k = rows[("kernel", VECTOR_ADD)]
    assert k.count == 1_010 and k.total_s == pytest.approx(1_831_281 * NS, abs=1e-12)
    assert k.mean_s == pytest.approx(1_813.1 * NS, abs=1e-13)
    assert not k.truncated  # a complete name filling its column is not "cut"
    htod, dtoh = rows[("memcpy", "[CUDA memcpy HtoD]")], rows[("memcpy", "[CUDA memcpy DtoH]")]
    assert (htod.count, htod.copy_kind) == (2, "HtoD") and htod.total_s == pytest.approx(2_432 * NS, abs=1e-12)
    assert (dtoh.count, dtoh.copy_kind) == (1, "DtoH") and dtoh.total_s == pytest.approx(2_336 * NS, abs=1e-12)
    malloc = rows[("runtime_api", "cudaMalloc")]  # the reader keeps the file's numbers as they are
    assert malloc.count == 3 and malloc.total_s == pytest.approx(106_912_410 * NS, abs=1e-12)
    assert malloc.max_s == pytest.approx(106_901_129 * NS, abs=1e-12)


def test_n05_one_off_costs_shown_apart_from_per_call_costs():
    _, rep = n05_report()
    one = {o.name: o for o in rep.one_off_calls}
    assert list(one) == ["cudaMalloc", "cudaFree", "cuModuleGetLoadingMode"]
    m = one["cudaMalloc"]
    assert (m.why, m.calls, m.total_calls, m.per_call_calls) == ("first_call", 1, 3, 2)
    assert m.time_s == pytest.approx(106_901_129 * NS, abs=1e-12)
    assert m.per_call_s == pytest.approx(11_281 * NS, abs=1e-12)  # the other 2 calls together
    assert m.ratio_to_median == pytest.approx(106_901_129 / 6_584)
    f = one["cudaFree"]
    assert (f.why, f.calls) == ("first_call", 1) and f.time_s == pytest.approx(166_679 * NS, abs=1e-12)
    assert f.ratio_to_median == pytest.approx(166_679 / 9_850) and f.per_call_s == pytest.approx(12_775 * NS, abs=1e-12)
    g = one["cuModuleGetLoadingMode"]
    assert (g.why, g.calls, g.per_call_calls) == ("once", 1, 0) and g.time_s == pytest.approx(2_512 * NS, abs=1e-12)
    # per-call costs: the context creation is out of the ranking and of per-call advice
    api = {a.name: a for a in rep.api_calls}
    assert rep.api_calls[0].name == "cudaLaunchKernel" and "cuModuleGetLoadingMode" not in api
    assert api["cudaMalloc"].count == 2 and api["cudaMalloc"].total_s == pytest.approx(11_281 * NS, abs=1e-12)
    assert api["cudaMalloc"].mean_s == pytest.approx(5_640.5 * NS, abs=1e-12) and api["cudaMalloc"].max_s is None
    assert sum(a.share_pct for a in rep.api_calls) == pytest.approx(100.0)
    assert all(n.key != "tl_summary_api_dominates" for n in rep.notes)  # 106.9 ms of setup is not "host-bound"
    assert {n.key for n in rep.notes} >= {"tl_one_off_first_call", "tl_one_off_once"}
    for fd in rep.findings:  # no per-call advice about the one-off calls
        assert "cudaMalloc" not in str(fd.message.values) and "cuModuleGetLoadingMode" not in str(fd.message.values)
    # the rows kept for the other analyses are unchanged (SummaryRow fields as read)
    kern = {k.name: k for k in rep.kernels}
    assert kern[VECTOR_ADD].count == 1_010 and not kern[VECTOR_ADD].truncated


def test_n05_cli_table_and_json(tmp_path, capsys):
    path = need(CASES / N05)
    assert strict(main, ["timeline", str(path)]) == 0
    out = capsys.readouterr().out
    assert "One-off costs" in out and "106.9 ms" in out and "first call" in out
    assert "name cut" not in out and "malformed JSON" not in out
    target = tmp_path / "n05.json"
    assert strict(main, ["timeline", str(path), "--format", "json", "-o", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert '"inf"' not in text and "Infinity" not in text and "NaN" not in text
    doc = json.loads(text)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "timeline-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    rep = doc["reports"][0]
    one = {o["name"]: o for o in rep["one_off_calls"]}
    assert one["cudaMalloc"]["time_s"] == pytest.approx(0.106901129) and one["cudaMalloc"]["why"] == "first_call"
    assert not next(k for k in rep["kernels"] if k["name"] == VECTOR_ADD)["truncated"]
    for lang in ("en", "zh"):
        assert "cudaMalloc" in render_timeline([n05_report()[1]], "markdown", lang)


def test_one_off_rule_is_validated_data_with_its_source():
    rule = timeline_checks().one_off_calls
    assert rule.min_ratio_to_median == 10.0 and "Initialization" in rule.source and "N05" in rule.source
    assert rule.first_call.search("cudaMalloc") and rule.first_call.search("cudaFree")
    assert rule.once.search("cuModuleGetLoadingMode") and not rule.once.search("cudaLaunchKernel")
    assert not rule.first_call.search("cudaLaunchKernel") and not rule.first_call.search("cudaMemcpy")
    data = dict(raw("timeline_rules.toml"))
    for broken in ({**data, "one_off_calls": {**data["one_off_calls"], "once_regex": "("}},
                   {**data, "one_off_calls": {**data["one_off_calls"], "min_ratio_to_median": 0.5}},
                   {**data, "impossible_records": {"max_distance_from_median_s": 0, "source": "x"}}):
        with pytest.raises(InputError, match="^timeline_rules.toml: field '"):
            validate_data(broken, TimelineChecks, "timeline_rules.toml")


def test_one_off_without_a_median_uses_the_other_calls(tmp_path):
    # the 2021 layout prints no median: the longest call is compared with the mean of the others
    text = (" Time(%)  Total Time (ns)  Num Calls   Average    Minimum      Maximum   Name\n"
            " -------  ---------------  ---------  ---------  ---------  -----------  ----------\n"
            "    99.0      200,030,000          4  50,007,500.0     10,000  200,000,000  cudaMalloc\n"
            "     1.0        2,000,000         10    200,000.0    190,000      210,000  cudaMemcpy\n")
    p = tmp_path / "legacy.txt"
    p.write_text(text, encoding="utf-8")
    (rep,) = analyse(read_nsys_stats(p))
    (o,) = rep.one_off_calls
    assert (o.name, o.calls, o.per_call_calls) == ("cudaMalloc", 1, 3)
    assert o.per_call_s == pytest.approx(30_000 * NS) and o.median_s is None
    assert o.ratio_to_median == pytest.approx(200_000_000 / 10_000)


# ------------------------------------------------------------------------------------------------ detection
N05_LINES = [
    "[3/8] Executing 'nvtx_sum' stats report",
    " Time (%)  Total Time (ns)  Instances   Avg (ns)     Med (ns)    Min (ns)   Max (ns)   StdDev (ns)   Style      "
    "Range    ",
    " Time (%)  Total Time (ns)  Num Calls    Avg (ns)    Med (ns)  Min (ns)   Max (ns)    StdDev (ns)            Name",
    " Time (%)  Total Time (ns)  Count  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)      Operation     ",
    " Total (MB)  Count  Avg (MB)  Med (MB)  Min (MB)  Max (MB)  StdDev (MB)      Operation     ",
    CSV_HEADER.strip(),
    '"Time (%)","Total Time (ns)","Instances","Avg (ns)","Med (ns)","Min (ns)","Max (ns)","StdDev (ns)","Name"',
    "| Time (%) | Total Time (ns) | Instances |  Avg (ns)  | Med (ns) | Min (ns) | Max (ns) | StdDev (ns) | Name |",
]


@pytest.mark.parametrize("line", N05_LINES)
def test_detected_from_any_one_line(tmp_path, line):
    p = tmp_path / "one_line.txt"
    p.write_text("\n" + line + "\n", encoding="utf-8")
    assert detect_timeline_format(p) == "nsys-stats"


def test_detected_from_the_executing_line_alone(tmp_path):
    p = tmp_path / "exec.txt"
    p.write_text("[3/8] Executing 'nvtx_sum' stats report\n", encoding="utf-8")
    assert detect_timeline_format(p) == "nsys-stats"
    p.write_text("\n[5/8] Executing 'cuda_api_sum' stats report\n\n", encoding="utf-8")
    assert detect_timeline_format(p) == "nsys-stats"


def test_json_traces_are_still_kineto(tmp_path):
    for body in (b'[{"ph": "X"}]', b'  [\n  {"ph": "X"}]', b"[]", b'{"traceEvents": []}'):
        p = tmp_path / "trace.txt"
        p.write_bytes(body)
        assert detect_timeline_format(p) == "kineto"


# ------------------------------------------------------------------------------------------------ no data
def refused(tmp_path: Path, capsys, name: str, body: str) -> str:
    """Run the CLI on a file that must be refused: exit 2, one line on stderr naming the file, nothing on
    stdout, no output file."""
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    out = tmp_path / "out.json"
    assert strict(main, ["timeline", str(p), "--format", "json", "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert captured.err.count("\n") == 1 and str(p) in captured.err
    return captured.err


def test_header_only_csv_is_no_data(tmp_path, capsys):
    err = refused(tmp_path, capsys, "stats.csv", CSV_HEADER)
    assert "no data" in err and "header" in err
    assert detect_timeline_format(tmp_path / "stats.csv") == "nsys-stats"


def test_header_only_console_tables_are_no_data(tmp_path, capsys):
    body = ("[5/8] Executing 'cuda_api_sum' stats report\n\n"
            " Time (%)  Total Time (ns)  Num Calls  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Name\n"
            " --------  ---------------  ---------  --------  --------  --------  --------  -----------  ----\n\n")
    err = refused(tmp_path, capsys, "stats.txt", body)
    assert "no data" in err and "cuda_api_sum" in err


def test_negative_only_csv_is_refused_naming_the_field(tmp_path, capsys):
    body = CSV_HEADER + "100.0,-5000,2,-2500.0,-2500.0,-3000,-2000,707.1,cudaMalloc\n" \
                        "50.0,-1000,1,-1000.0,-1000.0,-1000,-1000,0.0,cudaFree\n"
    err = refused(tmp_path, capsys, "neg.csv", body)
    assert "negative" in err and "'Total Time (ns)'" in err and "line 2" in err


def test_a_negative_row_among_good_ones_is_left_out_and_stated(tmp_path):
    p = tmp_path / "mixed.csv"
    p.write_text(CSV_HEADER + "90.0,9000,3,3000.0,3000.0,2000,4000,1000.0,cudaMemcpy\n"
                              "10.0,-1000,1,-1000.0,-1000.0,-1000,-1000,0.0,cudaFree\n", encoding="utf-8")
    s = read_nsys_stats(p)
    assert [r.name for r in s.rows] == ["cudaMemcpy"]
    assert any("negative" in x and "line 3" in x and "Total Time (ns)" in x for x in s.problems)


def test_a_time_pct_that_cannot_be_real_is_recomputed_and_said(tmp_path, capsys):
    # found by the fuzzer: a "Time (%)" of 2^64 became a share of 1.8e19 % in the JSON
    from conftest import SHARED

    src = need(SHARED / "corpus").rglob("tienshen_nsys_stats_nvtx_sum_fp16_table.txt")
    data = next(src).read_bytes()  # (not UTF-8 throughout: cut names)
    assert b"|     22.6 |" in data
    path = tmp_path / "nvtx.txt"
    path.write_bytes(data.replace(b"|     22.6 |", b"| 18446744073709551616 |", 1))
    assert main(["timeline", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc["reports"][0]["annotations"]
    assert all(0 <= r["share_pct"] <= 100 for r in rows), [r["share_pct"] for r in rows]
    total = sum(r["total_s"] for r in rows)
    bad = [r for r in rows if abs(r["share_pct"] - 100 * r["total_s"] / total) < 1e-6]
    assert bad, "the implausible row's share is recomputed from the totals"
    assert any("Time (%) cannot be real" in (n.get("text") or json.dumps(n)) for n in doc["reports"][0]["notes"])

"""Honest comparisons (issue 16): how each side measured (read from the .ncu-rep itself) and the warning when the
two sides measured differently, timelines as sides (two program runs, or a report against a timeline), the overall
speedup of the matched kernels with the unmatched time apart, regressions worded as such, the regressions line on
a line of its own, and pairs matched by name with another grid/block flagged in the table."""

from __future__ import annotations

import json
import struct

import pytest

from conftest import CORPUS_NCU, REPO, need
from conftest import flat as flat_text
from kernelscope.analysis.compare import compare, method_warnings
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.cli import main
from kernelscope.ingest.measurement import ncu_command_settings, ncu_rep_measurement, timeline_measurement
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig, Measurement
from kernelscope.render.compare import to_json, to_markdown, to_text

GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})
NAIVE = "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"  # naive_gemm x2, grid 32x32x1, block 32x32x1
DEFAULTS = Measurement(tool="ncu", replay_mode="kernel", cache_control="flush-all", clock_control="base")


def _d(name, duration_s, index=0, grid=(10, 1, 1), **kw):
    k = KernelProfile(index=index, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=grid, block=(256, 1, 1)), duration_s=duration_s, **kw)
    return diagnose(k, GPU)


# ------------------------------------------------------------------------------------ Kineto traces by hand
def _ev(name, ts, dur, grid, block):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "grid": list(grid), "block": list(block)}}


def _trace(path, kernels, start=1000, gap=5):
    """A Kineto trace of kernels run back to back: ``(name, duration µs, count, grid, block)`` each, ``gap`` µs
    apart, from ``start`` µs; returns (path, wall in s) with the wall computed by hand."""
    events, t = [], start
    for name, dur, count, grid, block in kernels:
        for _ in range(count):
            events.append(_ev(name, t, dur, grid, block))
            t += dur + gap
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A10G"}],
                                "traceEvents": events}))
    return path, (t - gap - start) * 1e-6


GEMM = "naive_gemm(float const*, float const*, float*, int, int, int, float, float)"  # Kineto's spelling


# -------------------------------------------------------------------------------- what a report records
def test_ncu_command_line_settings_and_defaults():
    assert ncu_command_settings("/opt/ncu -o r ./a.out") == {"replay_mode": "kernel", "cache_control": "flush-all",
                                                             "clock_control": "base"}
    got = ncu_command_settings("ncu --replay-mode application --cache-control none --clock-control=none -o r ./a")
    assert got == {"replay_mode": "application", "cache_control": "none", "clock_control": "none"}
    assert ncu_command_settings("ncu --cache-control all --replay-mode range ./a")["cache_control"] == "flush-all"
    # executed clock status wins over what the command line asked; GUI settings when there is no command line
    assert ncu_rep_measurement("ncu --clock-control base ./a", {}, (True, False), 0).clock_control == "none"
    gui = ncu_rep_measurement(None, {"ClockControlMode": "Base", "ReplayMode": "Application"}, None)
    assert gui == Measurement(tool="ncu", replay_mode="application", cache_control=None, clock_control="base")
    assert ncu_rep_measurement(None, {}, None, range_results=3).replay_mode == "range"
    assert timeline_measurement("kineto") == Measurement("pytorch", "none", "none", "none")


@pytest.mark.parametrize("name, expected", [
    (NAIVE, DEFAULTS),  # `ncu --set full -o ...`: ncu's defaults
    ("panjd123__cutlass__report-s8.ncu-rep", DEFAULTS),  # --cache-control all --clock-control base, spelled out
    ("DarrenLu666888__CUDATutorial__profile.ncu-rep",  # the GUI: settings without cache control or replay mode
     Measurement(tool="ncu", replay_mode=None, cache_control=None, clock_control="base")),
    ("ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep",  # 2021.2, no command line: the clock status only
     Measurement(tool="ncu", replay_mode=None, cache_control=None, clock_control="base")),
])
def test_ncu_rep_records_how_it_measured(name, expected):
    pytest.importorskip("ncu_report")
    from kernelscope.ingest import load

    assert load(need(CORPUS_NCU / name)).measurement == expected


def _fields(data: bytes) -> list[tuple[int, int, bytes]]:
    """(number, wire type, raw value bytes) of a protobuf message's top-level fields, in order."""
    def varint(i):
        shift = value = 0
        while True:
            b = data[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value, i
    out, i = [], 0
    while i < len(data):
        key, j = varint(i)
        wire = key & 7
        if wire == 0:
            _, k = varint(j)
            out.append((key >> 3, 0, data[j:k]))
        elif wire == 2:
            n, k = varint(j)
            out.append((key >> 3, 2, data[k:k + n]))
            k += n
        else:
            k = j + (8 if wire == 1 else 4)
            out.append((key >> 3, wire, data[j:k]))
        i = k
    return out


def _encode(fields) -> bytes:
    def varint(v):
        out = bytearray()
        while True:
            out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
            v >>= 7
            if not v:
                return bytes(out)
    return b"".join(varint(n << 3 | w) + (varint(len(v)) + v if w == 2 else v) for n, w, v in fields)


def _with_cmdline(src, dst, extra: str):
    """A copy of a report whose recorded ncu command line gets ``extra`` options (block headers rewritten)."""
    data = src.read_bytes()
    n = struct.unpack_from("<I", data, 4)[0]
    out, pos = bytearray(data[:8 + n]), 8 + n
    while pos < len(data):
        hn = struct.unpack_from("<I", data, pos)[0]
        header = data[pos + 4:pos + 4 + hn]
        payload = next(_varint_value(v) for k, w, v in _fields(header) if k == 5)
        fields = []
        for k, w, v in _fields(header):
            if k == 3:
                session = [(a, b, c.replace(b" -o ", f" {extra} -o ".encode(), 1) if a == 11 else c)
                           for a, b, c in _fields(v)]
                v = _encode(session)
            fields.append((k, w, v))
        new = _encode(fields)
        out += struct.pack("<I", len(new)) + new + data[pos + 4 + hn:pos + 4 + hn + payload]
        pos += 4 + hn + payload
    dst.write_bytes(bytes(out))
    return dst


def _varint_value(raw: bytes) -> int:
    return sum((b & 0x7F) << (7 * i) for i, b in enumerate(raw))


def test_two_reports_measured_alike_do_not_warn_and_other_settings_do(tmp_path, capsys):
    pytest.importorskip("ncu_report")
    from kernelscope.ingest import load

    naive = need(CORPUS_NCU / NAIVE)
    assert main(["compare", str(naive), str(naive), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["warnings"] == [] and doc["before_method"] == doc["after_method"] == {
        "tool": "ncu", "replay_mode": "kernel", "cache_control": "flush-all", "clock_control": "base"}
    assert main(["compare", str(naive), str(naive)]) == 0
    assert "measured differently" not in capsys.readouterr().out
    # the same report, its command line saying --cache-control none: a different method, named
    warm = _with_cmdline(naive, tmp_path / "warm.ncu-rep", "--cache-control none")
    assert load(warm).measurement == Measurement("ncu", "kernel", "none", "base")
    assert main(["compare", str(naive), str(warm), "--format", "json"]) == 0
    (w,) = json.loads(capsys.readouterr().out)["warnings"]
    assert w["key"] == "cmp_method" and w["values"]["differ"] == "cache_control"
    assert "caches flushed" in w["text"] and "caches not flushed" in w["text"]


def test_report_against_a_timeline_warns_about_the_method(tmp_path, capsys):
    pytest.importorskip("ncu_report")
    naive = need(CORPUS_NCU / NAIVE)
    trace, _ = _trace(tmp_path / "after.json", [(GEMM, 1000, 2, (32, 32, 1), (32, 32, 1))])
    assert main(["compare", str(naive), str(trace), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (k,) = doc["kernels"]
    assert (k["before_name"], k["after_name"], k["matched_by"]) == ("naive_gemm", GEMM, "signature")
    assert k["after"]["duration_s"] == pytest.approx(1e-3) and k["after"]["launches"] == 2
    assert k["speedup"] == pytest.approx(k["before"]["duration_s"] / 1e-3) and not k["shape_differs"]
    (w,) = doc["warnings"]
    assert w["key"] == "cmp_method" and (w["values"]["before_tool"], w["values"]["after_tool"]) == ("ncu", "pytorch")
    assert doc["after_method"] == {"tool": "pytorch", "replay_mode": "none", "cache_control": "none",
                                   "clock_control": "none"}
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "compare-2.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    for fmt, needle in (("table", "Warning: measured differently"), ("markdown", "Nsight Compute (serialised kernel replay")):
        assert main(["compare", str(trace), str(naive), "--format", fmt]) == 0  # either way round
        out = " ".join(capsys.readouterr().out.split())
        assert needle in out and "PyTorch profiler (in flight, no replay" in out


def test_two_timelines_compare_program_walls(tmp_path, capsys):
    before, wall_b = _trace(tmp_path / "before.json", [(GEMM, 4000, 3, (32, 32, 1), (32, 32, 1)),
                                                       ("other(float*)", 100, 10, (1, 1, 1), (64, 1, 1))])
    after, wall_a = _trace(tmp_path / "after.json", [(GEMM, 1000, 3, (32, 32, 1), (32, 32, 1)),
                                                     ("other(float*)", 100, 10, (1, 1, 1), (64, 1, 1)),
                                                     ("new_kernel()", 50, 2, (1, 1, 1), (32, 1, 1))])
    assert main(["compare", str(before), str(after), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    programs = doc["programs"]
    assert programs["before"]["wall_s"] == pytest.approx(wall_b) and programs["after"]["wall_s"] == pytest.approx(wall_a)
    assert programs["wall_speedup"] == pytest.approx(wall_b / wall_a)
    assert programs["before"]["kernel_s"] == pytest.approx(13e-3) and programs["before"]["gpu_idle_s"] == pytest.approx(12 * 5e-6)
    gemm = next(k for k in doc["kernels"] if k["before_name"] == GEMM)
    assert gemm["before"]["launches"] == 3 and gemm["before"]["total_s"] == pytest.approx(12e-3)
    assert gemm["before"]["mean_s"] == pytest.approx(4e-3) and gemm["speedup"] == pytest.approx(4.0)
    assert doc["warnings"] == [] and doc["unmatched_after"] == ["new_kernel()"]
    assert doc["matched_before_s"] == pytest.approx(13e-3) and doc["matched_after_s"] == pytest.approx(4e-3)
    assert doc["unmatched_after_s"] == pytest.approx(100e-6)
    assert main(["compare", str(before), str(after)]) == 0
    out = capsys.readouterr().out
    assert "Program wall" in out and "Kernels running" in out and "No GPU work" in out


# ------------------------------------------------------------------------- matched time, unmatched apart
def test_overall_speedup_counts_matched_kernels_only():
    before = [_d("A", 1e-3), _d("B", 1e-3, 1), _d("gone", 20e-3, 2)]  # an unmatched kernel dominates
    after = [_d("A", 1.01e-3), _d("B", 1.01e-3, 1), _d("new", 0.1e-3, 2)]
    c = compare(before, after)
    assert c.speedup == pytest.approx(2 / 2.02)  # 0.99x, not 22 / 2.12 = 10.4x
    assert c.total_speedup == pytest.approx(22 / 2.12)
    assert (c.unmatched_before_s, c.unmatched_after_s) == (pytest.approx(20e-3), pytest.approx(0.1e-3))
    assert "total" in c.regressions(0.005)
    text = " ".join(to_text(c, "en").split())
    assert "Matched kernels (2): 2.000 ms -> 2.020 ms; Speedup 0.99x (1% slower)" in text  # whole µs: 4 digits
    assert "Not matched: 20.00 ms before only (gone); 100 µs after only (new)" in text
    assert "Overall" not in text
    # the matched kernels are 9% of the BEFORE time: every kernel's ratio leads, named as the headline
    assert c.headline == "all"
    assert text.index("All kernels (the headline, since") < text.index("Not matched") < text.index("Matched kernels (2)")
    assert "22.00 ms -> 2.120 ms; Speedup 10.38x" in text  # review 11: each value its four digits
    doc = json.loads(to_json(c, "en"))
    assert doc["speedup"] == pytest.approx(2 / 2.02) and doc["total_speedup"] == pytest.approx(22 / 2.12)


def test_a_regression_reads_as_one():
    c = compare([_d("A", 1.0e-3)], [_d("A", 1.0e-3 / 0.95)])
    text = " ".join(to_text(c, "en").split())
    assert "Speedup 0.95x (5% slower)" in text and "faster" not in text
    assert "What moved: 1.000 ms -> 1.053 ms" in text and text.count("slower") == 1  # said once (review 8)
    zh = flat_text(to_text(c, "zh"))
    # 1 / 0.95 = 1.0526: the times' ratio, one bracket with the noise (issue 28: not "0.02×（慢了 5430%）")
    assert "加速比 0.95×（变慢，耗时为优化前的 1.05×；运行间波动未知" in zh
    # the only pair: its heading gives the factor the matched kernels' line said in words (said once, review 8)
    assert "A：加速比 0.95×（运行间波动未知：优化前 1 次启动，优化后 1 次" in zh and zh.count("变慢") == 1
    assert to_markdown(c, "zh").count("变慢，耗时为优化前的 1.05×") == 1
    two = compare([_d("A", 1.0e-3), _d("B", 1.0e-3)], [_d("A", 1.0e-3 / 0.95), _d("B", 1.0e-3)])
    assert "A：加速比 0.95×（变慢，耗时为优化前的 1.05×" in flat_text(to_text(two, "zh"))  # a pair of several says it


def test_regressions_line_stands_on_its_own_line():
    c = compare([_d("A", 1e-3), _d("B", 1e-3, 1)], [_d("A", 1e-3), _d("B", 2e-3, 1)])
    regressions = c.regressions(0.05)
    assert regressions == ("B", "total")
    for text, line in ((to_text(c, "en", regressions, 5.0), "Regressions beyond 5%: B, total"),
                       (to_markdown(c, "en", regressions, 5.0), "**Regressions beyond 5%: B, total**")):
        lines = text.splitlines()
        i = lines.index(line)  # a whole line of its own
        assert lines[i - 1].strip() == "" and not any(line in x for j, x in enumerate(lines) if j != i)


def test_grid_or_block_mismatch_is_flagged_in_the_table():
    c = compare([_d("A", 1e-3, grid=(10, 1, 1)), _d("K", 1e-3, 1)], [_d("A", 1e-3, grid=(20, 1, 1)), _d("K", 1e-3, 1)])
    a = next(p for p in c.pairs if p.before_name == "A")
    k = next(p for p in c.pairs if p.before_name == "K")
    assert (a.matched_by, a.shape_differs) == ("name", True) and (k.matched_by, k.shape_differs) == ("name+shape", False)
    text = " ".join(to_text(c, "en").split())
    assert "A (!): Speedup" in text and "K (!)" not in text
    assert ("(!) grid/block differ: before grid 10x1x1, block 256x1x1; after grid 20x1x1, block 256x1x1: matched by "
            "name, not the same launch") in text
    md = to_markdown(c, "en")
    assert "| `A (!)` |" in md and "(!) grid/block differ" in md
    doc = json.loads(to_json(c, "en"))
    assert [x["shape_differs"] for x in doc["kernels"] if x["before_name"] == "A"] == [True]
    assert next(x for x in doc["kernels"] if x["before_name"] == "A")["before"]["grid"] == [10, 1, 1]


def test_method_warning_needs_both_sides_known():
    ncu, torch = DEFAULTS, timeline_measurement("kineto")
    assert method_warnings(ncu, None) == () and method_warnings(ncu, ncu) == ()
    assert method_warnings(Measurement(tool="ncu"), ncu) == ()  # unknown settings are not a difference
    (w,) = method_warnings(Measurement(tool="ncu"), Measurement(tool="nvprof"))
    assert w.values["differ"] == "tool"
    (w,) = method_warnings(ncu, torch)
    assert w.values["differ"] == "tool, replay_mode, cache_control, clock_control"

"""From the timeline to the kernel: ``kernelscope timeline TRACE --kernels REPORT...`` joins the timeline's top
kernels with their Nsight Compute diagnoses (:mod:`kernelscope.analysis.timeline.join`).

The constructed pair: a Kineto trace written here whose kernel names (spelled as Kineto spells them) are kernels of
the corpus report ``AveryClapp__ESMM-Research__profile.ncu-rep``, with durations chosen so every figure is computed
by hand; the verdicts and top findings expected are read from ``kernelscope diagnose --format json`` of the report.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, REPO, need
from kernelscope.analysis.timeline import join_kernels
from kernelscope.knowledge.names import function_name, normalised, signature
from kernelscope.api import diagnose_file, timeline_file
from kernelscope.cli import main

ESMM = CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep"
US = 1e-6

ONE_D_VEC = "void one_d_vec<64, 64, 16, 16, 1>(int, int, int, float*, float*, float*)"
BASIC = "basic(int, int, int, float const*, float const*, float*)"
GMEM = "void gmem_coalesce<32>(int, int, int, float const*, float const*, float*)"
SGEMM = "ampere_sgemm_128x64_nn"
SMEM = "void smem_blocking<32>(int, int, int, float const*, float const*, float*)"
TWO = "void two_blocktiling<128, 128, 8, 8, 8>(int, int, int, float const*, float const*, float*)"
FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
        ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)")

#: (name, duration µs, grid, block), run one after the other on one stream with 50 µs gaps.
PLAN = [
    (ONE_D_VEC, 300, [16, 16, 1], [256, 1, 1]),
    (BASIC, 250, [32, 32, 1], [32, 32, 1]),
    (ONE_D_VEC, 300, [16, 16, 1], [256, 1, 1]),
    (GMEM, 200, [32, 32, 1], [32, 32, 1]),
    (SGEMM, 90, [8, 16, 5], [128, 1, 1]),
    (ONE_D_VEC, 300, [16, 16, 1], [256, 1, 1]),
    (BASIC, 250, [32, 32, 1], [32, 32, 1]),
    (SMEM, 120, [64, 64, 1], [32, 32, 1]),  # the report launched it with grid (32, 32, 1)
    (SGEMM, 90, [8, 16, 5], [128, 1, 1]),
    (FILL, 50, [1, 1, 1], [128, 1, 1]),  # not in the report
    (TWO, 100, [8, 8, 1], [256, 1, 1]),
]
GAP = 50
KERNEL_US = sum(d for _, d, _, _ in PLAN)  # 2050
WALL_US = KERNEL_US + GAP * (len(PLAN) - 1)  # 2550
#: timeline name -> (total µs, report launch index shown: the median-duration launch of those that matched)
EXPECTED = {ONE_D_VEC: (900, 6), BASIC: (500, 0), GMEM: (200, 1), SGEMM: (180, 10), SMEM: (120, 2), TWO: (100, 4),
            FILL: (50, None)}


def write_trace(path: Path, plan=PLAN) -> Path:
    events, ts = [], 1000
    for i, (name, dur, grid, block) in enumerate(plan):
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 7", "ts": ts, "dur": dur,
                       "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": grid, "block": block}})
        ts += dur + GAP
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def diagnosed():
    """The report diagnosed (every launch, findings located)."""
    return diagnose_file(need(ESMM))


@pytest.fixture(scope="module")
def diagnose_json(tmp_path_factory):
    """``kernelscope diagnose --format json`` of the report: launch index -> its launch document."""
    out = tmp_path_factory.mktemp("diag") / "d.json"
    assert main(["diagnose", str(need(ESMM)), "--format", "json", "-o", str(out)]) == 0
    (inp,) = json.loads(out.read_text(encoding="utf-8"))["inputs"]
    return {launch["index"]: launch for launch in inp["launches"]}


def validate(doc: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "timeline-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def top_of(launch: dict) -> tuple[str | None, float | None]:
    """(id, estimated speedup) of the finding ``diagnose`` leads its advice with: the finding behind its first
    advice item."""
    if not launch["advice"]:
        return None, None
    first = launch["advice"][0]["id"]
    f = next(f for f in launch["findings"] if f["advice"] == first)
    return f["id"], f["estimated_speedup"]


def test_constructed_pair_rows(tmp_path, capsys, diagnose_json):
    trace = write_trace(tmp_path / "trace.json")
    assert main(["timeline", str(trace), "--kernels", str(need(ESMM)), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    joined = doc["reports"][0]["kernels_joined"]
    assert joined["program_time_s"] == pytest.approx(WALL_US * US) and joined["basis"] == "exclusive"
    assert joined["reports"] == [str(ESMM)] and joined["matched"] == 6
    rows = {k["name"]: k for k in joined["kernels"]}
    assert [k["name"] for k in joined["kernels"]] == list(EXPECTED)  # ranking order, largest total first
    for name, (total_us, index) in EXPECTED.items():
        k = rows[name]
        assert k["total_s"] == pytest.approx(total_us * US)
        assert k["share_pct"] == pytest.approx(100 * total_us / KERNEL_US)  # of the summed kernel time
        assert k["program_fraction"] == pytest.approx(total_us / WALL_US)  # one stream, no overlap: total / wall
        if index is None:
            assert k["ncu"] is None and k["program_speedup"] is None and k["amdahl"] is None
            continue
        ncu, launch = k["ncu"], diagnose_json[index]
        assert ncu["index"] == index and ncu["demangled_name"] == launch["demangled_name"]
        assert ncu["verdict"] == launch["classes"] and ncu["bound"] == launch["bound"]
        top_id, speedup = top_of(launch)
        assert ncu["top_finding"]["id"] == top_id and ncu["estimated_speedup"] == speedup
        if speedup is None:
            assert k["program_speedup"] is None and ncu["estimated_speedup_pct"] is None
        else:
            f = total_us / WALL_US
            assert k["program_speedup"] == pytest.approx(1 / ((1 - f) + f / speedup))
            assert ncu["estimated_speedup_pct"] == pytest.approx(100 * (1 - 1 / speedup))
    # one_d_vec's first advice is its limiter (the LSU pipe at 63.9 %: memory instructions), an upper bound (every
    # value loaded once: the math pipes' roof), projected like any estimate above; its tail effect comes after it:
    # 1.07 waves leave up to 47 % of the SM time idle, the report measured 20.5 % (SM Active Cycles 356,375.6 of
    # 448,324 Elapsed Cycles), so at most 448324 / 356375.6 = 1.258x
    top = rows[ONE_D_VEC]["ncu"]["top_finding"]
    assert top["id"] == "memory_instructions_bound" and top["estimate_kind"] == "upper_bound"
    tail = next(f for f in diagnose_json[6]["findings"] if f["id"] == "tail_effect")
    assert tail["estimate_kind"] == "upper_bound" and tail["estimated_speedup"] == pytest.approx(448324 / 356375.6125)
    # the one kernel with an estimate first: two_blocktiling's small grid (64 blocks on 80 SMs: 0.2 of the SM time
    # idle), at most 1.25x; 100 of 2550 µs -> 1 / (1 - f + f / 1.25)
    f = 100 / 2550
    assert rows[TWO]["ncu"]["top_finding"]["id"] == "small_grid"
    assert rows[TWO]["ncu"]["estimated_speedup"] == pytest.approx(1.25)
    assert rows[TWO]["program_speedup"] == pytest.approx(1 / (1 - f + f / 1.25))
    assert rows[TWO]["amdahl"]["projected_s"][0] == pytest.approx(2550e-6 * (1 - f + f / 1.25))
    # two launches of the sgemm in the report (149.728 and 149.440 µs): the lower middle, [10]
    assert rows[SGEMM]["ncu"]["launches"] == 2 and rows[SGEMM]["ncu"]["duration_s"] == pytest.approx(149.44 * US)
    assert [rows[n]["ncu"]["shape"] for n in (ONE_D_VEC, BASIC, GMEM, SGEMM, SMEM)] == ["same"] * 4 + ["different"]
    absent = {a["name"] for a in joined["absent"]}
    assert absent == {"one_blocktiling", "vectorized_blocktiling", "warptiling", "one_warptiling"}
    assert [a["total_s"] for a in joined["absent"]] == sorted((a["total_s"] for a in joined["absent"]), reverse=True)


def test_table_and_markdown_views(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")  # wide enough for no cell to wrap
    trace = write_trace(tmp_path / "trace.json")
    assert main(["timeline", str(trace), "--kernels", str(need(ESMM))]) == 0
    out = capsys.readouterr().out
    assert "Top kernels and their Nsight Compute diagnoses: 6 of 7 with Nsight Compute data" in out
    assert "of the program wall 2.550 ms" in out
    assert "grid smaller than the GPU" in out and "at most 1.25x (20% of its" in out and "1.01x" in out
    assert "no Nsight Compute data" in out and "median of 2" in out and "other grid/block" in out
    assert "Nsight Compute kernels not in the timeline" in out and "one_blocktiling" in out
    assert main(["timeline", str(trace), "--kernels", str(need(ESMM)), "--format", "markdown", "--top", "2"]) == 0
    md = capsys.readouterr().out
    assert "all 2 with Nsight Compute data" in md
    assert "| `one_d_vec<…>(int, int, int, float*, float*, float*)` | 43.9% | 35.3% |" in md
    # without --kernels, no joined section and a null in JSON
    assert main(["timeline", str(trace), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["reports"][0]["kernels_joined"] is None


def test_zh_labels(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    trace = write_trace(tmp_path / "trace.json")
    assert main(["timeline", str(trace), "--kernels", str(need(ESMM)), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    for text in ("主要 Kernel 及其 Nsight Compute 诊断", "首要问题", "程序整体提速", "无 Nsight Compute 数据",
                 "时间线中没有的 Nsight Compute Kernel", "Grid 过小", "至多 1.25×"):
        assert text in out, text
    assert main(["timeline", str(trace), "--kernels", str(need(ESMM)), "--lang", "zh", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    kernels = doc["reports"][0]["kernels_joined"]["kernels"]
    assert kernels[0]["ncu"]["top_finding_title"] == "受限于加载/存储（LSU）管线上的访存指令"
    assert next(k for k in kernels if k["name"] == TWO)["ncu"]["top_finding_title"] == "Grid 过小"


def test_names_in_one_spelling():
    kineto = "void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, int, cudnn::reduced_divisor)"
    ncu = "void fft2d_r2c_32x32<float, (bool)0, (unsigned int)5, (bool)1>(float2 *, const float *, int, cudnn::reduced_divisor)"
    assert normalised(kineto) == normalised(ncu)
    assert signature(ncu) == "fft2d_r2c_32x32<float,false,5u,true>"
    assert signature("void k<(long)4, (unsigned long)2>(int)") == "k<4l,2ul>"
    assert function_name("void at::native::k<4, at::native::F<float> >(int, at::native::F<float>)") == "at::native::k"
    assert function_name("basic(int, int, int, const float *, const float *, float *)") == "basic"
    assert function_name("void at::native::vectorized_elementwise_kernel<4, at::native::…") == (
        "at::native::vectorized_elementwise_kernel")  # a name cut by nsys stats


def test_function_name_match_never_guesses(tmp_path, diagnosed):
    """Two report kernels sharing the function name ``k``: a timeline ``k`` spelled otherwise matches only when its
    grid/block picks one of them; otherwise it has no Nsight Compute data."""
    ks = list(diagnosed.kernels)
    ks[3] = replace(ks[3], kernel=replace(ks[3].kernel, name="k", demangled_name="void k<(int)1>(int)"))  # 16x16 / 512
    ks[4] = replace(ks[4], kernel=replace(ks[4].kernel, name="k", demangled_name="void k<(int)2>(int)"))  # 8x8 / 256
    rd = replace(diagnosed, kernels=tuple(ks))
    picked = write_trace(tmp_path / "a.json", [("void k<1u>(long)", 100, [8, 8, 1], [256, 1, 1])])
    (row,) = join_kernels(timeline_file(picked)[0], [rd]).kernels
    assert row.ncu is not None and (row.ncu.index, row.ncu.match, row.ncu.shape) == (4, "function", "same")
    ambiguous = write_trace(tmp_path / "b.json", [("void k<1u>(long)", 100, [2, 2, 1], [64, 1, 1])])
    join = join_kernels(timeline_file(ambiguous)[0], [rd])
    assert join.kernels[0].ncu is None and join.matched == 0
    assert {"void k<(int)1>(int)", "void k<(int)2>(int)"} <= {a.demangled_name for a in join.absent}

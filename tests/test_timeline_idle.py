"""The GPU-idle black hole: hiding host work under GPU work can save at most the GPU's busy time, and a CUDA API
call is named as what fills the idle time only when it covers at least half of it (blind review of 2026-12-02:
"hiding it under GPU work -> 657x" on a trace of 66 ms of GPU work in 43 s)."""

from __future__ import annotations

import json

from conftest import SHARED, need

import pytest

from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.api import timeline_file
from kernelscope.ingest import load_timeline
from kernelscope.render.timeline import render_timeline


def _trace(path, api_us):
    """Kernel A [0, 10) ms and kernel B [90, 100) ms on stream 7; between them the host runs a CPU operator for
    80 ms and, inside it, a cudaMalloc of ``api_us``: busy 20 ms, idle 80 ms, wall 100 ms (+ the launch calls)."""
    ev = [
        {"ph": "X", "cat": "kernel", "name": "A", "pid": 0, "tid": 7, "ts": 1000, "dur": 10_000,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "B", "pid": 0, "tid": 7, "ts": 91_000, "dur": 10_000,
         "args": {"device": 0, "stream": 7, "correlation": 2}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 995, "dur": 4,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90_995, "dur": 4,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "cpu_op", "name": "host_work", "pid": 1, "tid": 1, "ts": 11_000, "dur": 80_000},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 1, "tid": 1, "ts": 12_000, "dur": api_us,
         "args": {"correlation": 3}},
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
                                "traceEvents": ev}))
    return path


@pytest.mark.parametrize("api_us, named", [(5_000, False), (60_000, True)])
def test_hiding_idle_saves_at_most_the_busy_time(tmp_path, api_us, named):
    rep = analyse_timeline(load_timeline(str(_trace(tmp_path / "t.json", api_us))))
    bh = rep.black_hole
    assert bh.category == "gpu_idle" and bh.time_s == pytest.approx(80e-3, rel=1e-3)
    wall = rep.wall_s
    # the host's 80 ms still run: beside the GPU's 20 ms the rank takes max(20, 80) = 80 ms, not 20 ms (5x)
    assert bh.amdahl.speedups[-1] == pytest.approx(wall / 80e-3, rel=1e-3)
    # half of it hidden (2x): 40 ms would overlap, but only 20 ms of GPU work exist to hide it under
    assert bh.amdahl.speedups[0] == pytest.approx(wall / (wall - 20e-3), rel=1e-3)
    assert (bh.host_api == "cudaMalloc") is named
    text = " ".join(render_timeline([rep], "table", "en").split())
    assert ("meanwhile the host spent" in text) is named and ("host code outside CUDA" in text) is not named
    assert f"{100 * 80e-3 / wall:.1f}% of the program time" in text  # the idle share of the wall


def test_summary_whose_host_api_time_dominates_headlines_the_host():
    """``nsys stats`` of a GCN run: 1.48 s of CUDA API calls (one 929 ms cudaMemcpyAsync) for 0.43 ms of GPU work:
    no GPU item is the largest cost; the headline says to look at the host first."""
    path = need(SHARED / "corpus" / "nsys" / "ai4mat_nsys_stats_console_torch_gcn.txt")
    (rep,) = timeline_file(str(path), None)
    text = " ".join(render_timeline([rep], "table", "en").split())
    head = text[text.index("Largest time black hole"):][:200]
    assert "host-side CUDA API time" in head and "look at the host side first" in head



def test_an_annotation_running_far_past_the_capture_is_clipped_and_said(tmp_path):
    """A ``ProfilerStep#1`` on another thread ends 10 ms after a 100 µs capture (the corpus
    hta_triton_example trace: 13.3 s past a 355 ms capture): it ends at the last event, listed as repaired, and the
    wall is the recorded activity's."""
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 2, "tid": 2, "ts": 10, "dur": 10_000},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 160, "dur": 40,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
                                "traceEvents": ev}))
    tl = load_timeline(str(path))
    (r,) = [r for r in tl.repaired if r.kind == "annotation"]
    assert r.name == "ProfilerStep#1" and r.removed_ns == (10 + 10_000 - 200) * 1000
    rep = analyse_timeline(tl)
    assert rep.wall_s == pytest.approx(190e-6)  # 10 µs (the step starts) .. 200 µs (the kernel ends)
    # a step range that ends just after the last event (the usual case) is left as it is
    ev[0]["dur"] = 250
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
                                "traceEvents": ev}))
    assert not [r for r in load_timeline(str(path)).repaired if r.kind == "annotation"]


def _init_trace(path, api: str, first: bool):
    """One API call of 60 ms with no GPU work beside it, then kernel A [60.3, 70.3) ms and B [91, 101) ms; the call
    is the host's first CUDA API call (``first``) or comes after A's launch."""
    at = 100 if first else 70_400
    ev = [
        {"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1, "tid": 1, "ts": at, "dur": 20_000 if not first
         else 60_000, "args": {"correlation": 9}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 60_200, "dur": 4,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "A", "pid": 0, "tid": 7, "ts": 60_300, "dur": 10_000,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90_995, "dur": 4,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "B", "pid": 0, "tid": 7, "ts": 91_000, "dur": 10_000,
         "args": {"device": 0, "stream": 7, "correlation": 2}},
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
                                "traceEvents": ev}))
    return path


@pytest.mark.parametrize("api, first, init", [("cudaGetDeviceCount", True, True), ("cuInit", True, True),
                                              ("cudaMalloc", True, True), ("cudaMemcpy", True, False)])
def test_idle_filled_by_the_context_creation_is_initialisation_not_work_to_hide(tmp_path, api, first, init):
    """The first CUDA call creates the context (tens of ms to seconds, once per process): the idle time it fills is
    named as initialisation, with the advice to profile past the warm-up; a copy filling the same time is not."""
    rep = analyse_timeline(load_timeline(str(_init_trace(tmp_path / "t.json", api, first))))
    bh = rep.black_hole
    assert bh.category == "gpu_idle" and bh.host_api == api and bh.host_api_once is init
    text = " ".join(render_timeline([rep], "table", "en").split())
    assert ("the CUDA context's creation" in text) is init and ("leave the warm-up out" in text) is init


def test_a_context_creating_api_called_later_is_not_initialisation(tmp_path):
    rep = analyse_timeline(load_timeline(str(_init_trace(tmp_path / "t.json", "cudaMalloc", first=False))))
    bh = rep.black_hole
    assert bh.category == "gpu_idle" and not bh.host_api_once

"""Start-up of ``kernelscope timeline`` (issues 25/31: the whole process is what the Kineto benchmark times): the
command loads neither the kernel diagnosis nor the ceilings measurement, which only other commands use, and its
JSON output loads no rich (the terminal report's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import kernelscope

#: Modules of the kernel diagnosis and of ``kernelscope ceilings`` (about 40 ms of imports together), and the
#: terminal report's rich and CJK line breaking (about 30 ms).
NOT_FOR_TIMELINES = ("kernelscope.analysis.diagnosis", "kernelscope.api", "kernelscope.render.json",
                     "kernelscope.render.rows", "kernelscope.measure.ceilings", "kernelscope.analysis.ceilings",
                     "rich", "rich.console", "kernelscope.render.cjk", "kernelscope.render.fit")

_CHILD = r"""
import io, json, sys, contextlib
from kernelscope.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["timeline", sys.argv[1], "--format", "json"])
print(json.dumps({"code": code, "doc": json.loads(out.getvalue())["schema"], "loaded": sorted(sys.modules)}))
"""


def _trace(path: Path) -> Path:
    """A one-kernel PyTorch profiler trace (its launch call and the kernel)."""
    events = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 95, "dur": 2,
               "args": {"correlation": 1}},
              {"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_kernel", "pid": 0, "tid": 7, "ts": 100,
               "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}}]
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def test_timeline_json_loads_no_kernel_diagnosis(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(kernelscope.__file__).parents[1])}
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(_trace(tmp_path / "t.json"))], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["code"] == 0 and res["doc"] == "kernelscope.timeline/1"
    assert "kernelscope.analysis.timeline" in res["loaded"]  # (the child did run the timeline)
    assert [m for m in NOT_FOR_TIMELINES if m in res["loaded"]] == []


#: Modules the library's timeline of one trace file does without: the process pool (a directory's parallel read
#: only), the error catalogue's TOML reader (an error message only; the knowledge data come from its cache) and the
#: CSV module (text inputs only) -- about 15 ms of imports on this project's machines.
NOT_FOR_ONE_TRACE = ("multiprocessing", "concurrent.futures", "tomllib", "importlib.resources", "csv")

_LIBRARY_CHILD = r"""
import json, sys
from kernelscope.ingest import load_timeline
from kernelscope.analysis.timeline import analyse_timeline
report = analyse_timeline(load_timeline(sys.argv[1]))
print(json.dumps({"kernels": len(report.kernels), "loaded": sorted(sys.modules)}))
"""


def test_library_timeline_of_one_trace_loads_no_pool_toml_or_csv(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(kernelscope.__file__).parents[1])}
    proc = subprocess.run([sys.executable, "-c", _LIBRARY_CHILD, str(_trace(tmp_path / "t.json"))],
                          capture_output=True, text=True, env=env, timeout=120, check=True)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["kernels"] == 1
    assert [m for m in NOT_FOR_ONE_TRACE if m in res["loaded"]] == []

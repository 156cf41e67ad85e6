"""Native Chinese review 11 (items 1, 21, 23): a launch's ``problems`` in --lang, one ProfilerStep worded as one,
and the count of launches diagnosed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path("/work/shared/corpus")
SOFTMAX = CORPUS / "ncu/kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep"
DLRM = CORPUS / "torch_traces/param_dlrm_kineto_8rank_v100.tar.gz"


def _run(*args: str) -> str:
    env = dict(os.environ, COLUMNS="200", PYTHONPATH=str(Path(__file__).parents[1] / "src"))
    return subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True, text=True,
                          env=env, timeout=600).stdout


@pytest.mark.skipif(not SOFTMAX.exists(), reason="corpus report not here")
@pytest.mark.parametrize("lang, words", [("zh", "即峰值的 1.44 倍：任何单元都不可能超过峰值"),
                                         ("en", "1.44x its peak: no unit runs above its peak")])
def test_a_launchs_problems_follow_lang_like_its_implausible_text(lang, words):
    doc = json.loads(_run("diagnose", str(SOFTMAX), "--format", "json", "--lang", lang))
    (launch,) = doc["inputs"][0]["launches"]
    assert launch["problems"] == [x["text"] for x in launch["implausible"]]
    assert words in launch["problems"][0]


@pytest.mark.skipif(not DLRM.exists(), reason="corpus trace not here")
@pytest.mark.parametrize("lang, right, wrong", [
    ("zh", "仅 1 个 ProfilerStep（#10，Rank 5）：17.80 ms；无法比较步间差异", "步间差异为中位数的"),
    ("en", "1 ProfilerStep (#10, rank 5): 17.80 ms; no step-to-step spread with one step", "of the median")])
def test_one_profiler_step_is_worded_as_one(lang, right, wrong):
    out = _run("timeline", str(DLRM), "--lang", lang, "--format", "markdown")
    assert right in out
    assert wrong not in out

"""One word per quantity for "overlap" in the timeline (native review 13, nits): the DLRM timeline printed "重叠" /
"Overlap" over the GPU table's stream overlap (334 µs: the sum over a GPU's streams less its busy time) and over the
ranks' compute/communication overlap (324 µs: the communication computation hides). Each has its glossary term:
Stream 间重叠 / "Stream overlap", 隐藏的通信 / "Hidden comm." (beside 暴露的通信 / "Exposed comm.")."""

from __future__ import annotations

import re

import pytest

from conftest import SHARED, need
from kernelscope.knowledge.glossary import glossary
from kernelscope.render.common import Fmt
from test_zh_output import run_cli_uncached

DLRM = SHARED / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz"


def test_the_two_overlaps_have_two_words_each_a_glossary_term():
    terms = {t.zh for t in glossary().term}
    for lang in ("zh", "en"):
        f = Fmt(lang)
        assert f.label("tl_overlap") != f.label("tl_overlap_short")
    assert {Fmt("zh").label("tl_overlap"), Fmt("zh").label("tl_overlap_short")} <= terms


def _headers(out: str) -> list[str]:
    """The header line of each table (the line above each rule)."""
    lines = out.splitlines()
    return [lines[n - 1] for n, line in enumerate(lines) if n and line.strip() and set(line.strip()) == {"─"}]


@pytest.mark.parametrize("lang, stream, hidden, bare", [("zh", "Stream 间重叠", "隐藏的通信", r"(?<![\u4e00-\u9fff])重叠"),
                                                       ("en", "Stream overlap", "Hidden comm.", r"(?<!Stream )\bOverlap\b")])
def test_the_dlrm_timeline_names_each_overlap(lang, stream, hidden, bare):
    code, out, err = run_cli_uncached(("timeline", str(need(DLRM)), "--lang", lang), 120)
    assert code == 0, err
    heads = _headers(out)
    assert any(stream in h for h in heads) and any(hidden in h for h in heads), heads
    assert not [h for h in heads if re.search(bare, h)], heads  # no column says "overlap" alone

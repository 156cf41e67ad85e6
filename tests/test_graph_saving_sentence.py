"""The CUDA-graph saving sentence as the timeline prints it (table, short and --details, en and zh): the printed
saving is at most the printed loop time less the printed time the launches then take (equal to it unless the
sentence says it is capped at the GPU idle time), and it is never above the program's wall unless the sentence says
it is summed over the ranks, then giving the program figure, itself never above the wall. The old sentence printed
"replay 1.122 ms instead of 47.70 ms → predicted saving 39.43 ms" (a sum over 8 ranks, the wall 19.95 ms)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SHARED, flat
from kernelscope.analysis.timeline import analyse
from kernelscope.errors import InputError
from kernelscope.ingest import load_timeline
from kernelscope.render.common import Fmt
from kernelscope.render.timeline import render_timeline

_EXT = (".json", ".json.gz", ".tar.gz", ".sqlite", ".sql", ".txt", ".csv", ".output")
INPUTS = sorted(p for d in ("corpus/torch_traces", "corpus/nsys") for p in (SHARED / d).glob("*")
                if p.name.endswith(_EXT))
_TIME = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_T = r"(\d+(?:\.\d+)?) ?(ns|µs|ms|s)\b"
_HEAD = {"en": "launch-bound launches as one CUDA graph:", "zh": "次启动开销受限的启动合为一个 CUDA Graph："}
_SUM = {"en": r"summed over (?:the )?(\d+) ranks", "zh": r"(\d+) 个 Rank 之和"}


def _secs(text: str) -> list[float]:
    return [float(v) * _TIME[u] for v, u in re.findall(_T, text)]


def _sentences(text: str, lang: str) -> list[tuple[str, str, str, str]]:
    """Each printed saving sentence as (before the arrow, the arrow to the saving, the words after it, the bracket
    right after it or "")."""
    out = []
    for start in (m.end() for m in re.finditer(re.escape(_HEAD[lang]), text)):
        arrow = text.index("→", start)
        saving = re.search(_T, text[arrow:])
        rest = text[arrow + saving.end():]
        scope = ""
        if rest.lstrip()[:1] in ("(", "（"):
            depth, body = 0, rest.lstrip()
            for i, ch in enumerate(body):
                depth += ch in "(（"
                depth -= ch in ")）"
                if depth == 0:
                    scope = body[:i + 1]
                    break
        out.append((text[start:arrow], text[arrow:arrow + saving.end()], rest[:120], scope))
    return out


@pytest.mark.parametrize("path", INPUTS or [pytest.param(None, marks=pytest.mark.skip(reason="no shared data"))],
                         ids=lambda p: p.name if isinstance(p, Path) else "absent")
def test_printed_graph_saving_adds_up_and_stays_within_the_wall(path):
    try:
        reports = analyse(load_timeline(path))
    except (InputError, ValueError, OSError) as e:
        pytest.skip(f"not a timeline kernelscope reads: {str(e)[:80]}")
    shown = {"en": 0, "zh": 0}
    for lang in ("en", "zh"):
        f = Fmt(lang)
        try:  # the words after a saving capped at the GPU idle time
            capped = f.label("tl_graph_saving_capped", saving_s="").strip(" ,，")
        except KeyError:  # (a code without the cap's words)
            capped = None
        for details in (False, True):
            for rep in reports:
                text = flat(render_timeline([rep], "table", lang, 10, width=400, details=details))
                for before, after, tail, scope in _sentences(text, lang):
                    shown[lang] += 1
                    figures = _secs(before)
                    kept, loop = figures[0], figures[-1]  # "{kept} (… replay) instead of {loop}"
                    saving = _secs(after)[0]
                    slack = 0.002 * loop + 1e-6  # four significant figures each
                    assert saving <= loop - kept + slack, (before, after, tail)
                    if capped is None or not tail.lstrip(" ,，").startswith(capped):
                        assert abs(saving - (loop - kept)) <= slack, (before, after, tail)
                    ranks = re.search(_SUM[lang], scope)
                    if rep.wall_s is None:
                        continue
                    if ranks is None:  # not said to be a sum: the saving is the program's, never above its wall
                        assert saving <= rep.wall_s * 1.001, (before, after, rep.wall_s)
                    else:  # a sum over ranks: the program figure printed beside it is at most the wall
                        assert f.time(rep.wall_s) in scope and _secs(scope)[-1] <= rep.wall_s * 1.001, scope
    assert shown["en"] == shown["zh"], shown  # each language's sentence found and checked
    if not shown["en"]:
        pytest.skip("prints no CUDA-graph saving")

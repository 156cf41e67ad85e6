"""The CUDA-graph saving of a timeline reads as arithmetic (native review 13, blocking item 3): every printed saving
follows from the figures printed beside it (the loop's launch time less the longer of the replay and the kernels' own
time, or the GPU idle time it is capped at), and a saving summed over ranks says so and gives the program figure,
never above the program's wall."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SHARED
from kernelscope.analysis.timeline import analyse
from kernelscope.errors import InputError
from kernelscope.ingest import load_timeline
from kernelscope.render.common import Fmt
from kernelscope.render.timeline_overview import graph_rows

_EXT = (".json", ".json.gz", ".tar.gz", ".sqlite", ".sql", ".txt", ".csv", ".output")
INPUTS = sorted(p for d in ("corpus/torch_traces", "corpus/nsys", "cases") for p in (SHARED / d).glob("*")
                if p.name.endswith(_EXT) or (p.is_dir() and d == "cases"))
_TIME = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def _reports(path: Path):
    try:
        return analyse(load_timeline(path))
    except (InputError, ValueError, OSError) as e:
        pytest.skip(f"not a timeline kernelscope reads: {str(e)[:80]}")


def _secs(text: str) -> list[float]:
    return [float(v) * _TIME[u] for v, u in re.findall(r"(\d+(?:\.\d+)?) ?(ns|µs|ms|s)\b", text)]


@pytest.mark.parametrize("path", INPUTS or [pytest.param(None, marks=pytest.mark.skip(reason="no shared data"))],
                         ids=lambda p: p.name if isinstance(p, Path) else "absent")
def test_every_graph_saving_adds_up_and_stays_within_the_program(path):
    for rep in _reports(path):
        b = rep.launch_bound
        if b is None or not b.launch_bound or b.predicted_saving_s <= 0:
            continue
        if rep.wall_s is not None:  # the program figure: never above the wall
            assert b.program_saving_s is not None and b.program_saving_s <= rep.wall_s + 1e-12
        for lang in ("en", "zh"):
            f = Fmt(lang)
            row = dict(graph_rows(rep, f))[f.label("tl_launch_cost_line")]
            clause = row[row.index("CUDA"):]
            arrow = clause.index("→")
            before, after = _secs(clause[:arrow]), _secs(clause[arrow:])
            loop, kept = before[-1], before[0]  # "{kept} (… {replay}) instead of {loop}"
            saving = after[0]
            capped = f.label("tl_graph_saving_capped", saving_s="").strip(" ,，")[:6] in clause
            if not capped:  # the printed saving is the printed loop less the printed time it then takes
                assert abs((loop - kept) - saving) <= 0.01 * max(saving, 1e-9) + 1e-6, clause
            if b.ranks > 1:  # a sum over ranks says so, and the program figure is at most the wall
                assert str(b.ranks) in clause and f.time(rep.wall_s) in clause, clause
                assert after[-1] <= rep.wall_s * 1.001, clause
            elif rep.wall_s is not None:
                assert saving <= rep.wall_s * 1.001, clause

"""One source for "the busiest unit": a piece of advice that names a busiest unit names the first unit of the ranking
the panel's Busiest-units row prints (the busier side's first unit), with the same percentage. Before, the
library-kernel finding took its unit from the model's busiest counter while the row printed the limiters' ranking
(report-s8: the row led with "L1-L2 interconnect 7.0%", the advice said "L1/TEX cache 5.3%"); the SM's busiest unit
(memory-instruction bound) is the compute side's first unit. Every corpus .ncu-rep,
every launch (``launches="all"``), both languages."""

from __future__ import annotations

import re

import pytest

from conftest import corpus_reports, panel_rows
from kernelscope import diagnose_file
from kernelscope.render import render

REPORTS = corpus_reports()
PARAMS = REPORTS or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))]

PCT = r" ?(\d+(?:\.\d+)?)%"
#: per language: the row's label, its side heads, its separators, and the advice clauses that name a busiest unit
#: (each with the ranking it must lead: "any" = the busier side's first unit, "compute" = the compute side's first:
#: the SM's busiest unit)
LANG = {
    "en": dict(row="Busiest units", sides={"compute": "compute: ", "memory": "memory: "}, item=", ", semi="; ",
               advice=[(r"Its busiest unit: (.+?)" + PCT + r"\.", "any"),
                       (r"The SM's busiest unit is the (.+?) at" + PCT + " of peak", "compute")]),
    "zh": dict(row="最繁忙的单元", sides={"compute": "计算：", "memory": "访存："}, item="、", semi="；",
               advice=[(r"最繁忙的单元为 (.+?)" + PCT + "。", "any"),
                       (r"SM 最繁忙的单元是(.+?)，达到峰值的" + PCT, "compute")]),
}


def _bare(name: str) -> str:
    """A unit's name without its gloss (the panel glosses a name at its first mention: "load/store (LSU) pipe",
    later "load/store pipe")."""
    return re.sub(r"\s*[（(][^()（）]*[)）]", "", name).strip()


def _ranking(value: str, w: dict) -> dict[str, list[tuple[str, float]]]:
    """The Busiest-units row as side -> [(unit, pct), ...] in printed order."""
    out: dict[str, list[tuple[str, float]]] = {}
    for part in value.split(w["semi"]):
        for side, head in w["sides"].items():
            if part.startswith(head):
                items = re.findall(r"(.+?)" + PCT + "(?:" + re.escape(w["item"]) + "|$)", part[len(head):])
                out[side] = [(_bare(n), float(p)) for n, p in items]
    return out


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_advice_names_the_first_unit_the_busiest_units_row_prints(path, monkeypatch):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    monkeypatch.setenv("COLUMNS", "1000")
    rd = diagnose_file(path)
    for lang, w in LANG.items():
        for panel in panel_rows(render([rd], "table", lang, launches="all", details=True)):
            row = panel.get(w["row"])
            named = [(m, side) for value in panel.values() for pattern, side in w["advice"]
                     for m in re.findall(pattern, value)]
            if not named:
                continue
            assert row is not None, (path.name, lang, named)  # advice names a busiest unit: the row prints the ranking
            ranking = {side: loads for side, loads in _ranking(row, w).items() if loads}
            assert ranking, (path.name, lang, row)
            first = max((loads[0] for loads in ranking.values()), key=lambda x: x[1])
            for (name, pct), side in named:
                lead = first if side == "any" else ranking[side][0]
                assert (_bare(name), float(pct)) == lead, (path.name, lang, row, name, pct)

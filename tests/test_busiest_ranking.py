"""One ranking of the busiest units (native review 13, item 4): the unit a piece of advice names as the busiest is the
first unit the panel's Busiest-units row prints (of the busier side), and one unit's percentage is printed with one
value per panel (the Busiest-units row and the Memory-levels row agree), over every corpus .ncu-rep and ncu_csv, in
both languages."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS_NCU, SHARED, panel_rows
from kernelscope import diagnose_file
from kernelscope.errors import InputError
from kernelscope.render import render

CSV = SHARED / "corpus" / "ncu_csv"
FILES = sorted(CORPUS_NCU.glob("*.ncu-rep")) + sorted(p for p in CSV.iterdir() if p.is_file()) \
    if CORPUS_NCU.is_dir() and CSV.is_dir() else []
PARAMS = FILES or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))]

#: per language: the row labels, the side heads, the list separators, the advice's busiest-unit clause
LANG = {
    "en": dict(units="Busiest units", levels="Memory levels", sides=("compute: ", "memory: "), item=", ", semi="; ",
               advice=r"Its busiest unit: (.+?) (\d+(?:\.\d+)?)%\."),
    "zh": dict(units="最繁忙的单元", levels="各级存储", sides=("计算：", "访存："), item="、", semi="；",
               advice=r"最繁忙的单元为 (.+?) ?(\d+(?:\.\d+)?)%。"),
}
PCT = r" ?(\d+(?:\.\d+)?)%"


def _sides(value: str, w: dict) -> list[list[tuple[str, float]]]:
    """The Busiest-units row as (name, pct) per side, in printed order."""
    out = []
    for part in value.split(w["semi"]):
        for head in w["sides"]:
            if part.startswith(head):
                items = re.findall(r"(.+?)" + PCT + "(?:" + re.escape(w["item"]) + "|$)", part[len(head):])
                out.append([(n.strip(), float(p)) for n, p in items])
    return out


def _side(value: str, w: dict, head: str) -> list[tuple[str, float]]:
    """The (name, pct) items of one side (``head``) of the Busiest-units row; [] when the row has no such side."""
    for part in value.split(w["semi"]):
        if part.startswith(head):
            return [(n.strip(), float(p)) for n, p in
                    re.findall(r"(.+?)" + PCT + "(?:" + re.escape(w["item"]) + "|$)", part[len(head):])]
    return []


@pytest.fixture(scope="module")
def rendered():
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    return {}


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_advice_names_the_first_unit_of_the_ranking_and_one_figure_per_unit(path, rendered, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    try:
        rd = diagnose_file(path)
    except InputError as e:  # a file with no profile in it (a failed run): nothing ranked
        pytest.skip(str(e))
    for lang, w in LANG.items():
        for panel in panel_rows(render([rd], "table", lang, details=True)):
            units = panel.get(w["units"])
            if units is None:
                continue
            sides = [s for s in _sides(units, w) if s]
            assert sides, units
            first = max((s[0] for s in sides), key=lambda x: x[1])
            for value in panel.values():
                for name, pct in re.findall(w["advice"], value):
                    assert (name.strip(), float(pct)) == first, (path.name, lang, value, units)
            # a unit printed in both rows shows the same figure in both
            levels = panel.get(w["levels"], "")
            shown = {n: p for s in sides for n, p in s}
            for item in levels.split(w["semi"]):
                m = re.match(r"^(.+?)" + PCT, item)
                if m and m.group(1).strip() in shown:
                    assert shown[m.group(1).strip()] == float(m.group(2)), (path.name, lang, units, levels)
            # no memory level is busier than the memory side's busiest unit: a unit the compute side also
            # measures (the L1: its idle internal activity) is never taken off the side where it is busy
            level_pcts = [float(m.group(1)) for item in levels.split(w["semi"])
                          if (m := re.match(r"^.+?" + PCT, item))]
            mem = _side(units, w, w["sides"][1])
            if level_pcts and mem:
                assert max(level_pcts) <= max(p for _, p in mem), (path.name, lang, units, levels)
            # one unit once per row
            # (a name without its gloss: the panel glosses a name once, "load/store (LSU) pipe" then "load/store pipe")
            names = [re.sub(r"\s*[（(][^()（）]*[)）]", "", n).strip() for s in sides for n, _ in s]
            assert len(names) == len(set(names)), (path.name, lang, units)

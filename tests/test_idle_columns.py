"""The timeline's GPU idle row says which part of it its program columns count (native review 13, nits): it read
"占比 95.2%" then "程序占比 4.8%" / "完全消除后 1.05×", seemingly self-contradictory (the share column is the idle time's
share of the wall; the program columns only the part hiding that time can save, at most each rank's GPU busy
time). Its program share is headed 可隐藏占比 / "Hideable share", its last column 完全隐藏后 / "if all hidden", and
the caption says what the hideable part is; the other rankings keep 程序占比 / "Of program"."""

from __future__ import annotations

import pytest

from conftest import SHARED, need
from kernelscope.render.common import Fmt
from test_zh_output import run_cli_uncached

TRACE = SHARED / "corpus" / "nsys" / "cudatutorial_rtx3060_fused_bias_fp16_report.sqlite"


def _table(out: str, row: str) -> list[str]:
    """The header lines (every part) of the table whose rows start with ``row``, and its caption lines."""
    lines, found = out.splitlines(), []
    for n, line in enumerate(lines):
        if line.strip().startswith(row + " ") and n > 1 and set(lines[n - 1].strip()) == {"─"}:
            top = n - 2
            while top > 0 and lines[top - 1].strip():
                top -= 1
            cap = top - 2
            while cap > 0 and lines[cap - 1].strip():
                cap -= 1
            found.append(" ".join(lines[cap:top - 1]) + " || " + lines[n - 2])
    return found


@pytest.mark.parametrize("lang, row", [("zh", "GPU 空闲"), ("en", "GPU idle")])
@pytest.mark.parametrize("columns", [80, 120])
def test_the_idle_row_says_its_program_columns_count_the_hideable_part(lang, row, columns):
    f = Fmt(lang)
    code, out, err = run_cli_uncached(("timeline", "--details", str(need(TRACE)), "--lang", lang), columns)
    assert code == 0, err
    parts = _table(out, row)
    heads = " ".join(p.split(" || ")[1] for p in parts)
    assert f.label("tl_program_share_idle") in heads and f.label("tl_if_hidden") in heads, parts
    assert f.label("tl_program_share") not in heads.replace(f.label("tl_program_share_idle"), ""), parts
    assert f.label("tl_if_inf") not in heads, parts
    captions = "".join("".join(p.split(" || ")[0].split()) for p in parts)  # (wrapped: blanks dropped)
    assert ("GPU忙碌时间" if lang == "zh" else "GPUbusytime") in captions, parts
    kernels = out[out.index(f.label("tl_top_kernels").split("（")[0].split(" (")[0]):]
    assert f.label("tl_program_share") in kernels  # the other rankings: of the program

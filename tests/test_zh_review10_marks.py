"""Native review 10, typography (E25, E27): the zh terminal uses real arrows, minus words and multiplication
signs, and a trace's run title follows its tool in Chinese punctuation, with no double space or ASCII brackets."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.knowledge.text import label

NSYS = SHARED / "corpus" / "nsys"


def _out(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_zh_labels_have_no_ascii_arrows_or_spaced_hyphens():
    assert label("roof_limiting", "zh") == "← 限制层级"
    own = label("tl_ar_own", "zh")
    assert " - " not in own and "减" in own
    assert label("roof_limiting", "en") == "<- limiting"  # English keeps its own wording


def test_zh_remedy_uses_multiplication_sign():
    import kernelscope
    text = (Path(kernelscope.__file__).parent / "data" / "remedies.toml").read_text(encoding="utf-8")
    zh_lines = [line for line in text.splitlines() if line.startswith("text_zh")]
    assert zh_lines and not any("8x8" in line for line in zh_lines)
    assert any("8×8" in line for line in zh_lines)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_run_title_after_tool(capsys, monkeypatch, lang):
    monkeypatch.setenv("COLUMNS", "80")
    path = need(NSYS / "kmeans_nsys2021_console_rtx3080_locale_comma.txt")
    out = _out(capsys, "timeline", str(path), "--lang", lang)
    if lang == "zh":
        assert "（nsys-stats），第 1 次运行（共 6 次）" in out
        assert "  [" not in out.split("GPU")[0] and "[第" not in out
    else:
        assert "(nsys-stats)  [run 1 of 6]" in out

"""Native review 8 of the Chinese output (issue 28), its "terms / typography" items: one term per concept (隐藏,
CUDA 核心, epilogue, swizzle), one ``--lang`` help, code spans in Markdown and HTML prose, templates that read
naturally at 0, at equal values and at all, no ASCII arrows or quotes in zh prose. Each test fails on the code
before the fix; a rule holds in both languages where the English had the same fault."""

from __future__ import annotations

import re

import pytest

from kernelscope.cli import main
from kernelscope.knowledge.glossary import misused


def _help(capsys, command: str, lang: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help", "--lang", lang])
    return capsys.readouterr().out


# --- one term per concept -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("wrong", [
    "无法掩盖延迟", "访存延迟未被掩盖", "FP32 CUDA Core", "运算在 CUDA Core 上执行", "GEMM 尾处理", "避免收尾（epilogue）",
    "XOR 交织（swizzle）", "对数组做填充或交错", "做填充或交错（swizzle）"])
def test_the_glossary_catches_each_variant_review_8_saw(wrong):
    assert misused(wrong), wrong


@pytest.mark.parametrize("right", [
    "无法隐藏延迟", "FP32 CUDA 核心", "GEMM epilogue", "避免 epilogue 与主循环串行", "XOR swizzle", "对数组做填充或 swizzle",
    "把访存指令与计算指令交错排布"])
def test_the_glossary_passes_review_8s_fixed_forms(right):
    assert not misused(right), (right, misused(right))


# --- one --lang help ------------------------------------------------------------------------------------------------

_COMMANDS = ("diagnose", "timeline", "compare", "roofline", "occupancy", "banks", "source", "gpus", "fusion",
             "ceilings", "query", "profile")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lang_has_one_help_text_in_every_command(capsys, lang):
    texts = set()
    for command in _COMMANDS:
        out = _help(capsys, command, lang)
        m = re.search(r"--lang \{en,zh\}\s+(.+?)(?:\n  -|\n\n|$)", out, re.S)
        assert m, (command, out[-400:])
        texts.add(" ".join(m.group(1).split()).replace(" ", ""))
    assert len(texts) == 1, texts

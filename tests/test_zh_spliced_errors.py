"""Errors built from English pieces read in Chinese: each piece is worded by the phrase table, a field right before
another (``at byte {at}{of}``) parts at its number, and a quoted value ('x') gets Chinese quotes."""

from __future__ import annotations

import gzip
import re

import pytest

from kernelscope.cli import main
from kernelscope.knowledge.messages import _templated, messages, phrase


def _zh_error(capsys, *argv) -> str:
    assert main([*argv, "--lang", "zh"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def _english_words(text: str) -> list[str]:
    """Runs of three or more English words (what a half-translated message shows)."""
    return re.findall(r"[A-Za-z]+(?: [A-Za-z]+){2,}", text)


@pytest.mark.parametrize("gz", [False, True])
def test_a_truncated_trace_is_worded_in_chinese(tmp_path, capsys, gz):
    data = b'{"traceEvents": [{"ph":"X"'
    path = tmp_path / ("cut.json.gz" if gz else "cut.json")
    path.write_bytes(gzip.compress(data) if gz else data)
    err = _zh_error(capsys, "timeline", str(path))
    assert "跟踪文件末尾" in err and f"第 {len(data)} 字节" in err and not _english_words(err), err
    assert ("按解压后的数据计" in err) == gz


@pytest.mark.parametrize("content", [b"hello world\n", bytes(range(0x10, 0x20))])
def test_a_file_that_is_not_a_report_is_worded_in_chinese(tmp_path, capsys, content):
    path = tmp_path / "x.ncu-rep"
    path.write_bytes(content)
    err = _zh_error(capsys, "diagnose", str(path))
    assert "NVR" in err and not _english_words(err) and "'" not in err, err


def test_every_phrase_with_adjacent_fields_parts_at_the_number():
    adjacent = [en for en in messages().phrase if re.search(r"\}\{", en)]
    assert adjacent, "the table has such phrases"
    for en in adjacent:
        sample = re.sub(r"\{(\w+)\}(?=\{)", "123", en).replace("{of}", " of the decompressed data")
        sample = re.sub(r"\{\w+\}", "x", sample)
        zh = phrase(sample, "zh")
        assert "123" in zh and "按解压后的数据计" in zh, (en, zh)
    assert all(p.pattern for p, _ in _templated())


@pytest.mark.parametrize("content, shown", [(b"notgz\n", "notgz"), (b"\x01\x02\x03garbage", "01 02 03")])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_trace_that_is_not_json_says_how_it_starts_without_a_python_repr(tmp_path, capsys, content, shown, lang):
    path = tmp_path / "fake.json.gz"
    path.write_bytes(content)
    assert main(["timeline", str(path), "--lang", lang]) == 2
    err = capsys.readouterr().err
    assert shown in err and "b'" not in err and "\\x" not in err, err
    if lang == "zh":
        assert not _english_words(err.replace("PyTorch profiler", "")), err

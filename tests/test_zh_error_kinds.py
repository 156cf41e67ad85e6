"""Errors fully Chinese in ``--lang zh`` (review zh10, items 15-18, 26, 29), one kind at a time.

Validation errors (msgspec: ``--spec``; pydantic: plain TOML/JSON inputs) worded from the catalogue with the field,
what was expected and what was given; file kinds spliced in as Chinese nouns; tomllib's reasons worded, or named as
the TOML parser's; quoted tool output (nvcc, DuckDB) byte-exact in its own clause; Chinese quotes, no backticks in
the terminal; one error prefix and no final full stop.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CASES, need
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.knowledge.messages import error_text, frame, phrase

PLAIN = CASES / "C01_plain_occupancy_221.toml"
#: The English of the validators and of tomllib, none of which may reach a Chinese error.
VALIDATOR_ENGLISH = re.compile(r"unknown field|expected some of|Expected|got `|, got|Field required|Input should|"
                               r"Extra inputs|Object missing|at the end of a table declaration")


def _write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _zh_error(argv: list[str], capsys, monkeypatch) -> str:
    """The one line ``kernelscope ARGV --lang zh`` prints on standard error (exit 2)."""
    monkeypatch.delenv("KERNELSCOPE_LANG", raising=False)
    try:
        code = main([*argv, "--lang", "zh"])
    except SystemExit as exc:  # argparse's usage errors exit
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


#: name -> (argv builder over a temporary folder, the Chinese the line must hold)
CASES_ZH = {
    "spec unknown field": (lambda t: ["diagnose", str(PLAIN), "--spec", _write(t, "s.toml", "a = 1\n")],
                           "未知字段“a”；可用字段：aliases、architecture、"),
    "spec wrong type": (lambda t: ["diagnose", str(PLAIN), "--spec", _write(t, "s.toml", 'peak_flops_per_s = "x"\n')],
                        "字段“peak_flops_per_s”应为表，实际为字符串"),
    "spec out of range": (lambda t: ["diagnose", str(PLAIN), "--spec", _write(t, "s.toml", "sm_count = -1\n")],
                          "字段“sm_count”应为 ≥ 1 的整数"),
    "spec empty name": (lambda t: ["diagnose", str(PLAIN), "--spec", _write(t, "s.json", '{"name": ""}')],
                        "字段“name”不能为空"),
    "spec unreadable": (lambda t: ["diagnose", str(PLAIN), "--spec", str(t / "nope.toml")], "无法读取规格文件："),
    "plain TOML missing field": (lambda t: ["diagnose", _write(t, "p.toml", 'name = "x"\n')], "缺少必填字段“kernel”"),
    "plain JSON missing field": (lambda t: ["diagnose", _write(t, "e.json", "{}")], "缺少必填字段“kernel”"),
    "plain unknown field": (lambda t: ["diagnose", _write(t, "p.toml", '[[kernel]]\nname = "x"\nbogus = 1\n')],
                            "未知字段“kernel[0].bogus”"),
    "plain wrong type": (lambda t: ["diagnose", _write(t, "p.toml", '[[kernel]]\nname = "x"\nduration_ns = "q"\n')],
                         "kernel[0].duration_ns”：应为数值"),
    "plain TOML parse": (lambda t: ["diagnose", _write(t, "b.toml", "[a\n")], "第 1 行第 3 列：表头声明末尾应为“]”"),
    "spec TOML parse": (lambda t: ["diagnose", str(PLAIN), "--spec", _write(t, "b.toml", "[a\n")],
                        "第 1 行第 3 列：表头声明末尾应为“]”"),
    "criteria TOML parse": (lambda t: ["diagnose", str(PLAIN), "--criteria", _write(t, "b.toml", "[a\n")],
                            "第 1 行第 3 列：表头声明末尾应为“]”"),
    "trace without traceEvents": (lambda t: ["timeline", _write(t, "t.json", '{"x": 1}')], "没有顶层“traceEvents”数组"),
    "usage error": (lambda t: ["diagnose"], "kernelscope：错误：缺少必需的参数：REPORT；详见 kernelscope diagnose --help"),
    "unknown GPU": (lambda t: ["diagnose", str(PLAIN), "--gpu", "NoSuchGPU"], "GPU “NoSuchGPU”不在内置规格库中"),
}


@pytest.mark.parametrize("name", list(CASES_ZH))
def test_each_error_kind_is_chinese(name, tmp_path, capsys, monkeypatch):
    argv, expected = CASES_ZH[name]
    args = argv(tmp_path)
    if str(PLAIN) in args:
        need(PLAIN)
    err = _zh_error(args, capsys, monkeypatch)
    assert expected in err, err
    assert not VALIDATOR_ENGLISH.search(err), err
    assert err.startswith("kernelscope：错误："), err  # one prefix, whatever the subcommand
    assert "`" not in err and '"' not in err, err  # no backticks, no ASCII quotes around names
    assert not err.endswith("。"), err  # no final full stop, as every other error
    assert " spec file" not in err and "file：" not in err, err  # file kinds in Chinese


def test_a_tomllib_reason_without_a_phrase_is_named_as_the_parsers():
    assert phrase("Some new complaint (at line 2, column 7)", "zh") == "第 2 行第 7 列：TOML 解析器：Some new complaint"
    assert phrase("Unclosed array (at end of document)", "zh") == "文件末尾：数组没有闭合"
    assert phrase("Expected ']' at the end of a table declaration (at line 1, column 3)", "zh") == \
        "第 1 行第 3 列：表头声明末尾应为“]”"


def test_the_validators_type_names_are_worded():
    assert phrase("field 'x': Expected `float | null`, got `str`", "zh") == "字段“x”应为数值，实际为字符串"
    assert phrase("field 'a.b': Expected `int` > 0", "zh") == "字段“a.b”应为 > 0 的整数"
    assert phrase("Object missing required field `name`", "zh") == "缺少必填字段“name”"


def test_quoted_tool_output_stays_byte_exact():
    said = "nvcc fatal   : Don't know what to do with 'k.csv'"
    exc = InputError("k.csv", key="nvcc_failed", values={"returncode": 1, "errors": said})
    assert error_text(exc, "zh") == f"k.csv：nvcc 执行失败（退出码 1）；nvcc 输出：{said}"
    sql = 'Binder Error: Referenced column "kernel_nam" not found in FROM clause!'
    text = error_text(InputError("SQL", key="sql_error", values={"reason": sql}), "zh")
    assert text == f"SQL：DuckDB 报错：{sql}" and "SQL 语句出错" not in text
    assert error_text(InputError("SQL", key="sql_error", values={"reason": sql}), "en") == f"SQL: {sql}"


def test_a_note_does_not_chain_colons():
    note = frame("note", "zh", message=frame("levels_launch", "zh", index=1, name="silu", duration="5 µs"))
    assert note.startswith("kernelscope：注意：--levels 显示的是启动 [1]（silu，5 µs）"), note
    assert note.count("：") == 2, note

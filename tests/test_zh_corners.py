"""No English-only corners (issue 19): every command takes ``--lang``, ``$KERNELSCOPE_LANG`` sets its default and the
language of errors and ``--help``, errors with a message key are worded in Chinese, and Chinese charts stay Chinese in
SVG without a CJK font here (only PNG falls back to English, and says so)."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from conftest import EXAMPLE
from kernelscope.cli import COMMANDS, LANG_DEFAULT_HELP, _parser, main
from kernelscope.cli.language import cells, wrap_cells
from kernelscope.errors import InputError, KernelscopeError
from kernelscope.knowledge.messages import error_text, help_texts, messages, template

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelscope"
CJK = re.compile(r"[\u4e00-\u9fff]")
#: Arguments that make each command parse (the files need not exist).
_ARGS = {
    "diagnose": ["r"], "source": ["r"], "gpus": [], "occupancy": ["--arch", "sm_90", "--regs", "32"],
    "banks": ["--dtype", "float", "--tile", "32x32", "--access", "row"], "timeline": ["t"], "fusion": ["t"], "roofline": ["r"],
    "compare": ["a", "b"],
    "profile": ["--", "./app"],
    "ceilings": [],
    "query": ["d", "select 1"],
}


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse: --help, usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def zh_env(monkeypatch):
    monkeypatch.setenv("KERNELSCOPE_LANG", "zh")


# ------------------------------------------------------------------------------------------ --lang everywhere


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
def test_every_command_takes_lang_and_its_default_follows_the_environment(command, capsys, monkeypatch):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0 and "--lang {en,zh}" in out and "KERNELSCOPE_LANG" in out
    assert _parser().parse_args([command, *_ARGS[command]]).lang == "en"
    monkeypatch.setenv("KERNELSCOPE_LANG", "zh")
    assert _parser("zh").parse_args([command, *_ARGS[command]]).lang == "zh"
    assert _parser("zh").parse_args([command, "--lang", "en", *_ARGS[command]]).lang == "en"  # the option wins


def test_environment_makes_tables_chinese(capsys, zh_env):
    code, out, err = run(capsys, "gpus")
    assert code == 0 and err == "" and "名称" in out and "架构" in out
    code, out, _ = run(capsys, "occupancy", "--arch", "sm_90", "--regs", "64", "--threads", "256")
    assert code == 0 and "理论占用率" in out
    code, out, _ = run(capsys, "gpus", "--lang", "en")
    assert code == 0 and "arch" in out and not CJK.search(out)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_gpus_in_chinese(capsys, fmt):
    code, out, err = run(capsys, "gpus", "--lang", "zh", "--format", fmt)
    assert code == 0 and err == ""
    if fmt == "json":
        assert '"lang": "zh"' in out
    else:
        assert "名称" in out and "架构" in out and "SM 数" in out


# ------------------------------------------------------------------------------------------ --help in Chinese


@pytest.mark.parametrize("command", [None, *(c.name for c in COMMANDS)])
def test_help_in_chinese(command, capsys, monkeypatch, zh_env):
    code, out, _ = run(capsys, *([command] if command else []), "--help")
    assert code == 0 and out.startswith("用法：kernelscope") and "选项：" in out
    assert "%%" not in out
    if command is None:
        for c in COMMANDS:  # every command's one-line help
            assert help_texts("zh")[c.help][:8] in out, c.name
        assert "这个 CUDA Kernel 为什么慢" in out
    else:
        command_ = next(c for c in COMMANDS if c.name == command)
        if command_.description:
            assert help_texts("zh")[command_.description][:8] in out
        assert "默认取 $KERNELSCOPE_LANG" in out
        for line in out.splitlines():
            assert not CJK.search(line) or cells(line) <= 80, line  # wrapped by terminal columns, not characters
        code, out, _ = run(capsys, command, "--lang", "en", "--help")  # the command line's --lang wins
        assert out.startswith("usage: kernelscope") and not CJK.search(out)
    monkeypatch.delenv("KERNELSCOPE_LANG")
    code, out, _ = run(capsys, *([command] if command else []), "--help")
    assert out.startswith("usage: kernelscope") and not CJK.search(out)


def _help_strings() -> set[str]:
    found: set[str] = set()

    def walk(p: argparse.ArgumentParser) -> None:
        if p.description:
            found.add(p.description)
        for a in p._actions:
            if a.help and a.help != argparse.SUPPRESS:
                found.add(a.help.removesuffix(LANG_DEFAULT_HELP))
            for c in getattr(a, "_choices_actions", ()):
                found.add(c.help)
            if isinstance(a, argparse._SubParsersAction):
                for sub in a.choices.values():
                    walk(sub)

    walk(_parser())
    return found


def test_every_help_text_has_a_chinese_one_and_none_is_stale():
    used = _help_strings()
    zh = help_texts("zh")
    assert sorted(used - set(zh)) == []  # a help text changed or added: give it its zh in data/messages.toml
    assert sorted(set(zh) - used) == []  # an entry whose English text is gone
    for en, text in zh.items():
        assert text.count("%%") == en.count("%%")  # argparse %-formats option helps


def test_wrap_keeps_words_whole_and_no_line_starts_with_closing_punctuation():
    text = "输出格式（默认 table）；html：含图表的单个自包含网页；markdown 配合 -o 时会在旁边写出图表（REPORT_roofline.svg 等）"
    for width in range(24, 60):  # from the widest unbreakable run, "（REPORT_roofline.svg"
        lines = wrap_cells(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for line in lines:
            assert line[0] not in "，。；：、）", lines
            assert not line.endswith("（"), lines
            assert cells(line) <= width, lines
        for word in ("table", "REPORT_roofline.svg", "markdown", "-o"):
            assert any(word in line for line in lines), (word, lines)


# ------------------------------------------------------------------------------------------ errors


def test_missing_file_error_in_chinese(capsys, zh_env, tmp_path):
    missing = tmp_path / "nope.ncu-rep"
    code, out, err = run(capsys, "diagnose", str(missing))
    assert code == 2 and out == ""
    assert err == f"kernelscope：错误：{missing}：文件不存在\n"
    code, _, err = run(capsys, "diagnose", str(missing), "--lang", "en")
    assert err == f"kernelscope: error: {missing}: file not found\n"


def test_empty_selection_error_in_chinese(capsys, zh_env):
    code, out, err = run(capsys, "diagnose", str(EXAMPLE), "--kernel", "nosuch")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"kernelscope：错误：{EXAMPLE}：没有与 --kernel 的“nosuch”匹配的 Kernel；其中的 Kernel：")
    assert "sgemm_naive_2048" in err


@pytest.mark.parametrize("args, words", [
    (["source", "{tmp}"], "这是目录，不是文件；需要"),  # (diagnose reads the files of a directory now)
    (["diagnose", "{empty}"], "文件为空；需要：性能分析报告"),
    (["diagnose", "{text}"], "无法识别的输入格式"),
    (["timeline", str(EXAMPLE)], "这是 Kernel 性能分析（纯数字文件），不是程序时间线"),
    (["roofline", str(EXAMPLE)], "-o/--output：缺少该参数"),
    (["roofline", str(EXAMPLE), "-o", "{tmp}/r.pdf"], "需要 .png 或 .svg 文件名"),
    (["diagnose", str(EXAMPLE), "--gpu", "no-such-gpu"], "不在内置规格库中"),
    (["diagnose", str(EXAMPLE), "-o", "{tmp}"], "这是目录；需要输出文件名"),
    (["diagnose", str(EXAMPLE), "-o", str(EXAMPLE)], "输出文件就是输入文件"),
    (["occupancy", "--arch", "sm_90", "--regs", "32"], "--threads：缺少该参数"),
])
def test_common_errors_in_chinese(capsys, zh_env, tmp_path, args, words):
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "text.txt").write_text("hello\n")
    args = [a.format(tmp=tmp_path, empty=tmp_path / "empty.txt", text=tmp_path / "text.txt") for a in args]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("kernelscope：错误：") and words in err, err


def test_usage_errors_in_chinese(capsys, zh_env):
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), "--format", "bogus")
    assert code == 2
    assert err.startswith("kernelscope：错误：参数 --format 的取值“bogus”无效，可选值为“table”、") and "markdown" in err
    assert err.endswith("”；详见 kernelscope diagnose --help\n") and err.count("\n") == 1
    assert "）（" not in err and err.count("（") == 0, err  # one sentence, no two bracket groups back to back
    code, _, err = run(capsys, "diagnose")
    assert code == 2 and err.startswith("kernelscope：错误：缺少必需的参数：REPORT")
    code, _, err = run(capsys, "diagnose", "--lang", "en")  # the command line's --lang, read before argparse
    assert code == 2 and err.startswith("kernelscope diagnose: error: the following arguments are required")


def test_range_error_is_worded_in_chinese(capsys, zh_env):
    code, _, err = run(capsys, "occupancy", "--arch", "sm_90", "--regs", "32", "--threads", "2000")
    assert code == 2 and err == "kernelscope：错误：--threads：2000 超出计算能力 9.0 的允许范围 1～1024\n"


@pytest.mark.parametrize("value", ["xx", "fr", "zh_CN"])
def test_unknown_environment_language_is_one_line_exit_2(capsys, monkeypatch, value):
    monkeypatch.setenv("KERNELSCOPE_LANG", value)
    for args in (["gpus"], ["gpus", "--lang", "zh"], ["--help"]):
        code, out, err = run(capsys, *args)
        assert code == 2 and out == ""
        assert err == f"kernelscope: error: KERNELSCOPE_LANG: expected one of en, zh, got {value!r}\n"


def test_environment_language_is_case_and_blank_tolerant(capsys, monkeypatch):
    monkeypatch.setenv("KERNELSCOPE_LANG", " ZH ")
    assert run(capsys, "gpus")[1].count("名称") == 1
    monkeypatch.setenv("KERNELSCOPE_LANG", "")  # empty: unset
    assert "arch" in run(capsys, "gpus")[1]


def _keyed_errors(tmp_path: Path) -> list[KernelscopeError]:
    """One error of each kind that carries a message key, raised by the code that raises it."""
    from kernelscope.api import no_kernel_matches
    from kernelscope.cli.output import _cannot, _kind
    from kernelscope.errors import UnknownGpuError
    from kernelscope.ingest import detect_format, detect_timeline_format
    from kernelscope.ingest.files import check_file, empty, unreadable
    from kernelscope.measure.backends import NEITHER
    from kernelscope.measure.ceilings import NoGpuError

    errors: list[KernelscopeError] = [
        no_kernel_matches("r", "--kernel", "x", ["a", "b"]), no_kernel_matches("r", "--kernel", "x", []),
        no_kernel_matches("r", "--kernel", "x", [f"k{i}" for i in range(9)]),
        UnknownGpuError("X1", []), UnknownGpuError("X1", ["A100", "H100"]),
        empty("f", "a plain-numbers file"), unreadable("f", PermissionError(13, "Permission denied")),
        _cannot("o", reason="it is read-only"), NoGpuError(NEITHER),
    ]
    (tmp_path / "t.txt").write_text("hello\n")
    (tmp_path / "t.json").write_text('{"traceEvents": []}')
    for call in (lambda: check_file(tmp_path / "missing", "x"), lambda: check_file(tmp_path, "nvprof output"),
                 lambda: detect_format(tmp_path / "t.txt"), lambda: detect_format(tmp_path / "t.json"),
                 lambda: detect_timeline_format(tmp_path / "t.txt"), lambda: detect_timeline_format(EXAMPLE),
                 lambda: _kind(str(tmp_path))):
        with pytest.raises(KernelscopeError) as exc:
            call()
        errors.append(exc.value)
    return errors


def test_english_templates_are_the_messages_the_code_raises(tmp_path):
    for exc in _keyed_errors(tmp_path):
        assert exc.key is not None, exc
        values = dict(exc.values)
        english = template(exc.key, "en").format(**values)
        assert (exc.problem if isinstance(exc, InputError) else str(exc)) == english
        zh = error_text(exc, "zh")
        assert CJK.search(zh) and zh != str(exc), zh
        assert error_text(exc, "en") == str(exc)


def _raised_keys() -> set[str]:
    """The message keys the code gives its errors: ``key=`` of every ``InputError(...)`` (and of the helpers that
    raise one, e.g. ``_check_int(..., key="out_of_range")``), and the keys
    ``no_kernel_matches``, ``UnknownGpuError`` and ``NoGpuError`` choose."""
    keys: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r'"(no_kernel_matches\w*|unknown_gpu\w*|no_cuda_gpu)"', text))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                    "InputError", "_check_int"):
                for k in node.keywords:  # key="..." or key="a" if ... else "b"
                    if k.arg == "key":
                        keys |= {c.value for c in ast.walk(k.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == \
                    "ArgumentValueError" and node.args and isinstance(node.args[0], ast.Constant):
                keys.add(node.args[0].value)  # a type= converter's error: ArgumentValueError(key, values)
    keys.add("cannot_write")  # output._cannot
    return keys


def test_every_error_key_is_raised_and_every_raised_key_has_templates():
    raised = _raised_keys()
    keys = set(messages().error)
    assert sorted(raised - keys) == [] and sorted(keys - raised) == []
    for key, text in messages().error.items():
        assert set(re.findall(r"(?<!\{)\{(\w+)", text.en)) == set(re.findall(r"(?<!\{)\{(\w+)", text.zh)), key


def test_relabelled_error_keeps_its_key():
    exc = InputError("/tmp/x/input0.json", "file is empty; expected a plain-numbers file", key="file_empty",
                     values={"expected": "a plain-numbers file"})
    moved = exc.relabelled("<stdin>", lambda t: t.replace("/tmp/x/input0.json", "<stdin>"))
    assert moved.key == "file_empty" and error_text(moved, "zh") == "<stdin>：文件为空；需要：纯数字文件"


# ------------------------------------------------------------------------------------------ charts


@pytest.fixture
def no_cjk_font(monkeypatch):
    from kernelscope.render.charts import style

    monkeypatch.setattr(style, "cjk_font", lambda: None)  # functools.cache'd: replaced, not cleared


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text\b[^>]*>([^<]*)<", svg)


def test_svg_charts_keep_chinese_without_a_cjk_font(capsys, tmp_path, no_cjk_font):
    out = tmp_path / "r.svg"
    code, _, err = run(capsys, "roofline", str(EXAMPLE), "-o", str(out), "--lang", "zh", "-q")
    assert code == 0 and err == ""  # nothing falls back: nothing to say
    svg = out.read_text(encoding="utf-8")
    chinese = [t for t in _texts(svg) if CJK.search(t)]
    assert chinese and any("算术强度" in t for t in chinese), _texts(svg)
    assert "'Noto Sans CJK SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif" in svg
    md = tmp_path / "report.md"  # diagnose's Markdown charts (roofline and stalls), SVG too
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), "--format", "markdown", "-o", str(md), "--lang", "zh", "-q")
    assert code == 0 and err == ""
    for name in ("report_roofline.svg", "report_stalls.svg"):
        assert any(CJK.search(t) for t in _texts((tmp_path / name).read_text(encoding="utf-8"))), name


def test_png_falls_back_to_english_without_a_cjk_font_and_says_so(capsys, tmp_path, no_cjk_font):
    zh, en = tmp_path / "zh.png", tmp_path / "en.png"
    code, _, err = run(capsys, "roofline", str(EXAMPLE), "-o", str(zh), "--lang", "zh", "-q")
    assert code == 0
    assert err.count("\n") == 1 and err.startswith("kernelscope：注意：PNG 图表使用英文标签") and "fonts-noto-cjk" in err
    assert run(capsys, "roofline", str(EXAMPLE), "-o", str(en), "-q") == (0, "", "")
    assert zh.read_bytes() == en.read_bytes()  # the English chart, exactly


def test_charts_with_a_cjk_font_are_unchanged(capsys, tmp_path):
    from kernelscope.render.charts import cjk_font

    if cjk_font() is None:
        pytest.skip("no CJK font installed here")
    out = tmp_path / "r.svg"
    assert run(capsys, "roofline", str(EXAMPLE), "-o", str(out), "--lang", "zh", "-q") == (0, "", "")
    assert _texts(out.read_text(encoding="utf-8")) == []  # standalone SVG: text drawn as paths, as before

"""Every message kernelscope can print has a Chinese form (issue 28 item 1), checked three ways so that a new
English-only string fails the suite:

(a) the catalogue: every ``[error]`` / ``[frame]`` entry of ``messages.toml`` has en and zh with the same fields,
    its Chinese holds CJK text and follows the house rules (µs, no ASCII "->"); every ``[phrase]`` too;
(b) the code: an AST scan of ``src/kernelscope`` for errors raised with literal English instead of a message key
    (``InputError(source, "text")``), and for data problems the readers build (``problems.append(f"...")``) that no
    ``[phrase]`` entry words: each found is listed as file:line. A short reviewed allowlist names the internals
    that are not user input (kernelscope's own data files);
(c) the real bad-input paths, run with ``--lang zh``: each prints one line with no run of three English words
    outside code, quoted values and file names."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import CASES, CORPUS_NCU, need
from kernelscope.cli import main
from kernelscope.knowledge.messages import _templated, messages, phrase

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelscope"
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
FIELDS = re.compile(r"(?<!\{)\{(\w+)")


def _fields(text: str) -> set[str]:
    return set(FIELDS.findall(text))


# ------------------------------------------------------------------------------------------ (a) the catalogue


def _raw() -> dict:
    return tomllib.loads((SRC / "data" / "messages.toml").read_text(encoding="utf-8"))


def test_every_error_and_frame_entry_has_both_languages():
    raw = _raw()
    bad = []
    for table in ("error", "frame"):
        for key, entry in raw[table].items():
            en, zh = entry.get("en", ""), entry.get("zh", "")
            words = re.search(r"[A-Za-z]{2}", re.sub(r"\{[^{}]*\}", "", en))  # not a pass-through "{where}{value}"
            if not en or not zh or _fields(en) != _fields(zh) or (words and not CJK.search(zh)):
                bad.append(f"[{table}.{key}]")
    assert bad == [] and len(raw["error"]) > 200, bad


def test_every_phrase_has_chinese_with_the_same_fields():
    bad = [en for en, zh in _raw()["phrase"].items() if not CJK.search(zh) or _fields(en) != _fields(zh)]
    assert bad == []


@pytest.mark.parametrize("table", ["error", "phrase"])
def test_chinese_follows_the_house_rules(table):
    raw = _raw()[table]
    texts = {k: v["zh"] for k, v in raw.items()} if table == "error" else raw
    bad = [k for k, zh in texts.items() if "->" in zh or re.search(r"\d ?us\b", zh)]  # µs, not us
    assert bad == []


def test_phrases_word_the_readers_english():
    """The templated phrases really match: a truncated .ncu-rep's reason, a NaN count, a JSON parser's reason."""
    assert phrase("it ends 12 bytes before the end of block 1, whose header announces a 99-byte payload", "zh") \
        == "文件在第 1 个数据块结束前 12 字节处结束，块头声明的数据长度为 99 字节"
    assert phrase("108 of 128 numeric metrics are NaN (not measured, e.g. a, b, c); the fields read from them are "
                  "left unmeasured", "zh").startswith("128 个数值指标中有 108 个为 NaN")
    assert phrase("Expecting value: line 1 column 15 (char 14)", "zh") == "第 1 行第 15 列（第 14 个字符）：此处应为一个值"
    assert phrase("no GPU timing (ts 0, dur 0); launch seen", "zh") == "没有 GPU 计时（ts 0，dur 0）；已看到其启动调用"
    assert phrase("run 2 of 6", "zh") == "第 2 次运行（共 6 次）"
    assert phrase("not a phrase at all", "zh") == "not a phrase at all"
    assert phrase("run 2 of 6", "en") == "run 2 of 6"


# ------------------------------------------------------------------------------------------------ (b) the code

#: Raise sites that may pass text without a message key, each reviewed: kernelscope's own packaged data files
#: failing validation (a packaging bug, not user input), and helpers' texts passed on that [phrase] words.
ALLOWED = {
    ("knowledge/__init__.py", "problem(exc)"): "packaged data file fails its model: a packaging bug",
    ("knowledge/gpus.py", "text"): "a GPU entry (packaged catalogue or --spec) fails its model: msgspec's path",
    ("cli/ceilings.py", "str(exc)"): "the measured spec's own check (measure.ceilings), worded by [phrase]",
    ("cli/compare.py", "Fmt(args.lang).label('dsc_none_matched')"): "already in the user's language (labels.toml)",
    ("cli/timeline.py", "str(exc)"): "reduce_ranks' ValueError, worded by [phrase]",
    ("distributed/map.py", "str(exc)"): "summarize's ValueError, worded by [phrase]",
    ("ingest/kineto/columns.py", "str(exc)"): "the decoder's _NotTrace text, worded by [phrase]",
    ("ingest/settings.py", "str(exc).strip('\\'\"')"): "criteria()'s KeyError / ValueError, worded by [phrase]",
}
#: Packaged-data validation messages raised with literal text (data/*.toml broken: a packaging bug).
INTERNAL_FILES = {"knowledge/__init__.py", "knowledge/gpus.py", "knowledge/occupancy.py", "knowledge/stalls.py"}
_INTERNAL_TEXT = ("duplicate reason id", "spelling ", "field 'name': missing", "field 'source': missing",
                  "fields without a known source", "also names", "expected a table of fields", "cannot read packaged")


def _literal(node: ast.AST) -> str | None:
    """The text of a str literal, f-string or concatenation of them (each field as "{}"), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        if left is not None or right is not None:
            return (left if left is not None else "{}") + (right if right is not None else "{}")
    return None


def _calls(name_ok) -> list[tuple[str, ast.Call]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and name_ok(node):
                out.append((rel, node))
    return out


def _name(node: ast.Call) -> str | None:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def test_no_error_is_raised_with_literal_english():
    bad = []
    for rel, node in _calls(lambda n: _name(n) == "InputError"):
        if any(k.arg == "key" for k in node.keywords) or len(node.args) < 2:
            continue
        text = _literal(node.args[1])
        if text is not None:
            if re.search(r"[A-Za-z]{2}", text.replace("{}", "")) is None:  # fields and signs only: no words
                continue
            if rel in INTERNAL_FILES and any(t in text for t in _INTERNAL_TEXT):
                continue
            bad.append(f"{rel}:{node.lineno}: {text[:70]!r}")
        elif (rel, ast.unparse(node.args[1])) not in ALLOWED:
            bad.append(f"{rel}:{node.lineno}: {ast.unparse(node.args[1])[:70]} (no key)")
    assert bad == [], "raise InputError(source, key=..., values=...) with an [error] entry:\n" + "\n".join(bad)


def test_allowlist_is_still_needed():
    """Each allowlisted site still exists (a fixed one leaves the list)."""
    present = {(rel, ast.unparse(n.args[1])) for rel, n in _calls(lambda n: _name(n) == "InputError")
               if len(n.args) >= 2 and not any(k.arg == "key" for k in n.keywords)}
    assert sorted(set(ALLOWED) - present) == []


def _specific() -> list[re.Pattern[str]]:
    """The templated phrases whose English has words (not "{a}; {b}" nor "{label}: {problem}")."""
    return [p for p, _ in _templated() if re.search(r"[A-Za-z]{2}", re.sub(r"\(\?P<\w+>\.\*\?\)", "", p.pattern))]


def test_every_data_problem_the_readers_build_has_a_phrase():
    patterns = _specific()
    bad = []
    for rel, node in _calls(lambda n: _name(n) in ("append", "insert") and isinstance(n.func, ast.Attribute)
                            and re.search(r"problems|notes", ast.unparse(n.func.value)) is not None):
        if not rel.startswith(("ingest/", "knowledge/plausibility")) or not node.args:
            continue
        text = _literal(node.args[-1])  # append(text) / insert(i, text)
        if text is None:
            continue
        sample = text.replace("{}", "7")
        if sample not in messages().phrase and not any(p.fullmatch(sample) for p in patterns):
            bad.append(f"{rel}:{node.lineno}: {text[:80]!r}")
    assert bad == [], "add a [phrase] entry for:\n" + "\n".join(bad)


# -------------------------------------------------------------------------------------- (c) the bad-input paths

_CODE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|《[^》]*》|[^\s（）()]*[/\\_.:=<>-][^\s（）()]*")
_ENGLISH_RUN = re.compile(r"[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}")


def english_runs(line: str) -> list[str]:
    """Runs of three or more English words in ``line``, outside code, quoted values and names with signs."""
    return _ENGLISH_RUN.findall(_CODE.sub("|", re.sub(r"《[^》]*》", "|", line)))


def test_english_runs_detector():
    assert english_runs("kernelscope：错误：x：recorded no GPU activity") == ["recorded no GPU activity"]
    assert english_runs("kernelscope：错误：a.json：不是有效的 JSON：第 1 行（'Expecting value here'）") == []


def _ncu_rep_damaged(tmp: Path) -> str:
    path = tmp / "damaged.ncu-rep"
    path.write_bytes(b"NVR\x00" + bytes(range(256)) * 4)
    return str(path)


def _ncu_rep_truncated(tmp: Path) -> str:
    real = sorted(need(CORPUS_NCU).glob("*.ncu-rep"))[0]
    path = tmp / "truncated.ncu-rep"
    path.write_bytes(real.read_bytes()[:3000])
    return str(path)


def _write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _empty_dir(tmp: Path) -> str:
    (tmp / "empty").mkdir()
    return str(tmp / "empty")


PLAIN = str(CASES / "C01_plain_occupancy_221.toml")
#: name -> (argv builder, a Chinese text the line must hold)
BAD_INPUTS = {
    "ncu-rep damaged": (lambda t: ["diagnose", _ncu_rep_damaged(t)], "Nsight Compute 报告"),
    "ncu-rep truncated": (lambda t: ["diagnose", _ncu_rep_truncated(t)], "被截断"),
    "empty dir diagnose": (lambda t: ["diagnose", _empty_dir(t)], "目录中没有"),
    "empty dir timeline": (lambda t: ["timeline", _empty_dir(t)], "目录中没有"),
    "no GPU activity": (lambda t: ["timeline", _write(t, "t.json", '{"traceEvents": []}')], "没有记录到任何 GPU 活动"),
    "timeline not JSON": (lambda t: ["timeline", _write(t, "t.json", "hello")], "不是 JSON"),
    "malformed CSV": (lambda t: ["diagnose", _write(t, "b.csv", 'ID,"Kernel Name"\n1,2,3\n')], "格式错误"),
    "malformed JSON": (lambda t: ["diagnose", _write(t, "b.json", '{"kernel": [1,')], "此处应为一个值"),
    "malformed TOML": (lambda t: ["diagnose", _write(t, "b.toml", "x = = 1\n")], "无效的值"),
    "bad criteria TOML": (lambda t: ["diagnose", PLAIN, "--criteria", _write(t, "c.toml", "x = = 1\n")], "不是有效的 TOML"),  # (one wording for every TOML file, zh13)
    "bad criterion": (lambda t: ["diagnose", PLAIN, "--criteria", _write(t, "c.toml", "[criteria]\nnope = 1\n")],
                      "未知的阈值"),
    "bad spec TOML": (lambda t: ["diagnose", PLAIN, "--spec", _write(t, "s.toml", "x = = 1\n")], "不是有效的 TOML"),
    "--arch unknown": (lambda t: ["occupancy", "--arch", "sm_99", "--threads", "256", "--regs", "32"], "不支持"),
    "--arch garbage": (lambda t: ["occupancy", "--arch", "xx", "--threads", "256", "--regs", "32"], "GPU 架构"),
    "--threads range": (lambda t: ["occupancy", "--arch", "sm_90", "--threads", "2000", "--regs", "32"], "超出"),
    "--threads text": (lambda t: ["occupancy", "--arch", "sm_90", "--threads", "abc", "--regs", "32"], "整数"),
    "--regs range": (lambda t: ["occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "300"], "超出"),
    "--dtype": (lambda t: ["banks", "--dtype", "quad", "--tile", "32x32", "--access", "row"], "元素类型"),
    "--tile": (lambda t: ["banks", "--dtype", "float", "--tile", "3y3", "--access", "row"], "tile 尺寸"),
    "--top timeline": (lambda t: ["timeline", _write(t, "t.json", "{}"), "--top", "0"], "应为正整数"),
    "--top fusion": (lambda t: ["fusion", _write(t, "t.json", "{}"), "--top", "0"], "应为正整数"),
    "invalid regex": (lambda t: ["diagnose", PLAIN, "--kernel", "regex:("], "正则表达式"),
    "source without SASS": (lambda t: ["source", PLAIN], "逐指令数据"),
    "query without a dataset": (lambda t: ["query", _empty_dir(t), "SELECT 1"], "数据集"),
    # validators' errors, file kinds and tomllib's reasons (more kinds: tests/test_zh_error_kinds.py)
    "spec unknown field": (lambda t: ["diagnose", PLAIN, "--spec", _write(t, "s.toml", "a = 1\n")], "未知字段“a”"),
    "spec wrong type": (lambda t: ["diagnose", PLAIN, "--spec", _write(t, "s.toml", 'peak_flops_per_s = "x"\n')],
                        "应为表，实际为字符串"),
    "spec unreadable": (lambda t: ["diagnose", PLAIN, "--spec", str(t / "nope.toml")], "无法读取规格文件"),
    "plain missing field": (lambda t: ["diagnose", _write(t, "e.json", "{}")], "缺少必填字段"),
    "TOML table header": (lambda t: ["diagnose", _write(t, "b.toml", "[a\n")], "表头声明末尾应为“]”"),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_is_one_chinese_line(name, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("KERNELSCOPE_LANG", raising=False)
    argv, expected = BAD_INPUTS[name]
    args = argv(tmp_path)
    if any(a == PLAIN for a in args):
        need(Path(PLAIN))
    try:
        code = main([*args, "--lang", "zh"])
    except SystemExit as exc:  # argparse's usage errors exit
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "：错误：" in err and expected in err, err
    assert english_runs(err) == [], err


def test_query_without_pyarrow_is_chinese(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    monkeypatch.setitem(sys.modules, "duckdb", None)
    assert main(["query", str(tmp_path), "SELECT 1", "--lang", "zh"]) == 2
    err = capsys.readouterr().err
    assert "未安装" in err and "kernelscope[dataset]" in err and english_runs(err) == [], err


#: Reports whose data-problem / citation rows were English in Chinese output (issue 28): command, a Chinese text.
REPORTS = {
    "FP32 FLOPs partly counted": (["diagnose", "C08_ncu_raw_units_row.csv"], "未采集"),
    "DRAM bytes derived": (["diagnose", "C09_ncu_csv_warning_before_header.csv"], "推算"),
    "SM clock derived": (["diagnose", "C22_ncu_console_shifted_rows.txt"], "SM 频率"),
    "nvprof levels": (["diagnose", "N07_nvprof_shared_util_levels.txt"], "利用率等级"),
    "CUDA graph citation": (["timeline", "N05_nsys_stats_context_init.txt", "-v"], "每节点 580 ns"),  # in the details
    "invalid record": (["timeline", "C03_kineto_ts0_kernel.json"], "没有 GPU 计时"),
}


@pytest.mark.parametrize("name", list(REPORTS))
def test_report_rows_are_chinese(name, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one row, one line
    argv, expected = REPORTS[name]
    assert main([argv[0], str(need(CASES / argv[1])), *argv[2:], "--lang", "zh"]) in (0, 1)
    out = capsys.readouterr().out
    assert expected in out, out
    assert not re.search(r"\d us\b", out)
    text = re.sub(r"\s*\n\s*", " ", out).replace("RTX 5070 Ti Laptop GPU", "GPU")  # wrapped rows joined
    i = text.index(expected)
    row = text[max(0, text.rfind("  ", 0, i - 300)):i + 300]  # the row around the text
    assert english_runs(row) == [], row


# --------------------------------------------------------------------- (d) argparse ``type=`` converters (review 12)


def test_no_converter_raises_english_text():
    """A ``type=`` converter raises :class:`~kernelscope.errors.ArgumentValueError` (a catalogue key), never
    ``argparse.ArgumentTypeError(...)`` with text, and nothing in cli/ raises an error built from a bare English
    literal (``raise XError(f"...")``): argparse would print that English text under --lang zh too."""
    bad = []
    for rel, node in _calls(lambda n: _name(n) == "ArgumentTypeError"):
        bad.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:80]}")
    for path in sorted((SRC / "cli").rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            call = node.exc
            name = _name(call) or ""
            if not name.endswith(("Error", "Exception")) or name == "InputError" or any(k.arg == "key" for k in call.keywords):
                continue  # InputError: test_no_error_is_raised_with_literal_english
            texts = [t for t in map(_literal, call.args) if t is not None]
            if any(re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", t.replace("{}", "")) for t in texts):
                bad.append(f"{rel}:{node.lineno}: {ast.unparse(call)[:80]}")
    assert bad == [], "raise ArgumentValueError(key, values) / InputError(..., key=...) instead:\n" + "\n".join(bad)


def _converters() -> list[tuple[str, str, object]]:
    """(command, option, converter) of every option whose ``type=`` is one of kernelscope's own functions."""
    import argparse

    from kernelscope.cli import _parser

    out = []
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, p in sub.choices.items():
        for action in p._actions:
            kind = action.type
            if callable(kind) and getattr(kind, "__module__", "").startswith("kernelscope") and action.option_strings:
                out.append((command, action.option_strings[-1], kind))
    return out


_BAD_VALUES = ("foo", "=", "x=-1", "x=nan", "x=inf", "", "-5", "1e999", "a=b=c")


def test_every_converter_error_is_chinese(capsys, monkeypatch):
    """Each of kernelscope's own converters, given bad values: a value it rejects is an ArgumentValueError, and the
    usage error that --lang zh prints for it is Chinese (no English run)."""
    from kernelscope.errors import ArgumentValueError

    monkeypatch.delenv("KERNELSCOPE_LANG", raising=False)
    converters = _converters()
    assert any(opt == "--useful-flops" for _, opt, _ in converters), converters
    bad, rejected = [], 0
    for command, option, convert in converters:
        for value in _BAD_VALUES:
            try:
                convert(value)
            except ArgumentValueError:
                pass
            except Exception as exc:  # noqa: BLE001 - any other error is printed in English
                bad.append(f"{command} {option} {value!r}: {type(exc).__name__}: {exc}")
                continue
            else:
                continue
            rejected += 1
            with pytest.raises(SystemExit):
                main([command, PLAIN, f"{option}={value}", "--lang", "zh"])
            err = capsys.readouterr().err
            if not CJK.search(err.split("：", 3)[-1]) or english_runs(err):
                bad.append(f"{command} {option} {value!r}: {err.strip()}")
    assert rejected and bad == [], "\n".join(bad)


# ------------------------------------------------------- (e) what an error quotes from the input stays verbatim (review 12)

#: Input keys that are also words the Chinese output translates (phrase() words them: kernel -> Kernel, launch -> 启动).
GLOSSARY_KEYS = ("kernel", "launch", "name", "occupancy")


def test_glossary_keys_are_words_phrase_translates():
    assert all(phrase(k, "zh") != k for k in GLOSSARY_KEYS)


@pytest.mark.parametrize("key", GLOSSARY_KEYS)
def test_every_template_quotes_input_verbatim(key):
    """Every ``[error]`` template that quotes a field (“{x}” or ``{x!r}`` in its Chinese) prints the value as the
    input has it: a key that is also a glossary word is not turned into the display term."""
    import string

    from kernelscope.errors import InputError
    from kernelscope.knowledge.messages import error_text

    checked, bad = 0, []
    for name, entry in _raw()["error"].items():
        zh = entry["zh"]
        parsed = list(string.Formatter().parse(zh))
        quoted = {f for _, f, _, _ in string.Formatter().parse("".join(re.findall(r"“[^“”]*”", zh))) if f}
        quoted |= {f for _, f, _, conv in parsed if f and conv == "r"}
        if not quoted:
            continue
        values = {f: key if f in quoted else 7 for _, f, _, _ in parsed if f}
        try:
            err = InputError("in.toml", key=name, values=values)
            text = error_text(err, "zh")
        except (KeyError, ValueError, TypeError, IndexError):
            continue  # a field of another type (a number the template formats): not a quoted key
        checked += 1
        shown = sum(1 for _, f, _, _ in parsed if f in quoted)
        if text.count(key) < shown + re.sub(r"\{[^{}]*\}", "", zh).count(key):
            bad.append(f"[error.{name}]: {text}")
    assert checked > 20 and bad == [], "\n".join(bad)


@pytest.mark.parametrize("key", GLOSSARY_KEYS)
def test_plain_file_errors_name_the_key_as_written(key, tmp_path, capsys, monkeypatch):
    """A plain-numbers file's missing or unknown field is named as the file writes it (review 12: “Kernel”)."""
    monkeypatch.delenv("KERNELSCOPE_LANG", raising=False)
    missing = tmp_path / "missing.toml"
    missing.write_text('duration_s = "fast"\n', encoding="utf-8")
    assert main(["diagnose", str(missing), "--lang", "zh"]) == 2
    assert "缺少必填字段“kernel”" in capsys.readouterr().err
    unknown = tmp_path / "unknown.toml"
    top = key if key != "kernel" else "kernels"  # a top-level key beside the [[kernel]] tables
    unknown.write_text(f"{top} = 1\n" + need(Path(PLAIN)).read_text(encoding="utf-8"), encoding="utf-8")
    code = main(["diagnose", str(unknown), "--lang", "zh"])
    err = capsys.readouterr().err
    assert code == 2 and f"未知字段“{top}”" in err, err

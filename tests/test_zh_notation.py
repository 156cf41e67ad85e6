"""Chinese errors write their values in Chinese notation (zh review item 14): a quoted value “x”, not ``'x'``; a
list a、b、c, not ``a, b, c``; a range 0～255, not ``0..255``. Checked three ways:

(a) the catalogue: no zh text of messages.toml (errors, frames, phrases, argparse's errors, --help) quotes with
    ASCII single quotes, lists ASCII words with ", " or writes ``{lo}..{hi}`` (a shell command is a `code span`);
(b) the code: every message value the code builds as an English list (``", ".join(...)``, directly or through a
    local name) is a ``{field:list}`` in the zh template of that message (a reviewed few hold kernel names, which may
    themselves contain ", ": they stay as they are);
(c) the real error paths of the review, run with ``--lang zh``: the printed line has none of the ASCII forms."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from kernelscope.cli import main
from kernelscope.knowledge.messages import fill, usage_error, zh_list, zh_notation

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelscope"
RAW = tomllib.loads((SRC / "data" / "messages.toml").read_text(encoding="utf-8"))

#: zh texts whose ASCII quotes are not quotation: the text of a file or a shell command shown as written.
VERBATIM = {
    "error.ncu_text_no_kernels": "an ncu console line as printed ('  kernel(float *), Context 1, Stream 7')",
    "error.stats_no_table": "nsys stats table headers as printed",
    "error.stats_number_format_ambiguous": "numbers as written in the file ('1,234')",
    "error.stats_number_format_mixed": "numbers as written in the file",
    "error.kineto_range_profiler_only": "a trace's event name and Python code",
    "error.ncu_report_missing": "the package's name as pip spells it",
    "error.dataset_extra_missing": "a shell command (pip install 'kernelscope[dataset]')",
    "error.stall_breakdown_not_dict": "a TOML/JSON shape",
    "error.plain_not_object": "a JSON key",
}
#: Values built as ", "-joined lists that are lists of kernel names (a name may hold ", ": not split).
KERNEL_NAME_LISTS = {("no_kernel_matches", "names"), ("no_kernel_matches_more", "names"),
                     ("kernel_spec_ambiguous", "candidates"), ("pattern_not_one_kernel", "found"),
                     ("fusion_no_such_kernel", "value"), ("fusion_same_kernel", "names"), ("stats_no_rows", "names"),
                     ("nvprof_no_kernels", "seen"),
                     # a file's header row quoted as the file has it (verbatim content, not a list of ours)
                     ("csv_not_ncu_header", "header"), ("stats_bad_field_count", "header")}
#: Values that are a phrase holding a list: the [phrase] entry that words them lists it ({field:list}).
PHRASED = {("no_hierarchical_roofline", "hint"): "; launches with one: {launches} (--launch N)",
           ("archive_no_kineto", "value"): "; it holds: {members}"}


def _zh_templates() -> dict[str, str]:
    """Every zh text of messages.toml: errors, frames, the phrases that word their values, argparse's errors and the
    --help texts."""
    out = {f"{table}.{key}": entry["zh"] for table in ("error", "frame") for key, entry in RAW[table].items()}
    out.update({f"phrase.{en}": zh for en, zh in RAW["phrase"].items()})
    out.update({f"{table}.{i}": e["zh"] for table in ("argparse", "help") for i, e in enumerate(RAW[table])})
    return out


def _ascii_notation(text: str) -> list[str]:
    """The ASCII notations of ``text`` outside `code spans`: 'quoted', a ", " list of ASCII words, a ".." range."""
    text = re.sub(r"`[^`]*`", "CODE", text)
    found = re.findall(r"(?<![\w'])'[^'\s][^']*'(?![\w'])", text)
    found += re.findall(r"\d+\s*\.\.\s*\d+|\}\.\.\{", text)
    found += re.findall(r"(?<![\w.])[A-Za-z_][\w.]*, [A-Za-z_][\w.]*(?:, [A-Za-z_][\w.]*)+", text)
    return found


# ------------------------------------------------------------------------------------------ (a) the catalogue

def test_zh_templates_have_no_ascii_quotes_or_ranges():
    bad = {k: _ascii_notation(re.sub(r"\{[^{}]*\}", "V", t)) for k, t in _zh_templates().items() if k not in VERBATIM}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_the_notation_helpers():
    assert zh_notation("'md' (choose from 'table', 'json')") == "“md” (choose from “table”、“json”)"
    assert zh_list("sm_60, sm_61, ...") == "sm_60、sm_61 等"
    assert zh_list("NVIDIA H800, NVIDIA H200") == "NVIDIA H800、NVIDIA H200"
    assert fill("实际为{v!r}；应为 {k:list} 之一", "zh", {"v": "x", "k": "a, b"}) == "实际为“x”；应为 a、b 之一"
    assert fill("got {v!r}; one of {k}", "en", {"v": "x", "k": "a, b"}) == "got 'x'; one of a, b"
    assert _ascii_notation("'x' 0..255 a, b, c") == ["'x'", "0..255", "a, b, c"]
    assert not _ascii_notation("“x” 0～255 a、b、c `pip install 'k'`")


# ------------------------------------------------------------------------------------------ (b) the code

def _joined(node: ast.AST | None) -> bool:
    """``node`` builds an English list: a ``", ".join(...)`` call (possibly inside an f-string, a sum or a
    conditional; not inside another call, which words its own value)."""
    if node is None:
        return False
    if isinstance(node, ast.Call):
        f = node.func
        return isinstance(f, ast.Attribute) and f.attr == "join" and isinstance(f.value, ast.Constant) \
            and f.value.value == ", "
    return any(_joined(n) for n in ast.iter_child_nodes(node))


def _list_values() -> list[tuple[str, str, str]]:
    """(file:line, message key, field) of every message value the code builds as a ", " list."""
    out = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            assigned = {t.id: a.value for a in ast.walk(fn) if isinstance(a, ast.Assign)
                        for t in a.targets if isinstance(t, ast.Name)}
            for call in [n for n in ast.walk(fn) if isinstance(n, ast.Call)]:
                kw = {k.arg: k.value for k in call.keywords if k.arg}
                if isinstance(kw.get("key"), ast.Constant) and isinstance(kw.get("values"), ast.Dict):
                    key, fields = kw["key"].value, dict(zip(kw["values"].keys, kw["values"].values))
                    fields = {k.value: v for k, v in fields.items() if isinstance(k, ast.Constant)}
                elif (isinstance(call.func, ast.Name) and call.func.id == "frame" and call.args
                      and isinstance(call.args[0], ast.Constant)):
                    key, fields = call.args[0].value, {k: v for k, v in kw.items()}
                else:
                    continue
                for field, value in fields.items():
                    if _joined(value) or (isinstance(value, ast.Name) and _joined(assigned.get(value.id))):
                        out.append((f"{path.relative_to(SRC)}:{call.lineno}", key, field))
    return out


def test_every_list_value_is_listed_in_chinese_notation():
    found = _list_values()
    assert len(found) >= 10, found  # the scan sees the messages it is about
    bad = []
    for where, key, field in found:
        zh = (RAW["error"].get(key) or RAW["frame"].get(key) or {}).get("zh", "")
        if (key, field) in PHRASED:
            zh = RAW["phrase"].get(PHRASED[key, field], "")
            field = re.findall(r"\{(\w+)\}", PHRASED[key, field])[0]
        if (key, field) not in KERNEL_NAME_LISTS and f"{{{field}:list}}" not in zh:
            bad.append(f"{where}: [{key}] {field}: {zh}")
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------------------------------ (c) the real paths

CASES = {
    "unknown GPU": ["roofline", "missing.ncu-rep", "--gpu", "H900"],
    "argparse choice": ["diagnose", "x.ncu-rep", "--format", "yaml"],
    "unsupported arch": ["occupancy", "--arch", "sm_99", "--threads", "256", "--regs", "32"],
    "out of range": ["occupancy", "--arch", "sm_80", "--threads", "256", "--regs", "300"],
    "bad engine": ["diagnose", "x.ncu-rep", "--engine", "nope"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_zh_errors_print_values_in_chinese_notation(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.ncu-rep").write_bytes(b"NVR")
    try:
        code = main([*CASES[name], "--lang", "zh"])
    except SystemExit as exc:  # argparse's usage errors exit
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and "错误" in err, err
    assert not _ascii_notation(err), err


def test_argparse_values_in_chinese_notation():
    said = usage_error("argument --format: invalid choice: 'md' (choose from 'table', 'json')", "zh")
    assert said == "参数 --format 的取值“md”无效，可选值为“table”、“json”", said

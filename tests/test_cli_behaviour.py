"""Command-line behaviour that holds for every command: ``-o`` text as wide as ``$COLUMNS`` (else 80) with no
trailing blanks, each command's ``-o`` help naming only the extensions it writes, a closed standard output
ending the command quietly (exit 141)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from rich.cells import cell_len

from conftest import EXAMPLE, REPO
from kernelscope.cli import COMMANDS, EXIT_BROKEN_PIPE, _parser, main
from kernelscope.cli.options import OUTPUT_FORMATS, output_extensions


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("columns", ["80", "100", None])
@pytest.mark.parametrize("command", [["diagnose", str(EXAMPLE), "-v"], ["gpus"], ["banks", "--dtype", "float", "--tile", "32x32", "--access", "column"]])
def test_output_text_is_as_wide_as_columns_without_trailing_blanks(tmp_path, monkeypatch, capsys, columns, command):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    out = tmp_path / "report.txt"
    assert main([*command, "-o", str(out)]) == 0
    lines = _lines(out)
    assert lines
    width = int(columns or 80)
    assert max(cell_len(line) for line in lines) <= width
    assert [line for line in lines if line != line.rstrip()] == []


@pytest.mark.parametrize("command", [["diagnose", str(EXAMPLE)], ["gpus"], ["timeline", "CASE:C03_kineto_ts0_kernel.json"]])
def test_piped_output_has_no_trailing_blanks(monkeypatch, capsys, command):
    """Standard output that is not a terminal (capsys: a pipe) gets the lines without the blanks rich pads them with."""
    from conftest import CASES, need

    monkeypatch.setenv("COLUMNS", "80")
    argv = [str(need(CASES / a[5:])) if a.startswith("CASE:") else a for a in command]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 3 and max(cell_len(line) for line in lines) <= 80
    assert [line for line in lines if line != line.rstrip()] == []


def test_each_commands_output_help_lists_only_the_extensions_it_writes():
    parser = _parser()
    subs = next(a for a in parser._actions if a.dest == "command").choices
    checked = 0
    for command in COMMANDS:
        text = " ".join(subs[command.name].format_help().split())  # the help as printed
        m = re.search(r"--output FILE (.*?plain text\))", text)
        if m is None or "its extension names the format" not in m.group(1):
            continue
        listed = set(re.findall(r"(\.[a-z]+)[,;]", m.group(1)))
        assert listed == set(output_extensions(command.shared)), command.name
        for ext in listed:  # each one is accepted by the command
            assert OUTPUT_FORMATS[ext] in command.shared.formats
        checked += 1
    assert checked >= 5
    assert ".csv" not in output_extensions(next(c for c in COMMANDS if c.name == "diagnose").shared)


def test_readme_format_claim_matches_the_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"`--format markdown` on all but ((?:`\w+`(?:,| and)?\s*)+)", readme)
    assert m, "README states which commands lack --format markdown"
    named = set(re.findall(r"`(\w+)`", m.group(1)))
    without = {c.name for c in COMMANDS if c.shared.formats and "markdown" not in c.shared.formats}
    assert named == without
    assert all("json" in c.shared.formats for c in COMMANDS if c.shared.formats)


@pytest.mark.parametrize("command", [["diagnose", str(EXAMPLE)], ["diagnose", str(EXAMPLE), "--format", "json"],
                                     ["gpus"], ["occupancy", "--arch", "sm_80", "--threads", "256", "--regs", "32"]])
def test_closed_standard_output_exits_141_quietly(command):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written (`| head -0`)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    try:
        p = subprocess.run([sys.executable, "-m", "kernelscope", *command], stdout=write, stderr=subprocess.PIPE,
                           env=env, cwd=REPO, timeout=120)
    finally:
        os.close(write)
    assert p.returncode == EXIT_BROKEN_PIPE == 141
    assert p.stderr == b""


# ----------------------------------------------------------------------------------------------- names
from conftest import SHARED, need  # noqa: E402
from kernelscope.render.cjk import name_breaks
from kernelscope.render.cjk_console import CJKConsole, name_text  # noqa: E402
from kernelscope.render.common import short_name, short_names  # noqa: E402

_ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >"
        "(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)")
_MUL = _ADD.replace("AddFunctor", "MulFunctor")


def test_short_names_keep_different_names_apart():
    assert short_name(_ADD) == short_name(_MUL)  # the shortening alone makes them one
    names = [_ADD, _MUL, _ADD, "k", "k"]
    shorts = short_names(names)
    assert shorts[0] != shorts[1] and shorts[0] == shorts[2] and shorts[3] == shorts[4] == "k"
    assert "AddFunctor" in shorts[0] and "MulFunctor" in shorts[1]
    same_words = ["void f<" + "x" * 70 + ">(int)", "void f<" + "x" * 70 + ">(float)"]
    assert len(set(short_names(same_words))) == 2


def test_short_names_number_when_no_word_tells_them_apart():
    a = "void k<" + "a, " * 30 + "b>(int)"
    b = "void k<" + "b, " * 30 + "a>(int)"  # the same words: neither has one the other lacks
    shorts = short_names([a, b, a])
    assert shorts[0] != shorts[1] and shorts[0] == shorts[2]
    assert shorts[0].endswith("[#1]") and shorts[1].endswith("[#2]")


@pytest.mark.parametrize("name", ["ampere_sgemm_32x32_sliced1x4_tn", "inc(int *, unsigned long)", _ADD])
def test_names_wrap_between_tokens(name):
    import io

    buf = io.StringIO()
    from rich.table import Table

    t = Table(show_header=False, box=None, padding=0)
    t.add_column(overflow="fold", max_width=16)
    t.add_row(name_text(name))
    CJKConsole(file=buf, width=40, color_system=None, force_terminal=False).print(t)
    lines = [line.rstrip() for line in buf.getvalue().splitlines() if line.strip()]
    assert len(lines) > 1
    starts = {0, *name_breaks(name)}
    offset = 0
    for line in lines:
        piece = line.strip()
        offset = name.index(piece, offset)
        assert offset in starts or name[offset - 1] == " ", (line, name)  # each line begins at a break
        offset += len(piece)



def test_timeline_table_names_distinct(capsys, monkeypatch):
    trace = need(SHARED / "corpus" / "torch_traces" / "hta_ns_resolution_v100_rank-0.pt.trace.json.gz")
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["timeline", str(trace), "-v", "--format", "json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    kernels = doc["reports"][0]["kernels"][:10]
    full = [k["name"] for k in kernels]
    shorts = short_names(full)
    assert len(set(full)) == len(set(shorts))
    assert main(["timeline", str(trace), "-v"]) == 0
    out = capsys.readouterr().out
    for s in shorts:
        assert s in out


# ----------------------------------------------------------------------------------------------- timeline GPUs
def test_timeline_lists_only_gpus_with_work(capsys, monkeypatch):
    trace = need(SHARED / "corpus" / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz")
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["timeline", str(trace)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.strip().startswith("GPU "))
    assert "0: NVIDIA A100" in line and "1: NVIDIA" not in line and "7 more GPUs" in line


def test_kernels_from_another_gpu_warn_in_one_line(capsys):
    trace = need(SHARED / "corpus" / "nsys" / "cudatutorial_rtx3060_fused_bias_fp16_report.sqlite")
    assert main(["timeline", str(trace), "--kernels", str(EXAMPLE)]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "profiled on" in line]
    assert len(err) == 1 and "A100" in err[0] and "RTX 3060" in err[0]


# ----------------------------------------------------------------------------------------------- directories
def test_directory_skips_files_in_no_profiler_format(tmp_path, capsys):
    (tmp_path / "a.toml").write_text(EXAMPLE.read_text())
    (tmp_path / "README.txt").write_text("hello, these are my reports\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    assert main(["diagnose", str(tmp_path)]) == 0
    cap = capsys.readouterr()
    assert cap.out
    skipped = [line for line in cap.err.splitlines() if "skipped" in line]
    assert any("README.txt" in line and "not a profiler file" in line for line in skipped)
    assert any("notes.md" in line for line in skipped)
    assert "failed" not in cap.err


def test_input_error_among_several_names_keep_going(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n")
    assert main(["diagnose", str(EXAMPLE), str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--keep-going" in err and "the 1 other input and" in err
    assert main(["diagnose", str(bad)]) == 2  # one input: nothing else to report
    assert "--keep-going" not in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- English words
from kernelscope.knowledge.text import agree  # noqa: E402


@pytest.mark.parametrize("text, expected", [
    ("1 launches", "1 launch"), ("2 launches", "2 launches"), ("11 launches", "11 launches"),
    ("1 copies use pageable host memory", "1 copy uses pageable host memory"), ("1 runs", "1 run"),
    ("idle 1 time(s) for", "idle 1 time for"), ("idle 4 time(s) for", "idle 4 times for"),
    ("602 call(s)", "602 calls"), ("1 element(s) per row", "1 element per row"),
    ("1 kernel name(s) with 1 launches", "1 kernel name with 1 launch"), ("1.5 launches", "1.5 launches"),
    ("launch 1 runs at", "launch 1 runs at"), ("1 ms", "1 ms"), ("1 launch calls", "1 launch call"),
])
def test_english_plural_rule(text, expected):
    assert agree(text) == expected


def _catalogue_templates():
    import tomllib

    data = REPO / "src" / "kernelscope" / "data"
    for name in ("labels.toml", "messages.toml", "findings.toml", "remedies.toml"):
        text = (data / name).read_text(encoding="utf-8")
        yield from re.findall(r'en = "((?:[^"\\]|\\.)*)"', text)
        yield from re.findall(r'^"((?:[^"\\]|\\.)*)" = ', text, re.M)
    assert tomllib


def test_every_english_count_template_is_filled_by_the_plural_rule():
    """Every English template "{n} thing(s)" comes out as "1 thing" / "2 things" through fill / frame / phrase."""
    from kernelscope.knowledge.text import fill

    found = 0
    for template in _catalogue_templates():
        for m in re.finditer(r"\{(\w+)(?::[^}]*)?\}((?: [A-Za-z-]+){0,2}?) ([A-Za-z]+)\(s\)", template):
            found += 1
            one = agree(f"1{m.group(2)} {m.group(3)}(s)")
            many = agree(f"3{m.group(2)} {m.group(3)}(s)")
            assert "(s)" not in one + many and many.endswith("s") and not one.endswith("(s)")
    assert found >= 10
    assert fill("{n} launches, idle {n} time(s)", {"n": 1}, "en") == "1 launch, idle 1 time"


def test_no_space_before_percent_in_english_templates():
    bad = [t for t in _catalogue_templates() if re.search(r"(\d|\})\s%", t) and "0-100 %" not in t]
    assert bad == []


def test_speedup_near_one_reads_as_unchanged():
    from kernelscope.analysis.compare import _explain

    class S:  # the two sides of a compared kernel, as _explain reads them: only the time recorded
        duration_s = 20.05e-6
        classes = ()

        def __getattr__(self, name):
            return None

    keys = [n.key for n in _explain(S(), S(), 1.001, ())]
    assert "cmp_unchanged" in keys and "cmp_speedup" not in keys
    keys = [n.key for n in _explain(S(), S(), 1.5, ())]
    assert "cmp_speedup" in keys


# ----------------------------------------------------------------------------------------------- banks types
@pytest.mark.parametrize("dtype, size", [("int", 4), ("unsigned int", 4), ("uint32_t", 4), ("int8", 1),
                                         ("unsigned char", 1), ("short", 2), ("uint16_t", 2), ("long long", 8),
                                         ("int64_t", 8), ("bf16", 2), ("float", 4), ("double", 8)])
def test_banks_accepts_common_types(dtype, size, capsys):
    assert main(["banks", "--dtype", dtype, "--tile", "32x32", "--access", "column", "--format", "json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["element_bytes"] == size


def test_banks_refuses_an_unknown_type(capsys):
    assert main(["banks", "--dtype", "quaternion", "--tile", "32x32", "--access", "column"]) == 2
    assert "int" in capsys.readouterr().err


def test_short_view_note_does_not_cite_its_source():
    """The graph-replay model's note (short view) points to --details; the citation stays in the details line."""
    from kernelscope.knowledge.text import label

    for lang in ("en", "zh"):
        assert "{source}" not in label("tl_graph_model", lang)
        assert "{source}" in label("tl_graph_saving", lang)


def test_one_queued_launch_and_one_synchronous_copy_agree_in_number():
    from kernelscope.render.common import Fmt

    text = Fmt("en").label("tl_launch_queued", n=1, depth="1", median="1 ms", max="2 ms")
    assert "; 1 call queued behind earlier work on the stream (1 operation ahead)" in text
    three = Fmt("en").label("tl_launch_queued", n=3, depth="1-2", median="1 ms", max="2 ms")
    assert "3 calls queued" in three and "(1-2 operations ahead)" in three
    raw = (REPO / "src" / "kernelscope" / "data" / "labels.toml").read_text(encoding="utf-8")
    assert "{n} synchronous copy call(s)" in raw and "synchronous copy calls (" not in raw

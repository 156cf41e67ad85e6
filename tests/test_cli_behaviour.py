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


def test_each_commands_output_help_lists_only_the_extensions_it_writes():
    parser = _parser()
    subs = next(a for a in parser._actions if a.dest == "command").choices
    checked = 0
    for command in COMMANDS:
        action = next((a for a in subs[command.name]._actions if a.dest == "output"), None)
        if action is None or "its extension names the format" not in (action.help or ""):
            continue
        listed = set(re.findall(r"(\.[a-z]+)[,;]", action.help))
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

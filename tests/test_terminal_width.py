"""Every command's table fits the width it is given (issue 27): a terminal's, ``$COLUMNS``, or 80 columns when piped
without it; the name column is kept (the least important columns go first); in English and in Chinese."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.table import Table

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.cli import main
from kernelscope.render.cjk_console import CJKConsole
from kernelscope.render.fit import NAME_MIN, fit_tables

SMALL_REPORT = "LakshyaSingh354__CudaCode__report.ncu-rep"
SOURCE_REPORT = "Lashi0812__CudaProgramming__profile.ncu-rep"


def _sqlite(tmp_path: Path) -> str:
    import sqlite3

    path = tmp_path / "c12.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(need(CASES / "_nsys_min_schema.sql").read_text() +
                         need(CASES / "C12_nsys_util_overlap.sql").read_text())
    return str(path)


def _ncu(name: str) -> str:
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    return str(need(CORPUS_NCU / name))


#: command line -> a text the name column (or the table's key column) must show, even at 80 columns.
COMMANDS = {
    "diagnose-plain": (lambda tmp: ["diagnose", str(need(CASES / "C01_plain_occupancy_221.toml")), "-q"], None),
    "diagnose-ncu": (lambda tmp: ["diagnose", _ncu(SMALL_REPORT), "-q"], "matmul_tiled"),
    "source": (lambda tmp: ["source", _ncu(SOURCE_REPORT)], "readWriteOffset.cu:19"),
    "timeline-nsys": (lambda tmp: ["timeline", _sqlite(tmp)], "compute_step_kernel"),
    "timeline-stats": (lambda tmp: ["timeline", str(need(CASES / "N05_nsys_stats_context_init.txt"))], None),
    "timeline-kineto": (lambda tmp: ["timeline", str(need(CASES / "N20_kineto_queued_launches.json"))], None),
    "gpus": (lambda tmp: ["gpus"], "H100"),
    "occupancy": (lambda tmp: ["occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64"], None),
    "banks": (lambda tmp: ["banks", "--dtype", "float", "--tile", "32x32", "--access", "column"], None),
    "roofline": (lambda tmp: ["roofline", _ncu(SMALL_REPORT), "--format", "table", "-q"], "matmul_tiled"),
    "compare": (lambda tmp: ["compare", str(need(CASES / "N16_compare_aa_before.toml")),
                             str(need(CASES / "N16_compare_aa_after.toml"))], None),
    "fusion": (lambda tmp: ["fusion", str(need(SHARED / "corpus" / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz"))],
               "sm80_xmma"),
}


def _widest(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize("columns", [None, "80", "100", "120"])
def test_piped_table_fits_the_width(name, lang, columns, tmp_path, monkeypatch, capsys):
    argv, must = COMMANDS[name]
    argv = argv(tmp_path)
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert main([*argv, "--lang", lang]) in (0, 1)
    out = capsys.readouterr().out
    width = int(columns or 80)
    assert out.strip(), "no table printed"
    assert _widest(out) <= width, "\n".join(l for l in out.splitlines() if cell_len(l) > width)
    if must is not None:
        assert must in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_terminal_of_80_columns(lang, tmp_path):
    """On a real terminal (a pseudo-terminal 80 columns wide, no $COLUMNS) the timeline's kernel names stay."""
    argv = ["timeline", _sqlite(tmp_path), "--lang", lang]
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen([sys.executable, "-m", "kernelscope", *argv], stdout=follower, stderr=follower,
                            stdin=subprocess.DEVNULL, env={**env, "TERM": "dumb"})
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the follower closed: the program ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=300) == 0
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")
    assert _widest(text) <= 80
    assert "compute_step_kernel" in text


def test_fit_splits_a_wide_table_into_parts_never_dropping_a_column():
    """A table too wide for the terminal prints as parts, each led by the first column(s), every column kept (no
    column is left out silently: issue 28, native review 7), each line within the width."""
    t = Table()
    for header in ("#", "Kernel name", "Total", "Share", "Grid", "Block", "Registers", "Notes"):
        t.add_column(header)
    t.add_row("0", "void a_long_kernel_name_of_forty_chars_x(float*)", "12.3 ms", "45.0%", "(1024,1,1)",
              "(256,1,1)", "64", "latency bound")
    buf = io.StringIO()
    console = CJKConsole(file=buf, width=60, soft_wrap=False)
    console.print(*fit_tables([t], console))
    out = buf.getvalue()
    assert all(h in out for h in ("Total", "Share", "Grid", "Block", "Registers", "Notes")), out
    assert _widest(out) <= 60 and "void" in out
    assert NAME_MIN == 20


def test_fit_keeps_a_table_that_fits():
    t = Table()
    for header in ("Name", "Value"):
        t.add_column(header)
    t.add_row("x", "1")
    console = CJKConsole(file=io.StringIO(), width=80)
    fit_tables([t], console)
    assert [c.header for c in t.columns] == ["Name", "Value"]


def _fit_lines_out(width: int) -> str:
    from kernelscope.render.fit import drop_first

    t = Table()
    for header in ("File:line", "Samples", "Instr.", "What its counters show"):
        t.add_column(header)
    t.add_row("readWriteOffset.cu:19", "36,580", "35", "100% of all Long Scoreboard samples")
    buf = io.StringIO()
    console = CJKConsole(file=buf, width=width, soft_wrap=False)
    console.print(*fit_tables([drop_first(t, 2)], console))
    return buf.getvalue()


def test_a_table_that_does_not_fit_keeps_every_column_within_the_width():
    for width in (70, 61, 60, 50):
        out = _fit_lines_out(width)
        assert all(h in out for h in ("Samples", "Instr.")), (width, out)
        assert _widest(out) <= width

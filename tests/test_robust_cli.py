"""Nothing crashes (issue 27): file names that are not UTF-8 for every reader and writer, Ctrl-C, damaged and
truncated ``.ncu-rep`` reports; ``--keep-going`` for batches; ``-o`` naming the format by its extension."""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CASES, CORPUS_NCU, need
from kernelscope.cli import main

#: A file name holding the byte 0xff (not UTF-8): Python hands it over as the lone surrogate U+DCFF.
BAD = os.fsdecode(b"r\xff")
#: How such a name is shown in every output.
SHOWN = "r\\xff"
SMALL_REPORT = "LakshyaSingh354__CudaCode__report.ncu-rep"  # one launch, matmul_tiled
SOURCE_REPORT = "Lashi0812__CudaProgramming__profile.ncu-rep"  # per-instruction data


def ks(*args: str, **kw) -> subprocess.CompletedProcess:
    """``python -m kernelscope ARGS`` in a subprocess (text stderr)."""
    proc = subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True, timeout=300, **kw)
    proc.stderr = proc.stderr.decode("utf-8", "replace")  # type: ignore[assignment]
    return proc


def _copy(src: Path, folder: Path, suffix: str) -> str:
    dst = os.path.join(str(folder), BAD + suffix)
    shutil.copyfile(src, dst)
    return dst


def _sqlite(case: str, folder: Path) -> str:
    """An Nsight Systems SQLite case built under a name that is not UTF-8."""
    sql = need(CASES / "_nsys_min_schema.sql").read_text() + need(CASES / case).read_text()
    import sqlite3

    plain = folder / "case.sqlite"
    with sqlite3.connect(plain) as db:
        db.executescript(sql)
    dst = os.path.join(str(folder), BAD + ".sqlite")
    os.rename(plain, dst)
    return dst


def _written(folder: Path, name: str) -> bytes:
    path = os.path.join(str(folder), name)
    return b"".join(Path(p).read_bytes() for p in glob.glob(path + "/**/*", recursive=True) if Path(p).is_file()) \
        if os.path.isdir(path) else Path(path).read_bytes()


# ------------------------------------------------------------------------------------ names that are not UTF-8


DIAGNOSE_INPUTS = [
    ("ncu-rep", lambda tmp: _copy(need(CORPUS_NCU / SMALL_REPORT), tmp, ".ncu-rep")),
    ("ncu csv", lambda tmp: _copy(need(CASES / "N11_ncu_csv_orin_flash_fwd.csv"), tmp, ".csv")),
    ("plain toml", lambda tmp: _copy(need(CASES / "C01_plain_occupancy_221.toml"), tmp, ".toml")),
    ("ncu console", lambda tmp: _copy(need(CASES / "C01_ncu_console_occupancy_221.txt"), tmp, ".txt")),
    ("nvprof", lambda tmp: _copy(need(CASES / "N07_nvprof_shared_util_levels.txt"), tmp, ".txt")),
]


@pytest.mark.parametrize("kind,make", DIAGNOSE_INPUTS, ids=[n for n, _ in DIAGNOSE_INPUTS])
@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "html", "parquet"])
def test_diagnose_reads_and_writes_names_that_are_not_utf8(kind, make, fmt, tmp_path, capsys):
    if kind == "ncu-rep":
        pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    if fmt == "parquet":
        pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    src = make(tmp_path)
    out = BAD + "_out." + {"table": "txt", "markdown": "md"}.get(fmt, fmt)
    assert main(["diagnose", src, "-q", "--format", fmt, "-o", os.path.join(str(tmp_path), out)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    data = _written(tmp_path, out)
    if fmt != "parquet":
        text = data.decode("utf-8")  # strict: no surrogate escaped into the file
        assert SHOWN in text.replace("\\\\", "\\"), text[:500]
    if fmt == "markdown":  # the chart beside it, linked by its percent-encoded name
        charts = [n for n in os.listdir(tmp_path) if n.endswith("_roofline.svg")]
        assert charts and os.fsencode(charts[0]).startswith(b"r\xff_out")
        assert "r%FF_out_roofline.svg" in text


def test_table_on_standard_output_shows_the_name_escaped(tmp_path):
    src = _copy(need(CASES / "C01_plain_occupancy_221.toml"), tmp_path, ".toml")
    proc = ks("diagnose", src, "-q")
    assert proc.returncode == 0, proc.stderr
    assert SHOWN.encode() in proc.stdout


def test_error_names_the_file_escaped(tmp_path):
    path = os.path.join(str(tmp_path), BAD + ".csv")
    Path(path).write_text("not,a,profile\n1,2,3\n")
    proc = ks("diagnose", path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"kernelscope: error: {tmp_path}/{SHOWN}.csv"), proc.stderr


TIMELINE_INPUTS = [
    ("nsys sqlite", lambda tmp: _sqlite("C12_nsys_util_overlap.sql", tmp)),
    ("kineto", lambda tmp: _copy(need(CASES / "C03_kineto_ts0_kernel.json"), tmp, ".json")),
    ("nsys stats", lambda tmp: _copy(need(CASES / "N05_nsys_stats_context_init.txt"), tmp, ".txt")),
]


@pytest.mark.parametrize("kind,make", TIMELINE_INPUTS, ids=[n for n, _ in TIMELINE_INPUTS])
@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_timeline_reads_and_writes_names_that_are_not_utf8(kind, make, fmt, tmp_path, capsys):
    src = make(tmp_path)
    out = os.path.join(str(tmp_path), BAD + "_out." + fmt)
    assert main(["timeline", src, "--format", fmt, "-o", out]) == 0
    text = Path(out).read_bytes().decode("utf-8")
    assert SHOWN in text.replace("\\\\", "\\"), text[:500]


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "html"])
def test_source_names_that_are_not_utf8(fmt, tmp_path):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    src = _copy(need(CORPUS_NCU / SOURCE_REPORT), tmp_path, ".ncu-rep")
    out = os.path.join(str(tmp_path), BAD + "_out." + fmt)
    assert main(["source", src, "--format", fmt, "-o", out]) == 0
    Path(out).read_bytes().decode("utf-8")


@pytest.mark.parametrize("ext", ["svg", "png"])
def test_roofline_chart_names_that_are_not_utf8(ext, tmp_path):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    src = _copy(need(CORPUS_NCU / SMALL_REPORT), tmp_path, ".ncu-rep")
    out = os.path.join(str(tmp_path), BAD + "_chart." + ext)
    assert main(["roofline", src, "-q", "-o", out]) == 0
    head = Path(out).read_bytes()[:600]
    assert head.startswith(b"\x89PNG") if ext == "png" else b"<svg" in head
    if ext == "svg":  # the title names the report, escaped
        assert SHOWN.encode() in Path(out).read_bytes()


# ------------------------------------------------------------------------------------------------- Ctrl-C


@pytest.mark.parametrize("lang,line", [("en", "kernelscope: interrupted (Ctrl-C)"), ("zh", "kernelscope：已中断（Ctrl-C）")])
def test_ctrl_c_during_a_long_read_is_one_line_exit_130_nothing_left(lang, line, tmp_path):
    """SIGINT while standard input is still being copied (the writer never ends it: the read waits, whatever the
    machine's load): one line, exit 130, the temporary copy removed, no output file."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "out.json"
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "kernelscope", "timeline", "-", "--lang", lang, "--format", "json",
                             "-o", str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    try:
        proc.stdin.write(b'{"traceEvents": [' + b" " * (1 << 20))  # more than a pipe holds: returns once it reads
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while not list(tmp.glob("kernelscope-stdin-*/input0")) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert list(tmp.glob("kernelscope-stdin-*/input0")), "the copy of standard input never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err.decode("utf-8").strip().splitlines() == [line]
    assert list(tmp.iterdir()) == [] and not out.exists()


def test_ctrl_c_in_process_returns_130(monkeypatch, capsys):
    import kernelscope.cli as cli

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_main", interrupted)
    assert cli.main(["gpus"]) == 130
    assert capsys.readouterr().err == "kernelscope: interrupted (Ctrl-C)\n"


# ------------------------------------------------------------------------------------ damaged and truncated


def test_report_cut_after_its_file_header_is_truncated(tmp_path):
    """The 10 first bytes of a report: magic, a 2-byte file header (version 7), no block at all."""
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    path = tmp_path / "cut.ncu-rep"
    path.write_bytes(b"NVR\x00" + struct.pack("<I", 2) + b"\x08\x07")
    proc = ks("diagnose", str(path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "truncated" in lines[0] and "0 results" not in lines[0], proc.stderr


def test_real_report_cut_to_ten_bytes(tmp_path):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    path = tmp_path / "cut.ncu-rep"
    path.write_bytes(need(CORPUS_NCU / SMALL_REPORT).read_bytes()[:10])
    proc = ks("diagnose", str(path))
    assert proc.returncode == 2 and "truncated" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def _flipped(data: bytes, seed: int, flips: int) -> bytes:
    r = random.Random(seed)
    b = bytearray(data)
    for _ in range(flips):
        b[r.randrange(len(b))] ^= 1 << r.randrange(8)
    return bytes(b)


def test_flipped_bytes_give_one_line_or_the_real_kernels(tmp_path):
    """Bits flipped at random (fixed seeds) in a one-launch report: either exit 2 with one line, or the report's own
    kernel (matmul_tiled), never an invented ``kernel_0``. Seed 104 (20 flips) is one that ncu_report loads as a
    result with neither name nor metric."""
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")
    data = need(CORPUS_NCU / SMALL_REPORT).read_bytes()
    outcomes = {}
    for seed, flips in [(104, 20), (107, 20), (100, 3), (101, 20), (102, 200), (110, 20)]:
        path = tmp_path / f"flip{seed}.ncu-rep"
        path.write_bytes(_flipped(data, seed, flips))
        proc = ks("diagnose", str(path), "--format", "json", "-q")
        if proc.returncode == 0:
            names = {k["name"] for inp in json.loads(proc.stdout)["inputs"] for k in inp["summary"]}
            assert names == {"matmul_tiled"}, (seed, names)
        else:
            assert proc.returncode == 2, (seed, proc.stderr)
            assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
        outcomes[seed] = proc.returncode
    assert outcomes[104] == 2


# ------------------------------------------------------------------------------------------------ --keep-going


def _batch(tmp_path: Path) -> Path:
    folder = tmp_path / "batch"
    folder.mkdir()
    shutil.copyfile(need(CASES / "C01_plain_occupancy_221.toml"), folder / "a_good.toml")
    (folder / "b_bad.csv").write_text("not,a,profile\n1,2,3\n")
    shutil.copyfile(need(CASES / "N11_ncu_csv_orin_flash_fwd.csv"), folder / "c_good.csv")
    (folder / "d_trace.sqlite").write_bytes(b"SQLite format 3\x00")  # the other family: not read by diagnose
    return folder


def test_keep_going_reports_the_rest_lists_every_file_and_fails(tmp_path):
    folder = _batch(tmp_path)
    proc = ks("diagnose", str(folder), "--keep-going", "--format", "json", "-q")
    assert proc.returncode == 2, proc.stderr
    paths = [inp["path"] for inp in json.loads(proc.stdout)["inputs"]]
    assert paths == [str(folder / "a_good.toml"), str(folder / "c_good.csv")]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 3, proc.stderr
    assert lines[0].startswith(f"kernelscope: skipped: {folder / 'd_trace.sqlite'}: not read")
    assert lines[1].startswith(f"kernelscope: failed: {folder / 'b_bad.csv'}: ")
    assert lines[2] == "kernelscope: 1 of 3 inputs failed (listed above); the output covers the others"


def test_without_keep_going_one_bad_file_stops_the_batch(tmp_path):
    folder = _batch(tmp_path)
    proc = ks("diagnose", str(folder), "--format", "json", "-q")
    assert proc.returncode == 2 and proc.stdout == b""
    assert len(proc.stderr.strip().splitlines()) == 1 and "b_bad.csv" in proc.stderr


def test_keep_going_with_workers_and_only_skips_exits_0(tmp_path, capsys):
    folder = _batch(tmp_path)
    (folder / "b_bad.csv").unlink()
    out = tmp_path / "out.json"
    assert main(["diagnose", str(folder), "--keep-going", "--jobs", "2", "-q", "-o", str(out)]) == 0
    assert len(json.loads(out.read_text())["inputs"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"kernelscope: skipped: {folder / 'd_trace.sqlite'}: not read (its name ends in none of .ncu-rep, .csv, "
        ".txt, .toml, .json, .nvprof)"]


def test_keep_going_every_input_failed_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("x\n")
    out = tmp_path / "out.json"
    assert main(["diagnose", str(bad), "--keep-going", "-o", str(out), "--lang", "zh"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "kernelscope：全部 1 个输入均失败（见上）；未写入任何输出" and len(err) == 2
    assert not out.exists()


def test_timeline_keep_going(tmp_path, capsys):
    folder = tmp_path / "traces"
    folder.mkdir()
    good = _sqlite("C12_nsys_util_overlap.sql", tmp_path)
    os.rename(good, folder / "a.sqlite")
    (folder / "b.sqlite").write_text("garbage\n")
    out = tmp_path / "out.json"
    assert main(["timeline", str(folder), "--keep-going", "--format", "json", "-o", str(out)]) == 2
    assert [r["path"] for r in json.loads(out.read_text())["reports"]] == [str(folder / "a.sqlite")]
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"kernelscope: failed: {folder / 'b.sqlite'}: ") and len(err) == 2


def test_jobs_zero_is_refused_like_negative(capsys):
    assert main(["diagnose", str(need(CASES / "C01_plain_occupancy_221.toml")), "--jobs", "0"]) == 2
    assert "--jobs: must be at least 1, got 0" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ -o names the format


@pytest.mark.parametrize("name,check", [
    ("g.json", lambda t: json.loads(t)["schema"].startswith("kernelscope.")),
    ("g.md", lambda t: t.startswith("**") and "\n| " in t),
    ("g.txt", lambda t: "H100" in t and "| " not in t and not t.lstrip().startswith("{")),
    ("g", lambda t: "H100" in t and not t.lstrip().startswith("{")),
])
def test_output_extension_names_the_format(name, check, tmp_path):
    out = tmp_path / name
    assert main(["gpus", "-o", str(out)]) == 0
    assert check(out.read_text(encoding="utf-8")), out.read_text()[:300]


def test_explicit_format_wins_over_the_extension(tmp_path):
    out = tmp_path / "g.md"
    assert main(["gpus", "--format", "json", "-o", str(out)]) == 0
    json.loads(out.read_text())


@pytest.mark.parametrize("lang,words", [("en", "a .html file names the html format, which this command does not "
                                                "write (--format table, json, markdown)"),
                                        ("zh", ".html 文件对应 html 格式，但此命令不输出该格式")])
def test_extension_of_a_format_the_command_lacks_is_refused(lang, words, tmp_path, capsys):
    out = tmp_path / "g.html"
    assert main(["gpus", "--lang", lang, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert not out.exists()


def test_diagnose_html_and_roofline_json_by_extension(tmp_path):
    src = str(need(CASES / "C01_plain_occupancy_221.toml"))
    page = tmp_path / "r.html"
    assert main(["diagnose", src, "-q", "-o", str(page)]) == 0
    assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    numbers = tmp_path / "roof.json"
    assert main(["roofline", src, "-q", "-o", str(numbers)]) == 0
    assert "ceilings" in json.loads(numbers.read_text()) or json.loads(numbers.read_text())


# ------------------------------------------------------------------------------------ Markdown with backticks


def test_markdown_code_span_survives_backticks():
    from kernelscope.render.common import md_code

    assert md_code("LDS R1, [R2]") == "`LDS R1, [R2]`"
    assert md_code("a`b") == "``a`b``"  # a longer fence than any run of backticks inside
    assert md_code("`x") == "`` `x ``"  # a space where the text starts with a backtick
    assert md_code("a``b") == "```a``b```"


def test_html_shortens_a_kernel_name_of_130_kb(tmp_path):
    """A generated kernel name of 132,000 characters: the page shows it shortened; the JSON keeps it whole."""
    name = "k" + "_x" * 66_000
    plain = tmp_path / "long.toml"
    plain.write_text(need(CASES / "C01_plain_occupancy_221.toml").read_text())
    text = plain.read_text()
    import re

    names = re.findall(r'^name\s*=\s*"([^"]*)"', text, re.M)
    assert names, "the case names its kernel"
    plain.write_text(text.replace(f'"{names[0]}"', f'"{name}"', 1))
    page = tmp_path / "p.html"
    assert main(["diagnose", str(plain), "-q", "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert name not in html and len(html) < 60_000 + len(name) // 2
    doc = tmp_path / "p.json"
    assert main(["diagnose", str(plain), "-q", "-o", str(doc)]) == 0
    assert name in doc.read_text()


def test_profile_with_a_program_that_is_not_ncu_blames_the_profiler(tmp_path, capsys, monkeypatch):
    """``profile --ncu /bin/false``: the program never ran under Nsight Compute; the error names --ncu, not it."""
    fake = tmp_path / "not-ncu"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert main(["profile", "--ncu", str(fake), "-o", "r", "--", "/bin/true"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kernelscope: error: --ncu: the profiler exited with status 1 without a line of Nsight Compute's "
                   "(==PROF==, ==ERROR==): the command was not profiled; check that --ncu (or the ncu on PATH) is "
                   "Nsight Compute's ncu"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-ncu"]  # no report, no temporary file

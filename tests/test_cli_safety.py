"""Nothing lost, nothing absurd: ``-o`` never destroys an input and writes links, FIFOs, devices and standard
output as what they are; standard input and process substitution work as inputs; messages say what is true and the
same situation gets the same exit code in every command; tables fit a terminal."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, EXAMPLE, SHARED, need
from kernelscope.cli import main

CORPUS_CSV = SHARED / "corpus" / "ncu_csv" / "olajide_rtx5070_saxpy.csv"
REPORT = CORPUS_NCU / "LakshyaSingh354__CudaCode__report.ncu-rep"

#: A minimal PyTorch profiler trace: one launch call and its kernel (a demangled template name).
KINETO = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "void foo<int, float>(int*)", "pid": 0, "tid": 7, "ts": 10, "dur": 100,
     "args": {"correlation": 1, "device": 0, "stream": 7}},
]}


def ks(*args: str, stdin: bytes | None = None, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """``python -m kernelscope ARGS`` in a subprocess (exit code, stdout bytes, stderr text)."""
    kw.setdefault("stdout", subprocess.PIPE)
    proc = subprocess.run([sys.executable, "-m", "kernelscope", *args], input=stdin, stderr=subprocess.PIPE,
                          env={**os.environ, **(env or {})}, timeout=300, **kw)
    proc.stderr = proc.stderr.decode("utf-8", "replace")  # type: ignore[assignment]
    return proc


def one_line(err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], err
    return lines[0]


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "t.toml"
    path.write_bytes(EXAMPLE.read_bytes())
    return path


def _sqlite(path: Path, rows: int = 0, start_end: bool = True) -> Path:
    con = sqlite3.connect(path)
    cols = "start INTEGER, end INTEGER, " if start_end else ""
    con.execute(f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({cols}deviceId INTEGER)")
    con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    for i in range(rows):
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + ("?, ?, ?)" if start_end else "?)"),
                    (i, i + 1, 0) if start_end else (0,))
    con.commit()
    con.close()
    return path


# ------------------------------------------------------------------------------------------------ same file
@pytest.mark.parametrize("command", [
    ["diagnose", "{in}", "-o", "{out}"],
    ["diagnose", "{in}", "--format", "json", "-o", "{out}"],
    ["compare", "{in}", "{in}", "-o", "{out}"],
    ["roofline", "{in}", "-o", "{out}"],
    ["source", "{in}", "-o", "{out}"],
])
@pytest.mark.parametrize("via_link", [False, True])
def test_output_that_is_an_input_is_refused(tmp_path, report, command, via_link):
    out = report
    if via_link or command[0] == "roofline":  # roofline wants .svg/.png: a link of that name to the input
        out = tmp_path / ("link.svg" if command[0] == "roofline" else "link.out")  # .svg names the chart format
        out.symlink_to(report.name)
    before = report.read_bytes()
    proc = ks(*(a.format(**{"in": report, "out": out}) for a in command))
    assert proc.returncode == 2
    one_line(proc.stderr, str(out), "is the input file", str(report))
    assert report.read_bytes() == before and not stat.S_ISLNK(report.lstat().st_mode)
    assert files_in(tmp_path) == sorted({report.name, out.name})


def test_timeline_output_that_is_its_input_is_refused(tmp_path):
    db = _sqlite(tmp_path / "x.sqlite", rows=1)
    before = db.read_bytes()
    proc = ks("timeline", str(db), "-o", str(db))
    assert proc.returncode == 2
    one_line(proc.stderr, "x.sqlite", "is the input file")
    assert db.read_bytes() == before


def test_compare_output_naming_the_before_report_is_refused(tmp_path, report):
    after = tmp_path / "b.toml"
    after.write_bytes(report.read_bytes())
    proc = ks("compare", str(report), str(after), "-o", str(report))
    assert proc.returncode == 2
    one_line(proc.stderr, "is the input file")


def test_markdown_chart_beside_the_output_that_is_an_input_is_refused(tmp_path, report):
    (tmp_path / "rep_roofline.svg").symlink_to(report.name)  # diagnose -o rep.md writes rep_roofline.svg
    before = report.read_bytes()
    proc = ks("diagnose", str(report), "--format", "markdown", "-o", str(tmp_path / "rep.md"))
    assert proc.returncode == 2
    one_line(proc.stderr, "rep_roofline.svg", "is the input file")
    assert report.read_bytes() == before and files_in(tmp_path) == ["rep_roofline.svg", "t.toml"]


def test_spec_file_is_an_input_too(tmp_path, report):
    spec = tmp_path / "gpu.toml"
    spec.write_text('name = "g"\ndram_bandwidth_bytes_per_s = 1e12\n[peak_flops_per_s]\nfp32 = 10e12\n')
    proc = ks("diagnose", str(report), "--spec", str(spec), "-o", str(spec))
    assert proc.returncode == 2
    one_line(proc.stderr, "is the input file", "gpu.toml")


# ------------------------------------------------------------------------------------------------ special outputs
def test_symlink_output_keeps_the_link_and_updates_its_target(tmp_path, report):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "out.json"
    link.symlink_to(target.name)
    proc = ks("diagnose", str(report), "--format", "json", "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert json.loads(target.read_text())["schema"] == "kernelscope.diagnosis/1"
    assert files_in(tmp_path) == ["out.json", "real.json", "t.toml"]  # no temporary file left


def test_dangling_symlink_output_creates_its_target(tmp_path, report):
    link = tmp_path / "out.json"
    link.symlink_to("made.json")
    assert ks("diagnose", str(report), "--format", "json", "-o", str(link)).returncode == 0
    assert link.is_symlink() and json.loads((tmp_path / "made.json").read_text())


def test_fifo_output_is_written_in_place(tmp_path, report):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    proc = ks("diagnose", str(report), "--format", "json", "-o", str(fifo))
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(got[0])["schema"] == "kernelscope.diagnosis/1"
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and files_in(tmp_path) == ["out.fifo", "t.toml"]


@pytest.mark.parametrize("name", ["/dev/stdout", "-"])
def test_standard_output_as_output(report, name):
    proc = ks("diagnose", str(report), "--format", "json", "-o", name)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["schema"] == "kernelscope.diagnosis/1"


def test_dev_stdout_redirected_to_a_file_appends_where_the_shell_put_it(tmp_path, report):
    out = tmp_path / "log.txt"
    out.write_bytes(b"first line\n")
    with out.open("ab") as fh:
        proc = ks("diagnose", str(report), "--format", "json", "-o", "/dev/stdout", stdout=fh)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("first line\n{") and json.loads(text.split("\n", 1)[1])


def test_dev_null_output_stays_a_device(report):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    assert ks("diagnose", str(report), "--format", "json", "-o", "/dev/null").returncode == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dev_full_is_a_write_error(report):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    proc = ks("diagnose", str(report), "--format", "json", "-o", "/dev/full")
    assert proc.returncode == 2
    one_line(proc.stderr, "/dev/full", "cannot write", "No space left on device")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_broken_pipe_is_a_write_error(report):
    r, w = os.pipe()
    os.close(r)  # nobody reads: the write gets EPIPE
    try:
        proc = ks("diagnose", str(report), "--format", "json", "-o", f"/dev/fd/{w}", pass_fds=(w,))
    finally:
        os.close(w)
    assert proc.returncode == 2
    one_line(proc.stderr, f"/dev/fd/{w}", "cannot write", "Broken pipe")


def test_read_only_target_is_refused_and_kept(tmp_path, report):
    target = tmp_path / "out.json"
    target.write_text("keep")
    target.chmod(0o444)
    proc = ks("diagnose", str(report), "--format", "json", "-o", str(target))
    assert proc.returncode == 2
    one_line(proc.stderr, "out.json", "cannot write the output file")
    assert target.read_text() == "keep" and files_in(tmp_path) == ["out.json", "t.toml"]


def test_read_only_proc_file_is_not_called_missing(report):
    if not os.path.isfile("/proc/version"):
        pytest.skip("no /proc/version")
    proc = ks("diagnose", str(report), "-o", "/proc/version")
    assert proc.returncode == 2
    line = one_line(proc.stderr, "/proc/version", "cannot write")
    assert "No such file" not in line


def test_directory_output_is_refused(tmp_path, report):
    proc = ks("diagnose", str(report), "-o", str(tmp_path))
    assert proc.returncode == 2
    one_line(proc.stderr, "is a directory")


def test_failed_multi_file_write_leaves_nothing(tmp_path, report, monkeypatch, capsys):
    """Markdown with its charts: the second rename fails, the first is undone, no temporary file stays."""
    import kernelscope.cli.output as output

    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(output.os, "replace", flaky)
    code = main(["diagnose", str(report), "--format", "markdown", "-o", str(tmp_path / "rep.md")])
    assert code == 2
    one_line(capsys.readouterr().err, "cannot write the output file")
    assert files_in(tmp_path) == ["t.toml"]


# ------------------------------------------------------------------------------------------------ standard input
def test_plain_toml_from_standard_input():
    proc = ks("diagnose", "-", "--format", "json", stdin=EXAMPLE.read_bytes())
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["inputs"][0]["path"] == "<stdin>" and doc["inputs"][0]["launch_count"] == 3


def test_ncu_csv_from_standard_input():
    csv = need(CORPUS_CSV)
    proc = ks("diagnose", "-", "--format", "json", stdin=csv.read_bytes())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["inputs"][0]["format"] == "ncu-csv"


def test_kineto_json_from_standard_input_and_dev_stdin():
    data = json.dumps(KINETO).encode()
    for name in ("-", "/dev/stdin"):
        proc = ks("timeline", name, "--format", "json", stdin=data)
        assert proc.returncode == 0, proc.stderr
        rep = json.loads(proc.stdout)["reports"][0]
        assert rep["format"] == "kineto" and rep["path"] == ("<stdin>" if name == "-" else name)


def test_process_substitution_pipe(tmp_path):
    """``<(zcat trace.json.gz)``: a /dev/fd/N pipe."""
    r, w = os.pipe()
    feeder = threading.Thread(target=lambda: (os.write(w, json.dumps(KINETO).encode()), os.close(w)))
    feeder.start()
    try:
        proc = ks("timeline", f"/dev/fd/{r}", pass_fds=(r,))
    finally:
        feeder.join()
        os.close(r)
    assert proc.returncode == 0, proc.stderr
    assert f"/dev/fd/{r}" in proc.stdout.decode() and "kernelscope-stdin" not in proc.stdout.decode()


def test_ncu_rep_piped_is_spooled_and_removed(tmp_path):
    rep = need(REPORT)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = ks("diagnose", "-", "--format", "json", stdin=rep.read_bytes(), env={"TMPDIR": str(tmp)})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["inputs"][0]["format"] == "ncu-rep" and doc["inputs"][0]["path"] == "<stdin>"
    assert list(tmp.iterdir()) == []  # the temporary copy is gone


def test_errors_name_standard_input_not_the_temporary_copy(tmp_path):
    proc = ks("diagnose", "-", stdin=b"\x00\x01garbage" * 10, env={"TMPDIR": str(tmp_path)})
    assert proc.returncode == 2
    line = one_line(proc.stderr, "<stdin>", "unrecognised input format")
    assert "kernelscope-stdin" not in line and list(tmp_path.iterdir()) == []


def test_empty_standard_input():
    proc = ks("diagnose", "-", stdin=b"")
    assert proc.returncode == 2
    one_line(proc.stderr, "<stdin>", "empty")


@pytest.mark.parametrize("args", [["compare", "-", "-"], ["diagnose", "-", "-"], ["timeline", "-", "/dev/stdin"]])
def test_standard_input_twice_is_refused(args):
    proc = ks(*args, stdin=EXAMPLE.read_bytes())
    assert proc.returncode == 2
    one_line(proc.stderr, "standard input", "once")


def test_output_is_the_file_on_standard_input(report):
    with report.open("rb") as fh:
        proc = subprocess.run([sys.executable, "-m", "kernelscope", "diagnose", "-", "-o", str(report)], stdin=fh,
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    one_line(proc.stderr, "is the input file <stdin>")
    assert report.read_bytes() == EXAMPLE.read_bytes()


# ------------------------------------------------------------------------------------------------ messages
def test_diagnose_of_a_timeline_names_the_timeline_command(tmp_path):
    db = _sqlite(tmp_path / "x.sqlite", rows=1)
    proc = ks("diagnose", str(db))
    assert proc.returncode == 2
    one_line(proc.stderr, "x.sqlite", "program timeline", "kernelscope timeline")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(KINETO))
    one_line(ks("diagnose", str(trace)).stderr, "trace.json", "kernelscope timeline")


def test_timeline_of_a_kernel_profile_names_the_diagnose_command(tmp_path, report):
    rep = tmp_path / "x.ncu-rep"
    rep.write_bytes(b"NVR\x00" + b"\x00" * 64)
    for path in (rep, report):
        proc = ks("timeline", str(path))
        assert proc.returncode == 2
        one_line(proc.stderr, path.name, "kernelscope diagnose")


def test_table_with_rows_is_not_called_empty(tmp_path):
    db = _sqlite(tmp_path / "odd.sqlite", rows=3, start_end=False)
    proc = ks("timeline", str(db))
    assert proc.returncode == 2
    line = one_line(proc.stderr, "CUPTI_ACTIVITY_KIND_KERNEL (3 rows, no start/end columns)")
    assert "empty" not in line


@pytest.mark.parametrize("command", [
    ["diagnose", "{r}", "--kernel", "zzz"],
    ["diagnose", "{r}", "--kernel", "zzz", "--format", "json"],
    ["roofline", "{r}", "--kernel", "zzz", "-o", "{tmp}/r.svg"],
    ["compare", "{r}", "--before-kernel", "zzz", "--after-kernel", "sgemm_tiled"],
    ["compare", "{r}", "{r}", "--pair", "zzz=sgemm_tiled"],
])
def test_a_selection_that_matches_nothing_is_exit_2_everywhere(tmp_path, report, command):
    proc = ks(*(a.format(r=report, tmp=tmp_path) for a in command))
    assert proc.returncode == 2 and proc.stdout == b""
    one_line(proc.stderr, "no kernel matches", "'zzz'", "sgemm_naive_2048")
    assert files_in(tmp_path) == ["t.toml"]


def test_source_selection_that_matches_nothing(tmp_path):
    rep = need(REPORT)
    proc = ks("source", str(rep), "--kernel", "zzz")
    assert proc.returncode == 2
    one_line(proc.stderr, "no kernel matches --kernel 'zzz'", "kernels there:")


# ------------------------------------------------------------------------------------------------ polish
def test_gpus_fits_80_columns_with_every_number():
    from kernelscope.knowledge.gpus import catalogue

    proc = ks("gpus", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "…" not in out and "..." not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    t4 = next(g for g in catalogue() if g.name == "Tesla T4")
    row = next(line for line in out.splitlines() if line.startswith("Tesla T4"))
    assert row.split()[-6] == f"{t4.dram_bandwidth_bytes_per_s / 1e9:.4g}"


@pytest.mark.parametrize("command", ["diagnose", "compare", "timeline", "roofline", "source", "banks", "occupancy"])
def test_help_has_no_doubled_percent(command):
    proc = ks(command, "--help")
    assert proc.returncode == 0 and b"%%" not in proc.stdout


def test_chinese_chart_without_cjk_font_says_so(tmp_path, report, monkeypatch, capsys):
    from kernelscope.render.charts import style

    monkeypatch.setattr(style, "cjk_font", lambda: None)
    assert main(["roofline", str(report), "-o", str(tmp_path / "r.png"), "--lang", "zh", "-q"]) == 0
    err = capsys.readouterr().err
    one_line(err, "fonts-noto-cjk")
    assert main(["roofline", str(report), "-o", str(tmp_path / "e.png"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    # an SVG keeps its Chinese labels (drawn by the reader's browser): nothing to say
    assert main(["roofline", str(report), "-o", str(tmp_path / "r.svg"), "--lang", "zh", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_long_template_names_are_shortened_in_tables_only(tmp_path):
    name = ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add"
            "<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1}>(int, "
            "at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&)::"
            "{lambda(int)#1})")
    trace = dict(KINETO, traceEvents=[dict(e, name=name) if e["cat"] == "kernel" else e for e in KINETO["traceEvents"]])
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace))
    table = ks("timeline", str(path), env={"COLUMNS": "120"}).stdout.decode()
    assert "at::native::elementwise_kernel<…>(…)" in table and "CUDAFunctor_add" not in table
    doc = json.loads(ks("timeline", str(path), "--format", "json").stdout)
    assert doc["reports"][0]["kernels"][0]["name"] == name


def test_short_name_and_infinite_factors():
    from kernelscope.render.common import Fmt, factor, short_name

    assert short_name("sgemm") == "sgemm"
    assert short_name("void ns::k<" + "int, " * 20 + "float>(float*, int)") == "ns::k<…>(float*, int)"
    assert len(short_name("x" * 200)) == 60
    assert short_name("a::operator<(" + "int, " * 20 + ")") == "a::operator<(…)"  # unbalanced <: only (…)
    assert factor(float("inf")) == "∞" and factor(None) == "-" and factor(1.5) == "1.50x"
    assert Fmt("en").label("est_kernel", x=float("inf")) == "est. ∞ this kernel"
    assert "inf" not in Fmt("zh").label("est_kernel", x=float("inf"))


def test_a_huge_value_quoted_in_an_error_is_shortened_to_one_bounded_line(tmp_path, capsys):
    # found by the fuzzer: a metric value of 100,000 '[' quoted whole made a 100 kB error line
    from kernelscope.cli import main
    from kernelscope.errors import InputError, MAX_TOKEN_CHARS

    lines = need(SHARED / "cases" / "N07_nvprof_shared_util_levels.txt").read_text().splitlines(keepends=True)
    head, _, tail = lines[8].rpartition("2.000000")
    lines[8] = head + "2.00000" + "[" * 100_000 + "0" + tail
    assert "[" * 100 in lines[8]
    path = tmp_path / "n07.txt"
    path.write_text("".join(lines))
    assert main(["diagnose", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and len(err) < 600, err[:700]
    assert "cannot read the value" in err and "characters]" in err
    e = InputError("f.txt", "value 'x" + "y" * 500 + "'\nnext")
    assert "\n" not in str(e) and max(map(len, str(e).split())) <= MAX_TOKEN_CHARS
    assert "[503 characters]" in e.problem  # the quote, x, 500 y and the quote


def test_compare_with_nothing_in_common_is_exit_2_not_an_empty_pass(tmp_path, capsys):
    # found by the fuzzer: two reports of different programs gave an empty output and exit 0 (a gate passed on nothing)
    c05 = need(SHARED / "cases" / "C05_ncu_console_hit_rates.txt")
    n07 = SHARED / "cases" / "N07_nvprof_shared_util_levels.txt"
    out = tmp_path / "cmp.txt"
    assert main(["compare", str(c05), str(n07), "--fail-if-slower", "5", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no kernel matched" in err and "shmem_bench_kernel" in err and "--pair" in err, err
    assert len(err.splitlines()) == 1 and not out.exists()


def test_a_report_on_which_nvidias_reader_aborts_is_one_line_not_a_crash(tmp_path, capsys):
    # found by the fuzzer: two flipped bytes inside a block's payload make ncu_report call abort() (SIGABRT, exit 134,
    # nothing said); now a trial load in a forked child finds it first
    data = bytearray(need(CORPUS_NCU / "LakshyaSingh354__CudaCode__report.ncu-rep").read_bytes())
    data[15785], data[33669] = 64, 20
    bad = tmp_path / "damaged.ncu-rep"
    bad.write_bytes(bytes(data))
    good = CORPUS_NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"
    for argv in (["diagnose", str(good), str(bad)], ["source", str(bad)], ["compare", str(good), str(bad)],
                 ["roofline", str(bad), "-o", str(tmp_path / "r.svg")]):
        proc = subprocess.run([sys.executable, "-m", "kernelscope", *argv], capture_output=True, text=True)
        assert proc.returncode == 2, (argv, proc.returncode, proc.stderr[-300:])
        assert proc.stderr.count("\n") == 1 and "damaged Nsight Compute report" in proc.stderr
        assert "Check failed" in proc.stderr and str(bad) in proc.stderr
    assert not (tmp_path / "r.svg").exists()

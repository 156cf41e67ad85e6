"""``kernelscope profile -- COMMAND``: the ncu command line it runs, the diagnosis of what ncu wrote, and the one-line
errors for what goes wrong (ncu missing, counters not readable, no kernel profiled, the command failing, no report,
an -o that cannot be written), against a FAKE ncu: a script that records its arguments and prints what the real one
prints (ERR_NVGPUCTRPERM text as ncu words it, e.g. github.com/huggingface/hub-docs/pull/2714 and
github.com/deepseek-ai/DeepGEMM/issues/46). ``--timeline`` runs against a fake ``torch`` package."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.cli import main, ncu_run
from kernelscope.cli.profile import python_program

REPORT = CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep"

#: What ncu prints when the user may not read the performance counters (recorded output, exit status 1).
PERMISSION_OUTPUT = """\
==PROF== Connected to process 9012 (/work/app)
==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the \
target device 0. For instructions on enabling permissions and to get more information see \
https://developer.nvidia.com/ERR_NVGPUCTRPERM
==PROF== Disconnected from process 9012
==WARNING== No kernels were profiled.
"""

FAKE_NCU = '''\
#!{python}
"""A fake ncu: records its arguments, then acts as $FAKE_NCU_MODE says."""
import json, os, shutil, sys

argv = sys.argv[1:]
with open(os.environ["FAKE_NCU_RECORD"], "w") as fh:
    json.dump(argv, fh)
mode = os.environ.get("FAKE_NCU_MODE", "ok")
out = argv[argv.index("-o") + 1]
if not out.endswith(".ncu-rep"):
    out += ".ncu-rep"  # as ncu does
print("==PROF== Connected to process 4242 (/work/app)", flush=True)
if mode == "permission":
    sys.stdout.write(os.environ["FAKE_NCU_TEXT"])
    sys.exit(1)
if mode == "nokernels":
    print("==PROF== Disconnected from process 4242")
    print("==WARNING== No kernels were profiled.")
    sys.exit(0)
if mode == "noreport":
    sys.exit(0)
sys.stdout.write('==PROF== Profiling "basic" - 0: 0%....50%....100% - 31 passes\\n')
shutil.copyfile(os.environ["FAKE_NCU_REPORT"], out)
print("==PROF== Disconnected from process 4242")
if mode == "fail":
    print("==ERROR== The application returned an error code (3).")
    sys.exit(3)
print("==PROF== Report: " + out)
'''


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A fake ``ncu`` first on PATH (in tmp_path/bin), the corpus report it writes, and the file it records its
    arguments in; the current folder is tmp_path/work."""
    need(REPORT)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ncu = bin_dir / "ncu"
    ncu.write_text(FAKE_NCU.format(python=sys.executable), encoding="utf-8")
    ncu.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_NCU_RECORD", str(tmp_path / "argv.json"))
    monkeypatch.setenv("FAKE_NCU_REPORT", str(REPORT))
    monkeypatch.setenv("FAKE_NCU_TEXT", PERMISSION_OUTPUT)
    monkeypatch.setenv("FAKE_NCU_MODE", "ok")
    (work / "app").write_text("#!/bin/sh\n", encoding="utf-8")
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def recorded(tmp_path: Path) -> list[str] | None:
    """The arguments the fake ncu was run with, None when it did not run."""
    path = tmp_path / "argv.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def error_line(err: str) -> str:
    """The one kernelscope error line of standard error (ncu's own output comes before it)."""
    ours = [line for line in err.splitlines() if line.startswith("kernelscope: error: ")]
    assert len(ours) == 1, err
    assert err.endswith(ours[0] + "\n")
    return ours[0]


def leftovers(folder: Path) -> list[str]:
    """Temporary files left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ------------------------------------------------------------------------------------------ (a) a profile


def test_profile_runs_ncu_with_what_kernelscope_reads_and_diagnoses_the_report(fake, capsys):
    code, out, err = run(capsys, "profile", "-o", "run1", "--", "./app", "--size", "2048")
    assert code == 0, err
    argv = recorded(fake)
    assert argv[:2] == ["--set", "full"] and "--section" not in argv
    for pair in (["--import-source", "yes"], ["--target-processes", "all"]):
        assert any(argv[i:i + 2] == pair for i in range(len(argv))), pair
    assert "--clock-control" not in argv and "-k" not in argv and "-c" not in argv  # only when asked
    o = argv.index("-o")
    assert argv[o - 1] == "-f" and argv[o + 2:] == ["./app", "--size", "2048"]
    written = Path(argv[o + 1])
    assert written.parent == fake / "work" and written.name.endswith(".ncu-rep")  # a temporary file beside it
    report = fake / "work" / "run1.ncu-rep"
    assert report.read_bytes() == REPORT.read_bytes() and leftovers(fake / "work") == []
    assert "==PROF== Connected to process 4242" in err and '"basic" - 0: 0%....50%....100%' in err  # streamed
    assert "Nsight Compute report: run1.ncu-rep" in err
    code, diagnosis, _ = run(capsys, "diagnose", "run1.ncu-rep")
    assert code == 0 and out == diagnosis and "Where GPU time goes" in out and "basic" in out


def test_diagnosis_options_and_default_report_name(fake, capsys):
    code, out, err = run(capsys, "profile", "--format", "json", "--top", "2", "--", "./app")
    assert code == 0, err
    [report] = sorted((fake / "work").glob("kernelscope-profile-*.ncu-rep"))
    doc = json.loads(out)
    code, again, _ = run(capsys, "diagnose", report.name, "--format", "json", "--top", "2")
    assert json.loads(again) == doc
    code, out, err = run(capsys, "profile", "--lang", "zh", "--diagnosis", "d.json", "--format", "json",
                         "-o", "r2.ncu-rep", "--", "./app")
    assert code == 0 and out == "" and json.loads((fake / "work" / "d.json").read_text(encoding="utf-8"))
    assert "Nsight Compute 报告：r2.ncu-rep" in err


def test_ncu_options_pass_through(fake, capsys):
    code, _, err = run(capsys, "profile", "--set", "detailed", "-k", "regex:gemm", "-c", "3", "--clock-control",
                       "none", "--ncu-arg=--cache-control=none", "-o", "r", "--", "./app")
    assert code == 0, err
    argv = recorded(fake)
    assert argv[:4] == ["--set", "detailed", "--section", ncu_run.SECTIONS_REGEX]
    for pair in (["-k", "regex:gemm"], ["-c", "3"], ["--clock-control", "none"], ["--import-source", "yes"]):
        assert any(argv[i:i + 2] == pair for i in range(len(argv))), pair
    assert "--cache-control=none" in argv[:argv.index("-o")]
    assert run(capsys, "profile", "-c", "0", "--", "./app")[0] == 2


def test_ncu_command_line():
    line = ncu_run.ncu_command("ncu", ncu_run.NcuOptions(clock_control="none"), "r.ncu-rep", ["./app", "x"])
    assert line == ["ncu", "--set", "full", "--import-source", "yes", "--target-processes", "all",
                    "--clock-control", "none", "-f", "-o", "r.ncu-rep", "./app", "x"]


def test_replaced_report_keeps_its_mode_and_quiet_hides_ncu(fake, capsys):
    old = fake / "work" / "r.ncu-rep"
    old.write_bytes(b"old")
    old.chmod(0o640)
    code, _, err = run(capsys, "profile", "-q", "-o", "r.ncu-rep", "--", "./app")
    assert code == 0 and "==PROF==" not in err
    assert old.read_bytes() == REPORT.read_bytes() and stat.S_IMODE(old.stat().st_mode) == 0o640


# ------------------------------------------------------------------------------------------ (b) to (d): failures


def test_counters_not_readable_is_one_line_naming_the_fix(fake, capsys, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_MODE", "permission")
    old = fake / "work" / "r.ncu-rep"
    old.write_bytes(b"old report")
    code, out, err = run(capsys, "profile", "-o", "r", "--", "./app")
    assert code == 2 and out == ""
    assert PERMISSION_OUTPUT in err  # ncu's own output, shown as it came
    line = error_line(err)
    assert line.startswith("kernelscope: error: ncu: ERR_NVGPUCTRPERM: ")
    for fix in ("root", "NVreg_RestrictProfilingToAdminUsers=0", "https://developer.nvidia.com/ERR_NVGPUCTRPERM"):
        assert fix in line
    assert "No kernels" not in line  # the cause, not its consequence
    assert old.read_bytes() == b"old report" and leftovers(fake / "work") == []  # nothing replaced, nothing left
    code, _, err = run(capsys, "profile", "--lang", "zh", "-o", "r", "--", "./app")
    assert code == 2 and "kernelscope：错误：ncu：ERR_NVGPUCTRPERM：当前用户无权读取 GPU 性能计数器" in err


def test_no_kernel_profiled(fake, capsys, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_MODE", "nokernels")
    code, out, err = run(capsys, "profile", "-o", "r", "--", "./app")
    assert code == 2 and out == "" and "==WARNING== No kernels were profiled." in err
    assert error_line(err) == ("kernelscope: error: ./app: ncu profiled no kernel: the command launched no CUDA kernel "
                               "(does it run on the GPU? is CUDA_VISIBLE_DEVICES empty?)")
    code, _, err = run(capsys, "profile", "-k", "nosuch", "-o", "r", "--", "./app")
    assert code == 2 and "no kernel launch matched -k nosuch" in error_line(err)
    assert not (fake / "work" / "r.ncu-rep").exists() and leftovers(fake / "work") == []


def test_command_failure_names_its_exit_status_and_keeps_the_report(fake, capsys, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_MODE", "fail")
    code, out, err = run(capsys, "profile", "-o", "r", "--", "./app")
    assert code == 2 and out == ""
    line = error_line(err)
    assert line.startswith("kernelscope: error: ./app: the command failed under ncu (exit status 3: "
                           "The application returned an error code (3).)")
    assert line.endswith("kept in r.ncu-rep") and (fake / "work" / "r.ncu-rep").exists()


def test_no_report_written(fake, capsys, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_MODE", "noreport")
    code, _, err = run(capsys, "profile", "-o", "r", "--", "./app")
    assert code == 2
    assert error_line(err) == "kernelscope: error: r.ncu-rep: ncu exited with status 0 but wrote no report; see its " \
                              "output above"
    assert leftovers(fake / "work") == []


def test_ncu_missing(fake, capsys, monkeypatch, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(ncu_run, "NCU_SEARCH", (str(tmp_path / "cuda*" / "bin"),))
    code, out, err = run(capsys, "profile", "--", "./app")
    assert code == 2 and out == ""
    assert error_line(err).startswith("kernelscope: error: ncu: Nsight Compute's command line profiler was not found "
                                      "on PATH")
    assert "--ncu PATH" in err and recorded(fake) is None
    code, _, err = run(capsys, "profile", "--ncu", str(tmp_path / "nope"), "--", "./app")
    assert code == 2 and "nope: is not an executable file" in error_line(err)
    found = tmp_path / "cuda-12.4" / "bin"  # not on PATH: found where CUDA installs it
    found.mkdir(parents=True)
    shutil.copy(fake / "bin" / "ncu", found / "ncu")
    code, _, err = run(capsys, "profile", "-o", "r", "--", "./app")
    assert code == 0, err
    code, _, err = run(capsys, "profile", "--ncu", str(fake / "bin" / "ncu"), "-o", "r", "--", "./app")
    assert code == 0, err


def test_no_command(fake, capsys):
    for args in (["profile"], ["profile", "--"]):
        code, _, err = run(capsys, *args)
        assert code == 2 and "give the program to profile after --" in error_line(err)


# ------------------------------------------------------------------------------------------ (e) -o


def test_report_that_cannot_be_written_is_refused_before_anything_runs(fake, capsys):
    work = fake / "work"
    (work / "adir.ncu-rep").mkdir()
    cases = {
        "adir.ncu-rep": "adir.ncu-rep: is a directory; expected an output file name",
        str(work / "missing" / "r"): "r.ncu-rep: cannot write the output file (No such file or directory)",
        "-": "-: is standard output, a stream or a device",
    }
    readonly = work / "ro.ncu-rep"
    readonly.write_bytes(b"x")
    readonly.chmod(0o444)
    cases["ro.ncu-rep"] = "ro.ncu-rep: cannot write the output file (it is read-only)"
    for output, message in cases.items():
        code, out, err = run(capsys, "profile", "-o", output, "--", "./app")
        assert code == 2 and out == "" and message in error_line(err), (output, err)
    assert recorded(fake) is None


def test_outputs_that_are_inputs_are_refused(fake, capsys):
    data = fake / "work" / "in.ncu-rep"
    data.write_bytes(b"input")
    code, _, err = run(capsys, "profile", "-o", "in.ncu-rep", "--", "./app", "in.ncu-rep")
    assert code == 2 and "the output is the input file in.ncu-rep" in error_line(err)
    code, _, err = run(capsys, "profile", "--diagnosis", "app", "-o", "r", "--", "./app")
    assert code == 2 and "the output is the input file ./app" in error_line(err)
    code, _, err = run(capsys, "profile", "--diagnosis", "r.ncu-rep", "-o", "r", "--", "./app")
    assert code == 2 and "r.ncu-rep: the output is the input file r.ncu-rep" in error_line(err)
    assert recorded(fake) is None and data.read_bytes() == b"input"


def test_bad_spec_is_refused_before_profiling(fake, capsys):
    code, _, err = run(capsys, "profile", "--gpu", "no-such-gpu-xyz", "--", "./app")
    assert code == 2 and "no-such-gpu-xyz" in error_line(err) and recorded(fake) is None


# ------------------------------------------------------------------------------------------ --timeline

FAKE_TORCH = {
    "torch/__init__.py": """\
        from . import cuda, profiler
        """,
    "torch/cuda.py": """\
        def is_available():
            return False

        def synchronize():
            pass
        """,
    "torch/profiler.py": """\
        import json, sys

        class ProfilerActivity:
            CPU = "cpu"
            CUDA = "cuda"

        class profile:
            def __init__(self, activities):
                self.activities = activities
            def start(self):
                self.argv = list(sys.argv)
            def stop(self):
                pass
            def export_chrome_trace(self, path):
                with open(path, "w") as fh:
                    json.dump({"traceEvents": [], "fake": [str(a) for a in self.activities]}, fh)
        """,
}


@pytest.fixture
def fake_torch(tmp_path, monkeypatch):
    root = tmp_path / "site"
    for name, text in FAKE_TORCH.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(root))
    return root


PROGRAM = """\
import json, sys
json.dump(sys.argv, open("ran.json", "w"))
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0)
"""


def test_timeline_records_a_trace_of_a_python_program(fake, fake_torch, capsys):
    work = fake / "work"
    (work / "prog.py").write_text(PROGRAM, encoding="utf-8")
    code, out, err = run(capsys, "profile", "--timeline", "-o", "run", "--", sys.executable, "prog.py", "a", "b")
    assert code == 0, err
    assert recorded(fake)[-4:] == [sys.executable, "prog.py", "a", "b"]  # the ncu run
    assert json.loads((work / "ran.json").read_text(encoding="utf-8")) == ["prog.py", "a", "b"]  # the traced run
    trace = json.loads((work / "run.trace.json").read_text(encoding="utf-8"))
    assert trace["fake"] == ["cpu"]
    assert "torch.cuda.is_available() is False" in err
    assert err.rstrip().endswith("kernelscope timeline run.trace.json --kernels run.ncu-rep")
    assert "Where GPU time goes" in out and leftovers(work) == []
    (work / "ran.json").unlink()
    (work / "progmod.py").write_text(PROGRAM, encoding="utf-8")
    code, _, err = run(capsys, "profile", "-q", "--timeline", "-o", "run2", "--", sys.executable, "-m", "progmod", "x")
    assert code == 0, err
    assert json.loads((work / "ran.json").read_text(encoding="utf-8")) == [str(work / "progmod.py"), "x"]
    assert (work / "run2.trace.json").exists() and "torch.cuda" not in err  # -q: the program's output hidden


def test_timeline_failures(fake, fake_torch, capsys, monkeypatch):
    work = fake / "work"
    (work / "prog.py").write_text(PROGRAM, encoding="utf-8")
    code, _, err = run(capsys, "profile", "--timeline", "-o", "r", "--", "./app")
    assert code == 2 and "--timeline: the command is not a Python program" in error_line(err)
    assert recorded(fake) is None
    code, _, err = run(capsys, "profile", "--timeline", "-o", "r", "--", sys.executable, "prog.py", "3")
    assert code == 2 and "the program failed inside the PyTorch profiler (exit status 3)" in error_line(err)
    assert (work / "r.ncu-rep").exists() and not (work / "r.trace.json").exists() and leftovers(work) == []
    monkeypatch.delenv("PYTHONPATH")
    if _imports_torch():
        pytest.skip("torch is installed here: the no-torch message cannot be shown")
    code, _, err = run(capsys, "profile", "--timeline", "-o", "r", "--", sys.executable, "prog.py")
    assert code == 2 and "cannot import torch" in error_line(err)


def _imports_torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def test_python_programs_are_recognised(tmp_path):
    assert python_program(["python3", "-u", "-X", "dev", "-m", "pkg.mod", "x"]) == (["python3", "-u", "-X", "dev"],
                                                                                  ["-m", "pkg.mod", "x"])
    assert python_program(["/usr/bin/python3.12", "train.py", "--steps", "3"]) == (["/usr/bin/python3.12"],
                                                                                  ["train.py", "--steps", "3"])
    assert python_program(["python", "-c", "print(1)"]) == (["python"], ["-c", "print(1)"])
    assert python_program(["python"]) is None and python_program(["python", "-"]) is None
    assert python_program(["./app", "x.py"]) is None
    script = tmp_path / "s.py"
    script.write_text("#!/usr/bin/env python3\n", encoding="utf-8")
    assert python_program([str(script), "a"]) == (["python3"], [str(script), "a"])
    script.write_text("print(1)\n", encoding="utf-8")
    assert python_program([str(script)]) == ([sys.executable], [str(script)])

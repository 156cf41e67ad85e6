"""``--keep-going`` survives every kind of bad input: one line on standard error (the input, what was expected),
the other inputs reported, exit 2 at the end. Kinds: an empty directory, a missing file, a truncated report, a
directory holding no report (notes and pictures only), a glob matching nothing, a directory that cannot be listed.
Without ``--keep-going`` the first of them still ends the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import CASES, CORPUS_NCU, need
from kernelscope.cli import main

GOOD = "C01_plain_occupancy_221.toml"
SMALL_REPORT = "LakshyaSingh354__CudaCode__report.ncu-rep"  # one launch
SUMMARY = "kernelscope: 1 of 2 inputs failed (listed above); the output covers the others"


def _good(tmp_path: Path) -> Path:
    dst = tmp_path / "good.toml"
    shutil.copyfile(need(CASES / GOOD), dst)
    return dst


def _run(bad: str, tmp_path: Path, capsys, *extra: str) -> tuple[int, list[str], list[str]]:
    """``diagnose BAD GOOD --keep-going -o out.json``: (exit status, the reported inputs' paths, stderr lines)."""
    good = _good(tmp_path)
    out = tmp_path / "out.json"
    rc = main(["diagnose", bad, str(good), "--keep-going", "-q", "-o", str(out), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    paths = [inp["path"] for inp in json.loads(out.read_text())["inputs"]] if out.exists() else []
    return rc, paths, err


def _assert_carried_on(rc: int, paths: list[str], err: list[str], bad: str, tmp_path: Path, problem: str) -> None:
    assert rc == 2
    assert paths == [str(tmp_path / "good.toml")]
    failed = [line for line in err if line.startswith("kernelscope: failed: ")]
    assert failed == [f"kernelscope: failed: {bad}: {problem}"] or (
        len(failed) == 1 and failed[0].startswith(f"kernelscope: failed: {bad}: {problem}")), err
    assert err[-1] == SUMMARY


def test_empty_directory_is_listed_and_the_others_reported(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, paths, err = _run(str(empty), tmp_path, capsys)
    _assert_carried_on(rc, paths, err, str(empty), tmp_path, "directory holds no file kernelscope reads (")
    assert len(err) == 2, err


def test_missing_file_is_listed_and_the_others_reported(tmp_path, capsys):
    missing = str(tmp_path / "missing.ncu-rep")
    rc, paths, err = _run(missing, tmp_path, capsys)
    _assert_carried_on(rc, paths, err, missing, tmp_path, "file not found")


def test_truncated_report_is_listed_and_the_others_reported(tmp_path, capsys):
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(need(CORPUS_NCU / SMALL_REPORT).read_bytes()[:2000])
    rc, paths, err = _run(str(cut), tmp_path, capsys)
    _assert_carried_on(rc, paths, err, str(cut), tmp_path, "not a readable Nsight Compute report (truncated")


def test_directory_of_non_reports_is_listed_and_the_others_reported(tmp_path, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "README.txt").write_text("how these reports were made\n")
    (notes / "roofline.png").write_bytes(b"\x89PNG\r\n")
    rc, paths, err = _run(str(notes), tmp_path, capsys)
    _assert_carried_on(rc, paths, err, str(notes), tmp_path, "directory holds no file kernelscope reads (")
    assert sum(line.startswith("kernelscope: skipped: ") for line in err) == 2  # both files named as not read


def test_glob_matching_nothing_is_listed_and_the_others_reported(tmp_path, capsys):
    pattern = str(tmp_path / "nothing-*.ncu-rep")
    rc, paths, err = _run(pattern, tmp_path, capsys)
    _assert_carried_on(rc, paths, err, pattern, tmp_path, "the pattern matches no file")


def test_directory_that_cannot_be_listed_is_listed_and_the_others_reported(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    real = Path.iterdir

    def iterdir(self):
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)  # the tests run as root, who may list any directory
    rc, paths, err = _run(str(locked), tmp_path, capsys)
    _assert_carried_on(rc, paths, err, str(locked), tmp_path, "cannot read the directory (Permission denied)")


def test_every_input_unreadable_in_chinese(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "out.json"
    assert main(["diagnose", str(empty), "--keep-going", "-q", "-o", str(out), "--lang", "zh"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kernelscope：失败：{empty}：目录中没有 kernelscope 能读取的文件（.ncu-rep、.csv、.txt、.toml、.json、.nvprof）",
                   "kernelscope：全部 1 个输入均失败（见上）；未写入任何输出"]
    assert not out.exists()


def test_timeline_keep_going_past_an_empty_directory(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["timeline", str(empty), str(tmp_path / "missing.sqlite"), "--keep-going"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"kernelscope: failed: {empty}: directory holds no file kernelscope reads (")
    assert err[1].startswith(f"kernelscope: failed: {tmp_path / 'missing.sqlite'}: ")
    assert err[-1] == "kernelscope: all 2 inputs failed (listed above); nothing was written"


@pytest.mark.parametrize("kind", ["empty", "glob"])
def test_without_keep_going_the_first_bad_input_still_ends_the_run(tmp_path, capsys, kind):
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = str(empty) if kind == "empty" else str(tmp_path / "nothing-*.toml")
    out = tmp_path / "out.json"
    assert main(["diagnose", bad, str(_good(tmp_path)), "-q", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"kernelscope: error: {bad}: ")
    assert not out.exists()

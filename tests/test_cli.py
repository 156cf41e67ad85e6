"""The command line end to end: bundled example, formats, languages, and bad input (exit 2, nothing written)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import EXAMPLE
from kernelscope.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_example_table(capsys):
    code, out, err = run(capsys, "diagnose", str(EXAMPLE))
    assert code == 0, err
    for name in ("layernorm_fp16_m2048_n4096", "sgemm_naive_2048", "sgemm_tiled_2048"):
        assert name in out
    assert "memory-bound" in out and "compute-bound" in out
    assert "not measured" in out  # the naive SGEMM has no DRAM byte count


def test_example_json_values_by_hand(capsys):
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "kernelscope.diagnosis/1"
    launches = doc["inputs"][0]["launches"]
    assert [l["index"] for l in launches] == [0, 1, 2]  # report order
    ln = launches[0]["roofline"]
    assert ln["pipe"] == "fp16_tensor"
    assert ln["arithmetic_intensity_flop_per_byte"] == pytest.approx(5 / 6)
    assert ln["ridge_point_flop_per_byte"] == pytest.approx(312e12 / 2039e9, rel=1e-3)
    assert ln["achieved_flops_per_s"] == pytest.approx(41943040 / 32e-6)
    naive = launches[1]
    assert naive["bound"] == "memory-bound"  # SOL memory 92% > 80%
    assert naive["roofline"]["arithmetic_intensity_flop_per_byte"] is None  # DRAM bytes not given
    assert [n["key"] for n in naive["roofline"]["not_measured"]] == ["dram_bytes_not_measured"]
    assert naive["roofline"]["achieved_flops_per_s"] == pytest.approx(2 * 2048**3 / 12.3e-3)
    ls = naive["stalls"]["reasons"][0]
    assert (ls["reason"], ls["share_of_stalls"]) == ("long_scoreboard", pytest.approx(0.70))  # 70% given, rest unattributed
    assert launches[2]["bound"] == "compute-bound"  # SOL compute 85%
    summary = doc["inputs"][0]["summary"]
    assert summary[0]["name"] == "sgemm_naive_2048"  # largest total time first
    assert summary[0]["share"] == pytest.approx(12300 / (32 + 12300 + 2100))


def test_chinese_output(capsys):
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--lang", "zh", "--format", "markdown")
    assert code == 0
    assert "访存受限" in out and "优化建议" in out and "|---|" in out


def test_kernel_filter_and_top(capsys):
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--kernel", "regex:sgemm", "--top", "1", "--format", "json")
    assert code == 0
    launches = json.loads(out)["inputs"][0]["launches"]
    assert [l["name"] for l in launches] == ["sgemm_naive_2048"]


def test_gpu_override(capsys):
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--gpu", "NVIDIA H100 80GB HBM3", "--format", "json")
    assert code == 0
    ln = json.loads(out)["inputs"][0]["launches"][0]
    assert ln["roofline"]["peak_bandwidth_bytes_per_s"] == pytest.approx(3.35e12)


def test_spec_file(capsys, tmp_path):
    spec = tmp_path / "mygpu.toml"
    spec.write_text('name = "my gpu"\ndram_bandwidth_bytes_per_s = 1e12\n[peak_flops_per_s]\nfp32 = 10e12\nfp16_tensor = 100e12\n')
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--spec", str(spec), "--format", "json")
    assert code == 0
    ln = json.loads(out)["inputs"][0]["launches"][0]
    assert ln["roofline"]["ridge_point_flop_per_byte"] == pytest.approx(100.0)
    assert "spec file" in ln["gpu"]["provenance"][0]["text"]


def _one_line_error(err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], err


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"\x00\x01garbage" * 10, "unrecognised input format"),
        (b"", "empty"),
    ],
)
def test_bad_files_exit_2_and_write_nothing(capsys, tmp_path, content, needle):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(content)
    target = tmp_path / "out.json"
    code, out, err = run(capsys, "diagnose", str(bad), "--format", "json", "-o", str(target))
    assert code == 2
    _one_line_error(err, str(bad), needle)
    assert not target.exists() and out == ""
    assert list(tmp_path.iterdir()) == [bad]  # no temporary file left behind


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "diagnose", str(tmp_path / "nope.ncu-rep"))
    assert code == 2
    _one_line_error(err, "nope.ncu-rep", "file not found")


def test_second_file_bad_means_nothing_written(capsys, tmp_path):
    target = tmp_path / "report.md"
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), str(tmp_path / "missing.toml"), "--format", "markdown", "-o", str(target))
    assert code == 2 and not target.exists()


def test_plain_file_field_error(capsys, tmp_path):
    bad = tmp_path / "k.toml"
    bad.write_text('[[kernel]]\nname = "x"\nduration_us = -4\n')
    code, _, err = run(capsys, "diagnose", str(bad))
    assert code == 2
    _one_line_error(err, str(bad), "kernel[0].duration_us")


def test_unknown_gpu(capsys, tmp_path):
    # a GPU the file names but the catalogue lacks: diagnosed without ceilings, like an unnamed one, with the hint
    # (case N07); it used to be an error (exit 2)
    f = tmp_path / "k.toml"
    f.write_text('[[kernel]]\nname = "x"\ndevice = "NVIDIA GeForce RTX 9999 Ultra"\nduration_us = 4\n')
    code, out, err = run(capsys, "diagnose", str(f), "--format", "json")
    assert code == 0, err
    (launch,) = json.loads(out)["inputs"][0]["launches"]
    assert launch["gpu"] is None and launch["provenance"][0]["key"].startswith("gpu_not_in_catalogue")
    text = launch["provenance"][0]["text"]
    assert "RTX 9999 Ultra" in text and "--gpu" in text and "--spec" in text


def test_output_file_written_atomically(capsys, tmp_path):
    target = tmp_path / "r.json"
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--format", "json", "-o", str(target))
    assert code == 0 and out == ""
    assert len(json.loads(target.read_text())["inputs"][0]["launches"]) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_python_dash_m():
    proc = subprocess.run([sys.executable, "-m", "kernelscope", "diagnose", str(EXAMPLE), "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["inputs"][0]["launch_count"] == 3


def test_names_are_shown_literally_not_as_markup(capsys, tmp_path):
    f = tmp_path / "k.toml"
    f.write_text('[[kernel]]\nname = "foo[/] [bold red]bar[/bold red] \\u001b[31m"\ndevice = "Tesla T4"\nduration_us = 4\n')
    code, out, err = run(capsys, "diagnose", str(f))
    assert code == 0, err
    assert "foo[/] [bold red]bar[/bold red] ?[31m" in out  # ESC replaced, markup kept as text


def test_output_file_mode_follows_umask(capsys, tmp_path):
    import os
    target = tmp_path / "r.md"
    old = os.umask(0o022)
    try:
        code, _, _ = run(capsys, "diagnose", str(EXAMPLE), "--format", "markdown", "-o", str(target))
    finally:
        os.umask(old)
    assert code == 0 and (target.stat().st_mode & 0o777) == 0o644


def test_output_into_missing_directory_names_the_given_path(capsys, tmp_path):
    target = tmp_path / "nope" / "out.json"
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), "-o", str(target))
    assert code == 2
    _one_line_error(err, str(target), "cannot write")


def test_unknown_gpu_names_the_file_and_suggests_variants(capsys, tmp_path):
    f = tmp_path / "k.toml"
    f.write_text('[[kernel]]\nname = "x"\ndevice = "RTX 9999"\nduration_us = 4\n')
    code, out, err = run(capsys, "diagnose", str(f))
    assert code == 0, err  # named in the file, not in the catalogue: diagnosed without ceilings (case N07)
    assert "9999" in out and "gpus" in out and "--spec" in out  # (table cells wrap at spaces)
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), "--gpu", "a100")  # asked for by the user: an error
    _one_line_error(err, "NVIDIA A100-SXM4-80GB")


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["diagnose", "--top", "abc", str(EXAMPLE)])
    assert exc.value.code == 2
    _one_line_error(capsys.readouterr().err, "--top", "invalid int value")


@pytest.mark.parametrize(
    "body, needle",
    [
        ('[[kernel]]\nname = "x"\nflops = true\n', "kernel[0].flops"),
        ('[[kernel]]\nname = "x"\nflops = "1e9"\n', "kernel[0].flops"),
        ('[[kernel]]\nname = "x"\nregisters_per_thread = 100000\n', "kernel[0].registers_per_thread"),
        ('[[kernel]]\nname = "x"\nblock = [64, 64, 1]\n', "at most 1024"),
        ('[[kernel]]\nname = "x"\nstall_breakdown_pct = { "Barrier" = 90, "Long Scoreboard" = 90 }\n', "180%"),
        ('[[kernel]]\nname = "x"\nbogus = 1\n', "kernel[0].bogus"),
    ],
)
def test_plain_file_strict_validation(capsys, tmp_path, body, needle):
    f = tmp_path / "k.toml"
    f.write_text(body)
    code, _, err = run(capsys, "diagnose", str(f))
    assert code == 2
    _one_line_error(err, str(f), needle)


def test_deeply_nested_json_is_a_clean_error(capsys, tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100000)
    code, _, err = run(capsys, "diagnose", str(f))
    assert code == 2
    _one_line_error(err, str(f), "not valid JSON")


def test_spec_in_wrong_units_is_refused(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('dram_bandwidth_bytes_per_s = 2039\n[peak_flops_per_s]\nfp32 = 19.5e12\n')
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), "--spec", str(spec))
    assert code == 2
    _one_line_error(err, str(spec), "dram_bandwidth_bytes_per_s", "below 1 GB/s")


def test_gpus_lists_the_catalogue(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # names whole (at 80 columns they wrap)
    code, out, _ = run(capsys, "gpus")
    assert code == 0 and "NVIDIA A100-SXM4-80GB" in out and "Tesla T4" in out


def test_chinese_notes_and_evidence(capsys):
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--lang", "zh", "--format", "markdown", "--details")
    assert code == 0
    assert "数据手册峰值" in out  # provenance in Chinese
    assert re.search(r"达峰值的 [\d.]+%（> 80%）", out)  # SOL evidence in Chinese (the evidence is in the --details panels)
    assert "Ceilings from" not in out and "of peak" not in out


def test_gpus_in_chinese(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # wide enough for every column
    code, en, _ = run(capsys, "gpus")
    code_zh, zh, err = run(capsys, "gpus", "--lang", "zh")
    assert code == code_zh == 0, err
    assert "内置规格库" in zh and "名称" in zh and "架构" in zh and "SM 数" in zh
    assert "NVIDIA A100-SXM4-80GB" in zh and "Tesla T4" in zh and "catalogue" not in zh
    t4 = [next(l for l in out.splitlines() if "Tesla T4" in l) for out in (en, zh)]
    assert t4[0].split() == ["-" if c == "无" else c for c in t4[1].split()]  # the same figures; no peak: 无
    assert "无" in t4[1].split() and "-" not in t4[1].split()


#: Every command with the least arguments that parse.
_MINIMAL_ARGS = {
    "diagnose": ["r.toml"],
    "compare": ["a.toml", "b.toml"],
    "timeline": ["t.sqlite"],
    "fusion": ["t.json"],
    "roofline": ["r.toml", "-o", "r.svg"],
    "occupancy": ["--arch", "sm_90", "--regs", "32"],
    "gpus": [],
    "banks": ["--dtype", "float", "--tile", "32x32", "--access", "column"],
    "source": ["r.ncu-rep"],
    "profile": ["--", "./app"],
    "ceilings": [],
    "query": ["ds", "select 1"],
}


def test_every_command_is_dispatched():
    from kernelscope.cli import COMMANDS, _parser

    assert {c.name for c in COMMANDS} == set(_MINIMAL_ARGS)
    parser = _parser()
    for command in COMMANDS:
        args = parser.parse_args([command.name, *_MINIMAL_ARGS[command.name]])
        assert args.command == command.name and args.func is command.run


@pytest.mark.parametrize("command", [None, *_MINIMAL_ARGS])
def test_every_help_exits_0(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"] if command else ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: kernelscope {command or ''}".rstrip())
    assert "%%" not in out  # argparse does not %-format descriptions
    if command is not None:
        assert "--lang {en,zh}" in out


def test_shared_options_follow_each_command():
    """The parent parser gives each command only the shared options it takes, with its own choices."""
    from kernelscope.cli import _parser

    sub = next(a for a in _parser()._actions if a.dest == "command").choices
    options = {name: {o for a in p._actions for o in a.option_strings} for name, p in sub.items()}
    assert {"--format", "--input-format", "-o", "--gpu", "--spec", "-q"} <= options["diagnose"]
    assert {"--format", "--input-format", "-o", "--gpu", "--spec"} <= options["compare"] and "-q" not in options["compare"]
    assert "--gpu" not in options["timeline"] and "--format" in options["roofline"]
    assert options["gpus"] == {"-h", "--help", "--lang", "--format", "-o", "--output"}
    from kernelscope.cli.options import output_format
    from kernelscope.cli.roofline import COMMAND as ROOFLINE

    assert sub["roofline"].parse_args(["r"]).format is None  # not given: -o's extension decides, else the default
    assert output_format(ROOFLINE.shared, "c.svg") == output_format(ROOFLINE.shared, None) == "chart"
    assert "html" in sub["diagnose"].parse_args(["r", "--format", "html"]).format
    with pytest.raises(SystemExit):
        sub["compare"].parse_args(["a", "b", "--format", "html"])


def test_gpu_and_spec_are_exclusive(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["diagnose", str(EXAMPLE), "--gpu", "a100", "--spec", str(tmp_path / "s.toml")])
    assert exc.value.code == 2
    _one_line_error(capsys.readouterr().err, "--spec", "not allowed with argument --gpu")


def test_roofline_needs_output(capsys):
    """The chart (the default format) needs -o; --format json/table/markdown print its numbers instead."""
    assert main(["roofline", str(EXAMPLE), "-q"]) == 2
    _one_line_error(capsys.readouterr().err, "-o/--output")

"""No English fragment, internal id or raw counter name leaks into what a user reads, in either language.

Kinds of fault caught here (each over the whole code or corpus, not one example):
(a) an error whose values are English words spliced in by the code ("no launch matching --kernel") without a
    ``[phrase]`` wording; every ``[error]`` / ``[phrase]`` Chinese text free of English runs;
(b) an error naming an internal destination (``top (--top)``) instead of the flag; a command's usage error pointing
    at the top-level help; ``--format md`` refused;
(c) a finding id (``mio_throttle``) shown where its title belongs: compare's estimates, HTML badges, any finding title
    without its values;
(d) an Nsight Compute counter name shown as the name of a unit ("busiest units" rows, JSON ``busiest_units[].name``),
    or one unit listed twice;
(e) INT8 work in FLOP/s (one unit rule, integer pipes never share a ceiling with floating-point ones);
(f) a timeline worded as a diagnosis: "[n]: panels" notes, diagnose's ``--details`` help, "Nsight Systems expert rules"
    on a PyTorch trace, "ranks" on a single-process input;
(g) the JSON's English machine fields documented as such.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pytest

from conftest import CASES, CORPUS_NCU, need
from kernelscope.cli import main
from kernelscope.knowledge.findings import findings
from kernelscope.knowledge.gpus import catalogue
from kernelscope.knowledge.messages import phrase
from kernelscope.render.common import Fmt, ops_unit
from kernelscope.render.roofline_data import ceilings
from test_every_message_has_chinese import english_runs

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelscope"
REPO = SRC.parents[1]
#: counter names: ``l1tex__throughput.avg.pct_of_peak_sustained_active``, ``dram__bytes_read.sum``
METRIC = re.compile(r"\b[a-z0-9]+__[a-z0-9_]+(?:\.[a-z0-9_]+)*")
#: product names that are English runs by nature
ALLOWED_RUNS = {"Nsight Systems SQLite", "pip install pandas", "CUPTI range profiler", "Ti Laptop GPU"}
#: values spliced into errors that are names, not words (formats, units, file names, commands, a field path)
NOT_WORDS = {"JSON", "TOML", "MB", "ns", "kernel", "regex:", "kernelscope-dataset.json",
             "https://developer.nvidia.com/ERR_NVGPUCTRPERM", "pip install 'kernelscope[cluster]'"}


def _run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------------------ (a) English spliced into errors

def _texts(node: ast.AST) -> list[str]:
    """The literal texts an expression can be (each f-string field as "{}")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _texts(node.body) + _texts(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [t for v in node.values for t in _texts(v)]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)]
    return []


def _spliced() -> list[tuple[str, str]]:
    """(where, text) of every literal text the code puts into an error's ``values``, directly or through a local
    name assigned in the same function."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            assigned: dict[str, list[str]] = {}
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                    assigned.setdefault(n.targets[0].id, []).extend(_texts(n.value))
            for n in ast.walk(fn):
                if not isinstance(n, ast.Call):
                    continue
                for kw in n.keywords:
                    if kw.arg != "values" or not isinstance(kw.value, ast.Dict):
                        continue
                    for v in kw.value.values:
                        texts = _texts(v) + (assigned.get(v.id, []) if isinstance(v, ast.Name) else [])
                        out += [(f"{path.relative_to(SRC)}:{n.lineno}", t) for t in texts]
    return out


def test_the_spliced_values_scan_finds_the_sites():
    found = {t for _, t in _spliced()}
    assert {"see the output above", "standard input", "no extension"} <= found


def test_every_english_piece_spliced_into_an_error_is_worded_in_chinese():
    bad = []
    for where, text in _spliced():
        sample = text.replace("{}", "7")
        if text in NOT_WORDS or not re.search(r"[A-Za-z]{2,}", sample.replace("7", "")):
            continue
        zh = phrase(sample, "zh")
        runs = [r for r in english_runs(zh) if r not in ALLOWED_RUNS]
        if runs or (zh == sample and re.search(r"\b[a-z]{2,}\b", re.sub(r"`[^`]*`|'[^']*'|\S*[-_./:=]\S*", "", zh))):
            bad.append(f"{where}: {text!r} -> {zh!r}")
    assert bad == [], "add a [phrase] entry (or a message key of its own) for:\n" + "\n".join(bad)


def test_every_chinese_error_and_phrase_has_no_english_run():
    raw = tomllib.loads((SRC / "data" / "messages.toml").read_text(encoding="utf-8"))
    texts = [(f"error.{k}", e["zh"]) for k, e in raw["error"].items()] + [(en, zh) for en, zh in raw["phrase"].items()]
    bad = [(k, runs) for k, zh in texts
           if (runs := [r for r in english_runs(re.sub(r"\{[^{}]*\}", "7", zh)) if r not in ALLOWED_RUNS])]
    assert bad == []


def test_source_without_instruction_data_is_one_chinese_sentence(capsys):
    rep = need(CORPUS_NCU / "Lashi0812__CudaProgramming__profiling_profiles_smemReduceInteger.ncu-rep")
    for extra, words in (([], "没有任何启动含有逐指令数据"), (["--kernel", "regex:."], "没有与 --kernel 匹配且含逐指令数据")):
        code, _, err = _run(capsys, "source", str(rep), *extra, "--lang", "zh")
        assert code == 2 and words in err and "no launch" not in err and english_runs(err) == [], err
        code, _, err = _run(capsys, "source", str(rep), *extra)
        assert code == 2 and "no launch" in err, err


def test_a_label_spliced_into_an_error_is_worded(capsys):
    plain = str(need(CASES / "C01_plain_occupancy_221.toml"))
    code, _, err = _run(capsys, "roofline", plain, "--levels", "--format", "table", "--lang", "zh")
    assert code == 2 and "没有分层 Roofline" in err and "not measured" not in err and english_runs(err) == [], err
    assert phrase("no roofline for this launch", "zh") == Fmt("zh").note("no_roofline")


# ------------------------------------------------------------------------------ (b) flags, help, --format md

def test_no_error_names_an_internal_destination():
    bad = [f"{p.relative_to(SRC)}: {m.group(0)}" for p in SRC.rglob("*.py")
           for m in re.finditer(r'"[a-z_]+ \(--[a-z-]+\)"', p.read_text(encoding="utf-8"))]
    assert bad == []


def test_top_zero_names_the_flag_and_counts_launches(capsys):
    plain = str(need(CASES / "C01_plain_occupancy_221.toml"))
    code, _, err = _run(capsys, "diagnose", plain, "--top", "0", "--lang", "zh")
    assert code == 2 and "：--top：" in err and "启动" in err and "top (" not in err, err
    code, _, err = _run(capsys, "diagnose", plain, "--top", "0")
    assert code == 2 and ": --top: " in err and "launches" in err, err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unknown_option_points_at_the_command_help(capsys, lang):
    code, _, err = _run(capsys, "diagnose", "--bogus", "x", "--lang", lang)
    assert code == 2 and "kernelscope diagnose --help" in err and "--bogus" in err, err


def test_format_md_is_markdown_everywhere(capsys):
    from kernelscope.cli.options import Command
    from kernelscope.cli import COMMANDS

    takes = [c.name for c in COMMANDS if c.shared.formats and "markdown" in c.shared.formats]
    assert "diagnose" in takes and "timeline" in takes
    plain = str(need(CASES / "C01_plain_occupancy_221.toml"))
    code_md, md, _ = _run(capsys, "diagnose", plain, "--format", "md")
    code_full, full, _ = _run(capsys, "diagnose", plain, "--format", "markdown")
    assert code_md == code_full == 0 and md == full and md.startswith("#")
    code, out, _ = _run(capsys, "gpus", "--format", "md")
    assert code == 0 and "|" in out
    assert isinstance(COMMANDS[0], Command)


# ------------------------------------------------------------------------------ (c) finding ids

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_finding_title_without_its_values_is_worded(lang):
    f = Fmt(lang)
    ids = sorted(findings())
    bad = [i for i in ids if f.finding_title(i) == i or re.search(r"\b[a-z]+_[a-z_]+\b", f.finding_title(i))]
    assert bad == [] and len(ids) > 20


def _finding_id(text: str) -> list[str]:
    return sorted({i for i in findings() if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)})


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_compare_shows_titles_not_finding_ids(capsys, fmt):
    before = need(CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep")
    after = need(CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_after.ncu-rep")
    for lang in ("en", "zh"):
        code, text, err = _run(capsys, "compare", str(before), str(after), "--pair",
                               "transpose_tiled_kernel=transpose_padded_kernel", "--format", fmt, "--lang", lang,
                               "--details")
        assert code in (0, 1), err
        assert "1.65" in text  # the estimate line is there
        assert _finding_id(text) == [], [ln for ln in text.splitlines() if _finding_id(ln)][:3]


def test_source_html_badges_carry_the_id_as_data_not_as_a_tooltip(capsys, tmp_path):
    rep = need(CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep")
    out = tmp_path / "s.html"
    code, _, err = _run(capsys, "source", str(rep), "--format", "html", "-o", str(out), "--lang", "zh")
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert 'class="fb"' in page and 'data-finding="' in page
    assert not re.search(r'title="[a-z]+_[a-z_]+"', page)


# ------------------------------------------------------------------------------ (d) counter names as unit names

CORPUS = ["Bias92__flashattn-cuda__docs_profiling_ncu_sections_fa3_before_n4096_full.ncu-rep",
          "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
          "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep"]


@pytest.mark.parametrize("name", CORPUS)
def test_busiest_units_name_units_once(capsys, name):
    path = need(CORPUS_NCU / name)
    for lang in ("en", "zh"):
        label = Fmt(lang).label("busiest_units")
        for details in ([], ["--details"]):
            code, out, err = _run(capsys, "diagnose", str(path), "--lang", lang, *details, "--format", "markdown")
            assert code == 0, err
            rows = [ln for ln in out.splitlines() if label in ln]
            assert rows, out[:400]
            for row in rows:
                assert not METRIC.search(row), row
        code, out, _ = _run(capsys, "diagnose", str(path), "--lang", lang, "--format", "json")
        for launch in json.loads(out)["inputs"][0]["launches"]:
            units = launch["busiest_units"]
            assert not [u["name"] for u in units if METRIC.search(u["name"])]
            for side in ("compute", "memory"):
                names = [u["unit"] or u["metric"] for u in units if u["side"] == side]
                assert len(names) == len(set(names)), names


# ------------------------------------------------------------------------------ (e) integer work in OP/s

def test_integer_pipes_never_share_a_ceiling_with_floating_point_ones():
    checked = 0
    for gpu in catalogue():
        for _, pipes in ceilings(gpu):
            assert len({p.startswith("int") for p in pipes}) == 1, (gpu.name, pipes)
            checked += any(p.startswith("int") for p in pipes)
    assert checked > 0
    assert ops_unit("int8_tensor") == "OP/s" and ops_unit(("fp8_tensor", "int8_tensor")) == "FLOP/s"
    assert Fmt("en").flops(2e15, "int8_tensor") == "2.00 POP/s" and Fmt("en").intensity(5.0, ("int8_tensor",)) == "5.00 OP/B"


def test_roofline_table_writes_int8_in_op_per_s(capsys):
    reps = sorted(need(CORPUS_NCU).glob("AlpriElse__*silu_triton*.ncu-rep"))
    if not reps:
        pytest.skip("no report on a GPU with INT8 tensor cores")
    for lang in ("en", "zh"):
        code, out, err = _run(capsys, "roofline", str(reps[0]), "--format", "markdown", "--lang", lang)
        assert code == 0, err
        rows = [ln for ln in out.splitlines() if "INT8" in ln]
        assert rows and all("OP/s" in r and "FLOP/s" not in r for r in rows), rows


# ------------------------------------------------------------------------------ (f) timeline wording

def test_timeline_notes_and_checks_are_a_timelines(capsys):
    trace = need(CASES / "C03_kineto_ts0_kernel.json")
    for lang in ("en", "zh"):
        f = Fmt(lang)
        code, out, err = _run(capsys, "timeline", str(trace), "--lang", lang)
        assert code == 0, err
        assert f.label("brief_notes") not in out and f.label("tl_findings") not in out
        assert f.label("tl_findings_timeline") in out
        assert not re.search(r"\[[a-z]+_[a-z_]+\]", out), out


def test_timeline_details_help_is_its_own(capsys):
    _, tl, _ = _run(capsys, "timeline", "--help")
    _, dg, _ = _run(capsys, "diagnose", "--help")
    pick = lambda text: re.search(r"--details\s+(.*?)(?:\n  -|\Z)", text, re.S).group(1)  # noqa: E731
    assert " ".join(pick(tl).split()) != " ".join(pick(dg).split())
    assert "panel" not in pick(tl) and "table" in pick(tl)


def test_single_process_timeline_says_devices_not_ranks(capsys):
    sqlite = need(CORPUS_NCU.parent / "nsys" / "cts_rtx3070_array_inc_d_uvm.sqlite")
    code, out, err = _run(capsys, "timeline", str(sqlite), "--details", "--lang", "zh")
    assert code == 0, err
    assert "Rank" not in out, [ln for ln in out.splitlines() if "Rank" in ln]
    assert "各设备之和" in out
    for line in out.splitlines():  # no parentheses inside parentheses in a heading
        depth = 0
        for ch in line:
            depth += {"（": 1, "(": 1, "）": -1, ")": -1}.get(ch, 0)
            assert depth <= 1, line


@pytest.mark.parametrize("case", ["N22_kineto_exposed_comm_two_streams.json", "N20_kineto_queued_launches.json"])
def test_single_rank_headlines_say_devices(capsys, case):
    code, out, err = _run(capsys, "timeline", str(need(CASES / case)), "--details", "--lang", "zh")
    assert code == 0, err
    assert not re.search(r"(所有|各) ?Rank|最慢的 Rank|Rank 之和", out), out


def test_several_ranks_keep_rank_words(capsys):
    code, out, err = _run(capsys, "timeline", str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--details",
                          "--lang", "zh")
    assert code == 0 and "各 Rank 之和" in out and "各设备之和" not in out, err


# ------------------------------------------------------------------------------ (g) English JSON machine fields

def test_english_json_fields_are_documented():
    reference = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    schema = (REPO / "schemas" / "diagnosis-1.schema.json").read_text(encoding="utf-8")
    for field in ("speedup_note", "source", "stalls.unit"):
        assert f"`{field}`" in reference.split("**JSON and `--lang`**")[1].split("\n- ")[0], field
    assert schema.count("English in every --lang") >= 2

"""Chinese output as good as the English (issue 19): terms, punctuation, templates and wording.

Every command's ``--lang zh`` output (diagnose of .ncu-rep, CSV, console text and nvprof reports; compare; timeline;
occupancy; source; banks; roofline) is rendered at a width where no line wraps, and checked:

(a) Chinese sentences use full-width punctuation: no half-width ``; , : ( )`` next to a Chinese character
    (:func:`punctuation_problems` defines it precisely); no two colons in one sentence; no half-width bracket
    around a full-width one; no space between two Chinese characters.
(b) every forbidden variant of ``data/glossary.toml`` is absent, every glossary term is used, and a text whose
    English says the term's English uses the term in its Chinese.
(c) no English word remains outside the documented allow-list (``[allow]`` of the glossary, acronyms, code-like
    tokens, and the names that come from the input: kernels, GPUs, files, metrics, rule ids, Nsight's own verdicts).
(d) stall reasons read "English（中文）" everywhere, exactly as the glossary says.

The zh templates of the data files are checked the same way, so a template no corpus report reaches is covered too.
(Wrapping at 80 columns is tests/test_zh_output.py.)
"""

from __future__ import annotations

import dataclasses
import re
import string
import tomllib
from pathlib import Path

import msgspec
import pytest

from conftest import CORPUS_NCU, EXAMPLE, SHARED, need
from kernelscope import diagnose_file
from kernelscope.api import timeline_file
from kernelscope.cli import main
from kernelscope.knowledge import DATA
from kernelscope.knowledge.glossary import allowed_words, glossary, misused, stall_terms
from kernelscope.knowledge.stalls import reasons
from kernelscope.notes import Note
from kernelscope.render.common import Fmt

CORPUS = SHARED / "corpus"

#: Chinese characters (CJK ideographs) and full-width punctuation.
HAN = "\u3400-\u4dbf\u4e00-\u9fff"
FULL = "，。；：（）、？！“”‘’《》【】～"
CJK = HAN + FULL

# (a) A half-width ; , : ( ) is wrong in a Chinese sentence. Precisely, with at most one space skipped (two or more
# spaces part the columns of a table):
#   ; , : (  -- the character before it is Chinese (an ideograph or full-width punctuation), or the character after
#               it is a Chinese ideograph;
#   )        -- the character before it is Chinese, or the character after it is a Chinese ideograph (the empty
#               brackets of a call, "__syncthreads() 处", are code);
# a full-width bracket must not sit inside half-width ones: "(…（…）…)"; two Chinese characters have no space
# between them; and a sentence (up to 。；！？, a line end, a table cell border or a Markdown field label "**…**：")
# has at most one "：" outside its brackets. Numbers, units and ASCII identifiers next to other ASCII text are fine
# ("(8192, 1, 1)", "file.cu:14").
_BAD_PUNCT = [
    re.compile(rf"[{CJK}] ?[;,:(]|[{CJK}] ?\)"),
    re.compile(rf"[;,:(] ?[{HAN}]"),
    re.compile(rf"(?<!\()\) ?[{HAN}]"),
    re.compile(r"\([^()\n]*（[^()\n]*\)"),
    re.compile(rf"[{HAN}] [{HAN}]"),
]
_SENTENCE_END = re.compile(r"[。；！？\n]|\||\*\*：")
_BRACKETED = re.compile(r"（[^（）]*）")


def punctuation_problems(text: str) -> list[str]:
    """The spots of ``text`` that break (a), each with a little context."""
    text = _without_code(text)
    out = [text[max(0, m.start() - 12): m.end() + 12] for p in _BAD_PUNCT for m in p.finditer(text)]
    bare = text
    while _BRACKETED.search(bare):
        bare = _BRACKETED.sub("", bare)
    out += ["two colons: " + s.strip()[:90] for s in _SENTENCE_END.split(bare) if s.count("：") > 1]
    return out


def _without_code(text: str) -> str:
    """``text`` with `code spans` and URLs as the word CODE, without Markdown table rules (not prose)."""
    text = re.sub(r"`[^`\n]*`", "CODE", text)
    text = re.sub(r"https?://\S+", "CODE", text)
    return re.sub(r"\|[-: |]+\|", " ", text)


# (c) English words
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CODE = re.compile(r"[_./=<>\[\]{}*#@\\`'\"+~$&^]|\d[A-Za-z]|[A-Za-z]\d|::|^--?[A-Za-z]|[a-z]-[a-z]")  # -Xptxas, fonts-noto-cjk
_CAMEL = re.compile(r"^[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")  # IssueSlotUtilization, cudaMemcpyAsync


def english_words(text: str, names: set[str]) -> list[str]:
    """English words of ``text`` not allowed in a zh output: not an acronym (all capitals), not in a code-like token
    or a name cut short ("…oat, float"), not a camel-case identifier (rule ids, CUDA API names), not a one-letter
    variable, not a word of a name from the input (``names``), not in the glossary's allow-list."""
    allowed = allowed_words()
    bad = []
    for chunk in re.split(rf"[\s{CJK}|]+", _without_code(text)):
        chunk = chunk.strip(";,:()!?%").rstrip("-")
        if not chunk or _CODE.search(chunk) or "…" in chunk:
            continue
        for word in _WORD.findall(chunk):
            if word.isupper() or len(word) == 1 or _CAMEL.match(word) or word in allowed or word in names:
                continue
            bad.append(word)
    return bad


_PROSE = re.compile(r"\b(?:the|of|is|are|not|and|no|was|cannot|be|to|in|for)\b")


def input_words(*objects: object) -> set[str]:
    """Every word of every name held by the analysis results ``objects`` (kernel, GPU, file, metric, rule, API and
    NVTX names, Nsight's own verdict titles): what the output shows from the input, not a label. A string that reads
    as an English sentence (a data problem, a rule's message) is not a name: its words stay unexplained; a cited
    source (a field named ``*source``: a document's title) is a name."""
    words: set[str] = set()
    seen: set[int] = set()
    stack: list[tuple[object, str]] = [(x, "") for x in objects]
    while stack:
        x, field = stack.pop()
        if isinstance(x, str):
            if len(_PROSE.findall(x)) < 2 or field.endswith("source"):
                words.update(_WORD.findall(x))
            continue
        if x is None or isinstance(x, (int, float, bool, bytes)) or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, dict):
            stack += [(v, "") for v in (*x.keys(), *x.values())]
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack += [(v, field) for v in x]
        elif dataclasses.is_dataclass(x):
            stack += [(getattr(x, f.name), f.name) for f in dataclasses.fields(x)]
        elif isinstance(x, msgspec.Struct):
            stack += [(getattr(x, f), f) for f in x.__struct_fields__]
        elif hasattr(x, "tolist") and getattr(x, "dtype", None) is not None and x.dtype.kind in "OUS":
            stack += [(v, field) for v in x.tolist()]
    return words


# (d) stall names
def stall_problems(text: str) -> list[str]:
    """Each stall reason named without its gloss, or with another one: it must read exactly as the glossary says."""
    out = []
    terms = sorted(stall_terms().values(), key=lambda t: -len(t.en))
    taken = [False] * len(text)
    for t in terms:
        for m in re.finditer(rf"(?<![A-Za-z_]){re.escape(t.en)}(?![A-Za-z_])", text):
            if any(taken[m.start():m.end()]):
                continue
            taken[m.start():m.end()] = [True] * (m.end() - m.start())
            if not text.startswith(t.zh, m.start()):
                out.append(text[max(0, m.start() - 10): m.end() + 16])
    return out


# --- the outputs ------------------------------------------------------------------------------------------------------

def _reports() -> dict[str, Path]:
    return {
        "ncu-rep silu": CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep",
        "ncu-rep cutlass": CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep",
        "ncu-rep heat": CORPUS_NCU / "bautista-garcia__heat_sim__report_name.ncu-rep",
        "ncu-rep mlp": CORPUS_NCU / "armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep",
        "ncu-rep gemm": CORPUS_NCU / "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep",
        "csv details": CORPUS / "ncu_csv" / "llmperfopt_rtx5090_kernel0003_ncu.details.csv",
        "csv raw": CORPUS / "ncu_csv" / "meinie_b200_raw_flashinfer_decode_gqa_bf16_b1_ctx4k.ncu.csv",
        "ncu text": CORPUS / "ncu_csv" / "cts_ncu_text_rtx3070_matrix_sums.profile1-simple.output",
        "nvprof": CORPUS / "ncu_csv" / "thrust2d_nvprof_metrics_gtx1070_gameoflife.profile",
        "nvprof k20c": CORPUS / "ncu_csv" / "ieee2017_nvprof_metrics_k20c_gaussian.profile",
    }


_TIMELINES = {
    "nsys sqlite": CORPUS / "nsys" / "cts_rtx3070_array_inc_a.sqlite",
    "nsys graphs": CORPUS / "nsys" / "cudatutorial_rtx3060_fused_bias_fp16_report.sqlite",
    "nsys stats": CORPUS / "nsys" / "ai4mat_nsys_stats_console_paddle_gcn.txt",
    "kineto": CORPUS / "torch_traces" / "hta_triton_example_a100.json.gz",
}


@pytest.fixture(scope="module")
def outputs() -> dict[str, tuple[str, set[str]]]:
    """name -> (zh output, the words of the input's names)."""
    need(CORPUS)
    mp = pytest.MonkeyPatch()
    mp.setenv("COLUMNS", "2000")  # no wrapping: a sentence stays on one line (80 columns: test_zh_output.py)
    cap = _Capture()
    out: dict[str, tuple[str, set[str]]] = {}
    try:
        for name, path in _reports().items():
            names = input_words(diagnose_file(path), path.name)
            for fmt in ("table", "markdown"):
                out[f"diagnose {fmt} {name}"] = (cap(main, "diagnose", str(path), "-q", "--lang", "zh", "--format", fmt), names)
        html = cap(main, "diagnose", str(EXAMPLE), "-q", "--lang", "zh", "--format", "html")
        out["diagnose html example"] = (_html_text(html), input_words(diagnose_file(EXAMPLE)))
        heat = (CORPUS_NCU / "bautista-garcia__heat_sim__report_name.ncu-rep", CORPUS_NCU / "bautista-garcia__heat_sim__profile.ncu-rep")
        heat_names = input_words(*(diagnose_file(p) for p in heat))
        for fmt in ("table", "markdown"):
            out[f"compare {fmt} heat"] = (cap(main, "compare", *map(str, heat), "--lang", "zh", "--format", fmt), heat_names)
        gemm = _reports()["ncu-rep gemm"]
        out["compare kernels"] = (cap(main, "compare", str(gemm), "--before-kernel", "regex:.", "--after-kernel", "regex:.",
                                      "--lang", "zh"), input_words(diagnose_file(gemm)))
        sqlite = (CORPUS / "nsys" / "cts_rtx3070_array_inc_a.sqlite", CORPUS / "nsys" / "cts_rtx3070_array_inc_d_uvm.sqlite")
        out["compare timelines"] = (cap(main, "compare", *map(str, sqlite), "--lang", "zh"),
                                    input_words(*(timeline_file(p) for p in sqlite)))
        for name, path in _TIMELINES.items():
            names = input_words(timeline_file(path), path.name)
            for fmt in ("table", "markdown"):
                out[f"timeline {fmt} {name}"] = (cap(main, "timeline", str(path), "--lang", "zh", "--format", fmt), names)
        for fmt in ("table", "markdown"):
            out[f"occupancy {fmt}"] = (cap(main, "occupancy", "--lang", "zh", "--format", fmt, "--arch", "sm_80", "--regs", "64",
                                           "--threads", "256", "--smem", "48K"), set())
            out[f"banks {fmt}"] = (cap(main, "banks", "--lang", "zh", "--format", fmt, "--dtype", "half", "--tile", "32x32",
                                       "--access", "column"), set())
        for name in ("ncu-rep silu", "ncu-rep heat"):
            path = _reports()[name]
            out[f"source {name}"] = (cap(main, "source", str(path), "--lang", "zh"), input_words(diagnose_file(path), path.name))
        cutlass = _reports()["ncu-rep cutlass"]
        out["roofline table"] = (cap(main, "roofline", str(cutlass), "--lang", "zh", "--format", "table"),
                                 input_words(diagnose_file(cutlass)))
    finally:
        mp.undo()
    return out


class _Capture:
    """Runs the CLI with its standard output captured (a module-scoped fixture cannot use capsys)."""

    def __call__(self, fn, *argv: str) -> str:
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            code = fn(list(argv))
        assert code in (0, 1), (argv, code)
        return buf.getvalue()


def _html_text(page: str) -> str:
    """The visible text of an HTML page (no tags, scripts, styles or SVG)."""
    import html

    page = re.sub(r"(?s)<(script|style|svg)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", "\n", page))


def _zh_texts() -> dict[str, str]:
    """Every Chinese text of the data files: ``file:key`` -> text."""
    out = {}
    for file in ("labels.toml", "findings.toml", "stalls.toml", "verdicts.toml", "units.toml", "remedies.toml",
                 "libraries.toml"):
        for key, en, zh in _pairs(tomllib.loads((DATA / file).read_text(encoding="utf-8"))):
            out[f"{file}:{key}"] = zh
    return out


def _pairs(data, where: str = "") -> list[tuple[str, str, str]]:
    """(key, en, zh) of every bilingual text of a parsed data file: ``{en, zh}`` tables and ``x_en`` / ``x_zh``
    fields (``display_name`` / ``display_name_zh``)."""
    out = []
    if isinstance(data, list):
        for i, x in enumerate(data):
            out += _pairs(x, f"{where}.{x.get('id', i) if isinstance(x, dict) else i}")
    elif isinstance(data, dict):
        if isinstance(data.get("en"), str) and isinstance(data.get("zh"), str):
            out.append((where, data["en"], data["zh"]))
        for k, v in data.items():
            if k.endswith("_zh") and isinstance(v, str):
                en = data.get(k[:-3] + "_en", data.get(k[:-3]))
                if isinstance(en, str):
                    out.append((f"{where}.{k[:-3]}", en, v))
            elif isinstance(v, (dict, list)):
                out += _pairs(v, f"{where}.{k}".lstrip("."))
    return out


def _literal(template: str) -> str:
    """A template with each field replaced by a neutral ASCII stand-in (the fields' values are checked in outputs)."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(literal)
        if field is not None:
            parts.append("V")
    return "".join(parts)


# --- (a) punctuation --------------------------------------------------------------------------------------------------

def test_zh_outputs_use_full_width_punctuation(outputs):
    bad = {name: punctuation_problems(text)[:6] for name, (text, _) in outputs.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_zh_templates_use_full_width_punctuation():
    bad = {k: punctuation_problems(_literal(t)) for k, t in _zh_texts().items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_zh_templates_leave_no_space_before_a_chinese_field():
    """"受限于 {limiter}": the field's value is Chinese, so the space of the English template does not belong."""
    bad = [k for k, t in _zh_texts().items() if re.search(rf"[{CJK}] \{{(limiter|bound|roofline|sol|reason_zh)\b", t)]
    assert not bad, bad


def test_the_checks_catch_what_issue_19_saw():
    """The checks themselves: each example of the issue is caught, its fixed form passes."""
    for wrong in ("2.69 FLOP/B; 拐点 12.5 FLOP/B, FP32", "访存受限 (计算 31.4%，访存 77.1%)", "变化: 加速比",
                  "（长延时访存依赖）: 合并访存：让", "High Throughput (访存受限（某）)", "受限于 每 SM 的 Warp 数"):
        assert punctuation_problems(wrong), wrong
    for right in ("2.69 FLOP/B；拐点 12.5 FLOP/B，FP32", "访存受限（计算 31.4%，访存 77.1%）", "变化：加速比",
                  "Grid × Block (8192, 1, 1) x (256, 1, 1)", "位置：s8_gemm.cu:286（5.9%）", "受限于每 SM 的 Warp 数"):
        assert not punctuation_problems(right), right
    assert misused("每 SM 9.48 个 wave，快了 7.71 倍，60-80%，长计分板") and not misused("每个 SM 9.48 轮（waves）")
    assert english_words("占用率 rounds per SM", set()) == ["rounds", "per"]
    assert stall_problems("长计分板 Long Scoreboard 83%") and not stall_problems("Long Scoreboard（等待 L1/TEX 缓存的访存结果） 83%")


# --- (b) glossary -----------------------------------------------------------------------------------------------------

def test_glossary_terms_are_one_per_concept_with_sources():
    terms = glossary().term
    assert len(terms) >= 40
    zh = [t.zh for t in terms]
    assert len(zh) == len(set(zh)), "one zh word per thing"
    for t in terms:
        assert t.source.strip()
        for other in terms:  # a term must not be another term's forbidden variant
            assert not misused(other.zh) or other.zh == t.zh, (t.zh, other.zh, misused(other.zh))


def test_no_forbidden_variant_in_zh_outputs(outputs):
    bad = {name: misused(_without_code(text))[:6] for name, (text, _) in outputs.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_no_forbidden_variant_in_zh_data():
    bad = {k: misused(_without_code(_literal(t))) for k, t in _zh_texts().items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def _catalogue_zh() -> dict[str, str]:
    """Every Chinese text of every data file, the messages too: ``file:key`` -> text (``messages.toml``: its
    errors, frames, phrases, argparse wordings and --help texts)."""
    out = {}
    for path in sorted(DATA.glob("*.toml")):
        if path.name == "glossary.toml":
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if path.name == "messages.toml":
            for table in ("error", "frame"):
                out.update({f"messages.toml:{table}.{k}": v["zh"] for k, v in data[table].items()})
            out.update({f"messages.toml:phrase.{en[:40]}": zh for en, zh in data["phrase"].items()})
            out.update({f"messages.toml:{t}.{i}": e["zh"] for t in ("argparse", "help") for i, e in enumerate(data[t])})
            continue
        out.update({f"{path.name}:{key}": zh for key, _, zh in _pairs(data)})
    return out


def test_glossary_terms_are_used():
    """Each term is what the data files say: the stall reasons' names are the glossary's, every term appears."""
    for reason_id, term in stall_terms().items():
        assert reasons()[reason_id].display_name_zh == term.zh
        assert reasons()[reason_id].display_name == term.en
    assert set(stall_terms()) == set(reasons()), "every stall reason has its glossary entry"
    text = "\n".join(_catalogue_zh().values())
    composed = {  # terms the code puts together: each is checked against what it writes
        "访存与计算受限": Fmt("zh").bounds(["memory-bound", "compute-bound"]),
        "（1 次）": Fmt("zh").launches(1),
        "60%～80%": Fmt("zh").note(Note("sol_mid", {"c": 31.4, "m": 77.1, "low": 60.0, "high": 80.0})),
    }
    for term, written in composed.items():
        assert term in written, (term, written)
    unused = [t.zh for t in glossary().term if t.reason is None and t.zh not in text and t.zh not in composed]
    assert not unused, unused


def test_a_text_that_says_the_term_in_english_says_it_in_chinese():
    """Where a text's English says a glossary term (its ``en_match``), its Chinese uses the glossary's word."""
    bad = []
    for file in ("labels.toml", "findings.toml", "stalls.toml", "verdicts.toml", "units.toml", "remedies.toml",
                 "libraries.toml"):
        for key, en, zh in _pairs(tomllib.loads((DATA / file).read_text(encoding="utf-8"))):
            for t in glossary().term:
                if t.en_match and re.search(t.en_match, _literal(en)) and t.zh not in zh:
                    bad.append(f"{file}:{key}: {t.zh!r} missing in {zh!r}")
    assert not bad, "\n".join(bad)


# --- (c) English words ------------------------------------------------------------------------------------------------

def test_no_english_only_label_in_zh_data():
    """The same for every Chinese text of the data files (a template no report reaches included)."""
    bad = {k: english_words(_literal(t), set()) for k, t in _zh_texts().items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_no_english_only_label_in_zh_outputs(outputs):
    bad = {name: sorted(set(english_words(text, names))) for name, (text, names) in outputs.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


# --- (d) stall names --------------------------------------------------------------------------------------------------

def test_stall_names_read_english_then_chinese_everywhere(outputs):
    bad = {name: stall_problems(text)[:6] for name, (text, _) in outputs.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_stall_names_in_zh_data_carry_their_gloss():
    bad = {k: stall_problems(_literal(t)) for k, t in _zh_texts().items()}
    bad = {k: v for k, v in bad.items() if v and not k.endswith(".display_name")}  # that one is the name itself
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())

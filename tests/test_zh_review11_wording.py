"""ZH-REVIEW 11 (a native reviewer's grade A-), items 2, 22, 24-31: wording, JSON text fields, Markdown/HTML code.

Each kind is a rule, tested on several inputs and in both languages where the kind exists in both:

- JSON text fields in ``--lang zh``: every string of a zh document is Chinese, a code/number/identifier, or in a
  field its schema documents as English in every ``--lang`` (citations, Nsight Compute's own texts, how an estimate
  was made) or as user data (names from the input);
- a fusion chain of repeated kernels writes the repeated period once with its count;
- 小节, never 面板, for the part of a report about one kernel;
- a gloss (``FMA 管线（FP32 与整数乘加）``) once per block and never inside brackets;
- the padding example of a bank-conflict advice follows the pad it recommends;
- the legends (⇒ in fusion chains, the gap table's brackets, blocks/warps per SM) and the small wording items;
- timeline Markdown puts kernel names and the input path in code spans; a diagnose heading is ``[1] `name```.
"""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from conftest import CASES, SHARED, need
from kernelscope.cli import main
from kernelscope.knowledge import DATA
from kernelscope.knowledge.glossary import misused

NCU = SHARED / "corpus" / "ncu"
TRACES = SHARED / "corpus" / "torch_traces"
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def _run(capsys, *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0, argv
    return capsys.readouterr().out


# --- JSON: every text field in the document's language, or documented as English / user data ----------------------

#: The phrases a schema description uses for a field that is not in the document's language.
NOT_WORDED = ("English in every --lang", "user data")
#: English prose: three English words in a row ("cycles per issued instruction"); a name, id or number is not.
PROSE = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")


def _resolve(node, defs):
    if not isinstance(node, dict):
        return {}
    while "$ref" in node:
        node = defs[node["$ref"].split("/")[-1]]
    return node


def _options(node, defs) -> list[dict]:
    node = _resolve(node, defs)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return [_resolve(n, defs) for n in node[key]]
    return [node]


def _strings(value, node, defs, path: str, desc: str, out: list) -> None:
    """(path, the field's schema description, value) of every string in ``value`` that is not an enum value; a
    dict's or list's entries inherit the description of the field that holds them."""
    opts = _options(node, defs)
    if isinstance(value, dict):
        obj = next((o for o in opts if "properties" in o or o.get("type") == "object"), {})
        props = obj.get("properties", {})
        for k, v in value.items():
            p = props.get(k)
            own = (p.get("description") or _resolve(p, defs).get("description", "")) if isinstance(p, dict) else desc
            _strings(v, p if p is not None else obj.get("additionalProperties", {}), defs, f"{path}.{k}", own, out)
    elif isinstance(value, list):
        arr = next((o for o in opts if o.get("type") == "array"), {})
        for v in value:
            _strings(v, arr.get("items", {}), defs, f"{path}[]", desc, out)
    elif isinstance(value, str) and not any("enum" in o or "const" in o for o in opts):
        out.append((path, desc, value))


def english_fields(doc: dict, schema_file: str) -> dict[str, str]:
    """path -> an English sentence found in a field its schema does not document as English or user data."""
    from kernelscope.render.documents import schema_text

    schema = json.loads(schema_text(schema_file))
    found: list = []
    _strings(doc, schema, schema.get("$defs", {}), "$", "", found)
    return {path: v[:100] for path, desc, v in found
            if PROSE.search(v) and not CJK.search(v) and not any(p in desc for p in NOT_WORDED)}


_JSON_INPUTS = [
    ("diagnose", "diagnosis-1.schema.json", NCU / "ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep"),
    ("diagnose", "diagnosis-1.schema.json", NCU / "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep"),
    ("diagnose", "diagnosis-1.schema.json",
     NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"),
    ("diagnose", "diagnosis-1.schema.json", CASES / "N13_ncu_console_lds128_conflicts.txt"),
    ("diagnose", "diagnosis-1.schema.json", CASES / "N17_ncu_console_blackwell_utc_fp8.txt"),
    ("diagnose", "diagnosis-1.schema.json", CASES / "N07_nvprof_shared_util_levels.txt"),
    ("timeline", "timeline-1.schema.json", CASES / "N23_nsys_stats_cuda_gpu_trace.csv"),
    ("timeline", "timeline-1.schema.json", CASES / "N22_kineto_exposed_comm_two_streams.json"),
    ("timeline", "timeline-1.schema.json", CASES / "N20_kineto_queued_launches.json"),
    ("timeline", "timeline-1.schema.json", SHARED / "corpus" / "nsys" / "cudatutorial_rtx3060_fused_bias_fp16_report.sqlite"),
]


@pytest.mark.parametrize("command, schema, path", _JSON_INPUTS, ids=lambda x: getattr(x, "name", x))
def test_every_zh_json_text_field_is_chinese_or_documented_as_english(capsys, command, schema, path):
    """ZH-REVIEW 11 item 2: ``findings[].source``, ``speedup_note``, ``stalls.unit`` are English audit fields, and
    the schema says so; every other text field of a zh document (title, advice, problems, notes) is Chinese."""
    doc = json.loads(_run(capsys, command, str(need(path)), "--format", "json", "--lang", "zh"))
    assert doc.get("lang", "zh") == "zh"
    assert english_fields(doc, schema) == {}


def test_the_english_audit_fields_are_documented_so():
    from kernelscope.render.documents import schema_text

    text = schema_text("diagnosis-1.schema.json")
    for field in ("speedup_note", "source", "the rule's text"):
        at = text.index(f'"{field}"' if field != "the rule's text" else field)
        assert "English in every --lang" in text[at:at + 600], field


def test_the_walk_catches_an_undocumented_english_field():
    doc = {"schema": "x", "findings": [{"title": "a whole English sentence here", "source": "an English citation here"}]}
    schema = {"type": "object", "properties": {"findings": {"type": "array", "items": {"type": "object", "properties": {
        "title": {"type": "string", "description": "the title in the document's language"},
        "source": {"type": "string", "description": "a citation, English in every --lang"}}}}}}
    found: list = []
    _strings(doc, schema, {}, "$", "", found)
    bad = [p for p, d, v in found if PROSE.search(v) and not any(m in d for m in NOT_WORDED)]
    assert bad == ["$.findings[].title"]


# --- a fusion chain: a repeated period once, with its count ----------------------------------------------------------

@pytest.mark.parametrize("words, zh, expected", [
    (["a", "b", "c", "d"] * 4, True, "（a → b → c → d）× 4"),
    (["a", "b", "c", "d"] * 4, False, "(a → b → c → d) × 4"),
    (["x", "a", "b", "a", "b", "a", "b", "y"], False, "x → (a → b) × 3 → y"),
    (["a", "a", "a"], True, "a × 3"),
    (["a", "b", "c"], True, "a → b → c"),
    (["a", "b", "a", "c"], False, "a → b → a → c"),
    (["a", "b", "a", "b", "c", "c"], True, "（a → b）× 2 → c × 2"),
])
def test_a_chain_writes_each_repeated_period_once_with_its_count(words, zh, expected):
    from kernelscope.render.fusion import compressed

    assert compressed(words, zh) == expected


@pytest.mark.parametrize("lang, repeat", [("zh", "）× 4"), ("en", ") × 4")])
def test_the_8_rank_timeline_names_its_16_kernel_chain_as_4_kernels_times_4(capsys, lang, repeat):
    out = _run(capsys, "timeline", str(need(TRACES / "param_dlrm_kineto_8rank_v100.tar.gz")), "--lang", lang)
    flat = re.sub(r"\s+", " ", out)
    assert repeat in out, flat[:3000]
    assert not re.search(r"\[addcdiv_cuda_kernel\] → \S+ \[addcmul_cuda_kernel\]", flat)  # never the period again


def test_a_chain_folded_into_a_gemm_carries_the_legend_of_its_arrows():
    from types import SimpleNamespace

    from kernelscope.render.common import Fmt
    from kernelscope.render.fusion import chain_legend, chain_text

    k = SimpleNamespace(name="gelu_kernel", operator=None)
    gemm = SimpleNamespace(name="sm80_xmma_gemm", operator=None)
    plain = SimpleNamespace(kernels=(k, k), head=None)
    headed = SimpleNamespace(kernels=(k,), head=gemm)
    for lang, arrow in (("zh", "⇒："), ("en", "⇒: ")):
        f = Fmt(lang)
        assert chain_legend([plain], f) is None and arrow in chain_legend([plain, headed], f)
    assert chain_text(headed) == "sm80_xmma_gemm ⇒ gelu_kernel" and chain_text(plain) == "gelu_kernel × 2"


# --- 小节, never 面板 -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("wrong", ["[n]：适用的面板", "每组一个面板", "1 个面板（同一 Kernel、Grid 与 Block）"])
def test_the_glossary_catches_panel_as_mianban(wrong):
    assert misused(wrong)


def test_a_report_names_its_per_kernel_part_xiaojie(capsys):
    out = _run(capsys, "diagnose", str(need(CASES / "N17_ncu_console_blackwell_utc_fp8.txt")), "--lang", "zh")
    assert "面板" not in out and "适用的小节" in out and "1 个小节" in out


# --- a gloss once per block, never inside brackets -------------------------------------------------------------------

def _glossed_terms(lang: str) -> list[str]:
    """The units whose names gloss themselves in brackets (data/units.toml), and in Chinese the glossary's terms
    that gloss their word in English (轮（waves）): read from the data, not from the code under test."""
    units = tomllib.loads((DATA / "units.toml").read_text(encoding="utf-8"))["unit"]
    names = {u[lang] for u in units if re.search(r"\(|（", u[lang])}
    if lang == "zh":
        terms = tomllib.loads((DATA / "glossary.toml").read_text(encoding="utf-8"))["term"]
        names |= {t["zh"] for t in terms if "reason" not in t and re.fullmatch(r"[^（）\s]+（[A-Za-z][A-Za-z -]*）", t["zh"])}
    return sorted(names, key=len, reverse=True)


def _depth(text: str) -> int:
    return text.count("(") + text.count("（") - text.count(")") - text.count("）")


_GLOSS_INPUTS = ["ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep",
                 "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep",
                 "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_07_vectorize.ncu-rep",
                 "EricccYang__cuda_operators__reduce_reduce_v1.ncu-rep",
                 "Lashi0812__CudaProgramming__profiling_profiles_simpleDivergence.ncu-rep",
                 "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep"]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", _GLOSS_INPUTS)
def test_a_gloss_is_given_once_per_panel_and_never_inside_brackets(capsys, name, lang):
    """ZH-REVIEW 11 item 25: ``已达 FMA 管线（FP32 与整数乘加）上限。…FMA 管线（FP32 与整数乘加）已达峰值的 95%`` and
    ``（FMA 管线（FP32 与整数乘加）达峰值的 95%）``. In Markdown (one line per row) each kernel's part glosses a term
    at most once, and never inside an open bracket."""
    out = _run(capsys, "diagnose", str(need(NCU / name)), "--top", "2", "--details", "--format", "markdown",
               "--lang", lang)
    terms = _glossed_terms(lang)
    panels = re.split(r"^### `?\[\d+\]", out, flags=re.M)[1:]  # (the old heading: the index in the span)
    assert panels
    for panel in panels:
        panel = re.split(r"^## ", panel, flags=re.M)[0]  # the next report is not the panel's
        for term in terms:
            assert panel.count(term) <= 1, (term, panel.count(term))
        for line in panel.splitlines():
            for term in terms:
                for m in re.finditer(re.escape(term), line):
                    assert _depth(line[:m.start()]) <= 0, (term, line[max(0, m.start() - 60):m.end()])


@pytest.mark.parametrize("lang, busy", [("zh", "FMA 管线（FP32 与整数乘加）"), ("en", "FMA pipe (FP32 and integer multiply-add)")])
def test_the_sgemm_panel_glosses_the_fma_pipe_once(capsys, lang, busy):
    out = _run(capsys, "diagnose", str(need(NCU / "ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep")), "--top",
               "2", "--lang", lang)
    flat = re.sub(r"\s+", "", out)
    assert flat.count(re.sub(r"\s+", "", busy)) == 1
    if lang == "zh":
        assert "最繁忙的单元已经测得（FMA管线达峰值的94.9%）" in flat


def test_the_html_card_glosses_a_unit_once(capsys, tmp_path):
    out = tmp_path / "r.html"
    assert main(["diagnose", str(need(NCU / "ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep")), "--top", "2",
                 "--format", "html", "-o", str(out), "--lang", "zh"]) == 0
    assert out.read_text(encoding="utf-8").count("FMA 管线（FP32 与整数乘加）") == 1


def test_gloss_once_spaces_a_bare_word_from_a_number():
    from kernelscope.render.common import Fmt
    from kernelscope.render.rows import gloss_once

    rows = gloss_once([("a", "FMA 管线（FP32 与整数乘加）上限"), ("b", "计算：FMA 管线（FP32 与整数乘加）94.9%"),
                       ("c", "已测得（FMA 管线（FP32 与整数乘加）达 95%）")], Fmt("zh"))
    assert [t for _, t in rows] == ["FMA 管线（FP32 与整数乘加）上限", "计算：FMA 管线 94.9%", "已测得（FMA 管线达 95%）"]
    rows = gloss_once([("c", "已测得（FMA 管线（FP32 与整数乘加）达 95%）"), ("d", "FMA 管线（FP32 与整数乘加）上限")], Fmt("zh"))
    assert [t for _, t in rows] == ["已测得（FMA 管线达 95%）", "FMA 管线（FP32 与整数乘加）上限"]


# --- the padding example follows the pad -----------------------------------------------------------------------------

@pytest.mark.parametrize("pad, element, cols", [(4, 4, 33), (8, 4, 34), (16, 4, 36), (16, 2, 40), (8, 8, 33),
                                                (4, 8, 33)])
def test_the_padded_row_follows_the_pad_and_the_element_size(pad, element, cols):
    from kernelscope.analysis.memory_causes import padded_columns

    assert padded_columns(pad, element, 32) == cols


@pytest.mark.parametrize("lang, wrong", [("zh", "[32][33]"), ("en", "[32][33]")])
def test_the_lds128_case_pads_16_bytes_as_32_by_36(capsys, lang, wrong):
    out = re.sub(r"\s+", "", _run(capsys, "diagnose", str(need(CASES / "N13_ncu_console_lds128_conflicts.txt")),
                                  "--lang", lang))
    assert "[32][36]" in out and wrong not in out


def test_the_bank_conflict_advice_takes_the_example_from_the_values():
    table = tomllib.loads((DATA / "findings.toml").read_text(encoding="utf-8"))["finding"]["shared_bank_conflicts"]
    for lang in ("en", "zh"):
        assert "[32][{padded_cols}]" in table[f"action_{lang}"] and "[32][33]" not in table[f"action_{lang}"]


# --- wording (items 25, 26, 28, 29) ----------------------------------------------------------------------------------

def _data_texts() -> list[str]:
    out: list[str] = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for path in sorted(DATA.glob("*.toml")):
        walk(tomllib.loads(path.read_text(encoding="utf-8")))
    return out


@pytest.mark.parametrize("wrong", ["限制管线的工作中有多少是浪费", "改用更便宜的指令", "为完成其工作执行了过多的指令",
                                   "报告无法判断的内容", "其中没有可修改的代码", "其最繁忙的单元：",
                                   "（估计按 {used:.1f} 个计算）", "CUDA toolkit", "没有 Kernel 与 {option}",
                                   "必须给出以下参数之一", "换用更廉价的公式"])
def test_the_translationese_review_11_quoted_is_gone(wrong):
    assert not [t for t in _data_texts() if wrong in t], wrong


def test_a_library_kernel_names_its_busiest_unit_first(capsys):
    for lang, lead in (("zh", "库Kernel（cuBLAS/cuBLASLt）。最繁忙的单元为Tensor管线71.3%。这是cuBLAS的Kernel（无法修改其代码）"),
                       ("en", "Itsbusiestunit:tensorpipe71.3%.ThisisacuBLASkernel")):
        capsys.readouterr()
        assert main(["diagnose", str(need(CASES / "N17_ncu_console_blackwell_utc_fp8.txt")), "--lang", lang]) == 0
        flat = re.sub(r"\s+", "", capsys.readouterr().out)
        assert lead in flat, flat[:1500]
        assert not flat.rstrip("。.").endswith("71.3%") and "71.3%。\n" not in flat


@pytest.mark.parametrize("lang, expected", [("zh", "必须给出 --regs 或 --cu"), ("en", "one of the arguments --regs --cu is required")])
def test_one_of_two_options_reads_as_alternatives(capsys, lang, expected):
    with pytest.raises(SystemExit):
        main(["occupancy", "--arch", "sm_80", "--lang", lang])
    assert expected in capsys.readouterr().err


def test_three_alternatives_are_listed_the_chinese_way():
    from kernelscope.knowledge.messages import usage_error

    assert usage_error("one of the arguments --a --b --c is required", "zh") == "必须给出 --a、--b 或 --c"


def test_no_kernel_matches_puts_the_pattern_after_its_option(capsys):
    from conftest import EXAMPLE

    assert main(["diagnose", str(EXAMPLE), "--kernel", "nosuch", "--lang", "zh"]) != 0
    err = capsys.readouterr().err
    assert "没有与 --kernel 的“nosuch”匹配的 Kernel" in err


def test_the_gap_table_says_what_its_brackets_are(capsys):
    for lang, caption in (("zh", "每格：间隙个数（总时长）"), ("en", "each cell: the number of gaps (their total time)")):
        out = _run(capsys, "timeline", str(need(CASES / "N22_kineto_exposed_comm_two_streams.json")), "--details",
                   "--lang", lang)
        assert re.sub(r"\s+", "", caption) in re.sub(r"\s+", "", out)


def test_the_occupancy_kernel_table_says_its_blocks_and_warps_are_per_sm():
    """ZH-REVIEW 11 item 28: the --cu table's "Block" column is blocks per SM; said in the table's title (a header
    "Block/SM" would split the table at 80 columns)."""
    table = tomllib.loads((DATA / "labels.toml").read_text(encoding="utf-8"))["label"]
    assert "每个 SM 上驻留" in table["occ_per_kernel_title"]["zh"]
    assert "resident per SM" in table["occ_per_kernel_title"]["en"]


# --- Markdown / HTML: names and paths are code ----------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("case", ["N22_kineto_exposed_comm_two_streams.json", "N20_kineto_queued_launches.json",
                                  "N23_nsys_stats_cuda_gpu_trace.csv"])
def test_timeline_markdown_puts_kernel_names_and_the_path_in_code(capsys, case, lang):
    path = need(CASES / case)
    out = _run(capsys, "timeline", str(path), "--format", "markdown", "--details", "--lang", lang)
    assert f"`{path}`" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    heads = {"名称", "Name", "Kernel"}
    tables = re.split(r"^### ", out, flags=re.M)
    named = 0
    for table in tables:
        title = table.splitlines()[0] if table else ""
        lines = [x for x in table.splitlines() if x.startswith("| ")]
        if len(lines) < 3 or lines[0].split(" | ")[0].strip("| ") not in heads:
            continue
        if any(w in title for w in ("拷贝", "Copies", "GPU 工作", "no GPU work", "标注", "Annotated")):
            continue
        for line in lines[2:]:
            first = line.split(" | ")[0].removeprefix("| ")
            assert first.startswith("`"), (title, line)
            named += 1
    assert named and rows


def test_a_diagnose_heading_keeps_its_index_outside_the_code_span(capsys):
    out = _run(capsys, "diagnose", str(need(NCU / "EricccYang__cuda_operators__reduce_reduce_v1.ncu-rep")),
               "--format", "markdown", "--lang", "zh")
    assert re.search(r"^### \[\d+\] `[^`]+`", out, flags=re.M) and not re.search(r"^### `\[", out, flags=re.M)


def test_the_html_card_names_its_kernel_in_code(tmp_path):
    out = tmp_path / "r.html"
    assert main(["diagnose", str(need(NCU / "EricccYang__cuda_operators__reduce_reduce_v1.ncu-rep")), "--format",
                 "html", "-o", str(out)]) == 0
    assert re.search(r"<h3>\[\d+\] <code>[^<]+</code>", out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_markdown_fusion_chain_names_its_kernels_in_code(capsys, lang):
    path = need(TRACES / "hta_alexnet_a100_rank0_trace.json.gz")
    for argv in (["fusion", str(path)], ["timeline", str(path), "--details"]):
        out = _run(capsys, *argv, "--format", "markdown", "--lang", lang)
        chains = [line for line in out.splitlines() if line.startswith("| #")]
        assert chains and all(re.match(r"\| #\d+ \(?（?`", line) for line in chains), chains[:2]
        assert all(" ⇒ `" in line or " → `" in line for line in chains)
        assert f"`{path}`" in out

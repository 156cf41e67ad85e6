"""The catalogue texts (``data/*.toml``) read well in both languages once filled (zh review 3):

- every text, en and zh, has balanced brackets ``（）`` ``()`` ``【】`` ``“”`` after its fields are filled;
- a finding's or a verdict's title is an item of lists joined with ``、`` (:meth:`Fmt.listing`), so its Chinese
  holds no ``，`` / ``、`` of its own;
- each rule list (Nsight Compute's rules, finding titles) is joined with ``、`` in Chinese."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kernelscope.render.common import Fmt

DATA = Path(__file__).resolve().parents[1] / "src" / "kernelscope" / "data"
PAIRS = {"（": "）", "(": ")", "【": "】", "“": "”"}
CLOSING = {v: k for k, v in PAIRS.items()}
#: Texts that name a bracket as a character (Python's regex errors, worded by [phrase]).
QUOTES_A_BRACKET = {"missing ), unterminated subpattern", "missing ), unterminated name"}


def balanced(text: str) -> bool:
    """Whether every opening bracket of ``text`` is closed, in order."""
    stack: list[str] = []
    for ch in text:
        if ch in PAIRS:
            stack.append(ch)
        elif ch in CLOSING:
            if not stack or stack[-1] != CLOSING[ch]:
                return False
            stack.pop()
    return not stack


def _texts(node, path):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _texts(v, (*path, str(k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _texts(v, (*path, str(i)))
    elif isinstance(node, str):
        yield path, node


def filled(text: str) -> str:
    """``text`` with each ``{field}`` filled by a plain value (a field's own value brings its own brackets)."""
    return re.sub(r"\{[^{}]*\}", "7", text)


def test_balanced_detector():
    assert balanced("GEMM（或卷积）的输出（epilogue）") and balanced("a (b [c]) “d”")
    assert not balanced("尾处理（epilogue），例如 cuBLASLt；自动完成），使输出") and not balanced("（a)")
    assert not balanced("“open")


@pytest.mark.parametrize("path", sorted(DATA.glob("*.toml")), ids=lambda p: p.name)
def test_every_catalogue_text_has_balanced_brackets(path):
    bad = [".".join(where) + ": " + text[:90] for where, text in _texts(tomllib.loads(path.read_text("utf-8")), ())
           if where[-1] not in QUOTES_A_BRACKET and not balanced(filled(text))]
    assert bad == []


def test_titles_are_list_items():
    bad = []
    for name in ("findings.toml", "verdicts.toml"):
        for where, text in _texts(tomllib.loads((DATA / name).read_text("utf-8")), ()):
            if where[-1] == "title_zh" and re.search("[，、；]", text):
                bad.append(".".join(where) + ": " + text)
    assert bad == []


def test_rule_lists_use_the_enumeration_comma():
    """rows.nsight_line joins Nsight's rules with Fmt.listing (``a、b`` in Chinese, ``a, b`` in English)."""
    from types import SimpleNamespace

    from kernelscope.analysis.nsight import NSIGHT_ONLY
    from kernelscope.render.rows import nsight_line
    matches = [SimpleNamespace(status=NSIGHT_ONLY, rule_id=r, nsight_speedup_pct=p, findings=())
               for r, p in (("AchievedOccupancy", 65.0), ("FPInstructions", None), ("Occupancy", None))]
    d = SimpleNamespace(findings=(), nsight_matches=matches)
    zh, en = nsight_line(d, Fmt("zh")), nsight_line(d, Fmt("en"))
    assert "AchievedOccupancy（ncu 预计收益 65%）、FPInstructions、Occupancy" in zh and "，" not in zh
    assert "AchievedOccupancy (est. 65%), FPInstructions, Occupancy" in en


def test_no_two_bracket_groups_back_to_back():
    """``95.5%（> 80%）（按总周期计…）`` reads as two asides: one group, or a clause after ``；``."""
    bad = []
    for path in sorted(DATA.glob("*.toml")):
        for where, text in _texts(tomllib.loads(path.read_text("utf-8")), ()):
            if where[-1] != "source" and re.search(r"）（|\) \(", filled(text)):
                bad.append(f"{path.name}: {'.'.join(where)}: {text[:80]}")
    assert bad == []


def test_one_ceiling_name_in_table_and_chart():
    """The roofline table and chart name a shared peak alike: FP16-accumulate left out beside FP16, and names that
    end alike joined ("FP16/BF16 Tensor Core"), so no cell wraps inside "FP16 Tensor Core，FP16 累加"."""
    from kernelscope.render.roofline_data import ceiling_name
    pipes = ("fp16_tensor", "fp16_tensor_fp16acc", "bf16_tensor")
    for lang in ("zh", "en"):
        f = Fmt(lang)
        assert ceiling_name(pipes, f) == "FP16/BF16 " + f.pipe("fp16_tensor").split(" ", 1)[1]
        assert ceiling_name(("fp16_tensor_fp16acc",), f) == f.pipe("fp16_tensor_fp16acc")


#: Wordings zh review 3 found, each of a kind said one way elsewhere (the catalogue must not bring them back).
RETIRED = {
    "GPU 上每次启动": "a kernel's time on the GPU: Kernel 在 GPU 上的中位/平均耗时",
    "GPU 上每个 Kernel": "a kernel's time on the GPU: Kernel 在 GPU 上的中位/平均耗时",
    "correlation id": "关联 ID（correlation ID）; English: correlation ID",
    "Tensor 管线百分比": "the tensor pipe's utilisation: Tensor 管线的利用率",
    "Tensor Core 达": "the busiest-unit figure is the Tensor 管线's",
    "融合后自身加速比": "该链融合后加速比",
    "假定成链：": "未记录（假定为原流量的 x%）",
    "cublasLt": "cuBLASLt",
    "Tile 尺寸": "tile (engineers' word, lower case)",
    # zh review 4
    "假定成链": "未记录，按每个 Kernel 读取上一个的输出估算 (table, caveats and help alike)",
    "其自身工作占": "自身工作耗时 X，占其总时长 Y 的 Z%",
    "谓词为真的": "其中平均 N 个线程谓词为真",
    "访存输入输出": "MIO（内存输入/输出）指令队列",
    "特殊指令": "特殊函数（MUFU）指令",
    "百分比超过": "above 100 %: 峰值的 N 倍",
    # zh review 5
    "隐藏到": "hidden under: 与计算重叠（隐藏通信） / 与 GPU 工作重叠",
    "只付一次": "paid once: 只发生一次 / 每个进程一次性的开销",
    "按成链计": "taken as a chain: 按每个 Kernel 读取上一个的输出估算",
    "占整体的 {": "a share that may read 不到 0.1%: 占整体 {share}",
    # zh review 13
    "半个 Warp 服务": "8-byte elements: 按半 Warp 分两次服务",
    "只做检查并写明": "--arch: 此参数只用于校验并在结果中注明架构",
    "DuckDB 输出": "a query error: DuckDB 报错：…",
    "无法按 TOML": "one wording for a TOML parse error: 不是有效的 TOML：…",
    "无法按 {kind} 解析": "one wording for a parse error: 不是有效的 {kind}：…",
    "Kernel、memcpy": "the record kinds capitalised alike: Kernel、Memcpy 或 Memset",
    "（其中空闲": "a total over slices: （合计空闲 …）",
    "（已隐藏）": "--as-ranks: （通信完全被计算隐藏）",
    # zh review 14
    "以下内容报告无法判断": "not Chinese syntax (reviews zh12, zh14): 本报告无法判断以下几项",
    "让其中一半": "其中 binds to the nearest quantity (the API time): 让这 {time_s} 的一半与 GPU 工作重叠",
    "共 {runs} 次": "{runs} carries its measure word before the per-step part: 共 48 次（每步 16 次）",
    "耗时处于中位数的一次": "an even count has no launch at its median: 按耗时排在中间的一次",
    "the launch of median duration": "an even count has no launch at its median: the middle launch by duration",
}


def test_retired_wordings_stay_out():
    bad = []
    for path in sorted(DATA.glob("*.toml")):
        if path.name == "glossary.toml":
            continue
        for where, text in _texts(tomllib.loads(path.read_text("utf-8")), ()):
            bad += [f"{path.name}: {'.'.join(where)}: {w!r} -> {why}" for w, why in RETIRED.items()
                    if where[-1] != "source" and w in text]
    assert bad == []

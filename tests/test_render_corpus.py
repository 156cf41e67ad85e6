"""Charts, HTML and JSON (against its published JSON Schema) for every real report in ../shared/corpus/ncu."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from conftest import CORPUS_NCU, REPO, corpus_reports
from kernelscope import diagnose_file
from kernelscope.analysis.groups import launch_groups
from kernelscope.render import charts, render
from kernelscope.render.html import to_html
from kernelscope.render.launch_groups import FULL_GROUPS

REPORTS = corpus_reports()
_ABSENT = f"shared corpus not available: {CORPUS_NCU} is absent (it lives beside the checkout in ../shared)"
PARAMS = REPORTS or [pytest.param(None, marks=pytest.mark.skip(reason=_ABSENT))]
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def diagnosed():
    if REPORTS:
        pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    return {p.name: diagnose_file(p) for p in REPORTS}


def _ids(svg: bytes) -> set[str]:
    root = ET.fromstring(svg)  # parses as XML or raises
    assert root.tag == f"{SVG_NS}svg"
    return {el.get("id") for el in root.iter() if el.get("id")}


def _point_ids(ids: set[str]) -> set[str]:
    return {m.group(1) for i in ids if (m := re.search(r"-(ks-kernel-\d+)$", i))}


def _plotted(res) -> set[str]:
    """Launches the report chart must show: a roofline point, on the chart's GPU."""
    gpu = charts.roofline._pick_gpu(res.kernels)
    out = set()
    for d in res.kernels:
        if charts.has_roofline_point(d) and (gpu is None or (d.gpu is not None and d.gpu.name == gpu.name)):
            out.add(f"ks-kernel-{d.kernel.index}")
    return out


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name[:50] if p else "absent")
def test_charts_for_every_report(path, diagnosed):
    res = diagnosed[path.name]
    png = charts.report_roofline_chart(res, "en", "png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    svg = charts.report_roofline_chart(res, "en", "svg")
    ids = _ids(svg)
    assert _point_ids(ids) == _plotted(res)  # every plottable kernel is a point, nothing else is
    assert b"<title>" in svg or not _plotted(res)  # points carry a tooltip
    stall_svg = charts.report_stall_chart(res, "en", "svg")
    _ids(stall_svg)
    for d in res.kernels[:1]:
        _ids(charts.kernel_roofline_chart(d, "en", "svg"))
        _ids(charts.stall_chart(d, "en", "svg"))


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name[:50] if p else "absent")
def test_html_for_every_report(path, diagnosed):
    res = diagnosed[path.name]
    page = to_html([res], "en")  # a card per group of repeated launches (same kernel, grid and block)
    tags = check_html(page)
    assert tags["svg"] >= 1 and tags["section"] == 1 + min(len(launch_groups(res)), FULL_GROUPS)
    for d in res.kernels:
        assert html.escape(d.kernel.name) in page
    assert_offline(page)
    every = to_html([res], "en", launches="all")  # a card per launch
    assert check_html(every)["section"] == 1 + len(res.kernels)
    assert_offline(every)


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name[:50] if p else "absent")
def test_json_of_every_report_matches_the_schema(path, diagnosed):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "diagnosis-1.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for lang in ("en", "zh"):
        doc = json.loads(render([diagnosed[path.name]], "json", lang))
        errors = sorted(validator.iter_errors(doc), key=lambda e: e.json_path)
        assert not errors, f"{errors[0].json_path}: {errors[0].message[:300]}"


def test_chinese_html_of_a_corpus_report(diagnosed):
    if not REPORTS:
        pytest.skip(_ABSENT)
    res = diagnosed[REPORTS[0].name] if not any("silu_CUDA" in p.name for p in REPORTS) else next(
        v for k, v in diagnosed.items() if "silu_CUDA" in k)
    page = to_html([res], "zh")
    check_html(page)
    for text in ("GPU 时间分布", "来源信息", "各次 Kernel 启动", "优化建议", "测量数据"):
        assert text in page
    assert '<html lang="zh-CN">' in page


# ------------------------------------------------------------------------------------------ shared checks

VOID = {"meta", "br", "hr", "img", "input", "link", "source", "wbr", "col", "area", "base", "embed", "param", "track"}


class _Checker(HTMLParser):
    """Counts tags and checks that every element is closed in order (svg children included)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.counts: dict[str, int] = {}
        self.attrs: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.attrs += [(tag, k, v) for k, v in attrs]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.attrs += [(tag, k, v) for k, v in attrs]

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()


def check_html(page: str) -> dict[str, int]:
    """Parse a page: well nested, one <html>; returns tag counts."""
    assert page.startswith("<!DOCTYPE html>")
    p = _Checker()
    p.feed(page)
    p.close()
    assert not p.stack, f"unclosed: {p.stack}"
    assert p.counts.get("html") == 1 and p.counts.get("script", 0) == 0
    check_html.attrs = p.attrs  # type: ignore[attr-defined]
    return p.counts


def assert_offline(page: str) -> None:
    """Nothing the page would fetch: no script, no link, no src, no remote href or CSS url(), a CSP that
    forbids fetches."""
    p = _Checker()
    p.feed(page)
    for tag, key, value in p.attrs:
        assert key != "src", f"<{tag} src={value!r}>"
        if key in ("href", "xlink:href"):
            assert value and value.startswith("#"), f"<{tag} {key}={value!r}>"
    assert "<link" not in page and "<script" not in page.lower() and "@import" not in page
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", page)
    assert "default-src 'none'" in page

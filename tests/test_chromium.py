"""The HTML report in a real headless Chromium (Debian's ``chromium`` package; ``.ci/run`` installs it): the page
loads with no console message, no uncaught exception and no network request besides the page itself, its
charts (inline SVG) are there, and a full-page screenshot is produced."""

from __future__ import annotations

from pathlib import Path

import pytest

from chromium_cdp import CHROMIUM, load_page
from conftest import CORPUS_NCU, EXAMPLE
from kernelscope.cli import main
from test_render_corpus import assert_offline

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"Debian's chromium is not installed ({CHROMIUM} is absent): `apt-get install chromium` (.ci/run installs it)",
)

CORPUS_REPORT = CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"


def _check_page(page: Path, shot: Path, names: list[str]) -> None:
    html = page.read_text(encoding="utf-8")
    assert_offline(html)  # nothing in the markup would fetch
    result = load_page(page)
    assert result.requests == [page.resolve().as_uri()], result.requests  # the page itself, nothing else
    assert result.console == [], result.console  # no console message of any level (CSP violations included)
    assert result.exceptions == [], result.exceptions
    assert result.svg_count == html.count("<svg") >= 2  # every chart rendered as an <svg> element
    for name in names:
        assert name in result.text
    assert result.screenshot.startswith(b"\x89PNG\r\n\x1a\n") and len(result.screenshot) > 50_000
    shot.write_bytes(result.screenshot)


def test_the_harness_sees_requests_and_console_errors(tmp_path):
    """Control: a page that fetches from the network and logs an error is caught (the resolver maps every host
    to nothing, so nothing leaves the machine)."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><img src="http://example.com/a.png">'
                   '<script>console.error("boom")</script></body></html>', encoding="utf-8")
    result = load_page(bad)
    assert "http://example.com/a.png" in result.requests
    assert ("error", "boom") in result.console


def test_html_report_of_a_corpus_report_in_chromium(tmp_path, capsys):
    if not CORPUS_REPORT.exists():
        pytest.skip(f"shared corpus not available: {CORPUS_REPORT} is absent (it lives beside the checkout in ../shared)")
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    page = tmp_path / "report.html"
    assert main(["diagnose", str(CORPUS_REPORT), "--format", "html", "-o", str(page)]) == 0
    _check_page(page, tmp_path / "report.png", ["silu_kernel", "Input file", "NVIDIA A100-SXM4-40GB"])


def test_chinese_html_report_of_the_example_in_chromium(tmp_path):
    page = tmp_path / "report_zh.html"
    assert main(["diagnose", str(EXAMPLE), "--format", "html", "--lang", "zh", "-o", str(page)]) == 0
    _check_page(page, tmp_path / "report_zh.png", ["sgemm_naive_2048", "GPU 时间分布", "优化建议"])

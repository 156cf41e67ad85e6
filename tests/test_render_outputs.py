"""Charts, HTML, Markdown with chart files, JSON Schema, progress bar and atomic writes, on the bundled example
and on hand-made inputs (no shared corpus needed)."""

from __future__ import annotations

import html
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import EXAMPLE, REPO
from kernelscope import diagnose_file
from kernelscope.cli import main, write_atomic_files
from kernelscope.errors import InputError
from kernelscope.render.progress import Steps, wanted
from kernelscope.render import charts
from kernelscope.render.html import kernel_fragment, report_fragment, to_html
from test_render_corpus import assert_offline, check_html

HOSTILE = 'k<script>alert(1)</script>&"\'$x^2$ \x1b[31m </svg>]]>-->' 


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def example():
    return diagnose_file(EXAMPLE)


@pytest.fixture
def hostile(tmp_path):
    """A kernel whose name is markup, mathtext and a terminal escape, with a roofline point and stalls."""
    f = tmp_path / "hostile.json"
    f.write_text(json.dumps({"kernel": [{
        "name": HOSTILE, "device": "NVIDIA A100-SXM4-80GB", "duration_us": 1000, "flops": 4.0e9, "dram_bytes": 1.0e9,
        "stall_breakdown_pct": {"Long Scoreboard": 60.0, "Not Selected": 25.0, "MIO Throttle": 15.0},
    }]}), encoding="utf-8")
    return f


def test_charts_of_the_example(example):
    for d in example.kernels:
        png = charts.kernel_roofline_chart(d, "en", "png")
        assert png.startswith(b"\x89PNG")
        root = ET.fromstring(charts.kernel_roofline_chart(d, "en", "svg"))
        ids = [el.get("id", "") for el in root.iter()]
        assert any(i.endswith(f"ks-kernel-{d.kernel.index}") for i in ids) == charts.has_roofline_point(d)
        if charts.has_stalls(d):
            ET.fromstring(charts.stall_chart(d, "en", "svg"))
    ET.fromstring(charts.report_stall_chart(example, "en", "svg"))


def test_svg_ids_are_unique_per_chart(example):
    """Several charts inline in one page must not share element ids (clip paths, glyphs)."""
    page = to_html([example], "en")
    ids = [i for i in __import__("re").findall(r'\sid="([^"]+)"', page)]
    assert len(ids) == len(set(ids))


def test_hostile_names_are_escaped_and_never_parsed(hostile):
    res = diagnose_file(hostile)
    name = res.kernels[0].kernel.name
    svg = charts.report_roofline_chart(res, "en", "svg")
    root = ET.fromstring(svg)  # still XML
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert any(name.replace("\x1b", "?") in t for t in titles)
    charts.stall_chart(res.kernels[0], "en", "png")  # "$x^2$" is text, not mathtext
    page = to_html([res], "en")
    check_html(page)
    assert "<script>" not in page and html.escape(name.replace("\x1b", "?")) in page
    assert "\x1b" not in page


def test_unknown_chart_extension_is_refused(capsys, tmp_path):
    code, _, err = run(capsys, "roofline", str(EXAMPLE), "-o", str(tmp_path / "r.jpg"))
    assert code == 2 and "png or .svg" in err and not list(tmp_path.iterdir())


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_roofline_command(capsys, tmp_path, ext):
    target = tmp_path / f"roofline.{ext}"
    code, out, err = run(capsys, "roofline", str(EXAMPLE), "-o", str(target))
    assert code == 0 and out == "" and err == ""
    data = target.read_bytes()
    assert data.startswith(b"\x89PNG") if ext == "png" else ET.fromstring(data) is not None
    one = tmp_path / f"one.{ext}"
    code, _, err = run(capsys, "roofline", str(EXAMPLE), "--kernel", "sgemm_naive", "-o", str(one))
    assert code == 0, err
    code, _, err = run(capsys, "roofline", str(EXAMPLE), "--kernel", "nothing-matches", "-o", str(tmp_path / "x.svg"))
    assert code == 2 and "no kernel matches" in err


def test_html_report_command(capsys, tmp_path):
    target = tmp_path / "report.html"
    code, out, err = run(capsys, "diagnose", str(EXAMPLE), "--format", "html", "-o", str(target))
    assert code == 0 and out == "" and err == ""
    page = target.read_text(encoding="utf-8")
    counts = check_html(page)
    assert_offline(page)
    assert counts["svg"] >= 2
    for d in diagnose_file(EXAMPLE).kernels:
        assert html.escape(d.kernel.name) in page
    assert "kernelscope version" in page and str(EXAMPLE) in page  # provenance
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_html_in_chinese(example):
    page = to_html([example], "zh")
    for text in ("GPU 时间分布", "来源信息", "输入文件", "采集工具", "优化建议", "判定依据", "测量数据", "图表"):
        assert text in page, text
    assert "分析器版本" not in page  # issue 28: the row names the tool (glossary: Nsight Compute)
    if charts.chart_lang("zh") == "zh":
        assert "Warp 停顿" in page  # chart labels too
    else:
        assert "no CJK font" in page or "未安装中文字体" in page


def test_html_charts_stay_chinese_without_a_cjk_font(example, monkeypatch):
    """The page's SVG charts keep Chinese <text> for the browser to draw; only a PNG would fall back to English."""
    monkeypatch.setattr(charts.style, "cjk_font", lambda: None)  # where chart_lang and the rc settings look it up
    assert charts.chart_lang("zh") == "zh" and charts.chart_lang("zh", "png") == "en"
    page = to_html([example], "zh")
    assert "Warp 停顿" in page and "未安装中文字体" not in page


def test_jupyter_repr_html(example):
    frag = example._repr_html_()
    assert frag.startswith('<div class="ks">') and "<svg" in frag and "<html" not in frag
    assert report_fragment(example) == frag
    card = example.kernels[0]._repr_html_()
    assert card == kernel_fragment(example.kernels[0]) and example.kernels[0].kernel.name in card


def test_markdown_file_gets_its_charts_beside_it(capsys, tmp_path):
    target = tmp_path / "report.md"
    code, out, err = run(capsys, "diagnose", str(EXAMPLE), "--format", "markdown", "-o", str(target))
    assert code == 0 and out == "" and err == ""
    text = target.read_text(encoding="utf-8")
    assert "![Roofline](report_roofline.svg)" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md", "report_roofline.svg", "report_stalls.svg"]
    for svg in ("report_roofline.svg", "report_stalls.svg"):
        ET.fromstring((tmp_path / svg).read_bytes())
    code, out, _ = run(capsys, "diagnose", str(EXAMPLE), "--format", "markdown")
    assert code == 0 and "![" not in out and ".svg" not in out  # stdout Markdown has no charts


def test_markdown_with_several_inputs_numbers_its_charts(capsys, tmp_path):
    target = tmp_path / "two reports.md"
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), str(EXAMPLE), "--format", "markdown", "-o", str(target))
    assert code == 0, err
    text = target.read_text(encoding="utf-8")
    assert "(two%20reports_1_roofline.svg)" in text and "(two%20reports_2_roofline.svg)" in text
    assert (tmp_path / "two reports_2_stalls.svg").exists()


def test_a_failed_chart_write_leaves_nothing(capsys, tmp_path):
    (tmp_path / "report_stalls.svg").mkdir()  # the second chart cannot be written
    code, _, err = run(capsys, "diagnose", str(EXAMPLE), "--format", "markdown", "-o", str(tmp_path / "report.md"))
    assert code == 2 and "report_stalls.svg" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report_stalls.svg"]  # no md, no roofline, no temp file


def test_write_atomic_files_rolls_back_renames(tmp_path, monkeypatch):
    old = tmp_path / "a.txt"
    old.write_text("before")
    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(InputError, match="No space left"):
        write_atomic_files({str(old): "after", str(tmp_path / "b.txt"): b"new"})
    monkeypatch.setattr(os, "replace", real)
    assert old.read_text() == "before"  # the first rename was undone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_json_matches_its_schema(example):
    jsonschema = pytest.importorskip("jsonschema")
    from kernelscope.render import render

    schema = json.loads((REPO / "schemas" / "diagnosis-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.loads(render([example], "json", "zh"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    for launch in doc["inputs"][0]["launches"]:
        nulls = {r["field"] for r in launch["not_measured"]}
        for pointer in ("/duration_s", "/stalls", "/occupancy/calculated", "/roofline", "/gpu"):
            node = launch
            for part in pointer.strip("/").split("/"):
                node = node[part]
            assert (node is None) == (pointer in nulls), pointer  # every null has a reason, no reason without null


def test_compare_json_matches_its_schema(capsys, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "compare-2.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    code, out, err = run(capsys, "compare", str(EXAMPLE), "--before-kernel", "sgemm_naive", "--after-kernel", "sgemm_tiled",
                         "--format", "json")
    assert code in (0, 1), err
    jsonschema.validate(json.loads(out), schema, cls=jsonschema.Draft202012Validator)


def test_compare_json_of_corpus_reports_matches_its_schema(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from conftest import CORPUS_NCU, need

    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    before = need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile_output.ncu-rep")
    after = need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep")
    schema = json.loads((REPO / "schemas" / "compare-2.schema.json").read_text(encoding="utf-8"))
    code, out, err = run(capsys, "compare", str(before), str(after), "--format", "json", "--lang", "zh")
    assert code in (0, 1), err
    jsonschema.validate(json.loads(out), schema, cls=jsonschema.Draft202012Validator)


# ------------------------------------------------------------------------------------------ progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal():
    tty, pipe = _Tty(), io.StringIO()
    assert wanted(False, True, stdout=pipe, stderr=tty)  # -o FILE from a terminal
    assert wanted(False, False, stdout=tty, stderr=tty)
    assert not wanted(False, False, stdout=pipe, stderr=tty)  # output piped
    assert not wanted(False, True, stdout=tty, stderr=pipe)  # stderr redirected
    assert not wanted(True, True, stdout=tty, stderr=tty)  # --quiet


def test_progress_bar_draws_on_a_terminal_and_disappears():
    tty = _Tty()
    with Steps(True, stderr=tty) as steps:
        step = steps.stage("charts", 3)
        for _ in range(3):
            step()
    assert "charts" in tty.getvalue()
    quiet = Steps(False)
    with quiet:
        quiet.stage("charts", 3)()
    assert not quiet.enabled


def test_progress_is_quiet_when_not_a_terminal(tmp_path):
    """A real process whose stdout and stderr are pipes prints no progress bar (nor anything else) on stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "kernelscope", "diagnose", str(EXAMPLE), "--format", "html", "-o", str(tmp_path / "r.html")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout == ""
    proc = subprocess.run(
        [sys.executable, "-m", "kernelscope", "diagnose", str(EXAMPLE), "--format", "html", "--quiet"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.startswith("<!DOCTYPE html>")


def test_charts_leave_the_matplotlib_backend_alone():
    """No pyplot and no matplotlib.use(): a notebook's own backend is untouched by kernelscope's charts."""
    code = ("import sys, kernelscope; from kernelscope.render import charts; "
            f"charts.report_roofline_chart(kernelscope.diagnose_file({str(EXAMPLE)!r}), 'en', 'png'); "
            "assert 'matplotlib.pyplot' not in sys.modules; import matplotlib; "
            "assert matplotlib.rcParams._get_backend_or_none() is None")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr

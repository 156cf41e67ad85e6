"""The JSON document of many launches (issue 31): groups reference the launches of the ``launches`` list by index
(nothing copied), and the shortcuts taken for speed give what the plain code gives."""

from __future__ import annotations

import dataclasses
import json
import sys
from itertools import combinations
from types import SimpleNamespace

import msgspec
import pytest

from conftest import REPO
from kernelscope import diagnose_file
from kernelscope.analysis.engine import Finding
from kernelscope.analysis.scaling import WORK, scalings
from kernelscope.cli import main
from kernelscope.ingest.ncu_printed import parse_number
from kernelscope.knowledge.criteria import criteria as load_criteria
from kernelscope.notes import Note
from kernelscope.render import render
from kernelscope.render.common import Fmt, safe
from kernelscope.render.json import launch_doc, notes, to_json_bytes


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A generated ``ncu --csv`` details page of 400 launches of 30 kernels (some with two grids, a few slow)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import many_launches_bench as bench
    finally:
        sys.path.pop(0)
    path = tmp_path_factory.mktemp("many") / "model.csv"
    bench.generate(path, launches=400, kernels=30)
    return path


def test_a_launch_a_group_references_is_the_launch_of_the_list(page, capsys):
    assert main(["diagnose", str(page), "--format", "json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    entry = doc["inputs"][0]
    by_index = {x["index"]: x for x in entry["launches"]}
    assert len(by_index) == len(entry["launches"]) == 400
    res = diagnose_file(page)
    f = Fmt("en")
    referenced = [i for g in entry["groups"] for i in g["launches"]]
    assert sorted(referenced) == sorted(by_index)  # every launch in exactly one group
    for g in entry["groups"]:
        members = [by_index[i] for i in g["launches"]]  # a reference that names no launch fails here
        assert all((x["name"], x["demangled_name"], x["launch"]["grid"], x["launch"]["block"])
                   == (g["name"], g["demangled_name"], g["grid"], g["block"]) for x in members), g["name"]
        assert g["representative"] in g["launches"]
        assert {o["index"] for o in g["outliers"]} <= set(g["launches"])
        assert g["count"] == sum(x["launch_count"] for x in members)
        assert g["total_s"] == pytest.approx(sum(x["duration_s"] for x in members if x["duration_s"] is not None))
        # the launch the group points at is the document of that launch's diagnosis, as built on its own
        rep = next(d for d in res.kernels if d.kernel.index == g["representative"])
        assert by_index[g["representative"]] == msgspec.json.decode(msgspec.json.encode(launch_doc(rep, f)))
    assert any(len(g["launches"]) > 1 for g in entry["groups"]) and len(entry["groups"]) > 1


def test_the_json_bytes_are_the_json_text(page, capsys):
    res = diagnose_file(page)
    for lang in ("en", "zh"):
        data = to_json_bytes([res], lang)
        assert data.decode("utf-8") == render([res], "json", lang) and data.endswith(b"}\n")
    assert main(["diagnose", str(page), "--format", "json", "--quiet", "--lang", "zh"]) == 0
    assert capsys.readouterr().out == to_json_bytes([res], "zh").decode("utf-8")


def test_a_note_document_is_built_once_and_worded_as_each_note():
    f = Fmt("en")
    a, b = Note("no_peak", {"gpu": "X", "pipe": "fp32"}), Note("no_peak", {"gpu": "Y", "pipe": "fp32"})
    docs = notes([a, b, Note("no_peak", {"gpu": "X", "pipe": "fp32"}), "no_gpu", "no_gpu"], f)
    assert docs[0] is docs[2] and docs[3] is docs[4] and docs[0] is not docs[1]
    assert [d.text for d in docs] == [f.note(a), f.note(b), f.note(a), f.note("no_gpu"), f.note("no_gpu")]
    assert docs[0].values == {"gpu": "X", "pipe": "fp32"} and docs[3].values == {}
    one, other = (notes([Note("no_peak", {"gpu": v, "pipe": "fp32"})], f)[0] for v in (1, 1.0))
    assert one is not other and one.text != other.text  # an int and a float are worded differently: two notes


def _launch(index, name, blocks, duration_s, work):
    kernel = SimpleNamespace(index=index, name=name, demangled_name=name, duration_s=duration_s,
                             launch=SimpleNamespace(blocks=blocks), metrics={WORK[0]: work})
    return SimpleNamespace(kernel=kernel)


def _every_pair(diagnoses, crit):
    """:func:`scalings` as it was: every pair of launches of one name compared."""
    out = []
    by_name: dict = {}
    for d in diagnoses:
        by_name.setdefault(d.kernel.name, []).append(d)
    tol, min_ratio = crit["scaling_work_tolerance"], crit["scaling_block_ratio"]
    for ds in by_name.values():
        for a, b in combinations(sorted(ds, key=lambda d: d.kernel.launch.blocks), 2):
            ba, bb = a.kernel.launch.blocks, b.kernel.launch.blocks
            wa, wb = a.kernel.metrics[WORK[0]], b.kernel.metrics[WORK[0]]
            if bb / ba >= min_ratio and abs(wb / wa - 1.0) <= tol:
                ratio = (b.kernel.duration_s / a.kernel.duration_s) / (bb / ba)
                if abs(ratio - 1.0) <= tol:
                    out.append((a.kernel.index, b.kernel.index))
    return out


def test_scaling_pairs_are_every_pair_that_qualifies():
    crit = load_criteria()
    launches = []
    for i in range(120):  # blocks 64 .. 1024, time in proportion to them for some, work equal or not
        blocks = 64 * (1 + i % 16)
        launches.append(_launch(i, "k" if i % 5 else "other", blocks, 1e-5 * blocks * (1.0 if i % 3 else 1.7),
                                1e6 * (1.0 if i % 7 else 1.5)))
    found = [(s.few, s.many) for s in scalings(launches, crit)]
    assert found == _every_pair(launches, crit) and len(found) > 100


def test_finding_but_is_replace_checked_as_a_new_finding():
    f = Finding("x", "optimization", Note("n"), estimated_speedup=2.0, advice="finding:x")
    changed = f.but(rank=1, marginal_speedup=1.5, negligible=True)
    assert changed == dataclasses.replace(f, rank=1, marginal_speedup=1.5, negligible=True) and f.rank is None
    with pytest.raises(TypeError):
        f.but(nonsense=1)
    with pytest.raises(ValueError):
        f.but(marginal_speedup=3.0)  # above its estimated speedup


def test_printed_numbers_and_safe_text_as_before():
    assert parse_number("1,658.42") == 1658.42 and parse_number("292,928") == 292928.0
    assert parse_number("20.23") == 20.23 and parse_number("(!) n/a") is None and parse_number("") is None
    with pytest.raises(ValueError):
        parse_number("20,23")
    assert safe("a\x1b[31mb\nc") == "a?[31mb?c" and safe("显存 ok") == "显存 ok" and safe(3) == "3"

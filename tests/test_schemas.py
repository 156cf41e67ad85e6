"""The JSON Schemas in schemas/ are generated from the document types (kernelscope.render.documents); a change of a
type without regenerating them fails here. And no document ever holds a non-finite number as a string."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kernelscope.render.documents import _documents, schema_text

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("filename", sorted(_documents()))
def test_checked_in_schema_is_the_generated_one(filename):
    checked_in = (REPO / "schemas" / filename).read_text(encoding="utf-8")
    assert checked_in == schema_text(filename), (
        f"schemas/{filename} drifted from its document type: regenerate it with "
        "python -c \"from kernelscope.render.documents import write_schemas; write_schemas('schemas')\"")


@pytest.mark.parametrize("filename", sorted(_documents()))
def test_generated_schema_is_valid_and_closed(filename):
    jsonschema = pytest.importorskip("jsonschema")
    s = json.loads(schema_text(filename))
    jsonschema.Draft202012Validator.check_schema(s)
    # every object type rejects unknown fields, so a renamed field cannot slip through validation
    for name, definition in s["$defs"].items():
        if definition.get("type") == "object":
            assert definition.get("additionalProperties") is False, name


def non_finite_strings(value, pointer=""):
    """JSON Pointers of strings that stand for non-finite numbers ("inf", "-inf", "nan", "Infinity", ...)."""
    if isinstance(value, str):
        return [pointer] if value.strip().lower().lstrip("+-") in ("inf", "infinity", "nan") else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in non_finite_strings(v, f"{pointer}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in non_finite_strings(v, f"{pointer}/{i}")]
    return []


def test_non_finite_finder_can_fail():
    assert non_finite_strings({"a": [1, "inf"], "b": {"c": "-Infinity"}, "d": "information"}) == ["/a/1", "/b/c"]


def test_unbounded_intensity_is_null_with_a_reason(tmp_path):
    """A kernel that executed FLOPs but moved no DRAM bytes: intensity is null with intensity_unbounded, not "inf"."""
    from kernelscope.analysis.diagnosis import diagnose
    from kernelscope.model import GpuSpec, KernelProfile
    from kernelscope.render.json import launch_doc
    from kernelscope.render.common import Fmt

    gpu = GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})
    k = KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, flop_counts={"fp32": 1e9},
                      dram_bytes_read=0.0, dram_bytes_write=0.0)
    d = diagnose(k, gpu)
    assert math.isinf(d.roofline.arithmetic_intensity_flop_per_byte)
    doc = json.loads(json.dumps(__import__("msgspec").to_builtins(launch_doc(d, Fmt("en")))))
    assert doc["roofline"]["arithmetic_intensity_flop_per_byte"] is None
    assert "intensity_unbounded" in [n["key"] for n in doc["roofline"]["not_measured"]]
    assert doc["roofline"]["attainable_flops_per_s"] == pytest.approx(1e13)  # min(peak, inf x bandwidth)
    assert non_finite_strings(doc) == []


@pytest.mark.parametrize("filename", sorted(_documents()))
def test_documents_share_their_head_and_describe_every_field(filename):
    """Every document starts with schema, kernelscope_version and lang (the same names in all of them), and every
    field has a description (where units are stated), or is a described object type."""
    s = json.loads(schema_text(filename))
    definitions = s["$defs"]
    top = definitions[s["$ref"].rsplit("/", 1)[-1]]
    assert list(top["properties"])[:3] == ["schema", "kernelscope_version", "lang"]
    assert {"schema", "kernelscope_version", "lang"} <= set(top["required"]) and "language" not in top["properties"]
    assert top["properties"]["schema"]["enum"][0].endswith("/" + filename.split("-")[-1].split(".")[0])
    undescribed = []
    for name, definition in definitions.items():
        assert definition.get("description"), name
        for field, prop in definition.get("properties", {}).items():
            items = prop.get("items")  # false for a tuple (prefixItems)
            ref = prop.get("$ref") or (items.get("$ref") if isinstance(items, dict) else None)
            if not prop.get("description") and not (ref and definitions[ref.rsplit("/", 1)[-1]].get("description")):
                undescribed.append(f"{name}.{field}")
    assert not undescribed

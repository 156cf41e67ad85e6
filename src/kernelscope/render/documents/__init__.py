"""Typed JSON documents: one msgspec Struct tree per output (``kernelscope.diagnosis/1``, ``kernelscope.compare/2``,
``kernelscope.compare-datasets/1``, ``kernelscope.timeline/1``,
``kernelscope.banks/1``, ``kernelscope.source/1``, ``kernelscope.occupancy/1``, ``kernelscope.gpus/1``,
``kernelscope.roofline/1``, ``kernelscope.ceilings/1``), one encoder (:func:`encode`), and the JSON Schemas generated from
the types (:func:`schema`, :func:`write_schemas`; the files in ``schemas/`` are checked against them by the tests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from .common import Doc



def enc_hook(value: Any) -> Any:
    """A value msgspec does not encode itself: a :class:`~kernelscope.notes.Listed` note value as its English text."""
    if isinstance(value, str):
        return str(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=enc_hook)

#: Schema file name -> (document type, schema id). Filled by :func:`_documents` (imported lazily: the timeline
#: document lives with the timeline renderer's types).
SCHEMA_BASE_URL = "https://kernelscope.invalid/schemas/"


def encode(doc: Doc) -> str:
    """The document as indented JSON text (UTF-8 kept, a final newline). Non-finite floats are written as null:
    the builders give each such null its reason."""
    return encode_bytes(doc).decode("utf-8")


def encode_bytes(doc: Doc) -> bytes:
    """:func:`encode` as the UTF-8 bytes written (no decoding and encoding again of a 100 MB document)."""
    return b"".join(encode_pieces(doc))


def encode_pieces(doc: Doc) -> list[bytes]:
    """:func:`encode_bytes` in the pieces a writer writes one after the other, the indented JSON and its final
    newline: a 100 MB document is not copied to add one byte."""
    return [msgspec.json.format(_ENCODER.encode(doc), indent=2), b"\n"]


#: A place in a document for values encoded apart (:func:`encode_spliced`): a JSON string that no encoded value
#: gives (the encoder writes a "/" as it is, never as the escape ``\\/``).
HOLE = msgspec.Raw(b'"\\/kernelscope:encoded-apart\\/"')


def encode_fragment(doc: Any, indent: int) -> bytes:
    """One value of a document encoded apart, as :func:`encode_pieces` writes it where it stands ``indent`` spaces
    (an even number) deep in a list, its first line without them (the list's own indent is before it): spliced in
    with :func:`encode_spliced`, the document is the one the whole would give, byte for byte. (Formatted inside as
    many one-item lists as its depth, which are cut off again: no pass over its lines to indent them.)"""
    depth = indent // 2
    for _ in range(depth):
        doc = [doc]
    text = msgspec.json.format(_ENCODER.encode(doc), indent=2)
    head = sum(2 * level + 2 for level in range(depth)) + indent  # "[\n  [\n ... [\n" and the item's indent
    tail = sum(2 * level + 2 for level in range(depth))  # "\n ... ]\n  ]\n]"
    return text[head:len(text) - tail]


def encode_spliced(doc: Doc, filled: list[list[bytes]], indent: int) -> list[bytes]:
    """:func:`encode_pieces` of ``doc`` whose lists hold :data:`HOLE` each as their one item (in document order),
    the ``filled`` items (:func:`encode_fragment` at ``indent``, one list per hole, none empty) spliced in there:
    the pieces of the document with those lists whole, without encoding or formatting their items again.

    Raises:
        ValueError: not one hole per list of ``filled``, or a hole not ``indent`` deep.
    """
    text = msgspec.json.format(_ENCODER.encode(doc), indent=2)
    segments = text.split(bytes(HOLE))
    if len(segments) != len(filled) + 1:
        raise ValueError(f"{len(segments) - 1} holes for {len(filled)} lists")
    out = [segments[0]]
    gap = b",\n" + b" " * indent
    for items, after in zip(filled, segments[1:]):
        if not out[-1].endswith(b"\n" + b" " * indent) or not items:
            raise ValueError(f"a hole not {indent} spaces deep, or nothing to fill it")
        for i, item in enumerate(items):
            if i:
                out.append(gap)
            out.append(item)
        out.append(after)
    out.append(b"\n")
    return out


def _documents() -> dict[str, tuple[type, str]]:
    from .banks import BanksDoc
    from .ceilings import CeilingsDoc
    from .compare import CompareDoc
    from .compare_datasets import CompareDatasetsDoc
    from .diagnosis import DiagnosisDoc
    from .gpus import GpusDoc
    from .occupancy import OccupancyReportDoc
    from .roofline import RooflineChartDoc
    from .source import SourceDoc
    from .timeline import TimelineDoc
    from .fusion import FusionCommandDoc

    return {
        "diagnosis-1.schema.json": (DiagnosisDoc, "kernelscope diagnose --format json"),
        "compare-2.schema.json": (CompareDoc, "kernelscope compare --format json"),
        "compare-datasets-1.schema.json": (CompareDatasetsDoc, "kernelscope compare DIR_BEFORE DIR_AFTER --format json "
                                           "(two kernelscope datasets)"),
        "timeline-1.schema.json": (TimelineDoc, "kernelscope timeline --format json"),
        "banks-1.schema.json": (BanksDoc, "kernelscope banks --format json"),
        "source-1.schema.json": (SourceDoc, "kernelscope source --format json"),
        "occupancy-1.schema.json": (OccupancyReportDoc, "kernelscope occupancy --format json"),
        "gpus-1.schema.json": (GpusDoc, "kernelscope gpus --format json"),
        "roofline-1.schema.json": (RooflineChartDoc, "kernelscope roofline --format json"),
        "ceilings-1.schema.json": (CeilingsDoc, "kernelscope ceilings --format json"),
        "fusion-1.schema.json": (FusionCommandDoc, "kernelscope fusion --format json"),
    }


def schema(filename: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one document, generated from its type.

    Raises:
        KeyError: an unknown schema file name.
    """
    doc_type, title = _documents()[filename]
    generated = msgspec.json.schema(doc_type)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_BASE_URL + filename,
        "title": title,
        **generated,
    }


def schema_text(filename: str) -> str:
    """:func:`schema` as the text checked in under ``schemas/``."""
    return json.dumps(schema(filename), indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: str | Path) -> list[Path]:
    """Write every generated schema into ``folder`` (``python -c "from kernelscope.render.documents import
    write_schemas; write_schemas('schemas')"`` after changing a document type). Returns the files written."""
    out = []
    for filename in _documents():
        path = Path(folder) / filename
        path.write_text(schema_text(filename), encoding="utf-8")
        out.append(path)
    return out

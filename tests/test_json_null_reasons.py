"""render.json.null_reasons: every null of a document with its JSON Pointer, walked by the documents' types (a list
of strings or a dict of numbers is not walked into: it holds no null), the skipped subtrees left out (issue 31)."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from kernelscope.render.common import Fmt
from kernelscope.render.json import _may_hold_null, null_reasons


class _Inner(Struct):
    x: float | None
    name: str


class _Doc(Struct):
    a: float | None
    tags: list[str]
    grid: tuple[int, int, int] | None
    counts: dict[str, float]
    maybe: list[float | None]
    inner: _Inner | None
    inners: list[_Inner]
    by_name: dict[str, _Inner | None]
    skipped: _Inner | None
    labelled: Annotated[float | None, Meta(description="d")]


def test_every_null_is_named_by_its_pointer_in_document_order():
    doc = _Doc(a=None, tags=["x/y"], grid=None, counts={"fp32": 1.0}, maybe=[1.0, None],
               inner=_Inner(x=None, name="n"), inners=[_Inner(x=2.0, name="m"), _Inner(x=None, name="k")],
               by_name={"a/b": None, "c~d": _Inner(x=None, name="z")}, skipped=_Inner(x=None, name="s"), labelled=None)
    reasons = null_reasons(doc, Fmt("en"), {"/grid": "no_gpu"}, ("/skipped",))
    assert [r.field for r in reasons] == ["/a", "/grid", "/maybe/1", "/inner/x", "/inners/1/x", "/by_name/a~1b",
                                          "/by_name/c~0d/x", "/labelled"]
    assert {r.key for r in reasons if r.field == "/grid"} == {"no_gpu"}
    assert {r.key for r in reasons if r.field != "/grid"} == {"not_in_profile"}
    assert all(r.text and r.text != r.key for r in reasons)


def test_containers_of_plain_values_are_not_walked_into():
    assert not _may_hold_null(list[str])
    assert not _may_hold_null(dict[str, float])
    assert not _may_hold_null(tuple[int, int, int] | None)
    assert not _may_hold_null(Annotated[float | None, Meta(description="d")])
    assert _may_hold_null(list[float | None])
    assert _may_hold_null(dict[str, _Inner | None])
    assert _may_hold_null(_Inner | None)
    assert _may_hold_null(list[_Inner])

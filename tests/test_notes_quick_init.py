"""notes.quick_init (frozen dataclasses built without object.__setattr__ per field) and notes.cached (a lock-free
cached property): the same objects as dataclasses and functools make, checked against them (issue 31)."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from kernelscope.analysis.engine import Evidence, Finding
from kernelscope.notes import Note, cached, quick_init


@dataclass(frozen=True)
class _Plain:
    a: int
    b: str = "x"
    c: tuple = ()
    d: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("a < 0")


@quick_init
@dataclass(frozen=True)
class _Quick:
    a: int
    b: str = "x"
    c: tuple = ()
    d: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("a < 0")


def _fields(obj: object) -> dict:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((1, "y"), {}), ((2,), {"c": (1,), "d": {"k": 1}}),
                                          ((), {"a": 3, "b": "z"})])
def test_quick_init_builds_what_the_dataclass_init_builds(args, kwargs):
    assert _fields(_Quick(*args, **kwargs)) == _fields(_Plain(*args, **kwargs))


def test_quick_init_keeps_the_signature_the_factory_the_checks_and_frozen():
    assert list(inspect.signature(_Quick).parameters) == list(inspect.signature(_Plain).parameters)
    assert str(inspect.signature(_Quick)) == str(inspect.signature(_Plain))  # "d: dict = <factory>" both
    assert _Quick(1).d is not _Quick(1).d  # a fresh default per instance
    with pytest.raises(ValueError, match="a < 0"):
        _Quick(-1)
    with pytest.raises(TypeError):
        _Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Quick(1, e=2)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        _Quick(1).a = 2  # type: ignore[misc]
    q = _Quick(1, "y")
    assert q == _Quick(1, "y") and q != _Quick(1, "z")
    assert dataclasses.replace(q, b="z") == _Quick(1, "z")
    assert pickle.loads(pickle.dumps(q)) == q


def test_quick_init_refuses_what_it_cannot_build():
    @dataclass
    class Mutable:
        a: int

    with pytest.raises(TypeError, match="frozen"):
        quick_init(Mutable)

    @dataclass(frozen=True)
    class KwOnly:
        a: int = field(kw_only=True)

    with pytest.raises(TypeError, match="plain init field"):
        quick_init(KwOnly)

    @dataclass(frozen=True)
    class WithInitVar:
        a: int
        b: dataclasses.InitVar[int] = 0

    with pytest.raises(TypeError, match="pseudo-fields"):
        quick_init(WithInitVar)

    @quick_init
    @dataclass(frozen=True)
    class WithClassVar:  # a ClassVar is no parameter and no field: taken
        LIMIT: ClassVar[int] = 3
        a: int

    assert WithClassVar(2).a == 2 and WithClassVar.LIMIT == 3


def test_the_analysis_records_use_it_and_still_check_their_values():
    assert Finding.__init__.__qualname__ == "Finding.__init__" and "quick_init" not in repr(Finding.__init__)
    f = Finding("x", "info", Note("k", {"a": 1}), (Evidence("m", 1.0, "%"),), estimated_speedup=1.5)
    assert (f.id, f.severity, f.estimated_speedup, f.source, f.remedies) == ("x", "info", 1.5, "", ())
    with pytest.raises(ValueError, match="severity"):
        Finding("x", "nope", Note("k"))
    with pytest.raises(ValueError, match="estimated_speedup"):
        Finding("x", "info", Note("k"), estimated_speedup=0.5)
    assert Note("k", {"a": 1}).values == {"a": 1} and Note("k").values == {}


def test_cached_computes_once_per_instance_and_is_kept_in_its_dict():
    calls = []

    class Thing:
        @cached
        def value(self) -> int:
            """The doc."""
            calls.append(1)
            return 7

    t = Thing()
    assert (t.value, t.value) == (7, 7) and len(calls) == 1 and t.__dict__["value"] == 7
    assert Thing().value == 7 and len(calls) == 2
    assert Thing.value.__doc__ == "The doc."


def test_note_memo_tells_apart_what_words_differently():
    memo = lambda **v: Note("k", v).memo  # noqa: E731
    assert memo(a=1) != memo(a=1.0) != memo(a=True)
    assert memo(a=0.0) != memo(a=-0.0)
    assert memo(a=1.5, b="x") == memo(a=1.5, b="x")
    assert memo(a=None) != memo(a="None")

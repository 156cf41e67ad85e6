"""Vocabulary shared by the analysis modules: bottleneck class ids and :class:`Note`, a finding with its
numbers that every renderer words in the user's language (templates in ``data/labels.toml`` ``[note]``)."""

from __future__ import annotations

import dataclasses
import inspect
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

COMPUTE_BOUND = "compute-bound"
MEMORY_BOUND = "memory-bound"
LATENCY_BOUND = "latency-bound"
OCCUPANCY_BOUND = "occupancy-bound"
#: a kernel about as short as its own launch overhead (``short_kernel_s``): the launch, not the GPU, sets its time
LAUNCH_BOUND = "launch-bound"
#: a grid too small to fill the GPU (Nsight Compute's "Small Grid"): SMs without a block for the whole kernel, however
#: long it runs; not launch overhead
SMALL_GRID = "small-grid"
BALANCED = "balanced"


class cached:
    """A property computed once per instance and then kept in its ``__dict__``, as :class:`functools.cached_property`
    without its lock (Python 3.11 takes one on every first access: thousands of notes and diagnoses per report).
    For values that are pure functions of a frozen instance."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.attrname] = self.func(instance)
        return value


class _Factory:
    """The default of a field with a default factory in a :func:`quick_init` signature (shown as dataclasses does)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def quick_init(cls: type) -> type:
    """A frozen dataclass with an ``__init__`` that stores its fields straight into the instance's ``__dict__``: the
    same signature, defaults, default factories and ``__post_init__`` as the one :func:`dataclasses.dataclass` makes,
    which calls ``object.__setattr__`` once per field (a report makes hundreds of thousands of findings, notes and
    evidence). Put above ``@dataclass(frozen=True)``.

    Raises:
        TypeError: not a frozen dataclass, or one whose fields this cannot take (slots, ``InitVar``
            pseudo-fields, ``init=False``, keyword-only fields, a field that is a data descriptor of the class).
    """
    params = getattr(cls, "__dataclass_params__", None)
    # an InitVar pseudo-field is a parameter of the dataclass' own __init__ that is no field (a ClassVar is neither)
    if params is None or not params.frozen or "__slots__" in cls.__dict__ or \
            list(inspect.signature(cls.__init__).parameters)[1:] != [f.name for f in dataclasses.fields(cls)]:
        raise TypeError(f"quick_init: {cls.__qualname__} is not a frozen dataclass without slots or pseudo-fields")
    names, args, body = [], [], []
    namespace: dict[str, Any] = {"__quick_factory__": _FACTORY}  # (names no field has: checked below)
    for f in dataclasses.fields(cls):
        descriptor = hasattr(type(cls.__dict__.get(f.name)), "__set__")
        if not f.init or f.kw_only or f.name.startswith("__quick") or descriptor:
            raise TypeError(f"quick_init: field {f.name!r} of {cls.__qualname__} is not a plain init field")
        names.append(f.name)
        if f.default is not dataclasses.MISSING:
            namespace[f"__quick_default_{f.name}"] = f.default
            args.append(f"{f.name}=__quick_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"__quick_factory_{f.name}"] = f.default_factory
            args.append(f"{f.name}=__quick_factory__")
            body.append(f"    if {f.name} is __quick_factory__: {f.name} = __quick_factory_{f.name}()")
        else:
            args.append(f.name)
    body += ["    __quick_dict = self.__dict__"] + [f"    __quick_dict[{n!r}] = {n}" for n in names]
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    exec(f"def __init__(self, {', '.join(args)}):\n" + "\n".join(body), namespace)  # (as dataclasses does)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {**{f.name: f.type for f in dataclasses.fields(cls)}, "return": None}
    cls.__init__ = init  # type: ignore[misc]
    return cls


@quick_init
@dataclass(frozen=True)
class Note:
    """One finding with its numbers: ``key`` names a template in ``labels.toml`` ``[note]`` (en / zh),
    ``values`` fills it (numbers in the units the template states; None prints as "not measured")."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    @cached
    def memo(self) -> tuple | None:
        """A key that tells apart every note that could be worded differently (values by type, the sign of a zero),
        or None when a value is not a plain number, string or None (it is then worded every time); computed once
        per note (renderers word the same note in several places)."""
        items: list = [self.key]
        add = items.append
        for k, v in self.values.items():
            t = type(v)
            if t is float:
                add((k, t, v, math.copysign(1.0, v)))
            elif v is None or t is str:  # (a Listed: worded every time)
                add((k, v))
            elif t is int or t is bool:
                add((k, t, v, 0))
            else:
                return None
        return tuple(items)


class Listed(str):
    """A list of names or numbers as one value of a :class:`Note` or an error: the English text (items joined with
    ``, ``; then `` ...`` when ``more``, or ``, ... (N names)`` when ``total`` counts more names than shown) as a
    string, its ``items`` kept for the other languages (:meth:`joined`: Chinese lists with 、 and 等)."""

    items: tuple[str, ...]
    more: bool
    total: int | None

    def __new__(cls, items: Iterable[Any], more: bool = False, total: int | None = None) -> Listed:
        shown = tuple(map(str, items))
        self = super().__new__(cls, _joined(shown, ", ", " ..." if more else f", ... ({total} names)" if total else ""))
        self.items, self.more, self.total = shown, more, total
        return self

    def __getnewargs__(self) -> tuple:
        return self.items, self.more, self.total

    def joined(self, lang: str, word: Callable[[str], str] = str) -> str:
        """The list in ``lang`` (``en`` / ``zh``), each item through ``word`` (its wording in ``lang``)."""
        items = tuple(map(word, self.items))
        if lang != "zh":
            return _joined(items, ", ", " ..." if self.more else f", ... ({self.total} names)" if self.total else "")
        return _joined(items, "、", " 等" if self.more else f" 等 {self.total} 个" if self.total else "")


def _joined(items: tuple[str, ...], comma: str, tail: str) -> str:
    return comma.join(items) + tail

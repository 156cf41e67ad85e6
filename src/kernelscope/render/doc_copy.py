"""Report dataclasses -> msgspec documents of the same-named fields (:func:`copy_doc`): numbers made plain JSON
(NumPy scalars converted, non-finite floats None with their reason in ``<field>_null_reason``), tuples as lists."""

from __future__ import annotations

import math
from functools import cache
from typing import Any, TypeVar

import msgspec
import numpy as np

from .documents.common import Doc
from .json_common import finite

D = TypeVar("D", bound=Doc)


def plain(value: Any) -> Any:
    """A number, string or tuple of them as plain JSON-ready Python: NumPy scalars converted, non-finite floats
    None (their reason is beside them, see :func:`copy_doc`), tuples as lists."""
    t = type(value)
    if t is str or t is int or value is None:  # (the common cases first: thousands of fields per report)
        return value
    if t is float:
        return finite(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    return finite(value) if isinstance(value, float) else value


def _non_finite(value: Any, declared: str) -> str | msgspec.UnsetType:
    """``declared`` (what an infinite value of the field means) / "not_a_number" when ``value`` (or an element of
    it) is infinite / NaN, else UNSET (the reason field is left out)."""
    values = value if isinstance(value, (list, tuple)) else (value,)
    floats = [float(v) for v in values if isinstance(v, (float, np.floating))]
    if any(math.isnan(v) for v in floats):
        return "not_a_number"
    return declared if any(math.isinf(v) for v in floats) else msgspec.UNSET


def copy_doc(doc_type: type[D], obj: Any, **given: Any) -> D:
    """``doc_type`` from the same-named fields of the dataclass ``obj`` (numbers made plain, see :func:`plain`);
    ``<field>_null_reason`` from ``<field>`` and the ``NON_FINITE`` reasons ``obj`` declares; ``given`` fields as
    they are (nested documents, fields ``obj`` does not have)."""
    kw = {}
    for name, field, declared in _fields(doc_type, type(obj)):
        if name in given:
            kw[name] = given[name]
        elif field is None:
            kw[name] = plain(getattr(obj, name))
        else:
            kw[name] = _non_finite(getattr(obj, field), declared)
    return doc_type(**kw)


@cache
def _fields(doc_type: type, obj_type: type) -> tuple[tuple[str, str | None, str], ...]:
    """What :func:`copy_doc` fills each field of ``doc_type`` with, from an ``obj_type``: (name, None, "") for a copied
    field, (name, field, declared reason) for a ``<field>_null_reason`` (worked out once per pair of types)."""
    declared = getattr(obj_type, "NON_FINITE", {})
    return tuple((n, None, "") if not n.endswith("_null_reason") else
                 (n, n.removesuffix("_null_reason"), declared.get(n.removesuffix("_null_reason"), "infinite"))
                 for n in doc_type.__struct_fields__)

"""Kernel names in their several spellings: one demangled signature is written differently by Nsight Compute,
Nsight Systems and Kineto (spaces, ``const T *`` vs ``T const*``, c++filt template literals), and a user names a
kernel by its whole signature, without parameters, or by its function name. Used by name selection
(:mod:`.selection`), ``compare`` matching (:mod:`.compare`) and the timeline/report join (:mod:`.timeline.join`)."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_CONST = re.compile(r"\bconst\s+([A-Za-z_][\w:]*)\s*([*&])")
_CAST = re.compile(r"\(\s*(unsigned\s+)?(long\s+long|long|int|bool)\s*\)\s*(-?\d+)")
_RETURN = re.compile(r"^\s*void\s+")
_SUFFIX = {"int": "", "long": "l", "long long": "ll"}


def _literal(m: re.Match[str]) -> str:
    unsigned, kind, digits = m.group(1), " ".join(m.group(2).split()), m.group(3)
    if kind == "bool":
        return "false" if int(digits) == 0 else "true"
    return digits + ("u" if unsigned else "") + _SUFFIX[kind]


def normalised(name: str) -> str:
    """A demangled name in one spelling (whitespace removed, ``T const*``, c++filt template literals): Kineto,
    Nsight Systems and Nsight Compute spell the same signature differently."""
    return _SPACE.sub("", _CAST.sub(_literal, _CONST.sub(r"\1 const\2", name)))


def strip_trailing(text: str, opener: str = "(", closer: str = ")") -> str:
    """``text`` without the balanced ``opener``...``closer`` group it ends with (a parameter list, template
    arguments), right-stripped; ``text`` itself when it ends with none or the brackets do not balance."""
    text = text.rstrip()
    if not text.endswith(closer):
        return text
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] == closer:
            depth += 1
        elif text[i] == opener:
            depth -= 1
            if depth == 0:
                return text[:i].rstrip() or text
    return text


def without_return_type(text: str) -> str:
    """A demangled name without its return type: what follows its last space outside brackets
    (``void ns::foo<int, (int)4>`` -> ``ns::foo<int, (int)4>``)."""
    depth = 0
    cut = 0
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            cut = i + 1
    return text[cut:]


def signature(name: str) -> str:
    """The normalised name without its parameter list and return type: ``void k<(int)4>(float *)`` -> ``k<4>``."""
    return normalised(_RETURN.sub("", strip_trailing(name)))


def function_name(name: str) -> str:
    """The qualified function name without template arguments: ``void ns::k<4, float>(float *)`` -> ``ns::k``."""
    out, depth = [], 0
    for ch in signature(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)

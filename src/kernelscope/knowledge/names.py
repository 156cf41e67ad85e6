"""Kernel names in their several spellings: one demangled signature is written differently by Nsight Compute,
Nsight Systems and Kineto (spaces, ``const T *`` vs ``T const*``, c++filt template literals), and a user names a
kernel by its whole signature, without parameters, or by its function name. Used by name selection
(:mod:`kernelscope.analysis.selection`), ``compare`` matching (:mod:`kernelscope.analysis.compare`), the
timeline/report join (:mod:`kernelscope.analysis.timeline.join`) and the fusion families (:mod:`.fusion`: a kernel's
own function name). Knowledge of names, no analysis: pure string functions."""

from __future__ import annotations

import re
from typing import Callable, Hashable, Sequence, TypeVar

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


#: Kernel names whose generator numbers or hashes them per build: ``(generator, pattern)``; group 1 of the pattern is
#: the name without the generated suffix. Sources: PyTorch Inductor names its Triton kernels
#: ``triton_<kind>_fused_<ops>_<ordinal>`` and renumbers them when the graph changes (pytorch/pytorch#123126:
#: ``triton_red_fused__to_copy_native_layer_norm_16`` became ``..._17``); Triton before 3.0 appended its argument
#: specialisation (``triton__0d1d2d3de``: ``d`` divisible by 16, ``c`` constant, ``e`` equal to 1); XLA (JAX,
#: TensorFlow) names fusion kernels after the HLO instruction, ``loop_add_fusion_4`` / ``fusion.12`` /
#: ``wrapped_transpose_3`` / ``triton_gemm_dot_5``, numbered per module; JIT caches (CUTLASS and Inductor C++
#: templates, NVRTC-based libraries) append a hexadecimal hash of the source or configuration.
GENERATED_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("inductor", re.compile(r"^(triton_(?:poi|red|per|tem|for|spl|unk)_\w*?)(?:_\d+)+$")),
    ("triton", re.compile(r"^(triton\w*?)_(?=\d)(?=[\dcde]*d)[\dcde]+$")),
    ("xla", re.compile(r"^(\w*fusion|wrapped_\w+?|triton_(?:gemm|softmax)\w*?)(?:[._]\d+)+$")),
    ("hash", re.compile(r"^(\w+?)_(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}$")),
)
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*$")


def generated_stem(name: str) -> tuple[str, str] | None:
    """``(generator, stem)``: the kernel name without the ordinal or hash its generator appends (see
    :data:`GENERATED_NAMES`), e.g. ``triton_red_fused__to_copy_native_layer_norm_16`` -> ``("inductor",
    "triton_red_fused__to_copy_native_layer_norm")``; None for a name no generator numbers (C++ signatures, plain
    names without such a suffix)."""
    if not _IDENTIFIER.match(name):
        return None
    for generator, pattern in GENERATED_NAMES:
        m = pattern.match(name)
        if m:
            return generator, m.group(1)
    return None


T = TypeVar("T")


def generated_pairs(before: Sequence[T], after: Sequence[T], name: Callable[[T], str], shape: Callable[[T], Hashable],
                    median: Callable[[T], float | None]) -> list[tuple[int, int]]:
    """``(i, j)`` index pairs of ``before`` / ``after`` items whose names differ only by a generated suffix
    (:func:`generated_stem`) and whose ``shape`` (grid, block) is equal; within one stem and shape the nearest
    ``median`` durations (seconds) pair first, each item at most once. Items are bucketed by stem and shape first,
    so the cost is that of the buckets, not of every before x after pair."""
    buckets: dict[tuple, tuple[list[int], list[int]]] = {}
    for side, items in ((0, before), (1, after)):
        for i, x in enumerate(items):
            g = generated_stem(name(x))
            if g is not None:
                buckets.setdefault((g[1], shape(x)), ([], []))[side].append(i)
    out = []
    for bs, as_ in buckets.values():
        used_b: set[int] = set()
        used_a: set[int] = set()
        for _, i, j in sorted((abs((median(before[i]) or 0.0) - (median(after[j]) or 0.0)), i, j)
                              for i in bs for j in as_):
            if i not in used_b and j not in used_a:
                used_b.add(i)
                used_a.add(j)
                out.append((i, j))
    return sorted(out)

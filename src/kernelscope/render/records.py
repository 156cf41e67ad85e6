"""Names the tracer or kernelscope gives to records that are not the program's own (``CUDA graph 1 (replay)``,
Kineto's ``Memcpy HtoD (Pageable -> Device)``, ``Memset (Device)``), worded in the reader's language. No I/O."""

from __future__ import annotations

import re

from ..knowledge.text import label, labels

_REPLAY = re.compile(r"CUDA graph (\S+) \(replay\)")
_MEMCPY = re.compile(r"Memcpy (HtoD|DtoH|DtoD|HtoH|PtoP|DtoA|AtoD|HtoA|AtoH|AtoA)(?: \((\w+) -> (\w+)\))?")
_MEMSET = re.compile(r"Memset \((\w+)\)")


def record_name(name: str, lang: str) -> str:
    """A record name the tracer or kernelscope gives (not the program's: ``CUDA graph 1 (replay)``, Kineto's
    ``Memcpy HtoD (Pageable -> Device)``, ``Memset (Device)``) in ``lang`` (``CUDA Graph 1（重放）``, ``HtoD 拷贝（可分页
    → 设备）``); any other name (a kernel's) as it is."""
    if lang != "zh":
        return name

    def mem(kind: str) -> str:
        key = f"rec_mem_{kind.lower()}"
        return label(key, lang) if key in labels().label else kind

    m = _REPLAY.fullmatch(name)
    if m:
        return label("rec_graph_replay", lang).format(graph_id=m.group(1))
    m = _MEMCPY.fullmatch(name)
    if m:
        if m.group(2) is None:
            return label("rec_memcpy_bare", lang).format(kind=m.group(1))
        return label("rec_memcpy", lang).format(kind=m.group(1), src=mem(m.group(2)), dst=mem(m.group(3)))
    m = _MEMSET.fullmatch(name)
    if m:
        return label("rec_memset", lang).format(dst=mem(m.group(1)))
    return name

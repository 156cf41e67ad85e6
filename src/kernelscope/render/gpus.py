"""The table of ``kernelscope gpus``: the GPU catalogue (names usable with ``--gpu``) with its dense datasheet peaks,
in English or Chinese."""

from __future__ import annotations

from typing import Iterable

from rich import box
from rich.table import Table
from rich.text import Text

from ..model import GpuSpec
from .cjk_console import ModelText
from .common import Fmt
from .numbers import peak_figure

#: Columns: (a label key, or a literal header for the units columns, broken over two lines so that the numbers set
#: the width; justification).
_COLUMNS = (
    ("gpus_name", "left"), ("gpus_arch", "left"), ("gpus_cc", "right"), ("gpus_sms", "right"),
    ("DRAM\nGB/s", "right"), ("FP64\nTF", "right"), ("FP32\nTF", "right"), ("FP16\nTC", "right"),
    ("BF16\nTC", "right"), ("FP8\nTC", "right"),
)
#: Widest the architecture column gets before it wraps ("Ada Lovelace" over two lines), so that names keep room.
_ARCH_WIDTH = 9
#: Compute pipes of the TF columns, in column order.
_PIPES = ("fp64", "fp32", "fp16_tensor", "bf16_tensor", "fp8_tensor")


def _tflops(spec: GpuSpec, pipe: str, f: Fmt) -> str:
    """The dense peak of ``pipe`` in TFLOP/s, or the language's "none" (``-`` / ``无``) on a GPU without the pipe."""
    v = spec.peak_flops_per_s.get(pipe)
    return f.label("list_none") if v is None else peak_figure(v / 1e12)


def gpus_table(gpus: Iterable[GpuSpec], lang: str) -> Table:
    """A rich table of catalogue GPUs: name, architecture, compute capability, SMs, DRAM bandwidth (GB/s) and the
    dense peak TFLOP/s of FP64, FP32 and the FP16/BF16/FP8 tensor cores ("-" / "无" where the GPU has none).

    It fits 80 columns: numbers are never cut (their columns do not wrap), names and architectures wrap instead;
    columns are two spaces apart, without vertical rules."""
    f = Fmt(lang)
    t = Table(title=f.label("gpus_title"), box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 0, 0, 1),
              title_justify="left")  # the legend's lines start alike (a centred title indents its second line)
    for header, justify in _COLUMNS:
        text = f.label(header) if header.startswith("gpus_") else header
        if justify == "left":
            t.add_column(text, overflow="fold", max_width=_ARCH_WIDTH if header == "gpus_arch" else None)
        else:
            t.add_column(text, justify="right", no_wrap=True)
    for g in gpus:
        cc = f.nm if g.compute_capability is None else f"{g.compute_capability[0]}.{g.compute_capability[1]}"
        t.add_row(ModelText(g.name), Text(g.architecture or f.nm), cc, str(g.sm_count or f.nm),  # (a name wraps
                  # before its model, never inside it: NVIDIA GeForce / GTX 1070)
                  peak_figure(g.dram_bandwidth_bytes_per_s / 1e9), *(_tflops(g, p, f) for p in _PIPES))
    return t

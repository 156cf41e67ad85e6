"""Terminal tables of ``kernelscope occupancy``, in English or Chinese: one launch configuration (its resources,
the blocks per SM each resource allows, the result, the next step and the what-if tables) or every kernel of a
``.cu`` file (ptxas resource usage, occupancy, spills). No analysis here: it words and lays out what
:mod:`kernelscope.analysis.occupancy` computed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.occupancy import ArchLimits, NextStep, Occupancy
from ..errors import InputError
from ..knowledge.messages import problem_text
from ..knowledge.text import half_up
from .common import Fmt, safe


class PtxasKernelLike(Protocol):
    """What the per-kernel table reads of one kernel (a :class:`kernelscope.ingest.ptxas.PtxasKernel`; renderers
    do not import the readers)."""

    @property
    def name(self) -> str: ...
    @property
    def demangled_name(self) -> str: ...
    @property
    def registers_per_thread(self) -> int: ...
    @property
    def shared_mem_static_bytes(self) -> int: ...
    @property
    def barriers(self) -> int | None: ...
    @property
    def stack_frame_bytes(self) -> int | None: ...
    @property
    def spill_stores_bytes(self) -> int: ...
    @property
    def spill_loads_bytes(self) -> int: ...
    @property
    def spills(self) -> bool: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Launch:
    """One launch configuration, analysed.

    Attributes:
        compute_capability: ``(major, minor)`` as the user gave it.
        limits: the architecture's SM resources.
        occupancy: the launch's occupancy.
        next_steps: :func:`kernelscope.analysis.occupancy.next_step` of it.
        what_if: varied parameter (``threads_per_block``, ``registers_per_thread``, ``shared_mem_per_block_bytes``)
            -> its :func:`kernelscope.analysis.occupancy.what_if` pairs; shown in that order.
    """

    compute_capability: tuple[int, int]
    limits: ArchLimits
    occupancy: Occupancy
    next_steps: Sequence[NextStep]
    what_if: Mapping[str, Sequence[tuple[int, Occupancy]]]


@dataclass(frozen=True)
class KernelOccupancy:
    """One kernel of a ``.cu`` file: ptxas' resource usage and the occupancy it gets, or why it cannot launch.

    Attributes:
        kernel: what ptxas reported.
        occupancy: the occupancy, or None when the kernel cannot launch with these settings (see ``error``).
        next_steps: the next occupancy steps of ``occupancy``.
        error: why it cannot launch.
    """

    kernel: PtxasKernelLike
    occupancy: Occupancy | None
    next_steps: Sequence[NextStep] = ()
    error: InputError | None = None


@dataclass(frozen=True)
class SourceFile:
    """Every kernel of one ``.cu`` file compiled with ptxas, analysed at one block size.

    Attributes:
        path: the ``.cu`` file as given.
        nvcc_arch: the ``-arch`` it was compiled for, e.g. ``"sm_90"``.
        compute_capability: ``(major, minor)``.
        limits: the architecture's SM resources.
        threads_per_block: the block size used for every kernel.
        threads_defaulted: True when the user did not give the block size.
        dynamic_shared_mem_bytes: dynamic shared memory added to every kernel's static shared memory, bytes.
        kernels: one entry per kernel, in ptxas' order.
        ptxas_warnings: ptxas' warnings that cite no kernel (each kernel's own are its ``warnings``).
    """

    path: str
    nvcc_arch: str
    compute_capability: tuple[int, int]
    limits: ArchLimits
    threads_per_block: int
    threads_defaulted: bool
    dynamic_shared_mem_bytes: int
    kernels: Sequence[KernelOccupancy]
    ptxas_warnings: Sequence[str] = ()


def occ_pct(value: float) -> str:
    """A theoretical occupancy (percent) in the one form of the summary, next steps and what-if tables: one
    decimal, half up (``50.0%``, ``6.3%``; never ``50%`` beside a ``50.0%`` cell)."""
    return f"{half_up(value, 1)}%"


def size_text(n: int) -> str:
    """Bytes as ``"48 KiB"`` when a whole number of KiB, else ``"45568 B"``."""
    return f"{n // 1024} KiB" if n % 1024 == 0 and n else f"{n} B"


def _kib_column(sizes: Sequence[int]) -> Callable[[int], str]:
    """The formatter of a column of byte sizes in KiB in one precision, that of the size that needs the most
    decimals to be exact (three at most: 128-byte steps), zeros kept (``31.750 / 40.000 / 53.625 KiB``, never
    ``53.62 KiB`` for 54 912 B beside ``40 KiB``): the rule of a percentage column (:func:`.numbers.percent_column`)."""
    digits = next((d for d in range(4) if all(abs(n / 1024 * 10 ** d - round(n / 1024 * 10 ** d)) < 1e-9
                                              for n in sizes)), 3)
    return lambda n: f"{half_up(n / 1024, digits)} KiB"


#: Launch parameter -> (label key, value format) of a next-step or what-if entry.
_PARAMS: dict[str, tuple[str, Callable[[int], str]]] = {
    "registers_per_thread": ("occ_regs_per_thread", str),
    "shared_mem_per_block_bytes": ("occ_smem_per_block", size_text),
    "threads_per_block": ("occ_threads_per_block", str),
    "shared_mem_config_bytes": ("occ_param_carveout", size_text),
}
#: Varied parameter -> (title key, first-column key) of a what-if table.
_WHAT_IF: dict[str, tuple[str, str]] = {
    "threads_per_block": ("occ_what_if_threads", "occ_col_threads_per_block"),
    "registers_per_thread": ("occ_what_if_regs", "occ_col_regs_per_thread"),
    "shared_mem_per_block_bytes": ("occ_what_if_smem", "occ_col_smem_per_block"),
}


def _limiters(o: Occupancy, f: Fmt, short: bool = False) -> str:
    words = [f.label(f"occ_{'short' if short else 'limit'}_{name}") for name in o.limiters]
    if short:
        text = "+".join(words)
    else:  # "registers + shared memory" / "寄存器和共享内存"
        text = f.together(words)
    return f.label("occ_cannot_launch", why=text) if o.active_blocks_per_sm == 0 else text


def size_pair(before: int, after: int, f: Fmt) -> tuple[str, str]:
    """Two sizes of one step in one unit: ``48 KiB``, ``40 KiB`` when both are whole KiB, else KiB with the bytes of
    the one that is not (``48 KiB`` -> ``44.5 KiB (45568 B)``, never ``48 KiB -> 45568 B``)."""
    if before % 1024 == 0 and after % 1024 == 0:
        return size_text(before), size_text(after)

    def kib(n: int) -> str:
        text = f"{n / 1024:.2f}".rstrip("0").rstrip(".")
        return f"{text} KiB" if n % 1024 == 0 else f"{text} KiB" + f.paren(f"{n} B")
    return kib(before), kib(after)


def _step_text(step: NextStep, f: Fmt) -> str:
    key, fmt = _PARAMS[step.parameter]
    r = step.result
    current, proposed = (size_pair(step.current, step.proposed, f) if fmt is size_text else
                         (fmt(step.current), fmt(step.proposed)))
    return f.label("occ_step", param=f.label(key), current=current, proposed=proposed,
                   warps=r.active_warps_per_sm, pct=occ_pct(r.occupancy_pct))


def _where(cc: tuple[int, int], limits: ArchLimits, f: Fmt) -> str:
    return f.label("occ_where", arch=limits.architecture, cc=f"{cc[0]}.{cc[1]}")


def _launch_table(launch: Launch, f: Fmt) -> Table:
    o = launch.occupancy
    t = Table(title=f.label("occ_launch_title", where=_where(launch.compute_capability, launch.limits, f)),
              title_justify="left", show_header=False)
    t.add_column(justify="left")
    t.add_column(justify="left")
    t.add_row(f.label("occ_threads_per_block"), f.label("occ_threads_value", n=o.threads_per_block, warps=o.warps_per_block))
    t.add_row(f.label("occ_regs_per_thread"), f.label("occ_regs_value", n=o.registers_per_thread,
              allocated=o.registers_per_thread_allocated, per_block=o.registers_per_block_allocated))
    t.add_row(f.label("occ_smem_per_block"), f.label(
        "occ_smem_value", size=size_text(o.shared_mem_per_block_bytes),
        allocated=size_text(o.shared_mem_per_block_allocated_bytes),
        reserved=size_text(launch.limits.shared_mem_reserved_per_block_bytes)))
    how = f.label("occ_carveout_given" if o.shared_mem_config_requested_bytes is not None else "occ_carveout_chosen")
    t.add_row(f.label("occ_carveout"), f.label("occ_carveout_value", size=size_text(o.shared_mem_config_bytes), how=how))
    if "barriers" in o.block_limits:
        t.add_row(f.label("occ_barriers_per_block"), str(o.barriers_per_block))
    return t


def _limits_table(o: Occupancy, f: Fmt) -> Table:
    t = Table(title=f.label("occ_limits_title"), title_justify="left")
    t.add_column(f.label("occ_resource"), justify="left")
    t.add_column(f.label("occ_blocks_per_sm"), justify="right")
    t.add_column(f.label("occ_remark"), justify="left")
    for key, value in o.block_limits.items():
        t.add_row(f.label(f"occ_limit_{key}"), str(value), f.label("occ_limiter") if key in o.limiters else "")
    return t


def _result_line(o: Occupancy, f: Fmt, limits: ArchLimits | None = None) -> Text:
    """"Active: N blocks/SM = ... limited by ..."; a launch that cannot run says why instead, with the numbers
    ("Cannot launch: a block needs 131072 registers, more than the 65536 of an SM"), never "0 blocks/SM ... 0%"."""
    if o.active_blocks_per_sm == 0 and limits is not None:
        need = {"registers": (o.registers_per_block_allocated, limits.registers_per_sm),
                "shared_mem": (size_text(o.shared_mem_per_block_allocated_bytes), size_text(limits.shared_mem_per_sm_bytes)),
                "warps": (o.warps_per_block, limits.max_warps_per_sm)}
        why = [f.label(f"occ_over_{name}", need=need[name][0], have=need[name][1]) for name in o.limiters if name in need]
        if why:
            return Text(f.label("occ_cannot_run", why=f.semi.join(why)))
    return Text(f.label("occ_active", blocks=o.active_blocks_per_sm, warps=o.active_warps_per_sm,
                        max_warps=o.max_warps_per_sm, pct=occ_pct(o.occupancy_pct), limiters=_limiters(o, f)))


def _next_step_line(steps: Sequence[str], f: Fmt, none: str | None) -> Text:
    return Text(f.label("occ_next_step", steps=f.label("occ_separator").join(steps) if steps else none))


def _groups(results: Sequence[tuple[int, Occupancy]], first_value: int) -> list[tuple[int, int, list[Occupancy]]]:
    """Consecutive values with the same blocks per SM and limiters: (first value, last value, their results)."""
    groups: list[tuple[int, int, list[Occupancy]]] = []
    lo = first_value
    for value, r in results:
        last = groups[-1][2][-1] if groups else None
        if last is not None and (last.active_blocks_per_sm, last.limiters) == (r.active_blocks_per_sm, r.limiters):
            groups[-1] = (groups[-1][0], value, [*groups[-1][2], r])
        else:
            groups.append((lo, value, [r]))
        lo = value + 1
    return groups


def _span(values: Sequence[int], f: Fmt) -> str:
    """``3-24`` / ``3～24`` (a range of numbers: a wave dash in Chinese)."""
    a, b = min(values), max(values)
    return str(a) if a == b else (f"{a}～{b}" if f.zh else f"{a}-{b}")


def _what_if_table(o: Occupancy, vary: str, results: Sequence[tuple[int, Occupancy]], f: Fmt) -> Table:
    """One what-if table: consecutive values with the same blocks per SM and limiters share a row."""
    title, unit = _WHAT_IF[vary]
    fmt = _PARAMS[vary][1]
    t = Table(title=f.label(title), title_justify="left")
    for key, justify in ((unit, "left"), ("occ_blocks_per_sm", "right"), ("occ_warps_per_sm", "right"),
                         ("occ_occupancy", "right"), ("occ_limited_by", "left"), ("occ_remark", "left")):
        t.add_column(f.label(key), justify=justify, max_width=12 if key == "occ_limited_by" else None)  # it wraps
    current = getattr(o, vary)  # ("registers + / block slots") so that the note (<- now) keeps its column
    threads = vary == "threads_per_block"
    groups = list(_groups(results, 1 if threads else 0))
    if fmt is size_text and any(last % 1024 for _, last, _ in groups):  # one unit down the column: KiB
        fmt = _kib_column([last for _, last, _ in groups])
    for first, last, rs in groups:
        if threads:
            label = fmt(last) if first == last else f"{fmt(first)}{'～' if f.zh else ' - '}{fmt(last)}"
        else:
            label = f.label("occ_up_to", value=fmt(last))
        pcts = sorted({half_up(r.occupancy_pct, 1) for r in rs}, key=float)  # 6.25 -> 6.3, as 18.75 -> 18.8
        pct = f"{pcts[0]}%" if len(pcts) == 1 else (f"{pcts[0]}%～{pcts[-1]}%" if f.zh else f"{pcts[0]}-{pcts[-1]}%")
        t.add_row(label, str(rs[0].active_blocks_per_sm), _span([r.active_warps_per_sm for r in rs], f), pct,
                  _limiters(rs[0], f),
                  f.label("occ_now") if first <= current <= last else "")
    return t


def launch_renderables(launch: Launch, lang: str) -> list[RenderableType]:
    """rich renderables of one launch configuration, each to be printed on its own: the launch, the blocks per SM
    each resource allows, the result, the next step, then one what-if table per varied parameter."""
    f = Fmt(lang)
    o = launch.occupancy
    steps = [_step_text(s, f) for s in launch.next_steps]
    return [
        _launch_table(launch, f), _limits_table(o, f), _result_line(o, f, launch.limits),
        _next_step_line(steps, f, f.label("occ_next_step_none")),
        *(_what_if_table(o, vary, results, f) for vary, results in launch.what_if.items()),
    ]


def _kernel_name(k: PtxasKernelLike) -> str:
    return safe(k.demangled_name.split("(")[0] or k.name)


def _kernels_table(src: SourceFile, f: Fmt) -> Table:
    t = Table(title=f.label("occ_per_kernel_title"), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              collapse_padding=True, show_edge=False)
    barriers_apply = src.limits.block_barriers_per_sm is not None
    cols = ("kernel", "regs", "smem", *(("bar",) if barriers_apply else ()), "spills", "blocks", "warps", "occ",
            "limited_by")
    longest = max((len(_kernel_name(k.kernel)) for k in src.kernels), default=0)
    for col in cols:
        t.add_column(f.label(f"occ_col_{col}"), justify="left" if col in ("kernel", "limited_by") else "right",
                     overflow="fold" if col == "kernel" else None,
                     min_width=min(longest, 40) if col == "kernel" else None)
    for row in src.kernels:
        k, o = row.kernel, row.occupancy
        if o is None:
            problem = problem_text(row.error, f.lang) if row.error is not None else ""
            cells = ("-", "-", "-", f.label("occ_cannot_launch_cell", problem=problem))
        else:
            cells = (str(o.active_blocks_per_sm), str(o.active_warps_per_sm), occ_pct(o.occupancy_pct),
                     _limiters(o, f, short=True))
        bar = (("-" if k.barriers is None else str(k.barriers)),) if barriers_apply else ()
        spills = Text(f.label("occ_spills_cell" if k.spills else "occ_spills_none"),  # zh 是/否, never 0 beside 溢出
                      style="bold red" if k.spills else "")
        t.add_row(Text(_kernel_name(k)), str(k.registers_per_thread), size_text(k.shared_mem_static_bytes), *bar,
                  spills, *cells)
    return t


def _header(src: SourceFile, f: Fmt) -> Text:
    text = f.label("occ_compiled", path=safe(src.path), arch=src.nvcc_arch,
                   where=_where(src.compute_capability, src.limits, f), threads=src.threads_per_block,
                   default=f.label("occ_threads_default") if src.threads_defaulted else "")
    if src.dynamic_shared_mem_bytes:
        text += f.label("occ_dynamic_smem", size=size_text(src.dynamic_shared_mem_bytes))
    return Text(text)


def source_renderables(src: SourceFile, lang: str) -> list[RenderableType]:
    """rich renderables of every kernel of a ``.cu`` file, each to be printed on its own: a header line, the
    per-kernel table, a SPILLS line per kernel that spills registers, a line per ptxas warning (with the kernel it
    cites), and the next steps (when there are any)."""
    f = Fmt(lang)
    out: list[RenderableType] = [_header(src, f), _kernels_table(src, f)]
    for row in src.kernels:
        k = row.kernel
        if k.spills:
            out.append(Text(f.label("occ_spill_line", kernel=safe(k.demangled_name.split("(")[0]),
                                    stores=k.spill_stores_bytes, loads=k.spill_loads_bytes,
                                    stack=k.stack_frame_bytes or 0)))
    for row in src.kernels:
        out += [Text(f.label("occ_ptxas_warning_kernel", kernel=_kernel_name(row.kernel), text=safe(w)))
                for w in row.kernel.warnings]
    out += [Text(f.label("occ_ptxas_warning", text=safe(w))) for w in src.ptxas_warnings]
    for row in src.kernels:  # __launch_bounds__' minimum blocks per SM, where this launch falls short of it
        least, o = getattr(row.kernel, "min_blocks_per_sm", None), row.occupancy
        if least is not None and o is not None and o.active_blocks_per_sm < least:
            out.append(Text(f.label("occ_min_blocks_unmet", kernel=_kernel_name(row.kernel), min=least,
                                    got=o.active_blocks_per_sm, by=_limiters(o, f))))
    notes: list[str] = []
    for row in src.kernels:
        name = _kernel_name(row.kernel)
        texts = [f.label("occ_cannot_launch_cell", problem=problem_text(row.error, f.lang))] if row.error is not None else [_step_text(s, f) for s in row.next_steps]
        notes += [f.label("occ_kernel_note", kernel=name, text=t) for t in texts]
    if notes:
        out.append(_next_step_line(notes, f, None))
    return out

"""Reader for ptxas resource usage: compile a ``.cu`` file with nvcc and read each kernel's registers, static
shared memory, barriers, stack frame and spills from ptxas' verbose report.

``compile_resource_usage("k.cu", "sm_90")`` runs ``nvcc -arch=sm_90 -cubin -Xptxas -v -o <tmp>/k.cubin k.cu`` in
a temporary folder and parses what ptxas prints for every entry function (CUDA 11-13 wording)::

    ptxas info    : Compiling entry function '_Z5lightPf' for 'sm_90'
    ptxas info    : Function properties for _Z5lightPf
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 8 registers, used 0 barriers, 40960 bytes smem, 360 bytes cmem[0]

Older ptxas leaves out "used N barriers"; the barrier count is then None. Every ``ptxas warning :`` line is kept:
with the kernel whose mangled name it cites (``Value of threads per SM for entry _Z17register_spillingPKfPfi is out
of range. .minnctapersm will be ignored``: that kernel's ``__launch_bounds__`` minimum is dropped), else with the
file. Mangled names are demangled with
``cu++filt`` or ``c++filt`` when one is on PATH. No analysis happens here.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError
from .files import check_file

#: Seconds nvcc may take for one file before kernelscope gives up.
NVCC_TIMEOUT_S = 300


@dataclass(frozen=True)
class PtxasKernel:
    """One entry function as ptxas reports it.

    Attributes:
        name: the (mangled) symbol, e.g. ``"_Z5lightPf"``.
        demangled_name: demangled signature, or ``name`` when no demangler is available.
        arch: the target ptxas compiled for, e.g. ``"sm_90"``.
        registers_per_thread: registers per thread ("Used N registers").
        shared_mem_static_bytes: static shared memory per block, bytes ("N bytes smem"; 0 when not printed).
        barriers: named barriers the kernel uses ("used N barriers"), or None when ptxas does not say.
        stack_frame_bytes: per-thread stack frame, bytes, or None when not printed.
        spill_stores_bytes: bytes of register spill stores per thread (0 when not printed).
        spill_loads_bytes: bytes of register spill loads per thread (0 when not printed).
        warnings: ptxas' warnings that cite this kernel, as ptxas printed them (without "ptxas warning :").
        max_threads_per_block: the kernel's ``__launch_bounds__`` maximum threads per block (the PTX ``.maxntid``,
            x*y*z), or None when it sets none: a larger block cannot launch.
        min_blocks_per_sm: ``__launch_bounds__``' minimum blocks per SM (PTX ``.minnctapersm``), or None.
    """

    name: str
    demangled_name: str
    arch: str
    registers_per_thread: int
    shared_mem_static_bytes: int = 0
    barriers: int | None = None
    stack_frame_bytes: int | None = None
    spill_stores_bytes: int = 0
    spill_loads_bytes: int = 0
    warnings: tuple[str, ...] = ()
    max_threads_per_block: int | None = None
    min_blocks_per_sm: int | None = None

    @property
    def spills(self) -> bool:
        """True when ptxas spilled registers to local memory (spill stores or loads above 0)."""
        return self.spill_stores_bytes > 0 or self.spill_loads_bytes > 0


@dataclass(frozen=True)
class PtxasReport:
    """ptxas' resource usage for every kernel of one source file.

    Attributes:
        source: the ``.cu`` file as given.
        arch: the ``-arch`` value nvcc was run with, e.g. ``"sm_90"``.
        command: the nvcc command line that was run.
        kernels: one entry per kernel, in ptxas' order.
        warnings: ptxas' warnings that cite no kernel (as printed, without "ptxas warning :").
    """

    source: str
    arch: str
    command: tuple[str, ...]
    kernels: tuple[PtxasKernel, ...]
    warnings: tuple[str, ...] = ()


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")
_WARNING = re.compile(r"ptxas\s+warning\s*:\s*(.+)")


def ptxas_warnings(text: str, kernels: tuple[PtxasKernel, ...]) -> tuple[tuple[PtxasKernel, ...], tuple[str, ...]]:
    """``kernels`` with the ``ptxas warning`` lines of ``text`` that cite each (its mangled name as a whole word),
    and the warnings that cite none (the file's)."""
    found = [m.group(1).strip() for m in map(_WARNING.search, text.splitlines()) if m]
    cited: dict[str, list[str]] = {k.name: [] for k in kernels}
    rest: list[str] = []
    for w in dict.fromkeys(found):
        names = [n for n in cited if re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", w)]
        for n in names:
            cited[n].append(w)
        if not names:
            rest.append(w)
    return tuple(replace(k, warnings=tuple(cited[k.name])) for k in kernels), tuple(rest)


_PTX_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)\s*([^{]*)\{", re.S)
_MAXNTID = re.compile(r"\.maxntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?")
_MINNCTA = re.compile(r"\.minnctapersm\s+(\d+)")


def parse_ptx_bounds(text: str) -> dict[str, tuple[int | None, int | None]]:
    """Entry name -> (max threads per block, min blocks per SM) from the performance directives of PTX ``text``
    (``.maxntid x, y, z`` and ``.minnctapersm n``, what ``__launch_bounds__`` compiles to), for the entries that set
    either."""
    out: dict[str, tuple[int | None, int | None]] = {}
    for m in _PTX_ENTRY.finditer(text):
        directives = m.group(3)
        mx, mn = _MAXNTID.search(directives), _MINNCTA.search(directives)
        if mx is None and mn is None:
            continue
        threads = None if mx is None else math.prod(int(g) for g in mx.groups() if g is not None)
        out[m.group(1)] = (threads, None if mn is None else int(mn.group(1)))
    return out


def parse_ptxas(text: str, source: str = "ptxas output") -> tuple[PtxasKernel, ...]:
    """Every entry function in ptxas' ``-v`` report ``text``, in order (names left mangled).

    A "Function properties" block belongs to the entry function of the same name; blocks for device
    functions (no "Compiling entry function" line) are ignored.

    Raises:
        InputError: an entry function without its "Used N registers" line (truncated or unknown output).
    """
    kernels: list[PtxasKernel] = []
    frames: dict[str, tuple[int, int, int]] = {}
    current: dict | None = None
    props_for: str | None = None

    def close() -> None:
        if current is None:
            return
        if "registers_per_thread" not in current:
            raise InputError(source, key="ptxas_no_registers", values={"current": current['name']})
        kernels.append(PtxasKernel(demangled_name=current["name"], **current))

    for line in text.splitlines():
        if m := _ENTRY.search(line):
            close()
            current = {"name": m.group(1), "arch": m.group(2)}
            props_for = None
            continue
        if m := _PROPS.search(line):
            props_for = m.group(1)
            continue
        if (m := _FRAME.search(line)) and props_for is not None:
            frames[props_for] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            continue
        if (m := _USED.search(line)) and current is not None and "registers_per_thread" not in current:
            current["registers_per_thread"] = int(m.group(1))
            if b := _BARRIERS.search(line):
                current["barriers"] = int(b.group(1))
            if s := _SMEM.search(line):
                current["shared_mem_static_bytes"] = int(s.group(1))
            frame = frames.get(current["name"])
            if frame is not None:
                current["stack_frame_bytes"], current["spill_stores_bytes"], current["spill_loads_bytes"] = frame
    close()
    return tuple(kernels)


def _demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if tool is None or not names:
        return {}
    try:
        out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return {}
    lines = out.stdout.splitlines()
    return dict(zip(names, lines)) if out.returncode == 0 and len(lines) == len(names) else {}


def compile_resource_usage(
    cu_file: str | os.PathLike, arch: str, extra_args: tuple[str, ...] = (), nvcc: str | None = None
) -> PtxasReport:
    """Compile ``cu_file`` for ``arch`` (e.g. ``"sm_90"``) to a cubin in a temporary folder and read ptxas'
    resource usage of every kernel.

    Args:
        cu_file: the CUDA source.
        arch: an nvcc ``-arch`` value, ``sm_XY`` or ``sm_XYa``.
        extra_args: more nvcc arguments (e.g. ``("-maxrregcount=32",)``, include paths).
        nvcc: the nvcc executable; None looks it up on PATH.

    Raises:
        InputError: the file is missing, nvcc is not installed (one line saying so), nvcc fails (its first
            error line) or ptxas reports no kernel.
    """
    src = check_file(cu_file, "a CUDA source file (.cu)")
    exe = nvcc or shutil.which("nvcc")
    if exe is None:
        raise InputError("nvcc", "not found on PATH; install the CUDA Toolkit (or add its bin/ to PATH) to use --cu",
                         key="nvcc_not_found")
    with tempfile.TemporaryDirectory(prefix="kernelscope-ptxas-") as tmp:
        # -keep: the PTX stays beside the cubin, for the __launch_bounds__ directives ptxas -v does not print
        cmd = (exe, f"-arch={arch}", "-cubin", "-Xptxas", "-v", "-keep", "-keep-dir", tmp, *extra_args,
               "-o", str(Path(tmp) / (src.stem + ".cubin")), str(src.resolve()))
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=NVCC_TIMEOUT_S, cwd=tmp)
        except FileNotFoundError:
            raise InputError("nvcc", key="nvcc_cannot_run", values={"exe": exe}) from None
        except subprocess.TimeoutExpired:
            raise InputError(str(cu_file), key="nvcc_timeout", values={"nvcc_timeout_s": NVCC_TIMEOUT_S}) from None
        bounds: dict[str, tuple[int | None, int | None]] = {}
        for ptx in sorted(Path(tmp).glob("*.ptx")):
            bounds.update(parse_ptx_bounds(ptx.read_text(errors="replace")))
    output = run.stdout + "\n" + run.stderr
    if run.returncode != 0:
        lines = [l.strip() for l in output.splitlines() if l.strip()]
        errors = [l for l in lines if "error" in l.lower()] or lines
        raise InputError(str(cu_file), key="nvcc_failed",
            values={"returncode": run.returncode, "errors": errors[0] if errors else 'no message'})
    kernels = parse_ptxas(output, str(cu_file))
    if not kernels:
        raise InputError(str(cu_file), key="ptxas_no_kernel")
    kernels, warnings = ptxas_warnings(output, kernels)
    names = _demangle([k.name for k in kernels])
    kernels = tuple(
        PtxasKernel(**{**k.__dict__, "demangled_name": names.get(k.name, k.name),
                       "max_threads_per_block": bounds.get(k.name, (None, None))[0],
                       "min_blocks_per_sm": bounds.get(k.name, (None, None))[1]}) for k in kernels
    )
    return PtxasReport(source=str(cu_file), arch=arch, command=cmd, kernels=kernels, warnings=warnings)

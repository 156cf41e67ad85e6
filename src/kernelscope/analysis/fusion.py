"""What fusing a chain of memory-bound kernels would buy (the seed lesson 000, Q1): ``Y = LayerNorm(GeLU(X) +
Residual)`` runs as three kernels, each reading its inputs from DRAM and writing its output back, so the two
intermediates make two extra round trips; fused, the inputs are read once and the output written once.

The estimate, for one chain (the same arithmetic for a timeline and for a kernel report):

* ``unfused_bytes`` = what the chain's kernels read and write; ``fused_bytes`` = the same minus each
  intermediate's write and its read back by the next kernel (inputs read once, the final output written once,
  intermediates never leave the chip).
* The fused time is a PREDICTION at the bandwidth the chain's kernels actually reached:
  ``fused_s = fused_bytes / (unfused_bytes / unfused_s)``; at the GPU's DRAM peak it is the BOUND (the fused kernel
  cannot be faster than ``fused_bytes / peak``, so the saving cannot exceed ``unfused_s - that``).
* ``saving_s = unfused_s - fused_s`` per occurrence; the program's gain is Amdahl's
  ``1 / (1 - occurrences x saving_s / program_s)``.

What it cannot know (said in ``caveats``): an intermediate used elsewhere (it must then still be written), a
normalisation or reduction that needs a second pass over its input (a row too large for the chip), and whether the
GPU time saved shortens the wall (a host-bound program gains less).

Bytes come from the operators' input shapes (a timeline with ``record_shapes``: :mod:`.timeline.fusion`), from the
DRAM counters of a kernel report (``dram__bytes_read.sum`` / ``dram__bytes_write.sum``: an intermediate is what one
kernel writes and the next reads back, the smaller of the two), or, without either, from the chain assumed: each
kernel reads the previous one's output and writes one tensor of that size, so ``fused / unfused = 2 / (2 k)`` for
``k`` kernels (``bytes_basis`` "assumed_chain"; no absolute bytes, so no bound at the DRAM peak).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..errors import InputError
from ..notes import Listed
from ..knowledge.fusion import fusion_family
from ..knowledge.libraries import family_of

if TYPE_CHECKING:  # (annotations only: the timeline path does not import the kernel diagnosis)
    from .diagnosis import KernelDiagnosis

#: Fusion routes, by what the chain is: PyTorch eager operators, a GEMM followed by elementwise work, other kernels.
ROUTES = ("torch_compile", "epilogue", "fused_kernel")
#: Where the bytes come from.
BYTES_BASES = ("shapes", "dram_counters", "assumed_chain")


@dataclass(frozen=True)
class FusionKernel:
    """One kernel of a chain, per occurrence.

    Attributes:
        name: the kernel name.
        operator: the host operator that launched it (Kineto), or None.
        family: its family in ``data/fusion.toml`` ("elementwise", "activation", "normalisation", "reduction",
            "copy"; "gemm" for the head of an epilogue chain), or None when the user named it (a report).
        time_s: its mean duration per occurrence, seconds.
        read_bytes, write_bytes: bytes it reads and writes per occurrence, None when not known.
    """

    name: str
    operator: str | None
    family: str | None
    time_s: float
    read_bytes: float | None = None
    write_bytes: float | None = None


@dataclass(frozen=True)
class FusionEstimate:
    """What fusing one chain would buy (see the module docstring for the formulas).

    Attributes:
        kernels: the chain's memory-bound kernels, in launch order (what the fusion removes and replaces).
        head: for an epilogue chain, the GEMM whose output the chain consumes (it stays; its epilogue does the
            chain's work), else None.
        occurrences: how many times the chain ran; ``steps`` the profiler steps the trace holds (None: not
            recorded), ``per_step`` = occurrences / steps.
        unfused_s: the chain's kernel time per occurrence, seconds (summed durations).
        unfused_bytes, fused_bytes: DRAM bytes per occurrence before and after (None: not known, the
            "assumed_chain" basis); ``bytes_fraction`` = fused / unfused (assumed 1/k on that basis).
        bytes_basis: one of :data:`BYTES_BASES`.
        achieved_bytes_per_s: unfused_bytes / unfused_s, None without bytes.
        peak_bytes_per_s: the GPU's DRAM peak (catalogue), None when the GPU is not known.
        fused_s: PREDICTION of the fused kernel's time per occurrence, seconds (at the achieved bandwidth); None on
            the assumed-chain basis: without bytes the fused time is not known.
        fused_floor_s: the least the fused time can be from what is known, seconds: ``fused_s`` when predicted,
            else ``unfused_s / k`` for a chain of ``k`` kernels assumed to pass one tensor along (0 in an
            epilogue, whose chain's own traffic is assumed gone); the upper bound on the speedup and saving is of it.
        fused_bound_s: the fused time at the DRAM peak (the fastest it can be), seconds; None without bytes or peak.
        saving_s: unfused_s - fused_floor_s (a prediction, or an upper bound on the assumed basis);
            ``saving_bound_s`` unfused_s - fused_bound_s (upper bound).
        speedup: unfused_s / fused_s, the chain's own (x); for an epilogue chain, the GEMM's and the chain's time
            before over after, ``(head + unfused_s) / (head + fused_s)`` (the chain's work moves into the GEMM).
        total_saving_s: occurrences x saving_s.
        program_s: the time the program gain is of (timeline: the wall; report: the summed kernel time), or None.
        program_fraction: total_saving_s / program_s; ``program_speedup`` 1 / (1 - that) (Amdahl, prediction).
        route: one of :data:`ROUTES`.
        caveats: what the estimate cannot know, as note keys (``fu_caveat_*`` in ``labels.toml``).
        device, stream, rank: where the chain ran (None: not recorded).
    """

    kernels: tuple[FusionKernel, ...]
    head: FusionKernel | None
    occurrences: int
    steps: int | None
    per_step: float | None
    unfused_s: float
    unfused_bytes: float | None
    fused_bytes: float | None
    bytes_fraction: float
    bytes_basis: str
    achieved_bytes_per_s: float | None
    peak_bytes_per_s: float | None
    fused_s: float | None
    fused_floor_s: float
    fused_bound_s: float | None
    saving_s: float
    saving_bound_s: float | None
    speedup: float
    total_saving_s: float
    program_s: float | None
    program_fraction: float | None
    program_speedup: float | None
    route: str
    caveats: tuple[str, ...]
    device: int | None = None
    stream: int | None = None
    rank: int | None = None

    @property
    def estimate_kind(self) -> str:
        """``"prediction"`` when the bytes are known and the chain is one (operator shapes in a timeline);
        ``"upper_bound"`` on the assumed-chain basis (every intermediate assumed consumed by the next kernel only,
        and in an epilogue all of the chain's own traffic gone) and for a kernel report (``"dram_counters"``: a
        report records no data flow, so each kernel is assumed to read what the previous one wrote): the best case
        fusing can reach."""
        return "prediction" if self.bytes_basis == "shapes" else "upper_bound"


def estimate(kernels: Sequence[FusionKernel], fused_bytes: float | None, *, head: FusionKernel | None = None,
             occurrences: int = 1, steps: int | None = None, basis: str = "shapes",
             peak_bytes_per_s: float | None = None, program_s: float | None = None, route: str = "fused_kernel",
             caveats: tuple[str, ...] = (), device: int | None = None, stream: int | None = None,
             rank: int | None = None) -> FusionEstimate:
    """The estimate of one chain from its kernels (per occurrence) and its fused bytes (None: the "assumed_chain"
    basis, ``fused / unfused = 1 / len(kernels)``).

    Args:
        kernels: the chain's memory-bound kernels with their time and (except on the assumed basis) bytes.
        fused_bytes: DRAM bytes of the fused kernel per occurrence, or None.
        peak_bytes_per_s: the GPU's DRAM peak, bytes/s, or None.
        program_s: the time the program gain is of, seconds, or None.

    Raises:
        ValueError: no kernel, a basis not in :data:`BYTES_BASES`, a route not in :data:`ROUTES`.
    """
    if not kernels:
        raise ValueError("a fusion chain needs at least one kernel")
    if basis not in BYTES_BASES or route not in ROUTES:
        raise ValueError(f"unknown basis {basis!r} or route {route!r}")
    unfused_s = sum(k.time_s for k in kernels)
    unfused_bytes = None
    if fused_bytes is not None and all(k.read_bytes is not None and k.write_bytes is not None for k in kernels):
        unfused_bytes = float(sum(k.read_bytes + k.write_bytes for k in kernels))  # type: ignore[operator]
    if unfused_bytes is None or unfused_bytes <= 0 or unfused_s <= 0:
        basis, fused_bytes, unfused_bytes = "assumed_chain", None, None
        fraction = 1.0 / len(kernels) if head is None else 0.0
    else:
        fraction = max(0.0, float(fused_bytes)) / unfused_bytes  # type: ignore[arg-type]
    floor_s = unfused_s * fraction
    achieved = unfused_bytes / unfused_s if unfused_bytes is not None else None
    bound_s = fused_bytes / peak_bytes_per_s if fused_bytes is not None and peak_bytes_per_s else None
    saving = unfused_s - floor_s
    total = saving * occurrences
    frac = total / program_s if program_s else None
    return FusionEstimate(
        kernels=tuple(kernels), head=head, occurrences=occurrences, steps=steps,
        per_step=occurrences / steps if steps else None, unfused_s=unfused_s, unfused_bytes=unfused_bytes,
        fused_bytes=None if fused_bytes is None else float(fused_bytes), bytes_fraction=fraction, bytes_basis=basis,
        achieved_bytes_per_s=achieved, peak_bytes_per_s=peak_bytes_per_s,
        fused_s=None if basis == "assumed_chain" else floor_s, fused_floor_s=floor_s, fused_bound_s=bound_s,
        saving_s=saving, saving_bound_s=None if bound_s is None else unfused_s - bound_s,
        speedup=_speedup(unfused_s, floor_s, head), total_saving_s=total, program_s=program_s,
        program_fraction=frac, program_speedup=None if frac is None else (1.0 / (1.0 - frac) if frac < 1 else float("inf")),
        route=route, caveats=_caveats(kernels, basis, caveats, head), device=device, stream=stream, rank=rank)


def _speedup(unfused_s: float, fused_s: float, head: FusionKernel | None) -> float:
    before, after = (unfused_s, fused_s) if head is None else (head.time_s + unfused_s, head.time_s + fused_s)
    return before / after if after > 0 else float("inf")


def _caveats(kernels: Sequence[FusionKernel], basis: str, extra: tuple[str, ...],
             head: FusionKernel | None = None) -> tuple[str, ...]:
    out = ["intermediate_elsewhere"]
    if any(k.family in ("normalisation", "reduction") for k in kernels[1:]) or (
            kernels and kernels[0].family == "reduction"):
        out.append("second_pass")
    if basis == "assumed_chain":
        out.append("assumed_chain" if head is None else "epilogue_assumed")
    return tuple(dict.fromkeys([*out, *extra]))


#: Host operators of PyTorch's eager mode (ATen): a kernel one of them launched is an eager operator's kernel.
EAGER_OPERATOR = re.compile(r"^aten::")


def is_eager_pytorch(name: str, operator: str | None = None) -> bool:
    """Whether a kernel is one of PyTorch's eager operators: its name is an ATen kernel's (``at::native::...``,
    the ``pytorch`` family of ``data/libraries.toml``), or the host operator that launched it is ``aten::...``.
    A Triton or hand-written CUDA kernel is not, even in a PyTorch program."""
    if operator is not None and EAGER_OPERATOR.search(operator):
        return True
    f = family_of(name)
    return f is not None and f.id == "pytorch"


def route_of(names: Sequence[str], head_is_gemm: bool, operators: Sequence[str | None] | None = None) -> str:
    """The fusion route whose preconditions hold: a CUTLASS / cuBLASLt epilogue after a GEMM; ``torch.compile``
    only when EVERY kernel of the chain is a PyTorch eager operator's (:func:`is_eager_pytorch`: Inductor fuses
    eager operators, not a hand-written kernel); else a hand-written fused kernel."""
    if head_is_gemm:
        return "epilogue"
    ops = list(operators) if operators is not None else [None] * len(names)
    if names and all(is_eager_pytorch(n, o) for n, o in zip(names, ops)):
        return "torch_compile"
    return "fused_kernel"


# ------------------------------------------------------------------------------------------------ kernel reports
def _bytes_of(d: KernelDiagnosis) -> tuple[float, float] | None:
    k = d.kernel
    if k.dram_bytes_read is None or k.dram_bytes_write is None:
        return None
    return float(k.dram_bytes_read), float(k.dram_bytes_write)


def _memory_bound(d: KernelDiagnosis) -> bool:
    """Whether a launch can be a link of a report's chain: memory-bound (by its roofline, else its family or its
    Speed-of-Light) and not of a family no fusion reaches (a library's layout transform)."""
    fam = fusion_family(d.kernel.name)
    if fam is not None and not fam.fusible:
        return False
    if d.roofline is not None and d.roofline.bound is not None:
        return d.roofline.bound == "memory-bound"
    return bool(fam is not None and fam.memory_bound) or d.sol.bound == "memory-bound"


def _same_kernel(a: KernelDiagnosis, b: KernelDiagnosis) -> bool:
    return a.kernel.name == b.kernel.name and a.kernel.demangled_name == b.kernel.demangled_name


def chain_in_report(launches: Sequence[KernelDiagnosis], names: Sequence[str] = (), around: str | None = None,
                    where: str = "--kernels") -> list[KernelDiagnosis]:
    """The launches of a report that form the chain: consecutive launches of the kernels ``names`` in that order
    (the first place they run back to back), or the launch named ``around`` with its memory-bound neighbours in
    report order (both sides, up to the first launch that is not memory-bound or that is a kernel already in the
    chain).

    A kernel report records no data flow, so a chain needs evidence that it can be one: DIFFERENT kernels,
    CONSECUTIVE in the report. Repeated launches of one kernel (benchmark repetitions) are not a producer and its
    consumer. Names match a launch's function name or demangled name exactly, else as a substring of it.

    Raises:
        InputError: a name matches no launch, a kernel is named twice, the named kernels never run consecutively,
            or the chain has fewer than two kernels (names ``where``).
    """
    def matches(name: str) -> list[int]:
        exact = [i for i, d in enumerate(launches) if name in (d.kernel.name, d.kernel.demangled_name)]
        if exact:
            return exact
        rx = re.compile(re.escape(name))
        found = [i for i, d in enumerate(launches) if rx.search(d.kernel.demangled_name) or rx.search(d.kernel.name)]
        if not found:
            raise InputError(where, key="fusion_no_such_kernel",
                values={"name": name, "value": Listed(dict.fromkeys(d.kernel.name for d in launches))})
        return found

    if around is not None:
        i = matches(around)[0]
        chain = [launches[i]]
        lo = i
        while lo > 0 and _memory_bound(launches[lo - 1]) and not any(_same_kernel(launches[lo - 1], c) for c in chain):
            lo -= 1
            chain.insert(0, launches[lo])
        hi = i
        while (hi + 1 < len(launches) and _memory_bound(launches[hi + 1])
               and not any(_same_kernel(launches[hi + 1], c) for c in chain)):
            hi += 1
            chain.append(launches[hi])
        if len(chain) < 2:
            raise InputError(where, key="fusion_no_neighbour", values={"around": around})
        return chain
    if len(names) < 2:
        raise InputError(where, key="fusion_needs_two")
    at = [set(matches(n)) for n in names]
    starts = [i for i in sorted(at[0]) if all(i + j in at[j] for j in range(1, len(names)))]
    chain = [] if not starts else list(launches[starts[0]:starts[0] + len(names)])
    if any(_same_kernel(a, b) for j, a in enumerate(chain) for b in chain[j + 1:]) or len(
            set(map(frozenset, at))) < len(at):
        raise InputError(where, key="fusion_same_kernel", values={"names": Listed(names)})
    if not chain:
        raise InputError(where, key="fusion_not_consecutive", values={"names": " → ".join(names)})
    return chain


def report_estimate(chain: Sequence[KernelDiagnosis], report_kernel_s: float | None = None) -> FusionEstimate:
    """The estimate for kernels of a kernel report (each with its DRAM bytes and duration), in chain order: an
    intermediate is the smaller of what one kernel writes and the next reads from DRAM, so
    ``fused = unfused - 2 x sum(intermediates)``. The program gain is of ``report_kernel_s`` (the report's summed
    kernel time). A kernel without duration is an error; one without DRAM bytes puts the chain on the assumed basis.

    Raises:
        InputError: a kernel's duration is not measured.
    """
    kernels = []
    for d in chain:
        if d.kernel.duration_s is None:
            raise InputError(d.kernel.name, key="fusion_no_duration")
        b = _bytes_of(d)
        fam = fusion_family(d.kernel.name)
        kernels.append(FusionKernel(d.kernel.name, None, fam.id if fam is not None else None, d.kernel.duration_s,
                                    None if b is None else b[0], None if b is None else b[1]))
    fused = None
    if all(k.read_bytes is not None for k in kernels):
        inter = sum(min(a.write_bytes, b.read_bytes) for a, b in zip(kernels, kernels[1:]))  # type: ignore[type-var]
        fused = sum(k.read_bytes + k.write_bytes for k in kernels) - 2 * inter  # type: ignore[operator]
    gpu = chain[0].gpu
    names = [d.kernel.demangled_name or d.kernel.name for d in chain]
    return estimate(kernels, fused, basis="dram_counters", program_s=report_kernel_s,
                    peak_bytes_per_s=None if gpu is None else gpu.dram_bandwidth_bytes_per_s,
                    route=route_of(names, False), caveats=("report_flow",))

"""The fusion estimate as a document: one chain of memory-bound kernels and what fusing it would save (``timeline``
reports' ``fusion``, and the ``kernelscope.fusion/1`` document of ``kernelscope fusion``)."""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, NoteDoc, Version


class FusionKernelDoc(Doc):
    """one kernel of a fusion chain, per occurrence"""

    name: Annotated[str, Meta(description="kernel name")]
    operator: Annotated[str | None, Meta(description="the host operator that launched it (Kineto); null: not recorded")]
    family: Annotated[str | None, Meta(description=(
        "its family in kernelscope/data/fusion.toml (elementwise, activation, normalisation, reduction, copy; gemm "
        "for an epilogue chain's head); null: named by the user"))]
    time_s: Annotated[float, Meta(description="mean duration per occurrence, seconds")]
    read_bytes: Annotated[float | None, Meta(description="bytes read per occurrence; null: not known")]
    write_bytes: Annotated[float | None, Meta(description="bytes written per occurrence; null: not known")]


class FusionDoc(Doc):
    """one fusion candidate: a chain of memory-bound kernels and what fusing it would save"""

    kernels: Annotated[list[FusionKernelDoc], Meta(description="the chain's memory-bound kernels, in launch order")]
    head: Annotated[FusionKernelDoc | None, Meta(description=(
        "for an epilogue chain, the GEMM (convolution) whose output the chain consumes: it stays, its epilogue does "
        "the chain's work; null: none"))]
    occurrences: Annotated[int, Meta(description="how many times the chain ran")]
    steps: Annotated[int | None, Meta(description="profiler steps in the trace (ProfilerStep#); null: not recorded")]
    per_step: Annotated[float | None, Meta(description="occurrences per step; null: steps not recorded")]
    unfused_s: Annotated[float, Meta(description="the chain's kernel time per occurrence, seconds")]
    unfused_bytes: Annotated[float | None, Meta(description="DRAM bytes per occurrence, unfused; null: not known")]
    fused_bytes: Annotated[float | None, Meta(description=(
        "DRAM bytes per occurrence, fused (inputs read once, the output written once); null: not known"))]
    bytes_fraction: Annotated[float, Meta(description="fused / unfused bytes, 0-1 (assumed 1/k without bytes)")]
    bytes_basis: Annotated[Literal["shapes", "dram_counters", "assumed_chain"], Meta(description=(
        "where the bytes come from: operator input shapes, DRAM counters of a kernel report, or the chain assumed "
        "(each kernel reads the previous one's output and writes one tensor of that size)"))]
    achieved_bytes_per_s: Annotated[float | None, Meta(description="unfused bytes / unfused time, bytes/s; null: no bytes")]
    peak_bytes_per_s: Annotated[float | None, Meta(description="the GPU's DRAM peak, bytes/s; null: GPU not known")]
    fused_s: Annotated[float | None, Meta(description=(
        "prediction: the fused kernel's time at the achieved bandwidth, seconds; null: not known (the bytes are "
        "not recorded, bytes_basis assumed_chain)"))]
    fused_floor_s: Annotated[float, Meta(description=(
        "the least the fused time can be from what is known, seconds: fused_s when predicted, else the chain's "
        "time over its kernel count (0 in an epilogue); speedup and saving_s are of it"))]
    fused_bound_s: Annotated[float | None, Meta(description=(
        "the fused time at the DRAM peak (the fastest it can be), seconds; null: no bytes or no peak"))]
    saving_s: Annotated[float, Meta(description="unfused_s - fused_floor_s per occurrence, seconds (an upper bound when estimate_kind is upper_bound)")]
    saving_bound_s: Annotated[float | None, Meta(description="upper bound: unfused_s - fused_bound_s, seconds; null: no bound")]
    speedup: Annotated[float | None, Meta(description="unfused_s / fused_s, the chain's own (x); null: unbounded")]
    total_saving_s: Annotated[float, Meta(description="occurrences x saving_s, seconds")]
    program_s: Annotated[float | None, Meta(description=(
        "the time the program gain is of (a timeline: the wall; a report: its summed kernel time), seconds"))]
    program_fraction: Annotated[float | None, Meta(description="total_saving_s / program_s, 0-1")]
    program_speedup: Annotated[float | None, Meta(description="1 / (1 - program_fraction), Amdahl (x); null: not known")]
    estimate_kind: Annotated[Literal["prediction", "upper_bound"], Meta(description=(
        "prediction: the bytes are known and fused_s, saving_s and the program figures are predictions (the "
        "*_bound_s figures the bound at the DRAM peak); upper_bound: the chain is assumed (no shapes; or a kernel "
        "report, which records no data flow), those figures are the best case fusing can reach"))]
    route: Annotated[Literal["torch_compile", "epilogue", "fused_kernel"], Meta(description="the fusion route that fits")]
    advice: Annotated[str, Meta(description="what to do, in the document's language")]
    caveats: Annotated[list[NoteDoc], Meta(description="what the estimate cannot know")]
    device: Annotated[int | None, Meta(description="device; null: not recorded")]
    stream: Annotated[int | None, Meta(description="stream; null: not recorded")]
    rank: Annotated[int | None, Meta(description="rank; null: not recorded")]


class FusionCommandDoc(Doc):
    """what `kernelscope fusion` says about one input"""

    schema: Annotated[Literal["kernelscope.fusion/1"], Meta(description="document type and version")]
    kernelscope_version: Version
    lang: Lang
    path: Annotated[str, Meta(description="the input as given (user data)")]
    source: Annotated[Literal["timeline", "report"], Meta(description="a timeline (trace) or a kernel report")]
    candidates: Annotated[list[FusionDoc], Meta(description="fusion candidates, largest total saving first")]

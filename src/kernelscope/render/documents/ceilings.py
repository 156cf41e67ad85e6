"""``kernelscope.ceilings/1``: the JSON document of ``kernelscope ceilings --format json``: the ceilings measured on
this machine's GPU, each next to the datasheet figure of the catalogue entry of the same GPU."""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, Version

__all__ = ["CeilingDoc", "CeilingsDoc", "MeasuredGpuDoc"]


class MeasuredGpuDoc(Doc):
    """the device measured, as it reports itself"""

    name: Annotated[str, Meta(description="the name the device reports, e.g. NVIDIA H200")]
    compute_capability: Annotated[tuple[int, int] | None, Meta(description="[major, minor]; null: not reported")]
    sm_count: Annotated[int | None, Meta(description="streaming multiprocessors (count); null: not reported")]


class CeilingDoc(Doc):
    """one quantity: measured, the datasheet figure and their ratio"""

    quantity: Annotated[str, Meta(description=(
        "dram_bandwidth (device-to-device copy, bytes read + written) or a pipe: fp32, tf32_tensor, fp16_tensor, "
        "bf16_tensor, fp8_tensor (dense GEMM)"))]
    name: Annotated[str, Meta(description="the quantity's display name in the document's language")]
    unit: Annotated[Literal["bytes/s", "FLOP/s"], Meta(description="unit of measured and datasheet")]
    measured: Annotated[float | None, Meta(description="the measured rate, in `unit`; null: not measured (see not_measured)")]
    datasheet: Annotated[float | None, Meta(description=(
        "the catalogue's (datasheet, dense) figure for the same GPU, in `unit`; null: the catalogue has none"))]
    ratio: Annotated[float | None, Meta(description="measured / datasheet, a fraction (0.9 = 90%); null: either is missing")]
    median_s: Annotated[float | None, Meta(description="median device time of one operation over the samples, seconds")]
    work: Annotated[float | None, Meta(description="work of one operation: bytes read + written, or FLOP (2 n^3)")]
    samples_s: Annotated[list[float], Meta(description="device time of one operation in each sample, seconds")]
    operations_per_sample: Annotated[int | None, Meta(description="back-to-back operations timed between each sample's two events")]
    method: Annotated[str | None, Meta(description="how it was measured (library call, data type, size)")]
    not_measured: Annotated[str | None, Meta(description="why it was not measured; null when it was")]


class CeilingsDoc(Doc):
    """Output of `kernelscope ceilings --format json`: achievable DRAM bandwidth and dense GEMM rates measured with
    device events (median of repeats after warm-up), next to the catalogue's datasheet figures."""

    schema: Annotated[Literal["kernelscope.ceilings/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    gpu: MeasuredGpuDoc
    backend: Annotated[str, Meta(description="the library and version that drove the GPU, e.g. torch 2.5.1+cu124")]
    date: Annotated[str, Meta(description="the day of the measurement, ISO 8601")]
    repeats: Annotated[int, Meta(description="samples per quantity; each rate is over their median")]
    source: Annotated[str, Meta(description="the citation a spec file written from this run gives every number")]
    datasheet_gpu: Annotated[str | None, Meta(description="the catalogue entry compared with; null: the GPU is not in the catalogue")]
    spec_file: Annotated[str | None, Meta(description="the spec file written (-o), usable with --spec; null: none written")]
    ceilings: Annotated[list[CeilingDoc], Meta(description="DRAM bandwidth, then the pipes, in that order")]

"""``kernelscope.gpus/1``: the JSON document of ``kernelscope gpus --format json``: the GPU catalogue
(``kernelscope/data/gpus.toml``) in SI units, each number with its source."""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, Version

__all__ = ["GpuEntryDoc", "GpusDoc"]


class GpuEntryDoc(Doc):
    """one catalogue GPU: its dense datasheet peaks (the roofline ceilings kernelscope uses for it)"""

    name: Annotated[str, Meta(description="canonical name, usable with --gpu")]
    aliases: Annotated[list[str], Meta(description="the names profilers report for it (the name among them), each usable with --gpu")]
    architecture: Annotated[str | None, Meta(description="architecture family, e.g. Hopper; null: not recorded")]
    compute_capability: Annotated[tuple[int, int] | None, Meta(description="[major, minor]; null: not recorded")]
    sm_count: Annotated[int | None, Meta(description="streaming multiprocessors (count); null: not recorded")]
    boost_clock_hz: Annotated[float | None, Meta(description="boost SM clock the peaks correspond to, Hz; null: not recorded")]
    dram_bandwidth_bytes_per_s: Annotated[float, Meta(description="peak DRAM bandwidth, bytes/s (datasheet, decimal GB)")]
    l2_cache_bytes: Annotated[int | None, Meta(description="L2 cache size, bytes; null: not recorded")]
    peak_flops_per_s: Annotated[dict[str, float], Meta(description=(
        "dense peak per pipe (fp64, fp64_tensor, fp32, fp16, tf32_tensor, fp16_tensor, fp16_tensor_fp16acc, "
        "bf16_tensor, fp8_tensor, int8_tensor), FLOP/s (OP/s for int8_tensor); never the with-sparsity figures; a "
        "pipe the GPU lacks is absent"))]
    sources: Annotated[dict[str, str], Meta(description=(
        "field name (peak_flops_per_s.<pipe> for a peak) -> the datasheet or whitepaper it comes from"))]


class GpusDoc(Doc):
    """Output of `kernelscope gpus --format json`: every GPU of the catalogue, in catalogue order."""

    schema: Annotated[Literal["kernelscope.gpus/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    gpus: Annotated[list[GpuEntryDoc], Meta(description="the catalogue, in file order")]

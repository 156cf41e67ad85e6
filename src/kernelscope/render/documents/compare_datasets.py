"""``kernelscope.compare-datasets/1``: the JSON document of ``kernelscope compare DIR_BEFORE DIR_AFTER --format json``
when both inputs are kernelscope datasets (``schemas/compare-datasets-1.schema.json``)."""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, Version

__all__ = ["CompareDatasetsDoc", "DatasetKernelDoc", "DatasetSideDoc", "KernelKeyDoc"]

Dim3 = Annotated[tuple[int, int, int] | None, Meta(description="[x, y, z]; null when not recorded")]


class DatasetSideDoc(Doc):
    """one kernel key's launches on one side"""

    launches: Annotated[int, Meta(description="launches of this kernel key in the dataset (count)")]
    median_s: Annotated[float | None, Meta(description="median duration_s of those launches, seconds; null when none measured")]
    total_s: Annotated[float, Meta(description="summed duration_s of those launches, seconds")]
    noise: Annotated[float | None, Meta(description=(
        "run-to-run noise: sample standard deviation / mean of the durations (fraction); null with fewer than two"))] = None


class KernelKeyDoc(Doc):
    """a kernel key found on one side only, with its summed time"""

    name: Annotated[str, Meta(description="demangled kernel name (the function name where none was recorded)")]
    grid: Dim3
    block: Dim3
    total_s: Annotated[float, Meta(description="summed duration_s of its launches, seconds")]


class DatasetKernelDoc(Doc):
    """one kernel key (demangled name, grid, block) found in both datasets"""

    name: Annotated[str, Meta(description="demangled kernel name (the function name where none was recorded)")]
    grid: Dim3
    block: Dim3
    before: DatasetSideDoc
    after: DatasetSideDoc
    speedup: Annotated[float | None, Meta(description="median before / median after; below 1 is a regression; null when unknown")]
    slower_pct: Annotated[float | None, Meta(description=(
        "how much slower the median got, percent (after / before - 1); null when not slower or unknown"))]
    beyond_noise: Annotated[bool | None, Meta(description=(
        "whether the change of the medians exceeds the larger of the two sides' noise; null: cannot be told"))] = None
    after_name: Annotated[str | None, Meta(description=(
        "the AFTER name when it differs only by a generated ordinal or hash (paired by generated name); else null"))] = None


class CompareDatasetsDoc(Doc):
    """Output of `kernelscope compare DIR_BEFORE DIR_AFTER --format json` for two kernelscope datasets: durations in
    seconds; `speedup` is of the matched kernels only, with the unmatched kernels' time apart."""

    schema: Annotated[Literal["kernelscope.compare-datasets/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    launches_before: Annotated[int, Meta(description="launches in the BEFORE dataset")]
    launches_after: Annotated[int, Meta(description="launches in the AFTER dataset")]
    matched_before_s: Annotated[float, Meta(description="summed time of the matched kernels before, seconds")]
    matched_after_s: Annotated[float, Meta(description="summed time of the matched kernels after, seconds")]
    speedup: Annotated[float | None, Meta(description="matched_before_s / matched_after_s; null when either is 0")]
    unmatched_before_s: Annotated[float, Meta(description="summed time of the kernels found only before, seconds")]
    unmatched_after_s: Annotated[float, Meta(description="summed time of the kernels found only after, seconds")]
    unmatched_before: Annotated[list[KernelKeyDoc], Meta(description="kernel keys found only in the BEFORE dataset")]
    unmatched_after: Annotated[list[KernelKeyDoc], Meta(description="kernel keys found only in the AFTER dataset")]
    fail_if_slower_pct: Annotated[float | None, Meta(description="the --fail-if-slower threshold, percent; null when not given")]
    regressions: Annotated[list[str], Meta(description=(
        "what the gate fails on, each slower by more than the threshold and not within the noise: kernels (name "
        "[grid, block]), \"total\" for the matched kernels together, \"unmatched\" for after-only time"))]
    kernels: Annotated[list[DatasetKernelDoc], Meta(description="matched kernels, most regressed first")]
    noise: Annotated[float | None, Meta(description="the matched total's noise (time-weighted kernel noise, fraction)")] = None
    beyond_noise: Annotated[bool | None, Meta(description="whether the matched total's change is beyond that noise")] = None
    unmatched_growth: Annotated[float | None, Meta(description=(
        "(unmatched_after_s - unmatched_before_s) / the BEFORE total (fraction); the gate's \"unmatched\" entry"))] = None

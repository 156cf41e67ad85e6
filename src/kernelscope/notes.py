"""Vocabulary shared by the analysis modules: bottleneck class ids and :class:`Note`, a finding with its
numbers that every renderer words in the user's language (templates in ``data/labels.toml`` ``[note]``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

COMPUTE_BOUND = "compute-bound"
MEMORY_BOUND = "memory-bound"
LATENCY_BOUND = "latency-bound"
OCCUPANCY_BOUND = "occupancy-bound"
#: a kernel about as short as its own launch overhead (``short_kernel_s``): the launch, not the GPU, sets its time
LAUNCH_BOUND = "launch-bound"
#: a grid too small to fill the GPU (Nsight Compute's "Small Grid"): SMs without a block for the whole kernel, however
#: long it runs; not launch overhead
SMALL_GRID = "small-grid"
BALANCED = "balanced"


@dataclass(frozen=True)
class Note:
    """One finding with its numbers: ``key`` names a template in ``labels.toml`` ``[note]`` (en / zh),
    ``values`` fills it (numbers in the units the template states; None prints as "not measured")."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

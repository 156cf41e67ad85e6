"""Reader for plain numbers: a small TOML or JSON file describing kernels by hand.

For numbers copied from a profiler's GUI, a paper or a lesson. Layout (every field but ``name`` optional;
what is left out is "not measured")::

    [[kernel]]
    name = "layernorm_fp16"
    device = "NVIDIA A100-SXM4-80GB"      # looked up in the GPU catalogue unless --gpu/--spec is given
    duration_us = 32.0                    # or duration_ns / duration_s
    flops = 41943040                      # FLOP; counted on `pipe` (default "fp32")
    pipe = "fp16_tensor"                  # or flops = { fp32 = ..., fp64 = ... }
    useful_flops = 33554432               # FLOP the algorithm needs (flops: executed, padding and waste included)
    dram_bytes = 50331648                 # or dram_bytes_read + dram_bytes_write
    sol_compute_pct = 35.0
    sol_memory_pct = 92.0
    achieved_occupancy_pct = 25.0
    theoretical_occupancy_pct = 100.0
    grid = [64, 64, 1]
    block = [256, 1, 1]
    registers_per_thread = 32
    stall_breakdown_pct = { "Long Scoreboard" = 54.2, "MIO Throttle" = 15.1 }

Units are in the field names; the reader converts to SI. Validation uses pydantic; errors name the file
and the field (``kernel[1].duration_us``). Measured values (percentages, bytes, FLOPs) take any finite number:
one that cannot be real (``achieved_occupancy_pct = 221``) is kept with its reason in
``KernelProfile.implausible`` by the screen :func:`kernelscope.ingest.load` applies, never used.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from pathlib import Path
from typing import Annotated, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import InputError
from ..model import PIPES, DeviceInfo, KernelProfile, LaunchConfig, ProfileReport
from ..knowledge.stalls import canonical_reason
from .files import check_file, unreadable

NonNeg = Annotated[float, Field(ge=0, allow_inf_nan=False)]
# Measured quantities (percentages, byte and FLOP counts) take any finite number: one that cannot be real (a
# percentage above 100 or below 0, a negative byte count) is flagged by the screen every reader's output goes
# through (kernelscope.knowledge.plausibility), kept with its reason and never used, as for profiler files.
Measured = Annotated[float, Field(allow_inf_nan=False)]
Pct = Measured
# CUDA limits: grid x < 2^31, block dims <= 1024, at most 255 registers per thread (CUDA C++ Programming
# Guide, "Technical Specifications per Compute Capability").
Dim3 = Annotated[list[Annotated[int, Field(ge=1, le=2**31 - 1)]], Field(min_length=1, max_length=3)]
BlockDim3 = Annotated[list[Annotated[int, Field(ge=1, le=1024)]], Field(min_length=1, max_length=3)]


class _Kernel(BaseModel):
    # strict: no silent coercion (true -> 1, "1e9" -> 1e9); ints are still accepted for floats.
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1)
    device: Optional[str] = None
    duration_s: Optional[Annotated[float, Field(gt=0, allow_inf_nan=False)]] = None
    duration_us: Optional[Annotated[float, Field(gt=0, allow_inf_nan=False)]] = None
    duration_ns: Optional[Annotated[float, Field(gt=0, allow_inf_nan=False)]] = None
    flops: Optional[Measured | dict[str, Measured]] = None
    useful_flops: Optional[Measured] = None
    pipe: str = "fp32"
    dram_bytes: Optional[Measured] = None
    dram_bytes_read: Optional[Measured] = None
    dram_bytes_write: Optional[Measured] = None
    sol_compute_pct: Optional[Pct] = None
    sol_memory_pct: Optional[Pct] = None
    achieved_occupancy_pct: Optional[Pct] = None
    theoretical_occupancy_pct: Optional[Pct] = None
    grid: Optional[Dim3] = None
    block: Optional[BlockDim3] = None
    registers_per_thread: Optional[Annotated[int, Field(ge=0, le=255)]] = None
    stall_breakdown_pct: dict[str, NonNeg] = {}

    @model_validator(mode="after")
    def _consistent(self) -> "_Kernel":
        if sum(x is not None for x in (self.duration_s, self.duration_us, self.duration_ns)) > 1:
            raise ValueError("give one of duration_s, duration_us, duration_ns")
        if self.dram_bytes is not None and (self.dram_bytes_read is not None or self.dram_bytes_write is not None):
            raise ValueError("give dram_bytes or dram_bytes_read + dram_bytes_write, not both")
        pipes = self.flops.keys() if isinstance(self.flops, dict) else [self.pipe]
        for p in pipes:
            if p not in PIPES:
                raise ValueError(f"unknown pipe {p!r}; expected one of {', '.join(PIPES)}")
        if sum(self.stall_breakdown_pct.values()) > 100.5:
            raise ValueError(f"stall_breakdown_pct adds up to {sum(self.stall_breakdown_pct.values()):g}%; expected at most 100%")
        if self.block is not None and math.prod(self.block) > 1024:
            raise ValueError(f"block {self.block} has {math.prod(self.block)} threads; a block holds at most 1024")
        return self


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kernel: list[_Kernel] = Field(min_length=1)


def _dim3(v: list[int] | None) -> tuple[int, int, int] | None:
    return None if v is None else tuple((v + [1, 1])[:3])  # type: ignore[return-value]


def _profile(index: int, k: _Kernel, source: str) -> KernelProfile:
    duration = k.duration_s or (k.duration_us * 1e-6 if k.duration_us else None) or (k.duration_ns * 1e-9 if k.duration_ns else None)
    if isinstance(k.flops, dict):
        flops = dict(k.flops)
    else:
        flops = {} if k.flops is None else {k.pipe: k.flops}
    stalls = {}
    for name, value in k.stall_breakdown_pct.items():
        try:
            stalls[canonical_reason(name)] = stalls.get(canonical_reason(name), 0.0) + value
        except InputError as exc:
            raise InputError(source, key="plain_stall_breakdown",
                values={"index": index, "problem": exc.problem}) from None
    return KernelProfile(
        index=index,
        name=k.name,
        demangled_name=k.name,
        device=DeviceInfo(display_name=k.device),
        launch=LaunchConfig(grid=_dim3(k.grid), block=_dim3(k.block), registers_per_thread=k.registers_per_thread),
        duration_s=duration,
        sol_compute_pct=k.sol_compute_pct,
        sol_memory_pct=k.sol_memory_pct,
        dram_bytes_read=k.dram_bytes_read,
        dram_bytes_write=k.dram_bytes_write,
        dram_bytes_total=k.dram_bytes,
        flop_counts=flops,
        achieved_occupancy_pct=k.achieved_occupancy_pct,
        theoretical_occupancy_pct=k.theoretical_occupancy_pct,
        stall_values=stalls,
        stall_family="given_percent" if stalls else None,
        useful_flops=k.useful_flops,
    )


def read_plain(path: str | os.PathLike) -> ProfileReport:
    """Read a plain-numbers file (``.toml`` or ``.json``) into a :class:`ProfileReport` (format ``"plain"``).

    Raises:
        InputError: unreadable or unparseable file, or a field of the wrong type / range (names the field).
    """
    source = str(path)
    check_file(path, "a plain-numbers .toml or .json file")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise unreadable(source, exc) from None
    except UnicodeDecodeError as exc:
        raise InputError(source, key="plain_not_utf8", values={"exc": exc}) from None
    kind = "JSON" if Path(path).suffix.lower() == ".json" else "TOML"
    try:
        data = json.loads(text) if kind == "JSON" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())
        raise InputError(source, key="plain_invalid", values={"kind": kind, "detail": detail}) from None
    if not isinstance(data, dict):
        raise InputError(source, key="plain_not_object", values={"kind": kind, "name": type(data).__name__})
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        # pydantic adds union/constraint tags ("constrained-float", "function-after[...]") to the location.
        loc = [p for p in err["loc"] if isinstance(p, int) or str(p).isidentifier() or " " in str(p)]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        msg = err["msg"].removeprefix("Value error, ")
        values = {"value": where or 'kernel', "msg": msg}
        # a missing or unknown field: a message of its own; others pydantic's text, worded from [phrase]
        if err["type"] == "missing":
            raise InputError(source, key="plain_field_missing", values=values) from None
        if err["type"] == "extra_forbidden":
            raise InputError(source, key="plain_field_unknown", values=values) from None
        raise InputError(source, key="plain_field", values=values) from None
    kernels = tuple(_profile(i, k, source) for i, k in enumerate(parsed.kernel))
    return ProfileReport(path=source, format="plain", kernels=kernels)

"""Shared-memory bank conflicts of one warp reading a 2-D ``__shared__`` tile, and the smallest row padding that
removes them. Pure functions over frozen dataclasses; no printing.

**The bank facts** (every compute capability kernelscope supports, 6.0 to 12.1): shared memory has 32 banks,
each 4 bytes (32 bits) wide per clock cycle, and successive 32-bit words map to successive banks:
``bank = (byte address // 4) mod 32``. Threads that access any bytes of the same 32-bit word do not conflict (a
read is broadcast). Source: NVIDIA CUDA C++ Programming Guide, appendix "Compute Capabilities", section
"Compute Capability 5.x", "Shared Memory" (the later 6.x, 7.x, 8.x, 9.0, 10.x and 12.x sections keep this
organisation; only the capacity changes).

**The model applied here** (exactly what :func:`analyse` computes):

* The tile ``T tile[ROWS][COLS + pad]`` starts at a 128-byte aligned shared address (bank 0). Element
  ``tile[r][c]`` is at byte ``(r * (COLS + pad) + c) * sizeof(T)``; an element covers the 32-bit words
  ``address // 4`` to ``(address + sizeof(T) - 1) // 4`` (a ``double`` covers two words, two banks).
* Column access: lane ``t`` of the warp reads ``tile[t][c]`` (consecutive threads go down column ``c``); one
  warp request per column ``c`` of ``0 .. COLS-1``. Row access: lane ``t`` reads ``tile[r][t]``; one request per
  row ``r``. Only lanes with an element to read are active (``min(32, ROWS)`` resp. ``min(32, COLS)``).
* A request is processed in *phases*: all 32 lanes at once for 2- and 4-byte elements; for 8-byte elements two
  phases of 16 lanes (half-warps), 128 bytes each. The half-warp rule is the one the Programming Guide states
  for 64-bit accesses ("a bank conflict only occurs if two or more threads in either of the half-warps access
  different addresses belonging to the same bank", section "Compute Capability 2.x", "Shared Memory", "64-Bit
  Accesses"); the current guide does not restate it for 5.x and later, kernelscope assumes it still holds (a
  warp-wide 64-bit access moves 256 bytes, at least two 128-byte wavefronts).
* Within a phase, each bank must serve the DISTINCT 32-bit words requested from it one after another; the
  phase's *n-way* conflict is the largest such count over the 32 banks (1: conflict-free). A request takes
  ``wavefronts = sum over its phases of n-way`` bank passes; ``ideal = sum over phases of
  ceil(distinct words / 32)`` (1 per phase here). The tile's n-way and wavefronts are those of its worst request.

Units: sizes and strides in bytes (``_bytes``) or 32-bit words (``_words``), counts are plain integers, banks
and lanes are 0-based indices.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from ..errors import InputError
from ..notes import Listed
from ..knowledge.occupancy import arch_limits, supported_compute_capabilities

__all__ = [
    "ACCESSES", "BANKS", "BANK_SOURCE", "BANK_WIDTH_BYTES", "DTYPES", "PHASE_SOURCE", "WARP_SIZE", "BankFacts",
    "BankReport", "Layout", "Phase", "Request", "analyse", "bank_conflicts", "bank_facts", "parse_access",
    "parse_dtype", "parse_tile", "smallest_padding",
]

#: Banks of shared memory (CC 5.x to 12.x).
BANKS = 32
#: Width of one bank, bytes per clock cycle (one 32-bit word).
BANK_WIDTH_BYTES = 4
#: Threads per warp.
WARP_SIZE = 32
#: Bytes one phase serves when no bank conflicts: every bank once.
_PHASE_BYTES = BANKS * BANK_WIDTH_BYTES

BANK_SOURCE = ("NVIDIA CUDA C++ Programming Guide, Compute Capabilities, Compute Capability 5.x, Shared Memory: "
               "32 banks, successive 32-bit words map to successive banks, 32 bits per bank per clock cycle; no "
               "conflict between threads accessing the same 32-bit word (broadcast). Same organisation for CC 6.x "
               "to 12.x")
PHASE_SOURCE = ("NVIDIA CUDA C Programming Guide, Compute Capability 2.x, Shared Memory, 64-Bit Accesses: conflicts "
                "only between threads of the same half-warp; assumed to hold for CC 5.x and later (not restated "
                "there)")

#: dtype name (the C/CUDA type a declaration names) -> bytes per element (``half``: CUDA's ``__half``; ``long``: 8
#: bytes, the LP64 model of 64-bit Linux, where CUDA code is built; Windows' LLP64 ``long`` is 4: say ``int``).
DTYPES: Mapping[str, int] = MappingProxyType({
    "float": 4, "half": 2, "double": 8, "__nv_bfloat16": 2,
    "char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4, "unsigned int": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8})
_DTYPE_ALIASES = {"float": "float", "float32": "float", "fp32": "float", "f32": "float",
                  "half": "half", "__half": "half", "float16": "half", "fp16": "half", "f16": "half",
                  "double": "double", "float64": "double", "fp64": "double", "f64": "double",
                  "bf16": "__nv_bfloat16", "bfloat16": "__nv_bfloat16", "__nv_bfloat16": "__nv_bfloat16",
                  "char": "char", "signed char": "char", "int8": "char", "int8_t": "char", "i8": "char",
                  "unsigned char": "unsigned char", "uchar": "unsigned char", "uint8": "unsigned char",
                  "uint8_t": "unsigned char", "u8": "unsigned char",
                  "short": "short", "short int": "short", "int16": "short", "int16_t": "short", "i16": "short",
                  "unsigned short": "unsigned short", "ushort": "unsigned short", "uint16": "unsigned short",
                  "uint16_t": "unsigned short", "u16": "unsigned short",
                  "int": "int", "signed int": "int", "signed": "int", "int32": "int", "int32_t": "int", "i32": "int",
                  "unsigned": "unsigned int", "unsigned int": "unsigned int", "uint": "unsigned int",
                  "uint32": "unsigned int", "uint32_t": "unsigned int", "u32": "unsigned int",
                  "long": "long", "long int": "long", "unsigned long": "unsigned long",
                  "long long": "long long", "long long int": "long long", "int64": "long long",
                  "int64_t": "long long", "i64": "long long",
                  "unsigned long long": "unsigned long long", "uint64": "unsigned long long",
                  "uint64_t": "unsigned long long", "u64": "unsigned long long"}
#: Access patterns: ``column`` (lane t reads tile[t][c]) and ``row`` (lane t reads tile[r][t]).
ACCESSES: tuple[str, ...] = ("column", "row")
_ACCESS_ALIASES = {"column": "column", "col": "column", "columns": "column", "row": "row", "rows": "row"}


@dataclass(frozen=True)
class BankFacts:
    """The shared-memory bank organisation the analysis uses.

    Attributes:
        banks: number of banks.
        bank_width_bytes: bytes one bank serves per clock cycle.
        warp_size: threads per warp.
        compute_capability: ``(major, minor)`` the user named, or None (the facts hold for every supported one).
        architecture: family name of that compute capability, or None.
        source: where the facts come from.
        phase_source: where the half-warp rule of 8-byte accesses comes from.
    """

    banks: int
    bank_width_bytes: int
    warp_size: int
    compute_capability: tuple[int, int] | None
    architecture: str | None
    source: str
    phase_source: str


@dataclass(frozen=True)
class Phase:
    """One phase of a warp request: the lanes served together and what each bank must deliver.

    Attributes:
        lanes: ``(first, last)`` lane of the phase.
        words_per_bank: per bank 0..31, the number of distinct 32-bit words requested from it.
        lanes_per_bank: per bank, the lanes whose element touches it (ascending).
    """

    lanes: tuple[int, int]
    words_per_bank: tuple[int, ...]
    lanes_per_bank: tuple[tuple[int, ...], ...]

    @property
    def n_way(self) -> int:
        """Largest number of distinct words one bank serves (1: conflict-free)."""
        return max(self.words_per_bank)

    @property
    def distinct_words(self) -> int:
        """Distinct 32-bit words the phase reads."""
        return sum(self.words_per_bank)

    @property
    def colliding_banks(self) -> tuple[int, ...]:
        """Banks asked for more than one distinct word, ascending."""
        return tuple(b for b, n in enumerate(self.words_per_bank) if n > 1)


@dataclass(frozen=True)
class Request:
    """One warp request: the column (column access) or row (row access) it reads, and its phases.

    Attributes:
        index: column ``c`` (column access) or row ``r`` (row access).
        phases: one (4- and 2-byte elements) or two half-warp phases (8-byte elements).
    """

    index: int
    phases: tuple[Phase, ...]

    @property
    def n_way(self) -> int:
        """The worst phase's n-way conflict."""
        return max(p.n_way for p in self.phases)

    @property
    def wavefronts(self) -> int:
        """Bank passes the request takes: sum of its phases' n-way."""
        return sum(p.n_way for p in self.phases)

    @property
    def ideal_wavefronts(self) -> int:
        """Bank passes without any conflict: per phase, ceil(distinct words / banks)."""
        return sum(max(1, math.ceil(p.distinct_words / BANKS)) for p in self.phases)


@dataclass(frozen=True)
class Layout:
    """Every warp request of one tile layout ``T tile[rows][row_elements]``.

    Attributes:
        dtype: ``"float"``, ``"half"`` or ``"double"``.
        element_bytes: bytes per element.
        rows: rows of the tile.
        cols: columns the kernel reads (the declared columns before any padding).
        pad: padding elements added to each row.
        access: ``"column"`` or ``"row"``.
        active_lanes: lanes of the warp with an element to read.
        lanes_per_phase: lanes served together (32, or 16 for 8-byte elements).
        requests: one per column (column access) or row (row access), in index order.
    """

    dtype: str
    element_bytes: int
    rows: int
    cols: int
    pad: int
    access: str
    active_lanes: int
    lanes_per_phase: int
    requests: tuple[Request, ...]

    @property
    def row_elements(self) -> int:
        """Elements per row as laid out: cols + pad."""
        return self.cols + self.pad

    @property
    def row_stride_bytes(self) -> int:
        """Bytes from one row to the next."""
        return self.row_elements * self.element_bytes

    @property
    def worst(self) -> Request:
        """The first request with the largest wavefront count."""
        return max(self.requests, key=lambda r: (r.wavefronts, r.n_way))

    @property
    def n_way(self) -> int:
        """The worst request's n-way conflict."""
        return max(r.n_way for r in self.requests)

    @property
    def wavefronts(self) -> int:
        """The worst request's wavefronts."""
        return self.worst.wavefronts

    @property
    def ideal_wavefronts(self) -> int:
        """The worst request's wavefronts without conflicts."""
        return self.worst.ideal_wavefronts

    @property
    def conflicting(self) -> tuple[int, ...]:
        """Indices (columns or rows) whose request has a bank conflict."""
        return tuple(r.index for r in self.requests if r.n_way > 1)

    @property
    def conflict_free(self) -> bool:
        """No request has a bank conflict."""
        return self.n_way == 1

    @property
    def n_way_counts(self) -> tuple[tuple[int, int], ...]:
        """``(n_way, requests)`` pairs, ascending n-way."""
        counts: dict[int, int] = {}
        for r in self.requests:
            counts[r.n_way] = counts.get(r.n_way, 0) + 1
        return tuple(sorted(counts.items()))


@dataclass(frozen=True)
class BankReport:
    """The declared layout, the smallest padding that makes it conflict-free, and the bank facts.

    Attributes:
        declared: the tile as declared (pad 0).
        padding: elements to add to each row for a conflict-free layout (0 when already conflict-free), or None
            when no padding up to one 128-byte bank cycle removes the conflict.
        padded: the layout with that padding (None when ``padding`` is None or 0).
        facts: the bank organisation used.
    """

    declared: Layout
    padding: int | None
    padded: Layout | None
    facts: BankFacts


def bank_facts(compute_capability: tuple[int, int] | None = None) -> BankFacts:
    """The bank facts; with a compute capability, checked to be one kernelscope supports.

    Raises:
        InputError: an unsupported compute capability.
    """
    arch = None
    if compute_capability is not None:
        if compute_capability not in supported_compute_capabilities():
            known = Listed(f"sm_{a}{b}" for a, b in supported_compute_capabilities())
            major, minor = compute_capability
            raise InputError("compute_capability",
                             key="cc_unsupported", values={"major": major, "minor": minor, "known": known})
        arch = arch_limits(compute_capability).architecture
    return BankFacts(banks=BANKS, bank_width_bytes=BANK_WIDTH_BYTES, warp_size=WARP_SIZE,
                     compute_capability=compute_capability, architecture=arch, source=BANK_SOURCE,
                     phase_source=PHASE_SOURCE)


def parse_dtype(text: str, source: str = "--dtype") -> str:
    """The element type's name in :data:`DTYPES` (``float``, ``half``, ``double``, ``int``, ``unsigned int``,
    ``char``, ``short``, ``long long``, ``__nv_bfloat16``...; also ``fp32``, ``float16``, ``__half``, ``int32_t``,
    ``uint8``, ``u64``...; blanks between words collapsed).

    Raises:
        InputError: any other element type, naming ``source``.
    """
    name = _DTYPE_ALIASES.get(" ".join(str(text).lower().split()))
    if name is None:
        raise InputError(source, key="bad_dtype", values={"text": text})
    return name


def parse_access(text: str, source: str = "--access") -> str:
    """``"column"`` or ``"row"`` (also ``col``).

    Raises:
        InputError: anything else, naming ``source``.
    """
    name = _ACCESS_ALIASES.get(str(text).strip().lower())
    if name is None:
        raise InputError(source, key="bad_access", values={"text": text})
    return name


_TILE = re.compile(r"\s*(-?\d+)\s*[x×*]\s*(-?\d+)\s*", re.IGNORECASE)


def parse_tile(text: str, source: str = "--tile") -> tuple[int, int]:
    """``"32x33"`` -> ``(32, 33)``: rows and columns of ``T tile[ROWS][COLS]``, each at least 1.

    Raises:
        InputError: anything else (``"32x"``, ``"32"``, a negative or zero size), naming ``source``.
    """
    m = _TILE.fullmatch(str(text))
    if m is None:
        raise InputError(source, key="bad_tile", values={"text": text})
    rows, cols = int(m.group(1)), int(m.group(2))
    if rows < 1 or cols < 1:
        raise InputError(source, key="tile_too_small", values={"text": text})
    return rows, cols


def _phase(lanes: range, addresses: list[int], element_bytes: int) -> Phase:
    """The banks one phase touches: ``addresses[i]`` is the byte address lane ``lanes[i]`` reads."""
    words: list[set[int]] = [set() for _ in range(BANKS)]
    who: list[list[int]] = [[] for _ in range(BANKS)]
    for lane, address in zip(lanes, addresses):
        for word in range(address // BANK_WIDTH_BYTES, (address + element_bytes - 1) // BANK_WIDTH_BYTES + 1):
            bank = word % BANKS
            words[bank].add(word)
            if not who[bank] or who[bank][-1] != lane:
                who[bank].append(lane)
    return Phase(lanes=(lanes[0], lanes[-1]), words_per_bank=tuple(len(w) for w in words),
                 lanes_per_bank=tuple(tuple(w) for w in who))


def _request(index: int, addresses: list[int], element_bytes: int, lanes_per_phase: int) -> Request:
    phases = []
    for first in range(0, len(addresses), lanes_per_phase):
        lanes = range(first, min(first + lanes_per_phase, len(addresses)))
        phases.append(_phase(lanes, addresses[lanes.start:lanes.stop], element_bytes))
    return Request(index=index, phases=tuple(phases))


def analyse(dtype: str, rows: int, cols: int, access: str, pad: int = 0) -> Layout:
    """Every warp request of ``T tile[rows][cols + pad]`` read with ``access`` (see the module docstring for the
    model: 32 banks x 4 bytes, distinct words per bank per phase, half-warp phases for 8-byte elements).

    Args:
        dtype: ``"float"``, ``"half"`` or ``"double"`` (see :func:`parse_dtype`).
        rows: rows of the tile, at least 1.
        cols: columns the kernel reads, at least 1.
        access: ``"column"`` (lane t reads tile[t][c], one request per column) or ``"row"`` (lane t reads
            tile[r][t], one request per row).
        pad: extra elements per row, at least 0.

    Raises:
        InputError: an unknown dtype or access, or sizes out of range.
    """
    dtype, access = parse_dtype(dtype, "dtype"), parse_access(access, "access")
    if rows < 1 or cols < 1 or pad < 0:
        raise InputError("tile", key="tile_dims_too_small", values={"rows": rows, "cols": cols, "pad": pad})
    e = DTYPES[dtype]
    stride = (cols + pad) * e
    per_phase = _PHASE_BYTES // max(e, BANK_WIDTH_BYTES)
    lanes = min(WARP_SIZE, rows if access == "column" else cols)
    count = cols if access == "column" else rows
    step = e if access == "column" else stride  # start address of request i = i * step
    between = stride if access == "column" else e  # from one lane to the next
    cache: dict[int, tuple[Phase, ...]] = {}  # the bank pattern depends only on the start address mod 128 B
    requests = []
    for i in range(count):
        start = i * step
        key = start % _PHASE_BYTES
        if key not in cache:
            cache[key] = _request(i, [key + t * between for t in range(lanes)], e, per_phase).phases
        requests.append(Request(index=i, phases=cache[key]))
    return Layout(dtype=dtype, element_bytes=e, rows=rows, cols=cols, pad=pad, access=access, active_lanes=lanes,
                  lanes_per_phase=per_phase, requests=tuple(requests))


def smallest_padding(dtype: str, rows: int, cols: int, access: str) -> tuple[int, Layout] | None:
    """The smallest ``pad`` >= 0 (elements per row) for which :func:`analyse` finds no bank conflict, with that
    layout; None when none of the paddings up to one bank cycle (128 bytes of row stride; beyond it the bank
    pattern repeats) removes it."""
    for pad in range(_PHASE_BYTES // DTYPES[parse_dtype(dtype, "dtype")]):
        layout = analyse(dtype, rows, cols, access, pad)
        if layout.conflict_free:
            return pad, layout
    return None


def bank_conflicts(dtype: str, rows: int, cols: int, access: str,
                   compute_capability: tuple[int, int] | None = None) -> BankReport:
    """Bank conflicts of one warp reading ``T tile[rows][cols]`` with ``access``, and the smallest padding that
    removes them (see the module docstring for the model and its sources).

    Raises:
        InputError: an unknown dtype or access, sizes below 1, a tile larger than a block's shared memory (the
            opt-in maximum of the compute capability, or of any supported one), an unsupported compute capability.
    """
    facts = bank_facts(compute_capability)
    dtype = parse_dtype(dtype, "dtype")
    limit = max(arch_limits(cc).shared_mem_per_block_optin_bytes
                for cc in ((compute_capability,) if compute_capability else supported_compute_capabilities()))
    if rows * cols * DTYPES[dtype] > limit:
        where = "any GPU" if compute_capability is None else "compute capability {}.{}".format(*compute_capability)
        raise InputError("tile", key="tile_too_big", values={"rows": rows, "cols": cols, "dtype": dtype,
                                                             "rows2": rows * cols * DTYPES[dtype], "limit": limit,
                                                             "where": where})
    declared = analyse(dtype, rows, cols, access)
    if declared.conflict_free:
        return BankReport(declared=declared, padding=0, padded=None, facts=facts)
    found = smallest_padding(dtype, rows, cols, access)
    if found is None:
        return BankReport(declared=declared, padding=None, padded=None, facts=facts)
    return BankReport(declared=declared, padding=found[0], padded=found[1], facts=facts)

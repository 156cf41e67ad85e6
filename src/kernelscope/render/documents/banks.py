"""``kernelscope.banks/1``: the JSON document of ``kernelscope banks --format json``.

One warp reading a 2-D ``__shared__`` tile: the n-way bank conflict of each warp request, wavefronts against the
ideal, the distinct 32-bit words each bank serves in the worst request, and the smallest row padding that makes
the tile conflict-free. Sizes in bytes (``_bytes``) or elements, counts plain integers, banks and threads 0-based.
"""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, Version

__all__ = ["BankFactsDoc", "BanksDoc", "CollidingBankDoc", "LayoutDoc", "NWayCountDoc", "PhaseDoc", "RequestDoc"]


class BankFactsDoc(Doc):
    """the shared-memory bank organisation the analysis used, with its sources"""

    banks: Annotated[int, Meta(description="number of banks (32)")]
    bank_width_bytes: Annotated[int, Meta(description="bytes one bank serves per clock cycle (4: one 32-bit word)")]
    warp_size: Annotated[int, Meta(description="threads per warp (32)")]
    compute_capability: Annotated[tuple[int, int] | None, Meta(description=(
        "[major, minor] given with --arch; null: not given (the facts hold for every supported compute capability)"))]
    architecture: Annotated[str | None, Meta(description="family name of that compute capability; null: not given")]
    source: Annotated[str, Meta(description="where the bank facts come from")]
    phase_source: Annotated[str, Meta(description="where the half-warp rule of 8-byte accesses comes from")]


class CollidingBankDoc(Doc):
    """one bank asked for more than one distinct 32-bit word in a phase"""

    bank: Annotated[int, Meta(description="bank index, 0-31")]
    words: Annotated[int, Meta(description="distinct 32-bit words the bank must serve, one per pass (count)")]
    threads: Annotated[list[int], Meta(description="threads (lanes) of the warp whose element touches the bank")]


class PhaseDoc(Doc):
    """one phase of a warp request: the threads served together (32; 16 per half-warp for 8-byte elements)"""

    first_thread: Annotated[int, Meta(description="first lane of the phase")]
    last_thread: Annotated[int, Meta(description="last lane of the phase")]
    n_way: Annotated[int, Meta(description="largest number of distinct 32-bit words one bank serves (1: conflict-free)")]
    distinct_words: Annotated[int, Meta(description="distinct 32-bit words the phase reads (count)")]
    words_per_bank: Annotated[list[int], Meta(description="per bank 0..31, distinct 32-bit words requested from it")]
    colliding_banks: Annotated[list[CollidingBankDoc], Meta(description="banks serving more than one word, ascending")]


class RequestDoc(Doc):
    """one warp request (one column for column access, one row for row access)"""

    index: Annotated[int, Meta(description="the column (column access) or row (row access) read")]
    n_way: Annotated[int, Meta(description="the worst phase's n-way bank conflict")]
    wavefronts: Annotated[int, Meta(description="bank passes the request takes: sum of its phases' n-way")]
    ideal_wavefronts: Annotated[int, Meta(description="bank passes without conflicts: per phase ceil(distinct words / 32)")]
    phases: Annotated[list[PhaseDoc], Meta(description="its phases in lane order")]


class NWayCountDoc(Doc):
    """how many requests have one n-way"""

    n_way: Annotated[int, Meta(description="n-way bank conflict (1: conflict-free)")]
    requests: Annotated[int, Meta(description="requests (columns or rows) with it")]


class LayoutDoc(Doc):
    """one layout of the tile (as declared, or padded) and every warp request it gets"""

    declaration: Annotated[str, Meta(description='the C declaration, e.g. "__shared__ float tile[32][33]"')]
    rows: Annotated[int, Meta(description="rows of the tile")]
    cols: Annotated[int, Meta(description="columns the kernel reads (before padding)")]
    pad: Annotated[int, Meta(description="padding elements added to each row")]
    row_elements: Annotated[int, Meta(description="elements per row as laid out: cols + pad")]
    row_stride_bytes: Annotated[int, Meta(description="bytes from one row to the next")]
    active_threads: Annotated[int, Meta(description="threads of the warp with an element to read (at most 32)")]
    threads_per_phase: Annotated[int, Meta(description="threads served together: 32, or 16 for 8-byte elements")]
    requests: Annotated[int, Meta(description="warp requests analysed: one per column (column access) or row (row access)")]
    n_way: Annotated[int, Meta(description="the worst request's n-way bank conflict (1: conflict-free)")]
    wavefronts: Annotated[int, Meta(description="the worst request's wavefronts (bank passes)")]
    ideal_wavefronts: Annotated[int, Meta(description="the worst request's wavefronts without conflicts")]
    conflict_free: Annotated[bool, Meta(description="true when no request has a bank conflict")]
    conflicting: Annotated[list[int], Meta(description="columns (column access) or rows (row access) with a conflict")]
    n_way_counts: Annotated[list[NWayCountDoc], Meta(description="requests per n-way, ascending n-way")]
    worst: RequestDoc


class BanksDoc(Doc):
    """Output of `kernelscope banks --format json`: shared-memory bank conflicts of one warp reading a 2-D
    `__shared__` tile, and the smallest row padding that removes them. Model: element tile[r][c] at byte
    (r * (cols + pad) + c) * element_bytes from a 128-byte aligned start; 32-bit word = byte // 4, bank = word mod 32;
    n-way = the most distinct words one bank serves within a phase; wavefronts = sum of the phases' n-way."""

    schema: Annotated[Literal["kernelscope.banks/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    dtype: Annotated[str, Meta(description=(
        "element type as a CUDA declaration names it: float, half (CUDA __half), double, __nv_bfloat16, char, short, "
        "int, long, long long, each integer also unsigned (kernelscope.analysis.banks.DTYPES)"))]
    element_bytes: Annotated[int, Meta(description="bytes per element")]
    access: Annotated[Literal["column", "row"], Meta(description=(
        "column: thread t reads tile[t][c], one request per column; row: thread t reads tile[r][t], one per row"))]
    facts: BankFactsDoc
    declared: LayoutDoc
    padding_elements: Annotated[int | None, Meta(description=(
        "smallest number of elements to add to each row for a conflict-free tile; 0: conflict-free as declared; "
        "null: no padding of up to 128 bytes removes the conflict"))]
    padded: Annotated[LayoutDoc | None, Meta(description="the tile with that padding; null when padding_elements is 0 or null")]
    summary: Annotated[str, Meta(description="the bank conflict in one sentence, in the document's language")]
    fix: Annotated[str, Meta(description="what to change, in the document's language")]

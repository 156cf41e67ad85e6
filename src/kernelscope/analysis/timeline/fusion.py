"""Fusion candidates in a timeline: chains of memory-bound kernels (``data/fusion.toml`` families) run back to back
on one stream, each consuming what the previous one produced, with the estimate of :mod:`kernelscope.analysis.fusion`.

A chain is a maximal run of kernels on one (rank, device, stream), in start order, where every kernel is of a
memory-bound family (by its name, else by the name of the host operator that launched it) and every link holds:

* the second starts at most ``[chain] max_gap_s`` (``data/fusion.toml``) after the first ends ("back to back");
* nothing else ran on the stream between them (a copy or memset on the stream ends the run: it is not fusible);
* no kernel of another stream of the same device started between the two starts (it may produce what the next
  kernel reads, and a fusion would reorder work across streams);
* where both kernels' operators carry input shapes (Kineto ``record_shapes``), the first one's output (its shape
  and dtype) is one of the next one's inputs. Without shapes the link is adjacency alone and the estimate says that
  it assumes the chain.

A run of at least two kernels is a candidate (a longer run than :data:`MAX_CHAIN` is cut into chains of that
many); one or more kernels right after a compute-bound kernel (a GEMM,
convolution, attention) whose output they consume form an EPILOGUE candidate (the GEMM stays; its epilogue does the
chain's work, so the chain's own reads of the GEMM output and its extra write disappear).

Bytes from shapes (per kernel: its operator's tensor inputs read, its output written): pointwise operators write
the broadcast shape of their tensor inputs in the first one's dtype, in-place operators (``aten::add_``,
``aten::copy_``: destination first) write their first input, normalisations (``aten::native_layer_norm`` ...) a
tensor like their first input (their per-row statistics, a few bytes per row, are not counted); an operator whose
output the trace cannot give (reductions, casts) leaves the chain on the assumed basis. A kernel is given its
operator's bytes when it is the first kernel that operator launched. The host operator of a kernel is the innermost
operator with shapes enclosing its launch call on the same host thread (CUPTI correlation id -> API call).
"""

from __future__ import annotations

import math
import re

from typing import NamedTuple, Sequence

import numpy as np

from ...knowledge.fusion import chain_rule, fusion_family
from ...knowledge.gpus import find_gpu
from ...errors import KernelscopeError
from ...timeline_model import ANNOTATION, KERNEL, MEMCPY, MEMSET, RUNTIME_API, Timeline
from ..fusion import FusionEstimate, FusionKernel, estimate, route_of
from .correlation import ApiJoin
from .intervals import StreamOrder, by_key_and_start, dense_codes
from .report import NS

#: Bytes per element of the dtypes PyTorch's profiler writes in ``Input type`` (c10 scalar type names).
DTYPE_BYTES: dict[str, int] = {
    "float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "int": 4, "long int": 8, "long": 8,
    "short int": 2, "short": 2, "signed char": 1, "unsigned char": 1, "bool": 1, "c10::complex<float>": 8,
    "c10::complex<double>": 16, "c10::complex<c10::Half>": 4, "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2fnuz": 1,
}
#: How far back through the operators of a host thread the enclosing one is looked for (nesting depth).
MAX_NESTING = 64
#: Most kernels in one chain: a longer run of memory-bound kernels is cut into chains of this many (one fused
#: kernel of 16 operators is already more than an eager program's neighbours usually allow).
MAX_CHAIN = 16

Tensor = tuple[tuple[int, ...], str]
#: Kernels of the GEMM family that cannot head an epilogue chain: weight-gradient GEMMs / convolutions (their output
#: is a weight gradient, which the optimizer reads, not the elementwise work after them) and cuDNN's batch-norm
#: kernels (in the family by their library name, not a matrix multiply).
NOT_A_HEAD = re.compile(r"wgrad|weight_?grad|bn_(?:fw|bw)|batch_?norm", re.IGNORECASE)


class _Traffic(NamedTuple):
    """One operator's traffic (:func:`operator_traffic`) with the byte counts a chain sums (bytes)."""

    inputs: list[Tensor]
    read_bytes: float
    output: Tensor
    output_bytes: float
    largest_input_bytes: float


def _nbytes(t: Tensor) -> float:
    return float(math.prod(t[0])) * DTYPE_BYTES[t[1]]


def operator_traffic(op: str, family: str, dims: Sequence[tuple[int, ...] | None],
                     types: Sequence[str]) -> tuple[list[Tensor], float, Tensor] | None:
    """(tensor inputs, bytes read, output tensor) of one operator from its ``Input Dims`` / ``Input type``, or None
    when the trace cannot give its output (see the module docstring for the rules). Tensors are the inputs with at
    least one dimension and a dtype of :data:`DTYPE_BYTES` (a 0-d input is a scalar argument: a few bytes at most)."""
    tensors = [(d, t) for d, t in zip(dims, types) if d and t in DTYPE_BYTES]  # (0-d: a scalar argument)
    if not tensors or family in ("reduction", "gemm"):
        return None
    short = op.rsplit("::", 1)[-1]
    if short.endswith("_") and not short.startswith("_"):  # in place: the first input is written
        reads = tensors[1:] if short == "copy_" else tensors
        return tensors, sum(_nbytes(t) for t in reads), tensors[0]
    if family == "normalisation":
        return tensors, sum(_nbytes(t) for t in tensors), tensors[0]
    if family == "copy" and short not in ("clone", "contiguous"):
        return None  # a cast's output dtype is a keyword the trace does not record
    try:
        shape = tuple(int(v) for v in np.broadcast_shapes(*(t[0] for t in tensors)))
    except ValueError:
        return None
    return tensors, sum(_nbytes(t) for t in tensors), (shape, tensors[0][1])


def _operators(tl: Timeline, k_rows: np.ndarray, join: ApiJoin | None = None,
               api: np.ndarray | None = None) -> np.ndarray:
    """For each kernel row, the index into ``tl.op_inputs`` of the innermost operator with shapes enclosing its
    launch call on the same rank and host thread, or -1. ``join``: the API rows of ``tl`` indexed (None: made here);
    ``api``: each kernel row's launch call (Timeline row, -1: none) where the caller joined them already."""
    out = np.full(k_rows.shape[0], -1, dtype=np.int64)
    ops = tl.op_inputs
    if ops is None or not len(ops):
        return out
    if api is None:
        if join is None:
            join = ApiJoin.of(tl, np.flatnonzero(tl.kind == RUNTIME_API))
        api = join.api_for(tl, k_rows)
    o_rows = ops.row
    o_start = tl.start_ns[o_rows]
    order, threads, cuts = by_key_and_start((tl.rank[o_rows].astype(np.int64) << 40) ^ tl.stream[o_rows],
                                                o_start)
    start_s, end_s = o_start[order], tl.end_ns[o_rows][order]
    has = api >= 0
    a = api[has]
    akey = (tl.rank[a].astype(np.int64) << 40) ^ tl.stream[a]
    a_start, a_end = tl.start_ns[a], tl.end_ns[a]
    found = np.full(a.shape[0], -1, dtype=np.int64)
    # per host thread (a few): the last operator starting at or before each call (j, -1: none; lo: the thread's
    # first operator); then for all calls at once, outwards through the enclosing operators (at most
    # MAX_NESTING) until one ends at or after the call's end
    j = np.full(a.shape[0], -1, dtype=np.int64)
    lo = np.zeros(a.shape[0], dtype=np.int64)
    by_key = np.argsort(akey, kind="stable")  # the calls of each thread together
    akey_s = akey[by_key]
    c_lo = np.searchsorted(akey_s, threads, "left").tolist()
    c_hi = np.searchsorted(akey_s, threads, "right").tolist()
    for first, last, c0, c1 in zip(cuts[:-1], cuts[1:], c_lo, c_hi):
        if c0 == c1:
            continue
        calls = by_key[c0:c1]
        j[calls] = np.searchsorted(start_s[first:last], a_start[calls], "right") + first - 1
        lo[calls] = first
    calls = np.flatnonzero(j >= lo)  # (the calls still looking, with their candidate j, first operator and end)
    j, lo, call_end = j[calls], lo[calls], a_end[calls]
    for _ in range(MAX_NESTING + 1):
        if not calls.size:
            break
        ok = end_s[j] >= call_end
        found[calls[ok]] = order[j[ok]]
        left = ~ok
        left[left] = j[left] > lo[left]
        calls, j, lo, call_end = calls[left], j[left] - 1, lo[left], call_end[left]
    out[has] = found
    return out


def _steps(tl: Timeline) -> int | None:
    """How many PyTorch profiler steps (``ProfilerStep#N`` annotations) the trace holds, None when none."""
    per_name = np.bincount(tl.name_id[tl.kind == ANNOTATION], minlength=len(tl.names))
    names = tl.names
    n = sum(int(per_name[i]) for i in np.flatnonzero(per_name).tolist() if names[i].startswith("ProfilerStep#"))
    return n or None


def _peak(tl: Timeline, device: int) -> float | None:
    """The catalogue's DRAM bandwidth of the device's GPU (bytes/s), None when the trace does not name it or the
    catalogue does not hold it."""
    name = tl.device_name(device)
    if not name:
        return None
    try:
        return find_gpu(name).dram_bandwidth_bytes_per_s
    except KernelscopeError:
        return None


class _Chains:
    """The busy rows of a timeline in stream order, with what the chain search asks of them: each kernel's family,
    its operator's traffic (the first kernel of an operator only) and which consecutive rows are linked. Vectorised
    over the rows; Python only over the distinct (kernel, operator) names and the links that shapes decide."""

    def __init__(self, tl: Timeline, join: ApiJoin | None = None, streams: StreamOrder | None = None,
                 launched: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        if streams is None:
            streams = StreamOrder.of(tl, np.flatnonzero(np.isin(tl.kind, (KERNEL, MEMCPY, MEMSET))))
        self.tl = tl
        self.busy = busy = streams.rows
        self._cols = streams.start, streams.stream, streams.device, streams.rank  # (of each position)
        is_k = tl.kind[busy] == KERNEL
        self.op_of = np.full(busy.shape[0], -1, dtype=np.int64)
        k_rows = busy[is_k]
        api = None
        if launched is not None and tl.op_inputs is not None:
            api_of = np.full(tl.kind.shape[0], -1, dtype=np.int64)
            api_of[launched[0]] = launched[1]
            api = api_of[k_rows]
        self.op_of[is_k] = _operators(tl, k_rows, join, api)
        ops = tl.op_inputs
        op_name = np.full(busy.shape[0], -1, dtype=np.int64)
        if ops is not None:
            has = self.op_of >= 0
            op_name[has] = tl.name_id[ops.row[self.op_of[has]]]
        keys = np.where(is_k, tl.name_id[busy].astype(np.int64) * (len(tl.names) + 1) + op_name + 1, -1)
        uniq, inv, _ = dense_codes(keys)  # (np.unique with its inverse; one bincount for these compact keys)
        found = []
        one: dict[int, object] = {}  # name id -> fusion_family of that name alone (the pairs share names)
        for key in uniq.tolist():
            if key < 0:
                found.append(None)
                continue
            k, o = key // (len(tl.names) + 1), key % (len(tl.names) + 1) - 1  # (the operator's name id, or -1)
            fam = one[k] if k in one else one.setdefault(k, fusion_family(tl.names[k]))
            if fam is None and o >= 0:  # (fusion_family(kernel, operator): the kernel's name, else the operator's)
                fam = one[o] if o in one else one.setdefault(o, fusion_family(tl.names[o]))
            found.append(fam)
        fams = [None if f is None else f.id for f in found]
        self.families = np.array(fams, dtype=object)[inv]
        self.memory = np.array([f is not None and f.link for f in found], dtype=bool)[inv]  # (links only)
        self.gemm = np.array([f == "gemm" for f in fams], dtype=bool)[inv]
        # (asked only of GEMM kernels: only they can head an epilogue)
        not_head = [f == "gemm" and NOT_A_HEAD.search(tl.names[key // (len(tl.names) + 1)]) is not None
                    for key, f in zip(uniq.tolist(), fams)]
        self.head_ok = ~np.array(not_head, dtype=bool)[inv]
        self.pre = self._adjacent(is_k)
        first = np.zeros(busy.shape[0], dtype=bool)  # the first kernel of each operator (in stream order)
        if (self.op_of >= 0).any():
            _, idx = np.unique(np.where(self.op_of >= 0, self.op_of, -1), return_index=True)
            first[idx[self.op_of[idx] >= 0]] = True
        self.first_of_op = first
        self.tcode, self.table = self._traffic_table(inv, fams)
        # per table entry: bytes read, output bytes, largest input bytes (what :func:`_bytes_of` sums)
        self.table_bytes = np.array([(x.read_bytes, x.output_bytes, x.largest_input_bytes) for x in self.table],
                                    dtype=np.float64).reshape(-1, 3)

    def _adjacent(self, is_k: np.ndarray) -> np.ndarray:
        """``pre[p]``: rows p and p + 1 are kernels of one stream, at most the chain gap apart, and no kernel of
        another stream of the device started between their starts."""
        start, stream, device, rank = self._cols
        end = self.tl.end_ns[self.busy]
        same = is_k[:-1] & is_k[1:] & (rank[1:] == rank[:-1]) & (device[1:] == device[:-1]) & (
            stream[1:] == stream[:-1])
        same &= start[1:] - end[:-1] <= chain_rule().max_gap_s / NS
        # each kernel's place among its device's kernels by start (ties: stream order): consecutive ones differ by
        # one. The positions are in (rank, device) order already: a stable sort by start within each device
        k = np.flatnonzero(is_k)
        k_rank, k_dev, k_start = rank[k], device[k], start[k]
        cut = [0, *(np.flatnonzero((k_rank[1:] != k_rank[:-1]) | (k_dev[1:] != k_dev[:-1])) + 1).tolist(), k.shape[0]]
        order = np.arange(k.shape[0])
        for lo, hi in zip(cut[:-1], cut[1:]):
            order[lo:hi] = lo + np.argsort(k_start[lo:hi], kind="stable")
        pos = np.empty(self.busy.shape[0], dtype=np.int64)
        pos[k[order]] = np.arange(k.shape[0])
        p = np.flatnonzero(same)
        same[p] = (pos[p + 1] - pos[p]) == 1
        return same

    def operator(self, pos: int) -> str | None:
        """The name of the operator that launched the kernel at ``pos``, or None."""
        o = int(self.op_of[pos])
        ops = self.tl.op_inputs
        return None if o < 0 or ops is None else self.tl.names[int(self.tl.name_id[ops.row[o]])]

    def family(self, pos: int) -> str | None:
        """The fusion family of the row at ``pos`` (None: not a kernel, or of no family)."""
        return self.families[pos]

    def _traffic_table(self, family_class: np.ndarray, fams: list) -> tuple[np.ndarray, list[_Traffic]]:
        """Per position, the index into a table of distinct traffics (-1: none) of the kernel when it is its
        operator's first kernel and memory-bound (only chains and their links read it): :func:`operator_traffic`
        once per distinct (kernel and operator names, shapes); only these operators' shapes are decoded
        (:meth:`~kernelscope.timeline_model.OperatorInputs.shapes`: equal texts, one code)."""
        tcode = np.full(self.busy.shape[0], -1, dtype=np.int64)
        table: list[_Traffic] = []
        ops = self.tl.op_inputs
        cand = np.flatnonzero(self.first_of_op & self.memory)
        if ops is None or cand.size == 0:
            return tcode, table
        shape_code, shapes = ops.shapes(self.op_of[cand])
        width = int(shape_code.max()) + 1  # (family class, shape code) as one key, in the same order as the pairs
        _, first, code = np.unique(family_class[cand].astype(np.int64) * width + shape_code, return_index=True,
                                   return_inverse=True)
        mapped = np.full(first.shape[0], -1, dtype=np.int64)
        for j, f in enumerate(first.tolist()):
            fam = fams[int(family_class[cand[f]])]
            t = operator_traffic(self.operator(int(cand[f])) or "", fam, *shapes[int(shape_code[f])]) if fam else None
            if t is not None:
                mapped[j] = len(table)
                table.append(_Traffic(t[0], t[1], t[2], _nbytes(t[2]), max(_nbytes(x) for x in t[0])))
        tcode[cand] = mapped[code.reshape(-1)]
        return tcode, table

    def _consumes(self, p: np.ndarray) -> np.ndarray:
        """Whether the kernel at each position ``p + 1`` reads the output of the one at ``p`` (True where either
        traffic is unknown): decided once per distinct pair of traffics."""
        ta, tb = self.tcode[p], self.tcode[p + 1]
        out = np.ones(p.shape[0], dtype=bool)
        both = (ta >= 0) & (tb >= 0)
        if both.any():
            width = len(self.table)
            pairs, inv = np.unique(ta[both] * width + tb[both], return_inverse=True)
            table = self.table
            ok = np.array([table[k // width].output in table[k % width].inputs for k in pairs.tolist()], dtype=bool)
            out[both] = ok[inv.reshape(-1)]
        return out

    def runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every candidate run as arrays: its first and last positions and its epilogue head's position (-1: none);
        a run longer than :data:`MAX_CHAIN` kernels is cut into pieces of that many (only the first has a head)."""
        link = self.pre & self.memory[:-1] & self.memory[1:]
        if self.tl.op_inputs is not None:
            p = np.flatnonzero(link)
            link[p] = self._consumes(p)
        mem = np.flatnonzero(self.memory)
        before = np.zeros(self.busy.shape[0], dtype=bool)  # linked to the previous row
        before[1:] = link
        after = np.zeros(self.busy.shape[0], dtype=bool)
        after[:-1] = link
        starts, ends = mem[~before[mem]], mem[~after[mem]]
        prev = np.maximum(starts - 1, 0)
        # never after a weight-gradient GEMM (its output is the weight gradient, read by the optimizer, not by the
        # elementwise work that happens to follow it) or a normalisation that cuDNN names like a GEMM
        heads = np.where((starts > 0) & self.gemm[prev] & self.pre[prev] & self.head_ok[prev], starts - 1, -1)
        pieces = (ends - starts) // MAX_CHAIN + 1
        k = np.arange(pieces.sum()) - np.repeat(np.cumsum(pieces) - pieces, pieces)  # piece index within its run
        s = np.repeat(starts, pieces) + k * MAX_CHAIN
        e = np.minimum(s + MAX_CHAIN - 1, np.repeat(ends, pieces))
        h = np.where(k == 0, np.repeat(heads, pieces), -1)
        keep = (e > s) | (h >= 0)
        return s[keep], e[keep], h[keep]


def _row_groups(keys: np.ndarray) -> np.ndarray:
    """The group number (0 ..) of each row of the int64 matrix ``keys``: equal rows, equal numbers, numbered in
    the rows' lexicographic order. One ``lexsort`` of the columns (not a sort of the rows as bytes), then the
    places where a sorted row differs from the one before."""
    if keys.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys.T[::-1])  # (the first column is the primary key)
    ordered = keys[order]
    step = np.zeros(keys.shape[0], dtype=np.int64)
    step[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    code = np.empty(keys.shape[0], dtype=np.int64)
    code[order] = np.cumsum(step)
    return code


def fusion_chains(tl: Timeline, program_s: float | None, top: int = 10, join: ApiJoin | None = None,
                  streams: StreamOrder | None = None,
                  launched: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[FusionEstimate, ...]:
    """The fusion candidates of a timeline, largest total saving first (at most ``top``), grouped by their kernel
    names (and rank, device, epilogue head): one estimate per distinct chain with its occurrences.

    Args:
        tl: the run.
        program_s: the program wall time the gain is of, seconds (None: no program gain).
        top: how many candidates to keep.
        join: the API rows of ``tl`` indexed (:class:`~.correlation.ApiJoin`; None: indexed here).
        streams: the kernel, copy and memset rows of ``tl`` (in row order) in stream order
            (:class:`~.intervals.StreamOrder`; None: sorted here).
        launched: kernel rows and the Timeline row of each one's launch call, -1 where none
            (:class:`~.graphs.KernelLaunches` ``k_rows`` / ``k_api``; None: joined here).
    """
    if streams is None:
        streams = StreamOrder.of(tl, np.flatnonzero(np.isin(tl.kind, (KERNEL, MEMCPY, MEMSET))))
    if streams.rows.shape[0] < 2:
        return ()
    c = _Chains(tl, join, streams, launched)
    s, e, h = c.runs()
    if s.size == 0:
        return ()
    pos = s[:, None] + np.arange(MAX_CHAIN)[None, :]
    valid = pos <= e[:, None]
    rows = c.busy[np.minimum(pos, c.busy.shape[0] - 1)]
    ids = np.where(valid, tl.name_id[rows], -1)
    head_rows = c.busy[np.maximum(h, 0)]
    first = c.busy[s]
    keys = np.column_stack([tl.rank[first], tl.device[first], np.where(h >= 0, tl.name_id[head_rows], -1), ids])
    inv = _row_groups(keys)
    first_of, counts = np.unique(inv, return_index=True, return_counts=True)[1:]
    uniq = keys[first_of]
    dur = np.where(valid, (tl.end_ns[rows] - tl.start_ns[rows]), 0).astype(np.float64)
    # per group, its runs' times summed in run order (as ``np.add.at`` would add them), one slot at a time
    sums = np.column_stack([np.bincount(inv, weights=dur[:, j], minlength=uniq.shape[0]) for j in range(MAX_CHAIN)])
    head_sums = np.bincount(inv, weights=np.where(h >= 0, tl.end_ns[head_rows] - tl.start_ns[head_rows], 0),
                            minlength=uniq.shape[0]).astype(np.float64)
    example = np.full(uniq.shape[0], -1, dtype=np.int64)
    example[inv[::-1]] = np.arange(inv.shape[0])[::-1]  # each group's first run
    steps = _steps(tl)
    # each group's runs in their order: a slice of one stable sort, taken only for the groups estimated
    by_group = np.argsort(inv, kind="stable") if tl.op_inputs is not None else None
    group_end = np.cumsum(counts).tolist()
    by_name: dict[str | None, float | None] = {}  # (the catalogue searched once per GPU name)
    peaks = {d: by_name[n] if (n := tl.device_name(d)) in by_name else by_name.setdefault(n, _peak(tl, d))
             for d in set(uniq[:, 1].tolist())}
    per_kernel = sums / counts[:, None] * NS
    n_of = (e[example] - s[example] + 1).tolist()
    # An exact upper bound on each group's total saving: its kernels' time x occurrences (the fused time is >= 0),
    # summed as the estimate sums it. Groups are estimated in falling bound order until no later one can enter
    # the top (its bound below the top-th saving found): the same candidates, without the estimates of the rest.
    bound = [sum(map(float, per_kernel[g, :n_of[g]])) * int(counts[g]) for g in range(uniq.shape[0])]
    out = []
    best: list[float] = []  # the positive savings found, largest first (at most ``top``)
    for g in sorted(range(uniq.shape[0]), key=lambda g: -bound[g]):
        if 0 < top <= len(best) and bound[g] < best[top - 1]:
            break
        r = int(example[g])
        mine = None if by_group is None else by_group[group_end[g] - int(counts[g]):group_end[g]]
        occ = None if mine is None else (s[mine], h[mine] >= 0)
        est = _group_estimate(c, int(s[r]), int(e[r]), int(h[r]), per_kernel[g], head_sums[g] / counts[g] * NS,
                              int(counts[g]), occ, steps, program_s, peaks[int(uniq[g, 1])], int(uniq[g, 0]),
                              int(uniq[g, 1]))
        out.append((g, est))
        if est.total_saving_s > 0:
            best = sorted([*best, est.total_saving_s], reverse=True)[:max(top, 1)]
    out.sort(key=lambda x: (-x[1].total_saving_s, x[0]))
    return tuple(x for _, x in out if x.total_saving_s > 0)[:top]


def _bytes_of(c: _Chains, starts: np.ndarray, has_head: np.ndarray,
              n: int) -> tuple[list[float | None], list[float | None], float | None]:
    """Summed reads and writes per kernel of the chain, and the fused bytes (all bytes), over its occurrences (the
    runs of ``n`` kernels at positions ``starts``, with an epilogue head where ``has_head``); None where any
    occurrence's traffic is not known. The sums over a run are taken once per distinct run of traffics, the sums
    over the occurrences in their order (the same additions as one occurrence after the other)."""
    codes = c.tcode[starts[:, None] + np.arange(n)[None, :]]
    if (codes < 0).any():
        return [None] * n, [None] * n, None
    table = c.table
    group = _row_groups(codes)
    _, example = np.unique(group, return_index=True)
    per_run = []
    for row in codes[example].tolist():
        t = [table[k] for k in row]
        per_run.append(sum(x.read_bytes for x in t) - sum(x.output_bytes for x in t[:-1]))  # intermediates' reads
    fused = np.array(per_run, dtype=np.float64)[group]
    reads, writes = c.table_bytes[codes, 0], c.table_bytes[codes, 1]
    last = writes[:, -1]
    gemm_out = c.table_bytes[codes[:, 0], 2]  # the GEMM output the chain reads: the largest of its first inputs
    over = last - gemm_out
    fused = np.where(has_head, fused + (np.where(over > 0.0, over, 0.0) - gemm_out), fused + last)
    zero = np.zeros((1, n))
    return (np.cumsum(np.vstack([zero, reads]), axis=0)[-1].tolist(),
            np.cumsum(np.vstack([zero, writes]), axis=0)[-1].tolist(),
            float(np.cumsum(np.concatenate([[0.0], fused]))[-1]))


def _group_estimate(c: _Chains, s: int, e: int, h: int, per_kernel_s: np.ndarray, head_s: float, n_occ: int,
                    occ, steps, program_s, peak, rank, device) -> FusionEstimate:
    """The estimate of one distinct chain, from its first run (positions ``s`` .. ``e``, head ``h`` or -1), its
    kernels' mean times (seconds, per slot), its head's mean time and, where the trace records shapes, every
    occurrence ``occ`` (the first positions of its runs, and whether each has a head) for the bytes."""
    tl = c.tl
    n = e - s + 1
    reads, writes, fused_total = _bytes_of(c, *occ, n) if occ is not None else ([None] * n, [None] * n, None)
    kernels = [FusionKernel(tl.names[int(tl.name_id[c.busy[p]])], c.operator(p), c.family(p),
                            float(per_kernel_s[j]), None if reads[j] is None else reads[j] / n_occ,  # type: ignore[operator]
                            None if writes[j] is None else writes[j] / n_occ)  # type: ignore[operator]
               for j, p in enumerate(range(s, e + 1))]
    head = None if h < 0 else FusionKernel(tl.names[int(tl.name_id[c.busy[h]])], c.operator(h), "gemm",
                                           float(head_s))
    stream = int(tl.stream[c.busy[s]])
    return estimate(kernels, None if fused_total is None else fused_total / n_occ, head=head, occurrences=n_occ,
                    steps=steps, basis="shapes", peak_bytes_per_s=peak, program_s=program_s,
                    route=route_of([k.name for k in kernels], head is not None, [k.operator for k in kernels]),
                    caveats=("host_bound",), device=None if device < 0 else device,
                    stream=None if stream < 0 else stream, rank=None if rank < 0 else rank)

"""JSON rendering of diagnoses: every diagnosed launch in report order, units in field names, None as null; and per
input its groups of repeated launches (same kernel, grid and block: :mod:`kernelscope.analysis.groups`).

Schema id ``kernelscope.diagnosis/1``: the document types are :mod:`kernelscope.render.documents.diagnosis`, the
JSON Schema ``schemas/diagnosis-1.schema.json`` is generated from them. A value that was not measured is null,
and the launch's ``not_measured`` list gives the reason for each null field (JSON Pointer, reason key and text);
the roofline objects carry their own ``not_measured`` reasons. A non-finite number (an arithmetic intensity with
no DRAM traffic) is written as null with its reason, never as a string.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Annotated, Any, Callable, Iterable, Literal, Mapping, Sequence, get_args, get_origin, get_type_hints

from msgspec import Struct

from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.groups import LaunchGroup, launch_groups, order_key
from ..analysis.roofline import RooflinePoint
from ..knowledge.stalls import describe
from ..knowledge.plausibility import implausible_note, implausible_text
from ..model import DeviceInfo, KernelProfile, LaunchConfig
from ..notes import Note
from ..version import __version__
from .common import NCU_STAMP_S, Fmt
from .documents import HOLE, encode_fragment, encode_spliced
from .documents.common import NullReason
from .documents.diagnosis import (
    AdviceDoc, CalculatedOccupancyDoc, ClockRangeDoc, DeviceDoc, DiagnosisDoc, GpuDoc, GroupSavingDoc, GroupSpreadDoc, ImplausibleDoc,
    InputDoc,
    DesignDoc, KernelGroupDoc, LaunchConfigDoc, LaunchDoc, LaunchGroupDoc, MemoryLevelDoc, NsightDoc, NsightMatchDoc, OccupancyDoc,
    OutlierDoc, RooflineDoc, RuleDoc, SolBottleneckDoc, SolDoc, SpreadDoc, StallReasonDoc, StallsDoc, UnitLoadDoc,
)
from .json_common import findings, finite, notes
from .launch_groups import as_group, outlier_text

SCHEMA = "kernelscope.diagnosis/1"

_STALL_UNITS = {"per_issue_active": "cycles per issued instruction", "pc_sampling": "samples",
                "warp_id_sampling": "samples", "given_percent": "percent of stall cycles"}


def null_reasons(doc: Struct, f: Fmt, specific: Mapping[str, str] | None = None, skip: Iterable[str] = (),
                 default: str = "not_in_profile") -> list[NullReason]:
    """Every null field of ``doc`` as ``NullReason(field=JSON Pointer, key=reason key, text=reason)``; the
    subtrees at the ``skip`` pointers are not walked (they explain their own nulls or quote data as is)."""
    specific = specific or {}
    skipped = frozenset(skip)
    out: list[NullReason] = []
    texts: dict[str, str] = {}  # reason key -> its text (a few keys, many nulls)

    def walk(value: Any, pointer: str) -> None:
        if isinstance(value, Struct):  # (its fields at skipped pointers are left out by _struct_walker)
            _struct_walker(type(value), pointer, skipped)(value, null, walk)
            return
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            if v is None or isinstance(v, _NESTED):  # (a number or a string holds no null: not walked)
                at = f"{pointer}/{str(k).replace('~', '~0').replace('/', '~1')}"
                if at in skipped:
                    continue
                if v is None:
                    null(at)
                else:
                    walk(v, at)

    def null(at: str) -> None:
        key = specific.get(at, default)
        text = texts.get(key)
        if text is None:
            text = texts[key] = f.note(key)
        out.append(NullReason(field=at, key=key, text=text))

    walk(doc, "")
    return out


_NESTED = (Struct, dict, list, tuple)


@lru_cache(maxsize=4096)
def _struct_walker(doc_type: type[Struct], pointer: str, skipped: frozenset[str]) -> Callable[[Struct, Callable, Callable], None]:
    """A function ``(doc, null, walk)`` that calls ``null(at)`` for each null field of a ``doc_type`` document at
    ``pointer`` that can hold one and is not ``skipped``, and ``walk(value, at)`` for each nested value of a field that
    can hold a null inside it, in field order: straight-line code made once per (type, pointer), the same for every
    launch (a field name is an identifier: the code holds only names and escaped pointer strings)."""
    fields = _nested_fields(doc_type)
    lines = ["def walker(doc, null, walk):"]
    for name, inside in fields.items():
        at = f"{pointer}/{name}"
        if at in skipped:
            continue
        if not name.isidentifier():  # (never for a Struct field; kept out of the generated code all the same)
            raise ValueError(f"field name {name!r} of {doc_type.__name__} is not an identifier")
        lines.append(f"    v = doc.{name}")
        lines.append(f"    if v is None: null({at!r})")
        if inside:
            lines.append(f"    elif isinstance(v, _NESTED): walk(v, {at!r})")
    lines.append("    return None")
    namespace: dict[str, Any] = {"_NESTED": _NESTED}
    exec("\n".join(lines), namespace)  # (as dataclasses makes its __init__)
    return namespace["walker"]


@cache
def _nested_fields(doc_type: type[Struct]) -> dict[str, bool]:
    """The fields of a document type that can hold a null or a nested value (plain scalars cannot), each with whether
    its value, when not null, can hold a null inside it."""
    hints = get_type_hints(doc_type)
    return {name: _may_hold_null(hints[name]) for name in doc_type.__struct_fields__ if not _plain_scalar(hints[name])}


def _may_hold_null(hint: Any) -> bool:
    """Whether a value of type ``hint`` that is not None itself can hold a null inside it: not a plain scalar, nor a
    list, tuple or dict of plain scalars (``list[str]``, ``dict[str, float]``, ``tuple[int, int, int] | None``)."""
    while get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    if _plain_scalar(hint):
        return False
    args = get_args(hint)
    origin = get_origin(hint)
    if origin in (list, tuple, dict) and args:
        return not all(_plain_scalar(a) for a in args if a is not Ellipsis)
    if args and type(None) in args and origin not in (list, tuple, dict):  # X | None: X's contents
        return any(_may_hold_null(a) for a in args if a is not type(None))
    return True


def _plain_scalar(hint: Any) -> bool:
    while get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    return hint in (int, float, str, bool) or get_origin(hint) is Literal


def _roofline(r: RooflinePoint | None, f: Fmt) -> RooflineDoc | None:
    if r is None:
        return None
    reasons = list(r.not_measured)
    ai = r.arithmetic_intensity_flop_per_byte
    if ai is not None and not math.isfinite(ai):
        reasons.append("intensity_unbounded")
    return RooflineDoc(
        pipe=r.pipe, peak_flops_per_s=r.peak_flops_per_s, peak_bandwidth_bytes_per_s=r.peak_bandwidth_bytes_per_s,
        ridge_point_flop_per_byte=r.ridge_point_flop_per_byte, flops=r.flops, dram_bytes=r.dram_bytes,
        duration_s=r.duration_s, arithmetic_intensity_flop_per_byte=finite(ai),
        attainable_flops_per_s=finite(r.attainable_flops_per_s), achieved_flops_per_s=finite(r.achieved_flops_per_s),
        achieved_bytes_per_s=finite(r.achieved_bytes_per_s), efficiency=finite(r.efficiency), bound=r.bound,  # type: ignore[arg-type]
        not_measured=notes(reasons, f), datasheet_peak_flops_per_s=r.datasheet_peak_flops_per_s,
        clock_scale=r.clock_scale, flops_estimated=r.flops_estimated,
        derived_dram_throughput_pct=finite(r.derived_dram_throughput_pct),
    )


#: Null fields whose reason is more specific than "not recorded in the profile" (JSON Pointer -> note key).
_NULL_REASONS = {
    "/gpu": "no_gpu",
    "/bound": "no_verdict",
    "/speed_of_light/bound": "sol_not_measured",
    "/stalls": "no_stall_metrics",
    "/stalls/cpi_consistency": "cpi_not_comparable",
    "/occupancy/calculated": "occupancy_not_computed",
    "/occupancy/waves_per_sm": "not_derivable",
    "/nsight_compute/sol_bottleneck/bound": "no_ncu_verdict",
    "/nsight_compute/sol_bottleneck/title": "no_ncu_verdict",
    "/useful_flops": "no_useful_flops",
}
#: Subtrees not walked for nulls: roofline objects explain their own, findings, note values and Nsight's rule
#: records are quoted as they are; memory levels and the Nsight comparison describe their nulls in the schema.
_OWN_REASONS = ("/roofline", "/roofline_by_pipe", "/nsight_compute/rules", "/provenance", "/evidence", "/notes",
                "/memory_levels", "/nsight_comparison", "/busiest_units",
                "/speed_of_light/evidence", "/occupancy/notes", "/gpu/provenance", "/advice", "/findings", "/not_measured",
                "/implausible", "/useful_roofline")


def _roofline_reason(d: KernelDiagnosis) -> Note | str:
    if d.gpu is None:
        return "no_gpu"
    peak = [n for n in d.notes if n.key in ("no_peak", "no_peak_fallback")]
    return peak[0] if peak else "no_roofline"


def _device(dev: DeviceInfo) -> DeviceDoc:
    return DeviceDoc(display_name=dev.display_name, compute_capability=dev.compute_capability, sm_count=dev.sm_count,
                     max_sm_clock_hz=dev.max_sm_clock_hz, max_mem_clock_hz=dev.max_mem_clock_hz,
                     memory_bus_width_bits=dev.memory_bus_width_bits, l2_cache_bytes=dev.l2_cache_bytes)


def _launch_config(la: LaunchConfig) -> LaunchConfigDoc:
    return LaunchConfigDoc(grid=la.grid, block=la.block, registers_per_thread=la.registers_per_thread,
                           shared_mem_static_bytes=la.shared_mem_static_bytes,
                           shared_mem_dynamic_bytes=la.shared_mem_dynamic_bytes,
                           shared_mem_config_bytes=la.shared_mem_config_bytes, waves_per_sm=la.waves_per_sm)


def _stalls(d: KernelDiagnosis, f: Fmt) -> StallsDoc | None:
    s = d.stalls
    if s is None:
        return None
    return StallsDoc(
        family=s.family, unit=_STALL_UNITS.get(s.family or "", "cycles"), total=s.total,  # type: ignore[arg-type]
        selected=s.selected_value, cycles_per_issued_instruction=d.kernel.cycles_per_issued_instruction,
        cpi_consistency=finite(s.cpi_consistency),
        reasons=[StallReasonDoc(reason=x.reason, display_name=f.stall_name(x.reason), value=x.value, share_of_all=x.share,
                                share_of_stalls=x.share_of_stalls, healthy=describe(x.reason).healthy) for x in s.shares],
    )


def _occupancy(d: KernelDiagnosis, f: Fmt) -> OccupancyDoc:
    o = d.occupancy
    calc = None if o is None else CalculatedOccupancyDoc(
        theoretical_pct=o.occupancy_pct, active_blocks_per_sm=o.active_blocks_per_sm,
        active_warps_per_sm=o.active_warps_per_sm, max_warps_per_sm=o.max_warps_per_sm,
        block_limits=dict(o.block_limits), limiters=list(o.limiters))
    return OccupancyDoc(achieved_pct=d.kernel.achieved_occupancy_pct, theoretical_pct=d.kernel.theoretical_occupancy_pct,
                        calculated=calc, waves_per_sm=d.waves_per_sm, notes=notes(d.occupancy_notes, f))


def _implausible(k: KernelProfile, f: Fmt) -> list[ImplausibleDoc]:
    """The launch's values that cannot be real, each with its raw value and reason (in ``f``'s language)."""
    return [ImplausibleDoc(metric=x.metric, value=x.value, unit=x.unit, reason=x.reason,  # type: ignore[arg-type]
                           text=f.note(implausible_note(x)), limit=finite(x.limit), rate=finite(x.rate))
            for x in k.implausible if math.isfinite(x.value)]


def _problems(k: KernelProfile, f: Fmt) -> list[str]:
    """The launch's data problems in ``f``'s language, the texts the terminal prints: an implausible value's line as
    its catalogue note (the text of ``implausible[].text``), any other through :meth:`Fmt.problem`."""
    said = {implausible_text(x, "en"): x for x in k.implausible}
    return [f.note(implausible_note(said[p])) if p in said else f.problem(p) for p in k.problems]


def _design(d: KernelDiagnosis) -> DesignDoc | None:
    g = d.design
    if g is None:
        return None
    return DesignDoc(library=None if g.library is None else g.library.id, async_copies=g.async_copies,
                     tensor_instructions=g.tensor_instructions, warpgroup_mma=g.warpgroup_mma,
                     debug_build=g.debug_build, persistent=g.persistent, facts=sorted(d.facts))


def launch_doc(d: KernelDiagnosis, f: Fmt) -> LaunchDoc:
    """One launch's diagnosis as a document, with ``not_measured``: the reason for every null."""
    k = d.kernel
    provenance = notes(d.provenance, f)  # (worded once: the GPU's and the launch's are the same notes)
    doc = LaunchDoc(
        index=k.index, name=k.name, demangled_name=k.demangled_name, mangled_name=k.mangled_name,
        launch_count=k.launch_count, device=_device(k.device), launch=_launch_config(k.launch),
        duration_s=k.duration_s, sm_frequency_hz=k.sm_frequency_hz,
        gpu=None if d.gpu is None else GpuDoc(name=d.gpu.name, origin=d.gpu.origin, measured=d.gpu.measured,
                                              provenance=provenance),
        provenance=provenance, bound=d.bound, classes=list(d.verdict),  # type: ignore[arg-type]
        evidence=notes(d.evidence, f),
        speed_of_light=SolDoc(compute_pct=d.sol.compute_pct, memory_pct=d.sol.memory_pct, dram_pct=k.dram_throughput_pct,
                              waves_per_sm=d.sol.waves_per_sm, bound=d.sol.bound, evidence=notes(d.sol.evidence, f)),  # type: ignore[arg-type]
        roofline=_roofline(d.roofline, f), roofline_by_pipe=[x for r in d.roofline_by_pipe if (x := _roofline(r, f))],
        notes=notes(d.notes, f), flop_counts=dict(k.flop_counts), dram_bytes_read=k.dram_bytes_read,
        dram_bytes_write=k.dram_bytes_write, tensor_pipe_active_pct=k.tensor_pipe_active_pct,
        tensor_ops_pct=dict(k.tensor_ops_pct), occupancy=_occupancy(d, f), stalls=_stalls(d, f),
        busiest_units=[UnitLoadDoc(unit=u.unit, name=f.unit(u.unit or u.metric), side=u.side,  # type: ignore[arg-type]
                                   kind=u.kind, metric=u.metric, pct=u.pct)
                       for u in (*d.limiters.compute, *d.limiters.memory)],
        memory_levels=[MemoryLevelDoc(level=lv.level, throughput_pct=lv.throughput_pct, bytes=lv.bytes,  # type: ignore[arg-type]
                                      hit_rate_pct=lv.hit_rate_pct,
                                      arithmetic_intensity_flop_per_byte=finite(lv.arithmetic_intensity_flop_per_byte),
                                      bytes_metric=lv.bytes_metric, peak_bytes_per_s=finite(lv.peak_bytes_per_s),
                                      bandwidth_pct=finite(lv.bandwidth_pct))
                       for lv in d.levels],
        limiting_level=None if d.limiting_level is None else d.limiting_level.level,  # type: ignore[arg-type]
        nsight_comparison=[NsightMatchDoc(rule_id=m.rule_id, status=m.status, nsight_speedup_pct=m.nsight_speedup_pct,
                                          speedup_type=m.speedup_type, findings=list(m.findings))
                           for m in d.nsight_matches],
        findings=findings(d.findings, f, d), advice=[AdviceDoc(id=a.advice, text=f.advice(a.advice, a)) for a in d.advice_findings],  # type: ignore[arg-type]
        design=_design(d),
        nsight_compute=NsightDoc(
            sol_bottleneck=SolBottleneckDoc(bound=d.ncu_bottleneck, title=d.ncu_bottleneck_title),  # type: ignore[arg-type]
            rules=[RuleDoc(rule_id=r.rule_id, title=r.title, message_type=r.message_type, message=r.message,
                           estimated_speedup_pct=r.estimated_speedup_pct, speedup_type=r.speedup_type) for r in k.rules]),
        problems=_problems(k, f), implausible=_implausible(k, f), useful_flops=k.useful_flops,
        useful_roofline=_roofline(d.useful_roofline, f), not_measured=[],
    )
    reasons = null_reasons(doc, f, _NULL_REASONS, _OWN_REASONS)
    if doc.roofline is None:
        why = _roofline_reason(d)
        reasons.insert(0, NullReason(field="/roofline", key=why if isinstance(why, str) else why.key, text=f.note(why)))
    if doc.useful_roofline is None:
        why = "no_useful_flops" if k.useful_flops is None else _roofline_reason(d)
        reasons.append(NullReason(field="/useful_roofline", key=why if isinstance(why, str) else why.key,
                                  text=f.note(why)))
    doc.not_measured = reasons
    return doc


def group_doc(g: LaunchGroup, f: Fmt) -> LaunchGroupDoc:
    """One group of repeated launches (:mod:`kernelscope.analysis.groups`) as a document; its savings are those of
    the panel the other formats show (the representative with the group's share, :func:`.launch_groups.as_group`)."""
    rep = as_group(g)
    spread = {key: None if s is None else SpreadDoc(min=s.min, median=s.median, max=s.max, measured=s.measured)
              for key, s in g.spread.items()}
    return LaunchGroupDoc(
        name=g.name, demangled_name=g.demangled_name, grid=g.grid, block=g.block, launches=list(g.indices),
        representative=g.representative.kernel.index, count=g.count, total_s=g.total_duration_s,
        share=finite(g.time_share), spread=GroupSpreadDoc(**spread),
        outliers=[OutlierDoc(index=o.index, duration_ratio=finite(o.duration_ratio),
                             classes=None if o.verdict is None else list(o.verdict),  # type: ignore[arg-type]
                             text=outlier_text(o, g, f)) for o in g.outliers],
        savings=[GroupSavingDoc(finding_id=x.id, program_time_saved_share=saved)
                 for x in rep.advice_findings if (saved := finite(rep.program_gain(x))) is not None],
        clocks=[ClockRangeDoc(clock=c.clock, min_hz=c.min_hz, max_hz=c.max_hz) for c in g.clocks],  # type: ignore[arg-type]
    )


#: How deep a launch's and a group's document stand in the whole (the document, ``inputs``, one input, its
#: ``launches`` / ``groups``, the item: four levels of two spaces).
ITEM_INDENT = 8


@dataclass(frozen=True)
class EncodedLaunches:
    """The diagnosed launches of an input and their groups, each encoded apart as it stands in the document
    (:func:`encode_launches`; spliced into it by :func:`to_json_pieces`): of a whole diagnosis, or of a part of its
    selection (:class:`~kernelscope.analysis.diagnosis.ReportDiagnoser`), the parts' joined
    (:meth:`joined`) the whole's.

    Attributes:
        launches: one per diagnosed launch, in the diagnosis's order.
        groups: one per launch group, with its place in the groups' order
            (:func:`kernelscope.analysis.groups.order_key`).
    """

    launches: list[bytes]
    groups: list[tuple[tuple[float, int], bytes]]

    @staticmethod
    def joined(parts: Sequence[tuple[Sequence[int], "EncodedLaunches"]], count: int) -> "EncodedLaunches":
        """The launches of ``parts`` ((positions of its launches among the ``count`` of the whole, ascending; its
        encoding)), every position once, in the whole's order; their groups together."""
        launches: list[bytes] = [b""] * count
        for positions, part in parts:
            for at, item in zip(positions, part.launches, strict=True):
                launches[at] = item
        return EncodedLaunches(launches, [g for _, part in parts for g in part.groups])


def encode_launches(res: ReportDiagnosis, lang: str, f: Fmt | None = None) -> EncodedLaunches:
    """The launches of ``res`` and their groups (:func:`~kernelscope.analysis.groups.launch_groups`), encoded
    apart (:func:`.documents.encode_fragment`) in ``lang``; ``f``: the formatter of ``lang`` to word them with
    (:func:`formatter`: one for all the parts of a selection, its texts worded once), None: a new one."""
    f = formatter(lang) if f is None else f
    return EncodedLaunches(
        launches=[encode_fragment(launch_doc(d, f), ITEM_INDENT) for d in res.kernels],
        groups=[(order_key(g), encode_fragment(group_doc(g, f), ITEM_INDENT)) for g in launch_groups(res)])


def formatter(lang: str) -> Fmt:
    """The formatter the JSON words its texts with, in ``lang``."""
    return Fmt(lang, NCU_STAMP_S)


def _document(results: Sequence[ReportDiagnosis], lang: str, encoded: Sequence[EncodedLaunches]) -> DiagnosisDoc:
    """The ``kernelscope.diagnosis/1`` document (see the module docstring), each input's launches and groups a
    :data:`.documents.HOLE` (none where it has none) for its ``encoded`` ones."""
    return DiagnosisDoc(
        schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
        inputs=[
            InputDoc(
                path=res.report.path, format=res.report.format, tool_version=res.report.tool_version,
                launch_count=len(res.report.kernels),
                summary=[KernelGroupDoc(name=g.name, launches=g.launches, total_duration_s=g.total_duration_s,
                                        share=g.share, unmeasured_launches=g.unmeasured_launches) for g in res.groups],
                launches=[HOLE] if enc.launches else [], groups=[HOLE] if enc.groups else [],  # type: ignore[list-item]
            )
            for res, enc in zip(results, encoded, strict=True)
        ],
    )


def to_json_text(results: Sequence[ReportDiagnosis], lang: str) -> str:
    """The document as indented JSON text (Chinese advice kept as UTF-8)."""
    return to_json_bytes(results, lang).decode("utf-8")


def to_json_bytes(results: Sequence[ReportDiagnosis], lang: str) -> bytes:
    """:func:`to_json_text` as the UTF-8 bytes written."""
    return b"".join(to_json_pieces(results, lang))


def to_json_pieces(results: Sequence[ReportDiagnosis], lang: str,
                   encoded: Sequence[EncodedLaunches] | None = None) -> list[bytes]:
    """:func:`to_json_bytes` in the pieces ``diagnose --format json`` writes as they are, one after the other.
    ``encoded``: each input's launches and groups encoded already (:func:`encode_launches`, in worker processes:
    ``results`` then need no diagnosed launches); None: encoded here. Either way each launch is encoded on its own
    and spliced in (:func:`.documents.encode_spliced`): the same bytes as the whole document encoded at once."""
    if encoded is None:
        f = formatter(lang)
        encoded = [encode_launches(res, lang, f) for res in results]
    filled = []
    for enc in encoded:
        if enc.launches:
            filled.append(enc.launches)
        if enc.groups:
            filled.append([item for _, item in sorted(enc.groups, key=lambda g: g[0])])
    return encode_spliced(_document(results, lang, encoded), filled, ITEM_INDENT)

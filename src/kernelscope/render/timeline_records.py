"""Text and JSON of what the readers repaired and of the one-off API costs in ``kernelscope timeline``: the
"Records repaired" line (an end clipped at the next start on its stream: which record, how much was removed), the
"One-off costs" table of a summary (context creation in a first call, module loading: shown apart from per-call
costs) and the utilisation cell of a device whose span is zero (not measurable, never 100 %). No analysis here;
:mod:`kernelscope.render.timeline` places these in its views.
"""

from __future__ import annotations

from ..analysis.timeline import TimelineReport, TimeSplit
from ..notes import Note
from .common import Fmt, safe
from .documents.timeline import OneOffCallDoc, RepairedRecordDoc


def utilisation_cell(f: Fmt, d: TimeSplit) -> str:
    """A device's utilisation, or "not measurable (zero span)" when its span is zero."""
    return f.label("tl_util_zero_span") if d.utilisation_pct is None else f.pct(d.utilisation_pct)


#: The readers' repair reasons (:mod:`kernelscope.ingest.records`) -> their label, worded in each language.
_REPAIR_LABELS = {"end past the start of the next operation on its stream": "tl_repair_clipped",
                  "annotation range ending past the last recorded event": "tl_repair_overlong"}


def repaired_text(rep: TimelineReport, f: Fmt) -> str | None:
    """The repaired records, one clause each (None when there are none)."""
    if not rep.repaired:
        return None

    def reason(text: str) -> str:
        key = next((k for start, k in _REPAIR_LABELS.items() if text.startswith(start)), None)
        return f.note(Note(key, {})) if key is not None else safe(text)

    return f.semi.join(f.note(Note("tl_repaired_item", {
        "n": r.count, "kind": f.label(f"tl_record_{r.kind}"), "name": safe(r.name), "device": r.device, "stream": r.stream,
        "reason": reason(r.reason), "removed": f.time(r.removed_ns * 1e-9)})) for r in rep.repaired)


def one_off_rows(rep: TimelineReport, f: Fmt) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the one-off costs table (rows empty when there are none)."""
    head = [f.label("tl_name"), f.label("tl_one_off_calls"), f.label("total_time"), f.label("tl_one_off_why"),
            f.label("tl_one_off_rest"), f.label("tl_one_off_rest_time")]
    rows = [[safe(o.name), f"{o.calls} / {o.total_calls}", f.time(o.time_s), f.label(f"tl_one_off_{o.why}"),
             str(o.per_call_calls), f.time(o.per_call_s) if o.per_call_calls else "-"] for o in rep.one_off_calls]
    return head, rows


def repaired_docs(rep: TimelineReport) -> list[RepairedRecordDoc]:
    """The repaired records as documents."""
    return [RepairedRecordDoc(kind=r.kind, name=r.name, reason=r.reason, device=r.device, stream=r.stream,
                              count=r.count, removed_ns=r.removed_ns, max_removed_ns=r.max_removed_ns,
                              correlation_ids=list(r.correlation_ids)) for r in rep.repaired]


def one_off_docs(rep: TimelineReport) -> list[OneOffCallDoc]:
    """The one-off costs as documents."""
    return [OneOffCallDoc(name=o.name, why=o.why, calls=o.calls, time_s=o.time_s,  # type: ignore[arg-type]
                          total_calls=o.total_calls, per_call_calls=o.per_call_calls, per_call_s=o.per_call_s,
                          median_s=o.median_s, ratio_to_median=o.ratio_to_median) for o in rep.one_off_calls]

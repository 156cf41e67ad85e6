"""Text of the per-device / per-rank shares and the Amdahl scopes of ``kernelscope timeline``
(:mod:`kernelscope.analysis.timeline.scopes`): the "largest time black hole" headline (worded from the very row of
the rankings it names), the per-device table, the GPU idle row and the caption saying what each projection is of.
No analysis here; :mod:`kernelscope.render.timeline` places these in its views.
"""

from __future__ import annotations

import re

from typing import Sequence

from ..analysis.timeline import Amdahl, ItemStat, ScopeShare, TimelineReport
from ..notes import Note
from .common import Fmt, safe


def _speed(value: float | None, lang: str) -> str | None:
    """A speedup in words: "1.67x" / "1.67×", "∞" when unbounded, None when not computed."""
    if value is None:
        return None
    return Fmt(lang).factor(value)  # one precision for every speedup (common.factor)


def where(f: Fmt, rank: int | None, device: int | None) -> str:
    """"rank 1, device 1" / "device 0" / "rank 3" in the language of ``f``."""
    if device is None:
        return f.label("tl_where_rank", rank=f.label("tl_rank_not_recorded") if rank is None else rank)
    if rank is None:
        return f.label("tl_where_device", device=device)
    return f.label("tl_where_rank_device", rank=rank, device=device)


def _gone(a: Amdahl | None) -> tuple[float | None, float | None, float | None]:
    """(time before, time when gone, speedup when gone) of a projection (None where not known)."""
    if a is None or a.base_s is None or not a.projected_s:
        return None, None, None
    return a.base_s, a.projected_s[-1], a.speedups[-1]


#: A graph's replay as the timeline names it (:data:`~kernelscope.timeline_model.GRAPH_REPLAY_NAME`).
GRAPH_REPLAY = re.compile(r"CUDA graph (\S+) \(replay\)")


def black_hole_note(rep: TimelineReport, lang: str) -> Note | None:
    """The headline: the black hole worded with its row's own figures (one device: the program share; several:
    the device where it weighs most and the whole program, each named)."""
    b = rep.black_hole
    if b is None:
        return None
    sp = b.amdahl.speedups if b.amdahl is not None else (None, None, None)
    category = b.category
    if lang == "zh" and category in ("kernel", "memcpy", "memset", "communication"):  # the word ("gemm（Kernel）")
        category = Fmt(lang).label(f"tl_category_{category}")
    name = b.name
    replay = GRAPH_REPLAY.fullmatch(name) if lang == "zh" else None
    if replay is not None:  # "CUDA Graph 1（重放）", not "CUDA graph 1 (replay)（Kernel）"
        name, category = f"CUDA Graph {replay.group(1)}", Fmt(lang).label("rec_replay")
    values = {"name": name, "category": category, "time_s": b.time_s,
              "pct": (b.program_fraction * 100.0) if b.program_fraction is not None else None,
              "s2": sp[0], "s10": sp[1], "sinf": _speed(sp[-1], lang)}
    lane = b.lane
    if b.category == "communication":
        base, after, _ = _gone(b.amdahl)
        f = Fmt(lang)
        where_text = "" if lane is None or b.lanes < 2 else f.label(
            "tl_comm_where", n=b.lanes, lane_s=f.time(lane.busy_s), where=where(f, lane.rank, lane.device))
        key = "tl_black_hole_comm" if len(rep.ranks) > 1 else "tl_black_hole_comm_devices"
        return Note(key, values | {"base_s": base, "after_s": after, "where_text": where_text})
    if lane is not None and b.lanes > 1:
        base, after, _ = _gone(b.amdahl)
        lane_base, lane_after, lane_inf = _gone(lane.amdahl)
        f = Fmt(lang)
        values |= {"n": b.lanes, "where": where(f, lane.rank, lane.device), "lane_s": lane.busy_s,
                   "lane_pct": lane.share_pct, "lane_base_s": lane_base, "lane_after_s": lane_after,
                   "lane_sinf": _speed(lane_inf, lang), "base_s": base, "after_s": after}
        if b.category == "gpu_idle":
            api = "" if b.host_api is None else f.label("tl_idle_api_init" if b.host_api_once else "tl_idle_api",
                                                        api=safe(b.host_api), time=f.time(b.host_api_s))
            key = "tl_black_hole_idle_lanes" if len(rep.ranks) > 1 else "tl_black_hole_idle_lanes_devices"
            return Note(key, values | {"api_text": api})
        return Note("tl_black_hole_lanes", values)
    if b.category == "gpu_idle":
        key = "tl_black_hole_idle" if b.host_api is None else (
            "tl_black_hole_idle_init" if b.host_api_once else "tl_black_hole_idle_api")
        if key != "tl_black_hole_idle_init" and sp[0] is not None and sp[-1] is not None and round(
                sp[0], 2) == round(sp[-1], 2):
            key += "_capped"  # half and all give the same: only as much as the GPU works can be hidden; said once
            if round(sp[-1], 2) <= 1.0:  # and that is nothing as printed: said so, never "at most 1.00x"
                key = key.replace("_capped", "_none")
        if lane is not None:  # the idle share of the wall (what hiding it saves is in the projection)
            values["pct"] = lane.share_pct
        return Note(key, values | {"api": b.host_api, "api_s": b.host_api_s})
    if lane is not None and lane.exclusive_s is not None and lane.exclusive_s < lane.total_s:
        return Note("tl_black_hole_overlap", values | {"excl_s": lane.exclusive_s})
    return Note("tl_black_hole", values)


class Captioned(str):
    """A table's title, then its caption in parts, each saying what some columns are of (:attr:`parts`: the text
    and the headers of the columns it describes; no header: a part that always stays); a narrow terminal that
    drops a column leaves out the parts of the columns it dropped (:meth:`shown`). :attr:`head` is the title alone
    (a Markdown heading), :meth:`caption` the rest (a line below it)."""

    head: str
    parts: tuple[tuple[str, tuple[str, ...]], ...]
    sep: str

    @classmethod
    def build(cls, head: str, parts: Sequence[tuple[str, Sequence[str]]], sep: str) -> "Captioned":
        """``head``, then each (text, headers of the columns it describes) of ``parts`` after ``sep``."""
        kept = tuple((text, tuple(cols)) for text, cols in parts if text)
        out = cls(sep.join([head] + [text for text, _ in kept]))
        out.head, out.parts, out.sep = head, kept, sep
        return out

    def caption(self, headers: Sequence[str] | None = None) -> str:
        """The caption's parts (those of the columns among ``headers``; every part without it)."""
        return self.sep.join(text for text, cols in self.parts
                             if headers is None or not cols or any(h in cols for h in headers))

    def shown(self, headers: Sequence[str], before: Sequence[str] | None = None) -> str:
        """The title for a table that shows ``headers``: the parts of the columns it dropped left out; a part of a
        split table after the first (``before``: the headers the parts before it showed), "… (continued)" and only
        the parts of the columns it is the first to show (the caption is not said twice)."""
        if before is None:
            caption = self.caption(headers)
            return self.head + (self.sep + caption if caption else "")
        from .common import label

        lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in self.head) else "en"
        fresh = [h for h in headers if h not in before]
        caption = self.sep.join(text for text, cols in self.parts if cols and any(h in cols for h in fresh)
                                and not any(h in cols for h in before))
        head = label("fit_continued", lang).format(head=self.head)
        return head + (self.sep + caption if caption else "")


#: The program columns of a ranking (``timeline._item_rows``): its caption says what they are of while one is shown.
PROGRAM_COLUMNS = ("tl_program_share", "tl_if_2x", "tl_if_10x", "tl_if_inf")
#: The same of the GPU idle row, whose program share is of the part hiding that time can save (at most each
#: rank's GPU busy time: ``gpu_idle_row``), not of the idle time its share column gives: its header says so, and
#: its last column is the time hidden, not gone (native review 13: "占比 95.2%" beside "程序占比 4.8%").
PROGRAM_COLUMNS_IDLE = ("tl_program_share_idle", "tl_if_2x", "tl_if_10x", "tl_if_hidden")


def program_columns(items: Sequence[ItemStat]) -> tuple[str, ...]:
    """The label keys of a ranking's program columns (:data:`PROGRAM_COLUMNS`; the GPU idle row's:
    :data:`PROGRAM_COLUMNS_IDLE`)."""
    return PROGRAM_COLUMNS_IDLE if any(it.kind == "gpu_idle" for it in items) else PROGRAM_COLUMNS


def program_caption(items: Sequence[ItemStat]) -> str:
    """The label key naming a ranking's program columns in its caption (:func:`amdahl_caption`'s ``cols``)."""
    return "tl_cols_program_idle" if program_columns(items) == PROGRAM_COLUMNS_IDLE else "tl_cols_program"


def amdahl_caption(items: Sequence[ItemStat], f: Fmt, ranks: bool = True, cols: str = "tl_cols_program") -> str:
    """What the "of program" / "if" columns of a ranking are of, in words ("" when nothing is projected), named
    by ``cols`` (a label listing those columns); ``ranks``: whether the input has several ranks (else its devices
    are what the slowest of ends the program)."""
    a = next((it.amdahl for it in items if it.amdahl is not None), None)
    if a is None:
        return ""
    key = {"exclusive": "tl_basis_exclusive", "serial": "tl_basis_serial", "host": "tl_basis_host",
           "no_gpu_work": "tl_basis_idle", "exposed_communication": "tl_basis_comm"}.get(a.basis, "tl_basis_serial")
    if not ranks and key in ("tl_basis_idle", "tl_basis_comm"):
        key += "_devices"
    return f.label(key, time=f.time(a.base_s), cols=f.label(cols))


def _x(a: Amdahl | None, i: int, f: Fmt) -> str:
    """Column ``i`` of a per-device projection: the device's time after and the speedup, "50.00 ms (3x)"."""
    if a is None or not a.projected_s:
        return "-"
    return f.time(a.projected_s[i]) + f.paren(_speed(a.speedups[i], f.lang) or "-")


def lane_rows(rep: TimelineReport, f: Fmt, top: int) -> tuple[list[str], list[list[str]]]:
    """The per-device table: on each device (in the device table's order), its kernels, copies and memsets that
    weigh most there (by the share of the device's time they would save), with their share of the device's time
    (its rank's wall) and the projection of that device's time. Empty with one device."""
    by_lane: dict[tuple[int | None, int | None], list[tuple[ScopeShare, ItemStat]]] = {}
    for it in rep.kernels + rep.copies + rep.memsets:
        for s in it.devices:
            by_lane.setdefault((s.rank, s.device), []).append((s, it))
    multi_rank = any(d.rank is not None for d in rep.devices)
    head = [f.label("tl_name")] + ([f.label("tl_rank")] if multi_rank else []) + [
        f.label("tl_device"), f.label("total_time"), f.label("tl_device_share"), f.label("tl_alone"),
        f.label("tl_device_time"), f.label("tl_device_if_2x"), f.label("tl_if_10x"), f.label("tl_if_inf")]
    if len(by_lane) < 2:
        return head, []
    per = min(top, 5 if len(by_lane) <= 2 else 3)
    rows = []
    for d in rep.devices:
        shares = sorted(by_lane.get((d.rank, d.device), []),
                        key=lambda p: (-(p[0].amdahl.fraction if p[0].amdahl is not None else 0.0), -p[0].busy_s))
        for s, it in shares[:per]:
            cells = [safe(it.name)] + ([f.label("tl_rank_not_recorded") if s.rank is None else str(s.rank)]
                                       if multi_rank else [])
            cells += [str(s.device), f.time(s.total_s), f.pct(s.share_pct), f.time(s.exclusive_s), f.time(s.time_s),
                      _x(s.amdahl, 0, f), _x(s.amdahl, 1, f), _x(s.amdahl, -1, f)]
            rows.append(cells)
    return head, rows

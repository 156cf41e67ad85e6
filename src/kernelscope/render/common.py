"""Shared formatting for the renderers: number formats, labels in the chosen language, and the
label/value rows that the table and Markdown renderers lay out. No analysis here."""

from __future__ import annotations

import math
import string

from typing import Any, Callable, Mapping

from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.engine import Finding
from ..analysis.nsight import AGREE, KERNELSCOPE_ONLY, NO_COUNTERPART, NSIGHT_ONLY
from ..knowledge import check_lang
from ..knowledge.stalls import describe
from ..knowledge.findings import findings
from ..knowledge.plausibility import implausible_note, implausible_text
from ..knowledge.libraries import family
from ..knowledge.messages import phrase
from ..knowledge.remedies import remedy
from ..knowledge.text import class_text, fill, glue, label, labels, limiter_name, note_text, pipe_name
from ..knowledge.units import unit
from ..notes import Note


_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float, unit: str = "", digits: int | None = 3, sep: str = " ") -> str:
    """``value`` with a decimal SI prefix: ``si(3.22e12, "FLOP/s") == "3.22 TFLOP/s"``; ``digits`` significant
    digits (None: as short as exact, for axis ticks), ``sep`` between the number and the prefixed unit."""
    if math.isinf(value):
        return f"∞{sep}{unit}".rstrip()
    spec = "g" if digits is None else f".{digits}g"
    scale, prefix = next(((s, p) for s, p in _PREFIXES if abs(value) >= s), (1.0, ""))
    return f"{value / scale:{spec}}{sep}{prefix}{unit}".rstrip()


_CONTROL = dict.fromkeys(range(32), "?") | {127: "?"}


def safe(text: str) -> str:
    """Text from an input file with control characters (ESC, newlines...) replaced, safe for a terminal."""
    return text if type(text) is str and text.isprintable() else str(text).translate(_CONTROL)  # (printable: none)


def md_code(text: str) -> str:
    """``text`` (already one Markdown-safe line) as an inline code span that survives backticks in it (SASS, C++
    templates): CommonMark's longer fence, and a space inside it when the text starts or ends with one."""
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


#: Widest kernel name a table cell shows whole (:func:`short_name`).
NAME_WIDTH = 60


def short_name(name: str, width: int = NAME_WIDTH) -> str:
    """A kernel name for a table cell (:func:`safe`): whole when it fits in ``width`` characters; else without a
    leading ``void``, each template argument list elided to ``<…>``, then the parameter list to ``(…)``; still too
    long, the qualifying scopes are cut from the left (``…::kernel<…>(…)``), a name without scopes in its middle.
    JSON keeps names whole."""
    text = safe(name)
    if len(text) <= width:
        return text
    text = text.removeprefix("void ")
    for opener, closer in (("<", ">"), ("(", ")")):
        if len(text) > width:
            text = _elide(text, opener, closer)
    if len(text) <= width:
        return text
    if "::" in text:  # keep the function, cut the scopes
        return "…" + text[len(text) - width + 1:]
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def _elide(text: str, opener: str, closer: str) -> str:
    """``text`` with each outermost ``opener``...``closer`` group replaced by ``opener…closer``; unchanged when
    the brackets do not balance (``operator<``, ``->``)."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == opener:
            if depth == 0:
                out.append(opener + "…" + closer)
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth < 0:
                return text
        elif depth == 0:
            out.append(ch)
    return "".join(out) if depth == 0 else text


def factor(value: float | None, digits: int = 2) -> str:
    """A speedup or ratio: ``"1.67x"``, ``"∞"`` when unbounded (an item that disappears), ``"-"`` when unknown."""
    if value is None or math.isnan(value):
        return "-"
    return "∞" if math.isinf(value) else f"{value:.{digits}f}x"


def memo_key(note: Note) -> tuple | None:
    """A key that tells apart every note that could be worded differently (values by type, the sign of a zero), or
    None when a value is not a plain number, string or None (it is then worded every time)."""
    items: list = [note.key]
    for k, v in note.values.items():
        if v is None or isinstance(v, str):
            items.append((k, v))
        elif type(v) in (int, float, bool):
            items.append((k, type(v), v, math.copysign(1.0, v) if type(v) is float else 0))
        else:
            return None
    return tuple(items)


#: Punctuation that joins the parts of a sentence: English keeps its half-width marks, Chinese uses full-width ones.
_PUNCT = {
    "en": {"semi": "; ", "comma": ", ", "colon": ": ", "open": " (", "close": ")", "stop": ". ", "range": " .. ",
           "arrow": " -> "},
    "zh": {"semi": "；", "comma": "，", "colon": "：", "open": "（", "close": "）", "stop": "。", "range": "～",
           "arrow": " → "},
}


#: The tool that writes each input format (its label): names a report's profiler ("Nsight Compute 2025.1.0").
_TOOLS = {"ncu": "method_ncu", "nvprof": "method_nvprof", "nsys": "method_nsys", "kineto": "method_pytorch"}


class Fmt:
    """Formats values for one language; None prints as "not measured" in that language. Sentences assembled from
    parts join them with :attr:`semi`, :attr:`comma`, :meth:`paren`, :meth:`head`: half-width in English,
    full-width in Chinese."""

    def __init__(self, lang: str) -> None:
        self.lang = check_lang(lang)
        self.nm = label("not_measured", lang)
        self._notes: dict[tuple | str, str] = {}  # worded notes by (key, values) or bare key: launches repeat the same findings
        self._texts: dict[tuple, str] = {}  # finding titles and advice (:meth:`_worded`)
        self.note_docs: dict[tuple | str, Any] = {}  # a note's JSON document by bare key or memo_key (json.notes)
        p = _PUNCT[self.lang]
        self.semi, self.comma, self.colon, self.stop = p["semi"], p["comma"], p["colon"], p["stop"]
        self._open, self._close, self._range = p["open"], p["close"], p["range"]
        self.arrow = p["arrow"]  # before -> after: " -> " / " → "

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    def paren(self, text: str) -> str:
        """`` (text)`` in English, ``（text）`` in Chinese (put after what it explains, without a space)."""
        return f"{self._open}{text}{self._close}"

    def head(self, title: str, text: str) -> str:
        """``title: text`` / ``title：text``."""
        return f"{title}{self.colon}{text}"

    def span(self, low: str, high: str) -> str:
        """A range of two values: ``low .. high`` / ``low～high``."""
        return f"{low}{self._range}{high}"

    def spaced(self, *parts: str) -> str:
        """``parts`` joined by spaces in English; in Chinese without one between two Chinese characters."""
        if not self.zh:
            return " ".join(parts)
        out = ""
        for part in parts:
            out = glue(glue(out, " "), part) if out else part
        return out

    def factor(self, value: float | None, digits: int = 2) -> str:
        """A speedup or ratio: ``"1.67x"`` / ``"1.67×"``, ``"∞"`` when unbounded, ``"-"`` when unknown."""
        text = factor(value, digits)
        return text[:-1] + "×" if self.zh and text.endswith("x") else text

    def launches(self, n: int) -> str:
        """How many launches a duration sums: ``x3`` / ``（3 次）``."""
        return self.label("launch_count", n=n)

    def bounds(self, classes) -> str:
        """Bottleneck classes at once: "memory-bound + compute-bound" / "访存与计算均受限"; "not measured" for none."""
        titles = [self.bound(c) for c in classes]
        if not titles:
            return self.nm
        if not self.zh or len(titles) == 1:
            return " + ".join(titles)
        stems = [t.removesuffix("受限") for t in titles]
        if all(t.endswith("受限") for t in titles):
            return "、".join(stems[:-1]) + "与" + stems[-1] + "均受限"
        return "、".join(titles)

    def made_by(self, fmt: str, version: str | None) -> str:
        """What wrote an input: "ncu-rep, profiler 2025.1.0"; in Chinese the tool is named when the format says it
        ("ncu-rep, Nsight Compute 2025.1.0")."""
        return f"{fmt}, {self.tool_version(fmt, version)}" if version else fmt

    def tool_version(self, fmt: str, version: str | None) -> str:
        """The profiler that wrote an input of format ``fmt`` with its version: "profiler 2025.1.0" /
        "Nsight Compute 2025.1.0" (the tool named in Chinese, as the glossary says); "not measured" without one."""
        if not version:
            return self.nm
        tool = _TOOLS.get(fmt.split("-")[0]) if self.zh and not version[:1].isalpha() else None
        return self.label("profiler_named", tool=self.label(tool) if tool else "", version=version).strip()

    def profiler_cell(self, fmt: str, version: str | None) -> str:
        """The "Profiler version" cell of the HTML pages: the version ("2025.1.0"); in Chinese with the tool named
        (采集工具："Nsight Compute 2025.1.0")."""
        return self.tool_version(fmt, version) if self.zh else version or self.nm

    def limiters(self, names) -> str:
        """Occupancy limiters at once: "registers + shared memory" / "寄存器和共享内存"."""
        words = [self.limiter(n) for n in names]
        return " + ".join(words) if not self.zh or len(words) < 2 else "、".join(words[:-1]) + "和" + words[-1]

    def sol_values(self, compute: float | None, memory: float | None) -> str:
        """"compute 31.4%, memory 77.1%"; in Chinese "计算、访存均未测量" when neither was measured."""
        if self.zh and compute is None and memory is None:
            return self.label("sol_values_none")
        return self.label("sol_values", c=self.pct(compute), m=self.pct(memory))

    def label(self, key: str, **kw: object) -> str:
        text = label(key, self.lang)
        return fill(text, kw, self.lang) if kw else text  # None: "not measured", inf: "∞"

    def time(self, seconds: float | None) -> str:
        if seconds is None:
            return self.nm
        scale, unit = next(((s, u) for s, u in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")) if seconds >= s), (1e-9, "ns"))
        text = f"{seconds / scale:#.4g}"
        if self.zh and text.rstrip("0").endswith("."):  # a whole number: "9 µs", not "9.000 µs"
            text = text.rstrip("0").rstrip(".")
        return f"{text} {unit}"

    def pct(self, value: float | None, digits: int = 1) -> str:
        return self.nm if value is None else f"{value:.{digits}f}%"

    def share(self, fraction: float | None) -> str:
        return self.nm if fraction is None else f"{fraction * 100:.1f}%"

    def flops(self, value: float | None, pipe: str | None = None) -> str:
        """A rate of work: FLOP/s, or OP/s for an integer ``pipe`` (INT8 tensor cores: TOP/s, as the roofline)."""
        return self.nm if value is None else si(value, "OP/s" if pipe and pipe.startswith("int") else "FLOP/s")

    def intensity(self, value: float | None) -> str:
        if value is None:
            return self.nm
        return "∞ FLOP/B" if math.isinf(value) else f"{value:.3g} FLOP/B"

    def pipe(self, pipe: str) -> str:
        return pipe_name(pipe, self.lang)

    def bound(self, bound: str | None) -> str:
        return self.nm if bound is None else class_text(bound, "title", self.lang)

    def problem(self, text: str) -> str:
        """A data problem a reader recorded in English (``problems``, an invalid record's reason), in this
        language (``messages.toml`` ``[phrase]``: :func:`kernelscope.knowledge.messages.phrase`)."""
        return phrase(text, self.lang)

    def note(self, note: Note | str) -> str:
        """A finding (a :class:`Note`, or a bare note key such as a roofline ``not_measured`` entry)."""
        if isinstance(note, str):  # (worded once: a bare key has no values; keys of the memo below are tuples)
            if note not in self._notes:
                self._notes[note] = note_text(note, {}, self.lang)
            return self._notes[note]
        memo = memo_key(note)
        text = self._notes.get(memo) if memo is not None else None
        if text is None:
            text = safe(note_text(note.key, self.words(note.key, note.values), self.lang))
            if memo is not None:
                self._notes[memo] = text
        return text

    def words(self, key: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """A note's values with ids worded in this language (classes, pipes, units, limiters, stall reasons,
        load/store) and ``*_s`` durations formatted."""
        values = dict(values)
        for k in ("roofline", "sol", "bound"):
            if k in values:
                values[k] = self.bound(values[k])
        for k in ("pipe", "used", "tensor_pipe"):
            if k in values:
                values[k] = self.pipe(values[k])
        if isinstance(values.get("unit"), str):
            values["unit"] = self.unit(values["unit"])
        if "op" in values:
            entry = labels().op.get(values["op"])
            values["op"] = values["op"] if entry is None else entry.get(self.lang)
        if "limiter" in values:
            values["limiter"] = self.limiter(values["limiter"])
        if "reason" in values:
            values["reason"] = self.stall_name(values["reason"])
        if key == "cmp_slower" and values.get("speedup"):  # "耗时为优化前的 55.3 倍", not "慢了 5430%"
            values["times"] = 1.0 / values["speedup"]
        if key == "cmp_class":
            for k in ("before", "after"):
                if values[k] is not None:
                    values[k] = self.bounds(values[k].split(" + "))
        for k, v in list(values.items()):
            if k.endswith("_s") and isinstance(v, (int, float)):
                values[k] = self.time(v)
            elif (k.endswith("_mb") or k == "gb") and isinstance(v, (int, float)):  # bytes as the tables show them
                values[k] = si(v * 1e9, "B", 3) if k == "gb" else si(v * 1e6, "B", 4)
        return values

    def notes(self, notes) -> str:
        return self.semi.join(self.note(n) for n in notes)

    def limiter(self, name: str) -> str:
        return limiter_name(name, self.lang)

    def stall_name(self, reason: str) -> str:
        r = describe(reason)
        return safe(r.display_name_zh if self.lang == "zh" else r.display_name)

    def occupancy_step(self, values: Mapping[str, Any]) -> str:
        """The next occupancy step of an ``occupancy_limited`` finding ("registers/thread 128 -> 96 gives 20
        warps"), or, when no single change helps, the language's "cap registers / shared memory" sentence."""
        if values.get("step_parameter") is None:
            return self.label("occ_next_step_none")
        param = {"registers_per_thread": "occ_regs_per_thread", "shared_mem_per_block_bytes": "occ_smem_per_block",
                 "threads_per_block": "occ_threads_per_block"}
        current, proposed = values["step_current"], values["step_proposed"]
        if values["step_parameter"] == "shared_mem_per_block_bytes":
            current, proposed = f"{current} B", f"{proposed} B"
        return self.label("occ_step_short", param=self.label(param[values["step_parameter"]]), current=current,
                          proposed=proposed, warps=values["step_warps"])

    def unit(self, unit_id: str) -> str:
        """A hardware unit of ``data/units.toml`` by id, in this language (a raw metric name stays as it is)."""
        try:
            return unit(unit_id).name(self.lang)
        except KeyError:
            return unit_id

    def finding_values(self, finding: Finding) -> dict[str, Any]:
        """A finding's message values worded in this language (see :meth:`words`), with the occupancy step."""
        values = self.words(finding.message.key, finding.message.values)
        if finding.id == "occupancy_limited":
            values["step"] = self.occupancy_step(values)
        if finding.remedies:  # the remedy that fits the kernel and the GPU (chosen by the rule)
            values["remedy"] = self.remedy_text(finding.remedies, values)
        if finding.id == "nothing_worthwhile":  # the largest gain's finding, by its title
            values["best_title"] = self.finding_title(str(finding.message.values["best_id"]))
        if finding.id == "library_kernel":  # the family's advice, with the launch's busiest unit
            limiter = values.get("limiter")
            values["advice"] = fill(family(str(values["family_id"])).advice(self.lang),
                                    {"limiter": self.nm if limiter is None else self.spaced(self.unit(str(limiter)),
                                                                                             self.pct(values.get("limiter_pct")))},
                                    self.lang)
        if finding.id == "not_collected":  # the sections the report lacks, and what each would show
            values["shown"] = self.semi.join(self.label(f"gap_{name}") for name in str(values["sections"]).split())
        return values

    def remedy_text(self, ids: tuple[str, ...], values: Mapping[str, Any]) -> str:
        """The remedies ``ids`` (``data/remedies.toml``) in this language, filled with ``values`` and joined as
        sentences (a number the values lack prints as "not measured", never as a raw template field)."""
        parts = []
        for i in ids:
            text = remedy(i).text(self.lang)
            fields = {name: None for _, name, _, _ in string.Formatter().parse(text) if name}
            parts.append(fill(text, {**fields, **values}, self.lang))
        return safe(("" if self.zh else " ").join(parts))

    def _worded(self, what: str, ident: str, finding: Finding | None, make: Callable[[], str]) -> str:
        """``make()``, worded once per (what, ident, the finding's id, message and remedies: what decides it)."""
        message = () if finding is None else memo_key(finding.message)
        if message is None:  # a value that is not a plain one: worded every time
            return make()
        key = (what, ident) if finding is None else (what, ident, finding.id, message, finding.remedies)
        if key not in self._texts:
            self._texts[key] = make()
        return self._texts[key]

    def finding_title(self, finding_id: str, finding: Finding | None = None) -> str:
        """The title of a root-cause finding (``data/findings.toml``) filled with ``finding``'s values; a finding
        without an entry there (a class rule) is named by its bottleneck class, else its message, else its
        ``rule_ID`` label; its id only when none is known. Worded once per distinct finding."""
        return self._worded("title", finding_id, finding, lambda: self._finding_title(finding_id, finding))

    def _finding_title(self, finding_id: str, finding: Finding | None) -> str:
        text = findings().get(finding_id)
        if text is None and finding is not None:
            return self.bound(finding.bound) if finding.bound else self.note(finding.message)
        if text is None:
            return label(f"rule_{finding_id}", self.lang) if f"rule_{finding_id}" in labels().label else finding_id
        values = self.finding_values(finding) if finding is not None else {}
        try:
            return safe(fill(text.title(self.lang), values, self.lang))
        except (KeyError, IndexError):  # a title template whose values this caller does not have
            return finding_id

    def gain(self, finding: Finding, program_share: float | None) -> str:
        """"est. 1.80x this kernel, 12.3% of GPU time saved" for a prediction, "at most 1.80x this kernel, ..." for
        an upper bound; a gain smaller than the finding's own estimate (its marginal gain after the findings listed
        above it) says so: "est. 1.30x this kernel after the above (1.64x alone)". ``program_share``: the Amdahl
        program gain 0-1, or None when unknown. "not estimated" without an estimate."""
        if finding.estimated_speedup is None:
            return self.label("not_estimated")
        x = finding.gain if finding.gain is not None else finding.estimated_speedup
        key = "est_kernel_bound" if finding.estimate_kind == "upper_bound" else "est_kernel"
        out = self.label(key, x=x)
        if x < finding.estimated_speedup - 0.005:
            out += self.label("est_after", alone=finding.estimated_speedup)
        if program_share is not None:
            out += self.comma + self.label("est_program", p=self.share(program_share))
        return out

    def advice(self, advice_id: str, finding: Finding | None = None) -> str:
        """The advice text of an advice id; ``finding:<id>`` advice is worded with ``finding``'s numbers. Worded
        once per distinct finding."""
        return self._worded("advice", advice_id, finding, lambda: self._advice(advice_id, finding))

    def _advice(self, advice_id: str, finding: Finding | None) -> str:
        kind, _, rest = advice_id.partition(":")
        if kind == "finding":
            values = self.finding_values(finding) if finding is not None else {}
            return safe(fill(findings()[rest].action(self.lang), values, self.lang))
        if kind == "class":  # the class's remedies that hold for the launch, with the numbers of the finding
            ids = finding.remedies if finding is not None else ()
            values = self.words(finding.message.key, finding.message.values) if finding is not None else {}
            return self.remedy_text(ids, values)
        r = describe(rest)
        return self.head(self.stall_name(rest), r.advice_zh if self.zh else r.advice_en)


def summary_rows(result: ReportDiagnosis, f: Fmt) -> list[tuple[str, str, str, str]]:
    """(kernel, launches, total time, share) per kernel name, largest first."""
    return [
        (safe(g.name), str(g.launches), f.time(g.total_duration_s if g.launches > g.unmeasured_launches else None), f.share(g.share))
        for g in result.groups
    ]


def unit_line(d: KernelDiagnosis, f: Fmt, top: int = 3) -> str | None:
    """"compute: LSU pipe 84.0%, FMA pipe 22.0%; memory: L1/TEX cache 85.1%, ..." (the ``top`` busiest units of
    each side), or None when the profile has no Speed-of-Light breakdown."""
    parts = []
    for side, loads in (("compute", d.limiters.compute), ("memory", d.limiters.memory)):
        if loads:
            units = f.comma.join(f.spaced(f.unit(u.unit) if u.unit else safe(u.metric), f.pct(u.pct)) for u in loads[:top])
            parts.append(f.head(f.label('side_' + side), units))
    return f.semi.join(parts) or None


def level_line(d: KernelDiagnosis, f: Fmt) -> str | None:
    """Each measured memory level with its % of peak, bytes, hit rate and arithmetic intensity, then the level
    closest to its peak; None when no level was measured."""
    items = []
    for lv in d.levels:
        extra = [si(lv.bytes, "B")] if lv.bytes is not None else []
        if lv.hit_rate_pct is not None:
            extra.append(f.label("level_hit", v=f.pct(lv.hit_rate_pct)))
        if lv.arithmetic_intensity_flop_per_byte is not None:
            extra.append(f.intensity(lv.arithmetic_intensity_flop_per_byte))
        items.append(f.spaced(level_name(lv.level, f), f.pct(lv.throughput_pct)) + (f.paren(f.comma.join(extra)) if extra else ""))
    if not items:
        return None
    lim = d.limiting_level
    return f.semi.join(items) + ("" if lim is None else f.stop + f.label("level_limiting", name=level_name(lim.level, f)))


def level_name(level: str, f: Fmt) -> str:
    """A memory level's name in ``f``'s language (``l1``, ``l2``, ``dram`` are units of ``data/units.toml``)."""
    return f.label("level_shared") if level == "shared" else f.unit(level)


def nsight_line(d: KernelDiagnosis, f: Fmt) -> str | None:
    """Nsight Compute's stored findings beside ours, grouped: both found, only Nsight, no kernelscope rule, only
    kernelscope; None when the report stores no rule results that fired."""
    groups: dict[str, list[str]] = {AGREE: [], NSIGHT_ONLY: [], NO_COUNTERPART: [], KERNELSCOPE_ONLY: []}
    by_id = {x.id: x for x in d.findings}

    def ours(ids: tuple[str, ...]) -> str:
        return f.comma.join(f.finding_title(i, by_id.get(i)) for i in ids)

    for m in d.nsight_matches:
        est = "" if m.nsight_speedup_pct is None else f.paren(f.label("nsight_est", p=m.nsight_speedup_pct))
        if m.status == AGREE:
            groups[AGREE].append(f"{m.rule_id}{est} = {ours(m.findings)}")
        elif m.status == KERNELSCOPE_ONLY:
            groups[KERNELSCOPE_ONLY].append(ours(m.findings) + f.paren(m.rule_id))
        else:
            groups[m.status].append(f"{m.rule_id}{est}")
    keys = {AGREE: "nsight_agree", NSIGHT_ONLY: "nsight_only", NO_COUNTERPART: "nsight_no_counterpart",
            KERNELSCOPE_ONLY: "kernelscope_only"}
    parts = [f.label(keys[status], items=f.comma.join(items)) for status, items in groups.items() if items]
    return f.semi.join(parts) or None


def place(loc: Any, f: Fmt) -> str:
    """One location of a finding: ``file.cu:14`` (file name only) when the report has line information, else the
    instruction's offset in its function (``PC +0x1a0``), else its address."""
    if loc.file and loc.line:
        return safe(f"{loc.file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{loc.line}")
    if loc.offset is not None:
        return f.label("located_pc", offset=loc.offset)
    return f"PC {loc.pc:#x}"


def places(d: KernelDiagnosis, finding_id: str, f: Fmt) -> str | None:
    """"where: readWriteOffset.cu:14 (87.2%), ..." for a located finding (share of its per-instruction metric), or
    None when it has no locations."""
    locs = d.locations.get(finding_id)
    if not locs:
        return None
    return f.label("located_at", places=f.comma.join(place(x, f) + f.paren(f.share(x.share)) for x in locs))


def advice_lines(d: KernelDiagnosis, f: Fmt) -> list[str]:
    """The advice, most important first: a root cause as "title [est. gain]: action. where: file:line (share)"
    (in Chinese three sentences, "title。gain。action" : the action has a colon of its own), a fallback paragraph
    as its text."""
    out = []
    for a in d.advice_findings:
        text = f.advice(a.advice, a)  # type: ignore[arg-type]
        if a.advice.startswith("finding:") and a.severity == "info":  # what the report lacks: no gain to state
            text = f"{f.finding_title(a.id, a)}。{text}" if f.zh else f"{f.finding_title(a.id, a)}: {text}"
        elif a.advice.startswith("finding:"):  # type: ignore[union-attr]
            title, gain = f.finding_title(a.id, a), f.gain(a, d.program_gain(a))
            text = f"{title}。{gain}。{text}" if f.zh else f"{title} [{gain}]: {text}"
            where = places(d, a.id, f)
            if where is not None:
                text = f.spaced(text, where)
        out.append(text)
    return out


def useful_line(d: KernelDiagnosis, f: Fmt) -> str | None:
    """"1.07 GFLOP of 1.24 GFLOP executed (86.3%): 2.15 TFLOP/s / attainable ..., efficiency ...; 12.3 FLOP/B": the
    point of the useful FLOPs the user gave beside the executed ones; None when none were given."""
    u, r = d.useful_roofline, d.roofline
    if u is None or u.flops is None:
        return None
    executed = r.flops if r is not None else None
    return f.label("useful_line", useful=si(u.flops, "FLOP"), executed=f.nm if executed is None else si(executed, "FLOP"),
                   share=f.share(u.flops / executed if executed else None), achieved=f.flops(u.achieved_flops_per_s),
                   attainable=f.flops(u.attainable_flops_per_s), eff=f.share(u.efficiency),
                   ai=f.intensity(u.arithmetic_intensity_flop_per_byte))


def data_rows(k: Any, f: Fmt) -> list[tuple[str, str]]:
    """The launch's implausible values (each with its raw value and reason, in ``f``'s language) and its other data
    problems (the implausible values' own English lines left out of those)."""
    rows = []
    if k.implausible:
        rows.append((f.label("implausible"), f.notes(implausible_note(x) for x in k.implausible)))
    said = {implausible_text(x, "en") for x in k.implausible}
    problems = [p for p in k.problems if p not in said]
    if problems:
        rows.append((f.label("problems"), safe(f.semi.join(map(f.problem, problems)))))
    return rows


def kernel_notes(d: KernelDiagnosis) -> list[Note | str]:
    """The launch's notes: the diagnosis's, then the keys of what its roofline could not measure."""
    notes: list[Note | str] = list(d.notes)
    explained = any("tensor" in n.key or n.key == "no_fp_counters" for n in d.notes)
    r = d.roofline
    if r is not None:
        notes += [m for m in r.not_measured if not (explained and m == "flops_not_measured")
                  and not (m == "efficiency_undefined" and "roofline_not_applicable" in r.not_measured)]
    return notes


def notes_text(d: KernelDiagnosis, f: Fmt) -> str | None:
    """:func:`kernel_notes` worded in ``f``'s language, or None without any."""
    notes = kernel_notes(d)
    return f.notes(notes) if notes else None


def kernel_title(d: KernelDiagnosis) -> str:
    """One-line title: ``[index] name``."""
    return safe(f"[{d.kernel.index}] {d.kernel.name}")


def kernel_rows(d: KernelDiagnosis, f: Fmt, top_stalls: int = 5, verdict: bool = True, advice: bool = True) -> list[tuple[str, str]]:
    """Label/value rows describing one diagnosis, in reading order (``verdict`` / ``advice``: include the
    bottleneck row with its evidence / the advice rows; the HTML card shows those apart)."""
    k = d.kernel
    rows: list[tuple[str, str]] = []
    launch = k.launch
    if launch.grid is not None and launch.block is not None:
        shape = f"({', '.join(map(str, launch.grid))}) x ({', '.join(map(str, launch.block))})"
        if launch.registers_per_thread is not None:
            shape += f.comma + f.label("registers", n=launch.registers_per_thread)
        rows.append((f.label("launch_config"), shape))
    rows.append((f.label("duration"), f.time(k.duration_s)))
    rows.append((f.label("gpu"), safe(d.gpu.name) if d.gpu is not None else f.nm))
    rows.append((f.label("peaks"), f.notes(d.provenance)))
    rows.append((f.label("sol"), f.sol_values(d.sol.compute_pct, d.sol.memory_pct)))
    bound = f.bounds(d.verdict)
    evidence = d.evidence if d.classes else (d.sol.evidence if d.sol.bound is not None else ())
    if evidence:
        bound += f.paren(f.notes(evidence))
    if verdict:
        rows.append((f.label("bound"), bound))
    if d.ncu_bottleneck is not None:
        rows.append((f.label("nsight_says"), safe(d.ncu_bottleneck_title or "") + f.paren(f.bound(d.ncu_bottleneck))))
    units, levels = unit_line(d, f), level_line(d, f)
    if units is not None:
        rows.append((f.label("busiest_units"), units))
    if levels is not None:
        rows.append((f.label("memory_levels"), levels))
    r = d.roofline
    if r is not None:
        line = (f.intensity(r.arithmetic_intensity_flop_per_byte) + f.semi
                + f.spaced(f.label("ridge_point"), f.intensity(r.ridge_point_flop_per_byte)) + f.comma + f.pipe(r.pipe))
        if r.bound is not None:
            line += f.arrow + f.bound(r.bound)
        rows.append((f.label("arithmetic_intensity"), line))
        if r.achieved_flops_per_s is not None or r.attainable_flops_per_s is not None:
            est = f.paren(f.note("estimated_from_pipe")) if r.flops_estimated else ""
            rows.append((
                f.label("achieved"),
                f"{f.flops(r.achieved_flops_per_s, r.pipe)}{est} / "
                + f.spaced(f.label("attainable"), f.flops(r.attainable_flops_per_s, r.pipe))
                + f.comma + f.spaced(f.label("efficiency"), f.share(r.efficiency))
                + ("" if r.achieved_bytes_per_s is None else f"{f.semi}DRAM {si(r.achieved_bytes_per_s, 'B/s')}"),
            ))
    if (useful := useful_line(d, f)) is not None:
        rows.append((f.label("useful"), useful))
    occ = d.occupancy
    if occ is not None:
        line = f.note(Note("occupancy_line", {
            "t": f.pct(occ.occupancy_pct), "warps": occ.active_warps_per_sm, "max_warps": occ.max_warps_per_sm,
            "limiter": f.limiters(occ.limiters), "a": f.pct(k.achieved_occupancy_pct),
        }))
    else:
        line = f.label("occupancy_values", a=f.pct(k.achieved_occupancy_pct), t=f.pct(k.theoretical_occupancy_pct))
    if d.waves_per_sm is not None:
        line += f.semi + f.label("waves", w=d.waves_per_sm)
    if d.occupancy_notes:
        line += f.stop + f.notes(d.occupancy_notes)
    rows.append((f.label("occupancy"), line))
    if d.stalls is not None and d.stalls.shares:
        parts = [f.spaced(f.stall_name(s.reason), f.share(s.share_of_stalls)) for s in d.stalls.shares[:top_stalls]]
        if d.stalls.selected_value is not None and d.stalls.total:
            note = f.label("stalls_note", s=f.share(d.stalls.selected_value / d.stalls.total))
        else:
            note = f.label("stalls_note_plain")
        rows.append((f.label("stalls"), f.comma.join(parts) + f.paren(note)))
    else:
        rows.append((f.label("stalls"), f.nm))
    if (notes := notes_text(d, f)) is not None:
        rows.append((f.label("notes"), notes))
    rows += data_rows(k, f)
    nsight = nsight_line(d, f)
    if nsight is not None:
        rows.append((f.label("nsight_findings"), nsight))
    for i, text in enumerate(advice_lines(d, f) if advice else (), 1):
        rows.append((f.label("advice") if i == 1 else "", f"{i}. {text}"))
    return rows

"""Shared formatting for the renderers: number formats, labels in the chosen language, and the
label/value rows that the table and Markdown renderers lay out. No analysis here."""

from __future__ import annotations

import math
import re
import string

from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..analysis.engine import Finding
from ..knowledge import check_lang
from ..knowledge.stalls import describe
from ..knowledge.findings import findings
from ..knowledge.libraries import family
from ..knowledge.messages import phrase
from ..knowledge.remedies import remedy
from ..knowledge.text import class_text, fill, glue, label, labels, limiter_name, note_text, pipe_name
from ..knowledge.units import unit, unit_of
from ..notes import Note
from .cells import NAME_WIDTH, safe, short_name, short_names  # noqa: F401
from .numbers import (PREFIXES, SIBLING_DURATIONS, THRESHOLDS, TIME_SCALES, alike, counts,  # noqa: F401
                      cuda_versions, data_size, durations, factor, negligible_gain, percent_column, set_value)




def integer_pipe(pipe: str) -> bool:
    """Whether a pipe of ``data/gpus.toml`` ``peak_flops_per_s`` does integer work (``int8_tensor``): OP/s."""
    return pipe.startswith("int")


def ops_unit(pipes: str | Iterable[str]) -> str:
    """The unit of a rate of work on ``pipes`` (one pipe or several): ``OP/s`` when all do integer work (INT8 tensor
    cores), else ``FLOP/s``. The one rule every output (tables, charts, JSON-free texts) names such a rate by."""
    names = (pipes,) if isinstance(pipes, str) else tuple(pipes)
    return "OP/s" if names and all(integer_pipe(p) for p in names) else "FLOP/s"


def unmeasured(values: Mapping[str, Any]) -> bool:
    """Whether a value named ``measured_*`` of a note or finding is None (the template's unmeasured variant)."""
    return any(k.startswith("measured_") and v is None for k, v in values.items())


def work_key(key: str, values: Mapping[str, Any]) -> str:
    """The note template that words a note's work in its kind: ``{key}__int`` (OP, OP/s, OP/B) where the note's
    pipe does integer work (INT8 tensor cores) and ``labels.toml`` has that variant, else ``key`` (FLOP); and
    ``{key}__unmeasured`` where a ``measured_*`` value is None and that variant exists (never "measured: not
    measured")."""
    if unmeasured(values) and f"{key}__unmeasured" in labels().note:
        return f"{key}__unmeasured"
    pipe = values.get("pipe")
    if isinstance(pipe, str) and integer_pipe(pipe) and f"{key}__int" in labels().note:
        return f"{key}__int"
    return key


def si(value: float, unit: str = "", digits: int | None = 3, sep: str = " ") -> str:
    """``value`` with a decimal SI prefix: ``si(3.22e12, "FLOP/s") == "3.22 TFLOP/s"``; ``digits`` significant
    digits (None: as short as exact, for axis ticks), ``sep`` between the number and the prefixed unit."""
    if math.isinf(value):
        return f"∞{sep}{unit}".rstrip()
    scale, prefix = next(((s, p) for s, p in PREFIXES if abs(value) >= s), (1.0, ""))
    text = f"{value / scale:g}" if digits is None else sig_figures(value / scale, digits)
    return f"{text}{sep}{prefix}{unit}".rstrip()


def sig_figures(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits, trailing zeros kept (``67.0``, ``4.00``, ``8.50``: siblings read
    in one precision, never ``67`` beside ``16.8``), never an exponent (``1979``, ``2050``)."""
    text = f"{value:#.{digits}g}"
    return f"{value:.0f}" if "e" in text else text.rstrip(".")


_LINE_BREAKS = re.compile(r"[ \t]*[\r\n\t\v\f]+[ \t]*")


def md_cell(text: object) -> str:
    """``text`` as one Markdown line or table cell: each line break (a wrapped value, a multi-line name) a
    single space, never a ``?`` (:func:`safe`), and ``|`` escaped."""
    text = str(text)

    def join(m: re.Match) -> str:  # no blank next to a Chinese character or full-width mark ("….gz（kineto）")
        around = text[m.start() - 1:m.start()] + text[m.end():m.end() + 1]
        return "" if any("\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in around) else " "

    return safe(_LINE_BREAKS.sub(join, text)).replace("|", "\\|")


def md_code(text: str) -> str:
    """``text`` (already one Markdown-safe line) as an inline code span that survives backticks in it (SASS, C++
    templates): CommonMark's longer fence, and a space inside it when the text starts or ends with one."""
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


#: ``diagnose --launches``: one panel per group of repeated launches (the default), or one per launch.
LAUNCH_VIEWS: tuple[str, ...] = ("grouped", "all")


def plain_number(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits without an exponent, trailing zeros kept: ``1.12``, ``12.8``,
    ``8.50``, ``2050`` (not ``2.05e+03``); from a million on, SI (``2.05 M``)."""
    if abs(value) >= 1e6:
        return si(value, "", digits)
    return sig_figures(value, digits)


#: Punctuation that joins the parts of a sentence: English keeps its half-width marks, Chinese uses full-width ones.
_PUNCT = {
    "en": {"semi": "; ", "comma": ", ", "colon": ": ", "open": " (", "close": ")", "stop": ". ", "range": " .. ",
           "arrow": " -> "},
    "zh": {"semi": "；", "comma": "，", "colon": "：", "open": "（", "close": "）", "stop": "。", "range": "～",
           "arrow": " → "},
}


#: The tool that writes each input format (its label): names a report's profiler ("Nsight Compute 2025.1.0").
_TOOLS = {"ncu": "method_ncu", "nvprof": "method_nvprof", "nsys": "method_nsys", "kineto": "method_pytorch"}


#: The value names :meth:`Fmt.words` words (besides ``*_s`` durations and ``*_mb`` / ``gb`` sizes), and the notes
#: whose values it words by their key.
_WORDED_VALUES = frozenset(("roofline", "sol", "bound", "pipe", "used", "tensor_pipe", "unit", "op", "limiter",
                            "family_id", "reason", "us"))
_WORDED_NOTES = frozenset(("cmp_slower", "f_nothing_worthwhile", "cmp_class", "cmp_unchanged"))


@lru_cache(maxsize=4096)
def _as_given(key: str, names: tuple[str, ...]) -> bool:
    """Whether :meth:`Fmt.words` leaves every value of a ``key`` note with these value names as it is."""
    return key not in _WORDED_NOTES and not any(
        n in _WORDED_VALUES or n.endswith(("_s", "_mb")) or n == "gb" for n in names)


#: The resolution of a kernel report's durations (Nsight Compute, nvprof: whole ns): a diagnosis words its
#: durations at it (152 000 ns is ``152.0 µs``, never ``152 µs`` beside ``153.2 µs``).
NCU_STAMP_S = 1e-9


class Fmt:
    """Formats values for one language; None prints as "not measured" in that language. Sentences assembled from
    parts join them with :attr:`semi`, :attr:`comma`, :meth:`paren`, :meth:`head`: half-width in English,
    full-width in Chinese."""

    def __init__(self, lang: str, stamp_s: float | None = None) -> None:
        self.lang = check_lang(lang)
        self.stamp_s = stamp_s  # the durations' source resolution where known (an ncu report: 1e-9), see times
        self._pinned: dict[float, str] = {}  # durations as a table column words them (:meth:`pin`)
        self.nm = label("not_measured", lang)
        self._notes: dict[tuple | str, str] = {}  # worded notes by (key, values) or bare key: launches repeat the same findings
        self._texts: dict[tuple, str] = {}  # finding titles and advice (:meth:`_worded`)
        self._values: dict[tuple, dict[str, Any]] = {}  # worded values of notes (:meth:`note_words`) ...
        self._finding_values: dict[tuple, dict[str, Any]] = {}  # ... and of findings (:meth:`finding_values`)
        self.note_docs: dict[tuple | str, Any] = {}  # a note's JSON document by bare key or Note.memo (json.notes)
        p = _PUNCT[self.lang]
        self.semi, self.comma, self.colon, self.stop = p["semi"], p["comma"], p["colon"], p["stop"]
        self._open, self._close, self._range = p["open"], p["close"], p["range"]
        self.arrow = p["arrow"]  # before -> after: " -> " / " → "

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    def paren(self, text: str) -> str:
        """`` (text)`` in English, ``（text）`` in Chinese, a bracket inside as a comma clause (``（Grid 过小，SM 空闲）``)."""
        text = re.sub(r"（([^（）]*)）", r"，\1", text) if self.zh else text
        return f"{self._open}{text}{self._close}"

    def head(self, title: str, text: str) -> str:
        """``title: text`` / ``title：text``."""
        return f"{title}{self.colon}{text}"

    def listing(self, items: Iterable[str]) -> str:
        """The items of a list (names, labels, "LSU 35%"): ``a, b, c`` in English, ``a、b、c`` in Chinese (the
        enumeration comma; ``，`` parts clauses)."""
        return self.listing_sep.join(items)

    @property
    def listing_sep(self) -> str:
        """What :meth:`listing` joins its items with: ``, `` / ``、``."""
        return "、" if self.zh else ", "

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

    def factor(self, value: float | None, digits: int = 2, whole: bool = False) -> str:
        """A speedup or ratio: ``"1.67x"`` / ``"1.67×"``, ``"∞"`` when unbounded, ``"-"`` when unknown; ``whole``: a
        bound that is a count prints whole where it is (``"16×"``, :func:`~kernelscope.render.numbers.factor`)."""
        text = factor(value, digits, whole)
        return text[:-1] + "×" if self.zh and text.endswith("x") else text

    def gain_factor(self, value: float | None, whole: bool = False) -> str:
        """A speedup as :meth:`factor`, but one that prints as 1.00x (no gain) is "negligible" / "可忽略"."""
        if negligible_gain(value):
            return self.label("nw_negligible")
        return self.factor(value, whole=whole)

    def launches(self, n: int) -> str:
        """How many launches a duration sums: ``x3`` / ``（3 次）``."""
        return self.label("launch_count", n=n)

    def bounds(self, classes) -> str:
        """Bottleneck classes at once: "memory-bound + compute-bound" / "访存与计算受限" (the
        form of each class, "X受限", never "均受限": "both are limited"); "not determined" for none (a
        verdict is derived, never measured: "not measured" would contradict the throughputs shown beside it)."""
        titles = [self.bound(c) for c in classes]
        if not titles:
            return self.label("bound_none")
        if not self.zh or len(titles) == 1:
            return " + ".join(titles)
        stems = [t.removesuffix("受限") for t in titles]
        if all(t.endswith("受限") for t in titles):
            return "、".join(stems[:-1]) + "与" + stems[-1] + "受限"
        return "、".join(titles)

    def made_by(self, fmt: str, version: str | None) -> str:
        """What wrote an input: "ncu-rep, profiler 2025.1.0" / "ncu-rep，Nsight Compute 2025.1.0"."""
        return f"{fmt}{self.comma}{self.tool_version(fmt, version)}" if version else fmt

    def grid_block(self, grid: Sequence[int] | None, block: Sequence[int] | None) -> str:
        """A launch's shape as its label names it ("Grid x Block" / "Grid × Block"): ``(128, 128, 1) x (32, 8, 1)``
        / ``(128, 128, 1) × (32, 8, 1)``; "not measured" without one."""
        if grid is None or block is None:
            return self.nm
        return f"({', '.join(map(str, grid))}){' × ' if self.zh else ' x '}({', '.join(map(str, block))})"

    def input_head(self, path: str, fmt: str, version: str | None, extra: str = "") -> str:
        """The input a report was read from, as the first line(s) of its output: the path on a line of its own (a
        long path folds alone, never inside a title or a sentence), then what wrote it in brackets (full-width in
        Chinese) and ``extra`` (a trace's title)."""
        return f"{safe(path)}\n{self.paren(self.made_by(fmt, version)).strip()}{extra}"

    def tool_version(self, fmt: str, version: str | None) -> str:
        """"profiler 2025.1.0" / "Nsight Compute 2025.1.0" (zh names the tool), or "not measured" without one."""
        if not version:
            return self.nm
        if self.zh and version[:1].isalpha():  # named parts ("Kineto trace schema 1, CUPTI 18"), each in Chinese
            return self.comma.join(self.problem(part) for part in cuda_versions(version).split(", "))
        tool = _TOOLS.get(fmt.split("-")[0]) if self.zh else None
        return self.label("profiler_named", tool=self.label(tool) if tool else "", version=cuda_versions(version)).strip()

    def profiler_cell(self, fmt: str, version: str | None) -> str:
        """The HTML pages' "Profiler version" cell: "2025.1.0" / "Nsight Compute 2025.1.0"."""
        return self.tool_version(fmt, version) if self.zh else version or self.nm

    def limiters(self, names) -> str:
        """Occupancy limiters at once: "registers + shared memory" / "寄存器和共享内存"."""
        return self.together([self.limiter(n) for n in names])

    def together(self, words: Sequence[str]) -> str:
        """Things that hold at once: "registers + shared memory" / "寄存器、共享内存和 Block 槽位" (the last one joined
        by 和, spaced as Chinese text is: a Latin word after 和 gets its space, :func:`glue`)."""
        if not self.zh or len(words) < 2:
            return " + ".join(words)
        return glue(glue("、".join(words[:-1]), "和"), words[-1])

    def occupancy(self, achieved: float | None, theoretical: float | None) -> str:
        """"achieved 25.0% of theoretical 50.0%"; with one of them unknown only the other, said so once ("achieved
        25.0% (theoretical not measured)"); "not measured" alone for neither."""
        if achieved is None and theoretical is None:
            return self.nm
        if achieved is None:
            return self.label("occupancy_theoretical_only", t=self.pct(theoretical))
        if theoretical is None:
            return self.label("occupancy_achieved_only", a=self.pct(achieved))
        a, t = self.pcts(achieved, theoretical)  # one sentence, one precision: 25.3% of 50.0%, never of 50%
        return self.label("occupancy_values", a=a, t=t)

    def sol_values(self, compute: float | None, memory: float | None) -> str:
        """"compute 31.4%, memory 77.1%"; in Chinese "计算、访存均未测量" when neither was measured."""
        if self.zh and compute is None and memory is None:
            return self.label("sol_values_none")
        return self.label("sol_values", c=self.pct(compute), m=self.pct(memory))

    def label(self, key: str, **kw: object) -> str:
        text = label(key, self.lang)
        return fill(text, kw, self.lang) if kw else text  # None: "not measured", inf: "∞"

    def count(self, value: float | None) -> str:
        """A large count, one way everywhere: ``131 k``, ``16.3 M`` (SI, three digits) / ``13.1 万``, ``1630 万``,
        ``4.85 亿`` (Chinese readers count by 万 and 亿); below 10 000 the whole number (``9920``). An exact value
        drops its zero decimals (``14 万``); see :meth:`counts` for counts shown together."""
        return self.counts(value)[0]

    def counts(self, *values: float | None) -> list[str]:
        """Counts shown together (a table column, before -> after) as :meth:`count`, but those of one unit (万 / 亿,
        k / M) in one precision: three significant digits of the largest, zeros kept where another needs them
        (``14.0 万`` beside ``15.1 万``, never ``14 万``); below 10 000 each the whole number."""
        return counts(values, self.zh, self.nm)

    def table_count(self, value: float | None) -> str:
        """A count in a table's count column (samples, executed instructions): the whole number, in every language
        (``9939``, ``15212``, ``131072``), never 万 / k beside a raw one in the same column (native review 13:
        "1.52 万" above "9939"); :meth:`count` words a count in prose (``共 1.87 万个``)."""
        return self.nm if value is None else f"{value:.0f}"

    def time(self, seconds: float | None) -> str:
        """A duration in its natural unit (the one that puts it in [1, 1000): ``2.621 ms``, ``302 µs``), four
        significant digits in every language (``374.0 µs``, ``5.400 ms``: zeros kept), no decimal below the source's
        resolution (a whole-µs ``5 µs``, not ``5.000 µs``); as a table printed it where :meth:`pin` remembered it;
        nothing at all is a bare ``0``."""
        if seconds is not None and seconds in self._pinned:  # as the table printed it (:meth:`pin`)
            return self._pinned[seconds]
        return self.times(seconds)[0]

    def pin(self, seconds: Sequence[float | None], texts: Sequence[str]) -> None:
        """Remember how a table column words its durations (``texts``, one per value of ``seconds``), so that
        :meth:`time` words the same value the same way elsewhere (a panel's ``99.1 µs`` as its table row, never
        ``99.14 µs`` beside a table's ``99.1 µs``)."""
        self._pinned.update((s, t) for s, t in zip(seconds, texts) if s)

    def times(self, *seconds: float | None) -> list[str]:
        """Durations shown together (a row's total / mean / min / max, before -> after), the rules of
        :func:`~kernelscope.render.numbers.durations`: units by magnitude, each value in its own natural unit at four
        significant digits, as it reads alone (``2.621 ms / 436.8 µs / 97 µs``, never ``0.437 ms`` beside
        ``2.621 ms``; ``1.000 ms`` and ``5.400 ms``: zeros kept; ``8 µs / 2.667 µs / 2 µs`` for whole-µs stamps and
        their mean; ``29.18 µs / 972.8 ns``). Nothing at all is a bare ``0``; None is "not measured"."""
        return durations(seconds, self.nm, label("pct_below", self.lang), self.stamp_s)

    def pct(self, value: float | None, digits: int = 1) -> str:
        """A percentage (0-100), ``43.3%``; a whole one without decimals (``50%``), one its decimals round to 0
        as ``< 0.1%`` / ``不足 0.1%`` (never ``0.0%``): the rule of :func:`~kernelscope.knowledge.text.fill` too."""
        return self.nm if value is None else fill(f"{{v:.{digits}f}}%", {"v": value}, self.lang)

    def pcts(self, *values: float | None, digits: int = 1) -> list[str]:
        """Percentages shown together (before -> after, one sentence) as :meth:`pct`, in one precision: where one
        needs its decimals a whole one keeps them too (``50.0% -> 41.7%``, never ``50% -> 41.7%``)."""
        return percent_column([self.pct(v, digits) for v in values])

    def share(self, fraction: float | None) -> str:
        """A fraction (0-1) as :meth:`pct`."""
        return self.nm if fraction is None else self.pct(fraction * 100)

    def flops(self, value: float | None, pipe: str | None = None) -> str:
        """A rate of work: FLOP/s, or OP/s for an integer ``pipe`` (INT8 tensor cores: TOP/s, as the roofline); no
        FP work at all (0 FLOP/s) is "not applicable (no FP work)"."""
        if value == 0 and not pipe:
            return self.label("no_fp_na")
        return self.nm if value is None else si(value, ops_unit(pipe or ()))

    def intensity(self, value: float | None, pipes: str | Iterable[str] = ()) -> str:
        """Arithmetic intensity: FLOP/B, or OP/B for integer ``pipes`` (:func:`ops_unit`)."""
        if value is None or (value == 0 and not pipes):
            return self.nm if value is None else self.label("no_fp_na")  # 0 FLOP/B: no FP work
        unit = ops_unit(pipes).replace("/s", "/B") if pipes else "FLOP/B"
        return f"∞ {unit}" if math.isinf(value) else f"{plain_number(value)} {unit}"

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
        memo = note.memo
        text = self._notes.get(memo) if memo is not None else None
        if text is None:
            text = safe(note_text(work_key(note.key, note.values), self.note_words(note), self.lang))
            if memo is not None:
                self._notes[memo] = text
        return text

    def words(self, key: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """A note's values with ids worded in this language (classes, pipes, units, limiters, stall reasons,
        load/store) and ``*_s`` durations formatted, each alone (:meth:`time`) but a before -> after pair together (:meth:`times`)."""
        values = dict(values)
        if _as_given(key, tuple(values)):  # (no value this worded: most notes of a diagnosis)
            return values
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
        if "family_id" in values:
            values["family"] = family(values["family_id"]).title(self.lang)
        if "reason" in values:
            values["reason"] = self.stall_name(values["reason"])
        if key == "cmp_slower" and values.get("speedup"):  # "耗时为优化前的 55.3×", not "慢了 5430%"
            values["times"] = 1.0 / values["speedup"]
        if key == "f_nothing_worthwhile" and isinstance(values.get("best"), (int, float)):  # never "1.00x"
            values["best_gain"] = self.gain_factor(values["best"])
            values["best_at_most"] = (self.label("nw_at_most_none") if negligible_gain(values["best"]) else
                                      self.label("nw_at_most", x=self.factor(values["best"])))
        if key == "cmp_class":
            for k in ("before", "after"):
                if values[k] is not None:
                    values[k] = self.bounds(values[k].split(" + "))
        if isinstance(values.get("us"), (int, float)):  # a launch's duration in µs, worded as every duration
            values["us_time"] = self.time(values["us"] * 1e-6)
        elif "us" in values:
            values["us_time"] = self.nm
        durations = {k for k, v in values.items() if k.endswith("_s") and isinstance(v, (int, float))}
        for group in SIBLING_DURATIONS:  # one quantity before -> after: one resolution (:meth:`times`)
            if durations.issuperset(group):
                values.update(zip(group, self.times(*(values[k] for k in group))))
                durations.difference_update(group)
        for k in durations:  # any other duration alone: a value reads the same in every sentence of a report
            values[k] = self.time(values[k]) if k not in THRESHOLDS else set_value(self.time(values[k]))
        if key == "cmp_unchanged":  # equal as printed: "no change (20.05 µs)", never "20.05 µs -> 20.05 µs, 1.00x"
            values["change"] = note_text("cmp_no_change" if values["before_s"] == values["after_s"] else
                                         "cmp_same_within", {"t": values["before_s"], **values}, self.lang)
        for k, v in list(values.items()):
            if (k.endswith("_mb") or k == "gb") and isinstance(v, (int, float)):  # bytes as the tables show them
                values[k] = data_size(v * (1e9 if k == "gb" else 1e6))
        return values

    def note_words(self, note: Note) -> dict[str, Any]:
        """:meth:`words` of a note's values, worked out once per distinct note (:attr:`.Note.memo`)."""
        return self._kept(self._values, note.memo, lambda: self.words(note.key, note.values))

    @staticmethod
    def _kept(store: dict, key: tuple | None, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``make()`` worked out once per ``key`` (None: every time), a new dict each time (callers add to it)."""
        if key is None:
            return make()
        if key not in store:
            store[key] = make()
        return dict(store[key])

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
        regs = values["step_parameter"] == "registers_per_thread"  # (a cap on what the compiler chose: spills)
        return self.label("occ_step_regs_short" if regs else "occ_step_short",
                          param=self.label(param[values["step_parameter"]]), current=current, proposed=proposed,
                          warps=values["step_warps"])

    def unit(self, unit_id: str) -> str:
        """A hardware unit of ``data/units.toml`` by id, in this language; a breakdown sub-metric the file does not
        list is named by the unit its counter belongs to (:func:`kernelscope.knowledge.units.unit_of`), and stays as
        it is only when none is known."""
        try:
            return unit(unit_id).name(self.lang)
        except KeyError:
            named = unit_of(unit_id, "memory")
            return unit_id if named is None else named.name(self.lang)

    def finding_values(self, finding: Finding) -> dict[str, Any]:
        """A finding's message values worded in this language (see :meth:`words`), with the occupancy step; worked
        out once per distinct finding (its id, message and remedies decide them: its text, title and advice)."""
        memo = finding.message.memo
        return self._kept(self._finding_values, None if memo is None else (finding.id, memo, finding.remedies),
                          lambda: self._values_of(finding))

    def _values_of(self, finding: Finding) -> dict[str, Any]:
        values = self.note_words(finding.message)
        if finding.id == "occupancy_limited":
            values["step"] = self.occupancy_step(values)
        if finding.remedies:  # the remedy that fits the kernel and the GPU (chosen by the rule)
            values["remedy"] = self.remedy_text(finding.remedies, values)
        if finding.id == "nothing_worthwhile":  # the largest gain's finding, by its title
            values["best_title"] = self.finding_title(str(finding.message.values["best_id"]))
        if finding.id == "library_kernel":  # the family's advice, with the launch's busiest unit
            limiter = values.get("limiter")
            fam = family(str(values["family_id"]))
            # the busiest unit leads the advice (measured first, then what to do), not a sentence tacked on its end
            values["busiest"] = self.nm if limiter is None else self.spaced(self.unit(str(limiter)),
                                                                            self.pct(values.get("limiter_pct")))
            values["advice"] = fill(fam.advice(self.lang),
                                    {"precision": fam.precision(self.lang) if values.get("precision_step", True) else ""},
                                    self.lang)
        if finding.id == "waste_not_collected":  # the limiting pipe, by its name
            values["unit"] = self.unit(str(values["unit"]))
        if values.get("cap_unit") is not None:  # a stall finding capped by a unit: that unit, and who sizes its relief
            values["cap_unit"] = self.unit(str(values["cap_unit"]))
            relief = values.get("relief_id")
            title = self.bound(str(values["relief_bound"])) if values.get("relief_bound") else (
                self.finding_title(str(relief)) if relief is not None else None)
            values["relief"] = (self.label("stall_relief_none") if title is None else
                                self.label("stall_relief", title=title))
            mean = values.get("cap_mean_pct")  # (the cap at the unit's busiest instance: its average beside it)
            values["cap_where"] = "" if mean is None or f"{values['cap_pct']:.0f}" == f"{mean:.0f}" else \
                self.label("stall_cap_busiest", mean=mean)
        if finding.id in ("not_collected", "waste_not_collected"):  # the sections it lacks, what each would show
            gaps = [self.label(f"gap_{name}") for name in str(values["sections"]).split()]
            values["shown"] = (self.label("gap_one", a=gaps[0]) if len(gaps) == 1 else
                               self.label("gap_many", a=gaps[0], b=self.label("gap_also").join(gaps[1:])))
        return values

    def remedy_text(self, ids: tuple[str, ...], values: Mapping[str, Any]) -> str:
        """The remedies ``ids`` (``data/remedies.toml``) filled with ``values`` (one they lack: "not measured")."""
        parts = []
        for i in ids:
            text = remedy(i).text(self.lang)
            fields = {name: None for _, name, _, _ in string.Formatter().parse(text) if name}
            parts.append(fill(text, {**fields, **values}, self.lang))
        return safe(("" if self.zh else " ").join(parts))

    def _worded(self, what: str, ident: str, finding: Finding | None, make: Callable[[], str]) -> str:
        """``make()``, worded once per (what, ident, the finding's id, message and remedies: what decides it)."""
        message = () if finding is None else finding.message.memo
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
        except (KeyError, IndexError):  # a title template whose values this caller does not have: its name
            return safe(text.name(self.lang))

    def gain(self, finding: Finding, program_share: float | None) -> str:
        """"est. 1.80x this kernel, 12.3% of GPU time saved" for a prediction, "at most 1.80x this kernel, ..." for
        an upper bound; a gain smaller than the finding's own estimate (its marginal gain after the findings listed
        above it) says so: "est. 1.30x this kernel after the above (1.64x alone)". ``program_share``: the Amdahl
        program gain 0-1, or None when unknown (0: not stated). "not estimated" without an estimate."""
        if finding.estimated_speedup is None:
            return self.label("not_estimated")
        x = finding.gain if finding.gain is not None else finding.estimated_speedup
        out = self.estimate(x, finding.estimate_kind)
        if negligible_gain(x) and negligible_gain(finding.estimated_speedup):
            return out
        if x < finding.estimated_speedup - 0.005:
            out += self.label("est_after", alone=finding.estimated_speedup)
        if program_share:  # nothing saved after the above: the 1.00x says it, not "0% of GPU time saved"
            # an upper bound on the kernel bounds the program's saving too: "at most" on both, never on one
            bound = "_bound" if finding.estimate_kind == "upper_bound" else ""
            out += self.comma + self.label(f"est_program{bound}", p=self.share(program_share))
        return out

    def estimate(self, x: float, kind: str | None) -> str:
        """A kernel's estimated speedup ``x``: "est. 1.80x this kernel", "at most 1.80x this kernel" for an upper
        bound (``kind`` "upper_bound"); one that prints as 1.00x is "negligible gain" / "收益可忽略" (never "1.00x")."""
        if negligible_gain(x):
            return self.label("est_negligible")
        return self.label("est_kernel_bound" if kind == "upper_bound" else "est_kernel", x=x)

    def advice(self, advice_id: str, finding: Finding | None = None) -> str:
        """The advice text of an advice id; ``finding:<id>`` advice is worded with ``finding``'s numbers. Worded
        once per distinct finding."""
        return self._worded("advice", advice_id, finding, lambda: self._advice(advice_id, finding))

    def _advice(self, advice_id: str, finding: Finding | None) -> str:
        kind, _, rest = advice_id.partition(":")
        if kind == "finding":
            values = self.finding_values(finding) if finding is not None else {}
            capped = values.get("cap_unit") is not None
            action = findings()[rest].action(self.lang, capped, unmeasured(values))
            return safe(fill(action, values, self.lang))
        if kind == "class":  # the class's remedies that hold for the launch, with the numbers of the finding
            ids = finding.remedies if finding is not None else ()
            values = self.note_words(finding.message) if finding is not None else {}
            return self.remedy_text(ids, values)
        r = describe(rest)
        if r.remedies and finding is not None:  # (the remedies that hold for the launch)
            return self.head(self.stall_name(rest), self.remedy_text(finding.remedies, {}))
        return self.head(self.stall_name(rest), r.text("advice", self.lang))


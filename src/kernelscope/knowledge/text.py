"""Words in the user's language: report labels, finding templates (``labels.toml``) and the bottleneck
classes' titles, meanings and advice (``verdicts.toml`` ``[class.*]``), in English and Chinese."""

from __future__ import annotations

import math
import re
import string
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any, Mapping

from ..notes import Listed
from . import Model, check_lang, load
from .counts import counts
from .criteria import verdicts


class Text(Model, kw_only=True):
    """One text in both languages."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        """The text in ``lang`` ("en" / "zh"). Raises ValueError for another language."""
        return self.zh if check_lang(lang) == "zh" else self.en


class Labels(Model, kw_only=True):
    """``labels.toml``: report labels (``label``), occupancy limiter names (``limiter``), pipe names (``pipe``)
    and finding templates (``note``: Python format strings filled by a :class:`kernelscope.notes.Note`)."""

    label: dict[str, Text]
    op: dict[str, Text] = {}
    limiter: dict[str, Text]
    pipe: dict[str, Text]
    note: dict[str, Text]


def labels() -> Labels:
    """The validated ``labels.toml``."""
    return load("labels.toml", Labels)


def label(key: str, lang: str) -> str:
    """A report label in the requested language, e.g. ``label("duration", "zh")``.

    Raises:
        KeyError: for an unknown label; ValueError: for an unsupported language.
    """
    return labels().label[key].get(lang)


def limiter_name(key: str, lang: str) -> str:
    """An occupancy limiter ("registers", "shared_mem", ...) in ``lang``; unknown keys are returned as given."""
    entry = labels().limiter.get(key)
    return key if entry is None else entry.get(lang)


def pipe_name(key: str, lang: str) -> str:
    """A compute pipe ("fp32", "fp16_tensor", ...) in ``lang``; unknown keys are returned as given."""
    entry = labels().pipe.get(key)
    return key if entry is None else entry.get(lang)


def class_text(bound: str, field: str, lang: str) -> str:
    """Text of one bottleneck class: ``field`` is ``"title"`` or ``"meaning"`` (its advice is built from remedies:
    :func:`class_remedies`).

    Raises:
        KeyError: for an unknown class; ValueError: for an unsupported language.
    """
    return getattr(verdicts().classes[bound], f"{field}_{check_lang(lang)}")


def class_remedies(bound: str) -> tuple[str, ...]:
    """The remedy ids of bottleneck class ``bound``'s paragraph, in order (``data/remedies.toml``). Raises KeyError
    for an unknown class."""
    return verdicts().classes[bound].remedies


def note_text(key: str, values: Mapping[str, Any], lang: str) -> str:
    """A finding worded in ``lang`` from the ``[note]`` templates of ``labels.toml``.

    None values print as the language's "not measured"; a field that a sentence cannot take as "not measured" in
    its middle has its own wording when it is None: the note ``{key}__no_{field}`` (the first such field that is
    None). Raises KeyError for an unknown key.
    """
    notes = labels().note
    missing = next((f"{key}__no_{k}" for k, v in values.items() if v is None and f"{key}__no_{k}" in notes), None)
    return fill(notes[missing or key].get(lang), values, lang)


def fill(template: str, values: Mapping[str, Any], lang: str) -> str:
    """``template.format(**values)``, with None printed as the language's "not measured" whatever the format spec,
    and an infinite number as "∞" (a factor "∞x" / "∞×" / "∞ 倍" as "∞"), never "inf"; a :class:`Listed` value as
    the language lists it.

    In Chinese each field is glued to the text around it by :func:`glue`: no space between two Chinese characters
    (a template's "受限于 {limiter}" filled with "寄存器" reads "受限于寄存器"), one between a Chinese character and a
    Latin letter or digit ("来自{unit}" filled with "L2 缓存" reads "来自 L2 缓存")."""
    if ":C}" in template:  # counts, worded as every table words them (2830 万 / 28.3 M), never 2.83e+07
        template, values = _counted(template, values, lang)
    parts, template, tenths = _plan(template)
    vals = values.values()
    if lang == "zh" and any(isinstance(v, Listed) for v in vals):
        values = {k: v.joined(lang) if isinstance(v, Listed) else v for k, v in values.items()}
        vals = values.values()
    plain = None not in vals and _INF not in vals and -_INF not in vals  # (== compares: any float type)
    nm, below = _words(lang)
    if plain:
        nm = None
    if tenths:
        parts = _whole(parts, values, tenths)
    if parts is None:  # (attribute or index fields, nested specs: the general formatter)
        text = _general(template, values, lang, nm, below)
    elif lang == "zh":
        text = ""
        for literal, field, spec, conversion in parts:
            text = glue(text, literal)
            if field is not None:
                text = glue(text, _field(values[field], spec, conversion, nm, below))
    else:  # (a plain string field with no spec or conversion prints as it is: most fields of most sentences)
        text = agree("".join(literal if field is None else
                             literal + (v if type(v := values[field]) is str and not spec and conversion is None else
                                        _field(v, spec, conversion, nm, below))
                             for literal, field, spec, conversion in parts))
    if plain:
        return text
    text = text.replace(f"{nm}%", nm)
    return text.replace("∞x", "∞").replace("∞×", "∞").replace("∞ 倍", "∞")


_INF = math.inf


@lru_cache(maxsize=4096)
def _plan(template: str) -> tuple[tuple | None, str, tuple[str, ...]]:
    """(:func:`_simple` parts, the template with its percentages marked: :func:`_percents`, its one-decimal fields:
    :func:`_whole`) of a :func:`fill` template, worked out once per template."""
    marked = _percents(template)
    parts = _simple(marked)
    return parts, marked, () if parts is None else tuple(f for _, f, spec, _ in parts if f is not None and spec == ".1f")


@lru_cache(maxsize=8)
def _words(lang: str) -> tuple[str, str]:
    """(the "not measured" text, the "below the shown decimals" template) of ``lang``, looked up once."""
    return label("not_measured", lang), label("pct_below", lang)


def _whole(parts: tuple, values: Mapping[str, Any], fields: tuple[str, ...] | None = None) -> tuple:
    """``parts`` of :func:`_simple` with each one-decimal field (``{x:.1f}``) whose value shows as a whole number
    (its one decimal a zero) printed without it (``32 倍``, ``加载每次请求 16.5 个扇区，存储 32 个，只需 4 个``,
    never ``32.0 个``: a whole count's ``.0`` is no measured digit), the others at their one decimal. ``fields``: those one-decimal fields,
    when the caller knows them."""
    if fields is None:
        fields = tuple(field for _, field, spec, _ in parts if field is not None and spec == ".1f")
    if not fields:
        return parts

    def whole(v: Any) -> bool:  # (shown whole: 31.98 sectors is "32" beside a whole "32", never "32.0 and 32")
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and \
            format(v, ".1f").endswith(".0")

    return tuple((literal, field, ".0f" if spec == ".1f" and whole(values[field]) else spec, conv)
                 for literal, field, spec, conv in parts)


def _general(template: str, values: Mapping[str, Any], lang: str, nm: str | None, below: str) -> str:
    """:func:`fill` of a template with attribute or index fields (``{a.b}``, ``{a[0]}``) or nested specs, through
    :class:`string.Formatter` (before the not-measured and infinity replacements)."""
    formatter = _PlainFormatter(below) if nm is None else _NotMeasuredFormatter(nm, below)
    if lang != "zh":
        return agree(formatter.format(template, **values))
    text = ""
    for literal, field, spec, conversion in _parsed(template):
        text = glue(text, literal)
        if field is not None:
            value = formatter.convert_field(formatter.get_field(field, (), values)[0], conversion)
            text = glue(text, formatter.format_field(value, spec or ""))
    return text


def _field(value: Any, spec: str, conversion: str | None, nm: str | None, below: str) -> str:
    """One field of a :func:`_simple` template as :class:`_PlainFormatter` (``nm`` None) or
    :class:`_NotMeasuredFormatter` (``nm``: the "not measured" text) formats it."""
    if conversion:
        value = repr(value) if conversion == "r" else ascii(value) if conversion == "a" else str(value)
    if nm is not None:
        if value is None:
            return nm
        if _infinite(value):
            return "∞" if value > 0 else "-∞"
    return _number(value, spec, below)


def half_up(value: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, a tie rounded up as a reader rounds (``6.25`` -> ``6.3``, as ``18.75`` ->
    ``18.8``; ``format`` rounds the binary value to even and prints ``6.2``): the decimal the value prints as
    (its shortest repr) is what is rounded."""
    shown = repr(value)
    point = shown.find(".")
    if type(value) is float and point >= 0 and "e" not in shown and not (
            len(shown) - point - 1 == digits + 1 and shown[-1] == "5"):
        # not a tie at the rounded digit: the binary value rounds as its shortest repr does (a decimal between the
        # two would be a shorter repr)
        return format(value, f".{digits}f")
    return str(Decimal(shown).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _number(value: Any, spec: str, below: str) -> str:
    """``format(value, spec)``, except that a ``g`` field never prints an exponent below a million (``{ai:.3g}`` of
    2050 is ``2050``, not ``2.05e+03``) and that a percentage (``{s:.1%}``, ``{pct:.1fP}%`` of :func:`_percents`)
    prints a whole value without decimals (``50%``, not ``50.0%``), one above zero that its decimals would round
    to zero as ``below`` (``labels.toml`` ``pct_below``: ``< 0.1%``, never ``0.0%``) and one below 100 that they
    would round to 100 as ``pct_above`` (``> 99.9%``, never ``100.0%``: 100% is all of it, exactly). ``{x:.4S}``: a
    measured ratio (waves per SM) in four significant digits and two decimals at most (``170.7``, ``9.48``,
    ``0.44``; never ``170.67`` nor ``0.4444``)."""
    if not spec:  # (most fields)
        return format(value, spec)
    last = spec[-1]
    if last == "S" and isinstance(value, (int, float)) and math.isfinite(value):  # {w:.4S}: see the docstring
        top = abs(float(f"{value:.{spec[1:-1]}g}")) or 1.0
        return f"{value:.{min(2, max(int(spec[1:-1]) - 1 - math.floor(math.log10(top)), 0))}f}"
    if (last == "%" or last == "P" and spec.endswith("fP")) and isinstance(value, (int, float)) \
            and not isinstance(value, bool):
        percent = last == "%"
        pct = value * 100 if percent else value
        if math.isfinite(pct) and abs(pct - round(pct)) < 1e-9:
            return f"{round(pct)}%" if percent else f"{round(pct)}"
        tiny = 10.0 ** -int(spec[1])
        if 0 < pct < tiny / 2:
            text = below.format(x=f"{tiny:.{spec[1]}f}")
            return text if percent else text.removesuffix("%")
        if 100 - tiny / 2 <= pct < 100 and spec[1] != "0":  # 99.97% is "> 99.9%", never "100.0%" beside a whole 100%
            text = _above(below).format(x=f"{100 - tiny:.{spec[1]}f}")
            return text if percent else text.removesuffix("%")
        spec = spec.removesuffix("P")
        if spec[:1] == "." and spec[1:-1].isdigit() and spec[-1] in "f%" and math.isfinite(pct):
            return half_up(pct, int(spec[1:-1])) + ("%" if percent else "")
    text = format(value, spec)
    if last == "g" and "e+" in text and isinstance(value, (int, float)) and abs(value) < 1e6:
        return f"{value:.0f}"
    return text


@lru_cache(maxsize=8)
def _above(below: str) -> str:
    """The "above the shown decimals" template (``labels.toml`` ``pct_above``: ``> 99.9%``) of the language whose
    ``pct_below`` is ``below`` (English's where no language has it)."""
    return next((label("pct_above", lang) for lang in ("en", "zh") if label("pct_below", lang) == below),
                label("pct_above", "en"))


@lru_cache(maxsize=4096)
def _simple(template: str) -> tuple | None:
    """The parts of ``template`` (:func:`_parsed`, specs as "" when absent) when every field is a plain name with a
    plain spec, so that each is ``format(values[name], spec)``; None otherwise."""
    parts = _parsed(template)
    for _, field, spec, conversion in parts:
        if field is not None and (not field.isidentifier() or "{" in (spec or "") or conversion not in (None, "r", "s", "a")):
            return None
    return tuple((literal, field, spec or "", conversion) for literal, field, spec, conversion in parts)


#: "N thing(s)" in an English template: the count, up to two words before the noun, the noun.
_OPTIONAL_S = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)((?: [A-Za-z-]+){0,2}?) ([A-Za-z]+)\(s\)")
#: English nouns a count of one makes singular ("1 launches" -> "1 launch"), with the word that may stand between
#: ("1 launch calls"); and the verbs that then agree ("1 copy uses").
_NOUNS = ("launches", "copies", "runs", "kernels", "calls", "times", "records", "elements", "rows", "inputs",
          "files", "ranks", "streams", "devices", "GPUs", "groups", "chains", "nodes", "replays", "findings",
          "operations", "operators", "threads", "warps", "blocks", "registers", "spills", "gaps", "names",
          "spacings", "pairs", "others", "entries", "wavefronts", "bytes", "transfers", "memsets", "memcpys")
_MODIFIERS = ("launch", "kernel", "graph", "CUDA graph", "API", "matched", "memory", "host", "device", "consecutive",
              "tiny", "more", "other", "distinct", "failed", "invalid", "impossible", "pageable")
_ONE = re.compile(r"(?<![\w.,+-])(1|one) ((?:(?:%s) )?)(%s)\b( (?:use|run|take|are|were|have|do|wait)\b)?"
                  % ("|".join(_MODIFIERS), "|".join(_NOUNS)))
_ORDINAL = re.compile(r"(?:launch|rank|GPU|device|stream|chain|group|kernel|line|step|\[|#) ?$", re.I)
_VERBS = {"use": "uses", "run": "runs", "take": "takes", "are": "is", "were": "was", "have": "has", "do": "does",
          "wait": "waits"}


def singular(noun: str) -> str:
    """The singular of an English plural noun of :data:`_NOUNS` ("copies" -> "copy", "launches" -> "launch")."""
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    return noun[:-1]


def agree(text: str) -> str:
    """English text with its counts and nouns agreeing, the one plural rule of every English template: "N
    thing(s)" becomes "1 thing" / "2 things", and a count of one before a plural noun makes it (and the verb after
    it) singular ("1 launches" -> "1 launch", "1 copies use" -> "1 copy uses"); other text unchanged."""
    def optional(m: re.Match[str]) -> str:
        one = m.group(1) == "1"
        return f"{m.group(1)}{m.group(2)} {m.group(3)}{'' if one else 's'}"

    def one(m: re.Match[str]) -> str:
        if _ORDINAL.search(m.string, 0, m.start()):  # "launch 1 runs ...": an index, not a count
            return m.group(0)
        verb = m.group(4)
        return f"{m.group(1)} {m.group(2)}{singular(m.group(3))}" + (f" {_VERBS[verb.strip()]}" if verb else "")

    if "(s)" in text:
        text = _OPTIONAL_S.sub(optional, text)
    if "1 " not in text and "one " not in text:  # (what every match of _ONE holds: most texts have none)
        return text
    return _ONE.sub(one, text)


#: Chinese characters (CJK ideographs) and the full-width punctuation of Chinese sentences.
HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_FULL = "，。；：（）、？！“”‘’《》【】～"
CJK = HAN + _FULL
_CJK_END = re.compile(f"[{CJK}] +$")
_CJK_START = re.compile(f"^ +(?=[{CJK}])")
_HAN_END = re.compile(f"[{HAN}]$")
_ALNUM_START = re.compile("^[A-Za-z0-9]")


def glue(head: str, tail: str) -> str:
    """``head + tail`` spaced as Chinese text is: the spaces between a Chinese character (or full-width punctuation)
    and another are dropped, a Chinese character and a Latin letter or digit that meet get one space between them."""
    if not head or not tail:
        return head + tail
    if head[-1] == " " and tail[0] in _FULL:  # no space before full-width punctuation ...
        head = head.rstrip(" ")
    elif tail[0] == " " and head[-1] in _FULL:  # ... nor after it
        tail = tail.lstrip(" ")
    elif tail[0] == " " and re.search(f"[{CJK}]$", head) and _CJK_START.match(tail):
        tail = tail.lstrip(" ")
    elif head[-1] == " " and re.match(f"[{CJK}]", tail) and _CJK_END.search(head):
        head = head.rstrip(" ")
    elif (_HAN_END.search(head) and _ALNUM_START.match(tail)) or (head[-1].isascii() and head[-1].isalnum()
                                                                  and re.match(f"[{HAN}]", tail)):
        return f"{head} {tail}"
    return head + tail


#: A count field of a template: ``{excess:C}``.
_COUNT_FIELD = re.compile(r"\{(\w+):C\}( (?=[\u4e00-\u9fff]))?")


def _counted(template: str, values: Mapping[str, Any], lang: str) -> tuple[str, Mapping[str, Any]]:
    """``template`` with each count field ``{x:C}`` a plain ``{x}`` and ``values`` with each such value its text
    (:func:`kernelscope.knowledge.counts.counts`: ``2830 万`` / ``28.3 M``; None and ∞ left for :func:`fill`). In
    Chinese the space after the field before a Chinese character goes: :func:`glue` puts one back after a digit
    (``9920 个``), none after 万 / 亿 (``2830 万个``)."""
    done = dict(values)
    for name in set(_COUNT_FIELD.findall(template)):
        value = done.get(name[0])
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            done[name[0]] = counts((value,), lang == "zh", "")[0]
    return _COUNT_FIELD.sub(lambda m: "{%s}" % m[1] + ("" if lang == "zh" else m[2] or ""), template), done


#: A fixed-point field printed as a percentage: ``{pct:.1f}%``.
_PCT_FIELD = re.compile(r"(\{\w+:\.\d)f\}%")


@lru_cache(maxsize=4096)
def _percents(template: str) -> str:
    """``template`` with each ``{x:.1f}%`` field marked (``{x:.1fP}%``) so that a whole percentage prints without
    decimals (``50%``, as ``Fmt.pct``)."""
    return _PCT_FIELD.sub(r"\1fP}%", template)


@lru_cache(maxsize=4096)
def _parsed(template: str) -> tuple:
    return tuple(string.Formatter().parse(template))


def _infinite(value: Any) -> bool:
    return isinstance(value, float) and math.isinf(value)


class _PlainFormatter(string.Formatter):
    """str.format whose fields print as :func:`_number` does (``below``: the text of a percentage too small for
    its decimals)."""

    def __init__(self, below: str = "< {x}%") -> None:
        self.below = below

    def format_field(self, value: Any, format_spec: str) -> str:
        return _number(value, format_spec, self.below)


class _NotMeasuredFormatter(_PlainFormatter):
    """str.format that prints None as "not measured" and an infinite number as "∞", whatever the field's format
    spec."""

    def __init__(self, not_measured: str, below: str = "< {x}%") -> None:
        super().__init__(below)
        self.not_measured = not_measured

    def format_field(self, value: Any, format_spec: str) -> str:
        if value is None:
            return self.not_measured
        if _infinite(value):
            return "∞" if value > 0 else "-∞"
        return super().format_field(value, format_spec)

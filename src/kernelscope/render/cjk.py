"""Where a line of Chinese text may break, and a rich console that wraps there.

rich wraps text at spaces only (``Text.wrap``), so Chinese, written without spaces, is folded at whatever character
meets the edge: inside an ASCII word ("（fl|oat4"), between a number and its unit ("16|字节"), before a "；" or
"。", after a list number ("1." alone on its line). :func:`break_opportunities` says where a line may break instead,
by the line-breaking rules of Chinese text (W3C "Requirements for Chinese Text Layout": prohibition rules for
line start and line end; Unicode UAX #14):

- between two CJK characters, between a CJK character and an ASCII word, and after spaces;
- never inside an ASCII word or token (float4, FLOP/B, sm__throughput.avg.pct_of_peak, 4.790);
- never before closing or pausing punctuation (，。；：）、！？」』】》 and , . ; : ) ! ? % /), never after opening
  punctuation (（「『【《 and ( [): the character before moves down with it;
- never between a number and its unit: a CJK measure word after it (16 字节, 22 个, 1.50 倍) or, after one space,
  an ASCII word (4.790 ms, 1.81 GHz, 14.2 FLOP/B);
- never right after a list marker at the start of a line ("1. ", "2) ", "• ");
- never inside a word of the glossary or of its list of common words (耗时, 中位数, 分析器: :func:`words`); a full
  line prefers to end between two such words;
- never inside a term of several ASCII words (Tensor Core, Short Scoreboard), between an ASCII word and its number
  (Bank 24, GPU 0), inside ``PC +0x290`` or ``CUDA graph 1 (replay)`` (:func:`phrases`).

:class:`~.cjk_console.CJKConsole` is the ``rich.console.Console`` every table and text of kernelscope is printed with: it hands
rich, for each text holding CJK characters, a :class:`CJKText` that wraps at those places (:func:`divide`, rich's
greedy line filling over them). Text without CJK characters is left to rich: English wraps as it always did."""

from __future__ import annotations

import re
from functools import cache, lru_cache
from rich.cells import cell_len, chop_cells

from .tokens import (_CJK, _NUMBER_UNIT, _ONE_OF, _PUNCTUATION, DETERMINERS, MEASURE_WORDS, NO_LINE_END, NO_LINE_START,
                     WORD_END, has_cjk, inside_numbers, inside_short_pairs)

__all__ = ["code_breaks", "label_breaks", "model_breaks", "glosses", "break_opportunities", "divide", "hang", "has_cjk",
           "name_breaks", "path_breaks", "phrases", "soft_breaks", "strong_breaks", "word_bounds", "words", "wrap"]

_LIST_MARKER = re.compile(r"\s*(?:\d{1,3}[.)、]|[•·*-])\s+")
#: Where an item's wrapped lines hang: under the text after its leading spaces and list marker.
_HANG = re.compile(r" *(?:\d{1,3}[.)、]|[•·*-]) +| +")
#: Cells a full line may give back to end at a strong break (:func:`strong_breaks`) instead of inside a word: none
#: (native review 8: a line fills to the width unless the next word does not fit; the words a line never breaks
#: inside are the glossary's, :func:`words`, kept whole wherever the line ends).
LOOK_BACK = 0
#: Cells a full line ending between two words (:func:`word_bounds`) may give back to end at punctuation instead:
#: none either (a phrase that must stay whole, 不再出现, is a word of ``[breaks] words``).
WORD_REACH = 0
#: Cells a full line gives up at most to keep a determiner with the ASCII word it counts (``每 SM``, ``一个 Kernel``:
#: :func:`soft_breaks`); more, and the line keeps the determiner and breaks before the word (native review 13: "为整条链生成"
#: / "一个 Kernel" left the line short).
GLUE_REACH = 4
def _inside_number_units(text: str) -> set[int]:
    """The offsets inside a number and its unit (from after the number's last digit to the unit's last character):
    no line may start there."""
    out: set[int] = set()
    for m in _NUMBER_UNIT.finditer(text):
        out.update(range(m.start() + 1, m.end() + (1 if m.group(1) else 0)))
    return out


@cache
def _word_index() -> dict[str, tuple[str, ...]]:
    """First character -> the unbroken words (:func:`~kernelscope.knowledge.glossary.unbroken_words`) starting
    with it, longest first."""
    from ..knowledge.glossary import unbroken_words

    index: dict[str, list[str]] = {}
    for word in sorted(unbroken_words(), key=len, reverse=True):
        index.setdefault(word[0], []).append(word)
    return {ch: tuple(found) for ch, found in index.items()}


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of the unbroken words of ``text`` (the glossary's terms and ``[breaks] words``: 加速比, 耗时,
    中位数, 分析器), found left to right, the longest at each place first (forward maximum matching)."""
    index, out, i = _word_index(), [], 0
    while i < len(text):
        word = next((w for w in index.get(text[i], ()) if text.startswith(w, i)), None)
        if word is not None:
            out.append((i, i + len(word)))
        i += len(word) if word else 1
    return tuple(out)


#: A run of two or more ASCII words in a term (``Tensor Core``, ``Long Scoreboard``, ``Math Pipe Throttle``).
_ASCII_PHRASE = re.compile(r"[A-Za-z][\w/.+-]*(?: [A-Za-z][\w/.+-]*)+")
#: Multi-word names the zh text uses that are not glossary terms of their own.
PHRASES = ("CUDA Graph", "Nsight Systems", "Compute Capability")
#: Pieces of text no line breaks inside, beside the terms (:func:`phrases`): an ASCII word and the number after
#: it (``Bank 24``, ``GPU 0``, ``Rank 3``, ``CC 12.x``), an instruction's address (``PC +0x290``), a graph's replay
#: (``CUDA graph 1 (replay)``, :data:`~kernelscope.timeline_model.GRAPH_REPLAY_NAME`), a step between two values
#: (``224 → 192``), a bound and its number (``0.4%（< 60%）``), a Chinese word and its numbers (``（线程 1、9）``),
#: a quantifier, its ASCII noun and the place word after it (``所有 Rank 上``, ``每个 SM 上``).
_GLUED = re.compile(r"CUDA graph \d+ \(replay\)|PC \+0x[0-9A-Fa-f]+|(?<![\w.])[A-Za-z][A-Za-z0-9_]* \+?\d[\w.]*"
                    r"|(?:所有|全部|每个|各个|每|各) [A-Za-z][\w-]*(?: [上中内])?(?![\w\u4e00-\u9fff])")
#: Further pieces, each found on its own (they may overlap the others): a step between two values (``224 → 192``,
#: ``48 KiB → 44.5 KiB``), a bound and its number (``0.4%（< 60%）``, ``不到 1%``: the sign never ends a line), a Chinese word and
#: the list of numbers it names, or its one number before a closing bracket or a Chinese word (``（线程 1、9）``,
#: ``以退出码 1 结束``).
_GLUED_MORE = (re.compile(r"(?<![\w.])\d[\d.,]*(?: ?[A-Za-zµ]{1,3}(?![A-Za-z])|%)? → \d[\d.,]*(?: ?[A-Za-zµ]{1,3}(?![A-Za-z])|%)?"),
               re.compile(r"(?:\d[\d.]*%?（)?(?:[<>≤≥≈]|不到) ?\d[\d.]*%?）?"),
               re.compile(r"[\u4e00-\u9fff] \d[\d.]*(?:[、～]\d[\d.]*)+）?|[\u4e00-\u9fff] \d[\d.]*）"
                          r"|[\u4e00-\u9fff] \d{1,3}(?= (?!%s)[\u4e00-\u9fff])" % "|".join(MEASURE_WORDS)))  # 以退出码 1 结束: "退出码" / "1" never
#: The same, in a name: the address and the replay only (a name's words and numbers break as a name's do).
_GLUED_NAME = re.compile(r"CUDA graph \d+ \(replay\)|PC \+0x[0-9A-Fa-f]+")


@cache
def _phrase_pattern() -> re.Pattern[str] | None:
    """One alternation of the multi-word ASCII terms of the glossary and of the stall reasons' Chinese names
    (``Tensor Core``, ``Short Scoreboard``), longest first; None when there are none."""
    from ..knowledge.glossary import glossary
    from ..knowledge.stalls import reasons

    texts = [t.zh for t in glossary().term] + [r.display_name_zh for r in reasons().values()]
    found = {m.group(0) for t in texts for m in _ASCII_PHRASE.finditer(t)} | set(PHRASES)
    if not found:
        return None
    return re.compile("|".join(re.escape(w) for w in sorted(found, key=len, reverse=True)))


def phrases(text: str, name: bool = False) -> list[tuple[int, int]]:
    """(start, end) of the pieces of ``text`` a line never breaks inside although they hold a space: a term of
    several ASCII words (``Tensor Core``, ``Short Scoreboard``: :func:`_phrase_pattern`), an ASCII word and its
    number (``Bank 24``), ``PC +0x290``, ``CUDA graph 1 (replay)``; in a name (``name``) the last two only."""
    if name:
        return [m.span() for m in _GLUED_NAME.finditer(text)]
    pattern = _phrase_pattern()
    out = [m.span() for m in pattern.finditer(text)] if pattern is not None else []
    return out + [m.span() for pattern in (_GLUED, *_GLUED_MORE) for m in pattern.finditer(text)]


def break_opportunities(text: str) -> list[int]:
    """The offsets where a line of ``text`` (one paragraph: no line feed) may break, the next line starting there,
    by the rules of the module docstring."""
    return _opportunities(text)[0]


def soft_breaks(text: str) -> list[int]:
    """The offsets between a determiner and the ASCII word it counts (``每 |SM``, ``一个 |Kernel``, ``更多 |Warp``):
    no break opportunity (:func:`break_opportunities`), but a full line breaks there rather than be left more than
    :data:`GLUE_REACH` cells short by moving the whole run down (:func:`divide`)."""
    return _opportunities(text)[1]


@lru_cache(maxsize=4096)
def _opportunities(text: str) -> tuple[list[int], list[int]]:
    """(the break opportunities of ``text``, its :func:`soft_breaks`)."""
    marker = _LIST_MARKER.match(text)
    first = marker.end() + 1 if marker else len(text) - len(text.lstrip()) + 1  # not after leading spaces alone
    wide = [_CJK.match(ch) is not None for ch in text]
    glued = _inside_number_units(text) | inside_short_pairs(text)
    found = words(text)
    glued.update(i for a, b in found for i in range(a + 1, b))  # 耗|时: inside a word
    glued.update(i for a, b in phrases(text) for i in range(a + 1, b))  # Tensor |Core, Bank |24, PC |+0x290
    ends = {b for _, b in found}  # a determiner that ends a word is none (至多 |1.65×)
    out, soft = [], []
    for i in range(first, len(text)):
        before, ch = text[i - 1], text[i]
        if ch.isspace() or ch in NO_LINE_START or before in NO_LINE_END or i in glued:
            continue
        if before in DETERMINERS and i not in ends and text.startswith(MEASURE_WORDS, i):  # 每|个: one word
            continue
        if before == " " and ch.isascii() and (text[i - 2:i - 1] in DETERMINERS and (i - 1 not in ends or ch.isalpha())
                                               or text[i - 3:i - 1] in _ONE_OF and not ch.isdigit()):
            soft.append(i)  # 每 |SM, 一个 |Rank, 更多 |Warp (a word: 更多 whole; not 一个 |32 线程: 一个 counts the
            continue  # phase; not 至多 |1.65×)
        if before == "～" and text[i - 2:i - 1].isdigit() and ch.isdigit() or \
                ch == "～" and before.isdigit() and text[i + 1:i + 2].isdigit():  # 16～31: a range, one word
            continue
        if before.isspace() or wide[i - 1] or wide[i]:
            out.append(i)
    return out, soft


def strong_breaks(text: str) -> list[int]:
    """The break opportunities of ``text`` that do not split a word: after a space or a punctuation mark, before an
    opening bracket, and between a CJK run and an ASCII run (a header cell breaks only there; a line prefers them)."""
    wide = [_CJK.match(ch) is not None and ch not in _PUNCTUATION for ch in text]
    return [i for i in _points(text) if text[i - 1].isspace() or text[i - 1] in _PUNCTUATION
            or text[i] in _PUNCTUATION or wide[i - 1] != wide[i]]


def word_ends(text: str) -> list[int]:
    """The break opportunities of ``text`` after a word-ending particle or conjunction (:data:`WORD_END`: 的, 和,
    与 ...) and before an ideograph: inside a run of Chinese characters the places that surely split no word."""
    return [i for i in break_opportunities(text) if text[i - 1] in WORD_END and _CJK.match(text[i])
            and text[i] not in _PUNCTUATION]


def word_bounds(text: str) -> list[int]:
    """The break opportunities of ``text`` at either end of an unbroken word (:func:`words`: 加速比|至多): they
    split no word either, but a line still prefers punctuation a word back (:data:`WORD_REACH`)."""
    bounds = {i for word in words(text) for i in word}
    return [i for i in break_opportunities(text) if i in bounds]


def _points(text: str) -> list[int]:
    """Where a line of ``text`` may break: :func:`break_opportunities` when it holds a CJK character, else after
    spaces only (as rich)."""
    if has_cjk(text):
        return break_opportunities(text)
    first = len(text) - len(text.lstrip()) + 1
    return [i for i in range(first, len(text)) if text[i - 1].isspace() and not text[i].isspace()]


#: Characters after which a kernel or file name may break (``ampere_sgemm_`` / ``32x32_``, ``at::`` / ``native::``).
NAME_BREAK_AFTER = frozenset("_(,<:/ -.|")
#: Characters a ``_`` must leave after it, up to the next break other than another ``_``, for a name to break
#: there (``alex_net|``, ``…_tn`` whole: a short last part is part of the word, not a token of its own).
UNDERSCORE_TAIL = 4
#: A name's break leaves at least this many characters after it (never ``ncu-re`` / ``p``).
NAME_TAIL = 3
#: A file name's extension at the end of a name (after a character other than ``/`` and ``.``): never broken.
EXTENSION = re.compile(r"(?<=[^/.])\.[A-Za-z][\w-]{0,15}$")


def _camel(text: str, i: int) -> bool:
    """Whether ``text[i]`` starts a word of a camel-case name (``Bias|Add``, ``CUDA|Kernel``)."""
    before, ch = text[i - 1], text[i]
    return ch.isupper() and (before.islower() or before.isupper() and text[i + 1:i + 2].islower())


def _leading(text: str, i: int) -> bool:
    """Whether the ``_`` at ``text[i]`` leads an identifier (``.__next__``, ``#_Single``): no break after it."""
    start = len(text[:i + 1].rstrip("_"))
    return start == 0 or not (text[start - 1].isalnum())


def _run(text: str, i: int) -> int:
    """Characters from ``i`` up to the next character a name breaks after (:data:`NAME_BREAK_AFTER`, but for ``.``
    and ``-``: ``ncu.ncu-rep`` is one run) or the end."""
    j = i
    while j < len(text) and (text[j] not in NAME_BREAK_AFTER or text[j] in ".-"):
        j += 1
    return j - i


def name_breaks(text: str) -> list[int]:
    """Where a line of a name (a kernel's demangled signature, a file path) may break: after ``_`` (a run of them,
    not one that leads a word: ``.__next__`` whole; not before a tail shorter than :data:`UNDERSCORE_TAIL`:
    ``alex_net`` whole), ``|`` (``alex_net|0|0|`` / ``warmup``), ``(``, ``,``, ``<``, ``/``, ``.``, a blank and after ``::`` (never between the two
    colons), before ``‹`` and after an ``…`` inside a name (``volta_…`` / ``splitK``), never before a closing
    ``)``, ``>``, an ``…``, a ``,`` or a blank, never inside a file name's extension (``.ncu-rep``, ``.json``:
    :data:`EXTENSION`); so a long name wraps between its tokens, not inside one (a token wider than a line:
    :func:`_fold`)."""
    ext = EXTENSION.search(text)
    out = []
    inside = {i for a, b in words(text) for i in range(a + 1, b)}  # 分析|器: a word of the suffix
    inside.update(i for a, b in phrases(text, name=True) for i in range(a + 1, b))  # CUDA graph 1 (|replay)
    for i in range(1, len(text)):
        before, ch = text[i - 1], text[i]
        if i in inside:
            continue
        if (ch == "（" or has_cjk(before)) and ch not in "），。；：" and not before == "（":  # a Chinese suffix
            out.append(i)  # (the profiler's "（名称被分析器截断）") breaks as Chinese does
            continue
        if ext is not None and i >= ext.start():  # …_ncu.ncu-rep: its extension stays with the name
            continue
        if ch == "‹" or before == "…" and ch.isalnum() and (text[i - 2:i - 1].isalnum() or text[i - 2:i - 1] == "_"):
            out.append(i)  # after an elision inside a name: volta_… / splitK
            continue
        if ch.isspace() or ch in ",)>:…" or before not in NAME_BREAK_AFTER or before == ch == "_":
            continue
        if before == ":" and text[i - 2:i] != "::" or before == "_" and _leading(text, i - 1):
            continue
        if before == "(" and text[i - 2:i - 1] == " ":  # a parenthesis of words: " (straggler fixed)" whole
            continue
        if before == "_" and _run(text, i) < UNDERSCORE_TAIL and text[i + _run(text, i):i + _run(text, i) + 1] != "_":
            continue  # alex_|net|: one word (the last of its compound; fused_|add_|cos_ still break)
        out.append(i)
    return [i for i in out if len(text) - i >= NAME_TAIL]


def path_breaks(text: str) -> list[int]:
    """The :func:`name_breaks` of a file's path that end a part of it: after a ``/`` or a ``__`` (the corpus's
    ``owner__repo__file`` names), where a path wraps first."""
    return [i for i in name_breaks(text) if text[i - 1] == "/" or text[i - 2:i] == "__"]


def code_breaks(text: str) -> list[int]:
    """Where a line of code (a SASS instruction: ``LDG.E R15, [R18.64+0x20]``) may break: after the ``, `` between
    two operands only, never between the opcode and its first operand nor inside an operand."""
    return [m.end() for m in re.finditer(r", +(?=\S)", text)]


def model_breaks(text: str) -> list[int]:
    """Where a product name (a GPU's: ``NVIDIA GeForce GTX 1070``) may break: at a space before its model (the
    letters-only word before the first word with a digit, ``GTX 1070``, and that word itself: ``Tesla`` /
    ``V100-DGXS-32GB`` only where nothing else fits) or before a word of lower-case letters after it (``Laptop``),
    never inside the model (``GTX`` / ``1070``, ``1080`` / ``Ti``, ``2060`` / ``SUPER``)."""
    words = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", text)]
    digit = next((n for n, (_, w) in enumerate(words) if any(c.isdigit() for c in w)), len(words))
    model = digit - 1 if digit > 1 and words[digit - 1][1].isalpha() else digit
    out = [start for n, (start, _) in enumerate(words) if 0 < n <= model]
    out += [start for n, (start, w) in enumerate(words) if n > digit and w.isalpha() and len(w) > 2
            and any(c.islower() for c in w)]
    return out


def label_breaks(text: str, separator: str) -> list[int]:
    """Where a list of labels joined by ``separator`` (``FP16 Tensor Core，FP16 累加 / FP8 Tensor Core``: `` / ``)
    may break between two labels: after each separator (its trailing blank stays on the line before)."""
    return [m.end() for m in re.finditer(re.escape(separator), text) if m.end() < len(text)]


def _segments(text: str, strict: bool = False, name: bool = False, path: bool = False,
              code: bool = False, model: bool = False, labels: str = "", whole: bool = True) -> list[tuple[int, int]]:
    """(start, end) of the pieces of ``text`` between its break opportunities (``strict``: its
    :func:`strong_breaks` only; ``name``: a name's, :func:`name_breaks`; ``path``: a path's, :func:`path_breaks`;
    ``code``: an instruction's, :func:`code_breaks`; ``labels``: a list of labels joined by that separator, between
    two labels only (:func:`label_breaks`), or, not ``whole``, also at the strong breaks inside a label)."""
    if labels:
        between = label_breaks(text, labels)
        points = between if whole else sorted(set(between) | set(_bracketed(text, strong_breaks(text))))
        bounds = [0, *points, len(text)]
        return list(zip(bounds, bounds[1:]))
    points = model_breaks(text) if model else code_breaks(text) if code else path_breaks(text) if path else name_breaks(text) if name else _bracketed(text, strong_breaks(text)) \
        if strict else _points(text)
    bounds = [0, *points, len(text)]
    return list(zip(bounds, bounds[1:]))


def _bracketed(text: str, points: list[int]) -> list[int]:
    """``points`` but those inside a short bracketed part of ``text`` (a header wraps before ``（前→后）``)."""
    inside = {i for m in re.finditer(r"[（(][^（）()]{1,8}[）)]", text) for i in range(m.start() + 1, m.end())}
    return [i for i in points if i not in inside]


def _look_back(text: str, pieces: list[tuple[int, int]], strong: set[int], room: int, reach: int = LOOK_BACK) -> int:
    """How many of the last ``pieces`` of a full line to move to the next one so that the line ends at a strong
    break (:func:`strong_breaks`), at most ``reach`` cells and a quarter of the line back; 0 when none."""
    moved = 0
    for n in range(1, len(pieces)):
        start, end = pieces[-n]
        moved += cell_len(text[start:end])
        if moved > min(reach, room // 4):
            return 0
        if start in strong:
            return n
    return 0


#: Where a folded piece is not cut: before closing punctuation or a name's ``>``, after opening punctuation or ``<``.
_FOLD_NO_START = NO_LINE_START | {">"}
_FOLD_NO_END = NO_LINE_END | {"<"}


def _fold(piece: str, width: int, rest: int | None = None) -> list[str]:
    """``piece`` (one unbreakable piece wider than a line) cut into lines of ``width`` cells (rich's
    ``chop_cells``), each cut moved back at most half a line to a name's break (:func:`name_breaks`: an identifier
    in a sentence, ``…LoaderIter.`` / ``__next__``) or before ``<`` and ``(``, else to a camel-case word (``FusedBiasAddCUDAKernel`` /
    ``Half``), else a few characters where it would start a line with closing punctuation or ``>``, or end one
    with opening punctuation or ``<`` (``(…`` / ``)``: the ``(…)`` moves down whole); the lines after the first
    ``rest`` cells wide (default ``width``: a hanging item's)."""
    parts, start = [], 0
    first, rest = width, width if rest is None else rest
    cuts = set() if has_cjk(piece) else {*name_breaks(piece), *(i for i, c in enumerate(piece) if c in "<(" and i)}
    camel = set() if has_cjk(piece) else {i for i in range(1, len(piece) - 1) if _camel(piece, i)}
    numbers = inside_numbers(piece)  # (a number and its unit: one token, cut only where no other place is)
    cuts, camel = cuts - numbers, camel - numbers
    while cell_len(piece[start:]) > (width := first if not parts else rest):
        end = start + len(chop_cells(piece[start:], width)[0])
        back = range(end, start + (end - start) // 2, -1)  # at most half a line back
        end = next((j for j in back if j in cuts), None) or next((j for j in back if j in camel), None) or next(
            (j for j in back if piece[j] not in _FOLD_NO_START and piece[j - 1] not in _FOLD_NO_END
             and j not in numbers), None) or next(
            (j for j in back if piece[j] not in _FOLD_NO_START and piece[j - 1] not in _FOLD_NO_END), end)
        parts.append(piece[start:end])
        start = end
    return parts + [piece[start:]]


@cache
def _gloss_pattern() -> re.Pattern[str]:
    """The glosses of the stall reasons' Chinese names (``Wait（固定延迟依赖）``: the bracket after the name), each
    right after its name, and an Nsight Compute rule's estimate after the rule's name."""
    from ..knowledge.stalls import reasons

    from ..knowledge.text import label

    names = {r.display_name_zh for r in reasons().values() if "（" in r.display_name_zh}
    parts = [f"(?<={re.escape(n[:n.index('（')])}){re.escape(n[n.index('（'):])}"
             for n in sorted(names, key=len, reverse=True)]
    estimate = re.escape(label("nsight_est", "zh")).replace(re.escape("{p:.0f}"), r"\d+")  # a rule's estimate
    parts.append(f"(?<=[a-z])（{estimate}）")  # after the rule's name: HighPipeUtilization（ncu 预计收益 99%）
    return re.compile("|".join(parts))


def glosses(text: str) -> list[int]:
    """Where a stall's gloss starts in ``text`` right after its name (``Wait|（固定延迟依赖）``): a name and its
    gloss are one unit, a line that would end between the two moving the name down to its gloss where both fit a
    line (:func:`divide`); a gloss too long for that breaks as prose does."""
    return [m.start() for m in _gloss_pattern().finditer(text)]


def divide(text: str, width: int, fold: bool = True, rest: int | None = None, strict: bool = False,
           name: bool = False, reach: int = LOOK_BACK, path: bool = False, code: bool = False,
           model: bool = False, labels: str = "") -> list[int]:
    """The offsets to break one paragraph of ``text`` at so that its first line fits ``width`` cells and the
    others ``rest`` (default ``width``), filling each line with as many pieces as fit (rich's ``divide_line``, at
    :func:`break_opportunities`; ``strict``: at :func:`strong_breaks` only), no line ending with a stall's name whose gloss (:func:`glosses`) starts the next where both fit one, a full line ending at a strong break
    when one is a few cells back (``reach``; a word, 优化前, is not split; :func:`word_ends` count as strong
    there; a line full between two words, :func:`word_bounds`, looks back :data:`WORD_REACH` cells only, so that
    lines fill); a piece wider than a line is folded across lines (``fold``, :func:`_fold`) or left to be cropped; ``name``: at a name's breaks (:func:`name_breaks`); ``path``: a file's path,
    at the ends of its parts (:func:`path_breaks`) when each part fits a line, else as a name; ``labels``: a list
    of labels joined by that separator, between two labels (:func:`label_breaks`) when each label fits a line,
    else also at the strong breaks inside the one too long (never inside a word of a label: ``累`` / ``加``)."""
    rest = width if rest is None else rest
    whole = True
    if labels:
        strict = True
        whole = all(cell_len(text[a:b].rstrip()) <= (rest if a else width) for a, b in _segments(text, labels=labels))
    if path:
        name = True
        path = all(cell_len(text[a:b]) <= (rest if a else width) for a, b in _segments(text, path=True))
    code = code or model  # (a product name breaks as code does: at its own places only)
    prose = has_cjk(text) and not strict and not name and not code
    strong = set(strong_breaks(text)) | set(word_ends(text)) if prose else set()
    bounds = set(word_bounds(text)) - strong if prose else set()
    glossed = set(glosses(text)) if prose else set()
    soft = soft_breaks(text) if prose else []
    breaks: list[int] = []
    line: list[tuple[int, int]] = []  # the pieces on the current line
    offset, room = 0, width
    for start, end in _segments(text, strict, name, path, code and not model, model, labels, whole):
        piece = text[start:end]
        length = cell_len(piece.rstrip())
        if room - offset >= length:
            offset += cell_len(piece)
            line.append((start, end))
        elif length > room or length > rest:
            if fold:
                size = rest if start else room  # English as rich folds it; a name or Chinese at no ")" alone
                chopped = _fold(piece, size, rest) if name or code or has_cjk(text) else chop_cells(piece, size)
                for n, part in enumerate(chopped):
                    if start:
                        breaks.append(start)
                    if n == len(chopped) - 1:
                        offset = cell_len(part)
                    else:
                        start += len(part)
            else:
                if start:
                    breaks.append(start)
                offset = cell_len(piece)
            room, line = rest, [(start, end)]
        elif offset and start and (cut := _soft_cut(text, start, end, room - offset, rest, soft)):
            breaks.append(cut)  # the determiner ends this line, its ASCII word starts the next (GLUE_REACH)
            line, offset, room = [(cut, end)], cell_len(text[cut:end]), rest
        elif offset and start:
            if start in glossed and len(line) > 1 and line[-1][1] == start \
                    and cell_len(text[line[-1][0]:end].rstrip()) <= rest:  # a name and its gloss: one line
                line = [line[-1], (start, end)]
                breaks.append(line[0][0])
                offset, room = sum(cell_len(text[a:b]) for a, b in line), rest
                continue
            back = 0 if not strong or start in strong else _look_back(text, line, strong, room, WORD_REACH) \
                if start in bounds else _look_back(text, line, strong | bounds, room, reach)
            if back and sum(cell_len(text[a:b]) for a, b in line[-back:]) + cell_len(piece) <= rest:
                line = line[-back:]
                breaks.append(line[0][0])
            else:
                breaks.append(start)
                line = []
            line.append((start, end))
            offset, room = sum(cell_len(text[a:b]) for a, b in line), rest
    if has_cjk(text) and not name and not code and not labels:
        return _no_widow(text, breaks, [a for a, _ in _segments(text, strict)], strong | bounds, rest, reach)
    return breaks


def _soft_cut(text: str, start: int, end: int, left: int, rest: int, soft: list[int]) -> int:
    """Where the piece ``text[start:end]``, which does not fit the ``left`` cells of a line, breaks instead of
    moving down whole: at its last soft break (:func:`soft_breaks`: between a determiner and its ASCII word) whose
    head fits those cells, when moving the whole piece down would leave the line more than :data:`GLUE_REACH`
    cells short and its tail fits a line of ``rest`` cells; 0 when none."""
    if left <= GLUE_REACH:
        return 0
    cuts = [p for p in soft if start < p < end and cell_len(text[start:p].rstrip()) <= left
            and cell_len(text[p:end].rstrip()) <= rest]
    return max(cuts, default=0)


#: A last line of at most this many characters (punctuation aside: ``算。``) is a widow; two (``结束``) are not.
WIDOW = 1
#: Cells the line before a widow gives up to it at most (``排`` / ``序）`` becomes ``排序）``), never more.
WIDOW_REACH = 4


def _letters(text: str) -> int:
    """Characters of ``text`` other than blanks and punctuation."""
    return sum(not ch.isspace() and ch not in _PUNCTUATION for ch in text)


def _no_widow(text: str, breaks: list[int], points: list[int], strong: set[int], rest: int, reach: int) -> list[int]:
    """``breaks`` with the last one moved back by the last piece before it (at most :data:`WIDOW_REACH` cells) when
    it would leave :data:`WIDOW` characters or fewer (punctuation not counted) alone on the paragraph's last line."""
    if not breaks or _letters(text[breaks[-1]:]) > WIDOW:
        return breaks
    prev, last = (breaks[-2] if len(breaks) > 1 else 0), breaks[-1]
    fits = [p for p in points if prev < p < last and cell_len(text[p:last]) <= WIDOW_REACH
            and cell_len(text[p:].rstrip()) <= rest and _letters(text[p:]) > WIDOW]
    return breaks[:-1] + [max(fits)] if fits else breaks


def wrap(text: str, width: int) -> list[str]:
    """``text`` wrapped to ``width`` cells by :func:`divide`, paragraph by paragraph, spaces at the breaks dropped,
    the wrapped lines of an item hanging under its text (:func:`hang`)."""
    lines = []
    for paragraph in text.split("\n"):
        indent = hang(paragraph, width)
        bounds = [0, *divide(paragraph, width, rest=width - indent), len(paragraph)]
        parts = [paragraph[a:b].rstrip() for a, b in zip(bounds, bounds[1:])]
        lines += parts[:1] + [" " * indent + part.lstrip() for part in parts[1:]]
    return lines


def hang(line: str, width: int) -> int:
    """Cells the wrapped lines of one paragraph hang by: its leading spaces and list marker ("  ", "1. ", "- "),
    so that they start under the item's text; 0 when it has none or they take half the width."""
    m = _HANG.match(line)
    return m.end() if m and line[m.end():].strip() and 2 * m.end() < width else 0


def hangs(text: str) -> bool:
    """Whether a line of ``text`` is an item whose wrapped lines hang (:func:`hang`)."""
    return any(_HANG.match(line) for line in text.split("\n"))

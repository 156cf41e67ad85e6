"""The characters and tokens :mod:`.cjk` breaks lines by: punctuation no line starts or ends with, measure words,
determiners, and the tokens a line never breaks inside in any wrap path (its breaks and its folds): a number with
its sign and unit, and a short bracketed or quoted Chinese term."""

from __future__ import annotations

import re

#: A number as one token: its sign, digits, separators, decimals and exponent, and its unit (after at most one
#: space: ``260.4 MiB``, ``36.2%``, ``1.73×``, ``6.64 TB/s``); no fold cuts inside one (``260.`` / ``4 MiB``).
NUMBER = re.compile(r"[-+−±]?(?<![\w.])\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
                    r"(?:%|×|x(?![\w])| ?(?:[KMGTP]i?B|[KMGTP]?B/s|[nµm]?s|[KMGT]?Hz|[KMGT]?FLOP/s|[KMGT]?FLOP)(?![A-Za-z]))?")
#: A short bracketed or quoted term (``（已使用）``, ``“程序占比”``: at most eight characters with its brackets, 16
#: cells, so that it fits any line a cell wraps to): its inside never breaks. A longer aside breaks as prose does.
SHORT_PAIR = re.compile(r"（[^（）\n]{1,6}）|“[^“”\n]{1,6}”|「[^「」\n]{1,6}」|《[^《》\n]{1,6}》")


def inside_numbers(text: str) -> set[int]:
    """The offsets inside a number token of ``text`` (:data:`NUMBER`): no line may start there."""
    return {i for m in NUMBER.finditer(text) for i in range(m.start() + 1, m.end())}


def inside_short_pairs(text: str) -> set[int]:
    """The offsets inside a short bracketed or quoted term of ``text`` (:data:`SHORT_PAIR`): no line starts there."""
    return {i for m in SHORT_PAIR.finditer(text) for i in range(m.start() + 1, m.end())}


#: Characters no line may start with: closing and pausing punctuation, full-width and half-width.
NO_LINE_START = frozenset("，。；：）、！？」』】》〉〕］｝〗〙〛”’…‥～％‰·・" ",.;:)!?]}%/")
#: Characters no line may end with: opening punctuation.
NO_LINE_END = frozenset("（「『【《〈〔［｛〖〘〚“‘" "([{")
#: CJK measure words and units that stay with the number before them (longest first where one starts another).
MEASURE_WORDS = ("字节", "毫秒", "微秒", "纳秒", "周期", "线程", "个", "次", "倍", "轮", "秒", "条", "行", "位", "项",
                 "组", "路", "处", "种", "块", "级", "遍", "列", "份")
_CJK = re.compile("[\u1100-\u115f\u2e80-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f"
                  "\uff00-\uff60\uffe0-\uffe6\U00020000-\U0003fffd]")
#: Punctuation, full-width and half-width: a break after it (or before an opening one) splits no word.
_PUNCTUATION = frozenset(NO_LINE_START | NO_LINE_END | set("—→←×～·、"))
#: Determiners and numerals that make one word with the measure word after them (每个, 一次, 各条, 这种): no break
#: between the two.
DETERMINERS = frozenset("每各该这那一两几多某其首本此二三四五六七八九十")
#: Characters that end a Chinese word (particles, conjunctions): a break after one, before an ideograph, splits no
#: word; a full line prefers it as it prefers a strong break (:func:`word_ends`).
WORD_END = frozenset("的了和与及或并")
#: A determiner and 个 before an ASCII word: one phrase with it (一个 Rank, 每个 SM).
_ONE_OF = frozenset(d + "个" for d in DETERMINERS)
#: A number and its unit: a measure word (after at most one space), or an ASCII word after one space.
_NUMBER_UNIT = re.compile(r"\d(?: ?(?:%s)|( )(?=[A-Za-zµ%%×]))"
                          % "|".join(sorted(MEASURE_WORDS, key=len, reverse=True)))


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character (ideograph, kana, hangul, full-width form or CJK punctuation)."""
    return _CJK.search(text) is not None

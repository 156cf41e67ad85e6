"""The language of the command line itself: ``--lang``'s default from ``$KERNELSCOPE_LANG``, errors worded in the
chosen language (:mod:`kernelscope.knowledge.messages`), and ``--help`` in Chinese.

Which language: ``--lang`` when the command line gives it (also for ``--help`` and usage errors, read before
argparse), else ``$KERNELSCOPE_LANG`` (``en`` or ``zh``; any other value is a one-line error, exit 2), else English.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import unicodedata
from typing import Sequence

from ..knowledge import LANGUAGES

#: The environment variable that sets the default of ``--lang`` and the language of errors and ``--help``.
ENV = "KERNELSCOPE_LANG"


def env_lang() -> str | None:
    """``$KERNELSCOPE_LANG`` (``en`` / ``zh``, case and surrounding blanks ignored), or None when it is unset or
    empty.

    Raises:
        ValueError: another value (the message says which are taken).
    """
    value = os.environ.get(ENV, "")
    lang = value.strip().lower()
    if not lang:
        return None
    if lang not in LANGUAGES:
        raise ValueError(value)
    return lang


def bad_env_message(value: str) -> str:
    """The one line printed for an unknown ``$KERNELSCOPE_LANG`` (English: the language is what is unknown)."""
    from ..knowledge.messages import frame

    return frame("error", "en", message=frame("bad_env_lang", "en", choices=", ".join(LANGUAGES), value=value))


def argv_lang(argv: Sequence[str]) -> str | None:
    """The ``--lang`` the command line gives (``--lang zh`` or ``--lang=zh``, the last one), read before argparse
    so that ``--help`` and usage errors follow it; None when it gives none or an unknown one (argparse says so)."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else arg[7:] if arg.startswith("--lang=") else None
        if value in LANGUAGES:
            found = value
    return found


def print_error(text: str, lang: str) -> None:
    """``text`` (one line, already in ``lang``) in the error frame ("kernelscope: error: ..."), on standard error."""
    from ..knowledge.messages import frame

    from ..render.inline import terminal_prose
    from .inputs import shown

    # a file name that is not UTF-8: escaped; a Chinese message's commands without backticks
    print(shown(terminal_prose(frame("error", lang, message=text))), file=sys.stderr)


def usage_error(prog: str, message: str, lang: str) -> str:
    """argparse's usage error as the one line kernelscope prints (with its newline)."""
    from ..knowledge.messages import frame, usage_error as words

    return frame("usage_error", lang, prog=prog, message=words(message, lang)) + "\n"


# ------------------------------------------------------------------------------------------ --help in Chinese


def translate_help(parser: argparse.ArgumentParser, lang: str, lang_suffix: str) -> None:
    """Word ``parser`` and its sub-commands' help in ``lang`` (``[[help]]`` of ``messages.toml``: each text by its
    English; a text without an entry stays English); ``lang_suffix``: the English end of every ``--lang`` help."""
    if lang == "en":
        return
    from ..knowledge.messages import frame, help_texts
    from ..render.inline import terminal_prose

    words = help_texts(lang)
    suffix = frame("lang_default", lang)

    def tr(text: str | None) -> str | None:
        if text is None or text == argparse.SUPPRESS:
            return text
        if text.endswith(lang_suffix):
            base = text[: -len(lang_suffix)]
            return terminal_prose(words.get(base, base) + suffix)
        return terminal_prose(words.get(text, text))  # a Chinese text: its commands without backticks

    def walk(p: argparse.ArgumentParser) -> None:
        p.description = tr(p.description)
        p._positionals.title = frame("positionals", lang)
        p._optionals.title = frame("options", lang)
        for action in p._actions:
            action.help = tr(action.help)
            for choice in getattr(action, "_choices_actions", ()):
                choice.help = tr(choice.help)
            if isinstance(action, argparse._SubParsersAction):
                for sub in dict.fromkeys(action.choices.values()):
                    walk(sub)

    walk(parser)


def cells(text: str) -> int:
    """Terminal columns of ``text`` (wide and full-width characters count two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


#: Cells a full help line may give back to end where no word is split (after punctuation or a space, between Chinese
#: and ASCII, after 的/和/与): none, as a table cell's (native review 8: a line fills to the width unless the next
#: word, a glossary word kept whole, does not fit).
HELP_LOOK_BACK = 0


def wrap_cells(text: str, width: int) -> list[str]:
    """Greedy wrap of ``text`` (its blanks collapsed) to ``width`` terminal columns by the line-breaking rules of
    :mod:`kernelscope.render.cjk` (the ones the tables follow): a line may break between two Chinese characters or
    at a blank, never inside a run of Latin letters, digits and signs (an option, a file name), never between a
    number and its unit, never after an opening bracket and never before closing punctuation (，。；：）...: the
    characters before it go down with it, however many closing marks follow one another), never between 每 and
    个; a full line gives back up to :data:`HELP_LOOK_BACK` cells to end where no word is split. Only a run wider than
    ``width`` alone makes a longer line."""
    from ..render.cjk import divide

    text = " ".join(text.split())
    bounds = [0, *divide(text, width, fold=False, reach=HELP_LOOK_BACK), len(text)]
    return [line for line in (text[a:b].rstrip() for a, b in zip(bounds, bounds[1:])) if line]


#: A section heading argparse wrote (at the line start, ending in a Chinese character, colour codes, then ":").
_HEADING = re.compile(r"(?m)^(\S[^\n]*[\u4e00-\u9fff](?:\x1b\[[\d;]*m)*):$")


class Formatter(argparse.HelpFormatter):
    """argparse's help layout with a translated "usage:" and Chinese text wrapped by terminal columns."""

    usage_prefix: str | None = None
    wide = False

    def _format_usage(self, usage, actions, groups, prefix):  # type: ignore[no-untyped-def]
        text = super()._format_usage(usage, actions, groups, prefix)
        if self.usage_prefix is None or prefix is not None or not text.startswith("usage: "):
            return text
        # "usage: " is 7 columns, the prefix one less: its continuation lines move one column left with it
        first, _, rest = text.partition("\n")
        rest = re.sub(r"(?m)^ (?=\S| )", "", rest)
        return self.usage_prefix + first[len("usage: "):] + "\n" + rest

    def format_help(self) -> str:
        text = super().format_help()
        # argparse ends a section heading with ":"; a Chinese heading takes "："
        return _HEADING.sub(r"\1：", text) if self.wide else text

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_cells(text, width) if self.wide else super()._split_lines(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not self.wide:
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap_cells(text, width - len(indent)))


def formatter(lang: str) -> type[Formatter]:
    """The help formatter class for ``lang``."""
    if lang == "en":
        return Formatter
    from ..knowledge.messages import frame

    return type("Formatter_" + lang, (Formatter,), {"usage_prefix": frame("usage", lang), "wide": True})

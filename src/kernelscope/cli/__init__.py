"""Command line: ``kernelscope diagnose REPORT [REPORT...]``, ``kernelscope roofline``, ``kernelscope gpus``,
``kernelscope occupancy``, ``kernelscope banks``, ``kernelscope compare``, ``kernelscope timeline``,
``kernelscope source``, ``kernelscope profile -- COMMAND`` (runs ``ncu``, then diagnoses), ``kernelscope ceilings``
(measures this GPU's bandwidth and matrix rates through :mod:`kernelscope.measure`).

One module per command (its arguments and the function that runs it); the shared options (``--input-format``,
``--format``, ``--lang``, ``-q``, ``--gpu``/``--spec``, ``-o``) are built once, as the parent parser of each
command, from the :class:`~kernelscope.cli.options.Shared` options it declares. The commands parse arguments, call
:mod:`kernelscope.api` and the analysis, and hand the results to :mod:`kernelscope.render`.

Language: ``--lang`` (every command takes it) defaults to ``$KERNELSCOPE_LANG`` (``en`` or ``zh``), else ``en``; errors
and ``--help`` follow ``--lang`` / ``$KERNELSCOPE_LANG`` too (:mod:`kernelscope.cli.language`): the error line and
the errors that carry a message key are worded in Chinese, other errors stay English.

Exit codes: 0 success, 2 bad input (one-line message naming the file and the problem, nothing written; also a
``--kernel`` / ``--pair`` selection that matches nothing, and an ``-o`` that cannot be written or is an input);
``compare`` exits 1 on a regression beyond ``--fail-if-slower``; an unknown ``$KERNELSCOPE_LANG`` is exit 2;
a reader that closes standard output early (``kernelscope timeline x.sqlite | head -2``) ends the command quietly
with exit 141 (128 + SIGPIPE, what a shell reports for a command killed by the closed pipe), nothing on standard
error.

Inputs may be standard input (``-``) or other streams (:mod:`kernelscope.cli.inputs`); how ``-o`` is written
(links, FIFOs, devices, standard output) is in :mod:`kernelscope.cli.output`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..errors import ArgumentValueError, KernelscopeError
from ..knowledge.messages import error_text
from ..knowledge import LANGUAGES
from ..version import __version__
from .banks import COMMAND as BANKS
from .ceilings import COMMAND as CEILINGS
from .compare import COMMAND as COMPARE
from .diagnose import COMMAND as DIAGNOSE
from .fusion import COMMAND as FUSION
from .gpus import COMMAND as GPUS
from .language import argv_lang, bad_env_message, env_lang, formatter, print_error, translate_help, usage_error
from .occupancy import COMMAND as OCCUPANCY
from .options import DETAILS_HELP, LANG_HELP, Command, Shared, fill_extensions, output_format
from .output import write_atomic, write_atomic_files
from .profile import COMMAND as PROFILE
from .query import COMMAND as QUERY
from .roofline import COMMAND as ROOFLINE
from .source import COMMAND as SOURCE
from .timeline import COMMAND as TIMELINE

__all__ = ["COMMANDS", "main", "write_atomic", "write_atomic_files"]

#: Every command, in the order ``kernelscope --help`` lists them.
COMMANDS: tuple[Command, ...] = (DIAGNOSE, SOURCE, GPUS, OCCUPANCY, BANKS, TIMELINE, FUSION, ROOFLINE, COMPARE, PROFILE, CEILINGS,
                                 QUERY)


#: Exit code when standard output is a pipe its reader closed (128 + SIGPIPE, as a shell reports it).
EXIT_BROKEN_PIPE = 141

#: The end of every ``--lang`` help (the default it takes).
LANG_DEFAULT_HELP = " (default: $KERNELSCOPE_LANG, else en)"


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2), like every other kernelscope error, in ``lang``."""

    def __init__(self, *args, lang: str = "en", **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs.setdefault("formatter_class", formatter(lang))
        super().__init__(*args, **kwargs)
        self.lang = lang

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, usage_error(self.prog, message, self.lang))

    def _get_value(self, action: argparse.Action, arg_string: str):  # type: ignore[no-untyped-def]
        """argparse's conversion of one value, a converter's :class:`ArgumentValueError` worded from its catalogue
        entry in ``lang`` (argparse itself only knows the error's English text)."""
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as exc:
            cause = exc.__context__
            if isinstance(cause, ArgumentValueError):
                raise argparse.ArgumentError(action, error_text(cause, self.lang)) from None
            raise


def _parent(shared: Shared, lang: str = "en") -> argparse.ArgumentParser:
    """The parent parser holding the shared options one command takes, with its help texts; ``lang``: the default
    of ``--lang``."""
    p = argparse.ArgumentParser(add_help=False)
    if shared.input_formats is not None:
        p.add_argument("--input-format", choices=("auto", *shared.input_formats), default="auto",
                       help=shared.input_format_help)
    if shared.formats is not None:
        p.add_argument("--format", choices=shared.formats, default=None, help=shared.format_help, type=format_name)
    if shared.lang:
        p.add_argument("--lang", choices=LANGUAGES, default=lang, help=LANG_HELP + LANG_DEFAULT_HELP)
    if shared.quiet_help is not None:
        p.add_argument("-q", "--quiet", action="store_true", help=shared.quiet_help)
    if shared.gpu_help is not None:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--gpu", metavar="NAME", help=shared.gpu_help[0])
        g.add_argument("--spec", metavar="FILE", help=shared.gpu_help[1])
    if shared.output_help is not None:
        p.add_argument("-o", "--output", metavar="FILE", required=shared.output_required, help=shared.output_help)
    if shared.details:
        p.add_argument("-v", "--details", action="store_true",
                       help=shared.details if isinstance(shared.details, str) else DETAILS_HELP)
    return p


#: Other names ``--format`` takes for one of its choices.
FORMAT_ALIASES = {"md": "markdown"}


def format_name(text: str) -> str:
    """A ``--format`` value as one of its choices: ``md`` is ``markdown`` (:data:`FORMAT_ALIASES`)."""
    return FORMAT_ALIASES.get(text, text)


def _parser(default_lang: str = "en", lang: str = "en") -> argparse.ArgumentParser:
    """The parser: ``default_lang`` is ``--lang``'s default, ``lang`` the language of its help and usage errors."""
    p = _Parser(
        prog="kernelscope",
        description="Why is this CUDA kernel slow, and what to do about it.",
        lang=lang,
    )
    p.add_argument("--version", action="version", version=f"kernelscope {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    subs: list[tuple[argparse.ArgumentParser, Shared]] = []
    for command in COMMANDS:
        c = sub.add_parser(command.name, help=command.help, description=command.description,
                           parents=[_parent(command.shared, default_lang)], lang=lang)
        command.add_arguments(c)
        c.set_defaults(func=command.run, shared=command.shared, command_parser=c)
        subs.append((c, command.shared))
    translate_help(p, lang, LANG_DEFAULT_HELP)
    for c, shared in subs:
        fill_extensions(c, shared, lang)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 a ``compare`` regression, 2 bad input, 130 interrupted
    by Ctrl-C / SIGINT: one line on standard error, no traceback; the outputs are written atomically and the
    temporary copies removed, so nothing is left behind)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        code = _main(argv)
        sys.stdout.flush()  # inside the try: a closed pipe found by the last flush is handled too
        return code
    except BrokenPipeError:
        return _closed_stdout()
    except KeyboardInterrupt:
        from ..knowledge.messages import frame

        try:
            lang = argv_lang(argv) or env_lang() or "en"
        except ValueError:
            lang = "en"
        try:
            print(frame("interrupted", lang), file=sys.stderr)
        except KeyboardInterrupt:  # a second Ctrl-C while saying so
            pass
        return 130


def _closed_stdout() -> int:
    """Standard output's reader went away: point standard output at /dev/null (so the interpreter's last flush
    does not fail once more) and return :data:`EXIT_BROKEN_PIPE`, saying nothing."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


def lang_first(argv: list[str]) -> list[str]:
    """``argv`` with a ``--lang`` given before the command (``kernelscope --lang zh timeline ...``) moved to just
    after it, where every command takes it (a later ``--lang`` still wins); left out where no command follows
    (``kernelscope --lang zh --help``: the caller has read the language from it); any other ``argv`` unchanged."""
    lead: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--lang" and i + 1 < len(argv):
            lead += argv[i:i + 2]
            i += 2
        elif argv[i].startswith("--lang="):
            lead.append(argv[i])
            i += 1
        else:
            break
    if not lead:
        return argv
    if i >= len(argv) or argv[i].startswith("-"):  # no command after it (--help, --version, nothing): the
        return argv[i:]  # language is taken already (argv_lang), argparse speaks it
    return [argv[i], *lead, *argv[i + 1:]]


def _main(argv: list[str]) -> int:
    """:func:`main` without the Ctrl-C handling."""
    try:
        default = env_lang() or "en"
    except ValueError as exc:
        print(bad_env_message(str(exc)), file=sys.stderr)
        return 2
    lang = argv_lang(argv) or default
    argv = lang_first(argv)
    args, extra = _parser(default, lang).parse_known_args(argv)
    if extra:  # the command's own usage error (see 'kernelscope COMMAND --help'), not the top-level one
        args.command_parser.error("unrecognized arguments: " + " ".join(extra))
    lang = getattr(args, "lang", lang)
    try:
        if getattr(args, "format", "") is None:  # not given: what -o's extension says, else the default
            args.format = output_format(args.shared, getattr(args, "output", None))
        return args.func(args)
    except KernelscopeError as exc:
        from ..knowledge.messages import error_text, frame

        text = error_text(exc, lang)
        others = getattr(exc, "keep_going_total", 0)  # one of several inputs: --keep-going reports the others
        if others:
            text += frame("keep_going_hint", lang, others=others - 1)
        print_error(text, lang)
        return 2
    except BrokenPipeError:  # standard output closed by its reader: main() ends quietly
        raise
    except OSError as exc:
        from ..knowledge.messages import frame, phrase

        reason = phrase(exc.strerror or str(exc), lang)
        print_error(frame("source", lang, source=exc.filename or "", problem=reason), lang)
        return 2

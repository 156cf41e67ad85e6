"""What a command declares to the parser: its name and help texts, the shared options it takes (built once, into
the parent parser of :func:`kernelscope.cli.main`), its own arguments and the function that runs it."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable


#: The help of ``--lang``, one text for every command (its default is added: :data:`~.language.LANG_DEFAULT_HELP`).
LANG_HELP = "language of the output"


@dataclass(frozen=True)
class Shared:
    """The shared options one command takes, each with that command's help text; None: it does not take it.

    Attributes:
        input_formats: choices of ``--input-format`` besides ``auto`` (its default).
        input_format_help: help of ``--input-format``.
        formats: choices of ``--format`` (default ``format_default``).
        format_help: help of ``--format``.
        format_default: the ``--format`` used when it is not given.
        lang: whether it takes ``--lang`` (``en``, ``zh``), with the one help text of every command,
            :data:`LANG_HELP`.
        quiet_help: help of ``-q/--quiet``.
        gpu_help: help of ``--gpu NAME`` and of ``--spec FILE`` (mutually exclusive).
        output_help: help of ``-o/--output FILE``.
        output_required: whether ``-o`` must be given.
        format_from_output: whether ``-o FILE`` without ``--format`` picks the format its extension names
            (:data:`OUTPUT_FORMATS`); False where ``-o`` is not the command's report (``ceilings``: a spec file).
        details: whether it takes ``-v/--details`` (:data:`DETAILS_HELP`): the terminal and Markdown report in
            full; without it they show what an engineer reads first (the JSON is complete either way).
    """

    input_formats: tuple[str, ...] | None = None
    input_format_help: str = "format of the REPORT files"
    formats: tuple[str, ...] | None = None
    format_help: str = "output format (default: table)"
    format_default: str = "table"
    lang: bool = False
    quiet_help: str | None = None
    gpu_help: tuple[str, str] | None = None
    output_help: str | None = None
    output_required: bool = False
    format_from_output: bool = True
    details: bool | str = False


#: ``-v/--details`` help, one text for every command that prints a report.
DETAILS_HELP = ("the whole report in the terminal and Markdown output (every panel row, table and caveat); "
                "without it: per kernel the verdict, the busiest unit, the top findings with their estimates and "
                "where in the code, the caveats once at the end (JSON is always complete)")

#: ``-v/--details`` help of ``compare`` (its short report keeps the kernels with the most time).
COMPARE_DETAILS_HELP = ("the whole comparison in the terminal and Markdown output: every compared kernel, every "
                        "metric row (those measured on neither side too) and each kernel's estimates; without it: "
                        "the kernels with the most time, the metrics measured on a side, the estimates where there "
                        "are any (JSON is always complete)")

#: ``-v/--details`` help of ``timeline`` (its short report keeps tables, not panels).
TIMELINE_DETAILS_HELP = ("the whole report in the terminal and Markdown output (every table, every row of each "
                         "ranking, the fusion advice in full); without it: the overview, the devices, ranks, top "
                         "kernels and fusion tables, the checks, the notes once at the end (JSON is always complete)")


#: The ``--format`` an ``-o FILE`` extension names (when ``--format`` is not given); any other extension, or none:
#: the command's default format (the plain-text table for most).
OUTPUT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown", ".json": "json",
                  ".csv": "csv", ".parquet": "parquet", ".svg": "chart", ".png": "chart"}


def output_format(shared: Shared, output: str | None) -> str:
    """The ``--format`` of a command run without one: what ``-o``'s extension names (:data:`OUTPUT_FORMATS`), else
    the command's default.

    Raises:
        InputError: the extension names a format this command does not write (``-o report.html`` for ``gpus``).
    """
    from pathlib import Path

    from ..errors import InputError

    mine = shared.output_help is not None and shared.format_from_output  # profile's -o is its ncu report
    suffix = Path(output).suffix.lower() if output and mine else ""
    fmt = OUTPUT_FORMATS.get(suffix)
    if fmt is None:
        return shared.format_default
    if shared.formats is None or fmt not in shared.formats:
        choices = ", ".join(shared.formats or ())
        raise InputError(output, f"a {suffix} file names the {fmt} format, which this command does not write "  # type: ignore[arg-type]
                                 f"(--format {choices}); give --format or another file name",
                         key="output_format_unknown", values={"suffix": suffix, "fmt": fmt, "choices": choices})
    return fmt


#: ``-o`` help of the commands that write text to standard output by default.
#: ``%(extensions)s``: the extensions that name a format the command writes (:func:`output_extensions`), which
#: argparse fills from the ``-o`` action's ``extensions`` (:func:`fill_extensions`) when it prints the help.
OUTPUT_HELP = ("write to FILE (atomically) instead of standard output; without --format, its extension names the "
               "format (%(extensions)s; any other: the table as plain text)")


def output_extensions(shared: Shared) -> tuple[str, ...]:
    """The ``-o`` extensions (:data:`OUTPUT_FORMATS`) that name a format this command writes (its ``formats``, the
    one source of truth for both the help and :func:`output_format`)."""
    return tuple(ext for ext, fmt in OUTPUT_FORMATS.items() if shared.formats is not None and fmt in shared.formats)


def fill_extensions(parser: argparse.ArgumentParser, shared: Shared, lang: str) -> None:
    """Give the command's ``-o`` the extensions its help names (``%(extensions)s``, :func:`output_extensions`),
    listed the way ``lang`` lists things (Chinese: without the dots, joined by "、")."""
    listed = output_extensions(shared)  # Chinese: "html、md" (no line may start with the "." of ".md")
    text = "、".join(e.lstrip(".") for e in listed) if lang == "zh" else ", ".join(listed)
    for action in parser._actions:
        if action.dest == "output":
            action.extensions = text  # type: ignore[attr-defined]  # argparse fills %(extensions)s from it
#: ``--gpu`` / ``--spec`` help of the commands that diagnose one report.
GPU_HELP = ("use this catalogue GPU's peaks instead of the report's device",
            "TOML/JSON file with peak_flops_per_s and dram_bandwidth_bytes_per_s")


@dataclass(frozen=True)
class Command:
    """One sub-command.

    Attributes:
        name: the sub-command, e.g. ``"diagnose"``.
        help: one line in ``kernelscope --help``.
        description: the paragraph of ``kernelscope NAME --help``, or None.
        shared: the shared options it takes.
        add_arguments: adds its own arguments to its parser.
        run: runs it on the parsed arguments; returns the exit code.
    """

    name: str
    help: str
    description: str | None
    shared: Shared
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]

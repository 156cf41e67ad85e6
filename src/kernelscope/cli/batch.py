"""``--keep-going`` of the commands that read many files (``diagnose``, ``timeline``): the inputs that could not be
read, and the files of a directory that were not read, listed on standard error once the others are reported;
without ``--keep-going`` the first refusal ends the run, its error line naming ``--keep-going`` when there were
other inputs."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from ..errors import InputError
from ..render.inline import terminal_prose


class Batch:
    """What a run of many inputs left out: ``skipped`` (files of a directory with an extension the command does
    not read), ``unread`` (files of a directory with such an extension whose contents are no format it reads: a
    README.txt beside the reports), both listed with or without ``--keep-going``, and ``failed`` (the inputs a
    reader refused, their errors in input order), None without ``--keep-going`` (the first refusal then ends the
    run, exit 2, as always)."""

    def __init__(self, keep_going: bool) -> None:
        self.skipped: list[str] = []
        self.unread: list[str] = []
        self.failed: list[InputError] | None = [] if keep_going else None
        self.unexpanded = 0  # inputs that gave no file to read (with --keep-going: listed in failed)

    def expand(self, items: Sequence[str], suffixes: Sequence[str], **options: Any) -> list[str]:
        """The files to read for the command line's ``items`` (:func:`~kernelscope.distributed.map.expand`, its
        skipped and unread files kept here); with ``--keep-going`` an item that gives no file to read (an empty
        directory, one of no report, a glob matching nothing, a directory that cannot be listed) is kept in
        ``failed`` and counted among the inputs, and the others are read."""
        from ..distributed.map import expand

        before = len(self.failed or ())
        files = expand(items, suffixes, skipped=self.skipped, unread=self.unread, failed=self.failed, **options)
        self.unexpanded += len(self.failed or ()) - before
        return files

    @contextmanager
    def guard(self, total: int) -> Iterator[None]:
        """Around the reading of ``total`` inputs: without ``--keep-going``, an input error among several says
        that ``--keep-going`` would report the others (``keep_going_total`` on the error, which the command
        line's error line adds)."""
        try:
            yield
        except InputError as exc:
            if self.failed is None and total > 1:
                exc.keep_going_total = total  # type: ignore[attr-defined]
            raise

    def close(self, suffixes: Sequence[str], total: int, lang: str) -> int:
        """Print one line per skipped and per failed file, then a summary when any failed; returns the exit code
        (2 when any input failed, else 0). ``total``: the files read; the inputs that gave none are added."""
        from ..knowledge.messages import error_text, frame
        from .inputs import shown

        for path in self.skipped:
            print(shown(frame("skipped", lang, source=path, suffixes=", ".join(suffixes))), file=sys.stderr)
        for path in self.unread:
            print(shown(frame("skipped_unrecognised", lang, source=path)), file=sys.stderr)
        for exc in self.failed or ():
            print(shown(terminal_prose(frame("failed", lang, message=error_text(exc, lang)))), file=sys.stderr)
        if not self.failed:
            return 0
        total += self.unexpanded
        key = "failed_all" if len(self.failed) >= total else "failed_summary"
        print(frame(key, lang, failed=len(self.failed), total=total), file=sys.stderr)
        return 2

"""``--keep-going`` of the commands that read many files (``diagnose``, ``timeline``): the inputs that could not be
read, and the files of a directory that were not read, listed on standard error once the others are reported."""

from __future__ import annotations

import sys
from typing import Sequence

from ..errors import InputError


class Batch:
    """What a ``--keep-going`` run left out: ``skipped`` (files of a directory with an extension the command does
    not read) and ``failed`` (the inputs a reader refused, their errors in input order). Both lists stay None
    without ``--keep-going`` (the first refusal then ends the run, exit 2, as always)."""

    def __init__(self, keep_going: bool) -> None:
        self.skipped: list[str] | None = [] if keep_going else None
        self.failed: list[InputError] | None = [] if keep_going else None

    def close(self, suffixes: Sequence[str], total: int, lang: str) -> int:
        """Print one line per skipped and per failed file, then a summary when any failed; returns the exit code
        (2 when any input failed, else 0)."""
        from ..knowledge.messages import error_text, frame
        from .inputs import shown

        for path in self.skipped or ():
            print(shown(frame("skipped", lang, source=path, suffixes=", ".join(suffixes))), file=sys.stderr)
        for exc in self.failed or ():
            print(shown(frame("failed", lang, message=error_text(exc, lang))), file=sys.stderr)
        if not self.failed:
            return 0
        key = "failed_all" if len(self.failed) >= total else "failed_summary"
        print(frame(key, lang, failed=len(self.failed), total=total), file=sys.stderr)
        return 2

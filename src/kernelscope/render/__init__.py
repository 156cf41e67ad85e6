"""Renderers: terminal tables, JSON, Markdown, HTML and charts. No analysis here: they word and lay out what the
analysis produced, in the user's language."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..knowledge import check_lang

if TYPE_CHECKING:  # (the diagnosis loads only for the commands that render one)
    from ..analysis.diagnosis import ReportDiagnosis

FORMATS: tuple[str, ...] = ("table", "json", "markdown")
#: Formats of ``kernelscope diagnose``: the common ones and a self-contained HTML page.
DIAGNOSE_FORMATS: tuple[str, ...] = FORMATS + ("html",)


def render(results: Sequence[ReportDiagnosis], fmt: str = "table", lang: str = "en", launches: str = "grouped",
           details: bool = True) -> str:
    """Render diagnoses of one or more files as ``"table"`` (plain-text tables), ``"json"``, ``"markdown"`` or
    ``"html"`` (one self-contained page with inline SVG charts). ``launches``: ``"grouped"`` (one panel per group of
    repeated launches: same kernel, grid and block) or ``"all"`` (one panel per launch); the JSON has every launch
    and the groups either way. ``details``: the table and Markdown in full, else their short form
    (:mod:`.brief`); the JSON and HTML are complete either way.

    Raises:
        ValueError: unknown format, language or ``launches`` view.
    """
    check_lang(lang)
    from .launch_groups import check_view

    check_view(launches)
    if fmt == "json":
        from .json import to_json_text

        return to_json_text(results, lang)
    if fmt == "markdown":
        from .markdown import to_markdown

        return to_markdown(results, lang, launches=launches, details=details)
    if fmt == "html":
        from .html import to_html

        return to_html(results, lang, launches=launches)
    if fmt == "table":
        from .table import to_table

        return to_table(results, lang, launches=launches, details=details)
    raise ValueError(f"format must be one of {', '.join(DIAGNOSE_FORMATS)}, got {fmt!r}")



"""Renderers: terminal tables, JSON, Markdown, HTML and charts. No analysis here: they word and lay out what the
analysis produced, in the user's language."""

from __future__ import annotations

from typing import Sequence

from ..analysis.diagnosis import ReportDiagnosis
from ..knowledge import check_lang

FORMATS: tuple[str, ...] = ("table", "json", "markdown")
#: Formats of ``kernelscope diagnose``: the common ones and a self-contained HTML page.
DIAGNOSE_FORMATS: tuple[str, ...] = FORMATS + ("html",)


def render(results: Sequence[ReportDiagnosis], fmt: str = "table", lang: str = "en") -> str:
    """Render diagnoses of one or more files as ``"table"`` (plain-text tables), ``"json"``, ``"markdown"`` or
    ``"html"`` (one self-contained page with inline SVG charts).

    Raises:
        ValueError: unknown format or language.
    """
    check_lang(lang)
    if fmt == "json":
        from .json import to_json_text

        return to_json_text(results, lang)
    if fmt == "markdown":
        from .markdown import to_markdown

        return to_markdown(results, lang)
    if fmt == "html":
        from .html import to_html

        return to_html(results, lang)
    if fmt == "table":
        from .table import to_table

        return to_table(results, lang)
    raise ValueError(f"format must be one of {', '.join(DIAGNOSE_FORMATS)}, got {fmt!r}")



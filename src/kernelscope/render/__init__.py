"""Renderers: turn analysis results into terminal tables, JSON, Markdown, HTML and charts. No analysis here."""

from .common import render

__all__ = ["render"]

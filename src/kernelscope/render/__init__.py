"""Renderers: turn analysis results into terminal tables, JSON and Markdown. No analysis here."""

from .common import render

__all__ = ["render"]

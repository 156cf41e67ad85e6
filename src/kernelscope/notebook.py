"""Jupyter display: a :class:`~kernelscope.analysis.diagnosis.ReportDiagnosis` or
:class:`~kernelscope.analysis.diagnosis.KernelDiagnosis` left as the last expression of a cell shows as the HTML
report (summary, charts, a card per launch), in English.

The analysis types know nothing of rendering: :func:`register` gives them ``_repr_html_`` (IPython's rich
display hook); ``import kernelscope`` calls it.
"""

from __future__ import annotations

from .analysis.diagnosis import KernelDiagnosis, ReportDiagnosis


def _report_html(self: ReportDiagnosis) -> str:
    from .render.html import report_fragment  # matplotlib only when a notebook displays a report

    return report_fragment(self)


def _kernel_html(self: KernelDiagnosis) -> str:
    from .render.html import kernel_fragment

    return kernel_fragment(self)


def register() -> None:
    """Give the diagnosis types their Jupyter HTML display (idempotent)."""
    ReportDiagnosis._repr_html_ = _report_html  # type: ignore[attr-defined]
    KernelDiagnosis._repr_html_ = _kernel_html  # type: ignore[attr-defined]

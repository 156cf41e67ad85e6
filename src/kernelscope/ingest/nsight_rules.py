"""Nsight Compute's own stored rule results, resolved for the analysis: message types in one vocabulary, and
the Speed-of-Light class its SOLBottleneck rule stated, in kernelscope's class vocabulary (so nothing
downstream matches Nsight's English rule text).

The SOLBottleneck messages and titles this recognises are those of the reports in the shared corpus (Nsight
Compute 2021.2 .. 2026.2): "Small Grid" / "too small to fill"; "Latency Issue"; "Balanced Throughput";
"High Memory Throughput" / "memory is more heavily utilized"; "High Compute Throughput" / "compute is more
heavily utilized"; and "High Throughput" whose message sends the reader to a memory unit ("Start by analyzing
DRAM / L1 / L2 ...") or to the Compute Workload Analysis.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..model import RuleResult
from ..notes import BALANCED, COMPUTE_BOUND, LATENCY_BOUND, MEMORY_BOUND, SMALL_GRID

_MSG_TYPES = {0: "INFO", 1: "INFO", 2: "OPTIMIZATION", 3: "WARNING", 4: "ERROR"}
_MSG_TYPE_NAMES = {
    "NONE": "INFO", "OK": "INFO", "INF": "INFO", "INFO": "INFO",
    "OPTIMIZATION": "OPTIMIZATION", "OPT": "OPTIMIZATION",
    "WARNING": "WARNING", "WRN": "WARNING", "WARN": "WARNING",
    "ERROR": "ERROR", "ERR": "ERROR",
}

# (class, phrases in the lower-cased title + message), checked in this order.
_SOL_PHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (SMALL_GRID, ("small grid", "too small to fill")),
    (LATENCY_BOUND, ("latency issue",)),
    (BALANCED, ("balanced",)),
    (MEMORY_BOUND, ("memory is more heavily utilized", "high memory throughput")),
    (COMPUTE_BOUND, ("compute is more heavily utilized", "high compute throughput")),
)
_MEMORY_UNIT = re.compile(r"start by analyzing (dram|l1|l2|fb|shared|memory)")


def message_type(kind: object) -> str:
    """A rule message type (``ncu_report`` enum value, or text such as ``"OPT"``, ``"WRN"``, ``"MsgType_INFO"``)
    -> ``"INFO"`` / ``"OPTIMIZATION"`` / ``"WARNING"`` / ``"ERROR"``; anything else is ``"INFO"``."""
    if isinstance(kind, int):
        return _MSG_TYPES.get(kind, "INFO")
    text = str(kind or "").upper().replace("MSGTYPE_", "").strip()
    return _MSG_TYPE_NAMES.get(text, "INFO")


def sol_verdict(rules: Iterable[RuleResult]) -> tuple[str | None, str | None]:
    """The class Nsight Compute's stored SOLBottleneck rule stated, and that result's title.

    Returns:
        ``(class, title)``; ``(None, None)`` when the rule is absent, ``(None, title)`` when it ran with an
        error or stated no class.
    """
    for rule in rules:
        if rule.rule_id != "SOLBottleneck":
            continue
        title = rule.title or ""
        text = f"{title} {rule.message}".lower()
        for bound, phrases in _SOL_PHRASES:
            if any(p in text for p in phrases):
                return bound, title
        if "high throughput" in text:
            if _MEMORY_UNIT.search(text):
                return MEMORY_BOUND, title
            if "compute workload analysis" in text:
                return COMPUTE_BOUND, title
        return None, title or None
    return None, None

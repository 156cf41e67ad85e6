"""The words of a compared pair that its heading says already: the "What moved" line without the speedup (and
without a figure that printed the same on both sides), and whether the summary's matched-kernels line said the only
pair's speedup (a slowdown is said once). No analysis here."""

from __future__ import annotations

from ..analysis.compare import Comparison, KernelComparison
from ..notes import Note
from .common import Fmt


#: The explanation's first note says the pair's speedup, which its heading says already ("加速比 0.67×（变慢，耗时为优化前的
#: 1.50×）"): under the heading the note keeps only the times, so a speedup and a slowdown are said once.
_SAID_IN_HEADING = {"cmp_speedup": "cmp_times", "cmp_slower": "cmp_times", "cmp_within_noise": "cmp_within_noise_times"}


#: Notes of a figure that moved "from X to Y": one whose X and Y print the same moved nothing shown.
_FROM_TO = frozenset(("cmp_bandwidth", "cmp_memory", "cmp_compute", "cmp_stall", "cmp_occupancy"))


def moved_text(p: KernelComparison, f: Fmt) -> str:
    """The "What moved" line under a pair's heading: its explanation, with the speedup the heading says left out
    ("374.0 µs → 280.2 µs；DRAM 带宽从峰值的 58.7% 变为 77.2%") and without a figure whose before and after print the
    same (never "SM 吞吐从峰值的不到 0.1% 变为不到 0.1%"); the JSON keeps the explanation's own notes."""
    notes = [Note(_SAID_IN_HEADING[n.key], {k: n.values[k] for k in ("before_s", "after_s")})
             if n.key in _SAID_IN_HEADING else n for n in p.explanation]
    return f.notes(n for n in notes if not (
        n.key in _FROM_TO and f.note(n) == f.note(Note(n.key, {**n.values, "before": n.values["after"]}))))


def said_above(p: KernelComparison, c: Comparison, f: Fmt) -> bool:
    """Whether the summary's matched-kernels line said this pair's speedup already: the only pair, its speedup the
    same as printed. Its heading (and the Markdown table's cell) then gives the factor alone, so that a slowdown's
    "（变慢，耗时为优化前的 1.33×）" is said once."""
    return (len(c.pairs) == 1 and not (c.total_before_s == 0 and c.total_after_s == 0)
            and f.factor(c.speedup) == f.factor(p.speedup))

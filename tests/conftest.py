"""Shared test fixtures: where the shared corpus and cases live (``../shared`` beside the checkout)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS_NCU = SHARED / "corpus" / "ncu"
CASES = SHARED / "cases"
SEEDS = SHARED / "seeds"
EXAMPLE = REPO / "examples" / "seed_kernels.toml"


def need(path: Path) -> Path:
    """Skip the calling test with a clear reason when a shared input is absent (e.g. on a user's machine)."""
    if not path.exists():
        pytest.skip(f"shared inputs not available: {path} is absent (it lives beside the checkout in ../shared)")
    return path


def kernel_trace(path: Path, names) -> str:
    """Write a minimal Kineto trace of back-to-back kernels (``names``: (kernel name, duration µs) in order, one
    stream of one A100) to ``path``; returns the path as a string."""
    events, t = [], 1000
    for name, dur in names:
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t, "dur": dur,
                       "args": {"device": 0, "stream": 7, "grid": [64, 1, 1], "block": [256, 1, 1]}})
        t += dur + 2
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
                                "traceEvents": events}))
    return str(path)


def panel_rows(text: str) -> list[dict[str, str]]:
    """Each kernel panel's rows of a terminal report, label -> value, continuation lines joined (CJK text without a space)."""
    panels: list[dict[str, str]] = []
    cur: dict[str, str] = {}
    last = None
    for line in text.splitlines():
        if re.match(r"^\[\d+\] ", line):
            cur, last = {}, None
            panels.append(cur)
            continue
        m = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
        if m:
            last = m.group(1)
            cur[last] = m.group(2)
        elif last is not None and line.startswith("   ") and line.strip():
            joint = "" if re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]$", cur[last]) else " "
            cur[last] += joint + line.strip()
        elif not line.strip():
            last = None
    return panels


def corpus_reports() -> list[Path]:
    """Every .ncu-rep of the shared corpus, sorted; empty when the corpus is absent."""
    return sorted(CORPUS_NCU.glob("*.ncu-rep")) if CORPUS_NCU.is_dir() else []


@pytest.fixture(autouse=True)
def _english_unless_asked(monkeypatch):
    """Tests expect English unless they ask for Chinese: a developer's own ``KERNELSCOPE_LANG`` does not leak in."""
    monkeypatch.delenv("KERNELSCOPE_LANG", raising=False)


_CJK_CHAR = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
_FULL_WIDTH_PUNCTUATION = r"[\u3000-\u303f\uff00-\uffef]"
_WRAP = re.compile(rf"(?<={_CJK_CHAR})\s*\n\s*(?={_CJK_CHAR})|(?<={_FULL_WIDTH_PUNCTUATION})\s*\n\s*"
                   rf"|\s*\n\s*(?={_FULL_WIDTH_PUNCTUATION})")


def flat(text: str) -> str:
    """Wrapped terminal text as one line: a line break between two Chinese characters (where CJK-aware wrapping may
    break, wherever the paths printed before it put the break), or after or before full-width punctuation ("1、3、" /
    "5"), joins them without a space; any other run of
    whitespace becomes one space."""
    return " ".join(_WRAP.sub("", text).split())

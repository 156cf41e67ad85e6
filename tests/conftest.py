"""Shared test fixtures: where the shared corpus and cases live (``../shared`` beside the checkout)."""

from __future__ import annotations

from pathlib import Path

import re
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

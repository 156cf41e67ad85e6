"""Counts as a reader expects them, one way wherever a count is printed (a table, a sentence of a finding or a
source line): by 万 / 亿 in Chinese, by SI prefixes in English (:func:`counts`). Below the renderers so that the
sentences of ``labels.toml`` (``{x:C}``, :func:`kernelscope.knowledge.text.fill`) word their counts the same way.
Pure functions; no I/O."""

from __future__ import annotations

import math

#: Decimal SI prefixes, largest first.
PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def counts(values: tuple[float | None, ...], zh: bool, nm: str) -> list[str]:
    """Counts shown together (see :meth:`Fmt.counts` for the rules): by 万 / 亿 when ``zh``, else by SI prefixes;
    ``nm``: the language's "not measured" (for None or NaN)."""
    scaled: list[tuple[float, str] | str] = []
    for value in values:
        if value is None or value != value:
            scaled.append(nm)
        elif abs(value) < 1e4:
            scaled.append(f"{value:.4g}" if value != int(value) else str(int(value)))
        elif zh:
            scale, unit = (1e8, "亿") if abs(value) >= 1e8 else (1e4, "万")
            scaled.append((value / scale, unit))
        else:
            scale, prefix = next(((k, p) for k, p in PREFIXES if abs(value) >= k), (1.0, ""))
            if abs(value) / scale >= 999.5 and scale < PREFIXES[0][0]:  # 999 950 is 1.00 M, not 1000 k
                scale, prefix = next((k, p) for k, p in reversed(PREFIXES) if k > scale)
            scaled.append((value / scale, prefix))

    def exact(x: float, d: int) -> bool:
        return abs(x * 10 ** d - round(x * 10 ** d)) < 1e-9 * max(1.0, abs(x) * 10 ** d)

    digits: dict[str, int] = {}
    for unit in {u for item in scaled if isinstance(item, tuple) for u in item[1:]}:
        xs = [x for item in scaled if isinstance(item, tuple) and item[1] == unit for x in item[:1]]
        top = float(f"{max(abs(x) for x in xs):.3g}")
        base = max(2 - int(math.floor(math.log10(top))), 0)
        digits[unit] = next((d for d in range(base) if all(exact(x, d) for x in xs)), base)
    return [item if isinstance(item, str) else f"{item[0]:.{digits[item[1]]}f} {item[1]}" for item in scaled]

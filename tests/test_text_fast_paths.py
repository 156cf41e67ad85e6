"""The fast paths of :func:`kernelscope.knowledge.text.fill` (issue 31) print what the general rules print."""

import random
from decimal import ROUND_HALF_UP, Decimal

from kernelscope.knowledge.text import fill, half_up


def _decimal_half_up(value: float, digits: int) -> str:
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def test_half_up_matches_the_decimal_rule_on_ties_and_random_values():
    rng = random.Random(31)
    values = [6.25, 18.75, 2.675, -2.675, 0.05, -0.05, 0.125, 99.95, 1e-7, 1e16, 0.0, -0.0, 123456789.125]
    values += [round(rng.uniform(-100, 100), rng.randint(0, 4)) for _ in range(20000)]
    values += [rng.uniform(-1e4, 1e4) for _ in range(5000)]
    for v in values:
        for digits in (0, 1, 2, 3):
            assert half_up(v, digits) == _decimal_half_up(v, digits), (v, digits)
    assert half_up(6.25, 1) == "6.3"  # a tie rounds up, as a reader rounds (format() gives 6.2)
    assert half_up(2.675, 2) == "2.68"


def test_fill_infinities_and_not_measured_with_the_same_template_twice():
    for _ in range(2):  # (the second time from the per-template plan)
        assert fill("{x:.1f}% and {y}", {"x": None, "y": 2}, "en") == "not measured and 2"
        assert fill("{g:.2f}x", {"g": float("inf")}, "en") == "∞"
        assert fill("{g:.2f}x", {"g": -float("inf")}, "en") == "-∞"
        assert fill("{s:.1%}", {"s": 0.5}, "en") == "50%"
        assert fill("{s:.1%}", {"s": 0.0625}, "en") == "6.3%"
        assert fill("{p:.1f}% then {q:.1f}", {"p": 32.0, "q": 16.0}, "en") == "32% then 16"


def test_words_fast_path_returns_what_the_full_path_returns(monkeypatch):
    from kernelscope.render import common
    from kernelscope.render.common import Fmt

    samples = [("sol_latency", {"c": 12.5, "m": 3.0, "limit": 60.0}),
               ("stall_share", {"reason": "long_scoreboard", "share": 0.4}),
               ("rule_compute_unit", {"c": 80.0, "m": 10.0, "limit": 60.0, "unit": "fma", "unit_pct": 80.0}),
               ("x", {"total_s": 1.5e-3, "n": 3}), ("x", {"size_mb": 12.0}), ("x", {"bound": "memory-bound"}),
               ("x", {"pipe": "fp32", "us": 12.0}), ("x", {"gpu": "H100", "sms": 132})]
    for lang in ("en", "zh"):
        fast = [Fmt(lang).words(k, v) for k, v in samples]
        monkeypatch.setattr(common, "_as_given", lambda key, names: False)
        full = [Fmt(lang).words(k, v) for k, v in samples]
        monkeypatch.undo()
        assert fast == full
    assert common._as_given("sol_latency", ("c", "m", "limit"))
    assert not common._as_given("stall_share", ("reason", "share"))
    assert not common._as_given("x", ("total_s",))


def test_remedy_preconditions_cached_and_uncached_agree():
    from kernelscope.knowledge.remedies import applicable, holds, remedies

    ids = tuple(remedies())
    for facts in (frozenset(), frozenset({"library"}), frozenset({"debug_build", "tensor"})):
        for cc in (None, (8, 0), (9, 0)):
            cached = applicable(ids, facts, cc)
            assert cached == applicable(list(ids), set(facts), cc)  # (the uncached path: a list and a set)
            assert applicable(ids, facts, cc) is cached  # worked out once
            for i in ids:
                req = remedies()[i].requires
                assert holds(req, facts, cc) == holds(list(req), set(facts), cc)
    assert holds(("cc>=9.0",), frozenset(), (9, 0)) and not holds(("cc>=9.0",), frozenset(), None)
    assert holds(("!cc>=9.0",), frozenset(), None) and not holds(("library",), frozenset(), (9, 0))

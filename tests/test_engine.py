"""The rule engine (kernelscope.analysis.engine): ordering by parents, what a rule sees of the rules before it,
findings ordered by estimated gain, and the metric requests of the kernel and timeline rules."""

from __future__ import annotations

import pytest

from kernelscope.analysis.engine import Evidence, Finding, Rule, by_gain, order, requested_metrics, run_rules
from kernelscope.analysis.kernel_rules import KERNEL_RULES
from kernelscope.knowledge.metrics import request
from kernelscope.notes import Note


def _finding(rule_id: str, speedup: float | None = None, **kw) -> Finding:
    return Finding(rule_id, "optimization", Note(rule_id), estimated_speedup=speedup, **kw)


def test_parents_run_first_and_children_see_their_findings():
    seen = {}

    def child(ctx, done):
        seen.update({k: [f.id for f in v] for k, v in done.items()})
        return _finding("child") if done["parent"] else None

    rules = (Rule("child", child, parents=("parent",)), Rule("parent", lambda ctx, done: _finding("parent")),
             Rule("quiet", lambda ctx, done: None))
    assert [r.id for r in order(rules)] == ["parent", "child", "quiet"]
    found = run_rules(rules, context=None)
    assert [f.id for f in found] == ["parent", "child"]
    assert seen == {"parent": ["parent"]}  # "quiet" had not run yet; a rule with no finding maps to ()


def test_a_rule_may_return_several_findings_and_a_silent_rule_none():
    rules = (Rule("many", lambda ctx, done: (_finding("many"), _finding("many"))), Rule("none", lambda ctx, done: None))
    assert [f.id for f in run_rules(rules, None)] == ["many", "many"]


@pytest.mark.parametrize(("rules", "message"), [
    ((Rule("a", lambda c, d: None), Rule("a", lambda c, d: None)), "duplicate rule id 'a'"),
    ((Rule("a", lambda c, d: None, parents=("b",)),), "depends on unknown rule 'b'"),
    ((Rule("a", lambda c, d: None, parents=("b",)), Rule("b", lambda c, d: None, parents=("a",))), "cycle: a -> b -> a"),
])
def test_bad_rule_sets_are_refused(rules, message):
    with pytest.raises(ValueError, match=message):
        order(rules)


def test_a_rule_returning_something_else_is_refused():
    with pytest.raises(ValueError, match="returned str, expected Finding"):
        run_rules((Rule("bad", lambda c, d: ["not a finding"]),), None)


def test_findings_are_ordered_by_estimated_gain_then_rule_order():
    found = (_finding("a"), _finding("b", 1.2), _finding("c"), _finding("d", 3.0))
    assert [f.id for f in by_gain(found)] == ["d", "b", "a", "c"]


@pytest.mark.parametrize("kw", [{"severity": "fatal"}, {"estimated_speedup": 0.5}, {"estimated_speedup": float("inf")}])
def test_finding_values_are_checked(kw):
    base = {"id": "x", "severity": "info", "message": Note("x")}
    with pytest.raises(ValueError):
        Finding(**{**base, **kw})


def test_requested_metrics_are_each_name_once_in_first_seen_order():
    rules = (Rule("a", lambda c, d: None, inputs=("m1", "m2")), Rule("b", lambda c, d: None, inputs=("m2", "m3")))
    assert requested_metrics(rules) == ("m1", "m2", "m3")


def test_the_reader_requests_every_metric_the_kernel_rules_read():
    """The .ncu-rep reader reads only data/metrics.toml [request]: each input a kernel or cause rule declares is in
    it (the diagnosis runs both: ``diagnosis.RULES``)."""
    from kernelscope.analysis.diagnosis import RULES

    req = request()
    missing = [m for m in requested_metrics(RULES)
               if m not in req.names and not m.startswith(req.prefixes)]
    assert missing == []
    assert len(requested_metrics(RULES)) >= 40


def test_kernel_rules_have_unique_ids_and_speed_of_light_is_the_parent():
    ids = [r.id for r in KERNEL_RULES]
    assert len(ids) == len(set(ids))
    assert order(KERNEL_RULES)[0].id == "speed_of_light"
    class_rules = [r for r in KERNEL_RULES if r.id in ("memory_throughput", "compute_throughput", "small_grid")]
    assert all("speed_of_light" in r.parents for r in class_rules)


def test_evidence_names_its_metric():
    e = Evidence("dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.0, "%")
    assert (e.metric, e.value, e.unit) == ("dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.0, "%")

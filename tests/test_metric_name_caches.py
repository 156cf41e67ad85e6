"""What a launch's metric names alone decide is worked out once per list of names (issue 31: the launches of a kernel
have the same names); what its values decide stays the launch's own. Property: a profile read from metrics with
the names of another launch, or after it, is the profile read alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.analysis.performance import units_of
from kernelscope.ingest.ncu_metrics import profile_from_metrics

#: Metric names whose presence the readers look up once per list of names (tensor paths and FLOP counts, per-cycle
#: FP rates, stall families, the tensor data-path loads), with the other metrics of a launch around them.
NAMES = (
    "gpu__time_duration.sum",
    "sm__ops_path_tensor_src_fp16_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp16_dst_fp32.sum.pct_of_peak_sustained_elapsed",
    "sm__ops_path_tensor_src_bf16_dst_fp32.avg.pct_of_peak_sustained_elapsed",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum.pct_of_peak_sustained_active",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__pcsamp_warps_issue_stalled_wait",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
)
UNITS = {"gpu__time_duration.sum": "ns", "smsp__pcsamp_warps_issue_stalled_wait": ""}


def _profile(metrics: dict[str, float]):
    units = {n: UNITS.get(n, "%" if "pct" in n else "") for n in metrics}
    return profile_from_metrics(0, "k", "k", None, metrics, units, (), "test.csv", partial_flops=True)


def _facts(metrics: dict[str, float]) -> tuple:
    """What the name caches feed: tensor work, tensor FLOPs, FP rates, stalls, the tensor units' loads."""
    p = _profile(metrics)
    loads = tuple((c.metric, c.busy) for c in units_of(p).counters if c.unit == "tensor")
    return (tuple(p.tensor_ops_pct.items()), tuple(p.flop_counts.items()), p.has_flop_rates, p.stall_family,
            tuple(p.stall_values.items()), loads, tuple(p.problems))


_launch = st.lists(st.tuples(st.sampled_from(NAMES), st.floats(0.5, 99.0)), min_size=1, max_size=len(NAMES))


@settings(max_examples=60, deadline=None)
@given(_launch, _launch, st.randoms(use_true_random=False))
def test_a_launch_read_after_another_is_the_launch_read_alone(first, second, rnd):
    a, b = dict(first), dict(second)
    same_names = dict(zip(a, (v * rnd.uniform(0.5, 1.5) for v in a.values())))  # a's names, other values
    alone = [_facts(m) for m in (a, b, same_names)]
    assert [_facts(m) for m in (a, b, same_names, a)] == [*alone, alone[0]]


def test_launches_with_the_same_names_keep_their_own_values_and_order():
    one = {"sm__ops_path_tensor_src_fp16_dst_fp32.sum.pct_of_peak_sustained_elapsed": 40.0,
           "sm__ops_path_tensor_src_bf16_dst_fp32.avg.pct_of_peak_sustained_elapsed": 10.0,
           "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 2.0}
    other = dict(zip(one, (5.0, 70.0, 0.5)))
    first, second = _facts(one), _facts(other)
    assert first[0] == (("fp16_tensor", 40.0), ("bf16_tensor", 10.0))
    assert second[0] == (("fp16_tensor", 5.0), ("bf16_tensor", 70.0))
    assert first[4] == (("long_scoreboard", 2.0),) and second[4] == (("long_scoreboard", 0.5),)
    assert [busy for _, busy in first[5]] == [0.1] and [busy for _, busy in second[5]] == [0.7]
    reordered = dict(reversed(list(one.items())))  # the same names in another order: that order
    assert _facts(reordered)[0] == (("bf16_tensor", 10.0), ("fp16_tensor", 40.0))

"""DRAM bytes of a report that holds only their rate (expert review 14: "DRAM bytes not measured" where the report
has ``dram__bytes.sum.per_second``, the Speed-of-Light section's Memory Throughput): the count is the rate x the
duration, said as derived, for every Nsight Compute input (binary report, CSV, printed page: one function)."""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU
from kernelscope import diagnose_file
from kernelscope.ingest.ncu_metrics import profile_from_metrics

BASE = {"gpu__time_duration.sum": 297.5, "dram__bytes.sum.per_second": 47.91}
UNITS = {"gpu__time_duration.sum": "usecond", "dram__bytes.sum.per_second": "Gbyte/second"}


def _profile(extra=None, extra_units=None):
    metrics = {**BASE, **(extra or {})}
    units = {**UNITS, **(extra_units or {})}
    return profile_from_metrics(0, "k", "k()", None, metrics, units, (), "x.ncu-rep"), metrics


def test_the_count_is_the_rate_times_the_duration_and_says_it_is_derived():
    p, metrics = _profile()
    assert p.dram_bytes == pytest.approx(47.91e9 * 297.5e-6)
    assert p.metrics["dram__bytes.sum"] == pytest.approx(47.91e9 * 297.5e-6)  # what the memory levels read
    assert any(x.startswith("DRAM bytes derived as DRAM bandwidth x duration") for x in p.problems)
    assert "dram__bytes.sum" not in metrics  # the caller's metrics stay as read


@pytest.mark.parametrize("counted", [{"dram__bytes.sum": 1.0}, {"dram__bytes_read.sum": 1.0, "dram__bytes_write.sum": 2.0}])
def test_a_measured_count_is_never_replaced(counted):
    p, _ = _profile(counted, {k: "Mbyte" for k in counted})
    assert p.dram_bytes == pytest.approx(1e6 * sum(counted.values()))
    assert not any("derived" in x for x in p.problems)


def test_no_duration_no_count():
    p = profile_from_metrics(0, "k", "k()", None, {"dram__bytes.sum.per_second": 1.0},
                             {"dram__bytes.sum.per_second": "Gbyte/second"}, (), "x.ncu-rep")
    assert p.dram_bytes is None


def test_a_corpus_report_with_the_rate_only_gets_its_bytes():
    path = CORPUS_NCU / "AveryClapp__ESMM-Research__profile_output.ncu-rep"
    if not path.is_file():
        pytest.skip("shared corpus absent")
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")
    for d in diagnose_file(path).kernels:
        k = d.kernel
        rate = k.metrics.get("dram__bytes.sum.per_second")
        assert rate is not None and k.duration_s
        assert k.dram_bytes == pytest.approx(rate * k.duration_s, rel=1e-9)

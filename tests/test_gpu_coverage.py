"""Every GPU named in the shared corpus and cases resolves to ceilings (issue 24, "Catalogue").

(a) For every file of ``../shared/corpus`` and ``../shared/cases`` that names a GPU, each named device is a catalogue
    entry (:func:`find_gpu`) or, for a kernel profile that records its SM count, clocks, compute capability and bus
    width, gets ceilings from :func:`derived_spec`.
(b) :func:`derived_spec` on hand-made devices gives the numbers computed by hand below; the bandwidth formula and the
    FP32 lane table reproduce the datasheet figures of the catalogue.
(c) :func:`diagnose_report` on a report of a GPU the catalogue lacks uses the derived ceilings and says so
    (``gpu_derived``, in English and Chinese); a derived spec without some peak is handled like a catalogue entry
    without it.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from conftest import CASES, SHARED, need
from kernelscope.analysis.diagnosis import diagnose_report
from kernelscope.errors import InputError, UnknownGpuError
from kernelscope.ingest import load, load_timeline
from kernelscope.knowledge.gpus import (DERIVED_ORIGIN, FP32_LANES_PER_SM, catalogue, derived_dram_bandwidth,
                                        derived_spec, find_gpu)
from kernelscope.knowledge.text import note_text
from kernelscope.model import DeviceInfo, KernelProfile, ProfileReport

CORPUS = SHARED / "corpus"
CORPUS_NCU = CORPUS / "ncu"

#: Device names in the shared inputs that are not a GPU's name, with the reason.
NOT_A_GPU = {"GPU-PLACEHOLDER": "case N01 replaced the trace's device name by a placeholder"}


def _inputs() -> list:
    files = []
    for root in (CORPUS, CASES):
        if root.is_dir():
            files += [p for p in sorted(root.rglob("*"))
                      if p.is_file() and p.name not in ("README.md", "_nsys_min_schema.sql")]
    if not files:
        return [pytest.param(None, id="shared-absent")]
    return [pytest.param(p, id=str(p.relative_to(SHARED))) for p in files]


def _sqlite_names(db: Path) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT name FROM TARGET_INFO_GPU")]
    except sqlite3.Error:
        return []
    finally:
        con.close()


def named_devices(path: Path, tmp_path: Path) -> list[tuple[str, DeviceInfo | None]]:
    """``(name, device attributes or None)`` of every GPU the file names, as kernelscope's readers see them (an
    Nsight Systems case ``.sql`` is built into a database the way the cases README says, and its TARGET_INFO_GPU
    rows read directly, so that an export without kernel tables is covered too)."""
    if path.suffix == ".sql":
        db = tmp_path / (path.stem + ".sqlite")
        con = sqlite3.connect(db)
        con.executescript((CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
                          + path.read_text(encoding="utf-8"))
        con.close()
        return [(n, None) for n in _sqlite_names(db) if n and n.strip()]
    if path.suffix == ".sqlite":
        return [(n, None) for n in _sqlite_names(path) if n and n.strip()]
    try:
        report = load(path)
    except InputError:
        pass
    else:
        return [(k.device.display_name, k.device) for k in report.kernels if k.device.display_name]
    try:
        timeline = load_timeline(path)
    except InputError:
        return []
    return [(n, None) for _, n in getattr(timeline, "devices", ()) if n and n.strip()]


def resolves(name: str, device: DeviceInfo | None) -> bool:
    try:
        find_gpu(name)
        return True
    except UnknownGpuError:
        return device is not None and derived_spec(device) is not None


@pytest.mark.parametrize("path", _inputs())
def test_every_named_gpu_resolves(path, tmp_path):
    if path is None:
        pytest.skip(f"shared inputs not available: {SHARED} is absent (it lives beside the checkout in ../shared)")
    devices = named_devices(path, tmp_path)
    named = {n: d for n, d in devices if n not in NOT_A_GPU}
    if not named:
        pytest.skip(f"{path.name} names no GPU")
    missing = sorted(n for n, d in named.items() if not resolves(n, d))
    assert not missing, f"{path.name}: GPUs neither in the catalogue nor derivable from the report: {missing}"


def test_the_gpus_once_missing_are_catalogued():
    """The GPUs the shared inputs named that the catalogue lacked (N07, the TensorBoard-plugin trace, C19, C05)."""
    for name in ("Tesla K80", "Tesla V100-DGXS-32GB", "NVIDIA GeForce RTX 5070 Ti Laptop GPU", "Quadro RTX 8000"):
        assert find_gpu(name).origin == "catalogue"
    k80 = find_gpu("Tesla K80")  # per GPU: half of the dual-GPU board's 8.74 / 2.91 TFLOPS and 480 GB/s
    assert k80.peak("fp32") == pytest.approx(4.37e12, rel=1e-3)
    assert k80.peak("fp64") == pytest.approx(1.455e12, rel=1e-3)
    assert k80.dram_bandwidth_bytes_per_s == 240e9


# ------------------------------------------------------------------------------------------------ (b) derived_spec

#: 10 SMs of CC 8.6 at 1.5 GHz, 7000 MHz memory clock on a 256-bit bus, 4 MiB L2.
HAND = DeviceInfo(display_name="NVIDIA Hand-Made GPU", compute_capability=(8, 6), sm_count=10, max_sm_clock_hz=1.5e9,
                  max_mem_clock_hz=7.0e9, memory_bus_width_bits=256, l2_cache_bytes=4 * 2**20)


def test_derived_spec_by_hand():
    spec = derived_spec(HAND)
    # DRAM: 2 (DDR) x 7.0e9 Hz x 256 bit / 8 = 448e9 B/s (448 GB/s)
    assert spec.dram_bandwidth_bytes_per_s == pytest.approx(448e9)
    # FP32: 10 SMs x 128 lanes (CC 8.6) x 2 FLOP x 1.5e9 Hz = 3.84e12 FLOP/s
    assert spec.peak("fp32") == pytest.approx(3.84e12)
    # FP64: 10 SMs x 2 (CC 8.6) x 2 FLOP x 1.5e9 Hz = 6.0e10 FLOP/s
    assert spec.peak("fp64") == pytest.approx(6.0e10)
    assert set(spec.peak_flops_per_s) == {"fp32", "fp64"}  # no tensor peak: not derivable from the report
    assert (spec.name, spec.sm_count, spec.boost_clock_hz, spec.compute_capability, spec.l2_cache_bytes) == (
        "NVIDIA Hand-Made GPU", 10, 1.5e9, (8, 6), 4 * 2**20)
    assert spec.origin == DERIVED_ORIGIN == "derived from the report's SM count, clocks and bus width"
    assert not spec.measured
    assert all(s.startswith(DERIVED_ORIGIN) for s in spec.sources.values())
    assert "7000 MHz x 256-bit" in spec.sources["dram_bandwidth_bytes_per_s"]


def test_derived_spec_hopper_has_128_fp32_lanes():
    # 132 SMs x 128 x 2 FLOP x 1.98e9 Hz = 66.9e12: the H100 SXM5 datasheet's 67 TFLOPS (64 lanes would give half)
    spec = derived_spec(dataclasses.replace(HAND, compute_capability=(9, 0), sm_count=132, max_sm_clock_hz=1.98e9))
    assert spec.peak("fp32") == pytest.approx(66.9e12, rel=1e-3)
    assert spec.peak("fp64") == pytest.approx(33.45e12, rel=1e-3)  # 64 FP64/clk: datasheet 34


@pytest.mark.parametrize("missing", ["max_sm_clock_hz", "sm_count", "compute_capability", "max_mem_clock_hz",
                                     "memory_bus_width_bits"])
def test_derived_spec_none_without_the_numbers(missing):
    assert derived_spec(dataclasses.replace(HAND, **{missing: None})) is None


def test_derived_spec_unknown_cc_and_no_fp64_rate():
    assert derived_spec(dataclasses.replace(HAND, compute_capability=(2, 0))) is None  # not in the lane table
    orin = derived_spec(dataclasses.replace(HAND, compute_capability=(8, 7)))  # FP32 known, FP64 rate not confirmed
    assert set(orin.peak_flops_per_s) == {"fp32"}


def test_fp32_lane_table_reproduces_every_catalogue_entry():
    """SMs x lanes x 2 FLOP x boost clock within 1 % of each entry's FP32 peak (datasheet or whitepaper figures for
    K20c, GP100, V100, T4, A100, A30, A10, L4, L40S, H100, RTX 2070/2080 Ti/3070/3080/3090/4090/5090 ...)."""
    checked = 0
    for spec in catalogue():
        if spec.sm_count is None or spec.boost_clock_hz is None:
            continue
        derived = spec.sm_count * FP32_LANES_PER_SM[spec.compute_capability] * 2 * spec.boost_clock_hz
        assert derived == pytest.approx(spec.peak("fp32"), rel=0.01), spec.name
        checked += 1
    assert checked >= 40


#: Derived DRAM bandwidth (2 x max memory clock x bus width / 8, from the report) vs the catalogue's datasheet figure,
#: GB/s, for one corpus report of each GPU. HBM2 / HBM2e / HBM3 / HBM3e and GDDR6 / GDDR6X / GDDR7 all match: the
#: memory clock Nsight Compute reports is already the one the formula wants. The GTX 1650 report is the 12 Gbps
#: GDDR6 board (192 GB/s); the catalogue entry is the original GDDR5 board (128 GB/s): a board variant, not the formula.
BANDWIDTH_CHECK = [
    ("AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep", 1555.2, 1555),  # A100 SXM4 40GB, HBM2
    ("panjd123__cutlass__report-s8.ncu-rep", 1935.4, 1935),  # A100 80GB PCIe, HBM2e
    ("AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep", 4022.8, 4000),  # GH200, HBM3
    ("armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep", 320.1, 320),  # T4, GDDR6
    ("Atopos0313__cuda_learning__reports_day08_after.ncu-rep", 616.0, 616),  # RTX 2080 Ti, GDDR6
    ("EricccYang__cuda_operators__reduce_reduce_v1.ncu-rep", 864.1, 864),  # L20, GDDR6
    ("piragi__fuzigrad__output.ncu-rep", 760.1, 760),  # RTX 3080, GDDR6X
    ("Lashi0812__CudaProgramming__profile.ncu-rep", 1008.1, 1008),  # RTX 4090, GDDR6X
    ("Abhishek7204__raytracingCuda__profile.ncu-rep", 384.0, 384),  # RTX 5060 Laptop, GDDR7
    ("bautista-garcia__heat_sim__report_name.ncu-rep", 192.0, 128),  # GTX 1650 GDDR6 board vs GDDR5 entry
]


@pytest.mark.parametrize("file, derived_gbps, datasheet_gbps", BANDWIDTH_CHECK)
def test_derived_bandwidth_matches_the_datasheet(file, derived_gbps, datasheet_gbps):
    device = load(need(CORPUS_NCU / file)).kernels[0].device
    bw = derived_dram_bandwidth(device)
    assert bw / 1e9 == pytest.approx(derived_gbps, abs=0.1)
    assert find_gpu(device.display_name).dram_bandwidth_bytes_per_s / 1e9 == datasheet_gbps
    if "GTX 1650" not in device.display_name:
        assert bw / 1e9 == pytest.approx(datasheet_gbps, rel=0.01)


# ------------------------------------------------------------------------------------- (c) diagnose_report derived

def _renamed(path: Path, name: str) -> ProfileReport:
    report = load(need(path))
    kernels = tuple(dataclasses.replace(k, device=dataclasses.replace(k.device, display_name=name))
                    for k in report.kernels)
    return dataclasses.replace(report, kernels=kernels)


def test_diagnose_report_derives_the_ceilings_of_an_uncatalogued_gpu():
    report = _renamed(CORPUS_NCU / "Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep",
                      "NVIDIA GeForce RTX 9999 Ultra")  # an RTX 4090's attributes under a name no catalogue has
    with pytest.raises(UnknownGpuError):
        find_gpu("NVIDIA GeForce RTX 9999 Ultra")
    rd = diagnose_report(report)
    assert rd.kernels
    for d in rd.kernels:
        assert d.gpu is not None and d.gpu.origin == DERIVED_ORIGIN
        # 128 SMs x 128 x 2 x 2.52 GHz = 82.58 TFLOP/s; 2 x 10501 MHz x 384 bit / 8 = 1008.1 GB/s
        # (the RTX 4090 datasheet: 82.6, 1008)
        assert d.gpu.peak("fp32") == pytest.approx(82.58e12, rel=1e-3)
        assert d.gpu.dram_bandwidth_bytes_per_s == pytest.approx(1008.1e9, rel=1e-3)
        note = d.provenance[0]
        assert note.key == "gpu_derived"
        assert not any(n.key in ("peaks_given", "gpu_not_in_catalogue", "no_gpu") for n in d.provenance)
        assert note.values["gpu"] == "NVIDIA GeForce RTX 9999 Ultra" and note.values["sms"] == 128
        en = note_text(note.key, note.values, "en")
        assert "RTX 9999 Ultra" in en and "derived from the report's SM count, clocks and bus width" in en
        assert "82.58 TFLOP/s" in en and "1008 GB/s" in en and "--gpu" in en
        zh = note_text(note.key, note.values, "zh")
        assert "RTX 9999 Ultra" in zh and "不在内置规格库中" in zh and "推算" in zh and "82.58 TFLOP/s" in zh
        assert "不含 Tensor Core 上限" in zh and "--spec FILE" in zh


def test_a_gpu_with_nothing_to_derive_from_keeps_the_old_hint():
    report = _renamed(CORPUS_NCU / "Lashi0812__CudaProgramming__profile.ncu-rep", "NVIDIA GeForce RTX 9999 Ultra")
    bare = tuple(dataclasses.replace(k, device=DeviceInfo(display_name=k.device.display_name)) for k in report.kernels)
    rd = diagnose_report(dataclasses.replace(report, kernels=bare))
    for d in rd.kernels:
        assert d.gpu is None and d.provenance[0].key.startswith("gpu_not_in_catalogue")


def _kernel(**kw) -> KernelProfile:
    device = dataclasses.replace(HAND, compute_capability=(8, 7), display_name="NVIDIA Hand-Made Orin")  # no FP64 rate
    base = dict(index=0, name="k", demangled_name="k(double*)", device=device, duration_s=1e-3,
                dram_bytes_read=1e8, dram_bytes_write=1e8)
    base.update(kw)
    return KernelProfile(**base)


@pytest.mark.parametrize("kw, note", [
    (dict(flop_counts={"fp64": 1e9}), "no_peak"),  # an FP64 kernel on a derived spec without an FP64 peak
    (dict(tensor_pipe_active_pct=60.0), "no_peak_fallback"),  # a tensor kernel: no tensor peak, FP32 ceiling instead
])
def test_derived_spec_without_a_peak_does_not_crash(kw, note):
    report = ProfileReport(path="hand-made", format="plain", kernels=(_kernel(**kw),))
    (d,) = diagnose_report(report).kernels
    assert d.gpu is not None and d.gpu.origin == DERIVED_ORIGIN and d.provenance[0].key == "gpu_derived"
    assert note in {n.key for n in d.notes}

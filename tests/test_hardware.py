"""Hardware catalogue and spec loading. Expected numbers are copied from NVIDIA datasheets and
architecture whitepapers (cited next to each), not from the code under test."""

from __future__ import annotations

import json

import pytest

from kernelscope.errors import InputError, UnknownGpuError
from kernelscope.analysis import roofline
from kernelscope.ingest.settings import read_spec as load_spec
from kernelscope.knowledge.gpus import catalogue, find_gpu, spec_from_numbers


def ridge_point(spec, pipe):
    return roofline.ridge_point(spec.peak(pipe), spec.dram_bandwidth_bytes_per_s)
from kernelscope.model import PIPES

T = 1e12  # TFLOPS -> FLOP/s
GB = 1e9  # GB/s -> bytes/s


# ------------------------------------------------------------------------------- seed ridge points


def test_a100_sxm4_80gb_ridge_points():
    a100 = find_gpu("NVIDIA A100-SXM4-80GB")
    # A100 datasheet: 312 TFLOPS dense FP16 tensor, 19.5 TFLOPS FP32, 2039 GB/s (80GB SXM).
    assert a100.peak_flops_per_s["fp16_tensor"] == pytest.approx(312 * T)
    assert a100.dram_bandwidth_bytes_per_s == pytest.approx(2039 * GB)
    assert ridge_point(a100, "fp16_tensor") == pytest.approx(153.0, abs=0.05)
    assert ridge_point(a100, "fp32") == pytest.approx(9.56, abs=0.01)


def test_h100_sxm5_ridge_points():
    h100 = find_gpu("NVIDIA H100 80GB HBM3")
    # Hopper whitepaper: 989.4 dense FP16 tensor (datasheet 1,979 with sparsity), 1978.9 FP8;
    # datasheet: 67 TFLOPS FP32, 3.35 TB/s.
    assert h100.peak_flops_per_s["fp16_tensor"] == pytest.approx(989.4 * T, rel=1e-3)
    assert h100.dram_bandwidth_bytes_per_s == pytest.approx(3350 * GB)
    assert ridge_point(h100, "fp16_tensor") == pytest.approx(295, abs=1)
    assert ridge_point(h100, "fp8_tensor") == pytest.approx(591, abs=1)
    assert ridge_point(h100, "fp32") == pytest.approx(20, abs=0.05)


# (display name, pipe, datasheet TFLOPS (dense), datasheet GB/s)
DATASHEET = [
    ("Tesla V100-SXM2-32GB", "fp16_tensor", 125, 900),  # V100 datasheet, SXM2
    ("Tesla V100-PCIE-16GB", "fp32", 14, 900),  # V100 datasheet, PCIe
    ("Tesla T4", "fp16_tensor", 65, 320),  # T4 datasheet
    ("Tesla T4", "int8_tensor", 130, 320),
    ("NVIDIA A10", "tf32_tensor", 62.5, 600),  # A10 datasheet (125* with sparsity)
    ("NVIDIA A30", "bf16_tensor", 165, 933),  # A30 datasheet (330* with sparsity)
    ("NVIDIA A100-PCIE-40GB", "fp64_tensor", 19.5, 1555),  # A100 datasheet
    ("NVIDIA A100 80GB PCIe", "tf32_tensor", 156, 1935),
    ("NVIDIA A100-SXM4-40GB", "int8_tensor", 624, 1555),
    ("NVIDIA H100 PCIe", "fp32", 51, 2000),  # H100 datasheet, PCIe
    ("NVIDIA H100 PCIe", "bf16_tensor", 1513 / 2, 2000),
    ("NVIDIA H100 NVL", "fp8_tensor", 3341 / 2, 3900),  # H100 NVL datasheet
    ("NVIDIA H800", "fp64", 1, 3350),  # H800 datasheet: FP64 cut to 1 TFLOPS
    ("NVIDIA H200", "fp8_tensor", 3958 / 2, 4800),  # H200 datasheet, SXM
    ("NVIDIA H200 NVL", "fp32", 60, 4800),  # H200 datasheet, NVL
    ("NVIDIA GH200 480GB", "fp64_tensor", 67, 4000),  # GH200 datasheet (96 GB HBM3)
    ("NVIDIA B200", "fp8_tensor", 9000 / 2, 7700),  # HGX B200 (9 PF* with sparsity)
    ("NVIDIA L4", "fp8_tensor", 485 / 2, 300),  # L4 datasheet (485* with sparsity)
    ("NVIDIA L40S", "fp32", 91.6, 864),  # L40S datasheet
    ("NVIDIA GeForce RTX 4090", "fp16_tensor_fp16acc", 330.3, 1008),  # Ada whitepaper
    ("NVIDIA GeForce RTX 4090", "fp16_tensor", 165.2, 1008),
    ("NVIDIA GeForce RTX 3090", "fp16_tensor_fp16acc", 142, 936),  # GA102 whitepaper
    ("NVIDIA GeForce RTX 3080", "fp32", 29.8, 760),
    ("NVIDIA GeForce RTX 2080 Ti", "fp16_tensor", 53.8, 616),  # Turing whitepaper (reference)
    ("Quadro GP100", "fp64", 5.2, 717),  # Quadro GP100 datasheet
    ("Tesla K20c", "fp64", 1.17, 208),  # Tesla K20 datasheet
]


@pytest.mark.parametrize(("name", "pipe", "tflops", "gb_s"), DATASHEET)
def test_datasheet_figures(name, pipe, tflops, gb_s):
    spec = find_gpu(name)
    assert spec.peak_flops_per_s[pipe] == pytest.approx(tflops * T, rel=2e-3)
    assert spec.dram_bandwidth_bytes_per_s == pytest.approx(gb_s * GB)


# ------------------------------------------------------------------------------ catalogue sanity


SPECS = catalogue()


def test_catalogue_is_loaded_once_and_large():
    assert catalogue() is SPECS
    assert len(SPECS) >= 40


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_entry_is_complete_and_cited(spec):
    assert spec.origin == "catalogue" and not spec.measured
    assert spec.dram_bandwidth_bytes_per_s > 1e10
    assert spec.peak_flops_per_s.get("fp32", 0) > 1e12
    assert set(spec.peak_flops_per_s) <= set(PIPES)
    assert all(v > 0 for v in spec.peak_flops_per_s.values())
    assert spec.architecture and spec.compute_capability and spec.sm_count
    numeric = ["dram_bandwidth_bytes_per_s", *(f"peak_flops_per_s.{p}" for p in spec.peak_flops_per_s)]
    numeric += [f for f in ("sm_count", "boost_clock_hz", "l2_cache_bytes", "compute_capability") if getattr(spec, f)]
    for field in numeric:
        assert len(spec.sources.get(field, "")) > 10, f"{spec.name}: no source for {field}"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_no_sparsity_figures(spec):
    p = spec.peak_flops_per_s
    tensor = [k for k in p if k.endswith("_tensor") or k.endswith("fp16acc")]
    if "fp16_tensor" in p:
        assert p["fp16_tensor"] <= p["fp16_tensor_fp16acc"]
    # Physical bound: no NVIDIA tensor core before Blackwell exceeds 4096 dense FP16 FLOP/clk/SM
    # (H100: 4 tensor cores x 512 FMA); a "with sparsity" figure would be 8192.
    if spec.boost_clock_hz and spec.sm_count and spec.compute_capability < (10, 0) and tensor:
        per_sm_clock = max(p[k] for k in tensor if k != "int8_tensor" and k != "fp8_tensor")
        assert per_sm_clock / (spec.sm_count * spec.boost_clock_hz) <= 4096 * 1.001
    major = spec.compute_capability[0]
    if "GeForce" not in spec.name and spec.name != "NVIDIA A10G" and "fp16_tensor" in p:
        # datacenter parts: FP32 accumulate runs at full rate
        assert p["fp16_tensor"] == pytest.approx(p["fp16_tensor_fp16acc"])
    if major in (8, 9, 10) and "GeForce" not in spec.name and "bf16_tensor" in p:
        assert p["bf16_tensor"] == pytest.approx(p["fp16_tensor"])
    if major == 9:  # Hopper: FP8 is exactly 2x FP16, TF32 half of FP16
        assert p["fp8_tensor"] == pytest.approx(2 * p["fp16_tensor"], rel=1e-3)
        assert p["tf32_tensor"] == pytest.approx(p["fp16_tensor"] / 2, rel=1e-3)
    if "GeForce" in spec.name and "fp16_tensor" in p:
        # GeForce whitepapers: FP32 accumulate is half the FP16-accumulate rate
        assert p["fp16_tensor"] == pytest.approx(p["fp16_tensor_fp16acc"] / 2, rel=5e-3)
    if spec.architecture in ("Kepler", "Pascal", "Volta", "Turing"):
        assert not {"tf32_tensor", "bf16_tensor", "fp8_tensor"} & set(p)
    if spec.architecture == "Ampere":
        assert "fp8_tensor" not in p


def test_ampere_hopper_datacenter_parts_are_dense():
    for name in ("NVIDIA A100-SXM4-80GB", "NVIDIA A30", "NVIDIA H100 SXM5", "NVIDIA H200", "NVIDIA L40S"):
        p = find_gpu(name).peak_flops_per_s
        assert p["fp16_tensor"] == p["bf16_tensor"] == p["fp16_tensor_fp16acc"]


def test_aliases_are_unique_across_entries():
    for spec in SPECS:
        for alias in (spec.name, *spec.aliases):
            assert find_gpu(alias) is spec, f"{alias!r} of {spec.name} resolves elsewhere"


# ---------------------------------------------------------------------------------------- lookup

CORPUS_NAMES = [
    "NVIDIA GeForce RTX 5060 Laptop GPU", "NVIDIA A100-SXM4-40GB", "NVIDIA GH200 480GB",
    "NVIDIA GeForce RTX 2060 SUPER", "Tesla T4", "NVIDIA A10G", "NVIDIA GeForce GTX 1650",
    "NVIDIA A100-PCIE-40GB", "NVIDIA GeForce RTX 3050 Laptop GPU", "NVIDIA GeForce GTX 1660 SUPER",
    "NVIDIA GeForce RTX 4090", "NVIDIA A100 80GB PCIe", "NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 2080 Ti",
    "NVIDIA GeForce RTX 5090", "NVIDIA B200", "NVIDIA GeForce RTX 5070", "NVIDIA GeForce RTX 3070 Laptop GPU",
    "Tesla P40", "Tesla K20c", "Quadro GP100", "GeForce GTX 1070", "Tesla V100-SXM2-32GB", "NVIDIA A100-PG509-200",
    "NVIDIA H100", "NVIDIA GeForce RTX 3060 Laptop GPU", "NVIDIA GeForce RTX 3060", "NVIDIA GeForce GTX 1080 Ti",
    "NVIDIA GeForce RTX 2070", "NVIDIA H100 80GB HBM3", "NVIDIA H200",
    "NVIDIA GeForce RTX 4060 Laptop GPU", "NVIDIA GeForce RTX 4060 Ti", "NVIDIA L20",
]


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_corpus_display_names_resolve(name):
    assert find_gpu(name).origin == "catalogue"


def test_every_gpu_of_the_corpus_reports_is_catalogued_with_its_sm_count():
    """Each GPU a corpus report names (device__attribute_display_name, read with ncu_report) has a catalogue entry, and
    the entry's SM count is the report's device__attribute_multiprocessor_count."""
    from conftest import corpus_reports

    reports = corpus_reports()
    if not reports:
        pytest.skip("shared corpus not available")
    ncu_report = pytest.importorskip("ncu_report")
    seen: dict[str, int] = {}
    for path in reports:
        action = ncu_report.load_report(str(path)).range_by_idx(0).action_by_idx(0)
        name = action.metric_by_name("device__attribute_display_name")
        sms = action.metric_by_name("device__attribute_multiprocessor_count")
        if name is not None and sms is not None:
            seen[name.as_string()] = int(sms.as_double())
    assert {"NVIDIA GeForce RTX 4060 Laptop GPU", "NVIDIA GeForce RTX 4060 Ti", "NVIDIA L20"} <= set(seen)
    for name, sms in seen.items():
        assert find_gpu(name).sm_count == sms, name


# Ada per-SM rates per clock, from the Ada whitepaper's RTX 4090 column (128 SMs at 2520 MHz): FP32 82.6 TFLOPS,
# FP16 tensor 330.3 (FP16 acc) / 165.2 (FP32 acc), TF32 82.6, FP8 330.3 (FP32 acc), INT8 660.6 TOPS; FP64 2 per SM
# per clock x 2 FLOP (CUDA C++ Programming Guide, CC 8.9).
ADA_GEFORCE_PER_SM = {"fp64": 4, "fp32": 256, "tf32_tensor": 256, "fp16_tensor": 512, "fp16_tensor_fp16acc": 1024,
                      "bf16_tensor": 512, "fp8_tensor": 1024, "int8_tensor": 2048}


@pytest.mark.parametrize(("name", "sms", "mhz", "gb_s"), [
    ("NVIDIA GeForce RTX 4060 Laptop GPU", 24, 2370, 256),  # 3072 cores; NVIDIA's top laptop boost; 16 Gbps x 128 bit
    ("NVIDIA GeForce RTX 4060 Ti", 34, 2535, 288),  # 4352 cores, 2535 MHz boost, 18 Gbps x 128 bit
])
def test_derived_geforce_ada_entries(name, sms, mhz, gb_s):
    spec = find_gpu(name)
    assert spec.sm_count == sms and spec.boost_clock_hz == mhz * 1e6 and spec.l2_cache_bytes == 32 * 2**20
    assert spec.dram_bandwidth_bytes_per_s == gb_s * GB
    assert set(spec.peak_flops_per_s) == set(ADA_GEFORCE_PER_SM)  # no CUDA-core FP16: no whitepaper figure
    for pipe, per_sm in ADA_GEFORCE_PER_SM.items():
        assert spec.peak_flops_per_s[pipe] == pytest.approx(sms * per_sm * mhz * 1e6, rel=2e-3), pipe
    assert all(s.startswith("derived:") for k, s in spec.sources.items() if k.startswith("peak_flops_per_s."))


def test_l20_tensor_cores_are_not_at_the_ada_datacenter_rate():
    """The L20's published dense tensor figures (FP16 119.5 TFLOPS, INT8 239 TOPS, third-party tables; no NVIDIA
    datasheet found) are half of what 92 SMs at the L40S's per-SM rate would give (237 / 475)."""
    l20, l40s = find_gpu("NVIDIA L20"), find_gpu("NVIDIA L40S")
    assert (l20.sm_count, l20.boost_clock_hz, l20.dram_bandwidth_bytes_per_s) == (92, 2520e6, 864 * GB)
    p = l20.peak_flops_per_s
    assert p["fp32"] == pytest.approx(92 * 256 * 2520e6, rel=2e-3)
    assert (p["fp16_tensor"], p["int8_tensor"]) == (119.5 * T, 239 * T)
    l40s_per_sm = l40s.peak_flops_per_s["fp16_tensor"] / (l40s.sm_count * l40s.boost_clock_hz)
    assert p["fp16_tensor"] / (92 * 2520e6) == pytest.approx(l40s_per_sm / 2, rel=0.02)
    assert p["tf32_tensor"] == pytest.approx(p["fp16_tensor"] / 2) and p["fp8_tensor"] == p["int8_tensor"]


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("a100 sxm4 80gb", "NVIDIA A100-SXM4-80GB"),
        ("A100_SXM4_80GB", "NVIDIA A100-SXM4-80GB"),
        ("nvidia a100-sxm4-40gb", "NVIDIA A100-SXM4-40GB"),
        ("GeForce RTX 3060", "NVIDIA GeForce RTX 3060"),
        ("NVIDIA GeForce RTX 3060 Laptop GPU", "NVIDIA GeForce RTX 3060 Laptop GPU"),
        ("NVIDIA T4", "Tesla T4"),
        ("NVIDIA H100", "NVIDIA H100 SXM5"),
        ("NVIDIA H200", "NVIDIA H200"),
        ("Tesla V100-SXM2-16GB", "Tesla V100-SXM2"),
    ],
)
def test_normalised_lookup(name, canonical):
    assert find_gpu(name).name == canonical


def test_ambiguous_names_map_as_documented():
    assert find_gpu("NVIDIA H100").dram_bandwidth_bytes_per_s == pytest.approx(3350 * GB)  # SXM5
    assert find_gpu("NVIDIA A100-PG509-200").dram_bandwidth_bytes_per_s == pytest.approx(1555 * GB)  # 40GB-class
    assert find_gpu("NVIDIA H200").peak_flops_per_s["fp64"] == pytest.approx(34 * T)  # SXM, not NVL (30)
    assert find_gpu("NVIDIA GeForce RTX 3060").sm_count == 28  # desktop, not the 30-SM laptop part


@pytest.mark.parametrize("name", ["NVIDIA A100 80GB", "NVIDIA A100", "NVIDIA GeForce RTX 4090 Ti", "H100 SXM6"])
def test_near_names_are_not_fuzzy_matched(name):
    with pytest.raises(UnknownGpuError):
        find_gpu(name)


def test_unknown_gpu_message_lists_closest_and_options():
    with pytest.raises(UnknownGpuError) as info:
        find_gpu("NVIDIA A100 80GB")
    err = info.value
    assert 1 <= len(err.closest) <= 5
    assert "NVIDIA A100-SXM4-80GB" in err.closest and "NVIDIA A100 80GB PCIe" in err.closest
    text = str(err)
    assert "A100-SXM4-80GB" in text and "--gpu" in text and "--spec" in text
    assert "\n" not in text


def test_unknown_gpu_with_nothing_close():
    with pytest.raises(UnknownGpuError) as info:
        find_gpu("Radeon RX 7900 XTX")
    assert "--gpu" in str(info.value)


# ------------------------------------------------------------------------------------ spec files


def test_toml_spec_file_si_units(tmp_path):
    path = tmp_path / "mygpu.toml"
    path.write_text(
        'dram_bandwidth_bytes_per_s = 1.0e12\ncompute_capability = "8.6"\nsm_count = 84\nmeasured = true\n'
        'source = "measured with nvbandwidth"\n[peak_flops_per_s]\nfp32 = 4.0e13\nfp16_tensor = 1.5e14\n'
    )
    spec = load_spec(path)
    assert spec.name == "mygpu"  # file stem
    assert spec.origin == f"spec file {path}"
    assert spec.measured and spec.compute_capability == (8, 6) and spec.sm_count == 84
    assert spec.dram_bandwidth_bytes_per_s == 1.0e12
    assert ridge_point(spec, "fp32") == pytest.approx(40.0)
    assert spec.sources["peak_flops_per_s.fp16_tensor"] == "measured with nvbandwidth"


def test_json_spec_file(tmp_path):
    path = tmp_path / "box.json"
    path.write_text(json.dumps({"name": "lab box", "dram_bandwidth_bytes_per_s": 5e11, "peak_flops_per_s": {"fp64": 1e12}}))
    spec = load_spec(str(path))
    assert spec.name == "lab box" and not spec.measured
    assert ridge_point(spec, "fp64") == pytest.approx(2.0)
    assert spec.sources["dram_bandwidth_bytes_per_s"] == f"spec file {path}"


def test_catalogue_entry_can_be_copied_as_spec(tmp_path):
    path = tmp_path / "a100.toml"
    path.write_text(
        '[[gpu]]\nname = "my A100"\narchitecture = "Ampere"\ndram_bandwidth_gb_s = 2039\nboost_clock_mhz = 1410\n'
        'l2_cache_mib = 40\nsource = "A100 datasheet"\n[gpu.peak_tflops]\nfp16_tensor = 312\n'
        '[gpu.sources]\ndram_bandwidth_gb_s = "A100 80GB SXM datasheet"\n'
    )
    spec = load_spec(path)
    assert spec.name == "my A100" and spec.boost_clock_hz == pytest.approx(1.41e9)
    assert spec.l2_cache_bytes == 40 * 2**20
    assert ridge_point(spec, "fp16_tensor") == pytest.approx(153.0, abs=0.05)
    assert spec.sources["dram_bandwidth_bytes_per_s"] == "A100 80GB SXM datasheet"
    assert spec.sources["peak_flops_per_s.fp16_tensor"] == "A100 datasheet"


BAD_SPECS = [
    ("nobw.toml", "[peak_flops_per_s]\nfp32 = 1e13\n", "dram_bandwidth_bytes_per_s"),
    ("nopeak.toml", "dram_bandwidth_bytes_per_s = 1e12\n", "peak_flops_per_s"),
    ("neg.toml", "dram_bandwidth_bytes_per_s = 1e12\n[peak_flops_per_s]\nfp32 = -1e13\n", "peak_flops_per_s.fp32"),
    ("zero.json", '{"dram_bandwidth_bytes_per_s": 0, "peak_flops_per_s": {"fp32": 1e13}}', "dram_bandwidth_bytes_per_s"),
    ("str.json", '{"dram_bandwidth_bytes_per_s": "fast", "peak_flops_per_s": {"fp32": 1e13}}', "dram_bandwidth_bytes_per_s"),
    ("pipe.toml", "dram_bandwidth_bytes_per_s = 1e12\n[peak_flops_per_s]\nfp17 = 1e13\n", "peak_flops_per_s.fp17"),
    ("typo.toml", "dram_bandwith_gb_s = 900\n[peak_tflops]\nfp32 = 10\n", "dram_bandwith_gb_s"),
    ("cc.toml", 'dram_bandwidth_gb_s = 900\ncompute_capability = "eight"\n[peak_tflops]\nfp32 = 10\n', "compute_capability"),
    ("list.json", "[1, 2, 3]", "expected a table"),
]


@pytest.mark.parametrize(("filename", "content", "field"), BAD_SPECS)
def test_bad_spec_files_name_file_and_field(tmp_path, filename, content, field):
    path = tmp_path / filename
    path.write_text(content)
    with pytest.raises(InputError) as info:
        load_spec(path)
    text = str(info.value)
    assert str(path) in text and field in text and "\n" not in text


def test_unknown_pipe_lists_valid_keys(tmp_path):
    path = tmp_path / "pipe.toml"
    path.write_text("dram_bandwidth_bytes_per_s = 1e12\n[peak_flops_per_s]\nfp4_tensor = 1e15\n")
    with pytest.raises(InputError) as info:
        load_spec(path)
    assert all(p in str(info.value) for p in PIPES)


@pytest.mark.parametrize("filename", ["garbage.toml", "garbage.json"])
def test_garbage_bytes(tmp_path, filename):
    path = tmp_path / filename
    path.write_bytes(b"\x00\xff\xfe garbage ][ = {{")
    with pytest.raises(InputError) as info:
        load_spec(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_missing_file_and_wrong_extension(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        load_spec(tmp_path / "absent.toml")
    (tmp_path / "spec.yaml").write_text("x: 1\n")
    with pytest.raises(InputError, match=r"\.toml or \.json"):
        load_spec(tmp_path / "spec.yaml")


# ------------------------------------------------------------------------- numbers and ridge point


def test_spec_from_numbers():
    spec = spec_from_numbers(19.5e12, 1.555e12, pipe="fp32", name="a100ish")
    assert spec.origin == "arguments" and spec.name == "a100ish"
    assert ridge_point(spec, "fp32") == pytest.approx(12.54, abs=0.01)
    assert spec.sources["peak_flops_per_s.fp32"]
    with pytest.raises(InputError, match="pipe"):
        spec_from_numbers(1e12, 1e11, pipe="fp99")
    with pytest.raises(InputError, match="dram_bandwidth_bytes_per_s"):
        spec_from_numbers(1e12, -5.0)


def test_ridge_point_missing_pipe():
    with pytest.raises(InputError) as info:
        ridge_point(find_gpu("NVIDIA A100-SXM4-80GB"), "fp8_tensor")  # Ampere has no FP8
    text = str(info.value)
    assert text.startswith("gpu spec NVIDIA A100-SXM4-80GB") and "fp8_tensor" in text and "has: fp64" in text

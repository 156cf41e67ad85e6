"""kernelscope ceilings: measured DRAM bandwidth and GEMM rates (issue 17, item 2).

Without a GPU: the measuring code runs against a FAKE backend whose device events read a simulated clock, so every
rate is known by hand; the command's no-GPU path (one line, exit 2, nothing written); the spec file it writes
round-trips through read_spec and drives `diagnose --spec` ("Ceilings from" says measured); the comparison with
the catalogue's datasheet figures; the JSON document against its schema. With a CUDA GPU (PyTorch or CuPy), the last
test measures the real thing."""

from __future__ import annotations

import datetime
import json
import math
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE, REPO
from kernelscope.analysis.ceilings import (
    BANDWIDTH, GEMM_PIPES, QUANTITIES, CeilingsRun, Measurement, Skipped, compare_with_datasheet, datasheet_for,
    measured_spec, spec_fields,
)
from kernelscope.cli import main
from kernelscope.ingest.settings import read_spec
from kernelscope.knowledge.gpus import find_gpu
from kernelscope.measure import backends
from kernelscope.measure.backends import NEITHER, NO_DEVICE, NOT_INSTALLED, find_backend
from kernelscope.measure.ceilings import (
    Device, NoGpuError, Timing, Unsupported, device_time_ms, measure_bandwidth, measure_ceilings, measure_gemm, sizes,
)
from kernelscope.render.ceilings import ceilings_renderables, spec_text
from kernelscope.render.rich_text import to_plain

GIB = 2**30
H200 = Device("NVIDIA H200", (9, 0), 132, 140 * GIB)
DAY = datetime.date(2025, 6, 1)


# ------------------------------------------------------------------------------------------ the fake backend


class FakeEvent:
    """A device event that records the fake device's clock."""

    def __init__(self, device: "FakeBackend") -> None:
        self.device = device
        self.at: float | None = None

    def record(self) -> None:
        self.at = self.device.now

    def synchronize(self) -> None:
        self.device.syncs += 1

    def elapsed_ms(self, end: "FakeEvent") -> float:
        return (end.at - self.at) * 1e3


class FakeBackend:
    """A device whose operations take known times: each call advances its clock by ``seconds`` (a number, or a
    function of the call's index for that operation, 0 first)."""

    name = "fake"
    version = "1.0"

    def __init__(self, copy_s=2e-3, gemm_s=None, device=H200, unsupported=(), failing=()):
        self.copy_s = copy_s
        self.gemm_s = gemm_s or {p: 10e-3 for p in GEMM_PIPES}
        self._device = device
        self.unsupported, self.failing = set(unsupported), set(failing)
        self.now = 0.0
        self.syncs = 0
        self.released = 0
        self.calls: dict[str, int] = {}
        self.sizes: dict[str, int] = {}

    def device(self) -> Device:
        return self._device

    def event(self) -> FakeEvent:
        return FakeEvent(self)

    def synchronize(self) -> None:
        self.syncs += 1

    def _op(self, key: str, seconds):
        def call():
            i = self.calls.get(key, 0)
            self.calls[key] = i + 1
            self.now += seconds(i) if callable(seconds) else seconds

        return call

    def copy_op(self, buffer_bytes: int):
        self.sizes[BANDWIDTH] = buffer_bytes
        return self._op(BANDWIDTH, self.copy_s), f"fake copy of {buffer_bytes} bytes"

    def gemm_op(self, pipe: str, n: int):
        if pipe in self.unsupported:
            raise Unsupported(f"{pipe}: not on this fake")
        if pipe in self.failing:
            raise RuntimeError("CUDA out of memory. Tried to allocate 256.00 MiB\nmore text")
        self.sizes[pipe] = n
        return self._op(pipe, self.gemm_s[pipe]), f"fake gemm {pipe} {n}"

    def release(self) -> None:
        self.released += 1


def run_of(backend=None, **kw) -> CeilingsRun:
    return measure_ceilings(backend or FakeBackend(), Timing(repeats=5), today=DAY, **kw)


# ------------------------------------------------------------------------------------------ timing, by hand


def test_event_timing_reads_the_device_clock():
    fake = FakeBackend(copy_s=3e-3)
    fn, _ = fake.copy_op(1)
    assert device_time_ms(fake, fn, 4) == pytest.approx(12.0)
    assert fake.calls[BANDWIDTH] == 4 and fake.syncs == 1  # the end event was waited for


def test_bandwidth_of_a_2_gib_copy_in_2_ms():
    """2 GiB read and 2 GiB written in 2 ms: 4 x 2^30 B / 0.002 s = 2.147e12 B/s."""
    m = measure_bandwidth(FakeBackend(copy_s=2e-3), 2 * GIB, Timing(repeats=7))
    assert m.quantity == BANDWIDTH and m.work == 4 * GIB
    assert m.median_s == pytest.approx(2e-3) and len(m.seconds) == 7
    assert m.rate == pytest.approx(2.147483648e12)
    assert m.per_sample == 10  # each sample lasts about 20 ms: 10 copies between its two events


def test_gemm_rate_of_8192_cubed_in_10_ms():
    """2 x 8192^3 FLOP in 10 ms = 1.0995e14 FLOP/s (110 TFLOP/s)."""
    m = measure_gemm(FakeBackend(), "bf16_tensor", 8192, Timing(repeats=3))
    assert m.quantity == "bf16_tensor" and m.work == 2 * 8192**3
    assert m.rate == pytest.approx(1.099511627776e14)
    assert m.per_sample == 2


def test_warm_up_keeps_slow_first_calls_out_of_the_samples():
    """The first 22 copies take 10 ms (clocks ramping), then 2 ms: the first call, the probe and the ~0.2 s warm-up
    absorb the slow ones; every sample sees 2 ms."""
    fake = FakeBackend(copy_s=lambda i: 10e-3 if i < 22 else 2e-3)
    m = measure_bandwidth(fake, 2 * GIB, Timing(repeats=5))
    assert list(m.seconds) == [pytest.approx(2e-3)] * 5
    # first call 1 + probe 1 + warm-up ceil(0.2 / 0.01) = 20; then 5 samples of ceil(0.02 / 0.01) = 2 copies
    assert fake.calls[BANDWIDTH] == 1 + 1 + 20 + 5 * 2


def test_rate_is_over_the_median_sample():
    m = Measurement("fp32", 1e12, (3e-3, 1e-3, 2e-3, 100e-3, 2.5e-3), "by hand")
    assert m.median_s == pytest.approx(2.5e-3) and m.rate == pytest.approx(4e14)  # the 100 ms outlier does not count
    fake = FakeBackend(copy_s=lambda i: 1e-3 * (1 + (i - 2) % 3) if i >= 3 else 1e-3)  # samples of 1, 2, 3 ms ...
    m = measure_bandwidth(fake, GIB, Timing(repeats=3, warmup_s=1e-3, sample_s=1e-3))  # one copy per sample
    assert sorted(m.seconds) == [pytest.approx(1e-3), pytest.approx(2e-3), pytest.approx(3e-3)]
    assert m.rate == pytest.approx(2 * GIB / 2e-3)
    with pytest.raises(ValueError):
        Measurement("fp32", 1.0, (), "no samples")
    with pytest.raises(ValueError):
        Timing(repeats=0)


def test_every_quantity_is_measured_and_the_unsupported_ones_say_why():
    fake = FakeBackend(unsupported={"fp8_tensor"}, failing={"tf32_tensor"})
    run = run_of(fake)
    assert [m.quantity for m in run.measurements] == [BANDWIDTH, "fp32", "fp16_tensor", "bf16_tensor"]
    assert run.reason("fp8_tensor") == "fp8_tensor: not on this fake"
    assert run.reason("tf32_tensor") == "failed: RuntimeError: CUDA out of memory. Tried to allocate 256.00 MiB"
    assert fake.released == len(QUANTITIES)  # memory freed after each quantity, measured or not
    assert fake.sizes == {BANDWIDTH: 2 * GIB, "fp32": 8192, "fp16_tensor": 8192, "bf16_tensor": 8192}
    assert run.date == "2025-06-01" and run.backend == "fake 1.0" and run.repeats == 5
    assert run.source == "kernelscope ceilings, 2025-06-01, NVIDIA H200, fake 1.0"
    assert run.compute_capability == (9, 0) and run.sm_count == 132


def test_sizes_shrink_to_the_free_memory():
    assert sizes(H200) == (2 * GIB, 8192)
    assert sizes(Device("x")) == (2 * GIB, 8192)  # free memory unknown: the defaults
    buffer, n = sizes(Device("small", free_bytes=3 * GIB))
    assert buffer == int(0.4 * 3 * GIB) // 2**20 * 2**20 and n == 4096
    assert sizes(H200, 64 * 2**20, 1024) == (64 * 2**20, 1024)


# ------------------------------------------------------------------------------------------ which library


def _loader(backend=None, reason=None):
    return lambda: (backend, reason)


def test_backend_choice_and_why_there_is_none():
    fake = FakeBackend()
    missing = {"torch": _loader(None, NOT_INSTALLED["torch"]), "cupy": _loader(None, NOT_INSTALLED["cupy"])}
    with pytest.raises(NoGpuError) as exc:
        find_backend("auto", missing)
    assert exc.value.reason == NEITHER and exc.value.key == "no_cuda_gpu"
    no_device = dict(missing, torch=_loader(None, NO_DEVICE["torch"]))
    with pytest.raises(NoGpuError) as exc:
        find_backend("auto", no_device)
    assert exc.value.reason == "PyTorch is installed but sees no CUDA device"
    with pytest.raises(NoGpuError) as exc:
        find_backend("cupy", no_device)
    assert exc.value.reason == "CuPy is not installed"
    assert find_backend("auto", dict(missing, cupy=_loader(fake))) is fake  # PyTorch missing: CuPy
    assert find_backend("torch", dict(missing, torch=_loader(fake))) is fake


def test_missing_libraries_are_found_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert backends._torch() == (None, NOT_INSTALLED["torch"])
    assert backends._cupy() == (None, NOT_INSTALLED["cupy"])


# ------------------------------------------------------------------------------------------ the command without a GPU


@pytest.mark.parametrize("torch_state", ["missing", "no_device"])
def test_no_gpu_is_one_line_exit_2_and_nothing_written(capsys, monkeypatch, tmp_path, torch_state):
    monkeypatch.setitem(sys.modules, "cupy", None)
    if torch_state == "missing":
        monkeypatch.setitem(sys.modules, "torch", None)
    else:
        monkeypatch.setattr(backends, "_torch", _loader(None, NO_DEVICE["torch"]))
    spec = tmp_path / "h200.toml"
    code = main(["ceilings", "-o", str(spec)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("kernelscope: error: no CUDA GPU visible (")
    assert ("neither PyTorch nor CuPy is installed" if torch_state == "missing" else "sees no CUDA device") in err
    assert "needs an NVIDIA GPU and PyTorch (with CUDA) or CuPy" in err and "pip install torch" in err
    assert not spec.exists() and list(tmp_path.iterdir()) == []
    code = main(["ceilings", "--lang", "zh"])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("kernelscope：错误：未检测到 CUDA GPU（") and err.count("\n") == 1


def test_bad_arguments_fail_before_measuring(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("kernelscope.cli.ceilings.find_backend", lambda choice: pytest.fail("measured anyway"))
    assert main(["ceilings", "-o", str(tmp_path / "spec.yaml")]) == 2
    assert "expected a spec file name ending in .toml or .json, got '.yaml'" in capsys.readouterr().err
    assert main(["ceilings", "--repeats", "0"]) == 2
    assert "--repeats: expected at least 1 sample" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------ the spec file


@pytest.fixture
def fake_gpu(monkeypatch):
    """`kernelscope ceilings` measures a fake H200: 2 GiB copies in 2 ms, GEMMs of 8192^3 in 10 ms (FP32 in 25 ms)."""
    fake = FakeBackend(gemm_s={**{p: 10e-3 for p in GEMM_PIPES}, "fp32": 25e-3})
    monkeypatch.setattr("kernelscope.cli.ceilings.find_backend", lambda choice: fake)
    return fake


def test_spec_fields_are_what_read_spec_reads():
    run = run_of(FakeBackend(unsupported={"fp8_tensor"}))
    fields = spec_fields(run)
    assert fields["measured"] is True and fields["name"] == "NVIDIA H200"
    assert fields["source"] == "kernelscope ceilings, 2025-06-01, NVIDIA H200, fake 1.0"
    assert set(fields["peak_flops_per_s"]) == {"fp32", "tf32_tensor", "fp16_tensor", "bf16_tensor"}  # no FP8
    assert fields["sources"]["dram_bandwidth_bytes_per_s"].startswith(fields["source"] + ": fake copy of")
    spec = measured_spec(run)
    assert spec.measured and spec.dram_bandwidth_bytes_per_s == pytest.approx(2.147483648e12)
    assert spec.peak("fp16_tensor") == pytest.approx(1.099511627776e14)
    assert spec.compute_capability == (9, 0) and spec.sm_count == 132
    no_bandwidth = CeilingsRun("g", "fake 1.0", "2025-06-01", 5, run.measurements[1:])
    with pytest.raises(ValueError, match="DRAM bandwidth was not measured"):
        spec_fields(no_bandwidth)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_spec_file_round_trips_through_read_spec(capsys, fake_gpu, tmp_path, suffix):
    path = tmp_path / f"h200{suffix}"
    assert main(["ceilings", "-o", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"spec file written: {path}" in " ".join(out.split())
    if suffix == ".toml":
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# GPU ceilings measured by kernelscope ceilings")
        assert "measured = true" in text and "\n[peak_flops_per_s]\n" in text and "\n[sources.peak_flops_per_s]\n" in text
    else:
        assert json.loads(path.read_text(encoding="utf-8"))["measured"] is True
    spec = read_spec(path)
    assert spec.measured and spec.name == "NVIDIA H200" and spec.origin == f"spec file {path}"
    assert spec.dram_bandwidth_bytes_per_s == pytest.approx(2.147483648e12, rel=1e-5)  # 6 significant digits
    assert spec.peak("fp32") == pytest.approx(2 * 8192**3 / 25e-3, rel=1e-5)
    assert spec.peak("fp8_tensor") == pytest.approx(1.099511627776e14, rel=1e-5)
    assert spec.sm_count == 132 and spec.compute_capability == (9, 0)
    today = datetime.date.today().isoformat()
    assert spec.sources["dram_bandwidth_bytes_per_s"].startswith(f"kernelscope ceilings, {today}, NVIDIA H200, fake 1.0: ")
    assert "median of 10 samples" in spec.sources["peak_flops_per_s.fp32"]


def test_diagnose_with_the_measured_spec_says_measured(capsys, fake_gpu, tmp_path):
    path = tmp_path / "h200.toml"
    assert main(["ceilings", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["diagnose", str(EXAMPLE), "--spec", str(path), "--format", "markdown", "--details"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "Ceilings from" in line]
    assert lines and all("measured peaks of NVIDIA H200 from spec file" in line for line in lines), lines
    assert main(["diagnose", str(EXAMPLE), "--spec", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    gpus = [launch["gpu"] for report in doc["inputs"] for launch in report["launches"]]
    assert gpus and all(g["measured"] is True and g["name"] == "NVIDIA H200" for g in gpus)
    assert gpus[0]["provenance"][0]["key"] == "peaks_measured"


def test_spec_text_is_toml_with_tables_last():
    fields = {"name": 'a "quoted" GPU', "measured": True, "sm_count": 4, "dram_bandwidth_bytes_per_s": 1e12,
              "peak_flops_per_s": {"fp32": 2.5e13}, "sources": {"peak_flops_per_s": {"fp32": "x"}}}
    text = spec_text(fields, "toml", "x.toml")
    import tomllib

    assert tomllib.loads(text) == fields
    assert json.loads(spec_text(fields, "json")) == fields


# ------------------------------------------------------------------------------------------ next to the datasheet


def test_comparison_with_the_datasheet_by_hand():
    run = run_of()
    rows = compare_with_datasheet(run, datasheet_for("NVIDIA H200"))
    assert [r.quantity for r in rows] == list(QUANTITIES)
    bandwidth = rows[0]
    assert bandwidth.unit == "bytes/s" and bandwidth.datasheet == pytest.approx(4.8e12)
    assert bandwidth.ratio == pytest.approx(2.147483648e12 / 4.8e12)  # 44.7%
    fp8 = rows[-1]
    assert fp8.unit == "FLOP/s" and fp8.datasheet == pytest.approx(1978.9e12)
    assert fp8.ratio == pytest.approx(1.099511627776e14 / 1978.9e12)
    assert datasheet_for("NVIDIA H200") is find_gpu("NVIDIA H200") and datasheet_for("Fake GPU 9000") is None
    alone = compare_with_datasheet(run, None)
    assert all(r.datasheet is None and r.ratio is None and r.measured is not None for r in alone)
    skipped = CeilingsRun("g", "fake 1.0", "d", 5, run.measurements[:1], (Skipped("fp32", "why"),))
    fp32 = compare_with_datasheet(skipped, find_gpu("NVIDIA H200"))[1]
    assert fp32.measured is None and fp32.ratio is None and fp32.reason == "why" and fp32.datasheet == 67e12


def test_table_shows_measured_datasheet_and_ratio():
    run = run_of(FakeBackend(unsupported={"fp8_tensor"}))
    datasheet = find_gpu("NVIDIA H200")
    text = to_plain(ceilings_renderables(run, compare_with_datasheet(run, datasheet), datasheet, "en", "s.toml"), 160)
    assert "Ceilings measured on NVIDIA H200 (fake 1.0, 2025-06-01; median of 5 samples after warm-up)" in text
    row = next(line for line in text.splitlines() if line.startswith("DRAM bandwidth (copy)"))
    assert row.split()[3:] == ["2147", "GB/s", "4800", "GB/s", "44.7%"]
    row = next(line for line in text.splitlines() if line.startswith("BF16 tensor cores"))
    assert row.split()[3:] == ["110", "TFLOP/s", "989.4", "TFLOP/s", "11.1%"]
    row = next(line for line in text.splitlines() if line.startswith("FP8 tensor cores"))
    assert row.split()[3:] == ["-", "1979", "TFLOP/s", "-"]
    assert "FP8 tensor cores: not measured (fp8_tensor: not on this fake)" in text
    assert "datasheet: the dense peaks of NVIDIA H200 in kernelscope's catalogue" in text
    assert "DRAM bandwidth (copy): fake copy of 2147483648 bytes; 2.000 ms per operation" in text
    assert "spec file written: s.toml (measured = true)" in text
    unknown = run_of(FakeBackend(device=Device("Fake GPU 9000")))
    text = to_plain(ceilings_renderables(unknown, compare_with_datasheet(unknown, None), None, "en"), 160)
    assert "Fake GPU 9000 is not in kernelscope's catalogue: no datasheet figures to compare with" in text
    zh = to_plain(ceilings_renderables(run, compare_with_datasheet(run, datasheet), datasheet, "zh"), 160)
    assert "实测" in zh and "数据手册" in zh and "DRAM 带宽（拷贝）" in zh


def test_command_table_output(capsys, fake_gpu):
    assert main(["ceilings", "--repeats", "3"]) == 0
    out = capsys.readouterr().out
    assert "median of 3 samples" in out and "DRAM bandwidth (copy)" in out and "44.7%" in out


# ------------------------------------------------------------------------------------------ JSON


def test_json_document_follows_its_schema(capsys, fake_gpu, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    path = tmp_path / "h200.toml"
    assert main(["ceilings", "--format", "json", "-o", str(path), "--repeats", "4"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)
    schema = json.loads((REPO / "schemas" / "ceilings-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert doc["schema"] == "kernelscope.ceilings/1" and doc["lang"] == "en" and doc["repeats"] == 4
    assert doc["gpu"] == {"name": "NVIDIA H200", "compute_capability": [9, 0], "sm_count": 132}
    assert doc["datasheet_gpu"] == "NVIDIA H200" and doc["spec_file"] == str(path) and path.exists()
    by = {c["quantity"]: c for c in doc["ceilings"]}
    assert list(by) == list(QUANTITIES)
    assert by[BANDWIDTH]["measured"] == pytest.approx(2.147483648e12) and by[BANDWIDTH]["unit"] == "bytes/s"
    assert by[BANDWIDTH]["ratio"] == pytest.approx(2.147483648e12 / 4.8e12)
    assert by["fp32"]["median_s"] == pytest.approx(25e-3) and len(by["fp32"]["samples_s"]) == 4
    assert by["fp32"]["work"] == 2 * 8192**3 and by["fp32"]["not_measured"] is None
    assert not any(isinstance(v, float) and not math.isfinite(v) for c in doc["ceilings"] for v in c.values())


# ------------------------------------------------------------------------------------------ on a real GPU


@pytest.fixture(scope="module")
def real_backend():
    try:
        return find_backend("auto")
    except NoGpuError as exc:
        pytest.skip(f"needs a CUDA GPU with PyTorch or CuPy: {exc.reason}")


def test_real_gpu_ceilings(real_backend, tmp_path):
    """On the machine's GPU: every rate positive and at most a little above the datasheet; the bandwidth at least
    half the datasheet's; the spec file reads back as measured."""
    run = measure_ceilings(real_backend, Timing(repeats=5))
    print({m.quantity: f"{m.rate:.4g} ({m.method})" for m in run.measurements}, run.skipped)
    assert run.get(BANDWIDTH) is not None and run.get("fp32") is not None, run.skipped
    datasheet = datasheet_for(run.device_name)
    for row in compare_with_datasheet(run, datasheet):
        if row.ratio is not None:
            assert 0.05 < row.ratio < 1.15, row
    if datasheet is not None:
        assert run.get(BANDWIDTH).rate > 0.5 * datasheet.dram_bandwidth_bytes_per_s
    if run.compute_capability is not None and run.compute_capability >= (8, 0) and real_backend.name == "torch":
        assert {"tf32_tensor", "fp16_tensor", "bf16_tensor"} <= {m.quantity for m in run.measurements}, run.skipped
    if run.compute_capability is not None and run.compute_capability >= (8, 9) and real_backend.name == "torch":
        assert run.get("fp8_tensor") is not None, run.skipped
    path = tmp_path / "measured.toml"
    path.write_text(spec_text(spec_fields(run), "toml", path.name), encoding="utf-8")
    spec = read_spec(path)
    assert spec.measured and spec.name == run.device_name

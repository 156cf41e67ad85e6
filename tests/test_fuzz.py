"""Nothing lost, nothing absurd: bounded inputs (decompression bombs, deep nesting, archives of many members), a
malformed trace found as fast as a parse with the byte offset of its bad token, Kineto events of any shape, and a
short fixed-seed run of the fuzzer (``benchmarks/fuzz.py``) over the whole shared corpus and cases.

Commands that may blow up run in a forked child (``fuzz.isolated``), so that their memory is measured and a crash
or hang fails the test instead of ending the session.
"""

from __future__ import annotations

import contextlib
import gzip
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE, REPO, SHARED, need
from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.errors import InputError
from kernelscope.ingest import kineto, limits
from kernelscope.ingest.kineto import read_kineto

RESNET = SHARED / "corpus" / "torch_traces" / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz"


def _load_fuzz():
    spec = importlib.util.spec_from_file_location("kernelscope_fuzz", REPO / "benchmarks" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


fuzz = _load_fuzz()


def one_line_error(result: dict, *needles: str) -> str:
    """The single stderr line of a refused input (exit 2, no traceback), checked to contain ``needles``."""
    assert result["signal"] is None and result["exception"] is None, result["exception"]
    assert result["rc"] == 2, (result["rc"], result["stderr"])
    lines = [ln for ln in result["stderr"].splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("kernelscope: error: "), lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------------------------------ decompression bombs
def _whitespace_bomb(path: Path, inflated: int) -> Path:
    """A gzip trace whose event list is ``inflated`` bytes of spaces (about 1000x smaller on disk)."""
    z = gzip.GzipFile(path, "wb", 9)
    z.write(b'{"traceEvents": [')
    block = b" " * (1 << 20)
    for _ in range(inflated >> 20):
        z.write(block)
    z.write(b"]}")
    z.close()
    return path


def test_gzip_bomb_is_refused_fast_in_bounded_memory(tmp_path):
    # 2 MB on disk, 2 GiB inflated: before, 43 s and 6.3 GB (held whole, then "no GPU activity")
    bomb = _whitespace_bomb(tmp_path / "bomb.json.gz", 2 << 30)
    assert bomb.stat().st_size < 2_200_000
    res = fuzz.isolated(["timeline", str(bomb)], tmp_path / "run")
    line = one_line_error(res, "decompression bomb", limits.ENV_RATIO)
    assert "100x" in line
    assert res["seconds"] < 20 and res["peak_kb"] < 600 << 10, (res["seconds"], res["peak_kb"])


def test_inflate_limits_come_from_the_environment(tmp_path, monkeypatch):
    events = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 100 + 10 * i, "dur": 5}
              for i in range(20_000)]
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    assert len(read_kineto(path)) == 20_000  # defaults: ratio 100 above a 64 MiB floor
    monkeypatch.setenv(limits.ENV_BYTES, "1MiB")
    with pytest.raises(InputError, match=f"more than 1 MiB.*{limits.ENV_BYTES}"):
        read_kineto(path)
    monkeypatch.setenv(limits.ENV_BYTES, "")
    assert limits.inflate_limits() == limits.InflateLimits()
    for bad in ("0", "-5", "lots", "1e999"):
        monkeypatch.setenv(limits.ENV_BYTES, bad)
        with pytest.raises(InputError, match=limits.ENV_BYTES):
            read_kineto(path)
    monkeypatch.delenv(limits.ENV_BYTES)
    monkeypatch.setenv(limits.ENV_RATIO, "0.5")
    with pytest.raises(InputError, match=limits.ENV_RATIO):
        read_kineto(path)
    monkeypatch.setenv(limits.ENV_RATIO, "2")
    # the ratio applies above the floor: a small file may always inflate to 64 MiB
    assert limits.inflate_limits().for_compressed(1000)[0] == limits.RATIO_FLOOR_BYTES
    assert limits.inflate_limits().for_compressed(100 << 20)[0] == 200 << 20
    assert len(read_kineto(path)) == 20_000
    assert limits.parse_size("16G", "X") == 16 << 30 and limits.parse_size("512 MiB", "X") == 512 << 20


def test_archive_limits_are_relative_to_the_archive(tmp_path, monkeypatch):
    inner = gzip.compress(b'{"traceEvents": [' + b" " * (80 << 20) + b"]}")  # 80 MiB from ~80 KB
    arc = tmp_path / "a.tar"
    with tarfile.open(arc, "w") as tar:
        info = tarfile.TarInfo("r0.json.gz")
        info.size = len(inner)
        tar.addfile(info, io.BytesIO(inner))
    with pytest.raises(InputError, match="decompression bomb"):
        read_kineto(arc)
    monkeypatch.setenv(limits.ENV_RATIO, "5000")
    with pytest.raises(InputError, match="no GPU activity"):  # allowed now: read, and empty
        read_kineto(arc)


def test_archive_with_too_many_members_is_one_line(tmp_path):
    arc = tmp_path / "many.tar.gz"
    with tarfile.open(arc, "w:gz") as tar:
        for i in range(kineto.MAX_MEMBERS + 5):
            tar.addfile(tarfile.TarInfo(f"x{i}.txt"), io.BytesIO(b""))
    res = fuzz.isolated(["timeline", str(arc)], tmp_path / "run")
    one_line_error(res, f"more than {kineto.MAX_MEMBERS} entries")
    assert res["seconds"] < 20


# -------------------------------------------------------------------------------------------------- deep nesting
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name,text,command", [
    ("t.json", '{"traceEvents": [{"ph": "X", "args": ' + DEEP + "}]}", "timeline"),
    ("t.json", '[{"ph": "X", "args": ' + DEEP + "}]", "timeline"),
    ("t.json", '{"deviceProperties": ' + DEEP + ', "traceEvents": []}', "timeline"),
    ("t.json", '{"traceEvents": [], "deviceProperties": ' + DEEP + "}", "timeline"),
    ("t.json", DEEP, "timeline"),
    ("p.json", '{"kernel": ' + DEEP + "}", "diagnose"),
    ("p.toml", "kernel = " + DEEP, "diagnose"),
    ("s.json", '{"peak_flops_per_s": ' + DEEP + "}", "--spec"),
    ("s.toml", "peak_flops_per_s = " + DEEP, "--spec"),
    ("c.toml", "[criteria]\nmemory_high_pct = " + DEEP, "--criteria"),
])
def test_deep_nesting_is_one_line_in_every_json_and_toml_reader(tmp_path, name, text, command):
    path = tmp_path / name
    path.write_text(text)
    argv = ["diagnose", str(EXAMPLE), command, str(path)] if command.startswith("--") else [command, str(path)]
    for gz in (False, True) if command == "timeline" else (False,):
        if gz:
            path = tmp_path / (name + ".gz")
            path.write_bytes(gzip.compress(text.encode()))
            argv[-1] = str(path)
        res = fuzz.isolated(argv, tmp_path / f"run{gz}")
        line = one_line_error(res, str(path))
        assert "Traceback" not in line and len(line) < 400


# ----------------------------------------------------------------------------------------- the JSON error path
def test_bad_token_in_a_large_trace_is_found_as_fast_as_a_parse(tmp_path):
    data = gzip.decompress(need(RESNET).read_bytes())
    at = data.index(b'"Output names": []', 1_800_000) + len(b'"Output names": []')
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(gzip.compress(data[:at] + b"inf" + data[at:], 1))
    # CPU time of this process, not wall time: the same on a loaded machine (other processes' time is not counted)
    t0 = time.process_time()
    read_kineto(RESNET)
    parse = time.process_time() - t0
    t0 = time.process_time()
    with pytest.raises(InputError) as exc:
        read_kineto(bad)
    took = time.process_time() - t0
    msg = str(exc.value)
    assert f"at byte {at} of the decompressed data" in msg
    assert "[]inf" in msg and "cut short" not in msg and "end of the trace" not in msg
    assert took < 4 * parse + 2, (took, parse)  # before: 3 min 42 s


def test_bad_byte_early_names_its_offset_not_a_cut(tmp_path):
    good = gzip.decompress(need(RESNET).read_bytes())
    data = bytearray(good)
    data[73] = ord("#")
    path = tmp_path / "t.json"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"malformed JSON at byte 73: invalid character") as exc:
        read_kineto(path)
    assert "cut short" not in str(exc.value) and "decompressed" not in str(exc.value)
    path.write_bytes(good[:5_000_000])  # really cut short: said so, with the length
    with pytest.raises(InputError, match="ends early, at byte 5000000.*cut short"):
        read_kineto(path)


def test_an_event_without_end_is_refused_not_held(tmp_path, monkeypatch):
    monkeypatch.setattr(kineto.decode, "MAX_EVENT_BYTES", 1 << 20)
    monkeypatch.setattr(kineto, "CHUNK_BYTES", 64 << 10)
    path = tmp_path / "t.json"
    path.write_bytes(b'{"traceEvents": [{"ph": "X", "name": "' + b"x" * (4 << 20) + b'"}]}')
    with pytest.raises(InputError, match="no event boundary in the 1.* after byte 17"):
        read_kineto(path)


# ------------------------------------------------------------------------- Kineto events of any shape (hypothesis)
ODD = st.one_of(st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=False, allow_infinity=False),
                st.sampled_from(["7", "stream 7", "", "x", "1e400", "nan", " 12 ", "},{", '"']), st.none(),
                st.booleans(), st.lists(st.integers(-3, 2**40), max_size=4), st.just({"a": 1}), st.just([]))
CATS = st.sampled_from(["kernel", "Kernel", "cuda_runtime", "gpu_memcpy", "Memset", "cpu_op", "Trace", "cuda_sync",
                        "gpu_user_annotation", "user_annotation", "ac2g", "other"])
FIELDS = ("ph", "cat", "name", "pid", "tid", "ts", "dur")
ARGS = ("device", "stream", "correlation", "bytes", "grid", "block", "registers per thread", "shared memory",
        "warps per SM", "name", "labels")


@st.composite
def traces(draw):
    events = []
    for i in range(draw(st.integers(1, 6))):
        e = {"ph": "X", "cat": draw(CATS), "name": f"k{i}", "pid": 0, "tid": 7, "ts": 100 + 10 * i, "dur": 5,
             "args": {"device": 0, "stream": 7, "correlation": i, "grid": [1, 1, 1], "block": [32, 1, 1]}}
        for key in draw(st.lists(st.sampled_from(FIELDS), max_size=2)):
            e[key] = draw(ODD)
        for key in draw(st.lists(st.sampled_from(ARGS), max_size=3)):
            e["args"][key] = draw(ODD)
        events.append(e)
    same = draw(st.sampled_from((None,) + ARGS))  # one odd shape in every event (NumPy makes 2-D arrays of those)
    if same is not None:
        value = draw(ODD)
        for e in events:
            e["args"][same] = value
    top = {"traceEvents": events}
    for key in draw(st.lists(st.sampled_from(("deviceProperties", "distributedInfo", "baseTimeNanoseconds")),
                             max_size=2)):
        top[key] = draw(st.one_of(ODD, st.builds(lambda r: {"rank": r}, ODD)))
    return top


@settings(max_examples=int(os.environ.get("KS_HYPO", 300)), deadline=None, derandomize=not os.environ.get("KS_HYPO"), suppress_health_check=[HealthCheck.too_slow])
@given(trace=traces())
def test_events_of_any_shape_are_read_or_refused(tmp_path_factory, trace):
    path = tmp_path_factory.mktemp("k") / "t.json"
    path.write_text(json.dumps(trace))
    try:
        tl = read_kineto(path)
    except InputError:
        return
    analyse_timeline(tl)


@contextlib.contextmanager
def _chunk(size: int):
    saved = kineto.CHUNK_BYTES
    kineto.CHUNK_BYTES = size
    try:
        yield
    finally:
        kineto.CHUNK_BYTES = saved


NAMES = st.text(alphabet=st.sampled_from('ab}{],[": \\'), max_size=12)


@settings(max_examples=int(os.environ.get("KS_HYPO", 200)), deadline=None, derandomize=not os.environ.get("KS_HYPO"), suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES, min_size=1, max_size=30), chunk=st.integers(1, 400), pos=st.integers(0, 10**6),
       token=st.sampled_from([b"", b"{", b"}", b"[", b"]", b",", b'"', b"x", b":", b"}, {", b"\x00"]))
def test_streamed_decoding_agrees_with_a_whole_parse(tmp_path_factory, names, chunk, pos, token):
    """Cut anywhere, the stream decodes as the whole document does; a bad token is reported at the byte offset a
    whole-document parse finds it, and a good document is never called malformed."""
    events = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": 100 + 10 * i, "dur": 5,
               "args": {"nested": [{"a": n}, {"b": [n]}]}} for i, n in enumerate(names)]
    text = json.dumps({"schemaVersion": 1, "traceEvents": events, "traceName": names[0]}).encode()
    pos %= len(text) + 1
    text = text[:pos] + token + text[pos:]
    path = tmp_path_factory.mktemp("s") / "t.json"
    path.write_bytes(text)
    try:
        whole = msgspec.json.decode(text)
        whole_error = None
    except msgspec.DecodeError as exc:
        whole, whole_error = None, str(exc)
    with _chunk(chunk):
        try:
            tl = read_kineto(path)
            error = None
        except InputError as exc:
            tl, error = None, str(exc)
    if whole_error is None:
        assert error is None or "malformed JSON" not in error, error
        if isinstance(whole, dict) and whole.get("traceEvents") == events:
            assert tl is not None and set(names) <= set(tl.names)
    elif error is not None and "malformed JSON at byte" in error:
        expected = re.search(r"\(byte (\d+)\)", whole_error)
        found = re.search(r"at byte (\d+):", error)
        # (msgspec's typed and untyped decoders name an invalid escape at the backslash or the byte after it)
        assert expected and found and abs(int(found.group(1)) - int(expected.group(1))) <= 1, (whole_error, error)


# ------------------------------------------------------------------------------------------------- the fuzzer
def test_fuzz_short_run(tmp_path):
    """A few hundred mutated inputs x every command, fixed seed: no exception, exit 0/2 (1 for the compare gate), at
    most 3 lines on stderr, inputs unchanged, nothing left on failure, strict JSON, bounded memory and time.

    The fuzzer runs as its own process: it forks a child per case, and a child forked from this test process
    (which has driven Nsight Compute's reader library, whose threads hold locks) could deadlock in that library."""
    need(SHARED / "corpus")
    out = tmp_path / "summary.json"
    cases = int(os.environ.get("KS_FUZZ_CASES", 300))
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "fuzz.py"), "--cases", str(cases), "--seed",
                           "20260730", "--jobs", str(min(2, os.cpu_count() or 1)), "--subprocess-every", "0",
                           "--summary-json", str(out)], capture_output=True, text=True, timeout=3000)
    summary = json.loads(out.read_text())
    assert not summary["corpus_changed"]
    assert summary["cases"] == cases
    commands = {c.split("/")[0] for c in summary["commands"]}
    assert commands >= {"diagnose", "timeline", "roofline", "source", "compare", "diagnose --spec",
                        "diagnose --criteria"}, commands
    assert not summary["violations"], proc.stdout[-6000:]

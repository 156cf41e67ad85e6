#!/usr/bin/env python3
"""Fuzz kernelscope (not a test; ``tests/test_fuzz.py`` runs a short, fixed-seed run of it): mutate every file of
``../shared/corpus`` and ``../shared/cases`` and run every command on the result, checking that nothing is lost and
nothing absurd comes out.

    python benchmarks/fuzz.py --cases 2000 --seed 1            # the long run (every file, every command)
    python benchmarks/fuzz.py --cases 2000 --seed 1 --case 417 # replay one case (its files are kept and shown)
    python benchmarks/fuzz.py --cases 300 --keep /tmp/fuzz     # keep the inputs of the cases that broke a rule

Inputs. Every file of the corpus and the cases (not the READMEs); the SQLite cases are built from their ``.sql`` with
``_nsys_min_schema.sql``; two synthetic settings files (a ``--spec`` GPU and a ``--criteria`` table). The originals
are only read: each case writes its mutated copy into a temporary folder, and the originals' hashes are checked at
the end of the run.

Mutations (chosen per case from ``random.Random(f"{seed}/{case}")``, case ``i`` mutating file ``i mod files``, so a
case replays alone): truncation at a random point, byte flips, splicing two files, duplicated / dropped / swapped
lines or chunks, numbers changed to extremes (1e308, -1, NaN, 0, huge integers ...), stray JSON tokens and deep
nesting. Compressed traces are mostly mutated inside (decompressed, mutated, compressed again), archives member by
member; SQLite files through SQL (cells set to extremes, rows deleted, tables dropped) or as raw bytes.

Commands: ``diagnose`` (table, json, markdown, html; ``-o`` or standard output; ``--spec`` / ``--criteria``),
``roofline -o`` (svg, png; ``--levels``), ``source`` (every format), ``compare`` (with ``--fail-if-slower``) for
kernel profiles; ``timeline`` (table, json, markdown) for program timelines; now and then a command of the other
family (detection). Each runs in-process -- ``kernelscope.cli.main(argv)`` in a child forked from this warm
process, its standard output and error captured at the descriptors -- so that a crash, a hang or a memory blow-up
is caught and counted instead of ending the run; a sample (``--subprocess-every``) also runs as
``python -m kernelscope`` to check the real process.

Rules (a violation of each is counted by kind): exit code 0 or 2 (1 only for ``compare --fail-if-slower``); no
exception escapes ``main`` (kind ``exception``, with its traceback); standard error at most 3 lines and no
traceback or Python warning in it; inputs byte-identical afterwards; no output file left behind on failure, the
output present on success; JSON output parses and holds no NaN / Infinity; the child's peak memory growth under
``--max-mem-mb``; under ``--timeout`` seconds; no crash (a signal).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import io
import json
import os
import random
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
ROOTS = (SHARED / "corpus", SHARED / "cases")
SCHEMA = SHARED / "cases" / "_nsys_min_schema.sql"

EXTREMES = ("1e308", "-1e308", "1e309", "-1", "0", "-0", "0.0", "NaN", "nan", "inf", "-inf", "Infinity", "1e-320",
            "99999999999999999999999999999999", "-9223372036854775809", "9223372036854775807", "18446744073709551616",
            "4294967296", "2147483648", "1e20", "-1e20", "1.5", "3.4e38", "", "null", '"x"', "true")
_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])")
_TOKENS = (b'"', b",", b"}", b"]", b"{", b"[", b":", b"\x00", b"\xff\xfe", b"\n", b"\r\n", b"inf", b"\\", b"'",
           b"\xe4\xb8\xad", b"NaN", b",,", b"%", b"==PROF==", b"ID,", b"\t")

SPEC = (b'name = "fuzz gpu"\ndram_bandwidth_bytes_per_s = 2.039e12\ncompute_capability = "8.0"\nsm_count = 108\n'
        b'[peak_flops_per_s]\nfp32 = 19.5e12\nfp64 = 9.7e12\nfp16_tensor = 312e12\n')
CRITERIA = (b"[criteria]\ncompute_high_pct = 60\nmemory_high_pct = 60\nlatency_sol_pct = 40\n"
            b"small_grid_waves = 1\noccupancy_low_pct = 25\nlong_scoreboard_share = 0.3\n")


# ----------------------------------------------------------------------------------------------------- seeds
@dataclass
class Seed:
    """One input the fuzzer mutates: the file, its kind (how it is mutated) and family (what reads it)."""

    path: Path
    kind: str  # ncu-rep, sqlite, sql, gz, tar, text
    family: str  # kernels, timeline, spec, criteria, other
    _data: bytes | None = None

    @property
    def name(self) -> str:
        return self.path.name

    def data(self) -> bytes:
        if self._data is None:
            self._data = self.path.read_bytes()
        return self._data


def _kind(p: Path) -> str:
    name = p.name.lower()
    if name.endswith(".ncu-rep"):
        return "ncu-rep"
    if name.endswith(".sqlite"):
        return "sqlite"
    if name.endswith(".sql"):
        return "sql"
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        return "tar"
    if name.endswith(".gz"):
        return "gz"
    return "text"


def _family(p: Path, kind: str) -> str:
    if kind in ("sqlite", "sql", "tar", "gz"):
        return "timeline"
    from kernelscope.ingest import detect_format, detect_timeline_format

    for family, detect in (("kernels", detect_format), ("timeline", detect_timeline_format)):
        try:
            detect(p)
            return family
        except Exception:
            pass
    return "other"


def find_seeds(roots=ROOTS, settings_dir: Path | None = None) -> list[Seed]:
    """Every input file below ``roots`` (READMEs and the SQL schema left out), sorted, plus the synthetic
    ``--spec`` and ``--criteria`` files (written into ``settings_dir``)."""
    seeds = []
    for root in roots:
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            if not p.is_file() or p.suffix.lower() == ".md" or p == SCHEMA or p.name.startswith("."):
                continue
            kind = _kind(p)
            seeds.append(Seed(p, kind, _family(p, kind)))
    if settings_dir is not None:
        for name, data, family in (("fuzz_spec.toml", SPEC, "spec"), ("fuzz_criteria.toml", CRITERIA, "criteria")):
            (settings_dir / name).write_bytes(data)
            seeds.append(Seed(settings_dir / name, "text", family, data))
    return seeds


# ------------------------------------------------------------------------------------------------- mutations
def _window(rng: random.Random, data: bytes, size: int = 64 << 10) -> tuple[int, int]:
    if len(data) <= size:
        return 0, len(data)
    lo = rng.randrange(len(data) - size)
    return lo, lo + size


def m_truncate(rng, data, others):
    cut = rng.randrange(len(data) + 1) if data else 0
    return data[:cut], f"truncate at {cut} of {len(data)}"


def m_flip(rng, data, others):
    if not data:
        return b"\x00", "flip empty"
    buf = bytearray(data)
    spots = []
    for _ in range(rng.choice((1, 1, 2, 4, 16))):
        i = rng.randrange(len(buf))
        buf[i] = rng.randrange(256) if rng.random() < 0.5 else buf[i] ^ (1 << rng.randrange(8))
        spots.append(i)
    return bytes(buf), f"flip bytes at {sorted(spots)[:8]}"


def m_splice(rng, data, others):
    other = rng.choice(others)
    odata = other.data() if other.kind not in ("gz", "tar") else other.data()
    a = rng.randrange(len(data) + 1)
    b = rng.randrange(len(odata) + 1)
    return data[:a] + odata[b:], f"splice {a} bytes + {other.name}[{b}:]"


def m_chunks(rng, data, others):
    if len(data) < 2:
        return data * 2, "double"
    lo, hi = _window(rng, data)
    a = rng.randrange(lo, hi)
    b = min(len(data), a + rng.choice((1, 8, 64, 512, 4096)))
    op = rng.choice(("dup", "drop", "move"))
    if op == "dup":
        return data[:b] + data[a:b] + data[b:], f"duplicate bytes {a}:{b}"
    if op == "drop":
        return data[:a] + data[b:], f"drop bytes {a}:{b}"
    c = rng.randrange(len(data) + 1)
    rest = data[:a] + data[b:]
    c = min(c, len(rest))
    return rest[:c] + data[a:b] + rest[c:], f"move bytes {a}:{b} to {c}"


def m_lines(rng, data, others):
    lo, hi = _window(rng, data)
    lines = data[lo:hi].split(b"\n")
    if len(lines) < 2:
        return m_chunks(rng, data, others)
    i = rng.randrange(len(lines))
    op = rng.choice(("dup", "drop", "swap", "dup10"))
    if op == "dup":
        lines.insert(i, lines[i])
    elif op == "dup10":
        lines[i:i] = [lines[i]] * 10
    elif op == "drop":
        del lines[i]
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return data[:lo] + b"\n".join(lines) + data[hi:], f"{op} line {i} of the window at {lo}"


def m_numbers(rng, data, others):
    lo, hi = _window(rng, data)
    matches = list(_NUMBER.finditer(data, lo, hi))
    if not matches:
        return m_tokens(rng, data, others)
    picked = sorted(rng.sample(matches, min(len(matches), rng.choice((1, 1, 3, 10, 50)))), key=lambda m: m.start())
    out, pos, shown = [], 0, []
    for m in picked:
        new = rng.choice(EXTREMES).encode()
        out += [data[pos:m.start()], new]
        pos = m.end()
        shown.append(f"{m.start()}:{m.group().decode()}->{new.decode() or 'empty'}")
    out.append(data[pos:])
    return b"".join(out), "numbers " + ", ".join(shown[:6]) + (f" (+{len(shown) - 6})" if len(shown) > 6 else "")


def m_tokens(rng, data, others):
    i = rng.randrange(len(data) + 1) if data else 0
    tok = rng.choice(_TOKENS)
    if rng.random() < 0.15:
        tok = b"x" * rng.choice((70_000, 200_000))  # a very long field / line
    return data[:i] + tok + data[i:], f"insert {tok[:12]!r}{'...' if len(tok) > 12 else ''} at {i}"


def m_deep(rng, data, others):
    i = rng.randrange(len(data) + 1) if data else 0
    n = rng.choice((500, 990, 5000, 100_000))
    opener, closer = rng.choice(((b"[", b"]"), (b'{"a":', b"}"), (b"[{\"a\":", b"}]")))
    closed = rng.random() < 0.5
    return (data[:i] + opener * n + (closer * n if closed else b"") + data[i:],
            f"nest {n} x {opener!r}{' closed' if closed else ''} at {i}")


TEXT_MUTATORS = (m_truncate, m_flip, m_splice, m_chunks, m_lines, m_numbers, m_numbers, m_tokens, m_deep)
RAW_MUTATORS = (m_truncate, m_flip, m_flip, m_splice, m_chunks, m_chunks)


def mutate_bytes(rng, data, others, text: bool) -> tuple[bytes, str]:
    """One or two mutations of ``data``."""
    mutators = TEXT_MUTATORS if text else RAW_MUTATORS
    data, recipe = rng.choice(mutators)(rng, data, others)
    if rng.random() < 0.2:
        data, more = rng.choice(mutators)(rng, data, others)
        recipe += "; " + more
    return data, recipe


def _gunzip(data: bytes) -> bytes | None:
    try:
        return gzip.decompress(data)
    except Exception:
        return None


def mutate_seed(rng: random.Random, seed: Seed, others: list[Seed], dest: Path) -> str:
    """Write a mutated copy of ``seed`` to ``dest`` (same file name); returns the recipe."""
    data = seed.data()
    if seed.kind == "gz" and rng.random() < 0.75 and (inner := _gunzip(data)) is not None:
        new, recipe = mutate_bytes(rng, inner, others, text=True)
        dest.write_bytes(gzip.compress(new, 1))
        return "inside gzip: " + recipe
    if seed.kind == "tar" and rng.random() < 0.75:
        return _mutate_tar(rng, seed, others, dest)
    if seed.kind == "sqlite" and rng.random() < 0.6:
        dest.write_bytes(data)
        return _mutate_sqlite(rng, dest)
    if seed.kind == "sql":
        new, recipe = mutate_bytes(rng, data, others, text=True)
        _build_sqlite(new, dest)
        return "sql: " + recipe
    new, recipe = mutate_bytes(rng, data, others, text=seed.kind == "text")
    dest.write_bytes(new)
    return recipe


def _mutate_tar(rng, seed: Seed, others, dest: Path) -> str:
    gz = seed.data()[:2] == b"\x1f\x8b"
    with tarfile.open(fileobj=io.BytesIO(seed.data()), mode="r:*") as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]
    files = [i for i, (m, _) in enumerate(members) if m.isfile()]
    op = rng.choice(("member", "member", "member", "drop", "dup", "junk"))
    i = rng.choice(files)
    m, body = members[i]
    if op == "member":
        inner = _gunzip(body) if m.name.endswith(".gz") else body
        new, recipe = mutate_bytes(rng, inner if inner is not None else body, others, text=True)
        members[i] = (m, gzip.compress(new, 1) if m.name.endswith(".gz") and inner is not None else new)
        recipe = f"member {m.name}: {recipe}"
    elif op == "drop":
        del members[i]
        recipe = f"drop member {m.name}"
    elif op == "dup":
        copy = tarfile.TarInfo(m.name + ".copy.json")
        members.append((copy, body))
        recipe = f"duplicate member {m.name}"
    else:
        members.append((tarfile.TarInfo("junk/" + "x" * rng.choice((5, 200)) + ".json"), bytes(rng.randbytes(300))))
        recipe = "add a junk member"
    with tarfile.open(dest, "w:gz" if gz else "w") as out:
        for info, body in members:
            if body is not None:
                info.size = len(body)
                out.addfile(info, io.BytesIO(body))
            else:
                out.addfile(info)
    return "tar: " + recipe


def _mutate_sqlite(rng, dest: Path) -> str:
    con = sqlite3.connect(dest)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if not tables:
            return "sqlite: no tables"
        t = rng.choice(tables)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        rowids = [r[0] for r in con.execute(f'SELECT rowid FROM "{t}" LIMIT 5000')]
        op = rng.choice(("set", "set", "set", "delete", "drop"))
        if op == "drop" or not cols or not rowids:
            con.execute(f'DROP TABLE "{t}"')
            recipe = f"drop table {t}"
        elif op == "delete":
            picked = rng.sample(rowids, max(1, len(rowids) // rng.choice((1, 2, 10))))
            con.executemany(f'DELETE FROM "{t}" WHERE rowid = ?', [(r,) for r in picked])
            recipe = f"delete {len(picked)} rows of {t}"
        else:
            c = rng.choice(cols)
            value = rng.choice((1e308, -1, 0, float("nan"), 2 ** 63 - 1, -(2 ** 63), None, "x", 1e-300, 2 ** 40))
            picked = rng.sample(rowids, min(len(rowids), rng.choice((1, 3, 100))))
            con.executemany(f'UPDATE "{t}" SET "{c}" = ? WHERE rowid = ?', [(value, r) for r in picked])
            recipe = f"set {t}.{c} = {value!r} in {len(picked)} rows"
        con.commit()
        return "sqlite: " + recipe
    except sqlite3.Error as exc:
        return f"sqlite: mutation failed ({exc})"
    finally:
        con.close()


def _build_sqlite(sql: bytes, dest: Path) -> None:
    con = sqlite3.connect(dest)
    try:
        con.executescript(SCHEMA.read_text())
        con.executescript(sql.decode("utf-8", "replace").replace("\x00", " "))
    except (sqlite3.Error, ValueError):
        pass
    finally:
        con.commit()
        con.close()


# -------------------------------------------------------------------------------------------------- commands
_EXT = {"table": ".txt", "json": ".json", "markdown": ".md", "html": ".html"}
BASE_REPORT = REPO / "examples" / "seed_kernels.toml"


@dataclass
class Case:
    """One prepared case: its number, the seed it mutates, the recipe, the command and its files."""

    number: int
    seed: Seed
    recipe: str
    argv: list[str]
    folder: Path
    inputs: list[Path]
    output: Path | None
    command: str  # "diagnose/json", "roofline/svg", ...
    gate: bool = False  # compare --fail-if-slower: exit 1 allowed
    hashes: dict[str, str] = field(default_factory=dict)


def _kernels_command(rng, path: Path, out: Path, partners: list[Seed]) -> tuple[list[str], str, Path | None, bool]:
    r = rng.random()
    extra = ["--lang", "zh"] if rng.random() < 0.1 else []
    if r < 0.4:
        fmt = rng.choice(("table", "json", "markdown", "html"))
        argv = ["diagnose", str(path), "--format", fmt, *extra]
        if rng.random() < 0.1 and partners:
            argv.insert(2, str(rng.choice(partners).path))
        argv += rng.choice(([], [], ["--top", "1"], ["--kernel", "regex:."], ["--gpu", "A100"]))
        target = out / f"result{_EXT[fmt]}" if rng.random() < 0.5 else None
        return argv + (["-o", str(target)] if target else []), f"diagnose/{fmt}", target, False
    if r < 0.55:
        target = out / f"roofline.{rng.choice(('svg', 'png'))}"
        argv = ["roofline", str(path), "-o", str(target), *extra]
        argv += rng.choice(([], ["--levels"], ["--launch", "0"], ["--levels", "--launch", "1"]))
        return argv, f"roofline/{target.suffix[1:]}", target, False
    if r < 0.75:
        fmt = rng.choice(("table", "json", "markdown", "html"))
        target = out / f"source{_EXT[fmt]}" if rng.random() < 0.3 else None
        argv = ["source", str(path), "--format", fmt, *extra] + (["-o", str(target)] if target else [])
        return argv, f"source/{fmt}", target, False
    fmt = rng.choice(("table", "json", "markdown"))
    other = str(rng.choice(partners).path) if partners else str(path)
    pair = [str(path), other] if rng.random() < 0.5 else [other, str(path)]
    gate = rng.random() < 0.4
    target = out / f"compare{_EXT[fmt]}" if rng.random() < 0.3 else None
    argv = ["compare", *pair, "--format", fmt] + (["--fail-if-slower", "5%"] if gate else [])
    return argv + (["-o", str(target)] if target else []), f"compare/{fmt}", target, gate


def _timeline_command(rng, path: Path, out: Path, partners: list[Seed]) -> tuple[list[str], str, Path | None, bool]:
    fmt = rng.choice(("table", "json", "markdown"))
    target = out / f"timeline{_EXT[fmt]}" if rng.random() < 0.5 else None
    argv = ["timeline", str(path), "--format", fmt]
    if rng.random() < 0.1 and partners:
        argv.insert(2, str(rng.choice(partners).path))
    argv += rng.choice(([], [], ["--top", "1"], ["--lang", "zh"]))
    return argv + (["-o", str(target)] if target else []), f"timeline/{fmt}", target, False


def choose_command(rng, seed: Seed, path: Path, out: Path, seeds: list[Seed]):
    """The command line for a mutated file: one its family reads (now and then one of the other family)."""
    kernels = [s for s in seeds if s.family == "kernels" and s.kind != "ncu-rep" or s.name.startswith("Lakshya")]
    timelines = [s for s in seeds if s.family == "timeline" and s.path.stat().st_size < 200_000]
    family = seed.family
    if family == "other" or rng.random() < 0.07:
        family = rng.choice(("kernels", "timeline"))
    if family in ("spec", "criteria"):
        base = rng.choice([BASE_REPORT] + [s.path for s in kernels[:3]])
        fmt = rng.choice(("table", "json"))
        argv = ["diagnose", str(base), "--format", fmt, f"--{family}", str(path)]
        return argv, f"diagnose --{family}/{fmt}", None, False
    if family == "kernels":
        return _kernels_command(rng, path, out, kernels)
    return _timeline_command(rng, path, out, timelines)


def prepare(number: int, seed_value: int, seeds: list[Seed], work: Path) -> Case:
    """Case ``number``: a mutated copy of file ``number mod len(seeds)`` in its own folder and its command."""
    rng = random.Random(f"{seed_value}/{number}")
    seed = seeds[number % len(seeds)]
    folder = work / f"case-{number}"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "out").mkdir(parents=True)
    name = seed.name[:-4] + ".sqlite" if seed.kind == "sql" else seed.name
    path = folder / name
    others = [s for s in seeds if s.kind not in ("ncu-rep",) and s.path.stat().st_size < 2_000_000 and s is not seed]
    recipe = mutate_seed(rng, seed, others, path)
    argv, command, output, gate = choose_command(rng, seed, path, folder / "out", seeds)
    inputs = [Path(a) for a in argv[1:] if a.startswith("/") and Path(a).is_file() and "/out/" not in a]
    case = Case(number, seed, recipe, argv, folder, inputs, output, command, gate)
    case.hashes = {str(p): _sha(p) for p in inputs}
    return case


def _sha(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------- the child
def _status(key: str) -> int:
    """A ``/proc/self/status`` figure in KiB (0 where there is none)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _child(case: Case, timeout: float) -> None:
    """In the forked child: run ``main(argv)`` with its output captured; write ``result.json``; never return."""
    code = 0
    try:
        import resource

        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(int(timeout) + 1)
        os.chdir(case.folder)
        out = os.open(case.folder / "stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        err = os.open(case.folder / "stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        nul = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nul, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = _status("VmSize") * 1024 + (8 << 30)
        if hard == resource.RLIM_INFINITY or hard > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        reset = _reset_peak()
        base = _status("VmRSS")
        result = _run_main(case.argv)
        sys.stdout.flush()
        sys.stderr.flush()
        result["peak_kb"] = (_status("VmHWM") - base) if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        (case.folder / "result.json").write_text(json.dumps(result))
    except BaseException:
        code = 3
        with contextlib.suppress(BaseException):
            (case.folder / "child_error.txt").write_text(traceback.format_exc())
    finally:
        os._exit(code)


def _reset_peak() -> bool:
    """Reset this process's peak resident size (Linux ``clear_refs`` 5), so VmHWM measures from here."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _run_main(argv: list[str]) -> dict:
    from kernelscope.cli import main

    t0 = time.perf_counter()
    rc, exc = None, None
    try:
        rc = main(list(argv))
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else f"SystemExit({e.code!r})")
    except BaseException:
        exc = traceback.format_exc()
    return {"rc": rc, "exception": exc, "seconds": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------- the checks
@dataclass
class Violation:
    """One broken rule: its kind, the case and what was seen."""

    kind: str
    case: int
    seed: str
    recipe: str
    argv: list[str]
    detail: str


@dataclass
class Outcome:
    """What one case did."""

    case: Case
    rc: object = None
    seconds: float = 0.0
    peak_mb: float = 0.0
    stderr: str = ""
    violations: list[Violation] = field(default_factory=list)


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


def check(case: Case, status: int, opts) -> Outcome:
    """The rules, from the child's exit status, its ``result.json`` and the files it left."""
    outcome = Outcome(case)

    def bad(kind: str, detail: str) -> None:
        outcome.violations.append(Violation(kind, case.number, case.seed.name, case.recipe, case.argv, detail))

    result_file = case.folder / "result.json"
    if os.WIFSIGNALED(status) or not result_file.exists():
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        why = {signal.SIGALRM: "timeout", signal.SIGKILL: "timeout"}.get(sig, "crash")
        extra = (case.folder / "child_error.txt").read_text()[-800:] if (case.folder / "child_error.txt").exists() else ""
        bad(why, f"child ended by signal {sig} / status {status} {extra}".strip())
        return outcome
    res = json.loads(result_file.read_text())
    outcome.rc, outcome.seconds, outcome.peak_mb = res["rc"], res["seconds"], res["peak_kb"] / 1024
    outcome.stderr = (case.folder / "stderr").read_text(errors="replace")
    if res["exception"]:
        kind = "memory" if "MemoryError" in res["exception"] else "exception"
        bad(kind, res["exception"].strip().splitlines()[-1] + "\n" + res["exception"][-3000:])
    elif outcome.rc not in ((0, 1, 2) if case.gate else (0, 2)):
        bad("exit-code", f"exit code {outcome.rc!r}")
    _check_streams(case, outcome, bad)
    _check_files(case, outcome, bad)
    if outcome.seconds > opts.timeout:
        bad("timeout", f"{outcome.seconds:.1f} s")
    if outcome.peak_mb > opts.max_mem_mb:
        bad("memory", f"peak memory growth {outcome.peak_mb:.0f} MiB")
    return outcome


def _check_streams(case: Case, outcome: Outcome, bad) -> None:
    err = _lines(outcome.stderr)
    if len(err) > 3:
        bad("stderr-lines", f"{len(err)} lines on standard error: " + " | ".join(err[:4])[:600])
    if "Traceback (most recent call last)" in outcome.stderr:
        bad("traceback", outcome.stderr[-2000:])
    long = [ln for ln in err if len(ln) > 2000]
    if long:
        bad("stderr-long", f"a line of {len(long[0])} characters on standard error: {long[0][:300]}")
    warn = [ln for ln in err if "Warning: " in ln and not ln.startswith("kernelscope: error:")  # (quoted input)
            and re.search(r"\w+Warning: ", ln[:2000])]
    if warn:
        bad("warning", warn[0][:400])
    if outcome.rc == 2 and not err:
        bad("silent-failure", "exit 2 with nothing on standard error")
    if outcome.rc == 0 and "--format" in case.argv and case.argv[case.argv.index("--format") + 1] == "json":
        text = (case.output.read_text(errors="replace") if case.output and case.output.exists()
                else (case.folder / "stdout").read_text(errors="replace"))
        try:
            doc = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"non-finite {c}")))
        except ValueError as exc:
            bad("json-output", f"JSON output does not parse strictly: {exc}"[:400])
        else:
            absurd = list(_absurd(doc))
            if absurd:
                bad("absurd-value", f"{len(absurd)} value(s) out of range: " + "; ".join(absurd[:4]))


def _check_files(case: Case, outcome: Outcome, bad) -> None:
    for p, digest in case.hashes.items():
        if not Path(p).exists() or _sha(Path(p)) != digest:
            bad("input-modified", f"{p} changed")
    left = sorted(p.name for p in (case.folder / "out").iterdir())
    if outcome.rc not in (0, 1) and left:
        bad("output-left", f"exit {outcome.rc!r} left {left}")
    if outcome.rc == 0 and case.output is not None and not (case.output.exists() and case.output.stat().st_size):
        bad("output-missing", f"exit 0 without {case.output.name} (left: {left})")
    stray = sorted(p.name for p in case.folder.iterdir()
                   if p.name not in {"out", "stdout", "stderr", "result.json", "child_error.txt"}
                   and str(p) not in case.hashes)
    if stray:
        bad("stray-files", f"files written beside the inputs: {stray}")


#: JSON fields that are shares (0..1) or percentages of a peak (0..100) by their meaning, whatever the input.
_SHARES = re.compile(r"^(share|share_of_\w+|share_before|share_after|program_time_saved_share|\w+_share)$")
_PERCENTS = re.compile(r"^(utilisation_pct|sol_\w+_pct|\w*occupancy_pct|hit_rate_pct|theoretical_pct|achieved_pct|"
                       r"share_pct|kernel_pct)$")

#: Durations and sizes that may be negative by meaning (a model's saving that is a cost, a difference, a gap).
_SIGNED = re.compile(r"saving|saved|delta|change|diff|gain|gap|offset|skew|shift|slack|error|^start_ns$|^end_ns$")
# (a start / end is a point on the capture's clock, which may lie before its origin: not a size)


def _absurd(node, path: str = ""):
    """Paths and values of a JSON document that no input can justify: a share outside 0..1, a percentage of a peak
    outside 0..100 (1% slack), a negative duration or size (``_s``, ``_bytes``)."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}"
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if _SHARES.match(key) and not -1e-9 <= value <= 1.001:
                    yield f"{where} = {value}"
                elif _PERCENTS.match(key) and not -1e-9 <= value <= 101:
                    yield f"{where} = {value}"
                elif key.endswith(("_s", "_bytes", "_ns")) and not _SIGNED.search(key) and value < 0:
                    yield f"{where} = {value}"
            else:
                yield from _absurd(value, where)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _absurd(value, f"{path}[{i}]")


def check_subprocess(case: Case, outcome: Outcome, opts) -> None:
    """Run the case again as a real ``python -m kernelscope`` process: same exit code, short stderr, no traceback."""
    shutil.rmtree(case.folder / "out")
    (case.folder / "out").mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    try:
        proc = subprocess.run([sys.executable, "-m", "kernelscope", *case.argv], cwd=case.folder, env=env,
                              capture_output=True, timeout=opts.timeout + 30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        outcome.violations.append(Violation("timeout", case.number, case.seed.name, case.recipe, case.argv,
                                            "as a subprocess"))
        return
    err = proc.stderr.decode(errors="replace")

    def bad(kind: str, detail: str) -> None:
        outcome.violations.append(Violation(kind, case.number, case.seed.name, case.recipe, case.argv,
                                            "subprocess: " + detail))

    if outcome.rc in (0, 1, 2) and proc.returncode != outcome.rc:
        bad("subprocess-differs", f"exit {proc.returncode} as a process, {outcome.rc} in-process: {err[-300:]}")
    if "Traceback (most recent call last)" in err:
        bad("traceback", err[-2000:])
    if len(_lines(err)) > 3:
        bad("stderr-lines", " | ".join(_lines(err)[:4])[:600])


# ---------------------------------------------------------------------------------------------- the run
@dataclass
class Summary:
    """A whole run: every case's outcome, and what it covered."""

    outcomes: list[Outcome] = field(default_factory=list)
    files: int = 0
    seconds: float = 0.0
    corpus_changed: list[str] = field(default_factory=list)

    @property
    def violations(self) -> list[Violation]:
        return [v for o in self.outcomes for v in o.violations]

    def as_dict(self) -> dict:
        """The counts, what was covered, and every violation (kind, case, seed file, command line, detail)."""
        return {"cases": len(self.outcomes), "files": self.files, "seconds": self.seconds,
                "files_mutated": sorted({o.case.seed.name for o in self.outcomes}),
                "commands": sorted({o.case.command for o in self.outcomes}),
                "exit_codes": dict(Counter(str(o.rc) for o in self.outcomes)),
                "corpus_changed": self.corpus_changed,
                "violations": [{"kind": v.kind, "case": v.case, "seed": v.seed, "argv": v.argv,
                                "detail": v.detail[:3000]} for v in self.violations]}

    def text(self, show: int = 40) -> str:
        """A human summary: counts, coverage and the violations (first ``show`` in full)."""
        o = self.outcomes
        rcs = Counter(str(x.rc) for x in o)
        kinds = Counter(v.kind for v in self.violations)
        lines = [f"cases: {len(o)} in {self.seconds:.0f} s; files mutated: {len({x.case.seed.name for x in o})} of "
                 f"{self.files}; commands: {len({x.case.command for x in o})} "
                 f"({', '.join(sorted({x.case.command for x in o}))})",
                 f"exit codes: {dict(sorted(rcs.items()))}",
                 f"slowest case: {max((x.seconds for x in o), default=0):.1f} s; largest memory growth: "
                 f"{max((x.peak_mb for x in o), default=0):.0f} MiB",
                 f"violations: {len(self.violations)}" + (f" ({dict(kinds.most_common())})" if kinds else "")]
        if self.corpus_changed:
            lines.append(f"CORPUS CHANGED: {self.corpus_changed}")
        for v in self.violations[:show]:
            lines.append(f"--- [{v.kind}] case {v.case}: {v.seed}: {v.recipe}\n    kernelscope "
                         f"{' '.join(v.argv)}\n    " + v.detail.strip().replace("\n", "\n    ")[:3000])
        return "\n".join(lines)


def warm_up() -> None:
    """Import and run every command once in this process, so that forked children start warm."""
    from kernelscope.cli import main

    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as null, \
            contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
        for argv in (["diagnose", str(BASE_REPORT), "--format", "html", "-o", f"{tmp}/a.html"],
                     ["diagnose", str(BASE_REPORT), "--format", "json"],
                     ["roofline", str(BASE_REPORT), "-o", f"{tmp}/a.png"],
                     ["roofline", str(BASE_REPORT), "-o", f"{tmp}/a.svg"],
                     ["timeline", str(SHARED / "cases" / "C03_kineto_ts0_kernel.json")]):
            with contextlib.suppress(BaseException):
                main(argv)


def run(cases: int, seed: int = 1, jobs: int | None = None, timeout: float = 60, max_mem_mb: float = 1536,
        subprocess_every: int = 0, only: list[int] | None = None, keep: Path | None = None,
        roots=ROOTS, work: Path | None = None, progress: bool = False) -> Summary:
    """Run ``cases`` cases (or the case numbers ``only``) with ``jobs`` children at a time; see the module."""
    opts = argparse.Namespace(timeout=timeout, max_mem_mb=max_mem_mb)
    owned = work is None
    work = Path(tempfile.mkdtemp(prefix="kernelscope-fuzz-")) if owned else work
    settings = work / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    seeds = find_seeds(roots, settings)
    before = {str(s.path): _sha(s.path) for s in seeds if s.family not in ("spec", "criteria")}
    warm_up()
    summary = Summary(files=len(seeds))
    t0 = time.perf_counter()
    try:
        numbers = list(only) if only is not None else list(range(cases))
        for outcome in _schedule(numbers, seed, seeds, work, jobs or os.cpu_count() or 1, opts):
            if subprocess_every and outcome.case.number % subprocess_every == 0:
                check_subprocess(outcome.case, outcome, opts)
            summary.outcomes.append(outcome)
            if keep is not None and outcome.violations:
                shutil.copytree(outcome.case.folder, keep / outcome.case.folder.name, dirs_exist_ok=True)
            if only is None:
                shutil.rmtree(outcome.case.folder, ignore_errors=True)
            if progress and len(summary.outcomes) % 100 == 0:
                print(f"  {len(summary.outcomes)} cases, {len(summary.violations)} violations", file=sys.stderr)
    finally:
        summary.seconds = time.perf_counter() - t0
        summary.corpus_changed = [p for p, h in before.items() if not Path(p).exists() or _sha(Path(p)) != h]
        if owned and only is None:
            shutil.rmtree(work, ignore_errors=True)
    summary.outcomes.sort(key=lambda x: x.case.number)
    return summary


def _schedule(numbers: list[int], seed: int, seeds: list[Seed], work: Path, jobs: int, opts):
    """Prepare each case here and run it in a forked child, ``jobs`` at a time; yields the outcomes."""
    pending = list(reversed(numbers))
    running: dict[int, tuple[Case, float]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            case = prepare(pending.pop(), seed, seeds, work)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(case, opts.timeout)
            running[pid] = (case, time.monotonic())
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            now = time.monotonic()
            for p, (case, started) in list(running.items()):
                if now - started > opts.timeout + 10:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(p, signal.SIGKILL)
            time.sleep(0.005)
            continue
        if pid in running:
            case, _ = running.pop(pid)
            yield check(case, status, opts)


def isolated(argv: list[str], folder: Path, timeout: float = 120) -> dict:
    """Run ``kernelscope.cli.main(argv)`` once in a forked child with its output captured (as the cases are):
    ``rc``, ``exception`` (traceback text or None), ``seconds``, ``peak_kb`` (peak resident growth), ``stdout``,
    ``stderr``; ``signal`` set when the child was killed (a crash, or past ``timeout``)."""
    folder = Path(folder)
    (folder / "out").mkdir(parents=True, exist_ok=True)
    case = Case(-1, Seed(folder, "text", "other"), "", list(argv), folder, [], None, "")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(case, timeout)
    started = time.monotonic()
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - started > timeout + 10:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    result = {"signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None, "rc": None, "exception": None,
              "seconds": time.monotonic() - started, "peak_kb": 0}
    if (folder / "result.json").exists():
        result.update(json.loads((folder / "result.json").read_text()))
    for stream in ("stdout", "stderr"):
        result[stream] = (folder / stream).read_text(errors="replace") if (folder / stream).exists() else ""
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None, help="children at a time (default: the CPUs)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds one case may take")
    ap.add_argument("--max-mem-mb", type=float, default=1536, help="most memory growth one case may have (MiB)")
    ap.add_argument("--subprocess-every", type=int, default=40, help="also run every Nth case as a process (0: never)")
    ap.add_argument("--case", type=int, action="append", help="replay only this case (repeatable); files kept")
    ap.add_argument("--keep", type=Path, help="copy the folders of cases that broke a rule here")
    ap.add_argument("--show", type=int, default=40, help="violations shown in full")
    ap.add_argument("--summary-json", type=Path, help="also write the counts and the violations here (JSON)")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kernelscope-fuzz-")) if args.case else None
    summary = run(args.cases, args.seed, args.jobs, args.timeout, args.max_mem_mb, args.subprocess_every,
                  args.case, args.keep, work=work, progress=True)
    if args.case:
        for o in summary.outcomes:
            print(f"case {o.case.number}: {o.case.seed.name}: {o.case.recipe}\n  kernelscope {' '.join(o.case.argv)}"
                  f"\n  exit {o.rc}; stderr: {o.stderr.strip()[:500]}\n  files: {o.case.folder}")
    print(summary.text(args.show))
    if args.summary_json:
        args.summary_json.write_text(json.dumps(summary.as_dict()))
    return 1 if summary.violations or summary.corpus_changed else 0


if __name__ == "__main__":
    sys.exit(main())

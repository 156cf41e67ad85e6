"""Shared-memory bank conflicts (kernelscope.analysis.banks) and the ``banks`` command.

Expected values come from the seed lesson's Q2 (32x32 transpose tile: float [32][32] column access is 32-way,
[32][33] is conflict-free; half [32][32] is 16-way, [32][33] still 2-way, [32][34] conflict-free) and from hand
computations written out next to each case. Model (CUDA C++ Programming Guide, Compute Capability 5.x, Shared
Memory): byte address of tile[r][c] = (r * row_elements + c) * sizeof(T); 32-bit word = address // 4; bank =
word mod 32; n-way = most DISTINCT words one bank serves in a phase; 8-byte elements are served per half-warp.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from conftest import flat

from kernelscope.analysis import banks as banks_module
from kernelscope.analysis.banks import analyse, bank_conflicts, parse_tile, smallest_padding
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.render.banks import banks_doc, render_banks
from kernelscope.render.documents import schema_text

SIZES = {"float": 4, "half": 2, "double": 8}


def oracle(dtype: str, rows: int, row_elements: int, cols: int, access: str) -> list[tuple[int, int]]:
    """(n_way, wavefronts) per request, straight from the definition: no caching, bytes enumerated one by one."""
    e = SIZES[dtype]
    per_phase = 16 if e == 8 else 32
    out = []
    lanes = min(32, rows if access == "column" else cols)
    for i in range(cols if access == "column" else rows):
        r_c = [(t, i) if access == "column" else (i, t) for t in range(lanes)]
        n_ways = []
        for first in range(0, lanes, per_phase):
            banks: dict[int, set[int]] = {}
            for r, c in r_c[first:first + per_phase]:
                for byte in range((r * row_elements + c) * e, (r * row_elements + c + 1) * e):
                    banks.setdefault((byte // 4) % 32, set()).add(byte // 4)
            n_ways.append(max(len(words) for words in banks.values()))
        out.append((max(n_ways), sum(n_ways)))
    return out


# ----------------------------------------------------------------------------------- the seed's Q2, by hand


def test_float_32x32_column_is_32_way():
    # tile[t][c] at (32t + c) * 4 B -> word 32t + c -> bank c for every t: 32 distinct words in one bank
    d = analyse("float", 32, 32, "column")
    assert (d.n_way, d.wavefronts, d.ideal_wavefronts) == (32, 32, 1)
    assert d.conflicting == tuple(range(32))
    assert d.requests[5].phases[0].words_per_bank == tuple(32 if b == 5 else 0 for b in range(32))
    assert d.requests[5].phases[0].lanes_per_bank[5] == tuple(range(32))


def test_float_32x33_column_is_conflict_free():
    # word 33t + c -> bank (t + c) mod 32: 32 lanes, 32 different banks, one word each
    d = analyse("float", 32, 33, "column")
    assert (d.n_way, d.wavefronts, d.conflicting) == (1, 1, ())
    assert all(p.words_per_bank == (1,) * 32 for r in d.requests for p in r.phases)
    report = bank_conflicts("float", 32, 32, "column")
    assert (report.padding, report.padded.row_elements, report.padded.n_way) == (1, 33, 1)


def test_half_32x32_column_is_16_way():
    # tile[t][c] at (32t + c) * 2 = 64t + 2c bytes -> word 16t + c // 2 -> bank (16t + c // 2) mod 32:
    # even t -> bank c // 2, odd t -> bank 16 + c // 2. Two banks, 16 distinct words each (rows are 64 B apart,
    # so every second row starts in the same bank): 16-way.
    d = analyse("half", 32, 32, "column")
    assert (d.n_way, d.wavefronts) == (16, 16)
    assert d.conflicting == tuple(range(32))
    p = d.requests[0].phases[0]
    assert p.words_per_bank == tuple(16 if b in (0, 16) else 0 for b in range(32))
    assert p.lanes_per_bank[0] == tuple(range(0, 32, 2)) and p.lanes_per_bank[16] == tuple(range(1, 32, 2))


def test_half_32x33_column_is_2_way_on_the_odd_columns():
    # element 33t + c -> word (33t + c) // 2; rows two apart are 33 words apart (bank + 1).
    # even t = 2k: word c // 2 + 33k -> banks c // 2 + k, k = 0..15;
    # odd t = 2k+1: word (c + 33) // 2 + 33k. c even: banks c/2 + 16 + k -> all 32 banks distinct, conflict-free.
    # c odd: (c + 33) // 2 = (c - 1) / 2 + 17 -> banks (c-1)/2 + 17 .. (c-1)/2 + 32; the last (t = 31) is the bank
    # of t = 0 again, a different word (512 words further): 2-way on every odd column.
    d = analyse("half", 32, 33, "column")
    assert (d.n_way, d.wavefronts, d.ideal_wavefronts) == (2, 2, 1)
    assert d.conflicting == tuple(range(1, 32, 2))
    assert d.worst.index == 1
    p = d.requests[1].phases[0]
    assert p.colliding_banks == (0,) and p.lanes_per_bank[0] == (0, 31) and p.words_per_bank[0] == 2
    assert d.n_way_counts == ((1, 17), (2, 16))


def test_half_32x34_column_is_conflict_free():
    # row stride 68 B = 17 words (odd): word (34t + c) // 2 = 17t + c // 2 -> bank (17t + c // 2) mod 32, a
    # permutation of the 32 banks since 17 is odd
    assert analyse("half", 32, 34, "column").n_way == 1
    report = bank_conflicts("half", 32, 32, "column")
    assert (report.padding, report.padded.row_elements) == (2, 34)  # [32][33] is still 2-way: pad 1 is not enough
    report = bank_conflicts("half", 32, 33, "column")
    assert (report.padding, report.padded.row_elements) == (1, 34)


def test_float_32x32_row_is_conflict_free():
    # lane t reads word 32r + t: 32 consecutive words, 32 banks
    d = analyse("float", 32, 32, "row")
    assert (d.n_way, d.wavefronts, d.conflicting) == (1, 1, ())
    assert bank_conflicts("float", 32, 32, "row").padding == 0


def test_double_32x32_column_is_16_way_per_half_warp():
    # tile[t][c] at (32t + c) * 8 = 256t + 8c bytes -> words 64t + 2c and 64t + 2c + 1 -> banks 2c and 2c + 1 for
    # every t. Per half-warp phase (16 lanes) those two banks each serve 16 distinct words: 16-way; two phases:
    # 32 wavefronts against the ideal 2 (256 B per request = two 128 B passes).
    d = analyse("double", 32, 32, "column")
    assert d.lanes_per_phase == 16 and len(d.worst.phases) == 2
    assert (d.n_way, d.wavefronts, d.ideal_wavefronts) == (16, 32, 2)
    p = d.requests[3].phases[1]
    assert p.lanes == (16, 31) and p.colliding_banks == (6, 7) and p.words_per_bank[6] == 16
    # [32][33]: words 66t + 2c (+1) -> banks 2(t + c) mod 32 (+1): 16 lanes of a phase, 16 bank pairs: conflict-free
    report = bank_conflicts("double", 32, 32, "column")
    assert (report.padding, report.padded.n_way, report.padded.wavefronts) == (1, 1, 2)


def test_double_row_access_takes_two_conflict_free_wavefronts():
    d = analyse("double", 32, 32, "row")
    assert (d.n_way, d.wavefronts, d.ideal_wavefronts) == (1, 2, 2)


# ----------------------------------------------------------------------------------- broadcast, partial warps


def test_threads_reading_the_same_word_do_not_conflict():
    # half row access: lanes 2k and 2k+1 read the two halves of one word (broadcast): 16 words in 16 banks
    p = analyse("half", 4, 32, "row").requests[0].phases[0]
    assert p.n_way == 1 and p.distinct_words == 16
    assert p.words_per_bank == (1,) * 16 + (0,) * 16 and p.lanes_per_bank[0] == (0, 1)
    # half [32][1] column access: rows 2 B apart, two rows share every word: 16 words, no conflict
    assert analyse("half", 32, 1, "column").n_way == 1


def test_partial_warp_when_the_tile_has_fewer_than_32_rows():
    # float [16][16] column: 16 lanes, word 16t + c -> bank c (t even) or 16 + c (t odd): 8 words each -> 8-way
    d = analyse("float", 16, 16, "column")
    assert (d.active_lanes, d.n_way) == (16, 8)
    assert bank_conflicts("float", 16, 16, "column").padding == 1


@pytest.mark.parametrize("dtype", sorted(SIZES))
@pytest.mark.parametrize("access", ["column", "row"])
def test_agrees_with_the_definition_on_random_tiles(dtype, access):
    rng = random.Random(f"{dtype}-{access}")
    for _ in range(40):
        rows, cols, pad = rng.randint(1, 70), rng.randint(1, 70), rng.randint(0, 40)
        d = analyse(dtype, rows, cols, access, pad)
        assert [(r.n_way, r.wavefronts) for r in d.requests] == oracle(dtype, rows, cols + pad, cols, access), \
            (rows, cols, pad)


@pytest.mark.parametrize("dtype", sorted(SIZES))
def test_the_padding_found_is_the_smallest(dtype):
    for cols in (8, 16, 31, 32, 33, 48, 64):
        pad, layout = smallest_padding(dtype, 32, cols, "column")
        assert layout.conflict_free and layout.pad == pad
        assert all(analyse(dtype, 32, cols, "column", p).n_way > 1 for p in range(pad))


# ----------------------------------------------------------------------------------- input checks


@pytest.mark.parametrize("text", ["32x", "x32", "32", "32x32x2", "-32x32", "0x32", "32x0", "abc"])
def test_bad_tiles_are_refused(text):
    with pytest.raises(InputError, match="--tile"):
        parse_tile(text)


def test_accepted_spellings():
    assert parse_tile(" 32 X 33 ") == (32, 33) and parse_tile("16×8") == (16, 8)
    assert analyse("fp16", 32, 32, "col").dtype == "half"


def test_facts_are_documented_with_their_source_and_units():
    doc = banks_module.__doc__ + bank_conflicts.__doc__ + analyse.__doc__
    for phrase in ("32 banks", "Compute Capability 5.x", "Shared Memory", "64-Bit", "half-warp", "bytes"):
        assert phrase in doc
    facts = bank_conflicts("float", 32, 32, "column", (9, 0)).facts
    assert (facts.banks, facts.bank_width_bytes, facts.architecture) == (32, 4, "Hopper")


# ----------------------------------------------------------------------------------- command line


def run(capsys, *args):
    code = main(["banks", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, flag", [
    (["--dtype", "float", "--tile", "32x", "--access", "column"], "--tile"),
    (["--dtype", "float", "--tile=-32x32", "--access", "column"], "--tile"),
    (["--dtype", "int128", "--tile", "32x32", "--access", "column"], "--dtype"),
    (["--dtype", "float", "--tile", "32x32", "--access", "diagonal"], "--access"),
    (["--dtype", "float", "--tile", "32x32", "--access", "column", "--arch", "sm_35"], "--arch"),
    (["--dtype", "float", "--tile", "32x32", "--access", "column", "--arch", "banana"], "--arch"),
    (["--dtype", "float", "--tile", "1024x1024", "--access", "column"], "--tile"),
])
def test_cli_bad_input_is_one_line_naming_the_option(capsys, args, flag):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and flag in err, err


def test_cli_table_en(capsys):
    code, out, err = run(capsys, "--dtype", "float", "--tile", "32x32", "--access", "column")
    assert code == 0, err
    out = flat(out)  # piped: 80 columns, the sentences wrap
    assert "32-way" in out and "32 (ideal 1)" in out
    assert "pad the row to 33 floats: __shared__ float tile[32][33]" in out
    assert "bank 0: 32 words (threads 0-31)" in out


def test_cli_table_zh(capsys):
    code, out, err = run(capsys, "--dtype", "half", "--tile", "32x33", "--access", "column", "--lang", "zh",
                         "--arch", "sm_90")
    assert code == 0, err
    out = flat(out)  # piped: 80 columns, the sentences wrap
    for word in ("共享内存 Bank 冲突", "2 路", "填充到 34 个 half", "__shared__ half tile[32][34]", "Warp", "第 1 列",
                 "1、3、5、…、31", "Hopper"):
        assert word in out, word


def test_cli_markdown_marks_the_colliding_banks(capsys):
    code, out, err = run(capsys, "--dtype", "half", "--tile", "32x32", "--access", "column", "--format", "markdown")
    assert code == 0, err
    assert out.startswith("## Shared-memory bank conflicts: `__shared__ half tile[32][32]`")  # code, never bold
    assert "| banks 0-7 | **16** | 0 |" in out and "| banks 16-23 | **16** | 0 |" in out


def test_cli_json_file_follows_its_schema(capsys, tmp_path):
    path = tmp_path / "banks.json"
    code, out, err = run(capsys, "--dtype", "double", "--tile", "32x32", "--access", "column", "--format", "json",
                         "--lang", "zh", "-o", str(path))
    assert code == 0 and out == "", err
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert (doc["schema"], doc["lang"], doc["dtype"], doc["access"]) == ("kernelscope.banks/1", "zh", "double", "column")
    d = doc["declared"]
    assert (d["n_way"], d["wavefronts"], d["ideal_wavefronts"], d["threads_per_phase"]) == (16, 32, 2, 16)
    assert [p["n_way"] for p in d["worst"]["phases"]] == [16, 16]
    assert doc["padding_elements"] == 1 and doc["padded"]["declaration"] == "__shared__ double tile[32][33]"
    assert "填充" in doc["fix"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, json.loads(schema_text("banks-1.schema.json")))


def test_json_of_a_conflict_free_tile():
    doc = json.loads(render_banks(bank_conflicts("float", 32, 33, "column"), "json"))
    assert doc["padding_elements"] == 0 and doc["padded"] is None and doc["declared"]["conflicting"] == []
    assert banks_doc(bank_conflicts("float", 32, 32, "row")).declared.conflict_free


def test_render_refuses_an_unknown_format():
    with pytest.raises(ValueError):
        render_banks(bank_conflicts("float", 32, 32, "row"), "html")


def test_readme_documents_the_command():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "kernelscope banks" in readme

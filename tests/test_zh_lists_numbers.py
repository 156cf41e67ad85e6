"""Issue 28 (native review 5): lists joined where the language is known (a :class:`Listed` value, not ", " turned
into 、 afterwards), bank numbers listed with 、, "once" said once, a sub-µs constant in ns, and one precision for
a table row's sibling durations (mean / min / max)."""

from __future__ import annotations

import pickle
import re
import tomllib
from pathlib import Path

import msgspec
import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.knowledge.messages import error_text, phrase
from kernelscope.knowledge.text import fill, note_text
from kernelscope.notes import Listed, Note
from kernelscope.render.common import Fmt

DATA = Path(__file__).resolve().parents[1] / "src" / "kernelscope" / "data"
RESNET = SHARED / "corpus" / "torch_traces" / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz"


# ------------------------------------------------------------------------------------------- 1. list values
def test_a_listed_value_is_the_english_text_and_lists_per_language():
    names = ["dram__bytes_read.sum", "dram__bytes_write.sum"]
    value = Listed(names)
    assert value == ", ".join(names) and isinstance(value, str)  # English (and JSON) as before
    assert value.joined("zh") == "dram__bytes_read.sum、dram__bytes_write.sum"
    assert Listed(["a", "b"], more=True) == "a, b ..." and Listed(["a", "b"], more=True).joined("zh") == "a、b 等"
    assert Listed(["a", "b"], total=7) == "a, b, ... (7 names)"
    assert Listed(["a", "b"], total=7).joined("zh") == "a、b 等 7 个"
    # a kernel name's own ", " (template arguments) stays inside its item
    assert Listed(["f<float, 4>", "g"]).joined("zh") == "f<float, 4>、g"
    copy = pickle.loads(pickle.dumps(value))  # the process pool sends errors and notes between processes
    assert type(copy) is Listed and copy.items == value.items
    assert msgspec.json.decode(msgspec.json.encode({"v": str(value)})) == {"v": value}


def test_a_note_and_an_error_list_their_values_in_the_language():
    note = Note("tl_sync_memcpy", {"n": 3, "time_s": 1e-3, "apis": Listed(["cudaMemcpy", "cudaMemcpy2D"])})
    assert "cudaMemcpy, cudaMemcpy2D" in note_text(note.key, note.values, "en")
    zh = note_text(note.key, note.values, "zh")
    assert "cudaMemcpy、cudaMemcpy2D" in zh and "cudaMemcpy, " not in zh
    assert fill("{x}", {"x": Listed(["1", "2"])}, "zh") == "1、2"
    exc = InputError("--gpu", key="gpu_ambiguous", values={"name": "a", "candidates": Listed(["A100", "H100"])})
    assert "A100, H100" in str(exc)
    assert "A100、H100" in error_text(exc, "zh")
    # each item of an error's list is worded as a phrase of its own ("3 empty row(s)" in Chinese, not in English)
    seen = InputError("x.txt", key="nvprof_no_kernels", values={"seen": Listed(["the kernel table holds a header but no rows"])})
    assert "Kernel 表只有表头，没有数据行" in error_text(seen, "zh")


def test_a_data_problem_lists_where_its_template_says_so():
    text = ("2 of 9 numeric metrics are NaN (not measured, e.g. dram__bytes_read.sum, dram__bytes_write.sum); "
            "the fields read from them are left unmeasured")
    assert "dram__bytes_read.sum、dram__bytes_write.sum" in phrase(text, "zh")
    # a field the template does not call a list keeps its commas: no guess on the text
    assert phrase("line 3: ncu printed: a, b", "zh") == "第 3 行：ncu 输出：a, b"


def test_no_list_is_joined_before_the_language_is_known():
    """The values of notes and errors built in analysis/ingest/knowledge are Listed, not ", "-joined strings."""
    root = DATA.parent
    bad = []
    for path in sorted((*root.glob("analysis/**/*.py"), *root.glob("ingest/**/*.py"), *root.glob("knowledge/*.py"))):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"""values=\{[^}]*["']\w+["']: ["'], ["']\.join""", line) or \
                    re.search(r"""\{["']\w+["']: ["'], ["']\.join""", line):
                bad.append(f"{path.relative_to(root)}:{no}")
    assert bad == []


# ------------------------------------------------------------------------------------------ 2. bank numbers
def test_bank_threads_are_listed_with_the_enumeration_comma(capsys):
    assert main(["banks", "--dtype", "float", "--tile", "32x48", "--access", "column", "--arch", "sm_90",
                 "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "0、2、4、…、30" in out and "0, 2" not in out
    assert main(["banks", "--dtype", "float", "--tile", "32x48", "--access", "column", "--arch", "sm_90"]) == 0
    assert "0, 2, 4, …, 30" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------ 3. once, once
def test_a_one_off_cost_is_not_also_said_to_happen_once():
    table = tomllib.loads((DATA / "labels.toml").read_text(encoding="utf-8"))
    both = [k for group in table.values() if isinstance(group, dict) for k, t in group.items()
            if isinstance(t, dict) and "一次性" in t.get("zh", "") and re.search(r"只(发生|付|有)一次", t["zh"])]
    assert both == []


# --------------------------------------------------------------------------------------- 5. sub-µs in ns
def test_no_data_text_writes_a_sub_microsecond_value_in_microseconds():
    bad = [f"{p.name}: {m.group(0)}" for p in sorted(DATA.glob("*.toml"))
           for m in re.finditer(r"(?<![\d.])0\.\d+ ?µs", p.read_text(encoding="utf-8"))]
    assert bad == []


# ----------------------------------------------------------------------------- 6. one rule for a row's durations
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_rows_mean_min_and_max_share_one_precision(capsys, lang):
    need(RESNET)
    assert main(["timeline", str(RESNET), "--format", "markdown", "--lang", lang]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| `cudnn::detail::dgrad_"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:6] == ["520.0 µs", "330 µs", "1.084 ms"]  # units by magnitude (review 11); whole-µs stamps


def test_sibling_durations_keep_one_precision():
    f = Fmt("zh")
    # units by magnitude (review 11); the group tells the source's resolution (whole ns: 330.0 µs, not 330 µs)
    assert f.times(520.04e-6, 330e-6, 1.0843e-3) == ["520.0 µs", "330.0 µs", "1.084 ms"]
    assert [f.time(x) for x in (520.04e-6, 330e-6)] == ["520.0 µs", "330 µs"]  # each alone: its own resolution

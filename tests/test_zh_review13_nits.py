"""Review zh13's wording nits, one kind each: an upper bound bounds the program saving too ("至多节省"); argparse's
comma lists joined with 、 in Chinese; one wording for a file that does not parse as TOML/JSON; the query error
names DuckDB as the reporter. (The retired wordings are pinned in test_catalogue_wording.RETIRED.)"""

from __future__ import annotations

import pytest

from kernelscope.errors import InputError
from kernelscope.knowledge.messages import error_text, usage_error
from types import SimpleNamespace

from kernelscope.render.common import Fmt


def _finding(kind):
    return SimpleNamespace(estimated_speedup=1.29, gain=None, estimate_kind=kind)


@pytest.mark.parametrize("lang, bound, plain", [
    ("zh", "本 Kernel 加速比至多 1.29×，至多节省 GPU 总时间的 22.6%", "预计本 Kernel 加速比 1.29×，节省 GPU 总时间的 22.6%"),
    ("en", "at most 1.29x this kernel, at most 22.6% of GPU time saved", "est. 1.29x this kernel, 22.6% of GPU time saved"),
])
def test_an_upper_bound_bounds_the_program_saving_too(lang, bound, plain):
    w = Fmt(lang)
    assert w.gain(_finding("upper_bound"), 0.226) == bound
    assert w.gain(_finding("prediction"), 0.226) == plain


def test_argparse_comma_lists_take_the_enumeration_comma():
    said = usage_error("the following arguments are required: --dtype, --tile, --access", "zh")
    assert said == "缺少必需的参数：--dtype、--tile、--access"
    assert usage_error("the following arguments are required: FILE", "zh") == "缺少必需的参数：FILE"


@pytest.mark.parametrize("key, values", [
    ("criteria_not_toml", {"exc": "X"}),
    ("settings_cannot_parse", {"kind": "TOML", "exc": "X"}),
    ("plain_invalid", {"kind": "TOML", "detail": "X"}),
])
def test_one_wording_for_a_file_that_does_not_parse(key, values):
    assert error_text(InputError("f.toml", key=key, values=values), "zh") == "f.toml：不是有效的 TOML：X"
    assert error_text(InputError("f.toml", key=key, values=values), "en") == "f.toml: not valid TOML: X"


def test_the_query_error_says_duckdb_reported_it():
    text = error_text(InputError("SQL", key="sql_error", values={"reason": "Binder Error: x"}), "zh")
    assert text == "SQL：DuckDB 报错：Binder Error: x"

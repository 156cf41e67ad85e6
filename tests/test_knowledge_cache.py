"""The parsed-data cache of kernelscope.knowledge.raw: same tables as parsing the TOML, keyed by the file's content,
and a damaged or unwritable cache is ignored (never an error, never wrong data)."""

from __future__ import annotations

import tomllib

import pytest

import kernelscope.knowledge as knowledge


@pytest.fixture()
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSCOPE_CACHE_DIR", str(tmp_path))
    knowledge.raw.cache_clear()
    yield tmp_path
    knowledge.raw.cache_clear()


def test_cached_tables_equal_the_parsed_toml(fresh):
    expected = tomllib.loads((knowledge.DATA / "verdicts.toml").read_text(encoding="utf-8"))
    first = knowledge.raw("verdicts.toml")
    files = list(fresh.glob("verdicts.toml.*.msgpack"))
    assert len(files) == 1
    knowledge.raw.cache_clear()
    again = knowledge.raw("verdicts.toml")  # from the cache file
    assert first == expected and again == expected


def test_a_damaged_cache_is_parsed_again(fresh):
    knowledge.raw("units.toml")
    (cached,) = fresh.glob("units.toml.*.msgpack")
    cached.write_bytes(b"\xc1 not msgpack")
    knowledge.raw.cache_clear()
    assert knowledge.raw("units.toml") == tomllib.loads((knowledge.DATA / "units.toml").read_text(encoding="utf-8"))


def test_an_older_version_of_a_file_is_removed(fresh):
    stale = fresh / "stalls.toml.0-00000000.msgpack"
    stale.write_bytes(b"\x80")  # an empty table: what an outdated file might hold
    tables = knowledge.raw("stalls.toml")
    assert tables and not stale.exists()


def test_an_unwritable_cache_is_ignored(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("KERNELSCOPE_CACHE_DIR", str(blocker / "sub"))
    knowledge.raw.cache_clear()
    try:
        assert knowledge.raw("metrics.toml")["request"]
    finally:
        knowledge.raw.cache_clear()

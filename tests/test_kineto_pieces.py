"""The Kineto reader's one-pass conversion of a piece whose values are all integers and whose rows are all timed
(issues 25/31: the reader's cost) gives the columns the column-by-column conversion gives, and pieces with None,
text, float text, untimed rows or values past int64 still take the column-by-column path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernelscope.ingest.kineto import columns
from kernelscope.ingest.kineto.decode import _decode_piece


_ALL_INTEGERS = object()


def _events(rng: np.random.Generator, n: int, odd: object = _ALL_INTEGERS) -> list:
    """``n`` random events of the kept categories (kernels with launch args, runtime calls, operators with shapes);
    ``odd`` put as the last event's value of a random field (by default every value is an integer)."""
    cats = ["kernel", "cuda_runtime", "cpu_op", "gpu_memcpy", "user_annotation", "cuda_sync"]
    out = []
    for i in range(n):
        cat = cats[int(rng.integers(0, len(cats)))]
        e = {"ph": "X", "cat": cat, "name": f"n{int(rng.integers(0, 9))}", "pid": int(rng.integers(0, 3)),
             "tid": int(rng.integers(1, 5)), "ts": int(rng.integers(1, 10**15)), "dur": int(rng.integers(0, 900))}
        if cat == "kernel":
            e["args"] = {"device": int(rng.integers(0, 4)), "stream": 7, "correlation": i, "grid": [4, 1, 1],
                         "block": [128, 1, 1], "registers per thread": 32, "shared memory": 0, "warps per SM": 2.5}
        elif cat == "cpu_op":
            e["args"] = {"Input Dims": [[4, int(rng.integers(1, 4))]], "Input type": ["float"]}
        elif cat != "user_annotation":
            e["args"] = {"correlation": i, "bytes": int(rng.integers(0, 99))}
        out.append(e)
    if odd is not _ALL_INTEGERS:
        out[-1][["ts", "dur", "tid", "pid"][int(rng.integers(0, 4))]] = odd
    return _decode_piece(json.dumps(out).encode())


def _parsed(events: list) -> columns._Parsed:
    b = columns._Builder("t.json", {})
    b.add(events)
    return b.finish()


def _same(a: columns._Parsed, b: columns._Parsed) -> None:
    assert a.columns.keys() == b.columns.keys()
    for k in a.columns:
        assert a.columns[k].dtype == b.columns[k].dtype and np.array_equal(a.columns[k], b.columns[k]), k
    assert a.names == b.names and a.invalid == b.invalid and a.problems == b.problems
    for k in a.launch or {}:
        assert np.array_equal(a.launch[k], b.launch[k], equal_nan=True), k
    assert (a.op_inputs is None) == (b.op_inputs is None)
    if a.op_inputs is not None:
        assert np.array_equal(a.op_inputs.row, b.op_inputs.row) and np.array_equal(a.op_inputs.code, b.op_inputs.code)


class _NoChain:
    """Stands in for ``itertools.chain``: the one-pass conversion fails, the piece goes column by column."""

    @staticmethod
    def from_iterable(rows):
        raise TypeError("column by column")


@pytest.mark.parametrize("odd", [_ALL_INTEGERS, None, "17", "12.5", True, 0, -3, 2**62, 2**64, "stream 3"])
def test_one_pass_columns_are_the_column_by_column_ones(odd, monkeypatch) -> None:
    rng = np.random.default_rng(25)
    for trial in range(20):
        events = _events(rng, int(rng.integers(1, 60)), odd)
        fast = _parsed(events)
        with monkeypatch.context() as m:  # the column-by-column path, as every piece took it before
            m.setattr(columns, "chain", _NoChain)
            slow = _parsed(events)
        _same(fast, slow)


def test_directory_workers_are_the_cpus_this_process_may_use(tmp_path, monkeypatch) -> None:
    """jobs=None counts the CPUs of the process' affinity (a container's 2 of a host's 64), as ``--jobs`` does."""
    import os

    from kernelscope.ingest import kineto

    files = []
    for i in range(4):
        files.append(tmp_path / f"r{i}.json")
        files[-1].write_bytes(b"{}")
    monkeypatch.setattr(kineto, "PARALLEL_MIN_BYTES", 0)
    if kineto._workers(2, files) != 2:
        pytest.skip("no fork here (or other threads are running): the files are parsed in this process")
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert kineto._workers(None, files) == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert kineto._workers(None, files) == 1

"""``kernelscope query DIR "SQL"``: SQL over a Parquet dataset of results (:mod:`kernelscope.cli.dataset`) with
DuckDB; the tables ``launches`` (diagnose) and ``timeline_kernels`` (timeline) are views over its part files."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..render.arrow import LAUNCH_COLUMNS, TIMELINE_COLUMNS, require_pyarrow, schema
from .dataset import MARKER, TABLES
from .options import OUTPUT_HELP, Command, Shared
from .output import write_atomic

_COLUMNS = {"launches": LAUNCH_COLUMNS, "timeline_kernels": TIMELINE_COLUMNS}


def _add_arguments(q: argparse.ArgumentParser) -> None:
    q.add_argument("dataset", metavar="DIR", help="a dataset written by --format parquet -o DIR or --dataset DIR")
    q.add_argument("sql", metavar="SQL", help=f"the query; tables: {', '.join(TABLES.values())}")


def run_query(directory: str, sql: str) -> Any:
    """The result of ``sql`` over the dataset ``directory`` as a ``pyarrow.Table`` (empty: a statement without rows).

    Raises:
        InputError: duckdb or pyarrow missing, not a dataset, or a bad query (DuckDB's message).
    """
    pa = require_pyarrow()
    try:
        import duckdb
    except ImportError:
        raise InputError("duckdb", key="dataset_extra_missing") from None
    root = Path(directory)
    if not (root / MARKER).is_file():
        raise InputError(directory, key="not_a_dataset", values={"marker": MARKER})
    con = duckdb.connect()
    for table in TABLES.values():
        files = sorted(str(p) for p in (root / table).glob("part-*.parquet"))
        if files:
            con.read_parquet(files, union_by_name=True).create_view(table)
        else:  # no rows yet: an empty view with the columns
            con.register(table, pa.Table.from_pylist([], schema=schema(_COLUMNS[table])))
    try:
        rel = con.sql(sql)
        if rel is None:
            return pa.table({})
        return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.fetch_arrow_table()
    except duckdb.Error as exc:
        raise InputError("SQL", key="sql_error",
                         values={"reason": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}) from None
    finally:
        con.close()


def _cell(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, default=str)


def format_result(table: Any, fmt: str) -> str:
    """A query result as ``table`` (aligned plain text), ``json`` (a list of objects) or ``csv`` text."""
    rows = table.to_pylist()
    if fmt == "json":
        return json.dumps(rows, indent=2, default=str, ensure_ascii=False) + "\n"
    cells = [[_cell(r[c]) for c in table.column_names] for r in rows]
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(table.column_names)
        w.writerows(cells)
        return out.getvalue()
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(table.column_names)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(table.column_names, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines) + "\n"


def _query(args: argparse.Namespace) -> int:
    text = format_result(run_query(args.dataset, args.sql), args.format)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


COMMAND = Command(
    name="query",
    help="SQL over a Parquet dataset of results (DuckDB): tables launches, timeline_kernels",
    description="Run one SQL query with DuckDB over a dataset that diagnose / timeline wrote with --format parquet "
    "-o DIR or --dataset DIR: the table launches holds one row per diagnosed launch, timeline_kernels one row per "
    "kernel per device of a rank, with the JSON's fields and units. Needs kernelscope[dataset].",
    shared=Shared(formats=("table", "json", "csv"), format_help="output format (default: table)",
                  lang=True, output_help=OUTPUT_HELP),
    add_arguments=_add_arguments,
    run=_query,
)

"""A Parquet dataset of results: ``diagnose/timeline --format parquet -o DIR`` and ``--dataset DIR``.

Layout::

    DIR/kernelscope-dataset.json          marker: {"schema": "kernelscope.dataset/1", ...}
    DIR/launches/part-*.parquet           diagnose: one row per launch (render.arrow.LAUNCH_COLUMNS)
    DIR/timeline_kernels/part-*.parquet   timeline: one row per kernel per device (render.arrow.TIMELINE_COLUMNS)

Each folder is one table (``kernelscope query DIR`` makes them views of the same names; DuckDB, Polars, Spark or
pandas read the folders directly). Writing is atomic: a new DIR is written in a temporary folder beside it and
renamed into place; a DIR that already is a kernelscope dataset gets one more part file (written under a hidden
name, then renamed), so nightly runs append to one dataset; any other existing DIR that is not empty is refused
(nothing written, exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError

MARKER = "kernelscope-dataset.json"
SCHEMA = "kernelscope.dataset/1"
#: Command -> the table (folder, DuckDB view) its rows go to.
TABLES = {"diagnose": "launches", "timeline": "timeline_kernels"}


def add_dataset_argument(p: argparse.ArgumentParser) -> None:
    """``--dataset DIR``: also write the results as a Parquet dataset (beside the normal output)."""
    p.add_argument("--dataset", metavar="DIR",
                   help="also write the results to the Parquet dataset DIR (created, or appended to when it is "
                   "one already; see `kernelscope query`); --format parquet -o DIR writes only the dataset")


def check(args: argparse.Namespace) -> None:
    """Before any work: ``--format parquet`` needs ``-o DIR``, and a dataset needs pyarrow.

    Raises:
        InputError: no ``-o`` with ``--format parquet``, pyarrow missing, or a DIR that cannot take a dataset.
    """
    targets = [d for d in (args.output if args.format == "parquet" else None, getattr(args, "dataset", None)) if d]
    if args.format == "parquet" and not args.output:
        raise InputError("--format parquet", key="parquet_needs_output")
    if targets:
        from ..render.arrow import require_pyarrow

        require_pyarrow()
        for d in targets:
            _usable(Path(d))


def save(args: argparse.Namespace, command: str, results: Any, table: Callable[[Any], Any]) -> bool:
    """Write the datasets ``args`` ask for (``table(results)``: the Arrow table); True when the dataset is the whole
    output (``--format parquet``), False when the normal output follows."""
    targets = [d for d in (args.output if args.format == "parquet" else None, getattr(args, "dataset", None)) if d]
    if targets:
        data = table(results)
        for d in dict.fromkeys(targets):
            write_dataset(d, TABLES[command], data)
    return args.format == "parquet"


def _is_dataset(path: Path) -> bool:
    return (path / MARKER).is_file()


def _usable(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise InputError(str(path), key="dataset_not_folder")
    if path.is_dir() and not _is_dataset(path) and any(path.iterdir()):
        raise InputError(str(path), key="dataset_folder_foreign", values={"marker": MARKER})


def _part_name() -> str:
    return f"part-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:12]}.parquet"


def write_dataset(directory: str | os.PathLike, table_name: str, table: Any) -> Path:
    """Write ``table`` (a ``pyarrow.Table``) as one new part file of the table ``table_name`` of the dataset
    ``directory`` (see the module docstring: created atomically, or appended to); returns the part file's path.

    Raises:
        InputError: ``directory`` is a file or a non-empty folder that is not a dataset, or cannot be written.
    """
    import pyarrow.parquet as pq

    root = Path(directory)
    _usable(root)
    name = _part_name()
    try:
        if _is_dataset(root):  # append: one more part, renamed into place once whole
            folder = root / table_name
            folder.mkdir(exist_ok=True)
            tmp = folder / f".{name}.tmp"
            _write_parquet(pq, table, tmp)
            os.replace(tmp, folder / name)
            return folder / name
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.", suffix=".tmp", dir=root.parent))
        try:
            (staging / MARKER).write_text(json.dumps({"schema": SCHEMA, "tables": sorted(TABLES.values())}) + "\n",
                                          encoding="utf-8")
            (staging / table_name).mkdir()
            _write_parquet(pq, table, staging / table_name / name)
            if root.is_dir():
                root.rmdir()  # empty (checked above): the staged folder takes its place
            os.rename(staging, root)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return root / table_name / name
    except OSError as exc:
        raise InputError(str(root), key="dataset_cannot_write", values={"value": exc.strerror or exc}) from None


def _write_parquet(pq: Any, table: Any, path: Path) -> None:
    """``pq.write_table`` into a file Python opens: pyarrow takes only names that are valid UTF-8."""
    with open(path, "wb") as fh:
        pq.write_table(table, fh)


def _read_parquet(pq: Any, path: Path) -> Any:
    """``pq.read_table`` from a file Python opens (any file name, as :func:`_write_parquet`)."""
    with open(path, "rb") as fh:
        return pq.read_table(fh)


def is_dataset(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a kernelscope dataset folder (it holds the marker file)."""
    return _is_dataset(Path(path))


def read_table(directory: str | os.PathLike, table_name: str) -> Any:
    """All part files of the table ``table_name`` of the dataset ``directory`` as one ``pyarrow.Table`` (columns
    unified by name; an empty table with the columns when there are none yet).

    Raises:
        InputError: pyarrow missing, not a dataset, or a part file that cannot be read.
    """
    from ..render.arrow import LAUNCH_COLUMNS, TIMELINE_COLUMNS, require_pyarrow, schema

    pa = require_pyarrow()
    import pyarrow.parquet as pq

    root = Path(directory)
    if not _is_dataset(root):
        raise InputError(str(root), key="not_a_dataset", values={"marker": MARKER})
    files = sorted((root / table_name).glob("part-*.parquet"))
    if not files:
        columns = {"launches": LAUNCH_COLUMNS, "timeline_kernels": TIMELINE_COLUMNS}[table_name]
        return pa.Table.from_pylist([], schema=schema(columns))
    try:
        return pa.concat_tables([_read_parquet(pq, f) for f in files], promote_options="default")
    except (OSError, pa.ArrowInvalid) as exc:
        raise InputError(str(root), key="dataset_cannot_read", values={"table_name": table_name, "exc": exc}) from None

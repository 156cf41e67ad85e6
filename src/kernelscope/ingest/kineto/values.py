"""JSON values -> NumPy columns: exact µs -> ns times, integer columns (device, stream, correlation id, bytes)
and the kernel launch columns (grid, block, registers, shared memory, warps per SM).

The values are as the decoder left them: ints, JSON float text (``float_hook=str``), strings, None, or anything
else a malformed trace holds. Each conversion tries one vectorised NumPy pass first and falls back to a per-value
loop only when that fails.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

import numpy as np

_STREAM_TEXT = re.compile(r"(-?\d+)\s*$")
_INT64_US_MAX = (2**63 - 1) // 1000


# ------------------------------------------------------------------------------------------------------ times
def _ns_column(values: list) -> tuple[np.ndarray, np.ndarray, bool]:
    """Microsecond values (ints, float text, None; or an int64 array of them) -> (int64 ns, readable mask, any
    fractional µs)."""
    n = len(values)
    try:
        us = values if isinstance(values, np.ndarray) else np.fromiter(values, dtype=np.int64, count=n)
    except (TypeError, ValueError, OverflowError):
        pass
    else:
        if n == 0 or int(np.abs(us).max()) <= _INT64_US_MAX:
            return us * 1000, np.ones(n, dtype=bool), False
    if isinstance(values, np.ndarray):
        values = values.tolist()
    out = np.zeros(n, dtype=np.int64)
    ok = np.ones(n, dtype=bool)
    frac = False
    conv = _us_to_ns
    for i, v in enumerate(values):
        if type(v) is int:
            if -_INT64_US_MAX <= v <= _INT64_US_MAX:
                out[i] = v * 1000
            else:
                ok[i] = False
            continue
        r = conv(v)
        if r is None:
            ok[i] = False
        else:
            out[i] = r
            if r % 1000:
                frac = True
    return out, ok, frac


def _us_to_ns(v: Any) -> int | None:
    """Exact ns of a µs value given as JSON float text (or int / float); None when unreadable."""
    if isinstance(v, str):
        whole, dot, fraction = v.partition(".")
        if dot and len(fraction) <= 3 and fraction.isdigit() and (whole.isdigit() or
                                                                  (whole[:1] == "-" and whole[1:].isdigit())):
            ns = int(whole + fraction.ljust(3, "0"))
        else:
            try:
                d = Decimal(v)
            except InvalidOperation:
                return None
            if not d.is_finite():
                return None
            ns = int((d * 1000).to_integral_value(rounding=ROUND_HALF_EVEN))
    elif isinstance(v, bool) or v is None:
        return None
    elif isinstance(v, int):
        ns = v * 1000
    elif isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return None
        ns = int(Decimal(repr(v)) * 1000)
    else:
        return None
    if not -(2**63) < ns < 2**63:
        return None
    return ns


# --------------------------------------------------------------------------------------------------- integers
def _objects(values) -> np.ndarray:
    """A 1-D object array of ``values`` (``np.array`` would make equal-length lists a 2-D array)."""
    return np.fromiter(values, dtype=object, count=len(values))


def _as_int(v: Any, text: bool = False) -> int | None:
    if type(v) is int:
        return v
    if isinstance(v, str):
        s = v.strip()
        try:
            return int(s)
        except ValueError:
            pass
        if text:  # "stream 7"
            m = _STREAM_TEXT.search(s)
            if m:
                return int(m.group(1))
        try:
            f = float(s)
        except ValueError:
            return None
        return int(f) if f == f and f not in (float("inf"), float("-inf")) and f == int(f) else None
    if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")) and v == int(v):
        return int(v)
    return None


def _int_column(values, fill: int, dtype, text: bool = False) -> np.ndarray:
    """Integers (with None = ``fill``; numeric strings, and "stream 7" when ``text``; or an int64 array of them) -> a
    column of ``dtype``. Values that are unreadable or out of the dtype's range become ``fill``."""
    n = len(values)
    info = np.iinfo(dtype)
    try:
        arr = np.array(values, dtype=np.int64) if isinstance(values, np.ndarray) else \
            np.fromiter(values, dtype=np.int64, count=n)
    except (TypeError, ValueError, OverflowError):
        # most often: None among ints (fast, vectorised over an object array)
        obj = _objects(values)
        missing = np.equal(obj, None)
        obj[missing] = fill
        try:
            arr = obj.astype(np.int64)  # int() of each: numeric strings too (a float would be truncated)
        except (TypeError, ValueError, OverflowError):
            arr = None
        if arr is None:
            out = np.full(n, fill, dtype=np.int64)
            for i, v in enumerate(values):
                if v is None:
                    continue
                iv = _as_int(v, text)
                if iv is not None and info.min <= iv <= info.max:
                    out[i] = iv
            arr = out
    if dtype is not np.int64 and arr.size and (arr.min() < info.min or arr.max() > info.max):
        arr = np.where((arr < info.min) | (arr > info.max), fill, arr)
    return arr.astype(dtype, copy=False)


# ------------------------------------------------------------------------------------------------ launch args
_LAUNCH_INT = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread",
               "shared_mem_bytes", "dynamic_shared_mem_bytes")


def _dims(values: tuple) -> np.ndarray:
    """[x, y, z] lists -> (n, 3) int32, -1 where missing, malformed or out of the int32 range."""
    n = len(values)
    i32 = np.iinfo(np.int32)
    try:
        arr = np.array(values, dtype=np.int64)
        if arr.shape != (n, 3):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        arr = np.full((n, 3), -1, dtype=np.int64)
        for i, v in enumerate(values):
            if isinstance(v, (list, tuple)) and len(v) == 3:
                for j in range(3):
                    iv = _as_int(v[j])
                    if iv is not None and i32.min <= iv <= i32.max:
                        arr[i, j] = iv
    return np.where((arr < i32.min) | (arr > i32.max), -1, arr).astype(np.int32)


def _floats(values: tuple) -> np.ndarray:
    """Numbers (ints, float text, None) -> float64, NaN where missing, unreadable or not finite."""
    obj = _objects(values)
    missing = np.equal(obj, None)
    obj[missing] = "nan"
    try:
        out = obj.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        out = np.full(len(values), np.nan)
        for i, v in enumerate(values):
            try:
                out[i] = float(v)
            except (TypeError, ValueError, OverflowError):
                pass
    out[~np.isfinite(out)] = np.nan
    return out


def _launch_chunk(kernels: list[tuple]) -> dict[str, np.ndarray]:
    """Launch args of the kernel rows of one piece: ``row`` (index in the piece) and the LaunchArgs columns."""
    rows, grids, blocks, regs, smem, warps = zip(*kernels)
    g = _dims(grids)
    b = _dims(blocks)
    n = len(rows)
    return {
        "row": np.array(rows, dtype=np.int64),
        "grid_x": g[:, 0], "grid_y": g[:, 1], "grid_z": g[:, 2],
        "block_x": b[:, 0], "block_y": b[:, 1], "block_z": b[:, 2],
        "registers_per_thread": _int_column(regs, -1, np.int32),
        "shared_mem_bytes": _int_column(smem, -1, np.int32),
        "dynamic_shared_mem_bytes": np.full(n, -1, dtype=np.int32),
        "warps_per_sm": _floats(warps),
    }


def _launch_columns(parts: list[tuple[np.ndarray, dict]], n: int) -> dict[str, np.ndarray]:
    """LaunchArgs columns for all ``n`` rows of a file (-1 / NaN on rows that are not kernels)."""
    cols = {name: np.full(n, -1, dtype=np.int32) for name in _LAUNCH_INT}
    cols["warps_per_sm"] = np.full(n, np.nan)
    for rows, vals in parts:
        for name, arr in vals.items():
            cols[name][rows] = arr
    return cols

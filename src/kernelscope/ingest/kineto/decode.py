"""Stream decoding of a Chrome-trace JSON file: the ``traceEvents`` array, piece by piece, into typed events.

The file is never held whole: it is read in chunks (``chunk_bytes``: the package's ``CHUNK_BYTES``), each
chunk cut at an event boundary (``}`` ``,`` ``{``; a cut that is not a real boundary -- inside a string or a
nested object -- fails to decode and the next candidate is tried) and decoded by ``msgspec`` into small typed
structs that skip every field the timeline does not use (``Input Dims`` ...). The decoded events go to a sink
(:class:`~kernelscope.ingest.kineto.columns._Builder`), piece by piece; the top-level keys that precede and follow
``traceEvents`` go to its ``top``.

Numbers are never parsed as floats here: JSON floats reach the sink as their text (``float_hook=str``), so that
timestamps convert to ns exactly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import msgspec

from ...errors import InputError

#: How far into a file the top-level ``"traceEvents"`` key is looked for.
HEAD_LIMIT = 256 << 20

_CUT = re.compile(rb"\}\s*,\s*\{")
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')


# ------------------------------------------------------------------------------------------------- JSON schema
class _Args(msgspec.Struct, gc=False):
    """The ``args`` keys the timeline uses (every other key is skipped by the decoder)."""

    device: Any = None
    stream: Any = None
    correlation: Any = None
    bytes: Any = None
    grid: Any = None
    block: Any = None
    registers: Any = msgspec.field(default=None, name="registers per thread")
    shared_memory: Any = msgspec.field(default=None, name="shared memory")
    warps_per_sm: Any = msgspec.field(default=None, name="warps per SM")
    name: Any = None  # "M" events: process_name / thread_name
    labels: Any = None  # "M" process_labels: "GPU 0" / "CPU"


class _Event(msgspec.Struct, gc=False):
    ph: Any = None
    cat: Any = None
    name: Any = None
    pid: Any = None
    tid: Any = None
    ts: Any = None
    dur: Any = None
    args: Any = None


class _EventTyped(_Event, gc=False):
    args: _Args | None = None  # type: ignore[assignment]


class _Top(msgspec.Struct):
    """Top-level keys of a Kineto trace that the timeline reports."""

    schemaVersion: Any = None
    deviceProperties: Any = None
    computeProperties: Any = None  # 2021 traces (tb_plugin samples)
    distributedInfo: Any = None
    displayTimeUnit: Any = None
    baseTimeNanoseconds: Any = None
    traceName: Any = None
    cupti_version: Any = None
    cuda_runtime_version: Any = None
    cuda_driver_version: Any = None


class _TopTail(_Top):
    traceEvents: list[_EventTyped] = []


# float_hook=str: JSON floats arrive as their text, so that timestamps convert to ns exactly.
_EVENTS = msgspec.json.Decoder(list[_EventTyped], float_hook=str)
_EVENTS_ANY = msgspec.json.Decoder(list[Any], float_hook=str)
_TAIL = msgspec.json.Decoder(_TopTail, float_hook=str)
_TAIL_ANY = msgspec.json.Decoder(dict[str, Any], float_hook=str)
_HEAD = msgspec.json.Decoder(_Top)


class _Sink(Protocol):
    """Where decoded events go (:class:`~kernelscope.ingest.kineto.columns._Builder`)."""

    top: _Top

    def add(self, events: list) -> None: ...


class _NotTrace(Exception):
    """The input is JSON (or not even that) but not a Chrome trace; the message says why."""


def _where(source: str, label: str) -> str:
    """Message prefix naming the file inside a directory or archive ("" for a single file)."""
    return "" if Path(source).name == label else f"{label}: "


# ------------------------------------------------------------------------------------------------ the stream
class _Reader:
    """The stream being decoded and the bytes read from it that are not decoded yet."""

    __slots__ = ("stream", "buf", "eof")

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.buf = bytearray()
        self.eof = False

    def fill(self, n: int) -> None:
        """Append up to ``n`` more bytes to ``buf`` (``eof`` once the stream is exhausted)."""
        data = self.stream.read(n)
        if not data:
            self.eof = True
        else:
            self.buf.extend(data)


def _split_events(stream: BinaryIO, source: str, label: str, sink: _Sink, chunk_bytes: int) -> None:
    """Read the stream in chunks, decode the ``traceEvents`` array piece by piece and feed the sink."""
    where = _where(source, label)
    reader = _Reader(stream)
    reader.fill(1 << 20)
    start, array_mode = _event_array_start(reader, where, sink)
    start = _decode_body(reader, start, where, sink, chunk_bytes)
    rest = bytes(reader.buf[start:])
    del reader.buf[:]
    if array_mode:
        _decode_array_tail(rest, source, where, sink)
    else:
        _decode_object_tail(rest, source, where, sink)


# --- the head: up to and including '[' of the top-level traceEvents array
def _event_array_start(reader: _Reader, where: str, sink: _Sink) -> tuple[int, bool]:
    """Index in ``reader.buf`` just after the ``[`` that opens the event list, and whether the file is Chrome's
    "JSON array format" (a bare list of events) rather than an object with a ``traceEvents`` key."""
    buf = reader.buf
    lead = 0
    if buf[:3] == b"\xef\xbb\xbf":
        lead = 3
    while lead < len(buf) and buf[lead] in b" \t\r\n":
        lead += 1
    first = buf[lead:lead + 1]
    if first not in (b"{", b"["):
        raise _NotTrace(f"{where}not JSON (starts with {bytes(buf[lead:lead + 20])!r}); "
                        "expected a PyTorch profiler trace")
    if first == b"[":  # Chrome's "JSON array format": a bare list of events
        return lead + 1, True
    return _trace_events_key(reader, where, sink), False


def _trace_events_key(reader: _Reader, where: str, sink: _Sink) -> int:
    """Index just after the ``[`` of the top-level ``"traceEvents"`` array (a match inside a string or a nested
    object is skipped: the keys before it must decode as the top-level object); the keys before it go to
    ``sink.top``. Reads on until found, up to :data:`HEAD_LIMIT`."""
    buf = reader.buf
    searched = 0
    while True:
        for m in _KEY.finditer(buf, max(0, searched - 64)):
            top = _head_keys(bytes(buf[:m.start()]).rstrip())
            if top is not None:
                sink.top = top
                return m.end()
        searched = len(buf)
        if reader.eof or len(buf) > HEAD_LIMIT:
            keys = _top_keys(bytes(buf)) if reader.eof else None
            raise _NotTrace(f"{where}not a Chrome trace: no top-level \"traceEvents\" array"
                            + (f" (top-level keys: {', '.join(keys[:8])})" if keys else ""))
        reader.fill(1 << 22)


def _head_keys(head: bytes) -> _Top | None:
    """The top-level keys in ``head`` (the text before a ``"traceEvents"`` key, right-stripped), or None when it
    is not the start of the top-level object."""
    if head.endswith(b","):
        head = head[:-1] + b"}"
    elif head.endswith(b"{"):
        head = head + b"}"
    else:
        return None
    try:
        return _HEAD.decode(head)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


# --- the body: cut at event boundaries, decode each piece (buf[start-1] is always '[', ',' or whitespace)
def _decode_body(reader: _Reader, start: int, where: str, sink: _Sink, chunk_bytes: int) -> int:
    """Decode the events of the stream piece by piece until it ends; returns where the undecoded rest (the last
    events and the end of the file) starts in ``reader.buf``."""
    buf = reader.buf
    while True:
        if not reader.eof and len(buf) - start < chunk_bytes:
            reader.fill(chunk_bytes)
            continue
        if reader.eof:
            return start
        done = _decode_to_cut(buf, start, where, sink)
        if done:  # (the finditer scanner of _decode_to_cut holds a view of buf: resize only after it returned)
            del buf[:done - 1]
            start = 1
        else:
            reader.fill(chunk_bytes)


def _decode_to_cut(buf: bytearray, start: int, where: str, sink: _Sink) -> int:
    """Decode the events from ``buf[start]`` to the first real event boundary past the middle of the buffer and
    feed them to the sink; returns the index of the next event's ``{``, or 0 when no boundary was found."""
    pos = start + (len(buf) - start) // 2
    for m in _CUT.finditer(buf, pos):
        cut = m.start() + 1  # just after '}'
        saved_open, saved_close = buf[start - 1], buf[cut]
        buf[start - 1] = 0x5B  # '['
        buf[cut] = 0x5D  # ']'
        mv = memoryview(buf)
        piece = mv[start - 1:cut + 1]
        try:
            events = _decode_piece(piece, where)
        except msgspec.DecodeError:
            events = None
        finally:
            piece.release()
            mv.release()
        if events is None:  # not a real boundary (inside a string or a nested object): try the next one
            buf[start - 1], buf[cut] = saved_open, saved_close
            continue
        sink.add(events)
        return m.end() - 1  # the '{' of the next event
    return 0


# --- the tail: the last events, the closing ']' and the rest of the top-level object
def _decode_array_tail(rest: bytes, source: str, where: str, sink: _Sink) -> None:
    """The last events of a bare event list, and its closing ``]``."""
    try:
        events = _decode_piece(b"[" + rest, where)
    except msgspec.DecodeError as exc:
        raise InputError(source, f"{where}malformed JSON in the event list ({_json_error(exc)})") from None
    sink.add(events)


def _decode_object_tail(rest: bytes, source: str, where: str, sink: _Sink) -> None:
    """The last events, the closing ``]`` and the top-level keys after ``traceEvents`` (which fill in those of
    ``sink.top`` that the head did not have)."""
    text = b'{"traceEvents":[' + rest
    try:
        tail = _TAIL.decode(text)
    except msgspec.ValidationError:
        try:
            loose = _TAIL_ANY.decode(text)
        except msgspec.DecodeError as exc:
            raise InputError(source, f"{where}malformed JSON at the end of the trace ({_json_error(exc)})") from None
        sink.add(_loose_events(loose.get("traceEvents") or [], where))
        tail = _TopTail(**{k: loose.get(k) for k in _Top.__struct_fields__})
    except msgspec.DecodeError as exc:
        raise InputError(source, f"{where}malformed JSON at the end of the trace ({_json_error(exc)}); "
                                 "was the file cut short while it was written?") from None
    else:
        sink.add(tail.traceEvents)
    top = sink.top
    for key in _Top.__struct_fields__:
        if getattr(tail, key) is not None and getattr(top, key) is None:
            setattr(top, key, getattr(tail, key))


# ------------------------------------------------------------------------------------------------ pieces
def _decode_piece(data, where: str) -> list:
    try:
        return _EVENTS.decode(data)
    except msgspec.ValidationError:
        return _loose_events(_EVENTS_ANY.decode(data), where)


def _loose_events(items: list, where: str) -> list:
    """Events of a piece whose shape the typed decoder refused (e.g. ``args`` that is not an object)."""
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        args = item.get("args")
        typed_args = None
        if isinstance(args, dict):
            try:
                typed_args = msgspec.convert(args, _Args, strict=False)
            except msgspec.ValidationError:
                typed_args = None
        out.append(_EventTyped(ph=item.get("ph"), cat=item.get("cat"), name=item.get("name"), pid=item.get("pid"),
                               tid=item.get("tid"), ts=item.get("ts"), dur=item.get("dur"), args=typed_args))
    return out


def _top_keys(data: bytes) -> list[str] | None:
    try:
        obj = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    return [str(k) for k in obj] if isinstance(obj, dict) else None


def _json_error(exc: Exception) -> str:
    msg = str(exc)
    return "the file ends early" if "truncated" in msg.lower() else msg

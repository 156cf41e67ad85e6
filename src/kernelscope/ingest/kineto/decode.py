"""Stream decoding of a Chrome-trace JSON file: the ``traceEvents`` array, piece by piece, into typed events.

The file is never held whole: it is read in chunks (``chunk_bytes``: the package's ``CHUNK_BYTES``), each
chunk cut at an event boundary (``}`` ``,`` ``{``; a cut that is not a real boundary -- inside a string or a
nested object -- fails to decode and the next candidate is tried) and decoded by ``msgspec`` into small typed
structs that skip every field the timeline does not use (``Input Strides``, ``Concrete Inputs`` ...); an event
of another phase than ``"X"`` (flows, metadata, instants ...: a quarter of a Kineto trace's events) is decoded as its
``ph`` alone (a tagged union on ``ph``). The decoded events go to a sink
(:class:`~kernelscope.ingest.kineto.columns._Builder`), piece by piece; the top-level keys that precede and follow
``traceEvents`` go to its ``top``.

Numbers are never parsed as floats here: JSON floats reach the sink as their text (``float_hook=str``), so that
timestamps convert to ns exactly.
"""

from __future__ import annotations

import mmap
import re
import sys
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, Protocol, Union

import msgspec

from ...errors import InputError
from ..files import starts_with
from ..limits import size_text

#: How far into a file the top-level ``"traceEvents"`` key is looked for.
HEAD_LIMIT = 256 << 20
#: Most bytes one event (or the end of the file after the last event boundary) may span: past it, the input is
#: refused rather than held whole (an event that large is malformed JSON or a bomb, e.g. gigabytes of spaces).
MAX_EVENT_BYTES = 256 << 20
#: Candidate cuts tried per buffer that turn out not to be event boundaries (each costs a decode of the piece)
#: before more of the stream is read: bounds the work on a stray bracket to a few decodes per chunk.
MAX_MISSES = 8

_CUT = re.compile(rb"\}\s*,\s*\{")
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')


# ------------------------------------------------------------------------------------------------- JSON schema
_NO_RAW = msgspec.Raw()


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
    # cpu_op with record_shapes: kept as the raw JSON text (decoded once per distinct text by the sink: a
    # training loop repeats the same few hundred shapes in every step)
    # (an empty Raw when absent: msgspec takes no union of Raw and None)
    input_dims: msgspec.Raw = msgspec.field(default=_NO_RAW, name="Input Dims")
    input_type: msgspec.Raw = msgspec.field(default=_NO_RAW, name="Input type")


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
    """An event as :func:`_loose_events` makes it (whatever its ``ph``)."""

    args: _Args | None = None  # type: ignore[assignment]


class _Complete(msgspec.Struct, tag_field="ph", tag="X", gc=False):
    """A ``"ph": "X"`` event as the typed decoder makes it (the fields of :class:`_EventTyped`)."""

    ph: ClassVar[str] = "X"
    cat: Any = None
    name: Any = None
    pid: Any = None
    tid: Any = None
    ts: Any = None
    dur: Any = None
    args: _Args | None = None


#: The other phases of the Trace Event Format (duration, instant, counter, async, flow, sample, object, metadata,
#: memory dump, mark, clock sync, context events; the deprecated ones too): decoded as their ``ph`` alone, every
#: other key skipped, since the timeline keeps none of them (an event of another ``ph``, or without one, sends its
#: piece to the loose decoding: :func:`_decode_piece`).
_OTHER_PHASES = tuple("BEiICbneSTpFstfPONDMVvRc()")
_SKIPPED = tuple(msgspec.defstruct(f"_Phase{ord(ph)}", [], tag_field="ph", tag=ph, gc=False, namespace={"ph": ph})
                 for ph in _OTHER_PHASES)
_TypedEvent = Union[(_Complete, *_SKIPPED)]  # type: ignore[valid-type]


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
    traceEvents: list[_TypedEvent] = []


# float_hook=str: JSON floats arrive as their text, so that timestamps convert to ns exactly.
_EVENTS = msgspec.json.Decoder(list[_TypedEvent], float_hook=str)
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


class _Malformed(Exception):
    """Malformed JSON; the message says what and where (a byte offset in the decompressed stream)."""


def _where(source: str, label: str) -> str:
    """Message prefix naming the file inside a directory or archive ("" for a single file)."""
    return "" if Path(source).name == label else f"{label}: "


# ------------------------------------------------------------------------------------------------ the stream
#: Flags of the reader's memory map where the platform takes them: private (MAP_SHARED, the default for an anonymous
#: map on POSIX, would be shared with a process forked while it exists: two workers writing the same pages).
_MAP = {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_ANONYMOUS") else {}
#: Bytes kept before the undecoded rest when the front of the buffer is dropped: room to write the
#: ``{"traceEvents":[`` that the last piece is decoded behind (:func:`_decode_object_tail`) in place.
_ROOM = 16


def _buffer(size: int) -> mmap.mmap:
    """A private anonymous map of ``size`` bytes (at least a page), backed by huge pages where the kernel offers
    them (Linux ``MADV_HUGEPAGE``, transparent huge pages in "madvise" or "always" mode): the file's bytes touch
    one 2 MiB page at a time instead of 512 small ones, each a page fault (on this project's 2-core machine the
    first 25 MB file a process reads spent 28 ms of its 0.21 s in them)."""
    buf = mmap.mmap(-1, max(size, mmap.PAGESIZE), **_MAP)
    if _HUGE is not None:
        try:
            buf.madvise(_HUGE)
        except OSError:  # (a kernel without transparent huge pages: small pages, as without the advice)
            pass
    return buf


#: ``mmap.MADV_HUGEPAGE`` where the platform has it (Linux), else None.
_HUGE = getattr(mmap, "MADV_HUGEPAGE", None)


class _Reader:
    """The stream being decoded and a window on it: ``buf[:end]`` are the bytes read and not dropped yet, and
    ``dropped`` says how many bytes were dropped from the front (``buf[i]`` is byte ``dropped + i`` of the stream).

    ``buf`` is one anonymous memory map of fixed size (replaced by a larger one only when an event or the head
    does not fit), read into with ``readinto`` and moved down in place: no bytes object per chunk, no
    reallocation, no page touched twice for the first time (on this project's 2-core machine the growing
    ``bytearray`` of before cost 0.17 s of CPU per 200 MB of JSON in page faults and copies, this 0.04-0.10 s)."""

    __slots__ = ("stream", "buf", "end", "eof", "dropped")

    def __init__(self, stream: BinaryIO, size: int) -> None:
        self.stream = stream
        self.buf = _buffer(size)
        self.end = 0
        self.eof = False
        self.dropped = 0

    def fill(self, n: int) -> None:
        """Append up to ``n`` more bytes to ``buf[:end]`` (``eof`` once the stream is exhausted)."""
        need = self.end + n
        if need > len(self.buf):
            bigger = _buffer(max(need, 2 * len(self.buf)))
            bigger[:self.end] = self.buf[:self.end]
            self.buf = bigger
        with memoryview(self.buf) as mv:
            got = self.stream.readinto(mv[self.end:need])
        if not got:
            self.eof = True
        else:
            self.end += got

    def drop(self, n: int) -> None:
        """Forget the first ``n`` bytes of ``buf[:end]``."""
        self.buf.move(0, n, self.end - n)
        self.end -= n
        self.dropped += n


def _split_events(stream: BinaryIO, source: str, label: str, sink: _Sink, chunk_bytes: int) -> None:
    """Read the stream in chunks, decode the ``traceEvents`` array piece by piece and feed the sink.

    Malformed JSON is an InputError naming the byte offset of the bad token (in the decompressed stream for a
    gzip file), found in about the time of one decode (see :func:`_decode_to_cut`)."""
    where = _where(source, label)
    reader = _Reader(stream, 2 * chunk_bytes + (1 << 20))
    try:
        reader.fill(1 << 20)
        start, array_mode = _event_array_start(reader, where, sink)
        start = _decode_body(reader, start, sink, chunk_bytes)
        if array_mode:
            _decode_array_tail(reader, start, sink)
        else:
            _decode_object_tail(reader, start, sink)
    except _Malformed as exc:
        of = " of the decompressed data" if getattr(stream, "compressed", False) else ""
        raise InputError(source, key="kineto_bad_value",
            values={"where": where, "value": str(exc).replace(_OF, of)}) from None


def _start_text(head: bytes) -> str:
    """How a file that is not JSON starts (:func:`kernelscope.ingest.files.starts_with`): quoted text or hex bytes."""
    text, shown = starts_with(head, 20)
    return shown if text else f"the bytes {shown}"


# --- the head: up to and including '[' of the top-level traceEvents array
def _event_array_start(reader: _Reader, where: str, sink: _Sink) -> tuple[int, bool]:
    """Index in ``reader.buf`` just after the ``[`` that opens the event list, and whether the file is Chrome's
    "JSON array format" (a bare list of events) rather than an object with a ``traceEvents`` key."""
    buf = reader.buf
    lead = 0
    if buf[:min(3, reader.end)] == b"\xef\xbb\xbf":
        lead = 3
    while lead < reader.end and buf[lead] in b" \t\r\n":
        lead += 1
    first = buf[lead:lead + 1] if lead < reader.end else b""
    if first not in (b"{", b"["):
        raise _NotTrace(f"{where}not JSON (starts with {_start_text(buf[lead:min(lead + 20, reader.end)])}); "
                        "expected a PyTorch profiler trace")
    if first == b"[":  # Chrome's "JSON array format": a bare list of events
        return lead + 1, True
    return _trace_events_key(reader, where, sink), False


def _trace_events_key(reader: _Reader, where: str, sink: _Sink) -> int:
    """Index just after the ``[`` of the top-level ``"traceEvents"`` array (a match inside a string or a nested
    object is skipped: the keys before it must decode as the top-level object); the keys before it go to
    ``sink.top``. Reads on until found, up to :data:`HEAD_LIMIT`; gives up after :data:`MAX_MISSES` x 8 matches
    that are not the top-level key. Malformed JSON before the key: :class:`_Malformed`."""
    searched = tried = 0
    while True:
        buf = reader.buf  # (a fill may replace it by a larger one)
        for m in _KEY.finditer(buf, max(0, searched - 64), reader.end):
            tried += 1
            top = _head_keys(buf[:m.start()].rstrip())
            if top is not None:
                sink.top = top
                return m.end()
            if tried >= MAX_MISSES * 8:
                break
        searched = reader.end
        if reader.eof or reader.end > HEAD_LIMIT or tried >= MAX_MISSES * 8:
            keys = _top_keys(buf[:reader.end]) if reader.eof else None
            raise _NotTrace(f"{where}not a Chrome trace: no top-level \"traceEvents\" array"
                            + (f" (top-level keys: {', '.join(keys[:8])})" if keys else ""))
        reader.fill(1 << 22)


def _head_keys(head: bytes) -> _Top | None:
    """The top-level keys in ``head`` (the text before a ``"traceEvents"`` key, right-stripped, from byte 0 of the
    stream), or None when it is not the start of the top-level object (the key is inside a string or a nested
    object: the head is unfinished). A bad byte before the key: :class:`_Malformed`."""
    if head.endswith(b","):
        head = head[:-1] + b"}"
    elif head.endswith(b"{"):
        head = head + b"}"
    else:
        return None
    if head[:3] == b"\xef\xbb\xbf":
        head = b"   " + head[3:]  # a UTF-8 byte-order mark (same length: offsets hold)
    try:
        return _HEAD.decode(head)
    except msgspec.ValidationError:
        return None
    except msgspec.DecodeError as exc:
        if _cut_artifact(exc, len(head) - 1):  # (the '}' put at its end)
            return None
        raise _bad_json(exc, head, 0, "before the event list") from None
    except RecursionError:
        raise _too_deep(0, len(head)) from None


# --- the body: cut at event boundaries, decode each piece (buf[start-1] is always '[', ',' or whitespace)
def _decode_body(reader: _Reader, start: int, sink: _Sink, chunk_bytes: int) -> int:
    """Decode the events of the stream piece by piece until it ends; returns where the undecoded rest (the last
    events and the end of the file) starts in ``reader.buf``. Past :data:`MAX_EVENT_BYTES` without an event
    boundary, :class:`_Malformed`."""
    while True:
        if not reader.eof and reader.end - start < chunk_bytes:
            reader.fill(chunk_bytes)
            continue
        if reader.eof:
            return start
        done = _decode_to_cut(reader, start, sink)
        if done:  # (keeping _ROOM bytes before the '{' of the next event)
            keep = min(done, _ROOM)
            reader.drop(done - keep)
            start = keep
        elif reader.end - start > MAX_EVENT_BYTES:
            _check_piece(b"[" + reader.buf[start:reader.end], reader.dropped + start - 1)
            raise _Malformed(f"no event boundary in the {size_text(reader.end - start)} after byte "
                             f"{reader.dropped + start}{_OF}: an event that large is not a profiler's "
                             "(unbalanced brackets, or a bomb); refusing")
        else:
            reader.fill(chunk_bytes)


def _decode_to_cut(reader: _Reader, start: int, sink: _Sink) -> int:
    """Decode the events from ``buf[start]`` to the first real event boundary past the middle of the buffer and
    feed them to the sink; returns the index of the next event's ``{``, or 0 when no boundary was found.

    A candidate cut inside a string or a nested object leaves the piece unfinished ("truncated", or an error at
    the ``]`` put at the cut), and the next candidate is tried, at most :data:`MAX_MISSES` of them. Any other
    decoding error lies before the cut, in the data itself: it is raised at once (:class:`_Malformed`, with its
    byte offset), never retried."""
    buf = reader.buf
    pos = start + (reader.end - start) // 2
    misses = 0
    for m in _CUT.finditer(buf, pos, reader.end):
        cut = m.start() + 1  # just after '}'
        saved_open, saved_close = buf[start - 1], buf[cut]
        buf[start - 1] = 0x5B  # '['
        buf[cut] = 0x5D  # ']'
        mv = memoryview(buf)
        piece = mv[start - 1:cut + 1]
        try:
            events = _decode_piece(piece)
            error = None
        except msgspec.DecodeError as exc:
            events, error = None, exc
        except RecursionError:
            raise _too_deep(reader.dropped + start, reader.dropped + cut) from None
        if events is not None:
            # The raw ``Input Dims`` values are views of the piece: the sink copies what it keeps, and the views
            # are gone (and the piece released) before buf is resized.
            sink.add(events)
            del events
            piece.release()
            mv.release()
            return m.end() - 1  # the '{' of the next event
        piece.release()
        mv.release()
        # not a real boundary (inside a string or a nested object), or bad data
        buf[start - 1], buf[cut] = saved_open, saved_close
        if not _cut_artifact(error, cut - start + 1):
            raise _bad_json(error, buf[start - 1:cut + 1], reader.dropped + start - 1)
        misses += 1
        if misses >= MAX_MISSES:
            return 0
    return 0


# --- the tail: the last events, the closing ']' and the rest of the top-level object
def _behind(reader: _Reader, start: int, prefix: bytes):
    """``prefix`` followed by the undecoded rest ``buf[start:end]``: written in place over the dropped bytes
    before ``start`` (a view of the buffer) when there is room, else a copy."""
    k = len(prefix)
    if start < k:
        return prefix + reader.buf[start:reader.end]
    reader.buf[start - k:start] = prefix
    return memoryview(reader.buf)[start - k:reader.end]


def _decode_array_tail(reader: _Reader, start: int, sink: _Sink) -> None:
    """The last events of a bare event list, and its closing ``]`` (from ``buf[start]``)."""
    base = reader.dropped + start
    data = _behind(reader, start, b"[")
    try:
        events = _decode_piece(data)
    except msgspec.DecodeError as exc:
        raise _bad_json(exc, data, base - 1, "in the event list") from None
    except RecursionError:
        raise _too_deep(base, base + len(data) - 1) from None
    sink.add(events)


def _decode_object_tail(reader: _Reader, start: int, sink: _Sink) -> None:
    """The last events, the closing ``]`` and the top-level keys after ``traceEvents`` (which fill in those of
    ``sink.top`` that the head did not have), from ``buf[start]``."""
    base = reader.dropped + start
    text = _behind(reader, start, b'{"traceEvents":[')
    shift = base - 16  # byte i of text is byte shift + i of the stream
    last = shift + len(text)
    try:
        tail = _TAIL.decode(text)
    except msgspec.ValidationError:
        try:
            loose = _TAIL_ANY.decode(text)
        except msgspec.DecodeError as exc:
            raise _bad_json(exc, text, shift, "at the end of the trace") from None
        except RecursionError:
            raise _too_deep(base, last) from None
        sink.add(_loose_events(loose.get("traceEvents") or []))
        tail = _TopTail(**{k: loose.get(k) for k in _Top.__struct_fields__})
    except msgspec.DecodeError as exc:
        raise _bad_json(exc, text, shift, "at the end of the trace") from None
    except RecursionError:
        raise _too_deep(base, last) from None
    else:
        sink.add(tail.traceEvents)
    top = sink.top
    for key in _Top.__struct_fields__:
        if getattr(tail, key) is not None and getattr(top, key) is None:
            setattr(top, key, getattr(tail, key))


# ------------------------------------------------------------------------------------------------ errors
#: Stands in a _Malformed message for " of the decompressed data" (filled in by _split_events).
_OF = "\x00of\x00"
_BYTE = re.compile(r"\s*\(byte (\d+)\)\s*$")


def _truncated(exc: Exception | None) -> bool:
    """Whether a decoding error says the input ended early (rather than naming a bad byte)."""
    return exc is not None and "truncated" in str(exc).lower()


def _cut_artifact(exc: Exception | None, close: int) -> bool:
    """Whether the decoding error of a piece cut at a candidate boundary may come from the cut rather than the data:
    the piece ends early ("truncated": the cut is inside a string or a nested value), fails at the ``]`` put at
    the cut (index ``close`` of the piece), or has "trailing characters" (the event list ended before the cut)."""
    msg = str(exc)
    m = _BYTE.search(msg)
    return _truncated(exc) or m is None or int(m.group(1)) >= close or "trailing characters" in msg


def _check_piece(data: bytes, base: int) -> None:
    """Decode ``data`` (events from byte ``base``) only to find a bad byte in it (:class:`_Malformed`)."""
    try:
        _decode_piece(data)
    except msgspec.DecodeError as exc:
        if not _truncated(exc):
            raise _bad_json(exc, data, base) from None
    except RecursionError:
        raise _too_deep(base, base + len(data)) from None


def _bad_json(exc: Exception, data: bytes, base: int, context: str = "") -> _Malformed:
    """The error for a decoding failure of ``data`` (which starts at byte ``base`` of the stream): the byte offset
    of the bad token in the stream and the bytes around it, or "ends early" for a truncated input."""
    msg = str(exc)
    if _truncated(exc):
        return _Malformed(f"malformed JSON {context or 'in the event list'}: the file ends early, at byte "
                          f"{base + len(data)}{_OF}, inside an event or the top-level object; was the file cut "
                          "short while it was written?")
    m = _BYTE.search(msg)
    what = _BYTE.sub("", msg).removeprefix("JSON is malformed: ")
    if m is None:
        return _Malformed(f"malformed JSON {context or 'in the event list'} ({what})")
    at = int(m.group(1))
    near = "".join(c if c.isprintable() else " "
                   for c in bytes(data[max(0, at - 24):at + 16]).decode("utf-8", "replace"))
    return _Malformed(f"malformed JSON at byte {base + at}{_OF}: {what}, near {' '.join(near.split())!r}")


def _too_deep(first: int, last: int) -> _Malformed:
    """The error for JSON nested deeper than the decoder follows, between bytes ``first`` and ``last``."""
    return _Malformed(f"JSON nested too deeply (more than about {sys.getrecursionlimit()} levels) between byte "
                      f"{first} and byte {last}{_OF}; no profiler writes that")


# ------------------------------------------------------------------------------------------------ pieces
def _decode_piece(data) -> list:
    try:
        return _EVENTS.decode(data)
    except msgspec.ValidationError:
        return _loose_events(_EVENTS_ANY.decode(data))


#: ``args`` keys decoded as raw JSON text (msgspec.convert cannot make a Raw) -> their _Args attribute.
_RAW_KEYS = {"Input Dims": "input_dims", "Input type": "input_type"}


def _loose_events(items: list) -> list:
    """Events of a piece whose shape the typed decoder refused (e.g. ``args`` that is not an object)."""
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        args = item.get("args")
        typed_args = None
        if isinstance(args, dict):
            raw = {k: msgspec.Raw(msgspec.json.encode(args.pop(k))) for k in _RAW_KEYS if k in args}
            try:
                typed_args = msgspec.convert(args, _Args, strict=False)
                for k, v in raw.items():
                    setattr(typed_args, _RAW_KEYS[k], v)
            except (msgspec.ValidationError, RecursionError):
                typed_args = None
        out.append(_EventTyped(ph=item.get("ph"), cat=item.get("cat"), name=item.get("name"), pid=item.get("pid"),
                               tid=item.get("tid"), ts=item.get("ts"), dur=item.get("dur"), args=typed_args))
    return out


def _top_keys(data: bytes) -> list[str] | None:
    try:
        obj = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    return [str(k) for k in obj] if isinstance(obj, dict) else None

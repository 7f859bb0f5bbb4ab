"""RESP3, the Redis serialization protocol, as dualio writes commands and reads replies
(no I/O).

- :func:`encode_command`: a command as the server reads it, an array of bulk strings.
- :class:`ReplyReader`: bytes in, split anywhere, out come whole top-level replies, each
  as its type byte and its exact bytes; bounded, and a :class:`ProtocolError` on garbage.
- :func:`parse`: one whole reply's bytes to its Python value.

Two passes. The reader finds where each reply ends and checks every line of it, but
builds no value: the core carries an answer as bytes until its request's ``decode``
reads it, so the value is built by :func:`parse` when the answer is decoded. A reply is
read twice, once as it arrives and once as it is decoded; in exchange, the reader keeps
no Python object per element, and a reply nobody reads (a given-up call's) is never
built at all. A bulk string's payload is not looked at by the reader: it is skipped by
its length, so a bulk string of N bytes costs O(N) however its bytes are split.

Bounds (a reader's keyword arguments; each is checked as soon as its header arrives,
before the bytes it announces are buffered):

=================  ================  ==========================================
``max_bulk``       512 MiB           bytes in one bulk string, bulk error or
                                     verbatim string, as Redis's own
                                     ``proto-max-bulk-len`` (:class:`FrameTooLarge`)
``max_reply``      512 MiB           bytes in one reply, its elements and theirs
                                     included: an aggregate is bounded by its
                                     bytes, not by how many elements it has
                                     (:class:`FrameTooLarge`)
``max_depth``      64                aggregates open inside one another
                                     (:class:`ProtocolError`)
``max_line``       64 KiB            bytes in one line: a simple string, a
                                     simple error, a number, a header
                                     (:class:`ProtocolError`)
=================  ================  ==========================================

Values: a simple string, bulk string or verbatim string is ``bytes`` (a verbatim
string's payload without its ``txt:`` format); an integer or big number ``int``; a
double ``float`` (``inf``, ``-inf``, ``nan`` included); a boolean ``bool``; a null,
``$-1`` and ``*-1`` ``None``; an array or push ``list``; a map ``dict``; a set ``set``.
A simple or bulk error is an :class:`ErrorReply` value, returned, never raised: a
reply that *is* an error is the protocol's to turn into an exception, and one inside an
array (``EXEC``'s) is one element among others. A set's elements and a map's keys are
made hashable: an array among them becomes a ``tuple``, a set a ``frozenset``, a map a
``frozenset`` of its ``(key, value)`` pairs. An attribute is read and dropped: the
value it annotates is what is returned.

Streamed strings and aggregates (``$?``, ``*?``) are not read: Redis sends none, and
their length is a :class:`ProtocolError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dualio_transports.wire.errors import FrameTooLarge, ProtocolError

MAX_BULK = 512 * 1024 * 1024
MAX_REPLY = 512 * 1024 * 1024
_LEAST_ELEMENT = 3  # bytes: the smallest value, a null (_CRLF)
MAX_DEPTH = 64
MAX_LINE = 64 * 1024

Value = Any
"""A reply's Python value (see the module's docstring for which type each RESP3 type is)."""

SIMPLE_STRING, SIMPLE_ERROR, INTEGER, NULL, BOOLEAN, DOUBLE, BIG_NUMBER = b"+-:_#,("
BULK_STRING, BULK_ERROR, VERBATIM_STRING = b"$!="
ARRAY, SET, PUSH, MAP, ATTRIBUTE = b"*~>%|"
TYPE_NAMES = {
    SIMPLE_STRING: "simple string", SIMPLE_ERROR: "simple error", INTEGER: "integer",
    NULL: "null", BOOLEAN: "boolean", DOUBLE: "double", BIG_NUMBER: "big number",
    BULK_STRING: "bulk string", BULK_ERROR: "bulk error", VERBATIM_STRING: "verbatim string",
    ARRAY: "array", SET: "set", PUSH: "push", MAP: "map", ATTRIBUTE: "attribute",
}
"""Every RESP3 type byte, and its name."""
ERRORS = frozenset({SIMPLE_ERROR, BULK_ERROR})
_BULKS = frozenset({BULK_STRING, BULK_ERROR, VERBATIM_STRING})
_AGGREGATES = frozenset({ARRAY, SET, PUSH, MAP, ATTRIBUTE})
_PAIRED = frozenset({MAP, ATTRIBUTE})
_ONE_LINE = frozenset({SIMPLE_STRING, SIMPLE_ERROR, INTEGER, NULL, BOOLEAN, DOUBLE, BIG_NUMBER})
_NULLABLE = frozenset({BULK_STRING, ARRAY})  # RESP2's nulls, $-1 and *-1
_CR = 13
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_DOUBLE = re.compile(rb"[+-]?(?:inf|nan|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)")
_INTEGER_DIGITS = 20  # a signed 64-bit integer's


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """An error the server sent as a value (a simple or bulk error)."""

    text: str

    @property
    def code(self) -> str:
        """The error's first word when it is a code (``ERR``, ``WRONGTYPE``), else ``""``."""
        first = self.text.partition(" ")[0]
        return first if first.isupper() else ""


def encode_command(*args: bytes | str | int | float) -> bytes:
    """A command as an array of bulk strings: ``str`` as UTF-8, ``int`` and ``float`` as
    their decimal text (``repr``'s, so ``inf`` and ``1e+16`` too; a subclass's, an
    ``IntEnum`` say, as its number's). Anything else, a ``bool`` included, is a TypeError."""
    name: Any
    data: Any
    count = len(args)
    if count == 2 and args[0].__class__ is str:  # a name and a key, the commonest command
        name, data = args
        try:
            head = _HEADS[name][2]
        except KeyError:
            head = _heads(name)[2]
        cls = data.__class__
        if cls is str:
            data = data.encode()
        elif cls is not bytes:
            data = _argument(data)
        size = len(data)
        return b"".join((head, _SIZES[size] if size < _SIZED else b"$%d\r\n" % size, data, b"\r\n"))
    if 0 < count < _HEAD_ARGS and args[0].__class__ is str:
        name = args[0]
        try:
            head = _HEADS[name][count]
        except KeyError:
            head = _heads(name)[count]
        parts = [head]
        args = args[1:]
    else:
        parts = [b"*%d\r\n" % count]
    append = parts.append
    for data in args:
        cls = data.__class__
        if cls is str:
            data = data.encode()
        elif cls is not bytes:
            data = _argument(data)
        size = len(data)
        append(_SIZES[size] if size < _SIZED else b"$%d\r\n" % size)
        append(data)
        append(b"\r\n")
    return b"".join(parts)


_SIZED = 256
_SIZES = tuple(b"$%d\r\n" % size for size in range(_SIZED))
"""A bulk string's header, by its length."""
BULK_LENGTHS = {header: size for size, header in enumerate(_SIZES)} | {b"$-1\r\n": -1}
"""A bulk string's length by its header, for lengths under 256 (-1: RESP2's null)."""
_HEAD_ARGS = 8
_HEADS: dict[str, tuple[bytes, ...]] = {}
"""For a command's name: its first bytes (the array's header, then the name), by how
many arguments the command has, name included (up to ``_HEAD_ARGS``)."""
_MAX_HEADS = 1024  # names are the program's: a few dozen, unless it makes them up


def _heads(name: str) -> tuple[bytes, ...]:
    data = name.encode()
    heads = tuple(b"*%d\r\n$%d\r\n%b\r\n" % (count, len(data), data) for count in range(_HEAD_ARGS))
    if len(_HEADS) < _MAX_HEADS:
        _HEADS[name] = heads
    return heads


def _argument(arg: object) -> bytes:
    """An argument that is not exactly a ``str`` or ``bytes``, as :func:`encode_command` sends it."""
    if isinstance(arg, bytes):
        return arg
    if isinstance(arg, str):
        return arg.encode()
    if isinstance(arg, bool):
        raise TypeError("a command argument cannot be a bool: say b'1' or b'0'")
    if isinstance(arg, int):
        return int.__repr__(arg).encode()
    if isinstance(arg, float):
        return float.__repr__(arg).encode()
    raise TypeError(f"a command argument is bytes, str, int or float, not {type(arg).__name__}")


def _length(kind: int, line: bytes) -> int:
    """A bulk string's or an aggregate's length; -1 for RESP2's null."""
    if line.isdigit() and len(line) < _INTEGER_DIGITS:
        return int(line)
    if line == b"-1" and kind in _NULLABLE:
        return -1
    raise ProtocolError(f"a {TYPE_NAMES[kind]} with a bad length: {line[:40]!r}")


def _bounded_length(kind: int, line: bytes, bound: int, unit: str) -> int:
    """:func:`_length`, refused over ``bound`` before what it announces arrives."""
    length = _length(kind, line)
    if length > bound:
        raise FrameTooLarge(f"a {TYPE_NAMES[kind]} of {length} {unit} exceeds the maximum of {bound}")
    return length


def _simple(kind: int, line: bytes) -> Value:
    """The value of a one-line type."""
    if kind in (SIMPLE_STRING, SIMPLE_ERROR):
        if b"\r" in line:
            raise ProtocolError(f"a {TYPE_NAMES[kind]} line with a CR in it")
        return line if kind == SIMPLE_STRING else ErrorReply(line.decode(errors="replace"))
    if kind == INTEGER:
        if _INTEGER.fullmatch(line) and len(line) <= _INTEGER_DIGITS:
            return int(line)
    elif kind == BIG_NUMBER:
        if _INTEGER.fullmatch(line):
            try:
                return int(line)
            except ValueError:  # more digits than Python converts
                raise ProtocolError(f"a big number of {len(line)} digits") from None
    elif kind == NULL:
        if not line:
            return None
    elif kind == BOOLEAN:
        if line in (b"t", b"f"):
            return line == b"t"
    elif kind == DOUBLE:
        if _DOUBLE.fullmatch(line):
            return float(line)
    else:
        raise ProtocolError(f"unknown RESP3 type byte {bytes([kind])!r}")
    raise ProtocolError(f"a {TYPE_NAMES[kind]} that is not one: {line[:40]!r}")


def _bulk(kind: int, data: bytes) -> Value:
    if kind == BULK_ERROR:
        return ErrorReply(data.decode(errors="replace"))
    if kind == VERBATIM_STRING:
        return data[4:]
    return data


def _check_verbatim(data: bytes | bytearray) -> None:
    if len(data) < 4 or data[3] != 0x3A:  # b":"
        raise ProtocolError(f"a verbatim string without its format: {bytes(data[:8])!r}")


def _hashable(value: Value) -> Value:
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, dict):
        return frozenset((key, _hashable(item)) for key, item in value.items())
    return value


class ReplyReader:
    """Turns a byte stream, split anywhere, into whole top-level replies:
    ``(type byte, exact bytes)``. A top-level attribute is dropped, bytes and all: the
    reply it annotates is the one returned. After an error the reader stays broken.

    The reader keeps its place: the line it waits for the end of is searched from where
    the last search stopped, and a bulk payload is skipped by its length. Between
    replies, a bulk string or a one-line reply that arrived whole is read where it lies
    in the bytes fed, without going through the buffer.
    """

    __slots__ = (
        "_broken", "_buffer", "_bulk_end", "_bulk_kind", "_line_from", "_open", "_pos", "_start", "_type",
        "max_bulk", "max_depth", "max_line", "max_reply",
    )

    def __init__(
        self,
        *,
        max_bulk: int = MAX_BULK,
        max_reply: int = MAX_REPLY,
        max_depth: int = MAX_DEPTH,
        max_line: int = MAX_LINE,
    ) -> None:
        self.max_bulk = min(max_bulk, max_reply)  # a bulk string alone is a whole reply
        self.max_reply = max_reply
        self.max_depth = max_depth
        self.max_line = max_line
        self._buffer = bytearray()
        self._broken: ProtocolError | None = None
        self._start = 0  # where the reply under way begins in the buffer
        self._pos = 0  # where the next line, or the bulk payload under way, begins
        self._line_from = 0  # where to look on for the end of that line
        self._bulk_end = 0  # while a bulk payload arrives: where its CRLF ends
        self._bulk_kind = BULK_STRING
        self._type = 0  # the type byte of the reply under way
        self._open: list[list[int]] = []
        """The aggregates open: ``[elements still to come, 1 if an attribute]``, outermost first."""

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet form a whole reply."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        if self._broken is not None:
            if isinstance(self._broken, FrameTooLarge):
                self._broken.before = ()  # routed when it was first raised
            raise self._broken
        if data.__class__ is not bytes:
            data = bytes(data)
        replies: list[tuple[int, bytes]] = []
        pos = 0
        try:
            if self._buffer:
                pos = self._finish(data, replies)
                if pos < 0:
                    return replies
            # Anything but a whole bulk string or one-line reply is read through the buffer,
            # from its first byte on.
            size = len(data)
            line_end = self.max_line + 2
            max_bulk = self.max_bulk
            while pos < size:
                kind = data[pos]
                newline = data.find(b"\n", pos)
                if newline < 0 or newline - pos > line_end:
                    break
                if kind == BULK_STRING:
                    end = newline + 1
                    length = BULK_LENGTHS.get(data[pos:end])
                    if length is None:
                        if data[newline - 1] != _CR or newline - pos > _INTEGER_DIGITS + 1:
                            break
                        header = data[pos + 1 : newline - 1]
                        if not header.isdigit():
                            break
                        length = int(header)
                    if length >= 0:
                        end += length + 2
                        if length > max_bulk or end > size or data[end - 1] != 10 or data[end - 2] != _CR:
                            break
                elif kind in _ONE_LINE:
                    if data[newline - 1] != _CR:
                        break
                    line = data[pos + 1 : newline - 1]
                    if kind != SIMPLE_STRING or b"\r" in line:
                        _simple(kind, line)
                    end = newline + 1
                else:
                    break
                replies.append((kind, data[pos:end]))
                pos = end
            else:
                return replies
            self._buffer += data[pos:] if pos else data
            self._scan(replies, False)
        except ProtocolError as exc:
            self._broken = exc
            self._buffer.clear()
            if isinstance(exc, FrameTooLarge):
                exc.before = replies  # type: ignore[assignment]  # (kind, raw) pairs: the protocol makes them messages
            raise
        self._trim()
        return replies

    def _finish(self, data: bytes, replies: list[tuple[int, bytes]]) -> int:
        """Read on the reply the buffer holds the start of: where in ``data`` the bytes after
        it begin, or -1 while it is not whole yet."""
        buffer = self._buffer
        before = len(buffer)
        buffer += data
        if not self._scan(replies, True):
            self._trim()
            return -1
        pos = self._start - before
        buffer.clear()
        self._start = self._pos = self._line_from = 0
        return pos

    def _trim(self) -> None:
        start = self._start
        if start:
            del self._buffer[:start]
            self._start = 0
            self._pos -= start
            self._line_from -= start
            if self._bulk_end:
                self._bulk_end -= start

    def _scan(self, replies: list[tuple[int, bytes]], once: bool) -> bool:
        """Read the buffer on; with ``once``, only until a whole reply is read (whether
        one was)."""
        buffer = self._buffer
        size = len(buffer)
        pos = self._pos
        while pos < size:
            bulk_end = self._bulk_end
            if bulk_end:
                if size < bulk_end:
                    break
                if buffer[bulk_end - 2 : bulk_end] != b"\r\n":
                    raise ProtocolError(f"a {TYPE_NAMES[self._bulk_kind]} not followed by CRLF")
                if self._bulk_kind == VERBATIM_STRING:
                    _check_verbatim(buffer[pos : pos + 4])
                self._bulk_end = 0
                pos = self._line_from = bulk_end
                whole = self._element_done(pos)
            else:
                kind = buffer[pos]
                if kind not in TYPE_NAMES:
                    raise ProtocolError(f"unknown RESP3 type byte {bytes([kind])!r}")
                newline = buffer.find(b"\n", self._line_from)
                if newline < 0:
                    if size - pos > self.max_line + 2:
                        raise ProtocolError(f"a {TYPE_NAMES[kind]} line longer than {self.max_line} bytes")
                    self._line_from = size
                    break
                if newline - pos < 2 or buffer[newline - 1] != _CR:
                    raise ProtocolError(f"a {TYPE_NAMES[kind]} line not ended by CRLF")
                if newline - pos - 2 > self.max_line:
                    raise ProtocolError(f"a {TYPE_NAMES[kind]} line longer than {self.max_line} bytes")
                line = bytes(buffer[pos + 1 : newline - 1])
                if not self._open and kind != ATTRIBUTE:
                    self._type = kind
                pos = self._line_from = newline + 1
                whole = self._header(kind, line, pos)
            if whole:
                replies.append((self._type, bytes(buffer[self._start : pos])))
                self._start = pos
                if once:
                    self._pos = pos
                    return True
        self._pos = pos
        return False

    def _header(self, kind: int, line: bytes, pos: int) -> bool:
        """Read one line; whether it ended a top-level reply."""
        if pos - self._start > self.max_reply:
            raise FrameTooLarge(f"a reply of over {self.max_reply} bytes (max_reply)")
        if kind in _BULKS:
            length = _bounded_length(kind, line, self.max_bulk, "bytes")
            if length < 0:
                return self._element_done(pos)
            self._bulk_kind = kind
            self._bulk_end = pos + length + 2
            if self._bulk_end - self._start > self.max_reply:
                raise FrameTooLarge(f"a reply of over {self.max_reply} bytes (max_reply)")
            return False
        if kind in _AGGREGATES:
            count = _bounded_length(kind, line, self.max_reply // _LEAST_ELEMENT, "elements")
            if self._open and pos - self._start + count * _LEAST_ELEMENT > self.max_reply:
                raise FrameTooLarge(f"a reply of over {self.max_reply} bytes (max_reply)")
            if count < 0:
                return self._element_done(pos)
            if len(self._open) >= self.max_depth:
                raise ProtocolError(f"aggregates nested deeper than {self.max_depth}")
            if kind in _PAIRED:
                count *= 2
            if count:
                self._open.append([count, kind == ATTRIBUTE])
                return False
            if kind == ATTRIBUTE:  # an empty one annotates the next value
                if not self._open:
                    self._start = pos
                return False
            return self._element_done(pos)
        _simple(kind, line)
        return self._element_done(pos)

    def _element_done(self, pos: int) -> bool:
        """One value ended at ``pos``; whether it was a whole top-level reply."""
        open_ = self._open
        while open_:
            innermost = open_[-1]
            innermost[0] -= 1
            if innermost[0]:
                return False
            open_.pop()
            if innermost[1]:  # an attribute is no value: the one it annotates follows
                if not open_:
                    self._start = pos  # a top-level attribute's bytes are dropped
                return False
        return True


def parse(raw: bytes) -> Value:
    """The value of one whole reply (a :class:`ReplyReader`'s bytes), read again; a
    ProtocolError if ``raw`` is not exactly one reply."""
    value, end = _parse_at(raw, 0, 0)
    if end != len(raw):
        raise ProtocolError(f"{len(raw) - end} bytes after a whole reply")
    return value


def parse_all(raw: bytes) -> list[Value]:
    """The values of whole replies one after another (a batch's answers, joined). A bulk
    string of under 256 bytes, most replies in a batch, is read here; the rest by
    :func:`_parse_at`."""
    values: list[Value] = []
    append = values.append
    lengths = BULK_LENGTHS
    pos = 0
    size = len(raw)
    while pos < size:
        if raw[pos] == BULK_STRING:
            start = raw.find(b"\n", pos) + 1
            length = lengths.get(raw[pos:start])
            if length is not None:
                if length < 0:
                    append(None)
                    pos = start
                    continue
                end = start + length
                if raw[end : end + 2] == b"\r\n":
                    append(raw[start:end])
                    pos = end + 2
                    continue
        value, pos = _parse_at(raw, pos, 0)
        append(value)
    return values


def _parse_at(raw: bytes, pos: int, depth: int) -> tuple[Value, int]:
    while True:
        newline = raw.find(b"\n", pos)
        if newline - pos < 2 or raw[newline - 1] != _CR:
            raise ProtocolError("a reply cut short, or a line not ended by CRLF")
        kind = raw[pos]
        line = raw[pos + 1 : newline - 1]
        pos = newline + 1
        if kind in _BULKS:
            length = _length(kind, line)
            if length < 0:
                return None, pos
            end = pos + length
            if raw[end : end + 2] != b"\r\n":
                raise ProtocolError(f"a {TYPE_NAMES[kind]} cut short, or not followed by CRLF")
            data = raw[pos:end]
            if kind == VERBATIM_STRING:
                _check_verbatim(data)
            return _bulk(kind, data), end + 2
        if kind not in _AGGREGATES:
            return _simple(kind, line), pos
        count = _length(kind, line)
        if count < 0:
            return None, pos
        if depth >= MAX_DEPTH:
            raise ProtocolError(f"aggregates nested deeper than {MAX_DEPTH}")
        items = []
        for _ in range(count * 2 if kind in _PAIRED else count):
            item, pos = _parse_at(raw, pos, depth + 1)
            items.append(item)
        if kind == ATTRIBUTE:
            continue  # dropped: the value it annotates follows
        if kind == MAP:
            return {_hashable(key): value for key, value in zip(items[::2], items[1::2], strict=True)}, pos
        if kind == SET:
            return {_hashable(item) for item in items}, pos
        return items, pos

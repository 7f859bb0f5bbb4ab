"""memcached's text protocol as a dualio wire: requests out, replies in, no I/O.

Replies come in the order requests were written and name no request. A retrieval's reply
is a block (``VALUE`` lines, each with its data, then ``END``); every other reply is one
line. Told which request each reply answers (``expect``), the decoder checks the reply's
shape, so a reply to a ``noreply`` request (which expects none) fails the connection
instead of reaching the next caller. Both faces import this module: ``Item`` is one type.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, ClassVar, NamedTuple

from dualio.toolkit import (
    IN_ORDER,
    CallKind,
    FrameTooLarge,
    InOrderProtocol,
    Message,
    ProtocolError,
    RemoteError,
)

BLOCK, LINE, ERROR = "block", "line", "error"
MAX_KEY = 250
MAX_LINE = 2048
ERRORS = (b"ERROR", b"CLIENT_ERROR", b"SERVER_ERROR")
RETRIEVALS = frozenset({"get", "gets", "gat", "gats"})
_NOT_IN_A_KEY = re.compile(rb"[\x00-\x20\x7f]")


class Item(NamedTuple):
    """A value as ``gets`` reads it: its bytes, its flags, and its CAS token."""

    value: bytes
    flags: int
    cas: int


class MemcacheError(RemoteError):
    """memcached answered ``ERROR``, ``CLIENT_ERROR ...`` or ``SERVER_ERROR ...``."""


def key_bytes(key: str | bytes) -> bytes:
    """A key as sent: 1 to 250 bytes, no spaces or control characters (ValueError)."""
    data = key.encode() if isinstance(key, str) else key
    if not isinstance(data, bytes):
        raise TypeError(f"a key is a str or bytes, not {type(key).__name__}")
    if not 0 < len(data) <= MAX_KEY or (not data.isalnum() and _NOT_IN_A_KEY.search(data)):
        raise ValueError(f"a memcached key is 1-250 bytes with no spaces or control characters: {key!r}")
    return data


def parse_items(block: bytes) -> dict[bytes, Item]:
    """The items of a retrieval's block, by key."""
    items: dict[bytes, Item] = {}
    pos = 0
    while pos < len(block):
        eol = block.index(b"\r\n", pos)
        _, key, flags, size, *cas = block[pos:eol].split(b" ")
        start = eol + 2
        items[key] = Item(block[start : start + int(size)], int(flags), int(cas[0]) if cas else 0)
        pos = start + int(size) + 2
    return items


class Decoder:
    """Bytes in, replies out, within ``max_value`` bytes a value and ``MAX_LINE`` a line."""

    large = None

    def __init__(self, max_value: int) -> None:
        self._max_value = max_value
        self._buffer = b""
        self.expected: deque[str] = deque()  # the shape of reply each request written waits for

    def feed(self, data: bytes) -> list[Message]:
        buffer = self._buffer + data if self._buffer else data
        replies: list[Message] = []
        pos = 0
        while True:
            eol = buffer.find(b"\r\n", pos)
            if eol < 0:
                if len(buffer) - pos > MAX_LINE:
                    raise ProtocolError(f"a reply line longer than {MAX_LINE} bytes")
                break
            if buffer.startswith(b"VALUE ", pos):
                try:
                    end = self._block_end(buffer, pos)
                except FrameTooLarge as exc:
                    exc.before = replies  # these reach their calls; the large one's fails alone
                    raise
                if end < 0:
                    break
                kind, payload = BLOCK, buffer[pos : end - 5]  # without its END
            elif eol - pos == 3 and buffer.startswith(b"END", pos):
                end, kind, payload = eol + 2, BLOCK, b""
            else:
                end, payload = eol + 2, buffer[pos:eol]
                kind = ERROR if payload.startswith(ERRORS) else LINE
            if not self.expected:
                raise ProtocolError(f"a {kind} reply to no request (one sent with noreply was answered?)")
            shape = self.expected.popleft()
            if kind is not shape and kind is not ERROR:
                raise ProtocolError(f"a {kind} reply where a {shape} was due: out of step with the requests")
            replies.append((kind, IN_ORDER, payload))
            pos = end
        self._buffer = buffer[pos:]
        return replies

    def _block_end(self, buffer: bytes, pos: int) -> int:
        """Where the block at ``pos`` ends (after its ``END``), or -1 while it is incomplete."""
        while True:
            eol = buffer.find(b"\r\n", pos)
            if eol < 0:
                return -1
            if eol - pos == 3 and buffer.startswith(b"END", pos):
                return eol + 2
            fields = buffer[pos:eol].split(b" ")
            if fields[0] != b"VALUE" or len(fields) not in (4, 5) or not fields[3].isdigit():
                raise ProtocolError(f"a malformed VALUE line: {buffer[pos:eol][:80]!r}")
            size = int(fields[3])
            if size > self._max_value:
                raise FrameTooLarge(f"a value of {size} bytes, over max_value={self._max_value}")
            pos = eol + 2 + size + 2
            if len(buffer) < pos:
                return -1
            if buffer[pos - 2 : pos] != b"\r\n":
                raise ProtocolError("a value's data does not end with CRLF")

    def room(self) -> memoryview | None:
        return None

    def received(self, count: int) -> list[Message]:
        raise AssertionError("this decoder takes no large messages")


class MemcacheProtocol(InOrderProtocol):
    """One connection's protocol state: a dualio ``WireProtocol``."""

    error_kind = ERROR
    accepts: ClassVar[dict[CallKind, dict[Any, bool]]] = {
        CallKind.UNARY: {BLOCK: True, LINE: True, ERROR: True},
        CallKind.PING: {LINE: True, ERROR: True},
        CallKind.HANDSHAKE: {},
    }

    def __init__(self, max_value: int = 1024 * 1024) -> None:
        self.decoder = Decoder(max_value)
        self._shapes: dict[int, str] = {}  # the reply each request waits for, by key, until written

    def request(self, key: int, method: str, args: bytes) -> bytes:
        if args.startswith(b" noreply\r\n", args.index(b"\r\n") - 8):
            return args  # it expects no reply, and takes no place in the order
        self._shapes[key] = BLOCK if method in RETRIEVALS else LINE
        return args

    def probe(self, key: int) -> bytes:
        self._shapes[key] = LINE
        return b"version\r\n"

    def expect(self, key: int) -> None:
        self.decoder.expected.append(self._shapes.pop(key))

    def unsent(self, key: int) -> None:
        self._shapes.pop(key, None)

    def decode_error(self, key: int, payload: bytes) -> MemcacheError:
        text = payload.decode(errors="replace")
        code = text.split(" ", 1)[0]
        return MemcacheError(text, code=code, retryable=False)

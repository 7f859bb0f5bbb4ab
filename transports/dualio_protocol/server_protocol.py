"""Server side of one connection as a state machine (no I/O).

``receive`` turns bytes into the events the server must act on and queues any
bytes the protocol itself must answer with (handshake replies, connection
errors) for ``take_output``. Once ``closing`` is true the server writes what is
queued and closes the connection; from then on every answer method returns
``b""``, so nothing can follow a connection-level ERROR, a CLOSE either way, or a
lost connection.

Limits enforced here, for every server model: before the handshake completes a
frame may be at most ``MAX_HELLO_FRAME`` bytes (a HELLO with the longest token),
so an unauthenticated peer can make the server buffer about a kilobyte, not a
whole maximum-size frame; after WELCOME the configured maximum applies.

Errors are counted here, once each: every ERROR frame this object encodes, and
every connection the server gives up on without one (``abort``), call
``on_error`` exactly once. Server models never count errors themselves.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import (
    ERROR_CODE,
    HELLO,
    MAX_HELLO_FRAME,
    WELCOME,
    encode_error,
)
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    MIN_FRAME_LENGTH,
    PROTOCOL_VERSION,
    FrameDecoder,
    FrameKind,
    encode_frame,
)
from dualio_transports.wire.errors import ErrorCode, FrameTooLarge, ProtocolError

LENGTH_SIZE = 4
_RESPONSE = FrameKind.RESPONSE


# One of these per request read: slotted, and not frozen, since a frozen dataclass's
# __init__ (object.__setattr__ per field) costs three times as much. Not mutated.
@dataclass(slots=True)
class RequestReceived:
    id: int
    method: str
    args: bytes


@dataclass(slots=True)
class CancelReceived:
    id: int


Event = RequestReceived | CancelReceived


class ServerProtocol:
    def __init__(
        self, *, token: str | None = None, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        on_error: Callable[[], object] | None = None,
    ) -> None:
        self._decoder = FrameDecoder(max_frame_size)
        self.max_frame_size = max_frame_size
        self.hello_limit = min(MAX_HELLO_FRAME, max_frame_size)
        """The largest frame accepted before the handshake completes."""
        self._decoder.max_frame_size = self.hello_limit
        self._first = bytearray()  # the first frame, until it is whole (at most hello_limit + 4)
        self._token = token
        self._on_error = on_error
        self.handshaken = False
        self.closing = False
        self.close_reason = ""
        self._output = bytearray()
        self.open_ids: set[int] = set()

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete frame received so far."""
        return len(self._first) + self._decoder.buffered

    def take_output(self) -> bytes:
        out = bytes(self._output)
        self._output.clear()
        return out

    def _error(self, rid: int, code: ErrorCode, message: str) -> bytes:
        """The one place an ERROR frame is made, and so counted."""
        if self._on_error is not None:
            self._on_error()
        return encode_error(rid, code, message)

    def fail_connection(self, code: ErrorCode, message: str) -> None:
        """Queue ERROR id 0 and close: nothing is sent after it."""
        if self.closing:
            return
        self._output += self._error(0, code, message)
        self.closing = True
        self.close_reason = f"{code.name}: {message}"

    def abort(self, reason: str) -> None:
        """The server closes the connection without a word (handshake deadline missed,
        TLS failed, an internal error): counted as one error, unless already closing."""
        if self.closing:
            return
        if self._on_error is not None:
            self._on_error()
        self.closing = True
        self.close_reason = reason

    def connection_lost(self) -> None:
        """The byte stream is gone: nothing more is sent or counted."""
        if not self.closing:
            self.closing = True
            self.close_reason = "connection lost"

    def receive(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        if self.closing:
            return events
        if not self.handshaken:
            rest = self._receive_first(data, events)
            if rest and self.handshaken and not self.closing:
                self._receive_frames(rest, events)
            return events
        self._receive_frames(data, events)
        return events

    def _receive_first(self, data: bytes, events: list[Event]) -> bytes:
        """Buffer the first frame under ``hello_limit``; returns the bytes after it.

        Only the first frame is held back: it must be a HELLO, and whatever follows it
        is judged by the limit the HELLO's outcome sets (a client may pipeline requests
        right behind its HELLO).
        """
        first = self._first
        first += data
        if len(first) < LENGTH_SIZE:
            return b""
        length = int.from_bytes(first[:LENGTH_SIZE], "big")
        end = LENGTH_SIZE + length
        if end > len(first) and MIN_FRAME_LENGTH <= length <= self.hello_limit:
            return b""  # an incomplete frame of a valid size: wait (at most ~1 KiB held)
        # the frame is whole, or its length is invalid and the decoder says so at once,
        # as it does after the handshake
        frame, rest = bytes(first[:end]), bytes(first[end:])
        self._first = bytearray()
        self._receive_frames(frame, events)
        return rest

    def _receive_frames(self, data: bytes, events: list[Event]) -> None:
        try:
            frames = self._decoder.feed(data)
        except FrameTooLarge as exc:
            self.fail_connection(ErrorCode.FRAME_TOO_LARGE, str(exc))
            return
        except ProtocolError as exc:
            self.fail_connection(ErrorCode.BAD_FRAME, str(exc))
            return
        for frame in frames:
            kind, rid = frame.kind, frame.id
            if kind is FrameKind.HELLO:
                self._hello(frame.payload)
            elif not self.handshaken:
                self.fail_connection(ErrorCode.NOT_READY, f"{kind.name} before HELLO")
            elif kind is FrameKind.REQUEST:
                if rid == 0 or rid in self.open_ids:
                    self.fail_connection(ErrorCode.BAD_FRAME, f"request id {rid} is in use")
                else:
                    self._request(rid, frame.payload, events)
            elif kind is FrameKind.CANCEL:
                if rid in self.open_ids:
                    events.append(CancelReceived(rid))
            elif kind is FrameKind.PING:
                if rid == 0 or rid in self.open_ids:
                    self.fail_connection(ErrorCode.BAD_FRAME, f"ping id {rid} is in use")
                else:
                    self._output += encode_frame(FrameKind.PONG, rid, frame.payload)
            elif kind is FrameKind.CLOSE:
                self.closing = True
                self.close_reason = "client closed"
            else:
                self.fail_connection(ErrorCode.BAD_FRAME, f"client sent a {kind.name} frame")
            if self.closing:
                break

    def _hello(self, payload: bytes) -> None:
        if self.handshaken:
            self.fail_connection(ErrorCode.BAD_FRAME, "second HELLO")
            return
        if len(payload) < HELLO.size:
            self.fail_connection(ErrorCode.BAD_FRAME, "HELLO without a version")
            return
        (version,) = HELLO.unpack_from(payload)
        if version != PROTOCOL_VERSION:
            self.fail_connection(
                ErrorCode.UNSUPPORTED_VERSION,
                f"client speaks version {version}, server speaks {PROTOCOL_VERSION}",
            )
            return
        token = payload[HELLO.size :]
        if self._token is not None and not hmac.compare_digest(token, self._token.encode()):
            self.fail_connection(ErrorCode.UNAUTHORIZED, "missing or wrong token")
            return
        self.handshaken = True
        self._decoder.max_frame_size = self.max_frame_size
        welcome = WELCOME.pack(PROTOCOL_VERSION, self.max_frame_size)
        self._output += encode_frame(FrameKind.WELCOME, 0, welcome)

    def _request(self, rid: int, payload: bytes, events: list[Event]) -> None:
        try:
            method, args = methods.decode_request(payload)
        except methods.BadArguments as exc:
            self._output += self._error(rid, ErrorCode.BAD_ARGUMENTS, str(exc))
            return
        self.open_ids.add(rid)
        events.append(RequestReceived(rid, method, args))

    # -- answers: each returns the bytes to write, b"" once closing ------------

    def respond(self, rid: int, payload: bytes) -> bytes:
        self.open_ids.discard(rid)
        if self.closing:
            return b""
        length = MIN_FRAME_LENGTH + len(payload)
        if length <= self.max_frame_size:  # encode_frame inlined: the id came from a REQUEST
            return HEADER.pack(length, _RESPONSE, rid) + payload
        try:
            return encode_frame(FrameKind.RESPONSE, rid, payload, self.max_frame_size)
        except FrameTooLarge as exc:
            return self._error(rid, ErrorCode.FRAME_TOO_LARGE, str(exc))

    def fail(self, rid: int, code: ErrorCode, message: str) -> bytes:
        self.open_ids.discard(rid)
        if self.closing:
            return b""
        return self._error(rid, code, message)

    def stream_item(self, rid: int, payload: bytes) -> bytes:
        if self.closing:
            return b""
        return encode_frame(FrameKind.STREAM_ITEM, rid, payload, self.max_frame_size)

    def stream_end(self, rid: int) -> bytes:
        self.open_ids.discard(rid)
        if self.closing:
            return b""
        return encode_frame(FrameKind.STREAM_END, rid)

    def goodbye(self) -> bytes:
        """CLOSE, once; b"" if the connection is already ending."""
        if self.closing:
            return b""
        self.closing = True
        self.close_reason = "server closed"
        return encode_frame(FrameKind.CLOSE, 0)


__all__ = ["ERROR_CODE", "CancelReceived", "Event", "RequestReceived", "ServerProtocol"]

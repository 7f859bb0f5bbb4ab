"""Server side of one connection as a state machine (no I/O).

``receive`` turns bytes into the events the server must act on and queues any
bytes the protocol itself must answer with (handshake replies, connection
errors) for ``take_output``. Once ``closing`` is true the server writes what is
queued and closes the connection.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from transports.wire import methods
from transports.wire.client_protocol import ERROR_CODE, HELLO, WELCOME, encode_error
from transports.wire.errors import ErrorCode, FrameTooLarge, ProtocolError
from transports.wire.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    PROTOCOL_VERSION,
    FrameDecoder,
    FrameKind,
    encode_frame,
)


@dataclass(frozen=True, slots=True)
class Request:
    id: int
    method: str
    args: bytes


@dataclass(frozen=True, slots=True)
class Cancel:
    id: int


Event = Request | Cancel


class ServerProtocol:
    def __init__(
        self, *, token: str | None = None, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    ) -> None:
        self._decoder = FrameDecoder(max_frame_size)
        self.max_frame_size = max_frame_size
        self._token = token
        self.handshaken = False
        self.closing = False
        self.close_reason = ""
        self._output = bytearray()
        self.open_ids: set[int] = set()

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete frame received so far."""
        return self._decoder.buffered

    def take_output(self) -> bytes:
        out = bytes(self._output)
        self._output.clear()
        return out

    def _fail_connection(self, code: ErrorCode, message: str) -> None:
        self._output += encode_error(0, code, message)
        self.closing = True
        self.close_reason = f"{code.name}: {message}"

    def receive(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        if self.closing:
            return events
        try:
            frames = self._decoder.feed(data)
        except FrameTooLarge as exc:
            self._fail_connection(ErrorCode.FRAME_TOO_LARGE, str(exc))
            return events
        except ProtocolError as exc:
            self._fail_connection(ErrorCode.BAD_FRAME, str(exc))
            return events
        for frame in frames:
            kind, rid = frame.kind, frame.id
            if kind is FrameKind.HELLO:
                self._hello(frame.payload)
            elif not self.handshaken:
                self._fail_connection(ErrorCode.NOT_READY, f"{kind.name} before HELLO")
            elif kind is FrameKind.REQUEST:
                if rid == 0 or rid in self.open_ids:
                    self._fail_connection(ErrorCode.BAD_FRAME, f"request id {rid} is in use")
                else:
                    self._request(rid, frame.payload, events)
            elif kind is FrameKind.CANCEL:
                if rid in self.open_ids:
                    events.append(Cancel(rid))
            elif kind is FrameKind.PING:
                if rid == 0 or rid in self.open_ids:
                    self._fail_connection(ErrorCode.BAD_FRAME, f"ping id {rid} is in use")
                else:
                    self._output += encode_frame(FrameKind.PONG, rid, frame.payload)
            elif kind is FrameKind.CLOSE:
                self.closing = True
                self.close_reason = "client closed"
            else:
                self._fail_connection(ErrorCode.BAD_FRAME, f"client sent a {kind.name} frame")
            if self.closing:
                break
        return events

    def _hello(self, payload: bytes) -> None:
        if self.handshaken:
            self._fail_connection(ErrorCode.BAD_FRAME, "second HELLO")
            return
        if len(payload) < HELLO.size:
            self._fail_connection(ErrorCode.BAD_FRAME, "HELLO without a version")
            return
        (version,) = HELLO.unpack_from(payload)
        if version != PROTOCOL_VERSION:
            self._fail_connection(
                ErrorCode.UNSUPPORTED_VERSION,
                f"client speaks version {version}, server speaks {PROTOCOL_VERSION}",
            )
            return
        token = payload[HELLO.size :]
        if self._token is not None and not hmac.compare_digest(token, self._token.encode()):
            self._fail_connection(ErrorCode.UNAUTHORIZED, "missing or wrong token")
            return
        self.handshaken = True
        welcome = WELCOME.pack(PROTOCOL_VERSION, self.max_frame_size)
        self._output += encode_frame(FrameKind.WELCOME, 0, welcome)

    def _request(self, rid: int, payload: bytes, events: list[Event]) -> None:
        try:
            method, args = methods.decode_request(payload)
        except methods.BadArguments as exc:
            self._output += encode_error(rid, ErrorCode.BAD_ARGUMENTS, str(exc))
            return
        self.open_ids.add(rid)
        events.append(Request(rid, method, args))

    # -- answers: each returns the bytes to write --------------------------

    def respond(self, rid: int, payload: bytes) -> bytes:
        self.open_ids.discard(rid)
        try:
            return encode_frame(FrameKind.RESPONSE, rid, payload, self.max_frame_size)
        except FrameTooLarge as exc:
            return encode_error(rid, ErrorCode.FRAME_TOO_LARGE, str(exc))

    def fail(self, rid: int, code: ErrorCode, message: str) -> bytes:
        self.open_ids.discard(rid)
        return encode_error(rid, code, message)

    def stream_item(self, rid: int, payload: bytes) -> bytes:
        return encode_frame(FrameKind.STREAM_ITEM, rid, payload, self.max_frame_size)

    def stream_end(self, rid: int) -> bytes:
        self.open_ids.discard(rid)
        return encode_frame(FrameKind.STREAM_END, rid)

    def goodbye(self) -> bytes:
        self.closing = True
        return encode_frame(FrameKind.CLOSE, 0)


__all__ = ["ERROR_CODE", "Cancel", "Event", "Request", "ServerProtocol"]

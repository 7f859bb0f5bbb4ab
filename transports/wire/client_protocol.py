"""Client side of one connection as a state machine (no I/O).

It owns the request ids: every request gets an id no other open request has, and
an id is not handed out again until the server's final frame for it (response,
error or stream end) has arrived. A call that gives up *abandons* its id: frames
for it are dropped until its final frame frees the id. That is what keeps a late
answer from ever reaching a later call.
"""

from __future__ import annotations

import struct
from enum import Enum

from transports.wire import methods
from transports.wire.errors import (
    AuthenticationError,
    ClosedError,
    ConnectError,
    DualioError,
    ErrorCode,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
)
from transports.wire.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    MAX_REQUEST_ID,
    MIN_FRAME_LENGTH,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
)

HELLO = struct.Struct(">H")
WELCOME = struct.Struct(">HI")
ERROR_CODE = struct.Struct(">H")

_FINAL = frozenset({FrameKind.RESPONSE, FrameKind.ERROR, FrameKind.STREAM_END, FrameKind.PONG})
_TO_CLIENT = _FINAL | {FrameKind.WELCOME, FrameKind.STREAM_ITEM, FrameKind.CLOSE}


class State(Enum):
    HANDSHAKING = "handshaking"
    OPEN = "open"
    CLOSED = "closed"


def encode_error(request_id: int, code: int, message: str) -> bytes:
    return encode_frame(FrameKind.ERROR, request_id, ERROR_CODE.pack(code) + message.encode())


def decode_error(payload: bytes) -> RemoteError:
    if len(payload) < ERROR_CODE.size:
        return RemoteError(ErrorCode.BAD_FRAME, "error frame without a code")
    code = ERROR_CODE.unpack_from(payload)[0]
    return RemoteError(code, payload[ERROR_CODE.size :].decode(errors="replace"))


def connection_ending(frame: Frame) -> DualioError | None:
    """What a frame with id 0 means to a client: None for WELCOME (the handshake is
    done), otherwise the error that ends the whole connection (CLOSE or ERROR)."""
    if frame.kind is FrameKind.WELCOME:
        return None
    if frame.kind is FrameKind.CLOSE:
        return ClosedError("the server closed the connection")
    return connection_error(frame.payload)


def connection_error(payload: bytes) -> ConnectError | RemoteError:
    """What an ERROR frame with id 0 (about the whole connection) means to a client."""
    error = decode_error(payload)
    if error.code == ErrorCode.UNAUTHORIZED:
        return AuthenticationError(error.message)
    if error.code == ErrorCode.UNSUPPORTED_VERSION:
        return ConnectError(error.message)
    return error


class ClientProtocol:
    def __init__(
        self, *, token: str | None = None, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    ) -> None:
        self._decoder = FrameDecoder(max_frame_size)
        self.max_frame_size = max_frame_size
        self.server_max_frame_size = max_frame_size
        self._token = token
        self.state = State.HANDSHAKING
        self._next_id = 1
        self._open: set[int] = set()
        self._abandoned: set[int] = set()
        self.dropped = 0  # frames that arrived for abandoned calls

    def hello(self) -> bytes:
        token = (self._token or "").encode()
        return encode_frame(FrameKind.HELLO, 0, HELLO.pack(PROTOCOL_VERSION) + token)

    def _new_id(self) -> int:
        if len(self._open) >= MAX_REQUEST_ID:
            raise ProtocolError("no request id is free")
        rid = self._next_id
        while rid in self._open or rid == 0:
            rid = rid + 1 if rid < MAX_REQUEST_ID else 1
        self._next_id = rid + 1 if rid < MAX_REQUEST_ID else 1
        self._open.add(rid)
        return rid

    def request(self, method: str, args: bytes) -> tuple[int, bytes]:
        """A new request id and the bytes of its REQUEST frame."""
        payload = methods.encode_request(method, args)
        if MIN_FRAME_LENGTH + len(payload) > self.server_max_frame_size:
            raise FrameTooLarge(
                f"a request of {MIN_FRAME_LENGTH + len(payload)} bytes exceeds the server's "
                f"maximum frame size of {self.server_max_frame_size}"
            )
        rid = self._new_id()
        return rid, encode_frame(FrameKind.REQUEST, rid, payload, self.server_max_frame_size)

    def ping(self) -> tuple[int, bytes]:
        rid = self._new_id()
        return rid, encode_frame(FrameKind.PING, rid)

    def release(self, rid: int) -> None:
        """Forget a request whose bytes were never sent."""
        self._open.discard(rid)

    def abandon(self, rid: int) -> bytes:
        """The caller no longer wants ``rid``: drop its frames; the CANCEL bytes to send."""
        if rid not in self._open or rid in self._abandoned:
            return b""
        self._abandoned.add(rid)
        return encode_frame(FrameKind.CANCEL, rid)

    def close(self) -> bytes:
        if self.state is State.CLOSED:
            return b""
        self.state = State.CLOSED
        return encode_frame(FrameKind.CLOSE, 0)

    @property
    def in_flight(self) -> int:
        return len(self._open)

    def receive(self, data: bytes) -> list[Frame]:
        """Frames that callers are waiting for; abandoned calls' frames are dropped."""
        delivered: list[Frame] = []
        for frame in self._decoder.feed(data):
            kind, rid = frame.kind, frame.id
            if kind not in _TO_CLIENT:
                raise ProtocolError(f"server sent a {kind.name} frame")
            if rid == 0:
                if kind is FrameKind.WELCOME:
                    self._welcome(frame.payload)
                elif kind not in (FrameKind.ERROR, FrameKind.CLOSE):
                    raise ProtocolError(f"{kind.name} frame with id 0")
                delivered.append(frame)
                continue
            if self.state is State.HANDSHAKING:
                raise ProtocolError(f"{kind.name} frame before the handshake completed")
            if rid not in self._open:
                raise ProtocolError(f"{kind.name} frame for request {rid}, which is not open")
            if kind in _FINAL:
                self._open.discard(rid)
            if rid in self._abandoned:
                if kind in _FINAL:
                    self._abandoned.discard(rid)
                self.dropped += 1
                continue
            delivered.append(frame)
        return delivered

    def _welcome(self, payload: bytes) -> None:
        if self.state is not State.HANDSHAKING or len(payload) != WELCOME.size:
            raise ProtocolError("unexpected or malformed WELCOME frame")
        version, server_max = WELCOME.unpack(payload)
        if version != PROTOCOL_VERSION:
            raise ProtocolError(f"server speaks protocol version {version}")
        self.server_max_frame_size = min(server_max, 0xFFFFFFFF)
        self.state = State.OPEN

"""Protocol v1, client side, as the wire interface
(:class:`dualio_transports.wire.protocol.WireProtocol`) has it (no I/O).

It says HELLO, checks the WELCOME, learns the server's maximum frame size, builds
request, PING and CANCEL frames (a request under that maximum), says which frames
answer which call, and says goodbye. Answers name their request's id: a given-up call
is cancelled with a CANCEL frame. What happens to each *call* (ids, routing, giving
up, failure) is the core's: :mod:`dualio_transports.wire.call_table`.
"""

from __future__ import annotations

import functools
import logging
import struct
from collections.abc import Callable
from enum import Enum
from typing import Any

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    MAX_REQUEST_ID,
    MIN_FRAME_LENGTH,
    PROTOCOL_VERSION,
    FrameDecoder,
    FrameKind,
    encode_frame,
    validate_max_frame_size,
)
from dualio_transports.wire.errors import (
    AuthenticationError,
    ConnectError,
    ConnectionLost,
    DualioError,
    ErrorCode,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
    ServiceError,
    VersionMismatch,
)
from dualio_transports.wire.protocol import HANDSHAKE_DONE, CallKind, HandshakeDone, Matching

log = logging.getLogger("dualio.client")

HELLO = struct.Struct(">H")
WELCOME = struct.Struct(">HI")
ERROR_CODE = struct.Struct(">H")
_REQUEST = int(FrameKind.REQUEST)
_NAMES: dict[str, bytes] = {}  # method name -> its length-prefixed bytes, for the names in use
_NAMES_KEPT = 256

MAX_TOKEN_BYTES = 1024
MAX_HELLO_FRAME = MIN_FRAME_LENGTH + HELLO.size + MAX_TOKEN_BYTES
"""The largest frame a server needs to accept before the handshake completes."""


class State(Enum):
    HANDSHAKING = "handshaking"
    OPEN = "open"
    CLOSED = "closed"


def encode_error(request_id: int, code: int, message: str) -> bytes:
    return encode_frame(FrameKind.ERROR, request_id, ERROR_CODE.pack(code) + message.encode())


def decode_error(payload: bytes) -> RemoteError:
    if len(payload) < ERROR_CODE.size:
        return ServiceError(ErrorCode.BAD_FRAME, "error frame without a code")
    code = ERROR_CODE.unpack_from(payload)[0]
    return ServiceError(code, payload[ERROR_CODE.size :].decode(errors="replace"))


def connection_ending(kind: FrameKind, payload: bytes) -> DualioError:
    """The error that a CLOSE or an ERROR with id 0 means for the whole connection."""
    if kind is FrameKind.CLOSE:
        return ConnectionLost("the server closed the connection")
    return connection_error(payload)


def connection_error(payload: bytes) -> ConnectError | RemoteError:
    """What an ERROR frame with id 0 (about the whole connection) means to a client."""
    error = decode_error(payload)
    if error.code == ErrorCode.UNAUTHORIZED:
        return AuthenticationError(error.message)
    if error.code == ErrorCode.UNSUPPORTED_VERSION:
        return VersionMismatch(error.message)
    return error


_ITEM, _FINAL = False, True
ACCEPTS: dict[CallKind, dict[FrameKind, bool]] = {
    CallKind.UNARY: {FrameKind.RESPONSE: _FINAL, FrameKind.ERROR: _FINAL},
    CallKind.STREAM: {
        FrameKind.STREAM_ITEM: _ITEM, FrameKind.STREAM_END: _FINAL, FrameKind.ERROR: _FINAL,
    },
    CallKind.PING: {FrameKind.PONG: _FINAL, FrameKind.ERROR: _FINAL},
    CallKind.HANDSHAKE: {},
}
"""For each kind of call: which frames answer it, and whether each is final."""
_SERVER_KINDS = frozenset({
    FrameKind.WELCOME, FrameKind.RESPONSE, FrameKind.ERROR, FrameKind.STREAM_ITEM,
    FrameKind.STREAM_END, FrameKind.PONG, FrameKind.CLOSE,
})


def protocol_v1(
    token: str | None = None, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
) -> Callable[[], ClientProtocol]:
    """What makes each connection's protocol v1 state (``ConnectOptions.protocol``), with
    the handshake's ``token`` and the frame size limit checked once, here."""
    if token is not None and not isinstance(token, str):
        raise TypeError(f"token must be a str or None, not {type(token).__name__}")
    if token is not None and len(token.encode()) > MAX_TOKEN_BYTES:
        raise ValueError(f"token must be at most {MAX_TOKEN_BYTES} bytes of UTF-8")
    validate_max_frame_size(max_frame_size)
    return functools.partial(ClientProtocol, token=token, max_frame_size=max_frame_size)


class ClientProtocol:
    """One connection's protocol v1 state: a :class:`~dualio_transports.wire.protocol.WireProtocol`."""

    __slots__ = ("_token", "decoder", "max_frame_size", "server_max_frame_size", "state")
    matching = Matching.BY_KEY
    ordered_kinds: frozenset[CallKind] = frozenset()
    max_key = MAX_REQUEST_ID
    accepts = ACCEPTS
    error_kind = FrameKind.ERROR

    def __init__(
        self, *, token: str | None = None, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    ) -> None:
        self.decoder = FrameDecoder(max_frame_size, large_buffers=True)
        self.max_frame_size = max_frame_size
        self.server_max_frame_size = max_frame_size
        self._token = token
        self.state = State.HANDSHAKING

    @property
    def is_open(self) -> bool:
        return self.state is State.OPEN

    def hello(self) -> bytes:
        token = (self._token or "").encode()
        return encode_frame(FrameKind.HELLO, 0, HELLO.pack(PROTOCOL_VERSION) + token)

    def welcome(self, payload: bytes) -> None:
        """Accept the server's WELCOME; ProtocolError if it is unexpected or malformed."""
        if self.state is not State.HANDSHAKING or len(payload) != WELCOME.size:
            raise ProtocolError("unexpected or malformed WELCOME frame")
        version, server_max = WELCOME.unpack(payload)
        if version != PROTOCOL_VERSION:
            raise ProtocolError(f"server speaks protocol version {version}")
        self.server_max_frame_size = min(server_max, 0xFFFFFFFF)
        self.state = State.OPEN

    def request(self, request_id: int, method: str, args: bytes) -> bytes:
        """The bytes of a REQUEST frame; FrameTooLarge over the server's maximum.
        ``request_id`` comes from the call table, which hands out valid ids only."""
        name = _NAMES.get(method)
        if name is None:
            name = methods.encode_request(method, b"")
            if len(_NAMES) < _NAMES_KEPT:
                _NAMES[method] = name
        length = MIN_FRAME_LENGTH + len(name) + len(args)
        if length > self.server_max_frame_size:
            raise FrameTooLarge(
                f"a request of {length} bytes exceeds the server's "
                f"maximum frame size of {self.server_max_frame_size}"
            )
        return HEADER.pack(length, _REQUEST, request_id) + name + args

    def probe(self, key: int) -> bytes:
        return encode_frame(FrameKind.PING, key)

    def cancel(self, key: int) -> bytes:
        return encode_frame(FrameKind.CANCEL, key)

    @staticmethod
    def decode_error(key: int, payload: bytes) -> RemoteError:
        return decode_error(payload)

    @staticmethod
    def describe_kind(kind: Any) -> str:
        return f"{kind.name} frame"

    def unrouted(self, kind: FrameKind, key: int, payload: bytes) -> DualioError | HandshakeDone | None:
        """A frame with id 0, or for no live call: the failure it means, WELCOME's
        ``HANDSHAKE_DONE``, or None."""
        if kind not in _SERVER_KINDS:
            return ProtocolError(f"server sent a {kind.name} frame")
        if key != 0:
            if self.state is State.HANDSHAKING:
                return ProtocolError(f"{kind.name} frame before the handshake completed")
            return ProtocolError(f"{kind.name} frame for request {key}, which is not open")
        if kind is FrameKind.WELCOME:
            try:
                self.welcome(payload)
            except ProtocolError as exc:
                return exc
            log.debug("handshake done: server's maximum frame %d bytes", self.server_max_frame_size)
            return HANDSHAKE_DONE
        if kind in (FrameKind.ERROR, FrameKind.CLOSE):
            return connection_ending(kind, payload)
        return ProtocolError(f"{kind.name} frame with id 0")

    def unsent(self, key: int) -> None:
        """Nothing to forget: a request notes nothing here."""

    def goodbye(self) -> bytes:
        if self.state is State.CLOSED:
            return b""
        self.state = State.CLOSED
        return encode_frame(FrameKind.CLOSE, 0)

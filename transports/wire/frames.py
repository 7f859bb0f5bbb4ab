"""Frame codec of wire protocol v1: bytes in, frames out; frames in, bytes out.

No sockets, threads or event loops live here (docs/protocol.md is the spec).
Every frame is ``length:u32 | kind:u8 | id:u32 | payload``, big-endian, where
``length`` counts the bytes after itself (so it is ``5 + len(payload)``).
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import NamedTuple

from transports.wire.errors import FrameTooLarge, ProtocolError

PROTOCOL_VERSION = 1
DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024
HEADER = struct.Struct(">IBI")
_LENGTH = struct.Struct(">I")
HEADER_SIZE = HEADER.size  # 9
LENGTH_SIZE = 4
MIN_FRAME_LENGTH = HEADER_SIZE - LENGTH_SIZE  # kind + id
MAX_REQUEST_ID = 0xFFFFFFFF
LARGE_PAYLOAD = 64 * 1024
"""A frame with a payload this large or larger is collected in a buffer of its own."""


class FrameKind(IntEnum):
    HELLO = 1
    WELCOME = 2
    REQUEST = 3
    RESPONSE = 4
    ERROR = 5
    STREAM_ITEM = 6
    STREAM_END = 7
    CANCEL = 8
    PING = 9
    PONG = 10
    CLOSE = 11


_KINDS = {kind.value: kind for kind in FrameKind}
_frame = tuple.__new__  # a Frame without NamedTuple's Python-level __new__ (frames are made per answer)


class Frame(NamedTuple):
    kind: FrameKind
    id: int
    payload: bytes = b""


def max_payload_size(max_frame_size: int) -> int:
    """Largest payload a frame may carry under ``max_frame_size``."""
    return max_frame_size - MIN_FRAME_LENGTH


def encode_frame(
    kind: FrameKind, request_id: int, payload: bytes = b"",
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
) -> bytes:
    """The bytes of one frame; refuses a frame the peer would reject as too large."""
    length = MIN_FRAME_LENGTH + len(payload)
    if length > max_frame_size:
        raise FrameTooLarge(f"frame of {length} bytes exceeds the maximum of {max_frame_size}")
    if not 0 <= request_id <= MAX_REQUEST_ID:
        raise ValueError(f"request id {request_id} is outside 0..{MAX_REQUEST_ID}")
    return HEADER.pack(length, kind, request_id) + payload


def validate_max_frame_size(value: int) -> int:
    if not isinstance(value, int) or value < MIN_FRAME_LENGTH + 64 or value > 0xFFFFFFFF:
        raise ValueError(f"max_frame_size must be an int in {MIN_FRAME_LENGTH + 64}..{0xFFFFFFFF}")
    return value


class FrameDecoder:
    """Turns a byte stream, split anywhere, into frames.

    A length prefix over the limit is rejected as soon as its four bytes arrive,
    before any of the frame is buffered. After an error the decoder stays broken.
    The payload of a large frame (``LARGE_PAYLOAD`` bytes or more) is kept as the
    pieces it arrives in and joined once, at its end, instead of growing the stream
    buffer chunk by chunk: one copy, into the ``bytes`` the caller gets.
    """

    __slots__ = (
        "_broken", "_buffer", "_large", "_large_filled", "_large_head", "_large_size", "max_frame_size",
    )

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        self.max_frame_size = validate_max_frame_size(max_frame_size)
        self._buffer = bytearray()
        self._broken: ProtocolError | None = None
        self._large: list[bytes] | None = None  # the pieces of a large frame's payload
        self._large_size = 0
        self._large_filled = 0
        self._large_head: tuple[FrameKind, int] = (FrameKind.RESPONSE, 0)

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet form a whole frame."""
        if self._large is not None:
            return HEADER_SIZE + self._large_filled
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Frame]:
        if self._broken is not None:
            raise self._broken
        frames: list[Frame] = []
        large = self._large
        if large is not None:
            taken = self._fill(large, data)
            if self._large_filled < self._large_size:
                return frames  # still short of its end
            frames.append(Frame(*self._large_head, b"".join(large)))
            self._large = None
            if taken == len(data):
                return frames
            data = data[taken:]
        buffer = self._buffer
        if buffer:
            buffer += data
            source: bytes | bytearray = buffer
        else:
            source = data  # the common case: parsed in place, no copy into the buffer
        size = len(source)
        pos = 0
        limit = self.max_frame_size
        try:
            while size - pos >= LENGTH_SIZE:
                (length,) = _LENGTH.unpack_from(source, pos)
                if length > limit:
                    raise FrameTooLarge(
                        f"frame length {length} exceeds the maximum of {limit}"
                    )
                if length < MIN_FRAME_LENGTH:
                    raise ProtocolError(f"frame length {length} is shorter than a header")
                end = pos + LENGTH_SIZE + length
                if end > size and (length - MIN_FRAME_LENGTH < LARGE_PAYLOAD or size - pos < HEADER_SIZE):
                    break
                _, kind, request_id = HEADER.unpack_from(source, pos)
                frame_kind = _KINDS.get(kind)
                if frame_kind is None:
                    raise ProtocolError(f"unknown frame kind {kind}")
                if end > size:  # a large frame's start: its payload gets a buffer of its own
                    self._large_head = (frame_kind, request_id)
                    self._large = [bytes(source[pos + HEADER_SIZE :])]
                    self._large_size = length - MIN_FRAME_LENGTH
                    self._large_filled = size - pos - HEADER_SIZE
                    buffer.clear()
                    return frames
                payload = source[pos + HEADER_SIZE : end]
                if source is buffer:
                    payload = bytes(payload)
                frames.append(_frame(Frame, (frame_kind, request_id, payload)))
                pos = end
        except ProtocolError as exc:
            self._broken = exc
            buffer.clear()
            raise
        if source is buffer:
            if pos:
                del buffer[:pos]
        elif pos < size:
            buffer += data[pos:] if pos else data
        return frames

    def _fill(self, large: list[bytes], data: bytes) -> int:
        """Keep what ``data`` holds of the large payload; the bytes taken."""
        take = min(self._large_size - self._large_filled, len(data))
        large.append(data if take == len(data) else data[:take])
        self._large_filled += take
        return take

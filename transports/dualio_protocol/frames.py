"""Frame codec of wire protocol v1: bytes in, frames out; frames in, bytes out.

No sockets, threads or event loops live here (docs/protocol.md is the spec).
Every frame is ``length:u32 | kind:u8 | id:u32 | payload``, big-endian, where
``length`` counts the bytes after itself (so it is ``5 + len(payload)``).
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import NamedTuple

from dualio_transports.wire.errors import FrameTooLarge, ProtocolError

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
SPARE_LIMIT = 1024 * 1024
"""The largest payload buffer a decoder keeps for the next large frame."""


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
    With ``large_buffers`` (a client's decoder), the payload of a large frame
    (``LARGE_PAYLOAD`` bytes or more) gets a buffer of its own, sized from its
    header (already checked against the limit), that a transport may receive
    straight into (:meth:`room`, :meth:`received`); the ``bytes`` the caller gets is
    one copy of it. (Bytes fed instead, by a transport that cannot receive into a
    buffer, are copied in: one copy more.) After the frame, the decoder keeps that buffer for the next large
    one if it is at most ``SPARE_LIMIT`` bytes. Without it (a server's decoder), a
    frame is collected in the stream buffer, which grows only with the bytes that
    arrived: a header alone must not make a server hold the memory it announces.
    """

    __slots__ = (
        "_broken", "_buffer", "_large_filled", "_large_from", "_large_head", "_large_size", "_spare",
        "large", "max_frame_size",
    )

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE, *, large_buffers: bool = False) -> None:
        self.max_frame_size = validate_max_frame_size(max_frame_size)
        self._large_from = LARGE_PAYLOAD if large_buffers else 0xFFFFFFFF  # payload size
        self._buffer = bytearray()
        self._broken: ProtocolError | None = None
        self.large: memoryview | None = None
        """A large frame's payload buffer while the frame arrives (read-only outside)."""
        self._large_size = 0
        self._large_filled = 0
        self._large_head: tuple[FrameKind, int] = (FrameKind.RESPONSE, 0)
        self._spare: bytearray | None = None

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet form a whole frame."""
        if self.large is not None:
            return HEADER_SIZE + self._large_filled
        return len(self._buffer)

    def room(self) -> memoryview | None:
        """Where the rest of a large frame's payload goes, while one is under way:
        a transport may receive into it and then call :meth:`received`."""
        large = self.large
        return None if large is None else large[self._large_filled :]

    def received(self, count: int) -> list[Frame]:
        """``count`` bytes were written at the start of :meth:`room`."""
        if self.large is None or not 0 < count <= self._large_size - self._large_filled:
            raise ValueError(f"received {count} bytes, more than the room left")
        self._large_filled += count
        if self._large_filled < self._large_size:
            return []
        return [self._large_done()]

    def _large_done(self) -> Frame:
        large = self.large
        assert large is not None
        payload = bytes(large)
        self.large = None
        base = large.obj
        large.release()
        if isinstance(base, bytearray) and len(base) <= SPARE_LIMIT:
            self._spare = base
        return _frame(Frame, (*self._large_head, payload))

    def _large_start(self, kind: FrameKind, request_id: int, size: int, first: memoryview) -> None:
        spare = self._spare
        if spare is not None and size <= len(spare):
            self._spare = None
            large = memoryview(spare)[:size]
        else:
            large = memoryview(bytearray(size))
        filled = len(first)
        large[:filled] = first
        self._large_head = (kind, request_id)
        self.large = large
        self._large_size = size
        self._large_filled = filled

    def feed(self, data: bytes) -> list[Frame]:
        if self._broken is not None:
            raise self._broken
        large = self.large
        if large is None and not self._buffer and len(data) >= HEADER_SIZE:
            # the common case, one whole frame and nothing buffered: as the loop below would
            length, kind, request_id = HEADER.unpack_from(data)
            if len(data) == LENGTH_SIZE + length and MIN_FRAME_LENGTH <= length <= self.max_frame_size:
                frame_kind = _KINDS.get(kind)
                if frame_kind is not None:
                    return [_frame(Frame, (frame_kind, request_id, data[HEADER_SIZE:]))]
        frames: list[Frame] = []
        if large is not None:
            filled = self._large_filled
            take = min(self._large_size - filled, len(data))
            large[filled : filled + take] = data if take == len(data) else memoryview(data)[:take]
            self._large_filled = filled + take
            if self._large_filled < self._large_size:
                return frames  # still short of its end
            frames.append(self._large_done())
            if take == len(data):
                return frames
            data = data[take:]
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
                if frame_kind is None:  # a large frame's kind is checked before its payload comes
                    raise ProtocolError(f"unknown frame kind {kind}")
                if end > size:
                    if length - MIN_FRAME_LENGTH < self._large_from:
                        break  # collected in the stream buffer
                    # a large frame's start: its payload gets a buffer of its own
                    with memoryview(source) as view:
                        self._large_start(frame_kind, request_id, length - MIN_FRAME_LENGTH,
                                          view[pos + HEADER_SIZE :])
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

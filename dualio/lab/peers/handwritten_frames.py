"""The frames the lab's hand-written peers speak: the dualio wire format written out by
hand, as a user of the protocol without the SDK would, for ``echo`` only."""

from __future__ import annotations

import struct

HEADER = struct.Struct(">IBI")  # length (after itself), kind, request id
HELLO, WELCOME, REQUEST, RESPONSE, ERROR = 1, 2, 3, 4, 5
HELLO_FRAME = HEADER.pack(7, HELLO, 0) + b"\x00\x01"  # protocol version 1
_ECHO = b"\x04echo"
_DELAY = struct.Struct(">d")


def echo_request(rid: int, data: bytes, delay: float = 0.0) -> bytes:
    payload = _ECHO + _DELAY.pack(delay) + data
    return HEADER.pack(5 + len(payload), REQUEST, rid) + payload

"""The service's methods: how each one's arguments and results are encoded.

Written once and used by both faces (to build requests and decode answers) and by
the server (to parse requests and build answers). See docs/protocol.md, "Methods".
"""

from __future__ import annotations

import json
import struct
from dataclasses import MISSING, dataclass, fields
from typing import Any, TypeVar

from dualio_transports.dualio_protocol.blob import blob_bytes
from dualio_transports.wire.errors import ProtocolError, short
from dualio_transports.wire.protocol import CallKind
from dualio_transports.wire.request import Request, StreamRequest

T = TypeVar("T")

F64 = struct.Struct(">d")
U32 = struct.Struct(">I")
U32_F64 = struct.Struct(">Id")
MAX_METHOD_NAME = 255


_UNARY = CallKind.UNARY
_request = tuple.__new__  # a Request without NamedTuple's Python-level __new__ (one is made per call)


class BadArguments(ValueError):
    """A request's arguments do not parse (server side)."""


@dataclass(frozen=True, slots=True)
class ServerStats:
    """The server's counters, as ``stats()`` returns them.

    ``workers`` and ``pid`` came later than the five counters: a server that does not send
    them reads as 1 and 0, and they are sent only when they differ from that, so the
    five counters alone encode as they always did.
    """

    connections_open: int
    connections_total: int
    requests_in_flight: int
    requests_served: int
    errors: int
    workers: int = 1
    """Server processes sharing the port, whose counters the five above add up."""
    pid: int = 0
    """The process that answered (0: not said)."""

    @classmethod
    def from_json(cls, payload: bytes) -> ServerStats:
        try:
            data = json.loads(payload)
            return cls(**{f.name: int(data[f.name] if f.default is MISSING else data.get(f.name, f.default))
                          for f in fields(cls)})
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ProtocolError(f"malformed stats payload: {exc}") from exc

    def to_json(self) -> bytes:
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)
                           if f.default is MISSING or getattr(self, f.name) != f.default}).encode()


# -- request envelope -------------------------------------------------------

def encode_request(method: str, args: bytes) -> bytes:
    name = method.encode()
    if not 0 < len(name) <= MAX_METHOD_NAME:
        raise ValueError(f"method name must be 1..{MAX_METHOD_NAME} bytes of UTF-8")
    return bytes((len(name),)) + name + args


def decode_request(payload: bytes) -> tuple[str, bytes]:
    if not payload or len(payload) < 1 + payload[0] or payload[0] == 0:
        raise BadArguments("request payload has no method name")
    end = 1 + payload[0]
    try:
        return payload[1:end].decode(), payload[end:]
    except UnicodeDecodeError as exc:
        raise BadArguments("method name is not UTF-8") from exc


# -- argument checks shared by both sides -----------------------------------

MAX_SECONDS = 86_400.0
"""The longest delay, sleep or wait a request may ask for: one day."""


def check_seconds(name: str, value: float) -> float:
    if value.__class__ is float and 0 <= value <= MAX_SECONDS:
        return value  # the common case, checked first
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not 0 <= value <= MAX_SECONDS:  # also refuses NaN, and ints beyond float range
        raise ValueError(f"{name} must be a number of seconds in 0..{MAX_SECONDS:g}, got {short(value)}")
    return float(value)


def check_count(name: str, value: int, maximum: int = 0xFFFFFFFF) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not 0 <= value <= maximum:
        raise ValueError(f"{name} must be in 0..{maximum}, got {value}")
    return value


def _identity(payload: bytes) -> bytes:
    return payload


def _none(payload: bytes) -> None:
    return None


def _text(payload: bytes) -> str:
    try:
        return payload.decode()
    except UnicodeDecodeError as exc:
        raise ProtocolError("server sent text that is not UTF-8") from exc


# -- client side: build calls -----------------------------------------------

_NO_DELAY = F64.pack(0.0)


def _delay(delay: float) -> bytes:
    """A delay's bytes, checked; the default (no delay) without packing it again."""
    if delay == 0.0 and delay.__class__ is float:
        return _NO_DELAY
    return F64.pack(check_seconds("delay", delay))


def echo(data: bytes, delay: float) -> Request[bytes]:
    if data.__class__ is not bytes:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"echo data must be bytes, not {type(data).__name__}")
        data = bytes(data)
    return _request(Request, ("echo", _delay(delay) + data, _identity, True, 1, _UNARY))


def upper(text: str, delay: float) -> Request[str]:
    if not isinstance(text, str):
        raise TypeError(f"upper text must be str, not {type(text).__name__}")
    return _request(Request, ("upper", _delay(delay) + text.encode(), _text, True, 1, _UNARY))


def sleep(seconds: float) -> Request[None]:
    return _request(Request, ("sleep", F64.pack(check_seconds("seconds", seconds)), _none, True, 1, _UNARY))


def blob(size: int, seed: int, verify: bool) -> Request[bytes]:
    check_count("size", size)
    check_count("seed", seed)

    def decode(payload: bytes) -> bytes:
        if len(payload) != size:
            raise ProtocolError(f"blob of {len(payload)} bytes, expected {size}")
        if verify and payload != blob_bytes(size, seed):
            raise ProtocolError("blob content does not match its seed")
        return payload

    return Request("blob", U32.pack(size) + U32.pack(seed), decode)


def words(count: int, wait: float) -> StreamRequest[str]:
    args = U32_F64.pack(check_count("count", count), check_seconds("wait", wait))
    return StreamRequest("words", args, _text)


def stats() -> Request[ServerStats]:
    return Request("stats", b"", ServerStats.from_json)


def raw(method: str, payload: bytes) -> Request[bytes]:
    if not isinstance(method, str):
        raise TypeError("method must be str")
    if not isinstance(payload, bytes | bytearray | memoryview):
        raise TypeError(f"payload must be bytes, not {type(payload).__name__}")
    encode_request(method, b"")  # validates the name before anything is sent
    return Request(method, bytes(payload), _identity, idempotent=False)  # unknown effects


# -- server side: parse arguments -------------------------------------------

def _unpack(layout: struct.Struct, args: bytes, method: str) -> tuple[Any, ...]:
    if len(args) < layout.size:
        raise BadArguments(f"{method}: arguments are {len(args)} bytes, need {layout.size}")
    return layout.unpack_from(args)


def _seconds_arg(value: float, name: str) -> float:
    try:
        return check_seconds(name, value)
    except (TypeError, ValueError) as exc:
        raise BadArguments(str(exc)) from exc


def parse_delay_and_body(method: str, args: bytes) -> tuple[float, bytes]:
    (delay,) = _unpack(F64, args, method)
    return _seconds_arg(delay, "delay"), args[F64.size :]


def parse_sleep(args: bytes) -> float:
    if len(args) != F64.size:
        raise BadArguments("sleep: arguments must be one f64")
    return _seconds_arg(F64.unpack(args)[0], "seconds")


def parse_blob(args: bytes) -> tuple[int, int]:
    if len(args) != 2 * U32.size:
        raise BadArguments("blob: arguments must be size:u32 seed:u32")
    return U32.unpack_from(args)[0], U32.unpack_from(args, U32.size)[0]


def parse_words(args: bytes) -> tuple[int, float]:
    if len(args) != U32_F64.size:
        raise BadArguments("words: arguments must be count:u32 wait:f64")
    count, wait = U32_F64.unpack(args)
    return count, _seconds_arg(wait, "wait")


WORD_LIST = (
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
)


def word_at(index: int) -> str:
    """The ``index``-th word of every ``words`` stream (so clients can check them)."""
    return WORD_LIST[(index * 7 + index // len(WORD_LIST)) % len(WORD_LIST)]

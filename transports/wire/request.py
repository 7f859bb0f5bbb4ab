"""A call's request, as a face hands it to a transport: what to send and how to read
what comes back (a protocol's methods build them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

from dualio_transports.wire.protocol import CallKind

T = TypeVar("T")


class Request(NamedTuple, Generic[T]):
    """What one call sends and how it reads the answer: the method, its encoded arguments,
    and the answer's decoder.

    ``idempotent``: running it twice is harmless, so it may be sent again after a
    connection broke with the call in flight. ``answers``: how many answers the request
    gets (several commands in one request, on a protocol answered in order); the decoder
    reads them joined. ``answers=0``: none is expected (memcached's ``noreply``): the call
    returns once the request is written (or queued to be), with ``decode(b"")``, and is
    never sent twice; a failure after that surfaces on a later call, so a round trip after
    it (:meth:`ping`, any call with an answer) says it arrived. ``kind``: a unary call, or
    the wire's keepalive probe (:data:`PING`).
    """

    method: str
    args: bytes
    decode: Callable[[bytes], T]
    idempotent: bool = True
    answers: int = 1
    kind: CallKind = CallKind.UNARY


class StreamRequest(NamedTuple, Generic[T]):
    """What a stream sends, and how it reads each item."""

    method: str
    args: bytes
    decode_item: Callable[[bytes], T]


def _pong(payload: bytes) -> None:
    return None


PING: Request[None] = Request("ping", b"", _pong, kind=CallKind.PING)
"""A face's ``ping()``: the wire's keepalive probe (its ``probe`` bytes), sent and
answered as any request is, on every transport."""

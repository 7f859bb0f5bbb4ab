"""The wire interface: what a request/response protocol supplies to dualio's core.

The call table (:mod:`dualio_transports.wire.call_table`), the procedure and every
transport know a protocol only through one :class:`WireProtocol` object per connection.
Protocol v1 (:mod:`dualio_transports.dualio_protocol.client_protocol`) is one; a
protocol nobody here designed (RESP, say) is another. A protocol supplies:

- its *messages*: a decoder that turns bytes into ``(kind, key, payload)`` triples,
  incrementally and within its own bounds, and raises ``ProtocolError`` on garbage;
- how answers find their calls (:class:`Matching`): by the key each answer names
  (v1's request id), or in the order the requests were written (a reply with
  :data:`IN_ORDER` as its key goes to the oldest call still waiting for its final
  answer); messages for no call (the handshake, a connection-level error, a push a
  protocol routes itself by returning a subscription's key) go to :meth:`unrouted`;
- which message kinds answer which kind of call, and which end it (:attr:`accepts`);
- the bytes of a request, of the keepalive probe, of the goodbye and of the handshake's
  opening (which may be several commands: their replies are the protocol's to read
  until it says the handshake is done);
- what giving up a call sends (:meth:`cancel`): a cancel message; nothing, when the
  answer is to be read and dropped; or None, when the connection cannot be kept
  (a command the server blocks on, whose answer may never come).

Everything else about a call — keys, routing, giving up, failure, timeouts, keepalive
— is decided by the core, once for every protocol and every transport.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, Final, Protocol

from dualio_transports.wire.errors import DualioError, ProtocolError


class CallKind(Enum):
    UNARY = "unary"
    STREAM = "stream"
    PING = "ping"
    HANDSHAKE = "handshake"

    __hash__ = object.__hash__  # looked up per message; Enum's own hashes the name, in Python


class Matching(Enum):
    BY_KEY = "by key"  # every answer names its call's key; a given-up call is cancelled
    IN_ORDER = "in order"  # answers come in request order; a given-up call's answer is dropped


IN_ORDER: Final = -1
"""The key a decoder gives a message that answers the oldest call waiting (``Matching.IN_ORDER``)."""
HANDSHAKE_KEY: Final = 0
"""The key of the handshake, which no call ever has."""


class HandshakeDone(Enum):
    DONE = "done"


HANDSHAKE_DONE: Final = HandshakeDone.DONE
"""What :meth:`WireProtocol.unrouted` says when a message completed the handshake."""

Message = tuple[Any, int, bytes]
"""``(kind, key, payload)``: one decoded message."""


class Decoder(Protocol):
    """Bytes in, messages out; bounded, incremental."""

    @property
    def large(self) -> object | None:
        """Not None while a large message arrives into :meth:`room`."""

    def feed(self, data: bytes) -> Sequence[Message]: ...

    def room(self) -> memoryview | None:
        """Where the rest of a large message goes, for a transport that receives into it."""

    def received(self, count: int) -> Sequence[Message]:
        """``count`` bytes were received into :meth:`room`."""


class WireProtocol(Protocol):
    """One connection's protocol state, as the core sees it (no I/O)."""

    @property
    def matching(self) -> Matching: ...

    @property
    def ordered_kinds(self) -> frozenset[CallKind]:
        """With ``Matching.IN_ORDER``: the kinds of calls whose answers come in request order
        (the others, a subscription say, are answered by key, as pushes)."""

    @property
    def max_key(self) -> int:
        """The largest key a call may have (keys run from 1; :data:`HANDSHAKE_KEY` is never one)."""

    @property
    def decoder(self) -> Decoder: ...

    @property
    def accepts(self) -> Mapping[CallKind, Mapping[Any, bool]]:
        """For each kind of call, the message kinds that answer it, and whether each is final."""

    @property
    def error_kind(self) -> Any:
        """The message kind of an answer that is an error (:meth:`decode_error`)."""

    @property
    def is_open(self) -> bool:
        """The handshake is done and no goodbye was said."""

    def hello(self) -> bytes:
        """What opens the handshake; ``b""``: the protocol has none, and a connection is
        open once connected (:attr:`is_open` True from the start)."""

    def unrouted(self, kind: Any, key: int, payload: bytes) -> DualioError | HandshakeDone | None:
        """A message for no live call (the handshake's, or the connection's): the failure it
        means for the connection, :data:`HANDSHAKE_DONE`, or None (nothing to do)."""

    def request(self, key: int, method: str, args: bytes) -> bytes:
        """The bytes of a request."""

    def probe(self, key: int) -> bytes:
        """The bytes of a keepalive probe (a call of kind ``PING``)."""

    def cancel(self, key: int) -> bytes | None:
        """What giving up a call whose request left sends: its bytes, ``b""`` for nothing
        (its answer will be read and dropped), or None: the connection cannot be kept."""

    def decode_error(self, key: int, payload: bytes) -> DualioError:
        """The error an answer of kind :attr:`error_kind` carries; it ends call ``key``."""

    def unsent(self, key: int) -> None:
        """Call ``key``'s request was never written (its key is free again): forget
        whatever :meth:`request` noted about it."""

    def goodbye(self) -> bytes:
        """What closing says, once (``b""`` after the first time)."""

    def describe_kind(self, kind: Any) -> str:
        """A message kind's name, for error texts."""

    # Optional, found by name: ``expect(key)``. A protocol answered in order that has it
    # is told of each request that takes its place in the order of answers, in the order
    # the requests are written, on every transport (after :meth:`request` made its bytes;
    # a request that expects no answer takes no place): its decoder may then know which
    # request the next answer is for. :meth:`unsent` tells of one that never left.


class InOrderProtocol:
    """What most protocols answered in order share, for a :class:`WireProtocol` to subclass:
    no handshake, nothing said on closing, a given-up call's answer read and dropped (no
    cancel message), a message for no call a :class:`ProtocolError` (the connection is
    replaced). A subclass gives ``decoder``, ``accepts``, ``error_kind``, :meth:`request`,
    :meth:`probe` and :meth:`decode_error`."""

    matching = Matching.IN_ORDER
    ordered_kinds: frozenset[CallKind] = frozenset({CallKind.UNARY, CallKind.PING})
    max_key = 2**31 - 1
    is_open = True

    def hello(self) -> bytes:
        return b""

    def unrouted(self, kind: Any, key: int, payload: bytes) -> DualioError | HandshakeDone | None:
        return ProtocolError(f"the server sent a {self.describe_kind(kind)} that answers no request: "
                             f"{bytes(payload[:80])!r}")

    def cancel(self, key: int) -> bytes | None:
        return b""

    def unsent(self, key: int) -> None:
        pass

    def goodbye(self) -> bytes:
        return b""

    def describe_kind(self, kind: Any) -> str:
        return str(kind)

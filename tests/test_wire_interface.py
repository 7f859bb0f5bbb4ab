"""The core on a second protocol: the call table driven by a protocol answered in order.

A small line protocol stands for one nobody here designed (RESP's shape): a request is
a line, each reply a line that names no call, replies come in the order the requests
were written, a given-up call's reply is read and dropped (nothing is sent), and a
push line names the subscription it belongs to. The call table, the procedure and the
keepalive rules are protocol v1's, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from dualio_transports.wire import procedure
from dualio_transports.wire.call_table import CallState, CallTable, Next
from dualio_transports.wire.errors import ConnectionLost, DualioError, ProtocolError, RemoteError
from dualio_transports.wire.protocol import (
    HANDSHAKE_DONE,
    HANDSHAKE_KEY,
    IN_ORDER,
    CallKind,
    HandshakeDone,
    Matching,
    Message,
)

REPLY, FAILED, PUSH, END = "reply", "failed", "push", "end"


class LineDecoder:
    large = None

    def __init__(self, protocol: LineProtocol) -> None:
        self._protocol = protocol
        self._buffer = b""

    def feed(self, data: bytes) -> Sequence[Message]:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > 64:
            raise ProtocolError("a line longer than 64 bytes")
        return [self._protocol.message(line) for line in lines]

    def room(self) -> memoryview | None:
        return None

    def received(self, count: int) -> Sequence[Message]:
        raise AssertionError("no large messages")


class LineProtocol:
    """Requests ``method args``; replies ``+payload`` / ``-error``, in order; pushes
    ``>key payload`` (``>key`` alone ends that subscription); the handshake ``HELLO`` is
    answered ``+HI``."""

    matching = Matching.IN_ORDER
    ordered_kinds = frozenset({CallKind.UNARY, CallKind.PING})
    max_key = 1000
    error_kind = FAILED
    accepts: ClassVar[dict[CallKind, dict[Any, bool]]] = {
        CallKind.UNARY: {REPLY: True, FAILED: True},
        CallKind.PING: {REPLY: True, FAILED: True},
        CallKind.STREAM: {PUSH: False, END: True, FAILED: True},
        CallKind.HANDSHAKE: {},
    }

    def __init__(self, *, blocking: frozenset[str] = frozenset()) -> None:
        self.decoder = LineDecoder(self)
        self.is_open = False
        self._blocking = blocking
        self._methods: dict[int, str] = {}

    def message(self, line: bytes) -> Message:
        if not self.is_open:
            return ("hello", HANDSHAKE_KEY, line)
        if line.startswith(b">"):
            key, _, payload = line[1:].partition(b" ")
            return (PUSH if payload else END, int(key), payload)
        if line.startswith(b"="):  # a reply that names its call
            key, _, payload = line[1:].partition(b" ")
            return (REPLY, int(key), payload)
        if line[:1] in (b"+", b"-"):
            return (REPLY if line[:1] == b"+" else FAILED, IN_ORDER, line[1:])
        raise ProtocolError(f"a line of no known kind: {line!r}")

    def hello(self) -> bytes:
        return b"HELLO\n"

    def unrouted(self, kind: Any, key: int, payload: bytes) -> DualioError | HandshakeDone | None:
        if kind == "hello" and payload == b"+HI":
            self.is_open = True
            return HANDSHAKE_DONE
        return ProtocolError(f"{kind} for no call")

    def request(self, key: int, method: str, args: bytes) -> bytes:
        self._methods[key] = method
        return method.encode() + b" " + args + b"\n"

    def probe(self, key: int) -> bytes:
        return b"PING\n"

    def cancel(self, key: int) -> bytes | None:
        return None if self._methods.get(key) in self._blocking else b""

    def decode_error(self, key: int, payload: bytes) -> DualioError:
        return RemoteError(payload.decode(), code=1)

    def unsent(self, key: int) -> None:
        pass

    def goodbye(self) -> bytes:
        self.is_open = False
        return b"QUIT\n"

    def describe_kind(self, kind: Any) -> str:
        return f"{kind} line"


def opened(protocol: LineProtocol | None = None) -> CallTable[None]:
    table: CallTable[None] = CallTable(protocol or LineProtocol(), now=0.0)
    assert table.hello() == b"HELLO\n"
    assert table.receive(b"+HI\n", 0.0) is None
    assert table.handshake.done and table.protocol.is_open
    return table


def start(table: CallTable[None], method: str, args: bytes = b"") -> CallState[None]:
    call, data = table.start(CallKind.UNARY, method, args)
    assert data == method.encode() + b" " + args + b"\n"
    return call


def test_replies_in_order_reach_the_calls_in_the_order_their_requests_were_written() -> None:
    table = opened()
    first, second, third = start(table, "GET", b"a"), start(table, "GET", b"b"), start(table, "GET", b"c")
    assert table.receive(b"+1\n+2\n", 0.0) is None
    assert first.outcome() == b"1" and second.outcome() == b"2" and not third.done
    assert table.receive(b"-WRONGTYPE\n", 0.0) is None
    with pytest.raises(RemoteError, match="WRONGTYPE"):
        third.outcome()
    assert table.in_flight == 0


def test_a_given_up_calls_reply_is_read_and_dropped_and_nothing_is_sent() -> None:
    table = opened()
    left, kept = start(table, "GET", b"slow"), start(table, "GET", b"next")
    assert list(procedure.give_up(table, left)) == []  # nothing to tell the server
    assert left.abandoned and table.in_flight == 2
    assert table.receive(b"+late\n+mine\n", 0.0) is None
    assert kept.outcome() == b"mine"  # never the given-up call's answer
    assert table.dropped == 1 and table.in_flight == 0


def test_a_call_the_server_holds_cannot_be_given_up_without_the_connection() -> None:
    table = opened(LineProtocol(blocking=frozenset({"BLPOP"})))
    held, behind = start(table, "BLPOP", b"q 0"), start(table, "GET", b"x")
    assert list(procedure.give_up(table, held)) == []
    assert isinstance(table.failure, ConnectionLost) and "held it" in str(table.failure)
    with pytest.raises(ConnectionLost):
        behind.outcome()


def test_a_request_that_never_left_leaves_the_order_too() -> None:
    table = opened()
    unsent, sent = start(table, "GET", b"a"), start(table, "GET", b"b")
    table.unsent(unsent, may_have_left=False)
    assert table.receive(b"+b\n", 0.0) is None
    assert sent.outcome() == b"b"


def test_pushes_go_to_the_subscription_they_name_between_replies() -> None:
    table = opened()
    stream, _ = table.start(CallKind.STREAM, "SUBSCRIBE", b"news")
    unary = start(table, "GET", b"a")
    pushed = f">{stream.id} hello\n+a\n>{stream.id} world\n>{stream.id}\n".encode()
    assert table.receive(pushed, 0.0) is None
    assert unary.outcome() == b"a"
    items = [table.next_item(stream), table.next_item(stream), table.next_item(stream)]
    assert items == [b"hello", b"world", Next.END]


def test_the_keepalive_probe_is_the_protocols_and_its_reply_comes_in_order() -> None:
    table = opened()
    table.keepalive = 0.001
    busy = start(table, "GET", b"a")
    assert table.keepalive_due(1.0) == b"PING\n"  # a second of silence
    assert table.receive(b"+a\n+PONG\n", 0.0) is None
    assert busy.outcome() == b"a" and table.in_flight == 0


def test_garbage_fails_the_connection_with_a_protocol_error() -> None:
    table = opened()
    call = start(table, "GET", b"a")
    failure = table.receive(b"*what\n", 0.0)
    assert isinstance(failure, ProtocolError)
    with pytest.raises(ProtocolError):
        call.outcome()


def test_a_message_of_the_wrong_kind_for_its_call_fails_the_connection() -> None:
    table = opened()
    call = start(table, "GET", b"a")
    failure = table.receive(f">{call.id} pushed\n".encode(), 0.0)
    assert isinstance(failure, ProtocolError) and "push line" in str(failure)


def test_a_reply_that_names_its_call_takes_that_call_out_of_the_order() -> None:
    table = opened()
    named, next_in_order = start(table, "GET", b"a"), start(table, "GET", b"b")
    assert table.receive(f"={named.id} by-key\n+in-order\n".encode(), 0.0) is None
    assert named.outcome() == b"by-key" and next_in_order.outcome() == b"in-order"


def test_a_transport_that_writes_later_puts_each_call_in_the_order_as_it_writes() -> None:
    """The blocking transport starts calls under the table's lock and writes them under
    its write lock: started 1, 2 but written 2, 1, the replies follow the writes."""
    table: CallTable[None] = CallTable(LineProtocol(), order_at_start=False, now=0.0)
    table.hello()
    assert table.receive(b"+HI\n", 0.0) is None
    first, second = start(table, "GET", b"1"), start(table, "GET", b"2")
    table.enter_order(second)  # written first
    table.enter_order(first)
    assert table.receive(b"+two\n+one\n", 0.0) is None
    assert first.outcome() == b"one" and second.outcome() == b"two"


def test_a_failed_connection_forgets_the_order() -> None:
    table = opened()
    call = start(table, "GET", b"a")
    table.fail(ConnectionLost("gone"))
    assert table.ordered and table.in_flight == 0
    with pytest.raises(ConnectionLost):
        call.outcome()

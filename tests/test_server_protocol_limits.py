"""ServerProtocol's own limits, as a pure state machine: the small frame limit before the
handshake, nothing after a connection-level end, and one count per ERROR frame."""

from __future__ import annotations

import pytest

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import MAX_HELLO_FRAME, ClientProtocol, decode_error
from dualio_transports.dualio_protocol.frames import HEADER, FrameDecoder, FrameKind, encode_frame
from dualio_transports.dualio_protocol.server_protocol import CancelReceived, RequestReceived, ServerProtocol
from dualio_transports.wire.errors import ErrorCode


class Count:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> None:
        self.n += 1


def kinds(data: bytes) -> list[tuple[FrameKind, int]]:
    return [(f.kind, f.id) for f in FrameDecoder(1 << 30).feed(data)]


def echo(rid: int, body: bytes) -> bytes:
    return encode_frame(FrameKind.REQUEST, rid, methods.encode_request("echo", methods.F64.pack(0.0) + body))


@pytest.mark.parametrize("length", [MAX_HELLO_FRAME + 1, 16 * 1024 * 1024, 0xFFFFFFFF])
def test_a_frame_longer_than_a_hello_is_refused_before_the_handshake(length: int) -> None:
    errors = Count()
    server = ServerProtocol(token="secret", on_error=errors)
    assert server.receive(HEADER.pack(length, FrameKind.HELLO, 0)[:4]) == []  # the prefix alone
    assert server.closing and server.buffered == 0
    [frame] = FrameDecoder().feed(server.take_output())
    assert (frame.kind, frame.id) == (FrameKind.ERROR, 0)
    assert decode_error(frame.payload).code == ErrorCode.FRAME_TOO_LARGE
    assert errors.n == 1


@pytest.mark.parametrize("handshaken", [False, True], ids=["before-hello", "after-hello"])
@pytest.mark.parametrize("length", [0, 3, 4])
def test_a_length_prefix_under_the_header_is_bad_at_once_in_both_phases(
    length: int, handshaken: bool
) -> None:
    """One decoder rule before and after the handshake: ``00 00 00 03 cc`` is BAD_FRAME at
    once, never held until the handshake timeout."""
    server = ServerProtocol()
    if handshaken:
        server.receive(ClientProtocol().hello())
        server.take_output()
    server.receive(length.to_bytes(4, "big") + b"\xcc")
    assert server.closing and server.buffered == 0
    [frame] = FrameDecoder().feed(server.take_output())
    assert (frame.kind, frame.id) == (FrameKind.ERROR, 0)
    assert decode_error(frame.payload).code == ErrorCode.BAD_FRAME


def test_an_incomplete_hello_holds_at_most_one_hello() -> None:
    server = ServerProtocol(token="secret")
    hello = ClientProtocol(token="t" * 1024).hello()
    assert len(hello) == 4 + MAX_HELLO_FRAME
    for i in range(len(hello) - 1):  # byte by byte: nothing happens until the last one
        assert server.receive(hello[i : i + 1]) == []
        assert server.buffered == i + 1 and not server.closing
    server.receive(hello[-1:])
    assert server.closing  # the whole HELLO arrived; its token is wrong
    assert decode_error(FrameDecoder().feed(server.take_output())[0].payload).code == ErrorCode.UNAUTHORIZED


def test_requests_pipelined_behind_the_hello_get_the_full_limit() -> None:
    server = ServerProtocol()
    big = b"x" * 100_000  # far over MAX_HELLO_FRAME, well under the 16 MiB maximum
    events = server.receive(ClientProtocol().hello() + echo(1, big) + encode_frame(FrameKind.CANCEL, 1))
    assert events == [RequestReceived(1, "echo", methods.F64.pack(0.0) + big), CancelReceived(1)]
    assert kinds(server.take_output()) == [(FrameKind.WELCOME, 0)]
    assert not server.closing
    # and a refused HELLO stops there: what follows it is never looked at
    refused = ServerProtocol(token="secret")
    assert refused.receive(ClientProtocol(token="wrong").hello() + echo(1, big)) == []
    assert kinds(refused.take_output()) == [(FrameKind.ERROR, 0)]


def test_the_configured_maximum_applies_after_the_handshake() -> None:
    server = ServerProtocol(max_frame_size=4096)
    server.receive(ClientProtocol().hello())
    server.take_output()
    assert server.receive(HEADER.pack(4097, FrameKind.REQUEST, 1)) == []
    assert server.closing
    [frame] = FrameDecoder().feed(server.take_output())
    assert decode_error(frame.payload).code == ErrorCode.FRAME_TOO_LARGE


def test_a_small_maximum_also_bounds_the_hello() -> None:
    server = ServerProtocol(max_frame_size=100)
    assert server.hello_limit == 100
    server.receive(HEADER.pack(101, FrameKind.HELLO, 0))
    assert server.closing


@pytest.mark.parametrize("end", ["error-0", "client-close", "goodbye", "lost"])
def test_nothing_is_sent_after_the_connection_ends(end: str) -> None:
    errors = Count()
    server = ServerProtocol(on_error=errors)
    server.receive(ClientProtocol().hello())
    server.take_output()
    [one, two] = server.receive(echo(1, b"a") + echo(2, b"b"))
    assert isinstance(one, RequestReceived) and isinstance(two, RequestReceived)
    counted = 0
    if end == "error-0":
        server.receive(HEADER.pack(5, 99, 3))
        counted = 1
        assert kinds(server.take_output()) == [(FrameKind.ERROR, 0)]
    elif end == "client-close":
        server.receive(encode_frame(FrameKind.CLOSE, 0))
    elif end == "goodbye":
        assert kinds(server.goodbye()) == [(FrameKind.CLOSE, 0)]
    else:
        server.connection_lost()
    assert server.closing
    assert server.respond(1, b"a") == b""
    assert server.fail(2, ErrorCode.CANCELLED, "cancelled") == b""
    assert server.stream_item(2, b"x") == b"" and server.stream_end(2) == b""
    assert server.goodbye() == b""
    assert server.receive(echo(3, b"c")) == [] and server.take_output() == b""
    server.abort("too late")  # the connection is already ending: not a second error
    assert errors.n == counted


def test_every_error_frame_is_counted_once() -> None:
    errors = Count()
    server = ServerProtocol(on_error=errors)
    server.receive(ClientProtocol().hello())
    server.take_output()
    server.receive(encode_frame(FrameKind.REQUEST, 1, b"\x00"))  # bad envelope: the protocol layer
    assert kinds(server.take_output()) == [(FrameKind.ERROR, 1)]
    assert errors.n == 1
    server.receive(echo(2, b"x"))
    assert kinds(server.fail(2, ErrorCode.UNKNOWN_METHOD, "no")) == [(FrameKind.ERROR, 2)]
    assert errors.n == 2
    small = ServerProtocol(max_frame_size=100, on_error=errors)
    small.receive(ClientProtocol().hello())
    small.receive(echo(3, b"x"))
    assert kinds(small.respond(3, b"y" * 200)) == [(FrameKind.ERROR, 3)]  # the answer is too large
    assert errors.n == 3
    assert kinds(server.respond(4, b"ok")) == [(FrameKind.RESPONSE, 4)]
    assert errors.n == 3
    server.abort("handshake deadline")  # a connection ended without a frame counts once
    server.abort("again")
    assert errors.n == 4

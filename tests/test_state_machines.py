"""The client's call table and ServerProtocol as pure state machines, wired to each other in memory."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import (
    ClientProtocol,
    State,
    connection_error,
    decode_error,
    encode_error,
)
from dualio_transports.dualio_protocol.frames import Frame, FrameDecoder, FrameKind, encode_frame
from dualio_transports.dualio_protocol.server_protocol import CancelReceived, RequestReceived, ServerProtocol
from dualio_transports.wire.call_table import CallState, CallTable
from dualio_transports.wire.errors import (
    AuthenticationError,
    ClosedError,
    ConnectError,
    ErrorCode,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
)
from dualio_transports.wire.protocol import CallKind
from dualio_transports.wire.request import Request, StreamRequest

Table = CallTable[None]
Call = CallState[None]


def frames(data: bytes) -> list[Frame]:
    decoder = FrameDecoder()
    out = decoder.feed(data)
    assert decoder.buffered == 0
    return out


def connection_refusal(server: ServerProtocol) -> RemoteError:
    """The single ERROR id 0 a failing server queued; the server must be closing."""
    assert server.closing
    (frame,) = frames(server.take_output())
    assert (frame.kind, frame.id) == (FrameKind.ERROR, 0)
    return decode_error(frame.payload)


def connected(token: str | None = None, **server_kw: int) -> tuple[Table, ServerProtocol]:
    client: Table = CallTable(ClientProtocol(token=token), now=0.0)
    server = ServerProtocol(token=token, **server_kw)
    assert server.receive(client.hello()) == []
    assert client.receive(server.take_output(), 0.0) is None
    assert client.handshake.done and client.handshake.error is None
    assert client.protocol.state is State.OPEN and server.handshaken
    return client, server


def start(
    client: Table, server: ServerProtocol, op: Request[Any] | StreamRequest[Any]
) -> tuple[Call, RequestReceived]:
    kind = CallKind.STREAM if isinstance(op, StreamRequest) else CallKind.UNARY
    call, data = client.start(kind, op.method, op.args)
    (event,) = server.receive(data)
    assert event == RequestReceived(call.id, op.method, op.args)
    return call, event


def send(
    client: Table, server: ServerProtocol, op: Request[Any] | StreamRequest[Any]
) -> RequestReceived:
    return start(client, server, op)[1]


# -- handshake -------------------------------------------------------------------

def test_handshake_ok_and_server_max_is_learned() -> None:
    client, server = connected(token="s3cret", max_frame_size=4096)
    assert client.protocol.server_max_frame_size == 4096
    assert not server.closing and server.take_output() == b""
    with pytest.raises(FrameTooLarge):
        client.start(CallKind.UNARY, "echo", b"x" * 4096)
    assert client.in_flight == 0


@pytest.mark.parametrize("client_token", [None, "", "wrong", "s3cre", "s3cret!"])
def test_wrong_or_missing_token_is_unauthorized(client_token: str | None) -> None:
    client: Table = CallTable(ClientProtocol(token=client_token), now=0.0)
    server = ServerProtocol(token="s3cret")
    assert server.receive(client.hello()) == []
    assert not server.handshaken
    assert server.closing
    refusal = server.take_output()
    (frame,) = frames(refusal)
    assert (frame.kind, frame.id) == (FrameKind.ERROR, 0)
    assert decode_error(frame.payload).code == ErrorCode.UNAUTHORIZED
    assert isinstance(connection_error(frame.payload), AuthenticationError)
    failure = client.receive(refusal, 0.0)
    assert isinstance(failure, AuthenticationError)
    assert client.handshake.done and client.handshake.error is failure
    with pytest.raises(AuthenticationError):
        client.handshake_outcome()
    assert client.protocol.state is State.HANDSHAKING
    # once closing, the server ignores everything
    assert server.receive(client.hello() + encode_frame(FrameKind.PING, 1)) == []
    assert server.take_output() == b""


def test_server_without_token_accepts_any_token() -> None:
    server = ServerProtocol()
    server.receive(ClientProtocol(token="anything").hello())
    assert server.handshaken and frames(server.take_output())[0].kind is FrameKind.WELCOME


def test_version_mismatch() -> None:
    server = ServerProtocol()
    server.receive(encode_frame(FrameKind.HELLO, 0, struct.pack(">H", 2)))
    error = connection_refusal(server)
    assert error.code == ErrorCode.UNSUPPORTED_VERSION
    payload = encode_error(0, error.code, error.message)[9:]
    converted = connection_error(payload)
    assert isinstance(converted, ConnectError) and not isinstance(converted, AuthenticationError)
    with pytest.raises(ProtocolError):
        ClientProtocol().welcome(struct.pack(">HI", 2, 65536))
    client: Table = CallTable(ClientProtocol(), now=0.0)
    failure = client.receive(encode_frame(FrameKind.WELCOME, 0, struct.pack(">HI", 2, 65536)), 0.0)
    assert isinstance(failure, ProtocolError)
    with pytest.raises(ConnectError, match="handshake failed"):
        client.handshake_outcome()


@pytest.mark.parametrize("payload", [b"", b"\x00"])
def test_hello_without_version_is_bad_frame(payload: bytes) -> None:
    server = ServerProtocol()
    server.receive(encode_frame(FrameKind.HELLO, 0, payload))
    assert connection_refusal(server).code == ErrorCode.BAD_FRAME


def test_second_hello_is_bad_frame() -> None:
    client, server = connected()
    server.receive(client.hello())
    assert connection_refusal(server).code == ErrorCode.BAD_FRAME


@pytest.mark.parametrize("kind", [FrameKind.REQUEST, FrameKind.PING, FrameKind.CANCEL, FrameKind.CLOSE])
def test_frames_before_hello_are_not_ready(kind: FrameKind) -> None:
    server = ServerProtocol()
    payload = methods.encode_request("stats", b"") if kind is FrameKind.REQUEST else b""
    assert server.receive(encode_frame(kind, 1, payload)) == []
    assert connection_refusal(server).code == ErrorCode.NOT_READY
    assert not server.handshaken


# -- connection-level errors -------------------------------------------------------

def test_duplicate_request_id_in_flight_is_a_connection_error() -> None:
    client, server = connected()
    event = send(client, server, methods.sleep(1))
    again = encode_frame(FrameKind.REQUEST, event.id, methods.encode_request("stats", b""))
    assert server.receive(again) == []
    assert connection_refusal(server).code == ErrorCode.BAD_FRAME


def test_request_id_is_reusable_after_its_final_frame() -> None:
    client, server = connected()
    event = send(client, server, methods.stats())
    client.receive(server.respond(event.id, b"{}"), 0.0)
    again = encode_frame(FrameKind.REQUEST, event.id, methods.encode_request("stats", b""))
    assert server.receive(again) == [RequestReceived(event.id, "stats", b"")]
    assert not server.closing


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (encode_frame(FrameKind.REQUEST, 0, methods.encode_request("stats", b"")), ErrorCode.BAD_FRAME),
        (encode_frame(FrameKind.PING, 0), ErrorCode.BAD_FRAME),
        (bytes.fromhex("000000050c00000001"), ErrorCode.BAD_FRAME),
        (bytes.fromhex("00000003"), ErrorCode.BAD_FRAME),
        (encode_frame(FrameKind.RESPONSE, 1), ErrorCode.BAD_FRAME),
        (encode_frame(FrameKind.WELCOME, 0), ErrorCode.BAD_FRAME),
        ((1 << 24).to_bytes(4, "big"), ErrorCode.FRAME_TOO_LARGE),
    ],
    ids=["request-id-0", "ping-id-0", "unknown-kind", "short-length", "response", "welcome",
         "too-large"],
)
def test_bad_input_fails_the_connection(data: bytes, code: ErrorCode) -> None:
    _, server = connected(max_frame_size=(1 << 24) - 1)
    good = encode_frame(FrameKind.REQUEST, 5, methods.encode_request("stats", b""))
    assert server.receive(data + good) == []
    assert connection_refusal(server).code == code


def test_bad_request_payload_is_a_request_level_error() -> None:
    _, server = connected()
    assert server.receive(encode_frame(FrameKind.REQUEST, 3, b"\x09ab")) == []
    (frame,) = frames(server.take_output())
    assert (frame.kind, frame.id) == (FrameKind.ERROR, 3)
    assert decode_error(frame.payload).code == ErrorCode.BAD_ARGUMENTS
    assert not server.closing and 3 not in server.open_ids


# -- calls, streams, ping, cancel, close -----------------------------------------

def test_request_response_round_trip() -> None:
    client, server = connected()
    call, event = start(client, server, methods.echo(b"hello", 0.25))
    assert methods.parse_delay_and_body("echo", event.args) == (0.25, b"hello")
    assert client.in_flight == 1 and event.id in server.open_ids and not call.done
    assert client.receive(server.respond(event.id, b"hello"), 0.0) is None
    assert call.done and call.outcome() == b"hello"
    assert client.in_flight == 0 and event.id not in server.open_ids


def test_oversize_response_becomes_frame_too_large_error() -> None:
    client, server = connected(max_frame_size=1024)
    call, event = start(client, server, methods.blob(2000, 1, True))
    assert client.receive(server.respond(event.id, b"x" * 2000), 0.0) is None
    assert isinstance(call.error, RemoteError) and call.error.code == ErrorCode.FRAME_TOO_LARGE


def test_stream_round_trip() -> None:
    client, server = connected()
    call, event = start(client, server, methods.words(3, 0))
    data = b"".join(server.stream_item(event.id, methods.word_at(i).encode()) for i in range(3))
    assert client.receive(data, 0.0) is None
    assert list(call.items or ()) == [b"alpha", b"hotel", b"oscar"] and not call.done
    assert client.in_flight == 1
    assert client.receive(server.stream_end(event.id), 0.0) is None
    assert call.done and call.error is None
    assert client.in_flight == 0


def test_ping_pong() -> None:
    client, server = connected()
    call, data = client.start(CallKind.PING, "ping", b"")
    assert server.receive(data) == []
    assert client.receive(server.take_output(), 0.0) is None
    assert call.done and call.outcome() == b""
    assert client.in_flight == 0
    server.receive(encode_frame(FrameKind.PING, 7, b"\x01\x02"))
    assert frames(server.take_output()) == [Frame(FrameKind.PONG, 7, b"\x01\x02")]


def test_ping_with_an_open_request_id_is_a_connection_error() -> None:
    client, server = connected()
    event = send(client, server, methods.sleep(1))
    server.receive(encode_frame(FrameKind.PING, event.id))
    assert connection_refusal(server).code == ErrorCode.BAD_FRAME


def test_cancel_open_and_unknown_ids() -> None:
    client, server = connected()
    call, event = start(client, server, methods.sleep(1))
    assert server.receive(encode_frame(FrameKind.CANCEL, event.id + 1)) == []
    assert server.receive(client.give_up(call)) == [CancelReceived(event.id)]
    assert server.take_output() == b"" and not server.closing


def test_abandon_drops_frames_until_final_then_id_is_reusable() -> None:
    client, server = connected()
    call, event = start(client, server, methods.words(5, 1))
    rid = event.id
    cancel = client.give_up(call)
    assert frames(cancel) == [Frame(FrameKind.CANCEL, rid)]
    assert client.give_up(call) == b""
    assert server.receive(cancel) == [CancelReceived(rid)]
    late = server.stream_item(rid, b"alpha") + server.fail(rid, ErrorCode.CANCELLED, "cancelled")
    assert client.receive(late, 0.0) is None
    assert client.dropped == 2 and client.in_flight == 0
    client._next_id = rid  # white box: make the allocator try the freed id next
    reused, _ = client.start(CallKind.UNARY, "stats", b"")
    assert reused.id == rid
    assert client.receive(server.respond(rid, b"{}"), 0.0) is None
    assert reused.outcome() == b"{}"
    assert isinstance(client.receive(server.respond(rid, b""), 0.0), ProtocolError)


def test_open_id_is_never_handed_out_again() -> None:
    client, _ = connected()
    call, _ = client.start(CallKind.UNARY, "stats", b"")
    client.give_up(call)
    client._next_id = call.id  # white box: the allocator must skip the still-open id
    other, _ = client.start(CallKind.UNARY, "stats", b"")
    assert other.id != call.id and other.id != 0


def test_client_close_and_server_goodbye() -> None:
    client, server = connected()
    data = client.close()
    assert frames(data) == [Frame(FrameKind.CLOSE, 0)]
    assert client.protocol.state is State.CLOSED and client.close() == b""
    assert server.receive(data) == []
    assert server.closing and server.close_reason == "client closed"
    assert server.take_output() == b""
    client2, server2 = connected()
    assert isinstance(client2.receive(server2.goodbye(), 0.0), ClosedError)
    assert server2.closing


# -- what the client refuses -------------------------------------------------------

@pytest.mark.parametrize(
    "data",
    [
        encode_frame(FrameKind.RESPONSE, 42),
        encode_frame(FrameKind.STREAM_ITEM, 42, b"x"),
        encode_frame(FrameKind.REQUEST, 1),
        encode_frame(FrameKind.PONG, 0),
        encode_frame(FrameKind.WELCOME, 0, struct.pack(">HI", 1, 65536)),
    ],
    ids=["response-not-open", "item-not-open", "request-kind", "pong-id-0", "second-welcome"],
)
def test_client_protocol_errors(data: bytes) -> None:
    client, _ = connected()
    assert isinstance(client.receive(data, 0.0), ProtocolError)
    assert client.closed


def test_client_refuses_request_frames_before_welcome() -> None:
    client: Table = CallTable(ClientProtocol(), now=0.0)
    assert isinstance(client.receive(encode_frame(FrameKind.RESPONSE, 1), 0.0), ProtocolError)
    with pytest.raises(ConnectError):
        client.handshake_outcome()


def test_client_enforces_its_own_maximum() -> None:
    client: Table = CallTable(ClientProtocol(max_frame_size=1024), now=0.0)
    server = ServerProtocol()
    server.receive(client.hello())
    client.receive(server.take_output(), 0.0)
    call, event = start(client, server, methods.blob(2000, 1, True))
    assert isinstance(client.receive(server.respond(event.id, b"x" * 2000), 0.0), FrameTooLarge)
    assert isinstance(call.error, FrameTooLarge)


def test_error_payload_decoding() -> None:
    error = decode_error(encode_error(1, ErrorCode.INTERNAL, "boom ü")[9:])
    assert (error.code, error.message) == (ErrorCode.INTERNAL, "boom ü")
    assert decode_error(b"\x00").code == ErrorCode.BAD_FRAME
    unknown = decode_error(b"\x01\x2c" + b"x")
    assert (unknown.code, unknown.message) == (300, "x")
